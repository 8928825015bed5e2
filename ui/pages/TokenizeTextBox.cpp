#include "pages/TokenizeTextBox.h"

#include "gguf/Vocabulary.h"
#include "session/JobPool.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent>

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
        m_encoding.setFuture(QFuture<EncodeResult>());  // the running result is outdated
        m_delay->start();
    };
    connect(m_input, &QPlainTextEdit::textChanged, this, edited);
    connect(m_special, &QCheckBox::toggled, this, edited);
    connect(m_delay, &QTimer::timeout, this, &TokenizeTextBox::startEncoding);
    connect(&m_building, &QFutureWatcherBase::finished, this, &TokenizeTextBox::buildDone);
    connect(&m_encoding, &QFutureWatcherBase::finished, this, &TokenizeTextBox::encodingDone);

    // Reading the vocabulary touches the mapped file: never on the GUI thread.
    m_building.setFuture(QtConcurrent::run(jobPool(), [model = m_model]() -> BuildResult {
        yieldToGuiThread();
        auto built = gguf::Tokenizer::fromModel(*model);
        if (!built)
            return {std::nullopt, QString::fromStdString(built.error().message)};
        return {std::move(built.value()), QString()};
    }));
}

void TokenizeTextBox::buildDone()
{
    BuildResult result = m_building.result();
    if (!result.tokenizer) {
        m_status->setText(tr("Cannot tokenize text: %1").arg(result.error));
        emit tokenizerFailed(result.error);
        return;
    }
    m_tokenizer = std::move(result.tokenizer);
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
    m_encoding.setFuture(QtConcurrent::run(jobPool(), [tokenizer = *m_tokenizer, text, special] {
        yieldToGuiThread();
        EncodeResult result;
        result.ids = tokenizer.encode(text, special, special);
        const std::size_t shown = std::min<std::size_t>(result.ids.size(), kMaxPieceRows);
        result.pieces.reserve(shown);
        for (std::size_t i = 0; i < shown; ++i)
            result.pieces.push_back(QString::fromStdString(gguf::tokenDisplayText(tokenizer.piece(result.ids[i]))));
        return result;
    }));
}

void TokenizeTextBox::encodingDone()
{
    QFuture<EncodeResult> future = m_encoding.future();
    if (future.isCanceled() || future.resultCount() == 0)
        return;  // the empty future an edit detaches with
    EncodeResult result = future.takeResult();
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
