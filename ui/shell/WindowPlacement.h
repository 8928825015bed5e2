#pragma once
// Where a restored window may go: a geometry saved on a bigger screen (or another monitor) must
// come back inside the screen the window is on now, not hang off its edges.

#include <QRect>

// `frame` (the window including its frame) shrunk to fit `available` and moved inside it.
// A frame that already fits is returned unchanged.
QRect clampedToScreen(const QRect& frame, const QRect& available);
