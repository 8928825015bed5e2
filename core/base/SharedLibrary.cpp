#include "core/base/SharedLibrary.h"

#include <dlfcn.h>

namespace gguf {

void* openSharedLibrary(const char* const* names, const char* what, std::string& error)
{
    std::string reason = "no library name to try";
    for (const char* const* name = names; *name; ++name) {
        // RTLD_LOCAL: its symbols are reached through the table only, never by interposition.
        if (void* handle = ::dlopen(*name, RTLD_NOW | RTLD_LOCAL))
            return handle;
        const char* text = ::dlerror();
        reason = text ? text : *name;
    }
    error = std::string("cannot load ") + what + " (" + reason + ")";
    return nullptr;
}

void* sharedLibrarySymbol(void* library, const char* name, const char* what, std::string& error)
{
    ::dlerror();
    void* symbol = ::dlsym(library, name);
    if (!symbol)
        error = std::string(what) + " has no function " + name + " (an incompatible version?)";
    return symbol;
}

}  // namespace gguf
