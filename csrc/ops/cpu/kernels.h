// The CPU kernel table and its run-time selection.
//
// The same kernel code (csrc/ops/cpu/*_kernel_isa.h) is compiled once per instruction set, each time in
// its own translation unit and namespace (kernels_default.cpp -> envcheck::DEFAULT, kernels_avx2.cpp ->
// envcheck::AVX2, kernels_avx512.cpp -> envcheck::AVX512), the way ATen builds its native kernels.
// cpu_kernels() picks one table at run time (see isa.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace envcheck {

// Data cache sizes in bytes (cache_info.cpp) and where they came from ("sysfs", "sysconf", "assumed").
struct CacheSizes {
  int64_t l1d, l2, l3;
  std::string source;
};
const CacheSizes& cpu_cache_sizes();

// sgemm cache blocking: rows of A per packed block (MC), depth of a packed slice (KC), columns of B
// per packed panel (NC).
struct GemmBlocking {
  int64_t mc, kc, nc;
  std::string how;  // "model" or "TORCH_ENVCHECK_SGEMM_BLOCKING"
};

// The machine-limit microkernels of one variant (roofline_kernel_isa.h), each for one thread.
struct RooflineKernels {
  int vec_floats;                        // floats per vector register
  int fma_chains;                        // independent chains of the "fma" kernel
  int mix_fma_chains, mix_add_chains;    // FMA and add chains of the "mixed" kernel
  const char* fma_instruction;           // what one chain step is, e.g. "vfmadd231ps zmm"
  float (*fma_peak)(int64_t iters, bool mixed);   // returns a checksum of the chains
  int64_t (*fma_flops_per_iter)(bool mixed);      // FLOPs of one step of all chains
  float (*mem_read)(const float* x, int64_t n);  // returns the sum of x
  void (*mem_write)(float* y, int64_t n, float value);
  void (*mem_copy)(const float* x, float* y, int64_t n);
};

struct CpuKernels {
  const char* isa;      // "DEFAULT", "AVX2", "AVX512"
  int vec_floats;       // floats per at::vec::Vectorized<float> in this variant
  int gemm_mr, gemm_nr; // sgemm register block (rows x columns of C per micro-kernel call)
  void (*triad)(const float* b, const float* c, float s, float* out, int64_t n);
  float (*sum)(const float* x, int64_t n);
  void (*softmax)(const float* x, float* y, int64_t rows, int64_t cols);
  void (*bias_gelu)(const float* x, const float* bias, float* y, int64_t rows, int64_t cols);
  // C (M x N, row-major, contiguous) = A (M x K, strides sa0/sa1) * B (K x N, strides sb0/sb1).
  void (*sgemm)(const float* a, int64_t sa0, int64_t sa1, const float* b, int64_t sb0, int64_t sb1, float* c,
                int64_t m, int64_t n, int64_t k);
  // The blocking sgemm uses in this variant on this CPU.
  GemmBlocking (*sgemm_blocking)();
  const RooflineKernels* roofline;
};

// One per compiled variant; the x86 variants exist only on x86-64 builds.
namespace DEFAULT { const CpuKernels& kernel_table(); }
#if defined(__x86_64__) || defined(_M_X64)
#define ENVCHECK_CPU_X86 1
namespace AVX2 { const CpuKernels& kernel_table(); }
namespace AVX512 { const CpuKernels& kernel_table(); }
#endif

// The table selected for this process (cached after the first call).
const CpuKernels& cpu_kernels();
// The variants compiled into this build that this CPU can run, lowest first ("DEFAULT", "AVX2", ...).
std::vector<std::string> cpu_runnable_variants();
// The table of a variant by name ("DEFAULT", "AVX2", "AVX512", or "best": the highest runnable one);
// nullptr when it is not compiled or this CPU cannot run it.
const CpuKernels* cpu_kernels_for(const std::string& isa);
// JSON for envcheck::cpu_kernel_isa().
std::string cpu_kernel_isa_json();

}  // namespace envcheck
