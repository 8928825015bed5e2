#pragma once
// How alike the experts of one layer/projection are: the cosine similarity of every pair as an
// n × n heatmap, and beside it the norm of each expert's router row. The dot products stream
// over row ranges split across the pool; each chunk fills its own partial matrix and the GUI
// thread sums them in chunk order, so the result does not depend on scheduling.
// Work starts when the view is first shown for a tensor (it reads every expert in full).

#include "ui/session/JobRunner.h"
#include "ui/session/SliceRef.h"

#include <QPointer>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QCPBars;
class QCPColorMap;
class QLabel;
class JobProgressBar;
class StartWhenShown;

class ExpertSimilarityView : public QWidget {
    Q_OBJECT
public:
    ExpertSimilarityView(JobProgressBar* progress, QWidget* parent = nullptr);
    // `router` may be null (a layer without ffn_gate_inp).
    void setTensors(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo* experts, const gguf::TensorInfo* router);

    // n × n, row-major; empty until computed.
    const std::vector<double>& cosine() const { return m_cosine; }
    std::uint64_t expertCount() const { return m_expertCount; }
    const std::vector<double>& routerNorms() const { return m_routerNorms; }
    bool isComputing() const;
    QCustomPlot* similarityPlot() const { return m_similarityPlot; }
    QCustomPlot* routerPlot() const { return m_routerPlot; }

signals:
    void similarityReady();
    void routerNormsReady();

private:
    void start();
    void startSimilarity();
    void startRouterNorms();
    void displaySimilarity();
    void displayRouterNorms();
    bool isZeroExpert(std::uint64_t expert) const;
    QString zeroExpertsNote() const;
    void showHover(QMouseEvent* event);

    JobProgressBar* m_progress;
    QLabel* m_message;
    QLabel* m_hover;
    QCustomPlot* m_similarityPlot;
    QCPColorMap* m_map;
    QCustomPlot* m_routerPlot;
    QCPBars* m_routerBars;
    std::shared_ptr<const gguf::Model> m_model;
    const gguf::TensorInfo* m_experts = nullptr;
    const gguf::TensorInfo* m_router = nullptr;
    StartWhenShown* m_startWhenShown;
    JobRunner m_similarityJobs{this, JobPriority::Background};
    JobRunner m_routerJobs{this, JobPriority::Background};
    std::uint64_t m_expertCount = 0;
    std::vector<double> m_cosine;
    std::vector<double> m_routerNorms;
};
