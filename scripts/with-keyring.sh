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
# A fresh keyring makes its default collection on first use: many test processes asking at
# once can find it missing ("no result found") and keep their token in a file. A desktop's
# login keyring is there before anyone asks, so make it so, waiting for the daemon to answer.
for _ in $(seq 50); do
  if printf 'warm-up' | secret-tool store --label='Countersign test warm-up' countersign-test warm-up 2>/dev/null; then
    secret-tool clear countersign-test warm-up 2>/dev/null || true
    break
  fi
  sleep 0.1
done
export COUNTERSIGN_EXPECT_KEYRING=secret-service
"$@"
