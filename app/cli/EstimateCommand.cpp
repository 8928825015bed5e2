#include "Commands.h"
#include "KvCacheOption.h"
#include "ModelOpening.h"
#include "core/base/HumanFormat.h"
#include "core/base/JsonWriter.h"
#include "core/estimate/MemoryEstimate.h"
#include "core/types/GgmlType.h"

#include <cstdio>
#include <cstdlib>

namespace {
// A whole number in [minimum, maximum], or an error naming the flag and the range. Checked for
// every digit, so 2^64 - 1 is refused rather than read as the largest long long.
std::string parseNumber(const char* flag, const std::optional<std::string>& text, long long minimum, long long maximum, long long& out)
{
    if (!text)
        return {};
    const std::string& word = *text;
    const std::string range = std::string(flag) + " takes a whole number from " + std::to_string(minimum) + " to " + std::to_string(maximum);
    std::size_t i = word.size() > 1 && word[0] == '-' ? 1 : 0;
    if (i == word.size())
        return range + ", not '" + shown(word) + "'";
    long long value = 0;
    for (std::size_t j = i; j < word.size(); ++j) {
        if (word[j] < '0' || word[j] > '9')
            return range + ", not '" + shown(word) + "'";
        const int digit = word[j] - '0';
        if (value > ((i ? -minimum : maximum) - digit) / 10)  // past the range: stop before it can overflow
            return range + ": " + shown(word) + " is out of range";
        value = value * 10 + digit;
    }
    value = i ? -value : value;
    if (value < minimum || value > maximum)
        return range + ": " + shown(word) + " is out of range";
    out = value;
    return {};
}

void writeJson(const gguf::MemoryEstimate& e, const gguf::EstimateOptions& options)
{
    std::string out;
    gguf::JsonWriter json(out);
    json.beginObject();
    json.key("architecture");
    json.value(e.architecture);
    json.key("context");
    json.value(e.contextLength);
    json.key("kv_type_k");
    json.value(gguf::typeName(options.keyType));
    json.key("kv_type_v");
    json.value(gguf::typeName(options.valueType));
    json.key("gpu_layers");
    json.value(static_cast<std::int64_t>(options.gpuLayers));
    json.key("batch");
    json.value(std::uint64_t{options.batch});
    json.key("ubatch");
    json.value(std::uint64_t{options.ubatch});
    json.key("flash_attn");
    json.value(e.flashAttention);
    json.key("swa_full");
    json.value(options.fullSlidingWindow);
    json.key("weights_cpu_bytes");
    json.value(e.weightsCpu);
    json.key("weights_gpu_bytes");
    json.value(e.weightsGpu);
    json.key("kv_cpu_bytes");
    json.value(e.kvCpu);
    json.key("kv_gpu_bytes");
    json.value(e.kvGpu);
    json.key("kv_exact");
    json.value(e.kvExact);
    json.key("recurrent_bytes");
    json.value(e.recurrentTotal());
    json.key("compute_buffer_bytes");
    json.value(e.computeBuffer);
    json.key("output_buffer_bytes");
    json.value(e.outputBuffer);
    json.key("cpu_total_bytes");
    json.value(e.cpuTotal());
    json.key("gpu_total_bytes");
    json.value(e.gpuTotal());
    json.key("total_bytes");
    json.value(e.total());
    json.key("kv_layers");
    json.beginArray();
    for (const gguf::LayerKvEstimate& layer : e.kvLayers) {
        json.beginObject();
        json.key("layer");
        json.value(layer.layer);
        json.key("cells");
        json.value(layer.cells);
        json.key("k_bytes");
        json.value(layer.keyBytes);
        json.key("v_bytes");
        json.value(layer.valueBytes);
        json.key("sliding_window");
        json.value(layer.slidingWindow);
        json.key("gpu");
        json.value(layer.onGpu);
        json.endObject();
    }
    json.endArray();
    json.key("notes");
    json.beginArray();
    for (const std::string& note : e.notes)
        json.value(note);
    json.endArray();
    json.endObject();
    out += '\n';
    writeStdout(out);
}

std::string bytes(std::uint64_t n)
{
    return gguf::formatBytes(n) + " (" + gguf::formatGrouped(n) + ")";
}
}  // namespace

