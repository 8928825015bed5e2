#pragma once
// Reading a page of a file mapping whose bytes no longer exist (the file was truncated, or
// rewritten through truncation as `cp` does, while it was open) raises SIGBUS, which would kill
// the process. Every MappedFile registers its mapping here. A process-wide SIGBUS handler,
// installed once and chaining to whatever handler was there before, replaces the vanished page
// with a page of zeros and lets the read go on; the fault is recorded for the mapping and for
// the faulting thread. Code that reads mapped bytes checks afterwards and turns a fault into an
// Error: no read of a mapped file can crash the process, wherever it happens (tensor kernels,
// metadata views, exporters, the GUI), and the places that report errors notice it.
//
// Why zeros and not siglongjmp out of the handler: a jump would skip C++ frames between the
// guarded call and the faulting instruction, which is undefined behaviour as soon as any of them
// owns an object with a destructor, and would only protect the call sites that set a jump
// buffer. A zero page keeps every reader memory-safe (parsed lengths and offsets were validated
// against the original file and zeros only shrink what is read) and needs no cooperation.

#include "core/base/Result.h"
#include "core/gguf/TensorInfo.h"

#include <cstdint>

namespace gguf {

// Registers a read-only file mapping; installs the handler on first use. Returns a slot for the
// calls below, or -1 only when memory for the table runs out or more than 4,194,304 mappings are
// registered at once (MappedFile then refuses to open the file rather than map it unguarded).
int registerMappedRegion(const void* begin, std::uint64_t size);
void unregisterMappedRegion(int slot);
// True once a vanished page of the region was replaced by zeros.
bool mappedRegionFaulted(int slot);
// The lowest address of the mapping containing `address` that was replaced by zeros, or 0 when
// none was (or the address is in no registered mapping). A file only loses a suffix (it is
// truncated), so every byte from there on is suspect.
std::uintptr_t lowestLostAddress(std::uintptr_t address);

// Wrap every read of mapped bytes [begin, begin + size) in one, and report an error when
// bytesLost(): some of those bytes vanished, either during the read (a fault on this thread) or
// before it (a page replaced earlier reads as zeros without faulting again).
class MappedReadWatch {
public:
    MappedReadWatch(const void* begin, std::uint64_t size);
    bool bytesLost() const;
    // The first vanished address known inside the range (valid when bytesLost()).
    std::uintptr_t lostAddress() const;

private:
    std::uintptr_t m_begin;
    std::uintptr_t m_end;
    std::uint64_t m_startCount;
};

// "tensor 'x': the file changed on disk while the tensor was being read ..." with the file
// offset of the vanished byte when it falls inside the tensor.
Error tensorChangedOnDisk(const TensorInfo& tensor, std::uintptr_t faultAddress);

}  // namespace gguf
