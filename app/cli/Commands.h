#pragma once
// One function per CLI command (dispatched from CommandTable.cpp); each returns the process exit
// status.

#include "CliArguments.h"
#include "core/recipe/TensorTypeRules.h"

#include <string>
#include <vector>

int runInfo(const std::vector<std::string>& words);
int runReport(const std::vector<std::string>& words);
int runMeta(const std::vector<std::string>& words);
int runTensors(const std::vector<std::string>& words);
int runExport(const std::vector<std::string>& words);
int runStats(const std::vector<std::string>& words);
int runCheck(const std::vector<std::string>& words);
int runCompare(const std::vector<std::string>& words);
int runConvert(const std::vector<std::string>& words);
int runRecipe(const std::vector<std::string>& words);
// recipe FILE --source SOURCE (RecipeProvenance.cpp), with the --tensor-type rules runRecipe took out of the words.
int runRecipeProvenance(const CliArguments& args, std::vector<gguf::TensorTypeRule> rules);
// convert with a llama-quantize preset (ConvertPresetCommand.cpp); runConvert hands over when asked for one.
bool convertWantsPreset(const std::vector<std::string>& words);
int runConvertPreset(const std::vector<std::string>& words);
int runPlan(const std::vector<std::string>& words);
int runScan(const std::vector<std::string>& words);
int runDiff(const std::vector<std::string>& words);
int runTokenize(const std::vector<std::string>& words);
int runLogits(const std::vector<std::string>& words);
int runKld(const std::vector<std::string>& words);
int runEstimate(const std::vector<std::string>& words);
int runDownload(const std::vector<std::string>& words);
int runImatrix(const std::vector<std::string>& words);
// imatrix FILE -o OUT (ImatrixConvert.cpp): the matrix written in either of llama-imatrix's formats.
namespace gguf {
class ImportanceMatrix;
}
int runImatrixConversion(const CliArguments& args, const gguf::ImportanceMatrix& matrix);
// imatrix MODEL --text-file T -o OUT (ImatrixCompute.cpp): a matrix computed as llama-imatrix does.
int runImatrixComputation(const CliArguments& args);
