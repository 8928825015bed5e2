// The metadata tree (MetadataTreeModel) and its page (MetadataPage) against the fixture
// manifests: every key in file order with its type and value, arrays expanded element by element
// (nested arrays recursively), long arrays loaded a page at a time, and the debounced key filter.
// Every model runs under QAbstractItemModelTester while it is used.

#include "Fixtures.h"
#include "OpenFixture.h"
#include "core/write/GgufWriter.h"
#include "core/types/LlamaFileType.h"
#include "Manifest.h"
#include "core/gguf/MetadataFormat.h"
#include "ui/metadata/MetadataPage.h"
#include "ui/session/MetadataTreeModel.h"
#include "core/gguf/Model.h"
#include "Waits.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

using namespace testsupport;

namespace {

using Tester = QAbstractItemModelTester;
constexpr auto kReportToQtTest = QAbstractItemModelTester::FailureReportingMode::QtTest;

QString cell(const QAbstractItemModel& model, int row, int column, const QModelIndex& parent = {})
{
    return model.data(model.index(row, column, parent)).toString();
}

// Fetches every page under `parent`; returns how many fetchMore calls that took.
int fetchAll(QAbstractItemModel& model, const QModelIndex& parent)
{
    int fetches = 0;
    while (model.canFetchMore(parent)) {
        const int before = model.rowCount(parent);
        model.fetchMore(parent);
        ++fetches;
        if (model.rowCount(parent) <= before)
            return -1;  // a fetch that adds nothing would loop forever in a view
    }
    return fetches;
}

bool isIntegerText(const QByteArray& text)
{
    return !text.contains('.') && !text.contains('e') && !text.contains('E');
}

// Compares the row at `keyIndex` (column Key) with the manifest's value for it, recursing into
// arrays. Reports through QVERIFY2; callers check QTest::currentTestFailed().
void compareRow(QAbstractItemModel& model, const QModelIndex& keyIndex, const JsonNode& expected, const QString& where)
{
    const QModelIndex parent = keyIndex.parent();
    const QString type = cell(model, keyIndex.row(), MetadataTreeModel::Type, parent);
    const QString value = cell(model, keyIndex.row(), MetadataTreeModel::Value, parent);
    const auto mismatch = [&](const QString& what) { return qPrintable(QStringLiteral("%1: %2 (type %3, value %4)").arg(where, what, type, value)); };

    switch (expected.kind) {
    case JsonNode::Kind::Array:
    case JsonNode::Kind::Object: {
        const bool summarized = expected.kind == JsonNode::Kind::Object;  // {"length", "first4", ...}
        const qint64 length = summarized ? expected.member("length")->text.toLongLong() : qint64(expected.items.size());
        QVERIFY2(type.startsWith(QLatin1String("arr[")), mismatch(QStringLiteral("not an array")));
        QVERIFY2(value.startsWith(QStringLiteral("[%1 × ").arg(length)), mismatch(QStringLiteral("summary does not give the length")));
        QCOMPARE(model.hasChildren(keyIndex), length > 0);
        const int fetches = fetchAll(model, keyIndex);
        QVERIFY2(fetches >= 0, mismatch(QStringLiteral("fetchMore added no rows")));
        QCOMPARE(model.rowCount(keyIndex), int(length));
        const std::vector<JsonNode>& items = summarized ? expected.member("first4")->items : expected.items;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const QModelIndex child = model.index(int(i), MetadataTreeModel::Key, keyIndex);
            QCOMPARE(child.data().toString(), QStringLiteral("[%1]").arg(i));
            compareRow(model, child, items[i], QStringLiteral("%1[%2]").arg(where).arg(i));
            if (QTest::currentTestFailed())
                return;
        }
        return;
    }
    case JsonNode::Kind::String: {
        const std::string text = expected.text.toStdString();
        QVERIFY2(value == QLatin1Char('"') + QString::fromStdString(gguf::escapeForDisplay(text)) + QLatin1Char('"'), mismatch(QString::fromUtf8(expected.text)));
        QVERIFY2(!model.hasChildren(keyIndex), mismatch(QStringLiteral("a string has children")));
        return;
    }
    case JsonNode::Kind::Bool:
        QVERIFY2(value == (expected.boolean ? QLatin1String("true") : QLatin1String("false")), mismatch(QStringLiteral("bool")));
        return;
    case JsonNode::Kind::Number:
        if (type == QLatin1String("f32")) {
            QVERIFY2(float(value.toDouble()) == float(expected.text.toDouble()), mismatch(QString::fromLatin1(expected.text)));
        } else if (type == QLatin1String("f64") || !isIntegerText(expected.text)) {
            QVERIFY2(value.toDouble() == expected.text.toDouble(), mismatch(QString::fromLatin1(expected.text)));
        } else {
            QVERIFY2(value == QString::fromLatin1(expected.text), mismatch(QString::fromLatin1(expected.text)));
        }
        return;
    case JsonNode::Kind::Null: QFAIL(mismatch(QStringLiteral("null in manifest")));
    }
}

