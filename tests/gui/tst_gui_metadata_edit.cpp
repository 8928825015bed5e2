// Editing on the Metadata page, Save As and the Diff page: the tree model's edits (changed, added,
// removed, an array element, revert) under QAbstractItemModelTester; the value editor's range
// checks per type; editing through the page and saving in the background, then reopening the
// copy (new value, every tensor's bytes unchanged by hash); the special-token picker; the Diff
// page's tables and per-layer chart against core/diff's figures; the menu entries.

#include "Fixtures.h"
#include "GuiThreadCpu.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "core/base/Sha256.h"
#include "ui/diff/DiffPage.h"
#include "ui/diff/LayerDiffChart.h"
#include "core/edit/ModelSaver.h"
#include "core/edit/ValueText.h"
#include "core/gguf/MetadataFormat.h"
#include "ui/metadata/MetadataPage.h"
#include "ui/metadata/MetadataValueEditor.h"
#include "ui/metadata/SpecialTokenPicker.h"
#include "ui/session/MetadataTreeModel.h"
#include "ui/session/TokenTableModel.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ModelPage.h"
#include "core/write/GgufWriter.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QDialogButtonBox>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <qcustomplot.h>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>

#include <random>

using namespace testsupport;

namespace {
using State = MetadataTreeModel::EditState;

State stateOf(const QAbstractItemModel& model, int row)
{
    return static_cast<State>(model.data(model.index(row, 0), MetadataTreeModel::EditStateRole).toInt());
}

QString valueCell(const QAbstractItemModel& model, int row, const QModelIndex& parent = {})
{
    return model.data(model.index(row, MetadataTreeModel::Value, parent)).toString();
}

QByteArray rawHash(const gguf::TensorInfo& tensor)
{
    return QByteArray::fromStdString(gguf::Sha256::toHex(gguf::Sha256::of({tensor.data, static_cast<std::size_t>(tensor.nbytes)})));
}

bool waitFor(QSignalSpy& spy)
{
    return !spy.isEmpty() || spy.wait(kHangGuardMs);
}

// The window's Save / Discard / Cancel question: on screen as soon as the close was asked for
// (window-modal, without an event loop of its own), so there is nothing to wait for.
QMessageBox* unsavedEditsPrompt(const QWidget& window)
{
    auto* box = window.findChild<QMessageBox*>(QStringLiteral("unsavedEditsPrompt"));
    return box && box->isVisible() ? box : nullptr;
}

// Opens `name` in `window` and edits general.name on its Metadata page.
ModelPage* openAndEdit(MainWindow& window, const QString& name)
{
    const int before = window.tabs()->count();
    window.openFile(fixturePath(name));
    if (!QTest::qWaitFor([&] { return window.tabs()->count() == before + 1; }, kHangGuardMs))
        return nullptr;
    ModelPage* page = window.currentModelPage();
    if (!page)
        return nullptr;
    MetadataTreeModel* tree = page->metadataPage()->treeModel();
    tree->setValue(tree->rowOfKey("general.name"), gguf::EncodedValue::string("edited"));
    return page;
}

QModelIndex proxyIndexOfKey(const MetadataPage& page, const std::string& key)
{
    const int row = page.treeModel()->rowOfKey(key);
    return page.filterModel()->mapFromSource(page.treeModel()->index(row, 0));
}
}  // namespace

class TestGuiMetadataEdit : public QObject {
    Q_OBJECT

private slots:
    void treeModelShowsEdits();
    void editedArraysPageAndExpand();
    void editorChecksRanges();
    void editAndSaveThroughThePage();
    void untouchedValueAndTakenKeyAreNoEdits();
    void elementEditThroughThePage();
    void specialTokenPickedFromVocabulary();
    void diffPageShowsTheDiff();
    void diffPageReadsInFileOrderWithNamedFileTypes();
    void diffPageLineDiffOfAChangedTemplate();
    void menusOfferSaveAsAndDiff();
    void diffOfLargeModelsLeavesTheEventLoopFree();
    void onlyTheEditedElementIsMarked();
    void unsavedEditsAskBeforeTheTabCloses();
    void unsavedEditsAskBeforeTheWindowCloses();
    void contradictingEditIsNamed();
    void saveAsProposesACopyAndShowsARefusal();

private:
    QTemporaryDir m_dir;
};

