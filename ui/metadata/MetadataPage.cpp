#include "ui/metadata/MetadataPage.h"
#include "ui/common/PageSearch.h"

#include "ui/common/FileDialogs.h"
#include "ui/common/CopySelection.h"
#include "core/edit/ModelSaver.h"
#include "core/edit/ValueText.h"
#include "ui/metadata/MetadataValueEditor.h"
#include "ui/session/MetadataTreeModel.h"
#include "ui/session/TensorContradiction.h"
#include "core/write/ByteSink.h"

#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QFont>
#include <QPalette>
#include <QProgressBar>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QSortFilterProxyModel>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace {
// The key filter, which also shows what coded values stand for next to the number
// ("15 (MOSTLY_Q4_K_M)"); the tree model itself keeps the bare value in its display text.
class MetadataFilterModel : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    QVariant data(const QModelIndex& index, int role) const override
    {
        if (role == Qt::FontRole || role == Qt::ForegroundRole) {
            const auto state = static_cast<MetadataTreeModel::EditState>(QSortFilterProxyModel::data(index, MetadataTreeModel::EditStateRole).toInt());
            if (state == MetadataTreeModel::EditState::Unchanged)
                return QSortFilterProxyModel::data(index, role);
            if (role == Qt::ForegroundRole)
                return state == MetadataTreeModel::EditState::Removed ? QPalette().color(QPalette::Disabled, QPalette::Text)
                                                                      : QPalette().color(QPalette::Link);
            QFont font;
            font.setBold(state != MetadataTreeModel::EditState::Removed);
            font.setStrikeOut(state == MetadataTreeModel::EditState::Removed);
            return font;
        }
        QVariant value = QSortFilterProxyModel::data(index, role);
        if (role == Qt::ToolTipRole && index.column() == MetadataTreeModel::Key) {
            switch (static_cast<MetadataTreeModel::EditState>(QSortFilterProxyModel::data(index, MetadataTreeModel::EditStateRole).toInt())) {
            case MetadataTreeModel::EditState::Changed: return MetadataPage::tr("%1 (changed, not saved)").arg(value.toString());
            case MetadataTreeModel::EditState::Added: return MetadataPage::tr("%1 (added, not saved)").arg(value.toString());
            case MetadataTreeModel::EditState::Removed: return MetadataPage::tr("%1 (removed, not saved)").arg(value.toString());
            case MetadataTreeModel::EditState::Unchanged: break;
            }
        }
        if (role == Qt::DisplayRole && index.column() == MetadataTreeModel::Value) {
            const QVariant meaning = QSortFilterProxyModel::data(index, MetadataTreeModel::ValueMeaningRole);
            if (meaning.isValid())
                return QStringLiteral("%1 (%2)").arg(value.toString(), meaning.toString());
        }
        return value;
    }
};
// Rows with room above and below the font's own height: a token's text ("Ġthe", "Ċ") often
// comes from a fallback font that reaches higher than the primary one, and a row sized to the
// primary font cut the dot off "Ġ", so GPT-2 tokens and merges read as other text.
class RoomyRowDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        size.setHeight(std::max(size.height(), option.fontMetrics.height() * 3 / 2));
        return size;
    }
};
}  // namespace

