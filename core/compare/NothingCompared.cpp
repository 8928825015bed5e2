#include "core/compare/NothingCompared.h"

namespace gguf {

bool hasComparableCell(const ModelComparison& comparison)
{
    for (const ComparisonRow& row : comparison.rows())
        for (const ComparisonCell& cell : row.cells)
            if (cell.ok())
                return true;
    return false;
}

std::string whyNothingCompared(const ModelComparison& comparison)
{
    std::string text;
    for (const CellStatus status : {CellStatus::ShapeMismatch, CellStatus::Missing, CellStatus::Undecodable, CellStatus::NoImportance}) {
        std::size_t count = 0;
        std::string first;
        for (const ComparisonRow& row : comparison.rows())
            for (const ComparisonCell& cell : row.cells)
                if (cell.status == status && count++ == 0) {
                    // Appended piece by piece: GCC 12's -Wrestrict misfires on "x" + std::string at -O3.
                    first.assign(1, '\'');
                    first += row.reference->name;
                    first += '\'';
                    if (!cell.problem.empty()) {
                        first += ": ";
                        first += cell.problem;
                    }
                }
        if (count == 0)
            continue;
        const char* what = status == CellStatus::ShapeMismatch ? " with the same name but another shape"
                         : status == CellStatus::Missing       ? " missing from the other file"
                         : status == CellStatus::NoImportance  ? " with no importance-matrix entry for a type that needs one"
                                                               : " that cannot be decoded";
        text += (text.empty() ? "" : "; ") + std::to_string(count) + " tensor(s)" + what + " (first " + first + ")";
    }
    for (const std::string& problem : comparison.problems())
        text += (text.empty() ? "" : "; ") + problem;
    return text.empty() ? std::string("no pair matches by name and shape") : text;
}

}  // namespace gguf
