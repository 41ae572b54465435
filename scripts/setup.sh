#!/usr/bin/env bash
# Installs what building needs, idempotently: the wasm target, wasm-bindgen-cli at the pinned
# version, nasm (for OpenH264's SIMD) and the npm packages.
source "$(dirname "$0")/lib.sh"

step "Toolchain"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  note "wasm32-unknown-unknown target: present"
else
  note "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if have nasm; then
  note "nasm: present"
else
  note "installing nasm through apt (OpenH264 builds 2x faster code with it)"
  apt_install nasm
fi

# wasm-bindgen-cli is installed unoptimised (a tool, not the product): at opt-level 0 it built
# in 39 s against 114 s at 1 (136 s at the default 3), and still processes our wasm in 0.4 s
# (0.1 s at 1). wasm-pack is not installed: scripts/build.sh runs the three steps it ran
# (cargo, wasm-bindgen, wasm-opt), which saves its 42 s build on a first start.
# wasm-bindgen-cli without its default TLS feature (it downloads nothing here; the test runner
# talks plain HTTP to the local chromedriver) skips ring and rustls, and wasm2es6js is not built.
version="$(wasm_bindgen_version)"
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$version" ]; then
  note "wasm-bindgen-cli $version: present"
else
  note "installing wasm-bindgen-cli $version (a few minutes, once)"
  CARGO_PROFILE_RELEASE_OPT_LEVEL=0 cargo install wasm-bindgen-cli --version "$version" --force \
    --no-default-features --bin wasm-bindgen --bin wasm-bindgen-test-runner
fi

step "npm packages"
stamp="$ROOT/node_modules/.studio-lock"
if [ -f "$stamp" ] && cmp -s "$ROOT/package-lock.json" "$stamp"; then
  note "node_modules matches package-lock.json"
else
  (cd "$ROOT" && npm ci --no-audit --no-fund)
  cp "$ROOT/package-lock.json" "$stamp"
fi
