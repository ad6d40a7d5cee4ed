#!/usr/bin/env python3
# env_check.py: written by `torch-envcheck init` from template version 3 (torch_envcheck 0.1.0).
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
(envflags.parse_flag, facts.core.cudnn_text), and so are its bounded child runner, its capped
output buffer and its terminal escaping (_util/proc.run_capped, _util/capped.CappedBuffer,
_util/escape.terminal): torch_envcheck's tests check that each copy behaves like the package's.
Every version, name and error it prints is escaped (a control character is shown, never obeyed),
and the TensorFlow child can neither hang it nor fill its memory.
"""

import argparse
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import threading
import time

TEMPLATE_VERSION = 3


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


# ---- small copies of torch_envcheck's escaping, capped buffer and bounded child runner

# C0/C1 controls, DEL, lone surrogates, bidi marks and overrides, line/paragraph separators, BOM.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u2028-\u202e"
                     "\u2066-\u2069\ufeff]")


def _shown(match):
    code = ord(match.group(0))
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal(text, multiline=False):
    """`text` safe to print to a terminal: control characters become visible escapes."""
    s = "" if text is None else str(text)
    if not multiline:
        s = s.replace("\r\n", " ").replace("\n", " ").replace("\t", " ")
    else:
        s = s.replace("\r\n", "\n")
    return _UNSAFE.sub(_shown, s).replace("\r", "\\x0d")


class CappedBuffer:
    """The first `head` and last `tail` bytes of what is written; the rest is counted and dropped."""

    def __init__(self, head, tail):
        self.head_cap, self.tail_cap = max(0, int(head)), max(0, int(tail))
        self._head, self._tail, self.total = bytearray(), bytearray(), 0
        self._lock = threading.Lock()

    def write(self, data):
        if not data:
            return
        with self._lock:
            self.total += len(data)
            room = self.head_cap - len(self._head)
            if room > 0:
                self._head += data[:room]
                data = data[room:]
            if data and self.tail_cap:
                if len(data) >= self.tail_cap:
                    self._tail[:] = data[-self.tail_cap:]
                else:
                    self._tail += data
                    if len(self._tail) > 2 * self.tail_cap:
                        del self._tail[:-self.tail_cap]

    def value(self, mark=True):
        with self._lock:
            tail = bytes(self._tail[-self.tail_cap:]) if self.tail_cap else b""
            dropped = self.total - len(self._head) - len(tail)
            head = bytes(self._head)
        gap = f"\n[... truncated: {dropped} bytes dropped here by torch_envcheck ...]\n".encode()
        return head + (gap if dropped and mark else b"") + tail


def _drain(stream, buf):
    try:
        while True:
            data = stream.read1(1 << 16) if hasattr(stream, "read1") else stream.read(1 << 16)
            if not data:
                break
            buf.write(data)
    except (OSError, ValueError):
        pass


def run_capped(argv, timeout, head=64 << 10, tail=64 << 10, grace=2.0):
    """(returncode or None when stopped, stdout bytes, stderr bytes, timed_out): argv run in its own
    session with at most `head` + `tail` bytes of each stream kept; at `timeout` (and in any case
    when it ends) its whole process group is killed, and a pipe a leftover process still holds is
    waited on for `grace` seconds only.  OSError when it cannot start."""
    posix = os.name == "posix"
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=posix, close_fds=True)
    out, err = CappedBuffer(head, tail), CappedBuffer(head, tail)
    readers = [threading.Thread(target=_drain, args=(s, b), daemon=True) for s, b in ((proc.stdout, out),
                                                                                      (proc.stderr, err))]
    for th in readers:
        th.start()
    timed_out = False
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        try:  # the group goes whatever happened: a leftover child must not run on
            os.killpg(proc.pid, signal.SIGKILL) if posix else proc.kill()
        except OSError:
            pass
        try:
            proc.wait(5.0)
        except subprocess.TimeoutExpired:
            pass
        end = time.monotonic() + grace
        for th in readers:
            th.join(max(0.0, end - time.monotonic()))
    return (None if timed_out else proc.returncode), out.value(), err.value(), timed_out


def show(label, value):
    print(f"  {label:<22} {terminal(value)}")


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


TF_TIMEOUT = 300


def report_tensorflow(problems):
    """TensorFlow's facts and a matmul on its GPU, when TensorFlow is installed (in a child process)."""
    import importlib.util
    import json
    if importlib.util.find_spec("tensorflow") is None:
        return
    print("TensorFlow:")
    try:
        rc, stdout, stderr, timed_out = run_capped([sys.executable, "-c", TF_CHILD], TF_TIMEOUT)
        lines = [ln for ln in stdout.decode("utf-8", "replace").splitlines() if ln.startswith("{")]
        res = json.loads(lines[-1]) if lines else None
        if not isinstance(res, dict):
            res = None
    except (OSError, ValueError, RecursionError) as exc:
        problems.append(f"checking TensorFlow failed: {type(exc).__name__}: {exc}")
        return
    if timed_out:
        problems.append(f"TensorFlow's check did not finish within {TF_TIMEOUT} s (stopped)")
        return
    if res is None:
        tail = (stderr.decode("utf-8", "replace").strip().splitlines() or ["(no output)"])[-1]
        problems.append(f"TensorFlow's check died (exit status {rc}): {tail}")
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
        print(terminal(f"torch_envcheck {version}: the diagnosis did not run: {type(exc).__name__}: {exc}"))
        return
    every = [f for f in report.get("findings", []) if isinstance(f, dict)]
    # causes before symptoms: a finding another one explains is printed under it and not counted
    findings = [f for f in every if f.get("severity") in ("warning", "failure") and not f.get("explained_by")]
    print(terminal(f"torch_envcheck {version} diagnosis: {len(findings)} problem(s)"))
    for f in findings:
        print(terminal(f"  [{f.get('code')}] {f.get('severity')}: {f.get('message')}"))
        for e in every:
            if e.get("explained_by") == f.get("code"):
                print(terminal(f"      explains [{e.get('code')}] {e.get('message')}"))
        if f.get("fix"):
            print("      fix: " + terminal(f["fix"], multiline=True).replace("\n", "\n           "))
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
            print(f"  - {terminal(p)}")
        return 1
    print("\nOK: this environment works" + ("" if devices else " (CPU only: no GPU is used)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
