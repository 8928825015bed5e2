#pragma once
// The Compare page's "Output" tab: runs the reference and every compared file or simulated type
// on a text (through the reference's tokenizer), on token ids, or on a text file cut into
// llama-perplexity's windows exactly as `kld --text-file` cuts it (window size shown, 512 by
// default: the same file gives the CLI's figures) (core/forward) and shows where
// the quantization error grows and flips tokens: residual-stream drift per layer (one line per
// compared model), the histogram of per-position KL divergence, the tokens coloured by KLD with
// top-token flips marked (hover: the two top tokens), and for MoE models a layers x tokens map of
// where the router chose other experts. Models carry the names and colours of the page's other
// tabs. Every chart exports (PNG/SVG/PDF; the text as HTML).
//
// Nothing runs until Run is pressed (a forward pass of a large model takes minutes); until then
// the charts say so. The figures shown always say which input they belong to; when the input
// above is no longer theirs (edited, or a newer run failed or was cancelled) they are greyed out
// and say so, never passed off as the new input's.

#include "core/forward/OutputComparisonRun.h"
#include "core/report/ModelReport.h"
#include "ui/session/OutputRun.h"

#include <QColor>
#include <QList>
#include <QPen>
#include <QWidget>
#include <memory>
#include <vector>

namespace gguf {
class ModelComparison;
class Vocabulary;
}
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTextBrowser;
class PlotPlaceholder;

class OutputErrorTab : public QWidget {
    Q_OBJECT
public:
    explicit OutputErrorTab(const gguf::ModelComparison& comparison, QWidget* parent = nullptr);
    ~OutputErrorTab() override;

    // The input: token ids separated by commas or spaces, or text for the reference's tokenizer.
    void setTokens(const QString& ids);
    void setText(const QString& text);
    // A text file, run in windows of `chunk` tokens (a text no longer than one window is one
    // sequence), as `kld --text-file FILE [--chunk N]`.
    void setTextFile(const QString& path, int chunk = 512);
    bool isTextInput() const;
    bool isTextFileInput() const;
    QString inputText() const;
    void run();
    void cancel();
    bool isRunning() const;
    std::shared_ptr<const gguf::OutputRunResult> result() const { return m_result; }
    // The last run's figures as the model report's table (a row per compared model, the cells
    // the summary shows, the input they belong to as its note); no rows before a first run.
    gguf::ReportTable reportTable(const QString& title) const;

    QCustomPlot* driftPlot() const { return m_drift; }
    QCustomPlot* histogramPlot() const { return m_histogram; }
    QCustomPlot* routerPlot() const { return m_router; }
    QTextBrowser* tokenText() const { return m_text; }
    QComboBox* candidateChooser() const { return m_candidate; }
    QComboBox* inputKind() const { return m_inputKind; }
    QSpinBox* chunkSize() const { return m_chunk; }  // the window of a text file
    // What the passes do to the activations: an ActivationArithmetic per item (its data).
    QComboBox* activations() const { return m_activations; }
    // llama.cpp's KV cache in its arithmetic: the type of K and V (a ggml type id per item) and
    // flash attention (a gguf::FlashAttention per item); llama.cpp's defaults, f16 and auto.
    QComboBox* cacheType() const { return m_cacheType; }
    QComboBox* flashAttention() const { return m_flashAttention; }
    QTabWidget* views() const { return m_views; }
    QProgressBar* progressBar() const { return m_progress; }
    // Exports the view on top (a plot by suffix, the text as HTML); empty on success.
    QString exportCurrentView(const QString& path) const;
    // The tooltip the token text shows for scored position `index` (hover), for tests.
    QString tokenTooltip(int index) const;
    // The line naming the input the shown figures belong to ("39 positions scored on 40 token
    // ids (3, 56, …)"), empty before the first run; and whether that input is no longer the one above.
    QString figuresInput() const;
    bool figuresAreStale() const;
    // What covers a chart that has nothing true to show, empty when the chart is shown.
    QString placeholderText(QCustomPlot* plot) const;
    QString statusText() const;
    // The colour of compared model `index` in the charts (its column's on every tab).
    QColor candidateColour(int index) const;

signals:
    void runFinished(bool succeeded, const QString& message);

private:
    struct Input {
        int kind = 0;  // an InputKind
        QString text;  // the text, the ids, or the text file's path
        int chunk = 0;  // a text file's window
        int activations = 0;  // a gguf::ActivationArithmetic
        gguf::KvCacheSettings kvCache;
        bool operator==(const Input&) const = default;
    };
    Input currentInput() const;
    void showResult(std::shared_ptr<const gguf::OutputRunResult> result, const std::vector<std::int32_t>& tokens);
    void showCandidate();
    void showRunFailed(const QString& message, bool cancelled);
    void updateStaleness();
    void coverCharts(const QString& text);
    QString tokenText(std::int32_t id) const;
    QString exportTitle(const QString& view) const;
    QString candidateName(int index) const;
    void chooseExport();

    std::shared_ptr<const gguf::Model> m_reference;
    QString m_referenceName;
    std::vector<OutputRunCandidate> m_candidates;
    QList<QPen> m_pens;
    QList<QBrush> m_brushes;
    std::shared_ptr<const gguf::Vocabulary> m_vocabulary;
    std::vector<std::int32_t> m_tokens;
    std::shared_ptr<const gguf::OutputRunResult> m_result;
    Input m_resultInput;   // what m_result ran on
    Input m_pendingInput;  // what the running pass runs on
    QString m_resultDescription;
    OutputRun* m_run;
    QComboBox* m_inputKind;
    QLineEdit* m_tokenEdit;
    QPushButton* m_chooseFile;
    QSpinBox* m_chunk;
    QComboBox* m_activations;
    QComboBox* m_cacheType;
    QComboBox* m_flashAttention;
    QPushButton* m_runButton;
    QPushButton* m_cancelButton;
    QPushButton* m_exportButton;
    QProgressBar* m_progress;
    QLabel* m_status;
    QLabel* m_figuresFor;
    QLabel* m_summary;
    QComboBox* m_candidate;
    QTabWidget* m_views;
    QCustomPlot* m_drift;
    QCustomPlot* m_histogram;
    QCustomPlot* m_router;
    QTextBrowser* m_text;
    PlotPlaceholder* m_driftPlaceholder;
    PlotPlaceholder* m_histogramPlaceholder;
    PlotPlaceholder* m_routerPlaceholder;
};
