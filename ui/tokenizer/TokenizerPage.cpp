#include "ui/tokenizer/TokenizerPage.h"
#include "ui/common/PageSearch.h"

#include "ui/tokenizer/TokenQuery.h"
#include "ui/tokenizer/TokenizeTextBox.h"

#include "core/base/HumanFormat.h"
#include "ui/session/TokenTableModel.h"
#include "core/gguf/Vocabulary.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace {

constexpr const char* kChatTemplateKey = "tokenizer.chat_template";
// In the order Vocabulary::specialTokens() uses; the first six are listed even when not set.
constexpr const char* kSpecialTokenRoles[] = {"bos", "eos", "eot", "eom", "unk", "pad", "sep", "cls", "mask"};
constexpr std::string_view kAlwaysListedRoles[] = {"bos", "eos", "eot", "unk", "pad", "sep"};

QString grouped(std::uint64_t number)
{
    return QString::fromStdString(gguf::formatGrouped(number));
}

QString flagText(const gguf::Model& model, std::string_view key)
{
    const gguf::MetadataEntry* entry = model.findMetadata(key);
    const auto value = entry ? entry->value.toBool() : std::nullopt;
    return value ? (*value ? TokenizerPage::tr("yes") : TokenizerPage::tr("no")) : TokenizerPage::tr("not set");
}

QLabel* selectableLabel(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setTextFormat(Qt::PlainText);  // metadata strings are file content, never markup
    return label;
}

}  // namespace

TokenizerPage::TokenizerPage(std::shared_ptr<const gguf::Model> model, QWidget* parent) : QWidget(parent), m_model(std::move(model))
{
    auto* layout = new QVBoxLayout(this);
    if (!m_model || !gguf::Vocabulary::hasTokens(*m_model)) {
        auto* message = new QLabel(tr("This file has no tokenizer."), this);
        message->setObjectName(QStringLiteral("noTokenizerLabel"));
        message->setAlignment(Qt::AlignCenter);
        layout->addWidget(message);
        return;
    }
    m_tokens = new TokenTableModel(this);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(createTablePane());
    splitter->addWidget(createSummaryPane());
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter);
    startIndexing();
}

TokenizerPage::~TokenizerPage()
{
    // Jobs hold their own references to the model; cancelling only makes them stop early.
    m_indexing.cancel();
    cancelSearch();
}

QWidget* TokenizerPage::createTablePane()
{
    auto* pane = new QWidget(this);
    m_search = new QLineEdit(pane);
    m_search->setObjectName(QStringLiteral("tokenSearch"));
    markPageSearch(m_search);
    m_search->setPlaceholderText(tr("Search tokens (text or id)"));
    m_search->setToolTip(tr("Matches the token's text, not its escaped display: type \\n, \\t, \\xHH or \\u{…} for the characters "
                            "the table shows escaped. A number also finds the token with that id."));
    m_search->setClearButtonEnabled(true);
    m_regex = new QCheckBox(tr("Regular expression"), pane);
    m_regex->setObjectName(QStringLiteral("tokenSearchRegex"));
    m_status = new QLabel(pane);
    m_status->setObjectName(QStringLiteral("tokenSearchStatus"));

    m_searchDelay = new QTimer(this);
    m_searchDelay->setSingleShot(true);
    m_searchDelay->setInterval(kSearchDelayMs);
    // An edit outdates the running search at once; the next one waits for a pause in typing,
    // or for Enter.
    const auto queryEdited = [this] {
        cancelSearch();
        m_searchDelay->start();
    };
    connect(m_search, &QLineEdit::textChanged, this, queryEdited);
    connect(m_regex, &QCheckBox::toggled, this, queryEdited);
    connect(m_searchDelay, &QTimer::timeout, this, &TokenizerPage::startSearch);
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        m_searchDelay->stop();
        startSearch();
    });

    m_table = new QTableView(pane);
    m_table->setObjectName(QStringLiteral("tokenTable"));
    m_table->setModel(m_tokens);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    // Fixed row heights: the view never measures 256k rows.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    const int character = fontMetrics().horizontalAdvance(QLatin1Char('0'));
    m_table->setColumnWidth(TokenTableModel::Id, character * 9);
    m_table->setColumnWidth(TokenTableModel::Text, character * 32);
    m_table->setColumnWidth(TokenTableModel::Score, character * 12);

    auto* searchRow = new QHBoxLayout;
    searchRow->addWidget(m_search, 1);
    searchRow->addWidget(m_regex);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(searchRow);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);
    return pane;
}