MetadataPage::MetadataPage(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_tree(new MetadataTreeModel(this)), m_proxy(new MetadataFilterModel(this)), m_view(new QTreeView(this)),
      m_filter(new QLineEdit(this)), m_filterDelay(new QTimer(this)), m_tailCheck(new QTimer(this)), m_count(new QLabel(this)),
      m_jumpIndex(new QSpinBox(this)), m_jumpButton(new QPushButton(tr("Go to index"), this)), m_model(model),
      m_editButton(new QPushButton(tr("Edit…"), this)), m_addButton(new QPushButton(tr("Add Key…"), this)),
      m_removeButton(new QPushButton(tr("Remove"), this)), m_revertButton(new QPushButton(tr("Revert"), this)),
      m_revertAllButton(new QPushButton(tr("Revert All"), this)), m_saveButton(new QPushButton(tr("Save As…"), this)),
      m_editCount(new QLabel(this)), m_contradictions(new QLabel(this)), m_saveProgress(new QProgressBar(this))
{
    m_keyCount = model ? static_cast<int>(model->metadata().size()) : 0;
    m_tree->setModel(std::move(model));

    // Filter on the key of top-level rows only (the model gives elements no filter text), keep
    // parents of matches and, once a key matches, all of its elements.
    m_proxy->setSourceModel(m_tree);
    m_proxy->setFilterKeyColumn(MetadataTreeModel::Key);
    m_proxy->setFilterRole(MetadataTreeModel::KeyFilterRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_proxy->setAutoAcceptChildRows(true);

    m_view->setObjectName(QStringLiteral("metadataTree"));
    m_view->setModel(m_proxy);
    m_view->setUniformRowHeights(true);  // lets the view skip measuring thousands of element rows
    m_view->setItemDelegate(new RoomyRowDelegate(m_view));
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->header()->setStretchLastSection(true);
    m_view->setColumnWidth(MetadataTreeModel::Key, fontMetrics().horizontalAdvance(QLatin1Char('x')) * 42);
    m_view->setColumnWidth(MetadataTreeModel::Type, fontMetrics().horizontalAdvance(QLatin1Char('x')) * 14);

    m_filter->setObjectName(QStringLiteral("metadataFilter"));
    markPageSearch(m_filter);
    m_filter->setPlaceholderText(tr("Filter keys"));
    m_filter->setClearButtonEnabled(true);
    m_filterDelay->setSingleShot(true);
    m_filterDelay->setInterval(kFilterDelayMs);
    connect(m_filter, &QLineEdit::textChanged, m_filterDelay, qOverload<>(&QTimer::start));
    connect(m_filterDelay, &QTimer::timeout, this, &MetadataPage::applyFilter);

    m_count->setObjectName(QStringLiteral("metadataCount"));
    updateKeyCount();
    installCopyAction(m_view);

    // Checked after the view has laid out the rows a scroll, expansion or insertion brought in;
    // never from inside the model's own change signals.
    m_tailCheck->setSingleShot(true);
    m_tailCheck->setInterval(0);
    connect(m_tailCheck, &QTimer::timeout, this, &MetadataPage::fetchVisibleTails);
    // The timer is the receiver, not the page: the view's scroll bar still signals while ~QWidget
    // deletes it, when the page is no longer a MetadataPage.
    const auto checkTails = qOverload<>(&QTimer::start);
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, m_tailCheck, checkTails);
    connect(m_view->verticalScrollBar(), &QScrollBar::rangeChanged, m_tailCheck, checkTails);
    connect(m_view, &QTreeView::expanded, m_tailCheck, checkTails);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, m_tailCheck, checkTails);

    m_jumpIndex->setObjectName(QStringLiteral("metadataJumpIndex"));
    m_jumpIndex->setToolTip(tr("Element index in the selected array"));
    m_jumpButton->setObjectName(QStringLiteral("metadataJumpButton"));
    connect(m_jumpButton, &QPushButton::clicked, this, [this] { jumpToElement(currentArray(), m_jumpIndex->value()); });
    connect(m_jumpIndex, &QSpinBox::editingFinished, this, [this] {
        if (m_jumpIndex->hasFocus())
            jumpToElement(currentArray(), m_jumpIndex->value());
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &MetadataPage::updateJumpBox);
    updateJumpBox();

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_count);
    top->addWidget(m_jumpIndex);
    top->addWidget(m_jumpButton);

    m_editButton->setObjectName(QStringLiteral("metadataEditButton"));
    m_addButton->setObjectName(QStringLiteral("metadataAddButton"));
    m_removeButton->setObjectName(QStringLiteral("metadataRemoveButton"));
    m_revertButton->setObjectName(QStringLiteral("metadataRevertButton"));
    m_revertAllButton->setObjectName(QStringLiteral("metadataRevertAllButton"));
    m_saveButton->setObjectName(QStringLiteral("metadataSaveAsButton"));
    m_editCount->setObjectName(QStringLiteral("metadataEditCount"));
    m_contradictions->setObjectName(QStringLiteral("metadataContradictions"));
    m_contradictions->setWordWrap(true);
    m_contradictions->setTextFormat(Qt::PlainText);
    m_contradictions->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_contradictions->setVisible(false);
    m_saveProgress->setObjectName(QStringLiteral("metadataSaveProgress"));
    m_saveProgress->setRange(0, 1000);
    m_saveProgress->setVisible(false);
    connect(m_editButton, &QPushButton::clicked, this, &MetadataPage::editCurrent);
    connect(m_addButton, &QPushButton::clicked, this, &MetadataPage::addKey);
    connect(m_removeButton, &QPushButton::clicked, this, &MetadataPage::removeCurrent);
    connect(m_revertButton, &QPushButton::clicked, this, &MetadataPage::revertCurrent);
    connect(m_revertAllButton, &QPushButton::clicked, m_tree, &MetadataTreeModel::revertAll);
    connect(m_saveButton, &QPushButton::clicked, this, [this] {
        if (isSaving())
            cancelSave();
        else
            chooseSaveAs();
    });
    connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) { editIndex(m_proxy->mapToSource(index)); });
    connect(m_tree, &MetadataTreeModel::editsChanged, this, &MetadataPage::updateEditControls);
    connect(m_tree, &QAbstractItemModel::modelReset, this, &MetadataPage::updateKeyCount);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &MetadataPage::updateEditControls);
    auto* edit = new QHBoxLayout;
    for (QWidget* widget : {static_cast<QWidget*>(m_editButton), static_cast<QWidget*>(m_addButton), static_cast<QWidget*>(m_removeButton),
                            static_cast<QWidget*>(m_revertButton), static_cast<QWidget*>(m_revertAllButton)})
        edit->addWidget(widget);
    edit->addWidget(m_editCount, 1);
    edit->addWidget(m_saveProgress);
    edit->addWidget(m_saveButton);
    updateEditControls();

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_contradictions);
    layout->addLayout(edit);
}

