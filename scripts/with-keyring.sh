#!/usr/bin/env bash
# Runs a command on a private D-Bus session bus with an unlocked Secret Service keyring
# (gnome-keyring), so the API token is stored the way it is on a desktop.
set -euo pipefail
if [[ -z "${COUNTERSIGN_PRIVATE_BUS:-}" ]]; then
  exec env COUNTERSIGN_PRIVATE_BUS=1 dbus-run-session -- "$0" "$@"
fi
# A throwaway keyring directory: the tests never see or touch the user's own keyrings.
XDG_DATA_HOME=$(mktemp -d)
export XDG_DATA_HOME
trap 'rm -rf "$XDG_DATA_HOME"' EXIT
eval "$(printf 'countersign-test' | gnome-keyring-daemon --unlock --components=secrets)" >/dev/null
eval "$(gnome-keyring-daemon --start --components=secrets)" >/dev/null
export COUNTERSIGN_EXPECT_KEYRING=secret-service
"$@"
