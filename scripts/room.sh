#!/usr/bin/env bash
# Makes room for the release build on a small disk. When less than $1 GiB is free where
# target/ is, it removes what `make test` built and no later step reads: the fuzz targets'
# check build, and the debug build's test binaries but the end-to-end tests' and the desktop
# program's (the install test runs the end-to-end binary again, which Cargo would otherwise
# link again). Cargo builds again whatever it removed the next time it is asked for. With room
# enough, it removes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
need_gib=${1:?usage: scripts/room.sh <GiB the next step needs>}
[[ $need_gib =~ ^[0-9]+$ ]] || { echo "room: $need_gib is not a number of GiB" >&2; exit 2; }
mkdir -p target
free_kib() { df --output=avail -k target | tail -n 1 | tr -d ' '; }
before=$(free_kib)
if ((before >= need_gib * 1024 * 1024)); then
  exit 0
fi
echo "room: $((before / 1024)) MiB free, under the ${need_gib} GiB the release build needs:" \
  "removing the fuzz check build and the debug test binaries the install test does not run"
rm -rf fuzz/target target/debug/incremental
if [[ -d target/debug/deps ]]; then
  # Executables have no extension; libraries (.rlib, .rmeta, .so) and dep-info (.d) do.
  find target/debug/deps -maxdepth 1 -type f -perm -u+x ! -name '*.*' \
    ! -name 'e2e-*' ! -name 'countersign_desktop-*' -delete
fi
rm -f target/debug/countersign
after=$(free_kib)
echo "room: $((after / 1024)) MiB free now"
