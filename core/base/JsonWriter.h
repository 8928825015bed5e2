#pragma once
// A small streaming JSON writer: commas and nesting handled here, so callers only say what comes
// next.
//
// GGUF strings need not be UTF-8. Each byte that is not part of valid UTF-8 is written as the
// escape of a lone low surrogate, byte 0xHH as "\udcHH" (0x80..0xFF: Python's "surrogateescape",
// PEP 383). Valid UTF-8 can never hold a surrogate, so the mapping is reversible and two
// different byte strings never give the same JSON string: `json.loads(text)` then
// `.encode("utf-8", "surrogateescape")` gives back the bytes of the file. The output is
// well-formed JSON (RFC 8259 allows any \u escape); a parser that insists on valid Unicode
// may turn those escapes into U+FFFD.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class JsonWriter {
public:
    explicit JsonWriter(std::string& out) : m_out(out) {}

    void beginObject();
    void endObject();
    void beginArray();
    void endArray();
    void key(std::string_view name);

    void value(std::string_view text);
    void value(const char* text) { value(std::string_view(text)); }
    void value(std::uint64_t number);
    void value(std::int64_t number);
    void value(std::uint32_t number) { value(static_cast<std::uint64_t>(number)); }
    void value(int number) { value(static_cast<std::int64_t>(number)); }
    void value(double number);  // NaN and infinities become the strings "nan", "inf", "-inf"
    void value(bool flag);
    void null();

    static void appendEscaped(std::string& out, std::string_view text);
    // How value(double) spells a number: 17 significant digits, which read back to the same
    // double; "nan", "inf", "-inf" (which it writes as strings).
    static std::string numberText(double number);

private:
    void separate();

    std::string& m_out;
    std::vector<bool> m_hasItems;  // per open container
    bool m_afterKey = false;
};

}  // namespace gguf
