"""The TensorFlow probe: the child process (against a stand-in `tensorflow` package that logs what the
real one logs, hangs or crashes), the parsing of TF's log lines, the metadata half, the wiring into
the doctor (--no-tensorflow, parallel with torch), and, where TensorFlow is really installed, the
real thing: the tensorflow-cpu venv is healthy; the real `tensorflow` CUDA wheel beside torch cu130
names its missing CUDA 12 libraries."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

from torch_envcheck.doctor.probes import tensorflow as P

from paths import REPO

WIN_TF26_LOG = """\
2022-03-14 10:21:07.516183: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found
2022-03-14 10:21:07.516410: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.
2022-03-14 10:21:09.101010: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found
2022-03-14 10:21:09.101020: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found
2022-03-14 10:21:09.534566: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1835] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU.
Skipping registering GPU devices...
"""


def test_parse_log_decodes_and_deduplicates():
    log = P.parse_log(WIN_TF26_LOG)
    assert [(f["library"], f["kind"], f["version"]) for f in log["dlopen_failures"]] == [
        ("cudart64_110.dll", "cudart", "11.0"), ("cudnn64_8.dll", "cudnn", "8")]
    assert log["dlopen_failures"][0]["dlerror"] == "cudart64_110.dll not found"
    assert log["cannot_dlopen_gpu_libraries"] and log["skipping_gpu_registration"]
    assert not log["no_cuda_drivers"]
    assert any("Cannot dlopen" in line for line in log["lines"])


def test_parse_log_linux_and_bounds():
    text = ("W dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot "
            "open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/nvidia/lib\n") + "x" * 10**6
    log = P.parse_log(text)
    assert log["dlopen_failures"] == []  # beyond the last MAX_LOG_CHARS: only the tail is read
    log = P.parse_log(text[:400] + "\n" + "\n".join(f"GPU line {i}" for i in range(500)))
    assert log["dlopen_failures"][0]["version"] == "11.0" and len(log["lines"]) == P.MAX_LINES


def _fake_tf(tmp_path, body: str) -> dict:
    pkg = tmp_path / "fake" / "tensorflow"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(body))
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tmp_path / "fake")
    return env


GOOD = """\
import sys, types, collections
sys.stderr.write("2026-01-01 W dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\\n")
sys.stderr.write("W gpu_device.cc:1835] Cannot dlopen some GPU libraries. Skipping registering GPU devices...\\n")
print("a library that prints on import")
__version__ = "2.6.0"
class _Dev:
    def __init__(self, name): self.name, self.device_type = name, "GPU"
sysconfig = types.SimpleNamespace(get_build_info=lambda: collections.OrderedDict(
    cuda_version="64_112", cudnn_version="64_8", cuda_compute_capabilities=["sm_35", "compute_80"],
    is_cuda_build=True, is_rocm_build=False))
config = types.SimpleNamespace(
    list_physical_devices=lambda kind: [_Dev("/physical_device:GPU:0")],
    experimental=types.SimpleNamespace(get_device_details=lambda d: {"device_name": "NVIDIA GeForce GTX 1660 SUPER",
                                                                     "compute_capability": (7, 5)}))
