#include "core/recipe/MixPlanner.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace gguf {

namespace {

Error planError(const std::string& message)
{
    return Error{message, Error::kNoOffset, {}};
}

// Name -> the recipe's entry, so matching a recipe to the table is linear (a 70B has 700+ tensors).
std::unordered_map<std::string_view, const RecipeTensor*> byName(const Recipe& recipe)
{
    std::unordered_map<std::string_view, const RecipeTensor*> index;
    for (const RecipeTensor& tensor : recipe.tensors)
        index.emplace(tensor.source->name, &tensor);
    return index;
}

const RecipeTensor* lookup(const std::unordered_map<std::string_view, const RecipeTensor*>& index, std::string_view name)
{
    const auto it = index.find(name);
    return it == index.end() ? nullptr : it->second;
}

// The cost a budget counts for a choice: padded bytes for a file size, raw bytes for bpw.
std::uint64_t costOf(const PlanContext& context, const Budget& budget, std::uint64_t bytes)
{
    return budget.kind == Budget::Kind::FileBytes ? context.layout.padded(bytes) : bytes;
}

// What the budget allows for the table's tensors after the kept ones (and the header).
std::int64_t costLimit(const PlanContext& context, const Budget& budget)
{
    long double limit = 0;
    std::uint64_t fixed = 0;
    if (budget.kind == Budget::Kind::FileBytes) {
        limit = std::floor(static_cast<long double>(budget.value));
        fixed = context.layout.headerBytes;
        for (const TensorInfo* kept : context.table->kept)
            fixed += context.layout.padded(kept->nbytes);
    } else {
        limit = std::floor(static_cast<long double>(budget.value) * context.table->totalElements / 8.0L);
        for (const TensorInfo* kept : context.table->kept)
            fixed += kept->nbytes;
    }
    limit -= fixed;
    if (limit > static_cast<long double>(std::numeric_limits<std::int64_t>::max() / 2))
        return std::numeric_limits<std::int64_t>::max() / 2;
    return static_cast<std::int64_t>(limit);
}

// A solution as choice indices, improved greedily: the move with the most error saved per
// extra cost that still fits, until none is left.
struct Search {
    const PlanContext& context;
    const Budget& budget;
    std::vector<std::size_t> pick;  // choice index per tensor

    std::int64_t cost() const
    {
        std::int64_t sum = 0;
        for (std::size_t t = 0; t < pick.size(); ++t)
            sum += static_cast<std::int64_t>(costOf(context, budget, context.table->tensors[t].choices[pick[t]].bytes));
        return sum;
    }
    double error() const
    {
        double sum = 0;
        for (std::size_t t = 0; t < pick.size(); ++t)
            sum += context.table->tensors[t].choices[pick[t]].cost;
        return sum;
    }
    void improve(std::int64_t limit)
    {
        std::int64_t used = cost();
        for (;;) {
            double bestGain = 0.0;
            double bestRatio = -1.0;
            std::size_t bestTensor = SIZE_MAX, bestChoice = 0;
            std::int64_t bestDelta = 0;
            for (std::size_t t = 0; t < pick.size(); ++t) {
                const auto& choices = context.table->tensors[t].choices;
                const TypeChoice& now = choices[pick[t]];
                const auto nowCost = static_cast<std::int64_t>(costOf(context, budget, now.bytes));
                for (std::size_t c = 0; c < choices.size(); ++c) {
                    const double gain = now.cost - choices[c].cost;
                    if (!(gain > 0))
                        continue;
                    const std::int64_t delta = static_cast<std::int64_t>(costOf(context, budget, choices[c].bytes)) - nowCost;
                    if (used + delta > limit)
                        continue;
                    // A move that saves bytes too is always taken first.
                    const double ratio = delta <= 0 ? std::numeric_limits<double>::infinity() : gain / double(delta);
                    if (ratio > bestRatio || (ratio == bestRatio && gain > bestGain)) {
                        bestRatio = ratio;
                        bestGain = gain;
                        bestTensor = t;
                        bestChoice = c;
                        bestDelta = delta;
                    }
                }
            }
            if (bestTensor == SIZE_MAX)
                return;
            pick[bestTensor] = bestChoice;
            used += bestDelta;
        }
    }
};

// Per tensor, the choices on the lower convex hull of (bytes, error), cheapest first.
std::vector<std::size_t> hullOf(const std::vector<TypeChoice>& choices)
{
    std::vector<std::size_t> order(choices.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return choices[a].bytes != choices[b].bytes ? choices[a].bytes < choices[b].bytes : choices[a].cost < choices[b].cost;
    });
    std::vector<std::size_t> hull;
    for (const std::size_t i : order) {
        if (!hull.empty() && choices[i].cost >= choices[hull.back()].cost)
            continue;  // costs more and is no better
        while (hull.size() >= 2) {
            const TypeChoice& a = choices[hull[hull.size() - 2]];
            const TypeChoice& b = choices[hull.back()];
            const TypeChoice& c = choices[i];
            // b is above the segment a-c: not on the lower hull.
            const long double cross = (static_cast<long double>(b.bytes) - a.bytes) * (c.cost - a.cost)
                                    - (static_cast<long double>(c.bytes) - a.bytes) * (b.cost - a.cost);
            if (cross <= 0)
                hull.pop_back();
            else
                break;
        }
        if (hull.empty() || choices[i].bytes > choices[hull.back()].bytes)
            hull.push_back(i);
    }
    return hull;
}

