// The extension's ops: one line each, and nothing else lists them.
//
//   ENVCHECK_OP(name, CPU or NO_CPU, CUDA or NO_CUDA)
//
// An op is its own files (as torchvision's csrc/ops/<op>.cpp, ops/cpu/<op>_kernel.cpp, ...):
//   ops/<name>.cpp                      the schema (TORCH_LIBRARY_FRAGMENT)                  always
//   ops/cpu/<name>_kernel.h             struct cpu_op::<name>: its kernels of one ISA         CPU
//   ops/cpu/<name>_kernel_isa.h         their bodies, compiled once per ISA, ending in
//                                       `const cpu_op::<name> <name>_kernels{...}`           CPU
//   ops/cpu/<name>_kernel.cpp           checks, `cpu_kernels().<name>->...`, registration     CPU
//   ops/cuda/<name>_kernel.h            its launchers (no ATen)                               CUDA
//   ops/cuda/<name>_kernel.cu           the kernels and launchers (nvcc)                      CUDA
//   ops/cuda/<name>_glue.cpp            checks and registration (host compiler)               CUDA
//
// From this list come: the build units that compile the per-op .cpp files together and the header
// that puts every op's ISA bodies into each ISA's translation unit (generated at build time by
// torch_envcheck/ext/buildcfg.py, which reads this file), and the named entries of the CPU kernel table
// (ops/cpu/kernels.h, filled in ops/cpu/kernels_impl.h).  The CUDA launchers need no central list: an
// op's glue includes its own ops/cuda/<name>_kernel.h.
//
// Include it with ENVCHECK_OP defined; it defines nothing itself and may be included many times.
ENVCHECK_OP(bias_gelu, CPU, CUDA)
ENVCHECK_OP(roofline, CPU, CUDA)
ENVCHECK_OP(sgemm, CPU, CUDA)
ENVCHECK_OP(softmax, CPU, CUDA)
ENVCHECK_OP(sum, CPU, CUDA)
ENVCHECK_OP(triad, CPU, CUDA)
ENVCHECK_OP(vec_math, CPU, NO_CUDA)
