// Schema of envcheck::sgemm: an fp32 matrix product by our own kernels.
// Implementations: CPU in csrc/ops/cpu/sgemm_kernel.cpp, CUDA in csrc/ops/cuda/sgemm_kernel.cu.
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(envcheck, m) {
  // fp32 matrix product of a (M, K) and b (K, N) by our own kernels (no BLAS library).
  m.def("sgemm(Tensor a, Tensor b) -> Tensor");
}
