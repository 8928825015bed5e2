#include "ui/shell/AboutDialog.h"
#include "ui/shell/WindowPlacement.h"

#include "core/base/HumanFormat.h"
#include "core/types/GgmlType.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace {
QString kindName(gguf::TypeKind kind)
{
    switch (kind) {
    case gguf::TypeKind::Float: return QObject::tr("float");
    case gguf::TypeKind::Integer: return QObject::tr("integer");
    case gguf::TypeKind::Quantized: return QObject::tr("quantized");
    }
    return {};
}
}  // namespace

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("About GGUF Explorer"));
    auto* text = new QLabel(tr("<h2>GGUF Explorer %1</h2>"
                               "<p>Look inside GGUF model files: metadata, tokenizer, every tensor, the dequantized weights "
                               "and the per-block scales the quantizer chose. Dequantization is bit-for-bit identical to ggml.</p>"
                               "<p>Supported tensor types:</p>")
                                .arg(QApplication::applicationVersion()),
                            this);
    text->setWordWrap(true);

    auto* types = new QTableWidget(this);
    types->setObjectName(QStringLiteral("supportedTypes"));
    types->setColumnCount(5);
    types->setHorizontalHeaderLabels({tr("Type"), tr("Id"), tr("Kind"), tr("Block"), tr("Bits/weight")});
    types->verticalHeader()->hide();
    types->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (const gguf::TypeTraits* t = gguf::typeTableBegin(); t != gguf::typeTableEnd(); ++t) {
        const int row = types->rowCount();
        types->insertRow(row);
        types->setItem(row, 0, new QTableWidgetItem(QString::fromLatin1(t->name)));
        types->setItem(row, 1, new QTableWidgetItem(QString::number(t->id)));
        types->setItem(row, 2, new QTableWidgetItem(kindName(t->kind)));
        types->setItem(row, 3, new QTableWidgetItem(tr("%1 elements in %2 bytes").arg(t->blockSize).arg(t->blockBytes)));
        types->setItem(row, 4, new QTableWidgetItem(QString::fromStdString(gguf::formatFixed(t->bitsPerWeight(), 4))));
    }
    types->resizeColumnsToContents();
    types->horizontalHeader()->setStretchLastSection(true);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(text);
    layout->addWidget(types, 1);
    layout->addWidget(buttons);
    resize(560, 620);
    fitWindowIntoScreen(this);  // a small (or scaled) screen keeps the buttons on it
}
