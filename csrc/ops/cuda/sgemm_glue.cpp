// envcheck::sgemm on CUDA: checks and launch; the kernel is in csrc/ops/cuda/sgemm_kernel.cu, the shared
// glue (device guard, launch check) in glue.h.
// Schema: csrc/ops/sgemm.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cuda/glue.h"
#include "ops/cuda/sgemm_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

at::Tensor sgemm_cuda(const at::Tensor& a, const at::Tensor& b) {
  check_device("sgemm", "a", a, c10::DeviceType::CUDA);
  check_device("sgemm", "b", b, c10::DeviceType::CUDA);
  check_same_device("sgemm", a, b);
  check_dtype_float("sgemm", "a", a);
  check_dtype_float("sgemm", "b", b);
  check_sgemm_shapes(a, b);
  return launch(a, [&]() -> at::Tensor {
    // The kernel reads row-major operands: transposed or strided inputs are copied once.
    const at::Tensor ac = a.contiguous(), bc = b.contiguous();
    const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
    at::Tensor c = at::empty({m, n}, a.options());
    if (m == 0 || n == 0) return c;
    if (k == 0) return c.zero_();
    TORCH_CHECK((m + kSgemmTileRows - 1) / kSgemmTileRows <= 65535, "envcheck::sgemm: expected a.size(0) <= ",
                int64_t(65535) * kSgemmTileRows, " on CUDA (grid limit), got ", m);
    sgemm_launch(ac.const_data_ptr<float>(), bc.const_data_ptr<float>(), c.data_ptr<float>(), m, n, k,
                 current_stream());
    return c;
  });
}

}  // namespace
}  // namespace cuda

TORCH_LIBRARY_IMPL(envcheck, CUDA, m) { m.impl("sgemm", &cuda::sgemm_cuda); }

}  // namespace envcheck
