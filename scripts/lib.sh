# Shared helpers for the project's scripts: progress lines, tool checks, the pinned versions.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"

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
