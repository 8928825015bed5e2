// core/tokenize against llama.cpp's own tokenizer test vectors (fixtures llama.cpp/vocab/): for
// every vocabulary, every test string of its .inp encoded with add_special = false and
// parse_special = false must give exactly the ids of the matching .out line, as llama.cpp's
// tests/test-tokenizer-0.cpp checks. Plus what the vectors do not cover: BOS/EOS from the
// add_*_token keys, special-token parsing, and the error for an unsupported tokenizer.

#include "Fixtures.h"
#include "OpenFixture.h"
#include "core/tokenize/BpeEncoder.h"
#include "core/tokenize/SpmEncoder.h"
#include "core/tokenize/TokenTable.h"
#include "core/tokenize/Tokenizer.h"
#include "core/write/GgufWriter.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

namespace {
struct Vector {
    QByteArray text;
    std::vector<std::int32_t> ids;
};

// The .inp strings are separated by "\n__ggml_vocab_test__\n", which also ends the file; the
// .out has one line of space-separated ids per string.
std::vector<Vector> loadVectors(const QString& vocabulary)
{
    const QByteArray input = readWholeFile(fixturePath("llama.cpp/vocab/" + vocabulary + ".inp"));
    const QByteArray output = readWholeFile(fixturePath("llama.cpp/vocab/" + vocabulary + ".out"));
    const QByteArray separator("\n__ggml_vocab_test__\n");
    std::vector<Vector> vectors;
    qsizetype start = 0;
    for (qsizetype at = input.indexOf(separator); at >= 0; at = input.indexOf(separator, start)) {
        vectors.push_back({input.mid(start, at - start), {}});
        start = at + separator.size();
    }
    const QList<QByteArray> lines = output.split('\n');
    for (std::size_t i = 0; i < vectors.size() && i < static_cast<std::size_t>(lines.size()); ++i)
        for (const QByteArray& id : lines[static_cast<qsizetype>(i)].trimmed().split(' '))
            if (!id.isEmpty())
                vectors[i].ids.push_back(id.toInt());
    if (lines.size() < static_cast<qsizetype>(vectors.size()))
        vectors.clear();  // the caller fails on a count mismatch
    return vectors;
}

QString idList(const std::vector<std::int32_t>& ids)
{
    QStringList parts;
    for (const std::int32_t id : ids)
        parts.append(QString::number(id));
    return parts.join(' ');
}

gguf::Tokenizer tokenizerOrFail(const QString& vocabulary, bool* ok)
{
    *ok = false;
    const auto model = openModelAt(fixturePath("llama.cpp/vocab/" + vocabulary));
    if (!model)
        return gguf::Tokenizer::fromModel(*openModelAt(fixturePath("tiny-llama-F32.gguf"))).value();
    auto tokenizer = gguf::Tokenizer::fromModel(*model);
    if (!tokenizer) {
        qWarning("%s", tokenizer.error().toString().c_str());
        return gguf::Tokenizer::fromModel(*openModelAt(fixturePath("tiny-llama-F32.gguf"))).value();
    }
    *ok = true;
    return tokenizer.value();
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::vector<std::pair<std::string, gguf::EncodedValue>>& values)
{
    gguf::GgufWriter writer;
    for (const auto& [key, value] : values)
        writer.setValue(key, value);
    const QString path = dir.filePath(name);
    const gguf::Status written = writer.writeFile(path.toStdString());
    if (!written)
        qWarning("%s", written.error().toString().c_str());
    return path;
}
}  // namespace