void TestGuiMetadataEdit::treeModelShowsEdits()
{
    const auto model = openFixtureModel("kv-all-types.gguf");
    QVERIFY(model);
    MetadataTreeModel tree;
    QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
    tree.setModel(model);
    const int count = tree.rowCount();
    const int u16 = tree.rowOfKey("test.u16");
    QVERIFY(u16 >= 0);
    QSignalSpy edits(&tree, &MetadataTreeModel::editsChanged);

    tree.setValue(u16, *gguf::parseValueText("4242", "u16"));
    QCOMPARE(stateOf(tree, u16), State::Changed);
    QCOMPARE(valueCell(tree, u16), QStringLiteral("4242"));
    QCOMPARE(stateOf(tree, 0), State::Unchanged);

    QVERIFY(tree.addKey("test.added", *gguf::parseValueText("[\"a\", \"b\"]", "arr[str]")));
    QVERIFY(!tree.addKey("test.added", gguf::EncodedValue::u8(1)));  // exists now
    QCOMPARE(tree.rowCount(), count + 1);
    QCOMPARE(stateOf(tree, count), State::Added);
    QCOMPARE(tree.data(tree.index(count, MetadataTreeModel::Type)).toString(), QStringLiteral("arr[str]"));

    tree.removeKey(0);
    QCOMPARE(stateOf(tree, 0), State::Removed);
    QCOMPARE(tree.rowCount(), count + 1);  // still listed, to be reverted
    QCOMPARE(tree.edits().changes().size(), std::size_t{3});
    QVERIFY(!tree.edits().find(tree.keyAt(0))->value);

    tree.revertRow(0);
    QCOMPARE(stateOf(tree, 0), State::Unchanged);
    tree.removeKey(count);  // an added key just goes
    QCOMPARE(tree.rowCount(), count);
    QCOMPARE(tree.edits().changes().size(), std::size_t{1});
    tree.revertAll();
    QVERIFY(!tree.hasEdits());
    QCOMPARE(valueCell(tree, u16), QString::fromStdString(gguf::valueAsText(model->findMetadata("test.u16")->value)));
    QCOMPARE(edits.count(), 6);
}

void TestGuiMetadataEdit::editedArraysPageAndExpand()
{
    const auto model = openFixtureModel("tiny-llama-Q4_K.gguf");
    QVERIFY(model);
    MetadataTreeModel tree;
    QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
    tree.setModel(model);
    const int tokens = tree.rowOfKey("tokenizer.ggml.tokens");
    QVERIFY(tokens >= 0);
    // One element of the 512-token array, in the paged view's terms.
    QVERIFY(tree.setElement(tokens, 300, gguf::EncodedValue::string("edited token")));
    QVERIFY(!tree.setElement(tokens, 300, gguf::EncodedValue::u32(1)));  // not a string
    QVERIFY(!tree.setElement(tokens, 512, gguf::EncodedValue::string("x")));
    const QModelIndex array = tree.index(tokens, 0);
    QCOMPARE(stateOf(tree, tokens), State::Changed);
    QCOMPARE(tree.arrayLength(array), 512);
    QVERIFY(tree.loadThrough(array, 511));
    QCOMPARE(valueCell(tree, 300, array), QStringLiteral("\"edited token\""));
    QCOMPARE(tree.data(tree.index(300, 0, array), MetadataTreeModel::EditStateRole).toInt(), int(State::Changed));
    for (int i : {0, 299, 301, 511})
        QCOMPARE(valueCell(tree, i, array), QString::fromStdString(gguf::formatValue(model->findMetadata("tokenizer.ggml.tokens")->value.element(i))));
    // A numeric array element: scores[5].
    const int scores = tree.rowOfKey("tokenizer.ggml.scores");
    QVERIFY(tree.setElement(scores, 5, gguf::EncodedValue::f32(-1.5f)));
    QVERIFY(tree.loadThrough(tree.index(scores, 0), 5));
    QCOMPARE(valueCell(tree, 5, tree.index(scores, 0)), QStringLiteral("-1.5"));
}

void TestGuiMetadataEdit::editorChecksRanges()
{
    using Mode = MetadataValueEditor::Mode;
    MetadataValueEditor number(Mode::EditValue, nullptr, "llama.block_count", "u8", "2");
    QVERIFY(number.canAccept());
    number.setValueText("300");
    QVERIFY(!number.canAccept());
    QVERIFY2(number.problem().contains("out of range"), qPrintable(number.problem()));
    number.setValueText("255");
    QVERIFY(number.canAccept());
    QCOMPARE(number.value()->payload, gguf::EncodedValue::u8(255).payload);
    QVERIFY(number.findChild<QLineEdit*>("editorLine")->isVisibleTo(&number));

    MetadataValueEditor flag(Mode::EditValue, nullptr, "tokenizer.ggml.add_bos_token", "bool", "true");
    QVERIFY(flag.findChild<QCheckBox*>("editorCheck")->isVisibleTo(&flag));
    flag.findChild<QCheckBox*>("editorCheck")->setChecked(false);
    QCOMPARE(flag.value()->payload, gguf::EncodedValue::boolean(false).payload);

    const QString chatTemplate = "{% for m in messages %}\n  {{ m['content'] }}\n{% endfor %}";
    MetadataValueEditor text(Mode::EditValue, nullptr, "tokenizer.chat_template", "str", chatTemplate);
    auto* editor = text.findChild<QPlainTextEdit*>("editorText");
    QVERIFY(editor->isVisibleTo(&text));
    QCOMPARE(editor->toPlainText(), chatTemplate);
    QCOMPARE(text.value()->payload, gguf::EncodedValue::string(chatTemplate.toStdString()).payload);

    MetadataValueEditor added(Mode::AddKey, nullptr, "", "str", "");
    QVERIFY(!added.canAccept());  // no key yet
    added.setKey("test.list");
    added.setTypeName("arr[i8]");
    added.setValueText("[1, 200]");
    QVERIFY(!added.canAccept());
    added.setValueText("[1, -128]");
    QVERIFY(added.canAccept());
    added.setKey("split.count");
    QVERIFY(!added.canAccept());
    added.setKey("test.list");
    added.setTypeName("f32");
    added.setValueText("1e39");
    QVERIFY(!added.canAccept());
}

