// Harness: scan files (scan -o, plan --scan, scan --merge, --resume), which travel between
// machines and people. Any byte string is offered as a scan file, from memory and through the
// real file path: both must read alike (the same record, or the same error at the same byte,
// inside the input). What reads is used as the commands use it: within its bounds (groups,
// probes by groups x types, finite figures), written back (which reads back to the same text),
// compared and merged with itself (no difference, the same figures), laid out as the heatmap's
// grid, ranked, written as CSV. The core's JSON reader walks the input on its own too, strict and
// lenient under small limits (offsets only grow and stay inside the input; every event but the
// last consumes a byte), and `meta --set` reads it as typed lists.

#include "FuzzSupport.h"
#include "core/base/JsonReader.h"
#include "core/edit/ValueText.h"
#include "core/sensitivity/ScanComparison.h"
#include "core/sensitivity/ScanFile.h"
#include "core/sensitivity/ScanGrid.h"

#include <cmath>
#include <string>
#include <string_view>

namespace {

void walkJson(std::string_view text, bool lenient)
{
    gguf::JsonReaderOptions options;
    options.maxDepth = 8;
    options.maxStringBytes = 64;
    options.maxLiteralBytes = 16;
    options.lenient = lenient;
    gguf::JsonReader reader(text, "fuzz", options);
    std::uint64_t last = 0;
    std::size_t events = 0;
    for (;;) {
        auto event = reader.next();
        if (!event) {
            FUZZ_CHECK(!event.error().message.empty());
            FUZZ_CHECK(event.error().offset <= text.size());
            FUZZ_CHECK(!reader.next());
            return;
        }
        FUZZ_CHECK(reader.offset() >= last && reader.offset() <= text.size());
        FUZZ_CHECK(reader.depth() <= options.maxDepth);
        FUZZ_CHECK(reader.text().size() <= std::max(options.maxStringBytes, options.maxLiteralBytes));
        last = reader.offset();
        FUZZ_CHECK(++events <= text.size() + 1);
        if (*event == gguf::JsonEvent::Number)
            (void)reader.number();
        if (*event == gguf::JsonEvent::End)
            return;
    }
}

void checkRecord(const gguf::ScanRecord& record)
{
    FUZZ_CHECK(record.groups.size() <= gguf::kMaxScanGroups);
    FUZZ_CHECK(record.probes.size() <= record.groups.size() * record.identity.types.size());
    FUZZ_CHECK(record.figures.size() == record.probes.size());
    for (std::size_t i = 0; i < record.probes.size(); ++i) {
        FUZZ_CHECK(record.probes[i].group < record.groups.size());
        if (const auto& f = record.figures[i]) {
            FUZZ_CHECK(std::isfinite(f->meanKld) && f->meanKld >= 0);
            FUZZ_CHECK(f->sameTopFraction >= 0 && f->sameTopFraction <= 1);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static fuzz::MemoryFile input("scan-fuzz-input");
    const std::string& path = input.write(data, size);
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    walkJson(text, false);
    walkJson(text, true);
    for (const char* type : {"arr[str]", "arr[f32]", "arr[arr[u32]]"})
        if (auto list = gguf::parseValueText(text, type); !list)
            FUZZ_CHECK(!list.error().message.empty());

    gguf::ScanFileLimits limits;
    limits.maxGroups = 64;  // as a small model would bound them
    auto parsed = gguf::parseScanRecord(text, path, limits);
    auto loaded = gguf::readScanFile(path, limits);
    FUZZ_CHECK(bool(parsed) == bool(loaded));
    if (!parsed) {
        FUZZ_CHECK(parsed.error().message == loaded.error().message);
        FUZZ_CHECK(parsed.error().offset == loaded.error().offset);
        FUZZ_CHECK(parsed.error().offset == gguf::Error::kNoOffset || parsed.error().offset <= size);
        return 0;
    }
    const gguf::ScanRecord& record = *parsed;
    checkRecord(record);
    FUZZ_CHECK(record.groups.size() <= limits.maxGroups);

    // Written back, it reads back to the same text.
    const std::string json = gguf::scanRecordJson(record);
    auto again = gguf::parseScanRecord(json, "written");
    FUZZ_CHECK(again);
    FUZZ_CHECK(gguf::scanRecordJson(*again) == json);

    FUZZ_CHECK(gguf::scanDifference({record, "a"}, {*again, "b"}, true).empty());
    auto merged = gguf::mergeScanRecords({record, *again});
    FUZZ_CHECK(merged);
    FUZZ_CHECK(merged->measured() == record.measured());

    for (const std::uint32_t type : record.identity.types) {
        const gguf::ScanGrid grid = gguf::buildScanGrid(record, type);
        FUZZ_CHECK(grid.cells.size() == grid.layers.size());
        (void)gguf::rankedProbes(record, type);
    }
    (void)gguf::scanFiguresCsv(record);
    return 0;
}
