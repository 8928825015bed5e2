#include "core/forward/WeightLoader.h"

#include "core/gguf/CompanionScales.h"
#include "core/gguf/RemoteRegion.h"
#include "core/gguf/Dequantize.h"
#include "core/gguf/ParallelDequantize.h"
#include "core/kernels/QuantizedDot.h"
#include "core/quantize/Quantize.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace gguf {

namespace {
// Fewer rows than this are dequantized at load (norms, biases, an embedding row).
constexpr std::uint64_t kDeferredMinimumRows = 16;

std::string shapeText(std::array<std::int64_t, 3> ne)
{
    return "[" + std::to_string(ne[0]) + ", " + std::to_string(ne[1]) + (ne[2] != 1 ? ", " + std::to_string(ne[2]) : "") + "]";
}
}  // namespace

void WeightMatrix::materialize() const
{
    values.resize(size());
    // The load checked the type; a failure here (none is known) leaves NaN rather than garbage.
    if (!dequantizeRowsParallel(*source, sourceRowBegin, sourceRowBegin + static_cast<std::uint64_t>(rows), values, executor, WeightValues::Stored))
        std::fill(values.begin(), values.end(), std::numeric_limits<float>::quiet_NaN());
}

WeightTransform WeightTransform::encoding(Encode encode, TypeOf typeOf)
{
    WeightTransform transform;
    transform.encode = std::move(encode);
    transform.typeOf = std::move(typeOf);
    return transform;
}

std::uint32_t WeightTransform::typeAfter(const TensorInfo& tensor) const
{
    if (typeOf)
        if (const std::optional<std::uint32_t> type = typeOf(tensor))
            return *type;
    return tensor.typeId;
}

WeightLoader::WeightLoader(const Model& model, WeightTransform transform, ActivationArithmetic arithmetic, TaskExecutor* executor)
    : m_model(model), m_transform(std::move(transform)), m_arithmetic(arithmetic), m_executor(executor)
{
}

void WeightLoader::recycle(WeightMatrix&& matrix)
{
    if (matrix.values.capacity() > 0)
        m_spare.push_back(std::move(matrix.values));
    matrix = WeightMatrix{};
}

std::uint64_t WeightLoader::spareBytes() const
{
    std::uint64_t bytes = 0;
    for (const auto& buffer : m_spare)
        bytes += buffer.capacity() * sizeof(float);
    return bytes;
}

namespace {
// Whether the products with `tensor` can run llama.cpp's kernels on its blocks (QuantizedDot.h):
// a type llama.cpp's CPU backend multiplies, the activations quantized as it takes them, whole
// blocks per row, and the blocks in local little-endian memory.
bool integerProductApplies(const TensorInfo& tensor, ActivationRounding rounding)
{
    const TypeTraits* type = findType(tensor.typeId);
    if (!type || !type->cpu.vecDot || !tensor.data || isRemoteAddress(tensor.data) || tensor.bigEndian)
        return false;
    const std::optional<Q8Kind> kind = q8KindOf(type->cpu.activations);
    return kind && rounding == llamaCppActivationRounding(tensor.typeId) && tensor.ne[0] % type->blockSize == 0
        && tensor.ne[0] % Q8Activations::blockSize(*kind) == 0;
}
}  // namespace

Status WeightLoader::fill(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, WeightMatrix& matrix)
{
    // The companion scale of the matrix's expert (rows of one expert) or of the whole weight;
    // an input scale is loaded and checked, as llama.cpp does, and not applied.
    if (Status companions = checkCompanions(tensor, [this](std::string_view name) { return m_model.findTensor(name); }); !companions)
        return Error{companions.error().message, companions.error().offset, m_model.primary().path()};
    const std::uint64_t rowsPerMatrix = static_cast<std::uint64_t>(std::max<std::int64_t>(tensor.ne[1], 1));
    const Result<float> scale = outputScaleOf(tensor, tensor.ne[2] > 1 && matrix.slices == 1 ? rowBegin / rowsPerMatrix : 0);
    if (!scale)
        return Error{scale.error().message, scale.error().offset, m_model.primary().path()};
    if (tensor.outputScale && tensor.ne[2] > 1 && matrix.slices > 1)
        return Error{"tensor '" + std::string(tensor.name) + "' is read as one matrix per head, but has a scale per expert ('"
                         + std::string(tensor.outputScale->name) + "')",
                     tensor.outputScale->infoOffset, m_model.primary().path()};
    matrix.outputScale = *scale;

    // A tensor the transform leaves as stored is read exactly as without one.
    if (!m_transform.changes(tensor))
        return fillFrom(tensor, rowBegin, rowEnd, false, matrix);
    if (m_transform.encode)
        return fillEncoded(tensor, rowBegin, rowEnd, matrix);
    return fillFrom(tensor, rowBegin, rowEnd, true, matrix);
}

