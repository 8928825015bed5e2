// llama-imatrix with ggml-cpu's haswell backend loaded first, as the shared fixtures' oracle ran
// (README.md here says how it is built). Compiled with llama.cpp's tools/imatrix/imatrix.cpp
// built with -Dmain=imatrix_main.
#include "ggml-backend.h"

int imatrix_main(int argc, char** argv);

int main(int argc, char** argv)
{
    ggml_backend_load("/work/llama-ref/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-cpu-haswell.so");
    return imatrix_main(argc, argv);
}