int MetadataPage::currentTopRow() const
{
    QModelIndex index = m_proxy->mapToSource(m_view->currentIndex()).siblingAtColumn(0);
    while (index.isValid() && index.parent().isValid())
        index = index.parent();
    return index.isValid() ? index.row() : -1;
}

void MetadataPage::updateEditControls()
{
    const int row = currentTopRow();
    const auto state = m_tree->editState(row);
    m_editButton->setEnabled(row >= 0 && state != MetadataTreeModel::EditState::Removed);
    m_removeButton->setEnabled(row >= 0 && state != MetadataTreeModel::EditState::Removed);
    m_revertButton->setEnabled(row >= 0 && state != MetadataTreeModel::EditState::Unchanged);
    m_revertAllButton->setEnabled(m_tree->hasEdits());
    const auto count = static_cast<int>(m_tree->edits().changes().size());
    m_editCount->setText(count ? tr("%n unsaved edit(s)", nullptr, count) : QString());
    m_saveButton->setText(isSaving() ? tr("Cancel Save") : tr("Save As…"));
    const QStringList found = contradictions();
    m_contradictions->setText(found.join(QLatin1Char('\n')));
    m_contradictions->setVisible(!found.isEmpty());
    if (m_hadEdits != m_tree->hasEdits()) {
        m_hadEdits = m_tree->hasEdits();
        emit unsavedEditsChanged(m_hadEdits);
    }
}

