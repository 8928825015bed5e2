// The "Tokenize text" box of the Tokenizer page (TokenizeTextBox): built on a worker, it shows
// llama.cpp's ids for typed text (the first test vector of llama-bpe and llama-spm, with and
// without BOS/special parsing), one row per piece, only the newest edit's result after a burst
// of typing, and for an unsupported tokenizer a message while the token table still works.

#include "Fixtures.h"
#include "OpenFixture.h"
#include "IdleWatch.h"
#include "Waits.h"
#include "ui/tokenizer/TokenizeTextBox.h"
#include "ui/tokenizer/TokenizerPage.h"
#include "core/write/GgufWriter.h"

#include <QCheckBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

namespace {
const QString kFirstVector = QString::fromUtf8("ied 4 \xC2\xBD months");

TokenizeTextBox* readyBox(TokenizerPage& page)
{
    auto* box = page.findChild<TokenizeTextBox*>();
    if (!box)
        return nullptr;
    if (!box->isReady()) {
        QSignalSpy ready(box, &TokenizeTextBox::tokenizerReady);
        if (!ready.wait(kHangGuardMs))
            return nullptr;
    }
    return box;
}

// Sets the text (or toggles the flag) and waits for the box to show the result.
bool tokenize(TokenizeTextBox& box, const QString& text, bool special)
{
    QSignalSpy done(&box, &TokenizeTextBox::tokenized);
    box.findChild<QCheckBox*>(QStringLiteral("tokenizeSpecial"))->setChecked(special);
    box.findChild<QPlainTextEdit*>(QStringLiteral("tokenizeInput"))->setPlainText(text);
    return done.wait(kHangGuardMs);
}
}  // namespace

class GuiTokenizeTextTest : public QObject {
    Q_OBJECT

private slots:
    void showsLlamaCppIds_data();
    void showsLlamaCppIds();
    void onlyTheNewestEditIsShown();
    void unsupportedTokenizerSaysSo();
};

void GuiTokenizeTextTest::showsLlamaCppIds_data()
{
    QTest::addColumn<QString>("vocab");
    QTest::addColumn<bool>("special");
    QTest::addColumn<QString>("ids");
    QTest::addColumn<QString>("firstPiece");
    QTest::newRow("llama-bpe") << "llama-bpe" << false << "1142 220 19 220 27154 4038" << "ied";
    QTest::newRow("llama-bpe with BOS") << "llama-bpe" << true << "128000 1142 220 19 220 27154 4038" << "<|begin_of_text|>";
    QTest::newRow("llama-spm") << "llama-spm" << false << "474 287 29871 29946 29871 30226 7378" << " i";
    QTest::newRow("llama-spm with BOS") << "llama-spm" << true << "1 474 287 29871 29946 29871 30226 7378" << "<s>";
}

void GuiTokenizeTextTest::showsLlamaCppIds()
{
    QFETCH(QString, vocab);
    QFETCH(bool, special);
    QFETCH(QString, ids);
    QFETCH(QString, firstPiece);
    const auto model = openModelAt(fixturePath("llama.cpp/vocab/ggml-vocab-" + vocab + ".gguf"));
    QVERIFY(model);
    TokenizerPage page(model);
    TokenizeTextBox* box = readyBox(page);
    QVERIFY(box);
    QVERIFY(tokenize(*box, kFirstVector, special));
    QCOMPARE(box->findChild<QPlainTextEdit*>(QStringLiteral("tokenizeIds"))->toPlainText(), ids);
    const auto* pieces = box->findChild<QTableWidget*>(QStringLiteral("tokenizePieces"));
    QCOMPARE(pieces->rowCount(), ids.split(' ').size());
    QCOMPARE(pieces->item(0, 0)->text(), ids.split(' ').first());
    QCOMPARE(pieces->item(0, 1)->text(), firstPiece);
    QCOMPARE(box->findChild<QLabel*>(QStringLiteral("tokenizeStatus"))->text(), QStringLiteral("%1 tokens").arg(ids.split(' ').size()));
}

void GuiTokenizeTextTest::onlyTheNewestEditIsShown()
{
    const auto model = openModelAt(fixturePath("llama.cpp/vocab/ggml-vocab-gpt-2.gguf"));
    QVERIFY(model);
    TokenizerPage page(model);
    TokenizeTextBox* box = readyBox(page);
    QVERIFY(box);
    QSignalSpy done(box, &TokenizeTextBox::tokenized);
    auto* input = box->findChild<QPlainTextEdit*>(QStringLiteral("tokenizeInput"));
    // Typed faster than the pause: one encoding, of the last text.
    for (const char* text : {"H", "He", "Hel", "Hell", "Hello"})
        input->setPlainText(QString::fromLatin1(text));
    QVERIFY(done.wait(kHangGuardMs));
    watchThatNothingHappens();  // no second encoding
    QCOMPARE(done.count(), 1);
    QCOMPARE(box->shownIds(), std::vector<std::int32_t>{15496});  // "Hello" in GPT-2
}

void GuiTokenizeTextTest::unsupportedTokenizerSaysSo()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    gguf::GgufWriter writer;
    const std::vector<std::string> tokens{"<pad>", "</s>", "a"};
    writer.setValue("tokenizer.ggml.model", gguf::EncodedValue::string("t5"));
    writer.setValue("tokenizer.ggml.tokens", gguf::EncodedValue::stringArray(tokens));
    const QString path = dir.filePath("t5.gguf");
    QVERIFY(writer.writeFile(path.toStdString()));
    const auto model = openModelAt(path);
    QVERIFY(model);
    TokenizerPage page(model);
    auto* box = page.findChild<TokenizeTextBox*>();
    QVERIFY(box);
    QSignalSpy failed(box, &TokenizeTextBox::tokenizerFailed);
    QVERIFY(failed.wait(kHangGuardMs));
    QVERIFY(!box->findChild<QPlainTextEdit*>(QStringLiteral("tokenizeInput"))->isEnabled());
    const QString status = box->findChild<QLabel*>(QStringLiteral("tokenizeStatus"))->text();
    QVERIFY2(status.contains(QStringLiteral("unsupported tokenizer model 't5'")), qPrintable(status));
    // The token table is independent of it.
    if (!page.isReady()) {
        QSignalSpy ready(&page, &TokenizerPage::vocabularyReady);
        QVERIFY(ready.wait(kHangGuardMs));
    }
}

QTEST_MAIN(GuiTokenizeTextTest)
#include "tst_gui_tokenize_text.moc"
