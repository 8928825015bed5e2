#include "core/gguf/GgufParser.h"

#include "core/gguf/CompanionScales.h"

#include "core/base/EscapedText.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <numeric>

static_assert(std::endian::native == std::endian::little, "the core assumes a little-endian host");

namespace gguf {

namespace {
constexpr std::uint64_t kMaxKeyLength = 65535;   // the GGUF spec's limit for keys
constexpr std::uint64_t kMaxTensorNameLength = 64;  // the GGUF spec's limit for tensor names
constexpr std::uint32_t kMaxDims = 4;
// The densest ggml type stores about 7 elements per byte (Q1_0, TQ1_0); 64 leaves room for
// denser types to come while still tying a tensor's declared extent to the file's size.
constexpr std::uint64_t kMaxElementsPerFileByte = 64;
// ...but a small file may always declare this many: loops of 16M steps take milliseconds, and a
// limit that depended on the size alone would refuse a valid file re-written more compactly
// (the writers' fuzz round trip found exactly that: a 355-byte file whose copy was smaller).
constexpr std::uint64_t kMinByteLessExtent = std::uint64_t{1} << 24;
constexpr int kMaxArrayDepth = kMaxArrayNesting;

// Names in messages are escaped: an error line must not carry a terminal escape from the file.
std::string quoted(std::string_view text)
{
    // Appended, not "'" + std::string: GCC 12 reports a false -Wrestrict for that at -O2.
    std::string result(1, '\'');
    result += escapeForDisplay(text);
    result += '\'';
    return result;
}

// ggml reads names and keys as C strings: everything from the first NUL on is invisible to it.
std::string_view asCString(std::string_view name)
{
    return name.substr(0, name.find('\0'));
}

// The message for two names that ggml would read as the same, naming both and where they differ.
std::string duplicateName(const char* what, std::string_view first, std::string_view second)
{
    if (first == second)
        return std::string("duplicate ") + what + " " + quoted(second);
    return std::string("duplicate ") + what + ": " + quoted(second) + " and " + quoted(first)
         + " are the same to ggml, which reads them up to the first NUL byte as " + quoted(asCString(second));
}
}  // namespace

GgufParser::GgufParser(GgufFile& file)
    : m_file(file), m_headerCopy(*file.m_file), m_cursor(file.m_file->data(), file.m_file->size(), m_headerCopy)
{
}

Error GgufParser::fail(std::string message, std::uint64_t offset) const
{
    return Error{std::move(message), offset, m_file.path()};
}

Error GgufParser::truncated(const std::string& what, std::uint64_t offset) const
{
    return fail("file ends inside " + what + " (file size " + std::to_string(m_file.fileSize()) + " bytes)", offset);
}

bool GgufParser::readLength(std::uint64_t& out)
{
    if (m_file.m_encoding.narrowLengths) {
        std::uint32_t narrow = 0;
        if (!m_cursor.read(narrow))
            return false;
        out = narrow;
        return true;
    }
    return m_cursor.read(out);
}

Status GgufParser::run()
{
    Status parsed = parse();
    // A read that failed under the cursor looks like the end of the file to the parser: say what it was.
    if (!parsed && !m_file.m_file->copyFailure().empty())
        return fail(m_file.m_file->copyFailure(), Error::kNoOffset);
    // A summary open read its unkept arrays from the file's pages: if the file changed under
    // that walk, say so rather than what the changed bytes looked like.
    if (!parsed && m_file.m_retention == HeaderRetention::Summary)
        if (Status unchanged = m_file.m_file->checkUnchanged(); !unchanged)
            return fail("the file changed while it was being opened; open it again (" + unchanged.error().message + ")", Error::kNoOffset);
    if (!parsed)
        return parsed;
    // Metadata and tensor infos are views into the private copy: they stay as validated even
    // if the file changes on disk later (see MappedFile).
    return m_file.m_file->finishPrefixCopy(m_file.m_dataOffset);
}

Status GgufParser::parse()
{
    std::uint64_t tensorCount = 0;
    std::uint64_t metadataCount = 0;
    if (Status s = readHeader(tensorCount, metadataCount); !s)
        return s;
    if (Status s = readMetadata(metadataCount); !s)
        return s;
    if (Status s = applyAlignment(); !s)
        return s;
    if (Status s = readTensorInfos(tensorCount); !s)
        return s;
    if (Status s = placeTensors(); !s)
        return s;
    linkOutputScales(m_file.m_tensors, [this](std::string_view name) { return m_file.findTensor(name); });
    return Ok{};
}

Status GgufParser::readHeader(std::uint64_t& tensorCount, std::uint64_t& metadataCount)
{
    const std::uint8_t* magic = nullptr;
    if (!m_cursor.readBytes(4, magic))
        return truncated("the magic", 0);
    m_file.m_magic.assign(reinterpret_cast<const char*>(magic), 4);
    const bool isGguf = m_file.m_magic == "GGUF";
    if (!isGguf && m_file.m_magic != "FUGG") {
        std::string shown;
        for (int i = 0; i < 4; ++i)
            shown += (magic[i] >= 0x20 && magic[i] < 0x7f) ? static_cast<char>(magic[i]) : '?';
        return fail("not a GGUF file: magic is '" + shown + "', expected 'GGUF'", 0);
    }

    std::uint32_t version = 0;
    if (!m_cursor.read(version))
        return truncated("the version", 4);
    // 'FUGG' announces a big-endian file; with 'GGUF' the byte order shows in the version field.
    bool bigEndian = !isGguf;
    if (isGguf && (version == 0 || version > 0xFFFF) && ByteCursor::byteSwap(version) >= 1 && ByteCursor::byteSwap(version) <= 3)
        bigEndian = true;
    if (bigEndian)
        version = ByteCursor::byteSwap(version);
    if (!isGguf && (version < 1 || version > 3) && ByteCursor::byteSwap(version) >= 1 && ByteCursor::byteSwap(version) <= 3)
        return fail("magic 'FUGG' announces a big-endian file, but the version field is little-endian (it reads "
                    + std::to_string(ByteCursor::byteSwap(version)) + " that way, " + std::to_string(version)
                    + " big-endian): the magic and the byte order disagree", 0);
    if (version < 1 || version > 3)
        return fail("unsupported GGUF version " + std::to_string(version) + " (this reader supports versions 1 to 3)", 4);
    m_file.m_version = version;
    m_file.m_encoding.bigEndian = bigEndian;
    m_file.m_encoding.narrowLengths = version == 1;
    m_cursor.setBigEndian(bigEndian);

    const std::uint64_t tensorCountOffset = m_cursor.position();
    if (!readLength(tensorCount))
        return truncated("the tensor count", tensorCountOffset);
    const std::uint64_t metadataCountOffset = m_cursor.position();
    if (!readLength(metadataCount))
        return truncated("the metadata key count", metadataCountOffset);

    // Each record has a minimum encoded size, so the bytes left bound both counts before any
    // allocation sized by them.
    const std::uint64_t lengthSize = version == 1 ? 4 : 8;
    const std::uint64_t minMetadataBytes = lengthSize + 1 + 4 + 1;
    const std::uint64_t minTensorInfoBytes = lengthSize + 4 + 4 + 8;
    if (metadataCount > m_cursor.remaining() / minMetadataBytes)
        return fail("metadata key count " + std::to_string(metadataCount) + " cannot fit in the "
                    + std::to_string(m_cursor.remaining()) + " bytes left in the file", metadataCountOffset);
    if (tensorCount > m_cursor.remaining() / minTensorInfoBytes)
        return fail("tensor count " + std::to_string(tensorCount) + " cannot fit in the "
                    + std::to_string(m_cursor.remaining()) + " bytes left in the file", tensorCountOffset);
    return Ok{};
}

// Where a value sits, for error messages: "the value of key "x"[3][7]". Built only when an
// error is reported; walking a 256k-entry token array must not format 256k names.
struct ValuePath {
    const ValuePath* parent = nullptr;
    std::string_view root;  // for the outermost value
    std::uint64_t index = 0;

