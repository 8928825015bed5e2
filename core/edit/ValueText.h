#pragma once
// Metadata values as text a person types (CLI `meta --set`, the Metadata page's editors) and
// back. Numbers are range-checked for their GGUF type: 300 is not a u8, 1e39 is not an f32.
//
// Type names are ggml's: u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool str, arrays arr[T] with any
// T, arr[arr[u32]] included. Scalars are written plainly (a string is its bytes as they are);
// arrays as JSON lists, `[1, 2, 3]`, `["a", "b"]`, `[[1], []]`, strings in them JSON-escaped,
// with "\udcHH" standing for the raw byte 0xHH as the CLI's JSON output writes it, so the text
// valueAsText gives parses back to the same bytes.

#include "core/base/Result.h"
#include "core/gguf/MetadataValue.h"
#include "core/write/GgufWriter.h"

#include <string>
#include <string_view>

namespace gguf {

// A value type with, for arrays, its element type (recursively).
struct ValueTypeName {
    ValueType type = ValueType::U8;
    std::string elementTypeName;  // arrays only: "u32", "arr[str]", ...

    static Result<ValueTypeName> parse(std::string_view name);
    std::string toString() const;
};

// The value `text` as `typeName` says (e.g. "u32", "arr[str]"), range-checked.
Result<EncodedValue> parseValueText(std::string_view text, std::string_view typeName);

// The value as text parseValueText reads back to the same value (floats in the shortest form
// that reads back to the same bits, NaN and infinities as nan / inf / -inf).
std::string valueAsText(const MetadataValue& value);

// The GGUF type name of an encoded value ("u32", "arr[arr[str]]"), from its payload.
std::string encodedTypeName(const EncodedValue& value);

}  // namespace gguf
