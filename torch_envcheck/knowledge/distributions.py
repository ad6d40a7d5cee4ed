"""Names of distributions the doctor looks for, shared by the probes that record them and the advice
that writes them back: the conda packages whose records are kept, and the distributions whose
import name is `tensorflow`.  Pure data; no I/O."""

from __future__ import annotations

# The conda packages whose records are parsed and kept (the framework, its CUDA and C++ runtime
# libraries, the variant mutexes, and the companions `pin --conda` pins with their build strings).
CONDA_RELEVANT = (
    "python", "pytorch", "pytorch-cuda", "pytorch-mutex", "cpuonly", "torchvision", "torchaudio",
    "cudatoolkit", "cuda-toolkit", "cuda-runtime", "cuda-version", "cuda-cudart", "cuda-libraries",
    "cudnn", "nccl", "tensorflow", "tensorflow-gpu", "tensorflow-base",
    "libstdcxx-ng", "libstdcxx", "libgcc-ng", "libgcc", "libgomp", "_openmp_mutex", "llvm-openmp",
    "intel-openmp", "mkl",
)

# The distributions whose import name is `tensorflow`, in the order that names the installed one.
TF_PROVIDERS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-intel", "tensorflow-macos",
                "tensorflow-aarch64", "tensorflow-cpu-aws", "tensorflow-rocm", "tf-nightly", "tf-nightly-cpu")
