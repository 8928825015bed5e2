#include "TokenizeCase.h"

#include "Measure.h"
#include "core/gguf/Model.h"
#include "core/tokenize/Tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace bench {

namespace {
std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// About `bytes` of text: mostly English prose (GPL-3), with every test string of the vocabulary
// set (accents, CJK, Khmer, emoji, runs of digits and whitespace) mixed in every 64 KiB.
std::string benchText(const std::string& vocabDir, std::size_t bytes)
{
    std::string prose = readAll("/usr/share/common-licenses/GPL-3");
    if (prose.empty())
        prose = "The quick brown fox jumps over the lazy dog; it's 1234567 metres away.\n";
    std::string mixed = readAll(vocabDir + "/ggml-vocab-llama-spm.gguf.inp");
    std::string text;
    text.reserve(bytes + prose.size() + mixed.size());
    while (text.size() < bytes) {
        for (std::size_t at = 0; at < prose.size() && text.size() < bytes; at += 65536) {
            text.append(prose, at, 65536);
            text += mixed;
        }
    }
    return text;
}
}  // namespace

bool runTokenizeCases(const std::string& vocabDir, bool quick, Report& report)
{
    std::vector<std::string> files;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(vocabDir, error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("ggml-vocab-", 0) == 0 && entry.path().extension() == ".gguf")
            files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        // Like the anchors without their tools: skipped, the other cases still run.
        std::fprintf(stderr, "gguf-explorer-bench: tokenize skipped: no ggml-vocab-*.gguf in '%s' (--vocab-dir)\n", vocabDir.c_str());
        return true;
    }
    const std::string text = benchText(vocabDir, quick ? (std::size_t(1) << 20) : (std::size_t(8) << 20));
    const RepeatPolicy policy = quick ? RepeatPolicy{1, 2, 0.0} : RepeatPolicy{3, 5, 1.0};
    for (const std::string& file : files) {
        const std::string vocabulary = std::filesystem::path(file).stem().string().substr(std::string("ggml-vocab-").size());
        double buildSeconds = 0;
        const double buildStart = nowSeconds();
        auto model = gguf::Model::open(file);
        if (!model) {
            std::fprintf(stderr, "gguf-explorer-bench: %s\n", model.error().toString().c_str());
            return false;
        }
        auto tokenizer = gguf::Tokenizer::fromModel(*model.value());
        buildSeconds = nowSeconds() - buildStart;
        if (!tokenizer) {
            std::fprintf(stderr, "gguf-explorer-bench: %s\n", tokenizer.error().toString().c_str());
            return false;
        }
        std::size_t tokens = 0;
        const Timing timing = measure([&] { tokens = tokenizer.value().encode(text, false, false).size(); }, policy);
        Row row;
        row.caseName = "tokenize";
        row.type = vocabulary;
        row.threads = 1;
        row.elements = tokens;
        row.seconds = timing.wall;
        row.extra = {{"tokens_per_s", static_cast<double>(tokens) / timing.wall},
                     {"input_mb_per_s", static_cast<double>(text.size()) / 1e6 / timing.wall},
                     {"cpu_s", timing.cpu},
                     {"build_s", buildSeconds}};
        row.note = tokenizer.value().description();
        report.add(row);
    }
    return true;
}

}  // namespace bench
