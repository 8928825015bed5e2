#include "ui/output/OutputErrorTab.h"

#include "ui/common/PlotExport.h"
#include "ui/common/PlotPalette.h"
#include "core/compare/ModelComparison.h"
#include "core/gguf/Vocabulary.h"
#include "ui/session/OutputRun.h"
#include "core/types/GgmlType.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTabWidget>
#include <QTextBrowser>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace {

const QList<QColor>& seriesColours()
{
    static const QList<QColor> colours = {QColor(0x1f77b4), QColor(0xd62728), QColor(0x2ca02c), QColor(0xff7f0e),
                                          QColor(0x9467bd), QColor(0x8c564b), QColor(0xe377c2), QColor(0x17becf)};
    return colours;
}

constexpr int kHistogramBins = 30;

// White (KLD 0) to red (the largest KLD of the run), as a background behind the token.
QColor kldColour(double kld, double maximum)
{
    const double t = maximum > 0.0 ? std::clamp(kld / maximum, 0.0, 1.0) : 0.0;
    return QColor::fromRgbF(1.0f, static_cast<float>(1.0 - 0.75 * t), static_cast<float>(1.0 - 0.75 * t));
}

}  // namespace

OutputErrorTab::OutputErrorTab(const gguf::ModelComparison& comparison, QWidget* parent)
    : QWidget(parent), m_reference(comparison.models()[comparison.referenceIndex()]), m_run(new OutputRun(this)),
      m_tokenEdit(new QLineEdit(this)), m_llamaActivations(new QCheckBox(tr("llama.cpp activations"), this)), m_runButton(new QPushButton(tr("Run"), this)), m_cancelButton(new QPushButton(tr("Cancel"), this)),
      m_exportButton(new QPushButton(tr("Export…"), this)), m_progress(new QProgressBar(this)), m_status(new QLabel(this)),
      m_summary(new QLabel(this)), m_candidate(new QComboBox(this)), m_views(new QTabWidget(this)), m_drift(new QCustomPlot(this)),
      m_histogram(new QCustomPlot(this)), m_router(new QCustomPlot(this)), m_text(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("outputErrorTab"));
    m_tokenEdit->setObjectName(QStringLiteral("outputTokens"));
    m_candidate->setObjectName(QStringLiteral("outputCandidate"));
    m_views->setObjectName(QStringLiteral("outputViews"));
    m_drift->setObjectName(QStringLiteral("outputDriftPlot"));
    m_histogram->setObjectName(QStringLiteral("outputKldHistogram"));
    m_router->setObjectName(QStringLiteral("outputRouterMap"));
    m_text->setObjectName(QStringLiteral("outputTokenText"));
    for (QCustomPlot* plot : {m_drift, m_histogram, m_router})
        followPalette(plot);
    for (const gguf::ComparisonColumn& column : comparison.columns())
        m_candidates.push_back({QString::fromStdString(column.label),
                                column.kind == gguf::ComparisonColumn::Kind::File ? column.model : nullptr, column.simulatedType});
    // Token ids until text input is wired to the tokenizer: BOS (if any) and the next ids.
    QStringList ids;
    const auto vocabularySize = m_reference->findTensor("token_embd.weight") ? m_reference->findTensor("token_embd.weight")->ne[1] : 0;
    for (std::int64_t id = 1; id <= std::min<std::int64_t>(32, vocabularySize - 1); ++id)
        ids << QString::number(id);
    m_tokenEdit->setText(ids.join(QLatin1Char(',')));
    m_tokenEdit->setToolTip(tr("Token ids, separated by commas"));
    m_llamaActivations->setObjectName(QStringLiteral("outputLlamaActivations"));
    m_llamaActivations->setToolTip(tr("Round or quantize the activations before each product as llama.cpp's CPU backend does "
                                      "(f16, q8_0, q8_K), to see llama.cpp's numbers; off: the model as its weights define it"));
    m_cancelButton->setEnabled(false);
    m_exportButton->setEnabled(false);
    m_progress->setVisible(false);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setOpenLinks(false);
    m_text->setMouseTracking(true);

    m_drift->xAxis->setLabel(tr("layer (blk.N)"));
    m_drift->yAxis->setLabel(tr("residual stream relative RMSE"));
    m_drift->yAxis->setScaleType(QCPAxis::stLogarithmic);
    m_drift->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    m_drift->legend->setVisible(true);
    for (QCustomPlot* plot : {m_drift, m_router}) {
        QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        (plot == m_drift ? plot->xAxis : plot->yAxis)->setTicker(ticker);
    }
    m_histogram->xAxis->setLabel(tr("KL divergence per position (nats)"));
    m_histogram->yAxis->setLabel(tr("positions"));
    m_router->xAxis->setLabel(tr("token position"));
    m_router->yAxis->setLabel(tr("layer"));

    m_views->addTab(m_drift, tr("Drift per layer"));
    m_views->addTab(m_histogram, tr("KLD histogram"));
    m_views->addTab(m_text, tr("Tokens"));
    m_views->addTab(m_router, tr("Router disagreement"));
    m_views->setTabEnabled(3, false);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Tokens:"), this));
    controls->addWidget(m_tokenEdit, 1);
    controls->addWidget(m_llamaActivations);
    controls->addWidget(m_runButton);
    controls->addWidget(m_cancelButton);
    controls->addWidget(new QLabel(tr("Show:"), this));
    controls->addWidget(m_candidate);
    controls->addWidget(m_exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_summary);
    layout->addWidget(m_views, 1);

    if (auto h = gguf::readHyperparameters(*m_reference); !h) {
        m_status->setText(tr("Cannot run this model: %1").arg(QString::fromStdString(h.error().message).toHtmlEscaped()));
        m_runButton->setEnabled(false);
    } else if (m_candidates.empty()) {
        m_status->setText(tr("Nothing to compare the reference with."));
        m_runButton->setEnabled(false);
    } else {
        m_status->setText(tr("Press Run to run the reference and %n other model(s) on these tokens.", nullptr,
                             static_cast<int>(m_candidates.size())));
    }

    connect(m_runButton, &QPushButton::clicked, this, &OutputErrorTab::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &OutputErrorTab::cancel);
    connect(m_exportButton, &QPushButton::clicked, this, &OutputErrorTab::chooseExport);
    connect(m_candidate, &QComboBox::currentIndexChanged, this, &OutputErrorTab::showCandidate);
    connect(m_run, &OutputRun::progress, this, [this](int done, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
    });
    connect(m_run, &OutputRun::finished, this, [this](auto result, auto vocabulary) {
        m_vocabulary = std::move(vocabulary);
        showResult(std::move(result));
    });
    connect(m_run, &OutputRun::failed, this, [this](const QString& message, bool cancelled) {
        m_progress->setVisible(false);
        m_runButton->setEnabled(true);
        m_cancelButton->setEnabled(false);
        m_status->setText(cancelled ? tr("Cancelled.") : tr("Failed: %1").arg(message.toHtmlEscaped()));
        emit runFinished(false, message);
    });
    connect(m_text, &QTextBrowser::highlighted, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("position"))
            QToolTip::showText(QCursor::pos(), tokenTooltip(url.path().toInt()), m_text);
        else
            QToolTip::hideText();
    });
}

