#pragma once
// The title an exported Experts-page chart carries: what it shows (statistic, tensor, expert,
// types) and of which model, so the image says what it is away from the window.

#include "core/gguf/Model.h"

#include <QString>

// "<what> — <model>" where the model is its general.name and file name ("Tiny MoE, tiny-moe-F16.gguf").
QString expertChartTitle(const gguf::Model* model, const QString& what);
// "blk.3.ffn_down_exps.weight" as a QString.
QString expertTensorName(const gguf::TensorInfo& tensor);
