#include "ui/output/OutputErrorTab.h"

#include "core/compare/ModelComparison.h"
#include "core/forward/ActivationRounding.h"
#include "core/forward/ForwardPass.h"
#include "core/forward/KldTextChunks.h"
#include "core/gguf/Vocabulary.h"
#include "ui/common/PlotExportMenu.h"
#include "ui/common/PlotPalette.h"
#include "ui/common/PlotPlaceholder.h"
#include "ui/compare/ComparisonColumnStyle.h"
#include "ui/output/OutputCharts.h"
#include "ui/output/OutputText.h"
#include "ui/session/ComparisonColumnTitle.h"
#include "ui/common/FileDialogs.h"
#include "ui/common/KvCacheBoxes.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsOpacityEffect>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTabWidget>
#include <QTextBrowser>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace {

enum InputKind { TextInput, IdsInput, TextFileInput };
enum View { DriftView, HistogramView, TokensView, RouterView };

// Real text by default, through the model's tokenizer: ids 1..32 are mostly byte tokens, on which
// a model's outputs mean little (a Q2_K file may "beat" a Q4_K one there within noise).
const char* const kDefaultText =
    "The old lighthouse stood at the edge of the cliff, its lamp dark for many years. Every evening the keeper's "
    "daughter still climbed the hundred and twelve steps, counted the ships on the horizon and wrote their names in a book.";

constexpr qreal kStaleOpacity = 0.35;

}  // namespace

