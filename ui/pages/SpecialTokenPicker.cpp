#include "pages/SpecialTokenPicker.h"

#include "session/BackgroundJob.h"
#include "session/TokenTableModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

SpecialTokenPicker::SpecialTokenPicker(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_model(std::move(model)), m_tokens(new TokenTableModel(this)), m_search(new QLineEdit(this)),
      m_view(new QTableView(this)), m_status(new QLabel(tr("Indexing the vocabulary…"), this)), m_delay(new QTimer(this))
{
    m_search->setObjectName(QStringLiteral("tokenPickerSearch"));
    m_search->setPlaceholderText(tr("Search tokens to pick one (e.g. </s>, <|eot_id|>)"));
    m_search->setClearButtonEnabled(true);
    m_search->setEnabled(false);
    m_view->setObjectName(QStringLiteral("tokenPickerView"));
    m_view->setModel(m_tokens);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_delay->setSingleShot(true);
    m_delay->setInterval(kSearchDelayMs);
    connect(m_search, &QLineEdit::textChanged, m_delay, qOverload<>(&QTimer::start));
    connect(m_delay, &QTimer::timeout, this, &SpecialTokenPicker::search);
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) { pickRow(index.row()); });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_search);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);

    auto built = std::make_shared<std::shared_ptr<const gguf::Vocabulary>>();
    auto* job = new BackgroundJob(1, [model = m_model, built](int, const std::atomic<bool>& cancelled) -> gguf::Status {
        auto vocabulary = gguf::Vocabulary::build(model, &cancelled);
        if (!vocabulary)
            return vocabulary.error();
        *built = std::make_shared<const gguf::Vocabulary>(std::move(vocabulary.value()));
        return gguf::Ok{};
    }, this);
    connect(job, &BackgroundJob::finished, this, [this, job, built](const JobOutcome& outcome) {
        job->deleteLater();
        if (!outcome.isDone()) {
            m_status->setText(tr("The vocabulary cannot be read: %1").arg(outcome.message()));
            return;
        }
        m_vocabulary = *built;
        m_tokens->setVocabulary(m_vocabulary);
        m_search->setEnabled(true);
        m_status->setText(tr("%n token(s); double-click one to use its id", nullptr, static_cast<int>(m_vocabulary->size())));
        emit ready();
    });
}

void SpecialTokenPicker::search()
{
    if (!m_vocabulary)
        return;
    const QString text = m_search->text();
    if (m_searchJob)
        m_searchJob->cancel();
    if (text.isEmpty()) {
        m_tokens->showAll();
        emit searchFinished(m_tokens->rowCount());
        return;
    }
    const quint64 generation = ++m_generation;
    auto ids = std::make_shared<std::vector<std::uint32_t>>();
    const std::string needle = text.toUtf8().toStdString();
    auto* job = new BackgroundJob(1, [vocabulary = m_vocabulary, ids, needle](int, const std::atomic<bool>& cancelled) -> gguf::Status {
        *ids = vocabulary->matchingIds([&](std::string_view shown) { return shown.find(needle) != std::string_view::npos; }, &cancelled);
        return gguf::Ok{};
    }, this);
    m_searchJob = job;
    connect(job, &BackgroundJob::finished, this, [this, job, ids, generation](const JobOutcome& outcome) {
        job->deleteLater();
        if (generation != m_generation || !outcome.isDone())
            return;  // a newer search replaced this one
        m_tokens->setMatches(std::move(*ids));
        emit searchFinished(m_tokens->rowCount());
    });
}

void SpecialTokenPicker::pickRow(int row)
{
    if (row < 0 || row >= m_tokens->rowCount())
        return;
    emit tokenPicked(m_tokens->tokenId(row));
}
