#include "AnchorCases.h"

#include "GgmlAnchor.h"
#include "core/types/GgmlType.h"
#include "core/write/GgufWriter.h"
#include "Measure.h"
#include "ProcessProbe.h"
#include "SparseModelFile.h"
#include "core/quantize/Quantize.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace bench {

namespace {

constexpr std::int64_t kRowLength = 4096;

struct Best {
    std::vector<double> runs;
    void add(double seconds) { runs.push_back(seconds); }
    double best() const { return runs.empty() ? 0.0 : *std::min_element(runs.begin(), runs.end()); }
    double median() const
    {
        if (runs.empty())
            return 0.0;
        std::vector<double> sorted = runs;
        std::sort(sorted.begin(), sorted.end());
        return sorted[sorted.size() / 2];
    }
};

// Deterministic weights shaped like a model's: normal, sigma 0.02.
std::vector<float> weights(std::uint64_t count)
{
    std::mt19937 random(20);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    std::vector<float> values(static_cast<std::size_t>(count));
    for (float& value : values)
        value = normal(random);
    return values;
}

// An imatrix-like row: positive, spread over three orders of magnitude, a few columns hot.
std::vector<float> importanceRow(std::int64_t columns)
{
    std::mt19937 random(14);
    std::lognormal_distribution<float> spread(0.0f, 1.5f);
    std::vector<float> row(static_cast<std::size_t>(columns));
    for (float& value : row)
        value = spread(random);
    return row;
}

bool writeOneTensorFile(const std::string& path, const std::vector<float>& values)
{
    gguf::GgufWriter writer;
    writer.setValue("general.architecture", gguf::EncodedValue::string("llama"));
    const std::int64_t rows = static_cast<std::int64_t>(values.size()) / kRowLength;
    const gguf::Status added = writer.addTensor({"blk.0.ffn_down.weight", 0, {kRowLength, rows}}, [&values](gguf::ByteSink& out) {
        return out.write(values.data(), values.size() * sizeof(float));
    });
    return added && writer.writeFile(path);
}

// `count` small f32 tensors: a header of thousands of tensor infos and almost no data.
bool writeManyTensorFile(const std::string& path, int count)
{
    gguf::GgufWriter writer;
    writer.setValue("general.architecture", gguf::EncodedValue::string("llama"));
    static const std::vector<float> zeros(32, 0.0f);
    for (int i = 0; i < count; ++i) {
        const gguf::Status added = writer.addTensor({"blk." + std::to_string(i / 10) + ".t" + std::to_string(i % 10) + ".weight", 0, {32}},
                                                    [](gguf::ByteSink& out) { return out.write(zeros.data(), zeros.size() * sizeof(float)); });
        if (!added)
            return false;
    }
    return bool(writer.writeFile(path));
}

}  // namespace

