"""The doctor's probes: parsers on real-world texts, and each probe on conditions this machine can
create (fake programs first on PATH, fake libraries on LD_LIBRARY_PATH, a probe that raises)."""

from __future__ import annotations

import os
import sys
import time

import pytest

from doctor_support import fake_program
from torch_envcheck.doctor import probes
from torch_envcheck._util import proc as _proc
from torch_envcheck.doctor.probes import driver, env_vars, libraries, packages, platform, system, torch_probe



posix_only = pytest.mark.skipif(os.name != "posix", reason="uses shell scripts as fake programs")

# ---------------------------------------------------------------- parsers

def test_os_release_parsing():
    rel = platform.parse_os_release('NAME="Ubuntu"\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n# c\n')
    assert rel["PRETTY_NAME"] == "Ubuntu 22.04.4 LTS" and rel["VERSION_ID"] == "22.04"


@pytest.mark.parametrize("osrelease, version, dxg, env, expected", [
    ("5.15.153.1-microsoft-standard-WSL2", "", True, {"WSL_DISTRO_NAME": "Ubuntu"}, 2),
    ("4.4.0-19041-Microsoft", "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)", False,
     {"WSL_DISTRO_NAME": "Ubuntu"}, 1),
    ("6.8.0-45-generic", "Linux version 6.8.0-45-generic (buildd@lcy02)", False, {}, None),
    ("6.6.36.3-microsoft-standard-WSL2", "", False, {}, 2),
])
def test_wsl_detection(osrelease, version, dxg, env, expected):
    assert platform.detect_wsl(osrelease, version, dxg, env) == expected


