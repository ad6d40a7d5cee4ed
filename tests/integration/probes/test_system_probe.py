"""The machine-model probes read the real formats: /proc/modules (proc(5)), efivarfs' SecureBoot
variable (4 attribute bytes, then the value), DKMS's tree, `ldconfig -p`, dpkg's status file, rpm's
SQLite database, pacman's local folder, uv's pyvenv.cfg, NVML's MIG calls; and every read is bounded
and never blocks (a FIFO where a file is expected, a symlink loop in a folder walk)."""

from __future__ import annotations

import os
import sqlite3
import sys
import types

import pytest

from hostile_support import finishes_within, make_fifo, posix_only

from torch_envcheck.doctor.probes import dists, driver, platform as plat, system

GUARD = 10.0

# /proc/modules of a machine with the NVIDIA driver loaded (name size refcount deps state offset taint)
PROC_MODULES = """\
nvidia_uvm 1945600 0 - Live 0x0000000000000000 (POE)
nvidia_drm 126976 2 - Live 0x0000000000000000 (POE)
nvidia_modeset 1556480 2 nvidia_drm, Live 0x0000000000000000 (POE)
video 73728 1 nvidia_modeset, Live 0x0000000000000000
nvidia 60563456 19 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)
drm_kms_helper 253952 1 nvidia_drm, Live 0x0000000000000000
"""


def test_proc_modules_keeps_the_gpu_modules_in_order():
    assert system.parse_proc_modules(PROC_MODULES) == ["nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia"]
    assert system.parse_proc_modules("nouveau 2904064 3 - Live 0x0000000000000000\nmxm_wmi 12288 1 nouveau, Live 0x0\n") \
        == ["nouveau"]
    assert system.parse_proc_modules("") == []
    assert system.parse_proc_modules(None) is None  # unreadable: unknown, not "none loaded"


@pytest.mark.parametrize("value, expected", [(b"\x06\x00\x00\x00\x01", True), (b"\x06\x00\x00\x00\x00", False),
                                             (b"\x06\x00", None)])
def test_secure_boot_from_efivars(tmp_path, value, expected):
    efi = tmp_path / "efi"
    (efi / "efivars").mkdir(parents=True)
    (efi / "efivars" / system.SECURE_BOOT_VAR).write_bytes(value)
    assert system.secure_boot(str(efi / "efivars"), str(efi)) is expected


def test_secure_boot_without_the_variable_or_uefi(tmp_path):
    efi = tmp_path / "efi"
    (efi / "efivars").mkdir(parents=True)
    assert system.secure_boot(str(efi / "efivars"), str(efi)) is False  # UEFI without Secure Boot support


@posix_only
def test_secure_boot_variable_that_is_a_fifo_does_not_block(tmp_path):
    efi = tmp_path / "efi"
    make_fifo(efi / "efivars" / system.SECURE_BOOT_VAR)
    assert finishes_within(GUARD, system.secure_boot, str(efi / "efivars"), str(efi)) is None


def test_dkms_tree_and_the_module_for_the_running_kernel(tmp_path):
    dk = tmp_path / "dkms" / "nvidia"
    (dk / "580.95.05" / "6.8.0-49-generic" / "x86_64" / "module").mkdir(parents=True)
    (dk / "580.95.05" / "6.8.0-49-generic" / "x86_64" / "module" / "nvidia.ko.zst").write_bytes(b"")
    (dk / "580.95.05" / "6.8.0-51-generic" / "x86_64" / "log").mkdir(parents=True)
    (dk / "580.95.05" / "source").mkdir()
    rows = system.dkms_builds(str(tmp_path / "dkms"))
    assert rows == [{"module": "nvidia", "version": "580.95.05", "kernel": "6.8.0-49-generic", "arch": "x86_64", "built": True},
                    {"module": "nvidia", "version": "580.95.05", "kernel": "6.8.0-51-generic", "arch": "x86_64", "built": False}]
    assert system.dkms_builds(str(tmp_path / "none")) is None
    mods = tmp_path / "modules"
    (mods / "6.8.0-49-generic" / "updates" / "dkms").mkdir(parents=True)
    (mods / "6.8.0-49-generic" / "updates" / "dkms" / "nvidia.ko.zst").write_bytes(b"")
    (mods / "6.8.0-51-generic" / "kernel" / "drivers").mkdir(parents=True)
    assert system.module_for_kernel("6.8.0-49-generic", str(mods)) is True
    assert system.module_for_kernel("6.8.0-51-generic", str(mods)) is False
    assert system.module_for_kernel("6.9.0", str(mods)) is None


