#include "core/types/KvCacheSettings.h"

#include "core/types/GgmlType.h"

#include <algorithm>
#include <array>

namespace gguf {

bool isKvCacheType(std::uint32_t typeId)
{
    static constexpr std::array kTypes{GgmlTypeId::F32,  GgmlTypeId::F16,    GgmlTypeId::BF16, GgmlTypeId::Q8_0, GgmlTypeId::Q4_0,
                                       GgmlTypeId::Q4_1, GgmlTypeId::IQ4_NL, GgmlTypeId::Q5_0, GgmlTypeId::Q5_1};
    return std::find(kTypes.begin(), kTypes.end(), static_cast<GgmlTypeId>(typeId)) != kTypes.end();
}

const char* kvCacheTypeNames()
{
    return "f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1";
}

std::string kvCacheSettingsName(const KvCacheSettings& settings)
{
    return "K " + typeName(settings.keyType) + ", V " + typeName(settings.valueType) + ", flash attention "
         + (settings.flashAttentionOn() ? "on" : "off");
}

}  // namespace gguf