std::vector<std::uint32_t> typesOf(const PlanContext& context, const std::vector<std::size_t>& pick)
{
    std::vector<std::uint32_t> types(pick.size());
    for (std::size_t t = 0; t < pick.size(); ++t)
        types[t] = context.table->tensors[t].choices[pick[t]].typeId;
    return types;
}

}  // namespace

Result<PlanContext> makePlanContext(const Model& model, const ErrorTable& table, bool hasImatrix,
                                    const std::optional<ImatrixProvenance>& imatrixKeys)
{
    auto layout = recipeFileLayout(model, imatrixKeys);
    if (!layout)
        return layout.error();
    PlanContext context;
    context.model = &model;
    context.table = &table;
    context.layout = *layout;
    context.hasImatrix = hasImatrix || imatrixKeys.has_value();
    return context;
}

Mix evaluateMix(const PlanContext& context, std::vector<std::uint32_t> types)
{
    Mix mix;
    mix.fileBytes = context.layout.headerBytes;
    for (const TensorInfo* kept : context.table->kept) {
        mix.dataBytes += kept->nbytes;
        mix.fileBytes += context.layout.padded(kept->nbytes);
    }
    for (std::size_t t = 0; t < types.size() && t < context.table->tensors.size(); ++t) {
        const TypeChoice* choice = context.table->tensors[t].find(types[t]);
        if (!choice)
            continue;
        mix.dataBytes += choice->bytes;
        mix.fileBytes += context.layout.padded(choice->bytes);
        mix.error += choice->cost;
    }
    mix.types = std::move(types);
    if (context.table->totalElements)
        mix.bitsPerWeight = 8.0 * double(mix.dataBytes) / double(context.table->totalElements);
    return mix;
}

std::vector<PresetOnFrontier> evaluatePresets(const PlanContext& context)
{
    std::vector<PresetOnFrontier> out;
    const ModelShape shape = readModelShape(*context.model);
    for (const QuantPreset& preset : quantPresets()) {
        if (preset.alias)
            continue;
        PresetOnFrontier point;
        point.preset = &preset;
        RecipeOptions options;
        options.preset = &preset;
        options.hasImatrix = context.hasImatrix;
        auto recipe = computeRecipe(shape, context.model->tensors(), options);
        if (!recipe) {
            point.why = recipe.error().message;
        } else if (!recipe->refusal.empty()) {
            point.why = recipe->refusal;
        } else {
            std::vector<std::uint32_t> types;
            const auto index = byName(*recipe);
            for (const TensorErrors& errors : context.table->tensors) {
                const RecipeTensor* chosen = lookup(index, errors.tensor->name);
                if (!chosen || !errors.find(chosen->typeId)) {
                    point.why = "no figures for " + (chosen ? typeName(chosen->typeId) : std::string("?")) + " (" + std::string(errors.tensor->name)
                              + "): no quantizer for it in this build";
                    break;
                }
                types.push_back(chosen->typeId);
            }
            for (const TensorInfo* kept : context.table->kept) {
                const RecipeTensor* chosen = lookup(index, kept->name);
                if (point.why.empty() && chosen && chosen->typeId != kept->typeId)
                    point.why = std::string(kept->name) + " would be " + typeName(chosen->typeId) + ", which the planner keeps";
            }
            if (point.why.empty()) {
                point.evaluated = true;
                point.mix = evaluateMix(context, std::move(types));
            }
        }
        out.push_back(std::move(point));
    }
    return out;
}

