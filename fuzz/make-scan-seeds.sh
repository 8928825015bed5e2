#!/bin/sh
# Writes the seeds of fuzz_scan_file: real scan files of the tiny fixtures, a few KB each (a
# block's groups at two types; a shard, partial, with a layer stride; the MoE with an imatrix and
# IQ types; one without the keys later versions added), made by the CLI of a build.
#
# usage: fuzz/make-scan-seeds.sh FIXTURES_DIR OUT_DIR [CLI]    (CLI: build/dev/app/cli/gguf-explorer-cli)
set -eu
fixtures=$1
out=$(realpath "$2")
cli=$(realpath "${3:-build/dev/app/cli/gguf-explorer-cli}")
mkdir -p "$out"
text=$(mktemp)
trap 'rm -f "$text"' EXIT
head -c 3000 /usr/share/common-licenses/GPL-3 > "$text"
cd "$fixtures"  # so the files name the models as the fixtures folder does, not this machine's paths
"$cli" scan tiny-llama-F32.gguf --text-file "$text" --chunk 64 --max-tokens 128 --types q4_K,q8_0 --layers 1 --quiet -o "$out/llama-layer1.json" > /dev/null
"$cli" scan tiny-llama-F32.gguf --text-file "$text" --chunk 64 --max-tokens 64 --types q2_K --layer-stride 2 --shard 1/3 --quiet \
    -o "$out/llama-shard1of3.json" > /dev/null
"$cli" scan tiny-moe-F16.gguf --text-file "$text" --chunk 64 --max-tokens 64 --types iq4_xs,q8_0 --layers 0 \
    --imatrix llama.cpp/tiny-moe.imatrix.gguf --f32-activations --quiet -o "$out/moe-imatrix.json" > /dev/null
# As files were before the fingerprint's parts and the activation arithmetic were recorded.
sed -e 's/"fingerprints":{[^}]*},//' -e 's/"activations":"quantized-as-llama.cpp",//' "$out/llama-layer1.json" > "$out/llama-before-parts.json"
