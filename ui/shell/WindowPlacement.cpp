#include "ui/shell/WindowPlacement.h"

#include <algorithm>

QRect clampedToScreen(const QRect& frame, const QRect& available)
{
    if (available.isEmpty() || available.contains(frame))
        return frame;
    QRect clamped = frame;
    clamped.setWidth(std::min(frame.width(), available.width()));
    clamped.setHeight(std::min(frame.height(), available.height()));
    clamped.moveLeft(std::clamp(clamped.left(), available.left(), available.right() - clamped.width() + 1));
    clamped.moveTop(std::clamp(clamped.top(), available.top(), available.bottom() - clamped.height() + 1));
    return clamped;
}
