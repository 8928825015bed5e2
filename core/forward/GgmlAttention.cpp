#include "core/forward/GgmlAttention.h"

#include "core/base/TaskExecutor.h"
#include "core/forward/FmaClones.h"
#include "core/forward/GgmlVectorMath.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gguf {

GGUFX_FMA_CLONES float vecDotF32(const float* x, const float* y, std::int64_t n)
{
    float sum[4][8] = {};
    const std::int64_t np = n / 32 * 32;
    for (std::int64_t i = 0; i < np; i += 32)
        for (int j = 0; j < 4; ++j)
            for (int l = 0; l < 8; ++l)
                sum[j][l] = std::fma(x[i + j * 8 + l], y[i + j * 8 + l], sum[j][l]);
    for (int l = 0; l < 8; ++l) {
        sum[0][l] += sum[2][l];
        sum[1][l] += sum[3][l];
    }
    for (int l = 0; l < 8; ++l)
        sum[0][l] += sum[1][l];
    float t0[4];
    for (int l = 0; l < 4; ++l)
        t0[l] = sum[0][l] + sum[0][l + 4];
    float total = (t0[0] + t0[1]) + (t0[2] + t0[3]);
    for (std::int64_t i = np; i < n; ++i)
        total += x[i] * y[i];
    return total;
}

namespace {

// The KV row llama.cpp builds for these tokens: n_kv = max(256, tokens padded to 256).
std::int64_t kvCells(std::int64_t tokens)
{
    return std::max<std::int64_t>(256, (tokens + 255) / 256 * 256);
}

// One head of the attention (kq, soft_max_ext, kqv) for every query; `vT` as the cache keeps V.
GGUFX_FMA_CLONES void attendHead(const float* q, const float* k, const float* vT, std::int64_t tokens, std::int64_t cells,
                                 const AttentionSpec& spec, std::int64_t h, std::vector<float>& row, float* out)
{
    const std::int64_t group = spec.heads / spec.kvHeads;
    const float inf = std::numeric_limits<float>::infinity();
    row.resize(static_cast<std::size_t>(cells));
    const std::int64_t kvHead = h / group;
    const bool hasSink = !spec.sinks.empty();
    const float sink = hasSink ? spec.sinks[static_cast<std::size_t>(h)] : 0.0f;
    for (std::int64_t i = 0; i < tokens; ++i) {
        const float* qi = q + (i * spec.heads + h) * spec.keySize;
        const std::int64_t first = spec.window > 0 ? std::max<std::int64_t>(0, i - spec.window + 1) : 0;
        float peak = -inf;
        for (std::int64_t j = 0; j < cells; ++j) {
            if (j < first || j > i) {
                row[static_cast<std::size_t>(j)] = -inf;
                continue;
            }
            float s = vecDotF32(k + (j * spec.kvHeads + kvHead) * spec.keySize, qi, spec.keySize);
            if (spec.softcap > 0.0f)
                s = std::tanh(s * (1.0f / spec.softcap)) * spec.softcap;
            s = s * spec.scale + 0.0f;  // ggml_soft_max_ext: x * scale + mask
            row[static_cast<std::size_t>(j)] = s;
            peak = std::max(peak, s);
        }
        if (hasSink)
            peak = std::max(peak, sink);
        double sum = ggmlExpAndSum(row.data(), row.data(), cells, peak);
        if (hasSink)
            sum += static_cast<double>(std::exp(sink - peak));
        const auto inverse = static_cast<float>(1.0 / sum);
        for (float& p : row)
            p *= inverse;
        // kqv: tinyBLAS over the cells, 8 fma lanes, then ((0+4)+(2+6))+((1+5)+(3+7)).
        float* o = out + (i * spec.heads + h) * spec.valueSize;
        for (std::int64_t d = 0; d < spec.valueSize; ++d) {
            const float* vd = vT + (kvHead * spec.valueSize + d) * cells;
            float lanes[8] = {};
            for (std::int64_t c = 0; c < cells; c += 8)
                for (int l = 0; l < 8; ++l)
                    lanes[l] = std::fma(vd[c + l], row[static_cast<std::size_t>(c + l)], lanes[l]);
            o[d] = ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7]));
        }
    }
}

}  // namespace

void causalAttentionAsGgml(const float* q, const float* k, const float* v, std::int64_t tokens, const AttentionSpec& spec, float* out)
{
    const std::int64_t cells = kvCells(tokens);
    // V transposed as the cache keeps it: [kvHeads][valueSize][cells], zero past the tokens.
    std::vector<float> vT(static_cast<std::size_t>(spec.kvHeads * spec.valueSize * cells), 0.0f);
    for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t kh = 0; kh < spec.kvHeads; ++kh)
            for (std::int64_t d = 0; d < spec.valueSize; ++d)
                vT[static_cast<std::size_t>((kh * spec.valueSize + d) * cells + t)] = v[(t * spec.kvHeads + kh) * spec.valueSize + d];
    // Heads side by side: each writes its own columns of `out`.
    runTasks(spec.executor, static_cast<std::size_t>(spec.heads), [&](std::size_t task) {
        thread_local std::vector<float> row;
        attendHead(q, k, vT.data(), tokens, cells, spec, static_cast<std::int64_t>(task), row, out);
    });
}

}  // namespace gguf
