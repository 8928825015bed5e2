#include "core/base/UserPattern.h"

#include <re2/re2.h>

namespace gguf {

namespace {

// Memory RE2 may give one pattern's program and match cache; a pattern needing more is refused
// ("pattern too large") instead of growing. 8 MiB is RE2's default.
constexpr std::int64_t kMaxProgramMemory = 8 << 20;

// The pattern as an error message quotes it: a shared rules file can hold a pattern of 256 KiB.
std::string quoted(std::string_view pattern)
{
    constexpr std::size_t kShown = 80;
    if (pattern.size() <= kShown)
        return "'" + std::string(pattern) + "'";
    return "'" + std::string(pattern.substr(0, kShown)) + "...' (" + std::to_string(pattern.size()) + " bytes)";
}

}  // namespace

Result<UserPattern> UserPattern::compile(std::string_view pattern)
{
    if (pattern.size() > kMaxLength)
        return Error{"pattern " + quoted(pattern) + " is longer than " + std::to_string(kMaxLength / 1024) + " KiB",
                     Error::kNoOffset, {}};
    RE2::Options options;
    options.set_log_errors(false);                         // the error goes into the result, not to stderr
    options.set_encoding(RE2::Options::EncodingLatin1);    // bytes, as std::regex on char matched them
    options.set_max_mem(kMaxProgramMemory);
    auto compiled = std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
    if (!compiled->ok())
        return Error{"pattern " + quoted(pattern) + " is not a valid regular expression: " + compiled->error()
                         + (compiled->error_code() == RE2::ErrorBadPerlOp || compiled->error_code() == RE2::ErrorBadEscape
                                ? " (lookarounds and back-references are not supported)"
                                : ""),
                     Error::kNoOffset, {}};
    UserPattern result;
    result.m_text.assign(pattern);
    result.m_compiled = std::move(compiled);
    return result;
}

bool UserPattern::foundIn(std::string_view text) const
{
    return m_compiled && RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *m_compiled);
}

}  // namespace gguf
