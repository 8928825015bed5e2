#pragma once
// The measured figures a window holds, for a model report (core/report/ModelReport.h): a table
// model the pages show (a comparison's totals, for one) read as the report's plain table, cell
// for cell as the page displays it, so the report says what the window says.

#include "core/report/ModelReport.h"

#include <QString>

class QAbstractItemModel;

// Every row and column of `model` (DisplayRole text, header titles as column names; those of
// `headers` when given: a totals model has none of its own, it lines up under its table's).
gguf::ReportTable reportTableOf(const QAbstractItemModel& model, const QString& title, const QString& note = {},
                                const QAbstractItemModel* headers = nullptr);
