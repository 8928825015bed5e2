#include "experts/ExpertQuantErrorView.h"

#include "common/PlotPalette.h"

#include "session/BackgroundJob.h"
#include "session/ExpertQuantErrorModel.h"
#include "common/JobProgressBar.h"
#include "common/StartWhenShown.h"
#include "compare/ImportanceErrorMetrics.h"
#include "compare/ModelComparison.h"
#include "quantize/Quantize.h"
#include "imatrix/LoadedImatrix.h"

#include <QFileDialog>
#include <QFileInfo>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <optional>
#include <qcustomplot.h>

namespace {
constexpr std::uint32_t kQ8_0 = gguf::typeIdValue(gguf::GgmlTypeId::Q8_0);
constexpr std::uint32_t kQ2_K = gguf::typeIdValue(gguf::GgmlTypeId::Q2_K);
const QColor kPalette[] = {QColor(214, 96, 77), QColor(67, 147, 195), QColor(90, 174, 97), QColor(153, 112, 171), QColor(224, 130, 20)};

QString typeLabel(std::uint32_t typeId)
{
    return QString::fromStdString(gguf::typeName(typeId));
}
}  // namespace


ExpertQuantErrorView::ExpertQuantErrorView(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_typeButton(new QToolButton(this)), m_metric(new QComboBox(this)), m_message(new QLabel(this)),
      m_model(new ExpertQuantErrorModel(this)), m_proxy(new QSortFilterProxyModel(this)), m_table(new QTableView(this)), m_plot(new QCustomPlot(this)),
      m_types{kQ2_K, kQ8_0}, m_startWhenShown(new StartWhenShown(this, [this]() { start(); })), m_imatrixButton(new QToolButton(this))
{
    followPalette(m_plot);
    m_typeButton->setObjectName(QStringLiteral("quantTypesButton"));
    m_typeButton->setText(tr("Types"));
    m_typeButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_typeButton);
    for (const gguf::TypeTraits* type : gguf::quantizableTypes()) {
        if (type->kind != gguf::TypeKind::Quantized)
            continue;
        QAction* action = menu->addAction(QString::fromLatin1(type->name));
        action->setCheckable(true);
        action->setData(type->id);
        action->setChecked(std::find(m_types.begin(), m_types.end(), type->id) != m_types.end());
        connect(action, &QAction::toggled, this, &ExpertQuantErrorView::typesChosen);
    }
    menu->setToolTipsVisible(true);
    m_typeButton->setMenu(menu);
    m_imatrixButton->setObjectName(QStringLiteral("quantImatrixButton"));
    m_imatrixButton->setText(tr("Importance matrix…"));
    m_imatrixButton->setToolTip(tr("Quantize each expert with its importance weights, as llama-quantize --imatrix does"));
    connect(m_imatrixButton, &QToolButton::clicked, this, [this]() {
        const QString folder = m_source ? QFileInfo(QString::fromStdString(m_source->primary().path())).absolutePath() : QString();
        const QString path = QFileDialog::getOpenFileName(this, tr("Importance Matrix"), folder, tr("Importance matrices (*.gguf *.dat);;All files (*)"));
        if (!path.isEmpty())
            setImportanceMatrixPath(path);
    });
    updateTypeAvailability();

    using Metric = ExpertQuantErrorModel::Metric;
    m_metric->setObjectName(QStringLiteral("quantMetricCombo"));
    updateMetricChoices();
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this]() {
        m_model->setMetric(static_cast<Metric>(m_metric->currentData().toInt()));
        updateChart();
    });
    m_message->setObjectName(QStringLiteral("quantErrorMessage"));
    m_message->setWordWrap(true);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ExpertQuantErrorModel::SortRole);
    m_table->setObjectName(QStringLiteral("quantErrorTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(0, Qt::AscendingOrder);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_plot->setObjectName(QStringLiteral("quantErrorPlot"));
    m_plot->xAxis->setLabel(tr("expert"));
    m_plot->legend->setVisible(true);
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ExpertQuantErrorView::updateChart);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ExpertQuantErrorView::updateChart);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Quantize each expert to:"), this));
    controls->addWidget(m_typeButton);
    controls->addWidget(m_imatrixButton);
    controls->addWidget(new QLabel(tr("Metric:"), this));
    controls->addWidget(m_metric);
    controls->addStretch(1);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_plot);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({420, 640});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_message);
    layout->addWidget(splitter, 1);
}

bool ExpertQuantErrorView::isComputing() const
{
    return m_jobs.isRunning();
}

