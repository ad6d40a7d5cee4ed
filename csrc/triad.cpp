// Schema of envcheck::triad: the STREAM triad, out = b + s * c.
// Implementations: CPU in csrc/cpu/triad_cpu.cpp, CUDA in csrc/cuda/triad.cu.
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(envcheck, m) {
  // out = b + s * c  (STREAM triad), elementwise, same shape and dtype.
  m.def("triad(Tensor b, Tensor c, float s) -> Tensor");
  m.def("triad_out(Tensor b, Tensor c, float s, Tensor(a!) out) -> ()");
}
