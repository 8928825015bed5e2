#pragma once
// One result row per measured case, printed as an aligned table or, with --json, as one JSON
// object per line. Every row has case, type, threads, elements, seconds, gbps_out, melem_per_s,
// memset_gbps, memcpy_gbps and ratio_to_memset (null where they do not apply); cases add their
// own fields in `extra`.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bench {

struct Row {
    std::string caseName;  // "dequantize", "fused_heatmap", "open_70b", ...
    std::string type;      // ggml type name, or "-"
    unsigned threads = 1;
    std::uint64_t elements = 0;
    double seconds = 0;
    // Throughput as GB/s of f32 output (elements * 4 bytes), whether or not the output is
    // written to memory (fused paths keep it in cache). Empty for cases without an output.
    std::optional<double> gbpsOut;
    std::optional<double> memsetGbps;  // plain memset of the same output size, same threads
    std::optional<double> memcpyGbps;
    std::string kernel;                // instruction set of the kernel that ran
    std::vector<std::pair<std::string, double>> extra;  // more figures, e.g. {"peak_extra_mb", 8.4}
    std::string note;                  // one line for the table, e.g. "threshold: 2 s"

    std::optional<double> ratioToMemset() const;
    std::optional<double> melemPerSecond() const;
};

class Report {
public:
    explicit Report(bool json) : m_json(json) {}
    void heading(const std::string& title);  // table mode only
    void add(const Row& row);                // printed at once, so long runs show progress

private:
    void printTableHeader();

    bool m_json;
    bool m_headerDue = true;
};

}  // namespace bench
