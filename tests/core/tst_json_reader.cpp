// The core's JSON reader (core/base/JsonReader.h): malformed documents are refused at the byte
// at fault, read from memory and from a source that hands over one byte at a time alike; the
// limits (depth, string and literal lengths) are errors at their offset; nesting is not bounded
// by the call stack; strings read back what JsonWriter wrote, raw bytes included.

#include "core/base/JsonReader.h"
#include "core/base/JsonWriter.h"

#include <QtTest>

#include <string>
#include <vector>

using namespace gguf;

namespace {

struct Walk {
    std::vector<JsonEvent> events;
    std::vector<std::string> texts;
    std::vector<std::uint64_t> offsets;
    std::optional<Error> error;
};

// Every event of `reader` up to End or the first error.
Walk walk(JsonReader& reader)
{
    Walk walked;
    for (;;) {
        auto event = reader.next();
        if (!event) {
            walked.error = event.error();
            return walked;
        }
        walked.events.push_back(*event);
        walked.texts.push_back(reader.text());
        walked.offsets.push_back(reader.offset());
        if (*event == JsonEvent::End)
            return walked;
    }
}

// `text` handed over one byte per call, as a slow pipe or file would.
JsonByteSource byteByByte(const std::string& text)
{
    auto at = std::make_shared<std::size_t>(0);
    return [text, at](char* buffer, std::size_t capacity) -> Result<std::size_t> {
        if (*at >= text.size() || capacity == 0)
            return std::size_t{0};
        buffer[0] = text[(*at)++];
        return std::size_t{1};
    };
}

}  // namespace

