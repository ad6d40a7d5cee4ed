"""The facts layer: the one place that reads a snapshot.  Every rule (`from
torch_envcheck.facts import core as F`; F.name(s)), renderer, command, the advice, fleet's
table and rules, explain and the pytest plugin read facts through these accessors, so they cannot
disagree about which GPU counts, which nvcc is in use or what a cuDNN integer means
(tests/unit/contract/test_facts_only.py fails on a raw section read anywhere else).  The conda and
TensorFlow sections have their own modules beside this one (conda.py, tensorflow.py).

Every field may be missing, null or of the wrong type (a snapshot given to report() directly is not
normalised; one loaded by --from-json or made by collect() is, see contract.py): accessors check
types and return None for unknown, never a guessed value.  Only fields declared in contract.py are
read (tests/unit/contract/test_doctor_readpaths.py fails otherwise).  A recorded object or list item
(a GPU, an nvcc candidate, the host compiler, how the torch import ended, ...) is handed out as a
frozen record of records.py, read by attribute; no accessor hands out a recorded dict to dig into
(tests/unit/contract/test_facts_only.py fails on `.get(...)` of a record, test_facts_accessors.py
names every accessor that still returns a dict).

The single decisions, used everywhere:
  gpus(s)              the GPUs the program sees: torch's devices when it lists any, else the driver's
  machine_gpus(s)      every GPU of the machine: the driver's list, else torch's devices
  build_capability(s)  the capability a wheel must serve: the lowest of the machine's GPUs
  driver_runs(s, cuda) how the driver runs a CUDA version (knowledge.driver_runs, the one answer)
  nvcc_in_use(s)       the first nvcc candidate that runs and has a toolkit, else the first that runs
  cudnn_text(v)        cuDNN's integer decoded (_util/versions.py, the one decoder)
  cuda_visible_devices(s), library_mismatch(s), import_broken_by_search_path(s): what several rules
                       judge from, derived once
Install commands are not facts: advice/recommend.py makes them.
"""

from __future__ import annotations

import re
import types
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from torch_envcheck import knowledge as kb
from torch_envcheck._util import escape, versions
from torch_envcheck.facts.memo import per_report
from torch_envcheck.facts.records import (
    ContainerWithoutGpu, CudaHomeVar, CudaVisibleDevices, DkmsBuild, DriverGpu, DriverPackage, ExtDevice, HostCompiler,
    ImportBreaker, ImportProcess, Jetson, LibcudaEntry, LibraryFile, LibraryFolder, LibraryListing, LibraryOnPath, Mps,
    Ninja, Msvc, NvccCandidate, OldestBuild, OtherGpu, PciGpu, Request, RequiresDist, Shm, TorchCopy, TorchDevice,
    TorchShadowed, VisibleDeviceEntry, WslLinuxDriver, Xpu, plain)

# ---------------------------------------------------------------- primitives (for the accessors here)

as_details = plain  # a record (or a list of them) as a finding's details show it: records.plain


def as_dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value) -> list:
    return value if isinstance(value, list) else []


def dig(obj, *path, default=None):
    for key in path:
        if isinstance(obj, dict):
            obj = obj.get(key)
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return default
        if obj is None:
            return default
    return obj


def text(value) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _bool(value) -> bool | None:
    return value if isinstance(value, bool) else None


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# ---------------------------------------------------------------- the snapshot as a whole

def known(s, path: str) -> bool:
    """Whether the fact at a contract path ('torch.importable') is known (present and not null)."""
    return dig(s, *path.split(".")) is not None


def section_known(s, name: str) -> bool:
    return isinstance(dig(s, name), dict)


def section(s, name: str):
    """A whole section as recorded, for the --verbose listing of every fact (never judged)."""
    return dig(s, name)


def created(s) -> str | None:
    return text(dig(s, "created"))


def _open_map(raw, keep) -> Mapping:
    """A recorded name -> value map, read-only, with the values of the declared kind only."""
    return types.MappingProxyType({k: v for k, v in as_dict(raw).items() if isinstance(k, str) and keep(v)})


def probe_errors(s) -> Mapping[str, str]:
    """probe name -> the error it raised (a probe that crashed); a value that is no text (an unnormalised
    snapshot's) is kept when it is a plain value, so the crash is still reported."""
    return _open_map(dig(s, "probe_errors"), lambda v: v is None or isinstance(v, (str, int, float)))


def probe_seconds(s) -> Mapping[str, float]:
    return _open_map(dig(s, "probe_seconds"), lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))


def stable_key(s) -> dict:
    """The snapshot without what changes from one run to the next on the same machine (when it was
    taken, how long the probes and the torch import took): equal for two ranks of one machine state."""
    out = {k: v for k, v in as_dict(s).items() if k not in ("created", "probe_seconds")}
    t = out.get("torch")
    if isinstance(t, dict) and "import_seconds" in t:
        out["torch"] = {k: v for k, v in t.items() if k != "import_seconds"}
    return out


# ---------------------------------------------------------------- platform

def _platform(s) -> dict:
    return as_dict(dig(s, "platform"))


def system(s) -> str | None:
    return text(_platform(s).get("system"))


def is_macos(s) -> bool:
    return system(s) == "Darwin"


def wsl(s):
    v = _platform(s).get("wsl")
    return v if v in (1, 2) else None


def driver_os(s) -> str:
    """The OS whose driver tables apply: WSL uses the Windows driver."""
    return "Windows" if system(s) == "Windows" or wsl(s) == 2 else "Linux"


def machine(s) -> str | None:
    return text(_platform(s).get("machine"))


def os_pretty(s) -> str | None:
    return text(_platform(s).get("os_pretty"))


def mac_ver(s):
    return _platform(s).get("mac_ver")


def container(s) -> str | None:
    return text(_platform(s).get("container"))


def rosetta(s) -> bool | None:
    """platform.rosetta: True when this Python runs translated by Rosetta 2 (sysctl.proc_translated)."""
    return _bool(_platform(s).get("rosetta"))


def apple_silicon(s) -> bool | None:
    return _bool(_platform(s).get("apple_silicon"))


def jetson(s) -> Jetson | None:
    """platform.jetson: Jetson(model, l4t) on a Jetson/Tegra board, None elsewhere or unknown."""
    raw = _platform(s).get("jetson")
    return Jetson.of(raw) if raw else None


def jetson_model(s) -> str | None:
    j = jetson(s)
    return text(j.model) if j else None


def jetson_l4t(s) -> tuple[int, int, int] | None:
    """The Jetson's L4T (Jetson Linux) release, (36, 4, 3), from /etc/nv_tegra_release's line."""
    from torch_envcheck.knowledge import jetson as kj  # noqa: PLC0415  (Jetson boards only)
    j = jetson(s)
    return kj.parse_l4t(text(j.l4t) if j else None)


def _python(s) -> dict:
    return as_dict(_platform(s).get("python"))


def python_version(s) -> str | None:
    return text(_python(s).get("version"))


def python_exe(s) -> str:
    """The interpreter, for commands ("python" when unknown)."""
    return text(_python(s).get("executable")) or "python"


def python_executable(s) -> str | None:
    """The interpreter as recorded (None when unknown)."""
    return text(_python(s).get("executable"))


