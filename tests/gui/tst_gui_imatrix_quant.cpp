// Issue 14, GUI: the compare dialog, the convert dialog and the experts' quantization-error tab
// take an importance matrix and offer every type the core quantizes (Q8_K and the IQ types
// included); the types ggml makes only with a matrix are refused without one, with the reason.
// With a matrix the figures come from quantizeRows with its weights, as llama-quantize --imatrix.

#include "compare/CompareDialog.h"
#include "compare/ComparePage.h"
#include "compare/LayerErrorChart.h"
#include "experts/ExpertQuantErrorView.h"
#include "experts/ExpertsPage.h"
#include "imatrix/ColumnErrorView.h"
#include "imatrix/LoadedImatrix.h"
#include "kernels/Dequantize.h"
#include "quantize/ImportanceWeights.h"
#include "quantize/Quantize.h"
#include "session/ComparisonMetric.h"
#include "session/ComparisonTableModel.h"
#include "session/ExpertQuantErrorModel.h"
#include "shell/ConvertDialog.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "Waits.h"

#include <QComboBox>
#include <QDir>
#include <QListWidget>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <cmath>

using namespace testsupport;

namespace {

QString imatrixFixture(const QString& name)
{
    return fixturePath(QStringLiteral("llama.cpp/") + name);
}

QListWidgetItem* typeItem(const CompareDialog& dialog, const QString& name)
{
    auto* list = dialog.findChild<QListWidget*>(QStringLiteral("simulatedTypesList"));
    for (int i = 0; list && i < list->count(); ++i)
        if (list->item(i)->text() == name)
            return list->item(i);
    return nullptr;
}

std::size_t rowNamed(const gguf::ModelComparison& comparison, std::string_view name)
{
    for (std::size_t r = 0; r < comparison.rows().size(); ++r)
        if (comparison.rows()[r].reference->name == name)
            return r;
    return comparison.rows().size();
}

// The values of `tensor` (rows [first, first + count)) as f32.
std::vector<float> valuesOf(const gguf::TensorInfo& tensor, std::uint64_t firstRow, std::uint64_t rowCount)
{
    std::vector<float> values(static_cast<std::size_t>(rowCount * static_cast<std::uint64_t>(tensor.ne[0])));
    if (gguf::Status s = gguf::dequantizeRows(tensor, firstRow, firstRow + rowCount, values); !s)
        qFatal("%s", s.error().toString().c_str());
    return values;
}

// RMSE of `values` after quantizeRows(type, values, ne0, weights) and back.
double weightedQuantizedRmse(std::uint32_t typeId, const std::vector<float>& values, std::int64_t rowLength, std::span<const float> weights)
{
    const gguf::TypeTraits& type = *gguf::findType(typeId);
    std::vector<std::uint8_t> packed(static_cast<std::size_t>(gguf::quantizedSize(type, values.size())));
    if (gguf::Status s = gguf::quantizeRows(typeId, values, rowLength, weights, packed); !s)
        qFatal("%s", s.error().toString().c_str());
    std::vector<float> back(values.size());
    type.dequantize(packed.data(), back.data(), packed.size() / type.blockBytes);
    double squares = 0;
    for (std::size_t k = 0; k < values.size(); ++k)
        squares += (double(back[k]) - double(values[k])) * (double(back[k]) - double(values[k]));
    return std::sqrt(squares / static_cast<double>(values.size()));
}

constexpr std::uint32_t kQ4_K = gguf::typeIdValue(gguf::GgmlTypeId::Q4_K);
constexpr std::uint32_t kIQ2_XXS = gguf::typeIdValue(gguf::GgmlTypeId::IQ2_XXS);

}  // namespace

