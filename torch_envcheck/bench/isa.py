"""`torch-envcheck bench --isa ...`: the CPU benchmark once per forced kernel variant.

The extension compiles its CPU kernels once per instruction set (DEFAULT, AVX2, AVX512) and picks one
per process, the way ATen does, honouring ATEN_CPU_CAPABILITY (see csrc/ops/cpu/isa.cpp).  The choice is
made once per process, so each forced variant is benchmarked in a fresh child process
(`python -m torch_envcheck.bench --json --device cpu ...` with ATEN_CPU_CAPABILITY set).  A variant this
CPU cannot run is reported as "not runnable on this CPU" and never started.

ATEN_CPU_CAPABILITY also narrows torch's own vectorised kernels (torch.add, torch.sum, softmax), but not
the libraries that pick their own code path: MKL, which torch.matmul calls, and oneDNN, whose JIT eltwise
kernel runs torch's CPU gelu (seen with ONEDNN_VERBOSE=1 in torch 2.14: `eltwise,jit:avx512_core_bf16`
under ATEN_CPU_CAPABILITY=avx2 on an AVX-512 CPU).  So that a forced variant is compared as on a CPU that
would select it, the child also gets MKL_ENABLE_INSTRUCTIONS and ONEDNN_MAX_CPU_ISA at the matching level
(unless the caller set them); the report records the variables for each variant, and each child's
builtin_dispatch what MKL and oneDNN said they ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

VARIANTS = ("DEFAULT", "AVX2", "AVX512")
ATEN_VALUE = {"DEFAULT": "default", "AVX2": "avx2", "AVX512": "avx512"}
# MKL's names for the same levels: oneMKL Developer Guide for Linux, "Instruction Set Specific Dispatching
# on Intel Architectures" (https://www.intel.com/content/www/us/en/docs/onemkl/developer-guide-linux/2025-0/
# instruction-set-specific-dispatch-on-intel-archs.html), which also says that this "is not available on
# non-Intel processors": on an AMD CPU MKL may ignore it, and the report then compares against MKL's
# usual code path.
MKL_VALUE = {"DEFAULT": "SSE4_2", "AVX2": "AVX2", "AVX512": "AVX512"}
# oneDNN's names: the oneDNN developer guide, "CPU Dispatcher Control"
# (https://oneapi-src.github.io/oneDNN/dev_guide_cpu_dispatcher_control.html): ONEDNN_MAX_CPU_ISA limits
# the instruction sets oneDNN detects (SSE41, AVX2, AVX512_CORE = AVX-512 with BW, VL and DQ, as the
# AVX512 variant is compiled for).  It works on AMD CPUs too (jit:avx2 and jit:sse41 on a Zen 5).
ONEDNN_VALUE = {"DEFAULT": "SSE41", "AVX2": "AVX2", "AVX512": "AVX512_CORE"}
NOT_RUNNABLE = "not runnable on this CPU"
CHILD_TIMEOUT_S = 1800


class IsaUsageError(ValueError):
    """--isa names something other than auto, all or a list of known variants."""


def parse(value: str) -> list | None:
    """'auto' -> None (no forcing); 'all' -> every variant; 'avx2,default' -> those, in VARIANTS order."""
    text = (value or "").strip().lower()
    if text in ("", "auto"):
        return None
    if text == "all":
        return list(VARIANTS)
    names = [w.strip().upper() for w in text.split(",") if w.strip()]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown or not names:
        raise IsaUsageError(f"unknown --isa value {', '.join(unknown) or repr(value)}; expected auto, all, or "
                            f"some of {', '.join(v.lower() for v in VARIANTS)} separated by commas")
    return [v for v in VARIANTS if v in names]


def _child_command(quick: bool, ops: str | None) -> list:
    cmd = [sys.executable, "-m", "torch_envcheck.bench", "--json", "--no-progress", "--device", "cpu"]
    if quick:
        cmd.append("--quick")
    if ops:
        cmd += ["--ops", ops]
    return cmd


def _child_env(variant: str) -> tuple[dict, dict, str]:
    """(environment for the child, the forcing variables it sets, its working directory)."""
    env = dict(os.environ)
    forced = {"ATEN_CPU_CAPABILITY": ATEN_VALUE[variant]}
    forced["MKL_ENABLE_INSTRUCTIONS"] = env.get("MKL_ENABLE_INSTRUCTIONS") or MKL_VALUE[variant]
    forced["ONEDNN_MAX_CPU_ISA"] = env.get("ONEDNN_MAX_CPU_ISA") or ONEDNN_VALUE[variant]
    env.update(forced)
    # The child must import this very torch_envcheck (a checkout or the installed one) and so the
    # same _C, and must not build it again.
    parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # above the package
    env["PYTHONPATH"] = os.pathsep.join([parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["TORCH_ENVCHECK_AUTOBUILD"] = "0"
    # `python -m` puts the working directory first on sys.path: make that the same directory.
    return env, forced, parent


def run_variant(variant: str, quick: bool, ops: str | None, runner=subprocess.run) -> dict:
    env, forced, cwd = _child_env(variant)
    entry = {"variant": variant, "forced_with": forced}
    try:
        proc = runner(_child_command(quick, ops), env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S,
                      cwd=cwd)
    except subprocess.TimeoutExpired:
        entry.update(status="error", error=f"the benchmark of {variant} took longer than {CHILD_TIMEOUT_S} s")
        return entry
    try:
        report = json.loads(proc.stdout) if proc.returncode == 0 else None
    except ValueError:
        report = None
    if report is None:
        tail = (proc.stderr or "").strip().splitlines()[-1:] or ["no output"]
        entry.update(status="error", error=f"exit status {proc.returncode}: {tail[0][:300]}")
        return entry
    selected = report.get("cpu_kernel_isa", {}).get("selected")
    if selected != variant:
        entry.update(status="error", error=f"ATEN_CPU_CAPABILITY={ATEN_VALUE[variant]} selected {selected}, "
                                           f"not {variant}", report=report)
        return entry
    entry.update(status="measured", report=report)
    return entry


def run_variants(variants: list, isa_info: dict, quick: bool, ops: str | None, progress=None,
                 runner=subprocess.run) -> list:
    """One entry per requested variant: measured (with the child's report), not runnable, or error."""
    progress = progress or (lambda step: None)
    out = []
    for v in variants:
        if v not in isa_info.get("compiled", []):
            out.append({"variant": v, "status": "not compiled",
                        "reason": f"this build has only {', '.join(isa_info.get('compiled', []))}"})
        elif v != "DEFAULT" and v not in isa_info.get("cpu_supports", []):
            out.append({"variant": v, "status": NOT_RUNNABLE,
                        "reason": f"this CPU does not report the {v} features the variant is compiled for "
                                  f"(CPU supports: {', '.join(isa_info.get('cpu_supports', [])) or 'none of AVX2, AVX512'})"})
        else:
            out.append(run_variant(v, quick, ops, runner=runner))
        progress(f"cpu kernels {v}: {out[-1]['status']}")
    return out


def isa_report(variants: list, quick: bool, ops: str | None, progress=None, runner=subprocess.run) -> dict:
    """The report of `bench --isa ...`: this process's view of the kernels and one entry per variant."""
    import platform  # noqa: PLC0415

    import torch  # noqa: PLC0415

    from torch_envcheck.ext import ops as ops_mod  # noqa: PLC0415
    from torch_envcheck.bench import machine  # noqa: PLC0415

    from torch_envcheck.bench.suite import _load_average  # noqa: PLC0415

    isa_info = ops_mod.cpu_kernel_isa()
    load_start = _load_average()
    report = {
        "schema": 1, "kind": "isa_variants", "quick": quick, "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "machine": {"cpu": machine.cpu_model(), "platform": platform.platform(), "cpu_flags": machine.cpu_flags()},
        "cpu_kernel_isa": isa_info,
        "how": "each variant in its own process: python -m torch_envcheck.bench --json --device cpu, with "
               "ATEN_CPU_CAPABILITY (and MKL_ENABLE_INSTRUCTIONS, ONEDNN_MAX_CPU_ISA) set as in forced_with",
        "variants": run_variants(variants, isa_info, quick, ops, progress=progress, runner=runner),
    }
    report["machine"]["load_average"] = {"start": load_start, "end": _load_average(), "cpus": os.cpu_count()}
    return report