void ExpertQuantErrorView::setTensor(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo* tensor)
{
    m_jobs.renew();
    m_pending.reset();
    m_source = std::move(model);
    m_tensor = tensor;
    updateTypeAvailability();  // a matrix read for another model does not weigh this one
    updateMetricChoices();
    QStringList labels;
    for (const std::uint32_t type : m_types)
        labels << typeLabel(type);
    m_model->reset(m_tensor ? static_cast<std::uint64_t>(m_tensor->ne[2]) : 0, labels);
    m_message->setText(m_tensor ? tr("Error of each expert quantized to the chosen types%1, against the %2 values stored in this file.")
                                      .arg(hasImportanceMatrix() ? tr(" with the importance matrix's weights") : QString(), typeLabel(m_tensor->typeId))
                                : QString());
    if (m_source && m_tensor && !m_types.empty())
        m_startWhenShown->request();
    else
        m_startWhenShown->drop();
}

bool ExpertQuantErrorView::hasImportanceMatrix() const
{
    return m_importance && m_importanceModel == m_source;
}

QString ExpertQuantErrorView::typeUnavailableReason(std::uint32_t typeId) const
{
    if (gguf::requiresImportance(typeId) && !hasImportanceMatrix())
        return tr("%1 needs an importance matrix: ggml quantizes it only with importance weights (llama-quantize refuses it "
                  "without --imatrix). Choose one with \"Importance matrix…\".")
            .arg(typeLabel(typeId));
    return {};
}

void ExpertQuantErrorView::updateMetricChoices()
{
    using Metric = ExpertQuantErrorModel::Metric;
    std::vector<Metric> offered{Metric::RelativeRmse, Metric::Rmse, Metric::SqnrDb, Metric::MaxAbsError, Metric::CosineSimilarity};
    if (hasImportanceMatrix()) {  // the figures the importance-aware quantizers minimise
        offered.push_back(Metric::WeightedSquaredError);
        offered.push_back(Metric::RelativeWeightedError);
    }
    if (m_metric->count() == static_cast<int>(offered.size()))
        return;
    const Metric current = m_model->metric();
    const bool kept = std::find(offered.begin(), offered.end(), current) != offered.end();
    {
        const QSignalBlocker blocker(m_metric);
        m_metric->clear();
        for (const Metric metric : offered)
            m_metric->addItem(ExpertQuantErrorModel::metricName(metric), static_cast<int>(metric));
        m_metric->setCurrentIndex(m_metric->findData(static_cast<int>(kept ? current : Metric::RelativeRmse)));
    }
    if (!kept) {  // a weighted metric without the matrix: back to the one the tab opens on
        m_model->setMetric(Metric::RelativeRmse);
        updateChart();
    }
}

void ExpertQuantErrorView::updateTypeAvailability()
{
    for (QAction* action : m_typeButton->menu()->actions()) {
        const QString why = typeUnavailableReason(action->data().toUInt());
        action->setEnabled(why.isEmpty());
        action->setToolTip(why.isEmpty() ? action->text() : why);
    }
}

void ExpertQuantErrorView::setImportanceMatrixPath(const QString& path)
{
    if (m_imatrixJob)
        m_imatrixJob->cancel();
    m_importance.reset();
    m_importanceModel.reset();
    if (path.isEmpty()) {
        m_imatrixButton->setText(tr("Importance matrix…"));
        setTypes(m_types);
        QMetaObject::invokeMethod(this, [this] { emit importanceMatrixLoaded(true, {}); }, Qt::QueuedConnection);
        return;
    }
    // Reading and binding the matrix is file I/O and a scan of every entry: on the pool.
    auto loaded = std::make_shared<std::shared_ptr<const LoadedImatrix>>();
    auto model = m_source;
    auto* job = new BackgroundJob(1, [path, model, loaded](int, const std::atomic<bool>&) -> gguf::Status {
        auto result = LoadedImatrix::load(path, model.get());
        if (!result)
            return result.error();
        *loaded = std::move(result.value());
        return gguf::Ok{};
    }, this);
    m_imatrixJob = job;
    m_imatrixButton->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    connect(job, &BackgroundJob::finished, this, [this, job, loaded, model, path](const JobOutcome& outcome) {
        job->deleteLater();
        if (m_imatrixJob != job)
            return;  // another matrix was chosen meanwhile
        m_imatrixJob = nullptr;
        const bool succeeded = outcome.isDone();
        if (succeeded) {
            m_importance = *loaded;
            m_importanceModel = model;
            m_imatrixButton->setText(tr("Weighted by %1").arg(QFileInfo(path).fileName()));
        } else {
            m_imatrixButton->setText(tr("Importance matrix…"));
            m_message->setText(tr("Cannot read the importance matrix: %1").arg(outcome.message()));
        }
        setTypes(m_types);  // restarts with (or without) the weights
        emit importanceMatrixLoaded(succeeded, succeeded ? QString() : outcome.message());
    });
}

