#!/bin/bash
# `gguf-explorer-cli kld REF OTHER --text-file F` end to end next to llama.cpp's two-step KLD
# (`llama-perplexity --kl-divergence-base`, then `--kl-divergence`) on the same text, the same
# files and the same threads: whole-process wall time, CPU time (user + system) and peak RSS from
# /usr/bin/time, the two llama-perplexity processes summed. On a machine shared with other work
# the CPU time is the steadier figure: the wall time also counts the waits for a core. Runs are
# interleaved (ours, then llama.cpp's pair) per thread count and round; the figures to compare are
# the best of the rounds. --baseline-cli PATH (an earlier build of ours) runs right after ours in
# each round, on its own line: a before / after taken in the same minutes.
#
# usage: bench/forward/kld-side-by-side.sh --cli PATH --perplexity PATH --reference REF.gguf
#        --other OTHER.gguf --text F [--threads "1 2"] [--rounds N] [--work DIR] [--baseline-cli PATH]
#        [--cli-args "ARGS"]
#
# --cli-args: more arguments for our kld (and the baseline's), e.g. "--llama-activations", whose
# figures are llama.cpp's arithmetic and so the ones to set beside llama-perplexity's.
#
# --perplexity is a llama-perplexity built from llama.cpp's source (nothing in the project's build
# uses it), e.g. the source node-llama-cpp carries:
#   git clone node_modules/node-llama-cpp/llama/gitRelease.bundle llama.cpp
#   cmake -S llama.cpp -B llama.cpp/build -DGGML_NATIVE=ON -DLLAMA_CURL=OFF && cmake --build llama.cpp/build --target llama-perplexity
# Both sides cut the text into chunks of 512 tokens (llama-perplexity's -c 512; kld --text-file's
# default chunk), start each with BOS, drop the remainder and score each chunk's second half.
# llama-perplexity needs at least 1024 tokens of text.
set -u
cli="" cliArgs="" baseline="" perplexity="" reference="" other="" text="" threads="1 2" rounds=1 work="${TMPDIR:-/tmp}/kld-side-by-side"
while [ $# -gt 0 ]; do
    case "$1" in
        --cli) cli="$2"; shift 2 ;;
        --baseline-cli) baseline="$2"; shift 2 ;;
        --cli-args) cliArgs="$2"; shift 2 ;;
        --perplexity) perplexity="$2"; shift 2 ;;
        --reference) reference="$2"; shift 2 ;;
        --other) other="$2"; shift 2 ;;
        --text) text="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --work) work="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
for need in cli perplexity reference other text; do
    [ -n "${!need}" ] || { echo "--$need is required (see the usage at the top of $0)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time) for the peak RSS" >&2; exit 2; }
mkdir -p "$work"

# Runs a command under GNU time; prints "WALL_SECONDS PEAK_KIB CPU_SECONDS" (its own output goes to
# $work/last.log).
timed() {
    /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$@" > "$work/last.log" 2>&1 || { echo "failed: $*" >&2; tail -5 "$work/last.log" >&2; exit 1; }
    awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$work/time.txt"
}

printf '%-6s %-6s %9s %9s %9s %12s %12s %10s %10s %9s %9s\n' round threads "ours s" "ours cpu" "ours GiB" "llama base s" "llama kld s" \
    "llama cpu" "llama GiB" "ratio" "cpu ratio"
for round in $(seq 1 "$rounds"); do
    for t in $threads; do
        read -r ours_s ours_kib ours_cpu < <(GGUFX_THREADS=$t timed "$cli" kld "$reference" "$other" --text-file "$text" --chunk 512 $cliArgs)
        ours_kld=$(grep -m1 -i "mean.*kld" "$work/last.log" | tr -s ' ')
        read -r base_s base_kib base_cpu < <(timed "$perplexity" -m "$reference" -f "$text" -c 512 -t "$t" --kl-divergence-base "$work/base.kld")
        read -r kld_s kld_kib kld_cpu < <(timed "$perplexity" -m "$other" -f "$text" -c 512 -t "$t" --kl-divergence-base "$work/base.kld" --kl-divergence)
        llama_kld=$(grep -m1 "Mean    KLD" "$work/last.log" | tr -s ' ')
        peak=$(( base_kib > kld_kib ? base_kib : kld_kib ))
        awk -v r="$round" -v t="$t" -v os="$ours_s" -v oc="$ours_cpu" -v ok="$ours_kib" -v bs="$base_s" -v ks="$kld_s" \
            -v lc="$(awk -v a="$base_cpu" -v b="$kld_cpu" 'BEGIN { print a + b }')" -v pk="$peak" 'BEGIN {
            printf "%-6s %-6s %9.2f %9.2f %9.2f %12.2f %12.2f %10.2f %10.2f %9.2f %9.2f\n", r, t, os, oc, ok / 1048576, bs, ks, lc,
                   pk / 1048576, (bs + ks) / os, lc / oc }'
        echo "#   ours: $ours_kld | llama.cpp: $llama_kld | load: $(cut -d' ' -f1-3 /proc/loadavg)"
        if [ -n "$baseline" ]; then
            read -r b_s b_kib b_cpu < <(GGUFX_THREADS=$t timed "$baseline" kld "$reference" "$other" --text-file "$text" --chunk 512 $cliArgs)
            b_kld=$(grep -m1 -i "mean.*kld" "$work/last.log" | tr -s ' ')
            awk -v r="$round" -v t="$t" -v bs="$b_s" -v bc="$b_cpu" -v bk="$b_kib" -v os="$ours_s" -v oc="$ours_cpu" 'BEGIN {
                printf "%-6s %-6s %9.2f %9.2f %9.2f   baseline; ours / baseline: %.2f wall, %.2f cpu\n", r, t, bs, bc, bk / 1048576, os / bs, oc / bc }'
            echo "#   baseline: $b_kld | load: $(cut -d' ' -f1-3 /proc/loadavg)"
        fi
    done
done
echo "# ratio = llama.cpp's two runs' wall time / ours, cpu ratio = the same for CPU time (>= 1: ours is no slower);"
echo "# GiB = peak RSS (llama.cpp: the larger run)"
