// Schemas of the machine-limit microkernels behind `torch-envcheck bench`'s roofline: peak FP32
// arithmetic and memory bandwidth, measured by the caller timing these ops.
// Implementations: CPU in csrc/ops/cpu/roofline_kernel.cpp (every thread of torch's pool, the instruction
// set named by `isa`), CUDA in csrc/ops/cuda/roofline_kernel.cu (+ roofline_glue.cpp; `isa` must be "best").
#include <torch/library.h>

TORCH_LIBRARY_FRAGMENT(envcheck, m) {
  // Independent FMA chains (mixed: FMA and add chains 1:1) on registers, `iters` steps, on the device of
  // `sink` (a float32 tensor of >= 1 element that receives a checksum).  Returns the FLOPs executed.
  m.def("fma_peak(Tensor(a!) sink, str isa, int iters, bool mixed=False) -> int");
  // Memory: read every element once (returns the sum as a 0-dim tensor), write `value` everywhere with
  // non-temporal stores, copy with non-temporal stores.  Contiguous float32.
  m.def("mem_read(Tensor x, str isa) -> Tensor");
  m.def("mem_write(Tensor(a!) out, float value, str isa) -> ()");
  m.def("mem_copy(Tensor x, Tensor(a!) out, str isa) -> ()");
  // JSON: the CPU variants this CPU runs and, for each, its microkernels' vector width and chains.
  m.def("roofline_info() -> str");
}