OutputErrorTab::OutputErrorTab(const gguf::ModelComparison& comparison, QWidget* parent)
    : QWidget(parent), m_reference(comparison.models()[comparison.referenceIndex()]),
      m_referenceName(QFileInfo(QString::fromStdString(m_reference->primary().path())).fileName()), m_run(new OutputRun(this)),
      m_inputKind(new QComboBox(this)), m_tokenEdit(new QLineEdit(this)), m_activations(new QComboBox(this)),
      m_cacheType(newCacheTypeBox(this)), m_flashAttention(newFlashAttentionBox(this)),
      m_runButton(new QPushButton(tr("Run"), this)), m_cancelButton(new QPushButton(tr("Cancel"), this)),
      m_exportButton(new QPushButton(tr("Export…"), this)), m_progress(new QProgressBar(this)), m_status(new QLabel(this)),
      m_figuresFor(new QLabel(this)), m_summary(new QLabel(this)), m_candidate(new QComboBox(this)), m_views(new QTabWidget(this)),
      m_drift(new QCustomPlot(this)), m_histogram(new QCustomPlot(this)), m_router(new QCustomPlot(this)), m_text(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("outputErrorTab"));
    m_chooseFile = new QPushButton(tr("Choose…"), this);
    m_chooseFile->setObjectName(QStringLiteral("outputChooseTextFile"));
    m_chooseFile->setToolTip(tr("A text file to run, as kld --text-file and llama-perplexity -f"));
    m_chunk = new QSpinBox(this);
    m_chunk->setObjectName(QStringLiteral("outputChunk"));
    m_chunk->setRange(4, static_cast<int>(gguf::kMaxForwardTokens));
    m_chunk->setValue(static_cast<int>(gguf::kDefaultKldTextChunk));
    m_chunk->setPrefix(tr("chunks of "));
    m_chunk->setSuffix(tr(" tokens"));
    m_chunk->setToolTip(tr("A text file is cut as llama-perplexity -c N and kld --text-file --chunk N cut it: windows of N tokens, "
                           "the first token of each BOS, the second half of each scored (512, their default). A text no longer "
                           "than one window is one sequence. The same file and window give the CLI's figures."));
    m_tokenEdit->setObjectName(QStringLiteral("outputTokens"));
    m_inputKind->setObjectName(QStringLiteral("outputInputKind"));
    m_candidate->setObjectName(QStringLiteral("outputCandidate"));
    m_views->setObjectName(QStringLiteral("outputViews"));
    m_drift->setObjectName(QStringLiteral("outputDriftPlot"));
    m_histogram->setObjectName(QStringLiteral("outputKldHistogram"));
    m_router->setObjectName(QStringLiteral("outputRouterMap"));
    m_text->setObjectName(QStringLiteral("outputTokenText"));
    m_status->setObjectName(QStringLiteral("outputStatus"));
    m_figuresFor->setObjectName(QStringLiteral("outputFiguresFor"));
    for (QCustomPlot* plot : {m_drift, m_histogram, m_router})
        followPalette(plot);
    setUpDriftPlot(m_drift);
    setUpKldHistogram(m_histogram);
    setUpRouterMap(m_router);

    // Each compared model by its column's name and colour, as on the Table and the charts.
    for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
        const gguf::ComparisonColumn& column = comparison.columns()[c];
        m_candidates.push_back({comparisonColumnTitle(comparison, c), column.kind == gguf::ComparisonColumn::Kind::File ? column.model : nullptr,
                                column.simulatedType});
        m_pens << comparisonColumnPen(comparison, c, 2);
        m_brushes << comparisonColumnBrush(comparison, c);
        m_candidate->addItem(comparisonColumnSwatch(comparison, c), m_candidates.back().label);
        m_candidate->setItemData(static_cast<int>(c), comparisonColumnSource(comparison, c), Qt::ToolTipRole);
    }
    m_candidate->setSizeAdjustPolicy(QComboBox::AdjustToContents);  // "Q4_K_M · model-b", never "hidden-n"
    m_candidate->setEnabled(false);

    m_inputKind->addItem(tr("Text"));
    m_inputKind->addItem(tr("Token ids"));
    m_inputKind->addItem(tr("Text file"));
    m_inputKind->setToolTip(tr("Text goes through the reference's tokenizer (BOS included, as llama.cpp); token ids are run as given; "
                               "a text file is run in llama-perplexity's windows, as kld --text-file"));
    // The ids offered when the model has no tokenizer: BOS (if any) and the next ids.
    QStringList ids;
    const auto* embeddings = m_reference->findTensor("token_embd.weight");
    const std::int64_t vocabularySize = embeddings ? embeddings->ne[1] : 0;
    for (std::int64_t id = 1; id <= std::min<std::int64_t>(32, vocabularySize - 1); ++id)
        ids << QString::number(id);
    const bool hasTokenizer = !m_reference->metadataString("tokenizer.ggml.model").empty();
    m_inputKind->setItemData(TextInput, QString::fromLatin1(kDefaultText));
    m_inputKind->setItemData(IdsInput, ids.join(QLatin1Char(',')));
    m_inputKind->setItemData(TextFileInput, QString());
    m_inputKind->setCurrentIndex(hasTokenizer ? TextInput : IdsInput);
    m_tokenEdit->setText(m_inputKind->currentData().toString());
    m_tokenEdit->setToolTip(tr("The text to run, or token ids separated by commas"));
    // The edit keeps what was typed for each kind, so switching back and forth loses nothing.
    const auto fileControls = [this] {
        const bool file = isTextFileInput();
        m_chooseFile->setVisible(file);
        m_chunk->setVisible(file);
        m_tokenEdit->setPlaceholderText(file ? tr("a text file") : QString());
    };
    fileControls();
    connect(m_inputKind, &QComboBox::currentIndexChanged, this, [this, fileControls](int kind) {
        const QSignalBlocker blocker(m_tokenEdit);
        m_tokenEdit->setText(m_inputKind->itemData(kind).toString());
        fileControls();
        updateStaleness();
    });
    connect(m_chunk, &QSpinBox::valueChanged, this, &OutputErrorTab::updateStaleness);
    connect(m_chooseFile, &QPushButton::clicked, this, [this] {
        const QString path = askOpenFileName(this, tr("Text file"), QFileInfo(m_tokenEdit->text()).absolutePath(),
                                             tr("Text files (*.txt *.raw *.md);;All files (*)"));
        if (!path.isEmpty())
            m_tokenEdit->setText(path);
    });
    connect(m_tokenEdit, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_inputKind->setItemData(m_inputKind->currentIndex(), text);
        updateStaleness();
    });

    m_activations->setObjectName(QStringLiteral("outputActivations"));
    m_activations->addItem(tr("llama.cpp's arithmetic"), static_cast<int>(gguf::ActivationArithmetic::LlamaCpp));
    m_activations->addItem(tr("q8 activations only"), static_cast<int>(gguf::ActivationArithmetic::QuantizedAsLlamaCpp));
    m_activations->addItem(tr("f32 activations"), static_cast<int>(gguf::ActivationArithmetic::Float32));
    m_activations->setToolTip(tr("llama.cpp's arithmetic: everything its CPU backend rounds (q8 activations into quantized weights, "
                                 "f16 into f16 weights, the KV cache and attention chosen beside): llama-perplexity's numbers.\n"
                                 "q8 activations only: those into quantized weights, f32 elsewhere, an f32 cache and plain attention "
                                 "(faster).\n"
                                 "f32: the model as its weights define it (slower on quantized files)."));
    m_cacheType->setObjectName(QStringLiteral("outputCacheType"));
    m_flashAttention->setObjectName(QStringLiteral("outputFlashAttention"));
    // The cache applies to llama.cpp's arithmetic; the other two keep f32 keys and values.
    const auto cacheApplies = [this] {
        const bool llama = m_activations->currentData().toInt() == static_cast<int>(gguf::ActivationArithmetic::LlamaCpp);
        m_cacheType->setEnabled(llama);
        m_flashAttention->setEnabled(llama);
    };
    for (QComboBox* box : {m_activations, m_cacheType, m_flashAttention})
        connect(box, &QComboBox::currentIndexChanged, this, [this, cacheApplies] {
            cacheApplies();
            updateStaleness();
        });
    m_cancelButton->setEnabled(false);
    m_exportButton->setEnabled(false);
    // The bar keeps its place while hidden: the views under it never jump when a run starts or ends.
    QSizePolicy keep = m_progress->sizePolicy();
    keep.setRetainSizeWhenHidden(true);
    m_progress->setSizePolicy(keep);
    m_progress->setVisible(false);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_figuresFor->setWordWrap(true);
    m_figuresFor->setTextFormat(Qt::PlainText);
    m_text->setOpenLinks(false);
    m_text->setMouseTracking(true);

    m_views->addTab(m_drift, tr("Drift per layer"));
    m_views->addTab(m_histogram, tr("KLD histogram"));
    m_views->addTab(m_text, tr("Tokens"));
    m_views->addTab(m_router, tr("Router disagreement"));
    m_views->setTabEnabled(RouterView, false);
    m_views->setGraphicsEffect(new QGraphicsOpacityEffect(m_views));
    static_cast<QGraphicsOpacityEffect*>(m_views->graphicsEffect())->setOpacity(1.0);
    m_views->graphicsEffect()->setEnabled(false);

    m_driftPlaceholder = new PlotPlaceholder(m_drift);
    m_histogramPlaceholder = new PlotPlaceholder(m_histogram);
    m_routerPlaceholder = new PlotPlaceholder(m_router);
    addPlotExport(m_drift, [this]() { return exportTitle(tr("Residual-stream drift per layer")); });
    addPlotExport(m_histogram, [this]() { return exportTitle(tr("KL divergence per position")); });
    addPlotExport(m_router, [this]() { return exportTitle(tr("Router disagreement (layer × token)")); });

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_inputKind);
    controls->addWidget(m_tokenEdit, 1);
    controls->addWidget(m_chooseFile);
    controls->addWidget(m_chunk);
    controls->addWidget(m_activations);
    controls->addWidget(new QLabel(tr("KV:"), this));
    controls->addWidget(m_cacheType);
    controls->addWidget(new QLabel(tr("Flash attention:"), this));
    controls->addWidget(m_flashAttention);
    controls->addWidget(m_runButton);
    controls->addWidget(m_cancelButton);
    controls->addWidget(new QLabel(tr("Show:"), this));
    controls->addWidget(m_candidate);
    controls->addWidget(m_exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_figuresFor);
    layout->addWidget(m_summary);
    layout->addWidget(m_views, 1);

    if (auto h = gguf::readHyperparameters(*m_reference); !h) {
        m_status->setText(tr("Cannot run this model: %1").arg(QString::fromStdString(h.error().message).toHtmlEscaped()));
        m_runButton->setEnabled(false);
        coverCharts(tr("This model cannot be run: %1").arg(QString::fromStdString(h.error().message)));
    } else if (m_candidates.empty()) {
        m_status->setText(tr("Nothing to compare the reference with."));
        m_runButton->setEnabled(false);
        coverCharts(m_status->text());
    } else {
        m_status->setText(tr("Press Run to run the reference and %n other model(s) on the input above.", nullptr,
                             static_cast<int>(m_candidates.size())));
        coverCharts(tr("Nothing has run yet: press Run to run the reference and %n other model(s) on the input above "
                       "(a forward pass of a large model takes minutes).", nullptr, static_cast<int>(m_candidates.size())));
    }

    connect(m_runButton, &QPushButton::clicked, this, &OutputErrorTab::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &OutputErrorTab::cancel);
    connect(m_exportButton, &QPushButton::clicked, this, &OutputErrorTab::chooseExport);
    connect(m_candidate, &QComboBox::currentIndexChanged, this, &OutputErrorTab::showCandidate);
    connect(m_run, &OutputRun::progress, this, [this](int done, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
    });
    connect(m_run, &OutputRun::finished, this, [this](auto result, auto vocabulary, const std::vector<std::int32_t>& tokens) {
        m_vocabulary = std::move(vocabulary);
        showResult(std::move(result), tokens);
    });
    connect(m_run, &OutputRun::failed, this, &OutputErrorTab::showRunFailed);
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
    m_inputKind->setCurrentIndex(IdsInput);
    m_tokenEdit->setText(ids);
}

