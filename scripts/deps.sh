#!/usr/bin/env bash
# Installs what building and testing Countersign needs on a fresh Debian machine.
# Debian packages are installed only when missing, and only as root.
set -euo pipefail

packages=(
  build-essential pkg-config   # the C toolchain for -sys crates
  libdbus-1-dev                # keyring's Secret Service backend
  dbus gnome-keyring keyutils  # a private session bus and a real keyring for the tests
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    rustup component add "$component"
  fi
done
