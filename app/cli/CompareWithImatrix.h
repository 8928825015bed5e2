#pragma once
// `compare --imatrix FILE`: the importance-weighted figures beside the plain ones (extra columns
// in the table, per-layer and per-expert sections, members in the JSON), and
// `--column-errors TENSOR [--expert N]`: that tensor's error per input column next to its
// importance per column.

#include "CliArguments.h"
#include "core/compare/ModelComparison.h"

#include <memory>
#include <string>
#include <vector>

// Loads --imatrix (if given), binds it to the comparison's reference model and puts it into
// `options`. False after reporting a failure (`status` then holds the exit status).
bool prepareCompareImportance(const CliArguments& args, const std::vector<std::shared_ptr<const gguf::Model>>& models,
                              gguf::ComparisonOptions& options, int& status);

// The table's extra columns: only once prepareCompareImportance loaded a matrix.
void appendImportanceHeader(std::string& out);
void appendImportanceValues(std::string& out, const gguf::ErrorMetrics& metrics);

// After the table: what the matrix covers, its validation, per layer and per expert.
void appendImportanceSections(std::string& out, const gguf::ModelComparison& comparison, const gguf::ComparisonResults& results);

// --column-errors: runs and prints the profile (text or --json); returns the exit status, or -1
// when the option is absent.
int runColumnErrorsIfAsked(const CliArguments& args, const gguf::ModelComparison& comparison);
