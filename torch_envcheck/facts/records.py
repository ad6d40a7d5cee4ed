"""Typed, read-only facts: the snapshot's small objects and list items (a GPU, an nvcc candidate,
the host compiler, how the torch import ended, ...) as frozen dataclasses, so that a rule reads
`F.nvcc_in_use(s).version` and never digs into a dict the facts layer handed out.

Each record names the contract path it is read from (PATH) and has exactly the fields contract.py
declares there, in the contract's order (tests/unit/contract/test_facts_accessors.py keeps the two
equal).  `Record.of(raw)` reads a recorded object tolerantly: a missing field or one of another type
than declared is None (unknown), a list keeps only the items of the declared kind (as a tuple), a
declared object inside becomes its own record; it never raises.  `to_dict()` gives the declared
fields back as JSON-ready values, for a finding's details (the same object a normalised snapshot
holds).

Two more kinds, read the same way: RESHAPED records hold some of the fields declared at their PATH,
in the contract's order (a recorded list an accessor reshapes: the search path's libraries, where
the loader finds libcuda); VERDICTS are results the facts layer derives from several facts (how CUDA
reads CUDA_VISIBLE_DEVICES, which folder breaks `import torch`, conda's pytorch flavour, ...), each
naming in FROM the contract paths it is judged from."""

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
    if isinstance(value, (Record, ExtDevice, Verdict)):
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


# ---------------------------------------------------------------- conda (facts/conda.py)

@dataclass(frozen=True)
class CondaPackage(Record):
    """A CUDA-relevant conda package's record (conda-meta/*.json)."""
    PATH: ClassVar[str] = "conda.packages"
    name: str | None = None
    version: str | None = None
    build: str | None = None             # py3.11_cuda12.1_cudnn8.9.2_0, cpu_mkl_py311h..._100
    build_number: int | None = None
    channel: str | None = None           # pytorch, nvidia, conda-forge, pkgs/main
    channel_url: str | None = None
    subdir: str | None = None
    depends: tuple[str, ...] | None = None
    constrains: tuple[str, ...] | None = None
    requested_spec: str | None = None
    features: str | None = None
    file: str | None = None
    runtime_files: tuple[str, ...] | None = None


@dataclass(frozen=True)
class CondaRequest(Record):
    """A spec the user asked conda for (conda-meta/history), with what is installed."""
    PATH: ClassVar[str] = "conda.requested"
    name: str | None = None
    spec: str | None = None
    version: str | None = None           # None: not installed
    build: str | None = None


@dataclass(frozen=True)
class PipDist(Record):
    """A distribution in a conda env's site-packages that conda did not install."""
    PATH: ClassVar[str] = "conda.pip"
    name: str | None = None              # normalised
    version: str | None = None
    installer: str | None = None         # pip, uv, ...
    dist_info: str | None = None
    runtime_files: tuple[str, ...] | None = None


@dataclass(frozen=True)
class CondaSearchPathEntry(Record):
    """Windows: a PATH entry that is the conda env's Library\\bin or holds a CUDA runtime."""
    PATH: ClassVar[str] = "conda.search_path"
    index: int | None = None             # position in PATH
    dir: str | None = None
    kind: str | None = None              # env-library-bin or cuda
    cuda_version: str | None = None


# ---------------------------------------------------------------- TensorFlow (facts/tensorflow.py)

@dataclass(frozen=True)
class TfGpu(Record):
    """A GPU TensorFlow lists (tf.config.list_physical_devices('GPU'))."""
    PATH: ClassVar[str] = "tensorflow.gpus"
    name: str | None = None              # /physical_device:GPU:0
    device_type: str | None = None
    device_name: str | None = None       # the GPU's name
    capability: str | None = None        # 'X.Y'


@dataclass(frozen=True)
class OwnedFile(Record):
    """A file two distributions both install (an example of a pair's)."""
    PATH: ClassVar[str] = "file_owners.pairs.examples"
    path: str | None = None              # relative to site-packages
    same_content: bool | None = None


