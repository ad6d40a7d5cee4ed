// Schema of envcheck::sum: a full fp32 reduction.
// Implementations: CPU in csrc/ops/cpu/sum_kernel.cpp, CUDA in csrc/ops/cuda/sum_kernel.cu.
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(envcheck, m) {
  // Full reduction to a 0-dim tensor with fp32 accumulation in a fixed, thread-count independent order.
  m.def("sum(Tensor x) -> Tensor");
}
