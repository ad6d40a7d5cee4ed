// envcheck::sum on CUDA: checks, scratch allocation and launch; the kernels are in
// csrc/ops/cuda/sum_kernel.cu, the shared glue (device guard, launch check) in glue.h.
// Schema: csrc/ops/sum.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cuda/glue.h"
#include "ops/cuda/sum_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

at::Tensor sum_cuda(const at::Tensor& x) {
  check_device("sum", "x", x, c10::DeviceType::CUDA);
  check_dtype_float("sum", "x", x);
  return launch(x, [&]() -> at::Tensor {
    const at::Tensor xc = x.contiguous();
    const int64_t n = xc.numel();
    at::Tensor out = at::empty({}, x.options());
    if (n == 0) return out.zero_();
    at::Tensor partial = at::empty({sum_partial_blocks(n)}, x.options());
    sum_launch(xc.const_data_ptr<float>(), n, partial.data_ptr<float>(), out.data_ptr<float>(), current_stream());
    return out;
  });
}

}  // namespace
}  // namespace cuda

TORCH_LIBRARY_IMPL(envcheck, CUDA, m) { m.impl("sum", &cuda::sum_cuda); }

}  // namespace envcheck
