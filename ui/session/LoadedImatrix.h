#pragma once
// An importance matrix opened in the app, with everything the views show computed once on the
// job pool: validation against the model it was opened for (which also binds legacy entries
// per expert) and whether it may be used with it, llama-imatrix's statistics, the routing map
// and the coverage.

#include "core/imatrix/ExpertRouting.h"
#include "core/imatrix/ImatrixStatistics.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"

#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

struct LoadedImatrix {
    std::shared_ptr<const gguf::ImportanceMatrix> matrix;
    gguf::ImatrixValidation validation;
    gguf::ImatrixStatistics statistics;
    gguf::ExpertRouting routing;
    std::vector<gguf::EntryCoverage> coverage;
    QString modelPath;  // the model it was validated against; empty when none
    // Against that model: why it may not be used with it (imatrixRefusal), or else what using it
    // warns about (ImatrixFit::warnings), as every user of a matrix decides it.
    QString refusal;
    QStringList warnings;

    // Loads and analyses `path` against `model` (may be null); for a pool thread.
    static gguf::Result<std::shared_ptr<const LoadedImatrix>> load(const QString& path, const gguf::Model* model);
};
