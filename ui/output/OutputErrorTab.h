#pragma once
// The Compare page's "Output" tab: runs the reference and every compared file or simulated type
// on a token sequence (core/forward) and shows where the quantization error grows and flips
// tokens: residual-stream drift per layer (one line per quant level), the histogram of per-position
// KL divergence, the tokens coloured by KLD with top-token flips marked (hover: the two top
// tokens), and for MoE models a layers x tokens map of where the router chose other experts.
// Every chart exports (PNG/SVG/PDF; the text as HTML). Nothing runs until Run is pressed: a
// forward pass of a large model takes minutes.

#include "core/forward/OutputComparisonRun.h"

#include <QWidget>
#include <memory>
#include <vector>

namespace gguf {
class ModelComparison;
class Vocabulary;
}
class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTextBrowser;
class OutputRun;
struct OutputRunCandidate;

class OutputErrorTab : public QWidget {
    Q_OBJECT
public:
    explicit OutputErrorTab(const gguf::ModelComparison& comparison, QWidget* parent = nullptr);
    ~OutputErrorTab() override;

    void setTokens(const QString& ids);
    void run();
    void cancel();
    bool isRunning() const;
    std::shared_ptr<const gguf::OutputRunResult> result() const { return m_result; }

    QCustomPlot* driftPlot() const { return m_drift; }
    QCustomPlot* histogramPlot() const { return m_histogram; }
    QCustomPlot* routerPlot() const { return m_router; }
    QTextBrowser* tokenText() const { return m_text; }
    QComboBox* candidateChooser() const { return m_candidate; }
    QCheckBox* llamaActivations() const { return m_llamaActivations; }
    QTabWidget* views() const { return m_views; }
    // Exports the view on top (a plot by suffix, the text as HTML); empty on success.
    QString exportCurrentView(const QString& path) const;
    // The tooltip the token text shows for scored position `index` (hover), for tests.
    QString tokenTooltip(int index) const;

signals:
    void runFinished(bool succeeded, const QString& message);

private:
    void showResult(std::shared_ptr<const gguf::OutputRunResult> result);
    void showCandidate();
    void drawDrift();
    void drawHistogram(const gguf::OutputComparison& c);
    void drawRouter(const gguf::OutputComparison& c);
    void writeText(const gguf::OutputComparison& c);
    QString tokenText(std::int32_t id) const;
    void chooseExport();

    std::shared_ptr<const gguf::Model> m_reference;
    std::vector<OutputRunCandidate> m_candidates;
    std::shared_ptr<const gguf::Vocabulary> m_vocabulary;
    std::vector<std::int32_t> m_tokens;
    std::shared_ptr<const gguf::OutputRunResult> m_result;
    OutputRun* m_run;
    QLineEdit* m_tokenEdit;
    QCheckBox* m_llamaActivations;
    QPushButton* m_runButton;
    QPushButton* m_cancelButton;
    QPushButton* m_exportButton;
    QProgressBar* m_progress;
    QLabel* m_status;
    QLabel* m_summary;
    QComboBox* m_candidate;
    QTabWidget* m_views;
    QCustomPlot* m_drift;
    QCustomPlot* m_histogram;
    QCustomPlot* m_router;
    QTextBrowser* m_text;
};
