// Schema of envcheck::sgemm: an fp32 matrix product by our own kernels.
// Implementations: CPU in csrc/cpu/sgemm_cpu.cpp, CUDA in csrc/cuda/sgemm.cu.
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(envcheck, m) {
  // fp32 matrix product of a (M, K) and b (K, N) by our own kernels (no BLAS library).
  m.def("sgemm(Tensor a, Tensor b) -> Tensor");
}
