#include "GgmlAnchor.h"

#include <dlfcn.h>
#include <string_view>

namespace bench {

GgmlAnchor::GgmlAnchor(const std::string& libraryPath)
{
    if (libraryPath.empty()) {
        m_error = "no --ggml-lib given";
        return;
    }
    m_handle = ::dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!m_handle) {
        const char* why = ::dlerror();
        m_error = why ? why : "dlopen failed";
        return;
    }
    m_quantizeChunk = reinterpret_cast<QuantizeChunk>(::dlsym(m_handle, "ggml_quantize_chunk"));
    m_quantizeInit = reinterpret_cast<QuantizeInit>(::dlsym(m_handle, "ggml_quantize_init"));
    m_typeName = reinterpret_cast<TypeName>(::dlsym(m_handle, "ggml_type_name"));
    if (!m_quantizeChunk)
        m_error = libraryPath + " has no ggml_quantize_chunk";
}

GgmlAnchor::~GgmlAnchor()
{
    if (m_handle)
        ::dlclose(m_handle);
}

std::size_t GgmlAnchor::quantize(std::uint32_t typeId, const float* src, void* dst, std::int64_t rows, std::int64_t rowLength,
                                 const float* importance) const
{
    if (m_quantizeInit)
        m_quantizeInit(static_cast<int>(typeId));  // tables of the IQ types; a no-op for the others
    return m_quantizeChunk(static_cast<int>(typeId), src, dst, 0, rows, rowLength, importance);
}

bool GgmlAnchor::knowsType(std::uint32_t typeId, const char* name) const
{
    if (!m_typeName || std::string_view(name) == "q8_K")  // q8_K: ggml_quantize_chunk aborts
        return false;
    const char* theirs = m_typeName(static_cast<int>(typeId));  // "NONE" past its type count
    return theirs && std::string_view(theirs) == name;
}

}  // namespace bench