// A file whose only key is an array of `count` short strings, "t0", "t1", ...
QString writeLongStringArray(const QTemporaryDir& dir, int count)
{
    std::vector<std::string> strings;
    strings.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i)
        strings.push_back(std::string(1, 't').append(std::to_string(i)));  // not "t" + ...: GCC 12 -Wrestrict
    gguf::GgufWriter writer;
    writer.setValue("test.long", gguf::EncodedValue::stringArray(strings));
    const QString path = dir.filePath(QStringLiteral("long.gguf"));
    const gguf::Status written = writer.writeFile(path.toStdString());
    if (!written)
        qWarning("%s", written.error().toString().c_str());
    return path;
}

// Like writeLongStringArray, with a scalar key after the array, so the array is not the last row.
QString writeLongArrayThenScalar(const QTemporaryDir& dir, int count)
{
    std::vector<std::string> strings;
    strings.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i)
        strings.push_back("t" + std::to_string(i));
    gguf::GgufWriter writer;
    writer.setValue("test.long", gguf::EncodedValue::stringArray(strings));
    writer.setValue("test.after", gguf::EncodedValue::u32(7));
    const QString path = dir.filePath(QStringLiteral("long-then-scalar.gguf"));
    const gguf::Status written = writer.writeFile(path.toStdString());
    if (!written)
        qWarning("%s", written.error().toString().c_str());
    return path;
}

}  // namespace

class TestGuiMetadata : public QObject {
    Q_OBJECT

private slots:
    void treeMatchesManifest_data();
    void treeMatchesManifest();
    void arraysLoadOnePageAtATime();
    void nestedArrays();
    void hugeArrayStaysPagedInTheView();
    void arrayThatIsNotTheLastRowKeepsLoading();
    void jumpToIndexLoadsAndSelectsTheElement();
    void keyCountFollowsTheFilter();
    void fileTypeIsNamed();
    void copyPutsTheSelectedRowsOnTheClipboard();
    void filterIsDebouncedAndMatchesKeys();
    void resetKeepsTheModelConsistent();
};

void TestGuiMetadata::treeMatchesManifest_data()
{
    QTest::addColumn<QString>("file");
    for (const char* file : {"tiny-llama-Q4_K.gguf", "tiny-moe-Q4_K.gguf", "kv-all-types.gguf", "kv-nested-arrays.gguf", "be.gguf",
                             "be-fugg.gguf", "v1.gguf", "no-tensors.gguf", "split-00001-of-00002.gguf", "align64.gguf"})
        QTest::newRow(file) << QString::fromLatin1(file);
}

void TestGuiMetadata::treeMatchesManifest()
{
    QFETCH(QString, file);
    QString error;
    const auto manifest = Manifest::load(fixturePath(file + QStringLiteral(".json")), &error);
    QVERIFY2(manifest, qPrintable(error));
    MetadataTreeModel tree;
    Tester tester(&tree, kReportToQtTest);
    tree.setModel(openModelAt(manifest->filePath()));

    QCOMPARE(tree.rowCount(), int(manifest->kvCount));
    QCOMPARE(tree.rowCount(), int(manifest->metadata.members.size()));
    for (int row = 0; row < tree.rowCount(); ++row) {
        const auto& [key, expected] = manifest->metadata.members[std::size_t(row)];
        const QModelIndex keyIndex = tree.index(row, MetadataTreeModel::Key);
        QCOMPARE(keyIndex.data().toString(), QString::fromUtf8(key));
        QCOMPARE(keyIndex.data(MetadataTreeModel::KeyFilterRole).toString(), QString::fromUtf8(key));
        QCOMPARE(cell(tree, row, MetadataTreeModel::Type), manifest->metadataTypes.value(QString::fromUtf8(key)).toString());
        compareRow(tree, keyIndex, expected, QString::fromUtf8(key));
        if (QTest::currentTestFailed())
            return;
    }
}

