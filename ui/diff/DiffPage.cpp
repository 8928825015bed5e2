#include "ui/diff/DiffPage.h"

#include "core/base/EscapedText.h"
#include "ui/diff/LayerDiffChart.h"
#include "ui/session/JobPoolExecutor.h"
#include "ui/session/ModelLoader.h"
#include "core/types/GgmlType.h"
#include "core/types/LlamaFileType.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QFont>
#include <atomic>
#include <cmath>

namespace {
QString shown(std::string_view text)
{
    return QString::fromStdString(gguf::escapeForDisplay(text));
}

QString shapeText(const gguf::TensorInfo& tensor)
{
    QStringList dims;
    for (std::uint32_t d = 0; d < tensor.nDims; ++d)
        dims << QString::number(tensor.ne[d]);
    return QStringLiteral("[%1]").arg(dims.join(QStringLiteral(", ")));
}

QString number(double value)
{
    return std::isfinite(value) ? QString::number(value, 'g', 5) : QString::number(value);
}

constexpr int kMetadataIndexRole = Qt::UserRole + 1;
constexpr int kSortRole = Qt::UserRole + 2;

// Sorts a column by the value it shows (a figure, not its text: "1e-05" below "0.002"), where
// the column has one; rows without a figure go first.
class TensorDiffItem : public QTreeWidgetItem {
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem& other) const override
    {
        const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
        const QVariant mine = data(column, kSortRole), theirs = other.data(column, kSortRole);
        if (mine.isValid() || theirs.isValid())
            return !mine.isValid() ? theirs.isValid() : theirs.isValid() && mine.toDouble() < theirs.toDouble();
        return QTreeWidgetItem::operator<(other);
    }
};

// A value as the diff renders it; general.file_type also by name, as the Metadata page shows it.
QString valueText(const std::string& key, const std::string& type, const std::string& value)
{
    if (type.empty())
        return {};
    QString text = QString::fromStdString(type + "  " + value);
    if (key == "general.file_type") {
        bool isNumber = false;
        const qulonglong number = QString::fromStdString(value).toULongLong(&isNumber);
        const std::string_view name = isNumber ? gguf::llamaFileTypeName(number) : std::string_view{};
        if (!name.empty())
            text += QStringLiteral(" (%1)").arg(QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())));
    }
    return text;
}
}  // namespace

