// The one type table: every GgmlTypeId has its row, the lookups of core/quantize and
// core/blocks answer from the rows, and the lists derived from them (the compare dialog's
// simulation targets, the conversion fallbacks) hold what llama.cpp offers.

#include "core/blocks/BlockFields.h"
#include "core/blocks/BlockScales.h"
#include "core/types/GgmlType.h"
#include "core/gguf/TensorInfo.h"
#include "core/quantize/QuantizationPolicy.h"
#include "core/quantize/Quantize.h"

#include <QtTest>

#include <algorithm>
#include <vector>

using namespace gguf;

namespace {

QString nameOf(const TypeTraits& type)
{
    return QString::fromLatin1(type.name);
}

std::vector<const TypeTraits*> allTypes()
{
    std::vector<const TypeTraits*> types;
    for (const TypeTraits* t = typeTableBegin(); t != typeTableEnd(); ++t)
        types.push_back(t);
    return types;
}

// A 2-D weight tensor of `type` without data: enough for the conversion policy.
TensorInfo weightOf(std::uint32_t typeId, std::int64_t rowLength)
{
    TensorInfo tensor;
    tensor.name = "blk.0.ffn_down.weight";
    tensor.nDims = 2;
    tensor.ne = {rowLength, 4, 1, 1};
    tensor.typeId = typeId;
    tensor.traits = findType(typeId);
    return tensor;
}

}  // namespace

class TestTypeTable : public QObject {
    Q_OBJECT

private slots:
    void enumMatchesTable()
    {
        QCOMPARE(std::size(kGgmlTypeIds), allTypes().size());
        for (const GgmlTypeId id : kGgmlTypeIds) {
            const TypeTraits* traits = findType(typeIdValue(id));
            QVERIFY(traits);
            QCOMPARE(&traitsOf(id), traits);
            QVERIFY(traits->is(id));
            QCOMPARE(traits->typeId(), id);
        }
    }

    // Each type's row is the one source of its quantizers, fields, scales and file type: the
    // lookups answer from it. (That fields and scale sub-blocks tile the block, and quantizers
    // exist only for float and block types, GgmlType.cpp checks at compile time.)
    void lookupsReadTheRow()
    {
        std::vector<std::string> required, weighted, quantizable;
        for (const TypeTraits* type : allTypes()) {
            QVERIFY(findQuantizer(type->id) == type->quantize);
            QCOMPARE(canQuantize(type->id), type->canQuantize());
            QCOMPARE(usesImportance(type->id), type->quantizeWeighted != nullptr);
            QCOMPARE(requiresImportance(type->id), type->requiresImportance());
            QCOMPARE(blockFields(type->id).data(), type->fields.data());
            QCOMPARE(blockScaleLayout(type->id).has_value(), type->scales.extract != nullptr);
            // Every block type decodes its scales, and no other type has a decoder (the row's
            // compile-time check cannot see the pointer under -fsanitize).
            QCOMPARE(type->scales.extract != nullptr, type->kind == TypeKind::Quantized);
            QCOMPARE(llamaFileType(type->id).has_value(), type->llamaFileType >= 0);
            if (type->requiresImportance())
                required.emplace_back(type->name);
            if (type->quantizeWeighted)
                weighted.emplace_back(type->name);
            if (type->canQuantize())
                quantizable.emplace_back(type->name);
        }
        // ggml_quantize_requires_imatrix, and the types whose ggml quantizer reads quant_weights.
        QCOMPARE(required, (std::vector<std::string>{"iq2_xxs", "iq2_xs", "iq1_s"}));
        QCOMPARE(weighted, (std::vector<std::string>{"q4_0", "q4_1", "q5_0", "q5_1", "q2_K", "q3_K", "q4_K", "q5_K", "q6_K", "iq2_xxs",
                                                     "iq2_xs", "iq3_xxs", "iq1_s", "iq4_nl", "iq3_s", "iq2_s", "iq4_xs", "iq1_m"}));
        std::vector<std::string> listed;
        for (const TypeTraits* type : quantizableTypes())
            listed.emplace_back(type->name);
        QCOMPARE(listed, quantizable);
        QCOMPARE(quantizable.size(), std::size_t(29));
        QCOMPARE(llamaFileType(typeIdValue(GgmlTypeId::Q4_K)), std::optional<std::uint32_t>(15));
        QCOMPARE(llamaFileType(typeIdValue(GgmlTypeId::BF16)), std::optional<std::uint32_t>(32));
        QVERIFY(!llamaFileType(typeIdValue(GgmlTypeId::IQ4_XS)));
    }

    // The compare dialog's list: every quantizable block-quantized type once, K-quants first.
    void simulationTargetsAreTheQuantizedQuantizableTypes()
    {
        const std::vector<const TypeTraits*> targets = simulationTargetTypes();
        std::vector<std::string> names;
        for (const TypeTraits* type : targets)
            names.emplace_back(type->name);
        const std::vector<std::string> expected = {"tq1_0", "iq1_m", "tq2_0", "iq2_s", "q2_K",  "iq3_xxs", "q3_K", "iq3_s", "iq4_xs", "q4_K",   "q5_K",
                                                   "q6_K",  "q8_K",  "q1_0",  "q2_0", "nvfp4",  "mxfp4",  "q4_0",
                                                   "iq4_nl", "q4_1", "q5_0",  "q5_1", "q8_0"};
        QCOMPARE(names, expected);
        for (const TypeTraits* type : quantizableTypes())
            QCOMPARE(type->kind == TypeKind::Quantized && !requiresImportance(type->id),
                     std::find(targets.begin(), targets.end(), type) != targets.end());
    }

    // A row length that fits no super-block falls back to a quantizable type that fits it, as
    // llama.cpp's llama_tensor_get_type does.
    void fallbacksAreQuantizableAndFit()
    {
        for (const TypeTraits* target : simulationTargetTypes()) {
            const TensorTarget chosen = chooseTensorTarget(weightOf(typeIdValue(GgmlTypeId::F32), 32 * 3), target->id);
            QVERIFY2(chosen.quantize, qPrintable(nameOf(*target)));
            QVERIFY2(canQuantize(chosen.typeId), qPrintable(nameOf(*target)));
            QCOMPARE(96 % findType(chosen.typeId)->blockSize, 0u);
            QCOMPARE(chosen.typeId == target->id, target->blockSize == 32);
        }
        // llama.cpp's q2_K fallback is iq4_nl, which the core quantizes.
        QVERIFY(canQuantize(typeIdValue(GgmlTypeId::IQ4_NL)));
        QCOMPARE(chooseTensorTarget(weightOf(typeIdValue(GgmlTypeId::F32), 96), typeIdValue(GgmlTypeId::Q2_K)).typeId, typeIdValue(GgmlTypeId::IQ4_NL));
        QCOMPARE(chooseTensorTarget(weightOf(typeIdValue(GgmlTypeId::F32), 96), typeIdValue(GgmlTypeId::Q6_K)).typeId, typeIdValue(GgmlTypeId::Q8_0));
    }
};

QTEST_APPLESS_MAIN(TestTypeTable)
#include "tst_type_table.moc"
