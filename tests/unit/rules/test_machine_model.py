"""The machine model beyond what a scenario row states: each kernel-module cause gets its
distribution's fix, the WSL fix only removes, MIG entries are judged against NVML's list in both
variables, the host-compiler table and the advisories answer from their cited rows, advise never
trades a working ROCm, XPU or MPS build, and the fix checker knows uv and WSL."""

from __future__ import annotations

import copy

import pytest

from torch_envcheck import knowledge as kb
from torch_envcheck.advice import check
from torch_envcheck.advice.recommend import advise, recommend
from torch_envcheck.facts import core as F
from torch_envcheck.doctor.report import findings_for as evaluate  # the finished findings: hidden, linked, checked

from _rules_helpers import SNAPSHOT_NAMES, by_code, load


def _codes(s) -> dict:
    return {f["code"]: f for f in evaluate(s)}


# ---------------------------------------------------------------- kernel module causes, per distribution

@pytest.mark.parametrize("os_pretty, initramfs", [("Ubuntu 24.04.1 LTS", "sudo update-initramfs -u"),
                                                   ("Debian GNU/Linux 12 (bookworm)", "sudo update-initramfs -u"),
                                                   ("Rocky Linux 9.4 (Blue Onyx)", "sudo dracut --force"),
                                                   ("Arch Linux", "sudo mkinitcpio -P")])
def test_nouveau_fix_rebuilds_the_distributions_initramfs(os_pretty, initramfs):
    s = load("fedora_rtx4090_nouveau_bound")
    s["platform"]["os_pretty"] = os_pretty
    fix = _codes(s)["TE312"]["fix"]
    assert initramfs in fix and "blacklist nouveau" in fix and "ubuntu-drivers" not in fix
    # already blacklisted: only the initramfs is rebuilt
    s["system"]["nouveau_blacklisted"] = True
    fix = _codes(s)["TE312"]["fix"]
    assert "tee" not in fix and initramfs in fix


@pytest.mark.parametrize("os_pretty, key", [("Ubuntu 24.04.1 LTS", "/var/lib/shim-signed/mok/MOK.der"),
                                             ("Debian GNU/Linux 12 (bookworm)", "/var/lib/dkms/mok.pub"),
                                             ("Fedora Linux 41 (Workstation Edition)", "/etc/pki/akmods/certs/public_key.der")])
def test_secure_boot_fix_enrolls_the_key_its_distribution_signs_with(os_pretty, key):
    s = load("rtx4090_secure_boot_refuses_dkms_module")
    s["platform"]["os_pretty"] = os_pretty
    f = _codes(s)["TE311"]
    assert f["fix"].startswith(f"sudo mokutil --import {key}")
    assert "install" not in f["fix"].split("mokutil")[0]


@pytest.mark.parametrize("os_pretty, first", [("Fedora Linux 41 (Workstation Edition)", "sudo dnf install kernel-devel-6.8.0-51-generic && sudo akmods"),
                                               ("Arch Linux", "sudo pacman -S --needed linux-headers"),
                                               ("Ubuntu 24.04.1 LTS", "sudo apt-get install linux-headers-6.8.0-51-generic")])
def test_missing_module_fix_installs_the_running_kernels_headers(os_pretty, first):
    s = load("rtx4090_nvidia_module_not_built_for_kernel")
    s["platform"]["os_pretty"] = os_pretty
    assert _codes(s)["TE313"]["fix"].startswith(first)


def test_secure_boot_without_a_built_module_is_the_missing_module_first():
    s = load("rtx4090_nvidia_module_not_built_for_kernel")
    s["system"]["secure_boot"] = True
    got = _codes(s)
    assert "TE313" in got and "TE311" not in got


def test_unknown_cause_loads_the_module_and_reads_the_kernel_log():
    s = load("rtx4090_secure_boot_refuses_dkms_module")
    s["system"].update(secure_boot=False, nvidia_module_for_kernel=None, dkms=None)
    f = _codes(s)["TE310"]
    assert "sudo modprobe nvidia" in f["fix"] and "dmesg" in f["fix"]


def test_no_kernel_module_finding_where_it_cannot_apply():
    s = load("rtx4090_secure_boot_refuses_dkms_module")
    for change in ({"kernel_modules": None},):  # /proc/modules unreadable: unknown, not "not loaded"
        t = copy.deepcopy(s)
        t["system"].update(change)
        assert not {"TE310", "TE311", "TE312", "TE313"} & set(_codes(t))
    t = copy.deepcopy(s)
    t["driver"]["pci_gpus"] = []  # no NVIDIA GPU on the bus
    assert not {"TE310", "TE311", "TE312", "TE313"} & set(_codes(t))
    t = copy.deepcopy(s)
    t["driver"]["nvidia_smi"] = None
    t["system"].update(driver_packages=[], dkms=None, libcuda=[])  # no user-space driver at all: TE301's case
    got = _codes(t)
    assert "TE301" in got and not {"TE310", "TE311", "TE312", "TE313"} & set(got)


# ---------------------------------------------------------------- WSL 2

