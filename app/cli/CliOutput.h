#pragma once
// What main() does around every command for its outputs: before, every input the command reads
// is noted (base/InputFiles.h), so no output can be one of them, and a wait for a FIFO's reader
// is announced on stderr; after, standard output is flushed and checked, so a full disk or
// /dev/full fails the command with one line instead of a cut-short output and exit 0.

// For writers that see a write to standard output fail: the reason, for the message at the end.
void rememberStandardOutputError(int error);

// Call once, before the command runs.
void prepareCliOutputs();

// `status` when standard output took every byte; otherwise 1, after saying why on stderr (a
// command that already failed keeps its own status and message).
int standardOutputChecked(int status);
