#pragma once
// The tokenizer of one model: a searchable table of every token, the special tokens and flags,
// and the chat template. The page appears at once; the token index is built on the job pool
// and the table fills when it is ready. Searches (substring or regular expression over the
// token's text, not its escaped display (TokenQuery.h), plus the exact id when the query is a
// number) run on the job pool 300 ms after the
// last keystroke; a newer search cancels an older one and its result is dropped.

#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"

#include <QWidget>
#include <atomic>
#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;
class TokenTableModel;
namespace gguf {
class Vocabulary;
}

class TokenizerPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kSearchDelayMs = 300;

    explicit TokenizerPage(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);
    ~TokenizerPage() override;

    bool hasTokenizer() const { return m_tokens != nullptr; }
    bool isReady() const { return m_vocabulary != nullptr; }
    TokenTableModel* tokenModel() const { return m_tokens; }  // nullptr without a tokenizer

signals:
    void vocabularyReady();
    void vocabularyFailed(const QString& error);
    // After every search that reached the table (an empty query shows every token again).
    void searchFinished();

private:
    QWidget* createTablePane();
    QWidget* createSummaryPane();
    void startIndexing();
    void indexingDone(std::shared_ptr<const gguf::Vocabulary> vocabulary);
    void startSearch();
    void searchDone(std::vector<std::uint32_t> ids);
    void cancelSearch();
    void showTokenCount();
    void fillSpecialTokenTexts();

    struct SpecialTokenLabel {
        std::int64_t id;
        QLabel* label;
    };

    std::shared_ptr<const gguf::Model> m_model;
    std::shared_ptr<const gguf::Vocabulary> m_vocabulary;
    TokenTableModel* m_tokens = nullptr;
    QTableView* m_table = nullptr;
    QLineEdit* m_search = nullptr;
    QCheckBox* m_regex = nullptr;
    QLabel* m_status = nullptr;
    QTimer* m_searchDelay = nullptr;
    std::vector<SpecialTokenLabel> m_specialTokens;

    // One runner per kind of job: a newer search makes the older one stale (its result never
    // reaches the table) and cancels it.
    JobRunner m_indexing{this, JobPriority::Interactive};
    JobRunner m_searching{this, JobPriority::Interactive};  // ids to show
};