void TestGuiMetadataEdit::editAndSaveThroughThePage()
{
    const auto model = openFixtureModel("tiny-llama-Q4_K.gguf");
    QVERIFY(model);
    MetadataPage page(model);
    page.show();
    page.view()->setCurrentIndex(proxyIndexOfKey(page, "general.name"));
    MetadataValueEditor* editor = page.editCurrent();
    QVERIFY(editor);
    editor->setValueText("renamed in the GUI");
    editor->accept();
    const int row = page.treeModel()->rowOfKey("general.name");
    QCOMPARE(stateOf(*page.treeModel(), row), State::Changed);
    QCOMPARE(page.view()->currentIndex(), proxyIndexOfKey(page, "general.name"));
    // Marked on the page: bold, until saved.
    QVERIFY(page.filterModel()->data(proxyIndexOfKey(page, "general.name"), Qt::FontRole).value<QFont>().bold());

    page.view()->setCurrentIndex(proxyIndexOfKey(page, "tokenizer.ggml.scores"));
    page.removeCurrent();
    MetadataValueEditor* adder = page.addKey();
    QVERIFY(adder);
    adder->setKey("test.added_in_gui");
    adder->setTypeName("i16");
    adder->setValueText("-300");
    adder->accept();
    QCOMPARE(page.treeModel()->edits().changes().size(), std::size_t{3});

    const QString out = m_dir.filePath("saved-from-gui.gguf");
    QSignalSpy saved(&page, &MetadataPage::saveFinished);
    page.saveAs(out);
    // saveAs() only starts the job: its end is announced through the event loop, later.
    QVERIFY(page.isSaving());
    QVERIFY(saved.isEmpty());
    QVERIFY(waitFor(saved));
    QVERIFY2(saved.first().at(0).toBool(), qPrintable(saved.first().at(1).toString()));
    QCOMPARE(saved.first().at(2).toStringList(), QStringList{out});
    QVERIFY(!page.treeModel()->hasEdits());  // saved: the marks are gone

    const auto copy = openModelAt(out);
    QVERIFY(copy);
    QCOMPARE(copy->metadataString("general.name"), std::string("renamed in the GUI"));
    QVERIFY(!copy->findMetadata("tokenizer.ggml.scores"));
    QCOMPARE(*copy->findMetadata("test.added_in_gui")->value.toInt(), -300);
    QCOMPARE(copy->tensors().size(), model->tensors().size());
    for (std::size_t i = 0; i < model->tensors().size(); ++i)
        QCOMPARE(rawHash(copy->tensors()[i]), rawHash(model->tensors()[i]));

    // Over its own input: refused, reported, nothing written.
    QSignalSpy refused(&page, &MetadataPage::saveFinished);
    page.saveAs(QString::fromStdString(model->primary().path()));
    QVERIFY(waitFor(refused));
    QVERIFY(!refused.first().at(0).toBool());
}

// OK on an untouched value is no edit; Add Key with a name the model has keeps the dialog open
// and says why (it closed, and the status bar said so afterwards); the key of an edited value is
// text, not a field that looks typeable.
void TestGuiMetadataEdit::untouchedValueAndTakenKeyAreNoEdits()
{
    const auto model = openFixtureModel("tiny-llama-Q4_K.gguf");
    QVERIFY(model);
    MetadataPage page(model);
    page.show();
    page.view()->setCurrentIndex(proxyIndexOfKey(page, "general.name"));
    MetadataValueEditor* editor = page.editCurrent();
    QVERIFY(editor);
    QVERIFY(!editor->findChild<QLineEdit*>(QStringLiteral("editorKey"))->isVisibleTo(editor));
    auto* keyText = editor->findChild<QLabel*>(QStringLiteral("editorKeyText"));
    QVERIFY(keyText && keyText->isVisibleTo(editor));
    QCOMPARE(keyText->text(), QStringLiteral("general.name"));
    QVERIFY(!editor->changed());
    editor->accept();
    QVERIFY(!page.treeModel()->hasEdits());
    QVERIFY(!page.hasUnsavedEdits());

    MetadataValueEditor* adder = page.addKey();
    QVERIFY(adder);
    QTRY_VERIFY(adder->isVisible());
    adder->setKey("general.name");
    QVERIFY(!adder->canAccept());
    QVERIFY2(adder->problem().contains(QStringLiteral("already has a key general.name")), qPrintable(adder->problem()));
    auto* buttons = adder->findChild<QDialogButtonBox*>();
    QVERIFY(buttons);
    QTest::mouseClick(buttons->button(QDialogButtonBox::Ok), Qt::LeftButton);
    QVERIFY(adder->isVisible());
    adder->setKey("general.name_too");
    QVERIFY(adder->canAccept());
    adder->reject();
}

