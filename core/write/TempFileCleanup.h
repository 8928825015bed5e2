#pragma once
// Names of temporary files that must not outlive the process: an interrupt (SIGINT, SIGTERM,
// SIGHUP) removes them before the process ends as the signal says. Most temp files have no name
// at all (O_TMPFILE, so even SIGKILL leaves nothing); a name is registered only where the
// filesystem has no unnamed files, and for the moment between naming a finished file and
// renaming it over its target. The handlers are installed only for signals still at their
// default action, so a program (or a shell's `trap ''`) that chose its own keeps it.

#include <string>

namespace gguf {

// Returns a slot for forgetTempFile(), or -1 when every slot is taken (then the name is simply
// not cleaned on a signal; the number of slots is far above the files one save writes).
int rememberTempFile(const std::string& path);
void forgetTempFile(int slot);

// While held, an interrupt that our handlers catch waits (on whichever thread it arrives) and
// ends the process when released: a set of renames (AtomicFileSet.h) is not stopped halfway.
class HeldInterrupts {
public:
    HeldInterrupts();
    ~HeldInterrupts();
    HeldInterrupts(const HeldInterrupts&) = delete;
    HeldInterrupts& operator=(const HeldInterrupts&) = delete;
};

}  // namespace gguf
