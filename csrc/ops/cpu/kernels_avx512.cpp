// The AVX-512 variant of the CPU kernels.  The target pragma must come before every include so that
// the intrinsics in ATen's vec512 headers and all code in this file may use AVX-512; the build's
// flags (shared by all files) stay generic.  Selected at run time only on CPUs that have AVX-512
// (see isa.cpp).
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512dq,avx512vl")
#include "ops/cpu/isa_macros_avx2.h"  // the macros g++ leaves undefined under the pragma
// and the AVX-512 ones below.
#ifndef __AVX512F__
#define __AVX512F__ 1
#endif
#ifndef __AVX512BW__
#define __AVX512BW__ 1
#endif
#ifndef __AVX512DQ__
#define __AVX512DQ__ 1
#endif
#ifndef __AVX512VL__
#define __AVX512VL__ 1
#endif
#define CPU_CAPABILITY AVX512
#define CPU_CAPABILITY_AVX512
#include "ops/cpu/kernels_impl.h"
#endif
