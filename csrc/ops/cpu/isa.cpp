// Run-time choice of the CPU kernel variant, and the cpu_kernel_isa / parallel_threads_used ops.
//
// The choice is the lower of (a) ATen's own capability, which honours the ATEN_CPU_CAPABILITY
// environment variable (default/avx2/avx512), so a user or a test can force a lower variant, and
// (b) what this CPU reports through __builtin_cpu_supports for the features each variant was compiled
// with.  (b) guards against an ATen that would pick a level our pragma set does not cover.
#include "ops/cpu/kernels.h"
#include "ops/cpu/sgemm_kernel.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace envcheck {
namespace {

#ifdef ENVCHECK_CPU_X86
bool cpu_has_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
bool cpu_has_avx512() {
  return cpu_has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}
#endif

const CpuKernels& select() {
#ifdef ENVCHECK_CPU_X86
  // at::get_cpu_capability() is ATen's choice as a string ("DEFAULT", "AVX2", "AVX512", ...),
  // after applying ATEN_CPU_CAPABILITY.
  const std::string aten = at::get_cpu_capability();
  if (aten == "AVX512" && cpu_has_avx512()) return AVX512::kernel_table();
  if ((aten == "AVX512" || aten == "AVX2") && cpu_has_avx2()) return AVX2::kernel_table();
#endif
  return DEFAULT::kernel_table();
}

}  // namespace

const CpuKernels& cpu_kernels() {
  static const CpuKernels& chosen = select();
  return chosen;
}

std::vector<std::string> cpu_runnable_variants() {
  std::vector<std::string> out{"DEFAULT"};
#ifdef ENVCHECK_CPU_X86
  if (cpu_has_avx2()) out.push_back("AVX2");
  if (cpu_has_avx512()) out.push_back("AVX512");
#endif
  return out;
}

const CpuKernels* cpu_kernels_for(const std::string& isa) {
  const std::vector<std::string> ok = cpu_runnable_variants();
  const std::string want = isa == "best" ? ok.back() : isa;
  if (std::find(ok.begin(), ok.end(), want) == ok.end()) return nullptr;
#ifdef ENVCHECK_CPU_X86
  if (want == "AVX512") return &AVX512::kernel_table();
  if (want == "AVX2") return &AVX2::kernel_table();
#endif
  return &DEFAULT::kernel_table();
}

std::string cpu_kernel_isa_json() {
  const CpuKernels& k = cpu_kernels();
  std::ostringstream js;
  js << "{\"compiled\": [\"DEFAULT\"";
#ifdef ENVCHECK_CPU_X86
  js << ", \"AVX2\", \"AVX512\"";
#endif
  js << "], \"selected\": \"" << k.isa << "\", \"cpu_supports\": [";
#ifdef ENVCHECK_CPU_X86
  bool first = true;
  for (auto [name, ok] : {std::pair<const char*, bool>{"AVX2", cpu_has_avx2()}, {"AVX512", cpu_has_avx512()}}) {
    if (!ok) continue;
    js << (first ? "" : ", ") << '"' << name << '"';
    first = false;
  }
#endif
  const char* env = std::getenv("ATEN_CPU_CAPABILITY");
  js << "], \"aten_capability\": \"" << at::get_cpu_capability() << "\", \"aten_cpu_capability_env\": ";
  if (env) js << '"' << env << '"'; else js << "null";
  const CacheSizes& cs = cpu_cache_sizes();
  const GemmBlocking blk = k.sgemm->blocking();
  js << ", \"vector_width_floats\": " << k.vec_floats << ", \"sgemm_register_block\": [" << k.sgemm->mr << ", "
     << k.sgemm->nr << "], \"sgemm_blocking\": {\"mc\": " << blk.mc << ", \"kc\": " << blk.kc << ", \"nc\": " << blk.nc
     << ", \"from\": \"" << blk.how << "\"}, \"cache_bytes\": {\"l1d\": " << cs.l1d << ", \"l2\": " << cs.l2
     << ", \"l3\": " << cs.l3 << ", \"source\": \"" << cs.source << "\"}, \"openmp\": " <<
#ifdef _OPENMP
      "true"
#else
      "false"
#endif
     << ", \"max_threads\": " << at::get_num_threads() << "}";
  return js.str();
}

namespace {

int64_t parallel_threads_used(int64_t n) {
  TORCH_CHECK(n >= 0, "envcheck::parallel_threads_used: expected n >= 0, got ", n);
  std::mutex mu;
  std::set<std::thread::id> ids;
  // grain 1: every thread of the pool may take a chunk; each chunk does a little work so that the
  // pool's threads really get to run.
  at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
    volatile double sink = 0;
    for (int64_t i = begin; i < end; ++i)
      for (int j = 0; j < 20000; ++j) sink = sink + j * 1e-9;
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  return static_cast<int64_t>(ids.size());
}

}  // namespace

TORCH_LIBRARY_IMPL(envcheck, CompositeExplicitAutograd, m) {
  m.impl("cpu_kernel_isa", []() { return cpu_kernel_isa_json(); });
  m.impl("parallel_threads_used", parallel_threads_used);
}

}  // namespace envcheck
