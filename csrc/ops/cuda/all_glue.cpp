// Build unit: the CUDA ops' host-side glue (csrc/ops/cuda/<op>_glue.cpp),
// compiled in one compiler run.  Most of a small op file's compile time is parsing torch's
// headers: here they are parsed once, not once per op (torch_envcheck/ext/buildcfg.py,
// build_units).  The files below are compiled only through this one; a new op's file is added
// here (tests/integration/ext/test_buildcfg.py checks that none is left out).
#include "ops/cuda/bias_gelu_glue.cpp"
#include "ops/cuda/roofline_glue.cpp"
#include "ops/cuda/sgemm_glue.cpp"
#include "ops/cuda/softmax_glue.cpp"
#include "ops/cuda/sum_glue.cpp"
#include "ops/cuda/triad_glue.cpp"
