// Build unit: the CPU entry points (csrc/ops/cpu/<op>_kernel.cpp),
// compiled in one compiler run.  Most of a small op file's compile time is parsing torch's
// headers: here they are parsed once, not once per op (torch_envcheck/ext/buildcfg.py,
// build_units).  The files below are compiled only through this one; a new op's file is added
// here (tests/integration/ext/test_buildcfg.py checks that none is left out).
#include "ops/cpu/bias_gelu_kernel.cpp"
#include "ops/cpu/roofline_kernel.cpp"
#include "ops/cpu/sgemm_kernel.cpp"
#include "ops/cpu/softmax_kernel.cpp"
#include "ops/cpu/sum_kernel.cpp"
#include "ops/cpu/triad_kernel.cpp"
