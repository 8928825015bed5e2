#pragma once
// The edit options of `meta` (--set KEY=VALUE[:TYPE], --delete KEY, --set-file KEY=PATH, -o OUT),
// which may repeat, taken out of the words before the usual option parsing.

#include "core/edit/MetadataEdits.h"
#include "core/gguf/Model.h"

#include <string>
#include <vector>

struct MetaEditRequest {
    enum class Kind { Set, Delete, SetFile };
    Kind kind = Kind::Set;
    std::string argument;  // as given
};

struct MetaEditOptions {
    std::vector<MetaEditRequest> requests;
    std::string output;  // -o; empty when absent
    bool hasOutput = false;
    std::vector<std::string> otherWords;  // everything else, for CliArguments
    std::string error;

    static MetaEditOptions extract(const std::vector<std::string>& words);
    bool editing() const { return !requests.empty() || hasOutput; }
};

// The edits the requests describe for `model`, or an error naming the request.
gguf::Result<gguf::MetadataEdits> buildEdits(const gguf::Model& model, const std::vector<MetaEditRequest>& requests);
