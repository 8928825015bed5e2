#pragma once
// What a forward pass shows an observer of its matrix products: each weight matrix it multiplies
// with activations, and those activations as ggml hands them to the product (f32, after the
// norm, before any rounding the product does to them: llama.cpp's MUL_MAT src1). For a matrix
// of experts (llama.cpp's MUL_MAT_ID), the rows routed to one expert. llama-imatrix collects
// its importance matrix from exactly these (core/imatrix/ImatrixCollector.h).
//
// PassContext's products call it for every weight WeightLoader::load gave them (the name rides on
// the matrix), the output head and the experts where they multiply, and latent attention for its
// per-head products; the calls for different experts of one layer may come from several threads
// at once.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class MatmulInputObserver {
public:
    virtual ~MatmulInputObserver() = default;

    // `weight` (a tensor name: blk.0.attn_q.weight) multiplies `rows` activation rows of
    // `columns` values each (row-major, contiguous), in token order.
    virtual void denseProduct(const std::string& weight, const float* x, std::int64_t rows, std::int64_t columns) = 0;

    // Matrix `matrix` of the `matrices` 2-D matrices stacked in a 3-D `weight` multiplies `rows`
    // activation rows of `columns` values each, in token order: one head's product of multi-head
    // latent attention (attn_k_b, attn_v_b). ggml multiplies all of them in one MUL_MAT whose
    // input has one row per token and matrix; the calls for matrix 0, 1, ... follow each other.
    virtual void stackedProduct(const std::string& weight, std::int64_t matrix, std::int64_t matrices, const float* x, std::int64_t rows,
                                std::int64_t columns) = 0;

    // Expert `expert` of `experts` in `weight` multiplies the rows routed to it, in token order:
    // row r is token choices[r] / used, which chose the expert in place choices[r] % used (0 = the
    // router's first choice), as the pass's routing lists them (t * used + s).
    virtual void expertProduct(const std::string& weight, std::int64_t expert, std::int64_t experts, const float* x,
                               std::span<const std::int64_t> choices, std::int64_t used, std::int64_t columns) = 0;
};

// Nothing when no observer listens or the matrix is no whole tensor (the name is then not built).
inline void observeProduct(MatmulInputObserver* observer, std::string_view weight, const float* x, std::int64_t rows, std::int64_t columns)
{
    if (observer && rows > 0 && !weight.empty())
        observer->denseProduct(std::string(weight), x, rows, columns);
}

// One matrix of a 3-D `weight` (a tensor name), as MatmulInputObserver::stackedProduct.
inline void observeStackedProduct(MatmulInputObserver* observer, std::string_view weight, std::int64_t matrix, std::int64_t matrices,
                                  const float* x, std::int64_t rows, std::int64_t columns)
{
    if (observer && rows > 0 && !weight.empty())
        observer->stackedProduct(std::string(weight), matrix, matrices, x, rows, columns);
}

// Expert rows of `weight` (a tensor name), as MatmulInputObserver::expertProduct.
inline void observeExpertProduct(MatmulInputObserver* observer, const std::string& weight, std::int64_t expert, std::int64_t experts,
                                 const float* x, std::span<const std::int64_t> choices, std::int64_t used, std::int64_t columns)
{
    if (observer && !choices.empty())
        observer->expertProduct(weight, expert, experts, x, choices, used, columns);
}

}  // namespace gguf
