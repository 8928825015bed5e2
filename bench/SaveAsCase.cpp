#include "SaveAsCase.h"

#include "Measure.h"
#include "core/edit/ModelSaver.h"
#include "core/gguf/Model.h"
#include "core/write/GgufWriter.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <random>
#include <unistd.h>
#include <vector>

namespace bench {

namespace {
constexpr std::uint64_t kRowLength = 4096;

double secondsOf(const std::function<bool()>& work, bool& ok)
{
    const auto start = std::chrono::steady_clock::now();
    ok = work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool plainCopy(const std::string& from, const std::string& to)
{
    const int in = ::open(from.c_str(), O_RDONLY);
    const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<char> buffer(std::size_t{1} << 20);
    bool ok = in >= 0 && out >= 0;
    for (ssize_t n; ok && (n = ::read(in, buffer.data(), buffer.size())) > 0;)
        ok = ::write(out, buffer.data(), static_cast<std::size_t>(n)) == n;
    ok = ok && ::fsync(out) == 0;  // Save As syncs before its rename: the same work here
    if (in >= 0)
        ::close(in);
    if (out >= 0)
        ::close(out);
    return ok;
}
}  // namespace

bool runSaveAsCase(const BenchOptions& options, std::uint64_t megabytes, Report& report)
{
    const std::string dir = options.workDir.empty() ? (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") : options.workDir;
    const std::string input = dir + "/ggufx-bench-saveas-in.gguf";
    const std::string output = dir + "/ggufx-bench-saveas-out.gguf";
    const std::string copy = dir + "/ggufx-bench-saveas-copy.gguf";

    // Four f16 tensors of random bytes: nothing a file system could compress or leave sparse.
    const std::uint64_t rows = megabytes * (std::uint64_t{1} << 20) / 4 / (kRowLength * 2);
    gguf::GgufWriter writer;
    writer.setValue("general.architecture", gguf::EncodedValue::string("llama"));
    for (int t = 0; t < 4; ++t) {
        const std::uint64_t bytes = rows * kRowLength * 2;
        const auto status = writer.addTensor({"blk." + std::to_string(t) + ".ffn_up.weight", 1, {std::int64_t(kRowLength), std::int64_t(rows)}},
                                             [bytes, t](gguf::ByteSink& sink) -> gguf::Status {
                                                 std::mt19937_64 random(static_cast<std::uint64_t>(t) + 1);
                                                 std::vector<std::uint64_t> chunk(std::size_t{1} << 17);
                                                 for (std::uint64_t done = 0; done < bytes;) {
                                                     for (auto& word : chunk)
                                                         word = random() & 0x3bff3bff3bff3bffull;  // finite f16 values
                                                     const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(bytes - done, chunk.size() * 8));
                                                     if (auto s = sink.write(chunk.data(), piece); !s)
                                                         return s;
                                                     done += piece;
                                                 }
                                                 return gguf::Ok{};
                                             });
        if (!status) {
            std::fprintf(stderr, "gguf-explorer-bench: %s\n", status.error().message.c_str());
            return false;
        }
    }
    if (auto s = writer.writeFile(input); !s) {
        std::fprintf(stderr, "gguf-explorer-bench: cannot write %s: %s\n", input.c_str(), s.error().toString().c_str());
        return false;
    }
    auto model = gguf::Model::open(input);
    if (!model) {
        std::fprintf(stderr, "gguf-explorer-bench: %s\n", model.error().toString().c_str());
        return false;
    }
    const std::uint64_t fileBytes = (*model)->summary().fileSize;
    gguf::MetadataEdits edits;
    edits.set("general.name", gguf::EncodedValue::string("saved by the bench"));

    const int runs = options.quick ? 1 : 3;
    const auto best = [&](const std::function<bool()>& work) {
        double fastest = 1e300;
        for (int r = 0; r < runs; ++r) {
            bool ok = false;
            const double seconds = secondsOf(work, ok);
            if (!ok)
                return -1.0;
            fastest = std::min(fastest, seconds);
        }
        return fastest;
    };
    const double plain = best([&] { return plainCopy(input, copy); });
    using Method = gguf::FileRangeCopy::Method;
    const auto saveWith = [&](Method method) {
        gguf::SaveOptions save;
        save.firstCopyMethod = method;
        return best([&] { return gguf::saveModelAs(**model, edits, output, save).ok(); });
    };
    const double kernel = saveWith(Method::CopyFileRange);
    const double readWrite = saveWith(Method::ReadWrite);
    ::unlink(input.c_str());
    ::unlink(output.c_str());
    ::unlink(copy.c_str());
    if (plain < 0 || kernel < 0 || readWrite < 0) {
        std::fprintf(stderr, "gguf-explorer-bench: the Save As case failed\n");
        return false;
    }
    const double gb = static_cast<double>(fileBytes) / 1e9;
    const auto row = [&](const char* name, double seconds, const char* note) {
        Row r;
        r.caseName = name;
        r.type = "f16";
        r.elements = fileBytes / 2;
        r.seconds = seconds;
        r.extra = {{"file_gb", gb}, {"gb_per_s", gb / seconds}, {"ratio_to_plain_copy", plain / seconds}};
        r.note = note;
        report.add(r);
    };
    row("plain_copy", plain, "read/write 1 MiB + fsync: the reference");
    row("save_as_kernel_copy", kernel, "copy_file_range (sendfile, read/write fallbacks)");
    row("save_as_read_write", readWrite, "read/write fallback forced");
    return true;
}

}  // namespace bench