OutputErrorTab::~OutputErrorTab() = default;

void OutputErrorTab::setTokens(const QString& ids)
{
    m_tokenEdit->setText(ids);
}

bool OutputErrorTab::isRunning() const
{
    return m_run->isRunning();
}

void OutputErrorTab::cancel()
{
    m_run->cancel();
}

void OutputErrorTab::run()
{
    std::vector<std::int32_t> tokens;
    for (const QString& part : m_tokenEdit->text().split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int id = part.toInt(&ok);
        if (!ok || id < 0) {
            m_status->setText(tr("Not a token id: %1").arg(part.toHtmlEscaped()));
            return;
        }
        tokens.push_back(id);
    }
    if (tokens.size() < 2) {
        m_status->setText(tr("Give at least two token ids."));
        return;
    }
    m_tokens = tokens;
    m_runButton->setEnabled(false);
    m_cancelButton->setEnabled(true);
    m_progress->setVisible(true);
    m_progress->setRange(0, 0);
    m_status->setText(tr("Running %n forward pass(es)…", nullptr, static_cast<int>(m_candidates.size() + 1)));
    m_run->start(m_reference, m_candidates, std::move(tokens), m_llamaActivations->isChecked());
}

void OutputErrorTab::showResult(std::shared_ptr<const gguf::OutputRunResult> result)
{
    m_result = std::move(result);
    m_progress->setVisible(false);
    m_runButton->setEnabled(true);
    m_cancelButton->setEnabled(false);
    m_exportButton->setEnabled(true);
    QStringList lines;
    for (std::size_t i = 0; i < m_result->labels.size(); ++i) {
        const auto& c = m_result->comparisons[i];
        lines << tr("<b>%1</b>: mean KLD %2 (median %3, p99 %4, max %5), same top token %6 %, Δp of the reference's top %7 %, PPL %8 (reference %9)")
                     .arg(QString::fromStdString(m_result->labels[i]).toHtmlEscaped())
                     .arg(c.kld.mean, 0, 'g', 4)
                     .arg(c.kld.median, 0, 'g', 4)
                     .arg(c.kld.p99, 0, 'g', 4)
                     .arg(c.kld.maximum, 0, 'g', 4)
                     .arg(100.0 * c.sameTopFraction, 0, 'f', 1)
                     .arg(100.0 * c.deltaTopProbability.mean, 0, 'f', 2)
                     .arg(c.perplexityOther, 0, 'f', 2)
                     .arg(c.perplexityReference, 0, 'f', 2);
    }
    m_summary->setText(lines.join(QStringLiteral("<br>")));
    m_status->setText(tr("%1 positions scored.").arg(m_result->scoredPositions));
    {
        const QSignalBlocker blocker(m_candidate);
        m_candidate->clear();
        for (const std::string& label : m_result->labels)
            m_candidate->addItem(QString::fromStdString(label));
    }
    drawDrift();
    showCandidate();
    emit runFinished(true, QString());
}

