#pragma once
// View › Theme: System (the colour scheme the desktop gave the app when it started), Light or
// Dark, kept in the settings and applied at start. A theme is an application palette; plots
// follow it (PlotPalette.h) and keep their meaning: quant-type colours, the colour scales and
// the diverging scale's zero stay what they are, only backgrounds, axes and text change.

#include <QPalette>
#include <QString>

class QMenu;
class QWidget;

enum class Theme { System, Light, Dark };

Theme savedTheme();
// Sets the application palette for `theme` and, with `remember`, keeps the choice.
void applyTheme(Theme theme, bool remember = true);
// Whether the application palette reads as dark (light text on a dark window).
bool paletteIsDark(const QPalette& palette);
QPalette darkThemePalette();
QPalette lightThemePalette();
// The Theme submenu: one checkable action per theme, the current one checked.
QMenu* createThemeMenu(QWidget* parent);
