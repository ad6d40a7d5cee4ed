// envcheck::vec_math on CPU: checks, then the vector math of the variant named by `isa`.
// Schema: csrc/ops/vec_math.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <string>

#include "ops/checks.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/vec_math_kernel.h"

namespace envcheck {
namespace {

at::Tensor vec_math_cpu(const at::Tensor& x, c10::string_view fn, c10::string_view isa) {
  check_device("vec_math", "x", x, c10::DeviceType::CPU);
  check_dtype_float("vec_math", "x", x);
  TORCH_CHECK(fn == "exp" || fn == "gelu" || fn == "exp_aten" || fn == "gelu_aten",
              "envcheck::vec_math: expected fn \"exp\", \"gelu\", \"exp_aten\" or \"gelu_aten\", got \"",
              std::string(fn), "\"");
  const CpuKernels* k = cpu_kernels_for(std::string(isa));
  if (k == nullptr) {
    std::string ok;
    for (const auto& v : cpu_runnable_variants()) ok += (ok.empty() ? "" : ", ") + v;
    TORCH_CHECK(false, "envcheck::vec_math: this CPU cannot run the ", std::string(isa), " kernels (it runs: ", ok,
                "; or \"best\")");
  }
  const at::Tensor xc = x.contiguous();
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
  const cpu_op::vec_math& vm = *k->vec_math;
  const auto f = fn == "exp" ? vm.exp : fn == "gelu" ? vm.gelu : fn == "exp_aten" ? vm.exp_aten : vm.gelu_aten;
  f(xc.data_ptr<float>(), y.data_ptr<float>(), y.numel());
  return y;
}

}  // namespace

TORCH_LIBRARY_IMPL(envcheck, CPU, m) { m.impl("vec_math", &vec_math_cpu); }

}  // namespace envcheck