    std::string describe() const
    {
        return parent ? parent->describe() + "[" + std::to_string(index) + "]" : std::string(root);
    }
};

Status GgufParser::readMetadata(std::uint64_t count)
{
    m_file.m_metadata.reserve(static_cast<std::size_t>(count));
    std::map<std::string_view, std::size_t> keysAsCStrings;  // duplicates as ggml sees them
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t keyOffset = m_cursor.position();
        const std::string entryName = "metadata entry " + std::to_string(i);
        std::uint64_t keyLength = 0;
        if (!readLength(keyLength))
            return truncated("the key length of " + entryName, keyOffset);
        if (keyLength == 0)
            return fail(entryName + " has an empty key", keyOffset);
        if (keyLength > kMaxKeyLength || keyLength > m_cursor.remaining())
            return fail(entryName + " has a key length of " + std::to_string(keyLength) + " bytes, more than "
                        + (keyLength > m_cursor.remaining() ? "the " + std::to_string(m_cursor.remaining()) + " bytes left in the file"
                                                             : std::string("the GGUF limit of 65535")), keyOffset);
        std::string_view key;
        m_cursor.readString(keyLength, key);

        const std::uint64_t typeOffset = m_cursor.position();
        std::uint32_t rawType = 0;
        if (!m_cursor.read(rawType))
            return truncated("the value type of key " + quoted(key), typeOffset);
        if (!isValidValueType(rawType))
            return fail("key " + quoted(key) + " has invalid value type " + std::to_string(rawType), typeOffset);
        const auto type = static_cast<ValueType>(rawType);
        const std::uint64_t valueOffset = m_cursor.position();
        const std::string valueName = "the value of key " + quoted(key);
        bool elided = false;
        if (m_file.m_retention == HeaderRetention::Summary && type == ValueType::Array) {
            if (Status s = skipArrayUnkept(valueOffset, ValuePath{nullptr, valueName, 0}, elided); !s)
                return s;
        }
        if (!elided) {
            if (Status s = skipValue(type, valueOffset, ValuePath{nullptr, valueName, 0}, 0); !s)
                return s;
        }

        if (const auto [it, added] = keysAsCStrings.emplace(asCString(key), m_file.m_metadata.size()); !added)
            return fail(duplicateName("metadata key", m_file.m_metadata[it->second].key, key) + " (entries "
                        + std::to_string(it->second) + " and " + std::to_string(i) + ")", keyOffset);
        m_file.m_metadataByKey.emplace(key, m_file.m_metadata.size());
        m_file.m_metadata.push_back(MetadataEntry{key, keyOffset, MetadataValue(&m_file.m_encoding, type, valueOffset)});
        if (elided)
            m_file.m_metadata.back().value.elide(m_cursor.position() - valueOffset);
    }
    return Ok{};
}

