#include "Commands.h"
#include "ModelOpening.h"
#include "core/base/HumanFormat.h"
#include "core/remote/Download.h"
#include "core/remote/RemoteUrl.h"

#include <cstdio>

int runDownload(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "download");
    if (!args.error.empty() || args.positionals.size() != 1 || !args.value("-o"))
        return reportFailure(args.error.empty() ? commandUsage("download") : args.error, 2);
    if (!gguf::remote::isRemoteName(args.positionals[0]))
        return reportFailure("download needs an http(s) URL or hf://OWNER/REPO/FILE.gguf[@REV]", 2);
    gguf::remote::DownloadOptions options;
    const bool quiet = args.has("--quiet");
    std::uint64_t lastShown = 0;
    options.progress = [&](const std::string& name, std::uint64_t done, std::uint64_t total) {
        // About every 64 MiB and at the end: a log of a 400 GB download stays readable.
        if (quiet || (done < total && done - lastShown < (64u << 20)))
            return;
        lastShown = done == total ? 0 : done;
        std::fprintf(stderr, "%s: %s of %s (%.1f%%)\n", shown(name).c_str(), gguf::formatBytes(done).c_str(),
                     gguf::formatBytes(total).c_str(), total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0);
    };
    const auto files = gguf::remote::downloadModel(args.positionals[0], *args.value("-o"), options);
    if (!files)
        return reportFailure(files.error().toString());
    for (const auto& file : files.value()) {
        std::printf("%s  %s bytes  sha256 %s  %s%s\n", shown(file.path).c_str(), gguf::formatGrouped(file.bytes).c_str(), file.sha256.c_str(),
                    file.expectedSha256.empty() ? "(the server gives no SHA-256 to check)" : "verified",
                    file.resumedFrom ? (" (resumed at byte " + std::to_string(file.resumedFrom) + ")").c_str() : "");
    }
    return 0;
}
