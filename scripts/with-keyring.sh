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
# One daemon, started unlocked: it creates the login keyring with this password and serves the
# Secret Service on this bus. (A second `--start` could miss the first daemon's control socket
# and start a daemon of its own, whose default collection sits behind a password prompt no one
# can answer here: every store of the session then fails.)
before=" $(pgrep -d ' ' -f '^gnome-keyring-daemon' || true) "
eval "$(printf 'countersign-test' | gnome-keyring-daemon --daemonize --unlock --components=secrets)" >/dev/null
# The daemon outlives the bus: end the one started here with the session.
mine=()
for p in $(pgrep -f '^gnome-keyring-daemon' || true); do
  [[ $before == *" $p "* ]] || mine+=("$p")
done
trap 'kill "${mine[@]}" 2>/dev/null || true; rm -rf "$XDG_DATA_HOME"' EXIT
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
