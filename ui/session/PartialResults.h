#pragma once
// Results a job delivers slot by slot while it runs (one expert, one layer × expert cell): pool
// threads publish a slot once, the GUI thread takes each newly published slot exactly once. The
// job's chunks and the owner share it through a shared_ptr.

#include <atomic>
#include <cstddef>
#include <optional>
#include <vector>

template <class Value>
class PartialResults {
public:
    explicit PartialResults(std::size_t count) : m_values(count), m_ready(count), m_taken(count, false) {}

    std::size_t size() const { return m_values.size(); }

    // Pool thread: each slot at most once.
    void publish(std::size_t slot, Value value)
    {
        m_values[slot] = std::move(value);
        m_ready[slot].store(true, std::memory_order_release);
    }

    // GUI thread: calls `take(slot, value)` for every slot published since the last call; returns
    // how many there were.
    template <class Take>
    std::size_t takeNew(Take take)
    {
        std::size_t taken = 0;
        for (std::size_t slot = 0; slot < m_values.size(); ++slot) {
            if (m_taken[slot] || !m_ready[slot].load(std::memory_order_acquire))
                continue;
            m_taken[slot] = true;
            take(slot, *m_values[slot]);
            ++taken;
        }
        return taken;
    }

private:
    std::vector<std::optional<Value>> m_values;
    std::vector<std::atomic<bool>> m_ready;  // false until published (value-initialised)
    std::vector<bool> m_taken;  // GUI thread only
};
