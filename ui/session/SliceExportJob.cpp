#include "session/SliceExportJob.h"

#include "session/BackgroundJob.h"
#include "write/ByteSink.h"

BackgroundJob* startSliceExport(const SliceRef& slice, gguf::ExportFormat format, const QString& path, QObject* parent)
{
    const std::string target = path.toStdString();
    return new BackgroundJob(1, [slice, format, target](int, const std::atomic<bool>& cancelled) -> gguf::Status {
        for (const auto& shard : slice.model->shards())
            if (gguf::isSameFile(target, shard->path()))
                return gguf::Error{"refusing to overwrite the input file", gguf::Error::kNoOffset, target};
        auto sink = gguf::AtomicFileSink::create(target);
        if (!sink)
            return sink.error();
        if (gguf::Status status = gguf::exportSlice(slice.slice, format, **sink,
                                                    [&cancelled](std::uint64_t, std::uint64_t) { return !cancelled.load(); });
            !status)
            return status;  // the sink is dropped uncommitted: no partial file remains
        return (*sink)->commit();
    }, parent);
}