Status WeightLoader::fillEncoded(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, WeightMatrix& matrix)
{
    const std::uint32_t typeId = m_transform.typeAfter(tensor);
    const TypeTraits* traits = findType(typeId);
    if (!traits || traits->blockSize == 0 || tensor.ne[0] % traits->blockSize != 0)
        return Error{"cannot read " + std::string(tensor.name) + " as " + typeName(typeId), Error::kNoOffset, m_model.primary().path()};
    auto encoded = std::make_shared<EncodedRows>();
    if (Status done = m_transform.encode(tensor, rowBegin, rowEnd, encoded->blocks); !done)
        return done;
    if (encoded->blocks.size() != (rowEnd - rowBegin) * quantizedSize(*traits, static_cast<std::uint64_t>(tensor.ne[0])))
        return Error{"the transform gave " + std::to_string(encoded->blocks.size()) + " bytes for " + std::to_string(rowEnd - rowBegin)
                         + " rows of " + std::string(tensor.name) + " as " + typeName(typeId),
                     Error::kNoOffset, m_model.primary().path()};
    // The tensor's shape is kept (ne[1] decides the layout of some integer products, as in
    // llama.cpp); only rows 0.. of it, the encoded ones, are read.
    encoded->tensor = tensor;
    encoded->tensor.typeId = typeId;
    encoded->tensor.traits = traits;
    encoded->tensor.data = encoded->blocks.data();
    encoded->tensor.nbytes = encoded->blocks.size();
    encoded->tensor.bigEndian = false;
    matrix.encoded = encoded;
    return fillFrom(encoded->tensor, 0, rowEnd - rowBegin, false, matrix);
}

Status WeightLoader::fillFrom(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, bool transformed, WeightMatrix& matrix)
{
    matrix.storedType = tensor.typeId;
    matrix.executor = m_executor;
    matrix.activationRounding = activationRoundingFor(m_arithmetic, transformed ? m_transform.typeAfter(tensor) : tensor.typeId);
    const std::uint64_t count = (rowEnd - rowBegin) * static_cast<std::uint64_t>(tensor.ne[0]);
    matrix.ggmlFloatLanes = m_arithmetic == ActivationArithmetic::LlamaCpp && !transformed && tensor.ne[0] % 8 == 0
                         && (tensor.typeId == typeIdValue(GgmlTypeId::F32) || tensor.typeId == typeIdValue(GgmlTypeId::F16));
    matrix.integerProduct = integerProductApplies(tensor, matrix.activationRounding) && !transformed && m_deferMatrices;
    if (matrix.integerProduct) {
        matrix.source = &tensor;
        matrix.sourceRowBegin = rowBegin;
    }
    if (tensor.typeId == typeIdValue(GgmlTypeId::F32) && !tensor.bigEndian && !transformed && tensor.data
        && !isRemoteAddress(tensor.data)
        && reinterpret_cast<std::uintptr_t>(tensor.data) % alignof(float) == 0) {
        matrix.mapped = reinterpret_cast<const float*>(tensor.data) + rowBegin * static_cast<std::uint64_t>(tensor.ne[0]);
        return Ok{};
    }
    // Matrices (not norms, biases or single embedding rows) of local data are deferred: products
    // dequantize them a tile at a time, or multiply their blocks. One row is dequantized here so
    // that a type without a dequantization fails at load, as it would otherwise.
    if (matrix.integerProduct && rowEnd - rowBegin >= kDeferredMinimumRows && matrix.slices == 1) {
        matrix.values.clear();
        return Ok{};
    }
    if (m_deferMatrices && !matrix.integerProduct && !transformed && !tensor.bigEndian && tensor.data && !isRemoteAddress(tensor.data)
        && rowEnd - rowBegin >= kDeferredMinimumRows && matrix.slices == 1 && tensor.ne[0] % 8 == 0) {
        std::vector<float> probe(static_cast<std::size_t>(tensor.ne[0]));
        if (Status done = dequantizeRows(tensor, rowBegin, rowBegin + 1, probe, WeightValues::Stored); !done)
            return done;
        matrix.values.clear();
        matrix.source = &tensor;
        matrix.sourceRowBegin = rowBegin;
        return Ok{};
    }
    // The spare buffer that fits best: the smallest large enough, else the largest.
    std::size_t best = m_spare.size();
    for (std::size_t i = 0; i < m_spare.size(); ++i) {
        const bool fits = m_spare[i].capacity() >= count;
        if (best == m_spare.size() || (fits && (m_spare[best].capacity() < count || m_spare[i].capacity() < m_spare[best].capacity()))
            || (!fits && m_spare[best].capacity() < count && m_spare[i].capacity() > m_spare[best].capacity()))
            best = i;
    }
    if (best < m_spare.size()) {
        matrix.values = std::move(m_spare[best]);
        m_spare.erase(m_spare.begin() + static_cast<std::ptrdiff_t>(best));
    }
    matrix.values.resize(count);
    if (Status done = dequantizeRowsParallel(tensor, rowBegin, rowEnd, matrix.values, m_executor, WeightValues::Stored); !done)
        return done;
    if (transformed)
        return m_transform.apply(tensor, rowBegin, matrix.values);
    return Ok{};
}

