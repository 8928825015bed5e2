#include "ui/session/SliceExportJob.h"

#include "ui/session/JobPoolExecutor.h"

#include "core/write/ByteSink.h"

gguf::Status exportSliceFile(const SliceRef& slice, gguf::ExportFormat format, const std::string& target, const JobControl& control)
{
    for (const auto& shard : slice.model->shards())
        if (gguf::isSameFile(target, shard->path()))
            return gguf::Error{"refusing to overwrite the input file", gguf::Error::kNoOffset, target};
    auto sink = gguf::AtomicFileSink::create(target);
    if (!sink)
        return sink.error();
    if (gguf::Status status = gguf::exportSlice(slice.slice, format, **sink, [&control](std::uint64_t, std::uint64_t) { return !control.isCancelled(); },
                                                  &JobPoolExecutor::instance());
        !status)
        return status;  // the sink is dropped uncommitted: no partial file remains
    return (*sink)->commit();
}
