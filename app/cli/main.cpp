// gguf-explorer-cli: the scriptable face of the core. Every failure is one line on stderr and a
// non-zero exit status.

#include "CliOutput.h"
#include "Commands.h"
#include "ModelLoading.h"
#include "base/OpenFileLimit.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

namespace {
const char* const kUsage =
    "usage: gguf-explorer-cli COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  info FILE                                   model summary: architecture, size, types\n"
    "  meta FILE [--json]                          every metadata key and value\n"
    "  meta FILE [--set KEY=VALUE[:TYPE]]... [--delete KEY]... [--set-file KEY=PATH]... -o OUT\n"
    "                                              a copy with metadata edited (TYPE: u8 ... f64, bool,\n"
    "                                              str, arr[T]; arrays as [1, 2] or [\"a\", \"b\"])\n"
    "  tensors FILE [--json] [--filter REGEX]      the tensor index\n"
    "  export FILE TENSOR [--expert N[,N...]] [--format f32|npy|csv] [-o PATH|-]\n"
    "                                              dequantized values (default: f32 to stdout)\n"
    "  stats FILE TENSOR [--expert N] [--json] [--bins N]\n"
    "                                              min, max, mean, std, rms, zero/NaN/Inf, histogram\n"
    "  check FILE [--json] [--max-scale X]         every tensor's SHA-256 and damaged blocks (NaN/Inf,\n"
    "                                              or scales beyond X, default 1e6); exit 3 if damaged\n"
    "  compare REF [OTHER...] [--simulate TYPES] [--json] [--filter REGEX] [--threads N] [--auto-reference]\n"
    "                                              per-tensor error of other quant levels (or of the\n"
    "                                              reference quantized in memory, e.g. q2_K,q4_K,q8_0)\n"
    "  convert IN OUT --type TYPE [--tensors REGEX] [--threads N] [--quiet]\n"
    "                                              re-quantize via f32 to f32, f16, bf16, q4_0, q4_1,\n"
    "                                              q5_0, q5_1, q8_0, q2_K ... q6_K (1-D tensors kept)\n"
    "  recipe FILE [--json]                        layers x roles grid of stored types, bpw, label audit\n"
    "  recipe MODEL --preset PRESET [--imatrix F] [--tensor-type REGEX=TYPE ...] [--tensor-type-file F] [--json]\n"
    "                                              the types llama-quantize would choose (Q4_K_M, IQ2_XS, ...)\n"
    "  plan MODEL --size SIZE [--imatrix F] [-o RULES] [--rows N] [--threads N] [--json]\n"
    "                                              per-tensor types of least estimated error within SIZE\n"
    "                                              (4.2GB, 3.9GiB, 4.5bpw), as --tensor-type rules\n"
    "  diff A B [--json] [--threads N]             what differs: metadata (arrays by element, long strings\n"
    "                                              as a line diff), tensors (bytes, values, error), per layer\n"
    "  tokenize FILE (--text T | --text-file F) [--no-special]\n"
    "                                              token ids of the model's own tokenizer, on one line\n"
    "                                              (--no-special: no BOS/EOS, special-token text stays text)\n"
    "  logits MODEL (--tokens IDS | --text-file F) -o OUT.f32|- [--hidden HIDDEN.f32] [--sgemm] [--llama-activations]\n"
    "                                              run the model (llama family): logits [tokens, vocab] and\n"
    "                                              residual stream [layers, tokens, embd] as float32\n"
    "  kld REF OTHER... (--tokens IDS | --text-file F | --llama-kld-base F) [--chunk N] [--simulate TYPES] [--json]\n"
    "      [--sgemm] [--llama-activations]\n"
    "                                              output-level error: KL divergence, top-token agreement,\n"
    "                                              perplexity, per-layer drift and MoE routing changes\n"
    "  estimate FILE [--ctx N] [--kv TYPE] [--flash-attn on|off|auto] [--batch N] [--ubatch N]\n"
    "      [--swa-full 0|1] [--ngl N] [--json]\n"
    "                                              memory llama.cpp needs: weights per device, KV cache\n"
    "                                              by layer, recurrent state, compute buffer (FILE may be\n"
    "                                              a URL); llama.cpp's defaults\n"
    "  download URL -o DIR                         save a remote model (every shard) with resume and\n"
    "                                              SHA-256 verification where the Hub gives one\n"
    "  (FILE may be an http(s) URL or hf://OWNER/REPO/FILE.gguf[@REV]; HF_TOKEN for gated models)\n"
    "  imatrix FILE [--model MODEL] [--json] [--top N]\n"
    "                                              an importance matrix (llama-imatrix .gguf or .dat): coverage,\n"
    "                                              validation against MODEL, statistics, MoE routing, top columns;\n"
    "                                              exit 3 if the validation finds errors\n"
    "      [--imatrix FILE]                        with llama-imatrix importance weights, as\n"
    "                                              llama-quantize --imatrix (also iq4_nl, iq4_xs,\n"
    "                                              tq1_0, tq2_0, mxfp4, nvfp4, q1_0, q2_0, q8_K)\n"
    "\n"
    "FILE may be any shard of a split model (name-00001-of-00003.gguf); all shards are opened.\n";
}

namespace {
int runCommand(const std::string& command, const std::vector<std::string>& words);
}

int main(int argc, char** argv)
{
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "help") == 0) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    gguf::raiseOpenFileLimit();  // split models of more than 1,000 shards
    const std::string command = argv[1];
    const std::vector<std::string> words(argv + 2, argv + argc);
    prepareCliOutputs();
    int status = 1;
    try {
        status = runCommand(command, words);
    } catch (const std::bad_alloc&) {  // a size no check caught: one line, not an abort
        status = reportFailure("out of memory: the input needs more memory than this machine gives");
    } catch (const std::exception& error) {
        status = reportFailure(std::string("internal error: ") + error.what());
    }
    status = standardOutputChecked(status);
    // Whatever the command read, it read from files that must not have changed meanwhile: a
    // rewrite in place (same size) leaves no other trace. Commands that read tensor data check
    // before they print or commit; this covers the others.
    if ((status == 0 || status == 3) && !inputsVerified() && !inputsUnchangedOrReport())
        return 1;
    return status;
}

namespace {
int runCommand(const std::string& command, const std::vector<std::string>& words)
{
    if (command == "info")
        return runInfo(words);
    if (command == "meta")
        return runMeta(words);
    if (command == "tensors")
        return runTensors(words);
    if (command == "export")
        return runExport(words);
    if (command == "stats")
        return runStats(words);
    if (command == "check")
        return runCheck(words);
    if (command == "compare")
        return runCompare(words);
    if (command == "convert")
        return runConvert(words);
    if (command == "recipe")
        return runRecipe(words);
    if (command == "plan")
        return runPlan(words);
    if (command == "diff")
        return runDiff(words);
    if (command == "tokenize")
        return runTokenize(words);
    if (command == "logits")
        return runLogits(words);
    if (command == "kld")
        return runKld(words);
    if (command == "estimate")
        return runEstimate(words);
    if (command == "download")
        return runDownload(words);
    if (command == "imatrix")
        return runImatrix(words);
    return reportFailure("unknown command '" + command + "' (try --help)", 2);
}
}  // namespace
