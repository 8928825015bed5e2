#include "core/write/TempFileCleanup.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <unistd.h>

namespace gguf {

namespace {
// A signal handler may only read what it finds complete: each slot holds a path copied in full
// before its flag is set, and the flag is cleared before the slot is reused.
// Zero-initialized static storage: pages never touched cost nothing.
constexpr std::size_t kSlots = 2048;
constexpr std::size_t kPathBytes = 1024;

struct Slot {
    std::atomic<bool> used{false};
    std::atomic<bool> ready{false};
    char path[kPathBytes];
};

Slot g_slots[kSlots];

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

std::atomic<int> g_holds{0};
std::atomic<int> g_pendingSignal{0};

void removeTempFilesAndExit(int signal)
{
    if (g_holds.load() > 0) {
        g_pendingSignal.store(signal);
        return;
    }
    for (Slot& slot : g_slots)
        if (slot.ready.load())
            ::unlink(slot.path);
    // Then end as the signal would have ended us, so the parent sees the same status: the
    // signal is blocked while its handler runs, so it arrives, with its default action, as
    // soon as the handler returns.
    std::signal(signal, SIG_DFL);
    ::raise(signal);
}

void installHandlersOnce()
{
    static std::once_flag once;
    std::call_once(once, [] {
        for (int signal : kSignals) {
            struct sigaction current {};
            if (::sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL)
                continue;
            struct sigaction action {};
            action.sa_handler = removeTempFilesAndExit;
            sigemptyset(&action.sa_mask);
            for (int other : kSignals)
                sigaddset(&action.sa_mask, other);
            ::sigaction(signal, &action, nullptr);
        }
    });
}
}  // namespace

int rememberTempFile(const std::string& path)
{
    if (path.size() >= kPathBytes)
        return -1;
    installHandlersOnce();
    for (std::size_t i = 0; i < kSlots; ++i) {
        Slot& slot = g_slots[i];
        bool expected = false;
        if (!slot.used.compare_exchange_strong(expected, true))
            continue;
        std::memcpy(slot.path, path.c_str(), path.size() + 1);
        slot.ready.store(true);
        return static_cast<int>(i);
    }
    return -1;
}

void forgetTempFile(int slot)
{
    if (slot < 0 || static_cast<std::size_t>(slot) >= kSlots)
        return;
    g_slots[slot].ready.store(false);
    g_slots[slot].used.store(false);
}

HeldInterrupts::HeldInterrupts()
{
    installHandlersOnce();
    ++g_holds;
}

HeldInterrupts::~HeldInterrupts()
{
    if (--g_holds == 0)
        if (const int signal = g_pendingSignal.exchange(0); signal != 0)
            ::raise(signal);
}

}  // namespace gguf
