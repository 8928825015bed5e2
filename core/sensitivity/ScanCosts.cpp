#include "core/sensitivity/ScanCosts.h"

#include "core/types/GgmlType.h"

#include <map>

namespace gguf {

Result<ScanCostReport> applyScanCosts(ErrorTable& table, const ScanRecord& record)
{
    std::map<std::pair<std::string, std::uint32_t>, double> measured;
    std::map<std::pair<std::string, std::uint32_t>, std::pair<double, std::size_t>> byRole;  // sum, count
    std::map<std::string, const ScanGroup*> groups;
    for (const ScanGroup& group : record.groups)
        groups[group.tensor] = &group;
    for (std::size_t i = 0; i < record.probes.size(); ++i) {
        if (!record.figures[i])
            continue;
        const ScanGroup& group = record.groups[record.probes[i].group];
        measured[{group.tensor, record.probes[i].type}] = record.figures[i]->meanKld;
        if (group.layer >= 0) {
            auto& [sum, count] = byRole[{group.role, record.probes[i].type}];
            sum += record.figures[i]->meanKld;
            ++count;
        }
    }
    if (record.measured() < record.probes.size())
        return Error{"the scan is not complete: " + std::to_string(record.measured()) + " of " + std::to_string(record.probes.size())
                         + " probes measured (resume it, or merge every shard)",
                     Error::kNoOffset, {}};
    std::size_t known = 0;
    for (const TensorErrors& errors : table.tensors)
        known += groups.count(std::string(errors.tensor->name));
    if (known == 0)
        return Error{"the scan is of another model: none of its groups is a tensor of this one", Error::kNoOffset, {}};

    ScanCostReport report;
    for (TensorErrors& errors : table.tensors) {
        const std::string name(errors.tensor->name);
        std::int64_t layer = -1;
        std::string role = name;
        if (name.starts_with("blk.")) {
            const std::size_t dot = name.find('.', 4);
            if (dot != std::string::npos) {
                layer = 0;
                role = name.substr(dot + 1);
                if (role.ends_with(".weight"))
                    role.resize(role.size() - 7);
            }
        }
        std::vector<TypeChoice> kept;
        for (TypeChoice choice : errors.choices) {
            if (const auto it = measured.find({name, choice.typeId}); it != measured.end()) {
                choice.cost = it->second;
                ++report.measured;
            } else if (const auto r = byRole.find({role, choice.typeId}); layer >= 0 && !groups.count(name) && r != byRole.end()) {
                choice.cost = r->second.first / double(r->second.second);
                ++report.interpolated;
            } else if (choice.typeId == errors.tensor->typeId) {
                choice.cost = 0.0;  // as stored: the reference itself
            } else {
                ++report.dropped;
                continue;
            }
            kept.push_back(choice);
        }
        if (kept.empty())
            return Error{"the scan has no figure for any type of " + name + " (was it scanned with other types, or left out?)", Error::kNoOffset, {}};
        errors.choices = std::move(kept);
    }
    return report;
}

}  // namespace gguf
