#pragma once
// Numbers for people: "3.75 MiB", "7.24B", "1,234,567".

#include <cstdint>
#include <string>

namespace gguf {

std::string formatBytes(std::uint64_t bytes);          // binary units: B, KiB, MiB, GiB, TiB
std::string formatCount(std::uint64_t count);          // 7.24B, 13.5M, 512K, 999
std::string formatGrouped(std::uint64_t number);       // 1,234,567
// `value` with `decimals` digits after the point, rounded as printf's "%.*f" rounds in the C
// locale (the exact binary value, a tie to even: 6.5625 reads 6.562), whatever the process
// locale: the GUI and the command line print the same figure.
std::string formatFixed(double value, int decimals);

}  // namespace gguf
