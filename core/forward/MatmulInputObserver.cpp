#include "core/forward/MatmulInputObserver.h"

#include "core/forward/PassContext.h"

namespace gguf {

void observeLayerProduct(MatmulInputObserver* observer, std::int64_t layer, const char* name, const std::vector<float>& x,
                         std::int64_t columns, std::int64_t from)
{
    if (!observer || columns <= 0)
        return;
    const std::int64_t rows = static_cast<std::int64_t>(x.size()) / columns - from;
    if (rows > 0)
        observer->denseProduct(layerTensorName(layer, name), x.data() + from * columns, rows, columns);
}

}  // namespace gguf
