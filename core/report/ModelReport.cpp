#include "core/report/ModelReport.h"

#include "core/analysis/LayerBreakdown.h"
#include "core/base/EscapedText.h"
#include "core/base/HumanFormat.h"
#include "core/estimate/MemoryEstimate.h"
#include "core/gguf/GgufFile.h"
#include "core/gguf/MetadataFormat.h"
#include "core/gguf/Vocabulary.h"
#include "core/types/GgmlType.h"
#include "core/write/ByteSink.h"

#include <algorithm>
#include <cctype>

namespace gguf {

namespace {

constexpr std::size_t kShownArrayElements = 8;
constexpr std::size_t kShownStringBytes = 240;  // a chat template is kilobytes: its start and its size

// The report as a list of blocks, written once and rendered as HTML or Markdown.
struct Block {
    enum class Kind { Heading, Table, Paragraph, Image } kind = Kind::Paragraph;
    std::string text;  // heading, paragraph, image title
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
    std::string png;
};

Block heading(std::string text)
{
    return Block{Block::Kind::Heading, std::move(text), {}, {}, {}};
}

Block table(std::vector<std::string> columns, std::vector<std::vector<std::string>> rows)
{
    return Block{Block::Kind::Table, {}, std::move(columns), std::move(rows), {}};
}

Block paragraph(std::string text)
{
    return Block{Block::Kind::Paragraph, std::move(text), {}, {}, {}};
}

std::string bitsPerWeight(std::uint64_t bytes, std::uint64_t elements)
{
    return elements ? formatFixed(8.0 * static_cast<double>(bytes) / static_cast<double>(elements), 3) : std::string("–");
}

std::string percent(std::uint64_t part, std::uint64_t whole)
{
    return whole ? formatFixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + " %" : std::string("–");
}

// At most `limit` bytes of `text`, cut before a UTF-8 continuation byte, and its size after.
std::string shortened(const std::string& text, std::size_t limit)
{
    if (text.size() <= limit)
        return text;
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    return text.substr(0, cut) + "… (" + formatGrouped(text.size()) + " bytes in all)";
}

// The file's name without its folder (a report leaves the reader's folders out).
std::string fileNameOf(const Model& model)
{
    const std::string& path = model.primary().path();
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<Block> factsOf(const Model& model, const ModelSummary& summary)
{
    const GgufFile& primary = model.primary();
    std::vector<std::vector<std::string>> rows = {
        {"file", fileNameOf(model)},
        {"format", "GGUF v" + std::to_string(primary.version()) + (primary.bigEndian() ? ", big-endian" : ", little-endian") + ", alignment "
                       + std::to_string(primary.alignment())},
        {"architecture", summary.architecture.empty() ? "(not set)" : summary.architecture},
        {"name", summary.name.empty() ? "(not set)" : summary.name},
        {"parameters", formatCount(summary.parameterCount) + " (" + formatGrouped(summary.parameterCount) + ")"},
        {"file size", formatBytes(summary.fileSize) + " (" + formatGrouped(summary.fileSize) + " bytes)"},
        {"tensor data", formatBytes(summary.tensorBytes)},
        {"bits per weight", formatFixed(summary.averageBitsPerWeight, 3)},
        {"tensors", formatGrouped(model.tensors().size())},
        {"metadata keys", formatGrouped(model.metadata().size())},
    };
    if (model.shards().size() > 1)
        rows.push_back({"shards", std::to_string(model.shards().size())});
    for (const char* key : {"context_length", "block_count", "embedding_length", "expert_count", "expert_used_count"})
        if (const auto value = model.metadataUInt(summary.architecture + "." + key))
            rows.push_back({key, formatGrouped(*value)});
    return {heading("File"), table({"", ""}, std::move(rows))};
}

std::vector<Block> typeMixOf(const ModelSummary& summary)
{
    std::vector<std::vector<std::string>> rows;
    for (const TypeTotal& total : summary.typeTotals)
        rows.push_back({typeName(total.typeId), formatGrouped(total.tensorCount), formatCount(total.elementCount), formatBytes(total.byteCount),
                        percent(total.byteCount, summary.tensorBytes), bitsPerWeight(total.byteCount, total.elementCount)});
    return {heading("Type mix"), table({"type", "tensors", "weights", "bytes", "share of the data", "bits per weight"}, std::move(rows))};
}

std::vector<Block> layersOf(const Model& model)
{
    const LayerBreakdown breakdown = computeLayerBreakdown(model.tensors());
    std::vector<std::vector<std::string>> rows;
    for (const LayerBytes& layer : breakdown.layers) {
        std::string types;
        for (const LayerTypeBytes& type : layer.types)
            types += (types.empty() ? "" : ", ") + typeName(type.typeId) + " " + formatBytes(type.byteCount);
        rows.push_back({layer.layer ? "blk." + std::to_string(*layer.layer) : std::string("outside the layers"), formatGrouped(layer.tensorCount),
                        formatBytes(layer.byteCount), types});
    }
    return {heading("Layers"), table({"layer", "tensors", "bytes", "types"}, std::move(rows))};
}

// The CLI `estimate`'s figures at its defaults (the model's training context, f16 K and V, every
// layer on the CPU), from the same function, written as `estimate` writes them.
std::vector<Block> memoryOf(const Model& model)
{
    const Result<MemoryEstimate> estimate = estimateMemory(model, EstimateOptions{});
    if (!estimate)
        return {heading("Memory estimate"), paragraph("No estimate: " + estimate.error().toString())};
    const MemoryEstimate& e = estimate.value();
    const auto bytes = [](std::uint64_t n) { return formatBytes(n) + " (" + formatGrouped(n) + ")"; };
    std::vector<std::vector<std::string>> rows = {
        {"context", formatGrouped(e.contextLength) + " tokens"},
        {"weights", bytes(e.weightsCpu + e.weightsGpu)},
        {"KV cache", bytes(e.kvTotal()) + (e.kvExact ? "" : " (approximate)")},
    };
    if (e.recurrentTotal())
        rows.push_back({"recurrent state", bytes(e.recurrentTotal())});
    rows.push_back({"compute buffer", bytes(e.computeBuffer)});
    rows.push_back({"output buffer", bytes(e.outputBuffer)});
    rows.push_back({"total", bytes(e.total())});
    std::vector<Block> blocks = {heading("Memory estimate"), table({"", ""}, std::move(rows)),
                                 paragraph("What llama.cpp allocates at the model's default context with an f16 KV cache on the CPU "
                                           "(the CLI's estimate command takes other settings).")};
    for (const std::string& note : e.notes)
        blocks.push_back(paragraph("Note: " + note));
    return blocks;
}

std::vector<Block> tokenizerOf(const Model& model)
{
    const MetadataEntry* tokens = model.findMetadata(Vocabulary::kTokensKey);
    if (!tokens || !tokens->value.isArray())
        return {heading("Tokenizer"), paragraph("This file has no tokenizer.")};
    auto orNotSet = [](std::string text) { return text.empty() ? std::string("(not set)") : text; };
    std::vector<std::vector<std::string>> rows = {
        {"model", orNotSet(model.metadataString("tokenizer.ggml.model"))},
        {"pre-tokenizer", orNotSet(model.metadataString("tokenizer.ggml.pre"))},
        {"tokens", formatGrouped(tokens->value.arrayLength())},
    };
    if (const MetadataEntry* merges = model.findMetadata("tokenizer.ggml.merges"); merges && merges->value.isArray())
        rows.push_back({"merges", formatGrouped(merges->value.arrayLength())});
    for (const SpecialToken& token : Vocabulary::specialTokens(model))
        rows.push_back({token.role + " token", std::to_string(token.id)});
    const MetadataEntry* chatTemplate = model.findMetadata("tokenizer.chat_template");
    rows.push_back({"chat template", chatTemplate ? formatGrouped(chatTemplate->value.toStringView().size()) + " bytes" : std::string("(none)")});
    return {heading("Tokenizer"), table({"", ""}, std::move(rows))};
}

std::vector<Block> metadataOf(const Model& model)
{
    std::vector<std::vector<std::string>> rows;
    for (const MetadataEntry& entry : model.metadata())
        rows.push_back({std::string(entry.key), entry.value.typeName(), shortened(formatValue(entry.value, kShownArrayElements), kShownStringBytes)});
    return {heading("Metadata"), table({"key", "type", "value"}, std::move(rows))};
}

// ---- rendering ------------------------------------------------------------------------------

// Text from the file made visible (escapeForDisplay) and then inert in the format.
std::string htmlText(std::string_view text)
{
    std::string out;
    for (const char c : escapeForDisplay(text)) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

// Markdown: the HTML entities (a renderer passes raw HTML), and the characters that would end a
// table cell or start emphasis or code.
std::string markdownText(std::string_view text)
{
    std::string out;
    for (const char c : htmlText(text)) {
        if (c == '\\' || c == '|' || c == '*' || c == '_' || c == '`' || c == '[' || c == ']' || c == '#')
            out += '\\';
        out += c;
    }
    return out;
}

std::string base64(const std::string& bytes)
{
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t left = bytes.size() - i;
        std::uint32_t chunk = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
        if (left > 1)
            chunk |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        if (left > 2)
            chunk |= static_cast<unsigned char>(bytes[i + 2]);
        out += kAlphabet[(chunk >> 18) & 63];
        out += kAlphabet[(chunk >> 12) & 63];
        out += left > 1 ? kAlphabet[(chunk >> 6) & 63] : '=';
        out += left > 2 ? kAlphabet[chunk & 63] : '=';
    }
    return out;
}

std::string renderHtml(const std::string& title, const std::vector<Block>& blocks)
{
    std::string out = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + htmlText(title)
        + "</title>\n<style>body{font-family:sans-serif;max-width:72em;margin:2em auto}table{border-collapse:collapse;margin:0.5em 0}"
          "td,th{border:1px solid #bbb;padding:2px 8px;text-align:left;vertical-align:top}td{font-family:monospace}</style></head>\n<body>\n<h1>"
        + htmlText(title) + "</h1>\n";
    for (const Block& block : blocks) {
        switch (block.kind) {
        case Block::Kind::Heading: out += "<h2>" + htmlText(block.text) + "</h2>\n"; break;
        case Block::Kind::Paragraph: out += "<p>" + htmlText(block.text) + "</p>\n"; break;
        case Block::Kind::Image:
            out += "<figure><img alt=\"" + htmlText(block.text) + "\" src=\"data:image/png;base64," + base64(block.png) + "\"><figcaption>"
                + htmlText(block.text) + "</figcaption></figure>\n";
            break;
        case Block::Kind::Table: {
            out += "<table>\n";
            if (std::any_of(block.columns.begin(), block.columns.end(), [](const std::string& c) { return !c.empty(); })) {
                out += "<tr>";
                for (const std::string& column : block.columns)
                    out += "<th>" + htmlText(column) + "</th>";
                out += "</tr>\n";
            }
            for (const auto& row : block.rows) {
                out += "<tr>";
                for (const std::string& cell : row)
                    out += "<td>" + htmlText(cell) + "</td>";
                out += "</tr>\n";
            }
            out += "</table>\n";
            break;
        }
        }
    }
    return out + "</body></html>\n";
}

std::string renderMarkdown(const std::string& title, const std::vector<Block>& blocks)
{
    std::string out = "# " + markdownText(title) + "\n";
    for (const Block& block : blocks) {
        switch (block.kind) {
        case Block::Kind::Heading: out += "\n## " + markdownText(block.text) + "\n\n"; break;
        case Block::Kind::Paragraph: out += markdownText(block.text) + "\n\n"; break;
        case Block::Kind::Image: out += "![" + markdownText(block.text) + "](data:image/png;base64," + base64(block.png) + ")\n\n"; break;
        case Block::Kind::Table: {
            out += "|";
            for (const std::string& column : block.columns)
                out += " " + markdownText(column) + " |";
            out += "\n|";
            for (std::size_t i = 0; i < block.columns.size(); ++i)
                out += " --- |";
            out += "\n";
            for (const auto& row : block.rows) {
                out += "|";
                for (const std::string& cell : row)
                    out += " " + markdownText(cell) + " |";
                out += "\n";
            }
            out += "\n";
            break;
        }
        }
    }
    return out;
}

}  // namespace

ReportFormat reportFormatForPath(const std::string& path)
{
    std::string lower = path;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto endsWith = [&lower](std::string_view suffix) {
        return lower.size() >= suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return endsWith(".md") || endsWith(".markdown") ? ReportFormat::Markdown : ReportFormat::Html;
}

std::string buildModelReport(const Model& model, ReportFormat format, const ReportExtras& extras)
{
    const ModelSummary summary = model.summary();
    std::vector<Block> blocks;
    for (auto part : {factsOf(model, summary), typeMixOf(summary), layersOf(model), memoryOf(model), tokenizerOf(model)})
        blocks.insert(blocks.end(), part.begin(), part.end());
    for (const ReportTable& measured : extras.measured) {
        blocks.push_back(heading(measured.title));
        blocks.push_back(table(measured.columns, measured.rows));
        if (!measured.note.empty())
            blocks.push_back(paragraph(measured.note));
    }
    if (!extras.images.empty())
        blocks.push_back(heading("Plots"));
    for (const ReportImage& image : extras.images)
        blocks.push_back(Block{Block::Kind::Image, image.title, {}, {}, image.png});
    for (auto& block : metadataOf(model))
        blocks.push_back(std::move(block));
    const std::string title = "GGUF report: " + (summary.name.empty() ? fileNameOf(model) : summary.name);
    return format == ReportFormat::Html ? renderHtml(title, blocks) : renderMarkdown(title, blocks);
}

Status writeReportFile(const std::string& path, const std::string& text)
{
    auto sink = AtomicFileSink::create(path);
    if (!sink)
        return sink.error();
    if (Status s = (*sink)->write(text.data(), text.size()); !s)
        return s;
    return (*sink)->commit();
}

}  // namespace gguf
