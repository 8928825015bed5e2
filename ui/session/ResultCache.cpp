#include "ui/session/ResultCache.h"

#include <QSettings>

namespace {
constexpr qint64 kDefaultBudget = 256ll << 20;
const char* const kBudgetKey = "cache/budgetBytes";

qsizetype costOf(const std::vector<float>& values)
{
    return static_cast<qsizetype>(std::max<std::size_t>(1, values.size() * sizeof(float) / 1024));
}
}  // namespace

ResultCache& ResultCache::instance()
{
    static ResultCache cache;
    return cache;
}

ResultCache::ResultCache()
{
    m_cache.setMaxCost(static_cast<qsizetype>(QSettings().value(kBudgetKey, kDefaultBudget).toLongLong() / 1024));
}

std::shared_ptr<const std::vector<float>> ResultCache::find(const QString& key)
{
    Entry* entry = m_cache.object(key);
    return entry ? entry->values : nullptr;
}

void ResultCache::insert(const QString& key, std::shared_ptr<const std::vector<float>> values)
{
    const qsizetype cost = costOf(*values);
    m_cache.insert(key, new Entry{std::move(values)}, cost);
    emit usageChanged(usedBytes(), budgetBytes());
}

qint64 ResultCache::budgetBytes() const
{
    return static_cast<qint64>(m_cache.maxCost()) * 1024;
}

void ResultCache::setBudgetBytes(qint64 bytes)
{
    m_cache.setMaxCost(static_cast<qsizetype>(std::max<qint64>(bytes / 1024, 1024)));
    QSettings().setValue(kBudgetKey, budgetBytes());
    emit usageChanged(usedBytes(), budgetBytes());
}

qint64 ResultCache::usedBytes() const
{
    return static_cast<qint64>(m_cache.totalCost()) * 1024;
}
