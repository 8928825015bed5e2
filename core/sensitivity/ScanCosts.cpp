#include "core/sensitivity/ScanCosts.h"

#include "core/sensitivity/ScanCostCurve.h"
#include "core/types/GgmlType.h"

#include <cmath>
#include <map>

namespace gguf {

Result<ScanCostReport> applyScanCosts(ErrorTable& table, const ScanRecord& record)
{
    struct Sum {
        double cost = 0.0, variance = 0.0, trimmed = 0.0;
        std::size_t count = 0, withTrimmed = 0;
    };
    std::map<std::pair<std::string, std::uint32_t>, const ProbeFigures*> measured;
    std::map<std::pair<std::string, std::uint32_t>, Sum> byRole;
    std::map<std::string, const ScanGroup*> groups;
    for (const ScanGroup& group : record.groups)
        groups[group.tensor] = &group;
    for (std::size_t i = 0; i < record.probes.size(); ++i) {
        if (!record.figures[i])
            continue;
        const ScanGroup& group = record.groups[record.probes[i].group];
        const ProbeFigures& figures = *record.figures[i];
        measured[{group.tensor, record.probes[i].type}] = &figures;
        if (group.layer >= 0) {
            Sum& sum = byRole[{group.role, record.probes[i].type}];
            sum.cost += figures.meanKld;
            sum.variance += figures.kldStandardError * figures.kldStandardError;
            sum.trimmed += figures.trimmedKld.value_or(0.0);
            sum.withTrimmed += figures.trimmedKld.has_value();
            ++sum.count;
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
        std::vector<CostCell> cells;
        for (TypeChoice choice : errors.choices) {
            CostCell cell{choice.bytes, 0.0, 0.0, std::nullopt};
            if (const auto it = measured.find({name, choice.typeId}); it != measured.end()) {
                cell = {choice.bytes, it->second->meanKld, it->second->kldStandardError, it->second->trimmedKld};
                ++report.measured;
            } else if (const auto r = byRole.find({role, choice.typeId}); layer >= 0 && !groups.count(name) && r != byRole.end()) {
                // The mean of the role's measured blocks, and the standard error of that mean.
                const Sum& sum = r->second;
                const double n = double(sum.count);
                cell = {choice.bytes, sum.cost / n, std::sqrt(sum.variance) / n, std::nullopt};
                if (sum.withTrimmed == sum.count)
                    cell.trimmed = sum.trimmed / n;
                ++report.interpolated;
            } else if (choice.typeId == errors.tensor->typeId) {
                cell.trimmed = 0.0;  // as stored: the reference itself, exactly
            } else {
                ++report.dropped;
                continue;
            }
            kept.push_back(choice);
            cells.push_back(cell);
        }
        if (kept.empty())
            return Error{"the scan has no figure for any type of " + name + " (was it scanned with other types, or left out?)", Error::kNoOffset, {}};
        const std::vector<double> fitted = monotoneCosts(cells);
        for (std::size_t c = 0; c < kept.size(); ++c) {
            kept[c].cost = fitted[c];
            report.smoothed += fitted[c] != cells[c].cost;
        }
        errors.choices = std::move(kept);
    }
    return report;
}

}  // namespace gguf
