// The CLI speaks for itself: `--help` lists every command, every command answers `--help` with
// its usage and options, every option the help lists parses, an option it does not list is
// refused, and every option spelled in the CLI's sources is listed in its command's help.
// The commands and options come from the CLI's own help, so a new command or option is
// covered without touching this suite.

#include "CliRunner.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

#include <algorithm>

using namespace testsupport;

namespace {

// The command names of `gguf-explorer-cli --help`: the two-space indented lines after "commands:".
QStringList listedCommands()
{
    const CliRun run = runCli({QStringLiteral("--help")});
    QStringList commands;
    bool inList = false;
    for (const QString& line : QString::fromUtf8(run.out).split(u'\n')) {
        if (line == QLatin1String("commands:")) {
            inList = true;
            continue;
        }
        if (inList && !line.startsWith(QLatin1String("  ")))
            break;
        if (inList)
            commands << line.simplified().section(u' ', 0, 0);
    }
    return commands;
}

struct ListedOption {
    QString name;
    bool takesValue = false;
};

// The "options:" lines of `COMMAND --help`: "  --ctx N  help" or "  --json  help".
QList<ListedOption> listedOptions(const QString& command)
{
    const CliRun run = runCli({command, QStringLiteral("--help")});
    QList<ListedOption> options;
    bool inList = false;
    static const QRegularExpression line(QStringLiteral(R"(^  (-{1,2}[a-z][a-z0-9-]*)( [^ ]+)?  )"));
    for (const QString& text : QString::fromUtf8(run.out).split(u'\n')) {
        if (text == QLatin1String("options:")) {
            inList = true;
            continue;
        }
        const auto match = line.match(text);
        if (inList && match.hasMatch())
            options.push_back({match.captured(1), !match.captured(2).isEmpty()});
    }
    return options;
}

bool lists(const QList<ListedOption>& options, const QString& name)
{
    return std::any_of(options.begin(), options.end(), [&](const ListedOption& option) { return option.name == name; });
}

}  // namespace

class TestCliHelp : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void commandHasHelp_data();
    void commandHasHelp();
    void listedOptionParses_data();
    void listedOptionParses();
    void optionInTheSourcesIsListed_data();
    void optionInTheSourcesIsListed();
    void helpAfterOperands();
};

void TestCliHelp::initTestCase()
{
    QVERIFY2(cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
}

void TestCliHelp::commandHasHelp_data()
{
    QTest::addColumn<QString>("command");
    const QStringList commands = listedCommands();
    QVERIFY2(commands.size() >= 10, qPrintable(QStringLiteral("--help lists: ") + commands.join(u' ')));
    for (const QString& command : commands)
        QTest::newRow(qPrintable(command)) << command;
}

void TestCliHelp::commandHasHelp()
{
    QFETCH(QString, command);
    for (const QString& spelling : {QStringLiteral("--help"), QStringLiteral("-h")}) {
        const CliRun run = runCli({command, spelling});
        QVERIFY2(run.finished && !run.crashed && run.exitCode == 0 && run.err.isEmpty(), qPrintable(run.describe()));
        QVERIFY2(run.out.startsWith("usage: gguf-explorer-cli " + command.toUtf8() + ' '), run.out.constData());
        QVERIFY2(run.out.contains("\noptions:"), run.out.constData());
        QCOMPARE(runCli({QStringLiteral("help"), command}).out, run.out);
    }
    // Anything the help does not list is refused, naming the option and where the list is.
    const CliRun refused = runCli({command, QStringLiteral("--no-such-option")});
    QVERIFY2(refused.failedWithOneLine() && refused.exitCode == 2, qPrintable(refused.describe()));
    QVERIFY2(refused.err.contains("unknown option --no-such-option (see: gguf-explorer-cli " + command.toUtf8() + " --help)"),
             refused.err.constData());
}

void TestCliHelp::listedOptionParses_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("option");
    QTest::addColumn<bool>("takesValue");
    int rows = 0;
    for (const QString& command : listedCommands())
        for (const ListedOption& option : listedOptions(command)) {
            QTest::addRow("%s %s", qPrintable(command), qPrintable(option.name)) << command << option.name << option.takesValue;
            ++rows;
        }
    QVERIFY2(rows >= 50, qPrintable(QStringLiteral("only %1 options listed").arg(rows)));
}

