#include "ui/session/ReportTables.h"

#include <QAbstractItemModel>

gguf::ReportTable reportTableOf(const QAbstractItemModel& model, const QString& title, const QString& note, const QAbstractItemModel* headers)
{
    gguf::ReportTable table;
    table.title = title.toStdString();
    table.note = note.toStdString();
    for (int column = 0; column < model.columnCount(); ++column)
        table.columns.push_back((headers ? *headers : model).headerData(column, Qt::Horizontal, Qt::DisplayRole).toString().toStdString());
    for (int row = 0; row < model.rowCount(); ++row) {
        std::vector<std::string> cells;
        for (int column = 0; column < model.columnCount(); ++column)
            cells.push_back(model.data(model.index(row, column), Qt::DisplayRole).toString().toStdString());
        table.rows.push_back(std::move(cells));
    }
    return table;
}