void runQuantizeAnchorCases(const BenchOptions& options, const std::string& cliPath, Report& report)
{
    const GgmlAnchor ggml(options.ggmlLib);
    if (!ggml.loaded())
        std::fprintf(stderr, "# quantize: ggml anchor skipped (%s)\n", ggml.error().c_str());
    const std::vector<float> values = weights(options.elements);
    const std::int64_t rows = static_cast<std::int64_t>(values.size()) / kRowLength;
    const std::string input = options.workDir + "/gguf-explorer-bench-f32.gguf";
    const std::string output = options.workDir + "/gguf-explorer-bench-out.gguf";
    const bool haveInput = !cliPath.empty() && writeOneTensorFile(input, values);
    const int runs = options.quick ? 2 : 7;

    const std::vector<float> importance = importanceRow(kRowLength);

    for (const gguf::TypeTraits* type : gguf::quantizableTypes()) {
        if (type->kind != gguf::TypeKind::Quantized || !options.wantsType(type->name))
            continue;
        const std::size_t bytes = static_cast<std::size_t>(gguf::quantizedSize(*type, values.size()));
        std::vector<std::uint8_t> ours(bytes);
        std::vector<std::uint8_t> theirs(bytes);
        const bool anchored = ggml.loaded() && ggml.knowsType(type->id, type->name);
        if (ggml.loaded() && !anchored)
            std::fprintf(stderr, "# quantize %s: this libggml cannot quantize it, no anchor\n", type->name);
        // With importance weights (as llama-quantize --imatrix): only where ggml reads them.
        if (gguf::usesImportance(type->id)) {
            Best wallW, cpuW, ggmlWallW, ggmlCpuW;
            for (int run = 0; run < runs; ++run) {
                double wall = nowSeconds();
                double cpu = threadCpuSeconds();
                (void)gguf::quantizeRows(type->id, values, kRowLength, importance, ours);
                wallW.add(nowSeconds() - wall);
                cpuW.add(threadCpuSeconds() - cpu);
                if (anchored) {
                    wall = nowSeconds();
                    cpu = threadCpuSeconds();
                    ggml.quantize(type->id, values.data(), theirs.data(), rows, kRowLength, importance.data());
                    ggmlWallW.add(nowSeconds() - wall);
                    ggmlCpuW.add(threadCpuSeconds() - cpu);
                }
            }
            Row row;
            row.caseName = "quantize_imatrix";
            row.type = type->name;
            row.elements = values.size();
            row.seconds = wallW.best();
            row.kernel = gguf::kernelIsaName(gguf::preferredKernelIsa());
            row.extra = {{"cpu_seconds", cpuW.best()}};
            row.note = "quantizeRows with an importance row, in process, best of " + std::to_string(runs);
            if (anchored) {
                row.extra.push_back({"ggml_seconds", ggmlWallW.best()});
                row.extra.push_back({"x_ggml", ggmlWallW.best() / wallW.best()});
                row.extra.push_back({"x_ggml_cpu", ggmlCpuW.best() / cpuW.best()});
                row.extra.push_back({"bytes_equal", std::memcmp(ours.data(), theirs.data(), bytes) == 0 ? 1.0 : 0.0});
                row.note += ", interleaved with ggml_quantize_chunk(quant_weights)";
            }
            report.add(row);
        }
        if (gguf::requiresImportance(type->id))
            continue;  // no plain quantization: ggml aborts, the core refuses
        Best oursWall, oursCpu, ggmlWall, ggmlCpu, process, processCpu;
        for (int run = 0; run < runs; ++run) {  // interleaved: both see the same machine
            double wall = nowSeconds();
            double cpu = threadCpuSeconds();
            (void)gguf::quantizeValues(type->id, values, ours);
            oursWall.add(nowSeconds() - wall);
            oursCpu.add(threadCpuSeconds() - cpu);
            if (anchored) {
                wall = nowSeconds();
                cpu = threadCpuSeconds();
                ggml.quantize(type->id, values.data(), theirs.data(), rows, kRowLength);
                ggmlWall.add(nowSeconds() - wall);
                ggmlCpu.add(threadCpuSeconds() - cpu);
            }
            if (haveInput) {
                const ProcessFigures figures = probeProcess({cliPath, "convert", input, output, "--type", type->name, "--threads", "1", "--quiet"});
                if (figures.ok) {
                    process.add(figures.seconds);
                    processCpu.add(figures.cpuSeconds);
                }
            }
        }
        Row row;
        row.caseName = "quantize";
        row.type = type->name;
        row.elements = values.size();
        row.seconds = oursWall.best();
        row.kernel = gguf::kernelIsaName(gguf::preferredKernelIsa());
        row.extra = {{"cpu_seconds", oursCpu.best()}};
        row.note = "in process, best of " + std::to_string(runs);
        if (anchored) {
            row.extra.push_back({"ggml_seconds", ggmlWall.best()});
            row.extra.push_back({"x_ggml", ggmlWall.best() / oursWall.best()});
            row.extra.push_back({"x_ggml_cpu", ggmlCpu.best() / oursCpu.best()});
            row.extra.push_back({"bytes_equal", std::memcmp(ours.data(), theirs.data(), bytes) == 0 ? 1.0 : 0.0});
            row.note += ", interleaved with ggml_quantize_chunk";
        }
        report.add(row);
        if (!process.runs.empty()) {
            row.caseName = "convert_process";
            row.seconds = process.best();
            row.extra = {{"median_seconds", process.median()}, {"cpu_seconds", processCpu.best()}};
            if (anchored) {
                row.extra.push_back({"x_ggml", ggmlWall.best() / process.best()});
                row.extra.push_back({"x_ggml_cpu", ggmlCpu.best() / processCpu.best()});
            }
            row.note = "whole `convert --threads 1` process (read, quantize, write, fsync), best of " + std::to_string(runs);
            report.add(row);
        }
    }
    if (haveInput) {
        std::remove(input.c_str());
        std::remove(output.c_str());
    }
}