def python_implementation(s) -> str | None:
    return text(_python(s).get("implementation"))


def python_mm(s) -> str | None:
    """'3.11' from platform.python.version, None when unknown."""
    m = re.match(r"(\d+)\.(\d+)", python_version(s) or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def conda_env(s) -> str | None:
    """The conda env this Python runs in (the platform probe's CONDA_DEFAULT_ENV), None outside one."""
    return text(_python(s).get("conda_env"))


def in_venv(s) -> bool | None:
    return _bool(_python(s).get("venv"))


def python_prefix(s) -> str | None:
    return text(_python(s).get("prefix"))


def env_kind(s) -> str:
    """'conda env NAME', 'venv' or 'no venv'."""
    return f"conda env {conda_env(s)}" if conda_env(s) else ("venv" if in_venv(s) is True else "no venv")


def request(s) -> Request:
    """The snapshot's "request" (what --framework/--shell asked for), its declared fields only."""
    req = as_dict(dig(s, "request"))
    frameworks = tuple(f for f in as_list(req.get("frameworks")) if isinstance(f, str))[:4]
    return Request(frameworks, text(req.get("shell")))


def requested_frameworks(s) -> tuple:
    """The frameworks --framework asked for ('torch', 'tensorflow'); () when none was named."""
    asked = as_list(dig(s, "request", "frameworks"))
    return tuple(f for f in ("torch", "tensorflow") if f in asked)


def requested_shell(s) -> str | None:
    """--shell, as the name of an escape shell (posix, powershell, cmd), None when not given."""
    return _SHELL_NAMES.get(text(dig(s, "request", "shell")) or "")


def detected_shell(s) -> str | None:
    """The shell the doctor was started from (probes/shell.py), as an escape shell name."""
    return _SHELL_NAMES.get(text(dig(s, "platform", "shell", "name")) or "")


def shell_evidence(s) -> str | None:
    return text(dig(s, "platform", "shell", "evidence"))


_SHELL_NAMES = {"cmd": "cmd", "powershell": "powershell", "pwsh": "powershell", "sh": "posix", "posix": "posix",
                "bash": "posix"}


def shell(s) -> str:
    """The shell fix commands are written for: --shell, else the one the doctor was started from,
    else the OS's (escape.shell_for); on native Windows, where cmd.exe (Anaconda Prompt) and
    PowerShell are both common and neither was told apart, lines valid in both (escape.EITHER)."""
    chosen = requested_shell(s) or detected_shell(s)
    if system(s) == "Windows":
        # a POSIX shell on Windows (Git Bash) still runs python.exe paths; its quoting is POSIX's
        return chosen or escape.EITHER
    return "powershell" if chosen == "powershell" else "posix"  # (pwsh runs on Linux and macOS too)


# ---------------------------------------------------------------- torch

def _torch(s) -> dict:
    return as_dict(dig(s, "torch"))


def torch_importable(s) -> bool | None:
    return _bool(_torch(s).get("importable"))


def torch_installed(s) -> bool | None:
    return _bool(_torch(s).get("installed"))


def torch_version(s) -> str | None:
    return text(_torch(s).get("version"))


def torch_release(s) -> str | None:
    return versions.release_key(torch_version(s))


def torch_recorded_local(s) -> str | None:
    """torch's local version label as the probe recorded it ('cu130'), without guessing from the version."""
    return text(_torch(s).get("local"))


def torch_local(s) -> str | None:
    return torch_recorded_local(s) or versions.local_tag(torch_version(s))


def torch_index_label(s) -> str | None:
    """The download.pytorch.org index torch's local label names (cu130, cpu, rocm6.4, xpu), None for
    no label or a build's own one (NVIDIA's JetPack '872d972e41.nv24.08', a source build's '+git...')."""
    rec = torch_recorded_local(s)
    if rec is not None:
        return rec.strip().lower() if versions.is_index_label(rec) else None
    return versions.index_label(torch_version(s))


def torch_recorded_cuda(s) -> str | None:
    """torch.version.cuda as the probe recorded it (text), without guessing from the local tag."""
    return text(_torch(s).get("cuda"))


def torch_cuda(s) -> str | None:
    """The CUDA torch is built with: torch.version.cuda, else the wheel's local tag (cu130 -> 13.0),
    so it is known even when torch does not import."""
    v = _torch(s).get("cuda")
    if isinstance(v, (int, float)):
        v = str(v)
    if text(v):
        return v
    tag = torch_local(s)
    return versions.cuda_from_tag(tag) if tag and tag.startswith("cu") else None


def torch_hip(s) -> str | None:
    return text(_torch(s).get("hip"))


def torch_installer(s) -> str | None:
    """The installer that wrote torch's files (pip, uv, conda) as recorded; None when unknown."""
    v = _torch(s).get("installer")
    return v if isinstance(v, str) else None


def torch_location(s) -> str | None:
    return text(_torch(s).get("location"))


def torch_requires_python(s) -> str | None:
    return text(_torch(s).get("requires_python"))


def is_cuda_torch(s) -> bool:
    return torch_importable(s) is not False and torch_cuda(s) is not None


def is_rocm_torch(s) -> bool:
    return bool(torch_hip(s)) or (torch_local(s) or "").startswith("rocm")


def is_xpu_torch(s) -> bool:
    """An Intel XPU build (+xpu, or torch.xpu compiled in)."""
    x = xpu(s)
    return (torch_local(s) or "").startswith("xpu") or (x is not None and x.built is True)


def is_cpu_torch(s) -> bool:
    """Importable torch built without CUDA, ROCm or XPU."""
    return torch_importable(s) is True and torch_version(s) is not None and torch_cuda(s) is None \
        and not is_rocm_torch(s) and not is_xpu_torch(s)


def torch_label(s) -> str:
    return f"torch {torch_version(s)}" if torch_version(s) else "torch"


def import_error(s) -> str | None:
    return text(_torch(s).get("import_error"))


def import_process(s) -> ImportProcess | None:
    """How the child that imported torch ended (ImportProcess), None when not recorded."""
    raw = _torch(s).get("import_process")
    return ImportProcess.of(raw) if raw else None


def numpy_error(s) -> str | None:
    return text(_torch(s).get("numpy_error"))


def cudnn_error(s) -> str | None:
    return text(_torch(s).get("cudnn_error"))


def cuda_available(s) -> bool | None:
    return _bool(_torch(s).get("cuda_available"))


def device_count(s) -> int | None:
    return _int(_torch(s).get("device_count"))


def cuda_works(s) -> bool:
    """A proving fact: torch initialised CUDA and sees at least one GPU.  It outranks any table that
    says the driver cannot run this build (e.g. NVIDIA's forward-compatibility package)."""
    n = device_count(s)
    return torch_importable(s) is True and cuda_available(s) is True and (n is None or n > 0)


def cuda_init_error(s) -> str | None:
    return text(_torch(s).get("cuda_init_error"))


def cuda_init_error_recorded(s):
    """torch's CUDA initialisation error exactly as recorded (kept verbatim in findings' details)."""
    return _torch(s).get("cuda_init_error")


def cuda_warnings(s) -> list[str]:
    return [w for w in as_list(_torch(s).get("cuda_warnings")) if isinstance(w, str)]


def mps(s) -> Mps | None:
    """torch.backends.mps (macOS): Mps(built, available), None when unknown."""
    raw = _torch(s).get("mps")
    return Mps.of(raw) if raw else None


def mps_available(s) -> bool:
    m = mps(s)
    return m is not None and m.available is True


@per_report
def torch_devices(s) -> list[TorchDevice]:
    """torch.cuda's devices (what the program sees, after CUDA_VISIBLE_DEVICES)."""
    return [TorchDevice.of(d) for d in as_list(_torch(s).get("devices")) if isinstance(d, dict)]


# cuDNN's integer and version tuples are decoded by the one parser (_util/versions.py).
cudnn_tuple = versions.cudnn_tuple
fmt_version = versions.fmt_version


def cudnn_text(value) -> str | None:
    """'9.24.0' for 92400, '8.9.7' for 8907; None when unknown."""
    t = cudnn_tuple(value)
    return fmt_version(t) if t else None


def cudnn_mm(value) -> str | None:
    """'9.24' for 92400; None when unknown."""
    t = cudnn_tuple(value)
    return f"{t[0]}.{t[1]}" if t else None


def torch_cudnn(s) -> tuple[int, int, int] | None:
    return cudnn_tuple(_torch(s).get("cudnn"))


def binary_arch_list(s) -> list[str]:
    """The arch list read from the installed torch binary (torch._C._cuda_getArchFlags()), [] when
    the snapshot has none."""
    return [a for a in as_list(_torch(s).get("arch_list")) if isinstance(a, str)]


def arch_list(s) -> list[str]:
    """torch's arch list: the binary's when recorded, else the tables' for this wheel."""
    lst = binary_arch_list(s)
    if lst:
        return lst
    tag = torch_local(s) or versions.tag_from_cuda(torch_cuda(s))
    if torch_version(s) and tag:
        try:
            return kb.wheel_arch_list(torch_version(s), tag, system(s), machine(s)) or []
        except kb.KnowledgeError:
            return []
    return []


def arch_list_source(s) -> str | None:
    """'binary' when arch_list() comes from the installed torch, 'table' when from the tables."""
    if binary_arch_list(s):
        return "binary"
    return "table" if arch_list(s) else None


# ---------------------------------------------------------------- driver

def _driver(s) -> dict:
    return as_dict(dig(s, "driver"))


def driver_present(s) -> bool | None:
    return _bool(_driver(s).get("present"))


def driver_version(s) -> str | None:
    return text(_driver(s).get("version"))


def driver_cuda(s) -> str | None:
    return text(_driver(s).get("cuda_version"))


def driver_source(s) -> str | None:
    """How the driver was read: nvml, nvidia-smi, /proc/driver/nvidia."""
    return text(_driver(s).get("source"))


def driver_errors(s) -> list[str]:
    return [e for e in as_list(_driver(s).get("errors")) if isinstance(e, str)]


def driver_runs(s, cuda) -> str | None:
    """How this machine's NVIDIA driver runs code built with CUDA `cuda`: "toolkit", "compat"
    (minor-version compatibility only), "no" or None (unknown): knowledge.driver_runs, the one
    answer, asked with everything the snapshot knows of the driver (its version, the CUDA it
    reports, the OS whose driver table applies)."""
    return kb.driver_runs(cuda, driver_version(s), driver_cuda(s), driver_os(s))


def driver_too_old_for_torch(s) -> bool:
    """A loaded driver that cannot run this CUDA torch (driver_runs "no"), with no fact proving that
    it does anyway (cuda_works: NVIDIA's forward-compatibility package)."""
    return (is_cuda_torch(s) and not is_macos(s) and wsl(s) != 1 and driver_present(s) is True
            and driver_runs(s, torch_cuda(s)) == "no" and not cuda_works(s))


def oldest_build_beyond_driver(s) -> OldestBuild | None:
    """The torch build of the tables that needs the lowest driver ({'driver', 'cuda', 'torch', 'tag'}),
    when this driver is older than even that one: then no torch build runs on it."""
    try:
        oldest = kb.min_driver_any_build(driver_os(s))
    except kb.KnowledgeError:
        return None
    dvt = versions.version_tuple(driver_version(s))
    return OldestBuild.of_row(oldest) if oldest and dvt and dvt < versions.version_tuple(oldest["driver"]) else None


_MISMATCH_MARKERS = ("driver/library version mismatch", "error 803",
                     "system has unsupported display driver / cuda driver combination")


def library_mismatch(s) -> str | None:
    """The error text that shows CUDA error 803 / NVML "Driver/library version mismatch" (the kernel
    module still loaded is not the version of the user-space driver installed since), from torch's
    CUDA initialisation, the driver probe or torch's CUDA warnings; None elsewhere and on macOS."""
    if is_macos(s):
        return None
    texts = [cuda_init_error(s)] + driver_errors(s) + cuda_warnings(s)
    return next((t for t in texts if t and any(m in t.lower() for m in _MISMATCH_MARKERS)), None)


# ---------------------------------------------------------------- GPUs

@per_report
def driver_gpus(s) -> list[DriverGpu]:
    """The driver's GPUs (NVML / nvidia-smi): every NVIDIA GPU of the machine."""
    return [DriverGpu.of(g) for g in as_list(_driver(s).get("gpus")) if isinstance(g, dict)]


def gpus(s) -> list[TorchDevice] | list[DriverGpu]:
    """The GPUs the program sees: torch's devices when it lists any (after CUDA_VISIBLE_DEVICES),
    else the driver's.  The GPUs a build must serve are the machine's (machine_gpus, capabilities)."""
    return torch_devices(s) or driver_gpus(s)


def gpus_source(s) -> str | None:
    """Whose list gpus(s) is: "torch" or "driver" (None when there is none)."""
    if torch_devices(s):
        return "torch"
    return "driver" if driver_gpus(s) else None


def gpu_label(g: TorchDevice | DriverGpu | ExtDevice) -> str:
    name = text(g.name) or f"GPU {'?' if g.index is None else g.index}"
    cap = text(g.capability)
    return f"{name} (compute capability {cap})" if cap else name


def capability_tuple(cap) -> tuple[int, int] | None:
    return versions.major_minor(cap) if isinstance(cap, str) else None


def gpu_capabilities(s) -> list[str]:
    return [c for c in (text(g.capability) for g in gpus(s)) if c]


def machine_gpus(s) -> list[DriverGpu] | list[TorchDevice]:
    """Every NVIDIA GPU of the machine: the driver's list (CUDA_VISIBLE_DEVICES hides none of it),
    else torch's devices."""
    return driver_gpus(s) or torch_devices(s)


def capabilities(s) -> list[str]:
    """The known compute capabilities of the machine's GPUs ('8.0', '12.0'), in device order: the
    driver's, else (where it records none) torch's devices'."""
    def caps(lst):
        return [c for c in (text(g.capability) for g in lst) if c and capability_tuple(c)]
    return caps(driver_gpus(s)) or caps(torch_devices(s))


def build_capability(s) -> str | None:
    """The capability a torch build must serve: the lowest of the machine's GPUs (capabilities(s)),
    also those CUDA_VISIBLE_DEVICES hides from this process (a wheel that covers the oldest GPU's
    architecture is the one the release tables can answer for); None when unknown."""
    caps = capabilities(s)
    return min(caps, key=capability_tuple) if caps else None


@per_report
def pci_gpus(s) -> list[PciGpu] | None:
    """NVIDIA display/3D devices on the PCI bus (driver.pci_gpus): a GPU is there even when no driver
    is loaded.  None = unknown: not recorded, not readable (Windows, macOS), or WSL 2, whose GPU is
    paravirtualised through /dev/dxg and never shows on the Linux PCI bus."""
    v = _driver(s).get("pci_gpus")
    if not isinstance(v, list) or wsl(s) == 2:
        return None
    return [PciGpu.of(g) for g in v if isinstance(g, dict)]


def pci_label(devs: list[PciGpu]) -> str:
    """'an NVIDIA GPU on PCI 0000:01:00.0 (device 0x2684)' / '2 NVIDIA GPUs on PCI (...; ...)'."""
    parts = [f"{text(d.bus_id) or '?'}" + (f" (device {d.device_id})" if text(d.device_id) else "") for d in devs]
    if len(parts) == 1:
        return f"an NVIDIA GPU on PCI {parts[0]}"
    return f"{len(parts)} NVIDIA GPUs on PCI ({'; '.join(parts)})"


def has_nvidia_gpu(s) -> bool:
    return bool(driver_gpus(s)) or bool(pci_gpus(s)) or bool(torch_devices(s))


def is_tegra(s) -> bool:
    """A Jetson board: the platform probe says so, or a GPU has a Tegra compute capability."""
    if jetson(s):
        return True
    try:
        return any(kb.is_tegra(c) for c in gpu_capabilities(s))
    except kb.KnowledgeError:
        return False


def proof(s, area: str) -> str | None:
    """The observed fact that proves an area's layer works, as "path=value", else None.  A proving
    fact outranks a table (a finding with basis="table"): torch that initialised CUDA and sees its
    GPUs proves the driver runs this torch's CUDA, whatever the driver table says (a data-center GPU
    with NVIDIA's forward-compatibility package); the extension's kernels launching on every device
    proves the GPUs run this build's code."""
    n = device_count(s)
    cuda_ok = cuda_available(s) is True and n is not None and n > 0
    if area == "driver" and cuda_ok:
        return f"torch.cuda_available=True, torch.device_count={n}"
    if area == "gpu" and cuda_ok:
        devs = ext_devices(s)
        if devs and all(d.kernel_image is True for d in devs):
            return "extension.runtime_info.cuda.devices[].kernel_image.available=True"
    return None


# ---------------------------------------------------------------- environment variables, packages

def env(s, name) -> str | None:
    v = dig(s, "env", name)
    return v if isinstance(v, str) else None


# NVIDIA Container Toolkit (cmd/nvidia-container-runtime/README.md): `none` mounts the driver but no
# GPU; `void`, empty or unset behave like runc (neither GPUs nor driver libraries).
_NO_GPU_VALUES = {"void": "neither GPUs nor the driver's libraries are given to the container",
                  "none": "the driver's libraries are given to the container, but no GPU",
                  "": "(empty) neither GPUs nor the driver's libraries are given to the container"}


def container_without_gpu(s) -> ContainerWithoutGpu | None:
    """A container started without a GPU: NVIDIA_VISIBLE_DEVICES is void, none or empty, this runs in
    a container, and CUDA sees no GPU (a CDI-injected GPU works with `void` set, so the value alone is
    no proof).  {'value', 'meaning', 'container'}, else None."""
    raw = env(s, "NVIDIA_VISIBLE_DEVICES")
    if raw is None or container(s) is None or is_macos(s):
        return None
    value = raw.strip().lower()
    if value not in _NO_GPU_VALUES:
        return None
    if cuda_available(s) is True and (device_count(s) or 0) > 0:
        return None
    if driver_gpus(s) and cuda_available(s) is not False:
        return None
    return ContainerWithoutGpu(raw, _NO_GPU_VALUES[value], container(s))


def cvd_hides_all(s) -> bool:
    v = env(s, "CUDA_VISIBLE_DEVICES")
    return v is not None and not v.strip()


def cuda_visible_devices(s) -> CudaVisibleDevices | None:
    """CUDA_VISIBLE_DEVICES read as CUDA reads it, against the driver's GPUs: None when it is unset,
    on macOS, or where neither a CUDA torch nor a driver GPU makes it matter; else {'raw', 'n' (the
    driver's GPU count, None when unknown), 'empty', 'valid' (the entries before the first invalid
    one), 'invalid' (that entry, or None)}.  CUDA stops reading at the first invalid entry; a UUID
    ('GPU-...') is judged when the driver lists UUIDs, a MIG one never."""
    raw = env(s, "CUDA_VISIBLE_DEVICES")
    if raw is None or is_macos(s) or not (is_cuda_torch(s) or driver_gpus(s)):
        return None
    n = len(driver_gpus(s)) if driver_present(s) else None
    if not raw.strip() or not n:
        return CudaVisibleDevices(raw, n, not raw.strip())  # without the driver's GPU list an index cannot be judged
    uuids = [text(g.uuid) for g in driver_gpus(s)]
    valid, invalid = [], None
    for item in (x.strip() for x in raw.split(",")):
        if re.fullmatch(r"\d+", item):
            ok = int(item) < n
        elif item.upper().startswith(("GPU-", "MIG-")):
            ok = None if not any(uuids) or item.upper().startswith("MIG-") else \
                any(u and u.lower().startswith(item.lower()) for u in uuids)
        else:
            ok = False
        if ok is False:
            invalid = item
            break  # CUDA stops parsing at the first invalid entry
        valid.append(item)
    return CudaVisibleDevices(raw, n, False, tuple(valid), invalid)


def _package(s, name) -> dict:
    return as_dict(dig(s, "packages", name))


MAX_REQUIRES = 100


@per_report
def requires_dist(s) -> list[RequiresDist]:
    """packages.requires: RequiresDist(name, version, requires: the lines) of the frameworks'
    distributions and the nvidia-* wheels, as recorded ([] for a snapshot from before the field).
    Every item has a name and a tuple of non-blank lines."""
    out = []
    for item in as_list(dig(s, "packages", "requires"))[:MAX_REQUIRES]:
        if not isinstance(item, dict):
            continue
        # a Requires-Dist line is short; a stranger's snapshot bounds nothing, so the reader does
        rec = RequiresDist.of(dict(item, requires=as_list(item.get("requires"))[:200]))
        if text(rec.name):
            lines = tuple(x[:500] for x in rec.requires if x.strip())
            out.append(RequiresDist(rec.name, text(rec.version), lines))
    return out


def installed_versions(s) -> Mapping[str, str | None]:
    """packages.installed: {normalised name: version or None (recorded as not installed)}, read-only."""
    raw = as_dict(dig(s, "packages", "installed"))
    return types.MappingProxyType({k: (v if isinstance(v, str) else None) for k, v in list(raw.items())[:500]
                                   if isinstance(k, str)})


def package_version(s, name) -> str | None:
    """The installed version of a package the packages probe records (torchvision, torchaudio)."""
    return text(_package(s, name).get("version"))


def package_location(s, name) -> str | None:
    """The site-packages a package the packages probe records (torchvision, torchaudio) is installed in."""
    return text(_package(s, name).get("location"))


def nvidia_packages(s) -> Mapping[str, str]:
    """packages.nvidia: {wheel name: version}, read-only."""
    return _open_map(dig(s, "packages", "nvidia"), lambda v: isinstance(v, str))


def nvidia_package_version(s, prefix: str) -> tuple[str, str] | None:
    """('nvidia-cudnn-cu13', '9.24.0.43') for prefix 'nvidia-cudnn' (with or without -cuXX)."""
    for name, ver in nvidia_packages(s).items():
        if re.fullmatch(re.escape(prefix) + r"(-cu\d+)?", name.lower()):
            return name, ver
    return None


# ---------------------------------------------------------------- libraries on the search path

def library_path_var(s) -> str:
    return text(dig(s, "libraries", "search_path_var")) or "LD_LIBRARY_PATH"


def library_listing(s) -> list[LibraryListing]:
    """Every folder the libraries probe recorded, as it recorded it: LibraryListing(dir: str|None, files: int)."""
    return [LibraryListing(text(e.get("dir")), len(as_list(e.get("libs"))))
            for e in as_list(dig(s, "libraries", "entries")) if isinstance(e, dict)]


def library_entries(s) -> list[LibraryFolder]:
    """libraries.entries: LibraryFolder(dir, libs: LibraryFile(file, kind (lower case), version)), each
    with a folder name."""
    out = []
    for e in as_list(dig(s, "libraries", "entries")):
        e = as_dict(e)
        d = text(e.get("dir"))
        if not d:
            continue
        libs = tuple(LibraryFile(text(x.get("file")), (text(x.get("kind")) or "").lower() or None,
                                 text(x.get("version"))) for x in as_list(e.get("libs")) if isinstance(x, dict))
        out.append(LibraryFolder(d, libs))
    return out


# library kind -> pip distribution (with or without -cuXX) that ships torch's copy
PIP_PACKAGE = {
    "cudart": "nvidia-cuda-runtime", "cublas": "nvidia-cublas", "cublaslt": "nvidia-cublas",
    "cudnn": "nvidia-cudnn", "cusparse": "nvidia-cusparse", "nvjitlink": "nvidia-nvjitlink",
    "nvrtc": "nvidia-cuda-nvrtc", "cufft": "nvidia-cufft", "curand": "nvidia-curand",
    "cusolver": "nvidia-cusolver", "nccl": "nvidia-nccl", "cupti": "nvidia-cuda-cupti",
    "cusparselt": "nvidia-cusparselt",
}


def torch_library(s, kind: str) -> tuple[tuple[int, int], str] | None:
    """torch's own copy of a CUDA library: ((major, minor), where that fact came from): its pip
    nvidia-* package, else torch's cuDNN or CUDA version."""
    pkg = nvidia_package_version(s, PIP_PACKAGE.get(kind, "")) if kind in PIP_PACKAGE else None
    if pkg:
        mm = versions.major_minor(pkg[1])
        if mm:
            return mm, f"pip package {pkg[0]} {pkg[1]}"
    if kind == "cudnn":
        t = torch_cudnn(s)
        if t:
            return (t[0], t[1]), f"torch.backends.cudnn.version() {fmt_version(t)}"
    if kind in ("cudart", "nvrtc") and torch_cuda(s):
        return versions.major_minor(torch_cuda(s)), f"torch.version.cuda {torch_cuda(s)}"
    return None


def _cuda_libs_on_path(s) -> list[LibraryOnPath]:
    """CUDA/cuDNN libraries in the folders of the search path, with how they differ from the copies
    torch's pip packages ship (older/newer/unknown)."""
    out = []
    for e in library_entries(s):
        for lib in e.libs:
            kind = lib.kind
            if not kind:
                continue
            exp = torch_library(s, kind)
            mm = versions.major_minor(lib.version) if lib.version and len(versions.version_tuple(lib.version) or ()) >= 2 else None
            out.append(LibraryOnPath(e.dir, lib.file, kind, lib.version, f"{exp[0][0]}.{exp[0][1]}" if exp else None,
                                     bool(mm and exp and mm < exp[0])))
    return out


_IMPORT_LIB_MARKERS = ("undefined symbol", "cannot open shared object", "version `", "symbol lookup error",
                       "libcu", "libnv", "libcudnn", "libnccl")


def _symbol_needs(err: str) -> tuple[str, tuple[int, int]] | None:
    """'undefined symbol: __nvJitLinkComplete_12_4' -> ('nvjitlink', (12, 4)): the library and the
    version whose symbol torch (or one of its libraries) needs."""
    m = re.search(r"undefined symbol:\s*_*(\w+?)_(\d+)_(\d+)\b", err)
    if not m:
        return None
    name = m.group(1).lower()
    # longest prefixes first: cublasLt before cublas, cuda (cudart's cudaXxx) last
    for prefix, kind in (("nvjitlink", "nvjitlink"), ("cusparselt", "cusparselt"), ("cusparse", "cusparse"),
                         ("cublaslt", "cublaslt"), ("cublas", "cublas"), ("cudnn", "cudnn"), ("nccl", "nccl"),
                         ("cufft", "cufft"), ("curand", "curand"), ("cusolver", "cusolver"), ("nvrtc", "nvrtc"),
                         ("cuda", "cudart")):
        if name.startswith(prefix):
            return kind, (int(m.group(2)), int(m.group(3)))
    return None


def import_broken_by_search_path(s) -> ImportBreaker | None:
    """`import torch` fails on a library error while the search path holds CUDA libraries: which
    folders are the cause (e.g. an older CUDA's libnvJitLink, "undefined symbol:
    __nvJitLinkComplete_12_4").  {'error', 'var', 'suspects': [{'dir', 'file', 'kind', 'version', ...}],
    'dirs', 'needs': (kind, (major, minor)) | None}, else None.  Judged by the libraries rule (TE505)
    and named by the torch rule's TE201, which it explains."""
    if torch_importable(s) is not False or is_macos(s):
        return None
    err = import_error(s) or ""
    low = err.lower()
    if not any(m in low for m in _IMPORT_LIB_MARKERS) or "no module named" in low:
        return None
    libs = _cuda_libs_on_path(s)
    if not libs:
        return None
    need = _symbol_needs(err)
    suspects = [l for l in libs if need and l.kind == need[0]]
    if need and suspects:
        # the library named by the symbol, in a version older than the symbol's
        suspects = [l for l in suspects
                    if not (versions.major_minor(l.version) and versions.major_minor(l.version) >= need[1])] \
            or suspects
    suspects = suspects or [l for l in libs if l.older] or [l for l in libs if l.kind and l.kind in low] or libs
    return ImportBreaker(err, library_path_var(s), tuple(suspects), need, tuple(dict.fromkeys(l.dir for l in suspects)))


def import_breaker_label(b: ImportBreaker) -> str:
    """import_broken_by_search_path()'s verdict in one line (TE505's message, quoted by TE201)."""
    first, need = b.suspects[0], b.needs
    need_txt = f", which needs {need[0]} {need[1][0]}.{need[1][1]}" if need else ""
    return (f"{b.var} folder {first.dir} makes `import torch` fail: its {first.file or first.kind}"
            + (f" ({first.version})" if first.version else "") + f" is loaded instead of torch's own{need_txt}")


# ---------------------------------------------------------------- toolchain

@per_report
def nvcc_candidates(s) -> list[NvccCandidate]:
    """toolchain.nvcc: the nvcc a build could pick, in cpp_extension's lookup order."""
    return [NvccCandidate.of(c) for c in as_list(dig(s, "toolchain", "nvcc")) if isinstance(c, dict)]


def nvcc_in_use(s) -> NvccCandidate | None:
    """The nvcc a build would use: the first candidate (cpp_extension's lookup order) that runs and
    has a toolkit beside it, else the first that runs; None when none runs."""
    runs = [c for c in nvcc_candidates(s) if text(c.version)]
    return next((c for c in runs if c.toolkit_found is not False), runs[0] if runs else None)


def cuda_home(s, var: str) -> CudaHomeVar:
    """toolchain.cuda_home.<CUDA_HOME|CUDA_PATH> (CudaHomeVar: value, exists, has_nvcc; each None when unknown)."""
    return CudaHomeVar.of(dig(s, "toolchain", "cuda_home", var)) or CudaHomeVar()


def host_compiler(s) -> HostCompiler | None:
    """The C++ compiler extensions build with (path, version line, error), None when none was found."""
    return HostCompiler.of(dig(s, "toolchain", "host_compiler"))


def ninja(s) -> Ninja | None:
    """ninja (path, version, error), None when none was found."""
    return Ninja.of(dig(s, "toolchain", "ninja"))


def msvc(s) -> Msvc | None:
    """toolchain.msvc (Windows): Msvc(cl, vswhere, installation, vc_tools, error), a blank text unknown;
    None when not recorded (another OS, or a snapshot from before the field)."""
    return Msvc.of(dig(s, "toolchain", "msvc"))


# ---------------------------------------------------------------- torch_envcheck's extension

@dataclass(frozen=True)
class ExtStatus:
    """extension.status (torch_envcheck.ext.extension.status()), typed: its fields are the ones
    contract.py declares for it (tests/unit/contract/test_facts_accessors.py keeps the two equal), a
    text field a str or None (unknown), an opaque object a dict as recorded."""
    state: str | None = None              # ok, stale, missing, torch-missing, broken
    mode: str | None = None               # aot or jit
    path: str | None = None
    built_against: str | None = None
    running_torch: str | None = None
    running_torch_cuda: str | None = None
    rebuild_command: str | None = None
    error: str | None = None
    stale_aot: dict = field(default_factory=dict)   # a stale AOT build shadowed by a JIT one: path, reason
    meta: dict = field(default_factory=dict)

    __hash__ = None  # type: ignore[assignment]

    @property
    def stale_path(self) -> str | None:
        v = self.stale_aot.get("path")
        return v if isinstance(v, str) else None

    @property
    def stale_reason(self) -> str | None:
        return text(self.stale_aot.get("reason"))


def ext_status(s) -> ExtStatus:
    """extension.status, typed (ExtStatus)."""
    raw = as_dict(dig(s, "extension", "status"))
    kw = {}
    for f in fields(ExtStatus):
        v = raw.get(f.name)
        kw[f.name] = as_dict(v) if f.name in ("stale_aot", "meta") else (v if isinstance(v, str) else None)
    return ExtStatus(**kw)


def ext_state(s) -> str | None:
    """extension.status.state: ok, stale, missing, torch-missing, broken, or None (unknown)."""
    return text(ext_status(s).state)


def extension_errors(s) -> list[str]:
    """The extension probe's own errors (status(), build_info(), runtime_info() that raised)."""
    return [e for e in as_list(dig(s, "extension", "errors")) if isinstance(e, str) and e.strip()]


def ext_gencode(s):
    """The GPU code the extension was compiled for (build_info.cuda.gencode: {'sass': [...], 'ptx':
    [...]}), as recorded: it is shown, never judged."""
    return dig(s, "extension", "build_info", "cuda", "gencode")


def ext_cudnn_headers_version(s):
    """The cudnn.h version the extension was compiled with (CUDNN_VERSION, an integer)."""
    return dig(s, "extension", "build_info", "cudnn_headers", "version_int")


def _runtime_info(s) -> dict:
    return as_dict(dig(s, "extension", "runtime_info"))


def _runtime_cudnn(s) -> dict:
    return as_dict(_runtime_info(s).get("cudnn"))


def _first(d: dict, *keys):
    for k in keys:
        if d.get(k) is not None:
            return d[k]
    return None


def ext_loaded_cudnn_version(s):
    """cudnnGetVersion() in the process the extension ran in (runtime_info.cudnn.version, an integer
    as torch.cudnn; older layouts: runtime_version), as recorded; None when unknown."""
    return _first(_runtime_cudnn(s), "version", "runtime_version")


def ext_cudnn_compiled_version(s):
    """The cuDNN version an older runtime_info recorded the extension as compiled against, as recorded."""
    return _first(_runtime_cudnn(s), "compiled_version", "compile_version", "build_version")


def ext_loaded_cudnn_path(s) -> str | None:
    """The cuDNN library file that process loaded (runtime_info.cudnn.library.path)."""
    return text(as_dict(_runtime_cudnn(s).get("library")).get("path"))


def _loaded_libraries(s) -> dict:
    return as_dict(_runtime_info(s).get("loaded_libraries"))


def ext_loaded_libraries_known(s) -> bool:
    """Whether the extension listed the files mapped into its process (runtime_info.loaded_libraries)."""
    return bool(_loaded_libraries(s))


def ext_loaded_files(s, family: str) -> list[str]:
    """The files of a library family (libtorch, c10, cudart, cudnn, cublas, cuda_driver) mapped into
    the process the extension ran in (/proc/self/maps)."""
    return [p for p in as_list(_loaded_libraries(s).get(family)) if isinstance(p, str)]


def ext_torch_cudnn_error(s) -> str | None:
    return text(dig(_runtime_info(s), "python", "torch_cudnn_error"))


def _cap_text(value) -> str | None:
    if isinstance(value, dict) and isinstance(value.get("major"), int) and isinstance(value.get("minor"), int):
        return f"{value['major']}.{value['minor']}"
    return text(value)


def _avail(value) -> bool | None:
    """kernel_image / handle facts come as a bool or as {"available"|"ok": bool, ...}."""
    if isinstance(value, bool):
        return value
    if isinstance(value, dict):
        for key in ("available", "ok"):
            if isinstance(value.get(key), bool):
                return value[key]
    return None


def _str(value) -> str | None:
    return value if isinstance(value, str) else None


def ext_devices(s) -> list[ExtDevice]:
    """The extension's per-device facts (runtime_info.cuda.devices[], README "runtime_info fields"),
    normalised (ExtDevice): index, name, capability 'X.Y', kernel_image bool|None, kernel_error,
    cudnn_handle / cublas_handle (bool|None) with their status texts."""
    ri = _runtime_info(s)
    raw = as_list(dig(ri, "cuda", "devices")) or as_list(ri.get("devices"))
    out = []
    for d in raw:
        if not isinstance(d, dict):
            continue
        ki, ch, bh = as_dict(d.get("kernel_image")), as_dict(d.get("cudnn_handle")), as_dict(d.get("cublas_handle"))
        out.append(ExtDevice(
            index=_int(d.get("index")), name=text(d.get("name")),
            capability=_cap_text(d.get("compute_capability")) or _cap_text(d.get("capability")),
            kernel_image=_avail(d.get("kernel_image")), kernel_error=_str(ki.get("error")),
            cudnn_handle=_avail(d.get("cudnn_handle")), cudnn_status=_str(ch.get("status")),
            cublas_handle=_avail(d.get("cublas_handle")),
            cublas_status=_str(bh.get("status")) or _str(bh.get("message"))))
    return out


def installed_fits(s, capability=None) -> bool | None:
    """Whether the live facts show the installed CUDA torch running here: True when torch
    initialised CUDA and its binary's kernels cover the GPU (or the extension's kernels launched);
    False when they rule it out (the driver reports an older CUDA major than torch needs, torch says
    the driver is too old, or the binary has no kernels for the GPU); None unknown."""
    tc, dc = versions.major_minor(torch_cuda(s)), versions.major_minor(driver_cuda(s))
    arch = binary_arch_list(s)
    if capability is not None and arch and kb.capability_match(capability, arch, torch_cuda(s))["ok"] is False:
        return False
    if cuda_works(s):
        return True if (arch or proof(s, "gpu") or capability is None) else None
    if dc and tc and dc[0] < tc[0]:
        return False  # a driver of an older CUDA major never runs it (an older minor may: compatibility)
    if "driver on your system is too old" in (cuda_init_error(s) or ""):
        return False
    return None



# ---------------------------------------------------------------- the machine model (system section and
# the environment manager's facts): kernel modules, Secure Boot, DKMS, WSL's loader, MIG, uv, user site,
# other accelerators, /dev/shm

def _system(s) -> dict:
    return as_dict(dig(s, "system"))


def kernel_modules(s) -> list[str] | None:
    """The GPU kernel modules loaded (/proc/modules), None when unknown."""
    v = _system(s).get("kernel_modules")
    return [m for m in v if isinstance(m, str)] if isinstance(v, list) else None


def module_loaded(s, name: str) -> bool | None:
    mods = kernel_modules(s)
    return None if mods is None else name in mods


def nvidia_module_version(s) -> str | None:
    """The loaded nvidia kernel module's version (/sys/module/nvidia/version)."""
    return text(_system(s).get("nvidia_module_version"))


def secure_boot(s) -> bool | None:
    return _bool(_system(s).get("secure_boot"))


@per_report
def dkms_builds(s) -> list[DkmsBuild] | None:
    """The DKMS builds of the nvidia module (DkmsBuild: module, version, kernel, arch, built), None when unknown."""
    v = _system(s).get("dkms")
    if not isinstance(v, list):
        return None
    return [DkmsBuild.of(d) for d in v if isinstance(d, dict)]


def nvidia_module_for_kernel(s) -> bool | None:
    return _bool(_system(s).get("nvidia_module_for_kernel"))


def nouveau_blacklisted(s) -> bool | None:
    return _bool(_system(s).get("nouveau_blacklisted"))


def kernel_release(s) -> str | None:
    return text(_platform(s).get("release"))


def userspace_driver(s) -> str | None:
    """Evidence that the NVIDIA user-space driver is installed (nvidia-smi, or libcuda.so.1 in the
    loader's cache outside WSL's stubs): its path, else None."""
    smi = text(_driver(s).get("nvidia_smi"))
    if smi:
        return smi
    for lib in libcuda_resolution(s) or ():
        if not lib.path.startswith(WSL_LIB):
            return lib.path
    return None


def distro_family(s) -> str | None:
    """debian (Debian, Ubuntu, Mint, Pop), fedora, rhel (RHEL, Rocky, Alma, CentOS, Amazon, Oracle),
    suse, arch, from the distribution's name; None when unknown."""
    name = (os_pretty(s) or "").lower()
    for family, words in (("debian", ("ubuntu", "debian", "mint", "pop!_os", "pop_os")),
                          ("fedora", ("fedora",)),
                          ("rhel", ("red hat", "rhel", "rocky", "alma", "centos", "amazon linux", "oracle linux")),
                          ("suse", ("suse",)), ("arch", ("arch linux", "manjaro", "endeavour"))):
        if any(w in name for w in words):
            return family
    return None


WSL_LIB = "/usr/lib/wsl/"


def libcuda_resolution(s) -> list[LibcudaEntry] | None:
    """Where the loader finds libcuda.so.1, in its order (LibcudaEntry: path, source), 64-bit entries of
    the cache only; None when unknown."""
    v = _system(s).get("libcuda")
    if not isinstance(v, list):
        return None
    out = []
    for e in v:
        if not isinstance(e, dict) or not text(e.get("path")):
            continue
        abi = text(e.get("abi")) or ""
        if e.get("source") == "ld.so.cache" and abi and "64" not in abi:
            continue  # a 32-bit copy is not what a 64-bit Python loads
        out.append(LibcudaEntry(e["path"], text(e.get("source")) or "?"))
    return out


def libcuda_loaded(s) -> list[str]:
    """The libcuda files the extension saw mapped into torch's process (when it ran)."""
    return ext_loaded_files(s, "cuda_driver")


@per_report
def driver_packages(s) -> list[DriverPackage] | None:
    """The NVIDIA driver packages installed (DriverPackage: name, version, manager; each has a name),
    None when unknown."""
    v = _system(s).get("driver_packages")
    if not isinstance(v, list):
        return None
    return [p for p in (DriverPackage.of(x) for x in v if isinstance(x, dict)) if p.name]


def wsl_linux_driver(s) -> WslLinuxDriver | None:
    """WSL 2 with a Linux NVIDIA driver inside it: WslLinuxDriver(packages, libcuda: the path the loader
    takes (None when it takes WSL's), wsl_lib: whether WSL's libcuda is there at all), else None.  The
    Windows driver reaches WSL 2 through /usr/lib/wsl/lib; a Linux driver's libcuda.so.1 shadows it."""
    if wsl(s) != 2:
        return None
    pkgs = driver_packages(s) or []
    libs = libcuda_resolution(s) or []
    loaded = libcuda_loaded(s)
    first = libs[0].path if libs else None
    shadow = next((p for p in loaded if not p.startswith(WSL_LIB)), None) or \
        (first if first and not first.startswith(WSL_LIB) else None)
    if not pkgs and not shadow:
        return None
    return WslLinuxDriver(tuple(pkgs), shadow, any(e.path.startswith(WSL_LIB) for e in libs))


def mig_gpus(s) -> list[DriverGpu]:
    """The driver's GPUs with MIG mode known (mig_mode True or False; mig_devices None when not read)."""
    return [g for g in driver_gpus(s) if g.mig_mode is not None]


def mig_uuids(s) -> list[str] | None:
    """Every MIG device's UUID the driver lists; None when no GPU's MIG devices are known."""
    known_ = [g for g in mig_gpus(s) if g.mig_devices is not None]
    if not known_:
        return None
    return [d.uuid for g in known_ for d in g.mig_devices if text(d.uuid)]


def visible_device_entries(s, var: str) -> list[VisibleDeviceEntry] | None:
    """CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES entries judged against the driver's GPUs and MIG
    devices: VisibleDeviceEntry(entry, kind: index|gpu-uuid|mig-uuid|mig-index|word|other, exists: True/False/None);
    None when the variable is unset or the driver's list is unknown."""
    raw = env(s, var)
    if raw is None or driver_present(s) is not True or not driver_gpus(s):
        return None
    n = len(driver_gpus(s))
    uuids = [text(g.uuid) for g in driver_gpus(s)]
    migs = mig_uuids(s)
    out = []
    for item in (x.strip() for x in raw.split(",") if x.strip()):
        low = item.lower()
        if var == "NVIDIA_VISIBLE_DEVICES" and low in ("all", "none", "void"):
            out.append(VisibleDeviceEntry(item, "word", None))
        elif re.fullmatch(r"-?\d+", item):
            out.append(VisibleDeviceEntry(item, "index", 0 <= int(item) < n))
        elif re.fullmatch(r"\d+:\d+", item):
            out.append(VisibleDeviceEntry(item, "mig-index", None))
        elif low.startswith("mig-"):
            exists = None if migs is None else any(u.lower().startswith(low) for u in migs)
            out.append(VisibleDeviceEntry(item, "mig-uuid", exists))
        elif low.startswith("gpu-"):
            exists = None if not any(uuids) else any(u and u.lower().startswith(low) for u in uuids)
            out.append(VisibleDeviceEntry(item, "gpu-uuid", exists))
        else:
            out.append(VisibleDeviceEntry(item, "other", None))
    return out


def uv_version(s) -> str | None:
    """The uv that made this venv (pyvenv.cfg), None when uv did not."""
    return text(_python(s).get("uv"))


def pip_present(s) -> bool | None:
    return _bool(_python(s).get("pip"))


def uv_project(s) -> str | None:
    return text(_python(s).get("uv_project"))


def uses_uv(s) -> bool:
    """Commands for this environment go through uv: a uv venv without pip (uv's default), or torch
    installed by uv into an environment without pip."""
    if pip_present(s) is not False:
        return False
    return bool(uv_version(s)) or torch_installer(s) == "uv"


def user_site(s) -> str | None:
    return text(_python(s).get("user_site"))


def user_site_enabled(s) -> bool | None:
    return _bool(_python(s).get("user_site_enabled"))


def torch_file(s) -> str | None:
    return text(_torch(s).get("file"))


@per_report
def torch_copies(s) -> list[TorchCopy]:
    """Every torch distribution on sys.path, in its order (TorchCopy: location, version, installer;
    each has a location)."""
    return [c for c in (TorchCopy.of(x) for x in as_list(_torch(s).get("copies")) if isinstance(x, dict)) if c.location]


def _under(path: str | None, folder: str | None) -> bool:
    if not path or not folder:
        return False
    folder = folder.rstrip("/\\")
    return path == folder or path.startswith(folder + "/") or path.startswith(folder + "\\")


def torch_shadowed(s) -> TorchShadowed | None:
    """torch imported from outside this environment while the environment has its own:
    TorchShadowed(imported_from, by: 'user site' | 'PYTHONPATH' | ..., shadowed: the copies inside the env,
    imported: the copy imported).  Judged from where torch was really imported (torch.__file__)."""
    f, prefix = torch_file(s), python_prefix(s)
    if not f or not prefix or _under(f, prefix):
        return None
    copies = torch_copies(s)
    inside = [c for c in copies if _under(c.location, prefix)]
    if not inside:
        return None
    folder = f.rsplit("/torch/", 1)[0] if "/torch/" in f else f.rsplit("\\torch\\", 1)[0]
    imported = next((c for c in copies if c.location == folder), None)
    by = "user site" if _under(f, user_site(s)) else ("PYTHONPATH" if any(
        _under(f, p) for p in (env(s, "PYTHONPATH") or "").split(":" if system(s) != "Windows" else ";") if p)
        else "another folder on sys.path")
    return TorchShadowed(folder, by, tuple(inside), imported)


def xpu(s) -> Xpu | None:
    """torch.xpu (Xpu: built, available, device_count, devices, error), None when this torch has none."""
    return Xpu.of(_torch(s).get("xpu"))


def torch_xpu_version(s) -> str | None:
    return text(_torch(s).get("xpu_version"))


def xpu_available(s) -> bool:
    x = xpu(s)
    return x is not None and x.available is True


@per_report
def other_gpus(s) -> list[OtherGpu] | None:
    """AMD and Intel display controllers on the PCI bus (OtherGpu: vendor, bus_id, device_id, pci_class),
    None when the bus was not read."""
    v = _system(s).get("other_gpus")
    if not isinstance(v, list):
        return None
    return [OtherGpu.of(g) for g in v if isinstance(g, dict)]


def has_vendor_gpu(s, vendor: str) -> bool | None:
    """An AMD or Intel GPU on the PCI bus (None when the bus was not read)."""
    gpus_ = other_gpus(s)
    return None if gpus_ is None else any(g.vendor == vendor for g in gpus_)


def kfd(s) -> bool | None:
    return _bool(_system(s).get("kfd"))


def accelerator_build_works(s) -> str | None:
    """A working non-CUDA accelerator build: 'rocm', 'xpu' or 'mps' (torch sees its devices), else None."""
    if is_rocm_torch(s) and cuda_available(s) is True and (device_count(s) or 0) > 0:
        return "rocm"
    if is_xpu_torch(s) and xpu_available(s):
        return "xpu"
    if is_macos(s) and mps_available(s):
        return "mps"
    return None


def accelerator_build_unseen_device(s) -> str | None:
    """A ROCm build on a machine with an AMD GPU, or an XPU build with an Intel GPU on the bus, that
    sees no device: the build is the right kind, the device is not reached yet.  Its description, else None."""
    if torch_importable(s) is not True or accelerator_build_works(s):
        return None
    if is_rocm_torch(s) and (has_vendor_gpu(s, "amd") or kfd(s) is True) and not has_nvidia_gpu_evidence(s):
        return "a ROCm build on a machine with an AMD GPU"
    if is_xpu_torch(s) and has_vendor_gpu(s, "intel") and not has_nvidia_gpu_evidence(s):
        return "an Intel XPU build on a machine with an Intel GPU"
    return None


def has_nvidia_gpu_evidence(s) -> bool:
    """An NVIDIA GPU from the driver or the PCI bus (torch's devices not counted: a ROCm torch lists
    AMD GPUs there)."""
    return driver_present(s) is True or bool(driver_gpus(s)) or bool(pci_gpus(s))


def shm(s) -> Shm | None:
    """/dev/shm (Shm: path, total_bytes, free_bytes) when its size is known."""
    v = Shm.of(_system(s).get("shm"))
    if v is None or v.total_bytes is None:
        return None
    return Shm(text(v.path) or "/dev/shm", v.total_bytes, v.free_bytes)
