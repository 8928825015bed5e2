#include "ui/experts/ExpertSimilarityView.h"
#include "ui/common/PlotReadout.h"

#include "ui/session/ExpertSelection.h"

#include "ui/common/PlotPalette.h"

#include "ui/session/BackgroundJob.h"
#include "ui/common/ColourScales.h"
#include "ui/common/DivergingGradient.h"
#include "core/experts/ExpertAnalysis.h"
#include "ui/common/JobProgressBar.h"
#include "ui/common/StartWhenShown.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QThread>
#include <QVBoxLayout>
#include <cmath>
#include <QScopeGuard>
#include <qcustomplot.h>

namespace {
QString nameOf(const gguf::TensorInfo& tensor)
{
    return QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size()));
}

QSharedPointer<QCPAxisTickerFixed> integerTicker()
{
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    return ticker;
}
}  // namespace

ExpertSimilarityView::ExpertSimilarityView(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_message(new QLabel(this)), m_hover(new QLabel(this)), m_similarityPlot(new QCustomPlot(this)),
      m_routerPlot(new QCustomPlot(this)), m_startWhenShown(new StartWhenShown(this, [this]() { start(); }))
{
    followPalette(m_similarityPlot);
    followPalette(m_routerPlot);
    m_message->setObjectName(QStringLiteral("similarityMessage"));
    m_message->setWordWrap(true);
    m_hover->setObjectName(QStringLiteral("similarityHover"));

    m_similarityPlot->setObjectName(QStringLiteral("similarityPlot"));
    m_similarityPlot->xAxis->setLabel(tr("expert"));
    m_similarityPlot->yAxis->setLabel(tr("expert"));
    m_similarityPlot->yAxis->setRangeReversed(true);
    m_similarityPlot->xAxis->setTicker(integerTicker());
    m_similarityPlot->yAxis->setTicker(integerTicker());
    m_map = new QCPColorMap(m_similarityPlot->xAxis, m_similarityPlot->yAxis);
    m_map->setInterpolate(false);
    auto* scale = new QCPColorScale(m_similarityPlot);
    scale->setLabel(tr("cosine similarity"));
    m_similarityPlot->plotLayout()->addElement(0, 1, scale);
    // Linking hands the scale's gradient to the map, so the gradient is set after linking.
    m_map->setColorScale(scale);
    m_map->setGradient(divergingGradient());
    m_map->setDataRange(QCPRange(-1.0, 1.0));  // cosine is bounded: a fixed scale compares layers
    hatchUndefinedCells(m_similarityPlot);
    connect(m_similarityPlot, &QCustomPlot::mouseMove, this, &ExpertSimilarityView::showHover);

    m_routerPlot->setObjectName(QStringLiteral("routerNormPlot"));
    m_routerBars = new QCPBars(m_routerPlot->xAxis, m_routerPlot->yAxis);
    m_routerBars->setPen(Qt::NoPen);
    m_routerBars->setBrush(QColor(214, 96, 77));
    m_routerBars->setWidth(0.8);
    m_routerPlot->xAxis->setLabel(tr("expert"));
    m_routerPlot->yAxis->setLabel(tr("router row L2 norm"));
    m_routerPlot->xAxis->setTicker(integerTicker());

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_similarityPlot, 1);
    leftLayout->addWidget(m_hover);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(m_routerPlot);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_message);
    layout->addWidget(splitter, 1);
}

bool ExpertSimilarityView::isComputing() const
{
    return m_similarityJobs.isRunning() || m_routerJobs.isRunning();
}

void ExpertSimilarityView::setTensors(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo* experts, const gguf::TensorInfo* router)
{
    m_similarityJobs.renew();
    m_routerJobs.renew();
    m_model = std::move(model);
    m_experts = experts;
    m_router = router;
    m_expertCount = 0;
    m_cosine.clear();
    m_routerNorms.clear();
    m_message->clear();
    displaySimilarity();
    displayRouterNorms();
    if (m_model && m_experts)
        m_startWhenShown->request();
    else
        m_startWhenShown->drop();
}

