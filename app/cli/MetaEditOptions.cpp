#include "MetaEditOptions.h"

#include "core/base/InputFiles.h"
#include "core/edit/ValueText.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace {
// A value file is a chat template or a token list, not a model: more is surely the wrong file.
constexpr std::size_t kMaxValueFileBytes = std::size_t{256} << 20;

gguf::Error optionError(const std::string& message)
{
    return gguf::Error{message, gguf::Error::kNoOffset, {}};
}

// Reads the whole file (a FIFO or /dev/stdin too), up to kMaxValueFileBytes.
gguf::Result<std::string> readValueFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return gguf::Error{std::string("cannot open the value file: ") + std::strerror(errno), gguf::Error::kNoOffset, path};
    gguf::noteInputFile(fd, path);  // no output of this run may replace it
    std::string text;
    char buffer[65536];
    for (;;) {
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            const int error = errno;
            ::close(fd);
            return gguf::Error{std::string("cannot read the value file: ") + std::strerror(error), gguf::Error::kNoOffset, path};
        }
        if (got == 0)
            break;
        if (text.size() + static_cast<std::size_t>(got) > kMaxValueFileBytes) {
            ::close(fd);
            return gguf::Error{"the value file is larger than " + std::to_string(kMaxValueFileBytes >> 20) + " MiB", gguf::Error::kNoOffset, path};
        }
        text.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(fd);
    return text;
}

// "KEY=VALUE" split at the first '='.
bool splitAssignment(const std::string& argument, std::string& key, std::string& value)
{
    const auto equals = argument.find('=');
    if (equals == std::string::npos || equals == 0)
        return false;
    key = argument.substr(0, equals);
    value = argument.substr(equals + 1);
    return true;
}
}  // namespace

MetaEditOptions MetaEditOptions::extract(const std::vector<std::string>& words)
{
    MetaEditOptions options;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        const bool takesValue = word == "--set" || word == "--delete" || word == "--set-file" || word == "-o";
        if (!takesValue) {
            options.otherWords.push_back(word);
            continue;
        }
        if (i + 1 >= words.size()) {
            options.error = "option " + word + " needs a value";
            return options;
        }
        const std::string& value = words[++i];
        if (word == "-o") {
            if (options.hasOutput) {
                options.error = "option -o given twice";
                return options;
            }
            options.output = value == "-" ? "/dev/stdout" : value;
            options.hasOutput = true;
        } else {
            const auto kind = word == "--set" ? MetaEditRequest::Kind::Set
                            : word == "--delete" ? MetaEditRequest::Kind::Delete
                                                 : MetaEditRequest::Kind::SetFile;
            options.requests.push_back({kind, value});
        }
    }
    return options;
}

gguf::Result<gguf::MetadataEdits> buildEdits(const gguf::Model& model, const std::vector<MetaEditRequest>& requests)
{
    gguf::MetadataEdits edits;
    for (const MetaEditRequest& request : requests) {
        if (request.kind == MetaEditRequest::Kind::Delete) {
            edits.remove(request.argument);
            continue;
        }
        std::string key;
        std::string text;
        const char* option = request.kind == MetaEditRequest::Kind::Set ? "--set" : "--set-file";
        if (!splitAssignment(request.argument, key, text))
            return optionError(std::string(option) + " needs KEY=" + (request.kind == MetaEditRequest::Kind::Set ? "VALUE[:TYPE]" : "PATH")
                               + ", not '" + request.argument + "'");
        const gguf::MetadataEntry* existing = model.findMetadata(key);
        std::string typeName;
        if (request.kind == MetaEditRequest::Kind::SetFile) {
            auto contents = readValueFile(text);
            if (!contents)
                return contents.error();
            text = std::move(contents.value());
            typeName = "str";
            if (existing && existing->value.type() != gguf::ValueType::String)
                return optionError("--set-file " + key + ": the key holds a " + existing->value.typeName()
                                   + ", and a file's contents are a str; delete the key first to change its type");
        } else {
            // A trailing ":TYPE" names the type when it is one; otherwise the ':' is part of the value.
            const auto colon = text.rfind(':');
            if (colon != std::string::npos && gguf::ValueTypeName::parse(std::string_view(text).substr(colon + 1))) {
                typeName = text.substr(colon + 1);
                text.resize(colon);
            } else if (existing) {
                typeName = existing->value.typeName();
            } else {
                return optionError("--set " + key + ": the model has no such key, so say its type: --set " + key + "=VALUE:TYPE");
            }
        }
        auto value = gguf::parseValueText(text, typeName);
        if (!value)
            return optionError(std::string(option) + " " + key + ": " + value.error().message);
        edits.set(key, std::move(value.value()));
    }
    if (gguf::Status s = edits.validateFor(model); !s)
        return s.error();
    return edits;
}
