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
# The unlocked login keyring is written by the daemon a moment after `--unlock` returns; asked
# before it exists, the daemon would make a default collection of its own behind a password
# prompt no one can answer here, and every store of the session would fail.
for _ in $(seq 100); do
  [[ -f "$XDG_DATA_HOME/keyrings/login.keyring" ]] && break
  sleep 0.05
done
eval "$(gnome-keyring-daemon --start --components=secrets)" >/dev/null
# A fresh keyring makes its default collection on first use: many test processes asking at
# once can find it missing ("no result found") and keep their token in a file. A desktop's
# login keyring is there before anyone asks, so make it so, waiting for the daemon to answer.
warm=no
for _ in $(seq 50); do
  if printf 'warm-up' | secret-tool store --label='Countersign test warm-up' countersign-test warm-up 2>/dev/null; then
    secret-tool clear countersign-test warm-up 2>/dev/null || true
    warm=yes
    break
  fi
  sleep 0.1
done
[[ $warm == yes ]] || echo "with-keyring: the test keyring never kept a secret; tests that expect it will fail" >&2
export COUNTERSIGN_EXPECT_KEYRING=secret-service
"$@"
