#include "ui/shell/ThemeChoice.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QSettings>
#include <QStyle>
#include <utility>

namespace {
constexpr const char* kThemeKey = "view/theme";

// The palette the app started with: what "System" goes back to.
const QPalette& systemPalette()
{
    static const QPalette palette = QApplication::palette();
    return palette;
}
}  // namespace

Theme savedTheme()
{
    const QString saved = QSettings().value(kThemeKey).toString();
    if (saved == QLatin1String("dark"))
        return Theme::Dark;
    if (saved == QLatin1String("light"))
        return Theme::Light;
    return Theme::System;
}

bool paletteIsDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

QPalette darkThemePalette()
{
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x27, 0x27, 0x27));
    dark.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3a, 0x3a));
    dark.setColor(QPalette::ToolTipText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    dark.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xb3));
    dark.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
    dark.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    dark.setColor(QPalette::Light, QColor(0x45, 0x45, 0x45));
    dark.setColor(QPalette::Midlight, QColor(0x3a, 0x3a, 0x3a));
    dark.setColor(QPalette::Mid, QColor(0x30, 0x30, 0x30));
    dark.setColor(QPalette::Dark, QColor(0x1a, 0x1a, 0x1a));
    dark.setColor(QPalette::Shadow, QColor(0x10, 0x10, 0x10));
    for (const QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        dark.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
    return dark;
}

QPalette lightThemePalette()
{
    // The style's own light palette (a desktop in dark mode gives the app a dark one).
    return QApplication::style()->standardPalette();
}

void applyTheme(Theme theme, bool remember)
{
    systemPalette();  // taken before the first change
    if (remember)
        QSettings().setValue(kThemeKey, theme == Theme::Dark ? QStringLiteral("dark") : theme == Theme::Light ? QStringLiteral("light") : QStringLiteral("system"));
    switch (theme) {
    case Theme::System: QApplication::setPalette(systemPalette()); break;
    case Theme::Light: QApplication::setPalette(lightThemePalette()); break;
    case Theme::Dark: QApplication::setPalette(darkThemePalette()); break;
    }
}

QMenu* createThemeMenu(QWidget* parent)
{
    auto* menu = new QMenu(QApplication::translate("ThemeChoice", "&Theme"), parent);
    menu->setObjectName(QStringLiteral("themeMenu"));
    auto* group = new QActionGroup(menu);
    const Theme current = savedTheme();
    const std::pair<Theme, QString> choices[] = {{Theme::System, QApplication::translate("ThemeChoice", "&System")},
                                                 {Theme::Light, QApplication::translate("ThemeChoice", "&Light")},
                                                 {Theme::Dark, QApplication::translate("ThemeChoice", "&Dark")}};
    for (const auto& [theme, text] : choices) {
        QAction* action = menu->addAction(text);
        action->setCheckable(true);
        action->setChecked(theme == current);
        action->setData(static_cast<int>(theme));
        group->addAction(action);
        QObject::connect(action, &QAction::triggered, menu, [theme = theme]() { applyTheme(theme); });
    }
    return menu;
}