Status GgufParser::skipValue(ValueType type, std::uint64_t valueOffset, const ValuePath& path, int depth)
{
    if (const std::uint32_t size = fixedValueSize(type)) {
        if (!m_cursor.skip(size))
            return truncated(path.describe(), valueOffset);
        return Ok{};
    }
    if (type == ValueType::String) {
        std::uint64_t length = 0;
        if (!readLength(length))
            return truncated(path.describe(), valueOffset);
        if (length > m_cursor.remaining())
            return fail(path.describe() + " is a string of " + std::to_string(length) + " bytes but only "
                        + std::to_string(m_cursor.remaining()) + " bytes are left in the file", valueOffset);
        m_cursor.skip(length);
        return Ok{};
    }

    // An array: element type, length, elements.
    if (depth >= kMaxArrayDepth)
        return fail(path.describe() + " nests arrays more than " + std::to_string(kMaxArrayDepth) + " levels deep", valueOffset);
    ValueType elementType = ValueType::U8;
    std::uint64_t length = 0;
    if (Status s = readArrayHeader(valueOffset, path, elementType, length); !s)
        return s;
    if (const std::uint32_t size = fixedValueSize(elementType)) {
        m_cursor.skip(length * size);
        return Ok{};
    }
    if (elementType == ValueType::String) {
        // The hot loop of opening a model: vocabularies and merges are arrays of 100k+ strings.
        // Lengths are checked here; only a failing element goes through skipValue for its message.
        for (std::uint64_t i = 0; i < length; ++i) {
            const std::uint64_t elementOffset = m_cursor.position();
            std::uint64_t stringLength = 0;
            if (!readLength(stringLength) || !m_cursor.skip(stringLength)) {
                m_cursor.seek(elementOffset);
                return skipValue(elementType, elementOffset, ValuePath{&path, {}, i}, depth + 1);
            }
        }
        return Ok{};
    }
    for (std::uint64_t i = 0; i < length; ++i) {
        const std::uint64_t elementOffset = m_cursor.position();
        if (Status s = skipValue(elementType, elementOffset, ValuePath{&path, {}, i}, depth + 1); !s)
            return s;
    }
    return Ok{};
}

