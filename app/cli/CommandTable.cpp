// The command table. Adding an option is one line in its command's option list below; the
// parser, the usage line and `COMMAND --help` take it from there.

#include "CommandTable.h"
#include "Commands.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>

namespace {

// ---- options, one list per command --------------------------------------------------------

// The arithmetic of the commands that run forward passes (ActivationOption.h). The default is
// llama.cpp's CPU arithmetic, its KV cache and attention included.
constexpr CliOption kF32Activations = {"--f32-activations", nullptr,
                                       "f32 everywhere, f32 K and V, plain attention: the model as its weights define it (slower; default: "
                                       "llama.cpp's CPU arithmetic)"};
constexpr CliOption kQ8Activations = {"--q8-activations", nullptr,
                                      "llama.cpp's q8 activations into quantized weights only, f32 elsewhere, f32 K and V, plain attention "
                                      "(faster than the default)"};
constexpr CliOption kLlamaActivations = {"--llama-activations", nullptr,
                                         "llama.cpp's CPU arithmetic (the default): q8 activations into quantized weights, f16 into f16 "
                                         "weights, its KV cache, attention and activation functions"};
// llama.cpp's KV cache and attention (KvCacheOption.h): `estimate` sizes the cache by them, the
// forward passes round their keys and values and sum their attention by them.
constexpr CliOption kKvType = {"--kv", "TYPE", "KV cache type for keys and values, as llama.cpp -ctk/-ctv (f16, q8_0, q4_0, ...; default f16)"};
constexpr CliOption kKvKeyType = {"--kv-k", "TYPE", "KV cache type for keys"};
constexpr CliOption kKvValueType = {"--kv-v", "TYPE", "KV cache type for values"};
constexpr CliOption kFlashAttention = {"--flash-attn", "on|off|auto", "flash attention, as llama.cpp -fa (default auto: on for the CPU)"};
constexpr std::array kKvOptions = {kKvType, kKvKeyType, kKvValueType, kFlashAttention};

// Option lists joined in order, so that a block several commands take is written once.
template <std::size_t... N>
constexpr std::array<CliOption, (N + ...)> joinOptions(const std::array<CliOption, N>&... parts)
{
    std::array<CliOption, (N + ...)> joined{};
    std::size_t at = 0;
    ((std::copy(parts.begin(), parts.end(), joined.begin() + static_cast<std::ptrdiff_t>(at)), at += N), ...);
    return joined;
}

// Everything a command that runs the forward pass takes about its arithmetic.
constexpr auto kPassOptions = joinOptions(std::array{kF32Activations, kQ8Activations, kLlamaActivations}, kKvOptions);

constexpr CliOption kMetaOptions[] = {
    {"--json", nullptr, "every key and value as JSON"},
    {"--set", "KEY=VALUE[:TYPE]", "set a key (TYPE: u8 ... f64, bool, str, arr[T]; arrays as [1, 2] or [\"a\", \"b\"])", true},
    {"--delete", "KEY", "remove a key", true},
    {"--set-file", "KEY=PATH", "set a string key to a file's text (a chat template)", true},
    {"-o", "OUT", "where the edited copy is written (needed with --set, --delete, --set-file)"},
};

constexpr CliOption kTensorsOptions[] = {
    {"--json", nullptr, "the index as JSON"},
    {"--filter", "REGEX", "only the tensors whose name matches"},
};

constexpr CliOption kExportOptions[] = {
    {"--expert", "N[,N...]", "only these experts of a 3-D expert tensor"},
    {"--format", "f32|npy|csv", "raw little-endian float32 (default), NumPy .npy, or CSV"},
    {"-o", "PATH|-", "where the values go (default: stdout)"},
    {"--output", "PATH|-", "same as -o"},
};

constexpr CliOption kStatsOptions[] = {
    {"--expert", "N", "one expert of a 3-D expert tensor"},
    {"--json", nullptr, "the figures as JSON"},
    {"--bins", "N", "histogram bins (default 20)"},
};

constexpr CliOption kCheckOptions[] = {
    {"--json", nullptr, "the findings as JSON"},
    {"--max-scale", "X", "report block scales beyond X as damaged (default 1e6)"},
};

constexpr CliOption kCompareOptions[] = {
    {"--type", "TYPES", "quantize the reference in memory to these ggml types (q2_K,q4_K,iq2_xxs)"},
    {"--preset", "PRESETS", "quantize the reference in memory as llama-quantize does for these presets (Q4_K_M,IQ2_XXS)"},
    {"--simulate", "TYPES", "older spelling of --type"},
    {"--json", nullptr, "the comparison as JSON"},
    {"--filter", "REGEX", "only the tensors whose name matches"},
    {"--threads", "N", "worker threads (default: all cores, or GGUFX_THREADS)"},
    {"--auto-reference", nullptr, "the most precise file (highest bits/weight) is the reference, not REF"},
    {"--imatrix", "FILE", "weight the errors by a llama-imatrix importance matrix"},
    {"--column-errors", "TENSOR", "with --imatrix: the error of each input column of one tensor"},
    {"--expert", "N", "with --column-errors: one expert of an expert tensor"},
};

constexpr CliOption kConvertOptions[] = {
    {"--type", "TYPE", "one ggml type for every tensor (f32, f16, bf16, q4_0 ... q6_K, iq4_nl, ...; a name only a preset has, Q4_K_M, is that preset)"},
    {"--preset", "PRESET", "the types llama-quantize chooses for a preset (Q4_K_M, IQ2_XS, ...)"},
    {"--tensor-type", "REGEX=TYPE", "with a preset: override the type of the matching tensors", true},
    {"--recipe", "RULES", "with a preset: a rules file (as `plan -o` writes); may name the preset itself"},
    {"--token-embedding-type", "TYPE", "with a preset: token_embd's type, as llama-quantize --token-embedding-type"},
    {"--output-tensor-type", "TYPE", "with a preset: output's type, as llama-quantize --output-tensor-type"},
    {"--imatrix", "FILE", "llama-imatrix importance weights, as llama-quantize --imatrix"},
    {"--tensors", "REGEX", "with one --type: convert only the matching tensors, copy the rest"},
    {"--threads", "N", "worker threads (default: all cores, or GGUFX_THREADS)"},
    {"--quiet", nullptr, "no progress on stderr"},
};

constexpr CliOption kRecipeOptions[] = {
    {"--json", nullptr, "the grid, the chosen types or the provenance check as JSON"},
    {"--preset", "PRESET", "the types llama-quantize would choose for MODEL (Q4_K_M, IQ2_XS, ...); with --source, the preset to check"},
    {"--source", "SOURCE", "check that FILE is exactly what llama-quantize makes from SOURCE, tensor for tensor (exit 3 if not)"},
    {"--imatrix", "FILE", "with --preset or --source: the importance matrix llama-quantize is given"},
    {"--tensor-type", "REGEX=TYPE", "with --preset or --source: override the type of the matching tensors", true},
    {"--tensor-type-file", "FILE", "with --preset or --source: --tensor-type rules from a file"},
    {"--token-embedding-type", "TYPE", "with --preset or --source: token_embd's type, as llama-quantize --token-embedding-type"},
    {"--output-tensor-type", "TYPE", "with --preset or --source: output's type, as llama-quantize --output-tensor-type"},
    {"--threads", "N", "with --source: worker threads (default: all cores, or GGUFX_THREADS)"},
};

constexpr CliOption kPlanOptions[] = {
    {"--size", "SIZE", "the budget: 4.2GB, 3.9GiB, 800MB, 123456789 (file bytes) or 4.5bpw"},
    {"--imatrix", "FILE", "weight the estimated errors by an importance matrix"},
    {"-o", "RULES", "write the plan as --tensor-type rules (for convert --recipe or llama-quantize)"},
    {"--rows", "N", "rows measured per tensor to estimate the error (default 64)"},
    {"--scan", "SCAN.json", "choose by the KLD a sensitivity scan measured (scan -o), not by weight error"},
    {"--text-file", "F", "with --scan: the scan's text; the plan and the best presets that fit are measured on its held-out part, the plan offered only where it wins"},
    {"--held-out", "N", "with --text-file: at most N held-out tokens (default 2048)"},
    {"--threads", "N", "worker threads (default: all cores, or GGUFX_THREADS)"},
    {"--json", nullptr, "the plan as JSON"},
};

constexpr auto kScanOptions = joinOptions(std::to_array<CliOption>({
    {"--text-file", "F", "calibration text, tokenized with the model's tokenizer"},
    {"--tokens", "IDS", "calibration token ids, 1,2,3"},
    {"--types", "LIST", "candidate types (default q2_K,q3_K,q4_K,q5_K,q6_K,q8_0; with --imatrix also iq2_xxs ... iq4_xs)"},
    {"--imatrix", "FILE", "quantize with these importance weights, as llama-quantize --imatrix"},
    {"--chunk", "N", "tokens per chunk, first BOS, second half scored (default 128)"},
    {"--max-tokens", "N", "use at most N tokens of the text (whole chunks)"},
    {"--layer-stride", "N", "probe every N-th block (token_embd and output always)"},
    {"--layers", "LIST", "probe only these blocks: 0,4,8-11 (token_embd and output always)"},
    {"--imatrix-out", "OUT", "with --text-file: also write the importance matrix of the reference pass, imatrix --chunk C --chunks K's bytes (.dat = legacy, else GGUF)"}
}), kPassOptions, std::to_array<CliOption>({
    {"--shard", "I/N", "run only the I-th of N deterministic parts of the probes"},
    {"--merge", nullptr, "join scan files (shards) given as operands into -o"},
    {"-o", "SCAN.json", "the scan file, rewritten atomically after every probe"},
    {"--resume", nullptr, "continue the scan file -o names, measuring only what it lacks"},
    {"--json", nullptr, "the scan file's JSON on stdout"},
    {"--quiet", nullptr, "no progress on stderr"}
}));

constexpr CliOption kReportOptions[] = {
    {"-o", "OUT", "the report: Markdown for OUT.md or OUT.markdown, HTML otherwise"},
};

constexpr CliOption kDiffOptions[] = {
    {"--json", nullptr, "the differences as JSON"},
    {"--threads", "N", "worker threads (default: all cores, or GGUFX_THREADS)"},
};

constexpr CliOption kTokenizeOptions[] = {
    {"--text", "T", "the text to tokenize"},
    {"--text-file", "F", "the text of a file"},
    {"--no-special", nullptr, "no BOS/EOS, and special-token text stays text"},
};

constexpr auto kLogitsOptions = joinOptions(std::to_array<CliOption>({
    {"--tokens", "IDS", "token ids, 1,2,3"},
    {"--text-file", "F", "a text to tokenize with the model's tokenizer"},
    {"-o", "OUT.f32|-", "where the logits [tokens, vocab] go, as float32"},
    {"--output", "OUT.f32|-", "same as -o"},
    {"--hidden", "HIDDEN.f32", "also write the residual stream [layers, tokens, embd]"},
    {"--exact", nullptr, "sum matrix products in double (slower; default: float lanes in ggml's order)"},
    {"--sgemm", nullptr, "sum matrix products with OpenBLAS's cblas_sgemm"}
}), kPassOptions);

constexpr auto kKldOptions = joinOptions(std::to_array<CliOption>({
    {"--tokens", "IDS", "token ids, 1,2,3"},
    {"--text-file", "F", "a text to tokenize with the reference's tokenizer"},
    {"--llama-kld-base", "F", "the tokens and logits of llama-perplexity --kl-divergence-base"},
    {"--chunk", "N", "evaluate in chunks of N tokens, each starting with BOS, as llama-perplexity"},
    {"--type", "TYPES", "quantize the reference in memory to these ggml types (q4_K,iq2_xxs)"},
    {"--preset", "PRESETS", "quantize the reference in memory as llama-quantize does for these presets (Q4_K_M,IQ2_XXS)"},
    {"--simulate", "LIST", "older spelling: types and presets mixed; a name that is both must be said with --type or --preset"},
    {"--imatrix", "FILE", "with --type or --preset: importance weights for the quantization"},
    {"--json", nullptr, "the figures as JSON"},
    {"--exact", nullptr, "sum matrix products in double (slower; default: float lanes in ggml's order)"},
    {"--sgemm", nullptr, "sum matrix products with OpenBLAS's cblas_sgemm"}
}), kPassOptions);

constexpr auto kEstimateOptions = joinOptions(std::to_array<CliOption>({
    {"--ctx", "N", "context length (default: the model's training context)"}
}), kKvOptions, std::to_array<CliOption>({
    {"--batch", "N", "logical batch size, as llama.cpp -b (default 2048)"},
    {"--ubatch", "N", "micro-batch size, as llama.cpp -ub (default 512)"},
    {"--swa-full", "0|1", "full-size cache for sliding-window layers, as llama.cpp --swa-full (default 0)"},
    {"--ngl", "N", "layers on the GPU, as llama.cpp -ngl (-1: all)"},
    {"--json", nullptr, "the estimate as JSON"}
}));

constexpr CliOption kDownloadOptions[] = {
    {"-o", "DIR", "the folder the model (every shard) is saved in"},
    {"--quiet", nullptr, "no progress on stderr"},
};

constexpr auto kImatrixOptions = joinOptions(std::to_array<CliOption>({
    {"--model", "MODEL", "validate the matrix against a model"},
    {"--json", nullptr, "the report as JSON"},
    {"--top", "N", "the N most important columns per tensor (default 8)"},
    {"-o", "OUT", "write the matrix to OUT instead, as llama-imatrix writes it: .dat = legacy format, else GGUF"},
    {"--output-format", "FORMAT", "with -o: gguf or dat, whatever OUT's name (llama-imatrix's --output-format)"},
    {"--chunk", "N", "with -o: the chunk size of the run, llama-imatrix's -c (default: the file's own; 512 for a .dat)"},
    {"--text-file", "T", "compute a matrix instead: FILE is the model, run over text T as llama-imatrix -f T (-o OUT needed)"},
    {"--chunks", "N", "with --text-file: at most N chunks (llama-imatrix's --chunks)"},
    {"--process-output", nullptr, "with --text-file: also collect output.weight (llama-imatrix's --process-output)"},
    {"--parse-special", nullptr, "with --text-file: text spelling a special token becomes it (llama-imatrix's --parse-special)"},
    {"--min-expert-tokens", "N", "with --text-file: fail when an expert gets fewer than N tokens"},
    {"--quiet", nullptr, "with --text-file: no progress on stderr"}
}), kPassOptions);

// ---- the commands -------------------------------------------------------------------------

const CliCommand kCommands[] = {
    {"info", "FILE", "model summary: architecture, size, types", {}, runInfo},
    {"report", "FILE -o OUT.html|OUT.md", "a self-contained report for an issue or a model card: facts, type mix, layers, tokenizer, metadata",
     kReportOptions, runReport},
    {"meta", "FILE", "every metadata key and value, or a copy with metadata edited (-o OUT)", kMetaOptions, runMeta},
    {"tensors", "FILE", "the tensor index", kTensorsOptions, runTensors},
    {"export", "FILE TENSOR", "dequantized values (default: f32 to stdout)", kExportOptions, runExport},
    {"stats", "FILE TENSOR", "min, max, mean, std, rms, zero/NaN/Inf, histogram", kStatsOptions, runStats},
    {"check", "FILE", "every tensor's SHA-256 and damaged blocks (NaN/Inf, huge scales); exit 3 if damaged",
     kCheckOptions, runCheck},
    {"compare", "REF [OTHER...]", "per-tensor error of other quant levels, or of the reference quantized in memory",
     kCompareOptions, runCompare,
     "--type names ggml types (q4_K, iq2_xxs), --preset llama-quantize presets (Q4_K_M, IQ2_XXS), in any letter case.\n"
     "With --imatrix, a type ggml makes only with importance\n"
     "weights (iq1_*, iq2_*, iq3_xxs) skips the tensors the matrix has no entry for (token_embd, output), naming them."},
    {"convert", "IN OUT (--type TYPE | --preset PRESET)", "re-quantize via f32 to one type, or as llama-quantize does for a preset",
     kConvertOptions, runConvert,
     "1-D tensors keep their type unless a preset says otherwise.\n"
     "--type names a ggml type (q4_K, iq2_xxs), --preset a llama-quantize preset (Q4_K_M, IQ2_XXS), in any letter case:\n"
     "--type IQ2_XXS is the type iq2_xxs for every tensor, --preset IQ2_XXS llama-quantize's per-tensor mix."},
    {"recipe", "FILE", "layers x roles grid of stored types, bpw, fallbacks, label audit; with --preset, llama-quantize's choice; "
                       "with --source, whether FILE is stock llama-quantize output",
     kRecipeOptions, runRecipe,
     "FILE alone: the grid, the mix in words, nominal against effective bits per weight, the tensors that fell back to\n"
     "another type because their rows fit no block of the chosen one, and whether the label matches the types.\n"
     "--preset P: the types llama-quantize P would give MODEL's tensors; a preset that needs an importance matrix is\n"
     "previewed without one, with a warning (as llama-quantize --dry-run).\n"
     "--source SOURCE [--imatrix I]: whether FILE is exactly what llama-quantize makes from SOURCE (with I), tensor for\n"
     "tensor: types first, then every tensor's bytes made again and compared as they stream; the first difference is\n"
     "named. The preset is general.file_type's (else the one in the file name) unless --preset names it; give the\n"
     "--tensor-type and type options llama-quantize was given. Metadata is not compared. Exit 0 identical, 3 not."},
    {"plan", "MODEL --size SIZE", "per-tensor types of least estimated error (or measured KLD, --scan) within SIZE, as --tensor-type rules",
     kPlanOptions, runPlan, "SIZE: 4.2GB, 3.9GiB, 800MB, 123456789 (file bytes) or 4.5bpw (bits per weight of the tensor data)."},
    {"scan", "MODEL (--text-file F | --tokens IDS) | --merge A.json B.json ... -o OUT",
     "measured sensitivity: mean KLD, top-1 agreement and dp when only one group (layer x role) is quantized to each type",
     kScanOptions, runScan,
     "A probe quantizes one group and reruns only its layer and those after it, from the reference's cached residual stream.\n"
     "The scan file is rewritten after every probe: a stopped scan goes on with --resume; --shard I/N splits the probes\n"
     "over processes or machines and --merge joins their files."},
    {"diff", "A B", "what differs: metadata (arrays by element, long strings as a line diff), tensors, per layer",
     kDiffOptions, runDiff},
    {"tokenize", "MODEL (--text T | --text-file F)", "token ids of the model's own tokenizer, on one line",
     kTokenizeOptions, runTokenize},
    {"logits", "MODEL (--tokens IDS | --text-file F) -o OUT.f32|-", "run the model (llama family): logits and residual stream as float32",
     kLogitsOptions, runLogits},
    {"kld", "REF OTHER... (--tokens IDS | --text-file F | --llama-kld-base F)",
     "output-level error: KL divergence, top-token agreement, perplexity, per-layer drift, MoE routing", kKldOptions, runKld,
     "--type names ggml types (q4_K, iq2_xxs), --preset llama-quantize presets (Q4_K_M, IQ2_XXS), in any letter case;\n"
     "--simulate takes either, but a name that is both (IQ2_XXS, Q4_0) only as ggml spells the type (iq2_xxs, q4_0)."},
    {"estimate", "FILE", "memory llama.cpp needs: weights per device, KV cache by layer, recurrent state, compute buffer (FILE may be a URL)",
     kEstimateOptions, runEstimate},
    {"download", "URL -o DIR", "save a remote model (every shard) with resume and SHA-256 verification", kDownloadOptions,
     runDownload},
    {"imatrix", "FILE", "an importance matrix (llama-imatrix .gguf or .dat): coverage, validation, statistics; exit 3 if invalid; -o converts; "
                        "MODEL --text-file T -o OUT computes one",
     kImatrixOptions, runImatrix},
};

}  // namespace

std::span<const CliCommand> cliCommands()
{
    return kCommands;
}

const CliCommand* findCliCommand(std::string_view name)
{
    for (const CliCommand& command : kCommands)
        if (name == command.name)
            return &command;
    return nullptr;
}

const CliCommand& cliCommand(std::string_view name)
{
    if (const CliCommand* command = findCliCommand(name))
        return *command;
    std::fprintf(stderr, "gguf-explorer-cli: internal error: no command '%.*s' in the table\n", int(name.size()), name.data());
    std::abort();
}
