#include "ui/session/MetadataTreeModel.h"

#include "core/types/LlamaFileType.h"
#include "core/edit/ValueText.h"
#include "core/gguf/MetadataFormat.h"
#include "core/write/GgufWriter.h"

#include <QScopedValueRollback>

#include <algorithm>
#include <limits>

namespace {
// The elements of `edited` that differ from `original`, when both are flat arrays of the same
// type and length (an edit of one element); nullopt when the whole value changed shape.
std::optional<std::vector<std::uint64_t>> changedElements(const gguf::MetadataValue& original, const gguf::MetadataValue& edited)
{
    if (!original.isArray() || !edited.isArray() || original.elementType() != edited.elementType()
        || original.elementType() == gguf::ValueType::Array || original.arrayLength() != edited.arrayLength() || original.arrayLength() == 0)
        return std::nullopt;
    std::vector<std::uint64_t> changed;
    const bool strings = original.elementType() == gguf::ValueType::String;
    std::uint64_t a = original.element(0).offset();
    std::uint64_t b = edited.element(0).offset();
    for (std::uint64_t i = 0; i < original.arrayLength(); ++i) {
        const gguf::MetadataValue x = original.elementAt(a);
        const gguf::MetadataValue y = edited.elementAt(b);
        // Text, not bytes: the file may be big-endian, the edited copy never is.
        if (strings ? x.toStringView() != y.toStringView() : gguf::valueAsText(x) != gguf::valueAsText(y))
            changed.push_back(i);
        a += x.encodedSize();
        b += y.encodedSize();
    }
    return changed;
}

constexpr int kDisplayedElements = 8;
constexpr int kToolTipElements = 64;
constexpr int kMaxDisplayCharacters = 2000;  // a cell shows one line; long strings stay in the tooltip
constexpr int kMaxToolTipCharacters = 4000;

QString capped(QString text, int maxCharacters)
{
    if (text.size() > maxCharacters) {
        text.truncate(maxCharacters);
        text += QStringLiteral("…");
    }
    return text;
}
}  // namespace

// A row that has (or may get) children: the root, or an array. Index internal pointers point at
// the node holding the row, so a scalar element costs only its offset, never a node of its own.
struct MetadataTreeModel::Node {
    Node* parent = nullptr;  // nullptr for the root
    int row = 0;             // this node's row under its parent
    gguf::MetadataValue value;  // the array (unused for the root)
    // Arrays: where each element fetched so far starts, in element order.
    std::vector<std::uint64_t> childOffsets;
    // Nodes of the children that are themselves expandable; shorter than the row count, or null
    // entries, for the children that are not.
    std::vector<std::unique_ptr<Node>> children;
};

MetadataTreeModel::MetadataTreeModel(QObject* parent) : QAbstractItemModel(parent), m_root(std::make_unique<Node>()) {}

MetadataTreeModel::~MetadataTreeModel() = default;

bool MetadataTreeModel::isExpandable(const gguf::MetadataValue& value)
{
    return value.isArray() && value.arrayLength() > 0;
}

// An edited value's bytes, laid out as a little-endian v3 file stores a value, so a
// MetadataValue reads it exactly as it reads the file's values.
struct MetadataTreeModel::EditedBytes {
    std::string payload;
    gguf::Encoding encoding;
};

void MetadataTreeModel::setModel(std::shared_ptr<const gguf::Model> model)
{
    m_model = std::move(model);
    m_edits.clear();
    rebuild();
}

void MetadataTreeModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    m_root = std::make_unique<Node>();
    if (m_model) {
        const auto edited = [](const gguf::EncodedValue& value) {
            auto bytes = std::make_shared<EditedBytes>();
            bytes->payload = value.payload;
            bytes->encoding.data = reinterpret_cast<const std::uint8_t*>(bytes->payload.data());
            bytes->encoding.size = bytes->payload.size();
            return bytes;
        };
        for (const auto& entry : m_model->metadata()) {
            TopRow row{std::string(entry.key), entry.value, EditState::Unchanged, nullptr, std::nullopt};
            if (const auto* change = m_edits.find(entry.key)) {
                if (change->value) {
                    row.bytes = edited(*change->value);
                    row.value = gguf::MetadataValue(&row.bytes->encoding, change->value->type, 0);
                    row.state = EditState::Changed;
                    row.changedElements = changedElements(entry.value, row.value);
                } else {
                    row.state = EditState::Removed;
                }
            }
            m_rows.push_back(std::move(row));
        }
        for (const auto& change : m_edits.changes()) {
            if (!change.value || m_model->findMetadata(change.key))
                continue;
            TopRow row{change.key, {}, EditState::Added, edited(*change.value), std::nullopt};
            row.value = gguf::MetadataValue(&row.bytes->encoding, change.value->type, 0);
            m_rows.push_back(std::move(row));
        }
        m_root->children.resize(m_rows.size());
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            if (!isExpandable(m_rows[i].value))
                continue;
            auto node = std::make_unique<Node>();
            node->parent = m_root.get();
            node->row = static_cast<int>(i);
            node->value = m_rows[i].value;
            m_root->children[i] = std::move(node);
        }
    }
    const QScopedValueRollback<bool> announcing(m_announcingChange, true);
    endResetModel();
}

void MetadataTreeModel::setValue(int row, gguf::EncodedValue value)
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return;
    m_edits.set(m_rows[static_cast<std::size_t>(row)].key, std::move(value));
    rebuild();
    emit editsChanged();
}

bool MetadataTreeModel::addKey(const std::string& key, gguf::EncodedValue value)
{
    if (key.empty() || rowOfKey(key) >= 0)
        return false;
    m_edits.set(key, std::move(value));
    rebuild();
    emit editsChanged();
    return true;
}

void MetadataTreeModel::removeKey(int row)
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return;
    const TopRow& top = m_rows[static_cast<std::size_t>(row)];
    if (top.state == EditState::Added)
        m_edits.revert(top.key);  // a key that was never saved just goes
    else
        m_edits.remove(top.key);
    rebuild();
    emit editsChanged();
}

gguf::Status MetadataTreeModel::setElement(int row, std::uint64_t element, const gguf::EncodedValue& value)
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return gguf::Error{"no such row", gguf::Error::kNoOffset, {}};
    const gguf::MetadataValue& array = m_rows[static_cast<std::size_t>(row)].value;
    if (!array.isArray() || element >= array.arrayLength())
        return gguf::Error{"no such element", gguf::Error::kNoOffset, {}};
    if (array.elementType() == gguf::ValueType::Array || value.type != array.elementType())
        return gguf::Error{std::string("an element of this array is a ") + gguf::valueTypeName(array.elementType()), gguf::Error::kNoOffset, {}};
    // The whole array re-encoded with one element replaced: the edits hold whole values.
    const bool bigEndian = m_rows[static_cast<std::size_t>(row)].bytes ? false : m_model->primary().bigEndian();
    auto copy = gguf::EncodedValue::copyOf(array, bigEndian);
    if (!copy)
        return copy.error();
    std::string& payload = copy->payload;
    const std::size_t header = 12;  // u32 element type, u64 count
    std::size_t at = header;
    std::size_t size = 0;
    if (const std::uint32_t fixed = gguf::fixedValueSize(array.elementType())) {
        at += static_cast<std::size_t>(element) * fixed;
        size = fixed;
    } else {
        for (std::uint64_t i = 0;; ++i) {  // strings: u64 length then the bytes
            std::uint64_t length = 0;
            for (int b = 7; b >= 0; --b)
                length = (length << 8) | static_cast<unsigned char>(payload[at + static_cast<std::size_t>(b)]);
            size = 8 + static_cast<std::size_t>(length);
            if (i == element)
                break;
            at += size;
        }
    }
    payload.replace(at, size, value.payload);
    m_edits.set(m_rows[static_cast<std::size_t>(row)].key, std::move(copy.value()));
    rebuild();
    emit editsChanged();
    return gguf::Ok{};
}

void MetadataTreeModel::revertRow(int row)
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()) || !m_edits.revert(m_rows[static_cast<std::size_t>(row)].key))
        return;
    rebuild();
    emit editsChanged();
}

