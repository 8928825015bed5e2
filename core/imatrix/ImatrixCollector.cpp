#include "core/imatrix/ImatrixCollector.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <vector>

namespace gguf {

namespace {

// llama-imatrix: "why are small batches ignored (<16 tokens)?" — it skips them.
constexpr std::int64_t kFewestDenseRows = 16;

// acc[j] += x[j] * x[j] in float, a product then a sum (the project builds with
// -ffp-contract=off, as llama-imatrix's loop is compiled without FMA).
void addSquares(float* acc, const float* x, std::int64_t columns)
{
    for (std::int64_t j = 0; j < columns; ++j)
        acc[j] += x[j] * x[j];
}

bool allFinite(const float* values, std::size_t count)
{
    return std::all_of(values, values + count, [](float v) { return std::isfinite(v); });
}

}  // namespace

ImatrixCollector::ImatrixCollector(bool processOutput, std::int64_t ubatchRows)
    : m_processOutput(processOutput), m_ubatchRows(std::max<std::int64_t>(1, ubatchRows))
{
}

bool ImatrixCollector::collectsDense(const std::string& weight, bool processOutput)
{
    return weight.starts_with("blk.") || (processOutput && weight == "output.weight");
}

void ImatrixCollector::fail(std::string message)
{
    if (m_problem.empty())
        m_problem = std::move(message);
}

Status ImatrixCollector::status() const
{
    std::lock_guard lock(m_mutex);
    if (m_problem.empty())
        return Ok{};
    return Error{m_problem, Error::kNoOffset, {}};
}

ImatrixSumsEntry* ImatrixCollector::entryFor(const std::string& weight, std::int64_t matrices, std::int64_t counts, std::int64_t columns)
{
    ImatrixSumsEntry& e = m_sums.entries[weight];
    const auto size = static_cast<std::size_t>(columns * matrices);
    if (e.values.empty()) {
        e.values.assign(size, 0.0f);
        e.counts.assign(static_cast<std::size_t>(counts), 0);
    } else if (e.values.size() != size || e.counts.size() != static_cast<std::size_t>(counts)) {
        fail("importance matrix entry '" + weight + "' is multiplied with " + std::to_string(columns) + " columns, "
             + std::to_string(matrices) + " matrices and " + std::to_string(counts) + " count(s) after " + std::to_string(e.values.size())
             + " values and " + std::to_string(e.counts.size()) + " count(s)");
        return nullptr;
    }
    return &e;
}

std::int64_t ImatrixCollector::addDenseRows(float* acc, const float* x, std::int64_t rows, std::int64_t columns) const
{
    std::int64_t added = 0;
    for (std::int64_t first = 0; first < rows; first += m_ubatchRows) {
        const std::int64_t piece = std::min(m_ubatchRows, rows - first);
        if (piece < kFewestDenseRows)
            continue;
        for (std::int64_t r = first; r < first + piece; ++r)
            addSquares(acc, x + r * columns, columns);
        added += piece;
    }
    return added;
}

void ImatrixCollector::denseProduct(const std::string& weight, const float* x, std::int64_t rows, std::int64_t columns)
{
    if (!collectsDense(weight, m_processOutput) || columns <= 0)
        return;
    std::lock_guard lock(m_mutex);
    ImatrixSumsEntry* e = entryFor(weight, 1, 1, columns);
    if (!e)
        return;
    e->counts[0] += addDenseRows(e->values.data(), x, rows, columns);
    if (!allFinite(e->values.data(), e->values.size()))
        fail("non-finite values in the importance of " + weight);
}

void ImatrixCollector::stackedProduct(const std::string& weight, std::int64_t matrix, std::int64_t matrices, const float* x, std::int64_t rows,
                                      std::int64_t columns)
{
    if (!collectsDense(weight, m_processOutput) || columns <= 0 || matrix < 0 || matrix >= matrices)
        return;
    std::lock_guard lock(m_mutex);
    ImatrixSumsEntry* e = entryFor(weight, matrices, 1, columns);
    if (!e)
        return;
    float* acc = e->values.data() + matrix * columns;
    const std::int64_t added = addDenseRows(acc, x, rows, columns);
    if (matrix == 0)
        e->counts[0] += added;  // ggml's one product: its rows per matrix, once
    if (!allFinite(acc, static_cast<std::size_t>(columns)))
        fail("non-finite values in the importance of " + weight + " (matrix " + std::to_string(matrix) + ")");
}

void ImatrixCollector::expertProduct(const std::string& weight, std::int64_t expert, std::int64_t experts, const float* x,
                                     std::span<const std::int64_t> choices, std::int64_t used, std::int64_t columns)
{
    if (expert < 0 || expert >= experts || used <= 0 || columns <= 0)
        return;
    // ggml's order: per ubatch, slot after slot, tokens in order within a slot.
    std::vector<std::size_t> order(choices.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto key = [&](std::size_t r) {
        const std::int64_t token = choices[r] / used;
        return std::tuple(token / m_ubatchRows, choices[r] % used, token);
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    std::lock_guard lock(m_mutex);
    ImatrixSumsEntry* e = entryFor(weight, experts, experts, columns);
    if (!e)
        return;
    float* acc = e->values.data() + expert * columns;
    for (std::size_t r : order)
        addSquares(acc, x + static_cast<std::int64_t>(r) * columns, columns);
    e->counts[static_cast<std::size_t>(expert)] += static_cast<std::int64_t>(choices.size());
    if (!allFinite(acc, static_cast<std::size_t>(columns)))
        fail("non-finite values in the importance of " + weight + " (expert " + std::to_string(expert) + ")");
}

}  // namespace gguf
