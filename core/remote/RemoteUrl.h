#pragma once
// Names of models that are not on this disk: http(s) URLs, and `hf://owner/repo/file.gguf[@rev]`
// for a file on the Hugging Face Hub (`https://huggingface.co/owner/repo/resolve/rev/file.gguf`,
// the host from HF_ENDPOINT when it is set, as the Hub's own tools do).

#include "core/base/Result.h"

#include <string>

namespace gguf::remote {

bool isRemoteName(const std::string& name);  // http://, https:// or hf://
// The URL to fetch for `name`; hf:// names become resolve URLs, other URLs stay as they are.
Result<std::string> resolveUrl(const std::string& name);
std::string hubEndpoint();  // HF_ENDPOINT without a trailing slash, else https://huggingface.co
// The Hub token for requests to `url`: HF_TOKEN, else the file the Hub's tools write
// ($HF_TOKEN_PATH, $HF_HOME/token, ~/.cache/huggingface/token). Only for URLs on the Hub's host,
// so a token never goes to another server. Never printed or logged.
std::string tokenForUrl(const std::string& url);
// The last path component without query or fragment: the file name a download gets.
std::string fileNameOf(const std::string& url);
// scheme://host[:port] of a URL, lowercase; empty when it has none.
std::string originOf(const std::string& url);

}  // namespace gguf::remote
