#!/usr/bin/env bash
# `make soak`: the long reliability runs, then their figures.
#  1. COUNTERSIGN_CRASH_CYCLES (default 1,000) SIGKILL cycles of a real `countersign serve`
#     under a burst of writes; every acknowledged write must be there byte for byte.
#  2. Each cargo-fuzz target for FUZZ_SECONDS (default 300) seconds; any crash fails.
set -euo pipefail
cd "$(dirname "$0")/.."
cycles="${COUNTERSIGN_CRASH_CYCLES:-1000}"
seconds="${FUZZ_SECONDS:-300}"
targets="${FUZZ_TARGETS:-deep_link tool_address call_view_json hidden_characters command_splitter}"
logs="$(mktemp -d)"
started=$(date +%s)

COUNTERSIGN_CRASH_CYCLES="$cycles" scripts/with-keyring.sh \
  cargo test -p countersign --test core crash -- --nocapture 2>&1 | tee "$logs/crash.log"
figures=("$(grep -E '^soak:' "$logs/crash.log")")

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
for t in $targets; do
  # libFuzzer exits non-zero on a crash, a leak or a timeout: that fails the run.
  dict=()
  [[ -f "fuzz/dicts/$t.dict" ]] && dict=(-dict="$PWD/fuzz/dicts/$t.dict")
  RUSTC_BOOTSTRAP=1 cargo fuzz run "$t" -- -max_total_time="$seconds" -timeout=10 "${dict[@]}" 2>&1 | tee "$logs/$t.log" | grep -E '^(#[0-9]+ +(DONE|pulse)|Done|==|SUMMARY)' || true
  if ! grep -qE '^Done [0-9]+ runs' "$logs/$t.log"; then
    echo "fuzz $t: did not finish cleanly (see $logs/$t.log)" >&2
    exit 1
  fi
  runs=$(grep -oE '^Done [0-9]+ runs in [0-9]+ second' "$logs/$t.log" | tail -1)
  figures+=("fuzz $t: ${runs#Done }s, no crash")
done

echo
echo "== soak figures =="
printf '%s\n' "${figures[@]}"
echo "wall time: $(( $(date +%s) - started )) s"
