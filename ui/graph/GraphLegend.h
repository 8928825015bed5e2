#pragma once
// The key of the Graph page's colours: the types present with their colours, or the figure's
// scale from its smallest to its largest value (log where it spans orders of magnitude), with
// the colour of nodes that have no figure.

#include <QWidget>
#include <functional>
#include <vector>

class GraphLegend : public QWidget {
public:
    explicit GraphLegend(QWidget* parent = nullptr);

    void showTypes(std::vector<int> typeIds);
    // `colourAt(t)` for t in [0, 1] from the smallest to the largest value.
    void showScale(double minimum, double maximum, bool logarithmic, std::function<QColor(double)> colourAt);
    void setNoFigureColour(QColor colour);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<int> m_types;
    bool m_scale = false;
    double m_minimum = 0, m_maximum = 0;
    bool m_logarithmic = false;
    std::function<QColor(double)> m_colourAt;
    QColor m_noFigure;
};