void TestGuiMetadata::arraysLoadOnePageAtATime()
{
    const auto model = openModelAt(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")));
    QVERIFY(model);
    MetadataTreeModel tree;
    tree.setModel(model);
    int tokensRow = -1;
    for (int row = 0; row < tree.rowCount(); ++row)
        if (cell(tree, row, MetadataTreeModel::Key) == QLatin1String("tokenizer.ggml.tokens"))
            tokensRow = row;
    QVERIFY(tokensRow >= 0);
    const QModelIndex tokens = tree.index(tokensRow, 0);

    // Nothing is created until a view (or anyone) asks for it.
    QVERIFY(tree.hasChildren(tokens));
    QCOMPARE(tree.rowCount(tokens), 0);
    QVERIFY(tree.canFetchMore(tokens));
    QVERIFY(!tree.canFetchMore(tree.index(tokensRow, MetadataTreeModel::Value)));
    QVERIFY(!tree.canFetchMore(QModelIndex()));

    Tester tester(&tree, kReportToQtTest);  // its first walk fetches one page of every array
    QCOMPARE(tree.rowCount(tokens), MetadataTreeModel::kPageSize);
    QSignalSpy inserted(&tree, &QAbstractItemModel::rowsInserted);
    tree.fetchMore(tokens);
    QCOMPARE(tree.rowCount(tokens), 512);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(inserted.at(0).at(1).toInt(), 256);
    QCOMPARE(inserted.at(0).at(2).toInt(), 511);
    QVERIFY(!tree.canFetchMore(tokens));
    tree.fetchMore(tokens);
    QCOMPARE(tree.rowCount(tokens), 512);

    // Rows on both sides of the page boundary come from the right place in the array.
    const gguf::MetadataValue& array = model->findMetadata("tokenizer.ggml.tokens")->value;
    for (int row : {0, 1, 255, 256, 257, 511}) {
        QCOMPARE(cell(tree, row, MetadataTreeModel::Key, tokens), QStringLiteral("[%1]").arg(row));
        QCOMPARE(cell(tree, row, MetadataTreeModel::Type, tokens), QStringLiteral("str"));
        // Appended, not "\"" + ...: GCC 12 reports a false -Wrestrict for that at -O2.
        const std::string expected = std::string(1, '"').append(gguf::escapeForDisplay(array.element(std::uint64_t(row)).toStringView())).append(1, '"');
        QCOMPARE(cell(tree, row, MetadataTreeModel::Value, tokens), QString::fromStdString(expected));
        QVERIFY(!tree.hasChildren(tree.index(row, 0, tokens)));
        QVERIFY(!tree.index(row, 0, tokens).data(MetadataTreeModel::KeyFilterRole).isValid());
    }
    QCOMPARE(cell(tree, 298, MetadataTreeModel::Value, tokens), QStringLiteral("\"\u2581tab\\there\""));
}

void TestGuiMetadata::nestedArrays()
{
    MetadataTreeModel tree;
    Tester tester(&tree, kReportToQtTest);
    tree.setModel(openModelAt(fixturePath(QStringLiteral("kv-nested-arrays.gguf"))));
    QCOMPARE(tree.rowCount(), 6);

    const QModelIndex nested = tree.index(2, 0);
    QCOMPARE(nested.data().toString(), QStringLiteral("test.nested_u32"));
    QCOMPARE(cell(tree, 2, MetadataTreeModel::Type), QStringLiteral("arr[arr[u32]]"));
    fetchAll(tree, nested);
    QCOMPARE(tree.rowCount(nested), 3);
    const QList<QStringList> expected{{"1", "2", "3"}, {"4"}, {}};
    for (int i = 0; i < 3; ++i) {
        const QModelIndex inner = tree.index(i, 0, nested);
        QCOMPARE(cell(tree, i, MetadataTreeModel::Type, nested), QStringLiteral("arr[u32]"));
        QCOMPARE(tree.hasChildren(inner), !expected[i].isEmpty());
        fetchAll(tree, inner);
        QCOMPARE(tree.canFetchMore(inner), false);
        QStringList values;
        for (int k = 0; k < tree.rowCount(inner); ++k)
            values << cell(tree, k, MetadataTreeModel::Value, inner);
        QCOMPARE(values, expected[i]);
        QCOMPARE(inner.parent(), nested);
    }

    // Three levels: [[[1,-1],[2]],[[-3]]]
    const QModelIndex deep = tree.index(4, 0);
    QCOMPARE(cell(tree, 4, MetadataTreeModel::Type), QStringLiteral("arr[arr[arr[i8]]]"));
    fetchAll(tree, deep);
    const QModelIndex first = tree.index(0, 0, deep);
    fetchAll(tree, first);
    const QModelIndex pair = tree.index(0, 0, first);
    fetchAll(tree, pair);
    QCOMPARE(tree.rowCount(pair), 2);
    QCOMPARE(cell(tree, 1, MetadataTreeModel::Value, pair), QStringLiteral("-1"));
    QCOMPARE(pair.parent().parent(), deep);
    const QModelIndex second = tree.index(1, 0, deep);
    fetchAll(tree, second);
    const QModelIndex single = tree.index(0, 0, second);
    fetchAll(tree, single);
    QCOMPARE(cell(tree, 0, MetadataTreeModel::Value, single), QStringLiteral("-3"));

    // The key after the nested arrays is read from the right offset.
    QCOMPARE(cell(tree, 5, MetadataTreeModel::Key), QStringLiteral("test.after_nested"));
    QCOMPARE(cell(tree, 5, MetadataTreeModel::Value), QStringLiteral("7"));
}

// A 256k-element array shown in a real view: expanding and scrolling create pages, not 256k rows.
void TestGuiMetadata::hugeArrayStaysPagedInTheView()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    constexpr int kCount = 262144;
    MetadataPage page(openModelAt(writeLongStringArray(dir, kCount)));
    MetadataTreeModel* tree = page.treeModel();
    Tester tester(tree, kReportToQtTest);
    Tester proxyTester(page.filterModel(), kReportToQtTest);
    page.resize(800, 600);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));

    const QModelIndex array = tree->index(0, 0);
    QCOMPARE(cell(*tree, 0, MetadataTreeModel::Value).left(18), QStringLiteral("[262144 × str] \"t0"));
    const int beforeExpand = tree->rowCount(array);  // the testers' walks each fetched a page
    QVERIFY(beforeExpand <= 2 * MetadataTreeModel::kPageSize);
    page.view()->expand(page.filterModel()->mapFromSource(array));
    QCoreApplication::processEvents();
    const int afterExpand = tree->rowCount(array);
    // QTreeView 6.4 asks for a page in expand() and again in each of its two layout passes.
    QVERIFY2(afterExpand > beforeExpand && afterExpand - beforeExpand <= 4 * MetadataTreeModel::kPageSize, qPrintable(QString::number(afterExpand)));

    // Scrolling to the bottom asks for the next page, as QTreeView does for expanded items.
    QScrollBar* scrollBar = page.view()->verticalScrollBar();
    scrollBar->setValue(scrollBar->maximum());
    QTRY_VERIFY_WITH_TIMEOUT(tree->rowCount(array) > afterExpand, kHangGuardMs);
    QVERIFY(tree->rowCount(array) <= afterExpand + 4 * MetadataTreeModel::kPageSize);
    const int last = tree->rowCount(array) - 1;
    QCOMPARE(cell(*tree, last, MetadataTreeModel::Value, array), QStringLiteral("\"t%1\"").arg(last));
}

