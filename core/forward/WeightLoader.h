#pragma once
// Weights of the forward pass, dequantized to f32 on demand (one layer's worth at a time, never
// the whole model) with the core's kernels on all cores; little-endian f32 tensors are used in
// place from the mapping when nothing transforms them. A transform hook sees every matrix after
// dequantization, so the same pass runs the reference "quantized in memory" (simulation).

#include "core/base/TaskExecutor.h"
#include "core/base/Result.h"
#include "core/forward/ActivationRounding.h"
#include "core/gguf/Model.h"
#include "core/kernels/QuantizedDot.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

// The blocks a WeightTransform::Encode made for some rows of a tensor, and a TensorInfo that
// describes them as a stored tensor (its rows 0.. are the encoded rows).
struct EncodedRows {
    TensorInfo tensor;
    std::vector<std::uint8_t> blocks;
};

// A weight in f32: `slices` matrices (experts) of rows x columns, row-major; ggml's ne[0] is the
// column count, so a matrix product is y = W x over rows.
struct WeightMatrix {
    // The f32 copy, unless `mapped` is set. For a deferred matrix (`source` set) it stays empty
    // until data() is first called: products (MatrixProduct.h) dequantize the rows a tile at a
    // time instead, so neither the time nor the memory of the whole f32 copy is spent.
    mutable std::vector<float> values;
    const float* mapped = nullptr;    // an f32 tensor used in place from the mapped file
    const TensorInfo* source = nullptr;  // deferred: the tensor, local and little-endian
    std::uint64_t sourceRowBegin = 0;    // deferred: this matrix's first row in `source`
    std::int64_t columns = 0;
    std::int64_t rows = 0;
    std::int64_t slices = 1;
    std::uint32_t storedType = 0;  // the tensor's type in the file
    // The whole tensor this matrix holds (WeightLoader::load), which a product shows its observer
    // (MatmulInputObserver.h); empty for a part of one (loadRows) or a bias.
    std::string_view tensorName;
    // What llama.cpp does to the activations multiplied by this weight (its vec_dot_type), when
    // that is emulated (ActivationRounding.h); None otherwise.
    ActivationRounding activationRounding = ActivationRounding::None;
    // The same for f32 and f16 weights (tinyBLAS's f32 / f16 kernels: 8 float lanes over the
    // columns, fma; f16 after the activations are rounded to f16).
    bool ggmlFloatLanes = false;
    // With q8 activations (a quantized weight): the products run llama.cpp's kernels on the
    // stored blocks of `source` (QuantizedDot.h), whether or not an f32 copy exists, in the plan
    // ggml-cpu would choose for `productKind` (a matrix, one head's slice, one expert).
    bool integerProduct = false;
    ProductKind productKind = ProductKind::Matrix;
    // The weight's companion scale (CompanionScales.h), by which llama.cpp multiplies each
    // product; 1 without one. The values above are the stored ones.
    float outputScale = 1.0f;
    // Where this matrix's products and dequantization run: the pass's executor (null: the calling
    // thread alone).
    TaskExecutor* executor = nullptr;
    // A transform's blocks, which `source` then points into.
    std::shared_ptr<const EncodedRows> encoded;

    std::size_t size() const { return static_cast<std::size_t>(columns * rows * slices); }
    const float* data() const
    {
        if (mapped)
            return mapped;
        if (source && values.empty())
            materialize();
        return values.data();
    }
    // Deferred and not yet dequantized: products read `source` directly.
    bool deferred() const { return source && values.empty() && !mapped; }
    std::span<const float> view() const { return {data(), size()}; }
    bool present() const { return size() > 0; }
    const float* slice(std::int64_t index) const { return data() + index * rows * columns; }
    // f32 bytes this matrix holds beyond the mapped file.
    std::uint64_t heldBytes() const { return values.capacity() * sizeof(float) + (encoded ? encoded->blocks.capacity() : 0); }

private:
    void materialize() const;
};

