#pragma once
// Picks a token id by searching the vocabulary, for the special-token keys
// (tokenizer.ggml.bos_token_id, ...). The vocabulary is indexed and searched on the job pool
// (TokenizerPage does the same), so a 256k-token list never blocks the window.

#include "core/gguf/Model.h"
#include "core/gguf/Vocabulary.h"
#include "ui/session/JobRunner.h"

#include <QPointer>
#include <QWidget>
#include <memory>

class QLabel;
class QLineEdit;
class QTableView;
class QTimer;
class TokenTableModel;

class SpecialTokenPicker : public QWidget {
    Q_OBJECT
public:
    static constexpr int kSearchDelayMs = 200;
    explicit SpecialTokenPicker(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    QLineEdit* searchBox() const { return m_search; }
    QTableView* view() const { return m_view; }
    TokenTableModel* tokens() const { return m_tokens; }
    bool isReady() const { return m_vocabulary != nullptr; }
    // Picks the token shown in `row` of the view (what a double-click does).
    void pickRow(int row);

signals:
    void ready();                   // the vocabulary is indexed
    void searchFinished(int matches);
    void tokenPicked(quint32 id);

private:
    void search();

    std::shared_ptr<const gguf::Model> m_model;
    std::shared_ptr<const gguf::Vocabulary> m_vocabulary;
    TokenTableModel* m_tokens;
    QLineEdit* m_search;
    QTableView* m_view;
    QLabel* m_status;
    QTimer* m_delay;
    JobRunner m_building{this, JobPriority::Interactive};   // the vocabulary
    JobRunner m_searching{this, JobPriority::Interactive};  // ids matching the search
};
