#pragma once
// View › Find Everywhere (Ctrl+K): one search over the open model's pages, metadata keys and
// values, tensor names and tokens, the results grouped by kind (ui/session/FindResults.h, shown
// through FindResultsModel). Choosing a result goes there: the page, the key in the Metadata
// page's filter, the tensor on the Tensors page, the token in the Tokenizer's search. Pages, keys
// and tensors are matched at once (they are in memory); tokens (151,936 of them in a Qwen
// vocabulary) are indexed and matched in an Interactive job.

#include "core/gguf/Model.h"
#include "core/gguf/Vocabulary.h"
#include "ui/session/FindResults.h"
#include "ui/session/JobRunner.h"

#include <QDialog>
#include <QModelIndex>
#include <QStringList>
#include <memory>

class FindResultsModel;
class QLineEdit;
class QTimer;
class QTreeView;

class FindEverywhereDialog : public QDialog {
    Q_OBJECT
public:
    using Kind = FindKind;

    // `pages`: the model page's tab names, in order.
    FindEverywhereDialog(std::shared_ptr<const gguf::Model> model, QStringList pages, QWidget* parent = nullptr);

    // As typed (the debounce skipped): the in-memory kinds at once, the tokens when their job ends.
    void search(const QString& text);
    // Goes to the result at `index` of results()' model (what a double-click or Enter on it does).
    void activate(const QModelIndex& index);
    QLineEdit* searchField() const { return m_edit; }
    QTreeView* results() const { return m_view; }
    // The group row of `kind` in results()' model, invalid when nothing of that kind matched.
    QModelIndex group(Kind kind) const;

signals:
    // A result was chosen (`kind` a Kind): a page (its index), a key (its name), a tensor (its
    // index in Model::tensors()) or a token (its id).
    void chosen(int kind, const QString& name, int index);
    void tokensSearched();

private:
    void searchTokens(const QString& text);

    std::shared_ptr<const gguf::Model> m_model;
    QStringList m_pages;
    QLineEdit* m_edit;
    FindResultsModel* m_found;
    QTreeView* m_view;
    QTimer* m_debounce;
    std::shared_ptr<const gguf::Vocabulary> m_vocabulary;
    JobRunner m_tokenJobs{this, JobPriority::Interactive};
};
