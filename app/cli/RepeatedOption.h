#pragma once
// Options that may be given several times (llama-quantize's --tensor-type): taken out of the
// words before CliArguments, which keeps one value per option, sees them.

#include <string>
#include <vector>

// Removes every "OPTION VALUE" pair from `words` and returns the values in order; sets `error`
// when the option is last and has no value.
inline std::vector<std::string> takeRepeatedOption(std::vector<std::string>& words, const std::string& option, std::string& error)
{
    std::vector<std::string> values;
    std::vector<std::string> rest;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i] != option) {
            rest.push_back(words[i]);
            continue;
        }
        if (i + 1 >= words.size()) {
            error = "option " + option + " needs a value";
            break;
        }
        values.push_back(words[++i]);
    }
    words = std::move(rest);
    return values;
}
