#pragma once
// What a running conversion has written and how long it has left, from the elements of input its
// progress reports (the core counts elements, copied tensors included). The output bytes of the
// tensors written so far follow from the plan, tensor by tensor in write order, so the figure is
// the file's own size to within one batch of rows, not elements scaled by an average: a 70B
// conversion shows "725 MB of 40 GB" and a time left from its first seconds, not "0 %".

#include <QString>
#include <cstdint>
#include <vector>

class WrittenBytes {
public:
    // The next tensor written: its input elements and its bytes in the output.
    void add(std::uint64_t elements, std::uint64_t outputBytes);
    // Output bytes once `elementsDone` input elements are done (within a tensor, in proportion).
    std::uint64_t bytesAt(std::uint64_t elementsDone) const;
    std::uint64_t totalBytes() const { return m_bytes.empty() ? 0 : m_bytes.back(); }
    std::uint64_t totalElements() const { return m_elements.empty() ? 0 : m_elements.back(); }

private:
    std::vector<std::uint64_t> m_elements;  // cumulative, after each tensor
    std::vector<std::uint64_t> m_bytes;
};

// "725 MB of 40.1 GB written (1.8 %), 13 s, about 12 min left"; the time left once a part is done.
QString conversionProgressText(std::uint64_t writtenBytes, std::uint64_t totalBytes, double fraction, double seconds);
// The percentage with one decimal, for a progress bar's text ("1.8 %").
QString percentText(double fraction);
