#pragma once
// The search box of a page, for Ctrl+F: a page marks its filter or search field, and the window
// focuses the one of the page in view (the Metadata page's key filter, the Tokenizer's search, a
// comparison's tensor filter), switching to the page's tab that holds it if need be.

class QLineEdit;
class QWidget;

void markPageSearch(QLineEdit* field);
// The marked field under `page`: one on screen first, else any (its tab is not the current one);
// null when the page has none.
QLineEdit* pageSearchIn(QWidget* page);
// Makes the tabs between `page` and `field` show it, then focuses it with its text selected.
void focusPageSearch(QLineEdit* field, QWidget* page);