// Edited or added keys whose value the tensors contradict: a file llama.cpp would refuse, or
// worse, read differently from what its tensors hold.
QStringList MetadataPage::contradictions() const
{
    QStringList found;
    if (!m_model)
        return found;
    const int archRow = m_tree->rowOfKey("general.architecture");
    const std::string architecture = archRow >= 0 && m_tree->editState(archRow) != MetadataTreeModel::EditState::Removed
                                         ? std::string(m_tree->valueAtRow(archRow).toStringView())
                                         : std::string();
    for (const auto& change : m_tree->edits().changes()) {
        if (!change.value)
            continue;
        const int row = m_tree->rowOfKey(change.key);
        if (row < 0)
            continue;
        const gguf::MetadataValue value = m_tree->valueAtRow(row);
        const std::optional<std::uint64_t> number = value.isArray() ? std::optional<std::uint64_t>(value.arrayLength()) : value.toUInt();
        if (!number)
            continue;
        const std::string problem = tensorContradiction(*m_model, architecture, change.key, *number);
        if (!problem.empty())
            found << tr("%1 = %2 contradicts the tensors: %3.")
                         .arg(QString::fromStdString(change.key))
                         .arg(value.isArray() ? tr("%n element(s)", nullptr, static_cast<int>(*number)) : QString::number(*number))
                         .arg(QString::fromStdString(problem));
    }
    return found;
}

MetadataValueEditor* MetadataPage::editIndex(const QModelIndex& sourceIndex)
{
    const QModelIndex index = sourceIndex.siblingAtColumn(0);
    if (!index.isValid() || !m_tree->model())
        return nullptr;
    const QModelIndex parent = index.parent();
    if (parent.isValid() && parent.parent().isValid()) {
        emit statusMessage(false, tr("Elements of nested arrays are edited with their whole key."));
        return nullptr;
    }
    const int row = parent.isValid() ? parent.row() : index.row();
    if (m_tree->editState(row) == MetadataTreeModel::EditState::Removed) {
        emit statusMessage(false, tr("The key is removed; revert it to edit it."));
        return nullptr;
    }
    const QString key = QString::fromStdString(m_tree->keyAt(row));
    const gguf::MetadataValue value = m_tree->valueAtRow(row);
    MetadataValueEditor* editor = nullptr;
    if (parent.isValid()) {
        if (value.elementType() == gguf::ValueType::Array)
            return nullptr;
        const gguf::MetadataValue element = value.element(static_cast<std::uint64_t>(index.row()));
        editor = new MetadataValueEditor(MetadataValueEditor::Mode::EditValue, m_model, QStringLiteral("%1[%2]").arg(key).arg(index.row()),
                                         QString::fromStdString(element.typeName()), QString::fromStdString(gguf::valueAsText(element)), this);
        const auto elementIndex = static_cast<std::uint64_t>(index.row());
        connect(editor, &QDialog::accepted, this, [this, editor, row, elementIndex] {
            if (!editor->changed())
                return;  // OK on the value as it was: no edit
            if (const auto edited = editor->value()) {
                if (const auto status = m_tree->setElement(row, elementIndex, *edited); !status)
                    emit statusMessage(false, QString::fromStdString(status.error().message));
                // The edit reset the tree: back to the element, so editing the next one is a click away.
                jumpToElement(m_tree->index(row, 0), static_cast<int>(elementIndex));
            }
        });
    } else {
        if (value.type() == gguf::ValueType::String
            && QString::fromStdString(std::string(value.toStringView())).toStdString() != value.toStringView()) {
            // The editor holds Unicode: accepting it would turn those bytes into U+FFFD.
            emit statusMessage(false, tr("%1 holds bytes that are not UTF-8; set it with gguf-explorer-cli meta --set-file.").arg(key));
            return nullptr;
        }
        if (value.isArray() && static_cast<qint64>(value.arrayLength()) > kMaxArrayTextElements) {
            emit statusMessage(false, tr("%1 has %2 elements: expand it and double-click an element to edit it.").arg(key).arg(value.arrayLength()));
            return nullptr;
        }
        editor = new MetadataValueEditor(MetadataValueEditor::Mode::EditValue, m_model, key, QString::fromStdString(value.typeName()),
                                         QString::fromStdString(gguf::valueAsText(value)), this);
        connect(editor, &QDialog::accepted, this, [this, editor, row] {
            if (!editor->changed())
                return;  // OK on the value as it was: no edit
            if (auto edited = editor->value()) {
                m_tree->setValue(row, std::move(*edited));
                selectTopRow(row);
            }
        });
    }
    editor->setAttribute(Qt::WA_DeleteOnClose);
    editor->open();
    return editor;
}

