// The machine-limit microkernels on CUDA: checks and launches; the kernels are in
// csrc/ops/cuda/roofline_kernel.cu, the shared glue (device guard, launch check) in glue.h.
// Schema: csrc/ops/roofline.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include "ops/checks.h"
#include "ops/cuda/glue.h"
#include "ops/cuda/roofline_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

void check_args(const char* op, const char* arg, const at::Tensor& t, c10::string_view isa) {
  check_device(op, arg, t, c10::DeviceType::CUDA);
  check_dtype_float(op, arg, t);
  TORCH_CHECK(t.is_contiguous(), "envcheck::", op, ": expected a contiguous ", arg);
  TORCH_CHECK(isa == "best", "envcheck::", op, ": on CUDA isa must be \"best\", got \"", std::string(isa), "\"");
}

int64_t fma_peak_cuda(at::Tensor& sink, c10::string_view isa, int64_t iters, bool mixed) {
  check_args("fma_peak", "sink", sink, isa);
  TORCH_CHECK(sink.numel() >= 1, "envcheck::fma_peak: expected sink with at least 1 element");
  TORCH_CHECK(iters >= 1, "envcheck::fma_peak: expected iters >= 1, got ", iters);
  return launch(sink, [&] {
    return fma_peak_launch(sink.data_ptr<float>(), iters, mixed, sm_count(), current_stream());
  });
}

at::Tensor mem_read_cuda(const at::Tensor& x, c10::string_view isa) {
  check_args("mem_read", "x", x, isa);
  return launch(x, [&] {
    at::Tensor out = at::zeros({}, x.options());
    if (x.numel() > 0) {
      mem_read_launch(x.const_data_ptr<float>(), x.numel(), out.data_ptr<float>(), sm_count(), current_stream());
    }
    return out;
  });
}

void mem_write_cuda(at::Tensor& out, double value, c10::string_view isa) {
  check_args("mem_write", "out", out, isa);
  launch(out, [&] {
    if (out.numel() == 0) return;
    mem_write_launch(out.data_ptr<float>(), out.numel(), static_cast<float>(value), sm_count(), current_stream());
  });
}

void mem_copy_cuda(const at::Tensor& x, at::Tensor& out, c10::string_view isa) {
  check_args("mem_copy", "x", x, isa);
  check_out("mem_copy", out, x);
  launch(x, [&] {
    if (x.numel() == 0) return;
    mem_copy_launch(x.const_data_ptr<float>(), out.data_ptr<float>(), x.numel(), sm_count(), current_stream());
  });
}

}  // namespace
}  // namespace cuda

TORCH_LIBRARY_IMPL(envcheck, CUDA, m) {
  m.impl("fma_peak", &cuda::fma_peak_cuda);
  m.impl("mem_read", &cuda::mem_read_cuda);
  m.impl("mem_write", &cuda::mem_write_cuda);
  m.impl("mem_copy", &cuda::mem_copy_cuda);
}

}  // namespace envcheck
