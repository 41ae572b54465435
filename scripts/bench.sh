#!/usr/bin/env bash
# `npm run bench`: builds, installs the reference tools (ffmpeg, nginx, wrk) and measures.
source "$(dirname "$0")/lib.sh"
bash "$ROOT/scripts/build.sh"
bash "$ROOT/scripts/setup-test.sh"
step "Benchmark references"
missing=()
have nginx || missing+=(nginx)
have wrk || missing+=(wrk)
if [ ${#missing[@]} -eq 0 ]; then note "nginx, wrk: present"; else apt_install "${missing[@]}"; fi
# The server and the engine as a deployment builds them (thin LTO), not npm start's build.
(cd "$ROOT" && cargo build --release -p provider-fakes && cargo build --profile production -p server-stub --bin server-stub --bin studio-render --bin studio-sign)
step "Benchmarks"
cd "$ROOT"
node bench/run.mjs "$@"