QWidget* TokenizerPage::createSummaryPane()
{
    const gguf::Model& model = *m_model;
    auto* pane = new QWidget(this);
    auto* summary = new QGroupBox(tr("Tokenizer"), pane);
    auto* form = new QFormLayout(summary);
    const auto addRow = [&](const QString& name, const QString& value, const char* objectName) {
        QLabel* label = selectableLabel(value, summary);
        label->setObjectName(QLatin1String(objectName));
        form->addRow(name, label);
        return label;
    };
    const std::string tokenizerModel = model.metadataString("tokenizer.ggml.model");
    addRow(tr("Model"), tokenizerModel.empty() ? tr("not set") : QString::fromStdString(tokenizerModel), "tokenizerModelValue");
    const std::string pre = model.metadataString("tokenizer.ggml.pre");
    if (!pre.empty())
        addRow(tr("Pre-tokenizer"), QString::fromStdString(pre), "preTokenizerValue");
    const gguf::MetadataEntry* tokens = model.findMetadata(gguf::Vocabulary::kTokensKey);
    addRow(tr("Tokens"), tokens->value.isArray() ? grouped(tokens->value.arrayLength()) : tr("invalid"), "tokenCountValue");
    if (const gguf::MetadataEntry* merges = model.findMetadata("tokenizer.ggml.merges"); merges && merges->value.isArray())
        addRow(tr("Merges"), grouped(merges->value.arrayLength()), "mergeCountValue");
    addRow(tr("Add BOS"), flagText(model, "tokenizer.ggml.add_bos_token"), "addBosValue");
    addRow(tr("Add EOS"), flagText(model, "tokenizer.ggml.add_eos_token"), "addEosValue");

    const std::vector<gguf::SpecialToken> special = gguf::Vocabulary::specialTokens(model);
    for (const char* role : kSpecialTokenRoles) {
        const std::string objectName = std::string(role) + "TokenValue";
        const auto token = std::find_if(special.begin(), special.end(), [role](const gguf::SpecialToken& t) { return t.role == role; });
        if (token == special.end()) {
            if (std::find(std::begin(kAlwaysListedRoles), std::end(kAlwaysListedRoles), std::string_view(role)) != std::end(kAlwaysListedRoles))
                addRow(QString::fromLatin1(role).toUpper(), tr("not set"), objectName.c_str());
            continue;
        }
        QLabel* label = addRow(QString::fromLatin1(role).toUpper(), QString::number(token->id), objectName.c_str());
        label->setToolTip(QString::fromStdString(token->key));
        m_specialTokens.push_back({token->id, label});
    }

    auto* templateBox = new QGroupBox(tr("Chat template"), pane);
    auto* templateText = new QPlainTextEdit(templateBox);
    templateText->setObjectName(QStringLiteral("chatTemplate"));
    templateText->setReadOnly(true);
    templateText->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    const gguf::MetadataEntry* chatTemplate = model.findMetadata(kChatTemplateKey);
    if (chatTemplate && chatTemplate->value.type() == gguf::ValueType::String) {
        const std::string_view text = chatTemplate->value.toStringView();
        templateText->setPlainText(QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())));
    } else {
        templateText->setPlaceholderText(tr("This file has no chat template."));
    }
    auto* templateLayout = new QVBoxLayout(templateBox);
    templateLayout->addWidget(templateText);

    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(summary);
    layout->addWidget(templateBox, 1);
    layout->addWidget(new TokenizeTextBox(m_model, pane), 2);
    return pane;
}