def test_wsl_fix_only_removes_and_never_installs_a_driver_or_the_cpu_wheel():
    for f in evaluate(load("wsl2_linux_driver_inside_shadows_windows_libcuda")):
        for line in (f["fix"] or "").splitlines():
            assert "whl/cpu" not in line and not any(w in line.split() for w in ("install", "-S")), (f["code"], line)
    # a copy no package owns (a runfile install): removed by path
    s = load("wsl2_linux_driver_inside_shadows_windows_libcuda")
    s["system"]["driver_packages"] = []
    f = _codes(s)["TE314"]
    assert "sudo rm /usr/lib/x86_64-linux-gnu/libcuda.so.1" in f["fix"] and "apt-get" not in f["fix"]


def test_wsl_libcuda_loaded_by_torch_outranks_the_cache_order():
    s = load("wsl2_windows_driver_libcuda_healthy")
    assert "TE314" not in _codes(s)
    s["extension"]["runtime_info"] = {"loaded_libraries": {"cuda_driver": ["/usr/lib/x86_64-linux-gnu/libcuda.so.550.120"]}}
    assert "TE314" in _codes(s)


# ---------------------------------------------------------------- MIG

def test_visible_device_entries_are_judged_against_nvml():
    s = load("a100_mig_cuda_visible_devices_stale_uuid")
    s["env"]["CUDA_VISIBLE_DEVICES"] = "0,GPU-5a3f2c1e,MIG-1f2e3d4c,MIG-00000000,7,0:1"
    got = [(e.entry, e.kind, e.exists) for e in F.visible_device_entries(s, "CUDA_VISIBLE_DEVICES")]
    assert got == [("0", "index", True), ("GPU-5a3f2c1e", "gpu-uuid", True), ("MIG-1f2e3d4c", "mig-uuid", True),
                   ("MIG-00000000", "mig-uuid", False), ("7", "index", False), ("0:1", "mig-index", None)]
    # without NVML's MIG list a MIG UUID is not judged
    s["driver"]["gpus"][0]["mig_devices"] = None
    assert all(e.exists is None for e in F.visible_device_entries(s, "CUDA_VISIBLE_DEVICES") if e.kind == "mig-uuid")


def test_stale_mig_uuid_in_nvidia_visible_devices():
    s = load("a100_mig_cuda_visible_devices_stale_uuid")
    s["env"]["NVIDIA_VISIBLE_DEVICES"], s["env"]["CUDA_VISIBLE_DEVICES"] = s["env"]["CUDA_VISIBLE_DEVICES"], None
    f = _codes(s)["TE408"]
    assert "NVIDIA_VISIBLE_DEVICES" in f["message"] and "-e NVIDIA_VISIBLE_DEVICES=MIG-7a1b3c5d" in f["fix"]


# ---------------------------------------------------------------- host compilers and advisories

def test_host_compiler_table_rows_cite_their_source():
    from torch_envcheck.knowledge.tables import load_table
    t = load_table("host_compilers.json")
    for row in t["rows"]:
        assert row["source"] in t["sources"] and row["gcc"][0] <= row["gcc"][1]
    assert kb.host_compiler_fits("13.0", "gcc (GCC) 15.1.1 20250521")["fits"] is True
    assert kb.host_compiler_fits("13.0", "gcc (GCC) 16.0.0")["fits"] is False
    assert kb.host_compiler_fits("12.4", "Ubuntu clang version 18.1.3 (1ubuntu1)") == {
        **kb.host_compiler_fits("12.4", "Ubuntu clang version 18.1.3 (1ubuntu1)"), "fits": False, "range": [7, 16]}
    assert kb.host_compiler_fits("13.9", "gcc (GCC) 15.1.1") is None  # not in the table: no verdict
    assert kb.newest_cuda_for_compiler("gcc", 15) == "13.0"


def test_host_compiler_fix_for_clang_and_rhel():
    s = load("ubuntu2410_gcc14_nvcc126_cu126")
    s["toolchain"]["host_compiler"]["version"] = "Ubuntu clang version 19.1.1 (1ubuntu1)"
    f = _codes(s)["TE605"]
    assert "clang 19" in f["message"] and "(clang 7-17)" in f["message"] and "export CC=clang-17" in f["fix"]
    s = load("ubuntu2410_gcc14_nvcc126_cu126")
    s["platform"]["os_pretty"] = "Rocky Linux 9.4 (Blue Onyx)"
    assert "sudo dnf install gcc-toolset-13" in _codes(s)["TE605"]["fix"]


def test_advisory_pinned_by_torch_names_no_broken_fix():
    s = load("b200_cu130_cublas_13_0_tmem_corruption")
    s["packages"]["requires"] = [{"name": "torch", "version": "2.14.1+cu130",
                                  "requires": ['nvidia-cublas==13.0.2.14; platform_system == "Linux"']}]
    f = _codes(s)["TE506"]
    assert f["fix"] is None and "pins nvidia-cublas" in f["explanation"]
    # a GPU it does not happen on: silent; GPUs unknown: a warning
    s = load("b200_cu130_cublas_13_0_tmem_corruption")
    s["driver"]["gpus"][0]["capability"] = "9.0"
    s["torch"]["devices"][0]["capability"] = "9.0"
    assert "TE506" not in _codes(s)
    s["driver"]["gpus"], s["torch"]["devices"] = [], []
    assert kb.advisories_for({"nvidia-cublas": "13.0.2.14"}, None, [])[0].on_gpu is None


