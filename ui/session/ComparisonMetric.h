#pragma once
// The error metrics a person can pick in the compare page's table and chart and in the experts'
// quantization-error view. Each is a row of the core's metric table (compare/ErrorMetricTable.h),
// which gives its key, label, direction and value, so the GUI, its exports and the CLI agree on
// what a figure is and a new metric reaches the GUI without an edit here.

#include "core/compare/ErrorMetricTable.h"
#include "core/compare/ImportanceErrorMetrics.h"

#include <QCoreApplication>
#include <QString>
#include <vector>

struct ComparisonMetric {
    const gguf::ErrorMetricInfo* info;

    const char* key() const { return info->key; }
    bool higherIsBetter() const { return info->higherIsBetter; }
    QString displayName() const { return QCoreApplication::translate("ComparisonMetric", info->label); }
    double valueIn(const gguf::ErrorMetrics& metrics) const { return info->valueIn(metrics); }
};

// Every figure the CLI's table shows (not the counts, not the reference's own RMS), relative RMSE
// first: it is the one that compares tensors of different scales, so it is what a page opens on.
inline const std::vector<ComparisonMetric>& comparisonMetrics()
{
    static const std::vector<ComparisonMetric> metrics = [] {
        std::vector<ComparisonMetric> list{{gguf::findErrorMetric("relative_rmse")}};
        for (const gguf::ErrorMetricInfo& info : gguf::errorMetricTable())
            if (info.cliHeader && &info != list.front().info)
                list.push_back({&info});
        return list;
    }();
    return metrics;
}

// comparisonMetrics() followed by the importance-weighted figures (importanceMetricTable()), which
// only a comparison with an importance matrix has: a metric index means the same in both lists,
// so models look indices up here and pickers offer the tail only with a matrix.
inline const std::vector<ComparisonMetric>& comparisonMetricsWithImportance()
{
    static const std::vector<ComparisonMetric> metrics = [] {
        std::vector<ComparisonMetric> list = comparisonMetrics();
        for (const gguf::ErrorMetricInfo& info : gguf::importanceMetricTable())
            list.push_back({&info});
        return list;
    }();
    return metrics;
}
