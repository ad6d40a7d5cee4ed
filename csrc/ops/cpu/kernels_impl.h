// The CPU kernels of every op (ops/op_list.h), compiled once per instruction set.  Include this only from a
// kernels_<isa>.cpp that has set the target pragma and CPU_CAPABILITY before any other include.
#include <ATen/Parallel.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <limits>
#include <vector>

#include "ops/cpu/kernels.h"

#if defined(ENVCHECK_SSE2_KERNELS)
#include <emmintrin.h>
#endif

namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

#if defined(ENVCHECK_SSE2_KERNELS)
#include "ops/cpu/sse2_math.h"
#endif
#include "ops/cpu/common_isa.h"
#include "ops/cpu/vec_math.h"

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck

// Generated at build time from ops/op_list.h (torch_envcheck/ext/buildcfg.py): every op's
// ops/cpu/<op>_kernel_isa.h, each of which opens envcheck::CPU_CAPABILITY's unnamed namespace (the
// one above: common_isa.h is in scope there) and defines `<op>_kernels`.
#include "ops/cpu/all_kernels_isa.h"

namespace envcheck {
namespace CPU_CAPABILITY {

#define ENVCHECK_STR2(x) #x
#define ENVCHECK_STR(x) ENVCHECK_STR2(x)

const CpuKernels& kernel_table() {
  static const CpuKernels table = [] {
    CpuKernels t;
    t.isa = ENVCHECK_STR(CPU_CAPABILITY);
    t.vec_floats = static_cast<int>(Vec::size());
#define ENVCHECK_OP(name, cpu, cuda) ENVCHECK_IF_##cpu(t.name = &name##_kernels;)
#include "ops/op_list.h"
#undef ENVCHECK_OP
    return t;
  }();
  return table;
}

}  // namespace CPU_CAPABILITY
}  // namespace envcheck
