#pragma once
// The error metrics a person can pick in the compare page's table and chart, each named by the
// core's key (errorMetricNames) so the GUI, its exports and the CLI agree on what a figure is.

#include "compare/ErrorMetrics.h"

#include <QCoreApplication>
#include <QString>
#include <vector>

struct ComparisonMetric {
    const char* key;      // one of gguf::errorMetricNames()
    const char* label;    // untranslated; shown through tr()
    bool higherIsBetter;  // SQNR and cosine grow as the error shrinks

    QString displayName() const { return QCoreApplication::translate("ComparisonMetric", label); }
    // This metric's value in `metrics`, found by its key in the core's list.
    double valueIn(const gguf::ErrorMetrics& metrics) const
    {
        const std::vector<std::string>& names = gguf::errorMetricNames();
        const std::vector<double> values = gguf::errorMetricValues(metrics);
        for (std::size_t i = 0; i < names.size(); ++i)
            if (names[i] == key)
                return values[i];
        return gguf::ErrorMetrics::kNaN;
    }
};

inline const std::vector<ComparisonMetric>& comparisonMetrics()
{
    static const std::vector<ComparisonMetric> metrics = {
        {"relative_rmse", QT_TRANSLATE_NOOP("ComparisonMetric", "Relative RMSE"), false},
        {"rmse", QT_TRANSLATE_NOOP("ComparisonMetric", "RMSE"), false},
        {"max_abs_error", QT_TRANSLATE_NOOP("ComparisonMetric", "Max abs error"), false},
        {"mean_abs_error", QT_TRANSLATE_NOOP("ComparisonMetric", "Mean abs error"), false},
        {"sqnr_db", QT_TRANSLATE_NOOP("ComparisonMetric", "SQNR (dB)"), true},
        {"cosine_similarity", QT_TRANSLATE_NOOP("ComparisonMetric", "Cosine similarity"), true},
        {"p50_abs_error", QT_TRANSLATE_NOOP("ComparisonMetric", "p50 abs error"), false},
        {"p95_abs_error", QT_TRANSLATE_NOOP("ComparisonMetric", "p95 abs error"), false},
        {"p99_abs_error", QT_TRANSLATE_NOOP("ComparisonMetric", "p99 abs error"), false},
    };
    return metrics;
}
