#!/bin/sh
# Replays the committed corpus through every harness, then fuzzes each for SECONDS (default 60).
# The harnesses are the asan build's (build/asan/fuzz/). Works on a copy of the corpus under
# build/fuzz/, so the repository is never modified; a crash stops the script with a non-zero
# status and leaves the input in build/fuzz/artifacts/.
#
# usage: fuzz/run-fuzzers.sh [SECONDS] [HARNESS...]     (after: cmake --preset asan && cmake --build --preset asan)
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
harnesses=${*:-"fuzz_open_metadata fuzz_dequantize fuzz_writers fuzz_imatrix fuzz_tokenizer fuzz_rules fuzz_hyperparameters fuzz_scan_file"}
bin=build/asan/fuzz
mkdir -p build/fuzz/artifacts
# One harness: replay, then fuzz. Its output goes to its log; a failure prints the log's tail.
run_harness() {
    harness=$1
    work=build/fuzz/corpus/$harness
    mkdir -p "$work"
    log=build/fuzz/$harness.log
    # -max_len: the seeds are at most ~33 KB; -rss_limit_mb: the harnesses bound their own work,
    # so more than 2 GB is a finding; -timeout: likewise for one input taking 10 s.
    options="-max_len=65536 -rss_limit_mb=2048 -timeout=10 -artifact_prefix=build/fuzz/artifacts/$harness- -print_final_stats=1"
    "$bin/$harness" $options -runs=0 "fuzz/corpus/$harness" > "$log" 2>&1 || { echo "== $harness: replaying fuzz/corpus/$harness FAILED"; tail -n 40 "$log"; return 1; }
    "$bin/$harness" $options -max_total_time="$seconds" "$work" "fuzz/corpus/$harness" >> "$log" 2>&1 || { echo "== $harness: fuzzing FAILED"; tail -n 60 "$log"; return 1; }
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    echo "== $harness: corpus replayed, fuzzed $seconds s, ${runs:-?} executions, no crash ($(ls "$work" | wc -l) inputs in the working corpus)"
}
# Each harness is one process on one core: as many run at once as there are cores, so the run
# takes SECONDS per batch, not per harness.
jobs=$(nproc 2>/dev/null || echo 1)
status=0
running=0
pids=""
for harness in $harnesses; do
    run_harness "$harness" &
    pids="$pids $!"
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        for pid in $pids; do wait "$pid" || status=1; done
        pids=""
        running=0
        [ "$status" -eq 0 ] || exit 1
    fi
done
for pid in $pids; do wait "$pid" || status=1; done
exit $status
