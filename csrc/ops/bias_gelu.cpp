// Schema of envcheck::bias_gelu: gelu(x + bias), fused.
// Implementations: CPU in csrc/ops/cpu/bias_gelu_kernel.cpp, CUDA in csrc/ops/cuda/bias_gelu_kernel.cu.
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(envcheck, m) {
  // gelu(x + bias) with the exact erf GELU; bias has shape (x.size(-1),).
  m.def("bias_gelu(Tensor x, Tensor bias) -> Tensor");
  m.def("bias_gelu_out(Tensor x, Tensor bias, Tensor(a!) out) -> ()");
}
