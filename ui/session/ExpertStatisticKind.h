#pragma once
// The per-expert figures a user can chart (the statistics table's numeric columns and the
// layers × experts heatmap share them), with their names and how to read them from a result.

#include "core/experts/ExpertAnalysis.h"

#include <QCoreApplication>
#include <QString>

enum class ExpertStatisticKind { Mean, Std, Rms, MaxAbs, Sparsity };

inline constexpr ExpertStatisticKind kExpertStatisticKinds[] = {ExpertStatisticKind::Mean, ExpertStatisticKind::Std, ExpertStatisticKind::Rms,
                                                                ExpertStatisticKind::MaxAbs, ExpertStatisticKind::Sparsity};

inline QString expertStatisticName(ExpertStatisticKind kind)
{
    switch (kind) {
    case ExpertStatisticKind::Mean: return QCoreApplication::translate("ExpertStatistic", "mean");
    case ExpertStatisticKind::Std: return QCoreApplication::translate("ExpertStatistic", "std");
    case ExpertStatisticKind::Rms: return QCoreApplication::translate("ExpertStatistic", "rms");
    case ExpertStatisticKind::MaxAbs: return QCoreApplication::translate("ExpertStatistic", "max abs");
    case ExpertStatisticKind::Sparsity: return QCoreApplication::translate("ExpertStatistic", "sparsity");
    }
    return {};
}

inline double expertStatisticValue(const gguf::ExpertStatistics& result, ExpertStatisticKind kind)
{
    switch (kind) {
    case ExpertStatisticKind::Mean: return result.statistics.mean;
    case ExpertStatisticKind::Std: return result.statistics.stddev;
    case ExpertStatisticKind::Rms: return result.statistics.rms;
    case ExpertStatisticKind::MaxAbs: return result.maxAbs;
    case ExpertStatisticKind::Sparsity: return result.sparsity;
    }
    return 0.0;
}

// Signed figures get a colour scale centred on zero; the others run from their minimum up.
inline bool expertStatisticIsSigned(ExpertStatisticKind kind)
{
    return kind == ExpertStatisticKind::Mean;
}
