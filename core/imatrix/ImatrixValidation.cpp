#include "core/imatrix/ImatrixValidation.h"

#include "core/gguf/Model.h"

#include <cmath>
#include <cstdio>

namespace gguf {

namespace {

void add(ImatrixValidation& out, ImatrixSeverity severity, const std::string& tensor, const char* field,
         std::uint64_t offset, std::string message)
{
    out.issues.push_back(ImatrixIssue{severity, tensor, field, offset, std::move(message)});
}

std::string shortNumber(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

std::string sumsField(const ImportanceEntry& entry) { return entry.legacy ? "values" : "in_sum2"; }

void checkContent(const ImportanceEntry& entry, ImatrixValidation& out)
{
    const std::string field = sumsField(entry);
    // Only the first bad value of each kind is reported: one line per problem, not per float.
    std::size_t nonFinite = 0;
    std::size_t negative = 0;
    std::size_t firstNonFinite = 0;
    std::size_t firstNegative = 0;
    for (std::size_t i = 0; i < entry.sums.size(); ++i) {
        const float v = entry.sums[i];
        if (!std::isfinite(v)) {
            if (nonFinite++ == 0)
                firstNonFinite = i;
        } else if (v < 0.0f) {
            if (negative++ == 0)
                firstNegative = i;
        }
    }
    const auto columns = static_cast<std::size_t>(entry.storedColumns);
    auto where = [&](std::size_t i) {
        return "value " + std::to_string(i) + " (row " + std::to_string(i / columns) + ", column " + std::to_string(i % columns) + ")";
    };
    if (nonFinite > 0)
        add(out, ImatrixSeverity::Error, entry.name, field.c_str(), entry.sumsOffset + 4 * firstNonFinite,
            std::to_string(nonFinite) + " value(s) are NaN or infinite, first " + where(firstNonFinite) + " = "
                + (std::isnan(entry.sums[firstNonFinite]) ? "nan" : (entry.sums[firstNonFinite] > 0 ? "inf" : "-inf")));
    if (negative > 0)
        add(out, ImatrixSeverity::Error, entry.name, field.c_str(), entry.sumsOffset + 4 * firstNegative,
            std::to_string(negative) + " value(s) are negative (a sum of squares cannot be), first " + where(firstNegative));
    // Finite but absurd: the weight a quantizer gets (the mean of x^2 over the tokens) beyond
    // kMaxImportanceWeight. No calibration gives that, a flipped exponent bit does (3.4e38), and
    // ggml's weighted searches overflow on it into zero blocks with NaN scales.
    std::size_t huge = 0;
    std::size_t firstHuge = 0;
    for (std::size_t i = 0; i < entry.sums.size(); ++i) {
        if (!std::isfinite(entry.sums[i]) || entry.sums[i] < 0.0f)
            continue;
        if (!entry.legacy && (columns == 0 || i / columns >= entry.counts.size()))
            break;  // the reader keeps one count per stored row; nothing to divide by otherwise
        if (entry.quantWeightAt(i) > kMaxImportanceWeight && huge++ == 0)
            firstHuge = i;
    }
    if (huge > 0)
        add(out, ImatrixSeverity::Error, entry.name, field.c_str(), entry.sumsOffset + 4 * firstHuge,
            std::to_string(huge) + " value(s) give an importance (mean of x^2) above " + shortNumber(kMaxImportanceWeight)
                + ", which no activations reach (a damaged file?); first " + where(firstHuge) + " = "
                + shortNumber(entry.sums[firstHuge]) + ", importance " + shortNumber(entry.quantWeightAt(firstHuge)));

    if (entry.legacy) {
        if (entry.legacyCalls <= 0)
            add(out, ImatrixSeverity::Warning, entry.name, "ncall", entry.countsOffset,
                "ncall is " + std::to_string(entry.legacyCalls) + ": llama-quantize uses the stored values undivided");
        return;
    }
    std::size_t zero = 0;
    std::string zeroList;
    for (std::size_t j = 0; j < entry.counts.size(); ++j) {
        const float count = entry.counts[j];
        const std::uint64_t offset = entry.countsOffset + 4 * j;
        const std::string row = entry.counts.size() > 1 ? "expert " + std::to_string(j) : "the tensor";
        if (!std::isfinite(count) || count < 0.0f) {
            add(out, ImatrixSeverity::Error, entry.name, "counts", offset,
                "count of " + row + " is " + (std::isnan(count) ? std::string("nan") : std::to_string(count))
                    + "; llama-quantize gives its columns weight 1");
        } else if (count == 0.0f) {
            if (zero++ < 8)
                zeroList += (zeroList.empty() ? "" : ", ") + std::to_string(j);
        } else if (count != std::floor(count)) {
            add(out, ImatrixSeverity::Warning, entry.name, "counts", offset,
                "count of " + row + " is " + std::to_string(count) + ", not a whole number of tokens");
        }
    }
    if (zero > 0) {
        const bool experts = entry.counts.size() > 1;
        add(out, ImatrixSeverity::Warning, entry.name, "counts", entry.countsOffset,
            experts ? std::to_string(zero) + " of " + std::to_string(entry.counts.size()) + " experts never routed (expert "
                          + zeroList + (zero > 8 ? ", ..." : "") + "): their importance is unknown and llama-quantize uses weight 1"
                    : std::string("count is 0: the tensor saw no input; llama-quantize uses weight 1"));
    }
}

}  // namespace

bool isMatrixWeight(const TensorInfo& tensor)
{
    const std::string_view name = tensor.name;
    return tensor.nDims >= 2 && name.size() > 7 && name.substr(name.size() - 7) == ".weight";
}

const char* imatrixSeverityName(ImatrixSeverity severity)
{
    switch (severity) {
    case ImatrixSeverity::Error: return "error";
    case ImatrixSeverity::Warning: return "warning";
    case ImatrixSeverity::Note: return "note";
    }
    return "note";
}

std::string ImatrixIssue::toString() const
{
    std::string text = imatrixSeverityName(severity);
    text += ": ";
    if (!tensor.empty())
        text += tensor + ": ";
    if (!field.empty())
        text += field + ": ";
    text += message;
    if (offset != Error::kNoOffset)
        text += " (at byte " + std::to_string(offset) + ")";
    return text;
}

bool ImatrixValidation::hasErrors() const { return count(ImatrixSeverity::Error) > 0; }

std::size_t ImatrixValidation::count(ImatrixSeverity severity) const
{
    std::size_t n = 0;
    for (const ImatrixIssue& issue : issues)
        n += issue.severity == severity ? 1 : 0;
    return n;
}

ImatrixValidation validateImatrix(const ImportanceMatrix& matrix)
{
    ImatrixValidation out;
    for (const std::string& note : matrix.notes())
        add(out, ImatrixSeverity::Note, "", "", Error::kNoOffset, note);
    for (const ImportanceEntry& entry : matrix.entries())
        checkContent(entry, out);
    return out;
}

ImatrixValidation validateImatrix(ImportanceMatrix& matrix, const Model& model)
{
    ImatrixValidation out = validateImatrix(static_cast<const ImportanceMatrix&>(matrix));
    for (ImportanceEntry& entry : matrix.entries()) {
        const TensorInfo* tensor = model.findTensor(entry.name);
        if (!tensor) {
            add(out, ImatrixSeverity::Warning, entry.name, "name", entry.sumsOffset,
                "matches no tensor of the model; llama-quantize never uses it");
            continue;
        }
        ++out.matchedEntries;
        const std::int64_t columns = tensor->ne[0];
        const std::int64_t experts = tensor->ne[2];
        const std::string field = sumsField(entry);
        // llama-quantize's own test: the entry has ne[0] * ne[2] values; it then takes ne[0]
        // of them per expert whatever shape the file stored them in.
        const auto expected = static_cast<std::uint64_t>(columns) * static_cast<std::uint64_t>(experts);
        if (entry.sums.size() != expected) {
            std::string message;
            if (entry.storedColumns != columns)
                message = "column count " + std::to_string(entry.storedColumns) + " differs from the tensor's ne[0] = " + std::to_string(columns);
            else
                message = "expert count " + std::to_string(entry.storedRows) + " differs from the tensor's ne[2] = " + std::to_string(experts);
            add(out, ImatrixSeverity::Error, entry.name, "shape", entry.sumsOffset,
                message + " (" + std::to_string(entry.sums.size()) + " values, the tensor needs " + std::to_string(expected)
                    + "; llama-quantize stops with \"imatrix size is different from tensor size\")");
            continue;
        }
        if (!entry.legacy && entry.storedRows != experts)
            add(out, ImatrixSeverity::Note, entry.name, "shape", entry.sumsOffset,
                "stored as " + std::to_string(entry.storedRows) + " row(s) of " + std::to_string(entry.storedColumns)
                    + " for a tensor of " + std::to_string(experts) + " expert(s) of " + std::to_string(columns)
                    + " columns; llama-quantize cuts it per expert");
        entry.bindColumns(columns);
    }
    for (const TensorInfo& tensor : model.tensors())
        if (isMatrixWeight(tensor) && !matrix.find(tensor.name))
            out.uncoveredTensors.emplace_back(tensor.name);
    // Not one entry for this model: llama-quantize would quantize every tensor blind, saying only
    // "did not find weights" for each. Refused, and first, so it is the reason a refusal gives.
    if (const std::size_t entries = matrix.entries().size(); entries > 0 && out.matchedEntries == 0)
        out.issues.insert(out.issues.begin(),
                          ImatrixIssue{ImatrixSeverity::Error, "", "", Error::kNoOffset,
                                       "this importance matrix is of another model: "
                                           + (entries == 1 ? std::string("its one entry names no tensor of this model")
                                                           : "none of its " + std::to_string(entries) + " entries names a tensor of this model")});
    return out;
}

}  // namespace gguf
