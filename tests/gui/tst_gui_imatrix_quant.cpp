// The compare dialog, the convert dialog and the experts' quantization-error tab
// take an importance matrix and offer every type the core quantizes (Q8_K and the IQ types
// included); the types ggml makes only with a matrix are refused without one, with the reason.
// With a matrix the figures come from quantizeRows with its weights, as llama-quantize --imatrix.

#include "ui/common/JobProgressBar.h"
#include "core/compare/ColumnErrorProfile.h"
#include "ui/compare/ColumnErrorTab.h"
#include "ui/compare/CompareExpertsTab.h"
#include "ui/compare/CompareDialog.h"
#include "ui/compare/ComparePage.h"
#include "ui/compare/LayerErrorChart.h"
#include "ui/experts/ExpertQuantErrorView.h"
#include "ui/experts/ExpertsPage.h"
#include "ui/imatrix/ColumnErrorView.h"
#include "ui/session/LoadedImatrix.h"
#include "core/gguf/Dequantize.h"
#include "core/imatrix/ImatrixForModel.h"
#include "core/quantize/ImportanceWeights.h"
#include "core/quantize/Quantize.h"
#include "ui/session/ComparisonMetric.h"
#include "ui/session/ComparisonTableModel.h"
#include "ui/session/ExpertQuantErrorModel.h"
#include "ui/shell/ConvertDialog.h"
#include "Fixtures.h"
#include "IdleWatch.h"
#include "OpenFixture.h"
#include "Waits.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QListWidget>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

using namespace testsupport;

namespace {

QString imatrixFixture(const QString& name)
{
    return fixturePath(QStringLiteral("llama.cpp/") + name);
}

// The MoE pair the Compare-page tests compare: tiny-moe F16 against llama.cpp's Q4_K_M made with
// tiny-moe's importance matrix, and that matrix. Empty members when a fixture does not open.
struct MoePair {
    std::shared_ptr<const gguf::Model> reference;
    std::shared_ptr<const gguf::Model> quant;
    std::shared_ptr<gguf::ImportanceMatrix> matrix;