void TestCliHelp::listedOptionParses()
{
    QFETCH(QString, command);
    QFETCH(QString, option);
    QFETCH(bool, takesValue);
    // Without operands every command stops at a usage error (exit 2) once the options parsed;
    // a listed option the parser did not know would be "unknown option" instead.
    QStringList arguments{command, option};
    if (takesValue)
        arguments << QStringLiteral("1");
    const CliRun run = runCli(arguments);
    QVERIFY2(run.failedWithOneLine() && run.exitCode == 2, qPrintable(run.describe()));
    QVERIFY2(!run.err.contains("unknown option"), run.err.constData());
    // And a value option without its value says so.
    if (takesValue) {
        const CliRun bare = runCli({command, option});
        QVERIFY2(bare.failedWithOneLine() && bare.exitCode == 2, qPrintable(bare.describe()));
    }
}

void TestCliHelp::optionInTheSourcesIsListed_data()
{
    // Every option literal ("--json", "-o") in the CLI's sources, whatever reads it (the table's
    // parser, or a command that takes repeated options out of the words itself). A file's
    // command is the longest command name its name starts with (ConvertPresetCommand.cpp:
    // convert); a file of no command (ModelOpening.cpp) needs its options in some command's help.
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("command");  // empty: any command
    QTest::addColumn<QString>("option");
    const QStringList commands = listedCommands();
    const QDir sources(QStringLiteral(GGUFX_SOURCE_DIR "/app/cli"));
    const QStringList files = sources.entryList({QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files);
    QVERIFY2(!files.isEmpty(), qPrintable(sources.path()));
    static const QRegularExpression literal(QStringLiteral(R"re("(--?[a-z][a-z0-9-]*)")re"));
    int rows = 0;
    for (const QString& name : files) {
        if (name.startsWith(QLatin1String("CommandTable")) || name.startsWith(QLatin1String("CommandHelp")) || name == QLatin1String("main.cpp"))
            continue;  // the table itself, and --help
        QFile file(sources.filePath(name));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(name));
        QString owner;
        for (const QString& command : commands)
            if (name.toLower().startsWith(command) && command.size() > owner.size())
                owner = command;
        QSet<QString> seen;
        for (auto match = literal.globalMatch(QString::fromUtf8(file.readAll())); match.hasNext();) {
            const QString option = match.next().captured(1);
            if (seen.contains(option))
                continue;
            seen.insert(option);
            QTest::addRow("%s %s", qPrintable(name), qPrintable(option)) << name << owner << option;
            ++rows;
        }
    }
    QVERIFY2(rows >= 50, qPrintable(QStringLiteral("only %1 option literals found").arg(rows)));
}

void TestCliHelp::optionInTheSourcesIsListed()
{
    QFETCH(QString, file);
    QFETCH(QString, command);
    QFETCH(QString, option);
    const QStringList candidates = command.isEmpty() ? listedCommands() : QStringList{command};
    bool listed = false;
    for (const QString& candidate : candidates)
        listed = listed || lists(listedOptions(candidate), option);
    QVERIFY2(listed, qPrintable(file + QStringLiteral(" reads ") + option + QStringLiteral(", which ")
                                + (command.isEmpty() ? QStringLiteral("no command's help") : QStringLiteral("the help of ") + command)
                                + QStringLiteral(" does not list: add it to the command's options in app/cli/CommandTable.cpp")));
}

void TestCliHelp::helpAfterOperands()
{
    // `--help` anywhere an option may stand asks for help; as an option's value it is a value.
    const CliRun late = runCli({QStringLiteral("estimate"), QStringLiteral("model.gguf"), QStringLiteral("--help")});
    QVERIFY2(late.finished && late.exitCode == 0 && late.out.startsWith("usage: gguf-explorer-cli estimate "), qPrintable(late.describe()));
    const CliRun asValue = runCli({QStringLiteral("tokenize"), QStringLiteral("/no/such/model.gguf"), QStringLiteral("--text"), QStringLiteral("--help")});
    QVERIFY2(asValue.failedWithOneLine(), qPrintable(asValue.describe()));
    QVERIFY2(asValue.err.contains("/no/such/model.gguf"), asValue.err.constData());
}

QTEST_GUILESS_MAIN(TestCliHelp)
#include "tst_cli_help.moc"
