#include "ui/experts/ExpertLayerExtrasView.h"

#include "core/base/HumanFormat.h"
#include "core/gguf/Dequantize.h"
#include "core/types/GgmlType.h"
#include "ui/common/TensorShapeText.h"
#include "ui/session/BackgroundJob.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <vector>

namespace {

QString nameOf(const gguf::TensorInfo& tensor)
{
    return QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size()));
}

// The short column title of a per-expert tensor: "exp_probs_b", "ffn_down_exps.scale", ...
QString columnTitle(const gguf::TensorInfo& tensor)
{
    const QString name = nameOf(tensor);
    const int layerEnd = name.indexOf(QLatin1Char('.'), 4);  // after "blk.N"
    QString title = layerEnd > 0 ? name.mid(layerEnd + 1) : name;
    if (title.endsWith(QStringLiteral(".bias")) && title.startsWith(QStringLiteral("exp_probs_b")))
        title = QStringLiteral("exp_probs_b");
    return title;
}

QTableWidgetItem* readOnly(const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return item;
}

}  // namespace

ExpertLayerExtrasView::ExpertLayerExtrasView(QWidget* parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_tensors(new QTableWidget(this)), m_values(new QTableWidget(this))
{
    m_summary->setObjectName(QStringLiteral("expertExtrasSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tensors->setObjectName(QStringLiteral("expertExtrasTable"));
    m_tensors->setColumnCount(TensorColumnCount);
    m_tensors->setHorizontalHeaderLabels({tr("Role"), tr("Tensor"), tr("Shape"), tr("Type"), tr("Size")});
    m_tensors->verticalHeader()->hide();
    m_tensors->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tensors->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tensors->horizontalHeader()->setStretchLastSection(true);
    m_values->setObjectName(QStringLiteral("expertBiasValues"));
    m_values->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_values->verticalHeader()->hide();
    // A bounded sample of rows sizes the columns: the table may hold 512 experts.
    m_values->horizontalHeader()->setResizeContentsPrecision(64);
    m_values->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_tensors);
    splitter->addWidget(m_values);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);
}

void ExpertLayerExtrasView::setLayer(std::shared_ptr<const gguf::Model> model, const gguf::ExpertLayer* layer, std::uint64_t expertCount)
{
    m_jobs.renew();  // an older layer's values are stale
    m_tensors->setRowCount(0);
    m_values->clear();
    m_values->setRowCount(0);
    m_values->setColumnCount(0);
    if (!model || !layer) {
        m_summary->setText(tr("No layer chosen."));
        return;
    }
    std::vector<const gguf::TensorInfo*> rows(layer->shared.begin(), layer->shared.end());
    rows.insert(rows.end(), layer->biases.begin(), layer->biases.end());
    m_tensors->setRowCount(static_cast<int>(rows.size()));
    std::uint64_t sharedBytes = 0;
    for (const gguf::TensorInfo* shared : layer->shared)
        sharedBytes += shared->nbytes;
    for (int row = 0; row < static_cast<int>(rows.size()); ++row) {
        const gguf::TensorInfo& tensor = *rows[static_cast<std::size_t>(row)];
        m_tensors->setItem(row, RoleColumn, readOnly(QString::fromStdString(gguf::expertExtraRole(tensor.name))));
        m_tensors->setItem(row, NameColumn, readOnly(nameOf(tensor)));
        m_tensors->setItem(row, ShapeColumn, readOnly(tensorShapeText(tensor)));
        m_tensors->setItem(row, TypeColumn, readOnly(QString::fromStdString(gguf::typeName(tensor.typeId))));
        m_tensors->setItem(row, SizeColumn, readOnly(QString::fromStdString(gguf::formatBytes(tensor.nbytes))));
    }
    QStringList parts;
    parts << (layer->shared.empty() ? tr("no shared expert")
                                    : tr("%n shared-expert tensor(s) (%1, dense: every token uses them)", nullptr, static_cast<int>(layer->shared.size()))
                                          .arg(QString::fromStdString(gguf::formatBytes(sharedBytes))));
    parts << (layer->biases.empty() ? tr("no expert or router biases") : tr("%n bias or scale tensor(s)", nullptr, static_cast<int>(layer->biases.size())));
    m_summary->setText(tr("Layer %1 beside its %2 routed experts: %3.").arg(layer->layer).arg(expertCount).arg(parts.join(QStringLiteral(", "))));

    // Per-expert values: one column per bias with an expert axis (a vector: its mean and
    // largest magnitude per expert).
    std::vector<const gguf::TensorInfo*> perExpert;
    for (const gguf::TensorInfo* bias : layer->biases)
        if (gguf::expertAxisOf(*bias, expertCount))
            perExpert.push_back(bias);
    if (perExpert.empty() || expertCount == 0 || expertCount > (std::uint64_t{1} << 20))
        return;
    QStringList headers{tr("Expert")};
    for (const gguf::TensorInfo* bias : perExpert)
        headers << (bias->nDims == 1 ? columnTitle(*bias) : tr("%1 mean").arg(columnTitle(*bias)));
    m_values->setColumnCount(static_cast<int>(headers.size()));
    m_values->setHorizontalHeaderLabels(headers);
    m_values->setRowCount(static_cast<int>(expertCount));
    for (std::uint64_t e = 0; e < expertCount; ++e) {
        auto* item = new QTableWidgetItem;
        item->setData(Qt::DisplayRole, static_cast<qulonglong>(e));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        m_values->setItem(static_cast<int>(e), 0, item);
    }
    for (std::size_t column = 0; column < perExpert.size(); ++column)
        for (std::uint64_t e = 0; e < expertCount; ++e)
            m_values->setItem(static_cast<int>(e), static_cast<int>(column) + 1, readOnly(QStringLiteral("…")));

    // One chunk per bias; a bias that cannot be read says why in its own column.
    m_jobs.runChunks(
        static_cast<int>(perExpert.size()),
        [model, perExpert](int chunk, const JobControl&) -> gguf::Result<BiasValues> {
            const gguf::TensorInfo& bias = *perExpert[static_cast<std::size_t>(chunk)];
            BiasValues read;
            if (bias.elementCount() > kMaxReadElements) {
                read.failure = tr("not read (%1 values)").arg(bias.elementCount());
                return read;
            }
            read.values.resize(static_cast<std::size_t>(bias.elementCount()));
            if (const gguf::Status status = gguf::dequantizeRows(bias, 0, bias.rowCount(), read.values); !status) {
                read.values.clear();
                read.failure = QString::fromStdString(status.error().message);
            }
            return read;
        },
        [this, perExpert, expertCount](const std::vector<BiasValues>& read) { showValues(perExpert, expertCount, read); },
        [this, columns = perExpert.size(), expertCount](const JobOutcome& outcome) {
            const QString why = outcome.isCancelled() ? tr("not read (cancelled)") : outcome.message();
            for (std::size_t column = 0; column < columns; ++column)
                for (std::uint64_t e = 0; e < expertCount; ++e)
                    m_values->setItem(static_cast<int>(e), static_cast<int>(column) + 1, readOnly(why));
            emit valuesReady();
        });
}

void ExpertLayerExtrasView::showValues(const std::vector<const gguf::TensorInfo*>& perExpert, std::uint64_t expertCount,
                                       const std::vector<BiasValues>& read)
{
    for (std::size_t column = 0; column < perExpert.size(); ++column) {
        const gguf::TensorInfo& bias = *perExpert[column];
        const int tableColumn = static_cast<int>(column) + 1;
        const std::vector<float>& values = read[column].values;
        const QString& failure = read[column].failure;
        const auto width = static_cast<std::uint64_t>(bias.nDims == 1 ? 1 : bias.ne[0]);
        for (std::uint64_t e = 0; e < expertCount; ++e) {
            auto* item = new QTableWidgetItem;
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
            if (!failure.isEmpty()) {
                item->setText(failure);
            } else {
                double sum = 0.0, largest = 0.0;
                for (std::uint64_t i = 0; i < width; ++i) {
                    const double v = values[static_cast<std::size_t>(e * width + i)];
                    sum += v;
                    largest = std::max(largest, std::abs(v));
                }
                item->setData(Qt::DisplayRole, sum / static_cast<double>(width));
                if (width > 1)
                    item->setToolTip(tr("expert %1: mean %2, largest |value| %3 over %4 values").arg(e).arg(sum / static_cast<double>(width)).arg(largest).arg(width));
            }
            m_values->setItem(static_cast<int>(e), tableColumn, item);
        }
    }
    emit valuesReady();
}
