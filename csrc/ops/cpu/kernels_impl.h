// The CPU kernels of every op, compiled once per instruction set.  Include this only from a
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
#include "ops/cpu/roofline_kernel_isa.h"
#include "ops/cpu/triad_kernel_isa.h"
#include "ops/cpu/bias_gelu_kernel_isa.h"
#include "ops/cpu/softmax_kernel_isa.h"
#include "ops/cpu/sum_kernel_isa.h"
#include "ops/cpu/sgemm_kernel_isa.h"

}  // namespace

#define ENVCHECK_STR2(x) #x
#define ENVCHECK_STR(x) ENVCHECK_STR2(x)

const CpuKernels& kernel_table() {
  static const CpuKernels table{ENVCHECK_STR(CPU_CAPABILITY), static_cast<int>(Vec::size()), kMR, kNR,
                                triad_kernel, sum_kernel, softmax_kernel, bias_gelu_kernel, sgemm_kernel,
                                sgemm_blocking, &roofline_table()};
  return table;
}

}  // namespace CPU_CAPABILITY
}  // namespace envcheck
