#include "core/forward/WeightLoader.h"

#include "core/gguf/RemoteRegion.h"
#include "core/kernels/Dequantize.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/ParallelDequantize.h"
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
    if (!dequantizeRowsParallel(*source, sourceRowBegin, sourceRowBegin + static_cast<std::uint64_t>(rows), values, executor))
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
// The f16 `m` of every block of rows [rowBegin, rowEnd) of a q4_1 / q5_1 tensor (bytes 2..3 of
// each block: d, then m), when its data is in local memory.
void readBlockMins(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::vector<float>& mins)
{
    const bool q4 = tensor.typeId == typeIdValue(GgmlTypeId::Q4_1);
    const std::uint64_t blockBytes = q4 ? 20 : 24;
    const auto blocks = static_cast<std::uint64_t>(tensor.ne[0]) / 32;
    if (!tensor.data || isRemoteAddress(tensor.data) || tensor.bigEndian)
        return;
    mins.resize((rowEnd - rowBegin) * blocks);
    for (std::uint64_t r = rowBegin; r < rowEnd; ++r)
        for (std::uint64_t b = 0; b < blocks; ++b) {
            const std::uint8_t* block = tensor.data + (r * blocks + b) * blockBytes;
            const auto bits = static_cast<std::uint16_t>(block[2] | (block[3] << 8));
            mins[(r - rowBegin) * blocks + b] = f16ToF32(bits);
        }
}
// Whether the product with `tensor` can run in integers (kernels/QuantizedDot.h): a type with an
// integer kernel, the activations quantized as that kernel takes them, whole blocks per row, and
// the blocks in local little-endian memory.
bool integerProductApplies(const TensorInfo& tensor, ActivationRounding rounding)
{
    const auto type = quantizedWeightOfType(tensor.typeId, tensor.ne[1] % 8 == 0);
    if (!type || !tensor.data || isRemoteAddress(tensor.data) || tensor.bigEndian)
        return false;
    const Q8Kind kind = activationKindOf(*type);
    const ActivationRounding expected = kind == Q8Kind::Q8_0 ? ActivationRounding::Q8_0 : ActivationRounding::Q8_K;
    return rounding == expected && tensor.ne[0] % Q8Activations::blockSize(kind) == 0;
}
}  // namespace

// llama.cpp multiplies the product of `X.weight` by a companion `X.scale` (and checks an
// `X.input_scale`) wherever a file has one: the per-tensor "scale2" of NVFP4 conversions
// (llama-model.cpp, the generic pass over every layer). The pass applies the ones of its own
// architectures (gemma4's expert output scale and router input scale, read by FeedForwardStep);
// any other would be a tensor the network needs and the pass ignores, so it refuses.
Status WeightLoader::refuseUnappliedScales(const TensorInfo& tensor) const
{
    const std::string_view name(tensor.name);
    constexpr std::string_view kWeight = ".weight";
    if (name.size() <= kWeight.size() || name.substr(name.size() - kWeight.size()) != kWeight)
        return Ok{};
    const std::string stem(name.substr(0, name.size() - kWeight.size()));
    for (const char* suffix : {".scale", ".input_scale"}) {
        const std::string companion = stem + suffix;
        const bool applied = std::string_view(suffix) == ".scale"
                             && (stem.ends_with(".ffn_down_exps") || stem.ends_with(".ffn_gate_inp"));
        if (const TensorInfo* found = m_model.findTensor(companion); found && !applied)
            return Error{"tensor " + companion + " scales the product of " + std::string(name)
                             + " (as NVFP4 conversions do); the forward pass does not apply it yet, and refuses rather than run another network",
                         found->infoOffset, m_model.primary().path()};
    }
    return Ok{};
}

Status WeightLoader::fill(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, WeightMatrix& matrix)
{
    if (Status s = refuseUnappliedScales(tensor); !s)
        return s;
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
    matrix.blockMins.clear();
    matrix.ggmlBlockLanes = matrix.activationRounding == ActivationRounding::Q8_0 && !transformed && tensor.ne[0] % 32 == 0
                         && (tensor.typeId == typeIdValue(GgmlTypeId::Q8_0) || tensor.typeId == typeIdValue(GgmlTypeId::Q4_0)
                             || tensor.typeId == typeIdValue(GgmlTypeId::Q5_0) || tensor.typeId == typeIdValue(GgmlTypeId::IQ4_NL));
    matrix.integerProduct = integerProductApplies(tensor, matrix.activationRounding) && !transformed && m_deferMatrices;
    if (matrix.activationRounding == ActivationRounding::Q8_1 && !transformed)
        readBlockMins(tensor, rowBegin, rowEnd, matrix.blockMins);
    if (tensor.typeId == typeIdValue(GgmlTypeId::F32) && !tensor.bigEndian && !transformed && tensor.data
        && !isRemoteAddress(tensor.data)
        && reinterpret_cast<std::uintptr_t>(tensor.data) % alignof(float) == 0) {
        matrix.mapped = reinterpret_cast<const float*>(tensor.data) + rowBegin * static_cast<std::uint64_t>(tensor.ne[0]);
        return Ok{};
    }
    // Matrices (not norms, biases or single embedding rows) of local data are deferred: products
    // dequantize them a tile at a time. One row is dequantized here so that a type without a
    // dequantization fails at load, as it would otherwise.
    // Not with ggml's block order (ggmlBlockLanes), whose product needs the whole copy.
    if (matrix.integerProduct && rowEnd - rowBegin >= kDeferredMinimumRows && matrix.slices == 1) {
        matrix.values.clear();
        matrix.source = &tensor;
        matrix.sourceRowBegin = rowBegin;
        return Ok{};
    }
    matrix.integerProduct = false;
    if (m_deferMatrices && !matrix.ggmlBlockLanes && !transformed && !tensor.bigEndian && tensor.data && !isRemoteAddress(tensor.data)
        && rowEnd - rowBegin >= kDeferredMinimumRows && matrix.slices == 1 && tensor.ne[0] % 8 == 0) {
        std::vector<float> probe(static_cast<std::size_t>(tensor.ne[0]));
        if (Status done = dequantizeRows(tensor, rowBegin, rowBegin + 1, probe); !done)
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
    if (Status done = dequantizeRowsParallel(tensor, rowBegin, rowEnd, matrix.values, m_executor); !done)
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
    if (Status done = fill(*tensor, rowBegin, rowEnd, matrix); !done)
        return done.error();
    return matrix;
}

}  // namespace gguf