DiffPage::DiffPage(std::shared_ptr<const gguf::Model> a, const QString& pathB, QWidget* parent)
    : QWidget(parent), m_a(std::move(a)), m_pathB(pathB), m_summary(new QLabel(tr("Comparing…"), this)), m_progress(new QProgressBar(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)), m_metadata(new QTreeWidget(this)), m_detail(new QPlainTextEdit(this)),
      m_tensors(new QTreeWidget(this)), m_chart(new LayerDiffChart(this))
{
    m_summary->setObjectName(QStringLiteral("diffSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setObjectName(QStringLiteral("diffProgress"));
    m_progress->setRange(0, 1000);
    m_metadata->setObjectName(QStringLiteral("diffMetadata"));
    m_metadata->setHeaderLabels({tr("Key"), tr("Change"), tr("A"), tr("B"), tr("Detail")});
    m_metadata->setRootIsDecorated(false);
    m_metadata->setAlternatingRowColors(true);
    m_detail->setObjectName(QStringLiteral("diffDetail"));
    m_detail->setReadOnly(true);
    m_detail->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_detail->setFont(QFont(QStringLiteral("monospace")));
    m_tensors->setObjectName(QStringLiteral("diffTensors"));
    m_tensors->setHeaderLabels({tr("Tensor"), tr("Change"), tr("Type A"), tr("Type B"), tr("Shape"), tr("Relative RMSE"), tr("Max |error|"),
                                tr("Cosine")});
    m_tensors->setRootIsDecorated(false);
    m_tensors->setAlternatingRowColors(true);
    // File order (A's, then B's added tensors) until a header is clicked: no sort indicator, or
    // enabling sorting would sort by name, descending.
    m_tensors->header()->setSortIndicator(-1, Qt::AscendingOrder);
    m_tensors->setSortingEnabled(true);
    connect(m_metadata, &QTreeWidget::currentItemChanged, this, &DiffPage::showDetail);
    connect(m_cancel, &QPushButton::clicked, this, &DiffPage::cancel);

    auto* metadataSplit = new QSplitter(Qt::Vertical, this);
    metadataSplit->addWidget(m_metadata);
    metadataSplit->addWidget(m_detail);
    auto* tabs = new QTabWidget(this);
    tabs->setObjectName(QStringLiteral("diffTabs"));
    tabs->addTab(metadataSplit, tr("Metadata"));
    tabs->addTab(m_tensors, tr("Tensors"));
    tabs->addTab(m_chart, tr("Per Layer"));
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_progress);
    top->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(tabs, 1);
    start();
}

DiffPage::~DiffPage()
{
    m_jobs.cancel();
}

QString DiffPage::title() const
{
    return tr("Diff: %1 ↔ %2").arg(QFileInfo(QString::fromStdString(m_a->primary().path())).fileName(), QFileInfo(m_pathB).fileName());
}

void DiffPage::cancel()
{
    m_jobs.cancel();
}

void DiffPage::start()
{
    struct Outcome {
        std::shared_ptr<const gguf::Model> b;
        std::shared_ptr<const gguf::ModelDiff> diff;
    };
    prepareModelOpen(m_pathB);
    BackgroundJob* job = m_jobs.run(
        [a = m_a, path = m_pathB](const JobControl& control) -> gguf::Result<Outcome> {
            auto b = openModel(path);
            if (!b)
                return b.error();
            gguf::DiffOptions options;
            options.executor = &JobPoolExecutor::instance();
            options.cancel = control.cancelFlag();
            options.progress = [&control](std::uint64_t done, std::uint64_t total) { control.setProgress(done, total); };
            auto diff = gguf::diffModels(a, *b, options);
            if (!diff)
                return diff.error();
            return Outcome{std::move(b.value()), std::make_shared<const gguf::ModelDiff>(std::move(diff.value()))};
        },
        [this](Outcome outcome) {
            diffEnded();
            showResult(std::move(outcome.b), std::move(outcome.diff));
            emit finished(true, QString());
        },
        [this](const JobOutcome& result) {
            diffEnded();
            m_summary->setText(result.isCancelled() ? tr("Diff cancelled.") : tr("<b>Diff failed:</b> %1").arg(result.message().toHtmlEscaped()));
            emit finished(false, result.message());
        });
    m_jobs.onWorkProgress(job, [this](quint64 done, quint64 total) {
        m_progress->setValue(total ? static_cast<int>(1000.0 * static_cast<double>(done) / static_cast<double>(total)) : 0);
    });
}

void DiffPage::diffEnded()
{
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
}

void DiffPage::showResult(std::shared_ptr<const gguf::Model> b, std::shared_ptr<const gguf::ModelDiff> diff)
{
    m_b = std::move(b);  // the TensorInfos of the diff point into it
    m_diff = std::move(diff);
    using MKind = gguf::MetadataDifference::Kind;
    using TKind = gguf::TensorDifference::Kind;
    using Content = gguf::TensorContent;
    QStringList lines;
    for (const std::string& problem : m_diff->problems)
        lines << QStringLiteral("⚠ ") + shown(problem).toHtmlEscaped();
    lines << tr("Metadata: %1 added, %2 removed, %3 changed.")
                 .arg(m_diff->metadataCount(MKind::Added))
                 .arg(m_diff->metadataCount(MKind::Removed))
                 .arg(m_diff->metadataCount(MKind::Changed));
    lines << tr("Tensors: %1 added, %2 removed, %3 with another shape; of %4 in both, %5 identical bytes, %6 identical values, %7 different, %8 not comparable.")
                 .arg(m_diff->tensorCount(TKind::Added))
                 .arg(m_diff->tensorCount(TKind::Removed))
                 .arg(m_diff->tensorCount(TKind::ShapeChanged))
                 .arg(m_diff->tensorCount(TKind::InBoth))
                 .arg(m_diff->contentCount(Content::IdenticalBytes))
                 .arg(m_diff->contentCount(Content::IdenticalValues))
                 .arg(m_diff->contentCount(Content::Different))
                 .arg(m_diff->contentCount(Content::NotComparable));
    if (m_diff->identical())
        lines << tr("<b>The models are identical</b> (metadata and tensor bytes).");
    m_summary->setText(lines.join(QStringLiteral("<br>")));

    for (std::size_t i = 0; i < m_diff->metadata.size(); ++i) {
        const gguf::MetadataDifference& d = m_diff->metadata[i];
        const QString change = d.kind == MKind::Added ? tr("added") : d.kind == MKind::Removed ? tr("removed") : tr("changed");
        QString detail;
        if (d.array) {
            detail = tr("%1 of %2 common elements differ").arg(d.array->differingElements).arg(std::min(d.array->lengthA, d.array->lengthB));
            if (d.array->firstDifference)
                detail += tr(", first at index %1").arg(*d.array->firstDifference);
            if (d.array->lengthA != d.array->lengthB)
                detail += tr("; length %1 → %2").arg(d.array->lengthA).arg(d.array->lengthB);
        } else if (!d.textDiff.empty()) {
            detail = tr("text diff below");
        } else if (d.kind == MKind::Changed && d.typeA != d.typeB) {
            detail = tr("type %1 → %2").arg(QString::fromStdString(d.typeA), QString::fromStdString(d.typeB));
        }
        auto* item = new QTreeWidgetItem({shown(d.key), change, valueText(d.key, d.typeA, d.valueA), valueText(d.key, d.typeB, d.valueB), detail});
        item->setData(0, kMetadataIndexRole, static_cast<qulonglong>(i));
        m_metadata->addTopLevelItem(item);
    }
    for (int c = 0; c < m_metadata->columnCount(); ++c)
        m_metadata->resizeColumnToContents(c);

    m_tensors->setSortingEnabled(false);
    for (const gguf::TensorDifference& d : m_diff->tensors) {
        QString change;
        switch (d.kind) {
        case TKind::Added: change = tr("added"); break;
        case TKind::Removed: change = tr("removed"); break;
        case TKind::ShapeChanged: change = tr("other shape"); break;
        case TKind::InBoth:
            change = d.content == Content::IdenticalBytes    ? tr("identical bytes")
                   : d.content == Content::IdenticalValues ? tr("identical values")
                   : d.content == Content::Different       ? tr("different")
                                                           : tr("not comparable: %1").arg(shown(d.problem));
            break;
        }
        const QString shape = d.a && d.b && d.kind == TKind::ShapeChanged ? shapeText(*d.a) + QStringLiteral(" → ") + shapeText(*d.b)
                                                                          : shapeText(d.a ? *d.a : *d.b);
        auto* item = new TensorDiffItem(QStringList{shown(d.name), change, d.a ? QString::fromStdString(gguf::typeName(d.a->typeId)) : QString(),
                                                    d.b ? QString::fromStdString(gguf::typeName(d.b->typeId)) : QString(), shape,
                                                    d.metrics ? number(d.metrics->relativeRmse) : QString(), d.metrics ? number(d.metrics->maxAbsError) : QString(),
                                                    d.metrics ? QString::number(d.metrics->cosineSimilarity, 'f', 6) : QString()});
        if (d.metrics) {
            item->setData(5, kSortRole, d.metrics->relativeRmse);
            item->setData(6, kSortRole, d.metrics->maxAbsError);
            item->setData(7, kSortRole, d.metrics->cosineSimilarity);
        }
        for (int c = 5; c <= 7; ++c)
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        m_tensors->addTopLevelItem(item);
    }
    m_tensors->header()->setSortIndicator(-1, Qt::AscendingOrder);  // file order until a header is clicked
    m_tensors->setSortingEnabled(true);
    for (int c = 0; c < m_tensors->columnCount(); ++c)
        m_tensors->resizeColumnToContents(c);
    m_chart->setDiff(m_diff.get());
    m_chart->setExportSubject(title());
    if (m_metadata->topLevelItemCount() > 0)
        m_metadata->setCurrentItem(m_metadata->topLevelItem(0));
}

void DiffPage::showDetail()
{
    const QTreeWidgetItem* item = m_metadata->currentItem();
    if (!item || !m_diff) {
        m_detail->clear();
        return;
    }
    const auto& d = m_diff->metadata[static_cast<std::size_t>(item->data(0, kMetadataIndexRole).toULongLong())];
    QStringList lines;
    if (!d.textDiff.empty()) {
        for (const gguf::TextDiffLine& line : d.textDiff)
            lines << (line.op == gguf::TextDiffLine::Op::Gap ? QString::fromStdString(line.text)
                                                               : QChar(static_cast<char>(line.op)) + shown(line.text));
    } else {
        if (!d.typeA.empty())
            lines << QStringLiteral("A: ") + valueText(d.key, d.typeA, d.valueA);
        if (!d.typeB.empty())
            lines << QStringLiteral("B: ") + valueText(d.key, d.typeB, d.valueB);
    }
    m_detail->setPlainText(lines.join(QLatin1Char('\n')));
}

bool DiffPage::isRunning() const
{
    return m_jobs.isRunning();
}