std::vector<Mix> computeFrontier(const PlanContext& context)
{
    struct Step {
        std::size_t tensor;
        std::size_t to;  // hull position
        long double slope;
    };
    const auto& tensors = context.table->tensors;
    std::vector<std::vector<std::size_t>> hulls;
    std::vector<Step> steps;
    std::vector<std::size_t> pick;
    for (std::size_t t = 0; t < tensors.size(); ++t) {
        hulls.push_back(hullOf(tensors[t].choices));
        const auto& hull = hulls.back();
        pick.push_back(hull.front());
        for (std::size_t k = 1; k < hull.size(); ++k) {
            const TypeChoice& a = tensors[t].choices[hull[k - 1]];
            const TypeChoice& b = tensors[t].choices[hull[k]];
            steps.push_back({t, k, (static_cast<long double>(a.cost) - b.cost) / (static_cast<long double>(b.bytes) - a.bytes)});
        }
    }
    // Steepest first; within one tensor the hull's slopes fall, so its steps stay in order.
    std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.slope > b.slope; });
    std::vector<Mix> frontier;
    frontier.push_back(evaluateMix(context, typesOf(context, pick)));
    for (const Step& step : steps) {
        pick[step.tensor] = hulls[step.tensor][step.to];
        frontier.push_back(evaluateMix(context, typesOf(context, pick)));
    }
    return frontier;
}

Result<Budget> parseBudget(std::string_view text)
{
    std::string number;
    std::size_t at = 0;
    while (at < text.size() && (std::isdigit(static_cast<unsigned char>(text[at])) || text[at] == '.'))
        number += text[at++];
    std::string unit;
    for (; at < text.size(); ++at)
        if (text[at] != ' ')
            unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[at])));
    char* end = nullptr;
    const double value = number.empty() ? -1.0 : std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0' || !(value > 0) || !std::isfinite(value))
        return planError("'" + std::string(text) + "' is not a size: give a positive number with B, KB, MB, GB, TB, KiB, MiB, GiB, TiB or bpw");
    static const std::map<std::string, double> kUnits = {
        {"", 1.0},          {"b", 1.0},          {"kb", 1e3},         {"mb", 1e6},         {"gb", 1e9},
        {"tb", 1e12},       {"k", 1e3},          {"m", 1e6},          {"g", 1e9},          {"t", 1e12},
        {"kib", 1024.0},    {"mib", 1048576.0},  {"gib", 1073741824.0}, {"tib", 1099511627776.0},
    };
    if (unit == "bpw") {
        if (value > 64)
            return planError("a bits-per-weight budget above 64 is no budget");
        return Budget{Budget::Kind::BitsPerWeight, value};
    }
    const auto it = kUnits.find(unit);
    if (it == kUnits.end())
        return planError("unknown size unit '" + unit + "' in '" + std::string(text) + "'");
    return Budget{Budget::Kind::FileBytes, std::floor(value * it->second)};
}

bool fitsBudget(const Mix& mix, const Budget& budget, std::uint64_t totalElements)
{
    if (budget.kind == Budget::Kind::FileBytes)
        return static_cast<long double>(mix.fileBytes) <= static_cast<long double>(budget.value);
    return static_cast<long double>(mix.dataBytes) * 8.0L <= static_cast<long double>(budget.value) * totalElements;
}

