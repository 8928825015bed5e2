#pragma once
// The audit of a file's label: general.file_type and the file name against what is stored, the
// findings, the tensors whose type differs from llama-quantize's choice and the
// quantize.imatrix.* keys.

#include "core/recipe/RecipeAudit.h"

#include <QWidget>

class QLabel;
class QTableWidget;

class RecipeAuditView : public QWidget {
    Q_OBJECT
public:
    explicit RecipeAuditView(QWidget* parent = nullptr);
    void showAudit(const gguf::RecipeAudit& audit);
    QTableWidget* differencesTable() const { return m_differences; }

private:
    QLabel* m_summary;
    QTableWidget* m_differences;
    QTableWidget* m_imatrix;
};
