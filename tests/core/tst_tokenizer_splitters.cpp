// The hand-written pre-tokenizer splitters (core/tokenize/CustomSplitters) against the standard
// library's ECMAScript engine run the way llama.cpp runs an expression it has no splitter for
// (core/tokenize/RegexSplit): on random text from an alphabet that reaches every branch (letters
// and marks of several scripts, ASCII and other digits, every kind of whitespace, apostrophes
// before contraction letters, punctuation, symbols, controls), both must cut the same words.
// For qwen2 this is the proof that the fast path gives llama.cpp's fragments (llama.cpp itself
// uses std::regex there); for gpt2 and llama3 it checks the splitters llama.cpp itself uses.

#include "core/tokenize/CustomSplitters.h"
#include "core/tokenize/PreTokenizer.h"
#include "core/tokenize/RegexSplit.h"
#include "core/tokenize/Unicode.h"

#include <QtTest>

#include <random>

namespace {
const char32_t kAlphabet[] = {
    'a', 'b', 'Z', 's', 't', 'm', 'd', 'r', 'e', 'v', 'l', 'S', 'T', 'M', 'D', 'R', 'E', 'V', 'L', '\'', '\'', '\'',
    '0', '1', '7', 0x0663 /* Arabic-Indic 3 */, 0x00B2 /* superscript 2 */, 0x2167 /* roman numeral 8 */,
    ' ', ' ', ' ', ' ', '\t', '\n', '\r', 0x0B, 0x0C, 0x85 /* NEL */, 0xA0 /* NBSP */, 0x3000, 0x2028,
    '.', ',', '!', '?', '-', '(', ')', '/', '$', '+', '<', '~', '`', '|', '^', '_',
    0x00E9 /* é */, 0x0301 /* combining acute */, 0x0416 /* Ж */, 0x4E2D /* 中 */, 0x1780 /* Khmer */, 0x0130 /* İ */,
    0x017F /* long s */, 0x212A /* Kelvin */, 0x1F600 /* emoji */, 0x2026 /* … */, 0x00BD /* ½ */,
    0x01, 0x1F, 0x7F, 0x200B /* zero width space */, 0xFFFD, 0xE000 /* private use */, 0x0378 /* unassigned */,
};

std::vector<char32_t> randomText(std::mt19937& random)
{
    std::uniform_int_distribution<int> length(0, 24);
    std::uniform_int_distribution<std::size_t> pick(0, std::size(kAlphabet) - 1);
    std::vector<char32_t> text(static_cast<std::size_t>(length(random)));
    for (char32_t& c : text)
        c = kAlphabet[pick(random)];
    return text;
}

QString show(const std::vector<char32_t>& text)
{
    QString out;
    for (const char32_t c : text)
        out += c < 0x20 || c == 0x7F || c == 0x85 ? QStringLiteral("\\x%1").arg(static_cast<unsigned>(c), 2, 16, QChar('0')) : QString::fromUcs4(&c, 1);
    return out;
}

using Splitter = std::vector<std::size_t> (*)(const std::vector<char32_t>&, const std::vector<std::size_t>&);

// Ours minus empty fragments: an expression that can match nothing at a position leaves an
// unmatched stretch, which both give; neither makes empty ones here.
int mismatches(Splitter custom, const std::string& expression, int cases, QString* first)
{
    auto regex = gguf::RegexSplit::compile(expression);
    if (!regex) {
        *first = QString::fromStdString(regex.error().message);
        return -1;
    }
    std::mt19937 random(20261201);
    int count = 0;
    for (int i = 0; i < cases; ++i) {
        const std::vector<char32_t> text = randomText(random);
        // Two fragments, as after a special token or an earlier expression: a cut at the seam.
        const std::size_t seam = text.size() / 3;
        const std::vector<std::size_t> fragments{seam, text.size() - seam};
        const std::string collapsed = gguf::RegexSplit::collapseText(text);
        const std::wstring wide = gguf::RegexSplit::wideText(text);
        std::vector<std::size_t> expected = regex.value()->split({text, collapsed, wide}, fragments);
        std::erase(expected, std::size_t(0));  // empty matches give empty words: no ids
        const std::vector<std::size_t> got = custom(text, fragments);
        if (got == expected)
            continue;
        if (count++ == 0) {
            QStringList a, b;
            for (const std::size_t n : expected)
                a << QString::number(n);
            for (const std::size_t n : got)
                b << QString::number(n);
            *first = QStringLiteral("'%1' (seam at %2): regex [%3], splitter [%4]").arg(show(text)).arg(seam).arg(a.join(' '), b.join(' '));
        }
    }
    return count;
}
}  // namespace

