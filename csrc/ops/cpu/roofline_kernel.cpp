// The machine-limit microkernels on CPU: checks, the variant named by `isa`, one copy per thread of
// torch's pool.  Kernels: roofline_kernel_isa.h.  Schema: csrc/ops/roofline.cpp.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <sstream>
#include <vector>

#include "ops/checks.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/roofline_kernel.h"

namespace envcheck {
namespace {

const cpu_op::roofline& variant(const char* op, const std::string& isa) {
  const CpuKernels* k = cpu_kernels_for(isa);
  if (k == nullptr) {
    std::string ok;
    for (const auto& v : cpu_runnable_variants()) ok += (ok.empty() ? "" : ", ") + v;
    TORCH_CHECK(false, "envcheck::", op, ": this CPU cannot run the ", isa, " kernels (it runs: ", ok,
                "; or \"best\")");
  }
  return *k->roofline;
}

void check_contiguous_float(const char* op, const char* arg, const at::Tensor& t) {
  check_device(op, arg, t, c10::DeviceType::CPU);
  check_dtype_float(op, arg, t);
  TORCH_CHECK(t.is_contiguous(), "envcheck::", op, ": expected a contiguous ", arg);
}

// [begin, end) of thread `t` of `threads` over n elements, cut at 64-byte boundaries so that no two
// threads write the same cache line.
std::pair<int64_t, int64_t> split(int64_t n, int64_t t, int64_t threads) {
  const int64_t per = ((n + threads - 1) / threads + 15) / 16 * 16;
  return {std::min(n, t * per), std::min(n, (t + 1) * per)};
}

int64_t fma_peak_cpu(at::Tensor& sink, c10::string_view isa, int64_t iters, bool mixed) {
  check_contiguous_float("fma_peak", "sink", sink);
  TORCH_CHECK(sink.numel() >= 1, "envcheck::fma_peak: expected sink with at least 1 element");
  TORCH_CHECK(iters >= 1, "envcheck::fma_peak: expected iters >= 1, got ", iters);
  const cpu_op::roofline& k = variant("fma_peak", std::string(isa));
  const int64_t threads = at::get_num_threads();
  std::vector<float> check(threads, 0.f);
  // One task per thread (grain 1): each runs the whole chain count for `iters` steps.
  at::parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) check[t] = k.fma_peak(iters, mixed);
  });
  float total = 0.f;
  for (float v : check) total += v;
  sink.data_ptr<float>()[0] = total;
  return threads * iters * k.fma_flops_per_iter(mixed);
}

at::Tensor mem_read_cpu(const at::Tensor& x, c10::string_view isa) {
  check_contiguous_float("mem_read", "x", x);
  const cpu_op::roofline& k = variant("mem_read", std::string(isa));
  const int64_t n = x.numel(), threads = at::get_num_threads();
  const float* p = x.const_data_ptr<float>();
  std::vector<float> part(threads, 0.f);
  at::parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      auto [lo, hi] = split(n, t, threads);
      part[t] = k.mem_read(p + lo, hi - lo);
    }
  });
  float total = 0.f;
  for (float v : part) total += v;
  at::Tensor out = at::empty({}, x.options());
  out.data_ptr<float>()[0] = total;
  return out;
}

void mem_write_cpu(at::Tensor& out, double value, c10::string_view isa) {
  check_contiguous_float("mem_write", "out", out);
  const cpu_op::roofline& k = variant("mem_write", std::string(isa));
  const int64_t n = out.numel(), threads = at::get_num_threads();
  float* p = out.data_ptr<float>();
  at::parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      auto [lo, hi] = split(n, t, threads);
      k.mem_write(p + lo, hi - lo, static_cast<float>(value));
    }
  });
}

void mem_copy_cpu(const at::Tensor& x, at::Tensor& out, c10::string_view isa) {
  check_contiguous_float("mem_copy", "x", x);
  check_contiguous_float("mem_copy", "out", out);
  check_out("mem_copy", out, x);
  const cpu_op::roofline& k = variant("mem_copy", std::string(isa));
  const int64_t n = x.numel(), threads = at::get_num_threads();
  const float* src = x.const_data_ptr<float>();
  float* dst = out.data_ptr<float>();
  at::parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      auto [lo, hi] = split(n, t, threads);
      k.mem_copy(src + lo, dst + lo, hi - lo);
    }
  });
}

std::string roofline_info() {
  std::ostringstream js;
  js << "{\"threads\": " << at::get_num_threads() << ", \"variants\": {";
  bool first = true;
  for (const auto& name : cpu_runnable_variants()) {
    const cpu_op::roofline& k = *cpu_kernels_for(name)->roofline;
    js << (first ? "" : ", ") << '"' << name << "\": {\"vector_floats\": " << k.vec_floats
       << ", \"fma_chains\": " << k.fma_chains << ", \"mixed_fma_chains\": " << k.mix_fma_chains
       << ", \"mixed_add_chains\": " << k.mix_add_chains << ", \"chain_step\": \"" << k.fma_instruction
       << "\", \"fma_flops_per_step\": " << k.fma_flops_per_iter(false)
       << ", \"mixed_flops_per_step\": " << k.fma_flops_per_iter(true) << "}";
    first = false;
  }
  js << "}, \"best\": \"" << cpu_runnable_variants().back() << "\"}";
  return js.str();
}

}  // namespace

TORCH_LIBRARY_IMPL(envcheck, CPU, m) {
  m.impl("fma_peak", &fma_peak_cpu);
  m.impl("mem_read", &mem_read_cpu);
  m.impl("mem_write", &mem_write_cpu);
  m.impl("mem_copy", &mem_copy_cpu);
}

TORCH_LIBRARY_IMPL(envcheck, CompositeExplicitAutograd, m) {
  m.impl("roofline_info", []() { return roofline_info(); });
}

}  // namespace envcheck
