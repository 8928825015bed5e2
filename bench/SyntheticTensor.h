#pragma once
// Tensors of every type filled with plausible data: random quant bits and random scales in the
// range real models use, so no kernel meets the NaN, infinite or subnormal scales that random
// bytes would contain (subnormal arithmetic can be many times slower and no real model has it).

#include "core/gguf/TensorInfo.h"

#include <cstdint>
#include <memory>
#include <string>

namespace bench {

// A 2-D tensor [rowLength, rows] of `type` whose blocks live in memory owned by this object.
class SyntheticTensor {
public:
    SyntheticTensor(const gguf::TypeTraits& type, std::uint64_t rowLength, std::uint64_t rows, std::uint64_t seed);
    SyntheticTensor(const SyntheticTensor&) = delete;
    SyntheticTensor& operator=(const SyntheticTensor&) = delete;

    const gguf::TensorInfo& info() const { return m_info; }
    std::uint64_t bytes() const { return m_info.nbytes; }

private:
    std::string m_name;
    std::unique_ptr<std::uint8_t[]> m_data;
    gguf::TensorInfo m_info;
};

// Fills `bytes` with fast pseudo-random bits (xorshift64*), deterministic for a seed.
void fillRandom(std::uint8_t* bytes, std::uint64_t count, std::uint64_t seed);

}  // namespace bench
