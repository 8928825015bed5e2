#pragma once
// One colour per ggml type for the recipe grid and the frontier plot: cold (blue) for few bits
// per weight through green and yellow to warm (red) for many, float types grey, so a mix's
// bumped tensors stand out at a glance. The same type always gets the same colour.

#include <QColor>
#include <cstdint>

QColor typeColor(std::uint32_t typeId);
// Black or white, whichever reads better on `background`.
QColor textColorOn(const QColor& background);