void ExpertSimilarityView::start()
{
    startSimilarity();
    startRouterNorms();
}

void ExpertSimilarityView::startSimilarity()
{
    const gguf::TensorInfo& tensor = *m_experts;
    const auto experts = static_cast<std::uint64_t>(tensor.ne[2]);
    const auto rows = static_cast<std::uint64_t>(tensor.ne[1]);
    if (experts > gguf::kMaxSimilarityExperts) {
        m_message->setText(tr("%1 experts: the similarity matrix is limited to %2.").arg(experts).arg(gguf::kMaxSimilarityExperts));
        return;
    }
    const int chunks = static_cast<int>(std::min<std::uint64_t>(std::max<std::uint64_t>(rows, 1),
                                                                static_cast<std::uint64_t>(std::max(1, QThread::idealThreadCount())) * 4));
    // Each chunk's dot products over its rows.
    BackgroundJob* job = m_similarityJobs.runChunks(
        chunks,
        [model = m_model, tensor = m_experts, rows, chunks, experts](int chunk, const JobControl& control) -> gguf::Result<std::vector<double>> {
            const std::uint64_t begin = rows * static_cast<std::uint64_t>(chunk) / static_cast<std::uint64_t>(chunks);
            const std::uint64_t end = rows * static_cast<std::uint64_t>(chunk + 1) / static_cast<std::uint64_t>(chunks);
            std::vector<double> partial(static_cast<std::size_t>(experts * experts), 0.0);
            if (gguf::Status s = gguf::accumulateExpertDots(*tensor, begin, end, partial, control.cancelFlag()); !s)
                return s.error();
            return partial;
        },
        [this, experts](const std::vector<std::vector<double>>& partials) {
            // Summed in chunk order on this thread: the same figures on every run.
            std::vector<double> dots(static_cast<std::size_t>(experts * experts), 0.0);
            for (const std::vector<double>& partial : partials)
                for (std::size_t i = 0; i < dots.size(); ++i)
                    dots[i] += partial[i];
            m_expertCount = experts;
            m_cosine = gguf::cosineFromDots(dots, experts);
            m_message->setText(zeroExpertsNote());
            displaySimilarity();
            emit similarityReady();
        },
        [this](const JobOutcome& outcome) {
            m_message->setText(outcome.isCancelled() ? tr("Similarity cancelled.") : outcome.message());
            if (outcome.isCancelled())
                m_startWhenShown->requestOnNextShow();  // showing the tab again retries
        });
    m_progress->track(job, tr("Similarity of the experts of %1").arg(nameOf(tensor)));
    m_message->setText(tr("Computing the similarity of %n expert(s)…", nullptr, static_cast<int>(experts)));
}

void ExpertSimilarityView::startRouterNorms()
{
    if (!m_router)
        return;
    BackgroundJob* job = m_routerJobs.run([model = m_model, router = m_router](const JobControl&) { return gguf::routerRowNorms(*router); },
                                          [this](std::vector<double> norms) {
                                              m_routerNorms = std::move(norms);
                                              displayRouterNorms();
                                              emit routerNormsReady();
                                          },
                                          [this](const JobOutcome& outcome) {
                                              m_routerPlot->yAxis->setLabel(outcome.isCancelled() ? tr("router norms cancelled") : outcome.message());
                                              m_routerPlot->replot(QCustomPlot::rpQueuedReplot);
                                          });
    m_progress->track(job, tr("Router norms of %1").arg(nameOf(*m_router)));
}

