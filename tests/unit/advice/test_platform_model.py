"""The platform model (advice/platform.py), the dependency model (advice/deps.py) and the facts and
tables they stand on: layouts per OS and manager, accelerator families, the marker
environment, pip's effect on installed pins, local version labels, the JetPack and Windows DLL
tables, and the new probe facts (packages.requires, toolchain.msvc, NVIDIA_VISIBLE_DEVICES)."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from _rules_helpers import load
from torch_envcheck._util import versions
from torch_envcheck.advice import deps
from torch_envcheck.advice.platform import Platform
from torch_envcheck.facts import core as F
from torch_envcheck.knowledge import jetson as kj
from torch_envcheck.knowledge import windows_dlls as wd


@pytest.mark.parametrize("name,os_,shell,manager,accel", [
    # native Windows, the shell not told apart in the snapshot: lines valid in cmd.exe and PowerShell
    ("win10_tf210_torch_cu118_one_venv", "Windows", "cmd-or-powershell", "venv", "nvidia"),
    ("conda_win11_pytorch23_cuda124_first_on_path", "Windows", "cmd-or-powershell", "conda", "nvidia"),
    ("jetson_agx_orin_jetpack_wheel", "Linux", "posix", "venv", "jetson"),
    ("macos_rosetta_x86_64_python", "Darwin", "posix", "venv", "apple-rosetta"),
    ("macos_apple_silicon", "Darwin", "posix", "conda", "apple-silicon"),
    ("rocm_wheel_on_amd_mi300x", "Linux", "posix", "venv", "rocm"),
    ("devbox_probed_cpu", "Linux", "posix", "venv", "none"),
    ("k8s_pod_without_gpu_request_void", "Linux", "posix", "venv", "nvidia"),
])
def test_platform_of_a_snapshot(name, os_, shell, manager, accel):
    p = Platform.of(load(name))
    assert (p.os, p.shell, p.manager, p.accelerator) == (os_, shell, manager, accel)


def test_layouts():
    win = Platform("Windows", "powershell", "venv", "nvidia", python="3.10")
    lin = Platform("Linux", "posix", "venv", "nvidia", python="3.11")
    assert win.venv_python("C:\\envs\\a") == "C:\\envs\\a\\Scripts\\python.exe"
    assert win.venv_python("C:\\envs\\a", conda=True) == "C:\\envs\\a\\python.exe"
    assert lin.venv_python("/opt/env/") == "/opt/env/bin/python"
    assert win.new_environment("tf", ["install", "tensorflow==2.10.1"]) == (
        "py '-3.10' -m venv $HOME\\venvs\\tf; & $HOME\\venvs\\tf\\Scripts\\python.exe -m pip install tensorflow==2.10.1")
    assert lin.new_environment("torch", ["install", "torch==2.5.1"]) == (
        "python3 -m venv ~/venvs/torch && ~/venvs/torch/bin/python -m pip install torch==2.5.1")
    mamba = Platform("Linux", "posix", "micromamba", "nvidia", python="3.11")
    assert mamba.new_environment("tf", ["install", "tensorflow[and-cuda]==2.18.0"]) == (
        "micromamba create -y -n tf python=3.11 pip && micromamba run -n tf python -m pip install "
        "'tensorflow[and-cuda]==2.18.0'")
    with pytest.raises(ValueError):
        lin.new_environment("a;b", ["install", "x"])


def test_path_problems_per_layout():
    win = Platform("Windows", "powershell", "venv", "nvidia")
    lin = Platform("Linux", "posix", "venv", "nvidia")
    assert win.path_problems("~/venvs/x/bin/python -m pip install torch")
    assert win.path_problems("source .venv/bin/activate")
    assert not win.path_problems("& $HOME\\venvs\\x\\Scripts\\python.exe -m pip install torch --index-url "
                                 "https://download.pytorch.org/whl/cu126")
    assert lin.path_problems("C:\\Users\\a\\Scripts\\python.exe -m pip install torch")
    assert not lin.path_problems("/home/u/venv/bin/python -m pip install torch")
    assert not win.path_problems("# on Linux: ~/venvs/x/bin/python")  # a comment is not a command


# ---------------------------------------------------------------- deps: pip's effect, judged with packaging

def test_marker_environment_of_a_snapshot():
    env = deps.marker_env(load("tf218_torch251_cudnn_pins_clash_torch_last"))
    assert env["platform_system"] == "Linux" and env["platform_machine"] == "x86_64"
    assert env["python_version"] == "3.11" and env["sys_platform"] == "linux"
    assert deps.marker_env(load("win10_tf210_torch_cu118_one_venv"))["sys_platform"] == "win32"


def test_the_recorded_environment_meets_its_pins_until_pip_changes_them():
    s = load("tf220_torch271_cu126_one_venv_pins_agree")
    env = deps.Env.of(s)
    assert env.unsatisfied() == set()
    after = env.pip(["install", "nvidia-cudnn-cu12==9.1.0.70"])
    broken = {(d, deps._req(line).name) for d, line, _ in deps.regressions(env, after)}
    assert ("torch", "nvidia-cudnn-cu12") in broken          # ==9.5.1.17 in torch 2.7.1's METADATA
    assert ("tensorflow", "nvidia-cudnn-cu12") in broken     # >=9.3.0.75 in TensorFlow 2.20's
    # --no-deps changes only what is named; a pin both accept breaks nothing
    assert not deps.regressions(env, env.pip(["install", "--no-deps", "nvidia-cudnn-cu12==9.5.1.17"]))


def test_pip_pulls_the_requirements_of_what_it_installs():
    s = load("tf218_torch251_cudnn_pins_clash_torch_last")
    env = deps.Env.of(s)
    after = env.pip(["install", "tensorflow[and-cuda]==2.18.0"])
    assert after.versions["nvidia-cudnn-cu12"] == "9.3.0.75"       # the and-cuda pin
    plain = env.pip(["install", "tensorflow==2.18.0"])            # no extra asked: its pins are not pulled
    assert plain.versions["nvidia-cudnn-cu12"] == "9.1.0.70"
    fresh = deps.Env.fresh(s).pip(["install", "torch==2.5.1", "--index-url", "https://download.pytorch.org/whl/cu124"])
    assert fresh.versions["torch"] == "2.5.1+cu124" and fresh.versions["nvidia-cudnn-cu12"] == "9.1.0.70"
    gone = env.pip(["uninstall", "-y", "torch"])
    assert gone.versions["torch"] is None


def test_clashing_pin_sets():
    env = deps.marker_env(load("tf218_torch251_cudnn_pins_clash_torch_last"))
    got = deps.satisfiable_together(["nvidia-cudnn-cu12==9.1.0.70", "filelock"],
                                    ["nvidia-cudnn-cu12==9.3.0.75", "nvidia-nccl-cu12>=2"], env)
    assert [g[0] for g in got] == ["nvidia-cudnn-cu12"]
    assert not deps.satisfiable_together(["nvidia-cudnn-cu12==9.5.1.17"], ["nvidia-cudnn-cu12<10.0,>=9.3.0.75"], env)
    # a marker that does not hold on this machine is no clash (torch's pins are Linux x86_64 only)
    win = deps.marker_env(load("win10_tf210_torch_cu118_one_venv"))
    assert not deps.satisfiable_together(['nvidia-cudnn-cu12==8.9.2.26; platform_system == "Linux"'],
                                         ["nvidia-cudnn-cu12==9.3.0.75"], win)


# ---------------------------------------------------------------- local labels, JetPack, Windows DLLs

@pytest.mark.parametrize("version,label,index", [
    ("2.14.1+cu130", "cu130", "cu130"), ("2.6.0+rocm6.2.4", "rocm6.2.4", "rocm6.2.4"), ("2.1.0+CPU", "cpu", "cpu"),
    ("0.20.0a0+afc54f7", "afc54f7", None), ("2.5.0a0+872d972e41.nv24.08", "872d972e41.nv24.8", None),
    ("2.14.1", None, None), ("not a version+cu130", None, None),
])
def test_local_labels(version, label, index):
    assert versions.local_label(version) == label and versions.index_label(version) == index


def test_the_jetson_facts_and_the_jetpack_table():
    s = load("jetson_agx_orin_jetpack_wheel")
    assert F.jetson_l4t(s) == (36, 4, 3) and F.torch_index_label(s) is None
    assert kj.row_for((36, 4, 3))["jetpack"] == "6.1 / 6.2" and kj.row_for((36, 3, 0))["jetpack"] == "6.0"
    assert kj.row_for((35, 4, 1))["python"] == "3.8"
    assert kj.wheel_for((35, 4, 1), "3.10")["kind"] is None        # JetPack 5's wheel is cp38
    assert kj.wheel_for((38, 2, 0), "3.12")["kind"] == "sbsa"       # JetPack 7: the index's aarch64 wheels
    assert kj.wheel_for((32, 7, 1), "3.6")["kind"] is None          # not in the table: said so
    assert kj.parse_l4t("R35 (release), REVISION: 4.1") == (35, 4, 1) and kj.parse_l4t("junk") is None
    for row in kj.table()["rows"]:
        assert row["wheel"].startswith(kj.table()["redist_base"]) and kj.source(row).get("url")
        assert f"cp{row['python'].replace('.', '')}" in row["wheel"]


def test_windows_dll_search_per_framework():
    assert wd.path_searched("torch", "2.3.1") is False and wd.path_searched("torch", "1.4.0") is None
    assert wd.path_searched("tensorflow", "2.10.1") is True and wd.path_searched("tensorflow", "2.15.0") is False
    assert wd.dll_names("11.8", "8.7.0") == {"cudart": "cudart64_110.dll", "cublas": "cublas64_11.dll",
                                             "cudnn": "cudnn64_8.dll"}
    assert wd.dll_names("12.6", "9.5.1")["cudart"] == "cudart64_12.dll"
    assert wd.dll_names("10.1", None) == {"cudart": "cudart64_101.dll", "cublas": "cublas64_101.dll"}
    assert wd.shared_names(wd.dll_names("12.6", "9.5"), wd.dll_names("11.2", "8.1")) == []
    assert "torch/__init__.py" in wd.source_text("torch", "2.3") and "load_library.cc" in wd.source_text("tensorflow", "2.10")


# ---------------------------------------------------------------- the new probe facts

def test_container_without_gpu_needs_the_value_a_container_and_no_gpu():
    s = load("k8s_pod_without_gpu_request_void")
    assert F.container_without_gpu(s).value == "void"
    assert F.container_without_gpu(load("k8s_pod_cdi_void_gpu_works")) is None    # CDI: void, and CUDA works
    s["platform"]["container"] = None
    assert F.container_without_gpu(s) is None                                     # not in a container
    s = load("k8s_pod_without_gpu_request_void")
    s["env"]["NVIDIA_VISIBLE_DEVICES"] = "all"
    assert F.container_without_gpu(s) is None


def test_the_packages_probe_records_requirements_and_what_they_name(tmp_path):
    from torch_envcheck.doctor.probes import packages

    site = tmp_path / "site"
    for name, version, reqs in (("torch", "2.5.1", ["nvidia-cudnn-cu12==9.1.0.70", "filelock"]),
                                ("nvidia_cudnn_cu12", "9.1.0.70", ["nvidia-cublas-cu12"]),
                                ("filelock", "3.16.1", [])):
        d = site / f"{name}-{version}.dist-info"
        d.mkdir(parents=True)
        (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                    + "".join(f"Requires-Dist: {r}\n" for r in reqs))
    out, installed = packages.requirements({"nvidia-cudnn-cu12": "9.1.0.70"}, paths=[str(site)])
    assert {(o["name"], o["version"]) for o in out} == {("torch", "2.5.1"), ("nvidia-cudnn-cu12", "9.1.0.70")}
    assert installed["filelock"] == "3.16.1" and installed["nvidia-cublas-cu12"] is None   # named, not installed


@pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for vswhere.exe")
def test_the_msvc_probe_asks_vswhere(tmp_path):
    from torch_envcheck.doctor.probes import toolchain_probe

    inst = tmp_path / "Microsoft Visual Studio" / "Installer"
    inst.mkdir(parents=True)
    exe = inst / "vswhere.exe"
    exe.write_text("#!/bin/sh\necho 'C:\\Program Files\\Microsoft Visual Studio\\2022\\BuildTools'\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    env = {"ProgramFiles(x86)": str(tmp_path), "PATH": ""}
    got = toolchain_probe.msvc(env, 5.0)
    assert got["vc_tools"] is True and got["installation"].endswith("BuildTools") and got["cl"] is None
    exe.write_text("#!/bin/sh\nexit 0\n")                        # an install without the C++ tools
    assert toolchain_probe.msvc(env, 5.0)["vc_tools"] is False
    assert toolchain_probe.msvc({"PATH": ""}, 5.0)["vc_tools"] is None   # no installer at all: unknown
    assert sys.platform  # (the probe runs it only on Windows: probe() gates it on os.name)


def test_without_packaging_requirements_are_not_judged_and_nothing_breaks(monkeypatch):
    # the doctor runs where packaging is missing: no requirement claim, no caution line, no crashed rule
    from torch_envcheck.advice import check, frameworks
    from torch_envcheck.doctor.rules import evaluate

    monkeypatch.setattr(deps, "available", lambda: False)
    s = load("tf217_after_torch251_import_fails")
    bad = ("/home/lee/ml/bin/python -m pip install --force-reinstall torch==2.5.1 --index-url "
           "https://download.pytorch.org/whl/cu124")
    assert not [p for p in check.problems(s, bad) if p.kind == "requires"]
    assert frameworks.pin_clash(s) is None
    found = evaluate(s)
    assert not [f for f in found if f["slug"].endswith("probe-failed") or (f.get("fix") or "").startswith("# caution")]
