#pragma once
// Writes a finished comparison as CSV (one line per tensor and column, then per column the
// "(all tensors)" and "(all <kind>)" lines) or JSON (the CLI's `compare --json` layout plus a
// "kinds" member), with the core's metric names and values so every tool agrees. Files
// are written through QSaveFile: a failed export leaves no half-written file behind.

#include "core/compare/ModelComparison.h"

#include <QString>

// Each returns an empty string on success, else what went wrong.
QString exportComparisonCsv(const gguf::ModelComparison& comparison, const gguf::ComparisonResults& results, const QString& path);
QString exportComparisonJson(const gguf::ModelComparison& comparison, const gguf::ComparisonResults& results, const QString& path);
