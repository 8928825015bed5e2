#pragma once
// A model's hyperparameters (`<arch>.*` metadata) read the way llama.cpp's llama_model_loader
// reads them: get_key takes a key only in the one GGUF type it asks for (a u32 count is not an
// i32, a u64, a bool or an f32; a float is an f32), get_key_or_arr a value for every layer or an
// array of exactly one value per layer. A key that is absent takes the caller's default, as in
// llama.cpp; a key that is present but unfit (wrong type, out of range, not finite, an array of
// the wrong length) is refused, naming the key, its stored type and its value. It is never read
// as absent: a wrong value that quietly became a default would run another network.
//
// The forward pass (readHyperparameters) and the memory estimate (readEstimateShape) read every
// key through this class, so the two see the same numbers and refuse the same files.
//
// The first refusal sticks: later reads return their fallback and change nothing, so a caller
// reads a group of keys and checks ok() once before it computes with them.

#include "core/base/Result.h"
#include "core/gguf/Model.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class HyperparameterReader {
public:
    // Counts above this are refused wherever no tighter bound is given: every product of two of
    // them still fits an int64, and llama.cpp stores them in a u32.
    static constexpr std::int64_t kMaxCount = std::numeric_limits<std::int32_t>::max();
    static constexpr float kMaxReal = std::numeric_limits<float>::max();

    // Keys are `prefix` + the name each call gives ("llama." + "block_count"); `reader` names who
    // needs them in messages ("the forward pass").
    HyperparameterReader(const Model& model, std::string prefix, std::string reader);

    const std::string& prefix() const { return m_prefix; }
    bool has(std::string_view name) const;
    bool isArray(std::string_view name) const;

    // get_key<uint32_t>: a u32 from `minimum` to `maximum`; absent: `fallback`.
    std::int64_t count(std::string_view name, std::int64_t fallback, std::int64_t minimum = 0, std::int64_t maximum = kMaxCount);
    // The same, refused when absent.
    std::int64_t requiredCount(std::string_view name, std::int64_t minimum = 1, std::int64_t maximum = kMaxCount);
    // get_key<float>: a finite f32 from `minimum` to `maximum`; absent: `fallback`.
    float real(std::string_view name, float fallback, float minimum = -kMaxReal, float maximum = kMaxReal);
    float requiredReal(std::string_view name, float minimum = -kMaxReal, float maximum = kMaxReal);
    // get_key<bool>.
    bool flag(std::string_view name, bool fallback);
    // get_key<std::string>.
    std::string text(std::string_view name, std::string fallback);

    // get_key_or_arr of a u32 per layer: one u32 for every layer, or an array (u32, i32 or bool
    // elements, as llama.cpp's get_arr takes) of exactly `layers` values, each from `minimum` to
    // `maximum`. Absent: `fallback` (its size is the caller's), or refused when `fallback` is
    // nullopt. `layers` must be at most kMaxLayers (the caller checked block_count first).
    std::vector<std::int64_t> perLayer(std::string_view name, std::int64_t layers, const std::optional<std::vector<std::int64_t>>& fallback,
                                       std::int64_t minimum = 0, std::int64_t maximum = kMaxCount);
    // get_key_or_arr of an f32 per layer: one finite f32 for every layer, or an array of exactly
    // `layers` of them. Absent: empty (the caller's default for every layer).
    std::vector<float> perLayerReals(std::string_view name, std::int64_t layers);
    // get_key_or_arr of `n` signed integers (rope.dimension_sections): one i32 for all of them, or
    // an array of exactly `n` u32 / i32 / bool values from `minimum` to `maximum`. Absent: empty,
    // or refused when `required`.
    std::vector<std::int64_t> integers(std::string_view name, std::size_t n, bool required, std::int64_t minimum, std::int64_t maximum);

    // A refusal the caller found (a value that does not fit another one), stated as
    // "<key> has type T (value); <why>". Kept only when it is the first.
    void refuse(std::string_view name, const std::string& why);
    // A refusal that is not about one stored key (a missing tensor, two keys together).
    void fail(const std::string& message);

    bool ok() const { return !m_error.has_value(); }
    const Error& error() const { return *m_error; }
    Status status() const;

    static constexpr std::int64_t kMaxLayers = 512;  // LLAMA_MAX_LAYERS

private:
    const MetadataEntry* find(std::string_view name) const;
    // The entry when present, after no refusal, and of `type`; refused (what: "a bool") when of another.
    const MetadataEntry* ofType(std::string_view name, ValueType type, const char* what);
    std::string key(std::string_view name) const { return m_prefix + std::string(name); }
    // "<key> has type T (value); <reader> needs <what>" at the key's offset.
    void refuseEntry(const MetadataEntry& entry, const std::string& needs);
    void missing(std::string_view name);
    // One element (or scalar) as a u32 per llama.cpp; nullopt after a refusal.
    std::optional<std::int64_t> element(const MetadataEntry& entry, const MetadataValue& value, std::int64_t minimum, std::int64_t maximum,
                                        const std::string& what);

    const Model& m_model;
    std::string m_prefix;
    std::string m_reader;
    std::optional<Error> m_error;
};

}  // namespace gguf
