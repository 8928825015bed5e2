#include "ui/metadata/SpecialTokenPicker.h"

#include "ui/session/TokenTableModel.h"

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

    m_building.run(
        [model = m_model](const JobControl& control) -> gguf::Result<std::shared_ptr<const gguf::Vocabulary>> {
            auto vocabulary = gguf::Vocabulary::build(model, control.cancelFlag());
            if (!vocabulary)
                return vocabulary.error();
            return std::make_shared<const gguf::Vocabulary>(std::move(vocabulary.value()));
        },
        [this](std::shared_ptr<const gguf::Vocabulary> vocabulary) {
            m_vocabulary = std::move(vocabulary);
            m_tokens->setVocabulary(m_vocabulary);
            m_search->setEnabled(true);
            m_status->setText(tr("%n token(s); double-click one to use its id", nullptr, static_cast<int>(m_vocabulary->size())));
            emit ready();
        },
        [this](const JobOutcome& outcome) { m_status->setText(tr("The vocabulary cannot be read: %1").arg(outcome.message())); });
}

void SpecialTokenPicker::search()
{
    if (!m_vocabulary)
        return;
    const QString text = m_search->text();
    if (text.isEmpty()) {
        m_searching.renew();  // a running search is outdated
        m_tokens->showAll();
        emit searchFinished(m_tokens->rowCount());
        return;
    }
    const std::string needle = text.toUtf8().toStdString();
    m_searching.run(
        [vocabulary = m_vocabulary, needle](const JobControl& control) -> gguf::Result<std::vector<std::uint32_t>> {
            return vocabulary->matchingIds([&](std::string_view shown) { return shown.find(needle) != std::string_view::npos; }, control.cancelFlag());
        },
        [this](std::vector<std::uint32_t> ids) {
            m_tokens->setMatches(std::move(ids));
            emit searchFinished(m_tokens->rowCount());
        });
}

void SpecialTokenPicker::pickRow(int row)
{
    if (row < 0 || row >= m_tokens->rowCount())
        return;
    emit tokenPicked(m_tokens->tokenId(row));
}
