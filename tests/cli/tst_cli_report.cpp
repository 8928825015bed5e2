// The model report (core/report/ModelReport.h) and the CLI's `report`, which writes it: the
// figures of a fixture (counted again here from its tensors, not taken from the report's own
// sources), the same text from the CLI as from the builder, and names holding markup and control
// characters written inert in both formats.

#include "CliRunner.h"
#include "Fixtures.h"
#include "OneTensorHeader.h"
#include "OpenFixture.h"
#include "core/base/HumanFormat.h"
#include "core/report/ModelReport.h"
#include "core/types/GgmlType.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <map>
#include <set>

using namespace testsupport;

namespace {
QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
}  // namespace

class TestCliReport : public QObject {
    Q_OBJECT
private slots:
    // Every type's tensors, bytes and bits per weight, counted from the tensor list; the layer
    // rows; the tokenizer's size; long arrays summarized, not written out.
    void reportHoldsTheFixturesFigures()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        const std::string html = gguf::buildModelReport(*model, gguf::ReportFormat::Html);
        const std::string markdown = gguf::buildModelReport(*model, gguf::ReportFormat::Markdown);
        struct Counted {
            std::uint64_t tensors = 0, elements = 0, bytes = 0;
        };
        std::map<std::uint32_t, Counted> byType;
        std::set<std::string> layers;
        for (const gguf::TensorInfo& tensor : model->tensors()) {
            Counted& counted = byType[tensor.typeId];
            ++counted.tensors;
            counted.elements += tensor.elementCount();
            counted.bytes += tensor.nbytes;
            const std::string name(tensor.name);
            if (name.rfind("blk.", 0) == 0)
                layers.insert(name.substr(0, name.find('.', 4)));
        }
        QVERIFY(byType.size() >= 2);
        for (const auto& [type, counted] : byType) {
            const std::string bpw = gguf::formatFixed(8.0 * static_cast<double>(counted.bytes) / static_cast<double>(counted.elements), 3);
            const std::string row = "<tr><td>" + gguf::typeName(type) + "</td><td>" + std::to_string(counted.tensors) + "</td><td>"
                + gguf::formatCount(counted.elements) + "</td><td>" + gguf::formatBytes(counted.bytes) + "</td>";
            const std::size_t at = html.find(row);
            QVERIFY2(at != std::string::npos, row.c_str());
            const std::string wholeRow = html.substr(at, html.find("</tr>", at) - at);
            QVERIFY2(wholeRow.find("<td>" + bpw + "</td>") != std::string::npos, wholeRow.c_str());
            std::string typeInMarkdown;  // "q4_K" reads "q4\_K": an underscore would start emphasis
            for (const char c : gguf::typeName(type))
                typeInMarkdown += c == '_' ? std::string("\\_") : std::string(1, c);
            const std::string markdownRow = "| " + typeInMarkdown + " | " + std::to_string(counted.tensors) + " |";
            QVERIFY2(markdown.find(markdownRow) != std::string::npos, markdownRow.c_str());
        }
        for (const std::string& layer : layers)
            QVERIFY2(html.find("<td>" + layer + "</td>") != std::string::npos, layer.c_str());
        const gguf::MetadataEntry* tokens = model->findMetadata("tokenizer.ggml.tokens");
        QVERIFY(tokens);
        QVERIFY(html.find("<td>tokens</td><td>" + gguf::formatGrouped(tokens->value.arrayLength()) + "</td>") != std::string::npos);
        // The token list is summarized: the report stays far smaller than the vocabulary.
        QVERIFY(html.size() < 64 * 1024);
        QVERIFY(html.find("<td>tokenizer.ggml.tokens</td>") != std::string::npos);
    }

    // The CLI writes what the builder builds (one source for both), in the format its name says.
    void cliWritesTheBuildersReport()
    {
        if (!cliIsExecutable())
            QSKIP("the CLI is not built");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString fixture = fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"));
        auto model = openModelAt(fixture);
        QVERIFY(model);
        for (const QString& name : {QStringLiteral("r.html"), QStringLiteral("r.md")}) {
            const QString out = dir.filePath(name);
            const CliRun run = runCli({QStringLiteral("report"), fixture, QStringLiteral("-o"), out});
            QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
            const std::string expected = gguf::buildModelReport(*model, gguf::reportFormatForPath(out.toStdString()));
            QCOMPARE(readAll(out), QByteArray::fromStdString(expected));
        }
        const CliRun missing = runCli({QStringLiteral("report"), fixture});
        QVERIFY2(missing.failedWithOneLine(), qPrintable(missing.describe()));
    }

    // The memory estimate says what the CLI's `estimate` says at its defaults, figure for figure.
    void memoryEstimateEqualsTheClis()
    {
        if (!cliIsExecutable())
            QSKIP("the CLI is not built");
        const QString fixture = fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"));
        const CliRun run = runCli({QStringLiteral("estimate"), fixture, QStringLiteral("--json")});
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        const QJsonObject estimate = QJsonDocument::fromJson(run.out).object();
        QVERIFY(!estimate.isEmpty());
        auto model = openModelAt(fixture);
        QVERIFY(model);
        const std::string html = gguf::buildModelReport(*model, gguf::ReportFormat::Html);
        const auto figure = [&estimate](std::initializer_list<const char*> keys) {
            std::uint64_t sum = 0;
            for (const char* key : keys)
                sum += static_cast<std::uint64_t>(estimate.value(QLatin1String(key)).toDouble());
            return gguf::formatBytes(sum) + " (" + gguf::formatGrouped(sum) + ")";
        };
        const std::vector<std::pair<std::string, std::string>> rows = {
            {"context", gguf::formatGrouped(static_cast<std::uint64_t>(estimate.value(QLatin1String("context")).toDouble())) + " tokens"},
            {"weights", figure({"weights_cpu_bytes", "weights_gpu_bytes"})},
            {"KV cache", figure({"kv_cpu_bytes", "kv_gpu_bytes"})},
            {"compute buffer", figure({"compute_buffer_bytes"})},
            {"output buffer", figure({"output_buffer_bytes"})},
            {"total", figure({"total_bytes"})},
        };
        for (const auto& [label, value] : rows) {
            std::string row = "<tr><td>";
            row.append(label).append("</td><td>").append(value).append("</td></tr>");
            QVERIFY2(html.find(row) != std::string::npos, row.c_str());
        }
        QVERIFY(estimate.value(QLatin1String("kv_cpu_bytes")).toDouble() > 0);
        QVERIFY(estimate.value(QLatin1String("compute_buffer_bytes")).toDouble() > 0);
    }

    // A tensor name holding ESC, markup and a table bar: no raw control character, no tag, no
    // cell boundary reaches the reader.
    void namesAreEscaped()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray name("evil\x1b[31m<b>|x</b>\x07");
        const QByteArray header = oneTensorHeader(name, 0, 4, 2);  // 0: f32
        const QString path = dir.filePath(QStringLiteral("evil.gguf"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(header), header.size());
        QVERIFY(file.write(QByteArray(32, '\0')) == 32);
        file.close();
        auto model = openModelAt(path);
        QVERIFY(model);
        // A measured table names tensors (a comparison's worst ones): the name goes through it.
        gguf::ReportExtras extras;
        extras.measured.push_back({"Measured", {"tensor", "figure"}, {{name.toStdString(), "1"}}, "note with \x01 and <i>"});
        const std::string html = gguf::buildModelReport(*model, gguf::ReportFormat::Html, extras);
        const std::string markdown = gguf::buildModelReport(*model, gguf::ReportFormat::Markdown, extras);
        for (const std::string* text : {&html, &markdown}) {
            for (const char c : *text)
                QVERIFY2(static_cast<unsigned char>(c) >= 0x20 || c == '\n', "a raw control character");
            QVERIFY(text->find("<b>") == std::string::npos);
            QVERIFY(text->find("<i>") == std::string::npos);
            QVERIFY(text->find("\\x1b") != std::string::npos);
        }
        QVERIFY(html.find("<td>evil\\x1b[31m&lt;b&gt;|x&lt;/b&gt;\\x07</td>") != std::string::npos);
        QVERIFY(markdown.find("| evil\\\\x1b\\[31m&lt;b&gt;\\|x&lt;/b&gt;\\\\x07 |") != std::string::npos);
    }
};

QTEST_MAIN(TestCliReport)
#include "tst_cli_report.moc"
