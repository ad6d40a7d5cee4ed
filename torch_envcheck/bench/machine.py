"""What the benchmark needs to know about the machine: last-level cache sizes, CPU model."""

from __future__ import annotations

import glob
import os
import platform
import re
import subprocess
import sys

DEFAULT_LLC = 32 << 20  # used only when the cache size cannot be read


def _parse_size(text: str) -> int | None:
    text = text.strip().upper()
    for suffix, mult in (("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)):
        if text.endswith(suffix):
            try:
                return int(float(text[:-1]) * mult)
            except ValueError:
                return None
    try:
        return int(text)
    except ValueError:
        return None


def cpu_llc_bytes() -> tuple[int, str]:
    """(size of the largest data/unified cache of cpu0, where it came from), read from sysfs."""
    best = None
    for idx in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            with open(os.path.join(idx, "type")) as fh:
                kind = fh.read().strip()
            with open(os.path.join(idx, "size")) as fh:
                size = _parse_size(fh.read())
            with open(os.path.join(idx, "level")) as fh:
                level = int(fh.read())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and size and (best is None or level > best[0]):
            best = (level, size)
    if best:
        return best[1], f"L{best[0]} from /sys/devices/system/cpu/cpu0/cache"
    return DEFAULT_LLC, "assumed 32 MiB (could not read /sys/devices/system/cpu/cpu0/cache)"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags() -> list:
    """The CPU's feature flags from /proc/cpuinfo (x86 "flags", arm64 "Features"); [] when unreadable."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith(("flags", "Features")):
                    return line.split(":", 1)[1].split()
    except OSError:
        pass
    return []


# The flags that decide which kernel variant a CPU can run (printed with the benchmark).
SIMD_FLAGS = ("sse2", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq", "avx512bw", "avx512vl",
              "avx512_vnni", "avx512_bf16", "amx_tile", "asimd", "sve")


def gpu_l2_bytes(torch, device) -> int:
    props = torch.cuda.get_device_properties(device)
    return int(getattr(props, "L2_cache_size", 0) or (50 << 20))


# What MKL's verbose mode says about its own code path, in its first line, e.g. "MKL_VERBOSE oneMKL 2024.0
# Update 2 Product build 20240605 for Intel(R) 64 architecture Intel(R) Advanced Vector Extensions 512
# (Intel(R) AVX-512) enabled processors, Lnx 2.60GHz lp64 gnu_thread".  On a CPU it does not identify
# as Intel it names no instruction set: "... architecture Intel(R) Architecture processors, Lnx ...".
_MKL_HEADER = re.compile(r"MKL_VERBOSE\s+(?:oneMKL|Intel\(R\) MKL)\s+(\S+).*?\barchitecture\s+(.+?),\s+(?:Lnx|Win|Mac)")
_MKL_ISA = (("AVX-512", "AVX512"), ("AVX512", "AVX512"), ("AVX2", "AVX2"), ("AVX)", "AVX"), ("SSE4", "SSE4_2"))
_MKL_PROBE = "a = torch.ones(64, 64); torch.mm(a, a)"


def mkl_statement(stdout: str) -> dict | None:
    """{"version", "says", "isa"} from MKL_VERBOSE output (isa None when MKL names none), or None."""
    m = _MKL_HEADER.search(stdout or "")
    if not m:
        return None
    says = m.group(2).strip()[:300]
    isa = next((name for key, name in _MKL_ISA if key in says), None)
    return {"version": m.group(1), "says": says, "isa": isa}


# What oneDNN's verbose mode says: its version ("onednn_verbose,v1,info,oneDNN v3.12.0 (commit ...)") and, for
# each primitive run, its implementation ("onednn_verbose,v1,primitive,exec,cpu,eltwise,jit:avx2,
# forward_training,...,alg:eltwise_gelu_erf ...").  torch's CPU gelu runs oneDNN's eltwise primitive when
# torch is built with it; an older or other build may print nothing (then ATen's own kernel ran).
_ONEDNN_VERSION = re.compile(r"(?:onednn|dnnl)_verbose,(?:v1,)?info,(?:oneDNN|DNNL) v(\S+)")
_ONEDNN_EXEC = re.compile(r"(?:onednn|dnnl)_verbose,(?:v1,)?(?:primitive,)?exec,cpu,eltwise,([^,\s]+),.*?alg:(\S+)")
_ONEDNN_PROBE = "torch.nn.functional.gelu(torch.ones(64, 64))"


def onednn_statement(stdout: str) -> dict | None:
    """{"version", "implementation", "alg"} of the eltwise primitive oneDNN ran, from ONEDNN_VERBOSE=1
    output; None when oneDNN ran no eltwise primitive."""
    text = stdout or ""
    m = _ONEDNN_EXEC.search(text)
    if not m:
        return None
    v = _ONEDNN_VERSION.search(text)
    return {"version": v.group(1) if v else None, "implementation": m.group(1)[:60], "alg": m.group(2)[:60]}


def builtin_dispatch(torch, runner=subprocess.run) -> dict:
    """Which code the built-ins run: ATen's own kernels (softmax, add, sum) follow ATen's capability
    (ATEN_CPU_CAPABILITY), while torch.matmul calls the BLAS library, which dispatches by itself (MKL
    ignores ATEN_CPU_CAPABILITY; MKL_ENABLE_INSTRUCTIONS can lower it on Intel CPUs), and gelu runs oneDNN's
    JIT eltwise kernel where torch has oneDNN, which also dispatches by itself (ONEDNN_MAX_CPU_ISA lowers
    it).  MKL's and oneDNN's own word is taken from their verbose modes in one child process (one small
    matmul, one small gelu)."""
    try:
        aten = torch.backends.cpu.get_cpu_capability()
    except Exception:  # an old torch without it
        aten = None
    out = {"aten_capability": aten, "aten_cpu_capability_env": os.environ.get("ATEN_CPU_CAPABILITY"),
           "mkl_enable_instructions_env": os.environ.get("MKL_ENABLE_INSTRUCTIONS"), "blas": None, "mkl": None,
           "onednn_max_cpu_isa_env": os.environ.get("ONEDNN_MAX_CPU_ISA"), "onednn": None}
    try:
        has_mkl = bool(torch.backends.mkl.is_available())
    except Exception:
        has_mkl = False
    # One child for both libraries (one torch import, not two), each probe on its own so that one that fails
    # leaves the other's statement; their verbose lines are told apart by their prefixes.
    probes, env = [_ONEDNN_PROBE], {**os.environ, "ONEDNN_VERBOSE": "1"}
    if has_mkl:
        probes.append(_MKL_PROBE)
        env["MKL_VERBOSE"] = "1"
    code = "import torch\n" + "".join(f"try:\n    {p}\nexcept Exception:\n    pass\n" for p in probes)
    try:
        stdout = runner([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError):
        stdout = ""
    out["onednn"] = onednn_statement(stdout)
    if has_mkl:
        out["blas"] = "MKL"
        out["mkl"] = mkl_statement(stdout)
    else:
        cfg = torch.__config__.show() if hasattr(torch, "__config__") else ""
        m = re.search(r"BLAS_INFO=(\w+)", cfg)
        out["blas"] = m.group(1) if m else "unknown"
    mkl = out["mkl"]
    if out["blas"] == "MKL" and mkl:
        blas = (f"torch.matmul: MKL {mkl['version']}, its own dispatch: "
                + (mkl["isa"] if mkl["isa"] else "no instruction set named")
                + f" (MKL_VERBOSE: \"{mkl['says']}\")")
    elif out["blas"] == "MKL":
        blas = "torch.matmul: MKL, its own dispatch (MKL_VERBOSE gave no statement)"
    else:
        blas = f"torch.matmul: {out['blas']} (BLAS_INFO), its own dispatch"
    dnn = out["onednn"]
    gelu = (f"gelu: oneDNN {dnn['version'] or ''} {dnn['implementation']}, its own dispatch".replace("  ", " ")
            + (f" (ONEDNN_MAX_CPU_ISA={out['onednn_max_cpu_isa_env']})" if out["onednn_max_cpu_isa_env"] else "")
            if dnn else "gelu: ATen's own kernel (oneDNN ran no eltwise primitive)")
    out["summary"] = f"ATen kernels {aten or 'unknown'} (ATen's dispatch); {gelu}; {blas}"
    return out
