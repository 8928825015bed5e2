// The mix planner on the fixtures. Its error figures are checked against ggml itself: with every
// row sampled, the error it measures for q4_K (etc.) is the error of ggml's own tiny-llama-Q4_K
// file against the F32 source. The sizes it predicts are the sizes llama-quantize's files have.
// For budgets across the whole range the chosen mix never exceeds the budget and is never worse
// than the best preset that fits; the exported rules reproduce the mix through the recipe.

#include "TestPools.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/gguf/Dequantize.h"
#include "core/recipe/MixPlanner.h"
#include "core/recipe/RecipeConversion.h"

#include <QtTest>

#include <cmath>

using namespace gguf;
using testsupport::fixturePath;

namespace {

double sumSquaredDifference(const TensorInfo& a, const TensorInfo& b)
{
    std::vector<float> x(a.elementCount()), y(b.elementCount());
    if (!dequantizeRows(a, 0, a.rowCount(), x) || !dequantizeRows(b, 0, b.rowCount(), y))
        return -1;
    double sum = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        sum += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
    return sum;
}

}  // namespace

class TestPlanner : public QObject {
    Q_OBJECT

    std::shared_ptr<const Model> m_model;
    ErrorTable m_table;

private slots:
    void initTestCase()
    {
        m_model = testsupport::openModelAt(fixturePath("tiny-llama-F32.gguf"));
        QVERIFY(m_model);
        ErrorTableOptions options;
        options.sampleRows = 1 << 20;  // every row: exact figures
        auto table = measureErrorTable(*m_model, options);
        QVERIFY2(table, table ? "" : table.error().toString().c_str());
        m_table = std::move(*table);
    }

    void errorsAreGgmls()
    {
        QCOMPARE(m_table.tensors.size(), std::size_t(16));  // the 2-D weights; the 5 norms are kept
        QCOMPARE(m_table.kept.size(), std::size_t(5));
        QCOMPARE(m_table.tensors.front().tensor->name, std::string_view("output.weight"));  // llama-quantize's order
        int compared = 0;
        for (const char* type : {"Q2_K", "Q4_K", "Q6_K", "Q8_0", "Q4_0", "Q5_1"}) {
            const auto quantized = testsupport::openModelAt(fixturePath(QStringLiteral("tiny-llama-%1.gguf").arg(type)));
            QVERIFY(quantized);
            for (const TensorErrors& errors : m_table.tensors) {
                const TensorInfo* theirs = quantized->findTensor(errors.tensor->name);
                const TypeChoice* choice = errors.find(theirs->typeId);
                QVERIFY2(choice, type);
                QCOMPARE(choice->bytes, theirs->nbytes);
                const double exact = sumSquaredDifference(*errors.tensor, *theirs);
                QVERIFY2(std::abs(choice->error - exact) <= 1e-9 * exact,
                         qPrintable(QStringLiteral("%1 %2: %3 vs %4").arg(type, QString::fromUtf8(errors.tensor->name.data(), int(errors.tensor->name.size())))
                                        .arg(choice->error).arg(exact)));
                ++compared;
            }
        }
        QCOMPARE(compared, 6 * 16);
    }

    void sampledAndThreadIndependent()
    {
        ErrorTableOptions options;
        options.sampleRows = 8;
        auto one = measureErrorTable(*m_model, options);
        options.executor = &testsupport::poolOf(3);
        auto three = measureErrorTable(*m_model, options);
        QVERIFY(one && three);
        for (std::size_t t = 0; t < one->tensors.size(); ++t) {
            QCOMPARE(one->tensors[t].sampledRows, std::uint64_t(8));
            for (std::size_t c = 0; c < one->tensors[t].choices.size(); ++c) {
                QCOMPARE(one->tensors[t].choices[c].error, three->tensors[t].choices[c].error);
                // 8 of 256..768 rows estimate the whole within a factor of 2 on these weights.
                const double exact = m_table.tensors[t].choices[c].error;
                QVERIFY(one->tensors[t].choices[c].error > exact / 2 && one->tensors[t].choices[c].error < exact * 2);
            }
        }
        std::atomic<bool> cancel{true};
        options.cancel = &cancel;
        QVERIFY(!measureErrorTable(*m_model, options));
    }