"""


def test_child_reports_version_build_info_gpus_and_log(tmp_path):
    out = P.child(30, env=_fake_tf(tmp_path, GOOD))
    assert out["error"] is None and out["returncode"] == 0
    res = out["result"]
    assert res["version"] == "2.6.0"
    assert res["build_info"]["cuda_version"] == "64_112" and res["build_info"]["cuda_compute_capabilities"] == ["sm_35", "compute_80"]
    assert res["gpus"] == [{"name": "/physical_device:GPU:0", "device_type": "GPU",
                            "device_name": "NVIDIA GeForce GTX 1660 SUPER", "capability": "7.5"}]
    assert [f["library"] for f in out["log"]["dlopen_failures"]] == ["cudart64_110.dll"]
    assert out["log"]["cannot_dlopen_gpu_libraries"]


def test_child_does_not_wait_for_tensorflow_teardown(tmp_path):
    """The facts are written before interpreter shutdown, which the child skips: a slow exit handler
    (TensorFlow's teardown took 0.3-1 s here) costs nothing and cannot hang the probe."""
    out = P.child(20, env=_fake_tf(tmp_path, GOOD + "import atexit, time\natexit.register(time.sleep, 30)\n"))
    assert out["error"] is None and out["returncode"] == 0 and not out["timed_out"]
    assert out["result"]["version"] == "2.6.0" and out["seconds"] < 15


def test_child_import_error_is_kept(tmp_path):
    out = P.child(30, env=_fake_tf(tmp_path, "raise ImportError('DLL load failed while importing _pywrap_tensorflow_internal')\n"))
    assert out["error"] is None
    assert out["result"]["import_error"].startswith("ImportError: DLL load failed")


def test_child_timeout_kills_it(tmp_path):
    out = P.child(1.5, env=_fake_tf(tmp_path, "import time\ntime.sleep(60)\n"))
    assert out["timed_out"] and "timed out after 1.5 s" in out["error"] and out["seconds"] < 10


def test_child_crash_without_result(tmp_path):
    out = P.child(30, env=_fake_tf(tmp_path, "import sys\nsys.stderr.write('Illegal instruction\\n')\nimport os\nos._exit(132)\n"))
    assert out["returncode"] == 132 and "without a result" in out["error"] and "Illegal instruction" in out["error"]


def test_probe_without_tensorflow_installed(monkeypatch):
    monkeypatch.setattr(P, "_version_of", lambda name: None)
    monkeypatch.setattr(P, "_importable_name", lambda: False)
    out = P.probe(timeout=1)
    assert out["installed"] is False and out["child"] == {"ran": False, "skipped": "TensorFlow is not installed"}


def test_probe_no_child_reads_metadata_only(monkeypatch):
    versions = {"tensorflow-cpu": "2.21.0", "keras": "3.12.0", "numpy": "2.1.3"}
    monkeypatch.setattr(P, "_version_of", versions.get)
    out = P.probe(timeout=1, run_child=False)
    assert out["installed"] and out["distribution"] == "tensorflow-cpu" and out["version"] == "2.21.0"
    assert out["child"] == {"ran": False, "skipped": "--no-tensorflow"}
    assert out["dependency_versions"]["numpy"] == "2.1.3"


def test_installed_but_no_module_is_not_importable(monkeypatch):
    versions = {"tensorflow": "2.21.0"}
    monkeypatch.setattr(P, "_version_of", versions.get)
    monkeypatch.setattr(P, "_importable_name", lambda: False)
    out = P.probe(timeout=1)
    assert out["importable"] is False and "No module named 'tensorflow'" in out["import_error"]
    from torch_envcheck.doctor.report import findings_for
    assert [f["code"] for f in findings_for({"tensorflow": out}) if f["area"] == "tensorflow"] == ["TE808"]


def test_child_starts_before_the_metadata_is_read(monkeypatch, tmp_path):
    """TF's import is the report's slowest step: the child is launched first, the metadata read meanwhile."""
    order = []
    monkeypatch.setattr(P, "_importable_name", lambda: True)
    monkeypatch.setattr(P, "child", lambda limit, python=None, env=None: order.append("child") or
                        {"ran": True, "error": None, "timed_out": False, "seconds": 0.1, "returncode": 0,
                         "result": {"version": "2.21.0", "import_error": None}, "log": {}})
    real = P.metadata

    def metadata():
        import time
        for _ in range(300):  # the child runs on its own thread: give it the time to start, if it was started
            if "child" in order:
                break
            time.sleep(0.01)
        order.append("metadata")
        return real()
    monkeypatch.setattr(P, "metadata", metadata)
    monkeypatch.setattr(P, "_version_of", {"tensorflow": "2.21.0"}.get)
    out = P.probe(timeout=1)
    assert order == ["child", "metadata"] and out["importable"] is True and out["version"] == "2.21.0"


def test_doctor_runs_tensorflow_probe_beside_torch(monkeypatch):
    """The TF probe starts on its own thread before the torch import; --no-tensorflow reaches it."""
    from torch_envcheck.doctor import probes

    seen = {}

    def fake(timeout=5.0, run_child=True, python=None, env=None, limit=None):
        import threading
        seen["thread"] = threading.current_thread().name
        seen["run_child"] = run_child
        seen["limit"] = limit
        return {"installed": False}

    real = probes._probe_fn
    monkeypatch.setattr(probes, "_probe_fn", lambda name: fake if name == "tensorflow" else real(name))
    res = probes.run(timeout=2, only=("platform", "tensorflow"), tensorflow=False)
    # the TensorFlow child's limit: twice the torch import's (30 s by default)
    assert seen == {"thread": "torch_envcheck-probe-tensorflow", "run_child": False, "limit": 60.0}
    assert res["sections"]["tensorflow"] == {"installed": False} and not res["probe_errors"]


@pytest.mark.parametrize("tf_child", [True, False])
def test_torch_child_is_nicer_while_tensorflow_child_runs(monkeypatch, tf_child):
    """TensorFlow's import is the report's critical path: torch's child, which finishes long before it,
    runs at a lower priority beside it, and at the normal one otherwise (--no-tensorflow, no TF)."""
    from torch_envcheck.doctor import probes
    from torch_envcheck.doctor.probes import torch_probe

    seen = {}
    monkeypatch.setattr(P, "will_run_child", lambda: tf_child)
    real = probes._probe_fn
    monkeypatch.setattr(probes, "_probe_fn", lambda name: (lambda **kw: {"installed": tf_child})
                        if name == "tensorflow" else real(name))
    monkeypatch.setattr(torch_probe, "start", lambda limit, env=None, extension=True, nice=0: seen.update(nice=nice))
    monkeypatch.setattr(torch_probe, "finish", lambda child: (None, None))
    probes.run(timeout=2, only=("torch", "tensorflow"))
    assert seen["nice"] == (probes.TORCH_NICE_BESIDE_TENSORFLOW if tf_child else 0)
    assert probes.TORCH_NICE_BESIDE_TENSORFLOW > 0


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no setpriority on this platform")
def test_lower_priority_raises_a_childs_nice_value():
    from torch_envcheck.doctor.probes import torch_probe

    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        before = os.getpriority(os.PRIO_PROCESS, proc.pid)
        assert torch_probe.lower_priority(proc.pid, 5)
        assert os.getpriority(os.PRIO_PROCESS, proc.pid) == min(19, before + 5)
    finally:
        proc.kill()
        proc.wait()
    assert torch_probe.lower_priority(proc.pid, 5) is False  # gone: no error, just no effect


def _tf_importable() -> bool:
    return importlib.util.find_spec("tensorflow") is not None


def _doctor_json(python: str, *args) -> dict:
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=REPO)
    proc = subprocess.run([python, "-m", "torch_envcheck", "--json", "--timeout", "10", *args], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr[-8000:]
    return json.loads(proc.stdout)


def _tf_cpu_installed() -> bool:
    from importlib import metadata
    try:
        metadata.distribution("tensorflow-cpu")
    except metadata.PackageNotFoundError:
        return False
    return _tf_importable()


# Healthy only where TensorFlow is the CPU build: the CUDA wheel without its CUDA 12 wheels (the venv
# TE_TEST_TF_CUDA_PYTHON names) rightly gets warnings, checked below.
@pytest.mark.skipif(not _tf_cpu_installed(), reason="tensorflow-cpu is not installed in this interpreter (CI's tf-cpu venv has it)")
def test_real_tensorflow_cpu_in_this_venv_is_healthy():
    rep = _doctor_json(sys.executable)
    tf = rep["snapshot"]["tensorflow"]
    assert tf["installed"] and tf["child"]["ran"] and tf["importable"], tf.get("child")
    assert tf["version"] and isinstance(tf["build_info"], dict) and "is_cuda_build" in tf["build_info"]
    assert rep["summary"]["tensorflow"] == "ok", [f["message"] for f in rep["findings"] if f["area"] == "tensorflow"]
    assert any(f["code"] == "TE800" for f in rep["findings"])
    assert rep["exit_status"] == 0, [f["message"] for f in rep["findings"] if f["severity"] == "failure"]
    assert rep["snapshot"]["file_owners"]["distributions"] > 10


@pytest.mark.skipif(not _tf_importable(), reason="TensorFlow is not installed in this interpreter (CI's tf-cpu venv has it)")
def test_real_tensorflow_no_tensorflow_flag_skips_the_child():
    rep = _doctor_json(sys.executable, "--no-tensorflow")
    child = rep["snapshot"]["tensorflow"]["child"]
    assert child["ran"] is False and child["skipped"] == "--no-tensorflow"


TF_CUDA = os.environ.get("TE_TEST_TF_CUDA_PYTHON")


def _tf_cuda_python(tmp_path) -> str:
    """TE_TEST_TF_CUDA_PYTHON, or (TE_TEST_DOWNLOADS=1, this interpreter has torch 2.14.1+cu130) a venv
    this test makes over this interpreter's packages, with the real tensorflow==2.21.0 wheel installed."""
    if TF_CUDA:
        return TF_CUDA
    try:
        import torch
        have = f"{torch.__version__} (CUDA {torch.version.cuda})"
        fits = torch.__version__.split("+")[0] == "2.14.1" and str(torch.version.cuda).startswith("13.")
    except Exception as exc:  # no torch, or a broken one
        have, fits = f"no importable torch ({type(exc).__name__})", False
    if not fits:
        pytest.skip(f"the venv for this test is made over torch 2.14.1 with CUDA 13; this interpreter has {have}")
    import sysconfig
    venv = tmp_path / "tf-cuda"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = str(venv / "bin" / "python")
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True,
                          text=True, check=True).stdout.strip()
    with open(os.path.join(site, "_over_test_interpreter.pth"), "w") as fh:
        fh.write(sysconfig.get_paths()["purelib"] + "\n")
    proc = subprocess.run([py, "-m", "pip", "install", "-q", "tensorflow==2.21.0"], capture_output=True, text=True,
                          timeout=1800)
    if proc.returncode != 0:
        pytest.skip(f"tensorflow==2.21.0 could not be downloaded here: {proc.stderr.strip().splitlines()[-1:]}")
    return py


@pytest.mark.slow
@pytest.mark.skipif(not TF_CUDA and os.environ.get("TE_TEST_DOWNLOADS") != "1",
                    reason="set TE_TEST_TF_CUDA_PYTHON to a venv with torch 2.14.1+cu130 and the real tensorflow==2.21.0 "
                           "wheel, or TE_TEST_DOWNLOADS=1 to make one (a 572 MB download, kept out of the default CI path)")
def test_real_tensorflow_cuda_wheel_names_missing_cuda12_libraries(tmp_path):
    python = _tf_cuda_python(tmp_path)
    rep = _doctor_json(python)
    tf = rep["snapshot"]["tensorflow"]
    assert tf["distribution"] == "tensorflow" and tf["build_info"]["is_cuda_build"] is True
    assert tf["build_info"]["cuda_version"].startswith("12.")
    f = [x for x in rep["findings"] if x["code"] == "TE801"]
    assert f and "CUDA 12" in f[0]["message"] and "nvidia-cudnn-cu12" in f[0]["explanation"]
    assert f[0]["fix"].endswith(f"-m pip install 'tensorflow[and-cuda]=={tf['version']}'")
    assert any(x["code"] == "TE809" for x in rep["findings"])