void OutputErrorTab::setText(const QString& text)
{
    m_inputKind->setCurrentIndex(TextInput);
    m_tokenEdit->setText(text);
}

void OutputErrorTab::setTextFile(const QString& path, int chunk)
{
    m_inputKind->setCurrentIndex(TextFileInput);
    m_tokenEdit->setText(path);
    m_chunk->setValue(chunk);
}

bool OutputErrorTab::isTextInput() const
{
    return m_inputKind->currentIndex() == TextInput;
}

bool OutputErrorTab::isTextFileInput() const
{
    return m_inputKind->currentIndex() == TextFileInput;
}

QString OutputErrorTab::inputText() const
{
    return m_tokenEdit->text();
}

OutputErrorTab::Input OutputErrorTab::currentInput() const
{
    Input input{m_inputKind->currentIndex(), m_tokenEdit->text().trimmed(), isTextFileInput() ? m_chunk->value() : 0,
                m_activations->currentData().toInt(), {}};
    // Only llama.cpp's arithmetic has a cache: in the others its choice changes nothing.
    if (input.activations == static_cast<int>(gguf::ActivationArithmetic::LlamaCpp)) {
        input.kvCache.keyType = input.kvCache.valueType = m_cacheType->currentData().toUInt();
        input.kvCache.flashAttention = static_cast<gguf::FlashAttention>(m_flashAttention->currentData().toInt());
    }
    return input;
}

