#pragma once
// Commits several AtomicFileSinks as one (the shards of a split model): all or nothing.

#include "core/base/Result.h"
#include "core/write/ByteSink.h"

#include <span>

namespace gguf {

// Every file flushed and named beside its target first; then every target renamed into place,
// the old files kept under hidden backup names (`.NAME.old-XXXXXX`) until the last rename has
// succeeded. A failed rename puts the old set back (and removes new files that had no old
// one), so the targets hold either the whole new set or the whole old one. SIGINT, SIGTERM
// and SIGHUP wait while the renames run; only SIGKILL or a crash can stop them halfway, and
// then the backups are still there to restore, and the mixed set is refused when opened (the
// shards of one save share kSplitSaveIdKey).
Status commitTogether(std::span<AtomicFileSink* const> sinks);

}  // namespace gguf
