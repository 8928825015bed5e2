#pragma once
// "Tokenize text" on the Tokenizer page: text typed here is encoded with the model's own
// tokenizer (core/tokenize) and shown as ids and pieces. The tokenizer is built on the job
// pool when the box is created; each edit is encoded there 300 ms after the last keystroke, a
// newer edit making the older result stale. A file whose tokenizer is not supported
// says so in the box, the rest of the page is unaffected.

#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"
#include "core/tokenize/Tokenizer.h"

#include <QGroupBox>
#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QTableWidget;
class QTimer;

class TokenizeTextBox : public QGroupBox {
    Q_OBJECT
public:
    static constexpr int kEncodeDelayMs = 300;
    static constexpr int kMaxPieceRows = 5000;  // the id line always has every id

    explicit TokenizeTextBox(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    bool isReady() const { return m_tokenizer.has_value(); }
    const std::vector<std::int32_t>& shownIds() const { return m_shownIds; }

signals:
    void tokenizerReady();
    void tokenizerFailed(const QString& error);
    void tokenized();  // after each result reached the box

private:
    struct EncodeResult {
        std::vector<std::int32_t> ids;
        std::vector<QString> pieces;  // display text, as the token table shows it
    };

    void buildDone(gguf::Tokenizer tokenizer);
    void startEncoding();
    void encodingDone(EncodeResult result);

    std::shared_ptr<const gguf::Model> m_model;
    std::optional<gguf::Tokenizer> m_tokenizer;
    std::vector<std::int32_t> m_shownIds;
    QPlainTextEdit* m_input = nullptr;
    QCheckBox* m_special = nullptr;
    QLabel* m_status = nullptr;
    QPlainTextEdit* m_ids = nullptr;
    QTableWidget* m_pieces = nullptr;
    QTimer* m_delay = nullptr;
    JobRunner m_building{this, JobPriority::Interactive};
    JobRunner m_encoding{this, JobPriority::Interactive};
};
