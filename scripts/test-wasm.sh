#!/usr/bin/env bash
# The core's browser glue in headless Chromium: localStorage, timers, and fetch against a real
# server-stub that this script starts on a free port and stops afterwards.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
# The test page's origin is fixed in advance, because CORS is for listed origins only.
runner_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
export WASM_BINDGEN_TEST_ADDRESS="127.0.0.1:$runner_port"
start_test_server --api-token wasm-test-token --cors-origins "http://127.0.0.1:$runner_port"
export STUDIO_TEST_API="http://127.0.0.1:$port/api"
export STUDIO_TEST_TOKEN=wasm-test-token
export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT=60
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
# In a target folder of its own: nothing else builds the wasm32 dev profile, and `npm test`
# runs this beside the native cargo layers, which hold target/'s lock.
cargo test -p studio-core --target wasm32-unknown-unknown --test browser --target-dir "$ROOT/target/wasm-test"
