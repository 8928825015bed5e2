#pragma once
// The per-tensor figure sets the open pages have measured (TensorFigures.h), for the views that
// show them on another page (the Graph page's node colours). A page publishes a set when its
// result is complete; a set of the same model and label replaces the older one. GUI thread only.

#include "ui/session/TensorFigures.h"

#include <QObject>
#include <memory>
#include <vector>

class TensorFigureStore : public QObject {
    Q_OBJECT
public:
    static TensorFigureStore& instance();

    void publish(TensorFigureSet set);
    void publish(std::vector<TensorFigureSet> sets);
    // The sets of the model at `modelPath`, in the order they were first published.
    std::vector<std::shared_ptr<const TensorFigureSet>> setsFor(const QString& modelPath) const;
    void clear();  // every set (tests)

signals:
    void setsChanged(const QString& modelPath);

private:
    TensorFigureStore() = default;
    std::vector<std::shared_ptr<const TensorFigureSet>> m_sets;
};
