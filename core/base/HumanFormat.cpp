#include "core/base/HumanFormat.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace gguf {

namespace {
std::string scaled(double value, const char* const* units, int unitCount, double step, const char* separator)
{
    int unit = 0;
    while (value >= step && unit + 1 < unitCount) {
        value /= step;
        ++unit;
    }
    char text[48];
    if (unit == 0)
        std::snprintf(text, sizeof text, "%.0f%s%s", value, separator, units[0]);
    else
        std::snprintf(text, sizeof text, value < 10 ? "%.2f%s%s" : value < 100 ? "%.1f%s%s" : "%.0f%s%s", value, separator, units[unit]);
    return text;
}
}  // namespace

std::string formatBytes(std::uint64_t bytes)
{
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    return scaled(static_cast<double>(bytes), units, 6, 1024.0, " ");
}

std::string formatCount(std::uint64_t count)
{
    static const char* const units[] = {"", "K", "M", "B", "T"};
    return scaled(static_cast<double>(count), units, 5, 1000.0, "");
}

std::string formatGrouped(std::uint64_t number)
{
    const std::string digits = std::to_string(number);
    std::string grouped;
    grouped.reserve(digits.size() + digits.size() / 3);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            grouped += ',';
        grouped += digits[i];
    }
    return grouped;
}

std::string formatFixed(double value, int decimals)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    char text[400];  // DBL_MAX in fixed notation takes 309 digits, plus the decimals (capped)
    const auto [end, error] = std::to_chars(text, text + sizeof text, value, std::chars_format::fixed, decimals < 0 ? 0 : decimals > 60 ? 60 : decimals);
    return error == std::errc() ? std::string(text, end) : std::string();
}

}  // namespace gguf
