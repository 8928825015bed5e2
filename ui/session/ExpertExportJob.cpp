#include "session/ExpertExportJob.h"

#include "session/BackgroundJob.h"
#include "write/ByteSink.h"

BackgroundJob* startExpertExport(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo& tensor, std::vector<std::uint64_t> experts,
                                 gguf::ExportFormat format, const QString& path, QObject* parent)
{
    const std::string target = path.toStdString();
    const gguf::TensorInfo* source = &tensor;
    return new BackgroundJob(1, [model = std::move(model), source, experts = std::move(experts), format, target](
                                    int, const std::atomic<bool>& cancelled) -> gguf::Status {
        for (const auto& shard : model->shards())
            if (gguf::isSameFile(target, shard->path()))
                return gguf::Error{"refusing to overwrite the input file", gguf::Error::kNoOffset, target};
        std::vector<gguf::TensorSlice> slices;
        for (const std::uint64_t expert : experts) {
            auto slice = gguf::expertSlice(*source, expert);
            if (!slice)
                return slice.error();
            slices.push_back(std::move(*slice));
        }
        auto sink = gguf::AtomicFileSink::create(target);
        if (!sink)
            return sink.error();
        if (gguf::Status status = gguf::exportSlices(slices, format, **sink,
                                                     [&cancelled](std::uint64_t, std::uint64_t) { return !cancelled.load(); });
            !status)
            return status;  // the sink is dropped uncommitted: no partial file remains
        return (*sink)->commit();
    }, parent);
}
