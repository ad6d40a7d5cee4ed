"""pytest plugin `envcheck`: `pytest --envcheck` prints the GPU stack at the top of the session.

Registered through the `pytest11` entry point, so it is loaded by every pytest run in an environment
where torch_envcheck is installed.  Hence: without --envcheck it does nothing, and importing it imports
neither torch nor anything else slow (torch is imported only when the header is built).

With --envcheck:
  * the terminal header gets two lines: Python, torch, CUDA build / runtime, cuDNN, the NVIDIA driver
    and the GPUs (or "no GPU" and why);
  * with --junitxml the same facts become <property> elements of the <testsuite>, so a CI dashboard
    shows which stack each run had;
  * a failing test whose error (its exception chain, or its captured stderr) is an environment error
    of `torch-envcheck explain`'s catalogue gets the explanation as a report section
    ("torch-envcheck: environment error"), from the text alone (no machine probe per test).

`environment_facts()` is also used by the self-test (torch_envcheck.selftest).  It asks the running
torch directly (a header must not cost a full doctor run), and decodes CUDA's and cuDNN's integers
with the doctor's own decoders (torch_envcheck._util.versions), so its versions and the doctor's can
never differ.
"""

from __future__ import annotations

import platform
import sys

from torch_envcheck._util import versions

try:  # pytest imports its plugins, so this is free; the module stays importable without pytest
    import pytest
    _hookwrapper = pytest.hookimpl(hookwrapper=True)
except ImportError:  # pragma: no cover
    def _hookwrapper(fn):
        return fn

_FACTS_KEY = "_torch_envcheck_facts"


def pytest_addoption(parser):
    group = parser.getgroup("envcheck", "torch_envcheck")
    group.addoption("--envcheck", action="store_true", default=False,
                    help="print the torch / CUDA / driver / GPU versions in the header and record them "
                         "as JUnit XML properties (torch_envcheck)")


def _cuda_version(v: int | None) -> str | None:
    # CUDA encodes versions as 1000 * major + 10 * minor (13000 -> "13.0"): the one decoder
    return versions.cuda_from_int(v)


def _cudnn_version(v: int | None) -> str | None:
    # the one cuDNN decoder, the doctor's too (so the plugin's cuDNN and the doctor's can never differ)
    t = versions.cudnn_tuple(v)
    return versions.fmt_version(t) if t else None


def driver_release() -> str | None:
    """The NVIDIA driver version from /proc (Linux; costs nothing, creates no CUDA context)."""
    try:
        with open("/proc/driver/nvidia/version") as fh:
            for word in fh.readline().split():
                if "." in word and word.replace(".", "").isdigit():
                    return word
    except OSError:
        pass
    return None


def driver_cuda_version(torch) -> str | None:
    """The highest CUDA version the driver supports (cuDriverGetVersion), None without a driver."""
    getter = getattr(torch._C, "_cuda_getDriverVersion", None)  # present in some torch releases
    if getter is not None:
        try:
            return _cuda_version(int(getter()))
        except Exception:
            pass
    import ctypes
    for name in (["nvcuda.dll"] if sys.platform == "win32" else ["libcuda.so.1", "libcuda.dylib"]):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        out = ctypes.c_int(0)
        if lib.cuDriverGetVersion(ctypes.byref(out)) == 0:
            return _cuda_version(out.value)
        return None
    return None


def cuda_runtime_version(torch) -> str | None:
    """The version of the libcudart this process loaded with torch (from /proc/self/maps, so another
    copy elsewhere on the system cannot answer instead); needs no driver.  None when not found."""
    if not torch.version.cuda:
        return None
    import ctypes
    try:
        with open("/proc/self/maps") as fh:
            paths = {line.split()[-1] for line in fh if "libcudart.so" in line}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)  # already mapped: returns the loaded library
        except OSError:
            continue
        out = ctypes.c_int(0)
        if lib.cudaRuntimeGetVersion(ctypes.byref(out)) == 0:
            return _cuda_version(out.value)
    return None


