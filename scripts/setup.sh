#!/usr/bin/env bash
# Installs what building and testing need, idempotently. `setup.sh` does it all; `setup.sh
# toolchain`, `tools` or `npm` one part, so that `build.sh` can start the server's build (which
# needs only the toolchain) before the npm packages are installed. `tools` is for the tests
# (scripts/setup-test.sh): the build runs wasm-bindgen through tools/wasm-bindgen.
source "$(dirname "$0")/lib.sh"

# The wasm target and nasm (for OpenH264's SIMD).
toolchain() {
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
}

# wasm-bindgen-cli at the pinned version, for its test runner (the wasm-bindgen-test layer),
# installed unoptimised (a tool, not the product): at
# opt-level 0 it built in 39 s against 114 s at 1 (136 s at the default 3), and still processes
# our wasm in 0.4 s (0.1 s at 1). Without its default TLS feature (it downloads nothing here;
# the test runner talks plain HTTP to the local chromedriver) it skips ring and rustls, and
# wasm2es6js is not built. wasm-pack is not installed: scripts/build.sh runs the three steps it
# ran (cargo, wasm-bindgen's library, wasm-opt), which saves its 42 s build on a first start.
tools() {
  local version
  version="$(wasm_bindgen_version)"
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$version" ]; then
    note "wasm-bindgen-cli $version: present"
  else
    note "installing wasm-bindgen-cli $version (once)"
    CARGO_PROFILE_RELEASE_OPT_LEVEL=0 cargo install --quiet wasm-bindgen-cli --version "$version" \
      --force --no-default-features --bin wasm-bindgen --bin wasm-bindgen-test-runner
  fi
}

npm_packages() {
  local stamp="$ROOT/node_modules/.studio-lock"
  if [ -f "$stamp" ] && cmp -s "$ROOT/package-lock.json" "$stamp"; then
    note "node_modules matches package-lock.json"
  else
    (cd "$ROOT" && npm ci --no-audit --no-fund)
    cp "$ROOT/package-lock.json" "$stamp"
  fi
}

case "${1:-all}" in
  toolchain) step "Toolchain" && toolchain ;;
  tools) step "wasm-bindgen-cli" && tools ;;
  npm) step "npm packages" && npm_packages ;;
  all) step "Toolchain" && toolchain && step "wasm-bindgen-cli" && tools && step "npm packages" && npm_packages ;;
  *) echo "usage: setup.sh [toolchain|tools|npm|all]" >&2 && exit 2 ;;
esac