int runEstimate(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "estimate");
    if (!args.error.empty() || args.positionals.size() != 1)
        return reportFailure(args.error.empty() ? commandUsage("estimate") : args.error, 2);
    gguf::EstimateOptions options;
    long long context = 0, ngl = 0, batch = options.batch, ubatch = options.ubatch, swaFull = 0;
    constexpr long long kMaxContext = 1ll << 32, kMaxBatch = 1 << 30;
    for (const std::string& error : {parseNumber("--ctx", args.value("--ctx"), 1, kMaxContext, context),
                                     parseNumber("--ngl", args.value("--ngl"), -1, 1 << 30, ngl),
                                     parseNumber("--batch", args.value("--batch"), 1, kMaxBatch, batch),
                                     parseNumber("--ubatch", args.value("--ubatch"), 1, kMaxBatch, ubatch),
                                     parseNumber("--swa-full", args.value("--swa-full"), 0, 1, swaFull)})
        if (!error.empty())
            return reportFailure(error, 2);
    options.contextLength = static_cast<std::uint64_t>(context);
    options.gpuLayers = ngl;
    options.batch = static_cast<std::uint32_t>(batch);
    options.ubatch = static_cast<std::uint32_t>(ubatch);
    options.fullSlidingWindow = swaFull == 1;
    const auto cache = kvCacheSettingsOrReport(args);
    if (!cache)
        return 2;
    options.keyType = cache->keyType;
    options.valueType = cache->valueType;
    options.flashAttention = cache->flashAttention;
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    const auto estimate = gguf::estimateMemory(*model, options);
    if (!estimate)
        return reportFailure(estimate.error().toString());
    const gguf::MemoryEstimate& e = estimate.value();
    if (args.has("--json")) {
        writeJson(e, options);
        return 0;
    }
    std::printf("architecture:   %s, %u layers\n", shown(e.architecture).c_str(), e.layerCount);
    std::printf("context:        %llu tokens (padded to 256 as llama.cpp does), K %s, V %s\n",
                static_cast<unsigned long long>(e.contextLength), gguf::typeName(options.keyType).c_str(),
                gguf::typeName(options.valueType).c_str());
    std::printf("weights:        CPU %s, GPU %s (-ngl %lld)\n", bytes(e.weightsCpu).c_str(), bytes(e.weightsGpu).c_str(), ngl);
    std::printf("KV cache:       CPU %s, GPU %s%s\n", bytes(e.kvCpu).c_str(), bytes(e.kvGpu).c_str(), e.kvExact ? "" : " (approximate)");
    std::size_t sliding = 0;
    std::uint64_t slidingCells = 0;
    for (const auto& layer : e.kvLayers) {
        sliding += layer.slidingWindow;
        slidingCells = layer.slidingWindow ? layer.cells : slidingCells;
    }
    if (!e.kvLayers.empty())
        std::printf("                %zu layers with a cache, %zu of them sliding-window (%llu cells)\n", e.kvLayers.size(), sliding,
                    static_cast<unsigned long long>(slidingCells));
    if (e.recurrentTotal())
        std::printf("recurrent state: CPU %s, GPU %s\n", bytes(e.recurrentCpu).c_str(), bytes(e.recurrentGpu).c_str());
    std::printf("compute buffer: %s (modelled; flash attention %s, ubatch %u)\n", bytes(e.computeBuffer).c_str(),
                e.flashAttention ? "on" : "off", options.ubatch);
    std::printf("total:          %s", bytes(e.total()).c_str());
    if (e.gpuTotal())
        std::printf(" = CPU %s + GPU %s", gguf::formatBytes(e.cpuTotal()).c_str(), gguf::formatBytes(e.gpuTotal()).c_str());
    std::printf("\n");
    for (const std::string& note : e.notes)
        std::printf("note: %s\n", note.c_str());
    return 0;
}
