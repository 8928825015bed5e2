#include "GgmlAnchor.h"

#include "core/types/GgmlType.h"

#include <dlfcn.h>
#include <string_view>

namespace bench {

namespace {

// struct ggml_type_traits as ggml.h declares it in the llama.cpp that node-llama-cpp 3.21.1
// builds (ggml/include/ggml.h). A library with another layout is caught by the constructor's
// check against our TypeTraits, not trusted.
struct GgmlTypeTraitsLayout {
    const char* type_name;
    std::int64_t blck_size;
    std::int64_t blck_size_interleave;
    std::size_t type_size;
    bool is_quantized;
    GgmlAnchor::ToFloat to_float;
    void (*from_float_ref)(const float* x, void* y, std::int64_t k);
};

// Types whose blocks every ggml of the last years describes the same way.
constexpr const char* kLayoutProbeTypes[] = {"f16", "q4_0", "q8_0", "q4_K", "iq2_xxs"};

}  // namespace

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
    m_getTypeTraits = reinterpret_cast<GetTypeTraits>(::dlsym(m_handle, "ggml_get_type_traits"));
    if (!m_getTypeTraits || !m_typeName) {
        m_traitsMismatch = libraryPath + " has no ggml_get_type_traits or ggml_type_name";
        return;
    }
    for (const char* name : kLayoutProbeTypes) {
        const gguf::TypeTraits* ours = gguf::findTypeByName(name);
        std::string why;
        if (!ours || !traitsOf(*ours, why)) {
            m_traitsMismatch = "ggml_type_traits does not have the layout of ggml.h this bench expects (" + why + ")";
            return;
        }
    }
}

const void* GgmlAnchor::traitsOf(const gguf::TypeTraits& type, std::string& why) const
{
    const int id = static_cast<int>(type.id);
    // ggml_get_type_traits aborts past the library's type count; ggml_type_name says "NONE" there.
    const char* theirName = m_typeName(id);
    if (!theirName || std::string_view(theirName) != type.name) {
        why = std::string("this libggml has no type ") + type.name + " (its id " + std::to_string(id) + " is " + (theirName ? theirName : "null")
              + ")";
        return nullptr;
    }
    const auto* theirs = static_cast<const GgmlTypeTraitsLayout*>(m_getTypeTraits(id));
    if (!theirs || !theirs->type_name || std::string_view(theirs->type_name) != type.name
        || theirs->blck_size != static_cast<std::int64_t>(type.blockSize) || theirs->type_size != type.blockBytes) {
        why = std::string("ggml_get_type_traits(") + type.name + ") disagrees with our block size " + std::to_string(type.blockSize) + " / "
              + std::to_string(type.blockBytes) + " bytes";
        if (theirs)
            why += ": it reads as " + std::to_string(theirs->blck_size) + " / " + std::to_string(theirs->type_size) + " bytes";
        return nullptr;
    }
    return theirs;
}

GgmlAnchor::ToFloat GgmlAnchor::toFloat(const gguf::TypeTraits& type, std::string& why) const
{
    if (!m_handle) {
        why = m_error;
        return nullptr;
    }
    if (!m_traitsMismatch.empty()) {
        why = m_traitsMismatch;
        return nullptr;
    }
    const auto* theirs = static_cast<const GgmlTypeTraitsLayout*>(traitsOf(type, why));
    if (!theirs)
        return nullptr;
    if (theirs->to_float) {
        why = "to_float";
        return theirs->to_float;
    }
    // q8_K's traits have no to_float, but libggml-base exports its reference dequantization
    // (ggml-quants.h) with the same signature; for the types that have both they are the same
    // function.
    const std::string symbol = std::string("dequantize_row_") + type.name;
    if (auto* row = reinterpret_cast<ToFloat>(::dlsym(m_handle, symbol.c_str()))) {
        why = symbol;
        return row;
    }
    why = std::string("ggml has no to_float for ") + type.name;
    return nullptr;
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