void MetadataTreeModel::revertAll()
{
    if (m_edits.empty())
        return;
    m_edits.clear();
    rebuild();
    emit editsChanged();
}

MetadataTreeModel::EditState MetadataTreeModel::editState(int row) const
{
    return row >= 0 && row < static_cast<int>(m_rows.size()) ? m_rows[static_cast<std::size_t>(row)].state : EditState::Unchanged;
}

int MetadataTreeModel::rowOfKey(std::string_view key) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].key == key)
            return static_cast<int>(i);
    return -1;
}

std::string MetadataTreeModel::keyAt(int row) const
{
    return row >= 0 && row < static_cast<int>(m_rows.size()) ? m_rows[static_cast<std::size_t>(row)].key : std::string();
}

gguf::MetadataValue MetadataTreeModel::valueAtRow(int row) const
{
    return m_rows.at(static_cast<std::size_t>(row)).value;
}

MetadataTreeModel::Node* MetadataTreeModel::nodeOf(const QModelIndex& index) const
{
    if (!index.isValid())
        return m_root.get();
    if (index.column() != 0)
        return nullptr;
    const auto* container = static_cast<const Node*>(index.internalPointer());
    const auto row = static_cast<std::size_t>(index.row());
    return row < container->children.size() ? container->children[row].get() : nullptr;
}

gguf::MetadataValue MetadataTreeModel::valueAt(const Node& container, int row) const
{
    if (&container == m_root.get())
        return m_rows[static_cast<std::size_t>(row)].value;
    return container.value.elementAt(container.childOffsets[static_cast<std::size_t>(row)]);
}

QModelIndex MetadataTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    return createIndex(row, column, nodeOf(parent));
}

QModelIndex MetadataTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    auto* container = static_cast<Node*>(child.internalPointer());
    if (container == m_root.get())
        return {};
    return createIndex(container->row, 0, container->parent);
}

int MetadataTreeModel::rowCount(const QModelIndex& parent) const
{
    const Node* node = nodeOf(parent);
    if (!node || !m_model)
        return 0;
    if (node == m_root.get())
        return static_cast<int>(m_rows.size());
    return static_cast<int>(node->childOffsets.size());
}

int MetadataTreeModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() && parent.column() != 0 ? 0 : ColumnCount;
}

bool MetadataTreeModel::hasChildren(const QModelIndex& parent) const
{
    const Node* node = nodeOf(parent);
    if (!node || !m_model)
        return false;
    return node == m_root.get() ? !m_rows.empty() : node->value.arrayLength() > 0;
}

bool MetadataTreeModel::canFetchMore(const QModelIndex& parent) const
{
    const Node* node = nodeOf(parent);
    if (!node || node == m_root.get() || m_announcingChange)
        return false;
    const std::uint64_t loaded = node->childOffsets.size();
    return loaded < node->value.arrayLength() && loaded < static_cast<std::uint64_t>(std::numeric_limits<int>::max());
}

void MetadataTreeModel::fetchMore(const QModelIndex& parent)
{
    if (!canFetchMore(parent))
        return;
    Node* node = nodeOf(parent);
    const std::uint64_t loaded = node->childOffsets.size();
    const std::uint64_t room = static_cast<std::uint64_t>(std::numeric_limits<int>::max()) - loaded;
    appendElements(parent, node, static_cast<int>(std::min({static_cast<std::uint64_t>(kPageSize), node->value.arrayLength() - loaded, room})));
}

bool MetadataTreeModel::loadThrough(const QModelIndex& parent, int row)
{
    Node* node = nodeOf(parent);
    if (!node || node == m_root.get() || row < 0 || static_cast<std::uint64_t>(row) >= node->value.arrayLength())
        return false;
    const int loaded = static_cast<int>(node->childOffsets.size());
    if (row < loaded)
        return true;
    if (m_announcingChange)
        return false;
    appendElements(parent, node, row + 1 - loaded);
    return true;
}

qint64 MetadataTreeModel::arrayLength(const QModelIndex& parent) const
{
    const Node* node = nodeOf(parent);
    if (!node || node == m_root.get())
        return 0;
    return static_cast<qint64>(std::min<std::uint64_t>(node->value.arrayLength(), std::numeric_limits<int>::max()));
}

