// The CPU kernel table and its run-time selection.
//
// The same kernel code (csrc/ops/cpu/*_kernel_isa.h) is compiled once per instruction set, each time in
// its own translation unit and namespace (kernels_default.cpp -> envcheck::DEFAULT, kernels_avx2.cpp ->
// envcheck::AVX2, kernels_avx512.cpp -> envcheck::AVX512), the way ATen builds its native kernels.
// cpu_kernels() picks one table at run time (see isa.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace envcheck {

// Data cache sizes in bytes (cache_info.cpp) and where they came from ("sysfs", "sysconf", "assumed").
struct CacheSizes {
  int64_t l1d, l2, l3;
  std::string source;
};
const CacheSizes& cpu_cache_sizes();

// What ops/op_list.h's backend flags expand to where only ops with CPU kernels count.
#define ENVCHECK_IF_CPU(...) __VA_ARGS__
#define ENVCHECK_IF_NO_CPU(...)

// Each op's kernels of one instruction set: struct cpu_op::<op>, defined in ops/cpu/<op>_kernel.h.
namespace cpu_op {
#define ENVCHECK_OP(name, cpu, cuda) ENVCHECK_IF_##cpu(struct name;)
#include "ops/op_list.h"
#undef ENVCHECK_OP
}  // namespace cpu_op

// The kernels of one instruction-set variant: one named entry per op of ops/op_list.h with CPU
// kernels (`cpu_kernels().triad->run(...)`), each filled by that op's <op>_kernel_isa.h
// (kernels_impl.h), so no entry depends on where it stands.
struct CpuKernels {
  const char* isa = nullptr;  // "DEFAULT", "AVX2", "AVX512"
  int vec_floats = 0;         // floats per at::vec::Vectorized<float> in this variant
#define ENVCHECK_OP(name, cpu, cuda) ENVCHECK_IF_##cpu(const cpu_op::name* name = nullptr;)
#include "ops/op_list.h"
#undef ENVCHECK_OP
};

// One per compiled variant; the x86 variants exist only on x86-64 builds.
namespace DEFAULT { const CpuKernels& kernel_table(); }
#if defined(__x86_64__) || defined(_M_X64)
#define ENVCHECK_CPU_X86 1
namespace AVX2 { const CpuKernels& kernel_table(); }
namespace AVX512 { const CpuKernels& kernel_table(); }
#endif

// The table selected for this process (cached after the first call).
const CpuKernels& cpu_kernels();
// The variants compiled into this build that this CPU can run, lowest first ("DEFAULT", "AVX2", ...).
std::vector<std::string> cpu_runnable_variants();
// The table of a variant by name ("DEFAULT", "AVX2", "AVX512", or "best": the highest runnable one);
// nullptr when it is not compiled or this CPU cannot run it.
const CpuKernels* cpu_kernels_for(const std::string& isa);
// JSON for envcheck::cpu_kernel_isa().
std::string cpu_kernel_isa_json();

}  // namespace envcheck
