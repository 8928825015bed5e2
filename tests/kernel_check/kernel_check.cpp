// kernel_check: standalone verification of the dequantization kernels, block swaps and the type
// table against the ggml-written fixtures. Not part of the CMake build; build by hand, e.g.
//
//   g++ -std=c++20 -O2 -ffp-contract=off -Wall -Wextra -I core -I tests/kernel_check
//       tests/kernel_check/kernel_check.cpp core/GgmlType.cpp core/kernels/*.cpp -o /tmp/kernel_check
//   (one line; tests/kernel_check/build.sh does exactly this)
//   /tmp/kernel_check ../shared/fixtures
//
// Exit status 0 only if every comparison is bit-exact.

#include "GgmlType.h"
#include "kernels/HalfFloat.h"
#include "MiniJson.h"
#include "Sha256.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using gguf::TypeTraits;

namespace {

int g_failures = 0;
int g_checks = 0;

void report(bool ok, const std::string& what, const std::string& detail = {})
{
    ++g_checks;
    if (!ok) {
        ++g_failures;
    }
    std::printf("%s  %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(), detail.empty() ? "" : "  ", detail.c_str());
}

std::vector<std::uint8_t> readFile(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot open " + path.string());
    }
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

minijson::Value readManifest(const fs::path& path)
{
    const std::vector<std::uint8_t> bytes = readFile(path);
    return minijson::parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::uint64_t elementCount(const minijson::Value& tensor)
{
    std::uint64_t n = 1;
    for (const minijson::Value& dim : tensor.at("ne").items) {
        n *= dim.asU64();
    }
    return n;
}

struct TensorBytes {
    const TypeTraits* traits = nullptr;
    const std::uint8_t* data = nullptr;
    std::uint64_t elements = 0;
    std::uint64_t blocks = 0;
    std::string error;
};

// Locates a manifest tensor inside its file and checks its size against the type table.
TensorBytes locate(const minijson::Value& manifest, const minijson::Value& tensor, const std::vector<std::uint8_t>& file)
{
    TensorBytes t;
    const auto typeId = static_cast<std::uint32_t>(tensor.at("type_id").asU64());
    t.traits = gguf::findType(typeId);
    if (!t.traits) {
        t.error = "no traits for " + gguf::typeName(typeId);
        return t;
    }
    if (tensor.at("type").str() != t.traits->name) {
        t.error = "name mismatch: manifest " + tensor.at("type").str() + ", table " + t.traits->name;
        return t;
    }
    t.elements = elementCount(tensor);
    if (t.elements % t.traits->blockSize != 0) {
        t.error = "element count not a multiple of the block size";
        return t;
    }
    t.blocks = t.elements / t.traits->blockSize;
    const std::uint64_t nbytes = tensor.at("nbytes").asU64();
    if (t.blocks * t.traits->blockBytes != nbytes) {
        t.error = "nbytes " + std::to_string(nbytes) + " != blocks * blockBytes " + std::to_string(t.blocks * t.traits->blockBytes);
        return t;
    }
    const std::uint64_t offset = manifest.at("data_offset").asU64() + tensor.at("offset").asU64();
    if (offset + nbytes > file.size()) {
        t.error = "tensor runs past the end of the file";
        return t;
    }
    t.data = file.data() + offset;
    return t;
}

std::vector<float> dequantize(const TensorBytes& t)
{
    std::vector<float> out(t.elements);
    t.traits->dequantize(t.data, out.data(), t.blocks);
    return out;
}

std::uint32_t bitsOf(float f)
{
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// Bitwise comparison with an expected little-endian f32 file; "" when identical.
std::string compareWithExpected(const std::vector<float>& got, const std::vector<std::uint8_t>& expected)
{
    if (expected.size() != got.size() * 4) {
        return "expected file has " + std::to_string(expected.size() / 4) + " floats, got " + std::to_string(got.size());
    }
    if (std::memcmp(got.data(), expected.data(), expected.size()) == 0) {
        return {};
    }
    std::size_t differing = 0;
    std::size_t first = got.size();
    for (std::size_t i = 0; i < got.size(); ++i) {
        std::uint32_t want;
        std::memcpy(&want, expected.data() + 4 * i, 4);
        if (bitsOf(got[i]) != want) {
            first = std::min(first, i);
            ++differing;
        }
    }
    std::uint32_t want;
    std::memcpy(&want, expected.data() + 4 * first, 4);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%zu differing; first at index %zu: got 0x%08" PRIx32 " want 0x%08" PRIx32, differing, first,
                  bitsOf(got[first]), want);
    return buf;
}

std::string sha256Of(const std::vector<float>& values)
{
    return sha256::hexDigest(values.data(), values.size() * sizeof(float));
}

// ---- all-types.gguf: every type against its expected .f32 file --------------------------------
void checkAllTypes(const fs::path& dir)
{
    std::printf("\n== all-types.gguf (bitwise against all-types.<name>.f32) ==\n");
    const minijson::Value manifest = readManifest(dir / "all-types.gguf.json");
    const std::vector<std::uint8_t> file = readFile(dir / "all-types.gguf");
    for (const minijson::Value& tensor : manifest.at("tensors").items) {
        const std::string name = tensor.at("name").str();
        const TensorBytes t = locate(manifest, tensor, file);
        if (!t.error.empty()) {
            report(false, name, t.error);
            continue;
        }
        const std::vector<float> got = dequantize(t);
        std::string detail = compareWithExpected(got, readFile(dir / ("all-types." + name + ".f32")));
        if (detail.empty() && sha256Of(got) != tensor.at("sha256_f32").str()) {
            detail = "sha256 mismatch";
        }
        report(detail.empty(), name + " (" + t.traits->name + ")", detail);
    }
}

// ---- q8-internal-types.gguf: q8_1 and q8_K against the manifest hashes -------------------------
void checkHashes(const fs::path& dir, const std::string& fileName, bool verbose)
{
    const minijson::Value manifest = readManifest(dir / (fileName + ".json"));
    if (manifest.at("byte_order").str() != "little") {
        return;
    }
    const std::vector<std::uint8_t> file = readFile(dir / fileName);
    int passed = 0;
    int total = 0;
    for (const minijson::Value& tensor : manifest.at("tensors").items) {
        const minijson::Value* hash = tensor.find("sha256_f32");
        if (!hash || hash->kind != minijson::Value::Kind::String) {
            continue;
        }
        const std::string name = fileName + ":" + tensor.at("name").str();
        const TensorBytes t = locate(manifest, tensor, file);
        ++total;
        if (!t.error.empty()) {
            report(false, name, t.error);
            continue;
        }
        const bool ok = sha256Of(dequantize(t)) == hash->str();
        passed += ok;
        if (verbose || !ok) {
            report(ok, name + " (" + t.traits->name + ")", ok ? "" : "sha256 mismatch");
        }
    }
    if (!verbose && total > 0) {
        report(passed == total, fileName, std::to_string(passed) + "/" + std::to_string(total) + " tensors hash-exact");
    }
}

// ---- f16-bf16-all-bits.gguf: all 65,536 patterns of each ------------------------------------
void checkAllBits(const fs::path& dir)
{
    std::printf("\n== f16-bf16-all-bits.gguf (bitwise) ==\n");
    const minijson::Value manifest = readManifest(dir / "f16-bf16-all-bits.gguf.json");
    const std::vector<std::uint8_t> file = readFile(dir / "f16-bf16-all-bits.gguf");
    for (const minijson::Value& tensor : manifest.at("tensors").items) {
        const std::string name = tensor.at("name").str();
        const TensorBytes t = locate(manifest, tensor, file);
        if (!t.error.empty()) {
            report(false, name, t.error);
            continue;
        }
        const std::vector<float> got = dequantize(t);
        const std::string detail = compareWithExpected(got, readFile(dir / ("f16-bf16-all-bits." + name + ".f32")));
        report(detail.empty(), name, detail);
    }
}

// ---- be.gguf: swapping every block must give be-twin-le.gguf's bytes ------------------------
void checkBigEndian(const fs::path& dir)
{
    std::printf("\n== be.gguf block swap (bytewise against be-twin-le.gguf) ==\n");
    const minijson::Value beManifest = readManifest(dir / "be.gguf.json");
    const minijson::Value leManifest = readManifest(dir / "be-twin-le.gguf.json");
    const std::vector<std::uint8_t> beFile = readFile(dir / "be.gguf");
    const std::vector<std::uint8_t> leFile = readFile(dir / "be-twin-le.gguf");
    const auto& beTensors = beManifest.at("tensors").items;
    const auto& leTensors = leManifest.at("tensors").items;
    if (beTensors.size() != leTensors.size()) {
        report(false, "be.gguf", "tensor count differs from the twin");
        return;
    }
    for (std::size_t i = 0; i < beTensors.size(); ++i) {
        const std::string name = beTensors[i].at("name").str();
        const TensorBytes be = locate(beManifest, beTensors[i], beFile);
        const TensorBytes le = locate(leManifest, leTensors[i], leFile);
        if (!be.error.empty() || !le.error.empty()) {
            report(false, name, be.error + le.error);
            continue;
        }
        std::vector<std::uint8_t> swapped(be.data, be.data + be.blocks * be.traits->blockBytes);
        if (be.traits->swapBlock) {
            for (std::uint64_t b = 0; b < be.blocks; ++b) {
                be.traits->swapBlock(swapped.data() + b * be.traits->blockBytes);
            }
        }
        std::string detail;
        if (std::memcmp(swapped.data(), le.data, swapped.size()) != 0) {
            const auto mismatch = std::mismatch(swapped.begin(), swapped.end(), le.data);
            detail = "first differing byte " + std::to_string(mismatch.first - swapped.begin());
        } else {
            std::vector<float> values(be.elements);
            be.traits->dequantize(swapped.data(), values.data(), be.blocks);
            if (sha256Of(values) != beTensors[i].at("sha256_f32").str()) {
                detail = "bytes match but sha256_f32 does not";
            }
        }
        report(detail.empty(), name + " (" + be.traits->name + (be.traits->swapBlock ? "" : ", no swap fn") + ")", detail);
    }
}

// ---- the type table API ----------------------------------------------------------------------
void checkTypeTable()
{
    std::printf("\n== type table ==\n");
    const std::uint32_t retired[] = {4, 5, 31, 32, 33, 36, 37, 38};
    bool ok = true;
    for (std::uint32_t id : retired) {
        ok = ok && gguf::findType(id) == nullptr && gguf::isRetiredTypeId(id)
          && gguf::typeName(id) == "retired type " + std::to_string(id);
    }
    report(ok, "retired ids have no traits and are named 'retired type N'");
    report(gguf::findType(43) == nullptr && !gguf::isRetiredTypeId(43) && gguf::typeName(250) == "unknown type 250"
               && gguf::findType(0xFFFFFFFFu) == nullptr,
           "unknown ids");
    std::size_t count = 0;
    bool consistent = true;
    for (const TypeTraits* t = gguf::typeTableBegin(); t != gguf::typeTableEnd(); ++t, ++count) {
        consistent = consistent && gguf::findType(t->id) == t && gguf::findTypeByName(t->name) == t
                  && gguf::typeName(t->id) == t->name;
    }
    report(consistent && count == 35, "35 types, findType/findTypeByName/typeName agree", std::to_string(count) + " rows");
    const TypeTraits* q4k = gguf::findTypeByName("Q4_k");
    report(q4k && q4k->id == 12 && q4k->blockSize == 256 && q4k->blockBytes == 144 && q4k->bitsPerWeight() == 4.5,
           "findTypeByName is case-insensitive; q4_K = 256 elements / 144 bytes");
    report(gguf::findTypeByName("q4_") == nullptr && gguf::findTypeByName("") == nullptr, "no prefix matches");
}

// ---- scale decoders on values the fixtures do not reach --------------------------------------
void checkScaleEdgeCases()
{
    std::printf("\n== scale decoders (edge values, expected from ggml-impl.h's definitions) ==\n");
    // e8m0 / 2: e = 0 and 1 are subnormal (2^-128, 2^-127), e = 2 is 2^-126, 127 is 0.5, 254 is 2^126.
    report(bitsOf(gguf::e8m0ToF32Half(0)) == 0x00200000u && bitsOf(gguf::e8m0ToF32Half(1)) == 0x00400000u
               && bitsOf(gguf::e8m0ToF32Half(2)) == 0x00800000u && gguf::e8m0ToF32Half(127) == 0.5f
               && bitsOf(gguf::e8m0ToF32Half(254)) == 0x7E800000u && bitsOf(gguf::e8m0ToF32Half(255)) == 0x7F000000u,
           "e8m0ToF32Half");
    // ue4m3 / 2: 0x00 and 0x7F are 0; 0x01 = 2^-9 / 2; 0x08 = 2^-6 / 2; 0x38 = 1 / 2; 0x7E = 448 / 2;
    // bit 7 is ignored, so 0x80 | x == x except 0xFF (exp 15, man 7 = 480) which is not NaN here.
    report(gguf::ue4m3ToF32Half(0x00) == 0.0f && gguf::ue4m3ToF32Half(0x7F) == 0.0f
               && gguf::ue4m3ToF32Half(0x01) == 0x1p-10f && gguf::ue4m3ToF32Half(0x08) == 0x1p-7f
               && gguf::ue4m3ToF32Half(0x38) == 0.5f && gguf::ue4m3ToF32Half(0x7E) == 224.0f
               && gguf::ue4m3ToF32Half(0xB8) == 0.5f && gguf::ue4m3ToF32Half(0xFF) == 240.0f
               && gguf::ue4m3ToF32Half(0x80) == 0.0f,
           "ue4m3ToF32Half");
    report(bitsOf(gguf::f16ToF32(0x7C01)) == 0x7FC02000u && bitsOf(gguf::f16ToF32(0xFC00)) == 0xFF800000u
               && bitsOf(gguf::f16ToF32(0x0001)) == 0x33800000u && bitsOf(gguf::f16ToF32(0x8000)) == 0x80000000u,
           "f16ToF32 (sNaN quieted, -inf, smallest subnormal, -0)");
}

}  // namespace

int main(int argc, char** argv)
{
    const fs::path dir = argc > 1 ? fs::path(argv[1]) : fs::path("../shared/fixtures");
    try {
        checkTypeTable();
        checkScaleEdgeCases();
        checkAllTypes(dir);
        std::printf("\n== q8-internal-types.gguf (sha256_f32) ==\n");
        checkHashes(dir, "q8-internal-types.gguf", true);
        checkAllBits(dir);
        checkBigEndian(dir);

        std::printf("\n== every other little-endian fixture with sha256_f32 ==\n");
        std::vector<std::string> manifests;
        for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
            const std::string file = entry.path().filename().string();
            if (file.size() > 10 && file.ends_with(".gguf.json") && file != "all-types.gguf.json"
                && file != "q8-internal-types.gguf.json") {
                manifests.push_back(file.substr(0, file.size() - 5));
            }
        }
        std::sort(manifests.begin(), manifests.end());
        for (const std::string& file : manifests) {
            checkHashes(dir, file, false);
        }
    } catch (const std::exception& e) {
        std::printf("ERROR  %s\n", e.what());
        return 2;
    }
    std::printf("\n%d checks, %d failed\n", g_checks, g_failures);
    return g_failures == 0 ? 0 : 1;
}