    void presetsHaveLlamaQuantizesSizes()
    {
        auto context = makePlanContext(*m_model, m_table, false);
        QVERIFY(context);
        const auto presets = evaluatePresets(*context);
        int checked = 0;
        for (const PresetOnFrontier& point : presets) {
            const QString name = QString::fromUtf8(point.preset->name.data(), int(point.preset->name.size()));
            const QString real = fixturePath("llama.cpp/tiny-llama-mix-" + name + ".gguf");
            if (QFile::exists(real) && point.evaluated) {
                QCOMPARE(point.mix.fileBytes, std::uint64_t(QFileInfo(real).size()));
                ++checked;
            }
        }
        QCOMPARE(checked, 5);  // Q3_K_M, Q4_K_S, Q4_K_M, Q5_K_M and IQ4_XS
        const auto find = [&](const char* name) {
            return *std::find_if(presets.begin(), presets.end(), [&](const PresetOnFrontier& p) { return p.preset->name == name; });
        };
        QVERIFY(find("Q8_0").evaluated);
        QVERIFY(find("Q2_K").evaluated);
        QVERIFY(!find("Q2_K_S").evaluated);  // refused without an imatrix
        QVERIFY(find("IQ3_S").evaluated);     // ggml makes iq3_s without importance weights too
        QVERIFY(!find("IQ2_XXS").evaluated);  // it cannot make iq2_xxs without them
        QVERIFY(find("Q4_K_M").mix.error < find("Q4_K_S").mix.error);
        QVERIFY(find("Q6_K").mix.error < find("Q5_K_M").mix.error);
    }

    // With an importance matrix the output carries the quantize.imatrix.* keys, whose lengths
    // (the path as given) are in the header: every preset's predicted size is the size of
    // llama-quantize's file made with `--imatrix public/tiny-llama.imatrix.gguf`, and a plan's is
    // the size `convert` writes for it, with and without the matrix.
    void imatrixSizesAreTheSizesWritten()
    {
        auto loaded = ImportanceMatrix::load(fixturePath("llama.cpp/tiny-llama.imatrix.gguf").toStdString());
        QVERIFY(loaded);
        const auto matrix = std::make_shared<const ImportanceMatrix>(std::move(*loaded));
        const ImportanceLookup importance = [matrix](std::string_view name, std::size_t expert) {
            const ImportanceEntry* entry = matrix->find(name);
            return entry ? entry->quantWeights(expert) : std::vector<float>{};
        };
        const ImatrixProvenance keys = imatrixProvenanceOf(*matrix, "public/tiny-llama.imatrix.gguf");
        QCOMPARE(keys.file, std::string("public/tiny-llama.imatrix.gguf"));
        ErrorTableOptions options;
        options.sampleRows = 2;  // the sizes do not depend on the figures
        options.importance = importance;
        auto weighted = measureErrorTable(*m_model, options);
        QVERIFY(weighted);
        auto context = makePlanContext(*m_model, *weighted, true, keys);
        QVERIFY(context);
        const auto presets = evaluatePresets(*context);
        int checked = 0;
        for (const PresetOnFrontier& point : presets) {
            const QString name = QString::fromUtf8(point.preset->name.data(), int(point.preset->name.size()));
            const QString real = fixturePath("llama.cpp/tiny-llama-imat-" + name + ".gguf");
            if (QFile::exists(real)) {
                QVERIFY2(point.evaluated, qPrintable(name + ": " + QString::fromStdString(point.why)));
                QVERIFY2(point.mix.fileBytes == std::uint64_t(QFileInfo(real).size()),
                         qPrintable(QStringLiteral("%1: predicted %2, llama-quantize wrote %3").arg(name).arg(point.mix.fileBytes).arg(QFileInfo(real).size())));
                ++checked;
            }
        }
        QVERIFY2(checked >= 20, qPrintable(QString::number(checked)));

        // A plan between two presets, written by the conversion `convert --preset BASE --recipe`
        // runs, with the matrix and its keys and without.
        QTemporaryDir dir;
        for (const bool withImatrix : {true, false}) {
            auto planContext = withImatrix ? context : makePlanContext(*m_model, m_table, false);
            QVERIFY(planContext);
            const auto planPresets = withImatrix ? presets : evaluatePresets(*planContext);
            auto plan = planMix(*planContext, planPresets, Budget{Budget::Kind::FileBytes, 900000});
            QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
            auto rules = rulesForMix(*planContext, planPresets, plan->mix);
            QVERIFY2(rules, rules ? "" : rules.error().message.c_str());
            QVERIFY(!rules->rules.empty());
            RecipeOptions recipeOptions;
            recipeOptions.preset = rules->basePreset;
            recipeOptions.hasImatrix = withImatrix;
            recipeOptions.rules = rules->rules;
            auto recipe = computeRecipe(readModelShape(*m_model), m_model->tensors(), recipeOptions);
            QVERIFY(recipe && recipe->refusal.empty());
            RecipeConversionOptions conversion;
            if (withImatrix) {
                conversion.importance = importance;
                conversion.imatrix = keys;
            }
            const QString out = dir.filePath(withImatrix ? "plan-imatrix.gguf" : "plan.gguf");
            auto written = convertWithRecipe(*m_model, *recipe, out.toStdString(), conversion);
            QVERIFY2(written, written ? "" : written.error().toString().c_str());
            QCOMPARE(std::uint64_t(QFileInfo(out).size()), plan->mix.fileBytes);
        }
    }

