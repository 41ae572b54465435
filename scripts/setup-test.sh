#!/usr/bin/env bash
# Installs what the tests need, idempotently: Debian's Chromium and its driver (browser tests),
# ffmpeg (ffprobe checks the engine's output) and PostgreSQL (the replica tests start throwaway
# clusters of their own; the package's own cluster is not used).
source "$(dirname "$0")/lib.sh"
step "Test tools"
missing=()
have chromium || missing+=(chromium)
have chromedriver || missing+=(chromium-driver)
have ffprobe || missing+=(ffmpeg)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -eq 0 ]; then
  note "chromium, chromedriver, ffprobe, postgresql: present"
else
  note "installing ${missing[*]} through apt"
  apt_install "${missing[@]}"
fi
bash "$ROOT/scripts/setup-py.sh"
step "wasm-bindgen-cli (its test runner)"
bash "$ROOT/scripts/setup.sh" tools
