// gguf-explorer: the desktop application. Opens the files given on the command line, or the
// bundled sample model when there are none, so a new user sees everything working at once.

#include "ui/shell/MainWindow.h"
#include "core/base/LargeBufferReuse.h"
#include "core/base/OpenFileLimit.h"
#include "SampleModel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

int main(int argc, char** argv)
{
    gguf::raiseOpenFileLimit();  // split models of more than 1,000 shards
    gguf::keepLargeBuffersForReuse();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("gguf-explorer"));
    QApplication::setApplicationDisplayName(QStringLiteral("GGUF Explorer"));
    QApplication::setOrganizationName(QStringLiteral("gguf-explorer"));
    QApplication::setApplicationVersion(QStringLiteral(GGUFX_VERSION));
    // The desktop entry's name: Wayland compositors match windows to the menu entry and icon by it.
    QApplication::setDesktopFileName(QStringLiteral("io.github.gguf_explorer.GGUFExplorer"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/io.github.gguf_explorer.GGUFExplorer.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Look inside GGUF model files: metadata, tensors, weights."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("GGUF files to open (default: the bundled sample model)"),
                                 QStringLiteral("[files...]"));
    parser.process(app);

    MainWindow window;
    window.show();
    QStringList files = parser.positionalArguments();
    if (files.isEmpty()) {
        const QString sample = findSampleModel();
        if (!sample.isEmpty())
            files << sample;
    }
    for (const QString& file : files)
        window.openFile(file);
    return app.exec();
}