void TestGuiMetadataEdit::elementEditThroughThePage()
{
    const auto model = openFixtureModel("kv-all-types.gguf");
    QVERIFY(model);
    MetadataPage page(model);
    const MetadataTreeModel* tree = page.treeModel();
    int strings = -1;
    for (int r = 0; r < tree->rowCount(); ++r)
        if (tree->valueAtRow(r).isArray() && tree->valueAtRow(r).elementType() == gguf::ValueType::String && tree->valueAtRow(r).arrayLength() > 3)
            strings = r;
    QVERIFY(strings >= 0);
    const QModelIndex array = tree->index(strings, 0);
    QVERIFY(page.jumpToElement(array, 2));
    MetadataValueEditor* editor = page.editCurrent();
    QVERIFY(editor);
    QCOMPARE(editor->typeName(), QStringLiteral("str"));
    editor->setValueText("element two");
    editor->accept();
    QCOMPARE(std::string(tree->valueAtRow(strings).element(2).toStringView()), std::string("element two"));
    // Back at the element after the reset the edit caused.
    QCOMPARE(page.filterModel()->mapToSource(page.view()->currentIndex()), tree->index(2, 0, tree->index(strings, 0)));
    // A string that is not UTF-8 is not opened in a Unicode editor (accepting would change its bytes).
    for (int r = 0; r < tree->rowCount(); ++r) {
        const gguf::MetadataValue value = tree->valueAtRow(r);
        if (value.type() != gguf::ValueType::String)
            continue;
        const bool utf8 = QString::fromStdString(std::string(value.toStringView())).toStdString() == value.toStringView();
        QSignalSpy refused(&page, &MetadataPage::statusMessage);
        MetadataValueEditor* stringEditor = page.editIndex(tree->index(r, 0));
        QCOMPARE(stringEditor != nullptr, utf8);
        QCOMPARE(refused.isEmpty(), utf8);
        if (stringEditor)
            stringEditor->reject();
    }
    gguf::MetadataEdits bytes;
    bytes.set("test.not_utf8", gguf::EncodedValue::string("ok \xff\xfe bytes"));
    const QString path = m_dir.filePath("not-utf8.gguf");
    QVERIFY(gguf::saveModelAs(*model, bytes, path.toStdString()));
    const auto withBytes = openModelAt(path);
    QVERIFY(withBytes);
    MetadataPage other(withBytes);
    QSignalSpy refused(&other, &MetadataPage::statusMessage);
    QVERIFY(!other.editIndex(other.treeModel()->index(other.treeModel()->rowOfKey("test.not_utf8"), 0)));
    QCOMPARE(refused.count(), 1);
    QCOMPARE(tree->valueAtRow(strings).arrayLength(), model->metadata()[static_cast<std::size_t>(strings)].value.arrayLength());
}

void TestGuiMetadataEdit::specialTokenPickedFromVocabulary()
{
    const auto model = openFixtureModel("tiny-llama-Q4_K.gguf");
    QVERIFY(model);
    MetadataPage page(model);
    const int row = page.treeModel()->rowOfKey("tokenizer.ggml.eos_token_id");
    MetadataValueEditor* editor = page.editIndex(page.treeModel()->index(row, 0));
    QVERIFY(editor);
    SpecialTokenPicker* picker = editor->tokenPicker();
    QVERIFY(picker);
    QSignalSpy ready(picker, &SpecialTokenPicker::ready);
    QVERIFY(picker->isReady() || waitFor(ready));
    QSignalSpy searched(picker, &SpecialTokenPicker::searchFinished);
    picker->searchBox()->setText("</s>");
    QVERIFY(waitFor(searched));
    QCOMPARE(searched.last().at(0).toInt(), 1);
    picker->pickRow(0);
    QCOMPARE(editor->valueText(), QStringLiteral("2"));  // </s> is token 2
    editor->setValueText("1");
    editor->accept();
    QCOMPARE(*page.treeModel()->valueAtRow(row).toUInt(), 1u);
    // Keys that are not token ids get no picker.
    MetadataValueEditor* other = page.editIndex(page.treeModel()->index(page.treeModel()->rowOfKey("llama.block_count"), 0));
    QVERIFY(other);
    QVERIFY(!other->tokenPicker());
    other->reject();
}

