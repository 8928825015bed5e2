#include "ui/session/TensorFigureStore.h"

#include <algorithm>

TensorFigureStore& TensorFigureStore::instance()
{
    static TensorFigureStore store;
    return store;
}

void TensorFigureStore::publish(TensorFigureSet set)
{
    const QString path = set.modelPath;
    auto shared = std::make_shared<const TensorFigureSet>(std::move(set));
    const auto same = std::find_if(m_sets.begin(), m_sets.end(), [&](const auto& old) {
        return old->modelPath == shared->modelPath && old->label == shared->label;
    });
    if (same != m_sets.end())
        *same = std::move(shared);
    else
        m_sets.push_back(std::move(shared));
    emit setsChanged(path);
}

void TensorFigureStore::publish(std::vector<TensorFigureSet> sets)
{
    for (TensorFigureSet& set : sets)
        publish(std::move(set));
}

std::vector<std::shared_ptr<const TensorFigureSet>> TensorFigureStore::setsFor(const QString& modelPath) const
{
    std::vector<std::shared_ptr<const TensorFigureSet>> sets;
    for (const auto& set : m_sets)
        if (set->modelPath == modelPath)
            sets.push_back(set);
    return sets;
}

void TensorFigureStore::clear()
{
    m_sets.clear();
}
