"""Layer rules for torch.compile at run time (Dynamo, TorchInductor and the Triton compiler under it), read from their
own messages.

    inductor_cxx_compiler_not_found  inductor's "Compiler: cl is not found." (cpp_builder's check on Windows) -> toolchain:
                         MSVC's cl.exe on PATH (the Build Tools, a developer prompt, vcvarsall.bat x64), CXX, or eager
    dynamo_recompile_limit  Dynamo's "hit config.recompile_limit (8)" / FailOnRecompileLimitHit -> not-environment: the
                         guard that keeps failing (its last reason), dynamic shapes, the limit
    triton_compiler_pass_failed  "PassManager::run failed" inside Triton's compiler stages -> not-environment: the kernel's
                         configuration hits a compiler bug (other autotune configs, the fusion off, eager)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail
from torch_envcheck.explain.match import last_match

_CPP_BUILDER = {"url": "https://github.com/pytorch/pytorch/blob/7da5b4a94b1441756fbe353376e95e40df49ce94/torch/_inductor/"
                       "cpp_builder.py",
                "what": "get_cpp_compiler(): on Windows CXX or 'cl', checked by check_compiler_exist_windows ('Compiler: "
                        "{compiler} is not found.')"}

_COMPILER_NOT_FOUND = re.compile(r"Compiler: (?P<compiler>[\w.+\\/:-]{1,120}) is not found\.")


def inductor_cxx_compiler_not_found(ent, text):
    m, at = last_in_tail(_COMPILER_NOT_FOUND, text, "is not found.")
    if m is None:
        return None
    compiler = m.group("compiler")
    msvc = compiler.lower() in ("cl", "cl.exe")
    sig = _sig("inductor-cxx-compiler-not-found", "toolchain",
               "torch.compile (inductor) finds no C++ compiler: '{compiler}' is not on PATH", 86,
               "On Windows inductor compiles its C++ (CPU kernels, and the checks it makes of the CPU even for GPU "
               "models) with the compiler named by CXX, MSVC's cl.exe by default, and first checks it can start it; "
               "'{compiler}' could not be found. " +
               ("cl.exe is on PATH only inside a Visual Studio developer prompt (or after vcvarsall.bat), even where "
                "the Build Tools are installed." if msvc else "CXX names a compiler that is not on PATH."),
               fix=("Install the Visual Studio Build Tools with the \"Desktop development with C++\" workload, and start "
                    "Python from the \"x64 Native Tools Command Prompt for VS\" (or run `call \"<Build Tools>\\VC\\"
                    "Auxiliary\\Build\\vcvarsall.bat\" x64` in that shell first) so cl.exe is on PATH; `where cl` must "
                    "find it. Or run without torch.compile (eager)." if msvc else
                    "Set CXX to a compiler that is installed and on PATH (or unset it to use MSVC's cl.exe from a "
                    "developer prompt); `where {compiler}` must find it. Or run without torch.compile (eager)."),
               areas=("toolchain",), sources=(_CPP_BUILDER,))
    return _match(sig, text, at, {"compiler": compiler})


_RECOMPILE_LIMIT = re.compile(r"hit config\.(?P<cfg>recompile_limit|cache_size_limit|accumulated_(?:recompile|cache_size)_limit)"
                              r" \((?P<n>\d{1,6})\)|FailOnRecompileLimitHit|\brecompile_limit reached\b|"
                              r"cache_size_limit reached")
_LAST_REASON = re.compile(r"last reason: (?:\d{1,4}/\d{1,4}: )?(?P<reason>[^\n]{3,200})")


def dynamo_recompile_limit(ent, text):
    m, at = last_in_tail(_RECOMPILE_LIMIT, text)
    if m is None:
        return None
    r = last_match(_LAST_REASON, text[-CONTEXT_TAIL:])
    # the guard itself, without the hint Dynamo appends ("Guard failed on a parameter, consider ...")
    reason = re.split(r"\.\s+(?=Guard failed|[Cc]onsider|To )", r.group("reason"))[0].strip().rstrip(".") if r else None
    cfg = m.group("cfg") or ("cache_size_limit" if "cache_size" in m.group(0) else "recompile_limit")
    sig = _sig("dynamo-recompile-limit", "not-environment",
               "torch.compile recompiled a function until its limit" + (": {reason}" if reason else ""), 84,
               "Dynamo compiles a function for the guards its first inputs satisfy (shapes, dtypes, Python values it "
               "specialised on) and recompiles when a call fails them; after torch._dynamo.config.{cfg} recompilations "
               "it stops compiling that function (falls back to eager, or raises under fullgraph=True)." +
               (" The guard that kept failing: {reason}." if reason else "") +
               " It is the inputs the program passes, not the installation.",
               look_at="Keep what changes from call to call out of the guards: mark the changing dimension dynamic "
                       "(torch._dynamo.mark_dynamic(x, dim), or torch.compile(..., dynamic=True)); pass changing Python "
                       "numbers as tensors; for parameters of several shapes set "
                       "torch._dynamo.config.force_parameter_static_shapes = False; or raise "
                       "torch._dynamo.config.{cfg} if the shapes are few. TORCH_LOGS=recompiles prints every reason.",
               areas=("program",),
               sources=({"url": "https://github.com/pytorch/pytorch/blob/ce61ed0ff8efb961c5b52fb4a2cb401c1a8e1473/torch/"
                                "_dynamo/convert_frame.py",
                         "what": "'torch._dynamo hit config.recompile_limit' with the function and the last failing "
                                 "guard; FailOnRecompileLimitHit under fullgraph"},
                        {"url": "https://pytorch.org/docs/stable/torch.compiler_troubleshooting.html",
                         "what": "torch.compile troubleshooting: recompilations, dynamic shapes, TORCH_LOGS=recompiles"}))
    return _match(sig, text, at, {"cfg": cfg, "reason": reason})


# MLIR's pass manager failing inside one of Triton's compiler stages (make_ttir, make_ttgir, make_llir, make_ptx...)
_PASS_FAILED = re.compile(r"PassManager::run failed")
_TRITON_STAGE = re.compile(r"\bmake_(?:ttir|ttgir|llir|ptx|amdgcn)\b|triton[/\\](?:backends|compiler)|triton_(?:per|red|poi|tem)_")
# words that make it the GPU's architecture rather than one kernel's configuration
_ARCH_WORDS = re.compile(r"(?i)\b(?:unsupported|not supported|unknown)\b[^\n]{0,60}\b(?:sm_?\d{2,3}a?|gfx\d{3,4}|arch)")


def triton_compiler_pass_failed(ent, text):
    m, at = last_in_tail(_PASS_FAILED, text, "PassManager::run failed")
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    if _TRITON_STAGE.search(tail) is None or _ARCH_WORDS.search(tail) is not None:
        return None
    sig = _sig("triton-compiler-pass-failed", "not-environment",
               "Triton's compiler failed on this kernel (PassManager::run failed)", 80,
               "One of Triton's compiler stages (its MLIR passes, between the kernel's Triton IR and the GPU's code) "
               "failed on this kernel with this configuration (block sizes, num_warps, num_stages): a bug of the "
               "compiler for this kernel shape, not a missing or mismatched part of the installation.",
               look_at="Leave out the autotune configs that fail (or change num_warps / num_stages / block sizes) in the "
                       "kernel that is compiled; for kernels inductor generated, run that function without "
                       "torch.compile (or turn off the fusion that built it). Triton prints a reproducer (MLIR_ENABLE_DUMP=1 "
                       "shows the failing pass): it belongs in a report to the project that owns the kernel or to Triton.",
               areas=("program",),
               sources=({"url": "https://github.com/triton-lang/triton/blob/2b43145c061b64ea40e7ff5dbe864e603ff9dd6b/"
                                "third_party/nvidia/backend/compiler.py",
                         "what": "the NVIDIA backend's stages (make_ttir, make_ttgir, make_llir, make_ptx), each running "
                                 "an MLIR pass manager"},))
    return _match(sig, text, at, {})
