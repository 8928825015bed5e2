#pragma once
// The permissions a new file would get from open(..., 0666): temp-and-rename writers create
// their temp file 0600 (mkstemp), so they set this mode before renaming it into place.

namespace gguf {

// 0666 less the process umask. The umask is read from /proc/self/status, because umask(2)
// can only be read by changing it, which would race with other threads creating files.
// Falls back to 0644 (umask 022) where /proc says nothing.
unsigned newFileMode();

}  // namespace gguf