void runCompareThreadsCase(const BenchOptions& options, const std::string& cliPath, Report& report)
{
    if (cliPath.empty())
        return;
    const std::string input = options.workDir + "/gguf-explorer-bench-compare.gguf";
    const std::string noisy = options.workDir + "/gguf-explorer-bench-compare-noisy.gguf";
    std::vector<float> values = weights(options.elements);
    if (!writeOneTensorFile(input, values)) {
        std::fprintf(stderr, "gguf-explorer-bench: cannot write %s\n", input.c_str());
        return;
    }
    // A second file of the same values with 1% noise: comparing two files is all reading and
    // adding, the part of compare that ran in one thread's turn before the error sums were split.
    std::mt19937 random(21);
    std::normal_distribution<float> noise(0.0f, 0.0002f);
    for (float& value : values)
        value += noise(random);
    const bool haveNoisy = writeOneTensorFile(noisy, values);
    values = {};
    struct Scenario {
        std::string name;
        std::vector<std::string> arguments;
    };
    std::vector<Scenario> scenarios = {{"simulate q4_K", {input, "--simulate", "q4_K"}}};
    if (haveNoisy)
        scenarios.push_back({"f32 file vs f32 file", {input, noisy}});
    struct Contender {
        std::string cli;
        std::string label;
        unsigned threads;
        std::size_t scenario;
        Best seconds;
        Best cpuSeconds;
    };
    std::vector<Contender> contenders;
    for (std::size_t sc = 0; sc < scenarios.size(); ++sc)
        for (const unsigned threads : {1u, 2u}) {
            contenders.push_back({cliPath, "this build", threads, sc, {}, {}});
            if (!options.baselineCli.empty())
                contenders.push_back({options.baselineCli, "baseline", threads, sc, {}, {}});
        }
    const int runs = options.quick ? 2 : 5;
    for (int run = 0; run < runs; ++run)
        for (Contender& c : contenders) {
            std::vector<std::string> command = {c.cli, "compare"};
            const std::vector<std::string>& arguments = scenarios[c.scenario].arguments;
            command.insert(command.end(), arguments.begin(), arguments.end());
            command.insert(command.end(), {"--threads", std::to_string(c.threads)});
            const ProcessFigures figures = probeProcess(command);
            if (figures.ok) {
                c.seconds.add(figures.seconds);
                c.cpuSeconds.add(figures.cpuSeconds);
            }
        }
    for (const Contender& c : contenders) {
        if (c.seconds.runs.empty())
            continue;
        Row row;
        row.caseName = c.label == "baseline" ? "compare_baseline" : "compare";
        row.type = c.scenario == 0 ? "q4_K" : "f32";
        row.threads = c.threads;
        row.elements = options.elements;
        row.seconds = c.seconds.best();
        row.extra = {{"median_seconds", c.seconds.median()}, {"cpu_seconds", c.cpuSeconds.best()}, {"load_1min", loadAverage().one}};
        if (c.threads == 2)
            for (const Contender& single : contenders)
                if (single.cli == c.cli && single.scenario == c.scenario && single.threads == 1 && !single.seconds.runs.empty()) {
                    row.extra.push_back({"x_1_thread", single.seconds.best() / c.seconds.best()});
                    // 1.0: the second thread costs no extra CPU; the wall figure needs an idle core.
                    row.extra.push_back({"cpu_x_1_thread", c.cpuSeconds.best() / single.cpuSeconds.best()});
                }
        row.note = "`compare " + scenarios[c.scenario].name + "` on one-tensor files (" + c.label + "), best of " + std::to_string(runs);
        report.add(row);
    }
    std::remove(input.c_str());
    std::remove(noisy.c_str());
}

