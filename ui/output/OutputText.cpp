#include "ui/output/OutputText.h"

#include <QColor>
#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStringList>
#include <algorithm>

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("OutputErrorTab", text);
}

QColor kldColour(double kld, double maximum)
{
    const double t = maximum > 0.0 ? std::clamp(kld / maximum, 0.0, 1.0) : 0.0;
    return QColor::fromRgbF(1.0f, static_cast<float>(1.0 - 0.75 * t), static_cast<float>(1.0 - 0.75 * t));
}

}  // namespace

QStringList outputSummaryColumns()
{
    return {tr("mean KLD"), tr("±"), tr("median KLD"), tr("p99 KLD"), tr("max KLD"), tr("same top token %"), tr("Δp of the reference's top %"),
            tr("±"), tr("PPL"), tr("reference PPL")};
}

QStringList outputSummaryFigures(const gguf::OutputComparison& c)
{
    return {QString::number(c.kld.mean, 'g', 4),
            QString::number(c.kld.meanError, 'g', 2),
            QString::number(c.kld.median, 'g', 4),
            QString::number(c.kld.p99, 'g', 4),
            QString::number(c.kld.maximum, 'g', 4),
            QString::number(100.0 * c.sameTopFraction, 'f', 1),
            QString::number(100.0 * c.deltaTopProbability.mean, 'f', 2),
            QString::number(100.0 * c.deltaTopProbability.meanError, 'f', 2),
            QString::number(c.perplexityOther, 'f', 2),
            QString::number(c.perplexityReference, 'f', 2)};
}

QString outputSummaryLine(const QString& name, const gguf::OutputComparison& c)
{
    const QStringList f = outputSummaryFigures(c);
    return tr("<b>%1</b>: mean KLD %2 ± %3 (median %4, p99 %5, max %6), same top token %7 %, Δp of the reference's top %8 ± %9 %, "
              "PPL %10 (reference %11)")
        .arg(name.toHtmlEscaped(), f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7])
        .arg(f[8], f[9]);
}

QString outputTokenHtml(const QString& name, const gguf::OutputComparison& c, std::span<const std::int32_t> tokens,
                        const std::function<QString(std::int32_t)>& tokenText)
{
    QString html = QStringLiteral("<p><b>%1</b></p>").arg(tr("Tokens coloured by the KLD of %1 (in bold where its top token differs from the reference’s)").arg(name.toHtmlEscaped()));
    html += QStringLiteral("<p style='font-family: monospace; line-height: 150%'>");
    for (std::size_t i = 0; i < c.positions.size(); ++i) {
        const auto& p = c.positions[i];
        const auto position = static_cast<std::size_t>(p.position);
        QString piece = position < tokens.size() ? tokenText(tokens[position]).toHtmlEscaped() : QString();
        if (piece.isEmpty())
            piece = QStringLiteral("·");
        const QString style = QStringLiteral("background-color:%1; color:black; text-decoration:%2; font-weight:%3")
                                  .arg(kldColour(p.kld, c.kld.maximum).name(), p.sameTop() ? QStringLiteral("none") : QStringLiteral("underline"),
                                       p.sameTop() ? QStringLiteral("normal") : QStringLiteral("bold"));
        html += QStringLiteral("<a href='position:%1' style='%2'>%3</a> ").arg(i).arg(style, piece);
    }
    html += QStringLiteral("</p>");
    return html;
}

QString outputInputDescription(bool isText, const QString& text, std::size_t tokenCount)
{
    constexpr int kShownCharacters = 40;
    constexpr int kShownIds = 6;
    if (isText) {
        QString shown = text.simplified();
        if (shown.size() > kShownCharacters)
            shown = shown.left(kShownCharacters) + QStringLiteral("…");
        return tr("the text “%1” (%2 tokens)").arg(shown).arg(tokenCount);
    }
    const QStringList ids = text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts);
    QString shown = ids.mid(0, kShownIds).join(QStringLiteral(", "));
    if (ids.size() > kShownIds)
        shown += QStringLiteral(", …");
    return tr("%1 token ids (%2)").arg(tokenCount).arg(shown);
}

QString outputTextFileDescription(const QString& path, std::size_t tokenCount, std::int64_t chunk)
{
    const QString name = QFileInfo(path).fileName();
    if (chunk <= 0)
        return tr("the text file %1 (%2 tokens, one sequence)").arg(name).arg(tokenCount);
    return tr("the text file %1 (%2 tokens in chunks of %3, the first token BOS, the second half scored, as kld --text-file)")
        .arg(name)
        .arg(tokenCount)
        .arg(chunk);
}
