#!/usr/bin/env bash
# Builds everything: core-wasm into pkg/, the app into app/dist, server-stub in release mode.
source "$(dirname "$0")/lib.sh"
bash "$ROOT/scripts/setup.sh"

step "core-wasm -> pkg/ (wasm-pack)"
# Panic messages name their source files: shipped without this machine's registry folder.
remap=""
shopt -s nullglob
for registry in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  remap+=" --remap-path-prefix=$registry="
done
(cd "$ROOT" && RUSTFLAGS="$remap" wasm-pack --quiet build core-wasm --target web --out-dir ../pkg --out-name studio_core --profile wasm-release)
note "studio_core_bg.wasm: $(wc -c < "$ROOT/pkg/studio_core_bg.wasm") bytes, $(gzip -9c "$ROOT/pkg/studio_core_bg.wasm" | wc -c) gzip"

step "app -> app/dist (Vite)"
(cd "$ROOT/app" && npx vite build --logLevel warn)

step "server-stub (release)"
(cd "$ROOT" && cargo build --release -p server-stub)
