#!/usr/bin/env bash
# Runs the desktop end-to-end tests: Xvfb, a private session bus with a notification daemon
# that logs what it receives, tauri-driver + WebKitWebDriver, then the test binary.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${COUNTERSIGN_E2E_SESSION:-}" ]]; then
  exec env COUNTERSIGN_E2E_SESSION=1 xvfb-run -a -s "-screen 0 1280x800x24" \
    dbus-run-session -- "$0" "$@"
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
# Keyrings, .desktop files and caches of these runs stay in the throwaway directory.
export XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache"
mkdir -p "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
dunst -print > "$work/notifications.log" 2>/dev/null &
export COUNTERSIGN_NOTIFY_LOG="$work/notifications.log"
export COUNTERSIGN_E2E_BIN="$PWD/target/debug/countersign-desktop"
export COUNTERSIGN_CLI_BIN="$PWD/target/debug/countersign"
mkdir -p target/e2e-screenshots
# A hung window must fail the run, never stall it.
timeout --kill-after=10 900 cargo test -p countersign-desktop --test e2e -- --test-threads=1 "$@"
