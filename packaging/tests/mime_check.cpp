// ggufx_mime_check: asks QMimeDatabase what a .gguf file is, by name and by content, and fails
// unless the installed shared-mime-info entry (compiled into XDG_DATA_DIRS by check-mime.sh) says
// application/x-gguf. Usage: ggufx_mime_check SAMPLE.gguf

#include <QByteArray>
#include <QMimeDatabase>
#include <QString>

#include <cstdio>

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: ggufx_mime_check SAMPLE.gguf\n");
        return 2;
    }
    const QMimeDatabase db;
    const QString gguf = QStringLiteral("application/x-gguf");
    int failures = 0;
    const auto expect = [&](const char* what, const QMimeType& got, bool wantGguf) {
        const bool ok = (got.name() == gguf) == wantGguf;
        std::printf("%s %s: %s\n", ok ? "ok  " : "FAIL", what, qPrintable(got.name()));
        failures += ok ? 0 : 1;
    };
    static const char little[] = {'G', 'G', 'U', 'F', 3, 0, 0, 0};
    static const char big[] = {'F', 'U', 'G', 'G', 0, 0, 0, 3};
    static const char other[] = {'G', 'G', 'M', 'L', 3, 0, 0, 0};
    expect("name model.gguf", db.mimeTypeForFile(QStringLiteral("model.gguf"), QMimeDatabase::MatchExtension), true);
    expect("installed sample", db.mimeTypeForFile(QString::fromLocal8Bit(argv[1])), true);
    expect("GGUF magic, no name", db.mimeTypeForData(QByteArray(little, sizeof little)), true);
    expect("FUGG magic (big-endian), no name", db.mimeTypeForData(QByteArray(big, sizeof big)), true);
    expect("other magic, no name", db.mimeTypeForData(QByteArray(other, sizeof other)), false);
    return failures == 0 ? 0 : 1;
}
