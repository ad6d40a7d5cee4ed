"""Facts about TensorFlow, gathered without importing it into the doctor's process.

TensorFlow is slow to import, writes to stderr from C++ and loads its own CUDA libraries, so:
1. metadata first (importlib.metadata, no import): which TensorFlow/Keras distributions are installed,
   the nvidia-*-cu* wheels `tensorflow[and-cuda]` would pull (read from TF's own Requires-Dist) and
   which of them are installed, and what every framework in the environment requires of numpy and
   protobuf;
2. then, unless the caller says not to, a child process of this interpreter imports TensorFlow under
   a time limit and reports tf.__version__, tf.sysconfig.get_build_info(), the GPUs it lists and the
   lines TF logged while loading (which libraries it failed to dlopen).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

from torch_envcheck._util import proc as _proc
from torch_envcheck.doctor.probes import dists
from torch_envcheck.doctor.probes.libraries import parse_library
from torch_envcheck.knowledge.distributions import TF_PROVIDERS

# Distributions that provide (or extend) the `tensorflow` module, and Keras.
DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-intel", "tensorflow-macos",
                 "tensorflow-metal", "tensorflow-aarch64", "tensorflow-cpu-aws", "tensorflow-rocm", "tf-nightly",
                 "tf-nightly-cpu", "tf-keras", "keras", "tensorboard")
# Whose numpy/protobuf requirements are compared (the two frameworks and their companions).
FRAMEWORKS = {"tensorflow": TF_PROVIDERS + ("tf-keras", "keras", "tensorboard"),
              "torch": ("torch", "torchvision", "torchaudio")}
SHARED_DEPS = ("numpy", "protobuf")
_NVIDIA_RE = re.compile(r"^nvidia-[a-z0-9-]+-cu\d+$")
MAX_LOG_CHARS = 256 * 1024   # what is kept of the child's stderr (TF can log a lot)
MAX_LINES = 40               # log lines kept in the snapshot
CHILD_TIMEOUT_FACTOR = 12    # probe() called alone (no limit given): 12x the helper-program timeout

# The child: prints one JSON line after a marker, whatever TF printed before it.
MARKER = "@@torch_envcheck.tensorflow@@"
_CHILD = r"""
import json, os, sys, time

def done(out):
    print("\n@@torch_envcheck.tensorflow@@" + json.dumps(out), flush=True)
    sys.stderr.flush()
    # Every fact is written: skip TensorFlow's interpreter teardown (0.3-1 s here, a third of the import).
    os._exit(0)

out = {"import_error": None}
t0 = time.perf_counter()
try:
    import tensorflow as tf
except BaseException as exc:
    out["import_error"] = "%s: %s" % (type(exc).__name__, exc)
    out["import_seconds"] = round(time.perf_counter() - t0, 3)
    done(out)
out["import_seconds"] = round(time.perf_counter() - t0, 3)
out["version"] = str(getattr(tf, "__version__", None))
try:
    info = dict(tf.sysconfig.get_build_info())
    keep = ("cuda_version", "cudnn_version", "cuda_compute_capabilities", "is_cuda_build", "is_rocm_build",
            "is_tensorrt_build", "cpu_compiler", "msvcp_dll_names", "cudart_dll_name", "cudnn_dll_name",
            "nvcuda_dll_name")
    out["build_info"] = {k: ([str(x) for x in v] if isinstance(v, (list, tuple)) else
                             v if isinstance(v, bool) or v is None else str(v))
                         for k, v in info.items() if k in keep}
except BaseException as exc:
    out["build_info_error"] = "%s: %s" % (type(exc).__name__, exc)
try:
    gpus = tf.config.list_physical_devices("GPU")
    out["gpus"] = []
    for g in gpus:
        item = {"name": g.name, "device_type": g.device_type}
        try:
            det = tf.config.experimental.get_device_details(g)
            item["device_name"] = det.get("device_name")
            cc = det.get("compute_capability")
            item["capability"] = "%d.%d" % tuple(cc) if cc else None
        except BaseException:
            pass
        out["gpus"].append(item)
except BaseException as exc:
    out["gpus_error"] = "%s: %s" % (type(exc).__name__, exc)
