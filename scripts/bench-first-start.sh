#!/usr/bin/env bash
# The first start as a new user meets it: a fresh clone, with a fresh CARGO_HOME (no registry,
# no installed wasm-bindgen-cli), target folder and npm cache. Times the first
# `npm start` until it serves, a second one with nothing changed, then `npm test`. Takes half an
# hour or more on two cores; prints each figure as it has it. `--starts` stops after the starts. Debian's packages (Chromium, ffmpeg,
# PostgreSQL, nasm) are not removed first: on a machine without them, apt adds its own time.
source "$(dirname "$0")/lib.sh"

work="$(mktemp -d /tmp/studio-first-start.XXXXXX)"
git clone -q "$ROOT" "$work/repo"
export CARGO_HOME="$work/cargo" npm_config_cache="$work/npm-cache"
mkdir -p "$CARGO_HOME/bin" "$work/toolchain"
# rustup's proxies only: every tool the project installs for itself is installed again.
for tool in cargo rustc rustup rustdoc rustfmt cargo-clippy clippy-driver cargo-fmt; do
  ln -s "$(command -v "$tool")" "$work/toolchain/$tool"
done
PATH="$CARGO_HOME/bin:$work/toolchain:$(tr ':' '\n' <<<"$PATH" | grep -v '/\.cargo/bin$' | paste -sd:)"
export PATH

# Seconds from `npm start` until the server says where it serves; the server is stopped after.
timed_start() {
  local log="$work/start-$1.log" began=$SECONDS
  (cd "$work/repo" && setsid npm start -- --port 0 --data "$work/data" >"$log" 2>&1 &)
  until grep -q "Studio is running at" "$log" 2>/dev/null; do
    if grep -qE "npm error|^Error" "$log" 2>/dev/null; then
      echo "npm start failed; see $log" >&2
      exit 1
    fi
    sleep 1
  done
  local took=$((SECONDS - began))
  pkill -TERM -f -- "--data $work/data" || true
  while pgrep -f -- "--data $work/data" >/dev/null; do sleep 0.2; done
  echo "$took"
}

minutes() { awk -v s="$1" 'BEGIN { printf "%.1f", s / 60 }'; }
step "First npm start (fresh CARGO_HOME, target folder and npm cache)"
first=$(timed_start first)
note "first npm start: $first s ($(minutes "$first") min); log in $work/start-first.log"
step "Second npm start (nothing changed)"
second=$(timed_start second)
note "second npm start, nothing changed: $second s"
[ "${1:-}" = "--starts" ] && exit 0
step "npm test after the starts"
began=$SECONDS
if (cd "$work/repo" && CI=true npm test >"$work/test.log" 2>&1); then outcome="passed"; else outcome="FAILED"; fi
tested=$((SECONDS - began))

step "First start"
echo "  first npm start: $first s ($(minutes "$first") min)"
echo "  second npm start, nothing changed: $second s"
echo "  npm test after it: $tested s ($(minutes "$tested") min), $outcome; log in $work/test.log"
