#include "ui/common/ZoomableMatrixView.h"

#include "core/base/HumanFormat.h"

#include "ui/common/ColourRangeBox.h"
#include "ui/common/ColourScales.h"
#include "ui/common/DivergingGradient.h"
#include "ui/common/JobProgressBar.h"
#include "ui/common/PlaceholderText.h"
#include "ui/common/MatrixPlot.h"
#include "ui/common/PlotPalette.h"
#include "ui/common/PlotReadout.h"
#include "ui/session/BackgroundJob.h"
#include "ui/session/ResultCache.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QThread>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace {
constexpr int kZoomDebounceMs = 200;
constexpr std::uint32_t kMaxCells = 2048;
constexpr double kMinimumSpan = 1.0;  // zooming in stops at one element per axis

const std::vector<float>& emptyCells()
{
    static const std::vector<float> empty;
    return empty;
}

bool sameGrid(const gguf::HeatmapGrid& a, const gguf::HeatmapGrid& b)
{
    return a.rows == b.rows && a.columns == b.columns && a.aggregate == b.aggregate && a.region.rowBegin == b.region.rowBegin
        && a.region.rowEnd == b.region.rowEnd && a.region.columnBegin == b.region.columnBegin && a.region.columnEnd == b.region.columnEnd;
}

// `have` already shows `want`'s region, aggregate and at least its resolution.
bool covers(const gguf::HeatmapGrid& have, const gguf::HeatmapGrid& want)
{
    return have.rows >= want.rows && have.columns >= want.columns && have.aggregate == want.aggregate
        && have.region.rowBegin == want.region.rowBegin && have.region.rowEnd == want.region.rowEnd
        && have.region.columnBegin == want.region.columnBegin && have.region.columnEnd == want.region.columnEnd;
}

// Keeps `range` inside [low, high] and at least `minimum` wide, moving it rather than cutting.
QCPRange clampedRange(QCPRange range, double low, double high, double minimum)
{
    const double extent = high - low;
    double size = std::clamp(range.size(), std::min(minimum, extent), extent);
    double lower = range.center() - size / 2;
    lower = std::clamp(lower, low, high - size);
    return QCPRange(lower, lower + size);
}
}  // namespace