bool OutputErrorTab::isRunning() const
{
    return m_run->isRunning();
}

void OutputErrorTab::cancel()
{
    m_run->cancel();
}

QString OutputErrorTab::statusText() const
{
    return m_status->text();
}

QColor OutputErrorTab::candidateColour(int index) const
{
    return index >= 0 && index < m_pens.size() ? m_pens[index].color() : QColor();
}

QString OutputErrorTab::candidateName(int index) const
{
    return index >= 0 && static_cast<std::size_t>(index) < m_candidates.size() ? m_candidates[static_cast<std::size_t>(index)].label : QString();
}

void OutputErrorTab::run()
{
    const Input input = currentInput();
    OutputRunInput runInput;
    runInput.isText = input.kind == TextInput;
    if (input.kind == TextFileInput) {
        if (input.text.isEmpty()) {
            m_status->setText(tr("Choose a text file to run."));
            return;
        }
        runInput.textFile = input.text.toStdString();
        runInput.chunk = input.chunk;
    } else if (input.kind == TextInput) {
        if (input.text.isEmpty()) {
            m_status->setText(tr("Type a text to run, or choose token ids."));
            return;
        }
        runInput.text = input.text;
    } else {
        for (const QString& part : input.text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
            bool ok = false;
            const int id = part.toInt(&ok);
            if (!ok || id < 0) {
                m_status->setText(tr("Not a token id: %1").arg(part.toHtmlEscaped()));
                return;
            }
            runInput.ids.push_back(id);
        }
        if (runInput.ids.size() < 2) {
            m_status->setText(tr("Give at least two token ids."));
            return;
        }
    }
    m_pendingInput = input;
    m_runButton->setEnabled(false);
    m_cancelButton->setEnabled(true);
    m_progress->setVisible(true);
    m_progress->setRange(0, 0);
    m_status->setText(tr("Running %n forward pass(es)…", nullptr, static_cast<int>(m_candidates.size() + 1)));
    if (!m_result)
        coverCharts(tr("Running…"));
    m_run->start(m_reference, m_candidates, std::move(runInput), static_cast<gguf::ActivationArithmetic>(input.activations), input.kvCache);
}

