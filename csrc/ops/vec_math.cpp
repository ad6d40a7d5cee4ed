// Schema of envcheck::vec_math: the vector math the CPU kernels use (exp, GELU), in a chosen
// instruction-set variant, over a float32 tensor: how its accuracy is measured
// (tests/integration/ext/test_vec_math.py, benchmarks/exp_ulp_sweep.py).
// Implementation: CPU only, csrc/ops/cpu/vec_math_kernel.cpp.
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(envcheck, m) {
  // fn: "exp", "gelu", or ATen's "exp_aten", "gelu_aten" (to compare); isa: "DEFAULT", "AVX2",
  // "AVX512" or "best" (one this CPU runs).
  m.def("vec_math(Tensor x, str fn, str isa) -> Tensor");
}
