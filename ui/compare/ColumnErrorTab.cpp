#include "ui/compare/ColumnErrorTab.h"

#include "ui/compare/ComparisonColumnStyle.h"
#include "ui/common/PlotExportMenu.h"
#include "ui/common/PlotPlaceholder.h"
#include "ui/common/StartWhenShown.h"
#include "ui/imatrix/ColumnErrorView.h"
#include "ui/session/ComparisonColumnTitle.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStringList>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>

ColumnErrorTab::ColumnErrorTab(QWidget* parent)
    : QWidget(parent), m_column(new QComboBox(this)), m_expertLabel(new QLabel(tr("Expert:"), this)), m_expert(new QSpinBox(this)),
      m_view(new ColumnErrorView(this)), m_startWhenShown(new StartWhenShown(this, [this]() { start(); }))
{
    setObjectName(QStringLiteral("columnErrorTab"));
    m_column->setObjectName(QStringLiteral("columnErrorColumnCombo"));
    m_column->setToolTip(tr("The compared file or simulated type whose error per input column is shown"));
    m_expert->setObjectName(QStringLiteral("columnErrorExpertSpin"));
    m_expert->setSpecialValueText(tr("all experts"));
    m_expert->setToolTip(tr("The expert whose error and importance per column are shown; \"all experts\" pools them"));
    m_expert->setRange(-1, 0);
    m_expert->setValue(-1);
    m_expert->hide();
    m_expertLabel->hide();
    connect(m_column, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0)
            return;
        m_wantedColumn = m_column->itemData(index).toULongLong();
        refresh();
    });
    connect(m_view, &ColumnErrorView::profileCancelled, this, &ColumnErrorTab::cancelled);
    // Empty axes never pass for a profile: words cover each plot until it has one.
    m_importanceCover = new PlotPlaceholder(m_view->importancePlot());
    m_errorCover = new PlotPlaceholder(m_view->errorPlot());
    connect(m_view, &ColumnErrorView::profileReady, this, &ColumnErrorTab::showProfile);
    addPlotExport(m_view->importancePlot(), [this]() { return exportTitle(tr("Importance per input column")); });
    addPlotExport(m_view->errorPlot(), [this]() { return exportTitle(tr("Error per input column")); });
    connect(m_expert, &QSpinBox::valueChanged, this, [this](int value) {
        m_wantedExpert = value < 0 ? std::nullopt : std::optional<std::size_t>(static_cast<std::size_t>(value));
        refresh();
    });
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Compared with:"), this));
    controls->addWidget(m_column);
    controls->addWidget(m_expertLabel);
    controls->addWidget(m_expert);
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_view, 1);
    refresh();
}

void ColumnErrorTab::setComparison(std::shared_ptr<const gguf::ModelComparison> comparison)
{
    m_comparison = std::move(comparison);
    m_row.reset();
    fillColumns();
    refresh();
}

void ColumnErrorTab::setProgressBar(JobProgressBar* progress)
{
    m_view->setProgressBar(progress);
}

void ColumnErrorTab::fillColumns()
{
    const QSignalBlocker blocker(m_column);
    m_column->clear();
    if (!m_comparison)
        return;
    for (std::size_t c = 0; c < m_comparison->columns().size(); ++c) {
        m_column->addItem(comparisonColumnSwatch(*m_comparison, c), comparisonColumnTitle(*m_comparison, c),
                          QVariant::fromValue<qulonglong>(c));
        m_column->setItemData(static_cast<int>(c), comparisonColumnSource(*m_comparison, c), Qt::ToolTipRole);
    }
}

void ColumnErrorTab::setTensorRow(std::size_t row)
{
    if (!m_comparison || row >= m_comparison->rows().size())
        return;
    m_row = row;
    refresh();
}

bool ColumnErrorTab::setColumn(std::size_t column)
{
    if (!m_comparison || !m_row || column >= m_comparison->columns().size() || !m_comparison->rows()[*m_row].cells[column].ok())
        return false;
    m_wantedColumn = column;
    refresh();
    return true;
}

bool ColumnErrorTab::setExpert(std::optional<std::size_t> expert)
{
    if (!m_comparison || !m_row)
        return false;
    const auto experts = static_cast<std::uint64_t>(m_comparison->rows()[*m_row].reference->ne[2]);
    if (expert && (experts < 2 || *expert >= experts))
        return false;
    m_wantedExpert = expert;
    refresh();
    return true;
}

QString ColumnErrorTab::placeholderText() const
{
    return m_placeholder;
}

void ColumnErrorTab::showNothing(const QString& why)
{
    m_cancelled = false;
    m_shownRow.reset();
    m_shownColumn.reset();
    m_shownExpert.reset();
    m_placeholder = why;
    m_startWhenShown->drop();
    cover(why);
}

void ColumnErrorTab::cover(const QString& why)
{
    m_view->showPlaceholder(why);
    m_importanceCover->show(why);
    m_errorCover->show(why);
}

QString ColumnErrorTab::importanceCoverText() const
{
    return m_importanceCover->text();
}

QString ColumnErrorTab::errorCoverText() const
{
    return m_errorCover->text();
}

