#include "core/remote/RemoteUrl.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

namespace gguf::remote {

namespace {
bool startsWith(const std::string& text, const char* prefix)
{
    return text.rfind(prefix, 0) == 0;
}

std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::string readTokenFile(const std::string& path)
{
    std::ifstream in(path);
    std::string token;
    std::getline(in, token);
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
        token.pop_back();
    return token;
}

// Characters a Hub path segment may hold here; anything else (spaces, quotes, control bytes)
// is refused rather than escaped, so what is fetched is what the user wrote.
bool plainPath(const std::string& text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/' || c == '%';
    });
}
}  // namespace

bool isRemoteName(const std::string& name)
{
    const std::string head = lower(name.substr(0, 8));
    return startsWith(head, "http://") || startsWith(head, "https://") || startsWith(head, "hf://");
}

std::string hubEndpoint()
{
    const char* endpoint = std::getenv("HF_ENDPOINT");
    std::string text = endpoint && *endpoint ? endpoint : "https://huggingface.co";
    while (!text.empty() && text.back() == '/')
        text.pop_back();
    return text;
}

Result<std::string> resolveUrl(const std::string& name)
{
    if (!startsWith(lower(name.substr(0, 5)), "hf://"))
        return name;
    std::string rest = name.substr(5);
    std::string revision = "main";
    if (const auto at = rest.rfind('@'); at != std::string::npos) {
        revision = rest.substr(at + 1);
        rest = rest.substr(0, at);
    }
    // owner/repo/path/inside/repo.gguf
    const auto firstSlash = rest.find('/');
    const auto secondSlash = firstSlash == std::string::npos ? std::string::npos : rest.find('/', firstSlash + 1);
    if (secondSlash == std::string::npos || secondSlash + 1 >= rest.size() || firstSlash == 0 || secondSlash == firstSlash + 1)
        return Error{"a Hugging Face name is hf://OWNER/REPO/FILE.gguf[@REVISION]", Error::kNoOffset, name};
    if (!plainPath(rest) || !plainPath(revision) || revision.find('/') != std::string::npos)
        return Error{"the Hugging Face name holds characters other than letters, digits and - _ . /", Error::kNoOffset, name};
    return hubEndpoint() + "/" + rest.substr(0, secondSlash) + "/resolve/" + revision + "/" + rest.substr(secondSlash + 1);
}

std::string originOf(const std::string& url)
{
    const auto scheme = url.find("://");
    if (scheme == std::string::npos)
        return {};
    const auto end = url.find_first_of("/?#", scheme + 3);
    return lower(url.substr(0, end));
}

std::string tokenForUrl(const std::string& url)
{
    if (originOf(url) != originOf(hubEndpoint()))
        return {};
    if (const char* token = std::getenv("HF_TOKEN"); token && *token)
        return token;
    if (const char* path = std::getenv("HF_TOKEN_PATH"); path && *path)
        return readTokenFile(path);
    if (const char* home = std::getenv("HF_HOME"); home && *home)
        return readTokenFile(std::string(home) + "/token");
    if (const char* home = std::getenv("HOME"); home && *home)
        return readTokenFile(std::string(home) + "/.cache/huggingface/token");
    return {};
}

std::string fileNameOf(const std::string& url)
{
    std::string path = url.substr(0, url.find_first_of("?#"));
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace gguf::remote
