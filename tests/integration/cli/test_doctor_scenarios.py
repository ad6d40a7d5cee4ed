"""The doctor run as users run it (a subprocess of a venv's python) in real broken and healthy
set-ups this machine can create: CPU torch, CUDA torch without a driver, nvcc hidden or of another
version, CUDA_VISIBLE_DEVICES="", torch not installed, stray CUDA libraries on LD_LIBRARY_PATH, a
hanging nvidia-smi.  Assertions are on the facts gathered and on the exit status matching the
findings; what each finding says is tested with the rules."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from doctor_support import fake_program, run_cli

posix_only = pytest.mark.skipif(os.name != "posix", reason="fake programs are shell scripts")


def _driver_present() -> bool:
    return os.path.exists("/proc/driver/nvidia/version") or shutil.which("nvidia-smi") is not None


def _report(python, args=(), **kw) -> tuple[dict, subprocess.CompletedProcess]:
    proc = run_cli(python, ["--json", *args], **kw)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    rep = json.loads(proc.stdout)
    return rep, proc


def _consistent(rep: dict, proc) -> None:
    failures = [f for f in rep["findings"] if f["severity"] == "failure"]
    assert rep["exit_status"] == proc.returncode == (1 if failures or rep.get("errors") else 0)
    assert rep["schema"] == "torch_envcheck.report/1"
    assert rep["snapshot"]["schema"] == "torch_envcheck.snapshot/1"



def test_cpu_torch(cpu_python):
    rep, proc = _report(cpu_python)
    _consistent(rep, proc)
    t = rep["snapshot"]["torch"]
    assert t["importable"] and t["local"] == "cpu" and t["cuda"] is None
    assert t["cuda_available"] is False and t["arch_list"] == []
    assert t["installer"] == "pip" and t["requires_python"]
    assert rep["snapshot"]["platform"]["python"]["venv"] is True
    assert rep["summary"]["torch"] != "failure"  # a CPU torch is a choice, not a failure


@pytest.mark.skipif(_driver_present(), reason="needs a machine without an NVIDIA driver")
def test_cuda_torch_without_driver(cuda_python):
    rep, proc = _report(cuda_python)
    _consistent(rep, proc)
    s = rep["snapshot"]
    assert s["torch"]["cuda"] and s["torch"]["local"].startswith("cu")
    assert s["torch"]["cuda_available"] is False
    assert "NVIDIA driver" in s["torch"]["cuda_init_error"]   # torch's own words, verbatim
    assert s["torch"]["arch_list"] and all(a.startswith(("sm_", "compute_")) for a in s["torch"]["arch_list"])
    assert s["torch"]["cudnn"] and s["torch"]["cudnn"] > 8000
    assert s["driver"]["present"] is False and s["driver"]["errors"]
    assert any(k.startswith("nvidia-cudnn") for k in s["packages"]["nvidia"])
    # No driver: a failure (exit 1) only where an NVIDIA GPU sits on the PCI bus; on a machine without
    # one (or where the bus cannot be read) a warning, and the environment works on the CPU (exit 0).
    te301 = [f for f in rep["findings"] if f["code"] == "TE301"]
    assert len(te301) == 1
    pci = s["driver"]["pci_gpus"]
    if pci:
        assert te301[0]["severity"] == "failure" and pci[0]["bus_id"] in te301[0]["message"]
        assert proc.returncode == 1
    else:
        assert te301[0]["severity"] == "warning"
        assert ("no NVIDIA GPU" in te301[0]["message"]) == (pci == [])
        assert te301[0]["fix"].endswith("/whl/cpu")


def test_cuda_visible_devices_empty(cuda_python):
    rep, proc = _report(cuda_python, env={"CUDA_VISIBLE_DEVICES": ""})
    _consistent(rep, proc)
    s = rep["snapshot"]
    assert s["env"]["CUDA_VISIBLE_DEVICES"] == ""
    assert s["torch"]["cuda_available"] is False and s["torch"]["device_count"] == 0
    assert s["torch"]["cuda_init_error"]


@posix_only
def test_nvcc_hidden(cuda_python, tmp_path):
    # PATH without nvcc (the venv's bin and the system's basics), no CUDA_HOME, no toolkit folders.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    path = os.pathsep.join([os.path.dirname(cuda_python), str(bindir), "/usr/bin", "/bin"])
    if any(os.path.isfile(os.path.join(p, "nvcc")) for p in path.split(os.pathsep)):
        pytest.skip("nvcc lives in /usr/bin on this machine: cannot be hidden by PATH")
    rep, proc = _report(cuda_python, env={"PATH": path, "TORCH_ENVCHECK_CUDA_DIRS": ""},
                        drop=("CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX"))
    _consistent(rep, proc)
    nvcc = rep["snapshot"]["toolchain"]["nvcc"]
    assert all(n["source"].startswith("pip wheel") for n in nvcc), nvcc  # only a pip nvcc could remain
    assert rep["snapshot"]["env"]["CUDA_HOME"] is None


@posix_only
def test_fake_nvcc_of_another_version(cuda_python, tmp_path):
    home = tmp_path / "cuda-12.1"
    (home / "bin").mkdir(parents=True)
    fake_program(home / "bin", "nvcc", 'echo "nvcc: NVIDIA (R) Cuda compiler driver"; '
                                  'echo "Cuda compilation tools, release 12.1, V12.1.105"')
    rep, proc = _report(cuda_python, env={"CUDA_HOME": str(home)})
    _consistent(rep, proc)
    tc = rep["snapshot"]["toolchain"]
    first = tc["nvcc"][0]
    assert first["source"] == "CUDA_HOME" and first["version"] == "12.1.105" and first["toolkit_found"] is False
    assert tc["cuda_home"]["CUDA_HOME"] == {"value": str(home), "exists": True, "has_nvcc": True}


@posix_only
def test_stray_cuda_libraries_on_ld_library_path(cuda_python, tmp_path):
    for name in ("libcudart.so.12.1.105", "libcudart.so.12", "libcudnn.so.8.9.2"):
        (tmp_path / name).write_bytes(b"")  # never loaded: torch's own libraries come first via RPATH
    rep, proc = _report(cuda_python, env={"LD_LIBRARY_PATH": str(tmp_path)})
    _consistent(rep, proc)
    lib = rep["snapshot"]["libraries"]
    assert lib["search_path_var"] == "LD_LIBRARY_PATH"
    assert lib["entries"][0]["dir"] == str(tmp_path)
    kinds = {(x["kind"], x["version"]) for x in lib["entries"][0]["libs"]}
    assert kinds == {("cudart", "12.1"), ("cudart", "12"), ("cudnn", "8.9")}
    assert rep["snapshot"]["env"]["LD_LIBRARY_PATH"] == str(tmp_path)


@posix_only
def test_hanging_nvidia_smi_is_timed_out(cpu_python, tmp_path):
    fake_program(tmp_path, "nvidia-smi", "sleep 60")
    rep, proc = _report(cpu_python, args=("--timeout", "1"), path_prefix=str(tmp_path))
    _consistent(rep, proc)
    drv = rep["snapshot"]["driver"]
    assert "`nvidia-smi` timed out after 1 s" in drv["errors"]
    assert rep["snapshot"]["probe_seconds"]["driver"] < 10


def _bare_venv(venv) -> tuple[str, str]:
    """A venv without pip (and so without torch): its python and its site-packages folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    return python, site


