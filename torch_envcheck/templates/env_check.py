#!/usr/bin/env python3
# env_check.py: written by `torch-envcheck init` from template version 2 (torch_envcheck 0.1.0).
# Edit it freely; `torch-envcheck init --check` shows how it differs from the current template.
"""Does this machine's Python + PyTorch + CUDA + GPU stack work?  Run it after moving to a new machine.

    python env_check.py                  versions, CUDA facts, devices, a short CPU vs GPU matmul timing
    python env_check.py --require-gpu    the same, and fail when no CUDA GPU is usable (GPU CI runners)

Exit status: 0 healthy, 1 broken (the reasons are printed at the end), 2 bad command line.
A machine without a GPU is healthy unless a GPU is required (--require-gpu or ENV_CHECK_REQUIRE_GPU=1;
ENV_CHECK_REQUIRE_GPU=0/false/no/off means not required, any other value is a command-line error).

When TensorFlow is installed too, its facts (version, CUDA/cuDNN build, GPUs) are printed and a TF
matmul runs on its GPU (on the CPU when it sees none), in a child process: TF and torch each load
their own CUDA libraries, and TF's import is slow and noisy.

Needs only torch, and even reports cleanly when torch is missing.  When the torch_envcheck package is
installed its doctor adds a full diagnosis (driver, libraries, toolchain...), each problem with a fix;
that diagnosis reads the machine through torch_envcheck's facts layer.  This file's own checks stay
inline so it works alone; its flag parser and cuDNN decoder are copies of torch_envcheck's
(envflags.parse_flag, facts.core.cudnn_text), and torch_envcheck's tests check they agree.
"""

import argparse
import os
import platform
import statistics
import sys
import time

TEMPLATE_VERSION = 2


def parse_flag(value):
    """True for 1/true/yes/on, False for 0/false/no/off (any case), None for unset, empty or other."""
    if not isinstance(value, str):
        return None
    v = value.strip().lower()
    return True if v in ("1", "true", "yes", "on") else (False if v in ("0", "false", "no", "off") else None)


def cudnn_text(value):
    """cuDNN's version integer as text: 92400 -> 9.24.0 (cuDNN 9+: major*10000 + minor*100 + patch),
    8907 -> 8.9.7 (cuDNN 8 and older: major*1000 + minor*100 + patch)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1000:
        return None
    base = 10000 if value >= 10000 else 1000
    return f"{value // base}.{(value % base) // 100}.{value % 100}"


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Check that Python, PyTorch, CUDA and the GPU work together.")
    raw = os.environ.get("ENV_CHECK_REQUIRE_GPU", "")
    required = parse_flag(raw)
    if required is None and raw.strip():
        parser.error(f"ENV_CHECK_REQUIRE_GPU={raw!r} is not a boolean; expected 1/true/yes/on or 0/false/no/off")
    parser.add_argument("--require-gpu", action="store_true",
                        default=bool(required),
                        help="fail when no CUDA GPU is usable (also: ENV_CHECK_REQUIRE_GPU=1)")
    parser.add_argument("--size", type=int, default=2048,
                        help="matrix size n of the n x n matmul timing (default 2048)")
    parser.add_argument("--repeats", type=int, default=5, help="timed matmuls per device (default 5)")
    parser.add_argument("--skip-timing", action="store_true", help="do not time the matmul")
    parser.add_argument("--skip-doctor", action="store_true",
                        help="do not run torch_envcheck's diagnosis even when it is installed")
    parser.add_argument("--skip-tensorflow", action="store_true",
                        help="do not check TensorFlow even when it is installed")
    args = parser.parse_args(argv)
    if args.size < 1 or args.repeats < 1:
        parser.error("--size and --repeats must be at least 1")
    return args


def show(label, value):
    print(f"  {label:<22} {value}")


def import_torch():
    """(torch, None), or (None, why) after printing it: a missing or broken torch is the commonest failure."""
    try:
        import torch
    except Exception as exc:  # ImportError, but also OSError from a broken CUDA library install
        show("torch", f"NOT IMPORTABLE: {type(exc).__name__}: {exc}")
        return None, f"torch cannot be imported ({type(exc).__name__}: {exc}); install it with the command " \
                     "from https://pytorch.org/get-started/locally/"
    return torch, None


def driver_cuda_version(torch):
    """The highest CUDA version the installed NVIDIA driver supports, or None when there is no driver.

    Older torch releases expose it as torch._C._cuda_getDriverVersion(); otherwise ask the driver
    library itself (cuDriverGetVersion), which works without creating a CUDA context."""
    getter = getattr(torch._C, "_cuda_getDriverVersion", None)
    version = None
    if getter is not None:
        try:
            version = int(getter())
        except Exception:
            version = None
    if version is None:
        import ctypes
        names = ["nvcuda.dll"] if sys.platform == "win32" else ["libcuda.so.1", "libcuda.so", "libcuda.dylib"]
        for name in names:
            try:
                lib = ctypes.CDLL(name)
            except OSError:
                continue
            out = ctypes.c_int(0)
            if lib.cuDriverGetVersion(ctypes.byref(out)) == 0:
                version = out.value
            break
    if not version:  # 0 means "no driver" (the CUDA runtime reports 0 when libcuda is absent)
        return None
    return f"{version // 1000}.{(version % 1000) // 10}"


def cuda_runtime_version(torch):
    """The version of the CUDA runtime library (libcudart) this process really loaded with torch.

    It can differ from torch.version.cuda when another libcudart comes first on LD_LIBRARY_PATH.  Only
    the copy already mapped into this process is asked (found in /proc/self/maps), so a different one
    elsewhere on the system cannot answer instead; it needs no driver."""
    if not torch.version.cuda:
        return None
    import ctypes
    try:
        with open("/proc/self/maps") as fh:
            paths = {line.split()[-1] for line in fh if "libcudart.so" in line}
    except OSError:  # not Linux
        return None
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)  # already loaded: this returns the same library, loads nothing new
        except OSError:
            continue
        out = ctypes.c_int(0)
        if lib.cudaRuntimeGetVersion(ctypes.byref(out)) == 0 and out.value:
            return f"{out.value // 1000}.{(out.value % 1000) // 10} ({path})"
    return None


def driver_release():
    """The NVIDIA driver's own version (e.g. 580.65.06), read where it costs nothing."""
    try:
        with open("/proc/driver/nvidia/version") as fh:  # Linux, driver loaded
            for word in fh.readline().split():
                if word.count(".") >= 1 and word.replace(".", "").isdigit():
                    return word
    except OSError:
        pass
    return None