// An array's element type and length, checked: the type is valid and `length` elements of
// their least size fit in the bytes left.
Status GgufParser::readArrayHeader(std::uint64_t valueOffset, const ValuePath& path, ValueType& elementType, std::uint64_t& length)
{
    const std::uint64_t lengthSize = m_file.m_encoding.narrowLengths ? 4 : 8;
    std::uint32_t rawElementType = 0;
    if (!m_cursor.read(rawElementType))
        return truncated(path.describe(), valueOffset);
    if (!isValidValueType(rawElementType))
        return fail(path.describe() + " is an array with invalid element type " + std::to_string(rawElementType), valueOffset);
    elementType = static_cast<ValueType>(rawElementType);
    const std::uint64_t lengthOffset = m_cursor.position();
    if (!readLength(length))
        return truncated(path.describe(), lengthOffset);
    const std::uint64_t minElementSize = fixedValueSize(elementType) ? fixedValueSize(elementType)
                                       : elementType == ValueType::String ? lengthSize : 4 + lengthSize;
    if (length > m_cursor.remaining() / minElementSize)
        return fail(path.describe() + " is an array of " + std::to_string(length) + " " + valueTypeName(elementType)
                    + " elements, which cannot fit in the " + std::to_string(m_cursor.remaining()) + " bytes left in the file",
                    lengthOffset);
    return Ok{};
}

// A summary open's top-level array (HeaderRetention::Summary). One of 64 KiB or more of fixed-size
// elements or strings is checked exactly as skipValue checks it, with the same messages, but its
// elements are never copied into private memory: fixed-size ones are only bounded, and the
// string lengths are read once through the file's own pages, which are unmapped again as the walk
// goes (a 6 MB merges array adds nothing to the peak memory). Nothing keeps a view of them, so a
// rewrite of those bytes later cannot matter. Any other array is left to skipValue (`elided`
// false, the cursor back at `valueOffset`).
Status GgufParser::skipArrayUnkept(std::uint64_t valueOffset, const ValuePath& path, bool& elided)
{
    constexpr std::uint64_t kMinUnkeptBytes = 64 << 10;
    constexpr std::uint64_t kReleaseStep = 512 << 10;
    constexpr std::uint64_t kPrefetchAhead = 2048;
    elided = false;
    ValueType elementType = ValueType::U8;
    std::uint64_t length = 0;
    if (Status s = readArrayHeader(valueOffset, path, elementType, length); !s)
        return s;
    const bool narrow = m_file.m_encoding.narrowLengths;
    const std::uint64_t lengthSize = narrow ? 4 : 8;
    const std::uint32_t fixedSize = fixedValueSize(elementType);
    const std::uint64_t leastSize = fixedSize ? fixedSize : lengthSize;
    // length * leastSize fits in the file (readArrayHeader), so it does not overflow.
    if ((!fixedSize && elementType != ValueType::String) || length * leastSize < kMinUnkeptBytes) {
        m_cursor.seek(valueOffset);
        return Ok{};
    }
    elided = true;
    if (fixedSize) {
        m_cursor.skipUnread(length * fixedSize);
        return Ok{};
    }
    const std::uint8_t* data = m_cursor.data();
    const std::uint64_t size = m_cursor.size();
    const bool bigEndian = m_file.m_encoding.bigEndian;
    const std::uint64_t start = m_cursor.position();
    std::uint64_t position = start;
    std::uint64_t released = start;
    for (std::uint64_t i = 0; i < length; ++i) {
        const std::uint64_t elementOffset = position;
        if (lengthSize > size - position)
            return truncated(ValuePath{&path, {}, i}.describe(), elementOffset);
        // Each length is found through the one before, a chain of loads: ask for the bytes a
        // few hundred strings on early, so the chain finds them in cache (a hint, never a fault).
        __builtin_prefetch(data + std::min(position + kPrefetchAhead, size - 1));
        const std::uint64_t stringLength = narrow ? ByteCursor::decode<std::uint32_t>(data + position, bigEndian)
                                                  : ByteCursor::decode<std::uint64_t>(data + position, bigEndian);
        position += lengthSize;
        if (stringLength > size - position)
            return fail(ValuePath{&path, {}, i}.describe() + " is a string of " + std::to_string(stringLength) + " bytes but only "
                        + std::to_string(size - position) + " bytes are left in the file", elementOffset);
        position += stringLength;
        if (position - released >= kReleaseStep) {
            m_file.m_file->releaseUncopied(released, position);
            released = position;
        }
    }
    m_file.m_file->releaseUncopied(released, position);
    m_cursor.skipUnread(position - start);
    return Ok{};
}

