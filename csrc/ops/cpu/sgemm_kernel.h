// The CPU kernels of envcheck::sgemm in one instruction set (bodies: sgemm_kernel_isa.h).
#pragma once

#include <cstdint>
#include <string>

namespace envcheck {

// sgemm cache blocking: rows of A per packed block (MC), depth of a packed slice (KC), columns of B
// per packed panel (NC).
struct GemmBlocking {
  int64_t mc, kc, nc;
  std::string how;  // "model" or "TORCH_ENVCHECK_SGEMM_BLOCKING"
};

namespace cpu_op {

struct sgemm {
  // C (M x N, row-major, contiguous) = A (M x K, strides sa0/sa1) * B (K x N, strides sb0/sb1).
  void (*run)(const float* a, int64_t sa0, int64_t sa1, const float* b, int64_t sb0, int64_t sb1, float* c,
              int64_t m, int64_t n, int64_t k);
  int mr, nr;  // register block (rows x columns of C per micro-kernel call)
  // The blocking run() uses in this variant on this CPU.
  GemmBlocking (*blocking)();
};

}  // namespace cpu_op
}  // namespace envcheck
