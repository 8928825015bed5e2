#include "ui/session/FindResults.h"

#include "core/edit/ValueText.h"

#include <algorithm>

namespace {
constexpr std::uint64_t kSearchedArrayElements = 64;
constexpr int kShownValueCharacters = 80;

QString fromView(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// Adds `hit` to `group`'s count, and to its shown hits while there is room.
void count(FindGroup& group, FindHit hit)
{
    ++group.total;
    if (static_cast<int>(group.shown.size()) < kFindShownPerKind)
        group.shown.push_back(std::move(hit));
}
}  // namespace

std::vector<FindGroup> findInModel(const gguf::Model& model, const QStringList& pages, const QString& needle)
{
    const QString wanted = needle.trimmed();
    if (wanted.isEmpty())
        return {};
    const auto contains = [&wanted](const QString& haystack) { return haystack.contains(wanted, Qt::CaseInsensitive); };

    FindGroup pageGroup{FindKind::Page, 0, {}};
    for (int i = 0; i < pages.size(); ++i)
        if (contains(pages[i]))
            count(pageGroup, {pages[i], pages[i], i});

    FindGroup metadataGroup{FindKind::Metadata, 0, {}};
    for (const gguf::MetadataEntry& entry : model.metadata()) {
        const QString key = fromView(entry.key);
        const bool small = !entry.value.isArray() || entry.value.arrayLength() <= kSearchedArrayElements;
        const QString value = small ? QString::fromStdString(gguf::valueAsText(entry.value)) : QString();
        if (!contains(key) && !contains(value))
            continue;
        const QString brief = value.size() > kShownValueCharacters ? value.left(kShownValueCharacters) + QStringLiteral("…") : value;
        count(metadataGroup, {brief.isEmpty() ? key : QStringLiteral("%1 = %2").arg(key, brief), key, metadataGroup.total});
    }

    FindGroup tensorGroup{FindKind::Tensor, 0, {}};
    const auto& tensors = model.tensors();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const QString name = fromView(tensors[i].name);
        if (contains(name))
            count(tensorGroup, {name, name, static_cast<int>(i)});
    }

    std::vector<FindGroup> groups;
    for (FindGroup* group : {&pageGroup, &metadataGroup, &tensorGroup})
        if (group->total > 0)
            groups.push_back(std::move(*group));
    return groups;
}

FindGroup findTokens(const gguf::Vocabulary& vocabulary, const std::string& lowerNeedle, const std::atomic<bool>* cancel)
{
    const std::vector<std::uint32_t> ids = vocabulary.matchingIds(
        [&lowerNeedle](std::string_view display) { return fromView(display).toLower().toStdString().find(lowerNeedle) != std::string::npos; },
        cancel);
    FindGroup group{FindKind::Token, static_cast<int>(ids.size()), {}};
    for (std::size_t i = 0; i < ids.size() && i < static_cast<std::size_t>(kFindShownPerKind); ++i)
        group.shown.push_back({QStringLiteral("%1: %2").arg(ids[i]).arg(QString::fromStdString(vocabulary.displayText(ids[i]))), QString::number(ids[i]),
                               static_cast<int>(ids[i])});
    return group;
}
