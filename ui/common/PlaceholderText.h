#pragma once
// The sentence of a placeholder button over a plot ("Select a tensor…", an error): plain text,
// centred, wrapped at spaces and, inside a word wider than the button (a path, a long tensor
// name), anywhere in it, so no part of it is cut off at the sides; a QLabel never breaks a word,
// and centred it loses both ends. While the button is shown the plot under it (the button's
// parent) is kept at least as tall as the wrapped text needs at its width, so nothing is cut at
// the top and bottom either; once the button is hidden the plot's own minimum height is back.

#include <QWidget>

class QPushButton;
class QTextLayout;

class PlaceholderText : public QWidget {
    Q_OBJECT
public:
    // Fills `button` (inside margins), which must lie on its plot, and follows it.
    explicit PlaceholderText(QPushButton* button);

    void setText(const QString& text);
    QString text() const { return m_text; }
    // The widest line of the text laid out `width` pixels wide (never more than `width`).
    int widestLine(int width) const;
    // The margins between the button's edges and the text.
    static QMargins margins();

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // Lays the text out in `layout` `width` pixels wide; returns its height.
    int layOut(QTextLayout& layout, int width) const;
    void keepPlotRoom();

    QPushButton* m_button;
    QWidget* m_plot;
    QString m_text;
    int m_plotMinimumHeight;
};
