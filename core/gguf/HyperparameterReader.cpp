#include "core/gguf/HyperparameterReader.h"

#include "core/gguf/MetadataFormat.h"

#include <cmath>

namespace gguf {

namespace {

std::string storedType(const MetadataValue& value)
{
    return value.type() == ValueType::String ? std::string("string") : value.typeName();
}

std::string rangeText(std::int64_t minimum, std::int64_t maximum)
{
    return "from " + std::to_string(minimum) + " to " + std::to_string(maximum);
}

std::string rangeText(float minimum, float maximum)
{
    if (minimum <= -HyperparameterReader::kMaxReal && maximum >= HyperparameterReader::kMaxReal)
        return "";
    if (maximum >= HyperparameterReader::kMaxReal)
        return minimum == 0.0f ? " of 0 or more" : " of at least " + formatFloat(minimum, true);
    return " from " + formatFloat(minimum, true) + " to " + formatFloat(maximum, true);
}

}  // namespace

HyperparameterReader::HyperparameterReader(const Model& model, std::string prefix, std::string reader)
    : m_model(model), m_prefix(std::move(prefix)), m_reader(std::move(reader))
{
}

const MetadataEntry* HyperparameterReader::find(std::string_view name) const
{
    return m_model.findMetadata(key(name));
}

bool HyperparameterReader::has(std::string_view name) const
{
    return find(name) != nullptr;
}

bool HyperparameterReader::isArray(std::string_view name) const
{
    const MetadataEntry* entry = find(name);
    return entry && entry->value.isArray();
}

Status HyperparameterReader::status() const
{
    if (m_error)
        return *m_error;
    return Ok{};
}

void HyperparameterReader::fail(const std::string& message)
{
    if (!m_error)
        m_error = Error{message, Error::kNoOffset, m_model.primary().path()};
}

void HyperparameterReader::refuseEntry(const MetadataEntry& entry, const std::string& why)
{
    if (m_error)
        return;
    m_error = Error{std::string(entry.key) + " has type " + storedType(entry.value) + " (" + formatValue(entry.value) + "); " + why,
                    entry.keyOffset, m_model.primary().path()};
}

void HyperparameterReader::refuse(std::string_view name, const std::string& why)
{
    if (const MetadataEntry* entry = find(name))
        refuseEntry(*entry, why);
    else
        fail(key(name) + ": " + why);
}

void HyperparameterReader::missing(std::string_view name)
{
    fail(m_reader + " needs metadata key " + key(name));
}

const MetadataEntry* HyperparameterReader::ofType(std::string_view name, ValueType type, const char* what)
{
    const MetadataEntry* entry = find(name);
    if (!entry || m_error)
        return nullptr;
    if (entry->value.type() != type) {
        refuseEntry(*entry, m_reader + " needs " + what + ", as llama.cpp reads it");
        return nullptr;
    }
    return entry;
}

std::int64_t HyperparameterReader::count(std::string_view name, std::int64_t fallback, std::int64_t minimum, std::int64_t maximum)
{
    const MetadataEntry* entry = ofType(name, ValueType::U32, "a u32 (an unsigned 32-bit integer)");
    if (!entry)
        return fallback;
    return element(*entry, entry->value, minimum, maximum, "a u32 " + rangeText(minimum, maximum)).value_or(fallback);
}

std::int64_t HyperparameterReader::requiredCount(std::string_view name, std::int64_t minimum, std::int64_t maximum)
{
    if (!has(name))
        missing(name);
    return count(name, minimum, minimum, maximum);
}

float HyperparameterReader::real(std::string_view name, float fallback, float minimum, float maximum)
{
    const MetadataEntry* entry = ofType(name, ValueType::F32, "an f32 (a 32-bit float)");
    if (!entry)
        return fallback;
    const auto value = static_cast<float>(*entry->value.toDouble());
    if (!std::isfinite(value) || value < minimum || value > maximum) {
        refuseEntry(*entry, m_reader + " needs a finite f32" + rangeText(minimum, maximum));
        return fallback;
    }
    return value;
}

float HyperparameterReader::requiredReal(std::string_view name, float minimum, float maximum)
{
    if (!has(name))
        missing(name);
    return real(name, minimum, minimum, maximum);
}

bool HyperparameterReader::flag(std::string_view name, bool fallback)
{
    const MetadataEntry* entry = ofType(name, ValueType::Bool, "a bool");
    return entry ? *entry->value.toBool() : fallback;
}

std::string HyperparameterReader::text(std::string_view name, std::string fallback)
{
    const MetadataEntry* entry = ofType(name, ValueType::String, "a string");
    return entry ? std::string(entry->value.toStringView()) : fallback;
}

std::optional<std::int64_t> HyperparameterReader::element(const MetadataEntry& entry, const MetadataValue& value, std::int64_t minimum,
                                                          std::int64_t maximum, const std::string& what)
{
    // llama.cpp copies an i32 array's bits into its u32 (or int) array; a negative value is out of
    // every range asked for here.
    std::optional<std::int64_t> number;
    if (value.type() == ValueType::Bool)
        number = *value.toBool() ? 1 : 0;
    else
        number = value.toInt();
    if (!number || *number < minimum || *number > maximum) {
        const std::string shown = value.isArray() || !entry.value.isArray() ? std::string() : " (one is " + formatValue(value) + ")";
        refuseEntry(entry, m_reader + " needs " + what + shown);
        return std::nullopt;
    }
    return number;
}

std::vector<std::int64_t> HyperparameterReader::perLayer(std::string_view name, std::int64_t layers,
                                                         const std::optional<std::vector<std::int64_t>>& fallback, std::int64_t minimum,
                                                         std::int64_t maximum)
{
    const MetadataEntry* entry = find(name);
    if (!entry) {
        if (!fallback)
            missing(name);
        return fallback.value_or(std::vector<std::int64_t>(static_cast<std::size_t>(std::max<std::int64_t>(layers, 0)), minimum));
    }
    const auto failed = [&] { return fallback.value_or(std::vector<std::int64_t>(static_cast<std::size_t>(layers), minimum)); };
    if (m_error || layers <= 0 || layers > kMaxLayers)
        return failed();
    const std::string range = rangeText(minimum, maximum);
    if (!entry->value.isArray()) {
        if (entry->value.type() != ValueType::U32) {
            refuseEntry(*entry, m_reader + " needs a u32 (an unsigned 32-bit integer) or an array of " + std::to_string(layers)
                                    + " of them, one per layer, as llama.cpp reads it");
            return failed();
        }
        const auto one = element(*entry, entry->value, minimum, maximum, "a u32 " + range);
        return one ? std::vector<std::int64_t>(static_cast<std::size_t>(layers), *one) : failed();
    }
    const ValueType type = entry->value.elementType();
    if (type != ValueType::U32 && type != ValueType::I32 && type != ValueType::Bool) {
        refuseEntry(*entry, m_reader + " needs one u32, or an array of u32, i32 or bool values (one per layer), as llama.cpp reads it");
        return failed();
    }
    if (entry->value.elided() || entry->value.arrayLength() != static_cast<std::uint64_t>(layers)) {
        refuseEntry(*entry, m_reader + " needs one value for each of the " + std::to_string(layers) + " layers, not "
                                + std::to_string(entry->value.storedLength()));
        return failed();
    }
    std::vector<std::int64_t> values(static_cast<std::size_t>(layers));
    for (std::int64_t il = 0; il < layers; ++il) {
        const auto one = element(*entry, entry->value.element(static_cast<std::uint64_t>(il)), minimum, maximum, "values " + range);
        if (!one)
            return failed();
        values[static_cast<std::size_t>(il)] = *one;
    }
    return values;
}

std::vector<float> HyperparameterReader::perLayerReals(std::string_view name, std::int64_t layers)
{
    const MetadataEntry* entry = find(name);
    if (!entry || m_error || layers <= 0 || layers > kMaxLayers)
        return {};
    const bool array = entry->value.isArray();
    if ((array ? entry->value.elementType() : entry->value.type()) != ValueType::F32) {
        refuseEntry(*entry, m_reader + " needs an f32 (a 32-bit float) or an array of " + std::to_string(layers)
                                + " of them, one per layer, as llama.cpp reads it");
        return {};
    }
    if (array && (entry->value.elided() || entry->value.arrayLength() != static_cast<std::uint64_t>(layers))) {
        refuseEntry(*entry, m_reader + " needs one value for each of the " + std::to_string(layers) + " layers, not "
                                + std::to_string(entry->value.storedLength()));
        return {};
    }
    std::vector<float> values(static_cast<std::size_t>(layers));
    for (std::int64_t il = 0; il < layers; ++il) {
        const auto value = static_cast<float>(*(array ? entry->value.element(static_cast<std::uint64_t>(il)) : entry->value).toDouble());
        if (!std::isfinite(value)) {
            refuseEntry(*entry, m_reader + " needs finite values");
            return {};
        }
        values[static_cast<std::size_t>(il)] = value;
    }
    return values;
}

std::vector<std::int64_t> HyperparameterReader::integers(std::string_view name, std::size_t n, bool required, std::int64_t minimum,
                                                         std::int64_t maximum)
{
    const MetadataEntry* entry = find(name);
    if (!entry) {
        if (required)
            missing(name);
        return {};
    }
    if (m_error)
        return {};
    const std::string range = rangeText(minimum, maximum);
    if (!entry->value.isArray()) {
        if (entry->value.type() != ValueType::I32) {
            refuseEntry(*entry, m_reader + " needs an i32 or an array of " + std::to_string(n) + " integers, as llama.cpp reads it");
            return {};
        }
        const auto one = element(*entry, entry->value, minimum, maximum, "an i32 " + range);
        return one ? std::vector<std::int64_t>(n, *one) : std::vector<std::int64_t>{};
    }
    const ValueType type = entry->value.elementType();
    if ((type != ValueType::U32 && type != ValueType::I32 && type != ValueType::Bool) || entry->value.elided()
        || entry->value.arrayLength() != n) {
        refuseEntry(*entry, m_reader + " needs an array of exactly " + std::to_string(n) + " u32, i32 or bool values, as llama.cpp reads it");
        return {};
    }
    std::vector<std::int64_t> values(n);
    for (std::size_t i = 0; i < n; ++i) {
        const MetadataValue value = entry->value.element(i);
        // A u32 above 2^31 is a negative int in llama.cpp's int array.
        std::optional<std::int64_t> number = value.type() == ValueType::U32 ? std::optional<std::int64_t>(static_cast<std::int32_t>(*value.toUInt()))
                                                                            : std::nullopt;
        if (!number)
            number = element(*entry, value, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), "integers");
        if (!number)
            return {};
        if (*number < minimum || *number > maximum) {
            refuseEntry(*entry, m_reader + " needs values " + range + " (one is " + std::to_string(*number) + ")");
            return {};
        }
        values[i] = *number;
    }
    return values;
}

}  // namespace gguf