def test_torch_not_installed(tmp_path):
    # A fresh venv without pip: nothing but the standard library.
    venv = tmp_path / "bare"
    python, _site = _bare_venv(venv)
    rep, proc = _report(python)
    _consistent(rep, proc)
    t = rep["snapshot"]["torch"]
    assert t["importable"] is False and t["installed"] is False
    assert "No module named 'torch'" in t["import_error"]
    assert rep["snapshot"]["extension"]["status"]["state"] == "torch-missing"
    assert proc.returncode == 1  # torch missing is a failure
    # the human report says so too, and never shows a traceback
    human = run_cli(python, ["--no-color"])
    assert human.returncode == 1 and "Traceback" not in human.stdout + human.stderr
    assert "torch is not installed" in human.stdout


def test_conda_torch_that_does_not_import(tmp_path):
    # A conda env whose torch package is recorded (conda-meta, a dist-info without INSTALLER) but
    # whose files are gone: installed, not importable, installer conda, conda env detected.
    venv = tmp_path / "condaish"
    python, site = _bare_venv(venv)
    dist = os.path.join(site, "torch-2.5.1.dist-info")
    os.makedirs(dist)
    with open(os.path.join(dist, "METADATA"), "w") as fh:
        fh.write("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\nRequires-Python: >=3.9.0\n")
    (venv / "conda-meta").mkdir()
    (venv / "conda-meta" / "pytorch-2.5.1-py3.11_cuda12.4_cudnn9.1.0_0.json").write_text("{}")
    rep, proc = _report(python)
    _consistent(rep, proc)
    t = rep["snapshot"]["torch"]
    assert t["installed"] is True and t["importable"] is False and t["version"] == "2.5.1"
    assert t["installer"] == "conda" and t["requires_python"] == ">=3.9.0"
    assert "No module named 'torch'" in t["import_error"]
    assert rep["snapshot"]["platform"]["python"]["conda_prefix"] == str(venv)
    assert proc.returncode == 1


def test_torch_whose_import_fails_with_oserror(tmp_path):
    # What a torch with a missing CUDA library looks like: the import raises OSError. The text is
    # kept verbatim and the rest of the report is still produced.
    venv = tmp_path / "broken"
    python, site = _bare_venv(venv)
    os.makedirs(os.path.join(site, "torch"))
    msg = "libcudnn.so.9: cannot open shared object file: No such file or directory"
    with open(os.path.join(site, "torch", "__init__.py"), "w") as fh:
        fh.write(f"raise OSError({msg!r})\n")
    rep, proc = _report(python)
    _consistent(rep, proc)
    t = rep["snapshot"]["torch"]
    assert t["importable"] is False and t["import_error"] == f"OSError: {msg}"
    assert rep["snapshot"]["toolchain"] is not None and rep["snapshot"]["driver"] is not None
    assert proc.returncode == 1
