#pragma once
// The tokens of a vocabulary as a table: id, text (invisible characters made visible), score,
// type. Rows are decoded when a view asks for them, so 256k tokens hold no 256k strings. A search
// narrows the table to a list of ids computed elsewhere (a worker thread): filtering 256k rows
// through a QSortFilterProxyModel on the GUI thread would freeze it.

#include "core/gguf/Vocabulary.h"

#include <QAbstractTableModel>
#include <memory>
#include <optional>
#include <vector>

class TokenTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // ReadsAs exists only for byte-level (GPT-2 style) vocabularies: what "Ġthe" stands for.
    enum Column { Id, Text, Score, Type, ColumnCount, ReadsAs = ColumnCount };
    enum Role { TokenIdRole = Qt::UserRole + 1 };

    explicit TokenTableModel(QObject* parent = nullptr);

    // Shows every token of `vocabulary` (none for nullptr).
    // `byteLevel`: the tokens are GPT-2 byte-level text, shown decoded in a ReadsAs column too.
    void setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocabulary, bool byteLevel = false);
    // Shows only `ids`, in that order. Ids outside the vocabulary are dropped.
    void setMatches(std::vector<std::uint32_t> ids);
    void showAll();
    bool isFiltered() const { return m_matches.has_value(); }
    std::size_t tokenCount() const { return m_vocabulary ? m_vocabulary->size() : 0; }
    // The token id shown in `row` (< rowCount()).
    std::uint32_t tokenId(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString toolTip(std::uint32_t id) const;
    QString readsAs(std::uint32_t id) const;

    std::shared_ptr<const gguf::Vocabulary> m_vocabulary;
    bool m_byteLevel = false;
    std::optional<std::vector<std::uint32_t>> m_matches;  // nullopt: every token, row = id
};
