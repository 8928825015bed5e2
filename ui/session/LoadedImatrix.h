#pragma once
// An importance matrix opened in the app, with everything the views show computed once on the
// job pool: validation against the model it was opened for (which also binds legacy entries
// per expert), llama-imatrix's statistics, the routing map and the coverage.

#include "core/imatrix/ExpertRouting.h"
#include "core/imatrix/ImatrixStatistics.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"

#include <QString>
#include <memory>
#include <vector>

struct LoadedImatrix {
    std::shared_ptr<const gguf::ImportanceMatrix> matrix;
    gguf::ImatrixValidation validation;
    gguf::ImatrixStatistics statistics;
    gguf::ExpertRouting routing;
    std::vector<gguf::EntryCoverage> coverage;
    QString modelPath;  // the model it was validated against; empty when none

    // Loads and analyses `path` against `model` (may be null); for a pool thread.
    static gguf::Result<std::shared_ptr<const LoadedImatrix>> load(const QString& path, const gguf::Model* model);
};
