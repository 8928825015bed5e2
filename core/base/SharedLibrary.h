#pragma once
// A system library opened with dlopen when a program first needs it, for the libraries most runs
// never use (libcurl, OpenBLAS): a command that reads a local file then does not load them, and
// a machine without them still runs everything else. The typed tables over them
// (remote/CurlLibrary.h, base/BlasLibrary.h) resolve each function once, by name, into a pointer
// of the type the library's own header declares.

#include <string>

namespace gguf {

// The first of `names` (a null-terminated list) that loads, kept loaded for the process's life;
// nullptr with `error` saying what could not be loaded and why ("cannot load libcurl
// (libcurl.so.4: cannot open shared object file ...)").
void* openSharedLibrary(const char* const* names, const char* what, std::string& error);

// `name` in `library`, or nullptr with `error` set.
void* sharedLibrarySymbol(void* library, const char* name, const char* what, std::string& error);

// Resolves `name` into `function`, typed as the library's header declares it; false (and
// `error`) when it is missing. Stops at the first error so that one message names it.
template <typename Function>
bool resolveFunction(void* library, const char* name, Function& function, const char* what, std::string& error)
{
    if (!error.empty())
        return false;
    function = reinterpret_cast<Function>(sharedLibrarySymbol(library, name, what, error));
    return function != nullptr;
}

}  // namespace gguf
