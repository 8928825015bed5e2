#include "core/estimate/GraphAllocator.h"

#include <algorithm>
#include <vector>

namespace gguf {

namespace {
constexpr std::uint64_t kSaturated = ~std::uint64_t{0};

std::uint64_t padded(std::uint64_t size, std::uint64_t alignment)
{
    return size > kSaturated - alignment ? kSaturated : (size + alignment - 1) / alignment * alignment;
}

// ggml_dyn_tallocr with one chunk: free blocks sorted by offset, the last one open-ended.
class FreeList {
public:
    explicit FreeList(std::uint64_t alignment) : m_alignment(alignment) { m_blocks.push_back({0, kSaturated / 2}); }

    std::uint64_t allocate(std::uint64_t size)
    {
        size = padded(size, m_alignment);
        // Best fit among the blocks before the last; on equal sizes the later block wins.
        std::size_t best = m_blocks.size() - 1;
        std::uint64_t bestSize = kSaturated;
        for (std::size_t i = 0; i + 1 < m_blocks.size(); ++i) {
            if (m_blocks[i].size >= size && m_blocks[i].size <= bestSize) {
                best = i;
                bestSize = m_blocks[i].size;
            }
        }
        Block& block = m_blocks[best];
        if (block.size < size) {  // only the open-ended block, with sizes past 2^63
            m_saturated = true;
            return 0;
        }
        const std::uint64_t offset = block.offset;
        block.offset += size;
        block.size -= size;
        if (block.size == 0)
            m_blocks.erase(m_blocks.begin() + static_cast<std::ptrdiff_t>(best));
        m_high = std::max(m_high, offset + size);
        return offset;
    }

    void release(std::uint64_t offset, std::uint64_t size)
    {
        size = padded(size, m_alignment);
        for (std::size_t i = 0; i < m_blocks.size(); ++i) {
            Block& block = m_blocks[i];
            if (block.offset + block.size == offset) {
                block.size += size;
                if (i + 1 < m_blocks.size() && block.offset + block.size == m_blocks[i + 1].offset) {
                    block.size += m_blocks[i + 1].size;
                    m_blocks.erase(m_blocks.begin() + static_cast<std::ptrdiff_t>(i + 1));
                }
                return;
            }
            if (offset + size == block.offset) {
                block.offset = offset;
                block.size += size;
                if (i > 0 && m_blocks[i - 1].offset + m_blocks[i - 1].size == block.offset) {
                    m_blocks[i - 1].size += block.size;
                    m_blocks.erase(m_blocks.begin() + static_cast<std::ptrdiff_t>(i));
                }
                return;
            }
        }
        const auto at = std::find_if(m_blocks.begin(), m_blocks.end(), [&](const Block& b) { return b.offset >= offset; });
        m_blocks.insert(at, {offset, size});
    }

    std::uint64_t high() const { return m_saturated ? kSaturated : m_high; }

private:
    struct Block {
        std::uint64_t offset;
        std::uint64_t size;
    };
    std::uint64_t m_alignment;
    std::vector<Block> m_blocks;
    std::uint64_t m_high = 0;
    bool m_saturated = false;
};

struct Usage {
    int children = 0;
    int views = 0;
    bool allocated = false;
    std::uint64_t offset = 0;
};

class Replay {
public:
    Replay(const ComputeGraph& graph, std::uint64_t alignment)
        : m_graph(graph), m_free(alignment), m_usage(graph.tensorCount())
    {
    }

    std::uint64_t run()
    {
        for (const TensorId leaf : m_graph.leaves())
            place(leaf);
        for (const TensorId node : m_graph.nodes()) {
            const GraphTensor& t = m_graph.stored(node);
            if (t.isView())
                ++use(t.viewSource).views;
            if (t.input)
                place(node);
            for (const TensorId source : t.src) {
                if (source == kNoTensor)
                    continue;
                ++use(source).children;
                if (m_graph.stored(source).input)
                    place(source);
            }
        }
        for (const TensorId node : m_graph.nodes()) {
            const GraphTensor& t = m_graph.stored(node);
            for (const TensorId source : t.src) {
                if (source != kNoTensor)
                    place(source);
            }
            place(node);
            for (const TensorId source : t.src) {
                if (source != kNoTensor)
                    releaseAfterUse(source);
            }
        }
        return m_free.high();
    }

private:
    Usage& use(TensorId t) { return m_usage[static_cast<std::size_t>(t)]; }
    const GraphTensor& tensor(TensorId t) const { return m_graph.stored(t); }

    static bool sameLayout(const GraphTensor& a, const GraphTensor& b)
    {
        return a.type == b.type && a.ne == b.ne && a.nb == b.nb;
    }

    // ggml_gallocr_allocate_node
    void place(TensorId t)
    {
        const GraphTensor& x = tensor(t);
        Usage& u = use(t);
        if (x.external || u.allocated || x.isView())
            return;
        u.allocated = true;
        if (canRunInPlace(x.op) && takeOverSource(t))
            return;
        u.offset = m_free.allocate(m_graph.bytes(t));
    }

    // Only a source this buffer placed qualifies: never a view (ggml's branch for views cannot be
    // taken, since a view is never marked as placed), nor an output.
    bool takeOverSource(TensorId t)
    {
        const GraphTensor& x = tensor(t);
        for (const TensorId parent : x.src) {
            if (parent == kNoTensor || !use(parent).allocated)
                continue;
            const GraphTensor& p = tensor(parent);
            Usage& pu = use(parent);
            if (p.output || !sameLayout(x, p) || pu.children != 1 || pu.views != 0)
                continue;
            // Same layout, same size: nothing of the source is left over to hand back.
            use(t).offset = pu.offset;
            pu.allocated = false;
            return true;
        }
        return false;
    }

    void release(TensorId t)
    {
        if (tensor(t).output)
            return;
        m_free.release(use(t).offset, m_graph.bytes(t));
        use(t).allocated = false;
    }

    void releaseAfterUse(TensorId source)
    {
        Usage& u = use(source);
        --u.children;
        if (u.children != 0 || u.views != 0)
            return;
        const GraphTensor& s = tensor(source);
        if (s.isView()) {
            Usage& owner = use(s.viewSource);
            --owner.views;
            if (owner.views == 0 && owner.children == 0 && owner.allocated)
                release(s.viewSource);
        } else if (u.allocated) {
            release(source);
        }
    }

    const ComputeGraph& m_graph;
    FreeList m_free;
    std::vector<Usage> m_usage;
};
}  // namespace

std::uint64_t reserveGraphBuffer(const ComputeGraph& graph, std::uint64_t alignment)
{
    return Replay(graph, alignment).run();
}

}  // namespace gguf
