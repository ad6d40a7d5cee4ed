"""Typed, read-only facts: the snapshot's small objects and list items (a GPU, an nvcc candidate,
the host compiler, how the torch import ended, ...) as frozen dataclasses, so that a rule reads
`F.nvcc_in_use(s).version` and never digs into a dict the facts layer handed out.

Each record names the contract path it is read from (PATH) and has exactly the fields contract.py
declares there, in the contract's order (tests/unit/contract/test_facts_accessors.py keeps the two
equal).  `Record.of(raw)` reads a recorded object tolerantly: a missing field or one of another type
than declared is None (unknown), a list keeps only the items of the declared kind (as a tuple), a
declared object inside becomes its own record; it never raises.  `to_dict()` gives the declared
fields back as JSON-ready values, for a finding's details (the same object a normalised snapshot
holds)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import ClassVar

from torch_envcheck.facts import contract


class Record:
    """The reading and writing every record shares (the dataclasses below hold the fields)."""
    PATH: ClassVar[str]                       # where contract.py declares the object
    NESTED: ClassVar[dict] = {}               # field -> the Record class of a declared object (or list item) in it
    KEYS: ClassVar[dict] = {}                 # field -> its recorded key, where that is no Python name ("class")
    BLANK_IS_UNKNOWN: ClassVar[bool] = False  # a blank text is unknown (None), not ""

    @classmethod
    def of(cls, raw):
        """The record read from `raw` (a recorded object), None when `raw` is not an object."""
        if not isinstance(raw, dict):
            return None
        kw = {}
        for name, spec in _specs(cls):
            kw[name] = _read(cls, name, spec, raw.get(cls.KEYS.get(name, name)))
        return cls(**kw)

    def to_dict(self) -> dict:
        """The declared fields, under their recorded keys, as JSON values (lists for tuples, objects
        for nested records)."""
        return {self.KEYS.get(f.name, f.name): plain(getattr(self, f.name)) for f in fields(self)}


@functools.cache
def _specs(cls) -> tuple:
    spec = contract.field(cls.PATH)
    declared = spec.fields if spec is not None and spec.fields else {}
    return tuple((f.name, declared.get(cls.KEYS.get(f.name, f.name))) for f in fields(cls))


def _read(cls, name, spec, value):
    if spec is None or value is None or not contract.kind_ok(spec.kind, value):
        return None
    if spec.kind == contract.STR and cls.BLANK_IS_UNKNOWN and not value.strip():
        return None
    if spec.kind == contract.LIST:
        if spec.fields is not None:
            sub = cls.NESTED[name]
            return tuple(sub.of(item) for item in value if isinstance(item, dict))
        if spec.of is not None:
            return tuple(item for item in value if contract.kind_ok(spec.of, item))
        return tuple(value)
    if spec.kind == contract.DICT and spec.fields is not None:
        return cls.NESTED[name].of(value)
    return value


def plain(value):
    """A record, a list (or tuple) of records, or anything else, as JSON values: what a finding's
    details show of a fact (None stays None)."""
    if isinstance(value, (Record, ExtDevice)):
        return value.to_dict()
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    return value


# ---------------------------------------------------------------- platform

@dataclass(frozen=True)
class Jetson(Record):
    """An NVIDIA Jetson/Tegra board (L4T's /etc/nv_tegra_release)."""
    PATH: ClassVar[str] = "platform.jetson"
    model: str | None = None             # /proc/device-tree/model
    l4t: str | None = None               # the L4T release line (JetPack)


# ---------------------------------------------------------------- torch

@dataclass(frozen=True)
class ImportProcess(Record):
    """How the child process that imported torch ended."""
    PATH: ClassVar[str] = "torch.import_process"
    returncode: int | None = None        # negative: killed by a signal
    signal: str | None = None            # SIGSEGV, SIGILL, ...
    timed_out: bool | None = None
    limit_s: float | None = None
    seconds: float | None = None
    stderr_tail: str | None = None
    error: str | None = None
    output_dropped_bytes: int | None = None


@dataclass(frozen=True)
class Mps(Record):
    """torch.backends.mps (macOS)."""
    PATH: ClassVar[str] = "torch.mps"
    built: bool | None = None
    available: bool | None = None


@dataclass(frozen=True)
class Xpu(Record):
    """torch.xpu (Intel GPUs)."""
    PATH: ClassVar[str] = "torch.xpu"
    built: bool | None = None
    available: bool | None = None
    device_count: int | None = None
    devices: tuple[str, ...] | None = None
    error: str | None = None


@dataclass(frozen=True)
class TorchDevice(Record):
    """One of torch.cuda's devices (what the program sees, after CUDA_VISIBLE_DEVICES)."""
    PATH: ClassVar[str] = "torch.devices"
    index: int | None = None
    name: str | None = None
    capability: str | None = None        # 'X.Y'
    total_memory_bytes: int | None = None

    @property
    def memory_bytes(self) -> int | None:
        v = self.total_memory_bytes
        return v if v is not None and v > 0 else None


# ---------------------------------------------------------------- driver

@dataclass(frozen=True)
class MigDevice(Record):
    """A MIG device of a GPU (NVML)."""
    PATH: ClassVar[str] = "driver.gpus.mig_devices"
    index: int | None = None
    uuid: str | None = None              # MIG-...
    name: str | None = None              # its profile: ... MIG 1g.5gb
    memory_total_mib: int | None = None


@dataclass(frozen=True)
class PciGpu(Record):
    """An NVIDIA display/3D device on the PCI bus (a GPU is there even when no driver is loaded)."""
    PATH: ClassVar[str] = "driver.pci_gpus"
    KEYS: ClassVar[dict] = {"pci_class": "class"}
    bus_id: str | None = None
    device_id: str | None = None
    pci_class: str | None = None         # recorded as "class"


@dataclass(frozen=True)
class DriverGpu(Record):
    """A GPU the driver lists (NVML / nvidia-smi): every NVIDIA GPU of the machine."""
    PATH: ClassVar[str] = "driver.gpus"
    NESTED: ClassVar[dict] = {"mig_devices": MigDevice}
    index: int | None = None
    name: str | None = None
    capability: str | None = None        # 'X.Y'
    memory_total_mib: int | None = None
    pci_bus_id: str | None = None
    uuid: str | None = None              # GPU-...
    mig_mode: bool | None = None         # None: no MIG support, or unknown
    mig_devices: tuple[MigDevice, ...] | None = None   # None: not read

    @property
    def memory_bytes(self) -> int | None:
        v = self.memory_total_mib
        return v * 2**20 if v is not None and v > 0 else None


# ---------------------------------------------------------------- the machine model (system section)

@dataclass(frozen=True)
class DkmsBuild(Record):
    """A DKMS build of the nvidia module (/var/lib/dkms/nvidia/VERSION/KERNEL/ARCH)."""
    PATH: ClassVar[str] = "system.dkms"
    BLANK_IS_UNKNOWN: ClassVar[bool] = True
    module: str | None = None
    version: str | None = None
    kernel: str | None = None            # the kernel release it was built for
    arch: str | None = None
    built: bool | None = None            # a built .ko is there


@dataclass(frozen=True)
class DriverPackage(Record):
    """An NVIDIA driver package the package manager installed."""
    PATH: ClassVar[str] = "system.driver_packages"
    BLANK_IS_UNKNOWN: ClassVar[bool] = True
    name: str | None = None
    version: str | None = None
    manager: str | None = None           # dpkg, rpm or pacman


@dataclass(frozen=True)
class OtherGpu(Record):
    """An AMD or Intel display controller on the PCI bus."""
    PATH: ClassVar[str] = "system.other_gpus"
    KEYS: ClassVar[dict] = {"pci_class": "class"}
    BLANK_IS_UNKNOWN: ClassVar[bool] = True
    vendor: str | None = None            # amd or intel
    bus_id: str | None = None
    device_id: str | None = None
    pci_class: str | None = None         # recorded as "class"


# ---------------------------------------------------------------- packages

@dataclass(frozen=True)
class TorchCopy(Record):
    """A torch distribution on sys.path."""
    PATH: ClassVar[str] = "torch.copies"
    BLANK_IS_UNKNOWN: ClassVar[bool] = True
    location: str | None = None          # its site-packages
    version: str | None = None
    installer: str | None = None


@dataclass(frozen=True)
class RequiresDist(Record):
    """A framework's (or an nvidia-* wheel's) Requires-Dist lines."""
    PATH: ClassVar[str] = "packages.requires"
    name: str | None = None              # normalised distribution name
    version: str | None = None
    requires: tuple[str, ...] | None = None


# ---------------------------------------------------------------- toolchain

@dataclass(frozen=True)
class NvccCandidate(Record):
    """An nvcc a build could pick, in cpp_extension's lookup order."""
    PATH: ClassVar[str] = "toolchain.nvcc"
    path: str | None = None
    source: str | None = None            # CUDA_HOME, PATH, ...
    cuda_home: str | None = None         # the toolkit root it belongs to
    toolkit_found: bool | None = None    # headers and libraries beside it
    version: str | None = None           # `nvcc --version` release; None: it did not run
    error: str | None = None


@dataclass(frozen=True)
class CudaHomeVar(Record):
    """CUDA_HOME or CUDA_PATH as the toolchain probe checked it (both are declared alike)."""
    PATH: ClassVar[str] = "toolchain.cuda_home.CUDA_HOME"
    value: str | None = None
    exists: bool | None = None
    has_nvcc: bool | None = None


@dataclass(frozen=True)
class Tool(Record):
    """A build tool found on the machine: the host C++ compiler (HostCompiler) or ninja (Ninja)."""
    PATH: ClassVar[str] = "toolchain.host_compiler"
    path: str | None = None
    version: str | None = None           # the compiler's version line / ninja's version
    error: str | None = None


@dataclass(frozen=True)
class HostCompiler(Tool):
    PATH: ClassVar[str] = "toolchain.host_compiler"


@dataclass(frozen=True)
class Ninja(Tool):
    PATH: ClassVar[str] = "toolchain.ninja"


@dataclass(frozen=True)
class Msvc(Record):
    """Windows: Microsoft's C++ compiler, which nvcc and torch's extension builds need."""
    PATH: ClassVar[str] = "toolchain.msvc"
    BLANK_IS_UNKNOWN: ClassVar[bool] = True
    cl: str | None = None                # cl.exe on PATH (a developer prompt)
    vswhere: str | None = None           # the Visual Studio Installer's vswhere.exe
    installation: str | None = None      # the install with the C++ tools
    vc_tools: bool | None = None         # an install with VC.Tools.x86.x64 was found
    error: str | None = None


# ---------------------------------------------------------------- the extension (derived, not recorded as is)

@dataclass(frozen=True)
class ExtDevice:
    """The extension's facts of one device (runtime_info.cuda.devices[], or the older runtime_info.devices[]),
    normalised from either layout: a kernel image / handle fact is True, False or None (unknown)."""
    index: int | None = None
    name: str | None = None
    capability: str | None = None        # 'X.Y'
    kernel_image: bool | None = None
    kernel_error: str | None = None
    cudnn_handle: bool | None = None
    cudnn_status: str | None = None
    cublas_handle: bool | None = None
    cublas_status: str | None = None

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


RECORDS = (Jetson, ImportProcess, Mps, Xpu, TorchDevice, TorchCopy, MigDevice, DriverGpu, PciGpu, DkmsBuild,
           DriverPackage, OtherGpu, RequiresDist, NvccCandidate, CudaHomeVar, HostCompiler, Ninja, Msvc)
