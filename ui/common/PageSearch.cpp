#include "ui/common/PageSearch.h"

#include <QLineEdit>
#include <QStackedWidget>
#include <QTabWidget>
#include <QWidget>

namespace {
constexpr const char* kPageSearchProperty = "ggufxPageSearch";
}

void markPageSearch(QLineEdit* field)
{
    field->setProperty(kPageSearchProperty, true);
}

QLineEdit* pageSearchIn(QWidget* page)
{
    if (!page)
        return nullptr;
    QLineEdit* hidden = nullptr;
    for (QLineEdit* field : page->findChildren<QLineEdit*>()) {
        if (!field->property(kPageSearchProperty).toBool())
            continue;
        if (field->isVisibleTo(page))
            return field;
        if (!hidden)
            hidden = field;
    }
    return hidden;
}

void focusPageSearch(QLineEdit* field, QWidget* page)
{
    // From the field up to the page, every tab widget on the way shows the tab that holds it.
    for (QWidget* child = field; child && child != page; child = child->parentWidget()) {
        auto* stack = qobject_cast<QStackedWidget*>(child->parentWidget());
        if (!stack)
            continue;
        if (auto* tabs = qobject_cast<QTabWidget*>(stack->parentWidget()))
            tabs->setCurrentWidget(child);
        else
            stack->setCurrentWidget(child);
    }
    field->setFocus(Qt::ShortcutFocusReason);
    field->selectAll();
}
