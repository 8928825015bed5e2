#pragma once
// Every metadata key of a model as a tree: key, value type, value. Arrays show a summary and
// expand into their elements, which are created a page at a time through canFetchMore/fetchMore,
// so a 256k-entry vocabulary never becomes 256k rows at once; arrays of arrays expand again.
//
// Edits (setValue, addKey, removeKey, setElement, revert) are kept as a gguf::MetadataEdits for
// Save As and shown in place: an edited value is read from its own encoded bytes exactly as the
// file's values are, so edited arrays page and expand like the others; a removed key stays
// listed (EditStateRole says so) until it is reverted or the edits are saved.

#include "core/edit/MetadataEdits.h"
#include "core/gguf/Model.h"

#include <QAbstractItemModel>
#include <memory>
#include <optional>
#include <vector>

class MetadataTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Key, Type, Value, ColumnCount };
    enum Role {
        // The key of a top-level row, nothing for array elements: what the filter box matches,
        // so "[12]" rows never make an unrelated key match.
        KeyFilterRole = Qt::UserRole + 1,
        // What a coded value stands for, on the Value column of keys whose numbers name
        // something: general.file_type 15 is "MOSTLY_Q4_K_M". Nothing for other rows.
        ValueMeaningRole,
        // EditState of a top-level row (as int). Elements of a flat array that kept its type and
        // length are Changed only where they differ from the file; other elements have their
        // key's state.
        EditStateRole,
    };
    enum class EditState { Unchanged, Changed, Added, Removed };
    static constexpr int kPageSize = 256;

    explicit MetadataTreeModel(QObject* parent = nullptr);
    ~MetadataTreeModel() override;
    void setModel(std::shared_ptr<const gguf::Model> model);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    // Loads the elements of the array at `parent` up to (and including) `row` in one insertion,
    // so a jump to element 200,000 costs one walk, not 800 page fetches. Returns false when
    // `parent` is not an array or `row` lies past its end.
    bool loadThrough(const QModelIndex& parent, int row);
    // The number of elements of the array at `parent` (loaded or not), 0 for anything else.
    qint64 arrayLength(const QModelIndex& parent) const;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Edits, on top-level rows. Each resets the model (views lose their expansion).
    // The value must already be valid for its type (gguf::parseValueText checks text).
    void setValue(int row, gguf::EncodedValue value);
    // A new key goes last; false when the key exists (edit that row instead) or is empty.
    bool addKey(const std::string& key, gguf::EncodedValue value);
    void removeKey(int row);
    // Element `element` of the array at top-level `row` (strings and numbers; not nested arrays).
    gguf::Status setElement(int row, std::uint64_t element, const gguf::EncodedValue& value);
    // Undoes the edits of top-level `row` (a name of its own: revert() is QAbstractItemModel's slot).
    void revertRow(int row);
    void revertAll();
    const gguf::MetadataEdits& edits() const { return m_edits; }
    bool hasEdits() const { return !m_edits.empty(); }
    EditState editState(int row) const;
    int rowOfKey(std::string_view key) const;  // -1 when absent
    std::string keyAt(int row) const;
    gguf::MetadataValue valueAtRow(int row) const;  // the value shown (edited or not)
    const gguf::Model* model() const { return m_model.get(); }

signals:
    void editsChanged();

private:
    struct Node;
    struct EditedBytes;
    struct TopRow {
        std::string key;
        gguf::MetadataValue value;
        EditState state = EditState::Unchanged;
        std::shared_ptr<EditedBytes> bytes;  // the encoded edited value that `value` reads
        // Sorted indices of the elements that differ from the file's (a changed flat array of the
        // same type and length); nullopt otherwise.
        std::optional<std::vector<std::uint64_t>> changedElements;
    };
    void rebuild();

    // The node holding the children of `index` (the root for an invalid index); nullptr when
    // `index` is not an array.
    Node* nodeOf(const QModelIndex& index) const;
    gguf::MetadataValue valueAt(const Node& container, int row) const;
    static bool isExpandable(const gguf::MetadataValue& value);
    QVariant valueMeaning(int topLevelRow) const;
    void appendElements(const QModelIndex& parent, Node* node, int count);

    std::shared_ptr<const gguf::Model> m_model;
    gguf::MetadataEdits m_edits;
    std::vector<TopRow> m_rows;
    std::unique_ptr<Node> m_root;
    // True while the model emits a reset or an insertion. Listeners that run early (a proxy,
    // QAbstractItemModelTester) may ask for more rows from their slots; inserting those then would
    // nest one change inside another and reach later listeners before the first one. They get
    // their rows on their next request instead.
    bool m_announcingChange = false;
};