// QTreeView fetches more only for the expanded item that ends the view, so an
// array followed by another key stopped after the pages loaded on expansion ([767]).
void TestGuiMetadata::arrayThatIsNotTheLastRowKeepsLoading()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MetadataPage page(openModelAt(writeLongArrayThenScalar(dir, 20000)));
    MetadataTreeModel* tree = page.treeModel();
    Tester tester(tree, kReportToQtTest);
    page.resize(800, 600);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QCOMPARE(tree->rowCount(), 2);

    const QModelIndex array = tree->index(0, 0);
    page.view()->expand(page.filterModel()->mapFromSource(array));
    QCoreApplication::processEvents();
    QScrollBar* scrollBar = page.view()->verticalScrollBar();
    // Scroll down a screen at a time, as a reader would, well past the first pages.
    for (int step = 0; step < 200 && tree->rowCount(array) <= 6 * MetadataTreeModel::kPageSize; ++step) {
        scrollBar->setValue(scrollBar->value() + scrollBar->pageStep());
        // The rows fetched and the view's delayed layout (which grows the scroll range) are
        // posted events: run them, no wait for wall time.
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    }
    QVERIFY2(tree->rowCount(array) > 6 * MetadataTreeModel::kPageSize, qPrintable(QString::number(tree->rowCount(array))));
    QVERIFY(tree->rowCount(array) < 20000);  // still paged, not loaded whole
    const int last = tree->rowCount(array) - 1;
    QCOMPARE(cell(*tree, last, MetadataTreeModel::Value, array), QStringLiteral("\"t%1\"").arg(last));
    QCOMPARE(cell(*tree, 1, MetadataTreeModel::Key), QStringLiteral("test.after"));
}

