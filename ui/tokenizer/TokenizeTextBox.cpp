#include "ui/tokenizer/TokenizeTextBox.h"

#include "core/gguf/Vocabulary.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

TokenizeTextBox::TokenizeTextBox(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QGroupBox(tr("Tokenize text"), parent), m_model(std::move(model))
{
    m_input = new QPlainTextEdit(this);
    m_input->setObjectName(QStringLiteral("tokenizeInput"));
    m_input->setPlaceholderText(tr("Type or paste text to see its token ids"));
    m_input->setEnabled(false);
    m_special = new QCheckBox(tr("Add BOS/EOS and parse special tokens (as llama-tokenize)"), this);
    m_special->setObjectName(QStringLiteral("tokenizeSpecial"));
    m_special->setChecked(true);
    m_status = new QLabel(tr("Building the tokenizer…"), this);
    m_status->setObjectName(QStringLiteral("tokenizeStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    m_ids = new QPlainTextEdit(this);
    m_ids->setObjectName(QStringLiteral("tokenizeIds"));
    m_ids->setReadOnly(true);
    m_ids->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_ids->setMaximumHeight(fontMetrics().height() * 4);
    m_pieces = new QTableWidget(0, 2, this);
    m_pieces->setObjectName(QStringLiteral("tokenizePieces"));
    m_pieces->setHorizontalHeaderLabels({tr("Id"), tr("Piece")});
    m_pieces->verticalHeader()->hide();
    m_pieces->horizontalHeader()->setStretchLastSection(true);
    m_pieces->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_pieces->setWordWrap(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_input, 1);
    layout->addWidget(m_special);
    layout->addWidget(m_status);
    layout->addWidget(m_ids);
    layout->addWidget(m_pieces, 2);

    m_delay = new QTimer(this);
    m_delay->setSingleShot(true);
    m_delay->setInterval(kEncodeDelayMs);
    const auto edited = [this] {
        m_encoding.renew();  // the running result is outdated
        m_delay->start();
    };
    connect(m_input, &QPlainTextEdit::textChanged, this, edited);
    connect(m_special, &QCheckBox::toggled, this, edited);
    connect(m_delay, &QTimer::timeout, this, &TokenizeTextBox::startEncoding);

    // Reading the vocabulary touches the mapped file: never on the GUI thread.
    m_building.run(
        [model = m_model](const JobControl&) -> gguf::Result<gguf::Tokenizer> {
            auto built = gguf::Tokenizer::fromModel(*model);
            if (!built)  // the message alone: the box names no file
                return gguf::Error{built.error().message, gguf::Error::kNoOffset, {}};
            return std::move(built.value());
        },
        [this](gguf::Tokenizer tokenizer) { buildDone(std::move(tokenizer)); },
        [this](const JobOutcome& outcome) {
            m_status->setText(tr("Cannot tokenize text: %1").arg(outcome.message()));
            emit tokenizerFailed(outcome.message());
        });
}

void TokenizeTextBox::buildDone(gguf::Tokenizer tokenizer)
{
    m_tokenizer = std::move(tokenizer);
    m_input->setEnabled(true);
    m_status->setText(QString::fromStdString(m_tokenizer->description()));
    emit tokenizerReady();
    if (!m_input->toPlainText().isEmpty())
        startEncoding();
}

void TokenizeTextBox::startEncoding()
{
    if (!m_tokenizer)
        return;  // buildDone() encodes what was typed meanwhile
    const std::string text = m_input->toPlainText().toStdString();
    const bool special = m_special->isChecked();
    m_encoding.run(
        [tokenizer = *m_tokenizer, text, special](const JobControl&) -> gguf::Result<EncodeResult> {
        EncodeResult result;
        result.ids = tokenizer.encode(text, special, special);
        const std::size_t shown = std::min<std::size_t>(result.ids.size(), kMaxPieceRows);
        result.pieces.reserve(shown);
        for (std::size_t i = 0; i < shown; ++i)
            result.pieces.push_back(QString::fromStdString(gguf::tokenDisplayText(tokenizer.piece(result.ids[i]))));
        return result;
    },
        [this](EncodeResult result) { encodingDone(std::move(result)); });
}

void TokenizeTextBox::encodingDone(EncodeResult result)
{
    QStringList ids;
    ids.reserve(static_cast<qsizetype>(result.ids.size()));
    for (const std::int32_t id : result.ids)
        ids.append(QString::number(id));
    m_ids->setPlainText(ids.join(QLatin1Char(' ')));
    m_pieces->setRowCount(static_cast<int>(result.pieces.size()));
    for (int row = 0; row < static_cast<int>(result.pieces.size()); ++row) {
        m_pieces->setItem(row, 0, new QTableWidgetItem(QString::number(result.ids[static_cast<std::size_t>(row)])));
        m_pieces->setItem(row, 1, new QTableWidgetItem(result.pieces[static_cast<std::size_t>(row)]));
    }
    const QString count = result.ids.size() == 1 ? tr("1 token") : tr("%1 tokens").arg(result.ids.size());
    m_status->setText(result.ids.size() > result.pieces.size()
                          ? tr("%1; the first %2 are listed").arg(count).arg(result.pieces.size())
                          : count);
    m_shownIds = std::move(result.ids);
    emit tokenized();
}
