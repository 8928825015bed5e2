#include "core/forward/LlamaKldBase.h"

#include "core/base/FileKind.h"
#include "core/base/InputFiles.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace gguf {

Result<LlamaKldBase> readLlamaKldBase(const std::string& path)
{
    const auto fail = [&](const std::string& message, std::uint64_t offset) { return Error{message, offset, path}; };
    // Opened without blocking and checked to be a regular file first: a FIFO without a writer
    // must not hang the command, and a device has no size to check the counts against.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail("cannot open: " + std::string(std::strerror(errno)), Error::kNoOffset);
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        return fail(std::string("not a regular file (") + nonRegularFileKind(info.st_mode, "unknown") + ")", Error::kNoOffset);
    }
    noteInputFile(fd, path);  // no output of this run may replace it
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(::fdopen(fd, "rb"), &std::fclose);
    if (!file) {
        ::close(fd);
        return fail("cannot open: " + std::string(std::strerror(errno)), Error::kNoOffset);
    }
    char header[20];
    if (std::fread(header, 1, sizeof header, file.get()) != sizeof header)
        return fail("too short for a llama-perplexity logits header (20 bytes)", 0);
    if (std::memcmp(header, "_logits_", 8) != 0)
        return fail("not a llama-perplexity logits file (no \"_logits_\" magic)", 0);
    std::uint32_t context = 0;
    std::int32_t vocabulary = 0, chunks = 0;
    std::memcpy(&context, header + 8, 4);
    std::memcpy(&vocabulary, header + 12, 4);
    std::memcpy(&chunks, header + 16, 4);
    if (context < 2 || context > (1u << 20))
        return fail("n_ctx " + std::to_string(context) + " is out of range", 8);
    if (vocabulary <= 0)
        return fail("n_vocab " + std::to_string(vocabulary) + " is not positive", 12);
    if (chunks <= 0 || chunks > (1 << 20))
        return fail("n_chunk " + std::to_string(chunks) + " is out of range", 16);
    const std::uint64_t count = std::uint64_t{context} * static_cast<std::uint64_t>(chunks);
    // The tokens must be in the file before anything is sized by them.
    if (std::fseek(file.get(), 0, SEEK_END) != 0)
        return fail("cannot seek (not a regular file?)", Error::kNoOffset);
    const long size = std::ftell(file.get());
    if (size < 0 || static_cast<std::uint64_t>(size) < 20 + count * 4)
        return fail("holds fewer than the " + std::to_string(count) + " tokens its header announces", 20);
    std::fseek(file.get(), 20, SEEK_SET);
    LlamaKldBase base;
    base.contextSize = context;
    base.vocabularySize = vocabulary;
    base.chunkCount = chunks;
    base.tokens.resize(count);
    if (std::fread(base.tokens.data(), 4, count, file.get()) != count)
        return fail("cannot read the tokens", 20);
    return base;
}

}  // namespace gguf
