// Build unit: the op schemas (csrc/ops/<op>.cpp),
// compiled in one compiler run.  Most of a small op file's compile time is parsing torch's
// headers: here they are parsed once, not once per op (torch_envcheck/ext/buildcfg.py,
// build_units).  The files below are compiled only through this one; a new op's file is added
// here (tests/integration/ext/test_buildcfg.py checks that none is left out).
#include "ops/bias_gelu.cpp"
#include "ops/roofline.cpp"
#include "ops/sgemm.cpp"
#include "ops/softmax.cpp"
#include "ops/sum.cpp"
#include "ops/triad.cpp"