void TestGuiMetadata::jumpToIndexLoadsAndSelectsTheElement()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    constexpr int kCount = 280147;
    MetadataPage page(openModelAt(writeLongArrayThenScalar(dir, kCount)));
    MetadataTreeModel* tree = page.treeModel();
    Tester tester(tree, kReportToQtTest);
    Tester proxyTester(page.filterModel(), kReportToQtTest);
    page.resize(800, 600);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));

    auto* jumpIndex = page.findChild<QSpinBox*>(QStringLiteral("metadataJumpIndex"));
    auto* jumpButton = page.findChild<QPushButton*>(QStringLiteral("metadataJumpButton"));
    QVERIFY(jumpIndex && jumpButton);
    page.view()->setCurrentIndex(page.filterModel()->mapFromSource(tree->index(1, 0)));
    QVERIFY(!jumpButton->isEnabled());  // a scalar: no array to jump in
    const QModelIndex array = tree->index(0, 0);
    page.view()->setCurrentIndex(page.filterModel()->mapFromSource(array));
    QVERIFY(jumpButton->isEnabled());
    QCOMPARE(jumpIndex->maximum(), kCount - 1);

    jumpIndex->setValue(200000);
    jumpButton->click();
    const QModelIndex current = page.filterModel()->mapToSource(page.view()->currentIndex());
    QCOMPARE(current.parent(), array);
    QCOMPARE(current.row(), 200000);
    QCOMPARE(current.data().toString(), QStringLiteral("[200000]"));
    QCOMPARE(current.siblingAtColumn(MetadataTreeModel::Value).data().toString(), QStringLiteral("\"t200000\""));
    QVERIFY(page.view()->visualRect(page.view()->currentIndex()).intersects(page.view()->viewport()->rect()));
    // From an element, the jump works in the array that holds it; past the end it does nothing.
    QVERIFY(page.jumpToElement(array, kCount - 1));
    QCOMPARE(tree->rowCount(array), kCount);
    QVERIFY(!page.jumpToElement(array, kCount));
    QVERIFY(!page.jumpToElement(tree->index(1, 0), 0));
}