def test_container_detection_from_env_and_files():
    assert platform.detect_container({"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, exists=lambda p: False,
                                     read=lambda p: "") == "kubernetes"
    assert platform.detect_container({}, exists=lambda p: p == "/run/.containerenv", read=lambda p: "") == "podman"
    assert platform.detect_container({}, exists=lambda p: False, read=lambda p: "0::/system.slice/docker-ab.scope") \
        == "docker"
    assert platform.detect_container({}, exists=lambda p: False, read=lambda p: "0::/init.scope") is None


@pytest.mark.parametrize("name, kind, version", [
    ("libcudart.so.12.1.105", "cudart", "12.1"),
    ("libcudnn.so.8.9.2", "cudnn", "8.9"),
    ("libcudnn_ops.so.9", "cudnn", "9"),
    ("libcublas.so.12", "cublas", "12"),
    ("libcublasLt.so.12.1.3.1", "cublasLt", "12.1"),
    ("libnvJitLink.so.12", "nvjitlink", "12"),
    ("libcuda.so.1", "cuda", None),
    ("libcuda.so.580.65.06", "cuda", "580.65"),
    ("cudart64_110.dll", "cudart", "11.0"),
    ("cudart64_12.dll", "cudart", "12"),
    ("cudnn64_8.dll", "cudnn", "8"),
])
def test_library_names(name, kind, version):
    lib = libraries.parse_library(name)
    assert lib["kind"] == kind and lib["version"] == version


@pytest.mark.parametrize("name", ["libcudart_static.a", "libfoo.so.1", "libcudart.so.12.txt", "README"])
def test_non_libraries_ignored(name):
    assert libraries.parse_library(name) is None


def test_nvidia_smi_csv():
    text = ("0, NVIDIA H100 80GB HBM3, 9.0, 81559 MiB, GPU-4f1c, 00000000:18:00.0, 580.65.06\n"
            "1, NVIDIA GeForce GTX 1080, 6.1, 8192 MiB, GPU-77aa, 00000000:65:00.0, 580.65.06\n"
            "garbage line\n")
    gpus = driver.parse_query_csv(text)
    assert [g["capability"] for g in gpus] == ["9.0", "6.1"]
    assert gpus[0]["memory_total_mib"] == 81559 and gpus[1]["name"] == "NVIDIA GeForce GTX 1080"
    # an old nvidia-smi prints "[Not Supported]" for compute_cap
    assert driver.parse_query_csv("0, Tesla K80, [Not Supported], 11441 MiB, GPU-1, 0:1, 470.1")[0]["capability"] \
        is None


def test_local_suffix():
    assert torch_probe.local_suffix("2.14.1+cu130") == "cu130"
    assert torch_probe.local_suffix("2.13.0+cpu") == "cpu"
    assert torch_probe.local_suffix("2.5.1") is None


def test_nvidia_wheels_from_dist_info_names(tmp_path):
    for d in ("nvidia_cudnn_cu13-9.24.0.43.dist-info", "nvidia_cublas-13.1.1.3.dist-info", "numpy-2.0.dist-info"):
        (tmp_path / d).mkdir()
    assert packages.nvidia_wheels([str(tmp_path)]) == {"nvidia-cublas": "13.1.1.3", "nvidia-cudnn-cu13": "9.24.0.43"}


# ---------------------------------------------------------------- programs and time limits

@posix_only
def test_hanging_program_is_killed_with_its_children(tmp_path):
    fake = fake_program(tmp_path, "nvidia-smi", "sleep 30 & sleep 30")
    t0 = time.monotonic()
    with pytest.raises(_proc.CommandFailed, match=r"`nvidia-smi` timed out after 0.5 s"):
        _proc.run([fake], timeout=0.5)
    assert time.monotonic() - t0 < 5


def test_missing_program_is_a_fact():
    with pytest.raises(_proc.CommandFailed, match="could not run"):
        _proc.run([os.path.join(os.sep, "nonexistent", "nvidia-smi")], timeout=1)


@posix_only
def test_driver_probe_times_out_hanging_nvidia_smi(tmp_path, monkeypatch):
    fake_program(tmp_path, "nvidia-smi", "sleep 30")
    monkeypatch.setitem(sys.modules, "pynvml", None)  # NVML absent: nvidia-smi is the source
    t0 = time.monotonic()
    out = driver.probe(timeout=0.5, env={"PATH": str(tmp_path)})
    assert time.monotonic() - t0 < 5
    assert "`nvidia-smi` timed out after 0.5 s" in out["errors"]
    assert out["present"] in (False, True)  # True only via /proc on a machine with the kernel module
    assert out["source"] in (None, "proc")


@posix_only
def test_driver_probe_reads_nvidia_smi(tmp_path, monkeypatch):
    fake_program(tmp_path, "nvidia-smi", """
case "$1" in
  --query-gpu=*) echo "0, NVIDIA A100-SXM4-40GB, 8.0, 40960 MiB, GPU-abc, 00000000:07:00.0, 550.54.15" ;;
  *) echo "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |" ;;
esac""")
    monkeypatch.setitem(sys.modules, "pynvml", None)
    out = driver.probe(timeout=5, env={"PATH": str(tmp_path)})
    assert out["source"] == "nvidia-smi" and out["present"] is True
    assert out["version"] == "550.54.15" and out["cuda_version"] == "12.4"
    assert out["gpus"] == [{"index": 0, "name": "NVIDIA A100-SXM4-40GB", "capability": "8.0",
                            "memory_total_mib": 40960, "uuid": "GPU-abc", "pci_bus_id": "00000000:07:00.0"}]


def _pci_device(root, bus_id, vendor, device, cls):
    d = root / bus_id
    d.mkdir(parents=True)
    for name, value in (("vendor", vendor), ("device", device), ("class", cls)):
        (d / name).write_text(value + "\n")


def test_pci_scan_finds_nvidia_display_devices_only(tmp_path):
    root = tmp_path / "devices"
    _pci_device(root, "0000:00:00.0", "0x8086", "0x0d57", "0x060000")   # host bridge
    _pci_device(root, "0000:01:00.0", "0x10de", "0x2684", "0x030000")   # NVIDIA VGA controller
    _pci_device(root, "0000:01:00.1", "0x10de", "0x22ba", "0x040300")   # its HDMI audio function
    _pci_device(root, "0000:41:00.0", "0x10DE", "0x2330", "0x030200")   # NVIDIA 3D controller
    _pci_device(root, "0000:02:00.0", "0x1002", "0x744c", "0x030000")   # AMD GPU
    (root / "0000:03:00.0").mkdir()                                     # unreadable entry: skipped
    assert driver.pci_gpus(str(root), tegra_marker=str(tmp_path / "absent")) == [
        {"bus_id": "0000:01:00.0", "device_id": "0x2684", "class": "0x030000"},
        {"bus_id": "0000:41:00.0", "device_id": "0x2330", "class": "0x030200"}]


def test_pci_scan_without_nvidia_is_empty_and_unknown_is_none(tmp_path):
    root = tmp_path / "devices"
    _pci_device(root, "0000:00:03.0", "0x1af4", "0x1041", "0x020000")
    assert driver.pci_gpus(str(root), tegra_marker=str(tmp_path / "absent")) == []
    assert driver.pci_gpus(str(tmp_path / "no-sysfs"), tegra_marker=str(tmp_path / "absent")) is None
    (tmp_path / "empty").mkdir()  # a masked sysfs shows an empty bus: that proves nothing
    assert driver.pci_gpus(str(tmp_path / "empty"), tegra_marker=str(tmp_path / "absent")) is None
    (tmp_path / "nv_tegra_release").write_text("# R36 (release)\n")  # Jetson: the GPU is not a PCI device
    assert driver.pci_gpus(str(root), tegra_marker=str(tmp_path / "nv_tegra_release")) is None


def test_pci_scan_for_amd_and_intel_gpus_skips_nvidia_and_other_classes(tmp_path):
    root = tmp_path / "devices"
    _pci_device(root, "0000:00:02.0", "0x8086", "0xa780", "0x030000")   # Intel iGPU
    _pci_device(root, "0000:00:1f.3", "0x8086", "0x7a50", "0x040380")   # Intel audio: not a display class
    _pci_device(root, "0000:01:00.0", "0x10de", "0x2684", "0x030000")   # NVIDIA: the driver probe's
    _pci_device(root, "0000:03:00.0", "0x1002", "0x744C", "0x038000")   # AMD display controller
    (root / "0000:04:00.0").mkdir()                                     # unreadable entry: skipped
    assert system.other_gpus(str(root)) == [
        {"vendor": "intel", "bus_id": "0000:00:02.0", "device_id": "0xa780", "class": "0x030000"},
        {"vendor": "amd", "bus_id": "0000:03:00.0", "device_id": "0x744c", "class": "0x038000"}]
    assert system.other_gpus(str(tmp_path / "no-sysfs")) is None
    (tmp_path / "empty").mkdir()
    assert system.other_gpus(str(tmp_path / "empty")) is None


def test_driver_probe_records_the_pci_fact():
    out = driver.probe(timeout=5)
    assert "pci_gpus" in out
    if sys.platform.startswith("linux") and os.path.isdir(driver.PCI_DEVICES) and os.listdir(driver.PCI_DEVICES):
        assert isinstance(out["pci_gpus"], list) or os.path.exists(driver.TEGRA_RELEASE)
    elif not sys.platform.startswith("linux"):
        assert out["pci_gpus"] is None


@posix_only
def test_failing_nvidia_smi_is_reported(tmp_path, monkeypatch):
    fake_program(tmp_path, "nvidia-smi", "echo \"NVIDIA-SMI has failed because it couldn't communicate with the "
                                    "NVIDIA driver.\"; exit 9")
    monkeypatch.setitem(sys.modules, "pynvml", None)
    out = driver.probe(timeout=5, env={"PATH": str(tmp_path)})
    assert any("exit 9" in e and "couldn't communicate" in e for e in out["errors"])


# ---------------------------------------------------------------- environment and libraries

def test_libraries_probe_finds_fake_cuda_libs(tmp_path):
    for name in ("libcudart.so.12.1.105", "libcudnn.so.8.9.2", "libcublas.so.12", "libpng.so.16"):
        (tmp_path / name).write_bytes(b"")
    empty = tmp_path / "empty"
    empty.mkdir()
    var = "PATH" if os.name == "nt" else "LD_LIBRARY_PATH"
    out = libraries.probe({var: os.pathsep.join([str(empty), str(tmp_path), "/does/not/exist"])})
    assert out["search_path_var"] == var
    assert [e["dir"] for e in out["entries"]] == [str(tmp_path)]
    got = {lib["file"]: (lib["kind"], lib["version"]) for lib in out["entries"][0]["libs"]}
    assert got == {"libcudart.so.12.1.105": ("cudart", "12.1"), "libcudnn.so.8.9.2": ("cudnn", "8.9"),
                   "libcublas.so.12": ("cublas", "12")}


def test_env_probe_keeps_empty_apart_from_unset():
    out = env_vars.probe({"CUDA_VISIBLE_DEVICES": "", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"})
    assert out["CUDA_VISIBLE_DEVICES"] == "" and out["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"
    assert out["CUDA_HOME"] is None


# ---------------------------------------------------------------- the runner's guards

def test_a_probe_that_raises_becomes_a_probe_error(monkeypatch):
    def boom(env=None):
        raise OSError("/etc/os-release: Input/output error")

    monkeypatch.setattr(platform, "probe", boom)
    res = probes.run(timeout=2, only=("platform", "env"))
    assert res["probe_errors"] == {"platform": "OSError: /etc/os-release: Input/output error"}
    assert res["sections"]["platform"] is None and res["sections"]["env"] is not None
    assert set(res["probe_seconds"]) == {"platform", "env"}


def test_a_stuck_probe_thread_is_abandoned(monkeypatch):
    def stuck(timeout=5.0, env=None):
        time.sleep(20)

    monkeypatch.setattr(driver, "probe", stuck)
    t0 = time.monotonic()
    res = probes.run(timeout=0.5, only=("driver",))
    assert time.monotonic() - t0 < 6
    assert res["probe_errors"]["driver"] == "the driver probe did not finish within 3 s"
    assert res["sections"]["driver"] is None


def test_output_during_probes_goes_to_stderr(tmp_path):
    # A library that prints while the probes run (here: the platform probe) must not corrupt --json.
    import subprocess

    code = ("import json, os, sys; from torch_envcheck.commands import _source as _args\n"
            "from torch_envcheck.doctor.probes import platform\n"
            "real = platform.probe\n"
            "def noisy(env=None):\n"
            "    print('hello from python'); sys.stdout.flush(); os.write(1, b'hello from C\\n')\n"
            "    return real(env)\n"
            "platform.probe = noisy\n"
            "class A: from_json = None; timeout = 2\n"
            "snap = _args.snapshot(A(), only=('platform',))\n"
            "print(json.dumps(snap['platform']['system']))\n")
    from paths import REPO as repo
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=repo))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith('"') and "hello" not in proc.stdout
    assert "hello from python" in proc.stderr and "hello from C" in proc.stderr


def test_extension_probe_never_builds_and_records_errors(monkeypatch):
    import types

    from torch_envcheck.ext import extension
    from torch_envcheck.doctor.probes import extension_probe

    calls = []
    fake_info = types.ModuleType("torch_envcheck.ext.info")

    def build_info(build=None):
        calls.append(("build_info", build))
        return {"available": True}

    def runtime_info(build=None):
        calls.append(("runtime_info", build))
        raise RuntimeError("cudnnCreate failed: CUDNN_STATUS_NOT_INITIALIZED")

    fake_info.build_info, fake_info.runtime_info = build_info, runtime_info
    monkeypatch.setitem(sys.modules, "torch_envcheck.ext.info", fake_info)
    import torch_envcheck.ext  # `from torch_envcheck.ext import info` reads the package attribute once info was imported
    monkeypatch.setattr(torch_envcheck.ext, "info", fake_info, raising=False)
    monkeypatch.setattr(extension, "status", lambda probe=True: {"state": "ok", "mode": "jit"})
    out = extension_probe.probe({"importable": True})
    assert calls == [("build_info", False), ("runtime_info", False)]  # build=False: never compile
    assert out["build_info"] == {"available": True} and out["runtime_info"] is None
    assert out["errors"] == ["runtime_info(): RuntimeError: cudnnCreate failed: CUDNN_STATUS_NOT_INITIALIZED"]
    # not built: nothing else is asked
    calls.clear()
    monkeypatch.setattr(extension, "status", lambda probe=True: {"state": "missing"})
    out = extension_probe.probe({"importable": True})
    assert calls == [] and out["status"] == {"state": "missing"} and out["build_info"] is None
    # torch broken: torch is not imported again
    out = extension_probe.probe({"importable": False, "import_error": "OSError: libcudnn.so.9: cannot open"})
    assert out["status"]["state"] == "torch-missing" and "libcudnn" in out["status"]["error"]
