#pragma once
// The per-expert work behind the expert grid and the statistics table: one BackgroundJob per
// expert that computes the expert's statistics and, for the experts on screen, a small heatmap.
// Results arrive expert by expert as plain values; a newer start() cancels every older job and
// their late results are dropped (JobRunner's generations). No widgets here: a view that shows
// progress listens to jobStarted.

#include "core/experts/ExpertAnalysis.h"
#include "core/analysis/HeatmapReducer.h"
#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <map>
#include <memory>
#include <set>
#include <vector>


class ExpertScan : public QObject {
    Q_OBJECT
public:
    explicit ExpertScan(QObject* parent = nullptr);

    // Statistics of every expert of `tensor` (ne = [n_in, n_out, n_expert]) and heatmaps of `shown`.
    void start(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo* tensor, const std::vector<std::uint64_t>& shown);
    // Heatmaps of `shown` after the user chose other experts: finished ones are handed out again
    // at once (heatmapReady), missing ones computed, ones on their way left to arrive.
    void requestHeatmaps(const std::vector<std::uint64_t>& shown);
    void cancel();
    // Forgets the tensor and drops results still on their way.
    void clear();

    const gguf::TensorInfo* tensor() const { return m_tensor; }
    bool isRunning() const;

    // The grid every tile uses: at most kTileCells × kTileCells mean cells over the whole expert.
    static constexpr std::uint32_t kTileCells = 128;
    static gguf::HeatmapGrid tileGrid(const gguf::TensorInfo& tensor);

signals:
    // A job began: for a progress display (which may cancel it). `description` names the expert.
    void jobStarted(BackgroundJob* job, const QString& description);
    void statisticsReady(const gguf::ExpertStatistics& statistics);
    void heatmapReady(std::uint64_t expert, const gguf::HeatmapGrid& grid, std::shared_ptr<const std::vector<float>> cells);
    void expertFailed(std::uint64_t expert, const QString& error);
    // Every job of the current tensor has ended (done, failed or cancelled).
    void finished();

private:
    void startExpert(std::uint64_t expert, bool statistics, bool heatmap);
    QString cacheKey(std::uint64_t expert) const;
    void jobEnded();

    std::shared_ptr<const gguf::Model> m_model;
    const gguf::TensorInfo* m_tensor = nullptr;
    std::set<std::uint64_t> m_heatmapsPending;  // on their way, for the current tensor
    std::map<std::uint64_t, std::shared_ptr<const std::vector<float>>> m_heatmaps;  // finished (64 KiB each)
    JobRunner m_jobs{this, JobPriority::Background};
};