void ExpertQuantErrorView::setTypes(const std::vector<std::uint32_t>& typeIds)
{
    updateTypeAvailability();
    m_types.clear();
    for (const std::uint32_t type : typeIds)
        if (gguf::canQuantize(type) && typeUnavailableReason(type).isEmpty() && std::find(m_types.begin(), m_types.end(), type) == m_types.end())
            m_types.push_back(type);
    for (QAction* action : m_typeButton->menu()->actions()) {
        const QSignalBlocker blocker(action);
        action->setChecked(std::find(m_types.begin(), m_types.end(), action->data().toUInt()) != m_types.end());
    }
    setTensor(m_source, m_tensor);
}

void ExpertQuantErrorView::typesChosen()
{
    std::vector<std::uint32_t> types;
    for (QAction* action : m_typeButton->menu()->actions())
        if (action->isChecked())
            types.push_back(action->data().toUInt());
    setTypes(types);
}

void ExpertQuantErrorView::start()
{
    // Only this tensor is paired; no tensor data is read here.
    gguf::ComparisonOptions options;
    options.referenceIndex = 0;
    options.simulatedTypes = m_types;
    const std::string name(m_tensor->name);
    options.includeTensor = [name](std::string_view candidate) { return candidate == name; };
    if (hasImportanceMatrix()) {
        // Bound to this model when it was read: each expert's rows get that expert's weights.
        options.importance = m_importance->matrix;
        options.quantizeWithImportance = gguf::quantizeRows;
    }
    auto created = gguf::ModelComparison::create({m_source}, options);
    if (!created || created->rows().size() != 1) {
        m_message->setText(created ? tr("the tensor could not be paired") : QString::fromStdString(created.error().toString()));
        return;
    }
    auto comparison = std::make_shared<const gguf::ModelComparison>(std::move(*created));
    QStringList notes;
    for (std::size_t c = 0; c < comparison->columns().size(); ++c) {
        const gguf::ComparisonCell& cell = comparison->rows()[0].cells[c];
        if (!cell.ok())
            notes << QStringLiteral("%1: %2").arg(typeLabel(m_types[c]), QString::fromStdString(cell.problem));
        else if (!cell.note.empty())
            notes << QStringLiteral("%1: %2").arg(typeLabel(m_types[c]), QString::fromStdString(cell.note));
    }
    if (!notes.isEmpty())
        m_message->setText(m_message->text() + QLatin1Char('\n') + notes.join(QLatin1Char('\n')));

    // Each expert's weighted figures use that expert's own weights (quantWeights(e)), as its
    // rows were quantized with: worked out once, by the first chunk that needs them, on the pool.
    struct TensorWeights {
        std::once_flag once;
        std::optional<gguf::TensorImportance> importance;
    };
    auto weights = std::make_shared<TensorWeights>();
    std::shared_ptr<const gguf::ImportanceMatrix> matrix = hasImportanceMatrix() ? m_importance->matrix : nullptr;
    const gguf::ImportanceEntry* entry = matrix ? matrix->find(m_tensor->name) : nullptr;  // lives with `matrix`
    if (matrix && !entry)
        m_message->setText(m_message->text() + QLatin1Char('\n')
                           + tr("The importance matrix has no entry for this tensor: no weighted figures."));

    const auto experts = static_cast<std::uint64_t>(m_tensor->ne[2]);
    const auto columns = static_cast<std::uint64_t>(m_types.size());
    const std::uint64_t expertElements = static_cast<std::uint64_t>(m_tensor->ne[0]) * static_cast<std::uint64_t>(m_tensor->ne[1]);
    const std::uint64_t rowLength = std::max<std::uint64_t>(static_cast<std::uint64_t>(m_tensor->ne[0]), 1);
    // Whole rows per range: every type the comparison picked fits a row (it falls back otherwise).
    const std::uint64_t step = std::max<std::uint64_t>(1, gguf::kComparisonChunkElements / rowLength) * rowLength;
    auto results = std::make_shared<Results>(static_cast<std::size_t>(experts * columns));
    auto* job = new BackgroundJob(static_cast<int>(experts * columns), [comparison, results, columns, expertElements, step, matrix, entry,
                                                                        weights](int chunk, const std::atomic<bool>& cancelled) -> gguf::Status {
        const std::uint64_t expert = static_cast<std::uint64_t>(chunk) / columns;
        const auto column = static_cast<std::size_t>(static_cast<std::uint64_t>(chunk) % columns);
        if (!comparison->rows()[0].cells[column].ok())
            return gguf::Ok{};  // explained in the message; the cell stays empty
        if (matrix && entry)
            std::call_once(weights->once, [&] { weights->importance = gguf::tensorImportance(entry, *comparison->rows()[0].reference); });
        const gguf::TensorImportance* importance = weights->importance ? &*weights->importance : nullptr;
        gguf::ErrorAccumulator accumulator;
        std::vector<float> reference;
        std::vector<float> other;
        std::vector<float> w;
        for (std::uint64_t begin = expert * expertElements; begin < (expert + 1) * expertElements; begin += step) {
            if (cancelled.load(std::memory_order_relaxed))
                return gguf::Ok{};  // the job reports the cancel; nothing to publish
            const gguf::ElementRange range{begin, std::min(begin + step, (expert + 1) * expertElements)};
            reference.resize(static_cast<std::size_t>(range.size()));
            other.resize(reference.size());
            if (gguf::Status s = comparison->reconstruct(0, column, range, reference, other); !s)
                return s;
            if (importance) {  // the plain figures exactly as add() makes them, the weighted sums on top
                w.resize(reference.size());
                importance->fill(range.begin, w);
                accumulator.addWeighted(reference, other, w);
            } else {
                accumulator.add(reference, other);
            }
        }
        results->publish(static_cast<std::size_t>(chunk), accumulator.result());
        return gguf::Ok{};
    }, this);
    m_jobs.renew();
    m_pending = results;
    m_progress->track(job, tr("Quantization error of %n expert(s)", nullptr, static_cast<int>(experts)));
    m_jobs.onProgress(job, this, [this]() { collect(); });
    m_jobs.track(job, this, [this, entry, weights](const JobOutcome& outcome) {
        collect();
        m_pending.reset();
        if (entry && outcome.isDone() && !weights->importance)
            m_message->setText(m_message->text() + QLatin1Char('\n')
                               + tr("The importance matrix's entry does not fit this tensor's shape: no weighted figures."));
        if (!outcome.isDone()) {
            m_message->setText(outcome.isCancelled() ? tr("Cancelled; showing the experts finished so far.") : outcome.message());
            if (outcome.isCancelled())
                m_startWhenShown->requestOnNextShow();
            return;
        }
        emit errorsReady();
    });
}