class TokenizerVectorsTest : public QObject {
    Q_OBJECT

private slots:
    void vectors_data();
    void vectors();
    void addSpecialFollowsTheAddKeys();
    void parseSpecialCutsOutControlTokens();
    void userDefinedTokensAreCutWithoutParseSpecial();
    void unsupportedTokenizerSaysWhich();
    void sentencePieceCutAtSpacesChangesNothing();
    void gemma4LinesCutAtSpacesChangeNothing();
    void wordPieceNormalizerKeys_data();
    void wordPieceNormalizerKeys();
    void piecesSpellTheText_data() { vectors_data(); }
    void piecesSpellTheText();
    void arbitraryBytesGiveValidIds_data() { vectors_data(); }
    void arbitraryBytesGiveValidIds();
    void architectureVocabulariesSpellTheirText_data();
    void architectureVocabulariesSpellTheirText();
};

void TokenizerVectorsTest::vectors_data()
{
    QTest::addColumn<QString>("vocabulary");
    // Every vocabulary of the folder is tested; these must be among them.
    const QStringList names = fixtureNames("llama.cpp/vocab", "ggml-vocab-*.gguf");
    for (const char* known : {"bert-bge", "deepseek-llm", "gemma-4", "gpt-2", "llama-bpe", "llama-spm", "phi-3", "qwen2"})
        QVERIFY2(names.contains(QStringLiteral("ggml-vocab-%1.gguf").arg(known)), known);
    for (const QString& name : names)
        QTest::newRow(qPrintable(name)) << name;
}

void TokenizerVectorsTest::vectors()
{
    QFETCH(QString, vocabulary);
    const std::vector<Vector> vectors = loadVectors(vocabulary);
    QVERIFY2(!vectors.empty(), "no test strings, or fewer .out lines than .inp strings");
    bool ok = false;
    const gguf::Tokenizer tokenizer = tokenizerOrFail(vocabulary, &ok);
    QVERIFY(ok);
    int failures = 0;
    for (std::size_t i = 0; i < vectors.size(); ++i) {
        const std::vector<std::int32_t> ids = tokenizer.encode(std::string_view(vectors[i].text.constData(), vectors[i].text.size()), false, false);
        if (ids == vectors[i].ids)
            continue;
        ++failures;
        qWarning("test %zu '%s': expected [%s], got [%s]", i, vectors[i].text.left(60).toPercentEncoding(" ").constData(),
                 qPrintable(idList(vectors[i].ids)), qPrintable(idList(ids)));
    }
    QCOMPARE(failures, 0);
}

void TokenizerVectorsTest::addSpecialFollowsTheAddKeys()
{
    bool ok = false;
    // llama-spm: add_bos_token true, add_eos_token false (llama-tokenize's default output).
    const gguf::Tokenizer spm = tokenizerOrFail("ggml-vocab-llama-spm.gguf", &ok);
    QVERIFY(ok);
    QCOMPARE(spm.encode("ied 4 \xC2\xBD months", true, true), (std::vector<std::int32_t>{1, 474, 287, 29871, 29946, 29871, 30226, 7378}));
    QCOMPARE(spm.encode("", true, true), std::vector<std::int32_t>{1});
    // llama-bpe: no add_bos_token key, but the llama3 pre-tokenizer adds BOS by default.
    const gguf::Tokenizer bpe = tokenizerOrFail("ggml-vocab-llama-bpe.gguf", &ok);
    QVERIFY(ok);
    QCOMPARE(bpe.encode("ied 4 \xC2\xBD months", true, true), (std::vector<std::int32_t>{128000, 1142, 220, 19, 220, 27154, 4038}));
    // gpt-2: neither key nor a default, so nothing is added.
    const gguf::Tokenizer gpt2 = tokenizerOrFail("ggml-vocab-gpt-2.gguf", &ok);
    QVERIFY(ok);
    QCOMPARE(gpt2.encode("Hello", true, true), gpt2.encode("Hello", false, false));
    // bert: CLS ... SEP.
    const gguf::Tokenizer bert = tokenizerOrFail("ggml-vocab-bert-bge.gguf", &ok);
    QVERIFY(ok);
    const std::vector<std::int32_t> plain = bert.encode("Hello world", false, false);
    std::vector<std::int32_t> wrapped{101};
    wrapped.insert(wrapped.end(), plain.begin(), plain.end());
    wrapped.push_back(102);
    QCOMPARE(bert.encode("Hello world", true, false), wrapped);
}