void OutputErrorTab::showRunFailed(const QString& message, bool cancelled)
{
    m_progress->setVisible(false);
    m_runButton->setEnabled(true);
    m_cancelButton->setEnabled(false);
    m_status->setText(cancelled ? tr("Cancelled: nothing was computed for the input above.") : tr("Failed: %1").arg(message.toHtmlEscaped()));
    if (!m_result)
        coverCharts(cancelled ? tr("Cancelled: press Run to run again.") : tr("The run failed: %1").arg(message));
    updateStaleness();
    emit runFinished(false, message);
}

void OutputErrorTab::coverCharts(const QString& text)
{
    const auto retry = m_runButton->isEnabled() ? std::function<void()>([this]() { run(); }) : std::function<void()>();
    for (PlotPlaceholder* placeholder : {m_driftPlaceholder, m_histogramPlaceholder, m_routerPlaceholder})
        placeholder->show(text, retry);
    for (QCustomPlot* plot : {m_drift, m_histogram, m_router})
        clearOutputChart(plot);
    m_text->setPlainText(text);
}

QString OutputErrorTab::placeholderText(QCustomPlot* plot) const
{
    if (plot == m_drift)
        return m_driftPlaceholder->text();
    if (plot == m_histogram)
        return m_histogramPlaceholder->text();
    if (plot == m_router)
        return m_routerPlaceholder->text();
    return {};
}

void OutputErrorTab::showResult(std::shared_ptr<const gguf::OutputRunResult> result, const std::vector<std::int32_t>& tokens)
{
    m_result = std::move(result);
    m_tokens = tokens;
    m_resultInput = m_pendingInput;
    gguf::ForwardOptions arithmetic;  // what the passes ran with, named as the CLI names it
    arithmetic.activations = static_cast<gguf::ActivationArithmetic>(m_resultInput.activations);
    arithmetic.kvCache = m_resultInput.kvCache;
    m_resultDescription = tr("%1 positions scored on %2, %3 (%4)")
                              .arg(m_result->scoredPositions)
                              .arg(m_resultInput.kind == TextFileInput
                                       ? outputTextFileDescription(m_resultInput.text, m_tokens.size(), gguf::kldTextChunkSize(m_tokens.size(), m_resultInput.chunk))
                                       : outputInputDescription(m_resultInput.kind == TextInput, m_resultInput.text, m_tokens.size()))
                              .arg(m_activations->itemText(m_activations->findData(m_resultInput.activations)))
                              .arg(QString::fromStdString(gguf::attentionArithmeticName(arithmetic)));
    m_progress->setVisible(false);
    m_runButton->setEnabled(true);
    m_cancelButton->setEnabled(false);
    m_exportButton->setEnabled(true);
    m_candidate->setEnabled(true);
    QStringList lines;
    for (std::size_t i = 0; i < m_result->comparisons.size(); ++i)
        lines << outputSummaryLine(candidateName(static_cast<int>(i)), m_result->comparisons[i]);
    m_summary->setText(lines.join(QStringLiteral("<br>")));
    m_status->setText(tr("Done."));
    QStringList names;
    for (std::size_t i = 0; i < m_result->comparisons.size(); ++i)
        names << candidateName(static_cast<int>(i));
    m_driftPlaceholder->hide();
    m_histogramPlaceholder->hide();
    drawDrift(m_drift, *m_result, names, m_pens);
    showCandidate();
    updateStaleness();
    emit runFinished(true, QString());
}