void MetadataTreeModel::appendElements(const QModelIndex& parent, Node* node, int count)
{
    if (count <= 0)
        return;
    const gguf::MetadataValue& array = node->value;
    const std::uint64_t loaded = node->childOffsets.size();

    // Step from the last loaded element: element(i) on a string array walks from the front.
    std::uint64_t offset = 0;
    if (loaded == 0) {
        offset = array.element(0).offset();
    } else {
        const gguf::MetadataValue last = array.elementAt(node->childOffsets.back());
        offset = last.offset() + last.encodedSize();
    }

    const int first = static_cast<int>(loaded);
    const QScopedValueRollback<bool> announcing(m_announcingChange, true);
    beginInsertRows(parent, first, first + count - 1);
    node->childOffsets.reserve(loaded + static_cast<std::size_t>(count));
    const bool nested = array.elementType() == gguf::ValueType::Array;
    for (int k = 0; k < count; ++k) {
        const gguf::MetadataValue element = array.elementAt(offset);
        node->childOffsets.push_back(offset);
        if (nested && isExpandable(element)) {
            node->children.resize(node->childOffsets.size());
            auto child = std::make_unique<Node>();
            child->parent = node;
            child->row = first + k;
            child->value = element;
            node->children.back() = std::move(child);
        }
        offset += element.encodedSize();
    }
    endInsertRows();
}

QVariant MetadataTreeModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_model)
        return {};
    const auto& container = *static_cast<const Node*>(index.internalPointer());
    const bool topLevel = &container == m_root.get();
    const auto keyText = [&] {
        return QString::fromStdString(gguf::escapeForDisplay(m_rows[static_cast<std::size_t>(index.row())].key));
    };
    if (role == EditStateRole) {
        const Node* top = &container;
        int topRow = index.row();
        while (top->parent) {  // an element: its key's state
            topRow = top->row;
            top = top->parent;
        }
        const EditState state = editState(topRow);
        // An element of an array edited element by element: changed only if it is one of those.
        if (state == EditState::Changed && container.parent == m_root.get()) {
            const auto& changed = m_rows[static_cast<std::size_t>(topRow)].changedElements;
            if (changed && !std::binary_search(changed->begin(), changed->end(), static_cast<std::uint64_t>(index.row())))
                return static_cast<int>(EditState::Unchanged);
        }
        return static_cast<int>(state);
    }
    if (role == KeyFilterRole)
        return topLevel && index.column() == Key ? QVariant(keyText()) : QVariant();
    if (role == ValueMeaningRole)
        return topLevel && index.column() == Value ? valueMeaning(index.row()) : QVariant();
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Key: return topLevel ? keyText() : QStringLiteral("[%1]").arg(index.row());
    case Type: return QString::fromStdString(valueAt(container, index.row()).typeName());
    case Value: {
        const bool toolTip = role == Qt::ToolTipRole;
        QString text = QString::fromStdString(gguf::formatValue(valueAt(container, index.row()), toolTip ? kToolTipElements : kDisplayedElements));
        if (toolTip && topLevel) {
            const QVariant meaning = valueMeaning(index.row());
            if (meaning.isValid())
                text += QStringLiteral(" (%1)").arg(meaning.toString());
        }
        return capped(text, toolTip ? kMaxToolTipCharacters : kMaxDisplayCharacters);
    }
    default: return {};
    }
}

QVariant MetadataTreeModel::valueMeaning(int topLevelRow) const
{
    const TopRow& entry = m_rows[static_cast<std::size_t>(topLevelRow)];
    if (entry.key != "general.file_type" || entry.value.type() == gguf::ValueType::Array || entry.value.type() == gguf::ValueType::String)
        return {};
    const auto number = entry.value.toUInt();
    const std::string_view name = number ? gguf::llamaFileTypeName(*number) : std::string_view{};
    return name.empty() ? QVariant() : QVariant(QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())));
}

QVariant MetadataTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Key: return tr("Key");
    case Type: return tr("Type");
    case Value: return tr("Value");
    default: return {};
    }
}