Status GgufParser::applyAlignment()
{
    const MetadataEntry* entry = m_file.findMetadata("general.alignment");
    if (!entry)
        return Ok{};
    const std::uint64_t valueOffset = entry->value.offset();
    if (entry->value.type() != ValueType::U32)
        return fail(std::string("key 'general.alignment' must be of type u32 but is ") + valueTypeName(entry->value.type()), valueOffset);
    const std::uint64_t alignment = *entry->value.toUInt();
    if (!std::has_single_bit(alignment))
        return fail("key 'general.alignment' is " + std::to_string(alignment) + ", not a power of two", valueOffset);
    m_file.m_alignment = alignment;
    return Ok{};
}

Status GgufParser::readTensorInfos(std::uint64_t count)
{
    auto& tensors = m_file.m_tensors;
    tensors.resize(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i) {
        if (Status s = readTensorInfo(i, tensors[static_cast<std::size_t>(i)]); !s) {
            // A duplicate among the tensors before this one was found before reading it.
            if (Status earlier = checkDuplicateTensorNames(static_cast<std::size_t>(i)); !earlier)
                return earlier;
            return s;
        }
    }
    if (Status s = checkDuplicateTensorNames(tensors.size()); !s)
        return s;
    const std::uint64_t end = m_cursor.position();
    if (count == 0) {
        m_file.m_dataOffset = end;
        return Ok{};
    }
    const std::uint64_t alignment = m_file.m_alignment;
    m_file.m_dataOffset = end + (alignment - end % alignment) % alignment;
    if (m_file.m_dataOffset > m_file.fileSize())
        return fail("the tensor data section would start at byte " + std::to_string(m_file.m_dataOffset)
                    + ", past the end of the file (" + std::to_string(m_file.fileSize()) + " bytes)", end);
    return Ok{};
}