void TokenizerPage::startIndexing()
{
    const gguf::MetadataEntry* tokens = m_model->findMetadata(gguf::Vocabulary::kTokensKey);
    m_status->setText(tr("Indexing %1 tokens…").arg(grouped(tokens->value.isArray() ? tokens->value.arrayLength() : 0)));
    m_search->setEnabled(false);
    m_regex->setEnabled(false);

    m_indexing.run(
        [model = m_model](const JobControl& job) -> gguf::Result<std::shared_ptr<const gguf::Vocabulary>> {
            auto built = gguf::Vocabulary::build(model, job.cancelFlag());
            if (!built)
                return built.error();
            return std::make_shared<const gguf::Vocabulary>(std::move(built.value()));
        },
        [this](std::shared_ptr<const gguf::Vocabulary> vocabulary) { indexingDone(std::move(vocabulary)); },
        [this](const JobOutcome& outcome) {
            m_status->setText(tr("Cannot read the tokens: %1").arg(outcome.message()));
            emit vocabularyFailed(outcome.message());
        });
}

void TokenizerPage::indexingDone(std::shared_ptr<const gguf::Vocabulary> vocabulary)
{
    m_vocabulary = std::move(vocabulary);
    m_tokens->setVocabulary(m_vocabulary, m_model->metadataString("tokenizer.ggml.model") == "gpt2");
    m_search->setEnabled(true);
    m_regex->setEnabled(true);
    fillSpecialTokenTexts();
    showTokenCount();
    emit vocabularyReady();
    if (!m_search->text().trimmed().isEmpty())  // typed while indexing
        startSearch();
}

void TokenizerPage::fillSpecialTokenTexts()
{
    for (const SpecialTokenLabel& special : m_specialTokens) {
        const bool known = special.id >= 0 && static_cast<std::uint64_t>(special.id) < m_vocabulary->size();
        const QString text = known ? QString::fromStdString(m_vocabulary->displayText(static_cast<std::size_t>(special.id)))
                                   : tr("(not in the vocabulary)");
        special.label->setText(QStringLiteral("%1   %2").arg(special.id).arg(text));
    }
}

void TokenizerPage::showTokenCount()
{
    m_status->setText(tr("%1 tokens").arg(grouped(m_vocabulary->size())));
}

void TokenizerPage::cancelSearch()
{
    m_searching.renew();  // an outdated result must not arrive
}

void TokenizerPage::startSearch()
{
    if (!m_vocabulary)
        return;  // indexingDone() runs the search typed meanwhile
    cancelSearch();
    const QString query = m_search->text().trimmed();
    m_table->setEnabled(true);
    if (query.isEmpty()) {
        m_tokens->showAll();
        m_table->scrollToTop();
        showTokenCount();
        emit searchFinished();
        return;
    }

    std::function<bool(std::string_view)> matches;
    if (m_regex->isChecked()) {
        QRegularExpression expression(query, QRegularExpression::CaseInsensitiveOption | QRegularExpression::UseUnicodePropertiesOption);
        if (!expression.isValid()) {
            // The rows below are the previous search's; grey them out so they are not taken
            // for matches of this query.
            m_status->setText(tr("Invalid regular expression: %1 (the table shows the last valid search)").arg(expression.errorString()));
            m_table->setEnabled(false);
            return;
        }
        expression.optimize();
        matches = tokenExpressionMatcher(expression);
    } else {
        matches = tokenSubstringMatcher(query);
    }
    bool isNumber = false;
    const qulonglong number = query.toULongLong(&isNumber);
    const std::int64_t exactId = isNumber && number < m_vocabulary->size() ? static_cast<std::int64_t>(number) : -1;

    m_status->setText(tr("Searching…"));
    m_searching.run(
        [vocabulary = m_vocabulary, matches = std::move(matches), exactId](const JobControl& job) -> gguf::Result<std::vector<std::uint32_t>> {
            std::vector<std::uint32_t> ids = vocabulary->matchingTextIds(matches, job.cancelFlag());
            // The token whose id is the query comes first, then the text matches in id order.
            if (exactId >= 0) {
                const auto id = static_cast<std::uint32_t>(exactId);
                ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
                ids.insert(ids.begin(), id);
            }
            return ids;
        },
        [this](std::vector<std::uint32_t> ids) { searchDone(std::move(ids)); });
}

void TokenizerPage::searchDone(std::vector<std::uint32_t> ids)
{
    const std::size_t count = ids.size();
    m_tokens->setMatches(std::move(ids));
    m_table->scrollToTop();  // a reset keeps the scroll offset, which in the new rows means nothing
    m_status->setText(tr("%1 of %2 tokens match").arg(grouped(count), grouped(m_vocabulary->size())));
    emit searchFinished();
}