void TokenizerVectorsTest::parseSpecialCutsOutControlTokens()
{
    bool ok = false;
    const gguf::Tokenizer bpe = tokenizerOrFail("ggml-vocab-llama-bpe.gguf", &ok);
    QVERIFY(ok);
    // 128009 is <|eot_id|> (a control token): one id with parse_special, its spelling without.
    const std::vector<std::int32_t> parsed = bpe.encode("Hi<|eot_id|>there", false, true);
    QCOMPARE(parsed.size(), std::size_t(3));
    QCOMPARE(parsed[1], 128009);
    QCOMPARE(parsed[0], bpe.encode("Hi", false, false)[0]);
    const std::vector<std::int32_t> literal = bpe.encode("Hi<|eot_id|>there", false, false);
    QVERIFY(literal.size() > 3);
    QVERIFY(std::find(literal.begin(), literal.end(), 128009) == literal.end());
    // SPM: a special token in the middle makes the text after it start a new word ("▁there").
    const gguf::Tokenizer spm = tokenizerOrFail("ggml-vocab-llama-spm.gguf", &ok);
    QVERIFY(ok);
    const std::vector<std::int32_t> withEos = spm.encode("Hi</s>there", false, true);
    std::vector<std::int32_t> expected = spm.encode("Hi", false, false);
    expected.push_back(2);
    const std::vector<std::int32_t> there = spm.encode("there", false, false);
    expected.insert(expected.end(), there.begin(), there.end());
    QCOMPARE(withEos, expected);
}

void TokenizerVectorsTest::userDefinedTokensAreCutWithoutParseSpecial()
{
    bool ok = false;
    const gguf::Tokenizer phi3 = tokenizerOrFail("ggml-vocab-phi-3.gguf", &ok);
    QVERIFY(ok);
    // Phi-3's <|endoftext|> (32000) is a control token: only cut with parse_special. phi3's
    // special tokens eat the whitespace after them (rstrip), <|endoftext|> excepted.
    QCOMPARE(phi3.encode("a<|endoftext|>", false, true).back(), 32000);
    const std::vector<std::int32_t> literal = phi3.encode("a<|endoftext|>", false, false);
    QVERIFY(std::find(literal.begin(), literal.end(), 32000) == literal.end());
}

void TokenizerVectorsTest::unsupportedTokenizerSaysWhich()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::vector<std::string> tokens{"a", "b"};
    const QString t5 = writeFile(dir, "t5.gguf", {{"tokenizer.ggml.model", gguf::EncodedValue::string("t5")},
                                                   {"tokenizer.ggml.tokens", gguf::EncodedValue::stringArray(tokens)}});
    auto model = openModelAt(t5);
    QVERIFY(model);
    auto tokenizer = gguf::Tokenizer::fromModel(*model);
    QVERIFY(!tokenizer);
    QVERIFY2(tokenizer.error().message.find("unsupported tokenizer model 't5'") != std::string::npos, tokenizer.error().message.c_str());

    const QString pre = writeFile(dir, "pre.gguf", {{"tokenizer.ggml.model", gguf::EncodedValue::string("gpt2")},
                                                     {"tokenizer.ggml.pre", gguf::EncodedValue::string("no-such-pre")},
                                                     {"tokenizer.ggml.tokens", gguf::EncodedValue::stringArray(tokens)}});
    model = openModelAt(pre);
    QVERIFY(model);
    tokenizer = gguf::Tokenizer::fromModel(*model);
    QVERIFY(!tokenizer);
    QVERIFY2(tokenizer.error().message.find("unsupported pre-tokenizer 'no-such-pre'") != std::string::npos, tokenizer.error().message.c_str());

    const QString none = writeFile(dir, "none.gguf", {{"general.name", gguf::EncodedValue::string("x")}});
    model = openModelAt(none);
    QVERIFY(model);
    QVERIFY(!gguf::Tokenizer::fromModel(*model));
}