void runOpenAnchorCases(const BenchOptions& options, const std::string& cliPath, Report& report)
{
    if (cliPath.empty())
        return;
    struct File {
        std::string name;
        std::string path;
        std::uint64_t tensors;
        double headerMiB;
    };
    std::vector<File> files;
    SparseModelFile sparse;
    std::string error;
    const std::string sparsePath = options.workDir + "/gguf-explorer-bench-70b-anchor.gguf";
    if (writeSparse70bModel(sparsePath, sparse, error))
        files.push_back({"70b", sparsePath, sparse.tensorCount, double(sparse.headerBytes) / (1024.0 * 1024.0)});
    const std::string manyPath = options.workDir + "/gguf-explorer-bench-3000.gguf";
    if (writeManyTensorFile(manyPath, 3000))
        files.push_back({"3000", manyPath, 3000, 0.0});

    struct Contender {
        std::string label;
        std::vector<std::string> command;  // the file's path is appended
    };
    std::vector<Contender> contenders = {{"gguf-explorer-cli info", {cliPath, "info"}}};
    if (!options.baselineCli.empty())
        contenders.push_back({"baseline gguf-explorer-cli info", {options.baselineCli, "info"}});
    if (!options.ggufTools.empty())
        contenders.push_back({"gguf-tools show", {options.ggufTools, "show"}});
    else
        std::fprintf(stderr, "# open: gguf-tools anchor skipped (no --gguf-tools given)\n");

    const int runs = options.quick ? 3 : 21;
    for (const File& file : files) {
        std::vector<Best> seconds(contenders.size());
        std::vector<Best> cpu(contenders.size());
        std::vector<double> peakMiB(contenders.size(), 0.0);
        for (int run = 0; run < runs; ++run)
            for (std::size_t c = 0; c < contenders.size(); ++c) {
                std::vector<std::string> command = contenders[c].command;
                command.push_back(file.path);
                const ProcessFigures figures = probeProcess(command);
                if (!figures.ok)
                    continue;
                seconds[c].add(figures.seconds);
                cpu[c].add(figures.cpuSeconds);
                peakMiB[c] = peakMiB[c] == 0.0 ? figures.maxResidentMiB : std::min(peakMiB[c], figures.maxResidentMiB);
            }
        for (std::size_t c = 0; c < contenders.size(); ++c) {
            if (seconds[c].runs.empty())
                continue;
            Row row;
            row.caseName = "open_process_" + file.name;
            row.type = "-";
            row.seconds = seconds[c].best();
            row.kernel = "-";
            row.extra = {{"median_seconds", seconds[c].median()}, {"cpu_seconds", cpu[c].best()}, {"max_rss_mb", peakMiB[c]},
                         {"tensors", double(file.tensors)}};
            if (file.headerMiB > 0)
                row.extra.push_back({"header_mb", file.headerMiB});
            if (c > 0 && !seconds[0].runs.empty()) {
                row.extra.push_back({"x_this_build", seconds[c].best() / seconds[0].best()});
                row.extra.push_back({"x_this_build_cpu", cpu[c].best() / cpu[0].best()});
            }
            row.note = contenders[c].label + ", best of " + std::to_string(runs) + " interleaved (rss: least)";
            report.add(row);
        }
        std::remove(file.path.c_str());
    }
}

}  // namespace bench
