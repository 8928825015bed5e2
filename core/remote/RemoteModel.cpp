#include "core/remote/RemoteModel.h"

#include "core/remote/DiskCachedSource.h"
#include "core/remote/HttpFile.h"
#include "core/remote/RemoteUrl.h"

namespace gguf::remote {

Result<std::shared_ptr<const Model>> openRemoteModel(const std::string& name, const RemoteOptions& options)
{
    auto url = resolveUrl(name);
    if (!url)
        return url.error();
    return Model::open(url.value(), [&](const std::string& shardUrl) -> Result<std::shared_ptr<const GgufFile>> {
        auto file = HttpFile::open(shardUrl, options);
        if (!file)
            return file.error();
        std::shared_ptr<ByteRangeSource> source = file.value();
        if (const std::string cache = DiskCachedSource::configuredDirectory(); !cache.empty()) {
            auto cached = DiskCachedSource::open(file.value(), cache, DiskCachedSource::configuredLimit());
            if (!cached)
                return cached.error();
            source = cached.value();
        }
        auto mapped = MappedFile::openFrom(shardUrl, std::move(source));
        if (!mapped)
            return mapped.error();
        return GgufFile::parse(std::move(mapped.value()));
    });
}

Result<std::shared_ptr<const Model>> openAnyModel(const std::string& name, const RemoteOptions& options)
{
    return isRemoteName(name) ? openRemoteModel(name, options) : Model::open(name);
}

RemoteTraffic remoteTraffic(const Model& model)
{
    RemoteTraffic traffic;
    for (const auto& shard : model.shards()) {
        const RemoteRegion* region = shard->mapping().remote();
        if (!region)
            continue;
        traffic.residentBytes += region->residentBytes();
        const auto* cached = dynamic_cast<const DiskCachedSource*>(&region->source());
        if (const auto* http = cached ? &cached->inner() : dynamic_cast<const HttpFile*>(&region->source())) {
            traffic.requests += http->requestCount();
            traffic.bytesReceived += http->bytesReceived();
        }
    }
    return traffic;
}

}  // namespace gguf::remote
