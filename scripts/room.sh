#!/usr/bin/env bash
# Makes room for the release build on a small disk. When less than $1 GiB is free, it removes
# what `make test` built and no later step reads: the fuzz targets' check build, and the debug
# build's executables (test binaries and the two programs) but for the end-to-end tests' binary,
# which the install test runs again against the installed package. Cargo builds again whatever
# it removed the next time it is asked for. With room enough, it removes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
need_gib=${1:?usage: scripts/room.sh <GiB the next step needs>}
free_kib() { df --output=avail -k . | tail -n 1 | tr -d ' '; }
before=$(free_kib)
if ((before >= need_gib * 1024 * 1024)); then
  exit 0
fi
echo "room: $((before / 1024)) MiB free, under the ${need_gib} GiB the release build needs:" \
  "removing the fuzz check build and the debug executables the install test does not run"
rm -rf fuzz/target target/debug/incremental
if [[ -d target/debug/deps ]]; then
  # Executables have no extension; libraries (.rlib, .rmeta, .so) and dep-info (.d) do.
  find target/debug/deps -maxdepth 1 -type f -perm -u+x ! -name '*.*' ! -name 'e2e-*' -delete
fi
rm -f target/debug/countersign target/debug/countersign-desktop
after=$(free_kib)
echo "room: $((after / 1024)) MiB free now"