MetadataValueEditor* MetadataPage::editCurrent()
{
    return editIndex(m_proxy->mapToSource(m_view->currentIndex()));
}

MetadataValueEditor* MetadataPage::addKey()
{
    if (!m_tree->model())
        return nullptr;
    auto* editor = new MetadataValueEditor(MetadataValueEditor::Mode::AddKey, m_model, QString(), QStringLiteral("str"), QString(), this);
    // A name the model has already keeps the dialog open and says so (it closed, and the status
    // bar said it afterwards).
    editor->setKeyTaken([this](const QString& key) { return m_tree->rowOfKey(key.toUtf8().toStdString()) >= 0; });
    connect(editor, &QDialog::accepted, this, [this, editor] {
        auto value = editor->value();
        if (!value)
            return;
        const std::string key = editor->key().trimmed().toUtf8().toStdString();
        if (!m_tree->addKey(key, std::move(*value)))
            emit statusMessage(false, tr("The model already has a key %1; edit it instead.").arg(editor->key()));
        selectTopRow(m_tree->rowOfKey(key));
    });
    editor->setAttribute(Qt::WA_DeleteOnClose);
    editor->open();
    return editor;
}

void MetadataPage::removeCurrent()
{
    const int row = currentTopRow();
    const std::string key = m_tree->keyAt(row);
    m_tree->removeKey(row);
    selectTopRow(m_tree->rowOfKey(key));  // gone when it was an added key
}

void MetadataPage::revertCurrent()
{
    const int row = currentTopRow();
    m_tree->revertRow(row);
    selectTopRow(row);
}

void MetadataPage::selectTopRow(int row)
{
    const QModelIndex index = m_proxy->mapFromSource(m_tree->index(row, 0));
    if (!index.isValid())
        return;
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
}

QString MetadataPage::proposedSavePath() const
{
    if (!m_model)
        return {};
    const QFileInfo input(QString::fromStdString(m_model->primary().path()));
    QString base = input.completeBaseName();
    // A split model's first shard, "name-00001-of-00003": the copy is named after the model.
    static const QRegularExpression shardSuffix(QStringLiteral("-\\d{5}-of-\\d{5}$"));
    base.remove(shardSuffix);
    return input.dir().filePath(base + QStringLiteral("-edited.gguf"));
}

bool MetadataPage::chooseSaveAs()
{
    if (!m_model || isSaving())
        return false;
    QString proposal = proposedSavePath();
    for (;;) {
        const QString path = askSaveFileName(this, tr("Save Model As"), proposal, tr("GGUF models (*.gguf);;All files (*)"));
        if (path.isEmpty())
            return false;
        // Refused here, where the user can pick another name, not after the dialog has gone.
        const auto input = std::find_if(m_model->shards().begin(), m_model->shards().end(),
                                        [&path](const auto& shard) { return gguf::isSameFile(path.toStdString(), shard->path()); });
        if (input == m_model->shards().end()) {
            saveAs(path);
            return true;
        }
        QMessageBox::warning(this, tr("Save Model As"),
                             tr("%1 is the file open here: the copy with the edits needs another name.").arg(QFileInfo(path).fileName()));
        proposal = proposedSavePath();
    }
}

void MetadataPage::saveAs(const QString& path)
{
    if (isSaving() || !m_model)
        return;
    BackgroundJob* job = m_saveJobs.run(
        [model = m_model, edits = m_tree->edits(), output = path.toStdString()](const JobControl& control) -> gguf::Result<std::vector<std::string>> {
            gguf::SaveOptions options;
            options.cancel = control.cancelFlag();
            options.progress = [&control](std::uint64_t done, std::uint64_t total) { control.setProgress(done, total); };
            auto report = gguf::saveModelAs(*model, edits, output, options);
            if (!report)
                return report.error();
            return std::move(report->paths);
        },
        [this](const std::vector<std::string>& written) { saveEnded(JobOutcome::done(), written); },
        [this](const JobOutcome& outcome) { saveEnded(outcome, {}); });
    m_saveJobs.onWorkProgress(job, [this](quint64 done, quint64 total) {
        m_saveProgress->setValue(total ? static_cast<int>(1000.0 * static_cast<double>(done) / static_cast<double>(total)) : 0);
    });
    m_saveProgress->setValue(0);
    m_saveProgress->setVisible(true);
    updateEditControls();
}

