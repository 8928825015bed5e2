#pragma once
// A tensor's shape as the views write it: "[4096, 14336]", ne[0] first, a scalar as "[1]".

#include "core/gguf/TensorInfo.h"

#include <QString>

QString tensorShapeText(const gguf::TensorInfo& tensor);
