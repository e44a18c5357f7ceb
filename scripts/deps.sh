#!/usr/bin/env bash
# Installs what building and testing Countersign needs on a fresh Debian machine.
# Debian packages are installed only when missing, and only as root.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential pkg-config   # the C toolchain for -sys crates
  libdbus-1-dev libssl-dev     # keyring's Secret Service backend; the WebDriver client's TLS
  libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev  # the desktop window and tray
  nodejs npm                   # building the UI
  dbus gnome-keyring keyutils libsecret-tools  # a private session bus and a real keyring for the tests
  xvfb xauth webkit2gtk-driver dunst libnotify-bin xdg-utils desktop-file-utils
  chromium chromium-driver zbar-tools iproute2  # the phone in the end-to-end test (in a network namespace of its own), reading its QR code
  sqlite3                      # the audit test changes a record with the shell anyone holding the file has
  postgresql                   # the store on PostgreSQL, on a private cluster the tests start (scripts/with-postgres.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if command -v node >/dev/null && command -v npm >/dev/null; then
  kept=()
  for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || kept+=("$p"); done
  missing=("${kept[@]}")
fi
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    rustup component add "$component"
  fi
done

# The WebDriver server for the end-to-end tests.
if ! command -v tauri-driver >/dev/null 2>&1; then
  cargo install tauri-driver --locked --version 2.0.6
fi

# The Tauri CLI that bundles the packages (make package), pinned in tools/package-lock.json.
want=$(node -p 'require("./tools/package.json").devDependencies["@tauri-apps/cli"]')
have=$(tools/node_modules/.bin/tauri --version 2>/dev/null | awk '{print $2}' || true)
if [[ "$have" != "$want" ]]; then
  (cd tools && npm ci --no-audit --no-fund --silent)
fi

# The ACP client and agent the tests start around `countersign acp`: the official TypeScript
# SDK, pinned in tests/acp-peers/package-lock.json.
want=$(node -p 'require("./tests/acp-peers/package.json").dependencies["@agentclientprotocol/sdk"]')
have=$(node -p 'require("./tests/acp-peers/node_modules/@agentclientprotocol/sdk/package.json").version' 2>/dev/null || true)
if [[ "$have" != "$want" ]]; then
  (cd tests/acp-peers && npm ci --no-audit --no-fund --silent)
fi
