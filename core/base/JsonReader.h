#pragma once
// The core's one JSON reader: a pull reader over bytes in memory or a byte source read in
// pieces (a file), so reading costs memory for what the caller keeps, not for the document.
// next() reports one event at a time (an object or array opening or closing, a key, a value)
// and offset() the byte where its token starts. Containers nest on an explicit stack bounded by
// maxDepth, never by recursion; a string longer than maxStringBytes once unescaped, a literal
// longer than maxLiteralBytes or a nesting deeper than maxDepth is an error at its offset, not an
// allocation. Every error names what was expected and the byte offset.
//
// Strings: the JSON escapes; a surrogate pair is one code point; a lone low surrogate \udc80 to
// \udcff is the raw byte 0x80 to 0xff (JsonWriter's escape of a byte that is not UTF-8, so what
// JsonWriter writes reads back to the same bytes); any other lone surrogate is an error.

#include "core/base/Result.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

enum class JsonEvent : std::uint8_t {
    BeginObject,
    EndObject,
    BeginArray,
    EndArray,
    Key,     // text(): the key, unescaped; its value comes next
    String,  // text(): unescaped
    Number,  // text(): the literal as written (JSON's grammar); number() converts it
    True,
    False,
    Null,
    Word,    // lenient readers only: a bare word that is no JSON literal (0x1f, nan, +5); text()
    End,     // after the document's one value, and only whitespace after it
};

struct JsonReaderOptions {
    std::size_t maxDepth = 32;          // objects and arrays open at once
    std::size_t maxStringBytes = 4096;  // a key or a string, unescaped
    std::size_t maxLiteralBytes = 64;   // a number or a bare word
    // What people type (meta --set lists) rather than what JSON writers write: bare words are
    // Word events and control characters inside strings are taken as they are.
    bool lenient = false;
};

// Fills `buffer` with up to `capacity` bytes and says how many; 0 at the end of the input.
using JsonByteSource = std::function<Result<std::size_t>(char* buffer, std::size_t capacity)>;

class JsonReader {
public:
    // `where` names the input in errors (a path; empty: none).
    JsonReader(std::string_view text, std::string where = {}, JsonReaderOptions options = {});
    JsonReader(JsonByteSource source, std::string where = {}, JsonReaderOptions options = {});

    // The next event. After an error, the same error again; after End, End again.
    Result<JsonEvent> next();
    // Consumes what the last event opened, keeping nothing: after Key its value, after
    // BeginObject or BeginArray everything up to the matching end; after anything else nothing.
    Status skip();

    const std::string& text() const { return m_text; }
    std::uint64_t offset() const { return m_tokenStart; }  // where the last event's token starts
    std::size_t depth() const { return m_stack.size(); }
    // The Number event's value. A literal beyond a double's range is an error; one below the
    // smallest subnormal is 0, as strtod reads it.
    Result<double> number() const;
    // An error at the last event's token: `what` with `where` and its byte offset.
    Error error(const std::string& what) const;
    Error errorAt(std::uint64_t offset, const std::string& what) const;

private:
    enum class State : std::uint8_t { Value, FirstMember, FirstItem, AfterValue, AfterDocument, Finished };

    int peek();
    void advance() { ++m_at; }
    std::uint64_t position() const { return m_base + m_at; }
    bool refill();
    void skipSpace();

    Result<JsonEvent> step();
    Result<JsonEvent> key();
    Result<JsonEvent> value();
    Result<JsonEvent> literal();
    Result<JsonEvent> close();
    Status string();
    Result<char32_t> hex4();
    JsonEvent afterValue(JsonEvent event);
    Error fail(const std::string& what) { return errorAt(position(), what); }

    JsonByteSource m_source;
    std::vector<char> m_buffer;  // the source's bytes; empty when reading text in memory
    std::string_view m_view;     // the bytes at hand: the text, or the buffer's filled part
    std::size_t m_at = 0;        // in m_view
    std::uint64_t m_base = 0;    // bytes before m_view
    bool m_sourceDone = false;
    std::optional<Error> m_failure;  // sticky: a read error or the first error of the document

    std::string m_where;
    JsonReaderOptions m_options;
    State m_state = State::Value;
    std::string m_stack;  // 'o' or 'a' per open container
    std::string m_text;
    JsonEvent m_last = JsonEvent::End;
    std::uint64_t m_tokenStart = 0;
};

}  // namespace gguf
