// Harness 4: importance matrices. Any byte string is offered as an imatrix file (GGUF when it
// starts with the magic, else the legacy .dat). Whatever loads is used the way the app does:
// content validation, llama-imatrix's statistics and their text, the routing map, coverage,
// per-column importance and top columns, and quantWeights for every expert after binding the
// entry to a few column counts. Invariants: errors carry a message and an offset inside the
// file; every entry's shape matches its values; quantWeights gives columnCount() floats.

#include "FuzzSupport.h"
#include "core/imatrix/ColumnImportance.h"
#include "core/imatrix/ExpertRouting.h"
#include "core/imatrix/ImatrixStatistics.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static fuzz::MemoryFile input("imatrix-fuzz-input");
    const std::string& path = input.write(data, size);

    auto loaded = gguf::ImportanceMatrix::load(path);
    if (!loaded) {
        const gguf::Error& error = loaded.error();
        FUZZ_CHECK(!error.message.empty());
        FUZZ_CHECK(error.offset == gguf::Error::kNoOffset || error.offset <= size);
        return 0;
    }
    gguf::ImportanceMatrix& matrix = *loaded;
    FUZZ_CHECK(!matrix.entries().empty());
    std::uint64_t values = 0;
    for (const gguf::ImportanceEntry& entry : matrix.entries()) {
        FUZZ_CHECK(matrix.find(entry.name) == &entry);
        FUZZ_CHECK(entry.storedColumns > 0 && entry.storedRows > 0);
        FUZZ_CHECK(entry.sums.size() == static_cast<std::uint64_t>(entry.storedColumns) * static_cast<std::uint64_t>(entry.storedRows));
        FUZZ_CHECK(entry.legacy ? entry.counts.size() == 1 : entry.counts.size() == static_cast<std::size_t>(entry.storedRows));
        FUZZ_CHECK(entry.sumsOffset + 4 * entry.sums.size() <= size);
        values += entry.sums.size();
    }
    // Everything below is linear in the values, which the file's size bounds.
    FUZZ_CHECK(values <= size / 4);

    const gguf::ImatrixValidation validation = gguf::validateImatrix(matrix);
    for (const gguf::ImatrixIssue& issue : validation.issues) {
        FUZZ_CHECK(!issue.message.empty());
        FUZZ_CHECK(issue.offset == gguf::Error::kNoOffset || issue.offset <= size);
        (void)issue.toString();
    }
    const gguf::ImatrixStatistics statistics = gguf::computeImatrixStatistics(matrix);
    FUZZ_CHECK(statistics.tensors.size() + statistics.skipped.size() == matrix.entries().size());
    (void)gguf::formatImatrixStatistics(statistics, path);
    const gguf::ExpertRouting routing = gguf::computeExpertRouting(matrix);
    for (const gguf::RarelyRoutedExpert& rare : routing.rare)
        FUZZ_CHECK(rare.expert < routing.expertCount);
    FUZZ_CHECK(gguf::computeCoverage(matrix).size() == matrix.entries().size());

    for (gguf::ImportanceEntry& entry : matrix.entries()) {
        const std::vector<float> pooled = gguf::columnImportance(entry);
        FUZZ_CHECK(pooled.size() == entry.columnCount());
        FUZZ_CHECK(gguf::topColumns(pooled, 8).size() == std::min<std::size_t>(8, pooled.size()));
        // As validation against a model does: ne[0] of a tensor that may or may not fit.
        for (const std::int64_t columns : {entry.storedColumns, std::int64_t{1}, std::int64_t{32}, std::int64_t{256}}) {
            const std::int64_t before = entry.rowLength;
            if (!entry.bindColumns(columns)) {
                FUZZ_CHECK(entry.rowLength == before);
                continue;
            }
            // Every expert's weights once: the whole entry, not experts x entry.
            const std::size_t experts = entry.expertCount();
            FUZZ_CHECK(experts * entry.columnCount() == entry.sums.size());
            for (std::size_t e = 0; e < experts; e += 1 + experts / 64)
                FUZZ_CHECK(entry.quantWeights(e).size() == entry.columnCount());
            FUZZ_CHECK(entry.quantWeights(experts).empty());
        }
    }
    return 0;
}
