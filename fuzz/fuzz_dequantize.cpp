// Harness 2: dequantize whatever opens. Every tensor and every expert of every expert tensor is
// dequantized (row ranges, element chunks, the last row), its block scales extracted, a heatmap
// window reduced and the integrity check run, all within a fixed budget of elements per input
// so a small file that declares a large tensor cannot make one run slow. Invariants: requests
// inside a tensor succeed for every type that has a kernel, requests outside it fail cleanly,
// and the scale extraction agrees with the block count.

#include "core/blocks/BlockScales.h"
#include "core/gguf/Dequantize.h"
#include "core/experts/ExpertAnalysis.h"
#include "core/experts/ExpertIndex.h"
#include "FuzzSupport.h"
#include "core/analysis/HeatmapReducer.h"
#include "core/gguf/Model.h"
#include "core/blocks/TensorCheck.h"

#include <algorithm>
#include <vector>

namespace {

constexpr std::uint64_t kBudgetElements = 1 << 18;  // per input, over all tensors
constexpr std::uint64_t kMaxExpertsPerTensor = 8;    // the first ones, and always the last
// The similarity matrix is experts x experts; the expert views must cap the count themselves
// (reported), so the harness stays within what a real MoE has.
constexpr std::uint64_t kMaxSimilarityExperts = 64;

class Budget {
public:
    // Up to `wanted` elements, rounded down to whole blocks (at least one block if any is left).
    std::uint64_t take(std::uint64_t wanted, std::uint64_t blockSize)
    {
        if (m_left == 0)
            return 0;
        const std::uint64_t granted = std::min(wanted, std::max(m_left, blockSize)) / blockSize * blockSize;
        m_left -= std::min(m_left, granted);
        return granted;
    }
    bool exhausted() const { return m_left == 0; }

private:
    std::uint64_t m_left = kBudgetElements;
};

void dequantizeSlice(const gguf::TensorSlice& slice, Budget& budget, std::vector<float>& buffer)
{
    const gguf::TensorInfo& tensor = *slice.tensor;
    const std::uint64_t blockSize = tensor.traits->blockSize;
    const std::uint64_t count = budget.take(slice.elementCount(), blockSize);
    if (count == 0)
        return;
    // A prefix through forEachChunk (small chunks, to cross chunk boundaries)...
    std::uint64_t seen = 0;
    const gguf::Status streamed = gguf::forEachChunk(slice, 4 * blockSize, [&](std::span<const float> values, std::uint64_t first) {
        FUZZ_CHECK(first == seen);
        seen += values.size();
        return seen < count;
    });
    FUZZ_CHECK(streamed.ok());
    // ...and the last row whole, when the budget allows.
    const std::uint64_t rowLength = slice.rowLength();
    if (slice.rowCount > 0 && rowLength <= count) {
        buffer.resize(rowLength);
        const std::uint64_t last = slice.firstRow + slice.rowCount - 1;
        FUZZ_CHECK(gguf::dequantizeRows(tensor, last, last + 1, buffer).ok());
    }
}

void extractScales(const gguf::TensorInfo& tensor, Budget& budget)
{
    const auto layout = gguf::blockScaleLayout(tensor.typeId);
    gguf::BlockScales scales;
    const gguf::Status status = gguf::extractRowScales(tensor, 0, std::min<std::uint64_t>(tensor.rowCount(), 1), scales);
    FUZZ_CHECK(status.ok() == layout.has_value());
    if (!layout)
        return;
    const std::uint64_t totalBlocks = tensor.elementCount() / tensor.traits->blockSize;
    const std::uint64_t blocks = budget.take(totalBlocks, 1);
    FUZZ_CHECK(gguf::extractBlockScales(tensor, totalBlocks - blocks, blocks, scales).ok());
    FUZZ_CHECK(scales.subScales.size() == blocks * layout->subScales);
    FUZZ_CHECK(!gguf::extractBlockScales(tensor, totalBlocks, 1, scales).ok());  // one past the end
}

void reduceWindow(const gguf::TensorInfo& tensor)
{
    const gguf::TensorSlice slice = gguf::wholeTensor(tensor);
    // A window as a view shows it: a few rows, at most a few thousand columns.
    const gguf::HeatmapRegion region{0, std::min<std::uint64_t>(slice.rowCount, 16), 0, std::min<std::uint64_t>(slice.rowLength(), 4096)};
    if (region.rowEnd == 0 || region.columnEnd == 0)
        return;
    const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid(region, 4, 8, gguf::CellAggregate::Mean);
    std::vector<float> cells(std::size_t(grid.rows) * grid.columns);
    FUZZ_CHECK(gguf::reduceHeatmapRows(slice, grid, 0, grid.rows, cells).ok());
}

void exerciseTensor(const gguf::TensorInfo& tensor, Budget& budget, std::vector<float>& buffer)
{
    const bool decodable = tensor.traits && tensor.traits->dequantize;
    // Out of range and unknown types: clean errors, never a read.
    FUZZ_CHECK(!gguf::dequantizeRows(tensor, tensor.rowCount(), tensor.rowCount() + 1, {}).ok());
    if (!decodable) {
        FUZZ_CHECK(!gguf::dequantizeElements(tensor, 0, 0, {}).ok());
        return;
    }
    dequantizeSlice(gguf::wholeTensor(tensor), budget, buffer);
    if (tensor.nDims >= 3 && tensor.ne[3] == 1 && tensor.ne[2] > 1) {
        const auto experts = static_cast<std::uint64_t>(tensor.ne[2]);
        for (std::uint64_t e = 0; e < experts && !budget.exhausted(); e = (e + 1 == kMaxExpertsPerTensor) ? experts - 1 : e + 1) {
            const auto slice = gguf::expertSlice(tensor, e);
            FUZZ_CHECK(slice.ok());
            dequantizeSlice(*slice, budget, buffer);
        }
        FUZZ_CHECK(!gguf::expertSlice(tensor, experts).ok());
    }
    extractScales(tensor, budget);
    if (!budget.exhausted())
        reduceWindow(tensor);
}

// What the experts page computes: per-expert statistics, expert similarity, router norms.
void exerciseExperts(const gguf::Model& model, Budget& budget)
{
    const gguf::ExpertIndex index = gguf::ExpertIndex::build(model);
    for (const gguf::ExpertLayer& layer : index.layers()) {
        for (const gguf::ExpertTensor& entry : layer.experts) {
            const gguf::TensorInfo& tensor = *entry.tensor;
            if (!tensor.traits || !tensor.traits->dequantize || tensor.nDims != 3)
                continue;
            const auto experts = static_cast<std::uint64_t>(tensor.ne[2]);
            const std::uint64_t perExpert = static_cast<std::uint64_t>(tensor.ne[0]) * static_cast<std::uint64_t>(tensor.ne[1]);
            if (experts > 0 && perExpert <= kBudgetElements && budget.take(perExpert, 1) == perExpert)
                FUZZ_CHECK(gguf::computeExpertStatistics(tensor, experts - 1).ok());
            if (experts > 0 && experts <= kMaxSimilarityExperts && tensor.ne[1] > 0
                && budget.take(experts * static_cast<std::uint64_t>(tensor.ne[0]), 1) == experts * static_cast<std::uint64_t>(tensor.ne[0])) {
                std::vector<double> dots(experts * experts, 0.0);
                FUZZ_CHECK(gguf::accumulateExpertDots(tensor, 0, 1, dots).ok());
                FUZZ_CHECK(gguf::cosineFromDots(dots, experts).size() == dots.size());
            }
        }
        const gguf::TensorInfo* router = layer.router;
        if (router && router->nDims == 2 && router->traits && router->traits->dequantize
            && budget.take(router->elementCount(), 1) == router->elementCount()) {
            const auto norms = gguf::routerRowNorms(*router);
            FUZZ_CHECK(norms.ok() && norms->size() == static_cast<std::uint64_t>(router->ne[1]));
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static fuzz::MemoryFile input("gguf-fuzz-input");
    const auto model = gguf::Model::open(input.write(data, size));
    if (!model)
        return 0;
    Budget budget;
    std::vector<float> buffer;
    for (const gguf::TensorInfo& tensor : (*model)->tensors()) {
        exerciseTensor(tensor, budget, buffer);
        // Reads every stored byte once; bounded by the file size.
        const gguf::TensorCheckResult check = gguf::checkTensor(tensor);
        FUZZ_CHECK(!check.error);
        FUZZ_CHECK(check.damagedBlockCount >= check.damagedBlocks.size());
    }
    exerciseExperts(**model, budget);
    return 0;
}
