#pragma once
// A small streaming JSON writer: commas and nesting handled here, so callers only say what comes
// next. Strings that are not valid UTF-8 (GGUF allows that) get U+FFFD for each bad byte, so the
// output is always valid JSON.

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

private:
    void separate();

    std::string& m_out;
    std::vector<bool> m_hasItems;  // per open container
    bool m_afterKey = false;
};

}  // namespace gguf
