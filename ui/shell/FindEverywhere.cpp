#include "ui/shell/FindEverywhere.h"

#include "core/edit/ValueText.h"

#include <QLineEdit>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {
constexpr int kDebounceMs = 200;
constexpr int kKindRole = Qt::UserRole + 1;
constexpr int kNameRole = Qt::UserRole + 2;
constexpr int kIndexRole = Qt::UserRole + 3;
constexpr int kGroupRole = Qt::UserRole + 4;  // a group row: its Kind + 1
// Longer arrays (the token list itself) are matched by key only: their text is the Tokens kind.
constexpr std::uint64_t kSearchedArrayElements = 64;
constexpr int kShownValueCharacters = 80;

QString fromView(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// The tokens whose text holds `needle` (case-insensitive), the first `limit` of them, and how many
// there are in all.
struct TokenMatches {
    std::vector<std::uint32_t> ids;
    std::size_t total = 0;
};
}  // namespace

FindEverywhereDialog::FindEverywhereDialog(std::shared_ptr<const gguf::Model> model, QStringList pages, QWidget* parent)
    : QDialog(parent), m_model(std::move(model)), m_pages(std::move(pages)), m_edit(new QLineEdit(this)), m_results(new QTreeWidget(this)),
      m_debounce(new QTimer(this))
{
    setWindowTitle(tr("Find Everywhere"));
    m_edit->setObjectName(QStringLiteral("findEverywhereEdit"));
    m_edit->setPlaceholderText(tr("Pages, metadata keys and values, tensors, tokens"));
    m_edit->setClearButtonEnabled(true);
    m_results->setObjectName(QStringLiteral("findEverywhereResults"));
    m_results->setHeaderHidden(true);
    m_results->setRootIsDecorated(true);
    m_results->setUniformRowHeights(true);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_edit, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_debounce, &QTimer::timeout, this, [this]() { search(m_edit->text()); });
    // Enter in the field takes the first result.
    connect(m_edit, &QLineEdit::returnPressed, this, [this]() {
        for (int g = 0; g < m_results->topLevelItemCount(); ++g)
            if (m_results->topLevelItem(g)->childCount() > 0) {
                activate(m_results->topLevelItem(g)->child(0));
                return;
            }
    });
    connect(m_results, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) { activate(item); });
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_edit);
    layout->addWidget(m_results, 1);
    resize(640, 480);
}

void FindEverywhereDialog::activate(QTreeWidgetItem* item)
{
    if (!item || !item->data(0, kKindRole).isValid())
        return;  // a group row, or "… more"
    emit chosen(item->data(0, kKindRole).toInt(), item->data(0, kNameRole).toString(), item->data(0, kIndexRole).toInt());
    accept();
}

QTreeWidgetItem* FindEverywhereDialog::group(Kind kind) const
{
    for (int g = 0; g < m_results->topLevelItemCount(); ++g)
        if (m_results->topLevelItem(g)->data(0, kGroupRole).toInt() == static_cast<int>(kind) + 1)
            return m_results->topLevelItem(g);
    return nullptr;
}

QTreeWidgetItem* FindEverywhereDialog::addGroup(Kind kind, const QString& title, int matches)
{
    auto* item = new QTreeWidgetItem(m_results, {tr("%1 (%2)").arg(title).arg(matches)});
    item->setData(0, kGroupRole, static_cast<int>(kind) + 1);
    QFont bold = item->font(0);
    bold.setBold(true);
    item->setFont(0, bold);
    item->setExpanded(true);
    return item;
}

void FindEverywhereDialog::addResult(QTreeWidgetItem* group, Kind kind, const QString& text, const QString& name, int index)
{
    auto* item = new QTreeWidgetItem(group, {text});
    item->setData(0, kKindRole, static_cast<int>(kind));
    item->setData(0, kNameRole, name);
    item->setData(0, kIndexRole, index);
    item->setToolTip(0, text);
}

