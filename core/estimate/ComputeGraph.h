#pragma once
// A recording of a ggml compute graph: every tensor's element type, shape and strides, the op that
// makes it and its sources, and which tensors are views, graph inputs, outputs, or live outside
// the compute buffer (weights, caches). Nothing is computed; GraphAllocator.h replays ggml's
// graph allocator over it to size llama.cpp's compute buffer.
//
// The ops follow ggml's shape rules (ggml.c at llama.cpp 80fb11a): what an op allocates, which
// source it may overwrite in place, and what its view points at are exactly what the allocator
// looks at. Nodes enter the graph only through expand(), in ggml_build_forward_expand's order (a
// depth-first walk that visits sources first, in source order), so a builder that makes the same
// expand() calls as llama.cpp gets the same node order, which the allocator's reuse depends on.
//
// Sizes may come from an untrusted header: every product saturates at 2^64 - 1 instead of
// wrapping, and a graph stops growing at kMaxTensors (overflowed() then says so).

#include "core/types/GgmlType.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace gguf {

enum class GraphOp : std::uint8_t {
    None,  // a leaf: a weight, a cache, or a graph input
    View, Reshape, Permute, Transpose,
    GetRows, SetRows, Cpy, Cont, Concat, Repeat, Pad,
    Add, AddId, Sub, Mul, Div, Scale, Clamp, Fill, Unary, Glu, Sqr, Sqrt,
    RmsNorm, Norm, L2Norm,
    MulMat, MulMatId, Rope, SoftMax, FlashAttnExt, Argsort, SumRows,
    SsmConv, GatedDeltaNet,
};

// ggml_op_can_inplace: the ops whose result may take over a source's memory.
bool canRunInPlace(GraphOp op);
const char* graphOpName(GraphOp op);

using TensorId = std::int32_t;
constexpr TensorId kNoTensor = -1;
constexpr std::size_t kMaxGraphSources = 6;

struct GraphTensor {
    const TypeTraits* type = nullptr;
    std::array<std::int64_t, 4> ne{1, 1, 1, 1};
    std::array<std::uint64_t, 4> nb{0, 0, 0, 0};
    std::array<TensorId, kMaxGraphSources> src{kNoTensor, kNoTensor, kNoTensor, kNoTensor, kNoTensor, kNoTensor};
    TensorId viewSource = kNoTensor;  // the tensor that owns the memory, never itself a view
    GraphOp op = GraphOp::None;
    bool external = false;  // weights and caches: memory of their own, outside the compute buffer
    bool input = false;     // ggml_set_input
    bool output = false;    // ggml_set_output: kept to the end of the graph

    bool isView() const { return viewSource != kNoTensor; }
};

class ComputeGraph {
public:
    // Some 17 times the largest real graph here (Qwen3-235B-A22B: 7,725 tensors).
    static constexpr std::size_t kMaxTensors = std::size_t{1} << 17;

    ComputeGraph();

    // Leaves.
    TensorId external(GgmlTypeId type, std::initializer_list<std::int64_t> ne);
    TensorId external(const TypeTraits* type, const std::array<std::int64_t, 4>& ne);
    TensorId input(GgmlTypeId type, std::initializer_list<std::int64_t> ne);

    // Views (ggml_view_*, ggml_reshape_*, ggml_permute, ggml_transpose).
    TensorId view(TensorId a, std::initializer_list<std::int64_t> ne, std::initializer_list<std::uint64_t> nb, std::uint64_t offset = 0);
    TensorId reshape(TensorId a, std::initializer_list<std::int64_t> ne);
    TensorId permute(TensorId a, int axis0, int axis1, int axis2, int axis3);
    TensorId transpose(TensorId a);
    TensorId viewOf(TensorId a, GraphOp op);  // ggml_view_tensor with `op`: an in-place result

    // Ops that allocate their result.
    TensorId sameAs(GraphOp op, TensorId a, TensorId b = kNoTensor, TensorId c = kNoTensor);  // ggml_dup_tensor(a)
    TensorId mulMat(TensorId a, TensorId b);
    TensorId mulMatId(TensorId experts, TensorId b, TensorId ids);
    TensorId getRows(TensorId a, TensorId rows);
    TensorId setRows(TensorId destination, TensorId values, TensorId rows);
    TensorId cpy(TensorId a, TensorId destination);
    TensorId cast(TensorId a, GgmlTypeId type);
    TensorId cont(TensorId a);
    TensorId cont(TensorId a, std::initializer_list<std::int64_t> ne);
    TensorId concat(TensorId a, TensorId b, int dimension);
    TensorId repeat(TensorId a, std::initializer_list<std::int64_t> ne);
    TensorId pad(TensorId a, std::int64_t rows);  // ggml_pad of dimension 0 to `rows`
    TensorId glu(TensorId a, TensorId b);  // split (b) or fused (kNoTensor: halves a's rows)
    TensorId softMax(TensorId a, TensorId mask = kNoTensor, TensorId sinks = kNoTensor);
    TensorId flashAttention(TensorId q, TensorId k, TensorId v, TensorId mask, TensorId sinks = kNoTensor);
    TensorId argsortTopK(TensorId a, std::int64_t k);
    TensorId sumRows(TensorId a);
    TensorId ssmConv(TensorId sx, TensorId kernel);
    TensorId gatedDeltaNet(TensorId q, TensorId k, TensorId v, TensorId g, TensorId beta, TensorId state);

    // ggml_build_forward_expand: appends `t` and what it depends on, not yet in the graph.
    void expand(TensorId t);
    void markOutput(TensorId t)
    {
        if (t > 0)
            at(t).output = true;
    }

    // A copy: building the graph grows it, which would leave a reference dangling.
    GraphTensor tensor(TensorId t) const { return stored(t); }
    // For readers of a finished graph: valid until the graph grows.
    const GraphTensor& stored(TensorId t) const { return m_tensors[static_cast<std::size_t>(t < 0 ? 0 : t)]; }
    std::size_t tensorCount() const { return m_tensors.size(); }
    const std::vector<TensorId>& leaves() const { return m_leaves; }
    const std::vector<TensorId>& nodes() const { return m_nodes; }
    bool overflowed() const { return m_overflowed; }

    bool contiguous(TensorId t) const;  // ggml_is_contiguous
    // ggml_nbytes, saturating.
    std::uint64_t bytes(TensorId t) const;

private:
    GraphTensor& at(TensorId t) { return m_tensors[static_cast<std::size_t>(t)]; }
    TensorId add(GraphTensor tensor);
    TensorId newTensor(const TypeTraits* type, const std::array<std::int64_t, 4>& ne, GraphOp op,
                       std::initializer_list<TensorId> sources);
    TensorId newView(TensorId a, const std::array<std::int64_t, 4>& ne, const std::array<std::uint64_t, 4>& nb, GraphOp op);

    std::vector<GraphTensor> m_tensors;
    std::vector<bool> m_visited;
    std::vector<TensorId> m_leaves;
    std::vector<TensorId> m_nodes;
    bool m_overflowed = false;
};

}  // namespace gguf