// Changes the weights the pass reads (e.g. quantize to q4_K and back), in one of two ways.
struct WeightTransform {
    // Replaces dequantized values in place. `values` are rows [rowBegin, rowBegin + values.size()
    // / ne[0]) of the tensor flattened over ne[1..3].
    using Apply = std::function<Status(const TensorInfo& tensor, std::uint64_t rowBegin, std::span<float> values)>;
    // Rows [rowBegin, rowEnd) of the tensor (flattened over ne[1..3]) as blocks of
    // typeOf(tensor) in `blocks`; it reads the rows itself, so an encoder that has the blocks
    // already (a cache) reads nothing. The pass then reads the blocks as it reads a stored
    // tensor of that type (integer products, llama.cpp's rounding for it), so a simulated
    // quantization gives the bits of the file it would write.
    using Encode = std::function<Status(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::vector<std::uint8_t>& blocks)>;
    // The type a tensor has after the transform, or nothing when it is left as stored (the pass
    // then reads it as without a transform, so its products are the same bits).
    using TypeOf = std::function<std::optional<std::uint32_t>(const TensorInfo& tensor)>;

    WeightTransform() = default;
    // Values changed in place; every tensor may change, and keeps its stored type's rounding.
    template <class F>
        requires std::is_invocable_r_v<Status, const F&, const TensorInfo&, std::uint64_t, std::span<float>>
    WeightTransform(F function) : apply(std::move(function))
    {
    }
    static WeightTransform encoding(Encode encode, TypeOf typeOf);

    Apply apply;
    Encode encode;  // used instead of `apply` when set; needs `typeOf`
    TypeOf typeOf;

    explicit operator bool() const { return apply || encode; }
    // Whether `tensor` changes, and the type it then has.
    bool changes(const TensorInfo& tensor) const { return *this && (!typeOf || typeOf(tensor).has_value()); }
    std::uint32_t typeAfter(const TensorInfo& tensor) const;
};


class WeightLoader {
public:
    // `executor` runs the dequantization and, through each WeightMatrix, the products (null:
    // the calling thread alone).
    WeightLoader(const Model& model, WeightTransform transform, ActivationArithmetic arithmetic, TaskExecutor* executor);

    // The tensor `name` with exactly the shape `ne` (ne[2] = 1 for a matrix). A missing tensor is
    // an error when `required`, else an empty WeightMatrix.
    Result<WeightMatrix> load(const std::string& name, std::array<std::int64_t, 3> ne, bool required = true);
    // Rows [rowBegin, rowEnd) of a tensor flattened over ne[1..3] (embedding lookups, the
    // output matrix in chunks, one expert of an expert tensor).
    Result<WeightMatrix> loadRows(const std::string& name, std::int64_t columns, std::uint64_t rowBegin, std::uint64_t rowEnd);
    // A tensor's row count (ne[1] of a matrix), or an error naming it when it is not
    // [columns, rows].
    Result<std::int64_t> matrixRows(const std::string& name, std::int64_t columns) const;

    const Model& model() const { return m_model; }

    // Whether matrices may be deferred (WeightMatrix::source): on by default, for products
    // summed in lanes; off when the products need whole f32 copies (double or BLAS sums).
    void setDeferMatrices(bool defer) { m_deferMatrices = defer; }

    // Hands a matrix's storage back for the next load, so a pass over many layers reuses a few
    // buffers instead of faulting in fresh memory for every tensor.
    void recycle(WeightMatrix&& matrix);
    // f32 bytes in the spare buffers (counted in what the pass holds).
    std::uint64_t spareBytes() const;

private:
    Status fill(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, WeightMatrix& matrix);
    // `transformed`: the values go through the transform's `apply` after dequantization.
    Status fillFrom(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, bool transformed, WeightMatrix& matrix);
    // Encodes rows with the transform's `encode` and reads them as a stored tensor.
    Status fillEncoded(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, WeightMatrix& matrix);

    const Model& m_model;
    WeightTransform m_transform;
    ActivationArithmetic m_arithmetic = ActivationArithmetic::QuantizedAsLlamaCpp;
    bool m_deferMatrices = true;
    TaskExecutor* m_executor = nullptr;
    std::vector<std::vector<float>> m_spare;
};

}  // namespace gguf
