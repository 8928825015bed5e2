#pragma once
#include <QString>

// The bundled sample model (a small Mixtral-style MoE model), installed or in the source tree;
// empty when neither is present.
QString findSampleModel();