class TestJsonReader : public QObject {
    Q_OBJECT

private slots:
    void malformedIsRefusedAtItsByte_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<qulonglong>("offset");
        const auto row = [](const char* name, const QByteArray& text, const char* expected, qulonglong offset) {
            QTest::newRow(name) << text << QString(expected) << offset;
        };
        row("empty", "", "a value expected", 0);
        row("only spaces", "   ", "a value expected", 3);
        row("open object", "{", "a key", 1);
        row("no colon", "{\"a\" 1}", "':' expected", 5);
        row("comma before brace", "{\"a\":1,}", "a key", 7);
        row("comma before bracket", "[1,]", "a value expected", 3);
        row("no comma", "[1 2]", "',' or ']' expected", 3);
        row("array not closed", "[1", "ends inside an array", 2);
        row("object not closed", "{\"a\":1", "ends inside an object", 6);
        row("wrong closer", "{\"a\":1]", "',' or '}' expected", 6);
        row("closer alone", "[}", "a value expected", 1);
        row("number key", "{1:2}", "a key", 1);
        row("string not closed", "\"abc", "without its closing", 0);
        row("unknown escape", "\"a\\x\"", "unknown escape", 3);
        row("short \\u", "\"\\u12\"", "four hex digits", 5);
        row("high surrogate alone", "\"\\ud800x\"", "high surrogate", 7);
        row("high then no low", "\"\\ud800\\u0041\"", "high surrogate", 13);
        row("low surrogate alone", "\"\\udc00\"", "lone low surrogate", 1);
        row("raw control", "\"a\x01\"", "control character", 2);
        row("leading zero", "[01]", "not '01'", 1);
        row("bare dot", "1.e5", "not '1.e5'", 0);
        row("nan", "[nan]", "not 'nan'", 1);
        row("plus", "+1", "not '+1'", 0);
        row("half literal", "tru", "not 'tru'", 0);
        row("after the end", "[1] x", "text after the end", 4);
        row("second document", "{\"a\":1}}", "text after the end", 7);
        row("value then garbage in object", "{\"a\":\"b\"c}", "',' or '}' expected", 8);
    }

    void malformedIsRefusedAtItsByte()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QFETCH(qulonglong, offset);
        const std::string document = text.toStdString();
        JsonReader inMemory(document, "doc.json");
        JsonReader fromSource(byteByByte(document), "doc.json");
        for (JsonReader* reader : {&inMemory, &fromSource}) {
            const Walk walked = walk(*reader);
            QVERIFY2(walked.error, qPrintable(QString::fromStdString(document)));
            const std::string message = walked.error->toString();
            QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
            QCOMPARE(walked.error->offset, std::uint64_t(offset));
            QVERIFY(message.starts_with("doc.json: "));
            QVERIFY(!reader->next());  // and stays refused
        }
    }

    void limitsAreErrorsAtTheirOffset_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("depth");
        QTest::addColumn<int>("stringBytes");
        QTest::addColumn<int>("literalBytes");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<qulonglong>("offset");
        QTest::newRow("depth") << QByteArray("[[[[1]]]]") << 3 << 100 << 10 << "nesting deeper than 3" << 3ull;
        QTest::newRow("depth in object") << QByteArray("{\"a\":{\"b\":[]}}") << 2 << 100 << 10 << "nesting deeper than 2" << 10ull;
        QTest::newRow("string") << QByteArray("[\"ab\",\"abcde\"]") << 8 << 4 << 10 << "longer than 4 bytes" << 6ull;
        QTest::newRow("key") << QByteArray("{\"abcde\":1}") << 8 << 4 << 10 << "longer than 4 bytes" << 1ull;
        QTest::newRow("escapes unescaped") << QByteArray("\"\\u00e9\\u00e9\\u00e9\"") << 8 << 5 << 10 << "longer than 5 bytes" << 0ull;
        QTest::newRow("number") << QByteArray("[1, 12345]") << 8 << 100 << 4 << "longer than 4 characters" << 4ull;
        QTest::newRow("unclosed long string") << QByteArray("\"") + QByteArray(1000, 'a') << 8 << 16 << 10 << "longer than 16 bytes" << 0ull;
    }

    void limitsAreErrorsAtTheirOffset()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, depth);
        QFETCH(int, stringBytes);
        QFETCH(int, literalBytes);
        QFETCH(QString, expected);
        QFETCH(qulonglong, offset);
        JsonReaderOptions options;
        options.maxDepth = std::size_t(depth);
        options.maxStringBytes = std::size_t(stringBytes);
        options.maxLiteralBytes = std::size_t(literalBytes);
        const std::string document = text.toStdString();
        JsonReader reader(document, {}, options);
        const Walk walked = walk(reader);
        QVERIFY(walked.error);
        QVERIFY2(walked.error->message.find(expected.toStdString()) != std::string::npos, walked.error->message.c_str());
        QCOMPARE(walked.error->offset, std::uint64_t(offset));
        // Just within each limit, the same shapes read.
        JsonReader within("[[[\"abcd\",1234]]]", {}, JsonReaderOptions{3, 4, 4, false});
        QVERIFY(!walk(within).error);
    }

    // Events, their texts and offsets, the same from memory and from a byte-by-byte source.
    void eventsAndOffsets()
    {
        const std::string document = " {\"a\": [1, -2.5e-3, true, false, null, \"x\\ny\"], \"b\": {}, \"c\": []} ";
        JsonReader inMemory(document);
        const Walk walked = walk(inMemory);
        QVERIFY(!walked.error);
        using E = JsonEvent;
        const std::vector<E> events = {E::BeginObject, E::Key,       E::BeginArray, E::Number,    E::Number, E::True,     E::False, E::Null,
                                       E::String,      E::EndArray,  E::Key,        E::BeginObject, E::EndObject, E::Key, E::BeginArray,
                                       E::EndArray,    E::EndObject, E::End};
        QCOMPARE(walked.events, events);
        QCOMPARE(walked.texts[1], std::string("a"));
        QCOMPARE(walked.texts[4], std::string("-2.5e-3"));
        QCOMPARE(walked.texts[8], std::string("x\ny"));
        QCOMPARE(walked.offsets[0], std::uint64_t(1));
        QCOMPARE(walked.offsets[1], std::uint64_t(2));
        QCOMPARE(walked.offsets[3], std::uint64_t(8));
        QCOMPARE(walked.offsets[4], std::uint64_t(11));
        QCOMPARE(walked.offsets[8], std::uint64_t(39));
        QCOMPARE(walked.offsets[10], std::uint64_t(48));
        JsonReader fromSource(byteByByte(document));
        const Walk again = walk(fromSource);
        QCOMPARE(again.events, walked.events);
        QCOMPARE(again.texts, walked.texts);
        QCOMPARE(again.offsets, walked.offsets);
        QVERIFY(fromSource.next() && *fromSource.next() == E::End);
    }

    void numbers()
    {
        JsonReader reader("[-0.5e-3, 4.9406564584124654e-324, 1e-400, 1e999, 18446744073709551616]");
        QVERIFY(reader.next());
        const auto value = [&]() -> Result<double> {
            auto event = reader.next();
            if (!event || *event != JsonEvent::Number)
                return Error{"no number", 0, {}};
            return reader.number();
        };
        QCOMPARE(*value(), -0.5e-3);
        QCOMPARE(*value(), std::numeric_limits<double>::denorm_min());
        QCOMPARE(*value(), 0.0);
        const auto huge = value();
        QVERIFY(!huge);
        QVERIFY(huge.error().message.find("out of range") != std::string::npos);
        QCOMPARE(huge.error().offset, std::uint64_t(43));
        QCOMPARE(*value(), 18446744073709551616.0);
    }

    // JsonWriter's escapes, raw bytes that are not UTF-8 among them, read back to the bytes.
    void stringsReadBackWhatJsonWriterWrote()
    {
        // One literal: GCC 12 reports a false array-bounds error on operator+ of two strings here.
        const std::string bytes("tab\there \"q\" \\ \x01\x1f \xc3\xa9 \xf0\x9f\x98\x80 \xff\xfe \xc3");
        std::string json;
        JsonWriter::appendEscaped(json, bytes);
        JsonReader reader(json);
        auto event = reader.next();
        QVERIFY(event && *event == JsonEvent::String);
        QCOMPARE(reader.text(), bytes);
        JsonReader pair("\"\\ud83d\\ude00\\u00e9\\/\"");
        QVERIFY(pair.next());
        QCOMPARE(pair.text(), std::string("\xf0\x9f\x98\x80\xc3\xa9/"));
    }

    // skip() keeps nothing and leaves the reader at the next member.
    void skipsAValue()
    {
        JsonReader reader("{\"a\": {\"b\": [1, 2, {\"c\": [3]}]}, \"d\": 4, \"e\": [5]}");
        QVERIFY(reader.next());                       // {
        QVERIFY(reader.next());                       // "a"
        QVERIFY(reader.skip());
        QVERIFY(reader.next() && reader.text() == "d");
        QVERIFY(reader.skip());                       // 4
        QVERIFY(reader.next() && reader.text() == "e");
        auto open = reader.next();
        QVERIFY(open && *open == JsonEvent::BeginArray);
        QVERIFY(reader.skip());                       // 5 ]
        QVERIFY(reader.next() && *reader.next() == JsonEvent::End);
    }

    // Depth is the options' bound, not the call stack's: a million levels read in a loop.
    void nestingIsNotRecursion()
    {
        constexpr std::size_t kLevels = 1000000;
        const std::string document = std::string(kLevels, '[') + std::string(kLevels, ']');
        JsonReaderOptions options;
        options.maxDepth = kLevels;
        JsonReader reader(document, {}, options);
        std::size_t deepest = 0, events = 0;
        for (;;) {
            auto event = reader.next();
            QVERIFY(event);
            deepest = std::max(deepest, reader.depth());
            ++events;
            if (*event == JsonEvent::End)
                break;
        }
        QCOMPARE(deepest, kLevels);
        QCOMPARE(events, 2 * kLevels + 1);
    }

    void sourceErrorsStop()
    {
        int calls = 0;
        JsonReader reader(
            [&calls](char* buffer, std::size_t) -> Result<std::size_t> {
                if (calls++ == 0) {
                    buffer[0] = '[';
                    return std::size_t{1};
                }
                return Error{"the disk went away", Error::kNoOffset, "f"};
            },
            "f");
        QVERIFY(reader.next());
        auto failed = reader.next();
        QVERIFY(!failed);
        QCOMPARE(failed.error().message, std::string("the disk went away"));
    }

    // What people type: bare words and raw control characters, for the element types to read.
    void lenientWords()
    {
        JsonReaderOptions options;
        options.lenient = true;
        JsonReader reader("[0x1f, nan, +5, -inf, 3, \"a\tb\"]", {}, options);
        QVERIFY(reader.next());
        for (const auto& [event, text] : std::vector<std::pair<JsonEvent, std::string>>{
                 {JsonEvent::Word, "0x1f"}, {JsonEvent::Word, "nan"}, {JsonEvent::Word, "+5"}, {JsonEvent::Word, "-inf"},
                 {JsonEvent::Number, "3"}, {JsonEvent::String, "a\tb"}}) {
            auto got = reader.next();
            QVERIFY(got);
            QCOMPARE(*got, event);
            QCOMPARE(reader.text(), text);
        }
    }
};

QTEST_GUILESS_MAIN(TestJsonReader)
#include "tst_json_reader.moc"
