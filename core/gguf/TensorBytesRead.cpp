#include "core/gguf/TensorBytesRead.h"

#include "core/gguf/MappedRegionGuard.h"
#include "core/gguf/RemoteRegion.h"
#include "core/gguf/TensorInfo.h"

#include <string>

namespace gguf {

Status readTensorBytes(const TensorInfo& tensor, const std::uint8_t* bytes, std::uint64_t size, const std::function<void()>& read)
{
    if (Status fetched = ensureMappedBytes(bytes, size); !fetched)
        return Error{"tensor '" + std::string(tensor.name) + "': " + fetched.error().message, Error::kNoOffset, {}};
    const MappedReadWatch watch(bytes, size);
    read();
    if (watch.bytesLost())
        return tensorChangedOnDisk(tensor, watch.lostAddress());
    return Ok{};
}

}  // namespace gguf
