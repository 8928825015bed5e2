#pragma once
// ggml's own quantizer, loaded at run time from a libggml-base.so the user points at
// (`--ggml-lib PATH`, e.g. the one node-llama-cpp ships): the anchor the quantizer figures are
// measured against. Nothing is linked: without the library the anchor rows are skipped.

#include <cstddef>
#include <cstdint>
#include <string>

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

private:
    using QuantizeChunk = std::size_t (*)(int, const float*, void*, std::int64_t, std::int64_t, std::int64_t, const float*);
    using QuantizeInit = void (*)(int);
    using TypeName = const char* (*)(int);
    void* m_handle = nullptr;
    QuantizeChunk m_quantizeChunk = nullptr;
    QuantizeInit m_quantizeInit = nullptr;
    TypeName m_typeName = nullptr;
    std::string m_error;
};

}  // namespace bench