void TestGuiMetadata::keyCountFollowsTheFilter()
{
    MetadataPage page(openModelAt(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"))));
    auto* filter = page.findChild<QLineEdit*>(QStringLiteral("metadataFilter"));
    auto* count = page.findChild<QLabel*>(QStringLiteral("metadataCount"));
    QVERIFY(filter && count);
    const QString all = count->text();
    QVERIFY2(all.endsWith(QLatin1String(" keys")) && !all.contains(QLatin1String(" of ")), qPrintable(all));
    QSignalSpy applied(&page, &MetadataPage::filterApplied);
    filter->setText(QStringLiteral("general."));
    QVERIFY(applied.wait(kHangGuardMs));
    QCOMPARE(count->text(), QStringLiteral("5 of %1").arg(all));
    filter->clear();
    QVERIFY(applied.wait(kHangGuardMs));
    QCOMPARE(count->text(), all);
}

// general.file_type is a llama_ftype number; the page names it.
void TestGuiMetadata::fileTypeIsNamed()
{
    MetadataPage page(openModelAt(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"))));
    QSortFilterProxyModel* proxy = page.filterModel();
    QString shown;
    for (int row = 0; row < proxy->rowCount(); ++row)
        if (proxy->index(row, 0).data().toString() == QLatin1String("general.file_type"))
            shown = proxy->index(row, MetadataTreeModel::Value).data().toString();
    QCOMPARE(shown, QStringLiteral("15 (MOSTLY_Q4_K_M)"));
    QCOMPARE(QString::fromLatin1(gguf::llamaFileTypeName(7).data()), QStringLiteral("MOSTLY_Q8_0"));
    QCOMPARE(QString::fromLatin1(gguf::llamaFileTypeName(0).data()), QStringLiteral("ALL_F32"));
    QVERIFY(gguf::llamaFileTypeName(1000).empty());
}

void TestGuiMetadata::copyPutsTheSelectedRowsOnTheClipboard()
{
    MetadataPage page(openModelAt(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"))));
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QAction* copy = nullptr;
    for (QAction* action : page.view()->actions())
        if (action->shortcut() == QKeySequence(QKeySequence::Copy))
            copy = action;
    QVERIFY(copy);
    QCOMPARE(page.view()->contextMenuPolicy(), Qt::ActionsContextMenu);
    QModelIndex nameRow;
    for (int row = 0; row < page.filterModel()->rowCount(); ++row)
        if (page.filterModel()->index(row, 0).data().toString() == QLatin1String("general.architecture"))
            nameRow = page.filterModel()->index(row, 0);
    QVERIFY(nameRow.isValid());
    page.view()->selectionModel()->select(nameRow, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QGuiApplication::clipboard()->clear();
    copy->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("general.architecture\tstr\t\"llama\""));
}

void TestGuiMetadata::filterIsDebouncedAndMatchesKeys()
{
    QString error;
    const auto manifest = Manifest::load(fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf.json")), &error);
    QVERIFY2(manifest, qPrintable(error));
    MetadataPage page(openModelAt(manifest->filePath()));
    QSortFilterProxyModel* proxy = page.filterModel();
    Tester tester(page.treeModel(), kReportToQtTest);
    Tester proxyTester(proxy, kReportToQtTest);
    auto* filter = page.findChild<QLineEdit*>(QStringLiteral("metadataFilter"));
    QVERIFY(filter);
    QSignalSpy applied(&page, &MetadataPage::filterApplied);

    const int allKeys = int(manifest->kvCount);
    QCOMPARE(proxy->rowCount(), allKeys);
    QElapsedTimer timer;
    timer.start();
    for (const char* text : {"t", "to", "tok", "TOKEN"})
        filter->setText(QString::fromLatin1(text));
    QCOMPARE(proxy->rowCount(), allKeys);  // nothing happens while typing
    QVERIFY(applied.wait(kHangGuardMs));
    QVERIFY2(timer.elapsed() >= MetadataPage::kFilterDelayMs * 9 / 10,  // a coarse timer may fire 5 % early
              qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(applied.size(), 1);
    QCOMPARE(applied.at(0).at(0).toString(), QStringLiteral("TOKEN"));

    int expected = 0;
    for (const auto& member : manifest->metadata.members)
        expected += QString::fromUtf8(member.first).contains(QLatin1String("token"), Qt::CaseInsensitive) ? 1 : 0;
    QCOMPARE(expected, 10);  // tokenizer.ggml.* (9) and tokenizer.chat_template
    QCOMPARE(proxy->rowCount(), expected);
    for (int row = 0; row < proxy->rowCount(); ++row)
        QVERIFY(proxy->index(row, 0).data().toString().contains(QLatin1String("token"), Qt::CaseInsensitive));

    // A matching array keeps its elements, fetched through the proxy.
    QModelIndex tokens;
    for (int row = 0; row < proxy->rowCount(); ++row)
        if (proxy->index(row, 0).data().toString() == QLatin1String("tokenizer.ggml.tokens"))
            tokens = proxy->index(row, 0);
    QVERIFY(tokens.isValid());
    fetchAll(*proxy, tokens);
    QCOMPARE(proxy->rowCount(tokens), 512);

    // Element rows never match on their own: "[1]" is not a key.
    filter->setText(QStringLiteral("[1]"));
    QVERIFY(applied.wait(kHangGuardMs));
    QCOMPARE(proxy->rowCount(), 0);
    filter->setText(QStringLiteral("general."));
    QVERIFY(applied.wait(kHangGuardMs));
    QCOMPARE(proxy->rowCount(), 5);
    filter->clear();
    QVERIFY(applied.wait(kHangGuardMs));
    QCOMPARE(proxy->rowCount(), allKeys);
}

void TestGuiMetadata::resetKeepsTheModelConsistent()
{
    MetadataTreeModel tree;
    Tester tester(&tree, kReportToQtTest);
    QCOMPARE(tree.rowCount(), 0);
    QVERIFY(!tree.hasChildren());
    tree.setModel(openModelAt(fixturePath(QStringLiteral("kv-all-types.gguf"))));
    QCOMPARE(tree.rowCount(), 34);
    fetchAll(tree, tree.index(32, 0));
    tree.setModel(openModelAt(fixturePath(QStringLiteral("kv-nested-arrays.gguf"))));
    QCOMPARE(tree.rowCount(), 6);
    tree.setModel(nullptr);
    QCOMPARE(tree.rowCount(), 0);
}

QTEST_MAIN(TestGuiMetadata)
#include "tst_gui_metadata.moc"
