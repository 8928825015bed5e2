#include "ui/shell/OpenUrl.h"

#include "core/remote/RemoteUrl.h"

#include <QInputDialog>
#include <QMessageBox>
#include <QSettings>

namespace {
const char* const kRecentUrlsKey = "recentUrls";
constexpr int kMaxRecentUrls = 10;
}  // namespace

bool isModelUrl(const QString& text)
{
    return gguf::remote::isRemoteName(text.toStdString());
}

QStringList recentModelUrls()
{
    return QSettings().value(kRecentUrlsKey).toStringList();
}

void rememberModelUrl(const QString& url)
{
    QStringList recent = recentModelUrls();
    recent.removeAll(url);
    recent.prepend(url);
    while (recent.size() > kMaxRecentUrls)
        recent.removeLast();
    QSettings().setValue(kRecentUrlsKey, recent);
}

QString askForModelUrl(QWidget* parent)
{
    bool ok = false;
    const QString text = QInputDialog::getItem(parent, QObject::tr("Open URL"),
                                               QObject::tr("Model URL (https://… or hf://owner/repo/file.gguf[@revision]):"),
                                               recentModelUrls(), 0, true, &ok)
                             .trimmed();
    if (!ok || text.isEmpty())
        return {};
    if (!isModelUrl(text)) {
        QMessageBox::warning(parent, QObject::tr("Open URL"), QObject::tr("Not an http://, https:// or hf:// URL: %1").arg(text));
        return {};
    }
    rememberModelUrl(text);
    return text;
}
