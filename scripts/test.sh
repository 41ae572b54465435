#!/usr/bin/env bash
# `npm test`: every test layer, in order. Exits non-zero when any layer fails and ends with
# one summary line.
source "$(dirname "$0")/lib.sh"
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
trap 'rm -rf "$TMPDIR"' EXIT

step "Provider fakes (release, for the SDK and end-to-end tests)"
cargo build --release -p provider-fakes

passed=0
failed=0
results=()
layer() {
  local name="$1"
  shift
  step "$name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    results+=("ok    $name ($((SECONDS - start)) s)")
  else
    failed=$((failed + 1))
    results+=("FAIL  $name ($((SECONDS - start)) s)")
  fi
}

layer "cargo fmt --check" cargo fmt --all -- --check
layer "cargo clippy (native)" cargo clippy --workspace --all-targets -- -D warnings
layer "cargo clippy (wasm32)" cargo clippy -p studio-core --target wasm32-unknown-unknown --all-targets -- -D warnings
layer "cargo clippy (wasm32, sequence editor)" cargo clippy -p studio-core --target wasm32-unknown-unknown --lib --features sequence-editor -- -D warnings
layer "cargo clippy (wasm32, review page)" cargo clippy -p studio-core --target wasm32-unknown-unknown --lib --features review-page -- -D warnings
layer "cargo test (native)" cargo test --workspace
layer "OpenAI SDK (Python) against the provider fake" bash scripts/test-openai-sdk.sh
layer "API contract (schemathesis against /api/openapi.json)" bash scripts/test-api-contract.sh
layer "wasm-bindgen-test (headless Chromium)" bash scripts/test-wasm.sh
layer "app: tsc" npm run --silent -w app typecheck
layer "app: eslint + prettier" npm run --silent -w app lint
layer "app: vitest" npm run --silent -w app test
layer "tests: prettier" npm run --silent -w tests lint
layer "end-to-end (Playwright + Chromium)" npm run --silent -w tests test

step "Summary"
printf '    %s\n' "${results[@]}"
echo "layers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
