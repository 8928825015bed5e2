#include "ui/recipe/RecipeAuditView.h"

#include "core/base/EscapedText.h"
#include "ui/common/QuantTypeColour.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace {

QString presetText(const gguf::QuantPreset* preset)
{
    return preset ? QString::fromUtf8(preset->name.data(), int(preset->name.size())) : QStringLiteral("—");
}

// Text from the file, shown without control characters.
QString fromFile(std::string_view text)
{
    return QString::fromStdString(gguf::escapeForDisplay(text));
}

// Every column as wide as its contents (a tensor name must not be cut while a type column takes
// the rest of the window); `stretch` >= 0 also takes the room left over (a long value).
QTableWidget* makeTable(const QStringList& headers, const QString& name, QWidget* parent, int stretch = -1)
{
    auto* table = new QTableWidget(parent);
    table->setObjectName(name);
    table->setColumnCount(int(headers.size()));
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->horizontalHeader()->setStretchLastSection(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    if (stretch >= 0)
        table->horizontalHeader()->setSectionResizeMode(stretch, QHeaderView::Stretch);
    table->verticalHeader()->hide();
    return table;
}

}  // namespace

RecipeAuditView::RecipeAuditView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("auditSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_differences = makeTable({tr("tensor"), tr("stored"), tr("llama-quantize")}, QStringLiteral("auditDifferences"), this);
    layout->addWidget(m_differences, 2);
    m_imatrix = makeTable({tr("key"), tr("value")}, QStringLiteral("auditImatrixKeys"), this, 1);
    layout->addWidget(m_imatrix, 1);
}

void RecipeAuditView::showAudit(const gguf::RecipeAudit& audit)
{
    QStringList lines;
    lines << tr("general.file_type: %1%2 — preset %3")
                 .arg(audit.fileType ? QString::number(*audit.fileType) : tr("(not set)"),
                      audit.fileTypeName.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(audit.fileTypeName)),
                      presetText(audit.labelPreset));
    lines << tr("file name: %1 — preset %2").arg(fromFile(audit.fileName), presetText(audit.namePreset));
    lines << tr("most weights: %1 (%2% of the quantizable bytes)")
                 .arg(QString::fromStdString(gguf::typeName(audit.dominantType)))
                 .arg(100.0 * audit.dominantShare, 0, 'f', 1);
    for (const std::string& finding : audit.findings)
        lines << QStringLiteral("• ") + fromFile(finding);
    m_summary->setText(lines.join(QLatin1Char('\n')));

    m_differences->setRowCount(int(audit.differences.size()));
    for (int i = 0; i < int(audit.differences.size()); ++i) {
        const gguf::RecipeDifference& d = audit.differences[std::size_t(i)];
        m_differences->setItem(i, 0, new QTableWidgetItem(fromFile(d.tensor)));
        for (const auto& [column, type] : {std::pair{1, d.storedType}, std::pair{2, d.expectedType}}) {
            auto* item = new QTableWidgetItem(QString::fromStdString(gguf::typeName(type)));
            item->setBackground(quantTypeColour(type));
            item->setForeground(textColourOn(quantTypeColour(type)));
            m_differences->setItem(i, column, item);
        }
    }
    m_imatrix->setRowCount(int(audit.imatrixKeys.size()));
    for (int i = 0; i < int(audit.imatrixKeys.size()); ++i) {
        m_imatrix->setItem(i, 0, new QTableWidgetItem(fromFile(audit.imatrixKeys[std::size_t(i)].first)));
        m_imatrix->setItem(i, 1, new QTableWidgetItem(fromFile(audit.imatrixKeys[std::size_t(i)].second)));
    }
    m_imatrix->setVisible(!audit.imatrixKeys.empty());
}
