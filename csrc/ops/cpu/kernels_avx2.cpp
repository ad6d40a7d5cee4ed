// The AVX2 + FMA variant of the CPU kernels (see kernels_avx512.cpp for why the pragma comes first).
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt")
// g++ does not define the ISA macros for a target pragma (only the C front end does), but
// sleef.h and ATen's vec headers select their code with them: define them to match the pragma.
#ifndef __AVX__
#define __AVX__ 1
#endif
#ifndef __AVX2__
#define __AVX2__ 1
#endif
#ifndef __FMA__
#define __FMA__ 1
#endif
#ifndef __F16C__
#define __F16C__ 1
#endif
#define CPU_CAPABILITY AVX2
#define CPU_CAPABILITY_AVX2
#include "ops/cpu/kernels_impl.h"
#endif
