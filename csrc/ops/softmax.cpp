// Schema of envcheck::softmax: softmax over the last dimension.
// Implementations: CPU in csrc/ops/cpu/softmax_kernel.cpp, CUDA in csrc/ops/cuda/softmax_kernel.cu.
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(envcheck, m) {
  // Numerically stable softmax over the last dimension.
  m.def("softmax(Tensor x) -> Tensor");
  m.def("softmax_out(Tensor x, Tensor(a!) out) -> ()");
}