class TokenizerSplittersTest : public QObject {
    Q_OBJECT

private slots:
    void splitterMatchesTheRegexEngine_data();
    void splitterMatchesTheRegexEngine();
    void collapsedTextUsesLlamaCppBytes();
    void regexWindowsGiveTheWholeTextsWords_data();
    void regexWindowsGiveTheWholeTextsWords();
    void longRunsOfOneCharacterSplit_data();
    void longRunsOfOneCharacterSplit();
};

namespace {
// Every pre-tokenizer family (one name of each).
const char* const kFamilies[] = {"default", "llama3", "dbrx", "chatglm-bpe", "deepseek-llm", "deepseek-coder", "deepseek-v3", "falcon",
                                 "starcoder", "gpt-2", "qwen2", "qwen35", "poro-chat", "viking", "tekken", "gpt-4o", "bailingmoe",
                                 "seed-coder", "superbpe", "gemma4"};
}  // namespace

void TokenizerSplittersTest::splitterMatchesTheRegexEngine_data()
{
    QTest::addColumn<void*>("splitter");
    QTest::addColumn<QString>("expression");
    QTest::newRow("gpt2") << reinterpret_cast<void*>(&gguf::splitGpt2)
                          << QString::fromUtf8(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))");
    QTest::newRow("llama3")
        << reinterpret_cast<void*>(&gguf::splitLlama3)
        << QString::fromUtf8(
               R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)");
    QTest::newRow("qwen2")
        << reinterpret_cast<void*>(&gguf::splitQwen2)
        << QString::fromUtf8(
               R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)");
    QTest::newRow("qwen35")
        << reinterpret_cast<void*>(&gguf::splitQwen35)
        << QString::fromUtf8(
               R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)");
    QTest::newRow("trailing whitespace (deepseek-llm)") << reinterpret_cast<void*>(&gguf::splitTrailingWhitespace) << QStringLiteral("\\s+$");
    QTest::newRow("digit triples (superbpe)") << reinterpret_cast<void*>(&gguf::splitDigitTriples) << QStringLiteral("(?=(\\d{3})+(?!\\d))");
    QTest::newRow("newline runs (gemma4)") << reinterpret_cast<void*>(&gguf::splitNewlineRuns) << QStringLiteral("[^\\n]+|[\\n]+");
}

void TokenizerSplittersTest::splitterMatchesTheRegexEngine()
{
    QFETCH(void*, splitter);
    QFETCH(QString, expression);
    QString first;
    const int count = mismatches(reinterpret_cast<Splitter>(splitter), expression.toStdString(), 20000, &first);
    QVERIFY2(count == 0, qPrintable(QStringLiteral("%1 of 20000 differ; first: %2").arg(count).arg(first)));
}

void TokenizerSplittersTest::collapsedTextUsesLlamaCppBytes()
{
    // ASCII stays, other whitespace is \v, a letter 0xD2, a digit 0xD1, a mark 0xD4, an emoji
    // (symbol) 0xD5, punctuation 0xD3, a private-use character 0xD0.
    const std::vector<char32_t> text{'a', 0x3000, 0x00E9, 0x0663, 0x0301, 0x1F600, 0x2026, 0xE000};
    const std::string collapsed = gguf::RegexSplit::collapseText(text);
    QCOMPARE(QByteArray::fromStdString(collapsed), QByteArray("a\v\xD2\xD1\xD4\xD5\xD3\xD0"));
}

