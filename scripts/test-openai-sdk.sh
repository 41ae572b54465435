#!/usr/bin/env bash
# The official `openai` Python package against the OpenAI-compatible fake, which the test
# starts itself from the binary built here.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
cargo build --quiet --release -p provider-fakes
PROVIDER_FAKES_BIN="$ROOT/target/release/provider-fakes" \
  "$ROOT/target/py/bin/python" -W ignore::DeprecationWarning -m unittest -v tests/python/test_openai_sdk.py
