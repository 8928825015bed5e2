#include "core/gguf/MappedRegionGuard.h"

#include "core/base/EscapedText.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <unistd.h>

namespace gguf {

namespace {

// One slot per open file mapping. The handler scans the slots without locks, so slots hold
// atomics: `begin` is stored last on registration and cleared first on removal, and a zero
// `begin` means free. `lowestLost` is the lowest page replaced by zeros: a truncated file loses
// a suffix, so every read reaching that far is suspect, even of pages that no longer fault.
struct RegionSlot {
    std::atomic<std::uintptr_t> begin{0};
    std::atomic<std::uintptr_t> end{0};
    std::atomic<std::uintptr_t> lowestLost{0};  // 0: nothing lost yet
    std::atomic<bool> taken{false};
};

// Slots live in chunks that are allocated when first needed and never freed or moved, so the
// handler can read any slot below the high-water mark without a lock, whatever registration
// does meanwhile. A split model may have thousands of shards (one of 1,148 exists): 32,768
// chunks of 128 slots give 4,194,304 slots, more than the kernel's default limit of 65,530
// mappings per process, so the table is never what stops a model from opening. A chunk is one
// page: opening one file touches 4 KiB, not the 128 KiB a chunk of 4,096 slots took (a third of
// `info`'s own memory on a small file). The chunk pointers sit in zero pages until used.
constexpr std::size_t kSlotsPerChunk = 128;
constexpr std::size_t kMaxChunks = 32768;
std::array<std::atomic<RegionSlot*>, kMaxChunks> g_chunks{};
std::atomic<std::size_t> g_slotsInUse{0};  // high-water mark: scans stop there
std::mutex g_chunkMutex;                   // only registration allocates chunks

RegionSlot* slotAt(std::size_t index)
{
    RegionSlot* chunk = g_chunks[index / kSlotsPerChunk].load(std::memory_order_acquire);
    return chunk ? &chunk[index % kSlotsPerChunk] : nullptr;
}

// Slot `index`, its chunk allocated on first use (never from the signal handler).
RegionSlot* allocatedSlotAt(std::size_t index)
{
    std::atomic<RegionSlot*>& entry = g_chunks[index / kSlotsPerChunk];
    RegionSlot* chunk = entry.load(std::memory_order_acquire);
    if (!chunk) {
        const std::lock_guard lock(g_chunkMutex);
        chunk = entry.load(std::memory_order_acquire);
        if (!chunk) {
            chunk = new (std::nothrow) RegionSlot[kSlotsPerChunk];
            if (!chunk)
                return nullptr;
            entry.store(chunk, std::memory_order_release);
        }
    }
    return &chunk[index % kSlotsPerChunk];
}

std::uintptr_t g_pageSize = 4096;
struct sigaction g_previousAction {};
std::once_flag g_installOnce;

// Per thread: how many faults were absorbed and where the last one was. Initial-exec TLS of
// trivially initialised atomics: reading it in a signal handler allocates nothing.
struct ThreadFaults {
    std::atomic<std::uint64_t> count;
    std::atomic<std::uintptr_t> lastAddress;
};
__attribute__((tls_model("initial-exec"))) thread_local ThreadFaults t_faults{};

// Hands a signal that is not ours to whoever had SIGBUS before us. With no previous handler
// the default action is restored and the signal raised again: it is delivered when this
// handler returns and ends the process exactly as it would have ended without us.
void chainToPrevious(int signal, siginfo_t* info, void* context)
{
    if ((g_previousAction.sa_flags & SA_SIGINFO) && g_previousAction.sa_sigaction) {
        g_previousAction.sa_sigaction(signal, info, context);
        return;
    }
    if (!(g_previousAction.sa_flags & SA_SIGINFO) && g_previousAction.sa_handler != SIG_DFL
        && g_previousAction.sa_handler != SIG_IGN) {
        g_previousAction.sa_handler(signal);
        return;
    }
    std::signal(signal, SIG_DFL);
    ::raise(signal);
}

// A page that is gone: past the end of a truncated file (or unreadable), or poisoned memory.
// Alignment faults and signals sent with kill() are not ours to absorb.
bool isVanishedPage(const siginfo_t* info)
{
#ifdef BUS_MCEERR_AR
    if (info->si_code == BUS_MCEERR_AR)
        return true;
#endif
    return info->si_code == BUS_ADRERR;
}

// Only calls that are async-signal-safe on Linux: atomics, mmap (a plain system call), signal.
void onSigbus(int signal, siginfo_t* info, void* context)
{
    const int savedErrno = errno;
    if (info && isVanishedPage(info)) {
        const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
        const std::size_t slots = g_slotsInUse.load(std::memory_order_acquire);
        for (std::size_t i = 0; i < slots; ++i) {
            RegionSlot* found = slotAt(i);
            if (!found)
                continue;
            RegionSlot& slot = *found;
            const std::uintptr_t begin = slot.begin.load(std::memory_order_acquire);
            if (begin == 0 || address < begin || address >= slot.end.load(std::memory_order_acquire))
                continue;
            // A private zero page over the vanished one; the faulting read is retried and succeeds.
            const std::uintptr_t page = address & ~(g_pageSize - 1);
            if (::mmap(reinterpret_cast<void*>(page), g_pageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
                break;
            std::uintptr_t lowest = slot.lowestLost.load(std::memory_order_relaxed);
            while ((lowest == 0 || page < lowest) && !slot.lowestLost.compare_exchange_weak(lowest, page)) {
            }
            t_faults.lastAddress.store(address, std::memory_order_relaxed);
            t_faults.count.fetch_add(1, std::memory_order_relaxed);
            errno = savedErrno;
            return;
        }
    }
    errno = savedErrno;
    chainToPrevious(signal, info, context);
}

void installHandler()
{
    g_pageSize = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = onSigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previousAction);
}

}  // namespace

int registerMappedRegion(const void* begin, std::uint64_t size)
{
    std::call_once(g_installOnce, installHandler);
    if (!begin || size == 0)
        return -1;
    for (std::size_t i = 0; i < kSlotsPerChunk * kMaxChunks; ++i) {
        RegionSlot* free = allocatedSlotAt(i);
        if (!free)
            return -1;
        RegionSlot& slot = *free;
        bool expected = false;
        if (!slot.taken.compare_exchange_strong(expected, true))
            continue;
        // The mapping covers whole pages: the tail of the last page faults too.
        const auto first = reinterpret_cast<std::uintptr_t>(begin);
        const std::uintptr_t last = (first + size + g_pageSize - 1) & ~(g_pageSize - 1);
        slot.lowestLost.store(0, std::memory_order_relaxed);
        slot.end.store(last, std::memory_order_release);
        slot.begin.store(first, std::memory_order_release);
        std::size_t inUse = g_slotsInUse.load();
        while (inUse < i + 1 && !g_slotsInUse.compare_exchange_weak(inUse, i + 1)) {
        }
        return static_cast<int>(i);
    }
    return -1;
}

void unregisterMappedRegion(int slot)
{
    RegionSlot* found = slot < 0 ? nullptr : slotAt(static_cast<std::size_t>(slot));
    if (!found)
        return;
    RegionSlot& region = *found;
    region.begin.store(0, std::memory_order_release);
    region.end.store(0, std::memory_order_release);
    region.taken.store(false, std::memory_order_release);
}

bool mappedRegionFaulted(int slot)
{
    const RegionSlot* found = slot < 0 ? nullptr : slotAt(static_cast<std::size_t>(slot));
    return found && found->lowestLost.load(std::memory_order_relaxed) != 0;
}

std::uintptr_t lowestLostAddress(std::uintptr_t address)
{
    const std::size_t slots = g_slotsInUse.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < slots; ++i) {
        const RegionSlot* found = slotAt(i);
        if (!found)
            continue;
        const RegionSlot& slot = *found;
        const std::uintptr_t begin = slot.begin.load(std::memory_order_acquire);
        if (begin != 0 && address >= begin && address < slot.end.load(std::memory_order_acquire))
            return slot.lowestLost.load(std::memory_order_relaxed);
    }
    return 0;
}

MappedReadWatch::MappedReadWatch(const void* begin, std::uint64_t size)
    : m_begin(reinterpret_cast<std::uintptr_t>(begin)), m_end(m_begin + size),
      m_startCount(t_faults.count.load(std::memory_order_relaxed))
{
}

bool MappedReadWatch::bytesLost() const
{
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (t_faults.count.load(std::memory_order_relaxed) != m_startCount)
        return true;
    if (m_begin == m_end)
        return false;
    const std::uintptr_t lowest = lowestLostAddress(m_begin);
    return lowest != 0 && lowest < m_end;
}

std::uintptr_t MappedReadWatch::lostAddress() const
{
    const std::uintptr_t lowest = m_begin == m_end ? 0 : lowestLostAddress(m_begin);
    if (lowest != 0 && lowest < m_end)
        return std::max(lowest, m_begin);
    return t_faults.lastAddress.load(std::memory_order_relaxed);
}

Error tensorChangedOnDisk(const TensorInfo& tensor, std::uintptr_t faultAddress)
{
    const auto begin = reinterpret_cast<std::uintptr_t>(tensor.data);
    const bool inside = tensor.data && faultAddress >= begin && faultAddress - begin < tensor.nbytes;
    const std::uint64_t offset = inside ? tensor.fileOffset + (faultAddress - begin) : Error::kNoOffset;
    return Error{"tensor '" + escapeForDisplay(tensor.name) + "': the file changed on disk while the tensor was being read "
                     "(its bytes are gone: the file was truncated or rewritten); reopen the file",
                 offset, {}};
}

}  // namespace gguf
