#include "ui/session/CalibrationTokens.h"

#include "core/tokenize/Tokenizer.h"

#include <filesystem>
#include <fstream>

namespace {
constexpr std::uint64_t kMaxTextBytes = std::uint64_t{256} << 20;
}

gguf::Result<std::vector<std::int32_t>> calibrationTokens(const gguf::Model& model, const std::string& textFile)
{
    std::error_code failed;
    const auto size = std::filesystem::file_size(textFile, failed);
    if (failed)
        return gguf::Error{"cannot read the text file: " + failed.message(), gguf::Error::kNoOffset, textFile};
    if (size > kMaxTextBytes)
        return gguf::Error{"the text file is larger than " + std::to_string(kMaxTextBytes >> 20) + " MiB", gguf::Error::kNoOffset, textFile};
    std::ifstream file(textFile, std::ios::binary);
    std::string text(size, '\0');
    if (!file.read(text.data(), std::streamsize(size)))
        return gguf::Error{"cannot read the text file", gguf::Error::kNoOffset, textFile};
    auto tokenizer = gguf::Tokenizer::fromModel(model);
    if (!tokenizer)
        return tokenizer.error();
    return tokenizer.value().encode(text, true, true);
}