ZoomableMatrixView::ZoomableMatrixView(JobProgressBar* progress, const Options& options, QWidget* parent)
    : QWidget(parent), m_progress(progress), m_bandsPerThread(std::max(1, options.bandsPerThread)), m_plot(new QCustomPlot(this)),
      m_placeholder(new QPushButton(m_plot)), m_aggregate(new QComboBox(this)),
      m_resetZoom(new QToolButton(this)), m_lockScale(new QCheckBox(tr("Lock colour scale"), this)),
      m_colourRange(new ColourRangeBox(options.plotName + QStringLiteral("ColourRange"), this)), m_hover(new QLabel(this)),
      m_zoomDebounce(new QTimer(this)), m_resizeDebounce(new QTimer(this)),
      m_emptyText(options.emptyText.isEmpty() ? tr("Select a tensor to see its heatmap.") : options.emptyText)
{
    followPalette(m_plot);
    for (const auto& [label, aggregate] : options.aggregates)
        m_aggregate->addItem(label, static_cast<int>(aggregate));
    m_aggregate->setToolTip(options.aggregateTip);
    m_aggregate->setObjectName(options.aggregateName);
    connect(m_aggregate, &QComboBox::currentIndexChanged, this, &ZoomableMatrixView::requestVisibleRegion);

    m_plot->setObjectName(options.plotName);
    const MatrixPlotParts parts = setUpMatrixPlot(m_plot, options.scaleLabel);
    m_map = parts.map;
    m_scale = parts.scale;
    m_rowTicker = m_plot->yAxis->ticker();
    m_valueTicker = QSharedPointer<QCPAxisTicker>(new QCPAxisTicker);
    hatchUndefinedCells(m_plot);
    m_line = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
    m_line->setPen(QPen(QColor(0x1f77b4), 1.5));
    m_line->setVisible(false);

    // A flat button over the whole plot: a placeholder that reads as text instead of axes with
    // nothing (or something stale) on them, and computes again when clicked after a cancel or a
    // failure. It covers the plot rather than replacing it, so the plot keeps its size.
    m_placeholder->setObjectName(options.plotName + QStringLiteral("Placeholder"));
    m_placeholder->setFlat(true);
    m_placeholder->setAutoFillBackground(true);
    m_placeholderText = new PlaceholderText(m_placeholder);
    // Over the plot, not instead of it: the axes stay usable, the words say what white means.
    m_allZeroNote = new QLabel(m_plot);
    m_allZeroNote->setObjectName(options.plotName + QStringLiteral("AllZeroNote"));
    m_allZeroNote->setAlignment(Qt::AlignCenter);
    m_allZeroNote->setWordWrap(true);
    m_allZeroNote->setAttribute(Qt::WA_TransparentForMouseEvents);
    m_allZeroNote->hide();
    m_plot->installEventFilter(this);
    m_placeholder->installEventFilter(this);
    connect(m_placeholder, &QPushButton::clicked, this, [this]() {
        if (m_state == State::NeedsFetch)
            m_fetchApproved = true;
        if (m_state == State::Cancelled || m_state == State::Failed || m_state == State::NeedsFetch)
            requestVisibleRegion();
    });

    m_resetZoom->setText(tr("Reset zoom"));
    m_resetZoom->setToolTip(tr("Show the whole matrix (or double-click the plot)"));
    m_resetZoom->setObjectName(options.plotName + QStringLiteral("ResetZoom"));
    connect(m_resetZoom, &QToolButton::clicked, this, &ZoomableMatrixView::resetZoom);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { resetZoom(); });
    m_lockScale->setObjectName(options.plotName + QStringLiteral("LockScale"));
    m_lockScale->setToolTip(tr("Keep the colour range of what is shown now while zooming"));
    connect(m_lockScale, &QCheckBox::toggled, this, [this](bool locked) {
        if (!locked)
            unlockColourScale();
    });

    connect(m_colourRange, &ColourRangeBox::changed, this, &ZoomableMatrixView::applyColourRange);

    m_zoomDebounce->setSingleShot(true);
    m_zoomDebounce->setInterval(kZoomDebounceMs);
    connect(m_zoomDebounce, &QTimer::timeout, this, &ZoomableMatrixView::requestVisibleRegion);
    m_resizeDebounce->setSingleShot(true);
    m_resizeDebounce->setInterval(kZoomDebounceMs);
    connect(m_resizeDebounce, &QTimer::timeout, this, &ZoomableMatrixView::refineAfterResize);
    auto onRangeChanged = [this]() {
        if (m_settingRange)
            return;
        clampRanges();
        m_zoomDebounce->start();
    };
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, onRangeChanged);
    connect(m_plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, onRangeChanged);
    connect(m_plot, &QCustomPlot::mouseMove, this, &ZoomableMatrixView::showHover);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Cell aggregate:"), this));
    controls->addWidget(m_aggregate);
    controls->addWidget(m_resetZoom);
    controls->addWidget(m_lockScale);
    controls->addWidget(m_colourRange);
    controls->addStretch(1);
    m_hover->setObjectName(options.hoverName);
    // The hover text changes with every mouse move: it must never change the layout. Its own
    // line under the plot, the whole width and one text line high, so it always has the room
    // (squeezed in after a stretch, an Ignored label got no width at all).
    m_hover->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_hover->setMinimumHeight(m_hover->fontMetrics().height());
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_hover);
    setState(State::Empty);
}

bool ZoomableMatrixView::hasMatrix() const
{
    const gguf::HeatmapRegion whole = extent();
    return whole.rowEnd > 0 && whole.columnEnd > 0;
}

bool ZoomableMatrixView::isLine() const
{
    const gguf::HeatmapRegion whole = extent();
    return whole.rowEnd == 1 && whole.columnEnd > 0;
}

const std::vector<float>& ZoomableMatrixView::cells() const
{
    return m_shownCells ? *m_shownCells : emptyCells();
}

bool ZoomableMatrixView::isComputing() const
{
    return m_jobs.isRunning();
}

QString ZoomableMatrixView::aggregateLabel() const
{
    return m_aggregate->currentText();
}