def nvidia_driver_loaded():
    # The kernel module lists each GPU here; without it CUDA cannot work whatever torch does.
    return os.path.isdir("/proc/driver/nvidia/gpus") and bool(os.listdir("/proc/driver/nvidia/gpus"))


def arch_supported(capability, arch_list):
    """Can this torch build run kernels on a GPU of this compute capability?

    sm_XY code runs on GPUs of the same major version with minor >= Y; compute_XY (PTX) is compiled by
    the driver for any GPU of capability >= X.Y.  If neither matches, every kernel fails with
    "no kernel image is available for execution on the device"."""
    major, minor = capability
    for arch in arch_list:
        kind, _, digits = arch.partition("_")
        digits = "".join(ch for ch in digits if ch.isdigit())
        if len(digits) < 2:
            continue
        a_major, a_minor = int(digits[:-1]), int(digits[-1])
        if kind == "sm" and a_major == major and a_minor <= minor:
            return True
        if kind == "compute" and (a_major, a_minor) <= (major, minor):
            return True
    return not arch_list  # an empty list means torch could not tell: do not guess a failure


def report_cuda(torch, problems):
    """Print the CUDA facts; return the list of usable CUDA devices (empty when none)."""
    built = torch.version.cuda
    show("CUDA (torch built)", built or "none: this is a CPU-only build of torch")
    if built:
        show("CUDA runtime (loaded)", cuda_runtime_version(torch) or "unknown (linked statically or not Linux)")
    show("NVIDIA driver", driver_release() or ("loaded" if nvidia_driver_loaded() else "not found"))
    show("driver supports CUDA", driver_cuda_version(torch) or "n/a (no driver)")
    try:
        cudnn = torch.backends.cudnn.version()
    except Exception as exc:  # a cuDNN that fails to load says so here rather than in the middle of training
        cudnn = f"fails to load: {type(exc).__name__}: {exc}"
    if isinstance(cudnn, int):
        cudnn = cudnn_text(cudnn) or str(cudnn)
    show("cuDNN", cudnn or "none")

    if not built:
        if nvidia_driver_loaded():
            print("  note: an NVIDIA GPU is present but this torch is CPU-only; install a CUDA build to use it")
        return []
    if not torch.cuda.is_available():
        # is_available() only says False; initialising says why (no driver, driver too old, ...).
        try:
            torch.cuda.init()
            why = "torch.cuda.is_available() is False"
        except Exception as exc:
            why = f"{type(exc).__name__}: {exc}".strip().splitlines()[0]
        show("CUDA usable", f"no: {why}")
        if nvidia_driver_loaded():
            # A CUDA build on a machine whose driver is loaded is expected to work: this is broken.
            problems.append(f"CUDA does not initialise although the NVIDIA driver is loaded: {why}")
        return []

    arch_list = torch.cuda.get_arch_list()
    show("arch list (torch)", " ".join(arch_list) or "unknown")
    devices = []
    for i in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(i)
        cap = (props.major, props.minor)
        ok = arch_supported(cap, arch_list)
        show(f"cuda:{i}", f"{props.name}, compute capability {cap[0]}.{cap[1]}, "
                          f"{props.total_memory / 2**30:.1f} GiB, {props.multi_processor_count} SMs"
                          + ("" if ok else "  <- NOT SUPPORTED by this torch build"))
        if ok:
            devices.append(torch.device("cuda", i))
        else:
            problems.append(f"cuda:{i} ({props.name}, sm_{cap[0]}{cap[1]}) is not in this torch build's arch "
                            f"list ({' '.join(arch_list)}); install a torch build for this GPU")
    return devices


