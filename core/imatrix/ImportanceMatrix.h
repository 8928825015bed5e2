#pragma once
// An importance matrix as llama-imatrix writes it: per weight matrix, the sum over calibration
// tokens of the squared matmul input per column (per expert for MoE), with how many tokens went
// in, the chunk count and the dataset names. Both of its formats load: the GGUF-based one
// (`<weight>.in_sum2` + `<weight>.counts` f32 tensors, `imatrix.*` keys) and the legacy `.dat`
// (i32 entry count; per entry name, ncall, nval, f32 values; then chunk count and dataset).
//
// quantWeights() is the contract with the quantizers: exactly the floats llama-quantize
// (tools/quantize/quantize.cpp, load_imatrix / load_legacy_imatrix) hands ggml_quantize_chunk as
// quant_weights for one expert's rows, computed with the same float operations.

#include "core/base/Result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

enum class ImatrixFormat { Gguf, LegacyDat };

struct ImportanceEntry {
    std::string name;  // the weight it belongs to, e.g. "blk.0.ffn_up_exps.weight"
    // As stored. GGUF: `in_sum2` is [storedColumns, storedRows] raw sums of x^2 and `counts`
    // has one f32 token count per row (an expert for MoE). Legacy: one row of nval values that
    // are (sum / count) * ncall per expert, and counts = {ncall}.
    std::int64_t storedColumns = 0;
    std::int64_t storedRows = 0;
    std::vector<float> sums;
    std::vector<float> counts;
    bool legacy = false;
    std::int32_t legacyCalls = 0;    // legacy: ncall as stored (counts[0] is the same as a float)
    std::uint64_t sumsOffset = 0;    // file offset of sums[0]
    std::uint64_t countsOffset = 0;  // file offset of counts[0] (legacy: of ncall)
    // Columns per expert as quantWeights() slices them: storedColumns until bindColumns() says
    // otherwise (a legacy entry of a MoE tensor holds every expert in one row; llama-quantize
    // cuts it into rows of the tensor's ne[0]).
    std::int64_t rowLength = 0;

    std::size_t columnCount() const { return static_cast<std::size_t>(rowLength); }
    std::size_t expertCount() const { return rowLength > 0 ? sums.size() / static_cast<std::size_t>(rowLength) : 0; }
    // Cuts the values into rows of `columns`; false (and unchanged) if they do not divide.
    bool bindColumns(std::int64_t columns);

    // Every value llama-quantize derives from this entry, expert after expert.
    std::vector<float> allQuantWeights() const;
    float quantWeightAt(std::size_t index) const;  // allQuantWeights()[index]
    // The quant_weights for the rows of `expert` (columnCount() floats); empty past the last.
    std::vector<float> quantWeights(std::size_t expert) const;
    // Tokens routed to each expert (GGUF counts). Empty for legacy entries: that format keeps a
    // single ncall per entry, so per-expert counts are lost.
    std::vector<double> tokensPerExpert() const;
    bool routingKnown() const { return !legacy; }
};

class ImportanceMatrix {
public:
    // Opens `path` (GGUF when it starts with the GGUF magic, else the legacy format).
    static Result<ImportanceMatrix> load(const std::string& path);

    ImatrixFormat format() const { return m_format; }
    const std::string& path() const { return m_path; }
    std::uint64_t fileSize() const { return m_fileSize; }
    const std::vector<std::string>& datasets() const { return m_datasets; }
    std::int64_t chunkCount() const { return m_chunkCount; }  // legacy: the "last chunk" trailer, 0 if absent
    std::int64_t chunkSize() const { return m_chunkSize; }    // GGUF only; 0 for legacy files
    const std::vector<ImportanceEntry>& entries() const { return m_entries; }  // sorted by name
    std::vector<ImportanceEntry>& entries() { return m_entries; }
    const ImportanceEntry* find(std::string_view weightName) const;
    ImportanceEntry* find(std::string_view weightName);
    // Things the file does that llama-quantize tolerates but a person should know (a duplicate
    // legacy entry, GGUF tensors that are neither in_sum2 nor counts).
    const std::vector<std::string>& notes() const { return m_notes; }

private:
    friend class ImatrixGgufReader;
    friend class ImatrixLegacyReader;

    ImatrixFormat m_format = ImatrixFormat::Gguf;
    std::string m_path;
    std::uint64_t m_fileSize = 0;
    std::vector<std::string> m_datasets;
    std::int64_t m_chunkCount = 0;
    std::int64_t m_chunkSize = 0;
    std::vector<ImportanceEntry> m_entries;
    std::vector<std::string> m_notes;
};

}  // namespace gguf
