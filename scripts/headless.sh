#!/usr/bin/env bash
# Runs a command in a headless desktop session: Xvfb, a private session bus, and throwaway
# XDG data and cache directories, so keyrings, .desktop files and WebKit caches of the run
# stay out of $HOME. The throwaway directory is $COUNTERSIGN_HEADLESS_DIR.
set -euo pipefail
if [[ -z "${COUNTERSIGN_HEADLESS_DIR:-}" ]]; then
  work=$(mktemp -d)
  # The document portal may still hold its FUSE mount in the cache when the session ends:
  # detach it first. Cleaning up never changes the command's exit status.
  cleanup() {
    fusermount -u -z "$work/cache/doc" 2>/dev/null || umount -l "$work/cache/doc" 2>/dev/null || true
    rm -rf "$work" 2>/dev/null || true
  }
  trap cleanup EXIT
  mkdir -p "$work/data" "$work/cache"
  # Set before the bus starts, so the services it starts on demand use them too.
  status=0
  env COUNTERSIGN_HEADLESS_DIR="$work" XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache" \
    xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- "$@" || status=$?
  exit "$status"
fi
exec "$@"