void TestGuiMetadataEdit::diffPageShowsTheDiff()
{
    const auto a = openFixtureModel("tiny-llama-F32.gguf");
    QVERIFY(a);
    DiffPage page(a, fixturePath("tiny-llama-Q8_0.gguf"));
    QSignalSpy finished(&page, &DiffPage::finished);
    QVERIFY(waitFor(finished));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
    const gguf::ModelDiff* diff = page.diff();
    QVERIFY(diff);
    QCOMPARE(page.metadataTable()->topLevelItemCount(), static_cast<int>(diff->metadata.size()));
    QCOMPARE(page.metadataTable()->topLevelItem(0)->text(0), QStringLiteral("general.file_type"));
    QCOMPARE(page.tensorTable()->topLevelItemCount(), 21);
    int identical = 0;
    for (int i = 0; i < page.tensorTable()->topLevelItemCount(); ++i)
        identical += page.tensorTable()->topLevelItem(i)->text(1) == QLatin1String("identical bytes");
    QCOMPARE(identical, 5);  // the f32 norms
    // The chart: one bar per layer, the layer's relative RMSE from core/diff.
    const QList<QPointF> bars = page.layerChart()->bars();
    QCOMPARE(bars.size(), 2);
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(bars[i].x(), double(i));
        QCOMPARE(bars[i].y(), diff->layers[static_cast<std::size_t>(i)].metrics.relativeRmse);
        QVERIFY(bars[i].y() > 0);
    }
    page.layerChart()->figureCombo()->setCurrentIndex(3);
    QCOMPARE(page.layerChart()->bars()[1].y(), 1.0 - diff->layers[1].metrics.cosineSimilarity);
    QVERIFY(page.summary()->text().contains("16 different"));
    QCOMPARE(page.layerChart()->placeholderText(), QString());
}

// The tensors in file order until a header is clicked, the figures sorted by value; the file
// type by name as the Metadata page shows it; the chart's "other" bar for the tensors outside
// the layers, its layer axis labelled, its figure axis from zero to just above the tallest bar.
void TestGuiMetadataEdit::diffPageReadsInFileOrderWithNamedFileTypes()
{
    const auto a = openFixtureModel("tiny-llama-F32.gguf");
    QVERIFY(a);
    DiffPage page(a, fixturePath("tiny-llama-Q8_0.gguf"));
    page.resize(1000, 700);
    page.show();
    QSignalSpy finished(&page, &DiffPage::finished);
    QVERIFY(waitFor(finished));
    const gguf::ModelDiff* diff = page.diff();
    QVERIFY(diff);
    QTreeWidget* tensors = page.tensorTable();
    QCOMPARE(tensors->topLevelItemCount(), static_cast<int>(diff->tensors.size()));
    for (int i = 0; i < tensors->topLevelItemCount(); ++i)
        QCOMPARE(tensors->topLevelItem(i)->text(0), QString::fromStdString(diff->tensors[static_cast<std::size_t>(i)].name));
    tensors->sortByColumn(5, Qt::AscendingOrder);  // relative RMSE
    double previous = -1.0;
    for (int i = 0; i < tensors->topLevelItemCount(); ++i) {
        const QString text = tensors->topLevelItem(i)->text(5);
        if (text.isEmpty())
            continue;  // identical bytes: no figure, sorted first
        QVERIFY2(text.toDouble() >= previous, qPrintable(text));
        previous = text.toDouble();
    }

    QTreeWidgetItem* fileType = page.metadataTable()->topLevelItem(0);
    QCOMPARE(fileType->text(0), QStringLiteral("general.file_type"));
    QVERIFY2(fileType->text(2).endsWith(QLatin1String("(ALL_F32)")), qPrintable(fileType->text(2)));
    QVERIFY2(fileType->text(3).endsWith(QLatin1String("(MOSTLY_Q8_0)")), qPrintable(fileType->text(3)));
    page.metadataTable()->setCurrentItem(fileType);
    QVERIFY2(page.detail()->toPlainText().contains(QLatin1String("(MOSTLY_Q8_0)")), qPrintable(page.detail()->toPlainText()));

    LayerDiffChart* chart = page.layerChart();
    QVERIFY(!diff->layers.empty() && !diff->layers.back().layer);  // the tensors outside the layers come last
    QVERIFY(chart->otherBar());
    QCOMPARE(*chart->otherBar(), diff->layers.back().metrics.relativeRmse);
    QCOMPARE(chart->otherKey(), 2.0);  // one past layer 1
    chart->plot()->replot();
    QVERIFY2(chart->plot()->xAxis->tickVectorLabels().contains(QStringLiteral("other")),
             qPrintable(chart->plot()->xAxis->tickVectorLabels().join(QLatin1Char(','))));
    for (const QString& label : chart->plot()->xAxis->tickVectorLabels())
        QVERIFY2(label == QLatin1String("other") || label == QLatin1String("0") || label == QLatin1String("1"), qPrintable(label));
    double tallest = *chart->otherBar();
    for (const QPointF& bar : chart->bars())
        tallest = std::max(tallest, bar.y());
    QCOMPARE(chart->plot()->yAxis->range().lower, 0.0);
    QVERIFY(chart->plot()->yAxis->range().upper > tallest && chart->plot()->yAxis->range().upper < 1.2 * tallest);
    QVERIFY(chart->plot()->xAxis->range().lower < 0.0 && chart->plot()->xAxis->range().upper > chart->otherKey());
    // The mouse moves the layer axis only: the zero stays.
    QCOMPARE(chart->plot()->axisRect()->rangeZoom(), Qt::Horizontal);
    QCOMPARE(chart->plot()->axisRect()->rangeDrag(), Qt::Horizontal);
}

