#!/usr/bin/env bash
# `npm test`: every test layer. Exits non-zero when any layer fails and ends with a summary.
#
# After the builds, the layers run in two lanes side by side, each layer's output kept in a log
# of its own (printed in full when the layer fails):
# - cargo: fmt, the module check, clippy and the native tests, which compile (both cores while
#   they do);
# - built: the layers that run what the build made (the release server, the app, the provider
#   fakes) and mostly wait on a browser, a server or Python, so they fill what the compiles
#   leave.
# Neither lane's cargo waits on the other's: the browser's wasm tests build in a target folder
# of their own. The end-to-end tests run last, alone. STUDIO_TEST_LANES=1 runs the lanes one
# after the other.
source "$(dirname "$0")/lib.sh"
started=$SECONDS
# A run from a clean clone writes about 7 GB (target/, node_modules, the browser's and the
# database's packages): when the disk has less, say so first, so that a build that stops on
# "No space left on device" is read as the machine's and not the code's.
free_kb="$(df -Pk "$ROOT" | awk 'NR == 2 { print $4 }')"
note "free disk: $((free_kb / 1024 / 1024)) GB"
if [ "$free_kb" -lt $((8 * 1024 * 1024)) ]; then
  note "warning: less than 8 GB free; a clean run needs about 7 GB"
fi
bash "$ROOT/scripts/build.sh"
bash "$ROOT/scripts/setup-test.sh"
cd "$ROOT"

# Every layer's temporary files (test servers' data folders, Chromium profiles, databases) go
# into one folder that is removed when the run ends, whatever a test left behind. Others may
# pass through it: run as root, the database tests start PostgreSQL as its own user, in a
# folder of its own inside.
TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/studio-test.XXXXXX")"
chmod 755 "$TMPDIR"
export TMPDIR
logs="$ROOT/target/test-logs"
rm -rf "$logs"
mkdir -p "$logs"
lanes=()
# Keeps the run's own exit status: under `set -e`, a `kill` with no lane left to stop would
# otherwise end a passing run with status 2.
finish() {
  local status=$?
  if [ "${#lanes[@]}" -gt 0 ]; then
    kill "${lanes[@]}" 2>/dev/null || true
  fi
  rm -rf "$TMPDIR"
  exit "$status"
}
trap finish EXIT

step "Provider fakes (release, for the SDK and end-to-end tests)"
cargo build --release -p provider-fakes
built=$((SECONDS - started))

# Runs one layer with its output in its log; appends `ok|FAIL<TAB>seconds<TAB>name<TAB>log` to
# the lane's results.
layer() {
  local results="$1" name="$2"
  shift 2
  local log
  log="$logs/$(printf '%s' "$name" | tr -c 'a-zA-Z0-9' '-' | tr -s '-').log"
  local start=$SECONDS
  printf '    start %s\n' "$name"
  if "$@" >"$log" 2>&1; then
    printf 'ok\t%s\t%s\t%s\n' "$((SECONDS - start))" "$name" "$log" >>"$results"
    printf '    ok    %s (%s s)\n' "$name" "$((SECONDS - start))"
  else
    printf 'FAIL\t%s\t%s\t%s\n' "$((SECONDS - start))" "$name" "$log" >>"$results"
    printf '    FAIL  %s (%s s)\n' "$name" "$((SECONDS - start))"
  fi
}

cargo_lane() {
  local r="$logs/cargo.results"
  layer "$r" "cargo fmt --check" cargo fmt --all -- --check
  layer "$r" "server-stub: no circles between modules" python3 scripts/module-circles.py
  layer "$r" "cargo clippy (native)" cargo clippy --workspace --all-targets -- -D warnings
  layer "$r" "cargo clippy (wasm32)" cargo clippy -p studio-core --target wasm32-unknown-unknown --all-targets -- -D warnings
  layer "$r" "cargo clippy (wasm32, sequence editor)" cargo clippy -p studio-core --target wasm32-unknown-unknown --lib --features sequence-editor -- -D warnings
  layer "$r" "cargo clippy (wasm32, review page)" cargo clippy -p studio-core --target wasm32-unknown-unknown --lib --features review-page -- -D warnings
  layer "$r" "cargo test (native)" cargo test --workspace
  touch "$logs/cargo.done"
}

built_lane() {
  local r="$logs/built.results"
  layer "$r" "API contract (schemathesis against /api/openapi.json)" bash scripts/test-api-contract.sh
  layer "$r" "OpenAI SDK (Python) against the provider fake" bash scripts/test-openai-sdk.sh
  layer "$r" "wasm-bindgen-test (headless Chromium)" bash scripts/test-wasm.sh
  layer "$r" "app: tsc" npm run --silent -w app typecheck
  layer "$r" "app: eslint + prettier" npm run --silent -w app lint
  layer "$r" "app: vitest" npm run --silent -w app test
  layer "$r" "tests: prettier" npm run --silent -w tests lint
  touch "$logs/built.done"
}

step "Test layers, two lanes side by side (logs in target/test-logs/)"
if [ "${STUDIO_TEST_LANES:-2}" = 1 ]; then
  cargo_lane
  built_lane
else
  cargo_lane &
  lanes+=($!)
  built_lane &
  lanes+=($!)
  wait "${lanes[@]}"
  lanes=()
fi
# Alone, after both lanes: the player's checks watch frames presented in real time, which a
# compile beside them can starve.
layer "$logs/e2e.results" "end-to-end (Playwright + Chromium)" npm run --silent -w tests test

passed=0
failed=0
while IFS=$'\t' read -r result seconds name log; do
  if [ "$result" = ok ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    step "FAILED: $name ($log)"
    cat "$log"
  fi
done < <(cat "$logs"/*.results)

step "Summary"
while IFS=$'\t' read -r result seconds name _; do
  printf '    %-5s %s (%s s)\n' "$result" "$name" "$seconds"
done < <(cat "$logs"/*.results)
note "builds and set-up: $built s; all: $((SECONDS - started)) s"
echo "layers: $passed passed, $failed failed"
for lane in cargo built; do
  [ -e "$logs/$lane.done" ] || { echo "the $lane lane did not finish"; exit 1; }
done
[ "$failed" -eq 0 ]
