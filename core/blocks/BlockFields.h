#pragma once
// The named byte fields of one block of a quantized type (ggml-common.h's structs), for the
// block inspector: which bytes are `d`, which are packed scales, which are quants. Each type's
// list (BlockFieldLayouts.h) hangs off its row of the type table.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gguf {

enum class FieldEncoding : std::uint8_t { F16, F32, E8M0, UE4M3x4, Packed };

struct BlockField {
    const char* name;
    std::uint32_t offset;
    std::uint32_t size;
    FieldEncoding encoding;
    const char* meaning;  // one line for people, e.g. "8 six-bit scales and mins, packed"
};

// The fields of `typeId` in byte order (TypeTraits::fields); empty for plain and unknown types.
std::span<const BlockField> blockFields(std::uint32_t typeId);

// The value of a float field of a little-endian block as text ("0.0123", or four values for
// UE4M3x4); empty for packed fields.
std::string decodeFieldValue(const BlockField& field, const std::uint8_t* block);

}  // namespace gguf