    void budgetsAreKeptAndPresetsBeaten()
    {
        auto context = makePlanContext(*m_model, m_table, false);
        QVERIFY(context);
        const auto presets = evaluatePresets(*context);
        const auto frontier = computeFrontier(*context);
        QVERIFY(frontier.size() > 16);
        for (std::size_t i = 1; i < frontier.size(); ++i) {
            QVERIFY(frontier[i].fileBytes >= frontier[i - 1].fileBytes);
            QVERIFY(frontier[i].error <= frontier[i - 1].error);
        }
        const std::uint64_t low = frontier.front().fileBytes, high = frontier.back().fileBytes;
        std::vector<double> budgets;
        for (int i = 0; i <= 60; ++i)
            budgets.push_back(double(low) + (double(high) - double(low)) * i / 60.0);
        for (const PresetOnFrontier& point : presets)
            if (point.evaluated) {
                budgets.push_back(double(point.mix.fileBytes));
                budgets.push_back(double(point.mix.fileBytes) - 1);
            }
        int withPreset = 0;
        for (const double value : budgets) {
            const Budget budget{Budget::Kind::FileBytes, value};
            auto plan = planMix(*context, presets, budget);
            if (value < double(low)) {
                QVERIFY(!plan);
                continue;
            }
            QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
            QVERIFY2(double(plan->mix.fileBytes) <= value, qPrintable(QString::number(value)));
            double bestPreset = INFINITY;
            for (const PresetOnFrontier& point : presets)
                if (point.evaluated && double(point.mix.fileBytes) <= value)
                    bestPreset = std::min(bestPreset, point.mix.error);
            if (std::isfinite(bestPreset)) {
                ++withPreset;
                QVERIFY2(plan->mix.error <= bestPreset, qPrintable(QString::number(value)));
                QCOMPARE(plan->bestPresetError, bestPreset);
            }
            // The exported rules give exactly this mix through llama-quantize's rules.
            auto rules = rulesForMix(*context, presets, plan->mix);
            QVERIFY2(rules, rules ? "" : rules.error().message.c_str());
            RecipeOptions options{rules->basePreset, false, rules->rules, false};
            auto recipe = computeRecipe(readModelShape(*m_model), m_model->tensors(), options);
            QVERIFY(recipe && recipe->refusal.empty());
            for (std::size_t t = 0; t < m_table.tensors.size(); ++t)
                QCOMPARE(recipe->find(m_table.tensors[t].tensor->name)->typeId, plan->mix.types[t]);
        }
        QVERIFY(withPreset > 30);
        // In bits per weight, as llama-quantize counts them (all tensor data over all weights).
        const Budget bpw{Budget::Kind::BitsPerWeight, 4.9};
        auto plan = planMix(*context, presets, bpw);
        QVERIFY(plan);
        QVERIFY(plan->mix.bitsPerWeight <= 4.9);
        QVERIFY(plan->mix.error <= plan->bestPresetError);  // Q4_K_S (4.72 bpw) fits
    }

    void budgets()
    {
        QCOMPARE(parseBudget("4.2GB")->value, 4.2e9);
        QCOMPARE(parseBudget("4.2 GiB")->value, std::floor(4.2 * 1073741824.0));
        QCOMPARE(parseBudget("1200000")->value, 1200000.0);
        QVERIFY(parseBudget("4.5bpw")->kind == Budget::Kind::BitsPerWeight);
        QVERIFY(!parseBudget("4.2XB"));
        QVERIFY(!parseBudget("-3GB"));
        QVERIFY(!parseBudget("GB"));
        QVERIFY(!parseBudget("1e400"));
    }
};

QTEST_GUILESS_MAIN(TestPlanner)
#include "tst_planner.moc"
