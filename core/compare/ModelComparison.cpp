#include "core/compare/ModelComparison.h"

#include "core/compare/ImportanceErrorMetrics.h"
#include "core/imatrix/ImportanceMatrix.h"

#include "core/compare/ComparisonEngine.h"

#include "core/gguf/Dequantize.h"
#include "core/quantize/QuantizationPolicy.h"
#include "core/quantize/Quantize.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <mutex>
#include <numeric>

namespace gguf {

namespace {

std::string baseName(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string shapeText(const TensorInfo& tensor)
{
    std::string text = "[";
    for (std::uint32_t d = 0; d < std::max<std::uint32_t>(tensor.nDims, 1); ++d)
        text += (d ? ", " : "") + std::to_string(tensor.ne[d]);
    return text + "]";
}

bool decodable(const TensorInfo& tensor)
{
    return tensor.traits && tensor.traits->dequantize;
}

std::string nameList(const std::vector<std::string_view>& names)
{
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i)
        text += (i ? ", " : "") + std::string(names[i]);
    return names.size() > 5 ? text + ", ..." : text;
}

}  // namespace

const char* cellStatusName(CellStatus status)
{
    switch (status) {
    case CellStatus::Ok: return "ok";
    case CellStatus::Missing: return "missing";
    case CellStatus::ShapeMismatch: return "shape_mismatch";
    case CellStatus::Undecodable: return "undecodable";
    case CellStatus::NoImportance: return "no_imatrix_entry";
    }
    return "unknown";
}

TensorNameParts splitTensorName(std::string_view name)
{
    TensorNameParts parts;
    constexpr std::string_view prefix = "blk.";
    if (name.substr(0, prefix.size()) == prefix) {
        const std::string_view rest = name.substr(prefix.size());
        std::uint32_t layer = 0;
        const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), layer);
        if (error == std::errc() && end != rest.data() && end < rest.data() + rest.size() && *end == '.') {
            parts.layer = layer;
            name = rest.substr(static_cast<std::size_t>(end - rest.data()) + 1);
        }
    }
    constexpr std::string_view weight = ".weight";
    if (name.size() > weight.size() && name.substr(name.size() - weight.size()) == weight)
        name.remove_suffix(weight.size());
    parts.kind = std::string(name);
    return parts;
}

// ---- pairing ----------------------------------------------------------------------------------

