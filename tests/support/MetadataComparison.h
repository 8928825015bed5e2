#pragma once
// Compares a parsed file's metadata with its manifest: every key in file order, its type name and
// its value exactly (64-bit integers from the manifest's number text, strings byte for byte, long
// arrays by length, first elements and the SHA-256 of their little-endian payload).

#include "core/gguf/GgufFile.h"
#include "Manifest.h"

#include <QByteArray>
#include <QStringList>

namespace testsupport {

// One line per mismatch; empty when everything matches.
QStringList compareMetadata(const gguf::GgufFile& file, const Manifest& manifest);

// An array's payload as a little-endian file stores it (each element little-endian; a string as
// u64 length then its bytes; a nested array as u32 element type, u64 length, elements), whatever
// the byte order of the file it came from. This is what the manifests' long-array sha256 covers.
QByteArray littleEndianArrayPayload(const gguf::MetadataValue& array, bool bigEndian);

}  // namespace testsupport
