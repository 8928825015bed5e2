#include "ui/shell/FindEverywhere.h"

#include "ui/session/FindResultsModel.h"

#include <QLineEdit>
#include <QStyledItemDelegate>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

namespace {
constexpr int kDebounceMs = 200;

// Group rows ("Tensors (12)") in bold above their hits.
class GroupRowDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->font.setBold(index.data(FindResultsModel::GroupRowRole).toBool());
    }
};
}  // namespace

FindEverywhereDialog::FindEverywhereDialog(std::shared_ptr<const gguf::Model> model, QStringList pages, QWidget* parent)
    : QDialog(parent), m_model(std::move(model)), m_pages(std::move(pages)), m_edit(new QLineEdit(this)), m_found(new FindResultsModel(this)),
      m_view(new QTreeView(this)), m_debounce(new QTimer(this))
{
    setWindowTitle(tr("Find Everywhere"));
    m_edit->setObjectName(QStringLiteral("findEverywhereEdit"));
    m_edit->setPlaceholderText(tr("Pages, metadata keys and values, tensors, tokens"));
    m_edit->setClearButtonEnabled(true);
    m_view->setObjectName(QStringLiteral("findEverywhereResults"));
    m_view->setModel(m_found);
    m_view->setItemDelegate(new GroupRowDelegate(m_view));
    m_view->setHeaderHidden(true);
    m_view->setRootIsDecorated(true);
    m_view->setUniformRowHeights(true);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Every group opens as it arrives (the tokens' after the others).
    connect(m_found, &QAbstractItemModel::modelReset, m_view, &QTreeView::expandAll);
    connect(m_found, &QAbstractItemModel::rowsInserted, m_view, [this](const QModelIndex& under, int first) {
        if (!under.isValid())
            m_view->expand(m_found->index(first, 0));
    });
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_edit, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_debounce, &QTimer::timeout, this, [this]() { search(m_edit->text()); });
    // Enter in the field takes the first result.
    connect(m_edit, &QLineEdit::returnPressed, this, [this]() { activate(m_found->firstHit()); });
    connect(m_view, &QTreeView::activated, this, &FindEverywhereDialog::activate);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_edit);
    layout->addWidget(m_view, 1);
    resize(640, 480);
}

void FindEverywhereDialog::activate(const QModelIndex& index)
{
    FindKind kind = FindKind::Page;
    const FindHit* found = m_found->hit(index, &kind);
    if (!found)
        return;  // a group row, or "… more"
    emit chosen(static_cast<int>(kind), found->name, found->index);
    accept();
}

QModelIndex FindEverywhereDialog::group(Kind kind) const
{
    return m_found->groupIndex(kind);
}

void FindEverywhereDialog::search(const QString& text)
{
    m_debounce->stop();
    m_tokenJobs.cancel();
    m_tokenJobs.renew();
    const QString needle = text.trimmed();
    m_found->setGroups(needle.isEmpty() || !m_model ? std::vector<FindGroup>{} : findInModel(*m_model, m_pages, needle));
    if (!needle.isEmpty() && m_model)
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
        [model = m_model, vocabulary = m_vocabulary, needle](const JobControl& control) -> gguf::Result<std::pair<std::shared_ptr<const gguf::Vocabulary>, FindGroup>> {
            std::shared_ptr<const gguf::Vocabulary> built = vocabulary;
            if (!built) {
                auto made = gguf::Vocabulary::build(model, control.cancelFlag());
                if (!made)
                    return made.error();
                built = std::make_shared<const gguf::Vocabulary>(std::move(*made));
            }
            FindGroup tokens = findTokens(*built, needle, control.cancelFlag());
            return std::make_pair(std::move(built), std::move(tokens));
        },
        [this](std::pair<std::shared_ptr<const gguf::Vocabulary>, FindGroup> found) {
            m_vocabulary = std::move(found.first);
            if (found.second.total > 0)
                m_found->addGroup(std::move(found.second));
            emit tokensSearched();
        },
        [this](const JobOutcome&) { emit tokensSearched(); });
}
