// scan: the measured sensitivity of every group (layer x role) to every candidate type, one
// probe at a time, into a scan file that survives a restart (--resume), splits over machines
// (--shard I/N) and joins again (--merge).

#include "Commands.h"

#include "ActivationOption.h"
#include "app/threads/ParallelRows.h"
#include "ImatrixOption.h"
#include "ModelOpening.h"
#include "ScanImatrixOutput.h"
#include "TokenInput.h"
#include "core/base/HumanFormat.h"
#include "core/quantize/Quantize.h"
#include "core/forward/ModelHyperparameters.h"
#include "core/sensitivity/ScanComparison.h"
#include "core/sensitivity/ScanFile.h"
#include "core/sensitivity/ScanLayers.h"
#include "core/types/GgmlType.h"
#include "core/write/OutputLock.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace {

std::optional<long long> wholeNumber(const std::string& text, long long low, long long high)
{
    char* end = nullptr;
    const long long n = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || n < low || n > high)
        return std::nullopt;
    return n;
}

std::string figure(const char* format, double value)
{
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

std::string duration(double seconds)
{
    if (!(seconds >= 0) || seconds > 1e9)
        return "?";
    const auto s = static_cast<long long>(seconds + 0.5);
    if (s < 60)
        return std::to_string(s) + "s";
    if (s < 3600)
        return std::to_string(s / 60) + "m" + figure("%02.0f", double(s % 60)) + "s";
    return std::to_string(s / 3600) + "h" + figure("%02.0f", double(s % 3600 / 60)) + "m";
}

// The scan as a table: per group and type the mean KLD and, beside it, the 10 % trimmed mean
// (files before it have none: "-"), then the most sensitive groups.
std::string scanText(const gguf::ScanRecord& record)
{
    std::string text = "scan of " + shown(record.identity.model) + ": " + std::to_string(record.measured()) + " of "
                     + std::to_string(record.probes.size()) + " probes measured, " + std::to_string(record.identity.tokens)
                     + " tokens in chunks of " + std::to_string(record.identity.chunkSize)
                     + (record.identity.importance.empty() ? "" : ", imatrix " + shown(record.identity.importance)) + "\n";
    text += "mean KLD when only that group is quantized, and beside it the 10 % trimmed mean (without the largest and smallest 5 % of\n"
            "positions). The planner's cost is the mean; the trimmed mean must agree before fewer bits count as worse:\n";
    std::string header = "  group                              ";
    std::string subheader = "                                     ";
    for (const std::uint32_t type : record.identity.types) {
        std::string name = gguf::typeName(type);
        header += "  " + name + std::string(name.size() < 19 ? 19 - name.size() : 0, ' ');
        subheader += "  mean      trimmed  ";
    }
    text += header + "\n" + subheader + "\n";
    std::map<std::size_t, std::map<std::uint32_t, const gguf::ProbeFigures*>> cells;
    for (std::size_t i = 0; i < record.probes.size(); ++i)
        if (record.figures[i])
            cells[record.probes[i].group][record.probes[i].type] = &*record.figures[i];
    for (std::size_t g = 0; g < record.groups.size(); ++g) {
        std::string name = shown(record.groups[g].tensor);
        std::string line = "  " + name + std::string(name.size() < 35 ? 35 - name.size() : 1, ' ');
        for (const std::uint32_t type : record.identity.types) {
            const auto found = cells[g].find(type);
            if (found == cells[g].end()) {
                line += "  -                  ";
                continue;
            }
            const gguf::ProbeFigures& f = *found->second;
            line += "  " + figure("%-9.2e", f.meanKld) + " " + (f.trimmedKld ? figure("%-9.2e", *f.trimmedKld) : std::string("-        "));
        }
        text += line + "\n";
    }
    // The groups that hurt the output most at the lowest type each was measured at.
    std::vector<std::pair<const gguf::ProbeFigures*, std::string>> worst;
    for (const auto& [g, byType] : cells)
        if (!byType.empty()) {
            const auto lowest = std::min_element(byType.begin(), byType.end(), [](const auto& a, const auto& b) {
                return gguf::findType(a.first)->bitsPerWeight() < gguf::findType(b.first)->bitsPerWeight();
            });
            worst.push_back({lowest->second, record.groups[g].tensor + " as " + gguf::typeName(lowest->first)});
        }
    std::sort(worst.begin(), worst.end(), [](const auto& a, const auto& b) { return a.first->meanKld > b.first->meanKld; });
    if (!worst.empty()) {
        text += "most sensitive (at the lowest type measured), mean KLD (trimmed mean):\n";
        for (std::size_t i = 0; i < worst.size() && i < 8; ++i) {
            const gguf::ProbeFigures& f = *worst[i].first;
            text += "  " + figure("%.4e", f.meanKld) + " (" + (f.trimmedKld ? figure("%.4e", *f.trimmedKld) : std::string("-")) + ")  "
                  + shown(worst[i].second) + "\n";
        }
    }
    return text;
}

int runMerge(const CliArguments& args)
{
    const auto out = args.value("-o");
    if (!out || args.positionals.empty())
        return reportFailure("scan --merge needs the parts and -o OUT: scan --merge A.json B.json ... -o scan.json", 2);
    // Not into a file a scan is still writing (it would replace the merge at its next probe).
    auto lock = gguf::OutputLock::acquire(*out);
    if (!lock)
        return reportFailure(lock.error().toString());
    std::vector<gguf::ScanRecord> parts;
    gguf::ScanFileLimits limits;
    for (const std::string& path : args.positionals) {
        auto part = gguf::readScanFile(path, limits);
        if (!part)
            return reportFailure(part.error().toString());
        if (parts.empty()) {  // the others are parts of its scan: no more groups than it has
            limits.maxGroups = part->groups.size();
            limits.groupsBound = "the first part has (" + std::to_string(part->groups.size()) + ")";
        }
        parts.push_back(std::move(*part));
    }
    auto merged = gguf::mergeScanRecords(parts);
    if (!merged)
        return reportFailure(merged.error().toString());
    if (gguf::Status s = gguf::writeScanFile(*out, *merged); !s)
        return reportFailure(s.error().toString());
    const std::string note = "merged " + std::to_string(parts.size()) + " parts: " + std::to_string(merged->measured()) + " of "
                           + std::to_string(merged->probes.size()) + " probes measured\n";
    std::fputs(note.c_str(), stderr);
    return 0;
}

}  // namespace

