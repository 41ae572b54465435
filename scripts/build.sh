#!/usr/bin/env bash
# Builds everything: core-wasm into pkg/, the app into app/dist, server-stub in release mode
# (its server; the bench builds the engine's command-line renderer itself).
#
# The server's release build needs only the toolchain, so it starts first and runs beside the
# rest: its last stretch (server-stub's own crate, then the binary) leaves a core idle much of
# the time, which the wasm tool, the wasm and the app fill. The wasm builds in a target folder
# of its own (target/wasm), since cargo holds a target folder's lock for a whole build.
source "$(dirname "$0")/lib.sh"
bash "$ROOT/scripts/setup.sh" toolchain

mkdir -p "$ROOT/target"
server_log="$ROOT/target/server-stub-build.log"
step "server-stub (release): building beside the rest, log in target/server-stub-build.log"
# In a process group of its own (job control on for this one job), so that a failure elsewhere
# stops the whole build: cargo and its rustcs.
set -m
(cd "$ROOT" && exec cargo build --release -p server-stub --bin server-stub) >"$server_log" 2>&1 &
server_build=$!
set +m
trap 'kill -- -$server_build 2>/dev/null || true' EXIT

# wasm-bindgen's --target web, from its library (tools/wasm-bindgen): unoptimised, in a target
# folder of its own, since the server's build holds target/'s lock.
step "studio-wasm-bindgen (wasm-bindgen's library, unoptimised)"
(cd "$ROOT" && cargo build --quiet -p studio-wasm-bindgen --target-dir "$ROOT/target/tools")
wasm_bindgen="$ROOT/target/tools/debug/studio-wasm-bindgen"
bash "$ROOT/scripts/setup.sh" npm

# Whether the stamp `made` (in target/, touched when a step succeeds) exists and nothing under the other
# paths is newer: the wasm steps and Vite redo all their work every time (a few seconds each), so an
# unchanged start skips them.
up_to_date() {
  local made="$1"
  shift
  [ -e "$made" ] && [ -z "$(find "$@" -newer "$made" -print -quit)" ]
}

step "core-wasm -> pkg/ (cargo, wasm-bindgen, wasm-opt)"
if [ -e "$ROOT/pkg/studio_core_bg.wasm" ] && [ -e "$ROOT/pkg/studio_sequence_bg.wasm" ] && [ -e "$ROOT/pkg/studio_review_bg.wasm" ] && up_to_date "$ROOT/target/.built-pkg" "$ROOT/core-wasm" "$ROOT/Cargo.toml" "$ROOT/Cargo.lock"; then
  note "pkg/: up to date"
else
  # Panic messages name their source files: shipped without this machine's registry folder.
  remap=""
  shopt -s nullglob
  for registry in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
    remap+=" --remap-path-prefix=$registry="
  done
  rm -rf "$ROOT/pkg"
  # Three wasm modules from the one crate: the studio's, which the studio's pages load; with the
  # `sequence-editor` feature the sequence editor's, which the studio loads when a sequence is
  # first opened; and with `review-page` the review page's, all a review link's page loads.
  # Built one after the other in one target folder, they share its dependencies.
  for module in studio_core:"" studio_sequence:sequence-editor studio_review:review-page; do
    name="${module%%:*}"
    features="${module#*:}"
    (cd "$ROOT" && RUSTFLAGS="$remap" cargo build --quiet -p studio-core --lib --target wasm32-unknown-unknown \
      --profile wasm-release --target-dir "$ROOT/target/wasm" ${features:+--features "$features"})
    "$wasm_bindgen" "$ROOT/target/wasm/wasm32-unknown-unknown/wasm-release/studio_core.wasm" "$ROOT/pkg" "$name"
    # binaryen's npm build (132): Debian's 108 breaks wasm-bindgen's output. The features
    # enabled are those rustc's wasm32 target already emits. --low-memory-unused lets constant
    # offsets fold into loads and stores (755 bytes on the wire): a pointer only wraps past 4 GB
    # into the first 1 KB, which no Rust pointer does in a memory this size. No --converge: its
    # further rounds cost a first start 12 s of CPU (wasm-opt 34 to 22 s, three modules) for
    # 125 bytes of the studio's brotli (108,356 against 108,481; the other two came out smaller).
    wasm-opt -Oz --gufa -Oz --low-memory-unused --strip-producers --strip-target-features --enable-bulk-memory \
      --enable-nontrapping-float-to-int --enable-sign-ext --enable-reference-types --enable-mutable-globals \
      --enable-multivalue "$ROOT/pkg/${name}_bg.wasm" -o "$ROOT/pkg/${name}_bg.wasm"
  done
  touch "$ROOT/target/.built-pkg"
fi
for wasm in studio_core_bg studio_sequence_bg studio_review_bg; do
  note "$wasm.wasm: $(wc -c < "$ROOT/pkg/$wasm.wasm") bytes, $(gzip -9c "$ROOT/pkg/$wasm.wasm" | wc -c) gzip"
done

step "app -> app/dist (Vite)"
if [ -e "$ROOT/app/dist/review.html" ] && up_to_date "$ROOT/target/.built-app" "$ROOT/app/src" "$ROOT/app/index.html" "$ROOT/app/review.html" \
  "$ROOT/app/vite.config.ts" "$ROOT/app/package.json" "$ROOT/package-lock.json" "$ROOT/pkg"; then
  note "app/dist: up to date"
else
  # The studio, then the review page beside it (its own entry, wasm and chunk).
  (cd "$ROOT/app" && npx vite build --logLevel warn && npx vite build --mode review --logLevel warn)
  touch "$ROOT/target/.built-app"
fi

step "server-stub (release)"
built=0
wait "$server_build" || built=$?
trap - EXIT
if [ "$built" -ne 0 ]; then
  cat "$server_log"
  echo "server-stub did not build" >&2
  exit 1
fi
grep -E "^ *Finished" "$server_log" | sed 's/^ */    /'
