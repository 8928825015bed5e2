#pragma once
// Text from a file reaches terminals, logs and one-record-per-line outputs (`check`, `tensors`,
// error lines). A tensor name may hold ESC, OSC, BEL, CR or LF: printed raw it could rewrite the
// terminal or forge a line of a report meant for diffing. Everything that prints text from a
// file, or an error message that quotes it, goes through escapeForDisplay.

#include <string>
#include <string_view>

namespace gguf {

// `text` with every character that a terminal could act on made visible, reversibly:
//   \n \r \t      for those three
//   \\            for a backslash (so the escapes below cannot be forged)
//   \xHH          for the other C0 controls, DEL and each byte that is not valid UTF-8
//   \u{hh..}      for the C1 controls U+0080..U+009F (some terminals read U+009B as CSI) and the
//                 bidirectional overrides and isolates U+202A..U+202E, U+2066..U+2069
// Everything else, valid UTF-8 included, is kept as it is.
std::string escapeForDisplay(std::string_view text);

// The same for a message that already quotes escaped names (errors from the core): everything
// but the backslash, which is left alone so "\x1b" is not shown as "\\x1b".
std::string escapeMessage(std::string_view text);

}  // namespace gguf