# ---------------------------------------------------------------- recorded lists, reshaped

# Records of recorded objects that the accessor reshapes (a declared field dropped, a value
# normalised): their fields are some of those contract.py declares at PATH, in its order
# (tests/unit/contract/test_facts_accessors.py keeps them so).

@dataclass(frozen=True)
class LibraryFile(Record):
    """A CUDA/cuDNN library in a folder of the search path; kind is lower case."""
    PATH: ClassVar[str] = "libraries.entries.libs"
    file: str | None = None
    kind: str | None = None              # cudart, cudnn, cublas, nvjitlink, ... (lower case)
    version: str | None = None           # from the file name


@dataclass(frozen=True)
class LibraryFolder(Record):
    """A folder of the search path holding CUDA/cuDNN libraries (each folder has a name)."""
    PATH: ClassVar[str] = "libraries.entries"
    NESTED: ClassVar[dict] = {"libs": LibraryFile}
    dir: str | None = None
    libs: tuple[LibraryFile, ...] | None = None


@dataclass(frozen=True)
class LibcudaEntry(Record):
    """Where the loader finds libcuda.so.1 (64-bit entries only); source is "?" when not recorded."""
    PATH: ClassVar[str] = "system.libcuda"
    path: str | None = None
    source: str | None = None            # LD_LIBRARY_PATH or ld.so.cache


@dataclass(frozen=True)
class Shm(Record):
    """/dev/shm (statvfs), its path "/dev/shm" when not recorded."""
    PATH: ClassVar[str] = "system.shm"
    path: str | None = None
    total_bytes: int | None = None
    free_bytes: int | None = None


# ---------------------------------------------------------------- verdicts the facts layer derives

