#include "ui/session/ExpertSelection.h"

#include <QCoreApplication>
#include <QStringList>
#include <algorithm>

namespace {
QString tr(const char* text)
{
    return QCoreApplication::translate("ExpertSelection", text);
}

std::optional<std::uint64_t> parseIndex(const QString& text)
{
    bool ok = false;
    const qulonglong value = text.trimmed().toULongLong(&ok);
    return ok ? std::optional<std::uint64_t>(value) : std::nullopt;
}
}  // namespace

std::optional<std::vector<std::uint64_t>> parseExpertSelection(const QString& text, std::uint64_t expertCount, QString* error)
{
    std::vector<std::uint64_t> experts;
    const QStringList parts = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return std::nullopt;
    };
    if (parts.isEmpty())
        return fail(tr("no expert chosen"));
    for (const QString& part : parts) {
        const qsizetype dash = part.indexOf(QLatin1Char('-'));
        const auto first = parseIndex(dash < 0 ? part : part.left(dash));
        const auto last = dash < 0 ? first : parseIndex(part.mid(dash + 1));
        if (!first || !last || *first > *last)
            return fail(tr("'%1' is neither an expert index nor a range like 0-7").arg(part.trimmed()));
        if (*last >= expertCount)
            return fail(tr("expert %1 does not exist (the layer has %2)").arg(*last).arg(expertCount));
        for (std::uint64_t e = *first; e <= *last; ++e)
            experts.push_back(e);
    }
    std::sort(experts.begin(), experts.end());
    experts.erase(std::unique(experts.begin(), experts.end()), experts.end());
    return experts;
}

QString formatExpertSelection(const std::vector<std::uint64_t>& experts)
{
    QStringList parts;
    for (std::size_t i = 0; i < experts.size();) {
        std::size_t j = i;
        while (j + 1 < experts.size() && experts[j + 1] == experts[j] + 1)
            ++j;
        parts << (j == i ? QString::number(experts[i]) : QStringLiteral("%1-%2").arg(experts[i]).arg(experts[j]));
        i = j + 1;
    }
    return parts.join(QLatin1Char(','));
}

std::vector<std::uint64_t> defaultExpertSelection(std::uint64_t expertCount)
{
    std::vector<std::uint64_t> experts(static_cast<std::size_t>(std::min(expertCount, kDefaultShownExperts)));
    for (std::size_t e = 0; e < experts.size(); ++e)
        experts[e] = e;
    return experts;
}
