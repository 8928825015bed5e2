#pragma once
// Every open file and every shard of a split model keeps one descriptor (MappedFile re-checks
// the file through it). The usual soft limit of 1,024 descriptors is below the shard count of
// real split models (one of 1,148 shards exists), while the hard limit is usually far higher.

namespace gguf {

// Raises this process's soft limit on open descriptors to its hard limit (what `ulimit -n
// unlimited` would try). Harmless when it is already there or cannot be raised.
void raiseOpenFileLimit();

}  // namespace gguf
