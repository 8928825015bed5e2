#include "ui/session/ExpertExportJob.h"

#include "ui/session/JobPoolExecutor.h"

#include "core/write/ByteSink.h"

gguf::Status exportExpertsFile(const std::shared_ptr<const gguf::Model>& model, const gguf::TensorInfo& tensor, const std::vector<std::uint64_t>& experts,
                               gguf::ExportFormat format, const std::string& target, const JobControl& control)
{
    for (const auto& shard : model->shards())
        if (gguf::isSameFile(target, shard->path()))
            return gguf::Error{"refusing to overwrite the input file", gguf::Error::kNoOffset, target};
    std::vector<gguf::TensorSlice> slices;
    for (const std::uint64_t expert : experts) {
        auto slice = gguf::expertSlice(tensor, expert);
        if (!slice)
            return slice.error();
        slices.push_back(std::move(*slice));
    }
    auto sink = gguf::AtomicFileSink::create(target);
    if (!sink)
        return sink.error();
    if (gguf::Status status = gguf::exportSlices(slices, format, **sink, [&control](std::uint64_t, std::uint64_t) { return !control.isCancelled(); },
                                                  &JobPoolExecutor::instance());
        !status)
        return status;  // the sink is dropped uncommitted: no partial file remains
    return (*sink)->commit();
}