int runScan(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "scan");
    if (!args.error.empty())
        return reportFailure(args.error, 2);
    if (args.has("--merge"))
        return runMerge(args);
    if (args.positionals.size() != 1 || args.has("--tokens") == args.has("--text-file"))
        return reportFailure(commandUsage("scan"), 2);
    if (args.has("--resume") && !args.has("-o"))
        return reportFailure("--resume needs -o, the scan file to resume", 2);
    // Before anything else: a second scan writing the same file (a shard started twice, two
    // shards given one -o) is refused now, not after the first's figures are overwritten.
    std::optional<gguf::OutputLock> lock;
    if (const auto out = args.value("-o")) {
        auto taken = gguf::OutputLock::acquire(*out);
        if (!taken)
            return reportFailure(taken.error().toString());
        lock.emplace(std::move(*taken));
    }

    gguf::ScanOptions options;
    options.executor = &gguf::ParallelRows::shared();  // GGUFX_THREADS, or every core
    const auto arithmetic = passArithmeticOrReport(args);
    if (!arithmetic)
        return 2;
    options.activations = arithmetic->activations;
    options.kvCache = arithmetic->kvCache;
    if (const auto list = args.value("--types")) {
        std::string item;
        for (std::size_t i = 0; i <= list->size(); ++i) {
            if (i < list->size() && (*list)[i] != ',') {
                item += (*list)[i];
                continue;
            }
            const gguf::TypeTraits* type = gguf::findTypeByName(item);
            if (!type)
                return reportFailure("--types: '" + item + "' is not a ggml type", 2);
            if (std::find(options.types.begin(), options.types.end(), type->id) == options.types.end())
                options.types.push_back(type->id);
            item.clear();
        }
    }
    struct NumberOption {
        const char* name;
        long long low, high;
        std::int64_t* target;
    };
    std::int64_t chunk = 128, maxTokens = 0, stride = 1;
    for (const NumberOption& o : {NumberOption{"--chunk", 4, gguf::kMaxForwardTokens, &chunk},
                                  NumberOption{"--max-tokens", 4, 1LL << 40, &maxTokens},
                                  NumberOption{"--layer-stride", 1, 1 << 20, &stride}})
        if (const auto text = args.value(o.name)) {
            const auto n = wholeNumber(*text, o.low, o.high);
            if (!n)
                return reportFailure(std::string(o.name) + " needs a whole number from " + std::to_string(o.low) + " to " + std::to_string(o.high), 2);
            *o.target = *n;
        }
    options.chunkSize = chunk;
    options.maxTokens = maxTokens;
    options.layerStride = stride;
    std::size_t shard = 0, shardCount = 1;
    if (const auto text = args.value("--shard")) {
        const std::size_t slash = text->find('/');
        const auto i = slash == std::string::npos ? std::nullopt : wholeNumber(text->substr(0, slash), 1, 1 << 20);
        const auto n = slash == std::string::npos ? std::nullopt : wholeNumber(text->substr(slash + 1), 1, 1 << 20);
        if (!i || !n || *i > *n)
            return reportFailure("--shard needs I/N with 1 <= I <= N, e.g. 3/8", 2);
        shard = static_cast<std::size_t>(*i - 1);
        shardCount = static_cast<std::size_t>(*n);
    }

    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    if (const auto list = args.value("--layers")) {
        const auto hyperparameters = gguf::readHyperparameters(*model);
        if (!hyperparameters)
            return reportFailure(hyperparameters.error().toString());
        auto layers = gguf::parseLayerList(*list, hyperparameters->layerCount);
        if (!layers)
            return reportFailure(layers.error().toString(), 2);
        options.layers = std::move(*layers);
    }
    std::shared_ptr<const gguf::ImportanceMatrix> imatrix;
    if (const auto path = args.value("--imatrix")) {
        imatrix = loadImatrixForModelOrReport(*path, *model);
        if (!imatrix)
            return 1;
        options.importance = importanceLookupOf(imatrix);
        options.importanceLabel = *path;
    }
    if (const auto bos = model->metadataUInt("tokenizer.ggml.bos_token_id"); bos && *bos <= 0x7FFFFFFF)
        options.bosToken = static_cast<std::int32_t>(*bos);
    auto tokens = args.has("--tokens") ? parseTokenListOrReport(*args.value("--tokens")) : tokenizeTextFileOrReport(*model, *args.value("--text-file"));
    if (!tokens)
        return 2;
    bool imatrixRefused = false;
    auto imatrixOut = scanImatrixOutputOrReport(args, *model, *tokens, options.bosToken, chunk, imatrixRefused);
    if (imatrixRefused)
        return 2;
    if (imatrixOut)
        options.referenceInputs = imatrixOut->collector.get();

    const bool quiet = args.has("--quiet");
    const auto started = std::chrono::steady_clock::now();
    auto scan = gguf::SensitivityScan::prepare(*model, *tokens, options);
    if (!scan)
        return reportFailure(scan.error().toString());
    // Written now: the matrix is whole after the reference pass, whatever becomes of the probes.
    if (imatrixOut && !writeScanImatrixOrReport(*imatrixOut, quiet))
        return 1;
    if (!quiet)
        std::fprintf(stderr, "reference: %lld tokens in chunks of %lld, run in %s; %s\n", static_cast<long long>((*scan)->identity().tokens),
                     static_cast<long long>(chunk), duration(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()).c_str(),
                     passArithmeticText(*arithmetic).c_str());
    gguf::ScanRecord record = gguf::emptyRecord(**scan);
    if (shardCount > 1)
        record.shard = std::to_string(shard + 1) + "/" + std::to_string(shardCount);
    const auto out = args.value("-o");
    struct stat existing {};
    if (args.has("--resume") && ::stat(out->c_str(), &existing) == 0) {
        auto saved = gguf::readScanFile(*out, gguf::ScanFileLimits::forModel(*model));
        if (!saved)
            return reportFailure(saved.error().toString());
        if (const std::string difference = gguf::scanDifference({*saved, "the file"}, {record, "this run"}, false); !difference.empty())
            return reportFailure(*out + " is a scan of another model, text or settings (" + difference
                                 + "); not resumed (remove it or name another -o)");
        record.figures = saved->figures;
        if (!quiet)
            std::fputs(("resuming: " + std::to_string(record.measured()) + " probes already measured\n").c_str(), stderr);
    }

    gguf::ScanRunOptions run;
    run.shard = shard;
    run.shardCount = shardCount;
    const auto& probes = (*scan)->probes();
    if (!quiet) {
        const std::size_t mine = (*scan)->shardProbes(shard, shardCount).size();
        std::fputs(("probes: " + std::to_string(mine) + (shardCount > 1 ? " in this shard, " + std::to_string(probes.size()) + " in all" : std::string())
                    + "; mean layers rerun per probe " + figure("%.2f", (*scan)->meanLayersRerun()) + " of "
                    + std::to_string((*scan)->layerCount() + 1) + " (the output counted as one)\n")
                       .c_str(),
                   stderr);
        // On a terminal one line rewritten in place; into a log (a batch job's) a line per probe.
        const bool terminal = ::isatty(2) == 1;
        run.progress = [terminal](std::size_t done, std::size_t total, double seconds) {
            const double eta = done ? seconds / double(done) * double(total - done) : 0.0;
            std::fprintf(stderr, "%sprobe %zu/%zu  %s elapsed, ETA %s%s", terminal ? "\r" : "", done, total, duration(seconds).c_str(),
                         duration(eta).c_str(), terminal ? (done == total ? "\n" : "   ") : "\n");
        };
    }
    if (out)
        run.checkpoint = [&](const gguf::ScanRecord& partial) { return gguf::writeScanFile(*out, partial); };
    if (out)  // the file exists from the start, so even a kill before the first probe leaves one to resume
        if (gguf::Status s = gguf::writeScanFile(*out, record); !s)
            return reportFailure(s.error().toString());
    if (gguf::Status s = gguf::runScan(**scan, record, run); !s)
        return reportFailure(s.error().toString());
    if (!inputsUnchangedOrReport())
        return 1;
    if (args.has("--json")) {
        writeStdout(gguf::scanRecordJson(record));
        return 0;
    }
    writeStdout(scanText(record));
    return 0;
}
