// Shared by the CPU kernel bodies (*_kernel_isa.h), compiled once per instruction set inside
// envcheck::CPU_CAPABILITY (see kernels_impl.h).

using Vec = at::vec::Vectorized<float>;

// Enough work per task that at::parallel_for's overhead is negligible (ATen uses 32768 too).
constexpr int64_t kGrain = 32768;
