#include "Commands.h"
#include "ModelLoading.h"
#include "base/HumanFormat.h"
#include "base/JsonWriter.h"
#include "estimate/MemoryEstimate.h"
#include "types/GgmlType.h"

#include <cstdio>
#include <cstdlib>

namespace {
bool parseNumber(const std::optional<std::string>& text, long long minimum, long long& out)
{
    if (!text)
        return true;
    char* end = nullptr;
    const long long value = std::strtoll(text->c_str(), &end, 10);
    if (text->empty() || *end != '\0' || value < minimum)
        return false;
    out = value;
    return true;
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
    long long context = 0, ngl = 0, ubatch = options.ubatch;
    if (!parseNumber(args.value("--ctx"), 1, context) || !parseNumber(args.value("--ngl"), -1, ngl)
        || !parseNumber(args.value("--ubatch"), 1, ubatch) || ubatch > 1 << 20)
        return reportFailure("--ctx and --ubatch need a positive whole number, --ngl a whole number (-1: all layers)", 2);
    options.contextLength = static_cast<std::uint64_t>(context);
    options.gpuLayers = ngl;
    options.ubatch = static_cast<std::uint32_t>(ubatch);
    options.fullSlidingWindow = args.has("--swa-full");
    for (const auto& [flag, target] : {std::pair{"--kv", 0}, std::pair{"--kv-k", 1}, std::pair{"--kv-v", 2}}) {
        const auto name = args.value(flag);
        if (!name)
            continue;
        const gguf::TypeTraits* type = gguf::findTypeByName(*name);
        if (!type)
            return reportFailure(std::string(flag) + ": unknown cache type '" + shown(*name) + "' (f32, f16, bf16, q8_0, q4_0, ...)", 2);
        if (target != 2)
            options.keyType = type->id;
        if (target != 1)
            options.valueType = type->id;
    }
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
    for (const auto& layer : e.kvLayers)
        sliding += layer.slidingWindow;
    if (!e.kvLayers.empty())
        std::printf("                %zu layers with a cache, %zu of them sliding-window (%llu cells)\n", e.kvLayers.size(), sliding,
                    static_cast<unsigned long long>(sliding ? e.kvLayers.front().cells : 0));
    std::printf("compute buffer: %s (approximate)\n", bytes(e.computeBuffer).c_str());
    std::printf("total:          %s", bytes(e.total()).c_str());
    if (e.gpuTotal())
        std::printf(" = CPU %s + GPU %s", gguf::formatBytes(e.cpuTotal()).c_str(), gguf::formatBytes(e.gpuTotal()).c_str());
    std::printf("\n");
    for (const std::string& note : e.notes)
        std::printf("note: %s\n", note.c_str());
    return 0;
}