@posix_only
def test_the_module_walk_survives_a_symlink_loop_and_is_bounded(tmp_path):
    top = tmp_path / "modules" / "6.8.0-51-generic"
    top.mkdir(parents=True)
    os.symlink(str(top), str(top / "loop"))
    assert finishes_within(GUARD, system.module_for_kernel, "6.8.0-51-generic", str(tmp_path / "modules")) is False
    for i in range(50):
        (top / f"d{i}").mkdir()
    seen = list(system._walk_limited(str(top), limit=10))
    assert sum(1 for _ in seen) <= 11


LDCONFIG = """\
1234 libs found in cache `/etc/ld.so.cache'
\tlibcudart.so.12 (libc6,x86-64) => /usr/local/cuda/lib64/libcudart.so.12
\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1
\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1
\tlibcuda.so.1 (libc6) => /usr/lib/i386-linux-gnu/libcuda.so.1
\tlibcuda.so (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so
"""


def test_ldconfig_lists_libcuda_in_cache_order():
    rows = system.parse_ldconfig(LDCONFIG)
    assert [r["path"] for r in rows] == ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1",
                                        "/usr/lib/i386-linux-gnu/libcuda.so.1"]
    assert rows[0]["abi"] == "libc6,x86-64" and rows[0]["source"] == "ld.so.cache"


DPKG = """\
Package: nvidia-driver-550
Status: install ok installed
Priority: optional
Architecture: amd64
Version: 550.120-0ubuntu0.22.04.1
Description: NVIDIA driver metapackage

Package: nvidia-driver-535
Status: deinstall ok config-files
Architecture: amd64
Version: 535.183.01-0ubuntu0.22.04.1

Package: libnvidia-compute-550
Status: install ok installed
Architecture: amd64
Version: 550.120-0ubuntu0.22.04.1

Package: nvidia-cuda-toolkit
Status: install ok installed
Version: 11.5.1-1ubuntu1

Package: cuda-toolkit-12-6
Status: install ok installed
Version: 12.6.3-1
"""


def test_dpkg_status_names_the_installed_driver_packages_only():
    rows = system.parse_dpkg_status(DPKG)
    assert rows == [{"name": "nvidia-driver-550", "version": "550.120-0ubuntu0.22.04.1", "manager": "dpkg"},
                    {"name": "libnvidia-compute-550", "version": "550.120-0ubuntu0.22.04.1", "manager": "dpkg"}]


def _rpmdb(path, names):
    # rpm >= 4.16's SQLite backend: one table per index, the Name index keyed by package name
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE 'Name' (key TEXT NOT NULL, hnum INTEGER NOT NULL, idx INTEGER NOT NULL, "
                "PRIMARY KEY(key, hnum, idx)) WITHOUT ROWID")
    con.executemany("INSERT INTO Name VALUES (?, ?, 0)", [(n, i) for i, n in enumerate(names)])
    con.commit()
    con.close()


def test_rpm_and_pacman_databases(tmp_path):
    _rpmdb(str(tmp_path / "rpmdb.sqlite"), ["kernel-core", "akmod-nvidia", "xorg-x11-drv-nvidia-cuda", "bash"])
    pac = tmp_path / "pacman"
    (pac / "nvidia-utils-565.77-1").mkdir(parents=True)
    (pac / "linux-6.12.8.arch1-1").mkdir()
    rows = system.driver_packages(dpkg=str(tmp_path / "no-status"), rpmdb=str(tmp_path / "rpmdb.sqlite"), pacman=str(pac))
    assert {(r["name"], r["manager"]) for r in rows} == {("akmod-nvidia", "rpm"), ("xorg-x11-drv-nvidia-cuda", "rpm"),
                                                         ("nvidia-utils", "pacman")}
    assert system.driver_packages(dpkg=str(tmp_path / "a"), rpmdb=str(tmp_path / "b"), pacman=str(tmp_path / "c")) is None


@posix_only
def test_package_databases_that_are_fifos_do_not_block(tmp_path):
    status, rpmdb = make_fifo(tmp_path / "status"), make_fifo(tmp_path / "rpmdb.sqlite")
    rows = finishes_within(GUARD, system.driver_packages, dpkg=status, rpmdb=rpmdb, pacman=str(tmp_path / "none"))
    assert rows is None


