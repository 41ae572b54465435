#!/usr/bin/env bash
# Installs what the tests need, idempotently: Debian's Chromium and its driver (browser tests)
# and ffmpeg (ffprobe checks the engine's output).
source "$(dirname "$0")/lib.sh"
step "Test tools"
missing=()
have chromium || missing+=(chromium)
have chromedriver || missing+=(chromium-driver)
have ffprobe || missing+=(ffmpeg)
if [ ${#missing[@]} -eq 0 ]; then
  note "chromium, chromedriver, ffprobe: present"
else
  note "installing ${missing[*]} through apt"
  apt_install "${missing[@]}"
fi
bash "$ROOT/scripts/setup-py.sh"
