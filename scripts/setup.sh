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

version="$(wasm_bindgen_version)"
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$version" ]; then
  note "wasm-bindgen-cli $version: present"
else
  note "installing wasm-bindgen-cli $version (a few minutes, once)"
  cargo install wasm-bindgen-cli --version "$version" --force
fi

if have wasm-pack; then
  note "wasm-pack: present"
else
  note "installing wasm-pack (once)"
  cargo install wasm-pack --version 0.15.1
fi

if have nasm; then
  note "nasm: present"
else
  note "installing nasm through apt (OpenH264 builds 2x faster code with it)"
  apt_install nasm
fi

step "npm packages"
stamp="$ROOT/node_modules/.studio-lock"
if [ -f "$stamp" ] && cmp -s "$ROOT/package-lock.json" "$stamp"; then
  note "node_modules matches package-lock.json"
else
  (cd "$ROOT" && npm ci --no-audit --no-fund)
  cp "$ROOT/package-lock.json" "$stamp"
fi