void TestGuiMetadataEdit::diffPageLineDiffOfAChangedTemplate()
{
    const auto a = openFixtureModel("tiny-llama-Q4_K.gguf");
    QVERIFY(a);
    gguf::MetadataEdits edits;
    std::string changed = a->metadataString("tokenizer.chat_template") + "\n{# a new last line #}";
    edits.set("tokenizer.chat_template", gguf::EncodedValue::string(changed));
    const QString b = m_dir.filePath("template-changed.gguf");
    QVERIFY(gguf::saveModelAs(*a, edits, b.toStdString()));
    DiffPage page(a, b);
    QSignalSpy finished(&page, &DiffPage::finished);
    QVERIFY(waitFor(finished));
    QVERIFY(finished.first().at(0).toBool());
    QCOMPARE(page.metadataTable()->topLevelItemCount(), 1);
    page.metadataTable()->setCurrentItem(page.metadataTable()->topLevelItem(0));
    QVERIFY2(page.detail()->toPlainText().contains("+{# a new last line #}"), qPrintable(page.detail()->toPlainText()));
    QVERIFY(page.summary()->text().contains("21 identical bytes"));
    // Nothing differs per layer: the chart says so instead of showing empty axes.
    QVERIFY(page.layerChart()->bars().isEmpty() || std::all_of(page.layerChart()->bars().begin(), page.layerChart()->bars().end(),
                                                               [](const QPointF& bar) { return bar.y() == 0.0; }));
    QVERIFY2(page.layerChart()->placeholderText().contains(QLatin1String("identical")), qPrintable(page.layerChart()->placeholderText()));
}

void TestGuiMetadataEdit::menusOfferSaveAsAndDiff()
{
    MainWindow window;
    QStringList texts;
    for (QAction* menu : window.menuBar()->actions())
        if (menu->menu())
            for (QAction* action : menu->menu()->actions())
                texts << action->text();
    QVERIFY(texts.contains("Save &As…"));
    QVERIFY(texts.contains("&Diff With…"));
    const auto a = openFixtureModel("v2.gguf");
    QVERIFY(a);
    DiffPage* page = window.showDiff(a, fixturePath("align64.gguf"));
    QVERIFY(page);
    QCOMPARE(window.tabs()->currentWidget(), page);
    QSignalSpy finished(page, &DiffPage::finished);
    QVERIFY(waitFor(finished));
    QVERIFY(finished.first().at(0).toBool());
}

void TestGuiMetadataEdit::diffOfLargeModelsLeavesTheEventLoopFree()
{
    // Two files of 32M f16 weights each (two [4096, 4096] tensors) with other random values:
    // dequantizing and comparing them on the GUI thread would take it seconds of CPU.
    const auto write = [&](const QString& path, std::uint64_t seed) {
        gguf::GgufWriter writer;
        writer.setValue("general.architecture", gguf::EncodedValue::string("llama"));
        for (int layer = 0; layer < 2; ++layer) {
            const auto status = writer.addTensor({"blk." + std::to_string(layer) + ".ffn_up.weight", 1, {4096, 4096}},
                                                 [seed, layer](gguf::ByteSink& sink) -> gguf::Status {
                                                     std::mt19937_64 random(seed * 10 + static_cast<std::uint64_t>(layer));
                                                     std::vector<std::uint64_t> chunk(4096);
                                                     for (int piece = 0; piece < 4096 * 4096 * 2 / 8 / 4096; ++piece) {
                                                         for (auto& word : chunk)
                                                             word = random() & 0x3bff3bff3bff3bffull;  // finite f16 values
                                                         if (auto s = sink.write(chunk.data(), chunk.size() * 8); !s)
                                                             return s;
                                                     }
                                                     return gguf::Ok{};
                                                 });
            if (!status)
                return false;
        }
        return writer.writeFile(path.toStdString()).ok();
    };
    const QString aPath = m_dir.filePath("large-a.gguf");
    const QString bPath = m_dir.filePath("large-b.gguf");
    QVERIFY(write(aPath, 1));
    QVERIFY(write(bPath, 2));
    const auto a = openModelAt(aPath);
    QVERIFY(a);
    StallMeter stalls;
    DiffPage page(a, bPath);
    QSignalSpy finished(&page, &DiffPage::finished);
    QVERIFY(waitFor(finished));
    stalls.stop();
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
    qInfo("longest event-loop stall while 2 x 32M weights were diffed: %lld ms of GUI-thread CPU (%lld ms wall clock)", stalls.longestCpuMs(),
          stalls.longestWallMs());
    QVERIFY2(stalls.longestCpuMs() < 100, qPrintable(QStringLiteral("the event loop stalled for %1 ms of CPU").arg(stalls.longestCpuMs())));
    QCOMPARE(page.diff()->contentCount(gguf::TensorContent::Different), std::size_t{2});
    QCOMPARE(page.layerChart()->bars().size(), 2);
    QFile::remove(aPath);
    QFile::remove(bPath);
}

