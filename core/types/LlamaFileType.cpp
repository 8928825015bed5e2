#include "core/types/LlamaFileType.h"

#include <array>
#include <utility>

namespace gguf {
namespace {

// llama.h's llama_ftype, in value order. 4 to 6 and 33 to 35 were removed from llama.cpp but
// may still be found in older files.
constexpr std::array<std::pair<std::uint64_t, std::string_view>, 39> kFileTypeNames{{
    {0, "ALL_F32"},         {1, "MOSTLY_F16"},        {2, "MOSTLY_Q4_0"},      {3, "MOSTLY_Q4_1"},
    {4, "MOSTLY_Q4_1_SOME_F16"}, {5, "MOSTLY_Q4_2"},  {6, "MOSTLY_Q4_3"},      {7, "MOSTLY_Q8_0"},
    {8, "MOSTLY_Q5_0"},     {9, "MOSTLY_Q5_1"},       {10, "MOSTLY_Q2_K"},     {11, "MOSTLY_Q3_K_S"},
    {12, "MOSTLY_Q3_K_M"},  {13, "MOSTLY_Q3_K_L"},    {14, "MOSTLY_Q4_K_S"},   {15, "MOSTLY_Q4_K_M"},
    {16, "MOSTLY_Q5_K_S"},  {17, "MOSTLY_Q5_K_M"},    {18, "MOSTLY_Q6_K"},     {19, "MOSTLY_IQ2_XXS"},
    {20, "MOSTLY_IQ2_XS"},  {21, "MOSTLY_Q2_K_S"},    {22, "MOSTLY_IQ3_XS"},   {23, "MOSTLY_IQ3_XXS"},
    {24, "MOSTLY_IQ1_S"},   {25, "MOSTLY_IQ4_NL"},    {26, "MOSTLY_IQ3_S"},    {27, "MOSTLY_IQ3_M"},
    {28, "MOSTLY_IQ2_S"},   {29, "MOSTLY_IQ2_M"},     {30, "MOSTLY_IQ4_XS"},   {31, "MOSTLY_IQ1_M"},
    {32, "MOSTLY_BF16"},    {33, "MOSTLY_Q4_0_4_4"},  {34, "MOSTLY_Q4_0_4_8"}, {35, "MOSTLY_Q4_0_8_8"},
    {36, "MOSTLY_TQ1_0"},   {37, "MOSTLY_TQ2_0"},     {38, "MOSTLY_MXFP4_MOE"},
}};

constexpr bool valuesAreTheirIndex()
{
    for (std::size_t i = 0; i < kFileTypeNames.size(); ++i)
        if (kFileTypeNames[i].first != i)
            return false;
    return true;
}
static_assert(valuesAreTheirIndex(), "the table is looked up by index");

}  // namespace

std::string_view llamaFileTypeName(std::uint64_t fileType)
{
    return fileType < kFileTypeNames.size() ? kFileTypeNames[fileType].second : std::string_view{};
}

}  // namespace gguf
