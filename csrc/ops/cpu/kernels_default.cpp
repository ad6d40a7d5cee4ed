// The portable variant of the CPU kernels: baseline instruction set of the build (SSE2 on x86-64),
// used when the CPU lacks AVX2 or when ATEN_CPU_CAPABILITY=default.
#define CPU_CAPABILITY DEFAULT
#if defined(__x86_64__) || defined(_M_X64)
// SSE2 is part of x86-64: the hot loops use it directly (sse2_math.h) instead of ATen's generic
// Vectorized<float>, whose code depends on the torch release's headers.
#define ENVCHECK_SSE2_KERNELS 1
#endif
#include "ops/cpu/kernels_impl.h"