void TokenizerVectorsTest::sentencePieceCutAtSpacesChangesNothing()
{
    // The tokenizer encodes SentencePiece text word by word when the vocabulary allows it; the
    // encoder run on the whole text at once (llama.cpp's way) must give the same ids, for
    // random runs of words, spaces (single and repeated), punctuation, CJK and invalid bytes.
    const auto model = openModelAt(fixturePath("llama.cpp/vocab/ggml-vocab-llama-spm.gguf"));
    QVERIFY(model);
    auto table = gguf::TokenTable::read(*model, false);
    QVERIFY(table);
    auto tokenizer = gguf::Tokenizer::fromModel(*model);
    QVERIFY(tokenizer);
    const char* const parts[] = {"the", "ing", " ", " ", "  ", "   ", "\n", "\t", ".", "'s", "\xE4\xB8\xAD", "\xF0", "\x81",
                                 "\xE2\x96", "\xE2\x96\x81", "Hello", "3", "\xC3\xA9"};
    std::uint32_t state = 777;
    for (int round = 0; round < 2000; ++round) {
        std::string text;
        for (int i = static_cast<int>((state = state * 1664525u + 1013904223u) >> 28); i > 0; --i)
            text += parts[((state = state * 1664525u + 1013904223u) >> 16) % std::size(parts)];
        std::string whole;
        for (const char c : " " + text)
            whole += c == ' ' ? std::string("\xE2\x96\x81") : std::string(1, c);
        std::vector<std::int32_t> expected;
        if (!text.empty())
            gguf::encodeSentencePiece(table.value(), whole, 0, expected);
        QCOMPARE(tokenizer.value().encode(text, false, false), expected);
    }
}

void TokenizerVectorsTest::gemma4LinesCutAtSpacesChangeNothing()
{
    // gemma4 merges a line in pieces cut before each "▁" that no merge joins to what precedes
    // it; merging the whole line at once (llama.cpp's way) must give the same ids, also around
    // ">▁</", the one merge of the vocabulary that crosses such a cut.
    const auto model = openModelAt(fixturePath("llama.cpp/vocab/ggml-vocab-gemma-4.gguf"));
    QVERIFY(model);
    auto table = gguf::TokenTable::read(*model, true);
    QVERIFY(table);
    auto tokenizer = gguf::Tokenizer::fromModel(*model);
    QVERIFY(tokenizer);
    const char* const parts[] = {"the", "ing", " ", " ", "  ", "   ", "\t", ".", "'s", "\xE4\xB8\xAD", "> </", ">", "</", "Hello", "3",
                                 "\xC3\xA9", "\xE2\x96\x81", "\xF0\x9F\x98\x80"};
    std::uint32_t state = 4242;
    for (int round = 0; round < 2000; ++round) {
        std::string text;
        for (int i = static_cast<int>((state = state * 1664525u + 1013904223u) >> 28); i > 0; --i)
            text += parts[((state = state * 1664525u + 1013904223u) >> 16) % std::size(parts)];
        std::string line;
        for (const char c : text)
            line += c == ' ' ? std::string("\xE2\x96\x81") : std::string(1, c);
        std::vector<std::int32_t> expected;
        gguf::encodeBpeWord(table.value(), line, false, gguf::ByteFallback::HexTokens, expected);
        QCOMPARE(tokenizer.value().encode(text, false, false), expected);
    }
    QCOMPARE(tokenizer.value().encode("a", true, false).front(), 2);  // BOS, as llama.cpp forces for gemma4
}

void TokenizerVectorsTest::wordPieceNormalizerKeys_data()
{
    QTest::addColumn<int>("lowercase");     // -1: key absent
    QTest::addColumn<int>("stripAccents");  // -1: key absent
    QTest::addColumn<QString>("ids");
    QTest::newRow("defaults: lowercase, strip accents") << -1 << -1 << "1 4";
    QTest::newRow("cased: accents follow") << 0 << -1 << "2 3";
    QTest::newRow("cased, accents stripped") << 0 << 1 << "2 4";
    QTest::newRow("lowercase, accents kept") << 1 << 0 << "1 3";
}

