// The per-type tables outside GgmlType.cpp (block fields, block scales, quantizers, conversion
// fallbacks, the compare dialog's type list) against the one type table: a type added to one
// and forgotten in another fails here.

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

    // Quantized types have named fields that tile their block exactly; plain types have none.
    void blockFieldsTileEveryQuantizedBlock()
    {
        for (const TypeTraits* type : allTypes()) {
            const std::span<const BlockField> fields = blockFields(type->id);
            if (type->kind != TypeKind::Quantized) {
                QVERIFY2(fields.empty(), qPrintable(nameOf(*type)));
                continue;
            }
            QVERIFY2(!fields.empty(), qPrintable(nameOf(*type) + QStringLiteral(" has no block fields")));
            std::vector<bool> covered(type->blockBytes, false);
            for (const BlockField& field : fields) {
                QVERIFY2(field.size > 0 && field.offset + field.size <= type->blockBytes, qPrintable(nameOf(*type) + "." + field.name));
                for (std::uint32_t b = field.offset; b < field.offset + field.size; ++b) {
                    QVERIFY2(!covered[b], qPrintable(nameOf(*type) + QStringLiteral(": fields overlap at byte %1").arg(b)));
                    covered[b] = true;
                }
            }
            QVERIFY2(std::all_of(covered.begin(), covered.end(), [](bool c) { return c; }),
                     qPrintable(nameOf(*type) + QStringLiteral(": fields leave bytes uncovered")));
        }
    }

    // Every quantized type has a scale layout whose sub-blocks tile its block; plain types none.
    void scaleLayoutForEveryQuantizedType()
    {
        for (const TypeTraits* type : allTypes()) {
            const std::optional<BlockScaleLayout> layout = blockScaleLayout(type->id);
            if (type->kind != TypeKind::Quantized) {
                QVERIFY2(!layout, qPrintable(nameOf(*type)));
                continue;
            }
            QVERIFY2(layout, qPrintable(nameOf(*type) + QStringLiteral(" has no scale layout")));
            QCOMPARE(layout->subScales * layout->elementsPerSubBlock, type->blockSize);
            QCOMPARE(layout->superScaleNames.size(), std::size_t(layout->superScales));
            // Each super scale is a float field of the block.
            for (const std::string& name : layout->superScaleNames) {
                const std::span<const BlockField> fields = blockFields(type->id);
                const bool named = std::any_of(fields.begin(), fields.end(), [&](const BlockField& f) { return name == f.name; });
                QVERIFY2(named || type->is(GgmlTypeId::IQ1_M), qPrintable(nameOf(*type) + QStringLiteral(": no field ") + name.c_str()));
            }
        }
    }

    // Quantizers exist only for known non-integer types, and their list is in id order.
    void quantizersBelongToTheTable()
    {
        const std::vector<const TypeTraits*> types = quantizableTypes();
        QVERIFY(!types.empty());
        for (std::size_t i = 0; i < types.size(); ++i) {
            QCOMPARE(findType(types[i]->id), types[i]);
            QVERIFY(types[i]->kind != TypeKind::Integer);
            QVERIFY(canQuantize(types[i]->id));
            QVERIFY(i == 0 || types[i - 1]->id < types[i]->id);
        }
        for (const TypeTraits* type : allTypes())
            QCOMPARE(canQuantize(type->id), std::find(types.begin(), types.end(), type) != types.end());
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
