#include "ui/session/ExpertScan.h"

#include "ui/session/BackgroundJob.h"
#include "ui/session/ResultCache.h"

#include <QThread>
#include <algorithm>
#include <optional>

namespace {
// Bands of grid rows per expert: enough to keep the pool busy when only one expert is left.
int heatmapBands(const gguf::HeatmapGrid& grid)
{
    return static_cast<int>(std::min<std::uint32_t>(grid.rows, static_cast<std::uint32_t>(std::max(1, QThread::idealThreadCount()))));
}
}  // namespace

ExpertScan::ExpertScan(QObject* parent) : QObject(parent) {}

gguf::HeatmapGrid ExpertScan::tileGrid(const gguf::TensorInfo& tensor)
{
    const gguf::HeatmapRegion whole{0, static_cast<std::uint64_t>(tensor.ne[1]), 0, static_cast<std::uint64_t>(tensor.ne[0])};
    return gguf::fitHeatmapGrid(whole, kTileCells, kTileCells, gguf::CellAggregate::Mean);
}

bool ExpertScan::isRunning() const
{
    return m_jobs.isRunning();
}

void ExpertScan::cancel()
{
    m_jobs.cancel();
}

void ExpertScan::clear()
{
    m_jobs.renew();
    m_model.reset();
    m_tensor = nullptr;
    m_heatmapsPending.clear();
    m_heatmaps.clear();
}

QString ExpertScan::cacheKey(std::uint64_t expert) const
{
    // The model's address alone could be reused by a model opened after this one is closed, so
    // the key also names the file and where the tensor's bytes start in it.
    const gguf::HeatmapGrid grid = tileGrid(*m_tensor);
    return QStringLiteral("experttile|%1|%2|%3@%4#%5|%6x%7")
        .arg(QString::number(reinterpret_cast<quintptr>(m_model.get())), QString::fromStdString(m_model->shards()[m_tensor->shard]->path()),
             QString::fromUtf8(m_tensor->name.data(), static_cast<qsizetype>(m_tensor->name.size())))
        .arg(m_tensor->fileOffset)
        .arg(expert)
        .arg(grid.rows)
        .arg(grid.columns);
}

void ExpertScan::start(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo* tensor, const std::vector<std::uint64_t>& shown)
{
    clear();
    if (!model || !tensor || tensor->ne[0] == 0 || tensor->ne[1] == 0)
        return;
    m_model = std::move(model);
    m_tensor = tensor;
    const std::set<std::uint64_t> onScreen(shown.begin(), shown.end());
    const auto expertCount = static_cast<std::uint64_t>(tensor->ne[2]);
    for (std::uint64_t expert = 0; expert < expertCount; ++expert)
        startExpert(expert, true, onScreen.count(expert) > 0);
    if (!m_jobs.isRunning())
        emit finished();
}

void ExpertScan::requestHeatmaps(const std::vector<std::uint64_t>& shown)
{
    if (!m_tensor)
        return;
    const bool wasRunning = isRunning();
    for (const std::uint64_t expert : shown) {
        if (const auto found = m_heatmaps.find(expert); found != m_heatmaps.end())
            emit heatmapReady(expert, tileGrid(*m_tensor), found->second);
        else if (expert < static_cast<std::uint64_t>(m_tensor->ne[2]) && !m_heatmapsPending.count(expert))
            startExpert(expert, false, true);
    }
    if (!wasRunning && !isRunning())
        emit finished();
}

void ExpertScan::startExpert(std::uint64_t expert, bool statistics, bool heatmap)
{
    auto slice = gguf::expertSlice(*m_tensor, expert);
    if (!slice) {
        emit expertFailed(expert, QString::fromStdString(slice.error().toString()));
        return;
    }
    if (heatmap) {
        if (auto cached = ResultCache::instance().find(cacheKey(expert))) {
            m_heatmaps[expert] = cached;
            emit heatmapReady(expert, tileGrid(*m_tensor), std::move(cached));
            heatmap = false;
        } else {
            m_heatmapsPending.insert(expert);
        }
    }
    if (!statistics && !heatmap)
        return;

    // Chunk 0 computes the statistics (when asked), chunks 1.. one band of heatmap rows each.
    const gguf::HeatmapGrid grid = tileGrid(*m_tensor);
    const int bands = heatmap ? heatmapBands(grid) : 0;
    const gguf::TensorSlice expertRows = *slice;
    const int first = statistics ? 0 : 1;
    // One chunk's value: the statistics (chunk 0) or one band of heatmap cells.
    struct Part {
        std::optional<gguf::ExpertStatistics> statistics;
        std::vector<float> cells;
    };
    // The model is captured so its mapping outlives the job even if the page closes meanwhile.
    // Experts run side by side: a job per expert, all of the current tensor's request.
    BackgroundJob* job = m_jobs.runChunksAlongside(
        1 + bands - first,
        [model = m_model, expertRows, expert, grid, bands, first](int chunk, const JobControl& control) -> gguf::Result<Part> {
            const int part = chunk + first;
            if (part == 0) {
                auto computed = gguf::computeExpertStatistics(*expertRows.tensor, expert, control.cancelFlag());
                if (!computed)
                    return computed.error();
                return Part{std::move(*computed), {}};
            }
            const auto band = static_cast<std::uint64_t>(part - 1);
            const auto from = static_cast<std::uint32_t>(grid.rows * band / static_cast<std::uint64_t>(bands));
            const auto to = static_cast<std::uint32_t>(grid.rows * (band + 1) / static_cast<std::uint64_t>(bands));
            std::vector<float> out(static_cast<std::size_t>(to - from) * grid.columns);
            if (gguf::Status s = gguf::reduceHeatmapRows(expertRows, grid, from, to, out, control.cancelFlag()); !s)
                return s.error();
            return Part{std::nullopt, std::move(out)};
        },
        [this, expert, grid, heatmap, key = heatmap ? cacheKey(expert) : QString()](std::vector<Part> parts) {
            if (heatmap)
                m_heatmapsPending.erase(expert);
            std::shared_ptr<std::vector<float>> cells;
            if (heatmap) {
                cells = std::make_shared<std::vector<float>>();
                cells->reserve(static_cast<std::size_t>(grid.rows) * grid.columns);
            }
            for (Part& part : parts) {
                if (part.statistics)
                    emit statisticsReady(*part.statistics);
                else if (cells)
                    cells->insert(cells->end(), part.cells.begin(), part.cells.end());
            }
            if (cells) {
                ResultCache::instance().insert(key, cells);
                m_heatmaps[expert] = cells;
                emit heatmapReady(expert, grid, cells);
            }
            jobEnded();
        },
        // The runner drops either end if the user moved on to another tensor meanwhile.
        [this, expert, heatmap](const JobOutcome& outcome) {
            if (heatmap)
                m_heatmapsPending.erase(expert);  // a failed or cancelled heatmap is retried when asked again
            if (outcome.isFailed())
                emit expertFailed(expert, outcome.message());
            jobEnded();
        });
    emit jobStarted(job, tr("Expert %1 of %2").arg(expert).arg(QString::fromUtf8(m_tensor->name.data(), static_cast<qsizetype>(m_tensor->name.size()))));
}

void ExpertScan::jobEnded()
{
    if (!isRunning())
        emit finished();
}