void TokenizerVectorsTest::wordPieceNormalizerKeys()
{
    QFETCH(int, lowercase);
    QFETCH(int, stripAccents);
    QFETCH(QString, ids);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::vector<std::string> tokens{"[UNK]", "\xE2\x96\x81hello", "\xE2\x96\x81Hello", "\xE2\x96\x81" "caf\xC3\xA9",
                                          "\xE2\x96\x81" "cafe"};
    std::vector<std::pair<std::string, gguf::EncodedValue>> values{{"tokenizer.ggml.model", gguf::EncodedValue::string("bert")},
                                                                    {"tokenizer.ggml.tokens", gguf::EncodedValue::stringArray(tokens)},
                                                                    {"tokenizer.ggml.unknown_token_id", gguf::EncodedValue::u32(0)}};
    if (lowercase >= 0)
        values.push_back({"tokenizer.ggml.normalizer.lowercase", gguf::EncodedValue::boolean(lowercase != 0)});
    if (stripAccents >= 0)
        values.push_back({"tokenizer.ggml.normalizer.strip_accents", gguf::EncodedValue::boolean(stripAccents != 0)});
    const auto model = openModelAt(writeFile(dir, "bert.gguf", values));
    QVERIFY(model);
    auto tokenizer = gguf::Tokenizer::fromModel(*model);
    QVERIFY2(tokenizer, tokenizer ? "" : tokenizer.error().message.c_str());
    QCOMPARE(idList(tokenizer.value().encode("Hello caf\xC3\xA9", false, false)), ids);
}

void TokenizerVectorsTest::piecesSpellTheText()
{
    // Concatenated pieces give the text back (SentencePiece with the leading space it adds;
    // WordPiece normalises, so only its ids are compared, above).
    QFETCH(QString, vocabulary);
    bool ok = false;
    const gguf::Tokenizer tokenizer = tokenizerOrFail(vocabulary, &ok);
    QVERIFY(ok);
    if (tokenizer.family() == gguf::Tokenizer::Family::WordPiece)
        QSKIP("WordPiece lowercases and drops accents: its pieces do not spell the input");
    for (const Vector& vector : loadVectors(vocabulary)) {
        const std::string text(vector.text.constData(), static_cast<std::size_t>(vector.text.size()));
        std::string spelled;
        for (const std::int32_t id : tokenizer.encode(text, false, false))
            spelled += tokenizer.piece(id);
        const std::string expected = tokenizer.family() == gguf::Tokenizer::Family::SentencePiece && !text.empty() ? " " + text : text;
        QCOMPARE(QByteArray::fromStdString(spelled), QByteArray::fromStdString(expected));
    }
}

void TokenizerVectorsTest::arbitraryBytesGiveValidIds()
{
    // Invalid UTF-8, NULs, stray continuation bytes, F5..FF leads, text cut inside special
    // tokens: never a crash or hang, every id inside the vocabulary.
    QFETCH(QString, vocabulary);
    bool ok = false;
    const gguf::Tokenizer tokenizer = tokenizerOrFail(vocabulary, &ok);
    QVERIFY(ok);
    std::uint32_t state = 12345;
    const auto next = [&] { return state = state * 1664525u + 1013904223u; };
    for (int round = 0; round < 300; ++round) {
        std::string text(next() % 40, '\0');
        for (char& byte : text)
            byte = static_cast<char>(next() >> 24);
        if (round % 3 == 0)
            text += "<|endoftext|></s><s>[CLS]<|im_end|>";
        for (const bool special : {false, true})
            for (const std::int32_t id : tokenizer.encode(text, special, special))
                QVERIFY2(id >= 0 && static_cast<std::size_t>(id) < tokenizer.vocabularySize(), qPrintable(QString::number(id)));
    }
}

