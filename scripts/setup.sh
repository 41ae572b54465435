#!/usr/bin/env bash
# Installs what building needs, idempotently: the wasm target, wasm-bindgen-cli at the pinned
# version, wasm-pack, nasm (for OpenH264's SIMD) and the npm packages.
source "$(dirname "$0")/lib.sh"

step "Toolchain"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  note "wasm32-unknown-unknown target: present"
else
  note "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

ensure_nasm

# The two build tools are installed side by side (each build ends in a long single-threaded
# stretch the other fills) and with light optimisation: they are tools, not the product.
# opt-level 1 built wasm-bindgen-cli in 114 s against 136 s at the default 3, and it still
# processes our wasm in 0.2 s.
installs=()
version="$(wasm_bindgen_version)"
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$version" ]; then
  note "wasm-bindgen-cli $version: present"
else
  note "installing wasm-bindgen-cli $version (a few minutes, once)"
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 cargo install -q wasm-bindgen-cli --version "$version" --force &
  installs+=($!)
fi
if have wasm-pack; then
  note "wasm-pack: present"
else
  note "installing wasm-pack (once)"
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 cargo install -q wasm-pack --version 0.15.1 &
  installs+=($!)
fi
for install in "${installs[@]}"; do
  wait "$install"
done

step "npm packages"
stamp="$ROOT/node_modules/.studio-lock"
if [ -f "$stamp" ] && cmp -s "$ROOT/package-lock.json" "$stamp"; then
  note "node_modules matches package-lock.json"
else
  (cd "$ROOT" && npm ci --no-audit --no-fund)
  cp "$ROOT/package-lock.json" "$stamp"
fi
