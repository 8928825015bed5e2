#include "ui/shell/ConvertProgress.h"

#include "core/base/HumanFormat.h"

#include <QCoreApplication>
#include <algorithm>

void WrittenBytes::add(std::uint64_t elements, std::uint64_t outputBytes)
{
    m_elements.push_back(totalElements() + elements);
    m_bytes.push_back(totalBytes() + outputBytes);
}

std::uint64_t WrittenBytes::bytesAt(std::uint64_t elementsDone) const
{
    const auto next = std::upper_bound(m_elements.begin(), m_elements.end(), elementsDone);
    if (next == m_elements.end())
        return totalBytes();
    const std::size_t i = std::size_t(next - m_elements.begin());
    const std::uint64_t startElements = i ? m_elements[i - 1] : 0;
    const std::uint64_t startBytes = i ? m_bytes[i - 1] : 0;
    const std::uint64_t span = m_elements[i] - startElements;
    const double part = span ? double(elementsDone - startElements) / double(span) : 0.0;
    return startBytes + std::uint64_t(part * double(m_bytes[i] - startBytes));
}

namespace {
QString duration(double seconds)
{
    const auto s = static_cast<long long>(seconds + 0.5);
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg(s % 3600 / 60);
}
}  // namespace

QString percentText(double fraction)
{
    return QStringLiteral("%1 %").arg(100.0 * std::clamp(fraction, 0.0, 1.0), 0, 'f', 1);
}

QString conversionProgressText(std::uint64_t writtenBytes, std::uint64_t totalBytes, double fraction, double seconds)
{
    QString text = QCoreApplication::translate("ConvertDialog", "%1 of %2 written (%3), %4")
                       .arg(QString::fromStdString(gguf::formatBytes(writtenBytes)), QString::fromStdString(gguf::formatBytes(totalBytes)),
                            percentText(fraction), duration(seconds));
    if (fraction > 0 && fraction < 1)
        text += QCoreApplication::translate("ConvertDialog", ", about %1 left").arg(duration(seconds / fraction * (1.0 - fraction)));
    return text;
}
