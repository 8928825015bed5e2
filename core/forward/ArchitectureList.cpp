#include "core/forward/BlockDescription.h"

#include <algorithm>

namespace gguf {

namespace {
std::vector<const BlockDescription*> allDescriptions()
{
    return {&llamaBlockDescription(), &qwen2BlockDescription(), &qwen3BlockDescription(), &qwen3MoeBlockDescription(),
            &phi3BlockDescription(),  &qwen35BlockDescription(), &qwen35MoeBlockDescription(),
            &gptOssBlockDescription(), &deepseek2BlockDescription(), &gemma2BlockDescription(), &gemma3BlockDescription(),
            &glm4MoeBlockDescription(), &gemma4BlockDescription(), &seedOssBlockDescription(),
            &ernie45MoeBlockDescription(), &hyV3BlockDescription(),
            &minimaxM2BlockDescription(), &mistral3BlockDescription(),
            &llama4BlockDescription(), &lfm2BlockDescription(), &mimo2BlockDescription(),
            &step35BlockDescription(), &qwen3NextBlockDescription()};
}
}  // namespace

const BlockDescription* findBlockDescription(std::string_view architecture)
{
    for (const BlockDescription* description : allDescriptions())
        if (description->architecture == architecture)
            return description;
    return nullptr;
}

std::vector<std::string_view> supportedArchitectures()
{
    std::vector<std::string_view> names;
    for (const BlockDescription* description : allDescriptions())
        names.push_back(description->architecture);
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace gguf
