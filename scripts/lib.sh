# Shared helpers for the project's scripts: progress lines, tool checks, the pinned versions.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Where `cargo install` puts what setup installs (rustup puts its proxies there too).
export PATH="$ROOT/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

step() { printf '\n\033[1;35m==>\033[0m \033[1m%s\033[0m\n' "$*"; }
note() { printf '    %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }

# The wasm-bindgen version is the one Cargo.lock pins; the CLI must match it exactly.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# apt-get as root, or through sudo when available.
apt_install() {
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  if [ ! -f /tmp/.studio-apt-updated ]; then
    $sudo apt-get update -qq && touch /tmp/.studio-apt-updated
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}

# Starts the release server-stub with a fresh data folder and the given flags, on a free port,
# for a test layer; sets `server` (its pid), `data` and `port`, and stops it (and removes the
# folder) when the calling script exits.
start_test_server() {
  data="$(mktemp -d)"
  "$ROOT/target/release/server-stub" --port 0 --data "$data" --app-dir "$data/none" "$@" \
    > "$data/server.log" 2>&1 &
  server=$!
  trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
  port=""
  for _ in $(seq 1 100); do
    port="$(sed -n 's#^Studio is running at http://[^:]*:\([0-9]*\)/$#\1#p' "$data/server.log")"
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  cat "$data/server.log"
  echo "server-stub did not start"
  return 1
}
