#include "core/edit/MetadataEdits.h"

#include "core/base/EscapedText.h"

#include <algorithm>
#include <bit>

namespace gguf {

namespace {
Error editError(const std::string& message)
{
    return Error{message, Error::kNoOffset, {}};
}

std::string shownKey(std::string_view key)
{
    return "'" + escapeForDisplay(key) + "'";
}
}  // namespace

bool isSplitLayoutKey(std::string_view key)
{
    return key.starts_with("split.");
}

void MetadataEdits::set(std::string_view key, EncodedValue value)
{
    for (Change& change : m_changes)
        if (change.key == key) {
            change.value = std::move(value);
            return;
        }
    m_changes.push_back({std::string(key), std::move(value)});
}

void MetadataEdits::remove(std::string_view key)
{
    for (Change& change : m_changes)
        if (change.key == key) {
            change.value.reset();
            return;
        }
    m_changes.push_back({std::string(key), std::nullopt});
}

bool MetadataEdits::revert(std::string_view key)
{
    const auto it = std::find_if(m_changes.begin(), m_changes.end(), [&](const Change& c) { return c.key == key; });
    if (it == m_changes.end())
        return false;
    m_changes.erase(it);
    return true;
}

const MetadataEdits::Change* MetadataEdits::find(std::string_view key) const
{
    for (const Change& change : m_changes)
        if (change.key == key)
            return &change;
    return nullptr;
}

Status MetadataEdits::validateFor(const Model& model) const
{
    for (const Change& change : m_changes) {
        if (change.key.empty())
            return editError("a metadata key cannot be empty");
        if (isSplitLayoutKey(change.key))
            return editError("key " + shownKey(change.key)
                             + " describes the split layout; Save As writes it for each shard and it cannot be edited");
        if (!change.value) {
            if (!model.findMetadata(change.key))
                return editError("cannot remove key " + shownKey(change.key) + ": the model has no such key");
            continue;
        }
        if (change.key == "general.alignment") {
            const EncodedValue& value = *change.value;
            if (value.type != ValueType::U32 || value.payload.size() != 4)
                return editError(std::string("key 'general.alignment' must be a u32, not ") + valueTypeName(value.type));
            std::uint32_t alignment = 0;
            for (int i = 3; i >= 0; --i)
                alignment = (alignment << 8) | static_cast<unsigned char>(value.payload[static_cast<std::size_t>(i)]);
            if (!std::has_single_bit(alignment))
                return editError("key 'general.alignment' must be a power of two, not " + std::to_string(alignment));
        }
    }
    return Ok{};
}

}  // namespace gguf