QString ZoomableMatrixView::placeholderText() const
{
    return m_placeholder->isVisibleTo(m_plot) ? m_placeholderText->text() : QString();
}

bool ZoomableMatrixView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::Resize) {
        m_placeholder->setGeometry(m_plot->rect());
        m_allZeroNote->setGeometry(m_plot->rect());
    }
    // The button would pass the wheel on to the plot under it, whose zoom would compute what a
    // placeholder says is not there (or was cancelled): only a click does that.
    if (watched == m_placeholder && event->type() == QEvent::Wheel)
        return true;
    return QWidget::eventFilter(watched, event);
}

void ZoomableMatrixView::setRowBoundaries(std::uint64_t rows)
{
    clearRowBoundaries();
    const gguf::HeatmapRegion whole = extent();
    // More lines than that would paint the map over; the hover still names the expert.
    constexpr std::uint64_t kMaxBoundaries = 512;
    if (rows == 0 || isLine() || whole.rowEnd <= rows || whole.rowEnd / rows > kMaxBoundaries)
        return;
    for (std::uint64_t boundary = rows; boundary < whole.rowEnd; boundary += rows) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->setPen(QPen(QColor(0, 0, 0, 160), 1, Qt::DashLine));
        line->point1->setCoords(0, static_cast<double>(boundary) - 0.5);
        line->point2->setCoords(1, static_cast<double>(boundary) - 0.5);
        line->setSelectable(false);
        m_boundaries.push_back(line);
    }
    // Each part named at its top-left corner ("expert 3"), at most kMaxLabels of them so they
    // never overlap into a smear; the hover names the part of every row.
    constexpr std::uint64_t kMaxLabels = 32;
    const std::uint64_t parts = (whole.rowEnd + rows - 1) / rows;
    const std::uint64_t step = (parts + kMaxLabels - 1) / kMaxLabels;
    for (std::uint64_t part = 0; part < parts; part += step) {
        auto* label = new QCPItemText(m_plot);
        label->setObjectName(QStringLiteral("rowBoundaryLabel"));
        label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        label->position->setTypeY(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(0.005, static_cast<double>(part * rows) - 0.5);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setText(m_boundaryLabel.arg(part));
        label->setColor(Qt::black);
        label->setBrush(QColor(255, 255, 255, 190));
        label->setPadding(QMargins(2, 0, 2, 0));
        label->setClipToAxisRect(true);
        label->setSelectable(false);
        m_boundaryLabels.push_back(label);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ZoomableMatrixView::clearRowBoundaries()
{
    for (QCPItemStraightLine* line : m_boundaries)
        m_plot->removeItem(line);
    for (QCPItemText* label : m_boundaryLabels)
        m_plot->removeItem(label);
    m_boundaries.clear();
    m_boundaryLabels.clear();
}

QStringList ZoomableMatrixView::rowBoundaryLabels() const
{
    QStringList texts;
    for (const QCPItemText* label : m_boundaryLabels)
        texts << label->text();
    return texts;
}

void ZoomableMatrixView::setEmptyText(const QString& text)
{
    m_emptyText = text;
    if (m_state == State::Empty)
        setState(State::Empty);
}

bool ZoomableMatrixView::isColourScaleLocked() const
{
    return m_lockScale->isChecked();
}

void ZoomableMatrixView::setColourScaleLocked(bool locked)
{
    m_lockScale->setChecked(locked);
}

// Unlocked again: the scale of what is shown, as if it had just been computed.
void ZoomableMatrixView::unlockColourScale()
{
    if (!m_shownCells || m_state != State::Shown)
        return;
    if (isLine()) {
        const State state = m_state;
        m_state = State::Computing;  // displayLine ranges the axis unless a shown view is locked
        displayLine(m_shownGrid, *m_shownCells);
        m_state = state;
    } else {
        applyMapRange(*m_shownCells);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool ZoomableMatrixView::isOneSided() const
{
    return static_cast<gguf::CellAggregate>(m_aggregate->currentData().toInt()) == gguf::CellAggregate::AbsMax;
}

void ZoomableMatrixView::applyMapRange(const std::vector<float>& values)
{
    m_map->setDataRange(m_colourRange->rangeFor(values.data(), values.size(), isOneSided()));
}

// Another choice of range applies to what is shown at once, locked or not: it is what the user
// asked for now.
void ZoomableMatrixView::applyColourRange()
{
    if (!m_shownCells || m_state != State::Shown || isLine())
        return;
    applyMapRange(*m_shownCells);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QCPRange ZoomableMatrixView::colourRange() const
{
    return isLine() ? m_plot->yAxis->range() : m_map->dataRange();
}

QCPGraph* ZoomableMatrixView::lineGraph() const
{
    return isLine() ? m_line : nullptr;
}

QString ZoomableMatrixView::allZeroText() const
{
    return tr("Every value shown is 0.");
}

QString ZoomableMatrixView::allZeroNote() const
{
    return m_allZeroNote->isVisibleTo(m_plot) ? m_allZeroNote->text() : QString();
}

void ZoomableMatrixView::setState(State state, const QString& text)
{
    if (state != State::Shown)
        m_allZeroNote->hide();
    m_state = state;
    m_stateText = text;
    switch (state) {
    case State::Empty: m_placeholderText->setText(m_emptyText); break;
    case State::Computing: m_placeholderText->setText(tr("Computing…")); break;
    case State::Cancelled: m_placeholderText->setText(tr("Cancelled — click to compute")); break;
    case State::Failed: m_placeholderText->setText(tr("%1\n(click to try again)").arg(text)); break;
    case State::NeedsFetch: m_placeholderText->setText(text); break;
    case State::Shown: break;
    }
    m_placeholder->setCursor(state == State::Cancelled || state == State::Failed || state == State::NeedsFetch ? Qt::PointingHandCursor : Qt::ArrowCursor);
    m_placeholder->setGeometry(m_plot->rect());
    m_placeholder->setVisible(state != State::Shown);
    m_placeholder->raise();
    const bool usable = state == State::Shown;
    m_resetZoom->setEnabled(usable);
    m_lockScale->setEnabled(usable);
}

void ZoomableMatrixView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // A larger plot may show more cells: see once resizing settles whether that needs work.
    if (hasMatrix() && (m_state == State::Shown || m_state == State::Computing))
        m_resizeDebounce->start();
}

void ZoomableMatrixView::matrixChanged()
{
    m_jobs.renew();
    m_fetchApproved = false;
    m_zoomDebounce->stop();
    m_resizeDebounce->stop();
    m_shownCells.reset();
    m_shownGrid = {};
    m_pendingGrid = {};
    m_map->data()->clear();
    m_line->data()->clear();
    m_hover->clear();
    m_allZeroNote->hide();
    clearRowBoundaries();
    if (!hasMatrix()) {
        setState(State::Empty);
        m_plot->replot();
        return;
    }
    setState(State::Computing);  // until the first grid of this matrix is shown
    const gguf::HeatmapRegion whole = extent();
    const bool line = isLine();
    // A line: columns across, values up; the colour map and its bar are not used.
    m_map->setVisible(!line);
    m_scale->setVisible(!line);
    m_line->setVisible(line);
    m_plot->yAxis->setRangeReversed(!line);
    m_plot->yAxis->setLabel(line ? tr("value") : tr("row"));
    m_plot->yAxis->setTicker(line ? m_valueTicker : m_rowTicker);
    // Rows are whole numbers; a line's values are not ("1, 1, 1, 0" for 0.9 … 1.2).
    m_plot->yAxis->setNumberFormat(line ? QStringLiteral("g") : QStringLiteral("f"));
    m_plot->yAxis->setNumberPrecision(line ? 6 : 0);
    m_colourRange->setEnabled(!line);
    m_plot->axisRect()->setRangeDrag(line ? Qt::Horizontal : Qt::Horizontal | Qt::Vertical);
    m_plot->axisRect()->setRangeZoom(line ? Qt::Horizontal : Qt::Horizontal | Qt::Vertical);
    m_settingRange = true;
    m_plot->xAxis->setRange(-0.5, static_cast<double>(whole.columnEnd) - 0.5);
    if (!line)
        m_plot->yAxis->setRange(-0.5, static_cast<double>(whole.rowEnd) - 0.5);
    m_settingRange = false;
    requestRegion(whole);
}

void ZoomableMatrixView::resetZoom()
{
    if (!hasMatrix())
        return;
    const gguf::HeatmapRegion whole = extent();
    m_settingRange = true;
    m_plot->xAxis->setRange(-0.5, static_cast<double>(whole.columnEnd) - 0.5);
    if (!isLine())
        m_plot->yAxis->setRange(-0.5, static_cast<double>(whole.rowEnd) - 0.5);
    m_settingRange = false;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    m_zoomDebounce->stop();
    requestVisibleRegion();
}

// Zooming out stops at the matrix, zooming in at one element; panning stays over the matrix.
void ZoomableMatrixView::clampRanges()
{
    if (!hasMatrix())
        return;
    const gguf::HeatmapRegion whole = extent();
    const QCPRange x = clampedRange(m_plot->xAxis->range(), -0.5, static_cast<double>(whole.columnEnd) - 0.5, kMinimumSpan);
    m_settingRange = true;
    m_plot->xAxis->setRange(x);
    if (!isLine())  // a line's vertical axis holds values, not rows
        m_plot->yAxis->setRange(clampedRange(m_plot->yAxis->range(), -0.5, static_cast<double>(whole.rowEnd) - 0.5, kMinimumSpan));
    m_settingRange = false;
}

gguf::HeatmapRegion ZoomableMatrixView::visibleRegion() const
{
    const gguf::HeatmapRegion whole = extent();
    const QCPRange xs = m_plot->xAxis->range();
    const QCPRange ys = m_plot->yAxis->range();
    auto clampIndex = [](double value, std::uint64_t limit) {
        return static_cast<std::uint64_t>(std::clamp(value, 0.0, static_cast<double>(limit)));
    };
    gguf::HeatmapRegion region;
    region.columnBegin = clampIndex(std::floor(xs.lower + 0.5), whole.columnEnd - 1);
    region.columnEnd = std::max(region.columnBegin + 1, clampIndex(std::ceil(xs.upper + 0.5), whole.columnEnd));
    region.rowBegin = clampIndex(std::floor(ys.lower + 0.5), whole.rowEnd - 1);
    region.rowEnd = std::max(region.rowBegin + 1, clampIndex(std::ceil(ys.upper + 0.5), whole.rowEnd));
    if (isLine()) {
        region.rowBegin = 0;
        region.rowEnd = 1;
    }
    return region;
}

gguf::HeatmapGrid ZoomableMatrixView::gridFor(const gguf::HeatmapRegion& region) const
{
    const qreal ratio = devicePixelRatioF();
    const QRect rect = m_plot->axisRect()->rect();
    const double low = std::min(m_minimumCells, kMaxCells);
    const auto maxColumns = static_cast<std::uint32_t>(std::clamp<double>(rect.width() * ratio, low, kMaxCells));
    const auto maxRows = static_cast<std::uint32_t>(std::clamp<double>(rect.height() * ratio, low, kMaxCells));
    const auto aggregate = static_cast<gguf::CellAggregate>(m_aggregate->currentData().toInt());
    return gguf::fitHeatmapGrid(region, maxRows, maxColumns, aggregate);
}

void ZoomableMatrixView::requestVisibleRegion()
{
    if (!hasMatrix())
        return;
    requestRegion(visibleRegion());
}

// Only a size that needs more cells than shown (or on their way) asks for work: a smaller plot
// draws the cells it has, so a layout that shrinks the plot while a job runs and grows it back
// when the job ends cannot restart the job.
void ZoomableMatrixView::refineAfterResize()
{
    if (!hasMatrix() || (m_state != State::Shown && m_state != State::Computing))
        return;
    const gguf::HeatmapGrid wanted = gridFor(visibleRegion());
    if (m_jobs.isRunning() && covers(m_pendingGrid, wanted))
        return;
    if (!m_jobs.isRunning() && m_shownCells && covers(m_shownGrid, wanted))
        return;
    requestRegion(wanted.region);
}

void ZoomableMatrixView::requestRegion(const gguf::HeatmapRegion& region)
{
    if (!hasMatrix())
        return;
    const gguf::HeatmapGrid grid = gridFor(region);
    // The same request again (the same zoom after a debounce, a click on the same cell) changes
    // nothing: leave the job under way, or what is shown, alone.
    if (m_jobs.isRunning() && sameGrid(grid, m_pendingGrid))
        return;
    if (!m_jobs.isRunning() && m_state == State::Shown && m_shownCells && sameGrid(grid, m_shownGrid))
        return;
    // Every other request, even one the cache answers, makes the jobs of older ones stale.
    m_jobs.renew();
    const QString key = cacheKey(grid);
    if (!key.isEmpty()) {
        if (auto cached = ResultCache::instance().find(key)) {
            display(grid, std::move(cached));
            return;
        }
    }
    // A remote matrix says what a view would cost before it costs it; a zoomed window of few
    // rows stays under the threshold and computes at once, fetching only its rows.
    if (!m_fetchApproved) {
        if (const std::uint64_t needed = bytesToFetch(grid.region); needed > m_fetchThreshold) {
            m_pendingGrid = {};
            setState(State::NeedsFetch, tr("This view needs %1 from the server\n(click to fetch)")
                                            .arg(QString::fromStdString(gguf::formatBytes(needed))));
            return;
        }
    }
    startJob(grid, key);
}

void ZoomableMatrixView::startJob(const gguf::HeatmapGrid& grid, const QString& key)
{
    const int threads = std::max(1, QThread::idealThreadCount());
    const int bands = static_cast<int>(std::min<std::uint32_t>(grid.rows, static_cast<std::uint32_t>(threads * m_bandsPerThread)));
    // Each band's rows of cells; joined in band order on the GUI thread (a grid is screen-sized).
    BackgroundJob* job = m_jobs.runChunks(
        bands,
        [work = bandWork(), grid, bands](int band, const JobControl& control) -> gguf::Result<std::vector<float>> {
            const auto first = static_cast<std::uint32_t>(static_cast<std::uint64_t>(grid.rows) * band / bands);
            const auto last = static_cast<std::uint32_t>(static_cast<std::uint64_t>(grid.rows) * (band + 1) / bands);
            std::vector<float> out(static_cast<std::size_t>(last - first) * grid.columns);
            if (gguf::Status s = work(grid, first, last, out, control.cancelFlag()); !s)
                return s.error();
            return out;
        },
        [this, grid, key](const std::vector<std::vector<float>>& bandCells) {
            m_pendingGrid = {};
            auto cells = std::make_shared<std::vector<float>>();
            cells->reserve(static_cast<std::size_t>(grid.rows) * grid.columns);
            for (const std::vector<float>& band : bandCells)
                cells->insert(cells->end(), band.begin(), band.end());
            if (!key.isEmpty())
                ResultCache::instance().insert(key, cells);
            display(grid, cells);
        },
        [this](const JobOutcome& outcome) {
            m_pendingGrid = {};
            // Stale jobs never get here (the runner drops them): a cancel here is the user's.
            if (outcome.isCancelled()) {
                m_hover->clear();
                setState(State::Cancelled);
                return;
            }
            m_hover->setText(outcome.message());
            setState(State::Failed, outcome.message());
        });
    ++m_jobsStarted;
    m_pendingGrid = grid;
    // A zoom keeps the plot on screen while it computes; the first grid has nothing to show yet.
    if (m_state != State::Shown)
        setState(State::Computing);
    if (m_progress)
        m_progress->track(job, jobDescription());
}

void ZoomableMatrixView::display(const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells)
{
    m_shownGrid = grid;
    m_shownCells = std::move(cells);
    const std::vector<float>& values = *m_shownCells;
    if (isLine()) {
        displayLine(grid, values);
    } else {
        const gguf::HeatmapRegion& r = grid.region;
        const double cellWidth = static_cast<double>(r.columnEnd - r.columnBegin) / grid.columns;
        const double cellHeight = static_cast<double>(r.rowEnd - r.rowBegin) / grid.rows;
        auto* mapData = new QCPColorMapData(static_cast<int>(grid.columns), static_cast<int>(grid.rows),
                                            QCPRange(r.columnBegin + cellWidth / 2 - 0.5, r.columnEnd - cellWidth / 2 - 0.5),
                                            QCPRange(r.rowBegin + cellHeight / 2 - 0.5, r.rowEnd - cellHeight / 2 - 0.5));
        for (std::uint32_t row = 0; row < grid.rows; ++row)
            for (std::uint32_t column = 0; column < grid.columns; ++column)
                mapData->setCell(static_cast<int>(column), static_cast<int>(row), values[static_cast<std::size_t>(row) * grid.columns + column]);
        m_map->setData(mapData);
        m_map->setGradient(isOneSided() ? magnitudeGradient() : divergingGradient());
        // Locked: the range of the first grid shown since the lock (or of the one on screen then).
        if (!m_lockScale->isChecked() || m_state != State::Shown)
            applyMapRange(values);
    }
    setState(State::Shown);
    const bool allZero = std::all_of(values.begin(), values.end(), [](float value) { return value == 0.0f; });
    m_allZeroNote->setText(allZero ? allZeroText() : QString());
    m_allZeroNote->setGeometry(m_plot->rect());
    m_allZeroNote->setVisible(allZero && !values.empty());
    m_allZeroNote->raise();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    emit heatmapReady();
}

void ZoomableMatrixView::displayLine(const gguf::HeatmapGrid& grid, const std::vector<float>& values)
{
    const gguf::HeatmapRegion& r = grid.region;
    const double cellWidth = static_cast<double>(r.columnEnd - r.columnBegin) / grid.columns;
    QVector<double> xs, ys;
    xs.reserve(static_cast<qsizetype>(grid.columns));
    ys.reserve(static_cast<qsizetype>(grid.columns));
    double low = 0.0, high = 0.0;
    bool any = false;
    for (std::uint32_t column = 0; column < grid.columns; ++column) {
        const double value = values[column];
        xs.push_back(r.columnBegin + (column + 0.5) * cellWidth - 0.5);
        ys.push_back(value);
        if (std::isfinite(value)) {
            low = any ? std::min(low, value) : value;
            high = any ? std::max(high, value) : value;
            any = true;
        }
    }
    m_line->setData(xs, ys, true);
    m_line->setLineStyle(grid.columns == 1 ? QCPGraph::lsNone : QCPGraph::lsStepCenter);
    m_line->setScatterStyle(grid.columns <= 64 ? QCPScatterStyle(QCPScatterStyle::ssDisc, 5) : QCPScatterStyle());
    if (!m_lockScale->isChecked() || m_state != State::Shown) {
        const double margin = high > low ? (high - low) * 0.05 : std::max(std::fabs(high), 1.0) * 0.05;
        m_settingRange = true;
        m_plot->yAxis->setRange(low - margin, high + margin);
        m_settingRange = false;
    }
}

QString ZoomableMatrixView::spanText(const QString& one, const QString& many, CellSpan span)
{
    return plotreadout::spanText(one, many, span.first, span.last);
}

void ZoomableMatrixView::showHover(QMouseEvent* event)
{
    if (!m_shownCells || m_shownGrid.rows == 0)
        return;
    const gguf::HeatmapRegion& r = m_shownGrid.region;
    // The cell drawn under the pointer, and the source rows and columns the reducer put in it.
    const auto columns = plotreadout::spanAt(m_plot->xAxis->pixelToCoord(event->position().x()), r.columnBegin, r.columnEnd, m_shownGrid.columns);
    const auto rows = isLine() ? std::optional<plotreadout::CellSpan>(plotreadout::CellSpan{0, r.rowBegin, r.rowEnd - 1})
                               : plotreadout::spanAt(m_plot->yAxis->pixelToCoord(event->position().y()), r.rowBegin, r.rowEnd, m_shownGrid.rows);
    if (!columns || !rows) {
        m_hover->clear();
        plotreadout::publish(m_plot, {});
        return;
    }
    const float value = (*m_shownCells)[static_cast<std::size_t>(rows->cell) * m_shownGrid.columns + columns->cell];
    m_hover->setText(hoverText(CellSpan{rows->first, rows->last}, CellSpan{columns->first, columns->last}, value));
    plotreadout::publish(m_plot, m_hover->text());
}