void ExpertSimilarityView::displaySimilarity()
{
    const auto n = static_cast<int>(m_expertCount);
    if (m_cosine.empty() || n == 0) {
        m_map->data()->clear();
        m_similarityPlot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    auto* mapData = new QCPColorMapData(n, n, QCPRange(0, n - 1), QCPRange(0, n - 1));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            mapData->setCell(j, i, m_cosine[static_cast<std::size_t>(i) * m_expertCount + static_cast<std::size_t>(j)]);
    m_map->setData(mapData);
    m_map->setDataRange(QCPRange(-1.0, 1.0));
    m_similarityPlot->xAxis->setRange(-0.5, n - 0.5);
    m_similarityPlot->yAxis->setRange(-0.5, n - 0.5);
    m_similarityPlot->replot(QCustomPlot::rpQueuedReplot);
}

void ExpertSimilarityView::displayRouterNorms()
{
    QVector<double> experts;
    QVector<double> norms;
    double peak = 0.0;
    for (std::size_t e = 0; e < m_routerNorms.size(); ++e) {
        experts << static_cast<double>(e);
        norms << m_routerNorms[e];
        peak = std::max(peak, std::isfinite(m_routerNorms[e]) ? m_routerNorms[e] : 0.0);
    }
    m_routerBars->setData(experts, norms, true);
    m_routerPlot->xAxis->setRange(-0.75, std::max<double>(1.0, static_cast<double>(m_routerNorms.size())) - 0.25);
    m_routerPlot->yAxis->setRange(0.0, peak > 0.0 ? peak * 1.08 : 1.0);
    m_routerPlot->yAxis->setLabel(m_router || !m_experts ? tr("router row L2 norm") : tr("this layer has no router (ffn_gate_inp)"));
    m_routerPlot->replot(QCustomPlot::rpQueuedReplot);
}

// A cosine with an all-zero expert is 0/0: its own cell (the diagonal) says which expert it is.
bool ExpertSimilarityView::isZeroExpert(std::uint64_t expert) const
{
    return expert < m_expertCount && std::isnan(m_cosine[static_cast<std::size_t>(expert * m_expertCount + expert)]);
}

QString ExpertSimilarityView::zeroExpertsNote() const
{
    std::vector<std::uint64_t> zero;
    for (std::uint64_t e = 0; e < m_expertCount; ++e)
        if (isZeroExpert(e))
            zero.push_back(e);
    if (zero.empty())
        return {};
    // As ranges ("0-127", "3,5-9"), and every one named as such: 128 numbers in a row said less.
    const QString which = zero.size() == m_expertCount ? tr("all %1 experts are").arg(m_expertCount)
                        : zero.size() == 1             ? tr("expert %1 is").arg(zero.front())
                                                       : tr("%1 experts (%2) are").arg(zero.size()).arg(formatExpertSelection(zero));
    return tr("Hatched cells are undefined: %1 all zeros, and a zero vector has no direction to compare.").arg(which);
}

void ExpertSimilarityView::showHover(QMouseEvent* event)
{
    const auto published = qScopeGuard([this]() { plotreadout::publish(m_similarityPlot, m_hover->text()); });
    const double x = std::round(m_similarityPlot->xAxis->pixelToCoord(event->position().x()));
    const double y = std::round(m_similarityPlot->yAxis->pixelToCoord(event->position().y()));
    const auto n = static_cast<double>(m_expertCount);
    if (m_cosine.empty() || x < 0 || y < 0 || x >= n || y >= n) {
        m_hover->clear();
        return;
    }
    const double value = m_cosine[static_cast<std::size_t>(y) * m_expertCount + static_cast<std::size_t>(x)];
    if (std::isnan(value)) {
        const auto zero = isZeroExpert(static_cast<std::uint64_t>(y)) ? y : x;
        m_hover->setText(tr("experts %1 and %2: undefined, expert %3 is all zeros (no direction to compare)").arg(y).arg(x).arg(zero));
        return;
    }
    m_hover->setText(tr("experts %1 and %2: cosine %3").arg(y).arg(x).arg(value, 0, 'f', 6));
}
