#pragma once
// A set of metadata changes to apply over an opened model when it is saved (Save As, CLI
// `meta --set`): keys set to a new value (of any type, changed or new), keys removed. The model
// itself never changes; the edits say what the written copy holds instead.

#include "core/base/Result.h"
#include "core/gguf/Model.h"
#include "core/write/GgufWriter.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class MetadataEdits {
public:
    struct Change {
        std::string key;
        std::optional<EncodedValue> value;  // nullopt: the key is removed
    };

    // A later change of the same key replaces the earlier one.
    void set(std::string_view key, EncodedValue value);
    void remove(std::string_view key);
    // Forgets any change of `key`; true when there was one.
    bool revert(std::string_view key);
    void clear() { m_changes.clear(); }

    const Change* find(std::string_view key) const;
    const std::vector<Change>& changes() const { return m_changes; }  // in the order first made
    bool empty() const { return m_changes.empty(); }

    // Whether the edits can be applied to `model`: keys not empty; removed keys exist; the
    // split.* keys are the saver's to write, not the user's; general.alignment a u32 power of two.
    Status validateFor(const Model& model) const;

private:
    std::vector<Change> m_changes;
};

// True for the keys that describe a split model's layout (split.no, split.count, ...).
bool isSplitLayoutKey(std::string_view key);

}  // namespace gguf