class TestGuiImatrixQuant : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("ggufx-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_gui_imatrix_quant"));
        QSettings().clear();
    }

    // Every block type is offered, Q8_K and the IQ types included; IQ2_XXS (ggml needs a
    // matrix for it) only once a matrix is chosen, with the reason as its tooltip.
    void compareDialogOffersEveryTypeAndTheMatrixGatesTheRequiringOnes()
    {
        CompareDialog dialog;
        for (const char* name : {"q8_K", "iq1_s", "iq1_m", "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq4_nl", "iq4_xs", "tq1_0",
                                 "tq2_0", "mxfp4", "q2_K", "q8_0"})
            QVERIFY2(typeItem(dialog, QString::fromLatin1(name)), name);
        QListWidgetItem* iq2 = typeItem(dialog, QStringLiteral("iq2_xxs"));
        QVERIFY(!(iq2->flags() & Qt::ItemIsEnabled));
        QVERIFY(iq2->toolTip().contains(QStringLiteral("importance matrix")));
        dialog.setSimulatedTypeChecked(QStringLiteral("iq2_xxs"), true);
        QVERIFY(dialog.simulatedTypes().empty());
        QVERIFY(typeItem(dialog, QStringLiteral("q4_K"))->flags() & Qt::ItemIsEnabled);

        dialog.setImportanceMatrixPath(imatrixFixture(QStringLiteral("tiny-llama.imatrix.gguf")));
        QVERIFY(iq2->flags() & Qt::ItemIsEnabled);
        QVERIFY(iq2->toolTip().isEmpty());
        dialog.setSimulatedTypeChecked(QStringLiteral("iq2_xxs"), true);
        QCOMPARE(dialog.simulatedTypes(), (std::vector<std::uint32_t>{kIQ2_XXS}));

        dialog.setImportanceMatrixPath({});  // clearing the matrix unchecks it again
        QVERIFY(dialog.simulatedTypes().empty());
    }

    // The dialog reads the matrix with the files; the page weighs the figures by it, quantizes
    // the simulated columns with it (exactly quantizeRows with the tensor's weights), offers the
    // two weighted metrics and shows the selected tensor's error per column beside importance.
    void comparisonWithAnImportanceMatrix()
    {
        CompareDialog dialog;
        dialog.addFile(fixturePath(QStringLiteral("tiny-llama-F32.gguf")));
        dialog.setImportanceMatrixPath(imatrixFixture(QStringLiteral("tiny-llama.imatrix.gguf")));
        dialog.setSimulatedTypeChecked(QStringLiteral("q4_K"), true);
        dialog.setSimulatedTypeChecked(QStringLiteral("iq2_xxs"), true);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.openAndAccept();
        QVERIFY(accepted.wait(kHangGuardMs));
        QVERIFY(dialog.importanceMatrix());

        ComparePage page(dialog.models(), dialog.simulatedTypes(), nullptr, dialog.importanceMatrix());
        page.resize(1000, 700);
        page.show();
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        QVERIFY(finished.wait(kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QVERIFY(page.comparison()->importance());

        const std::size_t row = rowNamed(*page.comparison(), "blk.0.attn_q.weight");
        QVERIFY(row < page.comparison()->rows().size());
        std::size_t q4Column = 0;
        std::size_t iq2Column = 0;
        for (std::size_t c = 0; c < page.comparison()->columns().size(); ++c) {
            q4Column = page.comparison()->columns()[c].simulatedType == kQ4_K ? c : q4Column;
            iq2Column = page.comparison()->columns()[c].simulatedType == kIQ2_XXS ? c : iq2Column;
        }
        QVERIFY(q4Column != iq2Column);
        const auto& q4Cell = page.results()->cells[row][q4Column];
        const auto& iq2Cell = page.results()->cells[row][iq2Column];
        QVERIFY(q4Cell && iq2Cell);  // IQ2_XXS could be simulated: it had the weights
        QVERIFY(std::isfinite(q4Cell->weightedSquaredError) && q4Cell->weightedSquaredError > 0);
        QVERIFY(std::isfinite(q4Cell->relativeWeightedError));

        const gguf::TensorInfo& tensor = *page.comparison()->rows()[row].reference;
        const gguf::ImportanceEntry* entry = page.comparison()->importance()->find(tensor.name);
        QVERIFY(entry);
        const std::vector<float> weights = entry->quantWeights(0);
        const std::vector<float> values = valuesOf(tensor, 0, static_cast<std::uint64_t>(tensor.ne[1]));
        const double expected = weightedQuantizedRmse(kQ4_K, values, tensor.ne[0], weights);
        QVERIFY2(std::abs(q4Cell->rmse - expected) <= 1e-12 * expected, qPrintable(QStringLiteral("%1 vs %2").arg(q4Cell->rmse).arg(expected)));

        // Both weighted metrics in the table's and the chart's lists, and the table shows them.
        QCOMPARE(page.metricCombo()->count(), static_cast<int>(comparisonMetricsWithImportance().size()));
        QVERIFY(comparisonMetricsWithImportance().size() == comparisonMetrics().size() + 2);
        auto* chartCombo = page.layerChart()->findChild<QComboBox*>(QStringLiteral("layerMetricCombo"));
        QCOMPARE(chartCombo->count(), static_cast<int>(comparisonMetricsWithImportance().size()));
        const int weighted = static_cast<int>(comparisonMetrics().size());
        QCOMPARE(page.metricCombo()->itemText(weighted), comparisonMetricsWithImportance()[static_cast<std::size_t>(weighted)].displayName());
        page.metricCombo()->setCurrentIndex(weighted);
        const QModelIndex cell = page.tableModel()->index(static_cast<int>(row), ComparisonTableModel::FixedColumnCount + static_cast<int>(q4Column));
        QCOMPARE(page.tableModel()->data(cell, ComparisonTableModel::SortRole).toDouble(),
                 comparisonMetricsWithImportance()[static_cast<std::size_t>(weighted)].valueIn(*q4Cell));

        // The selected tensor's error per input column, next to its importance.
        QSignalSpy profile(page.columnErrorView(), &ColumnErrorView::profileReady);
        const QModelIndex source = page.tableModel()->index(static_cast<int>(row), 0);
        page.tableView()->setCurrentIndex(page.proxyModel()->mapFromSource(source));
        QVERIFY(profile.wait(kHangGuardMs));
        QVERIFY(page.columnErrorView()->profile());
        QCOMPARE(page.columnErrorView()->profile()->importance.size(), static_cast<std::size_t>(tensor.ne[0]));
        QCOMPARE(page.columnErrorView()->profile()->weightedError.size(), static_cast<std::size_t>(tensor.ne[0]));
    }

    void comparisonWithoutAMatrixKeepsThePlainMetrics()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        ComparePage page({model}, {kQ4_K});
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        QVERIFY(finished.wait(kHangGuardMs));
        QCOMPARE(page.metricCombo()->count(), static_cast<int>(comparisonMetrics().size()));
        QVERIFY(!page.comparison()->importance());
    }

    // Convert refuses IQ2_XXS without a matrix (saying why) and with one writes what
    // quantizeRows makes with the matrix's weights, recording the matrix as llama-quantize does.
    void convertDialogTakesAnImportanceMatrix()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ConvertDialog dialog(model);
        auto* types = dialog.findChild<QComboBox*>(QStringLiteral("typeCombo"));
        for (const gguf::TypeTraits* type : gguf::quantizableTypes())
            QVERIFY2(types->findText(QString::fromLatin1(type->name)) >= 0, type->name);
        QVERIFY(types->findText(QStringLiteral("q8_K")) >= 0);
        dialog.setTargetType(QStringLiteral("iq2_xxs"));
        QVERIFY(!dialog.canConvert());
        QVERIFY(dialog.typeRefusal().contains(QStringLiteral("importance matrix")));
        QVERIFY(dialog.warningsText().contains(QStringLiteral("importance matrix")));
        const QString output = dir.filePath(QStringLiteral("out-iq2_xxs.gguf"));
        dialog.setOutputPath(output);
        QSignalSpy refused(&dialog, &ConvertDialog::conversionFinished);
        dialog.startConversion();
        QCOMPARE(refused.size(), 1);
        QVERIFY(!refused.first().at(0).toBool());
        QVERIFY(!QFileInfo::exists(output));

        QSignalSpy loaded(&dialog, &ConvertDialog::importanceMatrixLoaded);
        dialog.setImportanceMatrixPath(imatrixFixture(QStringLiteral("tiny-llama.imatrix.gguf")));
        QVERIFY(loaded.wait(kHangGuardMs));
        QVERIFY2(loaded.first().at(0).toBool(), qPrintable(loaded.first().at(1).toString()));
        QVERIFY(dialog.hasImportanceMatrix());
        QVERIFY(dialog.typeRefusal().isEmpty());
        dialog.setTargetType(QStringLiteral("q4_K"));
        QVERIFY(dialog.canConvert());
        const QString q4 = dir.filePath(QStringLiteral("out-q4_K.gguf"));
        dialog.setOutputPath(q4);
        QSignalSpy finished(&dialog, &ConvertDialog::conversionFinished);
        dialog.startConversion();
        QVERIFY(finished.wait(kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));

        auto written = gguf::Model::open(q4.toStdString());
        QVERIFY(written);
        QVERIFY(!written.value()->metadataString("quantize.imatrix.file").empty());
        auto weights = gguf::ImportanceWeights::load(imatrixFixture(QStringLiteral("tiny-llama.imatrix.gguf")).toStdString());
        QVERIFY(weights);
        const gguf::TensorInfo* source = model->findTensor("blk.0.attn_q.weight");
        const gguf::TensorInfo* out = written.value()->findTensor("blk.0.attn_q.weight");
        QVERIFY(source && out);
        QCOMPARE(out->typeId, kQ4_K);
        auto row = weights->row(source->name, 0, static_cast<std::uint64_t>(source->ne[0]));
        QVERIFY(row && !row->empty());
        const std::vector<float> values = valuesOf(*source, 0, static_cast<std::uint64_t>(source->ne[1]));
        std::vector<std::uint8_t> expected(static_cast<std::size_t>(gguf::quantizedSize(*gguf::findType(kQ4_K), values.size())));
        QVERIFY(gguf::quantizeRows(kQ4_K, values, source->ne[0], *row, expected));
        QCOMPARE(out->nbytes, expected.size());
        QVERIFY(std::equal(expected.begin(), expected.end(), out->data));
    }

    // The experts' tab: IQ2_XXS only with a matrix; with one, each expert is quantized with its
    // own weights (the figures equal quantizeRows with quantWeights(e)).
    void expertQuantErrorWithAnImportanceMatrix()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        QVERIFY(model);
        ExpertsPage page(model);
        page.resize(1200, 900);
        page.show();
        QVERIFY(page.selectProjection(gguf::ExpertProjection::Up));
        ExpertQuantErrorView* view = page.quantError();
        QAction* iq2 = nullptr;
        bool q8k = false;
        for (QAction* action : view->typeButton()->menu()->actions()) {
            iq2 = action->text() == QStringLiteral("iq2_xxs") ? action : iq2;
            q8k = q8k || action->text() == QStringLiteral("q8_K");
        }
        QVERIFY(iq2 && q8k);
        QVERIFY(!iq2->isEnabled());
        QVERIFY(iq2->toolTip().contains(QStringLiteral("importance matrix")));

        const QString path = imatrixFixture(QStringLiteral("tiny-moe.imatrix.gguf"));
        QSignalSpy loaded(view, &ExpertQuantErrorView::importanceMatrixLoaded);
        view->setImportanceMatrixPath(path);
        QVERIFY(loaded.wait(kHangGuardMs));
        QVERIFY2(loaded.first().at(0).toBool(), qPrintable(loaded.first().at(1).toString()));
        QVERIFY(view->hasImportanceMatrix());
        QVERIFY(iq2->isEnabled());

        QSignalSpy ready(view, &ExpertQuantErrorView::errorsReady);
        page.tabs()->setCurrentWidget(view);
        view->setTypes({kQ4_K, kIQ2_XXS});
        QVERIFY(ready.wait(kHangGuardMs));
        QCOMPARE(view->types(), (std::vector<std::uint32_t>{kQ4_K, kIQ2_XXS}));

        auto matrix = LoadedImatrix::load(path, model.get());
        QVERIFY(matrix);
        const gguf::TensorInfo& tensor = *page.currentTensor();
        const gguf::ImportanceEntry* entry = matrix.value()->matrix->find(tensor.name);
        QVERIFY(entry);
        const auto rows = static_cast<std::uint64_t>(tensor.ne[1]);
        for (std::uint64_t e = 0; e < static_cast<std::uint64_t>(tensor.ne[2]); ++e) {
            const auto& q4 = view->model()->metrics(e, 0);
            QVERIFY(q4 && view->model()->metrics(e, 1));
            const std::vector<float> values = valuesOf(tensor, e * rows, rows);
            const double expected = weightedQuantizedRmse(kQ4_K, values, tensor.ne[0], entry->quantWeights(static_cast<std::size_t>(e)));
            QVERIFY2(std::abs(q4->rmse - expected) <= 1e-12 * expected, qPrintable(QStringLiteral("expert %1: %2 vs %3").arg(e).arg(q4->rmse).arg(expected)));
        }
    }
};

QTEST_MAIN(TestGuiImatrixQuant)
#include "tst_gui_imatrix_quant.moc"
