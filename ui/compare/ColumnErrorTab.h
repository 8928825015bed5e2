#pragma once
// The compare page's Columns tab: the selected tensor's error per input column next to its
// importance (ColumnErrorView, computed on the job pool), for the comparison column picked here
// (a compared file or a simulated type) and, for a tensor with experts (ne[2] > 1), one expert or
// all of them together (computeColumnErrorProfile pools them). It follows the tensor selected in
// the table; the picks stay across tensors where they apply (a column this tensor cannot be
// compared with falls back to the first one it can), and the view says why when nothing is shown.
// A profile reads (and for a simulated column quantizes) the whole tensor, so it is computed
// only while the tab is on screen: browsing the table with the tab hidden starts nothing. The
// computation shows on the page's progress bar, whose Cancel stops it: the tab then shows nothing
// and says so, and computes the pick again when it is next shown or the pick is made again.

#include "core/compare/ModelComparison.h"

#include <QWidget>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QSpinBox;
class ColumnErrorView;
class PlotPlaceholder;
class JobProgressBar;
class StartWhenShown;

class ColumnErrorTab : public QWidget {
    Q_OBJECT
public:
    explicit ColumnErrorTab(QWidget* parent = nullptr);

    // Null: the comparison could not be created.
    void setComparison(std::shared_ptr<const gguf::ModelComparison> comparison);
    // Where the profile's computation shows, with its Cancel button; may be null.
    void setProgressBar(JobProgressBar* progress);
    void setTensorRow(std::size_t row);
    // What a person picks; false (and nothing changes) when the current tensor does not offer it.
    bool setColumn(std::size_t column);
    bool setExpert(std::optional<std::size_t> expert);  // nullopt: all experts together

    // The pick the view shows, computes, or computes once the tab is shown (also after a
    // cancel): nullopt when none.
    std::optional<std::size_t> shownColumn() const { return m_shownColumn; }
    std::optional<std::size_t> shownExpert() const { return m_shownExpert; }
    QString placeholderText() const;  // empty while a profile is shown or computed
    bool isCancelled() const { return m_cancelled; }  // the pick's computation was cancelled

    QComboBox* columnCombo() const { return m_column; }
    QSpinBox* expertSpin() const { return m_expert; }
    ColumnErrorView* view() const { return m_view; }
    // The words over the importance and the error plot, empty while the plot shows a profile.
    QString importanceCoverText() const;
    QString errorCoverText() const;

private:
    void fillColumns();
    void refresh();
    void showNothing(const QString& why);
    void start();
    void cancelled();
    void cover(const QString& why);
    void showProfile();
    QString exportTitle(const QString& chart) const;

    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::optional<std::size_t> m_row;
    std::optional<std::size_t> m_wantedColumn;  // the last one picked, kept across tensors
    std::optional<std::size_t> m_wantedExpert;
    std::optional<std::size_t> m_shownRow;
    std::optional<std::size_t> m_shownColumn;
    std::optional<std::size_t> m_shownExpert;
    QString m_placeholder;
    bool m_cancelled = false;
    QComboBox* m_column;
    QLabel* m_expertLabel;
    QSpinBox* m_expert;
    ColumnErrorView* m_view;
    StartWhenShown* m_startWhenShown;
    PlotPlaceholder* m_importanceCover = nullptr;
    PlotPlaceholder* m_errorCover = nullptr;
};
