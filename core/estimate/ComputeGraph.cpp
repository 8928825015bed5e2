#include "core/estimate/ComputeGraph.h"

#include <algorithm>

namespace gguf {

namespace {
constexpr std::uint64_t kSaturated = ~std::uint64_t{0};

std::uint64_t mul(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? kSaturated : product;
}

std::uint64_t sum(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t total = 0;
    return __builtin_add_overflow(a, b, &total) ? kSaturated : total;
}

std::uint64_t extent(std::int64_t n)
{
    return n > 0 ? static_cast<std::uint64_t>(n) : 0;
}

const TypeTraits* typeOf(GgmlTypeId id)
{
    return findType(typeIdValue(id));
}

// A fresh tensor's strides: rows of whole blocks, then each dimension packed after the last.
std::array<std::uint64_t, 4> contiguousStrides(const TypeTraits* type, const std::array<std::int64_t, 4>& ne)
{
    const std::uint64_t blockSize = type && type->blockSize ? type->blockSize : 1;
    const std::uint64_t blockBytes = type ? type->blockBytes : 4;
    std::array<std::uint64_t, 4> nb{};
    nb[0] = blockBytes;
    nb[1] = mul(nb[0], extent(ne[0]) / blockSize);
    nb[2] = mul(nb[1], extent(ne[1]));
    nb[3] = mul(nb[2], extent(ne[2]));
    return nb;
}
}  // namespace

bool canRunInPlace(GraphOp op)
{
    switch (op) {
    case GraphOp::Fill: case GraphOp::Scale: case GraphOp::Add: case GraphOp::AddId: case GraphOp::Sub:
    case GraphOp::Mul: case GraphOp::Div: case GraphOp::Sqr: case GraphOp::Sqrt: case GraphOp::Unary:
    case GraphOp::Rope: case GraphOp::RmsNorm: case GraphOp::Clamp: case GraphOp::SoftMax:
        return true;
    default:
        return false;
    }
}

const char* graphOpName(GraphOp op)
{
    static constexpr const char* kNames[] = {
        "NONE", "VIEW", "RESHAPE", "PERMUTE", "TRANSPOSE", "GET_ROWS", "SET_ROWS", "CPY", "CONT", "CONCAT", "REPEAT", "PAD",
        "ADD", "ADD_ID", "SUB", "MUL", "DIV", "SCALE", "CLAMP", "FILL", "UNARY", "GLU", "SQR", "SQRT", "RMS_NORM", "NORM",
        "L2_NORM", "MUL_MAT", "MUL_MAT_ID", "ROPE", "SOFT_MAX", "FLASH_ATTN_EXT", "ARGSORT", "SUM_ROWS", "SSM_CONV",
        "GATED_DELTA_NET"};
    const auto index = static_cast<std::size_t>(op);
    return index < std::size(kNames) ? kNames[index] : "?";
}

ComputeGraph::ComputeGraph()
{
    // Tensor 0 stands in for anything asked of a graph that has stopped growing, or of a missing
    // source, so that a builder never indexes out of range; it lives outside the buffer.
    GraphTensor placeholder;
    placeholder.type = typeOf(GgmlTypeId::F32);
    placeholder.nb = contiguousStrides(placeholder.type, placeholder.ne);
    placeholder.external = true;
    m_tensors.push_back(placeholder);
    m_visited.push_back(false);
}

TensorId ComputeGraph::add(GraphTensor tensor)
{
    if (m_tensors.size() >= kMaxTensors) {
        m_overflowed = true;
        return 0;
    }
    m_tensors.push_back(tensor);
    m_visited.push_back(false);
    return static_cast<TensorId>(m_tensors.size() - 1);
}

TensorId ComputeGraph::newTensor(const TypeTraits* type, const std::array<std::int64_t, 4>& ne, GraphOp op,
                                 std::initializer_list<TensorId> sources)
{
    GraphTensor t;
    t.type = type ? type : typeOf(GgmlTypeId::F32);
    t.ne = ne;
    t.nb = contiguousStrides(t.type, ne);
    t.op = op;
    std::size_t i = 0;
    for (const TensorId source : sources) {
        if (i < kMaxGraphSources)
            t.src[i++] = source < 0 ? kNoTensor : source;
    }
    return add(t);
}

TensorId ComputeGraph::newView(TensorId a, const std::array<std::int64_t, 4>& ne, const std::array<std::uint64_t, 4>& nb, GraphOp op)
{
    const GraphTensor& source = tensor(std::max(a, 0));
    GraphTensor t;
    t.type = source.type;
    t.ne = ne;
    t.nb = nb;
    t.op = op;
    t.src[0] = std::max(a, 0);
    t.viewSource = source.isView() ? source.viewSource : std::max(a, 0);
    return add(t);
}

TensorId ComputeGraph::external(GgmlTypeId type, std::initializer_list<std::int64_t> ne)
{
    std::array<std::int64_t, 4> shape{1, 1, 1, 1};
    std::copy_n(ne.begin(), std::min<std::size_t>(ne.size(), 4), shape.begin());
    return external(typeOf(type), shape);
}

TensorId ComputeGraph::external(const TypeTraits* type, const std::array<std::int64_t, 4>& ne)
{
    const TensorId t = newTensor(type, ne, GraphOp::None, {});
    if (t > 0)
        at(t).external = true;
    return t;
}

TensorId ComputeGraph::input(GgmlTypeId type, std::initializer_list<std::int64_t> ne)
{
    std::array<std::int64_t, 4> shape{1, 1, 1, 1};
    std::copy_n(ne.begin(), std::min<std::size_t>(ne.size(), 4), shape.begin());
    const TensorId t = newTensor(typeOf(type), shape, GraphOp::None, {});
    if (t > 0)
        at(t).input = true;
    return t;
}

TensorId ComputeGraph::view(TensorId a, std::initializer_list<std::int64_t> ne, std::initializer_list<std::uint64_t> nb, std::uint64_t offset)
{
    (void)offset;  // the allocator never looks at where in its source a view starts
    std::array<std::int64_t, 4> shape{1, 1, 1, 1};
    std::copy_n(ne.begin(), std::min<std::size_t>(ne.size(), 4), shape.begin());
    // ggml_view_Nd: nb[0] is the element size, then the given strides, then the last one repeated.
    std::array<std::uint64_t, 4> strides{};
    strides[0] = tensor(std::max(a, 0)).nb[0];
    std::size_t i = 1;
    for (const std::uint64_t stride : nb) {
        if (i < 4)
            strides[i++] = stride;
    }
    for (; i < 4; ++i)
        strides[i] = mul(strides[i - 1], extent(shape[i - 1]));
    return newView(a, shape, strides, GraphOp::View);
}

TensorId ComputeGraph::reshape(TensorId a, std::initializer_list<std::int64_t> ne)
{
    std::array<std::int64_t, 4> shape{1, 1, 1, 1};
    std::copy_n(ne.begin(), std::min<std::size_t>(ne.size(), 4), shape.begin());
    return newView(a, shape, contiguousStrides(tensor(std::max(a, 0)).type, shape), GraphOp::Reshape);
}

TensorId ComputeGraph::permute(TensorId a, int axis0, int axis1, int axis2, int axis3)
{
    const GraphTensor& source = tensor(std::max(a, 0));
    std::array<std::int64_t, 4> ne{};
    std::array<std::uint64_t, 4> nb{};
    const int axes[4] = {axis0, axis1, axis2, axis3};
    for (int i = 0; i < 4; ++i) {
        const auto to = static_cast<std::size_t>(std::clamp(axes[i], 0, 3));
        ne[to] = source.ne[static_cast<std::size_t>(i)];
        nb[to] = source.nb[static_cast<std::size_t>(i)];
    }
    return newView(a, ne, nb, GraphOp::Permute);
}

TensorId ComputeGraph::transpose(TensorId a)
{
    const GraphTensor& source = tensor(std::max(a, 0));
    return newView(a, {source.ne[1], source.ne[0], source.ne[2], source.ne[3]}, {source.nb[1], source.nb[0], source.nb[2], source.nb[3]},
                   GraphOp::Transpose);
}

TensorId ComputeGraph::viewOf(TensorId a, GraphOp op)
{
    const GraphTensor& source = tensor(std::max(a, 0));
    return newView(a, source.ne, source.nb, op);
}

TensorId ComputeGraph::sameAs(GraphOp op, TensorId a, TensorId b, TensorId c)
{
    const GraphTensor& source = tensor(std::max(a, 0));
    return newTensor(source.type, source.ne, op, {a, b, c});
}

TensorId ComputeGraph::mulMat(TensorId a, TensorId b)
{
    const GraphTensor &x = tensor(std::max(a, 0)), &y = tensor(std::max(b, 0));
    return newTensor(typeOf(GgmlTypeId::F32), {x.ne[1], y.ne[1], y.ne[2], y.ne[3]}, GraphOp::MulMat, {a, b});
}

TensorId ComputeGraph::mulMatId(TensorId experts, TensorId b, TensorId ids)
{
    const GraphTensor &x = tensor(std::max(experts, 0)), &y = tensor(std::max(b, 0)), &i = tensor(std::max(ids, 0));
    return newTensor(typeOf(GgmlTypeId::F32), {x.ne[1], i.ne[0], y.ne[2], 1}, GraphOp::MulMatId, {experts, b, ids});
}

TensorId ComputeGraph::getRows(TensorId a, TensorId rows)
{
    const GraphTensor &x = tensor(std::max(a, 0)), &r = tensor(std::max(rows, 0));
    const bool integer = x.type && x.type->id == typeIdValue(GgmlTypeId::I32);
    return newTensor(typeOf(integer ? GgmlTypeId::I32 : GgmlTypeId::F32), {x.ne[0], r.ne[0], r.ne[1], r.ne[2]}, GraphOp::GetRows, {a, rows});
}

TensorId ComputeGraph::setRows(TensorId destination, TensorId values, TensorId rows)
{
    const TensorId t = viewOf(destination, GraphOp::SetRows);
    if (t > 0)
        at(t).src = {values, rows, destination, kNoTensor, kNoTensor, kNoTensor};
    return t;
}

TensorId ComputeGraph::cpy(TensorId a, TensorId destination)
{
    const TensorId t = viewOf(destination, GraphOp::Cpy);
    if (t > 0)
        at(t).src = {a, destination, kNoTensor, kNoTensor, kNoTensor, kNoTensor};
    return t;
}

TensorId ComputeGraph::cast(TensorId a, GgmlTypeId type)
{
    // ggml_cast's result names itself as its second source, which the allocator counts as a use.
    const TensorId t = newTensor(typeOf(type), tensor(std::max(a, 0)).ne, GraphOp::Cpy, {a});
    if (t > 0)
        at(t).src[1] = t;
    return t;
}

TensorId ComputeGraph::cont(TensorId a)
{
    return sameAs(GraphOp::Cont, a);
}

TensorId ComputeGraph::cont(TensorId a, std::initializer_list<std::int64_t> ne)
{
    std::array<std::int64_t, 4> shape{1, 1, 1, 1};
    std::copy_n(ne.begin(), std::min<std::size_t>(ne.size(), 4), shape.begin());
    return newTensor(tensor(std::max(a, 0)).type, shape, GraphOp::Cont, {a});
}

TensorId ComputeGraph::concat(TensorId a, TensorId b, int dimension)
{
    std::array<std::int64_t, 4> ne = tensor(std::max(a, 0)).ne;
    const auto d = static_cast<std::size_t>(std::clamp(dimension, 0, 3));
    ne[d] += tensor(std::max(b, 0)).ne[d];
    return newTensor(tensor(std::max(a, 0)).type, ne, GraphOp::Concat, {a, b});
}

TensorId ComputeGraph::repeat(TensorId a, std::initializer_list<std::int64_t> ne)
{
    std::array<std::int64_t, 4> shape{1, 1, 1, 1};
    std::copy_n(ne.begin(), std::min<std::size_t>(ne.size(), 4), shape.begin());
    return newTensor(tensor(std::max(a, 0)).type, shape, GraphOp::Repeat, {a});
}

TensorId ComputeGraph::pad(TensorId a, std::int64_t rows)
{
    std::array<std::int64_t, 4> ne = tensor(std::max(a, 0)).ne;
    ne[0] = rows;
    return newTensor(tensor(std::max(a, 0)).type, ne, GraphOp::Pad, {a});
}

TensorId ComputeGraph::glu(TensorId a, TensorId b)
{
    std::array<std::int64_t, 4> ne = tensor(std::max(a, 0)).ne;
    if (b == kNoTensor)
        ne[0] /= 2;
    return newTensor(tensor(std::max(a, 0)).type, ne, GraphOp::Glu, {a, b});
}

TensorId ComputeGraph::softMax(TensorId a, TensorId mask, TensorId sinks)
{
    return sameAs(GraphOp::SoftMax, a, mask, sinks);
}

TensorId ComputeGraph::flashAttention(TensorId q, TensorId k, TensorId v, TensorId mask, TensorId sinks)
{
    const GraphTensor &query = tensor(std::max(q, 0)), &value = tensor(std::max(v, 0));
    return newTensor(typeOf(GgmlTypeId::F32), {value.ne[0], query.ne[2], query.ne[1], query.ne[3]}, GraphOp::FlashAttnExt,
                     {q, k, v, mask, sinks});
}

TensorId ComputeGraph::argsortTopK(TensorId a, std::int64_t k)
{
    const TensorId sorted = newTensor(typeOf(GgmlTypeId::I32), tensor(std::max(a, 0)).ne, GraphOp::Argsort, {a});
    const GraphTensor& s = tensor(sorted);
    return view(sorted, {k, s.ne[1], s.ne[2], s.ne[3]}, {s.nb[1], s.nb[2], s.nb[3]});
}

TensorId ComputeGraph::sumRows(TensorId a)
{
    const GraphTensor& x = tensor(std::max(a, 0));
    return newTensor(x.type, {1, x.ne[1], x.ne[2], x.ne[3]}, GraphOp::SumRows, {a});
}

TensorId ComputeGraph::ssmConv(TensorId sx, TensorId kernel)
{
    const GraphTensor &x = tensor(std::max(sx, 0)), &c = tensor(std::max(kernel, 0));
    return newTensor(typeOf(GgmlTypeId::F32), {c.ne[1], x.ne[0] - c.ne[0] + 1, x.ne[2], 1}, GraphOp::SsmConv, {sx, kernel});
}

TensorId ComputeGraph::gatedDeltaNet(TensorId q, TensorId k, TensorId v, TensorId g, TensorId beta, TensorId state)
{
    // [S_v * H, n_tokens * n_seqs + S_v * n_seqs]: the outputs, then the final state (one snapshot).
    const GraphTensor& value = tensor(std::max(v, 0));
    const std::int64_t rows = value.ne[2] * value.ne[3] + value.ne[0] * value.ne[3];
    return newTensor(typeOf(GgmlTypeId::F32), {value.ne[0] * value.ne[1], rows, 1, 1}, GraphOp::GatedDeltaNet, {q, k, v, g, beta, state});
}

void ComputeGraph::expand(TensorId root)
{
    // ggml_visit_parents, without recursion: a tensor is appended after all its sources.
    if (root <= 0)
        return;
    std::vector<std::pair<TensorId, std::size_t>> stack{{root, 0}};
    if (m_visited[static_cast<std::size_t>(root)])
        return;
    m_visited[static_cast<std::size_t>(root)] = true;
    while (!stack.empty()) {
        auto& [t, next] = stack.back();
        const GraphTensor& current = stored(t);
        if (next < kMaxGraphSources) {
            const TensorId source = current.src[next++];
            if (source > 0 && !m_visited[static_cast<std::size_t>(source)]) {
                m_visited[static_cast<std::size_t>(source)] = true;
                stack.emplace_back(source, 0);
            }
            continue;
        }
        (current.op == GraphOp::None ? m_leaves : m_nodes).push_back(t);
        stack.pop_back();
    }
}

bool ComputeGraph::contiguous(TensorId t) const
{
    const GraphTensor& x = tensor(std::max(t, 0));
    return x.nb == contiguousStrides(x.type, x.ne);
}

std::uint64_t ComputeGraph::bytes(TensorId t) const
{
    const GraphTensor& x = tensor(std::max(t, 0));
    for (const std::int64_t n : x.ne) {
        if (n <= 0)
            return 0;
    }
    const std::uint64_t blockSize = x.type && x.type->blockSize ? x.type->blockSize : 1;
    std::uint64_t total = blockSize == 1 ? (x.type ? x.type->blockBytes : 4) : mul(extent(x.ne[0]), x.nb[0]) / blockSize;
    for (std::size_t i = blockSize == 1 ? 0 : 1; i < 4; ++i)
        total = sum(total, mul(extent(x.ne[i]) - 1, x.nb[i]));
    return total;
}

}  // namespace gguf
