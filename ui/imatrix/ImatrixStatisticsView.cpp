#include "ui/imatrix/ImatrixStatisticsView.h"

#include "core/base/HumanFormat.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace {

QString text(const std::string& s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// Shows a figure with llama-imatrix's decimals and sorts by its value, not its text
// ("10.5" after "9.2"). A missing layer ("-") sorts before every number.
class FigureItem : public QTableWidgetItem {
public:
    FigureItem(double value, const QString& shown) : QTableWidgetItem(shown), m_value(value)
    {
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override
    {
        if (const auto* figure = dynamic_cast<const FigureItem*>(&other))
            return m_value < figure->m_value;
        return QTableWidgetItem::operator<(other);
    }

private:
    double m_value;
};

QTableWidgetItem* figure(double value, int decimals, const QString& suffix = QString())
{
    // Rounded as llama-imatrix's printf rounds, so a cell reads as the tool's log does.
    return new FigureItem(value, QString::fromStdString(gguf::formatFixed(value, decimals)) + suffix);
}

QTableWidgetItem* layerItem(const std::string& layer)
{
    bool isNumber = false;
    const double number = text(layer).toDouble(&isNumber);
    return new FigureItem(isNumber ? number : -1.0, text(layer));
}

QTableWidget* table(const QString& name, const QStringList& headers, const QStringList& toolTips, QWidget* parent)
{
    auto* t = new QTableWidget(parent);
    t->setObjectName(name);
    t->setColumnCount(static_cast<int>(headers.size()));
    t->setHorizontalHeaderLabels(headers);
    for (int c = 0; c < headers.size(); ++c)
        t->horizontalHeaderItem(c)->setToolTip(toolTips.value(c));
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->verticalHeader()->setVisible(false);
    t->setWordWrap(false);
    return t;
}

}  // namespace

ImatrixStatisticsView::ImatrixStatisticsView(const gguf::ImatrixStatistics& statistics, const QString& label, QWidget* parent)
    : QWidget(parent), m_skipped(new QLabel(this)), m_copy(new QPushButton(tr("Copy as Text"), this)),
      m_text(QString::fromStdString(gguf::formatImatrixStatistics(statistics, label.toStdString())).trimmed())
{
    setObjectName(QStringLiteral("imatrixStatistics"));
    m_tensors = table(QStringLiteral("statisticsTensors"),
                      {tr("Layer"), tr("Tensor"), tr("Σ(Act²)"), tr("Min"), tr("Max"), tr("μ"), tr("σ"), tr("% Active"), tr("N"),
                       tr("Entropy"), tr("E (norm)"), tr("ZD"), tr("CosSim")},
                      {tr("The layer (blk.N); - outside the layers"), tr("The weight, without blk.N. and .weight"),
                       tr("Sum over the columns (and routed experts) of the mean squared activation"), tr("Smallest value"),
                       tr("Largest value"), tr("Mean of the values"), tr("Standard deviation of the values"),
                       tr("Share of the values above 1e-5"), tr("Values in the statistics (experts that saw tokens only)"),
                       tr("Entropy of the values taken as a distribution, in bits"), tr("Entropy over its largest possible value, log2(N)"),
                       tr("Share of the values more than one standard deviation above the mean"),
                       tr("Cosine similarity of the raw sums with the same tensor one layer down")},
                      this);
    m_tensors->setRowCount(static_cast<int>(statistics.tensors.size()));
    for (std::size_t i = 0; i < statistics.tensors.size(); ++i) {
        const gguf::ImatrixTensorStatistics& ts = statistics.tensors[i];
        const int row = static_cast<int>(i);
        m_tensors->setItem(row, 0, layerItem(ts.layer));
        auto* name = new QTableWidgetItem(text(ts.shortName));
        name->setToolTip(text(ts.name));
        m_tensors->setItem(row, 1, name);
        m_tensors->setItem(row, 2, figure(ts.total, 2));
        m_tensors->setItem(row, 3, figure(ts.minimum, 4));
        m_tensors->setItem(row, 4, figure(ts.maximum, 4));
        m_tensors->setItem(row, 5, figure(ts.mean, 2));
        m_tensors->setItem(row, 6, figure(ts.deviation, 2));
        m_tensors->setItem(row, 7, figure(static_cast<double>(ts.activeFraction * 100.0f), 2, QStringLiteral("%")));
        m_tensors->setItem(row, 8, figure(ts.elements, 0));
        m_tensors->setItem(row, 9, figure(ts.entropy, 4));
        m_tensors->setItem(row, 10, figure(ts.entropyPercent, 2, QStringLiteral("%")));
        m_tensors->setItem(row, 11, figure(static_cast<double>(100.0f * ts.zdFraction), 2, QStringLiteral("%")));
        m_tensors->setItem(row, 12, figure(ts.cossim, 4));
    }
    m_tensors->resizeColumnsToContents();
    m_tensors->setSortingEnabled(true);
    m_tensors->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // llama-imatrix's order until a header is clicked

    m_layers = table(QStringLiteral("statisticsLayers"), {tr("Layer"), tr("μΣ(Act²)"), tr("μZD"), tr("μCosSim")},
                     {tr("The layer (blk.N)"), tr("Σ(Act²) of the layer's tensors, weighted by their N"),
                      tr("ZD of the layer's tensors, weighted by their N"), tr("CosSim of the layer's tensors, weighted by their N")},
                     this);
    m_layers->setRowCount(static_cast<int>(statistics.layers.size()));
    for (std::size_t i = 0; i < statistics.layers.size(); ++i) {
        const gguf::ImatrixLayerStatistics& l = statistics.layers[i];
        const int row = static_cast<int>(i);
        m_layers->setItem(row, 0, figure(l.layer, 0));
        m_layers->setItem(row, 1, figure(l.weightedTotal, 2));
        m_layers->setItem(row, 2, figure(static_cast<double>(100.0f * l.zdFraction), 4, QStringLiteral("%")));
        m_layers->setItem(row, 3, figure(l.cossim, 4));
    }
    m_layers->resizeColumnsToContents();
    m_layers->setSortingEnabled(true);
    m_layers->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);

    QStringList skipped;
    for (const std::string& s : statistics.skipped)
        skipped << text(s).toHtmlEscaped();
    m_skipped->setObjectName(QStringLiteral("statisticsSkipped"));
    m_skipped->setWordWrap(true);
    m_skipped->setTextFormat(Qt::RichText);
    m_skipped->setText(skipped.isEmpty() ? tr("Every entry has statistics.") : tr("No statistics: %1").arg(skipped.join(QStringLiteral("; "))));
    m_copy->setObjectName(QStringLiteral("statisticsCopy"));
    m_copy->setToolTip(tr("Copies the table as llama-imatrix --show-statistics prints it"));
    connect(m_copy, &QPushButton::clicked, this, [this]() { QApplication::clipboard()->setText(m_text); });

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tensors);
    split->addWidget(m_layers);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_skipped, 1);
    bottom->addWidget(m_copy);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split, 1);
    layout->addLayout(bottom);
}