    bool opened() const { return reference && quant && matrix; }
};

MoePair openMoePair()
{
    MoePair pair;
    pair.reference = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
    pair.quant = openFixtureModel(QStringLiteral("llama.cpp/tiny-moe-imat-Q4_K_M.gguf"));
    auto loaded = gguf::ImportanceMatrix::load(imatrixFixture(QStringLiteral("tiny-moe.imatrix.gguf")).toStdString());
    if (loaded)
        pair.matrix = std::make_shared<gguf::ImportanceMatrix>(std::move(loaded.value()));
    return pair;
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

// `values` after quantizeRows(type, values, ne0, weights) and dequantized again.
std::vector<float> quantizedAndBack(std::uint32_t typeId, const std::vector<float>& values, std::int64_t rowLength, std::span<const float> weights)
{
    const gguf::TypeTraits& type = *gguf::findType(typeId);
    std::vector<std::uint8_t> packed(static_cast<std::size_t>(gguf::quantizedSize(type, values.size())));
    if (gguf::Status s = gguf::quantizeRows(typeId, values, rowLength, weights, packed); !s)
        qFatal("%s", s.error().toString().c_str());
    std::vector<float> back(values.size());
    type.dequantize(packed.data(), back.data(), packed.size() / type.blockBytes);
    return back;
}

// RMSE of `values` after quantizeRows(type, values, ne0, weights) and back.
double weightedQuantizedRmse(std::uint32_t typeId, const std::vector<float>& values, std::int64_t rowLength, std::span<const float> weights)
{
    const std::vector<float> back = quantizedAndBack(typeId, values, rowLength, weights);
    double squares = 0;
    for (std::size_t k = 0; k < values.size(); ++k)
        squares += (double(back[k]) - double(values[k])) * (double(back[k]) - double(values[k]));
    return std::sqrt(squares / static_cast<double>(values.size()));
}

// The importance-weighted squared error sum_k w_k (q_k - x_k)^2 of one expert's rows quantized
// with its weights (w_k: the weight of element k's input column), and its relative form.
struct WeightedError {
    double squared = 0;
    double relative = 0;
};
WeightedError weightedQuantizedError(std::uint32_t typeId, const std::vector<float>& values, std::int64_t rowLength,
                                     const std::vector<float>& weights)
{
    const std::vector<float> back = quantizedAndBack(typeId, values, rowLength, weights);
    double error = 0;
    double reference = 0;
    for (std::size_t k = 0; k < values.size(); ++k) {
        const double w = weights[k % static_cast<std::size_t>(rowLength)];
        const double d = double(back[k]) - double(values[k]);
        error += w * d * d;
        reference += w * double(values[k]) * double(values[k]);
    }
    return {error, error / reference};
}

bool closeTo(double value, double expected)
{
    return std::abs(value - expected) <= 1e-12 * std::abs(expected);
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

    // A matrix that does not fit the reference is refused in the dialog with the reason
    // `compare --imatrix` gives, not accepted and shown as figures.
    void compareDialogRefusesAnImatrixTheCliRefuses()
    {
        const QString model = fixturePath(QStringLiteral("tiny-llama-F32.gguf"));
        // A legacy .dat matrix (llama-imatrix's old format) whose attn_q entry has 3 columns, as
        // a matrix made for another model would: llama-quantize refuses it.
        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        const QString otherModelsMatrix = folder.filePath(QStringLiteral("mismatched.imatrix.dat"));
        {
            QFile file(otherModelsMatrix);
            QVERIFY(file.open(QIODevice::WriteOnly));
            const auto putInt = [&file](std::int32_t v) { file.write(reinterpret_cast<const char*>(&v), sizeof v); };
            const QByteArray name("blk.0.attn_q.weight");
            putInt(1);
            putInt(static_cast<std::int32_t>(name.size()));
            file.write(name);
            putInt(1);  // ncall
            putInt(3);  // values
            for (const float value : {1.0f, 2.0f, 3.0f})
                file.write(reinterpret_cast<const char*>(&value), sizeof value);
        }
        const auto reference = testsupport::openModelAt(model);
        QVERIFY(reference);
        const auto cliRefusal = gguf::loadImatrixForModel(otherModelsMatrix.toStdString(), *reference);
        QVERIFY(!cliRefusal);
        const QString reason = QString::fromStdString(cliRefusal.error().toString());
        QVERIFY(reason.contains(QStringLiteral("does not fit the model")));

        CompareDialog dialog;
        dialog.addFile(model);
        dialog.setImportanceMatrixPath(otherModelsMatrix);
        dialog.setSimulatedTypeChecked(QStringLiteral("q4_K"), true);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.openAndAccept();
        QTRY_VERIFY_WITH_TIMEOUT(dialog.message().contains(reason), testsupport::kHangGuardMs);
        QVERIFY(accepted.isEmpty());
        QVERIFY(!dialog.importanceMatrix());
        QVERIFY(dialog.models().empty());
        QVERIFY(dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
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

        // The selected tensor's error per input column, next to its importance (computed while
        // the Columns tab is on screen).
        page.findChild<QTabWidget*>(QStringLiteral("compareTabs"))->setCurrentWidget(page.columnErrorTab());
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

    // With a matrix the experts' tab also offers the two weighted metrics; each expert's figures
    // come from its own rows quantized with its own weights and weighed by them (quantWeights(e)),
    // and the table sorts and the chart plots by them. Without the matrix only the plain five.
    // Both formats llama-imatrix writes: the legacy .dat holds a MoE tensor's experts in one row,
    // which binding to the model cuts per expert.
    void expertQuantErrorOffersTheWeightedMetrics_data()
    {
        QTest::addColumn<QString>("imatrix");
        QTest::newRow("gguf") << QStringLiteral("tiny-moe.imatrix.gguf");
        QTest::newRow("dat") << QStringLiteral("tiny-moe.imatrix.dat");
    }

    void expertQuantErrorOffersTheWeightedMetrics()
    {
        QFETCH(QString, imatrix);
        using Metric = ExpertQuantErrorModel::Metric;
        auto model = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        QVERIFY(model);
        ExpertsPage page(model);
        page.resize(1200, 900);
        page.show();
        QVERIFY(page.selectProjection(gguf::ExpertProjection::Up));
        ExpertQuantErrorView* view = page.quantError();
        QComboBox* metrics = view->metricCombo();
        QCOMPARE(metrics->count(), 5);
        QCOMPARE(metrics->findData(static_cast<int>(Metric::WeightedSquaredError)), -1);

        const QString path = imatrixFixture(imatrix);
        QSignalSpy loaded(view, &ExpertQuantErrorView::importanceMatrixLoaded);
        view->setImportanceMatrixPath(path);
        QVERIFY(loaded.wait(kHangGuardMs));
        QVERIFY2(loaded.first().at(0).toBool(), qPrintable(loaded.first().at(1).toString()));
        QCOMPARE(metrics->count(), 7);
        const int weightedIndex = metrics->findData(static_cast<int>(Metric::WeightedSquaredError));
        const int relativeIndex = metrics->findData(static_cast<int>(Metric::RelativeWeightedError));
        QVERIFY(weightedIndex >= 5 && relativeIndex >= 5);
        QCOMPARE(metrics->itemText(weightedIndex), comparisonMetricsWithImportance()[comparisonMetrics().size()].displayName());
        QCOMPARE(metrics->itemText(relativeIndex), comparisonMetricsWithImportance()[comparisonMetrics().size() + 1].displayName());

        QSignalSpy ready(view, &ExpertQuantErrorView::errorsReady);
        page.tabs()->setCurrentWidget(view);
        view->setTypes({kQ4_K});
        QVERIFY(ready.wait(kHangGuardMs));

        const gguf::TensorInfo& tensor = *page.currentTensor();
        QCOMPARE(tensor.name, std::string_view("blk.0.ffn_up_exps.weight"));
        auto matrix = LoadedImatrix::load(path, model.get());  // bound to the model: per expert rows
        QVERIFY(matrix);
        const gguf::ImportanceEntry* entry = matrix.value()->matrix->find(tensor.name);
        QVERIFY(entry);
        QCOMPARE(entry->expertCount(), static_cast<std::size_t>(tensor.ne[2]));
        const auto experts = static_cast<std::uint64_t>(tensor.ne[2]);
        const auto rows = static_cast<std::uint64_t>(tensor.ne[1]);
        std::vector<double> expectedWeighted;
        for (std::uint64_t e = 0; e < experts; ++e) {
            const auto& cell = view->model()->metrics(e, 0);
            QVERIFY(cell);
            const std::vector<float> values = valuesOf(tensor, e * rows, rows);
            const WeightedError expected = weightedQuantizedError(kQ4_K, values, tensor.ne[0], entry->quantWeights(static_cast<std::size_t>(e)));
            QVERIFY2(closeTo(cell->weightedSquaredError, expected.squared),
                     qPrintable(QStringLiteral("expert %1: %2 vs %3").arg(e).arg(cell->weightedSquaredError).arg(expected.squared)));
            QVERIFY2(closeTo(cell->relativeWeightedError, expected.relative),
                     qPrintable(QStringLiteral("expert %1: %2 vs %3").arg(e).arg(cell->relativeWeightedError).arg(expected.relative)));
            // Weighed by expert 0's row the figure would differ: each expert has its own.
            if (e > 0)
                QVERIFY(!closeTo(cell->weightedSquaredError, weightedQuantizedError(kQ4_K, values, tensor.ne[0], entry->quantWeights(0)).squared));
            expectedWeighted.push_back(expected.squared);
        }

        // The table and the chart follow the weighted metric; sorting puts the worst expert first.
        metrics->setCurrentIndex(weightedIndex);
        QCOMPARE(view->model()->metric(), Metric::WeightedSquaredError);
        auto* table = view->findChild<QTableView*>(QStringLiteral("quantErrorTable"));
        QVERIFY(table);
        for (std::uint64_t e = 0; e < experts; ++e)
            QCOMPARE(view->model()->data(view->model()->index(static_cast<int>(e), 1), ExpertQuantErrorModel::SortRole).toDouble(),
                     view->model()->metrics(e, 0)->weightedSquaredError);
        table->sortByColumn(1, Qt::DescendingOrder);
        const auto worst = std::max_element(expectedWeighted.begin(), expectedWeighted.end()) - expectedWeighted.begin();
        QCOMPARE(table->model()->index(0, 0).data().toULongLong(), static_cast<qulonglong>(worst));
        auto* bars = qobject_cast<QCPBars*>(view->plot()->plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->data()->size(), static_cast<int>(experts));
        for (std::uint64_t e = 0; e < experts; ++e)
            QCOMPARE(bars->data()->at(static_cast<int>(e))->value, view->model()->metrics(e, 0)->weightedSquaredError);
        QCOMPARE(view->plot()->yAxis->label(), metrics->itemText(weightedIndex));

        // Without the matrix the weighted metrics go, and the tab falls back to relative RMSE.
        loaded.clear();
        view->setImportanceMatrixPath({});
        QVERIFY(loaded.wait(kHangGuardMs));
        QCOMPARE(metrics->count(), 5);
        QCOMPARE(view->model()->metric(), Metric::RelativeRmse);
        QCOMPARE(metrics->currentData().toInt(), static_cast<int>(Metric::RelativeRmse));
    }

    // The Columns tab: a picker for the compared file or simulated type and, for an expert
    // tensor, the expert (or all together); the profile shown is exactly computeColumnErrorProfile
    // of the pick, and the picks follow the table's selected tensor.
    void columnsTabPicksTheColumnAndTheExpert()
    {
        const MoePair pair = openMoePair();
        QVERIFY(pair.opened());
        ComparePage page({pair.reference, pair.quant}, {kQ4_K}, nullptr, pair.matrix);
        page.resize(1200, 800);
        page.show();
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        QVERIFY(finished.wait(kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        const auto comparison = page.comparison();
        QCOMPARE(comparison->columns().size(), std::size_t{2});  // the Q4_K_M file, q4_K simulated
        QCOMPARE(comparison->columns()[1].simulatedType, kQ4_K);

        ColumnErrorTab* tab = page.columnErrorTab();
        QVERIFY(tab && tab->view() == page.columnErrorView());
        QCOMPARE(tab->columnCombo()->count(), 2);
        QVERIFY(tab->placeholderText().contains(QStringLiteral("Select a tensor")));
        QVERIFY(!tab->shownColumn());
        auto* tabs = page.findChild<QTabWidget*>(QStringLiteral("compareTabs"));
        const std::size_t up = rowNamed(*comparison, "blk.0.ffn_up_exps.weight");
        QVERIFY(up < comparison->rows().size());
        {  // Browsing the table with the tab hidden computes nothing; showing the tab does.
            QSignalSpy profile(tab->view(), &ColumnErrorView::profileReady);
            page.tableView()->setCurrentIndex(page.proxyModel()->mapFromSource(page.tableModel()->index(static_cast<int>(up), 0)));
            QCOMPARE(tab->shownColumn(), std::optional<std::size_t>(0));  // the first it can be compared with
            QVERIFY(!tab->view()->isComputing());
            QVERIFY(!tab->view()->profile());
            tabs->setCurrentWidget(tab);
            QVERIFY(tab->view()->isComputing());
            QVERIFY(profile.wait(kHangGuardMs));
        }

        auto select = [&](std::string_view name) {
            const std::size_t row = rowNamed(*comparison, name);
            QSignalSpy profile(tab->view(), &ColumnErrorView::profileReady);
            const QModelIndex source = page.tableModel()->index(static_cast<int>(row), 0);
            page.tableView()->setCurrentIndex(page.proxyModel()->mapFromSource(source));
            return profile.wait(kHangGuardMs) ? row : comparison->rows().size();
        };
        // The shown profile is the core's for (row, column, expert), bit for bit.
        auto matches = [&](std::size_t row, std::size_t column, std::optional<std::size_t> expert) {
            const auto& shown = tab->view()->profile();
            const auto expected = gguf::computeColumnErrorProfile(*comparison, row, column, expert);
            return shown && expected && shown->row == row && shown->column == column && shown->expert == expert
                   && shown->squaredError == expected->squaredError && shown->weightedError == expected->weightedError
                   && shown->importance == expected->importance && !expected->weightedError.empty();
        };

        QCOMPARE(tab->shownExpert(), std::optional<std::size_t>());   // all experts together
        QVERIFY(tab->expertSpin()->isVisibleTo(tab));
        QCOMPARE(tab->expertSpin()->maximum(), 7);
        QVERIFY(tab->placeholderText().isEmpty());
        QVERIFY(matches(up, 0, std::nullopt));

        {  // pick the simulated column
            QSignalSpy profile(tab->view(), &ColumnErrorView::profileReady);
            tab->columnCombo()->setCurrentIndex(1);
            QVERIFY(profile.wait(kHangGuardMs));
        }
        QCOMPARE(tab->shownColumn(), std::optional<std::size_t>(1));
        QVERIFY(matches(up, 1, std::nullopt));
        {  // and expert 3: its error per column and its own importance row
            QSignalSpy profile(tab->view(), &ColumnErrorView::profileReady);
            tab->expertSpin()->setValue(3);
            QVERIFY(profile.wait(kHangGuardMs));
        }
        QCOMPARE(tab->shownExpert(), std::optional<std::size_t>(3));
        QVERIFY(matches(up, 1, 3));
        QCOMPARE(tab->view()->profile()->importance, pair.matrix->find("blk.0.ffn_up_exps.weight")->quantWeights(3));

        // Another expert tensor keeps both picks; a 2-D tensor keeps the column, has no expert.
        const std::size_t down = select("blk.1.ffn_down_exps.weight");
        QVERIFY(down < comparison->rows().size());
        QCOMPARE(tab->shownColumn(), std::optional<std::size_t>(1));
        QCOMPARE(tab->shownExpert(), std::optional<std::size_t>(3));
        QVERIFY(matches(down, 1, 3));
        const std::size_t attn = select("blk.0.attn_q.weight");
        QVERIFY(attn < comparison->rows().size());
        QVERIFY(!tab->expertSpin()->isVisibleTo(tab));
        QCOMPARE(tab->shownColumn(), std::optional<std::size_t>(1));
        QCOMPARE(tab->shownExpert(), std::optional<std::size_t>());
        QVERIFY(matches(attn, 1, std::nullopt));
        QVERIFY(!tab->setExpert(0));  // no experts here
    }

    // The Columns tab's job is on the page's progress bar, whose Cancel stops it: the tab then
    // shows nothing and says so, starts nothing by itself, and computes the pick again when the
    // tab is shown again. A cancelled job's end never lands over a newer pick's profile.
    void columnsTabJobCancelsFromThePageBar()
    {
        const MoePair pair = openMoePair();
        QVERIFY(pair.opened());
        ComparePage page({pair.reference, pair.quant}, {kQ4_K}, nullptr, pair.matrix);
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        page.resize(1200, 800);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(finished.count() > 0 || finished.wait(kHangGuardMs));  // the run is done: Cancel stops no run
        QVERIFY(finished.first().at(0).toBool());
        const auto comparison = page.comparison();
        ColumnErrorTab* tab = page.columnErrorTab();
        ColumnErrorView* view = tab->view();
        auto* tabs = page.findChild<QTabWidget*>(QStringLiteral("compareTabs"));
        auto* bar = page.findChild<JobProgressBar*>();
        auto* cancel = page.findChild<QPushButton*>(QStringLiteral("cancelJobButton"));
        QVERIFY(tabs && bar && cancel);
        QSignalSpy ready(view, &ColumnErrorView::profileReady);
        QSignalSpy cancelled(view, &ColumnErrorView::profileCancelled);
        auto matches = [&](std::size_t row, std::size_t column, std::optional<std::size_t> expert) {
            const auto& shown = view->profile();
            const auto expected = gguf::computeColumnErrorProfile(*comparison, row, column, expert);
            return shown && expected && shown->row == row && shown->column == column && shown->expert == expert
                   && shown->squaredError == expected->squaredError && shown->weightedError == expected->weightedError;
        };

        tabs->setCurrentWidget(tab);
        const std::size_t up = rowNamed(*comparison, "blk.0.ffn_up_exps.weight");
        page.tableView()->setCurrentIndex(page.proxyModel()->mapFromSource(page.tableModel()->index(static_cast<int>(up), 0)));
        QVERIFY(view->isComputing());
        // The tab's job is on the page's bar (which names the heaviest of its jobs, here maybe the
        // heatmap's, and counts them all), so the bar's Cancel reaches it.
        QVERIFY(bar->isVisible());
        QVERIFY(!bar->text().isEmpty());
        // Clicked before the job's end reaches the GUI thread, so the job ends cancelled.
        cancel->click();
        QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), kHangGuardMs);
        QCOMPARE(cancelled.count(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(!bar->isVisible(), kHangGuardMs);
        QVERIFY(tab->isCancelled());
        QVERIFY2(tab->placeholderText().contains(QLatin1String("Cancelled")), qPrintable(tab->placeholderText()));
        QCOMPARE(view->summaryText(), tab->placeholderText());
        QVERIFY(!view->profile());
        QCOMPARE(tab->shownColumn(), std::optional<std::size_t>(0));  // the pick is kept
        QCOMPARE(busyStartsWhileIdle([view] { return view->isComputing(); }), 0);
        QCOMPARE(ready.count(), 0);  // nothing of the cancelled job lands later
        QVERIFY(!view->profile());
        QCOMPARE(cancelled.count(), 1);

        // Showing the tab again computes the pick.
        tabs->setCurrentIndex(0);
        QVERIFY(!view->isComputing());
        tabs->setCurrentWidget(tab);
        QVERIFY(view->isComputing());
        QVERIFY(ready.wait(kHangGuardMs));
        QVERIFY(!tab->isCancelled());
        QVERIFY(tab->placeholderText().isEmpty());
        QVERIFY(matches(up, 0, std::nullopt));

        // Cancelled and at once picked anew: the new pick's profile shows, the old end is dropped.
        ready.clear();
        cancelled.clear();
        tab->columnCombo()->setCurrentIndex(1);
        QVERIFY(view->isComputing());
        cancel->click();
        QVERIFY(tab->setExpert(3));
        QVERIFY(view->isComputing());
        QVERIFY(ready.wait(kHangGuardMs));
        QVERIFY(matches(up, 1, 3));
        QCOMPARE(busyStartsWhileIdle([view] { return view->isComputing(); }), 0);
        QCOMPARE(cancelled.count(), 0);
        QCOMPARE(ready.count(), 1);
        QVERIFY(!tab->isCancelled());
        QVERIFY(matches(up, 1, 3));
    }

    // The Compare page's Experts tab shows each expert's figures from the run's results: the
    // weighted ones equal sum w (o - r)^2 and that / sum w r^2 over the expert's values with its
    // own weights, written out here, and the plain ones a comparison of the expert alone.
    void compareExpertsTabShowsEachExpertsWeightedFigures()
    {
        const MoePair pair = openMoePair();
        QVERIFY(pair.opened());
        ComparePage page({pair.reference, pair.quant}, {kQ4_K}, nullptr, pair.matrix);
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        CompareExpertsTab* tab = page.expertsTab();
        QVERIFY(tab);
        QVERIFY(tab->messageText().contains(QLatin1String("Select a tensor")));
        page.resize(1200, 800);
        page.show();
        QVERIFY(finished.count() > 0 || finished.wait(kHangGuardMs));
        QVERIFY(finished.first().at(0).toBool());
        const auto comparison = page.comparison();
        auto* tabs = page.findChild<QTabWidget*>(QStringLiteral("compareTabs"));
        tabs->setCurrentWidget(tab);
        auto select = [&](std::string_view name) {
            const std::size_t row = rowNamed(*comparison, name);
            page.tableView()->setCurrentIndex(page.proxyModel()->mapFromSource(page.tableModel()->index(static_cast<int>(row), 0)));
            return row;
        };

        using Metric = ExpertQuantErrorModel::Metric;
        for (const char* name : {"blk.0.ffn_up_exps.weight", "blk.1.ffn_down_exps.weight"}) {
            const std::size_t row = select(name);
            const gguf::TensorInfo& tensor = *comparison->rows()[row].reference;
            const gguf::ImportanceEntry* entry = pair.matrix->find(tensor.name);
            QVERIFY(entry);
            ExpertQuantErrorModel* model = tab->model();
            QCOMPARE(model->expertCount(), std::uint64_t(8));
            QCOMPARE(model->typeColumnCount(), 2);
            const std::uint64_t total = tensor.elementCount();
            const std::uint64_t perExpert = total / 8;
            const auto columns = static_cast<std::uint64_t>(tensor.ne[0]);
            for (int c = 0; c < 2; ++c) {
                std::vector<float> values(total), other(total);
                QVERIFY(comparison->reconstruct(row, static_cast<std::size_t>(c), {0, total}, values, other));
                for (std::uint64_t e = 0; e < 8; ++e) {
                    const std::vector<float> weights = entry->quantWeights(static_cast<std::size_t>(e));
                    double error = 0.0, norm = 0.0;
                    for (std::uint64_t k = e * perExpert; k < (e + 1) * perExpert; ++k) {
                        const double r = values[k], o = other[k], w = weights[k % columns];
                        error += w * ((o - r) * (o - r));
                        norm += w * (r * r);
                    }
                    const auto& shown = model->metrics(e, c);
                    QVERIFY(shown);
                    const QByteArray where = QStringLiteral("%1 column %2 expert %3").arg(QLatin1String(name)).arg(c).arg(e).toUtf8();
                    QVERIFY2(shown->weightedSquaredError == error, where.constData());
                    QVERIFY2(shown->relativeWeightedError == error / norm, where.constData());
                    gguf::ErrorAccumulator alone;
                    alone.add(std::span<const float>(values).subspan(e * perExpert, perExpert),
                              std::span<const float>(other).subspan(e * perExpert, perExpert));
                    QVERIFY2(shown->relativeRmse == alone.result().relativeRmse, where.constData());
                    QVERIFY2(shown->cosineSimilarity == alone.result().cosineSimilarity, where.constData());
                }
            }
            // The tab opens on the relative weighted error; the bars and the sort follow the metric.
            QCOMPARE(model->metric(), Metric::RelativeWeightedError);
            const int weighted = tab->metricCombo()->findData(static_cast<int>(Metric::WeightedSquaredError));
            QVERIFY(weighted >= 0);
            tab->metricCombo()->setCurrentIndex(weighted);
            QCOMPARE(model->metric(), Metric::WeightedSquaredError);
            QCOMPARE(tab->plot()->plottableCount(), 2);
            auto* bars = qobject_cast<QCPBars*>(tab->plot()->plottable(0));
            QVERIFY(bars);
            QCOMPARE(bars->data()->size(), 8);
            for (std::uint64_t e = 0; e < 8; ++e)
                QVERIFY(bars->data()->at(static_cast<int>(e))->value == model->metrics(e, 0)->weightedSquaredError);
            QCOMPARE(tab->plot()->yAxis->label(), ExpertQuantErrorModel::metricName(Metric::WeightedSquaredError));
            tab->table()->sortByColumn(1, Qt::DescendingOrder);
            double worst = 0.0;
            for (std::uint64_t e = 0; e < 8; ++e)
                worst = std::max(worst, model->metrics(e, 0)->weightedSquaredError);
            QVERIFY(tab->table()->model()->index(0, 1).data(ExpertQuantErrorModel::SortRole).toDouble() == worst);
            tab->metricCombo()->setCurrentIndex(tab->metricCombo()->findData(static_cast<int>(Metric::RelativeWeightedError)));
        }
        // The Experts page quantizing the same tensor to q4_K with the same matrix shows the
        // same figures as the simulated column here, to the last bit: both sum each expert alone.
        {
            ExpertsPage experts(pair.reference);
            experts.resize(1200, 900);
            experts.show();
            QVERIFY(experts.selectProjection(gguf::ExpertProjection::Up));
            ExpertQuantErrorView* view = experts.quantError();
            QSignalSpy matrixLoaded(view, &ExpertQuantErrorView::importanceMatrixLoaded);
            view->setImportanceMatrixPath(imatrixFixture(QStringLiteral("tiny-moe.imatrix.gguf")));
            QVERIFY(matrixLoaded.wait(kHangGuardMs));
            QVERIFY(matrixLoaded.first().at(0).toBool());
            QSignalSpy ready(view, &ExpertQuantErrorView::errorsReady);
            experts.tabs()->setCurrentWidget(view);
            view->setTypes({kQ4_K});
            QVERIFY(ready.wait(kHangGuardMs));
            QCOMPARE(experts.currentTensor()->name, std::string_view("blk.0.ffn_up_exps.weight"));
            select("blk.0.ffn_up_exps.weight");
            for (std::uint64_t e = 0; e < 8; ++e) {
                const auto& there = view->model()->metrics(e, 0);
                const auto& here = tab->model()->metrics(e, 1);  // the q4_K (simulated) column
                QVERIFY(there && here);
                for (const Metric metric : {Metric::RelativeRmse, Metric::Rmse, Metric::SqnrDb, Metric::MaxAbsError, Metric::CosineSimilarity,
                                            Metric::WeightedSquaredError, Metric::RelativeWeightedError})
                    QVERIFY2(ExpertQuantErrorModel::metricValue(*there, metric) == ExpertQuantErrorModel::metricValue(*here, metric),
                             qPrintable(QStringLiteral("expert %1, %2").arg(e).arg(ExpertQuantErrorModel::metricName(metric))));
            }
        }

        select("blk.0.attn_q.weight");
        QCOMPARE(tab->model()->expertCount(), std::uint64_t(0));
        QVERIFY2(tab->messageText().contains(QLatin1String("no experts")), qPrintable(tab->messageText()));

        // Without a matrix the tab computes the plain figures of two real files itself (they were
        // refused: "kept when the comparison has an importance matrix"), each expert's alone.
        ComparePage plain({pair.reference, pair.quant}, {}, nullptr, nullptr);
        QSignalSpy plainFinished(&plain, &ComparePage::comparisonFinished);
        QVERIFY(plainFinished.wait(kHangGuardMs));
        plain.resize(1200, 800);
        plain.show();
        CompareExpertsTab* plainTab = plain.expertsTab();
        plain.findChild<QTabWidget*>(QStringLiteral("compareTabs"))->setCurrentWidget(plainTab);  // computed only when shown
        const std::size_t up = rowNamed(*plain.comparison(), "blk.0.ffn_up_exps.weight");
        plain.tableView()->setCurrentIndex(plain.proxyModel()->mapFromSource(plain.tableModel()->index(static_cast<int>(up), 0)));
        QCOMPARE(plainTab->model()->expertCount(), std::uint64_t(8));
        QTRY_VERIFY_WITH_TIMEOUT(plainTab->messageText().contains(QLatin1String("unweighted")), kHangGuardMs);
        QCOMPARE(plainTab->model()->metric(), Metric::Rmse);
        const gguf::TensorInfo& upTensor = *plain.comparison()->rows()[up].reference;
        const std::uint64_t upTotal = upTensor.elementCount();
        const std::uint64_t upPerExpert = upTotal / 8;
        std::vector<float> values(upTotal), other(upTotal);
        QVERIFY(plain.comparison()->reconstruct(up, 0, {0, upTotal}, values, other));
        for (std::uint64_t e = 0; e < 8; ++e) {
            gguf::ErrorAccumulator alone;
            alone.add(std::span<const float>(values).subspan(e * upPerExpert, upPerExpert),
                      std::span<const float>(other).subspan(e * upPerExpert, upPerExpert));
            const auto& shown = plainTab->model()->metrics(e, 0);
            QVERIFY(shown);
            QVERIFY(shown->rmse == alone.result().rmse);
        }
    }

    // A column a tensor cannot be compared with is listed disabled with the reason, the tab falls
    // back to one it can be compared with, and with none it says why instead of showing a plot.
    void columnsTabExplainsColumnsItCannotShow()
    {
        const MoePair pair = openMoePair();
        QVERIFY(pair.opened());
        const auto& reference = pair.reference;
        const auto& quant = pair.quant;
        const auto& matrix = pair.matrix;
        // No run is needed: the tab only pairs and profiles the picked cell.
        auto comparisonOf = [&](std::vector<std::shared_ptr<const gguf::Model>> models) {
            gguf::ComparisonOptions options;
            options.referenceIndex = 0;
            options.simulatedTypes = {kIQ2_XXS};
            options.importance = matrix;
            auto created = gguf::ModelComparison::create(std::move(models), options);
            return created ? std::make_shared<const gguf::ModelComparison>(std::move(created.value())) : nullptr;
        };
        const auto both = comparisonOf({reference, quant});
        QVERIFY(both);
        const std::size_t embd = rowNamed(*both, "token_embd.weight");
        QVERIFY(embd < both->rows().size());
        QVERIFY(both->rows()[embd].cells[0].ok() && !both->rows()[embd].cells[1].ok());  // the matrix does not cover token_embd
        // Not "undecodable": the values decode, the matrix has no entry the type needs. The table
        // says it as the command line does (no_imatrix_entry).
        QCOMPARE(both->rows()[embd].cells[1].status, gguf::CellStatus::NoImportance);
        QCOMPARE(std::string(gguf::cellStatusName(gguf::CellStatus::NoImportance)), std::string("no_imatrix_entry"));
        ComparisonTableModel table;
        table.setComparison(both);
        QCOMPARE(table.index(static_cast<int>(embd), ComparisonTableModel::FixedColumnCount + 1).data().toString(), QStringLiteral("no imatrix entry"));

        ColumnErrorTab tab;
        tab.resize(900, 600);
        tab.show();
        tab.setComparison(both);
        QVERIFY(tab.placeholderText().contains(QStringLiteral("Select a tensor")));
        QSignalSpy profile(tab.view(), &ColumnErrorView::profileReady);
        tab.setTensorRow(embd);
        QVERIFY(profile.wait(kHangGuardMs));
        QCOMPARE(tab.shownColumn(), std::optional<std::size_t>(0));
        QVERIFY(!tab.setColumn(1));
        auto* items = qobject_cast<QStandardItemModel*>(tab.columnCombo()->model());
        QVERIFY(items);
        QVERIFY(items->item(0)->isEnabled());
        QVERIFY(!items->item(1)->isEnabled());
        QVERIFY(items->item(1)->toolTip().contains(QStringLiteral("needs importance weights")));

        const auto simulatedOnly = comparisonOf({reference});
        QVERIFY(simulatedOnly);
        tab.setComparison(simulatedOnly);
        tab.setTensorRow(rowNamed(*simulatedOnly, "token_embd.weight"));
        QVERIFY(!tab.shownColumn());
        QVERIFY2(tab.placeholderText().contains(QStringLiteral("cannot be compared with any column")), qPrintable(tab.placeholderText()));
        QVERIFY(tab.placeholderText().contains(QStringLiteral("needs importance weights")));
        QCOMPARE(tab.view()->summaryText(), tab.placeholderText());
        QVERIFY(!tab.view()->profile());
    }
};

QTEST_MAIN(TestGuiImatrixQuant)
#include "tst_gui_imatrix_quant.moc"