void ColumnErrorTab::showProfile()
{
    m_errorCover->hide();
    const auto& profile = m_view->profile();
    if (!m_comparison->importance())
        m_importanceCover->show(tr("No importance matrix: this comparison was made without one, so there is no importance per column. "
                                   "Compare with one (Compare Quant Levels › Importance matrix) to see it above the error."));
    else if (!profile || profile->weightedError.empty())
        m_importanceCover->show(tr("The importance matrix has no entry for this tensor, so there is no importance per column."));
    else
        m_importanceCover->hide();
}

// "Error per input column of blk.0.attn_q.weight, expert 2: Q4_K_M against the reference …".
QString ColumnErrorTab::exportTitle(const QString& chart) const
{
    if (!m_comparison || !m_shownRow || !m_shownColumn)
        return chart;
    const gguf::TensorInfo& tensor = *m_comparison->rows()[*m_shownRow].reference;
    QString what = tr("%1 of %2").arg(chart, QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size())));
    if (m_expert->isVisibleTo(this))
        what += m_shownExpert ? tr(", expert %1").arg(*m_shownExpert) : tr(", all experts");
    return tr("%1: %2").arg(what, comparisonSubject(*m_comparison, {*m_shownColumn}));
}

void ColumnErrorTab::start()
{
    if (!m_comparison || !m_shownRow || !m_shownColumn)
        return;
    m_cancelled = false;
    m_placeholder.clear();
    m_importanceCover->show(tr("Computing…"));
    m_errorCover->show(tr("Computing…"));
    m_view->setCell(m_comparison, *m_shownRow, *m_shownColumn, m_shownExpert);
}

void ColumnErrorTab::cancelled()
{
    // The pick stays; nothing of it is shown, and it is not computed again under the Cancel
    // button: only when the tab is shown again or the pick is made again.
    m_cancelled = true;
    m_placeholder = tr("Cancelled. Show this tab again, or pick the tensor, column or expert again, to compute the error per column.");
    cover(m_placeholder);
    m_startWhenShown->requestOnNextShow();
}

void ColumnErrorTab::refresh()
{
    m_column->setEnabled(m_row.has_value());
    if (!m_comparison) {
        m_expert->hide();
        m_expertLabel->hide();
        showNothing(tr("The comparison could not be created, so there is no tensor to show."));
        return;
    }
    if (!m_row) {
        m_expert->hide();
        m_expertLabel->hide();
        showNothing(tr("Select a tensor in the Table tab to see its error per input column next to its importance."));
        return;
    }
    const gguf::ComparisonRow& row = m_comparison->rows()[*m_row];
    const QString name = QString::fromUtf8(row.reference->name.data(), static_cast<qsizetype>(row.reference->name.size()));

    // Columns this tensor cannot be compared with stay listed, disabled, with the reason.
    std::optional<std::size_t> column;
    QStringList problems;
    auto* items = qobject_cast<QStandardItemModel*>(m_column->model());
    for (std::size_t c = 0; c < row.cells.size(); ++c) {
        const gguf::ComparisonCell& cell = row.cells[c];
        if (items && static_cast<int>(c) < items->rowCount()) {
            items->item(static_cast<int>(c))->setEnabled(cell.ok());
            items->item(static_cast<int>(c))->setToolTip(cell.ok() ? comparisonColumnSource(*m_comparison, c)
                                                                  : QString::fromStdString(cell.problem));
        }
        if (!cell.ok())
            problems << QStringLiteral("%1: %2").arg(comparisonColumnTitle(*m_comparison, c), QString::fromStdString(cell.problem));
        else if (!column || (m_wantedColumn && c == *m_wantedColumn))
            column = c;
    }

    const auto experts = static_cast<std::uint64_t>(row.reference->ne[2]);
    const bool perExpert = experts > 1;
    std::optional<std::size_t> expert;
    if (perExpert && m_wantedExpert && *m_wantedExpert < experts)
        expert = m_wantedExpert;
    {
        const QSignalBlocker blocker(m_expert);
        m_expert->setRange(-1, perExpert ? static_cast<int>(std::min<std::uint64_t>(experts - 1, INT_MAX)) : 0);
        m_expert->setValue(expert ? static_cast<int>(*expert) : -1);
    }
    m_expert->setVisible(perExpert);
    m_expertLabel->setVisible(perExpert);

    if (!column) {
        showNothing(row.cells.empty() ? tr("%1: the comparison has no column to compare it with.").arg(name)
                                      : tr("%1 cannot be compared with any column: %2").arg(name, problems.join(QStringLiteral("; "))));
        return;
    }
    {
        const QSignalBlocker blocker(m_column);
        m_column->setCurrentIndex(static_cast<int>(*column));
    }
    if (m_shownRow == m_row && m_shownColumn == column && m_shownExpert == expert && !m_cancelled)
        return;  // already shown or on its way
    m_cancelled = false;
    m_shownRow = m_row;
    m_shownColumn = column;
    m_shownExpert = expert;
    m_placeholder.clear();
    cover(tr("%1: the error per column is computed when this tab is shown.").arg(name));
    m_startWhenShown->request();  // at once when the tab is on screen
}
