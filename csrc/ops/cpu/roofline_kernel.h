// The machine-limit microkernels of one instruction set, each for one thread
// (bodies: roofline_kernel_isa.h).
#pragma once

#include <cstdint>

namespace envcheck {
namespace cpu_op {

struct roofline {
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

}  // namespace cpu_op
}  // namespace envcheck
