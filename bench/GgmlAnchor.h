#pragma once
// ggml's own quantizer, loaded at run time from a libggml-base.so the user points at
// (`--ggml-lib PATH`, e.g. the one node-llama-cpp ships): the anchor the quantizer figures are
// measured against. Nothing is linked: without the library the anchor rows are skipped.

#include <cstddef>
#include <cstdint>
#include <string>

namespace gguf {
struct TypeTraits;
}

namespace bench {

class GgmlAnchor {
public:
    // nullptr-like (loaded() false, error() says why) when the library or its symbol is missing.
    explicit GgmlAnchor(const std::string& libraryPath);
    ~GgmlAnchor();
    GgmlAnchor(const GgmlAnchor&) = delete;
    GgmlAnchor& operator=(const GgmlAnchor&) = delete;

    bool loaded() const { return m_quantizeChunk != nullptr; }
    const std::string& error() const { return m_error; }

    // ggml_quantize_chunk(type, src, dst, 0, rows, rowLength, importance): bytes written.
    // `importance`: nullptr (no importance matrix) or rowLength weights used for every row.
    std::size_t quantize(std::uint32_t typeId, const float* src, void* dst, std::int64_t rows, std::int64_t rowLength,
                         const float* importance = nullptr) const;
    // Whether this library knows `typeId` under the name `name` (an older ggml lacks newer types,
    // and ggml_quantize_chunk aborts for types it cannot make, such as q8_K).
    bool knowsType(std::uint32_t typeId, const char* name) const;

    // ggml's dequantization of one row of k elements (ggml_to_float_t), as libggml-base has it:
    // its plain C reference loops, the ones the CPU backend does not replace.
    using ToFloat = void (*)(const void* x, float* y, std::int64_t k);
    // ggml_get_type_traits(type)->to_float for `type`, or nullptr with `why` set: the library has
    // no ggml_get_type_traits, does not know the type under its name, describes its blocks
    // differently from our TypeTraits (the struct layout is not the one read from ggml.h), or
    // has no to_float for it (f32, q8_1, the integer types). q8_K, whose traits lack to_float,
    // gets the exported dequantize_row_q8_K instead. When found, `why` names what was found
    // ("to_float" or the symbol).
    ToFloat toFloat(const gguf::TypeTraits& type, std::string& why) const;
    // Whether the ggml_type_traits layout this bench was written against (ggml.h of the llama.cpp
    // that node-llama-cpp 3.21.1 builds) matches the library's: names, block sizes and block
    // bytes of f16, q4_0, q8_0 and q4_K read through it agree with our TypeTraits. Empty when it
    // does, else why not.
    const std::string& typeTraitsMismatch() const { return m_traitsMismatch; }

private:
    using QuantizeChunk = std::size_t (*)(int, const float*, void*, std::int64_t, std::int64_t, std::int64_t, const float*);
    using QuantizeInit = void (*)(int);
    using TypeName = const char* (*)(int);
    void* m_handle = nullptr;
    QuantizeChunk m_quantizeChunk = nullptr;
    QuantizeInit m_quantizeInit = nullptr;
    TypeName m_typeName = nullptr;
    using GetTypeTraits = const void* (*)(int);
    GetTypeTraits m_getTypeTraits = nullptr;
    // ggml_get_type_traits(type) checked against `type` (name, block size, block bytes): a
    // GgmlTypeTraitsLayout, or nullptr with `why` set.
    const void* traitsOf(const gguf::TypeTraits& type, std::string& why) const;
    std::string m_traitsMismatch;
    std::string m_error;
};

}  // namespace bench
