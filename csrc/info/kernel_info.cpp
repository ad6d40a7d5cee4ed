// Schema of envcheck::cpu_kernel_isa and envcheck::parallel_threads_used: what the CPU kernels
// were compiled for, which variant runs, and whether at::parallel_for really runs in parallel.
// Implementation: csrc/ops/cpu/isa.cpp (CompositeExplicitAutograd; no device code).
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(envcheck, m) {
  // JSON: the CPU kernel instruction sets compiled in and the one selected at run time.
  m.def("cpu_kernel_isa() -> str");
  // How many distinct threads at::parallel_for used for a loop of n items (proves OpenMP is on).
  m.def("parallel_threads_used(int n) -> int");
}
