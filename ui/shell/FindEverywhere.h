#pragma once
// View › Find Everywhere (Ctrl+K): one search over the open model's pages, metadata keys and
// values, tensor names and tokens, the results grouped by kind. Choosing a result goes there:
// the page, the key in the Metadata page's filter, the tensor on the Tensors page, the token
// in the Tokenizer's search. Pages, keys and tensors are matched at once (they are in memory);
// tokens (151,936 of them in a Qwen vocabulary) are indexed and matched in an Interactive job.

#include "core/gguf/Model.h"
#include "core/gguf/Vocabulary.h"
#include "ui/session/JobRunner.h"

#include <QDialog>
#include <QStringList>
#include <memory>

class QLineEdit;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

class FindEverywhereDialog : public QDialog {
    Q_OBJECT
public:
    enum class Kind { Page, Metadata, Tensor, Token };
    static constexpr int kShownPerKind = 50;

    // `pages`: the model page's tab names, in order.
    FindEverywhereDialog(std::shared_ptr<const gguf::Model> model, QStringList pages, QWidget* parent = nullptr);

    // As typed (the debounce skipped): the in-memory kinds at once, the tokens when their job ends.
    void search(const QString& text);
    // Goes to the result `item` (what a double-click or Enter on it does).
    void activate(QTreeWidgetItem* item);
    QLineEdit* searchField() const { return m_edit; }
    QTreeWidget* results() const { return m_results; }
    // The group of `kind`, null when nothing of that kind matched.
    QTreeWidgetItem* group(Kind kind) const;

signals:
    // A result was chosen (`kind` a Kind): a page (its index), a key (its name), a tensor (its
    // index in Model::tensors()) or a token (its id).
    void chosen(int kind, const QString& name, int index);
    void tokensSearched();

private:
    QTreeWidgetItem* addGroup(Kind kind, const QString& title, int matches);
    void addResult(QTreeWidgetItem* group, Kind kind, const QString& text, const QString& name, int index);
    void searchTokens(const QString& text);

    std::shared_ptr<const gguf::Model> m_model;
    QStringList m_pages;
    QLineEdit* m_edit;
    QTreeWidget* m_results;
    QTimer* m_debounce;
    std::shared_ptr<const gguf::Vocabulary> m_vocabulary;
    JobRunner m_tokenJobs{this, JobPriority::Interactive};
};