def test_old_cuda_9_build_on_pascal_matches_the_cublas_advisory():
    hits = kb.advisories_for({}, "9.0", ["6.1"])
    assert [h.id for h in hits] == ["cublas-mm-large-maxwell-pascal"] and hits[0].on_gpu is True
    assert kb.advisories_for({}, "9.2", ["6.1"]) == []


# ---------------------------------------------------------------- advise and other accelerators

def test_advise_never_offers_a_cpu_or_cuda_wheel_to_a_working_rocm_xpu_or_mps_build():
    seen = set()
    for name in SNAPSHOT_NAMES:
        s = load(name)
        working = F.accelerator_build_works(s)
        if not working:
            continue
        seen.add(working)
        why, cmd = advise(s)
        assert cmd is None and recommend(s)["kind"] == "keep", name
        for f in evaluate(s):
            assert not any(w in (f["fix"] or "") for w in ("/whl/cpu", "/whl/cu")), (name, f["code"])
    assert seen == {"rocm", "xpu", "mps"}


def test_a_rocm_build_on_an_nvidia_machine_gets_the_cuda_build():
    assert "/whl/cu130" in advise(load("rocm_wheel_on_nvidia_rtx4090"))[1]
    assert "/whl/cu130" in advise(load("xpu_wheel_on_nvidia_rtx4090"))[1]


def test_xpu_build_without_any_gpu_is_told_the_cpu_wheel():
    s = load("xpu_wheel_on_nvidia_rtx4090")
    s["driver"].update(present=False, gpus=[], pci_gpus=[], source=None, version=None, cuda_version=None)
    f = _codes(s)["TE210"]
    assert f["severity"] == "warning" and f["fix"].endswith("/whl/cpu")


# ---------------------------------------------------------------- the fix checker and uv

def test_fix_checker_flags_pip_where_uv_made_the_venv_without_pip():
    s = load("uv_venv_without_pip_cpu_wheel_rtx4090")
    exe = s["platform"]["python"]["executable"]
    found = check.problems(s, f"{exe} -m pip install numpy")
    assert [p.kind for p in found] == ["manager"] and "uv pip" in found[0].detail
    assert check.problems(s, f"uv pip install --python {exe} numpy") == []


def test_fix_checker_reads_uv_commands_as_installs():
    s = load("uv_venv_cu130_rtx4090_healthy")
    s["packages"]["requires"] = [{"name": "torchvision", "version": "0.29.1+cu130", "requires": ["torch==2.14.1"]}]
    s["packages"]["installed"] = {"torch": "2.14.1+cu130", "torchvision": "0.29.1+cu130"}
    exe = s["platform"]["python"]["executable"]
    for line in (f"uv pip install --python {exe} torch==2.13.0 --index-url https://download.pytorch.org/whl/cu130",
                 "uv add --project /home/dev/proj torch==2.13.0 --index pytorch-cu130=https://download.pytorch.org/whl/cu130"):
        kinds = [p.kind for p in check.problems(s, line)]
        assert "requires" in kinds, line  # torchvision's torch==2.14.1 would break


def test_fix_checker_refuses_a_linux_driver_inside_wsl2():
    s = load("wsl2_windows_driver_libcuda_healthy")
    found = check.problems(s, "sudo apt-get install -y nvidia-driver-550")
    assert found and found[0].kind == "driver"
    assert check.problems(s, "sudo apt-get remove --purge nvidia-driver-550") == []


def test_every_new_fix_passes_the_checker():
    for name in SNAPSHOT_NAMES:
        for f in evaluate(load(name)):
            assert "fix_problems" not in f["details"], (name, f["code"], f["details"].get("fix_problems"))


def test_driver_library_mismatch_names_both_versions_from_the_files():
    s = load("h100_error_803_after_driver_upgrade")
    s["system"] = {"nvidia_module_version": "570.124.06",
                   "driver_packages": [{"name": "nvidia-driver-580", "version": "580.95.05-0ubuntu0.24.04.1",
                                        "manager": "dpkg"}]}
    f = _codes(s)["TE306"]
    assert "(kernel module 570.124.06, user-space driver 580.95.05)" in f["message"]
    assert f["details"]["kernel_module_version"] == "570.124.06"


def test_wsl_libcuda_found_through_ld_library_path_drops_that_folder():
    s = load("wsl2_windows_driver_libcuda_healthy")
    s["env"]["LD_LIBRARY_PATH"] = "/usr/local/cuda-12.4/compat:/usr/local/cuda-12.4/lib64"
    s["system"]["libcuda"].insert(0, {"path": "/usr/local/cuda-12.4/compat/libcuda.so.1", "source": "LD_LIBRARY_PATH",
                                      "abi": None})
    f = _codes(s)["TE314"]
    assert "export LD_LIBRARY_PATH=/usr/local/cuda-12.4/lib64" in f["fix"] and "sudo rm" not in f["fix"]