void OutputErrorTab::showCandidate()
{
    if (!m_result || m_candidate->currentIndex() < 0)
        return;
    const auto& c = m_result->comparisons[static_cast<std::size_t>(m_candidate->currentIndex())];
    drawHistogram(c);
    writeText(c);
    drawRouter(c);
}

void OutputErrorTab::drawDrift()
{
    m_drift->clearGraphs();
    double low = 1.0, high = 1e-12;
    for (std::size_t i = 0; i < m_result->comparisons.size(); ++i) {
        const auto& layers = m_result->comparisons[i].layers;
        QCPGraph* graph = m_drift->addGraph();
        graph->setName(QString::fromStdString(m_result->labels[i]));
        graph->setPen(QPen(seriesColours()[static_cast<int>(i) % seriesColours().size()], 2));
        graph->setScatterStyle(QCPScatterStyle::ssDisc);
        for (std::size_t l = 0; l < layers.size(); ++l) {
            const double v = std::max(layers[l].relativeRmse, 1e-12);
            graph->addData(static_cast<double>(l), v);
            low = std::min(low, v);
            high = std::max(high, v);
        }
    }
    const auto layerCount = m_result->comparisons.empty() ? 0 : m_result->comparisons.front().layers.size();
    m_drift->xAxis->setRange(-0.5, static_cast<double>(layerCount) - 0.5);
    m_drift->yAxis->setRange(low / 2, high * 2);
    m_drift->replot();
}

void OutputErrorTab::drawHistogram(const gguf::OutputComparison& c)
{
    m_histogram->clearPlottables();
    const double maximum = std::max(c.kld.maximum, 1e-12);
    QVector<double> centres(kHistogramBins), counts(kHistogramBins, 0.0);
    const double width = maximum / kHistogramBins;
    for (int b = 0; b < kHistogramBins; ++b)
        centres[b] = (b + 0.5) * width;
    for (const auto& p : c.positions)
        counts[std::min(kHistogramBins - 1, static_cast<int>(p.kld / width))] += 1.0;
    auto* bars = new QCPBars(m_histogram->xAxis, m_histogram->yAxis);
    bars->setName(m_candidate->currentText());
    bars->setWidth(width * 0.9);
    bars->setData(centres, counts);
    bars->setBrush(seriesColours()[std::max(0, m_candidate->currentIndex()) % seriesColours().size()]);
    m_histogram->xAxis->setRange(0, maximum);
    m_histogram->yAxis->setRange(0, *std::max_element(counts.begin(), counts.end()) * 1.1 + 1);
    m_histogram->replot();
}

