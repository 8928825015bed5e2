#include "core/gguf/FetchCancel.h"

namespace gguf {

namespace {
thread_local const std::atomic<bool>* t_cancel = nullptr;
}  // namespace

const std::atomic<bool>* currentFetchCancel()
{
    return t_cancel;
}

FetchCancelScope::FetchCancelScope(const std::atomic<bool>* cancel) : m_previous(t_cancel)
{
    t_cancel = cancel;
}

FetchCancelScope::~FetchCancelScope()
{
    t_cancel = m_previous;
}

}  // namespace gguf