QTEST_MAIN(TestGuiMetadataEdit)
#include "tst_gui_metadata_edit.moc"

// Editing [300] of a 512-token list marks [300], not the other 511.
void TestGuiMetadataEdit::onlyTheEditedElementIsMarked()
{
    const auto model = openFixtureModel("tiny-llama-Q4_K.gguf");
    QVERIFY(model);
    MetadataTreeModel tree;
    tree.setModel(model);
    const int tokens = tree.rowOfKey("tokenizer.ggml.tokens");
    QVERIFY(tree.setElement(tokens, 300, gguf::EncodedValue::string("edited token")));
    const QModelIndex array = tree.index(tokens, 0);
    QVERIFY(tree.loadThrough(array, 511));
    const auto elementState = [&tree](const QModelIndex& parent, int row) {
        return static_cast<State>(tree.data(tree.index(row, 0, parent), MetadataTreeModel::EditStateRole).toInt());
    };
    QCOMPARE(stateOf(tree, tokens), State::Changed);
    for (int i = 0; i < 512; ++i)
        QVERIFY2(elementState(array, i) == (i == 300 ? State::Changed : State::Unchanged), qPrintable(QString::number(i)));
    // Numbers too, and a second edit of the same array adds its element.
    const int scores = tree.rowOfKey("tokenizer.ggml.scores");
    QVERIFY(tree.setElement(scores, 5, gguf::EncodedValue::f32(-1.5f)));
    QVERIFY(tree.setElement(scores, 7, gguf::EncodedValue::f32(-2.5f)));
    const QModelIndex scoreArray = tree.index(scores, 0);
    QVERIFY(tree.loadThrough(scoreArray, 9));
    for (int i = 0; i < 10; ++i)
        QVERIFY2(elementState(scoreArray, i) == (i == 5 || i == 7 ? State::Changed : State::Unchanged), qPrintable(QString::number(i)));
    // Setting an element back to the file's value unmarks it.
    const gguf::MetadataValue original = model->findMetadata("tokenizer.ggml.scores")->value.element(7);
    QVERIFY(tree.setElement(scores, 7, gguf::EncodedValue::f32(static_cast<float>(*original.toDouble()))));
    QVERIFY(tree.loadThrough(tree.index(scores, 0), 9));
    QCOMPARE(elementState(tree.index(scores, 0), 7), State::Unchanged);
    QCOMPARE(elementState(tree.index(scores, 0), 5), State::Changed);
}

// Ctrl+W on a tab with unsaved edits asks; Cancel keeps the tab and its edits, Discard closes it.
// The tab and the window title carry a mark while the edits are unsaved.
void TestGuiMetadataEdit::unsavedEditsAskBeforeTheTabCloses()
{
    MainWindow window;
    window.show();
    ModelPage* page = openAndEdit(window, QStringLiteral("tiny-llama-Q4_K.gguf"));
    QVERIFY(page);
    const int index = window.tabs()->indexOf(page);
    QCOMPARE(window.tabs()->tabText(index), QStringLiteral("tiny-llama-Q4_K.gguf*"));
    QCOMPARE(window.windowTitle(), QStringLiteral("tiny-llama-Q4_K.gguf* — GGUF Explorer"));

    QAction* closeTab = nullptr;
    for (QAction* menu : window.menuBar()->actions())
        if (menu->menu())
            for (QAction* action : menu->menu()->actions())
                if (action->shortcut() == QKeySequence(QKeySequence::Close))
                    closeTab = action;
    QVERIFY(closeTab);
    closeTab->trigger();
    QMessageBox* box = unsavedEditsPrompt(window);
    QVERIFY(box);
    QVERIFY(box->text().contains(QLatin1String("tiny-llama-Q4_K.gguf")));
    QVERIFY(box->button(QMessageBox::Save) && box->button(QMessageBox::Discard) && box->button(QMessageBox::Cancel));
    QCOMPARE(window.tabs()->count(), 1);  // nothing closed while asking
    box->button(QMessageBox::Cancel)->click();
    QCOMPARE(window.tabs()->count(), 1);
    QVERIFY(page->hasUnsavedEdits());

    closeTab->trigger();
    box = unsavedEditsPrompt(window);
    QVERIFY(box);
    box->button(QMessageBox::Discard)->click();
    QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 0, kHangGuardMs);

    // Reverted edits take the mark off again; a tab without edits closes without a question.
    page = openAndEdit(window, QStringLiteral("tiny-llama-Q4_K.gguf"));
    QVERIFY(page);
    page->metadataPage()->treeModel()->revertAll();
    QCOMPARE(window.tabs()->tabText(window.tabs()->indexOf(page)), QStringLiteral("tiny-llama-Q4_K.gguf"));
    closeTab->trigger();
    QCOMPARE(window.tabs()->count(), 0);
    QVERIFY(!window.findChild<QMessageBox*>(QStringLiteral("unsavedEditsPrompt")));
}