done(out)
"""

# What TF logs while loading its GPU support (stream_executor dso_loader, gpu_device.cc, cuda_executor).
_DLOPEN_RE = re.compile(r"Could not load dynamic library '([^']+)'(?:; dlerror: ([^\n;]*))?")
_LOG_KEYS = {
    "cannot_dlopen_gpu_libraries": "Cannot dlopen some GPU libraries",
    "no_cuda_drivers": "Could not find cuda drivers on your machine",
    "cuinit_failed": "failed call to cuInit",
    "skipping_gpu_registration": "Skipping registering GPU devices",
}
_INTERESTING = ("Could not load dynamic library", "Cannot dlopen", "Could not find cuda drivers", "cuInit",
                "Skipping registering GPU", "TensorRT", "CUDA", "cuDNN", "cudnn", "GPU", "kernel image")


def _version_of(name: str) -> str | None:
    return dists.version(dists.distribution(name))


def _requires(dist) -> list[str]:
    try:
        return [str(r) for r in (dist.requires or [])]
    except Exception:  # a broken METADATA file must not stop the doctor
        return []


def _req_facts(text: str) -> dict | None:
    """{"name", "specifier", "extra", "applies"} of one Requires-Dist line (packaging when available)."""
    try:
        from packaging.requirements import Requirement  # noqa: PLC0415
    except ImportError:
        return None
    try:
        req = Requirement(text)
    except Exception:
        return None
    extra = None
    m = re.search(r"""extra\s*==\s*["']([^"']+)["']""", str(req.marker or ""))
    if m:
        extra = m.group(1)
    applies = True
    if req.marker is not None:
        try:
            applies = bool(req.marker.evaluate({"extra": extra or ""}))
        except Exception:
            applies = None
    return {"name": re.sub(r"[-_.]+", "-", req.name).lower(), "specifier": str(req.specifier), "extra": extra,
            "applies": applies, "requirement": text}


def metadata() -> dict:
    """The cheap half: installed distributions and their requirements, no import."""
    installed = {}
    for name in DISTRIBUTIONS:
        v = _version_of(name)
        if v is not None:
            installed[name] = v
    provider = next((n for n in TF_PROVIDERS if n in installed), None)
    out: dict = {"installed": provider is not None, "distribution": provider,
                 "version": installed.get(provider) if provider else None, "distributions": installed,
                 "extras": [], "and_cuda": [], "requires": {}, "dependency_versions": {}}
    if provider:
        dist = dists.distribution(provider)
        out["installer"] = dists.installer(dist, provider)
        out["location"] = dists.location(dist)
        try:
            out["requires_python"] = dist.metadata.get("Requires-Python")
            out["extras"] = sorted(set(dist.metadata.get_all("Provides-Extra") or []))
        except Exception:
            pass
        for line in _requires(dist):
            r = _req_facts(line)
            if r and r["extra"] == "and-cuda":
                r["installed"] = _version_of(r["name"])
                out["and_cuda"].append(r)
    for dep in SHARED_DEPS:
        out["dependency_versions"][dep] = _version_of(dep)
        out["requires"][dep] = []
    for framework, names in FRAMEWORKS.items():
        for name in names:
            dist = dists.distribution(name)
            if dist is None:
                continue
            for line in _requires(dist):
                r = _req_facts(line)
                if r and r["name"] in SHARED_DEPS and r["extra"] is None:
                    out["requires"][r["name"]].append({"framework": framework, "distribution": name,
                                                       "version": dists.version(dist), "specifier": r["specifier"],
                                                       "applies": r["applies"]})
    return out


def parse_log(text: str) -> dict:
    """The facts in what TF wrote to stderr while loading: each library it could not dlopen (decoded:
    cudart64_110.dll -> the CUDA 11.0 runtime), the GPU-related warnings, a few lines verbatim."""
    text = text[-MAX_LOG_CHARS:]
    failures, seen = [], set()
    for m in _DLOPEN_RE.finditer(text):
        lib = m.group(1).strip()[:200]
        if lib in seen:
            continue
        seen.add(lib)
        parsed = parse_library(os.path.basename(lib)) or {}
        failures.append({"library": lib, "kind": parsed.get("kind"), "version": parsed.get("version"),
                         "dlerror": (m.group(2) or "").strip()[:300] or None})
    flags = {key: needle in text for key, needle in _LOG_KEYS.items()}
    lines = []
    for line in text.splitlines():
        if any(k in line for k in _INTERESTING) and line.strip() not in lines:
            lines.append(line.strip()[:400])
        if len(lines) >= MAX_LINES:
            break
    return {"dlopen_failures": failures[:50], **flags, "lines": lines}


# What is kept of the child's output: stdout's end holds the result line (long only for a machine
# with very many GPUs), stderr's end the log lines parse_log reads.
STDOUT_CAP = (64 << 10, 16 << 20)
STDERR_CAP = (64 << 10, MAX_LOG_CHARS)


def child(timeout: float, python: str | None = None, env: dict | None = None) -> dict:
    """Import TensorFlow in a fresh interpreter (this one by default) under `timeout` seconds."""
    env = dict(os.environ if env is None else env)
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"      # the dlopen failures are warnings: keep them
    env.setdefault("PYTHONIOENCODING", "utf-8")
    t0 = time.perf_counter()
    out: dict = {"ran": True, "seconds": None, "returncode": None, "error": None, "timed_out": False}
    try:
        # its own session, output capped, the whole group killed when it ends (_util/proc.py)
        res = _proc.run_capped([python or sys.executable, "-c", _CHILD], timeout=timeout, env=env,
                               stdout_cap=STDOUT_CAP, stderr_cap=STDERR_CAP)
    except _proc.CommandFailed as exc:
        out["seconds"] = round(time.perf_counter() - t0, 3)
        out["error"] = str(exc)
        return out
    out["seconds"] = round(time.perf_counter() - t0, 3)
    if res.dropped:
        out["output_dropped_bytes"] = res.dropped
    if res.timed_out:
        out["error"] = f"`{os.path.basename(python or sys.executable)} -c` timed out after {timeout:g} s"
        out["timed_out"] = True
        return out
    rc, stdout, stderr = res.returncode, res.text("stdout"), res.text("stderr")
    out["returncode"] = rc
    head, sep, tail = stdout.rpartition(MARKER)
    result = None
    if sep:
        try:
            result = json.loads(tail.strip().splitlines()[0])
        except (ValueError, IndexError, RecursionError):
            result = None
    # TF writes its C++ logs to stderr; a Python-level print on import lands in stdout before the marker.
    out["log"] = parse_log(stderr + "\n" + head[-MAX_LOG_CHARS:])
    if not isinstance(result, dict):
        last = [ln for ln in stderr.strip().splitlines() if ln.strip()][-1:] or ["(no output)"]
        out["error"] = f"the TensorFlow child exited {rc} without a result: {last[0][:300]}"
        return out
    out["result"] = result
    return out


def _importable_name() -> bool:
    """Whether a `tensorflow` module is on sys.path: one directory scan, much cheaper than metadata."""
    try:
        import importlib.util  # noqa: PLC0415
        return importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):
        return False


def will_run_child() -> bool:
    """Whether probe(run_child=True) would start the child (a `tensorflow` module is importable)."""
    return _importable_name()


def probe(timeout: float = 5.0, run_child: bool = True, python: str | None = None, env: dict | None = None,
          limit: float | None = None) -> dict:
    """`limit` bounds the child (the doctor passes twice the torch import's limit); without one,
    CHILD_TIMEOUT_FACTOR x `timeout`."""
    limit = limit if limit else max(timeout * CHILD_TIMEOUT_FACTOR, 1.0)
    # TF's import is the slowest step of the whole report: start the child before reading any metadata
    # (the metadata lookups scan sys.path ~40 times), so the child's clock starts with the report's.
    started = None
    if run_child and _importable_name():
        import threading  # noqa: PLC0415
        box: dict = {}
        started = threading.Thread(target=lambda: box.update(ch=child(limit, python=python, env=env)),
                                   name="torch_envcheck-tensorflow-child", daemon=True)
        started.start()
    out = metadata()
    out["child"] = {"ran": False, "skipped": None}
    if not out["installed"]:
        out["child"]["skipped"] = "TensorFlow is not installed"
    elif not run_child:
        out["child"]["skipped"] = "--no-tensorflow"
    if started is None:
        if out["installed"] and run_child:  # metadata says installed, but no `tensorflow` module is importable
            out["child"] = {"ran": False, "skipped": "no `tensorflow` module on sys.path"}
            out["importable"] = False
            out["import_error"] = "ModuleNotFoundError: No module named 'tensorflow' (its distribution is installed)"
        return out
    started.join(limit + 5.0)
    ch = box.get("ch") or {"ran": True, "error": f"the TensorFlow child did not finish within {limit:g} s",
                           "timed_out": True, "seconds": None, "returncode": None}
    if not out["installed"]:
        return out  # a `tensorflow` module without a distribution (a source tree on sys.path): not judged
    res = ch.pop("result", None) or {}
    out["log"] = ch.pop("log", None)
    out["child"] = dict(ch, skipped=None, timeout=limit)
    out["import_error"] = res.get("import_error")
    out["importable"] = bool(res) and res.get("import_error") is None
    out["import_seconds"] = res.get("import_seconds")
    if res.get("version"):
        out["version"] = res["version"]
    out["build_info"] = res.get("build_info")
    out["gpus"] = res.get("gpus")
    for key in ("build_info_error", "gpus_error"):
        if res.get(key):
            out[key] = res[key]
    return out
