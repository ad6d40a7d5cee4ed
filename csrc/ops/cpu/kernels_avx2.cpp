// The AVX2 + FMA variant of the CPU kernels (see kernels_avx512.cpp for why the pragma comes first).
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt")
#include "ops/cpu/isa_macros_avx2.h"  // the macros g++ leaves undefined under the pragma
#define CPU_CAPABILITY AVX2
#define CPU_CAPABILITY_AVX2
#include "ops/cpu/kernels_impl.h"
#endif