Result<PlanResult> planMix(const PlanContext& context, const std::vector<PresetOnFrontier>& presets, const Budget& budget)
{
    const auto& tensors = context.table->tensors;
    const std::int64_t limit = costLimit(context, budget);

    // Start 1: the frontier walked as far as the budget allows.
    Search frontier{context, budget, {}};
    std::vector<std::vector<std::size_t>> hulls;
    for (const TensorErrors& errors : tensors) {
        hulls.push_back(hullOf(errors.choices));
        frontier.pick.push_back(hulls.back().front());
    }
    if (frontier.cost() > limit) {
        const Mix smallest = evaluateMix(context, typesOf(context, frontier.pick));
        return planError("even the smallest mix (" + std::to_string(smallest.fileBytes) + " bytes, "
                         + std::to_string(smallest.bitsPerWeight) + " bpw) is above the budget");
    }
    frontier.improve(limit);

    PlanResult result;
    result.startedFrom = "frontier";
    Mix best = evaluateMix(context, typesOf(context, frontier.pick));
    // Starts 2...: every preset within the budget, improved the same way. The result is never
    // worse than the best of them, since each start only gets better.
    for (const PresetOnFrontier& point : presets) {
        if (!point.evaluated || !fitsBudget(point.mix, budget, context.table->totalElements))
            continue;
        if (!result.bestPresetWithin || point.mix.error < result.bestPresetError) {
            result.bestPresetWithin = point.preset;
            result.bestPresetError = point.mix.error;
        }
        Search search{context, budget, {}};
        for (std::size_t t = 0; t < tensors.size(); ++t) {
            const auto& choices = tensors[t].choices;
            search.pick.push_back(static_cast<std::size_t>(
                std::find_if(choices.begin(), choices.end(), [&](const TypeChoice& c) { return c.typeId == point.mix.types[t]; }) - choices.begin()));
        }
        search.improve(limit);
        Mix candidate = evaluateMix(context, typesOf(context, search.pick));
        if (candidate.error < best.error || (candidate.error == best.error && candidate.fileBytes < best.fileBytes)) {
            best = std::move(candidate);
            result.startedFrom = std::string(point.preset->name);
        }
    }
    result.mix = std::move(best);
    return result;
}

Result<PlanRules> rulesForMix(const PlanContext& context, const std::vector<PresetOnFrontier>& presets, const Mix& mix)
{
    const auto& tensors = context.table->tensors;
    const ModelShape shape = readModelShape(*context.model);
    PlanRules best;
    for (const PresetOnFrontier& point : presets) {
        if (!point.evaluated || typeIdValue(point.preset->defaultType) == 0 || findType(typeIdValue(point.preset->defaultType))->kind != TypeKind::Quantized)
            continue;  // rules only apply over a quantized preset
        // Rules for the tensors the preset gets wrong, then for whatever still differs (a rule
        // stops llama-quantize's counters at that tensor, which can move the others), until
        // the recipe is the mix.
        std::vector<bool> ruled(tensors.size(), false);
        std::vector<TensorTypeRule> rules;
        for (std::size_t t = 0; t < tensors.size(); ++t)
            if (point.mix.types[t] != mix.types[t]) {
                ruled[t] = true;
                rules.push_back({exactNamePattern(tensors[t].tensor->name), mix.types[t]});
            }
        bool reproduced = false;
        for (int round = 0; round < 64 && !reproduced; ++round) {
            RecipeOptions options;
            options.preset = point.preset;
            options.hasImatrix = context.hasImatrix;
            options.rules = rules;
            auto recipe = computeRecipe(shape, context.model->tensors(), options);
            if (!recipe || !recipe->refusal.empty())
                break;
            reproduced = true;
            const auto index = byName(*recipe);
            for (std::size_t t = 0; t < tensors.size(); ++t) {
                const RecipeTensor* chosen = lookup(index, tensors[t].tensor->name);
                if (chosen && chosen->typeId == mix.types[t])
                    continue;
                reproduced = false;
                if (!ruled[t]) {
                    ruled[t] = true;
                    rules.push_back({exactNamePattern(tensors[t].tensor->name), mix.types[t]});
                }
            }
            if (!reproduced && std::all_of(ruled.begin(), ruled.end(), [](bool r) { return r; }))
                break;
        }
        if (reproduced && (!best.basePreset || rules.size() < best.rules.size())) {
            best.basePreset = point.preset;
            best.rules = std::move(rules);
        }
    }
    if (!best.basePreset)
        return planError("no preset with --tensor-type rules reproduces this mix (a tensor name llama-quantize's lower-cased "
                         "rules cannot match?)");
    // Rules in llama-quantize's tensor order read best.
    std::map<std::string, std::size_t> position;
    for (std::size_t t = 0; t < tensors.size(); ++t)
        position[exactNamePattern(tensors[t].tensor->name)] = t;
    std::stable_sort(best.rules.begin(), best.rules.end(),
                     [&](const TensorTypeRule& a, const TensorTypeRule& b) { return position[a.pattern] < position[b.pattern]; });
    return best;
}

}  // namespace gguf
