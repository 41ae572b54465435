#!/usr/bin/env bash
# `npm start`: builds everything, then serves the app and /api (HOST, PORT and
# STUDIO_DATA_DIR configure it; see docs/configuration.md for every setting).
source "$(dirname "$0")/lib.sh"
bash "$ROOT/scripts/build.sh"
step "Serving"
cd "$ROOT"
exec ./target/release/server-stub --app-dir "$ROOT/app/dist" "$@"