void ExpertQuantErrorView::collect()
{
    if (!m_pending)
        return;
    const int columns = m_model->typeColumnCount();
    m_pending->takeNew([&](std::size_t slot, const gguf::ErrorMetrics& metrics) {
        m_model->setMetrics(slot / static_cast<std::size_t>(columns), static_cast<int>(slot % static_cast<std::size_t>(columns)), metrics);
    });
}

void ExpertQuantErrorView::updateChart()
{
    m_plot->clearPlottables();
    const int columns = m_model->typeColumnCount();
    auto* group = new QCPBarsGroup(m_plot);  // owned by the plot
    const double width = 0.8 / std::max(columns, 1);
    double low = 0.0;
    double high = 0.0;
    for (int column = 0; column < columns; ++column) {
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(m_model->columnLabels()[column]);
        bars->setPen(Qt::NoPen);
        bars->setBrush(kPalette[static_cast<std::size_t>(column) % std::size(kPalette)]);
        bars->setWidth(width);
        bars->setBarsGroup(group);
        QVector<double> experts;
        QVector<double> values;
        for (std::uint64_t e = 0; e < m_model->expertCount(); ++e) {
            if (const auto& cell = m_model->metrics(e, column)) {
                const double value = ExpertQuantErrorModel::metricValue(*cell, m_model->metric());
                if (!std::isfinite(value))
                    continue;
                experts << static_cast<double>(e);
                values << value;
                low = std::min(low, value);
                high = std::max(high, value);
            }
        }
        bars->setData(experts, values, true);
    }
    m_plot->yAxis->setLabel(ExpertQuantErrorModel::metricName(m_model->metric()));
    m_plot->xAxis->setRange(-0.75, std::max<double>(1.0, static_cast<double>(m_model->expertCount())) - 0.25);
    m_plot->yAxis->setRange(low * 1.08, high > low ? high * 1.08 : low + 1.0);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}
