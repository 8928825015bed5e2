#include "ui/tensor/DistributionView.h"

#include "ui/common/PlotPlaceholder.h"

#include "ui/common/PlotPalette.h"
#include "ui/common/PlotReadout.h"

#include "ui/session/BackgroundJob.h"
#include "core/base/HumanFormat.h"
#include "core/gguf/RemoteRegion.h"
#include "ui/common/JobProgressBar.h"
#include "core/gguf/MetadataFormat.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace {
constexpr std::uint32_t kBins = 256;

// Above this many bytes still on the server, statistics wait for a click (as the heatmap does).
constexpr std::uint64_t kAskBeforeFetchingBytes = 64ull << 20;

QString number(double value)
{
    return QString::fromStdString(gguf::formatFloat(value, true));
}
}  // namespace

DistributionView::DistributionView(JobProgressBar* progress, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_plot(new QCustomPlot(this)), m_logScale(new QCheckBox(tr("Log counts"), this)),
      m_summary(new QLabel(this))
{
    followPalette(m_plot);
    m_plot->setObjectName(QStringLiteral("histogramPlot"));
    m_bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_bars->setPen(Qt::NoPen);
    m_bars->setBrush(QColor(67, 147, 195));
    m_plot->xAxis->setLabel(tr("value"));
    m_plot->yAxis->setLabel(tr("count"));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_logScale->setObjectName(QStringLiteral("logCounts"));
    connect(m_logScale, &QCheckBox::toggled, this, &DistributionView::display);

    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_summary->setObjectName(QStringLiteral("statisticsLabel"));
    m_summary->setMinimumWidth(220);

    auto* left = new QVBoxLayout;
    left->addWidget(m_logScale);
    left->addWidget(m_plot, 1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(left, 1);
    layout->addWidget(m_summary);
    m_placeholder = new PlotPlaceholder(m_plot);
    m_placeholder->show(tr("Select a tensor to see the distribution of its values."));
    plotreadout::install(m_plot, [this](const plotreadout::Pointer& at) { return binReadout(at.x); });
}

QString DistributionView::binReadout(double x) const
{
    // The count, not the bar's height: under "Log counts" the bar is log10(1 + count).
    const auto point = m_result ? plotreadout::pointAt(m_bars, x) : std::nullopt;
    return point ? plotreadout::histogramBin(m_result->histogram, static_cast<std::uint32_t>(point->index), tr("values"), tr("values")) : QString();
}

QString DistributionView::placeholderText() const
{
    return m_placeholder->text();
}

void DistributionView::setSlice(const SliceRef& slice)
{
    m_jobs.renew();
    m_result.reset();
    m_slice = slice;
    display();
    if (!slice.isValid()) {
        m_summary->clear();
        m_placeholder->show(tr("Select a tensor to see the distribution of its values."));
        return;
    }
    // A remote tensor says what its statistics would fetch before fetching it (the whole slice).
    const gguf::TensorInfo& tensor = *slice.slice.tensor;
    const std::uint8_t* first = tensor.data ? tensor.data + slice.slice.firstRow * tensor.rowBytes() : nullptr;
    const std::uint64_t needed = first ? gguf::mappedBytesToFetch(first, slice.slice.rowCount * tensor.rowBytes()) : 0;
    if (needed > kAskBeforeFetchingBytes && m_fetchApprovedFor != first) {
        const QString text = tr("These statistics need %1 from the server\n(click to fetch)").arg(QString::fromStdString(gguf::formatBytes(needed)));
        m_summary->setText(text);
        m_placeholder->show(text, [this, first]() {
            m_fetchApprovedFor = first;
            setSlice(m_slice);
        });
        return;
    }
    m_placeholder->show(tr("Computing…"));
    BackgroundJob* job = m_jobs.run(
        [slice](const JobControl& control) { return gguf::computeStatistics(slice.slice, kBins, control.cancelFlag()); },
        [this](gguf::SliceStatistics statistics) {
            m_placeholder->hide();
            m_result = std::move(statistics);
            display();
            emit statisticsReady();
        },
        [this](const JobOutcome& outcome) {
            m_summary->setText(outcome.isCancelled() ? tr("Cancelled.") : outcome.message());
            m_placeholder->show(outcome.isCancelled() ? tr("Cancelled — click to compute") : tr("%1\n(click to try again)").arg(outcome.message()),
                                [this]() { setSlice(m_slice); });
        });
    m_progress->track(job, tr("Statistics of %1").arg(slice.label()));
    m_summary->setText(tr("Computing…"));
}

void DistributionView::display()
{
    m_bars->data()->clear();
    if (!m_result) {
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const gguf::Statistics& s = m_result->statistics;
    const gguf::Histogram& h = m_result->histogram;
    const bool log = m_logScale->isChecked();
    const double width = (h.upper() - h.lower()) / static_cast<double>(h.counts().size());
    QVector<double> keys;
    QVector<double> counts;
    double peak = 1.0;
    for (std::uint32_t bin = 0; bin < h.counts().size(); ++bin) {
        keys << h.binLower(bin) + width / 2;
        // log10(1 + n) keeps empty bins at zero height.
        const double count = static_cast<double>(h.counts()[bin]);
        counts << (log ? std::log10(1.0 + count) : count);
        peak = std::max(peak, counts.back());
    }
    m_bars->setWidth(width > 0 ? width : 1.0);
    m_bars->setData(keys, counts, true);
    m_plot->yAxis->setLabel(log ? tr("log10(1 + count)") : tr("count"));
    m_plot->xAxis->setRange(h.lower() - width, h.upper() + width);
    m_plot->yAxis->setRange(0, peak * 1.05);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    // One value throughout (a zeroed tensor): a histogram of one bin of no width draws nothing,
    // so the plot says it.
    const std::uint64_t finite = s.finiteCount;
    if (finite > 0 && s.min == s.max)
        m_placeholder->show(finite == s.count ? tr("Every value is %1.").arg(number(s.min))
                                              : tr("Every finite value is %1.").arg(number(s.min)));
    else
        m_placeholder->hide();

    // The names keep a gap from their right-aligned numbers ("mean-0.00013" read as one word).
    m_summary->setText(tr("<table cellspacing=0>"
                          "<tr><td style='padding-right:12px'>count</td><td align=right>%1</td></tr>"
                          "<tr><td style='padding-right:12px'>min</td><td align=right>%2</td></tr>"
                          "<tr><td style='padding-right:12px'>max</td><td align=right>%3</td></tr>"
                          "<tr><td style='padding-right:12px'>mean</td><td align=right>%4</td></tr>"
                          "<tr><td style='padding-right:12px'>std</td><td align=right>%5</td></tr>"
                          "<tr><td style='padding-right:12px'>rms</td><td align=right>%6</td></tr>"
                          "<tr><td style='padding-right:12px'>zeros</td><td align=right>%7</td></tr>"
                          "<tr><td style='padding-right:12px'>NaN</td><td align=right>%8</td></tr>"
                          "<tr><td style='padding-right:12px'>Inf</td><td align=right>%9</td></tr>"
                          "</table>")
                           .arg(s.count)
                           .arg(number(s.min), number(s.max), number(s.mean), number(s.stddev), number(s.rms))
                           .arg(s.zeroCount)
                           .arg(s.nanCount)
                           .arg(s.infCount));
}
