#pragma once
// The tokenizer of one model: a searchable table of every token, the special tokens and flags,
// and the chat template. The page appears at once; the token index is built on a worker thread
// and the table fills when it is ready. Searches (substring or regular expression over the text
// as shown, plus the exact id when the query is a number) run on a worker thread 300 ms after the
// last keystroke; a newer search cancels an older one and its result is dropped.
//
// QFutureWatcher rather than QFuture::then(this, ...): in Qt 6.4 a continuation attached to a
// future that has already finished runs at once, inside the caller, whereas a watcher always
// reports from the event loop.

#include "gguf/Model.h"

#include <QFutureWatcher>
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
    void indexingDone();
    void startSearch();
    void searchDone();
    void cancelSearch();
    void showTokenCount();
    void fillSpecialTokenTexts();

    struct IndexingResult {
        std::shared_ptr<const gguf::Vocabulary> vocabulary;
        QString error;
    };
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

    // One watcher per kind of job: setFuture() on a newer search detaches the older one, whose
    // result then never reaches the table; the flags make the outdated worker stop early.
    QFutureWatcher<IndexingResult> m_indexing;
    QFutureWatcher<std::vector<std::uint32_t>> m_searching;  // ids to show
    std::shared_ptr<std::atomic<bool>> m_indexingCancelled;
    std::shared_ptr<std::atomic<bool>> m_searchCancelled;
};
