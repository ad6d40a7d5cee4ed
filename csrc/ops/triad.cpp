// Schema of envcheck::triad: the STREAM triad, out = b + s * c.
// Implementations: CPU in csrc/ops/cpu/triad_kernel.cpp, CUDA in csrc/ops/cuda/triad_kernel.cu.
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(envcheck, m) {
  // out = b + s * c  (STREAM triad), elementwise, same shape and dtype.
  m.def("triad(Tensor b, Tensor c, float s) -> Tensor");
  m.def("triad_out(Tensor b, Tensor c, float s, Tensor(a!) out) -> ()");
}