Result<ModelComparison> ModelComparison::create(std::vector<std::shared_ptr<const Model>> models, const ComparisonOptions& options)
{
    if (models.empty() || std::any_of(models.begin(), models.end(), [](const auto& m) { return !m; }))
        return Error{"nothing to compare: no model given", Error::kNoOffset, {}};
    ModelComparison comparison;
    comparison.m_models = std::move(models);
    comparison.m_importance = options.importance;
    if (options.importance)
        comparison.m_importanceQuantizer = options.quantizer ? options.quantizer : ImportanceQuantizer(quantizeRows);
    if (options.referenceIndex) {
        if (*options.referenceIndex >= comparison.m_models.size())
            return Error{"reference index " + std::to_string(*options.referenceIndex) + " is not one of the "
                         + std::to_string(comparison.m_models.size()) + " models", Error::kNoOffset, {}};
        comparison.m_referenceIndex = *options.referenceIndex;
    } else {
        double best = -1.0;
        for (std::size_t i = 0; i < comparison.m_models.size(); ++i) {
            const double bits = comparison.m_models[i]->summary().averageBitsPerWeight;
            if (bits > best) {
                best = bits;
                comparison.m_referenceIndex = i;
            }
        }
    }

    for (std::size_t i = 0; i < comparison.m_models.size(); ++i) {
        if (i == comparison.m_referenceIndex)
            continue;
        const auto& model = comparison.m_models[i];
        comparison.m_columns.push_back({ComparisonColumn::Kind::File, baseName(model->primary().path()), model, i, 0, nullptr});
    }
    for (const std::uint32_t type : options.simulatedTypes) {
        if (!canQuantize(type))
            return Error{"cannot simulate " + typeName(type) + ": the core has no quantizer for it", Error::kNoOffset, {}};
        // ggml makes these only with an importance matrix: with one (and its quantizer) the
        // tensors it covers can be simulated; the others fail in their cells.
        if (requiresImportance(type) && !comparison.m_importanceQuantizer)
            return Error{"cannot simulate " + typeName(type) + " without an importance matrix: ggml quantizes it only with one", Error::kNoOffset, {}};
        comparison.m_columns.push_back({ComparisonColumn::Kind::Simulated, typeName(type) + " (simulated)", nullptr, 0, type, nullptr});
    }
    for (const SimulatedRecipe& recipe : options.simulatedRecipes) {
        if (!recipe.types)
            return Error{"cannot simulate " + recipe.label + ": no recipe given", Error::kNoOffset, {}};
        for (const auto& [name, type] : *recipe.types)
            if (!canQuantize(type))
                return Error{"cannot simulate " + recipe.label + ": " + name + " would be " + typeName(type)
                                 + ", which the core cannot quantize",
                             Error::kNoOffset, {}};
        comparison.m_columns.push_back({ComparisonColumn::Kind::Simulated, recipe.label + " (simulated)", nullptr, 0, 0, recipe.types});
    }
    if (comparison.m_columns.empty())
        return Error{"nothing to compare: give a second model or a type to simulate", Error::kNoOffset, {}};

    for (const TensorInfo& tensor : comparison.reference().tensors()) {
        if (options.includeTensor && !options.includeTensor(tensor.name))
            continue;
        ComparisonRow row;
        row.reference = &tensor;
        row.nameParts = splitTensorName(tensor.name);
        comparison.pairRow(row);
        comparison.m_rows.push_back(std::move(row));
    }
    comparison.reportUnpaired();
    if (comparison.m_importanceQuantizer) {
        comparison.m_simulationWeights.resize(comparison.m_rows.size());
        for (std::size_t r = 0; r < comparison.m_rows.size(); ++r) {
            const TensorInfo& tensor = *comparison.m_rows[r].reference;
            if (auto weights = tensorImportance(options.importance->find(tensor.name), tensor))
                comparison.m_simulationWeights[r] = std::make_shared<const TensorImportance>(std::move(*weights));
        }
    }
    // A type ggml makes only with importance weights cannot simulate a tensor the matrix does not
    // cover (token_embd, output): that cell fails alone, as the comment on simulatedTypes says,
    // instead of failing the whole run when its ranges are computed.
    for (std::size_t c = 0; c < comparison.m_columns.size(); ++c) {
        std::vector<std::string_view> skipped;
        for (std::size_t r = 0; r < comparison.m_rows.size(); ++r) {
            ComparisonCell& cell = comparison.m_rows[r].cells[c];
            const bool weighted = r < comparison.m_simulationWeights.size() && comparison.m_simulationWeights[r];
            if (comparison.m_columns[c].kind == ComparisonColumn::Kind::Simulated && cell.ok() && cell.quantizedInMemory
                && requiresImportance(cell.typeId) && !weighted) {
                const std::string_view name = comparison.m_rows[r].reference->name;
                cell.status = CellStatus::NoImportance;
                cell.problem = "skipped: " + typeName(cell.typeId) + " needs importance weights and the importance matrix has no entry for "
                             + std::string(name);
                skipped.push_back(name);
            }
        }
        if (!skipped.empty())
            comparison.m_problems.push_back(comparison.m_columns[c].label + ": " + std::to_string(skipped.size())
                                            + " tensor(s) skipped, the importance matrix has no entry for them: " + nameList(skipped));
    }
    return comparison;
}

void ModelComparison::pairRow(ComparisonRow& row) const
{
    const TensorInfo& reference = *row.reference;
    for (const ComparisonColumn& column : m_columns) {
        ComparisonCell cell;
        if (!decodable(reference)) {
            cell.status = CellStatus::Undecodable;
            cell.problem = "the reference's " + typeName(reference.typeId) + " cannot be dequantized";
        } else if (column.kind == ComparisonColumn::Kind::Simulated && column.recipeTypes) {
            const auto chosen = column.recipeTypes->find(std::string(reference.name));
            const bool converted = chosen != column.recipeTypes->end();
            cell.typeId = converted ? chosen->second : reference.typeId;
            cell.quantizedInMemory = converted;
            cell.note = converted ? std::string() : "kept, as llama-quantize keeps it";
        } else if (column.kind == ComparisonColumn::Kind::Simulated) {
            const TensorTarget target = chooseTensorTarget(reference, column.simulatedType);
            cell.typeId = target.typeId;
            cell.quantizedInMemory = target.quantize;
            cell.note = target.note;
        } else if (const TensorInfo* other = column.model->findTensor(reference.name); !other) {
            cell.status = CellStatus::Missing;
            cell.problem = "not in " + column.label;
        } else if (other->ne != reference.ne) {
            cell.status = CellStatus::ShapeMismatch;
            cell.problem = "shape " + shapeText(*other) + " in " + column.label + ", " + shapeText(reference) + " in the reference";
        } else if (!decodable(*other)) {
            cell.status = CellStatus::Undecodable;
            cell.problem = typeName(other->typeId) + " in " + column.label + " cannot be dequantized";
        } else {
            cell.tensor = other;
            cell.typeId = other->typeId;
        }
        row.cells.push_back(std::move(cell));
    }
}

