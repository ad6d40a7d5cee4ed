// The envcheck operator library: one TORCH_LIBRARY block with every schema.
//
// The *_out ops write into a preallocated, contiguous tensor of the result's shape and dtype (like
// torch's out= variants; the benchmark uses them so that neither side pays for allocation).  They
// return nothing: torch.compile cannot functionalize a custom op whose output aliases an input.
//
// Implementations register per backend with TORCH_LIBRARY_IMPL: CPU in csrc/cpu/<op>.cpp, CUDA in
// csrc/cuda/<op>.cu.  Fake (meta) kernels and autograd formulas are registered from Python
// (torch_envcheck/ops.py) with torch.library.register_fake / register_autograd.
#include <torch/library.h>

TORCH_LIBRARY(envcheck, m) {
  // out = b + s * c  (STREAM triad), elementwise, same shape and dtype.
  m.def("triad(Tensor b, Tensor c, float s) -> Tensor");
  m.def("triad_out(Tensor b, Tensor c, float s, Tensor(a!) out) -> ()");
  // Full reduction to a 0-dim tensor with fp32 accumulation in a fixed, thread-count independent order.
  m.def("sum(Tensor x) -> Tensor");
  // Numerically stable softmax over the last dimension.
  m.def("softmax(Tensor x) -> Tensor");
  m.def("softmax_out(Tensor x, Tensor(a!) out) -> ()");
  // gelu(x + bias) with the exact erf GELU; bias has shape (x.size(-1),).
  m.def("bias_gelu(Tensor x, Tensor bias) -> Tensor");
  m.def("bias_gelu_out(Tensor x, Tensor bias, Tensor(a!) out) -> ()");
  // fp32 matrix product of a (M, K) and b (K, N) by our own kernels (no BLAS library).
  m.def("sgemm(Tensor a, Tensor b) -> Tensor");
  // JSON: the CPU kernel instruction sets compiled in and the one selected at run time.
  m.def("cpu_kernel_isa() -> str");
  // How many distinct threads at::parallel_for used for a loop of n items (proves OpenMP is on).
  m.def("parallel_threads_used(int n) -> int");
}
