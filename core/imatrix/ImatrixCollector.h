#pragma once
// Collects an importance matrix from a forward pass, as llama-imatrix's collect_imatrix does
// (tools/imatrix/imatrix.cpp at llama.cpp 80fb11a): for each weight matrix, the sum over its
// input rows of x^2 per column, in float, row after row, and the rows counted.
//  - A dense product (ggml's MUL_MAT) counts when its weight is a layer's (blk.*), or
//    output.weight with processOutput, and the ubatch gives it at least 16 rows: llama-imatrix
//    skips smaller products. The pass hands a whole chunk at once; llama.cpp splits a chunk into
//    ubatches of `ubatchRows`, so the rule applies to each such piece.
//  - A product with one matrix of a stack (multi-head latent attention's attn_k_b, attn_v_b: one
//    per head) counts as a dense product of that weight, each matrix's rows into its own row of
//    sums, and the weight's one count takes the rows once per product (llama-imatrix adds
//    nrows / n_mat), not once per matrix.
//  - An expert product (MUL_MAT_ID) always counts, each expert's rows into its own row of sums
//    and its own count. llama.cpp sums them slot by slot (every token's first choice, then every
//    token's second ...) within each ubatch: the rows are summed in that order here, so the
//    float sums are llama-imatrix's bit for bit when the activations are.
// A non-finite sum fails the collection (llama-imatrix exits), naming the tensor.

#include "core/base/Result.h"
#include "core/forward/MatmulInputObserver.h"
#include "core/imatrix/ImatrixSums.h"

#include <mutex>
#include <string>

namespace gguf {

class ImatrixCollector final : public MatmulInputObserver {
public:
    explicit ImatrixCollector(bool processOutput = false, std::int64_t ubatchRows = 512);

    void denseProduct(const std::string& weight, const float* x, std::int64_t rows, std::int64_t columns) override;
    void stackedProduct(const std::string& weight, std::int64_t matrix, std::int64_t matrices, const float* x, std::int64_t rows,
                        std::int64_t columns) override;
    void expertProduct(const std::string& weight, std::int64_t expert, std::int64_t experts, const float* x,
                       std::span<const std::int64_t> choices, std::int64_t used, std::int64_t columns) override;

    // The first problem met (a non-finite sum, a matrix seen with two widths), or Ok.
    Status status() const;
    const ImatrixSums& sums() const { return m_sums; }
    ImatrixSums takeSums() { return std::move(m_sums); }

    // llama-imatrix's rule for which dense products it collects.
    static bool collectsDense(const std::string& weight, bool processOutput);

private:
    // The entry of `weight` sized for `matrices` rows of `columns` sums and `counts` counts (one
    // per expert, or one for a dense or stacked weight), or null after noting a mismatch with
    // what it held.
    ImatrixSumsEntry* entryFor(const std::string& weight, std::int64_t matrices, std::int64_t counts, std::int64_t columns);
    // Adds the dense rule's rows (ubatch pieces of 16 rows or more) into `acc`; their number.
    std::int64_t addDenseRows(float* acc, const float* x, std::int64_t rows, std::int64_t columns) const;
    void fail(std::string message);

    bool m_processOutput = false;
    std::int64_t m_ubatchRows = 512;
    mutable std::mutex m_mutex;  // expert products of one layer may run on several threads
    ImatrixSums m_sums;
    std::string m_problem;
};

}  // namespace gguf
