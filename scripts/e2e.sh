#!/usr/bin/env bash
# Runs the desktop end-to-end tests in a headless session (scripts/headless.sh) with a
# notification daemon that logs what it receives, tauri-driver + WebKitWebDriver, then the
# test binary.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${COUNTERSIGN_HEADLESS_DIR:-}" ]]; then
  exec scripts/headless.sh "$0" "$@"
fi
work="$COUNTERSIGN_HEADLESS_DIR"
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
dunst -print > "$work/notifications.log" 2>/dev/null &
export COUNTERSIGN_NOTIFY_LOG="$work/notifications.log"
# The build tree's binaries unless given (scripts/install-test.sh gives the installed ones).
export COUNTERSIGN_E2E_BIN="${COUNTERSIGN_E2E_BIN:-$PWD/target/debug/countersign-desktop}"
export COUNTERSIGN_CLI_BIN="${COUNTERSIGN_CLI_BIN:-$PWD/target/debug/countersign}"
mkdir -p target/e2e-screenshots
# A hung window must fail the run, never stall it.
timeout --kill-after=10 1800 cargo test -p countersign-desktop --test e2e -- --test-threads=1 "$@"
