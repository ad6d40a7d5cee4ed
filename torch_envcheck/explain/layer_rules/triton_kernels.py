"""Layer rules for kernels written in Triton, read from its compiler's own messages: a CompilationError in the kernel's
source, ptxas running out of registers for one configuration, LLVM unable to select an instruction of another GPU
family, and torch's pin of its Triton release.

    triton_kernel_source_error  "CompilationError: at L:C:" with the kernel's source -> not-environment: the kernel's code
    ptxas_register_allocation  ptxas' C7600 "Register allocation failed with register count of N" -> not-environment: the
                         kernel's configuration (num_warps, block sizes)
    gpu_family_instruction  LLVM's "Cannot select: intrinsic %llvm.nvvm.tcgen05/wgmma..." -> arch: instructions of one
                         GPU family (sm_100a, sm_90a) asked on another
    torch_pins_triton    pip's "torch X requires triton==Y, but you have triton Z" -> toolchain: triton==Y, or the torch
                         release that pins Z
    triton_older_than_cuda  "Triton only support CUDA 10.0 or higher, but got CUDA version: X" -> arch: a Triton whose
                         PTX table knows that CUDA
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

# Triton's CompilationError (triton.compiler.errors; triton.code_gen before 2.0) prints "at LINE:COL:" and the kernel's
# source up to the failing line: the error is in the @triton.jit function being compiled
_SOURCE_ERROR = re.compile(r"\bCompilationError: at \d{1,5}:\d{1,4}:")


def triton_kernel_source_error(ent, text):
    m, at = last_in_tail(_SOURCE_ERROR, text, "CompilationError")
    if m is None:
        return None
    sig = _sig("triton-kernel-source-error", "not-environment",
               "Triton could not compile the kernel's own source (CompilationError at a line of the kernel)", 80,
               "Triton reports where in the @triton.jit function its front end or a compiler pass failed: the line and "
               "column after \"at\", with the kernel's source printed up to there. The error is in that kernel's "
               "code or in the types and shapes it was called with, not in the installation.",
               look_at="Read the last lines of the message: the statement at that line and the error under it (a shape "
                       "or type tl.* does not accept, a non-constexpr where a tl.constexpr is needed, a block size that "
                       "is not a power of two). Kernels from a package: that package's release for the installed "
                       "Triton.",
               areas=("program",),
               sources=({"url": "https://triton-lang.org/main/programming-guide/chapter-1/introduction.html",
                         "what": "Triton's programming model: @triton.jit kernels and their compile-time constants"},))
    return _match(sig, text, at, {})


# ptxas' own diagnostic (C7600) when a kernel needs more registers than the limit it compiles for (255 per thread):
# Triton passes the configuration's num_warps, which sets that limit
_PTXAS_REGISTERS = re.compile(r"Register allocation failed with register count of '?(?P<n>\d{2,3})'?")


def ptxas_register_allocation(ent, text):
    m, at = last_in_tail(_PTXAS_REGISTERS, text, "Register allocation failed")
    if m is None:
        return None
    sig = _sig("ptxas-register-allocation-failed", "not-environment",
               "ptxas ran out of registers for this kernel's configuration ({n} per thread)", 82,
               "ptxas could not fit the kernel into {n} registers per thread: the tile sizes, num_warps or num_stages "
               "of this configuration need more. It is a property of that configuration on this architecture, not of "
               "the installation; an autotuner normally skips such a configuration.",
               look_at="Use smaller block sizes or fewer stages for this kernel, or more warps to spread the tile; with "
                       "@triton.autotune, drop the configurations that fail (or prune them with "
                       "prune_configs_by). A package's kernel: report it with the GPU and shapes.",
               areas=("program",),
               sources=({"url": "https://triton-lang.org/main/python-api/generated/triton.autotune.html",
                         "what": "triton.autotune: configurations, num_warps, num_stages, pruning"},))
    return _match(sig, text, at, {"n": m.group("n")})


# PTX instruction families of one GPU generation (NVIDIA's PTX ISA: tcgen05 on sm_100a/sm_101a/sm_103a, wgmma and
# setmaxnreg on sm_90a): LLVM's NVPTX backend finds no instruction for the intrinsic on another target
_FAMILY_INTRINSICS = (("tcgen05", "sm_100a / sm_103a (data-center Blackwell: B200, B300, GB200)",
                       "fifth-generation Tensor Core instructions"),
                      ("wgmma", "sm_90a (Hopper: H100, H200, GH200)", "warpgroup matrix-multiply instructions"),
                      ("setmaxnreg", "sm_90a (Hopper)", "register reallocation between warpgroups"))
_CANNOT_SELECT = re.compile(r"LLVM ERROR: Cannot select: intrinsic %llvm\.nvvm\.(?P<name>[\w.]{2,80})")


def gpu_family_instruction(ent, text):
    m, at = last_in_tail(_CANNOT_SELECT, text, "Cannot select")
    if m is None:
        return None
    family = next((f for f in _FAMILY_INTRINSICS if m.group("name").startswith(f[0])), None)
    if family is None:
        return None
    sig = _sig("gpu-family-instruction", "arch",
               "the kernel uses {prefix} instructions, which exist only on {targets}", 84,
               "The kernel (a Triton or Gluon kernel, or a library's) emits {what} ({prefix}.*), part of the PTX ISA "
               "only for {targets}; LLVM's NVPTX backend has no instruction for them on this GPU's target, and aborts.",
               # the family's targets come from the table above, not from the text: prose, not a shell word
               fix="Run this kernel on a GPU of that family (" + family[1] + "), or use the kernel path for this GPU: the "
                   "library's release or option that selects another implementation on this architecture (a kernel "
                   "written for {prefix} does not run elsewhere, whatever the build).",
               areas=("gpu",),
               sources=({"url": "https://docs.nvidia.com/cuda/parallel-thread-execution/",
                         "what": "PTX ISA: tcgen05 (sm_100a family), wgmma and setmaxnreg (sm_90a) target requirements"},))
    return _match(sig, text, at, {"prefix": family[0], "targets": family[1], "what": family[2]})


# pip's resolver, older ("has requirement ...; markers, but you'll have") and newer ("requires ..., but you have"):
# each torch release pins the Triton it was built and tested with
_TORCH_TRITON_PIN = re.compile(r"\btorch (?P<ver>\d[\w.+]{1,40}) (?:has requirement|requires) (?P<dist>(?:pytorch-)?triton)=="
                               r"(?P<want>\d[\w.+]{0,40})(?:;[^\n,]{0,200})?, but you(?:'ll)? have (?:pytorch-)?triton "
                               r"(?P<have>\d[\w.+]{0,40}) which is incompatible")


def torch_pins_triton(ent, text):
    m, at = last_in_tail(_TORCH_TRITON_PIN, text, "triton")
    if m is None:
        return None
    sig = _sig("torch-pins-triton", "toolchain", "torch {ver} pins {dist}=={want}; the environment has {have}", 84,
               "Each torch release requires exactly the Triton it was built and tested with (torch.compile's "
               "generated code and Triton's API change together); torch {ver} requires {dist}=={want}, and another "
               "install brought {have}.",
               fix="Install the pair together: `pip install \"{dist}=={want}\"` for torch {ver}, or the torch release "
                   "whose pin is {have} (with its torchvision/torchaudio, from the same index), in one command so pip "
                   "keeps them matched; a package that wants another Triton than torch's needs its release made for "
                   "this torch.",
               areas=("torch",),
               sources=({"url": "https://github.com/pytorch/pytorch/blob/main/RELEASE.md",
                         "what": "torch releases and the Triton version each pins"},))
    return _match(sig, text, at, {"ver": m.group("ver"), "dist": m.group("dist"), "want": m.group("want"),
                                  "have": m.group("have")})


# Triton's NVIDIA backend maps the CUDA toolkit's version (ptxas --version) to a PTX ISA version from its own table and
# raises this for a version the table does not hold: a CUDA newer than that Triton release (ptx_get_version in
# third_party/nvidia/backend/compiler.py)
_TRITON_CUDA_UNKNOWN = re.compile(r"Triton only supports? CUDA 10\.0 or higher, but got CUDA version: ?(?P<cuda>\d{1,2}\.\d{1,2})")


def triton_older_than_cuda(ent, text):
    m, at = last_in_tail(_TRITON_CUDA_UNKNOWN, text, "but got CUDA version")
    if m is None:
        return None
    sig = _sig("triton-older-than-cuda", "arch", "this Triton does not know CUDA {cuda} (its PTX table ends before it)", 86,
               "Triton turns the CUDA version of the ptxas it uses into a PTX version from its own table; CUDA {cuda} "
               "is not in this release's table, so it is newer than this Triton (a ptxas from a newer toolkit found "
               "through TRITON_PTXAS_PATH or PATH, or torch of a newer CUDA beside an old Triton).",
               fix="Upgrade Triton to the release the installed torch pins (`pip install -U triton`; on Windows "
                   "`pip install -U triton-windows` of the version its README gives for your torch: CUDA 12.8 needs "
                   "Triton 3.3 or later, with torch 2.7), or point TRITON_PTXAS_PATH at a ptxas of a CUDA this Triton "
                   "knows.",
               areas=("toolchain",),
               sources=({"url": "https://github.com/woct0rdho/triton-windows",
                         "what": "triton-windows: the Triton release per torch release; CUDA 12.8 needs Triton 3.3"},))
    return _match(sig, text, at, {"cuda": m.group("cuda")})