// Builds the by-name index of the first `count` tensors and refuses two names that ggml would
// read as the same (it stops at the first NUL). The duplicate reported is the one a reader going
// through the file meets first: the pair whose later tensor comes earliest, with the first
// tensor of that name. One sorted index instead of a tree node per tensor: same O(log n) lookups
// whatever the names, one allocation.
Status GgufParser::checkDuplicateTensorNames(std::size_t count)
{
    const auto& tensors = m_file.m_tensors;
    auto& byName = m_file.m_tensorsByName;
    byName.resize(count);
    std::iota(byName.begin(), byName.end(), std::size_t{0});
    const auto sortAndFind = [&](auto key) {
        // Stable: equal names stay in file order, so each run starts with its first tensor.
        std::stable_sort(byName.begin(), byName.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
        std::pair<std::size_t, std::size_t> found{0, count};  // (first, later); later == count: none
        for (std::size_t k = 1; k < count; ++k) {
            if (key(byName[k]) != key(byName[k - 1]) || byName[k] >= found.second)
                continue;
            std::size_t first = k - 1;
            while (first > 0 && key(byName[first - 1]) == key(byName[k]))
                --first;
            found = {byName[first], byName[k]};
        }
        return found;
    };
    bool anyNul = false;
    for (std::size_t i = 0; i < count && !anyNul; ++i)
        anyNul = tensors[i].name.find('\0') != std::string_view::npos;
    std::pair<std::size_t, std::size_t> duplicate{0, count};
    if (anyNul)
        duplicate = sortAndFind([&](std::size_t i) { return asCString(tensors[i].name); });
    // The index itself is by full name (ending with the check when no name holds a NUL).
    const auto byFullName = sortAndFind([&](std::size_t i) { return tensors[i].name; });
    if (!anyNul)
        duplicate = byFullName;
    if (duplicate.second == count)
        return Ok{};
    const TensorInfo& first = tensors[duplicate.first];
    const TensorInfo& later = tensors[duplicate.second];
    return fail(duplicateName("tensor name", first.name, later.name) + " (tensors " + std::to_string(duplicate.first) + " and "
                + std::to_string(duplicate.second) + ")", later.infoOffset);
}

Status GgufParser::readTensorInfo(std::uint64_t index, TensorInfo& tensor)
{
    tensor.infoOffset = m_cursor.position();
    // Messages are built only when one is reported: a 3000-tensor header must not format 3000.
    const auto label = [index] { return "tensor " + std::to_string(index); };
    std::uint64_t nameLength = 0;
    if (!readLength(nameLength))
        return truncated("the name length of " + label(), tensor.infoOffset);
    if (nameLength == 0)
        return fail(label() + " has an empty name", tensor.infoOffset);
    if (nameLength > m_cursor.remaining())
        return fail(label() + " has a name of " + std::to_string(nameLength) + " bytes but only "
                    + std::to_string(m_cursor.remaining()) + " bytes are left in the file", tensor.infoOffset);
    if (nameLength > kMaxTensorNameLength)
        return fail(label() + " has a name of " + std::to_string(nameLength) + " bytes; GGUF allows at most 64", tensor.infoOffset);
    m_cursor.readString(nameLength, tensor.name);
    const auto what = [&tensor] { return "tensor " + quoted(tensor.name); };

    const std::uint64_t dimsOffset = m_cursor.position();
    if (!m_cursor.read(tensor.nDims))
        return truncated("the dimension count of " + what(), dimsOffset);
    if (tensor.nDims > kMaxDims)
        return fail(what() + " has " + std::to_string(tensor.nDims) + " dimensions; at most 4 are allowed", dimsOffset);
    for (std::uint32_t d = 0; d < tensor.nDims; ++d) {
        const std::uint64_t dimOffset = m_cursor.position();
        std::uint64_t dim = 0;
        if (!readLength(dim))
            return truncated("dimension " + std::to_string(d) + " of " + what(), dimOffset);
        if (dim > static_cast<std::uint64_t>(INT64_MAX))
            return fail(what() + " dimension " + std::to_string(d) + " is " + std::to_string(static_cast<std::int64_t>(dim))
                        + " (must not be negative)", dimOffset);
        tensor.ne[d] = static_cast<std::int64_t>(dim);
    }
    std::uint64_t elements = 1;
    for (const std::int64_t dim : tensor.ne) {
        if (__builtin_mul_overflow(elements, static_cast<std::uint64_t>(dim), &elements) || elements > static_cast<std::uint64_t>(INT64_MAX))
            return fail(what() + " has shape [" + std::to_string(tensor.ne[0]) + ", " + std::to_string(tensor.ne[1]) + ", "
                        + std::to_string(tensor.ne[2]) + ", " + std::to_string(tensor.ne[3]) + "]: its element count overflows 63 bits",
                        dimsOffset);
    }

    const std::uint64_t typeOffset = m_cursor.position();
    if (!m_cursor.read(tensor.typeId))
        return truncated("the type of " + what(), typeOffset);
    tensor.traits = findType(tensor.typeId);
    // Rows, experts and cells are counted from dims. For a non-empty tensor of a known type the
    // file must hold its bytes (placeTensors), which bounds every dim; an empty tensor
    // ([4096, 0, 2^40]) or one of an unknown type needs no bytes, so cap its extent (zeros
    // counted as ones) by what a file this size could hold: no loop over its rows or experts
    // can then outgrow the file.
    std::uint64_t extent = 1;
    bool extentOverflows = false;
    for (const std::int64_t dim : tensor.ne)
        extentOverflows |= __builtin_mul_overflow(extent, std::max<std::uint64_t>(static_cast<std::uint64_t>(dim), 1), &extent);
    if ((!tensor.traits || elements == 0) && (extentOverflows || (extent > kMinByteLessExtent && extent / kMaxElementsPerFileByte > m_file.fileSize())))
        return fail(what() + " has shape [" + std::to_string(tensor.ne[0]) + ", " + std::to_string(tensor.ne[1]) + ", "
                    + std::to_string(tensor.ne[2]) + ", " + std::to_string(tensor.ne[3]) + "]: an empty tensor or one of an unknown type "
                    "may not declare more than " + std::to_string(kMaxElementsPerFileByte) + " elements per byte of the file (nor more than "
                    + std::to_string(kMinByteLessExtent) + " in a smaller file)", dimsOffset);
    const std::uint64_t offsetOffset = m_cursor.position();
    if (!m_cursor.read(tensor.offset))
        return truncated("the data offset of " + what(), offsetOffset);
    if (tensor.offset % m_file.m_alignment != 0)
        return fail(what() + " has data offset " + std::to_string(tensor.offset) + ", not a multiple of the alignment "
                    + std::to_string(m_file.m_alignment), offsetOffset);
    tensor.bigEndian = m_file.m_encoding.bigEndian;
    return computeSize(tensor);
}

Status GgufParser::computeSize(TensorInfo& tensor)
{
    if (!tensor.traits)
        return Ok{};  // bounded later by its neighbours
    const auto what = [&tensor] { return "tensor " + quoted(tensor.name); };
    const std::uint64_t typeOffset = tensor.infoOffset + (m_file.m_encoding.narrowLengths ? 4 : 8) + tensor.name.size() + 4
                                   + tensor.nDims * (m_file.m_encoding.narrowLengths ? 4 : 8);
    const std::uint32_t blockSize = tensor.traits->blockSize;
    if (tensor.ne[0] % blockSize != 0)
        return fail(what() + " of type " + tensor.traits->name + " has " + std::to_string(tensor.ne[0])
                    + " elements per row, not a multiple of the block size " + std::to_string(blockSize), typeOffset);
    std::uint64_t bytes = static_cast<std::uint64_t>(tensor.ne[0]) / blockSize;
    bool overflow = __builtin_mul_overflow(bytes, tensor.traits->blockBytes, &bytes);
    overflow = overflow || __builtin_mul_overflow(bytes, tensor.rowCount(), &bytes);
    if (overflow)
        return fail(what() + " byte size overflows 64 bits", typeOffset);
    tensor.nbytes = bytes;
    return Ok{};
}

Status GgufParser::placeTensors()
{
    auto& tensors = m_file.m_tensors;
    const std::uint64_t dataSize = m_file.fileSize() - m_file.m_dataOffset;
    std::vector<std::size_t> order(tensors.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return tensors[a].offset != tensors[b].offset ? tensors[a].offset < tensors[b].offset : tensors[a].nbytes < tensors[b].nbytes;
    });

    const TensorInfo* previous = nullptr;
    for (std::size_t k = 0; k < order.size(); ++k) {
        TensorInfo& tensor = tensors[order[k]];
        const auto what = [&tensor] { return "tensor " + quoted(tensor.name); };
        if (tensor.offset > dataSize)
            return fail(what() + " starts at data offset " + std::to_string(tensor.offset) + ", past the end of the file ("
                        + std::to_string(dataSize) + " bytes of tensor data)", tensor.infoOffset);
        if (!tensor.traits) {
            // Unknown type: its size cannot be computed, so it may use the room up to the next tensor.
            const std::uint64_t next = k + 1 < order.size() ? tensors[order[k + 1]].offset : dataSize;
            tensor.nbytes = std::min(next, dataSize) - tensor.offset;
        }
        if (tensor.nbytes > dataSize - tensor.offset)
            return fail(what() + " needs " + std::to_string(tensor.nbytes) + " bytes at data offset " + std::to_string(tensor.offset)
                        + " but the file holds only " + std::to_string(dataSize - tensor.offset) + " bytes from there",
                        tensor.infoOffset);
        if (previous && previous->offset + previous->nbytes > tensor.offset)
            return fail(what() + " at data offset " + std::to_string(tensor.offset) + " overlaps tensor " + quoted(previous->name)
                        + " (data offsets " + std::to_string(previous->offset) + " to " + std::to_string(previous->offset + previous->nbytes) + ")",
                        tensor.infoOffset);
        tensor.fileOffset = m_file.m_dataOffset + tensor.offset;
        tensor.data = m_file.m_file->data() + tensor.fileOffset;
        previous = &tensor;
    }
    return Ok{};
}

}  // namespace gguf
