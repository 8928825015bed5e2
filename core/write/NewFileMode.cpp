#include "core/write/NewFileMode.h"

#include <cstdio>
#include <cstring>

namespace gguf {

unsigned newFileMode()
{
    unsigned mask = 022;
    if (std::FILE* status = std::fopen("/proc/self/status", "re")) {
        char line[256];
        while (std::fgets(line, sizeof line, status)) {
            unsigned value = 0;
            if (std::strncmp(line, "Umask:", 6) == 0 && std::sscanf(line + 6, "%o", &value) == 1) {
                mask = value & 0777;
                break;
            }
        }
        std::fclose(status);
    }
    return 0666u & ~mask;
}

}  // namespace gguf
