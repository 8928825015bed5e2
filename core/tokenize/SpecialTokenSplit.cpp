#include "core/tokenize/SpecialTokenSplit.h"

#include <algorithm>

namespace gguf {

namespace {
bool isAsciiSpace(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}
}  // namespace

std::vector<std::int32_t> specialTokenOrder(const TokenTable& table)
{
    std::vector<std::int32_t> ids;
    for (std::size_t id = 0; id < table.size(); ++id)
        if (table.attributes(static_cast<std::int32_t>(id)) & (AttrControl | AttrUserDefined | AttrUnknown))
            ids.push_back(static_cast<std::int32_t>(id));
    std::sort(ids.begin(), ids.end(), [&](std::int32_t a, std::int32_t b) { return table.text(a).size() > table.text(b).size(); });
    return ids;
}

std::vector<TextFragment> splitSpecialTokens(const TokenTable& table, const std::vector<std::int32_t>& specialOrder, std::string_view text,
                                             bool parseSpecial)
{
    std::vector<TextFragment> fragments;
    if (text.empty())
        return fragments;
    fragments.push_back({TokenTable::kNone, 0, text.size()});
    std::vector<TextFragment> next;
    for (const std::int32_t special : specialOrder) {
        const std::uint32_t attributes = table.attributes(special);
        if (!parseSpecial && (attributes & (AttrControl | AttrUnknown)))
            continue;
        const std::string_view needle = table.text(special);
        next.clear();
        bool changed = false;
        for (const TextFragment& fragment : fragments) {
            if (fragment.isToken()) {
                next.push_back(fragment);
                continue;
            }
            std::size_t start = fragment.offset;
            const std::size_t end = fragment.offset + fragment.length;
            while (start < end) {
                const std::size_t match = text.substr(0, end).find(needle, start);
                if (match == std::string_view::npos)
                    break;
                changed = true;
                std::size_t leftLength = match - start;
                if (attributes & AttrLstrip)
                    while (leftLength > 0 && isAsciiSpace(text[start + leftLength - 1]))
                        --leftLength;
                if (leftLength > 0)
                    next.push_back({TokenTable::kNone, start, leftLength});
                next.push_back({special, 0, 0});
                start = match + needle.size();
                if (attributes & AttrRstrip)
                    while (start < end && isAsciiSpace(text[start]))
                        ++start;
            }
            if (start < end)
                next.push_back({TokenTable::kNone, start, end - start});
        }
        if (changed)
            fragments.swap(next);
    }
    return fragments;
}

}  // namespace gguf
