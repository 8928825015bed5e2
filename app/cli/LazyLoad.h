#pragma once
// Loading a system library on first use (LazyMath.cpp; libcurl and OpenBLAS are core's, base/SharedLibrary.h): the CLI's own
// dependencies, so a library or function that is missing ends the command with the loader's
// message (the package manager installs them with the CLI).

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

namespace lazyload {

// The first of `names` that loads (a null-terminated list), or exits.
inline void* libraryOrExit(const char* const* names, const char* what)
{
    const char* reason = "not found";
    for (const char* const* name = names; *name; ++name) {
        if (void* handle = ::dlopen(*name, RTLD_NOW | RTLD_LOCAL))
            return handle;
        reason = ::dlerror();
    }
    std::fprintf(stderr, "gguf-explorer-cli: cannot load %s (%s): %s\n", what, names[0], reason);
    std::exit(1);
}

template <typename Function>
Function symbolOrExit(void* library, const char* name, const char* what)
{
    void* symbol = ::dlsym(library, name);
    if (!symbol) {
        std::fprintf(stderr, "gguf-explorer-cli: %s has no function %s\n", what, name);
        std::exit(1);
    }
    return reinterpret_cast<Function>(symbol);
}

}  // namespace lazyload