Result<WeightMatrix> WeightLoader::load(const std::string& name, std::array<std::int64_t, 3> ne, bool required)
{
    const TensorInfo* tensor = m_model.findTensor(name);
    if (!tensor) {
        if (!required)
            return WeightMatrix{};
        return Error{"the forward pass needs tensor " + name, Error::kNoOffset, m_model.primary().path()};
    }
    if (tensor->ne[0] != ne[0] || tensor->ne[1] != ne[1] || tensor->ne[2] != ne[2] || tensor->ne[3] != 1)
        return Error{"tensor " + name + " must have shape " + shapeText(ne), tensor->infoOffset, m_model.primary().path()};
    WeightMatrix matrix;
    matrix.columns = ne[0];
    matrix.rows = ne[1];
    matrix.slices = ne[2];
    matrix.productKind = ne[2] > 1 ? ProductKind::Batched : ProductKind::Matrix;
    matrix.tensorName = tensor->name;
    if (Status done = fill(*tensor, 0, tensor->rowCount(), matrix); !done)
        return done.error();
    return matrix;
}

Result<std::int64_t> WeightLoader::matrixRows(const std::string& name, std::int64_t columns) const
{
    const TensorInfo* tensor = m_model.findTensor(name);
    if (!tensor)
        return Error{"the forward pass needs tensor " + name, Error::kNoOffset, m_model.primary().path()};
    if (tensor->ne[0] != columns || tensor->ne[2] != 1 || tensor->ne[3] != 1)
        return Error{"tensor " + name + " must be [" + std::to_string(columns) + ", rows]", tensor->infoOffset, m_model.primary().path()};
    return tensor->ne[1];
}

Result<WeightMatrix> WeightLoader::loadRows(const std::string& name, std::int64_t columns, std::uint64_t rowBegin, std::uint64_t rowEnd)
{
    const TensorInfo* tensor = m_model.findTensor(name);
    if (!tensor)
        return Error{"the forward pass needs tensor " + name, Error::kNoOffset, m_model.primary().path()};
    if (tensor->ne[0] != columns)
        return Error{"tensor " + name + " must have rows of " + std::to_string(columns) + " values", tensor->infoOffset,
                     m_model.primary().path()};
    if (rowBegin > rowEnd || rowEnd > tensor->rowCount())
        return Error{"rows " + std::to_string(rowBegin) + ".." + std::to_string(rowEnd) + " are outside tensor " + name,
                     tensor->infoOffset, m_model.primary().path()};
    WeightMatrix matrix;
    matrix.columns = columns;
    matrix.rows = static_cast<std::int64_t>(rowEnd - rowBegin);
    // Rows of a 3-D tensor are one expert's (mul_mat_id), of a 2-D one a part of the matrix.
    matrix.productKind = tensor->ne[2] > 1 ? ProductKind::Expert : ProductKind::Matrix;
    if (Status done = fill(*tensor, rowBegin, rowEnd, matrix); !done)
        return done.error();
    return matrix;
}

}  // namespace gguf