def _first_line(exc: BaseException) -> str:
    try:
        text = str(exc).strip().splitlines()
    except Exception:  # noqa: BLE001  (a broken __str__)
        text = []
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def environment_facts() -> dict:
    """The stack as a flat dict of strings (never raises: what cannot be read says why)."""
    facts = {"python": f"{platform.python_version()} ({platform.python_implementation()})",
             "platform": f"{platform.system()} {platform.machine()}"}
    try:
        import torch
    except Exception as exc:
        facts.update(torch=f"not importable ({_first_line(exc)})", gpus="unknown (no torch)")
        return facts
    facts["torch"] = torch.__version__
    facts["cuda_build"] = torch.version.cuda or "none (CPU-only torch)"
    try:
        facts["cudnn"] = _cudnn_version(torch.backends.cudnn.version()) or "none"
    except Exception as exc:
        facts["cudnn"] = f"fails to load ({_first_line(exc)})"
    facts["driver"] = driver_release() or "none"
    try:
        facts["driver_cuda"] = driver_cuda_version(torch) or "none"
    except Exception as exc:
        facts["driver_cuda"] = f"unknown ({_first_line(exc)})"
    if not torch.version.cuda:
        facts["cuda_runtime"] = "none"
        facts["gpus"] = "no GPU (CPU-only torch)"
        return facts
    try:
        facts["cuda_runtime"] = cuda_runtime_version(torch) or "unknown"
    except Exception as exc:
        facts["cuda_runtime"] = f"unknown ({_first_line(exc)})"
    try:
        available = torch.cuda.is_available()
        if not available:
            torch.cuda.init()  # raises with the reason (no driver, driver too old, ...)
    except Exception as exc:
        facts["gpus"] = f"no GPU ({_first_line(exc)})"
        return facts
    if not available:
        facts["gpus"] = "no GPU (torch.cuda.is_available() is False)"
        return facts
    try:
        names = []
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            names.append(f"cuda:{i} {p.name} (sm_{p.major}{p.minor}, {p.total_memory / 2**30:.0f} GiB)")
        facts["gpus"] = "; ".join(names) or "no GPU (device_count() is 0)"
    except Exception as exc:
        facts["gpus"] = f"unknown ({_first_line(exc)})"
    return facts


def _enabled(config) -> bool:
    try:
        return bool(config.getoption("envcheck"))
    except (ValueError, AttributeError):
        return False


def _facts(config) -> dict:
    facts = getattr(config, _FACTS_KEY, None)
    if facts is None:
        facts = environment_facts()
        setattr(config, _FACTS_KEY, facts)
    return facts


def header_lines(facts: dict) -> list[str]:
    """The header's lines, every value escaped for the terminal: torch's version, a GPU's name or an
    exception's text may carry control characters (a fake or broken torch is a stranger too)."""
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    facts = {k: terminal(v) for k, v in facts.items()}
    if "cuda_build" not in facts:  # torch could not be imported
        return [f"envcheck: Python {facts['python']}, torch {facts['torch']}"]
    driver = facts["driver"]
    if facts["driver_cuda"] != "none":
        driver += f" (supports CUDA {facts['driver_cuda']})"
    return [
        f"envcheck: Python {facts['python']}, torch {facts['torch']}, CUDA build {facts['cuda_build']}, "
        f"CUDA runtime {facts['cuda_runtime']}, cuDNN {facts['cudnn']}",
        f"envcheck: NVIDIA driver {driver}; GPUs: {facts['gpus']}",
    ]


def pytest_report_header(config):
    if not _enabled(config):
        return None
    return header_lines(_facts(config))


def _junit_xml(config):
    try:
        from _pytest.junitxml import xml_key  # pytest >= 7 keeps the LogXML in the stash
        return config.stash.get(xml_key, None)
    except ImportError:
        return getattr(config, "_xml", None)  # older pytest


def pytest_sessionstart(session):
    config = session.config
    if not _enabled(config):
        return
    xml = _junit_xml(config)
    if xml is None:
        return
    for name, value in _facts(config).items():
        xml.add_global_property(f"envcheck.{name}", value)


_SECTION = "torch-envcheck: environment error"


def explain_failure(excinfo_value, captured_stderr: str = "") -> str | None:
    """The explanation of a test failure when it is an environment error of the catalogue, else None.
    The captured stderr comes first: torch's "CUDA initialization: ..." warning is often printed
    there before a test fails on `torch.cuda.is_available()`."""
    from torch_envcheck.explain import diagnose
    from torch_envcheck.explain import render  # noqa: PLC0415
    from torch_envcheck.explain.excinfo import exception_text  # noqa: PLC0415

    text = (captured_stderr or "")[-65536:] + "\n" + exception_text(excinfo_value)
    result = diagnose.diagnose(text)
    if not result.get("recognised") or not result.get("environment_problem"):
        return None
    return render.text(result, prog="torch-envcheck", unchecked="run `torch-envcheck` to see which cause this machine shows")


@_hookwrapper
def pytest_runtest_makereport(item, call):
    outcome = yield
    if call.excinfo is None or not _enabled(item.config):
        return
    report = outcome.get_result()
    if not report.failed:
        return
    try:
        text = explain_failure(call.excinfo.value, report.capstderr)
    except Exception:  # noqa: BLE001  (an explanation must never turn a test failure into a crash)
        text = None
    if text:
        report.sections.append((_SECTION, text))