void OutputErrorTab::drawRouter(const gguf::OutputComparison& c)
{
    m_router->clearPlottables();
    m_views->setTabEnabled(3, c.mixtureOfExperts);
    if (!c.mixtureOfExperts || c.routingChanged.empty())
        return;
    const int layers = static_cast<int>(c.routingChanged.size());
    const int tokens = static_cast<int>(c.routingChanged.front().size());
    auto* map = new QCPColorMap(m_router->xAxis, m_router->yAxis);
    map->data()->setSize(tokens, layers);
    map->data()->setRange(QCPRange(0, tokens - 1), QCPRange(0, layers - 1));
    for (int l = 0; l < layers; ++l)
        for (int t = 0; t < tokens; ++t)
            map->data()->setCell(t, l, c.routingChanged[static_cast<std::size_t>(l)][static_cast<std::size_t>(t)]);
    QCPColorGradient gradient;
    gradient.setColorStopAt(0.0, QColor(0xf0f0f0));
    gradient.setColorStopAt(1.0, QColor(0xd62728));
    map->setGradient(gradient);
    map->setDataRange(QCPRange(0, 1));
    map->setInterpolate(false);
    m_router->xAxis->setRange(-0.5, tokens - 0.5);
    m_router->yAxis->setRange(-0.5, layers - 0.5);
    m_router->replot();
}

QString OutputErrorTab::tokenText(std::int32_t id) const
{
    if (m_vocabulary && id >= 0 && static_cast<std::size_t>(id) < m_vocabulary->size())
        return QString::fromStdString(m_vocabulary->displayText(static_cast<std::size_t>(id)));
    return QStringLiteral("#%1").arg(id);
}

QString OutputErrorTab::tokenTooltip(int index) const
{
    if (!m_result || m_candidate->currentIndex() < 0)
        return {};
    const auto& c = m_result->comparisons[static_cast<std::size_t>(m_candidate->currentIndex())];
    if (index < 0 || static_cast<std::size_t>(index) >= c.positions.size())
        return {};
    const auto& p = c.positions[static_cast<std::size_t>(index)];
    return tr("position %1, KLD %2\nreference top: %3 (p %4)\n%5 top: %6%7")
        .arg(p.position)
        .arg(p.kld, 0, 'g', 4)
        .arg(tokenText(p.referenceTop))
        .arg(p.referenceTopProbability, 0, 'f', 4)
        .arg(m_candidate->currentText(), tokenText(p.otherTop))
        .arg(p.sameTop() ? QString() : tr("  (flipped)"));
}

void OutputErrorTab::writeText(const gguf::OutputComparison& c)
{
    // Each scored position's token (the input at that position) with its KLD as background;
    // a top-token flip is bold and underlined. Links carry the index for the hover tooltip.
    QString html = QStringLiteral("<p style='font-family: monospace; line-height: 150%'>");
    for (std::size_t i = 0; i < c.positions.size(); ++i) {
        const auto& p = c.positions[i];
        const std::int32_t token = m_tokens[static_cast<std::size_t>(p.position)];
        QString piece = tokenText(token).toHtmlEscaped();
        if (piece.isEmpty())
            piece = QStringLiteral("·");
        const QString style = QStringLiteral("background-color:%1; color:black; text-decoration:%2; font-weight:%3")
                                  .arg(kldColour(p.kld, c.kld.maximum).name(), p.sameTop() ? QStringLiteral("none") : QStringLiteral("underline"),
                                       p.sameTop() ? QStringLiteral("normal") : QStringLiteral("bold"));
        html += QStringLiteral("<a href='position:%1' style='%2'>%3</a> ").arg(i).arg(style, piece);
    }
    html += QStringLiteral("</p>");
    m_text->setHtml(html);
}

QString OutputErrorTab::exportCurrentView(const QString& path) const
{
    QWidget* current = m_views->currentWidget();
    if (auto* plot = qobject_cast<QCustomPlot*>(current))
        return exportPlot(plot, path, 0, 0, m_views->tabText(m_views->currentIndex()) + QStringLiteral(": ") + m_candidate->currentText());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return file.errorString();
    file.write(m_text->toHtml().toUtf8());
    return file.commit() ? QString() : file.errorString();
}

void OutputErrorTab::chooseExport()
{
    const bool text = m_views->currentWidget() == m_text;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export"), QString(),
                                                      text ? tr("HTML (*.html)") : tr("Images (*.png *.svg *.pdf)"));
    if (path.isEmpty())
        return;
    if (const QString error = exportCurrentView(path); !error.isEmpty())
        m_status->setText(tr("Export failed: %1").arg(error.toHtmlEscaped()));
    else
        m_status->setText(tr("Exported to %1").arg(path.toHtmlEscaped()));
}
