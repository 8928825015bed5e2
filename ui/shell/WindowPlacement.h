#pragma once
// Where a restored window may go: a geometry saved on a bigger screen (or another monitor) must
// come back inside the screen the window is on now, not hang off its edges.

#include <QRect>

// `frame` (the window including its frame) shrunk to fit `available` and moved inside it.
// A frame that already fits is returned unchanged.
QRect clampedToScreen(const QRect& frame, const QRect& available);

class QWidget;

// Shrinks and moves `window` (a main window or a dialog, shown or not) into `available`, or into
// its screen's available geometry when `available` is empty: at QT_SCALE_FACTOR=2 a 1920×1080
// screen is 960×540, and a window sized for a big screen opened taller than it, with a dialog's
// buttons off the bottom. Before the window is shown its frame is not known yet: a title bar's
// height is kept free. The layout's minimum size still wins over the screen (nothing is cut).
void fitWindowIntoScreen(QWidget* window, QRect available = {});
