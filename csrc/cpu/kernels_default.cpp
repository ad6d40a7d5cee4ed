// The portable variant of the CPU kernels: baseline instruction set of the build (SSE2 on x86-64),
// used when the CPU lacks AVX2 or when ATEN_CPU_CAPABILITY=default.
#define CPU_CAPABILITY DEFAULT
#include "cpu/kernels_impl.h"
