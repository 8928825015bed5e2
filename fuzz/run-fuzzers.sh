#!/bin/sh
# Replays the committed corpus through every harness, then fuzzes each for SECONDS (default 60).
# Works on a copy of the corpus under build/fuzz/, so the repository is never modified; a crash
# stops the script with a non-zero status and leaves the input in build/fuzz/artifacts/.
#
# usage: fuzz/run-fuzzers.sh [SECONDS] [HARNESS...]     (after: cmake --preset fuzz && cmake --build --preset fuzz)
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
harnesses=${*:-"fuzz_open_metadata fuzz_dequantize fuzz_writers fuzz_imatrix fuzz_tokenizer fuzz_rules"}
bin=build/fuzz/fuzz
mkdir -p build/fuzz/artifacts
for harness in $harnesses; do
    work=build/fuzz/corpus/$harness
    mkdir -p "$work"
    log=build/fuzz/$harness.log
    # -max_len: the seeds are at most ~33 KB; -rss_limit_mb: the harnesses bound their own work,
    # so more than 2 GB is a finding; -timeout: likewise for one input taking 10 s.
    options="-max_len=65536 -rss_limit_mb=2048 -timeout=10 -artifact_prefix=build/fuzz/artifacts/$harness- -print_final_stats=1"
    echo "== $harness: replaying fuzz/corpus/$harness"
    "$bin/$harness" $options -runs=0 "fuzz/corpus/$harness" > "$log" 2>&1 || { tail -n 40 "$log"; exit 1; }
    echo "== $harness: fuzzing for $seconds s"
    "$bin/$harness" $options -max_total_time="$seconds" "$work" "fuzz/corpus/$harness" >> "$log" 2>&1 || { tail -n 60 "$log"; exit 1; }
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    echo "== $harness: ${runs:-?} executions, no crash ($(ls "$work" | wc -l) inputs in the working corpus)"
done