// Lines for what pairing cannot show per row: other architectures, tensors only the other model
// has, and a count of the cells that could not be paired.
void ModelComparison::reportUnpaired()
{
    const std::string architecture = reference().metadataString("general.architecture");
    for (std::size_t c = 0; c < m_columns.size(); ++c) {
        const ComparisonColumn& column = m_columns[c];
        if (column.kind != ComparisonColumn::Kind::File)
            continue;
        const std::string otherArchitecture = column.model->metadataString("general.architecture");
        if (otherArchitecture != architecture)
            m_problems.push_back(column.label + ": architecture '" + otherArchitecture + "' differs from the reference's '"
                                 + architecture + "'");
        std::vector<std::string_view> extra;
        for (const TensorInfo& tensor : column.model->tensors())
            if (!reference().findTensor(tensor.name))
                extra.push_back(tensor.name);
        if (!extra.empty())
            m_problems.push_back(column.label + ": " + std::to_string(extra.size()) + " tensor(s) not in the reference: " + nameList(extra));
        std::size_t missing = 0;
        std::size_t shapes = 0;
        for (const ComparisonRow& row : m_rows) {
            missing += row.cells[c].status == CellStatus::Missing;
            shapes += row.cells[c].status == CellStatus::ShapeMismatch;
        }
        if (missing > 0)
            m_problems.push_back(column.label + ": " + std::to_string(missing) + " of the reference's tensors missing");
        if (shapes > 0)
            m_problems.push_back(column.label + ": " + std::to_string(shapes) + " tensor(s) with another shape");
    }
}

// ---- streaming --------------------------------------------------------------------------------

std::uint64_t ModelComparison::cellElements(std::size_t row, std::size_t column) const
{
    return m_rows[row].cells[column].ok() ? m_rows[row].reference->elementCount() : 0;
}

std::uint64_t ModelComparison::rangeAlignment(std::size_t row, std::size_t column) const
{
    const ComparisonCell& cell = m_rows[row].cells[column];
    std::uint64_t alignment = m_rows[row].reference->traits->blockSize;
    if (const TypeTraits* other = findType(cell.typeId))
        alignment = std::lcm(alignment, std::uint64_t{other->blockSize});
    return alignment;
}

std::vector<ElementRange> ModelComparison::cellRanges(std::size_t row, std::size_t column, std::uint64_t maxElements) const
{
    std::vector<ElementRange> ranges;
    const std::uint64_t total = cellElements(row, column);
    if (total == 0)
        return ranges;
    const std::uint64_t rowLength = std::max<std::int64_t>(m_rows[row].reference->ne[0], 1);
    const std::uint64_t alignment = rangeAlignment(row, column);
    const std::uint64_t step = rowLength <= maxElements ? maxElements / rowLength * rowLength
                                                        : std::max(alignment, maxElements / alignment * alignment);
    for (std::uint64_t begin = 0; begin < total; begin += step)
        ranges.push_back({begin, std::min(total, begin + step)});
    return ranges;
}

Status ModelComparison::reconstruct(std::size_t row, std::size_t column, ElementRange range, std::span<float> reference,
                                    std::span<float> other) const
{
    const ComparisonRow& r = m_rows[row];
    const ComparisonCell& cell = r.cells[column];
    if (!cell.ok())
        return Error{std::string(r.reference->name) + ": " + cell.problem, Error::kNoOffset, {}};
    if (reference.size() != range.size() || other.size() != range.size())
        return Error{"reconstruct: buffers must hold the range's " + std::to_string(range.size()) + " values", Error::kNoOffset, {}};
    if (Status s = dequantizeElements(*r.reference, range.begin, range.end, reference); !s)
        return s;
    if (m_columns[column].kind == ComparisonColumn::Kind::File)
        return dequantizeElements(*cell.tensor, range.begin, range.end, other);
    if (!cell.quantizedInMemory) {
        std::copy(reference.begin(), reference.end(), other.begin());
        return Ok{};
    }
    const TypeTraits& type = *findType(cell.typeId);
    if (m_importanceQuantizer && row < m_simulationWeights.size() && m_simulationWeights[row])
        return quantizeRowsWithImportance(row, type, range, reference, other);
    if (range.begin % type.blockSize != 0 || range.end % type.blockSize != 0)
        return Error{"reconstruct: range is not aligned to " + std::string(type.name) + " blocks", Error::kNoOffset, {}};
    std::vector<std::uint8_t> packed(static_cast<std::size_t>(quantizedSize(type, range.size())));
    if (Status s = quantizeValues(type.id, reference, packed); !s)
        return s;
    type.dequantize(packed.data(), other.data(), packed.size() / type.blockBytes);
    return Ok{};
}