// Ctrl+Q (closing the window) asks too; Cancel keeps the window open.
void TestGuiMetadataEdit::unsavedEditsAskBeforeTheWindowCloses()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ModelPage* page = openAndEdit(window, QStringLiteral("tiny-llama-Q4_K.gguf"));
    QVERIFY(page);
    QVERIFY(!window.close());
    QMessageBox* box = unsavedEditsPrompt(window);
    QVERIFY(box);
    box->button(QMessageBox::Cancel)->click();
    QVERIFY(window.isVisible());
    QVERIFY(page->hasUnsavedEdits());
    QVERIFY(!window.close());
    box = unsavedEditsPrompt(window);
    QVERIFY(box);
    box->button(QMessageBox::Discard)->click();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), kHangGuardMs);
}

// An edit the tensors contradict is named under the tree; the right value clears it.
void TestGuiMetadataEdit::contradictingEditIsNamed()
{
    const auto model = openFixtureModel("tiny-llama-Q4_K.gguf");
    QVERIFY(model);
    MetadataPage page(model);
    auto* label = page.findChild<QLabel*>(QStringLiteral("metadataContradictions"));
    QVERIFY(label);
    QVERIFY(label->isHidden());
    MetadataTreeModel* tree = page.treeModel();
    const int embedding = tree->rowOfKey("llama.embedding_length");
    QVERIFY(embedding >= 0);
    const auto width = static_cast<std::uint32_t>(model->findTensor("token_embd.weight")->ne[0]);
    tree->setValue(embedding, gguf::EncodedValue::u32(16));
    QCOMPARE(page.contradictions().size(), 1);
    QVERIFY2(page.contradictions().front().contains(QStringLiteral("token_embd.weight is %1 wide").arg(width)), qPrintable(page.contradictions().front()));
    QVERIFY(!label->isHidden());
    QVERIFY(label->text().contains(QLatin1String("llama.embedding_length = 16")));
    const int layers = tree->rowOfKey("llama.block_count");
    tree->setValue(layers, gguf::EncodedValue::u32(7));
    QCOMPARE(page.contradictions().size(), 2);
    tree->setValue(embedding, gguf::EncodedValue::u32(width));
    tree->revertRow(layers);
    QVERIFY(page.contradictions().isEmpty());
    QVERIFY(label->isHidden());
}

// Save As proposes NAME-edited.gguf next to the model; a save the core refuses is shown in a box
// that stays until read.
void TestGuiMetadataEdit::saveAsProposesACopyAndShowsARefusal()
{
    const auto model = openFixtureModel("tiny-llama-Q4_K.gguf");
    QVERIFY(model);
    MetadataPage page(model);
    page.show();
    const QFileInfo input(fixturePath("tiny-llama-Q4_K.gguf"));
    QCOMPARE(QFileInfo(page.proposedSavePath()).fileName(), QStringLiteral("tiny-llama-Q4_K-edited.gguf"));
    QCOMPARE(QFileInfo(page.proposedSavePath()).absolutePath(), input.absolutePath());
    const auto split = openFixtureModel("split-00001-of-00002.gguf");
    QVERIFY(split);
    QCOMPARE(QFileInfo(MetadataPage(split).proposedSavePath()).fileName(), QStringLiteral("split-edited.gguf"));

    page.treeModel()->setValue(page.treeModel()->rowOfKey("general.name"), gguf::EncodedValue::string("edited"));
    QSignalSpy finished(&page, &MetadataPage::saveFinished);
    page.saveAs(input.absoluteFilePath());
    QVERIFY(waitFor(finished));
    QVERIFY(!finished.first().at(0).toBool());
    auto* box = page.findChild<QMessageBox*>(QStringLiteral("saveFailedBox"));
    QVERIFY(box);
    QVERIFY2(box->text().contains(QLatin1String("choose another name")), qPrintable(box->text()));
    QVERIFY(page.hasUnsavedEdits());
    box->close();
}