def synchronizer(torch, device):
    """GPU work is asynchronous: without waiting for it a timer measures only the kernel launch."""
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    if device.type == "mps":
        return torch.mps.synchronize
    return lambda: None


def time_matmul(torch, device, n, repeats):
    """Median seconds of one n x n fp32 matmul on `device`, and the product (to check it)."""
    gen = torch.Generator().manual_seed(0)  # same inputs on every device, so the results must agree
    a = torch.randn(n, n, generator=gen).to(device)
    b = torch.randn(n, n, generator=gen).to(device)
    sync = synchronizer(torch, device)
    c = a @ b  # warm-up: the first call loads the BLAS library and picks a kernel
    sync()
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            # CUDA events time the kernel on the GPU itself, unaffected by Python overhead.  They record
            # on the current device's stream: make it this device's, or cuda:1 would be timed on cuda:0.
            with torch.cuda.device(device):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                c = a @ b
                end.record()
                end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        else:
            t0 = time.perf_counter()
            c = a @ b
            sync()
            times.append(time.perf_counter() - t0)
    return statistics.median(times), c


def report_timing(torch, devices, n, repeats, problems):
    flop = 2.0 * n ** 3
    print(f"Matmul timing ({n} x {n} fp32, median of {repeats}, after a warm-up):")
    cpu_s, reference = time_matmul(torch, torch.device("cpu"), n, repeats)
    show("cpu", f"{cpu_s * 1e3:9.2f} ms  {flop / cpu_s / 1e9:9.1f} GFLOP/s  ({torch.get_num_threads()} threads)")
    for device in devices:
        try:
            gpu_s, result = time_matmul(torch, device, n, repeats)
        except Exception as exc:
            show(str(device), f"FAILED: {type(exc).__name__}: {str(exc).strip().splitlines()[0]}")
            problems.append(f"a matmul on {device} failed: {type(exc).__name__}: {exc}")
            continue
        # The GPU must also compute the right answer (TF32, if enabled, stays well within 1e-2).
        error = ((result.cpu() - reference).norm() / reference.norm()).item()
        show(str(device), f"{gpu_s * 1e3:9.2f} ms  {flop / gpu_s / 1e9:9.1f} GFLOP/s  "
                          f"{cpu_s / gpu_s:.1f}x the CPU  (relative error vs CPU {error:.1e})")
        if not error < 1e-2:
            problems.append(f"the matmul on {device} disagrees with the CPU (relative error {error:.1e})")


def mps_devices(torch):
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        show("mps", "available (Apple GPU)")
        return [torch.device("mps")]
    return []


# Run in a child process by report_tensorflow(); prints one JSON line.
TF_CHILD = r"""
import json, os, time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
out = {}
try:
    import tensorflow as tf
except Exception as exc:
    print(json.dumps({"import_error": "%s: %s" % (type(exc).__name__, exc)}))
    raise SystemExit(0)
out["version"] = tf.__version__
try:
    info = tf.sysconfig.get_build_info()
    out["build"] = {k: str(info.get(k)) for k in ("is_cuda_build", "cuda_version", "cudnn_version") if k in info}
except Exception as exc:
    out["build"] = {"error": str(exc)}
gpus = tf.config.list_physical_devices("GPU")
out["gpus"] = [g.name for g in gpus]
device = "/GPU:0" if gpus else "/CPU:0"
try:
    with tf.device(device):
        a = tf.random.normal((1024, 1024))
        b = tf.random.normal((1024, 1024))
        (a @ b).numpy()
        t0 = time.perf_counter()
        c = a @ b
        c.numpy()
        out["matmul"] = {"device": c.device, "ms": round((time.perf_counter() - t0) * 1000, 2)}
except Exception as exc:
    out["matmul_error"] = "%s: %s" % (type(exc).__name__, exc)
print(json.dumps(out))
"""