void MetadataPage::saveEnded(const JobOutcome& outcome, const std::vector<std::string>& written)
{
    m_saveProgress->setVisible(false);
    QStringList paths;
    for (const std::string& file : written)
        paths << QString::fromStdString(file);
    const bool succeeded = outcome.isDone();
    // Saved: the edits live in the new file now (which the window opens), no longer here.
    if (succeeded)
        m_tree->revertAll();
    updateEditControls();
    const QString message = succeeded ? tr("Saved %1").arg(paths.join(QStringLiteral(", "))) : tr("Save As failed: %1").arg(outcome.message());
    emit statusMessage(succeeded, message);
    // A failure stays on screen until read: a status-bar line is gone after a few seconds.
    if (!succeeded && !outcome.isCancelled()) {
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Save As failed"), message, QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("saveFailedBox"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    emit saveFinished(succeeded, message, paths);
}

void MetadataPage::cancelSave()
{
    m_saveJobs.cancel();
}

void MetadataPage::applyFilter()
{
    const QString text = m_filter->text().trimmed();
    m_proxy->setFilterFixedString(text);
    updateKeyCount();
    emit filterApplied(text);
}

void MetadataPage::updateKeyCount()
{
    const int shown = m_proxy->rowCount();
    m_keyCount = m_tree->rowCount();  // added keys count once they are listed
    m_count->setText(m_filter->text().trimmed().isEmpty() ? tr("%1 keys").arg(m_keyCount) : tr("%1 of %2 keys").arg(shown).arg(m_keyCount));
}

QModelIndex MetadataPage::currentArray() const
{
    const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex()).siblingAtColumn(0);
    if (!current.isValid())
        return {};
    if (m_tree->arrayLength(current) > 0)
        return current;
    const QModelIndex parent = current.parent();
    return m_tree->arrayLength(parent) > 0 ? parent : QModelIndex();
}

void MetadataPage::updateJumpBox()
{
    const QModelIndex array = currentArray();
    const qint64 length = m_tree->arrayLength(array);
    m_jumpIndex->setEnabled(length > 0);
    m_jumpButton->setEnabled(length > 0);
    m_jumpIndex->setRange(0, static_cast<int>(std::max<qint64>(0, length - 1)));
}

bool MetadataPage::jumpToElement(const QModelIndex& array, int element)
{
    if (!m_tree->loadThrough(array, element))
        return false;
    const QModelIndex target = m_proxy->mapFromSource(m_tree->index(element, MetadataTreeModel::Key, array));
    if (!target.isValid())
        return false;
    for (QModelIndex parent = target.parent(); parent.isValid(); parent = parent.parent())
        m_view->expand(parent);
    m_view->setCurrentIndex(target);
    m_view->scrollTo(target, QAbstractItemView::PositionAtCenter);
    return true;
}

void MetadataPage::fetchVisibleTails()
{
    const int bottom = m_view->viewport()->height();
    for (QModelIndex row = m_view->indexAt(QPoint(0, 0)); row.isValid(); row = m_view->indexBelow(row)) {
        if (m_view->visualRect(row).top() > bottom)
            break;
        const QModelIndex parent = row.parent();
        if (parent.isValid() && row.row() == m_proxy->rowCount(parent) - 1 && m_proxy->canFetchMore(parent)) {
            m_proxy->fetchMore(parent);
            return;  // the insertion schedules the next check
        }
    }
}

bool MetadataPage::isSaving() const
{
    return m_saveJobs.isRunning();
}

bool MetadataPage::hasUnsavedEdits() const
{
    return m_tree->hasEdits();
}