void TokenizerVectorsTest::architectureVocabulariesSpellTheirText_data()
{
    // The small vocabularies of the architecture fixtures (no llama.cpp ids are recorded for
    // text there, only for the random token lists): every F32 model of llama.cpp/arch.
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("kind");
    // Pre-tokenizers of the newest fixtures that this build does not split yet: their files
    // must be refused with the pre-tokenizer named, never tokenized another way.
    const QStringList unsupportedPre = {QStringLiteral("kimi-k2")};
    const QDir arch(fixturePath("llama.cpp/arch"));
    const QStringList folders = arch.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    QVERIFY2(folders.size() >= 15, qPrintable(folders.join(' ')));
    for (const QString& folder : folders) {
        const QString path = arch.filePath(folder + "/" + folder + "-F32.gguf");
        if (!QFileInfo::exists(path))
            continue;
        const QJsonObject manifest = QJsonDocument::fromJson(readWholeFile(arch.filePath(folder + "/manifest.json"))).object();
        const QJsonObject tokenizer = manifest.value("tokenizer").toObject();
        const QString model = tokenizer.value("model").toString();
        const QString pre = tokenizer.value("pre").toString();
        const QString kind = unsupportedPre.contains(pre) ? QStringLiteral("unsupported pre-tokenizer '%1'").arg(pre)
                             : model == "llama"           ? QStringLiteral("SentencePiece BPE (llama)")
                             : model == "gemma4"          ? QStringLiteral("SentencePiece-style BPE (gemma4)")
                                                          : QStringLiteral("byte-level BPE (pre-tokenizer %1").arg(pre);
        QTest::newRow(qPrintable(folder)) << path << kind;
    }
}

void TokenizerVectorsTest::architectureVocabulariesSpellTheirText()
{
    // Each loads as the kind its manifest says, and prose, the multilingual test strings and
    // characters it was never trained on come back from the pieces of their ids exactly.
    QFETCH(QString, path);
    QFETCH(QString, kind);
    const auto model = openModelAt(path);
    QVERIFY(model);
    auto tokenizer = gguf::Tokenizer::fromModel(*model);
    if (kind.startsWith(QStringLiteral("unsupported"))) {
        QVERIFY(!tokenizer);
        QVERIFY2(QString::fromStdString(tokenizer.error().message).startsWith(kind), tokenizer.error().message.c_str());
        return;
    }
    QVERIFY2(tokenizer, tokenizer ? "" : tokenizer.error().message.c_str());
    QVERIFY2(QString::fromStdString(tokenizer.value().description()).startsWith(kind), tokenizer.value().description().c_str());
    QByteArray text = readWholeFile("/usr/share/common-licenses/GPL-3").left(20000);
    if (text.isEmpty())
        text = "The quick brown fox jumps over the lazy dog.\n";
    text += readWholeFile(fixturePath("llama.cpp/vocab/ggml-vocab-llama-spm.gguf.inp"));
    text += "\xC3\x9Cn\xC3\xAF" "c\xC3\xB8" "d\xC3\xA9 42 \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80\n\n\n  end";
    const std::string input(text.constData(), static_cast<std::size_t>(text.size()));
    const std::vector<std::int32_t> ids = tokenizer.value().encode(input, false, false);
    std::string spelled;
    for (const std::int32_t id : ids) {
        QVERIFY(id >= 0 && static_cast<std::size_t>(id) < tokenizer.value().vocabularySize());
        spelled += tokenizer.value().piece(id);
    }
    const bool leadingSpace = spelled.size() == input.size() + 1 && spelled[0] == ' ';
    QCOMPARE(QByteArray::fromStdString(leadingSpace ? spelled.substr(1) : spelled), text);
    QVERIFY(ids.size() < input.size());  // merges happened
}

QTEST_GUILESS_MAIN(TokenizerVectorsTest)
#include "tst_tokenizer_vectors.moc"