// Row by row: each row gets the weights of its expert, as llama-quantize hands them to
// ggml_quantize_chunk (one call per expert, every row of it with the same quant_weights).
Status ModelComparison::quantizeRowsWithImportance(std::size_t row, const TypeTraits& type, ElementRange range,
                                                   std::span<const float> reference, std::span<float> other) const
{
    const TensorImportance& weights = *m_simulationWeights[row];
    const std::uint64_t rowLength = weights.columns;
    if (range.begin % rowLength != 0 || range.size() % rowLength != 0)
        return Error{std::string(m_rows[row].reference->name) + ": a row of " + std::to_string(rowLength)
                         + " values is longer than a comparison range; it cannot be quantized with its importance",
                     Error::kNoOffset, {}};
    std::vector<std::uint8_t> packed(static_cast<std::size_t>(quantizedSize(type, rowLength)));
    for (std::uint64_t first = 0; first < range.size(); first += rowLength) {
        const std::uint64_t expert = (range.begin + first) / weights.expertElements;
        const std::span<const float> rowWeights(weights.weights.data() + expert * rowLength, static_cast<std::size_t>(rowLength));
        const std::span<const float> values = reference.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(rowLength));
        if (Status s = m_importanceQuantizer(type.id, values, static_cast<std::int64_t>(rowLength), rowWeights, packed); !s)
            return s;
        type.dequantize(packed.data(), other.data() + first, packed.size() / type.blockBytes);
    }
    return Ok{};
}

Status ModelComparison::accumulate(std::size_t row, std::size_t column, ElementRange range, ErrorAccumulator& into) const
{
    std::vector<float> reference(static_cast<std::size_t>(range.size()));
    std::vector<float> other(reference.size());
    if (Status s = reconstruct(row, column, range, reference, other); !s)
        return s;
    into.add(reference, other);
    return Ok{};
}

// ---- the runner -------------------------------------------------------------------------------

Result<ComparisonResults> runComparison(const ModelComparison& comparison, const ComparisonRunOptions& options)
{
    ComparisonEngine engine(comparison, options.chunkElements);
    std::atomic<std::size_t> nextUnit{0};
    std::atomic<bool> stop{false};
    std::uint64_t doneElements = 0;
    std::mutex mutex;  // guards doneElements, the progress callback, firstError
    std::optional<Error> firstError;
    const std::function<bool()> cancelled = [&] { return stop.load() || (options.cancel && options.cancel->load()); };
    const std::function<void(std::uint64_t)> rangeDone = [&](std::uint64_t elements) {
        const std::lock_guard lock(mutex);
        doneElements += elements;
        if (options.progress)
            options.progress(doneElements, engine.totalElements());
    };

    const auto work = [&] {
        for (std::size_t unit = nextUnit++; unit < engine.unitCount() && !cancelled(); unit = nextUnit++) {
            UnitOutcome outcome = engine.runUnit(unit, cancelled, rangeDone);
            if (outcome.outcome == WorkOutcome::Failed) {
                const std::lock_guard lock(mutex);
                if (!firstError)
                    firstError = std::move(outcome.error);
                stop = true;
            }
            if (outcome.outcome != WorkOutcome::Done)
                return;
        }
    };

    const std::size_t workers = std::min<std::size_t>(executorThreads(options.executor), std::max<std::size_t>(engine.unitCount(), 1));
    runTasks(options.executor, workers, [&](std::size_t) { work(); });

    if (firstError)
        return *firstError;
    if (options.cancel && options.cancel->load())
        return Error{"comparison cancelled", Error::kNoOffset, {}};
    return engine.results();
}

}  // namespace gguf
