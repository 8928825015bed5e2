#pragma once
// One function per CLI command; each returns the process exit status.

#include "CliArguments.h"

#include <string>
#include <vector>

int runInfo(const std::vector<std::string>& words);
int runMeta(const std::vector<std::string>& words);
int runTensors(const std::vector<std::string>& words);
int runExport(const std::vector<std::string>& words);
int runStats(const std::vector<std::string>& words);
int runCheck(const std::vector<std::string>& words);
int runCompare(const std::vector<std::string>& words);
int runConvert(const std::vector<std::string>& words);
int runImatrix(const std::vector<std::string>& words);