def test_shm_size(tmp_path):
    got = system.shm(str(tmp_path))
    assert got["path"] == str(tmp_path) and got["total_bytes"] > 0 and 0 <= got["free_bytes"] <= got["total_bytes"]
    assert system.shm(str(tmp_path / "missing")) is None


# pyvenv.cfg as `uv venv` 0.13.9 writes it (read from a venv it made)
UV_CFG = """home = /usr/bin
implementation = CPython
uv = 0.13.9
version_info = 3.12.7
include-system-site-packages = false
"""


def test_uv_venv_and_uv_project(tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    venv = proj / ".venv"
    venv.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(UV_CFG)
    assert plat.pyvenv_cfg(str(venv))["uv"] == "0.13.9"
    assert plat.uv_project(str(venv)) is None  # no pyproject.toml and uv.lock yet
    (proj / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (proj / "uv.lock").write_text("version = 1\n")
    assert plat.uv_project(str(venv)) == str(proj)
    other = tmp_path / "env"
    other.mkdir()
    (other / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.7\n")
    assert "uv" not in plat.pyvenv_cfg(str(other)) and plat.uv_project(str(other)) is None


def test_every_torch_copy_on_sys_path_in_order(tmp_path):
    user, env = tmp_path / "user", tmp_path / "env"
    for folder, version, installer in ((user, "2.1.2", "pip"), (env, "2.3.0", "conda")):
        d = folder / f"torch-{version}.dist-info"
        d.mkdir(parents=True)
        (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
        (d / "INSTALLER").write_text(installer + "\n")
    got = dists.copies("torch", [str(user), str(env), str(tmp_path / "missing")])
    assert got == [{"location": str(user), "version": "2.1.2", "installer": "pip"},
                   {"location": str(env), "version": "2.3.0", "installer": "conda"}]


def _fake_nvml(mig_enabled: bool, mig_uuids: list[str]):
    """A stand-in pynvml with NVML's MIG calls (nvmlDeviceGetMigMode returns (current, pending);
    an empty MIG slot raises, as NVML_ERROR_NOT_FOUND does)."""
    m = types.ModuleType("pynvml")
    m.NVML_DEVICE_MIG_ENABLE = 1
    mem = types.SimpleNamespace(total=80 << 30)
    m.nvmlInit = m.nvmlShutdown = lambda: None
    m.nvmlSystemGetDriverVersion = lambda: "580.95.05"
    m.nvmlSystemGetCudaDriverVersion_v2 = lambda: 13000
    m.nvmlDeviceGetCount = lambda: 1
    m.nvmlDeviceGetHandleByIndex = lambda i: ("gpu", i)
    m.nvmlDeviceGetName = lambda h: "NVIDIA A100-SXM4-80GB" if h[0] == "gpu" else "NVIDIA A100-SXM4-80GB MIG 3g.40gb"
    m.nvmlDeviceGetCudaComputeCapability = lambda h: (8, 0)
    m.nvmlDeviceGetMemoryInfo = lambda h: mem
    m.nvmlDeviceGetUUID = lambda h: "GPU-5a3f2c1e-8d4b-4e7a-9c0f-1b2d3e4f5a60" if h[0] == "gpu" else mig_uuids[h[1]]
    m.nvmlDeviceGetPciInfo = lambda h: types.SimpleNamespace(busId="00000000:18:00.0")
    m.nvmlDeviceGetMigMode = lambda h: (1 if mig_enabled else 0, 1 if mig_enabled else 0)
    m.nvmlDeviceGetMaxMigDeviceCount = lambda h: 7

    def by_index(h, k):
        if k >= len(mig_uuids):
            raise RuntimeError("Not Found")
        return ("mig", k)
    m.nvmlDeviceGetMigDeviceHandleByIndex = by_index
    return m


@pytest.mark.parametrize("enabled, uuids", [(True, ["MIG-7a1b3c5d-2e4f-5a6b-8c9d-0e1f2a3b4c5d"]), (True, []), (False, [])])
def test_mig_devices_through_nvml(monkeypatch, enabled, uuids):
    monkeypatch.setitem(sys.modules, "pynvml", _fake_nvml(enabled, uuids))
    out = driver._blank()
    assert driver._nvml(out) is True
    gpu = out["gpus"][0]
    assert gpu["mig_mode"] is enabled
    assert [d["uuid"] for d in gpu["mig_devices"]] == uuids
    assert not out["errors"]
