#pragma once
// GPT-2 style byte-level BPE vocabularies store every byte as a printable code point (space is
// U+0120 'Ġ', newline U+010A 'Ċ'), so tokens read as "Ġthe". This maps them back to the bytes
// they stand for, using the byte-to-character table of GPT-2's bytes_to_unicode: the printable
// Latin-1 bytes stand for themselves, the other 68 bytes are U+0100.. in byte order.

#include <optional>
#include <string>
#include <string_view>

namespace gguf {

// The bytes `token` (UTF-8) encodes, or nullopt when it holds a character outside the table
// (or is not valid UTF-8): then it is not a byte-level token.
std::optional<std::string> decodeByteLevelToken(std::string_view token);

}  // namespace gguf