class Verdict:
    """A result the facts layer computes from several facts (no recorded object behind it), read by
    attribute like a record.  FROM names the contract paths it is judged from (kept declared by
    tests/unit/contract/test_facts_accessors.py); to_dict() gives a finding's details its fields in
    order, nested records and tuples as JSON values."""
    FROM: ClassVar[tuple]

    def to_dict(self) -> dict:
        return {f.name: plain(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class Request(Verdict):
    """What --framework/--shell asked for (the snapshot's "request"), its declared fields only."""
    FROM: ClassVar[tuple] = ("request.frameworks", "request.shell")
    frameworks: tuple[str, ...] = ()
    shell: str | None = None


@dataclass(frozen=True)
class OldestBuild(Verdict):
    """The torch build of the knowledge tables that needs the lowest driver, when this driver is older."""
    FROM: ClassVar[tuple] = ("driver.version", "platform.system")
    driver: str | None = None            # the driver it needs
    cuda: str | None = None
    torch: str | None = None
    tag: str | None = None

    @classmethod
    def of_row(cls, row: dict) -> "OldestBuild":
        return cls(**{f.name: row.get(f.name) for f in fields(cls)})


@dataclass(frozen=True)
class ContainerWithoutGpu(Verdict):
    """A container started without a GPU (NVIDIA_VISIBLE_DEVICES void, none or empty)."""
    FROM: ClassVar[tuple] = ("env", "platform.container", "torch.cuda_available", "torch.device_count",
                             "driver.gpus")
    value: str = ""                      # NVIDIA_VISIBLE_DEVICES as set
    meaning: str = ""                    # what the NVIDIA Container Toolkit does with it
    container: str | None = None         # docker, podman, kubernetes, ...


@dataclass(frozen=True)
class CudaVisibleDevices(Verdict):
    """CUDA_VISIBLE_DEVICES read as CUDA reads it, against the driver's GPUs."""
    FROM: ClassVar[tuple] = ("env", "driver.gpus", "driver.present")
    raw: str = ""
    n: int | None = None                 # the driver's GPU count, None when unknown
    empty: bool = False
    valid: tuple[str, ...] = ()          # the entries before the first invalid one
    invalid: str | None = None           # that entry


@dataclass(frozen=True)
class VisibleDeviceEntry(Verdict):
    """An entry of CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES judged against the driver's GPUs."""
    FROM: ClassVar[tuple] = ("env", "driver.gpus", "driver.gpus.mig_devices")
    entry: str = ""
    kind: str = ""                       # index, gpu-uuid, mig-uuid, mig-index, word, other
    exists: bool | None = None


@dataclass(frozen=True)
class LibraryOnPath(Verdict):
    """A CUDA/cuDNN library of the search path beside torch's own copy of it."""
    FROM: ClassVar[tuple] = ("libraries.entries", "packages.nvidia", "torch.cudnn", "torch.cuda")
    dir: str | None = None
    file: str | None = None
    kind: str | None = None
    version: str | None = None
    torch_has: str | None = None         # 'X.Y' of torch's copy, None when unknown
    older: bool = False                  # older than torch's copy


@dataclass(frozen=True)
class ImportBreaker(Verdict):
    """`import torch` fails on a library error while the search path holds CUDA libraries."""
    FROM: ClassVar[tuple] = ("torch.importable", "torch.import_error", "libraries.entries",
                             "libraries.search_path_var")
    error: str = ""
    var: str = ""                        # LD_LIBRARY_PATH, DYLD_LIBRARY_PATH or PATH
    suspects: tuple[LibraryOnPath, ...] = ()
    needs: tuple | None = None           # (kind, (major, minor)) the failing symbol needs
    dirs: tuple[str, ...] = ()           # the suspects' folders, in order


@dataclass(frozen=True)
class WslLinuxDriver(Verdict):
    """WSL 2 with a Linux NVIDIA driver inside it."""
    FROM: ClassVar[tuple] = ("platform.wsl", "system.driver_packages", "system.libcuda", "extension")
    packages: tuple[DriverPackage, ...] = ()
    libcuda: str | None = None           # the libcuda the loader takes, None when it takes WSL's
    wsl_lib: bool = False                # WSL's libcuda is there at all


@dataclass(frozen=True)
class TorchShadowed(Verdict):
    """torch imported from outside this environment while the environment has its own."""
    FROM: ClassVar[tuple] = ("torch.file", "platform.python.prefix", "torch.copies", "platform.python.user_site",
                             "env")
    imported_from: str = ""
    by: str = ""                         # user site, PYTHONPATH, another folder on sys.path
    shadowed: tuple[TorchCopy, ...] = ()  # the environment's own copies
    imported: TorchCopy | None = None    # the copy imported, when listed


@dataclass(frozen=True)
class PytorchFlavour(Verdict):
    """What kind of build conda's pytorch is, from its build string, pytorch-mutex or cpuonly."""
    FROM: ClassVar[tuple] = ("conda.packages",)
    kind: str | None = None              # cpu, cuda, None: not told
    cuda: str | None = None              # '12.1'
    cudnn: str | None = None
    why: str = ""                        # the evidence: "build py3.11_cpu_0", "pytorch-mutex cpu", ...


@dataclass(frozen=True)
class TfTestedBuild(Verdict):
    """TensorFlow's tested build configuration of a release on an OS (knowledge: tensorflow_builds.json)."""
    FROM: ClassVar[tuple] = ("tensorflow.version", "platform.system", "platform.wsl")
    tensorflow: str | None = None
    os: str | None = None                # linux, windows, macos
    python_min: str | None = None
    python_max: str | None = None
    cuda: str | None = None              # None: no GPU build
    cudnn: str | None = None
    unverified: bool | None = None       # the table row is marked unverified
    source_url: str | None = None        # where the table comes from

    @classmethod
    def of_row(cls, row: dict) -> "TfTestedBuild":
        src = row.get("source_ref")
        url = src.get("url") if isinstance(src, dict) else None
        return cls(*(row.get(k) for k in ("tensorflow", "os", "python_min", "python_max", "cuda", "cudnn")),
                   unverified=row.get("unverified"), source_url=url if isinstance(url, str) else None)


@dataclass(frozen=True)
class DlopenFailure(Verdict):
    """A library TensorFlow logged it could not load, decoded (knowledge.tensorflow.describe_library)."""
    FROM: ClassVar[tuple] = ("tensorflow.log.dlopen_failures",)
    file: str | None = None
    kind: str | None = None              # cudart, cudnn, cublas, tensorrt, ...
    version: str | None = None
    text: str | None = None              # what it is, in words
    note: str | None = None
    dlerror: str | None = None           # the loader's message


@dataclass(frozen=True)
class AndCudaWheel(Verdict):
    """An nvidia-* wheel of TensorFlow's and-cuda extra, against what is installed."""
    FROM: ClassVar[tuple] = ("tensorflow.and_cuda",)
    name: str = ""
    specifier: str = ""
    installed: str | None = None         # the installed version, None when absent
    satisfied: bool | None = False       # None: unknown


@dataclass(frozen=True)
class DependencyRequirement(Verdict):
    """What one framework distribution requires of numpy or protobuf ('' when not recorded)."""
    FROM: ClassVar[tuple] = ("tensorflow.requires",)
    framework: str = ""
    distribution: str = ""
    version: str = ""
    specifier: str = ""                  # '' = any
    applies: bool | None = None          # its environment marker holds here


@dataclass(frozen=True)
class OwnerPair(Verdict):
    """Two distributions that install the same files."""
    FROM: ClassVar[tuple] = ("file_owners.pairs",)
    distributions: tuple[str, ...] = ()  # the two, as name==version
    files: int = 0
    differing: int = 0                   # of those, with different content
    examples: tuple[OwnedFile, ...] = ()


@dataclass(frozen=True)
class OwnersSummary(Verdict):
    """The file_owners probe's counts."""
    FROM: ClassVar[tuple] = ("file_owners.distributions", "file_owners.pairs_total", "file_owners.shared_files_identical")
    distributions: int | None = None
    pairs_total: int | None = None
    identical: int | None = None
    present: bool = False                # the probe's facts are there


@dataclass(frozen=True)
class WindowsCudaDir(Verdict):
    """Native Windows: a PATH folder holding a CUDA runtime or cuDNN DLL."""
    FROM: ClassVar[tuple] = ("libraries.entries", "libraries.search_path_var")
    position: int = 0                    # among the search path's CUDA folders
    dir: str = ""
    cuda: str | None = None              # from the toolkit folder's name, else the DLL's
    cudnn: str | None = None
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class LibraryListing(Verdict):
    """A folder the libraries probe recorded, and how many libraries it lists there."""
    FROM: ClassVar[tuple] = ("libraries.entries",)
    dir: str | None = None
    files: int = 0


RECORDS = (Jetson, ImportProcess, Mps, Xpu, TorchDevice, TorchCopy, MigDevice, DriverGpu, PciGpu, DkmsBuild,
           DriverPackage, OtherGpu, RequiresDist, NvccCandidate, CudaHomeVar, HostCompiler, Ninja, Msvc, Shm,
           CondaPackage, CondaRequest, PipDist, CondaSearchPathEntry, TfGpu, OwnedFile)
RESHAPED = (LibraryFile, LibraryFolder, LibcudaEntry)
VERDICTS = (Request, OldestBuild, ContainerWithoutGpu, CudaVisibleDevices, VisibleDeviceEntry, LibraryOnPath,
            ImportBreaker, WslLinuxDriver, TorchShadowed, LibraryListing, PytorchFlavour, TfTestedBuild, DlopenFailure,
            AndCudaWheel, DependencyRequirement, OwnerPair, OwnersSummary, WindowsCudaDir)