void FindEverywhereDialog::search(const QString& text)
{
    m_debounce->stop();
    m_tokenJobs.cancel();
    m_tokenJobs.renew();
    m_results->clear();
    const QString needle = text.trimmed();
    if (needle.isEmpty() || !m_model)
        return;
    const auto contains = [&needle](const QString& haystack) { return haystack.contains(needle, Qt::CaseInsensitive); };
    const auto more = [](QTreeWidgetItem* group, int shown, int all) {
        if (all > shown)
            new QTreeWidgetItem(group, {FindEverywhereDialog::tr("… and %1 more").arg(all - shown)});
    };

    QList<int> pages;
    for (int i = 0; i < m_pages.size(); ++i)
        if (contains(m_pages[i]))
            pages << i;
    if (!pages.isEmpty()) {
        QTreeWidgetItem* group = addGroup(Kind::Page, tr("Pages"), static_cast<int>(pages.size()));
        for (const int i : pages)
            addResult(group, Kind::Page, m_pages[i], m_pages[i], i);
    }

    QStringList keys;
    QStringList shown;
    for (const gguf::MetadataEntry& entry : m_model->metadata()) {
        const QString key = fromView(entry.key);
        const bool small = !entry.value.isArray() || entry.value.arrayLength() <= kSearchedArrayElements;
        const QString value = small ? QString::fromStdString(gguf::valueAsText(entry.value)) : QString();
        if (!contains(key) && !contains(value))
            continue;
        keys << key;
        if (shown.size() < kShownPerKind) {
            const QString brief = value.size() > kShownValueCharacters ? value.left(kShownValueCharacters) + QStringLiteral("…") : value;
            shown << (brief.isEmpty() ? key : QStringLiteral("%1 = %2").arg(key, brief));
        }
    }
    if (!keys.isEmpty()) {
        QTreeWidgetItem* group = addGroup(Kind::Metadata, tr("Metadata"), static_cast<int>(keys.size()));
        for (qsizetype i = 0; i < shown.size(); ++i)
            addResult(group, Kind::Metadata, shown[i], keys[i], static_cast<int>(i));
        more(group, static_cast<int>(shown.size()), static_cast<int>(keys.size()));
    }

    QList<int> tensors;
    const auto& all = m_model->tensors();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (contains(fromView(all[i].name)))
            tensors << static_cast<int>(i);
    if (!tensors.isEmpty()) {
        QTreeWidgetItem* group = addGroup(Kind::Tensor, tr("Tensors"), static_cast<int>(tensors.size()));
        for (qsizetype i = 0; i < tensors.size() && i < kShownPerKind; ++i) {
            const QString name = fromView(all[static_cast<std::size_t>(tensors[i])].name);
            addResult(group, Kind::Tensor, name, name, tensors[i]);
        }
        more(group, std::min(static_cast<int>(tensors.size()), kShownPerKind), static_cast<int>(tensors.size()));
    }
    searchTokens(needle);
}

void FindEverywhereDialog::searchTokens(const QString& text)
{
    if (!gguf::Vocabulary::hasTokens(*m_model)) {
        emit tokensSearched();
        return;
    }
    const std::string needle = text.toLower().toStdString();
    m_tokenJobs.run(
        [model = m_model, vocabulary = m_vocabulary, needle](const JobControl& control) -> gguf::Result<std::pair<std::shared_ptr<const gguf::Vocabulary>, TokenMatches>> {
            std::shared_ptr<const gguf::Vocabulary> built = vocabulary;
            if (!built) {
                auto made = gguf::Vocabulary::build(model, control.cancelFlag());
                if (!made)
                    return made.error();
                built = std::make_shared<const gguf::Vocabulary>(std::move(*made));
            }
            TokenMatches matches;
            const std::vector<std::uint32_t> ids = built->matchingIds(
                [&needle](std::string_view display) { return QString::fromUtf8(display.data(), static_cast<qsizetype>(display.size())).toLower().toStdString().find(needle) != std::string::npos; },
                control.cancelFlag());
            matches.total = ids.size();
            matches.ids.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(ids.size(), kShownPerKind)));
            return std::make_pair(std::move(built), std::move(matches));
        },
        [this](std::pair<std::shared_ptr<const gguf::Vocabulary>, TokenMatches> found) {
            m_vocabulary = std::move(found.first);
            const TokenMatches& matches = found.second;
            if (matches.total > 0) {
                QTreeWidgetItem* group = addGroup(Kind::Token, tr("Tokens"), static_cast<int>(matches.total));
                for (const std::uint32_t id : matches.ids)
                    addResult(group, Kind::Token, tr("%1: %2").arg(id).arg(QString::fromStdString(m_vocabulary->displayText(id))), QString::number(id),
                              static_cast<int>(id));
                if (matches.total > matches.ids.size())
                    new QTreeWidgetItem(group, {tr("… and %1 more").arg(matches.total - matches.ids.size())});
            }
            emit tokensSearched();
        },
        [this](const JobOutcome&) { emit tokensSearched(); });
}
