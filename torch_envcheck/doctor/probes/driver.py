"""The NVIDIA driver and the GPUs it sees: NVML (nvidia-ml-py) when installed, else nvidia-smi,
else /proc/driver/nvidia/version.  Independent of torch, so it tells "no driver" from "torch cannot
use the driver"."""

from __future__ import annotations

import os
import re
import shutil

from torch_envcheck._util import proc as _proc, safe_open, versions
from torch_envcheck.doctor.probes import pci

QUERY = "index,name,compute_cap,memory.total,uuid,pci.bus_id,driver_version"
# WSL 2 puts nvidia-smi next to the Windows driver's libcuda, often not on PATH.
EXTRA_SMI = ("/usr/lib/wsl/lib/nvidia-smi", r"C:\Windows\System32\nvidia-smi.exe",
             r"C:\Program Files\NVIDIA Corporation\NVSMI\nvidia-smi.exe")


def _blank() -> dict:
    return {"source": None, "present": False, "version": None, "cuda_version": None, "gpus": [], "errors": [],
            "pci_gpus": None}


def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _nvml(out: dict) -> bool:
    try:
        import pynvml  # noqa: PLC0415  (nvidia-ml-py: optional)
    except ImportError:
        return False
    try:
        pynvml.nvmlInit()
    except Exception as exc:
        out["errors"].append(f"NVML: {_text(exc) or type(exc).__name__}")
        return False
    try:
        out["source"], out["present"] = "nvml", True
        out["version"] = _text(pynvml.nvmlSystemGetDriverVersion())
        try:
            v = pynvml.nvmlSystemGetCudaDriverVersion_v2()
        except Exception:
            v = pynvml.nvmlSystemGetCudaDriverVersion()
        out["cuda_version"] = versions.cuda_from_int(v)
        for i in range(pynvml.nvmlDeviceGetCount()):
            gpu = {"index": i, "name": None, "capability": None, "memory_total_mib": None, "uuid": None,
                   "pci_bus_id": None}
            try:
                h = pynvml.nvmlDeviceGetHandleByIndex(i)
                gpu["name"] = _text(pynvml.nvmlDeviceGetName(h))
                major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(h)
                gpu["capability"] = f"{major}.{minor}"
                gpu["memory_total_mib"] = int(pynvml.nvmlDeviceGetMemoryInfo(h).total // (1024 * 1024))
                gpu["uuid"] = _text(pynvml.nvmlDeviceGetUUID(h))
                gpu["pci_bus_id"] = _text(pynvml.nvmlDeviceGetPciInfo(h).busId)
            except Exception as exc:
                out["errors"].append(f"NVML device {i}: {_text(exc) or type(exc).__name__}")
            else:
                _mig(pynvml, h, gpu, out["errors"], i)
            out["gpus"].append(gpu)
    except Exception as exc:
        out["errors"].append(f"NVML: {_text(exc) or type(exc).__name__}")
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass
    return True


def _mig(pynvml, handle, gpu: dict, errors: list, i: int) -> None:
    """MIG mode and the MIG devices of one GPU (NVML's nvmlDeviceGetMigMode, ...GetMaxMigDeviceCount,
    ...GetMigDeviceHandleByIndex): a GPU without MIG support raises NotSupported, which leaves both
    facts unknown (null)."""
    gpu["mig_mode"], gpu["mig_devices"] = None, None
    try:
        current, _pending = pynvml.nvmlDeviceGetMigMode(handle)
    except Exception:
        return  # no MIG on this GPU (NVML_ERROR_NOT_SUPPORTED) or an NVML without MIG calls
    enabled = getattr(pynvml, "NVML_DEVICE_MIG_ENABLE", 1)
    gpu["mig_mode"] = current == enabled
    if not gpu["mig_mode"]:
        gpu["mig_devices"] = []
        return
    devices = []
    try:
        count = int(pynvml.nvmlDeviceGetMaxMigDeviceCount(handle))
        for k in range(min(count, 64)):
            try:
                mh = pynvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, k)
            except Exception:
                continue  # no MIG device in this slot (NVML_ERROR_NOT_FOUND)
            dev = {"index": k, "uuid": None, "name": None, "memory_total_mib": None}
            try:
                dev["uuid"] = _text(pynvml.nvmlDeviceGetUUID(mh))
                dev["name"] = _text(pynvml.nvmlDeviceGetName(mh))
                dev["memory_total_mib"] = int(pynvml.nvmlDeviceGetMemoryInfo(mh).total // (1024 * 1024))
            except Exception as exc:
                errors.append(f"NVML device {i} MIG {k}: {_text(exc) or type(exc).__name__}")
            devices.append(dev)
    except Exception as exc:
        errors.append(f"NVML device {i} MIG: {_text(exc) or type(exc).__name__}")
        return
    gpu["mig_devices"] = devices


def _int_or_none(text: str) -> int | None:
    m = re.match(r"\s*(\d+)", text or "")
    return int(m.group(1)) if m else None


def parse_query_csv(text: str) -> list[dict]:
    """Rows of `nvidia-smi --query-gpu=QUERY --format=csv,noheader`."""
    gpus = []
    for line in (text or "").splitlines():
        cols = [c.strip() for c in line.split(",")]
        if len(cols) < 7 or not cols[0].isdigit():
            continue
        cap = cols[2] if re.fullmatch(r"\d+\.\d+", cols[2]) else None
        gpus.append({"index": int(cols[0]), "name": cols[1], "capability": cap,
                     "memory_total_mib": _int_or_none(cols[3]), "uuid": cols[4] or None,
                     "pci_bus_id": cols[5] or None, "driver_version": cols[6] or None})
    return gpus


_SMI_CUDA_RE = re.compile(r"CUDA Version:\s*([\d.]+)")
_SMI_DRIVER_RE = re.compile(r"Driver Version:\s*([\d.]+)")


def _smi_path(env: dict) -> str | None:
    found = shutil.which("nvidia-smi", path=env.get("PATH", os.defpath))
    if found:
        return found
    for p in EXTRA_SMI:
        if os.path.isfile(p):
            return p
    return None


def _nvidia_smi(out: dict, timeout: float, env: dict) -> bool:
    smi = _smi_path(env)
    if smi is None:
        out["errors"].append("nvidia-smi: not found on PATH")
        return False
    out["nvidia_smi"] = smi
    try:
        rc, stdout, stderr = _proc.run([smi, f"--query-gpu={QUERY}", "--format=csv,noheader"], timeout)
    except _proc.CommandFailed as exc:
        out["errors"].append(str(exc))
        return False
    if rc != 0:
        msg = (stdout + stderr).strip().splitlines()
        out["errors"].append(f"`nvidia-smi` failed (exit {rc}): {msg[0] if msg else '<no output>'}")
        return False
    gpus = parse_query_csv(stdout)
    if not gpus:
        # Exit 0 yet no row this tool can read (a wrapper, a stub, a broken install printing
        # garbage): that is no evidence of a driver or a GPU, only an error to show.
        lines = [ln.strip() for ln in stdout.splitlines() if ln.strip()]
        shown = lines[0][:120] if lines else "<no output>"
        out["errors"].append(f"`nvidia-smi` exited 0 but its output is unreadable (expected CSV rows of "
                             f"{QUERY}): {shown}")
        return False
    out["source"], out["present"] = "nvidia-smi", True
    versions = [g.pop("driver_version") for g in gpus]
    out["version"] = next((v for v in versions if v), None)
    out["gpus"] = gpus
    try:
        rc, stdout, stderr = _proc.run([smi], timeout)
        m = _SMI_CUDA_RE.search(stdout)
        out["cuda_version"] = m.group(1) if m else None
        if out["version"] is None:
            m = _SMI_DRIVER_RE.search(stdout)
            out["version"] = m.group(1) if m else None
    except _proc.CommandFailed as exc:
        out["errors"].append(str(exc))
    return True


_PROC_RE = re.compile(r"Kernel Module(?:\s+for\s+\S+)?\s+([\d.]+)")


def _proc_version(out: dict) -> bool:
    try:
        text = safe_open.read_text("/proc/driver/nvidia/version", 4096, overflow="head")
    except OSError:
        out["errors"].append("/proc/driver/nvidia/version: not present (no NVIDIA kernel module loaded)")
        return False
    m = _PROC_RE.search(text)
    out["source"], out["present"] = "proc", True
    out["version"] = m.group(1) if m else None
    return True


NVIDIA_PCI_VENDOR = "0x10de"
PCI_DEVICES = pci.DEVICES
TEGRA_RELEASE = "/etc/nv_tegra_release"  # present on Jetson (L4T) systems


def pci_gpus(root: str = PCI_DEVICES, tegra_marker: str = TEGRA_RELEASE) -> list[dict] | None:
    """NVIDIA display/3D controllers on the PCI bus (vendor 0x10de, PCI class 0x03xxxx), read from sysfs:
    they are there whether or not a driver is loaded, and a container sees its host's devices.
    None = cannot tell: not Linux, no readable sysfs, an empty bus (sysfs masked), or a Jetson,
    whose integrated GPU is not a PCI device."""
    if not os.path.isdir(root) or os.path.exists(tegra_marker):
        return None
    devices = pci.display_controllers(root)
    if devices is None:
        return None
    return [{"bus_id": d["bus_id"], "device_id": d["device_id"], "class": d["class"]}
            for d in devices if d["vendor"] == NVIDIA_PCI_VENDOR]


def probe(timeout: float = 5.0, env: dict | None = None) -> dict:
    env = dict(os.environ) if env is None else env
    out = _blank()
    try:
        out["pci_gpus"] = pci_gpus()
    except Exception as exc:  # a fact we could not read, not a reason to lose the driver facts
        out["errors"].append(f"PCI scan: {type(exc).__name__}: {exc}")
    if _nvml(out) or _nvidia_smi(out, timeout, env):
        return out
    if os.name == "posix" and os.path.isdir("/proc"):
        _proc_version(out)
    return out
