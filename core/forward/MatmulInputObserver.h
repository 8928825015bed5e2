#pragma once
// What a forward pass shows an observer of its matrix products: each weight matrix it multiplies
// with activations, and those activations as ggml hands them to the product (f32, after the
// norm, before any rounding the product does to them: llama.cpp's MUL_MAT src1). For a matrix
// of experts (llama.cpp's MUL_MAT_ID), the rows routed to one expert. llama-imatrix collects
// its importance matrix from exactly these (core/imatrix/ImatrixCollector.h).
//
// The pass calls it where a step multiplies, one line per product (observeProduct below); the
// calls for different experts of one layer may come from several threads at once.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gguf {

class MatmulInputObserver {
public:
    virtual ~MatmulInputObserver() = default;

    // `weight` (a tensor name: blk.0.attn_q.weight) multiplies `rows` activation rows of
    // `columns` values each (row-major, contiguous), in token order.
    virtual void denseProduct(const std::string& weight, const float* x, std::int64_t rows, std::int64_t columns) = 0;

    // Expert `expert` of `experts` in `weight` multiplies the rows routed to it, in token order:
    // row r is token choices[r] / used, which chose the expert in place choices[r] % used (0 = the
    // router's first choice), as the pass's routing lists them (t * used + s).
    virtual void expertProduct(const std::string& weight, std::int64_t expert, std::int64_t experts, const float* x,
                               std::span<const std::int64_t> choices, std::int64_t used, std::int64_t columns) = 0;
};

// The one-line hooks of the steps: nothing when no observer listens (the name is then not built).
inline void observeProduct(MatmulInputObserver* observer, const std::string& weight, const float* x, std::int64_t rows, std::int64_t columns)
{
    if (observer && rows > 0)
        observer->denseProduct(weight, x, rows, columns);
}

// The same for blk.<layer>.<name>.weight and the rows of `x` ([rows, columns]) from `from` on.
void observeLayerProduct(MatmulInputObserver* observer, std::int64_t layer, const char* name, const std::vector<float>& x,
                         std::int64_t columns, std::int64_t from = 0);

// Expert rows of `weight` (a tensor name), as MatmulInputObserver::expertProduct.
inline void observeExpertProduct(MatmulInputObserver* observer, const std::string& weight, std::int64_t expert, std::int64_t experts,
                                 const float* x, std::span<const std::int64_t> choices, std::int64_t used, std::int64_t columns)
{
    if (observer && !choices.empty())
        observer->expertProduct(weight, expert, experts, x, choices, used, columns);
}

}  // namespace gguf