def report_tensorflow(problems):
    """TensorFlow's facts and a matmul on its GPU, when TensorFlow is installed (in a child process)."""
    import importlib.util
    import json
    import subprocess
    if importlib.util.find_spec("tensorflow") is None:
        return
    print("TensorFlow:")
    try:
        proc = subprocess.run([sys.executable, "-c", TF_CHILD], capture_output=True, text=True, timeout=300)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        res = json.loads(lines[-1]) if lines else None
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        problems.append(f"checking TensorFlow failed: {type(exc).__name__}: {exc}")
        return
    if res is None:
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        problems.append(f"TensorFlow's check died (exit status {proc.returncode}): {tail}")
        return
    if res.get("import_error"):
        problems.append(f"TensorFlow is installed but cannot be imported: {res['import_error']}")
        return
    build = res.get("build") or {}
    show("tensorflow", res.get("version"))
    if build.get("is_cuda_build") == "True":
        show("tf build", f"CUDA {build.get('cuda_version')}, cuDNN {build.get('cudnn_version')}")
    else:
        show("tf build", "CPU-only")
    show("tf GPUs", ", ".join(res.get("gpus") or []) or "none visible")
    if res.get("matmul_error"):
        problems.append(f"a TensorFlow matmul failed: {res['matmul_error']}")
    elif res.get("matmul"):
        show("tf matmul", f"1024 x 1024 fp32 on {res['matmul']['device']}: {res['matmul']['ms']} ms")


def report_doctor(problems):
    """torch_envcheck's full diagnosis when the package is installed; this script works without it."""
    try:
        import torch_envcheck
    except ImportError:
        print("torch_envcheck: not installed (pip install torch_envcheck for a full diagnosis)")
        return
    version = getattr(torch_envcheck, "__version__", "?")
    try:
        report = torch_envcheck.diagnose()
    except Exception as exc:  # the doctor itself failing is not a verdict on the environment
        print(f"torch_envcheck {version}: the diagnosis did not run: {type(exc).__name__}: {exc}")
        return
    every = [f for f in report.get("findings", []) if isinstance(f, dict)]
    # causes before symptoms: a finding another one explains is printed under it and not counted
    findings = [f for f in every if f.get("severity") in ("warning", "failure") and not f.get("explained_by")]
    print(f"torch_envcheck {version} diagnosis: {len(findings)} problem(s)")
    for f in findings:
        print(f"  [{f.get('code')}] {f.get('severity')}: {f.get('message')}")
        for e in every:
            if e.get("explained_by") == f.get("code"):
                print(f"      explains [{e.get('code')}] {e.get('message')}")
        if f.get("fix"):
            print(f"      fix: {f['fix']}")
        # The doctor's own severity decides: "CUDA torch, no driver" (TE301) is a failure only when an NVIDIA
        # GPU is on the machine, a warning when there is none or it cannot tell.
        if f.get("severity") == "failure":
            problems.append(f"[{f.get('code')}] {f.get('message')}"
                            + (f" (fix: {f['fix']})" if f.get("fix") else ""))


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    problems, devices = [], []
    print("Versions:")
    show("Python", f"{platform.python_version()} ({sys.executable})")
    show("platform", f"{platform.system()} {platform.release()} {platform.machine()}")
    torch, error = import_torch()
    if torch is None:
        problems.append(error)
    else:
        show("torch", f"{torch.__version__} ({os.path.dirname(torch.__file__)})")
        try:
            devices = report_cuda(torch, problems) + mps_devices(torch)
        except Exception as exc:  # e.g. a GPU that fails when its properties are read: report, do not crash
            problems.append(f"reading the GPU facts failed: {type(exc).__name__}: {exc}")
        if not devices:
            show("GPU", "none usable: the CPU only")
            if args.require_gpu:
                problems.append("a GPU is required (--require-gpu / ENV_CHECK_REQUIRE_GPU) but none is usable")
        if not args.skip_timing:
            try:
                report_timing(torch, devices, args.size, args.repeats, problems)
            except Exception as exc:
                problems.append(f"the matmul timing failed: {type(exc).__name__}: {exc}")
    if not args.skip_tensorflow:
        report_tensorflow(problems)
    if not args.skip_doctor:
        report_doctor(problems)

    if problems:
        print("\nFAILED: this environment is broken:")
        for p in problems:
            print(f"  - {p}")
        return 1
    print("\nOK: this environment works" + ("" if devices else " (CPU only: no GPU is used)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
