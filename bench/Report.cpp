#include "Report.h"

#include "core/base/JsonWriter.h"

#include <cstdio>

namespace bench {

std::optional<double> Row::ratioToMemset() const
{
    if (!gbpsOut || !memsetGbps || *memsetGbps <= 0)
        return std::nullopt;
    return *gbpsOut / *memsetGbps;
}

std::optional<double> Row::melemPerSecond() const
{
    if (!gbpsOut || seconds <= 0)
        return std::nullopt;
    return static_cast<double>(elements) / seconds / 1e6;
}

namespace {
std::string formatted(const char* format, std::optional<double> value)
{
    if (!value)
        return "-";
    char text[64];
    std::snprintf(text, sizeof text, format, *value);
    return text;
}

void optionalValue(gguf::JsonWriter& json, const char* key, std::optional<double> value)
{
    json.key(key);
    if (value)
        json.value(*value);
    else
        json.null();
}
}  // namespace

void Report::heading(const std::string& title)
{
    if (m_json)
        return;
    std::printf("\n## %s\n", title.c_str());
    m_headerDue = true;
}

void Report::printTableHeader()
{
    std::printf("%-16s %-8s %3s %11s %10s %8s %9s %8s %8s %6s  %-7s %s\n", "case", "type", "thr", "elements", "seconds", "GB/s out",
                "Melem/s", "memset", "memcpy", "ratio", "kernel", "notes");
    m_headerDue = false;
}

void Report::add(const Row& row)
{
    if (m_json) {
        std::string line;
        gguf::JsonWriter json(line);
        json.beginObject();
        json.key("case"), json.value(row.caseName);
        json.key("type"), json.value(row.type);
        json.key("threads"), json.value(static_cast<std::uint64_t>(row.threads));
        json.key("elements"), json.value(row.elements);
        json.key("seconds"), json.value(row.seconds);
        optionalValue(json, "gbps_out", row.gbpsOut);
        optionalValue(json, "melem_per_s", row.melemPerSecond());
        optionalValue(json, "memset_gbps", row.memsetGbps);
        optionalValue(json, "memcpy_gbps", row.memcpyGbps);
        optionalValue(json, "ratio_to_memset", row.ratioToMemset());
        json.key("kernel"), json.value(row.kernel);
        for (const auto& [key, value] : row.extra)
            json.key(key), json.value(value);
        json.endObject();
        std::printf("%s\n", line.c_str());
    } else {
        if (m_headerDue)
            printTableHeader();
        std::string notes = row.note;
        for (const auto& [key, value] : row.extra) {
            char item[96];
            std::snprintf(item, sizeof item, "%s%s=%.4g", notes.empty() ? "" : " ", key.c_str(), value);
            notes += item;
        }
        std::printf("%-16s %-8s %3u %11llu %10.5f %8s %9s %8s %8s %6s  %-7s %s\n", row.caseName.c_str(), row.type.c_str(), row.threads,
                    static_cast<unsigned long long>(row.elements), row.seconds, formatted("%.2f", row.gbpsOut).c_str(),
                    formatted("%.0f", row.melemPerSecond()).c_str(), formatted("%.2f", row.memsetGbps).c_str(),
                    formatted("%.2f", row.memcpyGbps).c_str(), formatted("%.2f", row.ratioToMemset()).c_str(), row.kernel.c_str(),
                    notes.c_str());
    }
    std::fflush(stdout);
}

}  // namespace bench
