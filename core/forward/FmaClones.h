#pragma once
// The ggml emulations (GgmlAttention, GgmlVectorMath) call std::fma per value, which in a
// build without -mfma is a call into libm: a fifth of a --llama-activations pass. A function
// marked GGUFX_FMA_CLONES gets a second body compiled for FMA, chosen when the program loads
// (GCC / Clang function multiversioning). Both round each fma once, so the results are the same.

#if GGUFX_X86_KERNELS && defined(__GNUC__) && defined(__ELF__)
#define GGUFX_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define GGUFX_FMA_CLONES
#endif