void TokenizerSplittersTest::regexWindowsGiveTheWholeTextsWords_data()
{
    QTest::addColumn<QString>("expression");
    // gemma4's one expression always runs hand-written, and its runs outgrow the test's windows.
    for (const char* family : kFamilies) {
        if (std::string_view(family) == "gemma4")
            continue;
        const auto recipe = gguf::preTokenizerRecipe(family);
        QVERIFY2(recipe, family);
        for (const std::string& expression : recipe->expressions)
            QTest::newRow(qPrintable(QStringLiteral("%1: %2").arg(family, QString::fromStdString(expression).left(40)))) << QString::fromStdString(expression);
    }
}

void TokenizerSplittersTest::regexWindowsGiveTheWholeTextsWords()
{
    // The engine sees the text in windows (so that no match recurses deeper than one window);
    // with windows of 256 code points, on texts of 3,000 whose runs of one class stay under the
    // margin, the words must be those of one window over the whole text.
    QFETCH(QString, expression);
    auto regex = gguf::RegexSplit::compile(expression.toStdString());
    QVERIFY2(regex, regex ? "" : regex.error().message.c_str());
    std::mt19937 random(7);
    std::uniform_int_distribution<std::size_t> pick(0, std::size(kAlphabet) - 1);
    for (int round = 0; round < 12; ++round) {
        std::vector<char32_t> text(3000);
        for (char32_t& c : text)
            c = kAlphabet[pick(random)];
        const std::vector<std::size_t> fragments{1000, 2000};
        const std::string collapsed = gguf::RegexSplit::collapseText(text);
        const std::wstring wide = gguf::RegexSplit::wideText(text);
        const gguf::SplitInput input{text, collapsed, wide};
        QCOMPARE(regex.value()->split(input, fragments, 256), regex.value()->split(input, fragments, std::size_t(1) << 30));
    }
}

void TokenizerSplittersTest::longRunsOfOneCharacterSplit_data()
{
    QTest::addColumn<QString>("family");
    QTest::addColumn<uint>("character");
    for (const char* family : kFamilies)
        for (const char32_t c : {char32_t('a'), char32_t('A'), char32_t(' '), char32_t('!'), char32_t('7'), char32_t('\n'), char32_t(0x4E2D),
                                 char32_t(0x0301)})
            QTest::newRow(qPrintable(QStringLiteral("%1 U+%2").arg(family).arg(static_cast<uint>(c), 4, 16, QChar('0')))) << family << static_cast<uint>(c);
}

void TokenizerSplittersTest::longRunsOfOneCharacterSplit()
{
    // std::regex recursed once per character of a match and overflowed the stack at about
    // 34,000 equal characters. 100,000 must split, into words that spell the text.
    QFETCH(QString, family);
    QFETCH(uint, character);
    const auto recipe = gguf::preTokenizerRecipe(family.toStdString());
    QVERIFY(recipe);
    auto pre = gguf::PreTokenizer::create(recipe->expressions, !recipe->spaceMarks);
    QVERIFY(pre);
    std::string one;
    gguf::unicode::appendUtf8(one, static_cast<char32_t>(character));
    std::string text;
    for (int i = 0; i < 100000; ++i)
        text += one;
    std::string spelled;
    for (const std::string& word : pre.value().split(text))
        spelled += word;
    std::string expected;
    for (const char byte : text)
        expected += recipe->spaceMarks ? std::string(1, byte) : std::string(gguf::byteLevelCharacter(static_cast<unsigned char>(byte)));
    QVERIFY(spelled == expected);
}

QTEST_GUILESS_MAIN(TokenizerSplittersTest)
#include "tst_tokenizer_splitters.moc"