void OutputErrorTab::showCandidate()
{
    if (!m_result || m_candidate->currentIndex() < 0 || static_cast<std::size_t>(m_candidate->currentIndex()) >= m_result->comparisons.size())
        return;
    const int index = m_candidate->currentIndex();
    const auto& c = m_result->comparisons[static_cast<std::size_t>(index)];
    const QString name = candidateName(index);
    drawKldHistogram(m_histogram, c, name, index < m_brushes.size() ? m_brushes[index] : QBrush(Qt::gray));
    m_text->setHtml(outputTokenHtml(name, c, m_tokens, [this](std::int32_t id) { return tokenText(id); }));
    const bool routed = drawRouterMap(m_router, c, name);
    m_views->setTabEnabled(RouterView, routed);
    m_router->setToolTip(QString::fromStdString(c.routingNote));
    if (routed)
        m_routerPlaceholder->hide();
    else if (!c.routingNote.empty())
        m_routerPlaceholder->show(tr("No router map: %1.").arg(QString::fromStdString(c.routingNote)));
    else
        m_routerPlaceholder->show(tr("%1 has no experts to route: no router map.").arg(m_referenceName));
}

void OutputErrorTab::updateStaleness()
{
    if (!m_result) {
        m_figuresFor->clear();
        return;
    }
    const bool stale = figuresAreStale();
    m_figuresFor->setText(stale ? tr("The figures below are of the previous input, not of the input above: %1. Press Run for the input above.")
                                      .arg(m_resultDescription)
                                : m_resultDescription + QLatin1Char('.'));
    // Greyed, not hidden: the older figures stay readable for a comparison with the next run.
    static_cast<QGraphicsOpacityEffect*>(m_views->graphicsEffect())->setOpacity(stale ? kStaleOpacity : 1.0);
    m_views->graphicsEffect()->setEnabled(stale);
    m_summary->setEnabled(!stale);
}

QString OutputErrorTab::figuresInput() const
{
    return m_figuresFor->text();
}

gguf::ReportTable OutputErrorTab::reportTable(const QString& title) const
{
    gguf::ReportTable table;
    table.title = title.toStdString();
    table.columns.push_back(tr("model").toStdString());
    for (const QString& column : outputSummaryColumns())
        table.columns.push_back(column.toStdString());
    if (!m_result)
        return table;
    for (std::size_t i = 0; i < m_result->comparisons.size(); ++i) {
        std::vector<std::string> row{candidateName(static_cast<int>(i)).toStdString()};
        for (const QString& figure : outputSummaryFigures(m_result->comparisons[i]))
            row.push_back(figure.toStdString());
        table.rows.push_back(std::move(row));
    }
    table.note = (figuresAreStale() ? tr("Of an earlier input than the tab's: %1.") : tr("%1.")).arg(m_resultDescription).toStdString();
    return table;
}

bool OutputErrorTab::figuresAreStale() const
{
    return m_result && !(currentInput() == m_resultInput);
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
        .arg(candidateName(m_candidate->currentIndex()), tokenText(p.otherTop))
        .arg(p.sameTop() ? QString() : tr("  (flipped)"));
}

// What an exported chart shows: which models against which reference, on which input.
QString OutputErrorTab::exportTitle(const QString& view) const
{
    QString models;
    if (view == tr("Residual-stream drift per layer")) {
        QStringList names;
        for (std::size_t i = 0; i < m_candidates.size(); ++i)
            names << m_candidates[i].label;
        models = names.join(QStringLiteral(", "));
    } else {
        models = candidateName(m_candidate->currentIndex());
    }
    QString title = tr("%1: %2 against the reference %3").arg(view, models, m_referenceName);
    if (m_result)
        title += QStringLiteral(" — ") + m_resultDescription;
    return title;
}

QString OutputErrorTab::exportCurrentView(const QString& path) const
{
    QWidget* current = m_views->currentWidget();
    if (auto* plot = qobject_cast<QCustomPlot*>(current))
        return exportPlotAsShown(plot, path);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return file.errorString();
    file.write(m_text->toHtml().toUtf8());
    return file.commit() ? QString() : file.errorString();
}

void OutputErrorTab::chooseExport()
{
    const bool text = m_views->currentWidget() == m_text;
    const QString path = askSaveFileName(this, tr("Export"), QString(),
                                         text ? tr("HTML (*.html)") : tr("Images (*.png *.svg *.pdf)"));
    if (path.isEmpty())
        return;
    if (const QString error = exportCurrentView(path); !error.isEmpty())
        m_status->setText(tr("Export failed: %1").arg(error.toHtmlEscaped()));
    else
        m_status->setText(tr("Exported to %1").arg(path.toHtmlEscaped()));
}
