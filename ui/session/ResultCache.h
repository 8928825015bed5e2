#pragma once
// Finished view results (heatmap grids, statistics) kept for reuse within a memory budget the
// user can see and change; least recently used results go first. GUI thread only.

#include <QCache>
#include <QObject>
#include <QString>
#include <memory>
#include <vector>

class ResultCache : public QObject {
    Q_OBJECT
public:
    static ResultCache& instance();

    std::shared_ptr<const std::vector<float>> find(const QString& key);
    void insert(const QString& key, std::shared_ptr<const std::vector<float>> values);

    qint64 budgetBytes() const;
    void setBudgetBytes(qint64 bytes);
    qint64 usedBytes() const;

signals:
    void usageChanged(qint64 usedBytes, qint64 budgetBytes);

private:
    ResultCache();
    struct Entry {
        std::shared_ptr<const std::vector<float>> values;
    };
    QCache<QString, Entry> m_cache;  // cost in KiB
};
