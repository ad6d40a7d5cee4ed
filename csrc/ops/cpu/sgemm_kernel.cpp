// envcheck::sgemm on CPU: our packed-panel GEMM (sgemm_kernel_isa.h), never a BLAS library.
// Schema: csrc/ops/sgemm.cpp.
// Strided and transposed inputs are read through their strides while packing: no extra copy.
// Per-operator headers instead of <ATen/ATen.h>: the same code, a fraction of the parse time.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/sgemm_kernel.h"

namespace envcheck {
namespace {

at::Tensor sgemm_cpu(const at::Tensor& a, const at::Tensor& b) {
  check_device("sgemm", "a", a, c10::DeviceType::CPU);
  check_device("sgemm", "b", b, c10::DeviceType::CPU);
  check_dtype_float("sgemm", "a", a);
  check_dtype_float("sgemm", "b", b);
  check_sgemm_shapes(a, b);
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  at::Tensor c = at::empty({m, n}, a.options().memory_format(at::MemoryFormat::Contiguous));
  cpu_kernels().sgemm->run(a.data_ptr<float>(), a.stride(0), a.stride(1), b.data_ptr<float>(), b.stride(0),
                           b.stride(1), c.data_ptr<float>(), m, n, k);
  return c;
}

}  // namespace

TORCH_LIBRARY_IMPL(envcheck, CPU, m) { m.impl("sgemm", &sgemm_cpu); }

}  // namespace envcheck
