"""The snapshot contract: every section and field the probes write and the doctor reads, with its
type, its meaning and whether it may be unknown (null).  One declaration, used three ways:

* `normalise(snapshot)` (called once, by snapshot.validate() on `--from-json` and by collect()):
  an old, partial or hand-edited snapshot becomes one whose every declared field is present, with
  a value of the declared type or None ("unknown").  A missing section becomes None.  Nothing is
  guessed: a wrong type is unknown, never coerced.  What was replaced is listed in the snapshot's
  "normalised" list, so a report says which facts it could not read.
* `violations(snapshot)`: the contract test (tests/unit/contract/test_doctor_contract.py) checks a live snapshot;
* `record_reads(snapshot)` gives a view that records every field read through it; the read-path
  test runs every rule, renderer and command over every recorded snapshot through that view and
  fails when one reads a path `declared()` does not know.

Adding a section (tensorflow, conda, ...) is one entry in SECTIONS:

    SECTIONS["tensorflow"] = {
        "importable": Field(BOOL, "`import tensorflow` worked"),
        "version": Field(STR, "tensorflow.__version__"),
        "gpus": Field(LIST, "tf.config.list_physical_devices('GPU') names", of=STR),
    }

then a probe that writes it (probes/), facts-layer accessors that read it (facts/) and,
when an area is judged from it, its path in that area's judged_by (doctor/areas.py).  Bump CONTRACT_VERSION when a field
changes meaning or type (adding fields or sections does not need it: normalise fills them).

Paths, as `declared()` and the read-path test spell them: "torch.devices[].capability" (an item of
a list), "packages.nvidia.*" (any key of an open map), "platform.python.version" (a nested object).
"""

from __future__ import annotations

from dataclasses import dataclass

CONTRACT_VERSION = 2  # 1: the CONTRACT dict of tests/unit/contract/test_doctor_contract.py; 2: this module

STR, INT, BOOL, FLOAT, LIST, DICT = "str", "int", "bool", "float", "list", "dict"


@dataclass(frozen=True)
class Field:
    """One fact.  kind: STR/INT/BOOL/FLOAT/LIST/DICT (FLOAT accepts an int; INT and FLOAT never a
    bool).  unknown: whether a live probe may write null (normalise always may: an old snapshot
    lacks the field).  fields: the declared keys of a DICT, or of each DICT item of a LIST.
    of: the kind of a LIST's scalar items, or of an open DICT's values (with values_unknown=True
    when those may be null).  opaque: a DICT kept as recorded and shown by --verbose, whose inside
    no rule reads (extension.status.meta)."""
    kind: str
    meaning: str
    unknown: bool = True
    fields: dict | None = None
    of: str | None = None
    values_unknown: bool = False
    opaque: bool = False
    always: bool = True  # a live probe run always writes it (False: only on some OS, e.g. macOS)


def _f(kind, meaning, unknown=True, **kw) -> Field:
    return Field(kind, meaning, unknown, **kw)


_HANDLE = {"ok": _f(BOOL, "the handle was created"), "available": _f(BOOL, "the same, older spelling"),
           "status": _f(STR, "the library's status name"), "status_code": _f(INT, "its status number"),
           "message": _f(STR, "the library's message")}

_LIBRARY = {"path": _f(STR, "the file loaded"), "soname": _f(STR, "its soname"), "loaded": _f(BOOL, "it loaded"),
            "already_loaded": _f(BOOL, "it was mapped before the probe asked"), "error": _f(STR, "why it did not load")}

SECTIONS: dict[str, dict[str, Field]] = {
    "platform": {
        "system": _f(STR, "platform.system(): Linux, Windows or Darwin", unknown=False),
        "release": _f(STR, "platform.release()", unknown=False),
        "machine": _f(STR, "platform.machine(): x86_64, aarch64, arm64, AMD64", unknown=False),
        "os_pretty": _f(STR, "the distribution's name (os-release PRETTY_NAME) or the macOS/Windows name"),
        "wsl": _f(INT, "1 or 2 under WSL, null otherwise"),
        "mac_ver": _f(STR, "platform.mac_ver() release on macOS"),
        "apple_silicon": _f(BOOL, "an arm64 Mac (true even for an x86_64 Python under Rosetta)"),
        "rosetta": _f(BOOL, "macOS: this Python is x86_64 translated by Rosetta on Apple silicon (no MPS)",
                      always=False),
        "container": _f(STR, "docker/podman/... when running in a container"),
        "jetson": _f(DICT, "Linux: an NVIDIA Jetson/Tegra board (L4T's /etc/nv_tegra_release), null elsewhere",
                     always=False, fields={
                         "model": _f(STR, "the board (/proc/device-tree/model)"),
                         "l4t": _f(STR, "the L4T release line (JetPack)")}),
        "python": _f(DICT, "the interpreter the doctor runs in", unknown=False, fields={
            "version": _f(STR, "platform.python_version()", unknown=False),
            "implementation": _f(STR, "CPython, PyPy", unknown=False),
            "executable": _f(STR, "sys.executable: the interpreter fix commands name", unknown=False),
            "prefix": _f(STR, "sys.prefix", unknown=False),
            "base_prefix": _f(STR, "sys.base_prefix", unknown=False),
            "venv": _f(BOOL, "running inside a venv", unknown=False),
            "conda_env": _f(STR, "CONDA_DEFAULT_ENV when in a conda env"),
            "conda_prefix": _f(STR, "CONDA_PREFIX when in a conda env"),
            "bits": _f(INT, "pointer size in bits (32 or 64)"),
            "uv": _f(STR, "the uv version that made this venv (pyvenv.cfg's `uv = X`); null: not made by uv"),
            "pip": _f(BOOL, "pip is installed in this environment (a uv venv has none unless asked)"),
            "user_site": _f(STR, "the user site-packages folder (site.getusersitepackages(), e.g. ~/.local/lib/...)"),
            "user_site_enabled": _f(BOOL, "site.ENABLE_USER_SITE: that folder is on sys.path"),
            "uv_project": _f(STR, "the uv project (pyproject.toml with uv.lock) whose .venv this environment is"),
        }),
        "shell": _f(DICT, "the shell the doctor was started from (probes/shell.py): where fix commands are pasted",
                    always=False, fields={
                        "name": _f(STR, "cmd, powershell or sh; null: not told apart"),
                        "evidence": _f(STR, "what said so: the parent process, PROMPT/PSModulePath, ...")}),
    },
    "torch": {
        "installed": _f(BOOL, "a torch distribution is installed (even if it cannot be imported)"),
        "importable": _f(BOOL, "`import torch` succeeded", unknown=False),
        "import_error": _f(STR, "the exception `import torch` raised"),
        "import_seconds": _f(FLOAT, "how long `import torch` took"),
        "version": _f(STR, "torch.__version__ (from the distribution when not importable)"),
        "local": _f(STR, "its local version label: cu130, cpu, rocm6.4"),
        "cuda": _f(STR, "torch.version.cuda: the CUDA runtime torch was built with"),
        "hip": _f(STR, "torch.version.hip"),
        "cudnn": _f(INT, "torch.backends.cudnn.version() (92400 = 9.24.0; 8907 = 8.9.7)"),
        "cudnn_error": _f(STR, "the error loading cuDNN raised"),
        "arch_list": _f(LIST, "the binary's arch list (torch._C._cuda_getArchFlags())", unknown=False, of=STR),
        "cuda_available": _f(BOOL, "torch.cuda.is_available()"),
        "device_count": _f(INT, "torch.cuda.device_count()"),
        "cuda_init_error": _f(STR, "the error torch.cuda.init() raised"),
        "cuda_warnings": _f(LIST, "warnings torch printed while initialising CUDA", of=STR),
        "numpy_error": _f(STR, "torch's \"Failed to initialize NumPy: ...\" text (null when NumPy loaded): "
                               "tensor.numpy() will fail"),
        "import_process": _f(DICT, "how the child process that imported torch ended", fields={
            "returncode": _f(INT, "its exit status (negative: killed by a signal)"),
            "signal": _f(STR, "the signal that ended it (SIGSEGV, SIGILL, ...)"),
            "timed_out": _f(BOOL, "it was still importing at the time limit and was killed"),
            "limit_s": _f(FLOAT, "that time limit"),
            "seconds": _f(FLOAT, "how long it ran"),
            "stderr_tail": _f(STR, "the end of what it printed on stderr (only when it failed)"),
            "error": _f(STR, "why it could not be started or read"),
            "output_dropped_bytes": _f(INT, "bytes of its output dropped from the middle (it printed more than is "
                                            "kept: the head and the tail)", always=False)}),
        "devices": _f(LIST, "the CUDA devices torch sees", unknown=False, fields={
            "index": _f(INT, "torch's device index", unknown=False),
            "name": _f(STR, "device name", unknown=False),
            "capability": _f(STR, "compute capability 'X.Y'", unknown=False),
            "total_memory_bytes": _f(INT, "device memory", unknown=False),
        }),
        "mps": _f(DICT, "torch.backends.mps", fields={
            "built": _f(BOOL, "torch.backends.mps.is_built()"),
            "available": _f(BOOL, "torch.backends.mps.is_available()"),
        }),
        "mkldnn": _f(BOOL, "torch.backends.mkldnn.is_available()"),
        "cxx11_abi": _f(BOOL, "torch._C._GLIBCXX_USE_CXX11_ABI"),
        "installer": _f(STR, "pip, conda, uv (the distribution's INSTALLER)"),
        "location": _f(STR, "the site-packages torch is installed in"),
        "file": _f(STR, "torch.__file__"),
        "requires_python": _f(STR, "the distribution's Requires-Python"),
        "xpu": _f(DICT, "torch.xpu (Intel GPUs), null when this torch has no torch.xpu", fields={
            "built": _f(BOOL, "torch.xpu._is_compiled(): an XPU build"),
            "available": _f(BOOL, "torch.xpu.is_available()"),
            "device_count": _f(INT, "torch.xpu.device_count()"),
            "devices": _f(LIST, "torch.xpu.get_device_name(i) per device", of=STR),
            "error": _f(STR, "what asking torch.xpu raised")}),
        "xpu_version": _f(STR, "torch.version.xpu (the oneAPI / SYCL it was built with)"),
        "copies": _f(LIST, "every torch distribution on sys.path, in sys.path order (the first is the one imported "
                           "unless a PYTHONPATH folder or the user site holds a torch package without metadata)",
                     fields={"location": _f(STR, "its site-packages", unknown=False),
                             "version": _f(STR, "its version"), "installer": _f(STR, "its INSTALLER")}),
    },
    "packages": {
        "torchvision": _f(DICT, "the torchvision distribution, null when absent", fields={
            "version": _f(STR, "its version with local label"), "installer": _f(STR, "its INSTALLER"),
            "location": _f(STR, "its site-packages")}),
        "torchaudio": _f(DICT, "the torchaudio distribution, null when absent", fields={
            "version": _f(STR, "its version with local label"), "installer": _f(STR, "its INSTALLER"),
            "location": _f(STR, "its site-packages")}),
        "triton": _f(DICT, "the triton distribution, null when absent", fields={
            "version": _f(STR, "its version"), "installer": _f(STR, "its INSTALLER"),
            "location": _f(STR, "its site-packages")}),
        "nvidia": _f(DICT, "installed nvidia-* wheels: name -> version", unknown=False, of=STR),
        # The dependency checker's facts (advice/deps.py): what the frameworks and the CUDA wheels
        # require, and the installed versions of everything those requirements name.
        "requires": _f(LIST, "Requires-Dist of the frameworks' distributions (torch, torchvision, torchaudio, triton, "
                              "TensorFlow and Keras) and of every nvidia-* wheel (at most 100, 200 lines each)",
                       fields={
                           "name": _f(STR, "the distribution (normalised name)", unknown=False),
                           "version": _f(STR, "its installed version"),
                           "requires": _f(LIST, "its Requires-Dist lines, verbatim", of=STR)}),
        "installed": _f(DICT, "installed versions of those distributions and of every distribution their "
                              "Requires-Dist names (normalised name -> version; null: not installed; at most 500)",
                        of=STR, values_unknown=True),
    },
    "driver": {
        "source": _f(STR, "how the driver was read: nvml, nvidia-smi, /proc"),
        "present": _f(BOOL, "an NVIDIA driver is loaded", unknown=False),
        "version": _f(STR, "the driver version, e.g. 580.65.06"),
        "cuda_version": _f(STR, "the newest CUDA the driver supports (nvidia-smi's 'CUDA Version')"),
        "gpus": _f(LIST, "the GPUs the driver lists", unknown=False, fields={
            "index": _f(INT, "the driver's index", unknown=False),
            "name": _f(STR, "GPU name"),
            "capability": _f(STR, "compute capability 'X.Y'"),
            "memory_total_mib": _f(INT, "memory in MiB"),
            "pci_bus_id": _f(STR, "PCI bus id"),
            "uuid": _f(STR, "GPU-... UUID (CUDA_VISIBLE_DEVICES may name it)"),
            "mig_mode": _f(BOOL, "NVML: MIG mode is on (current mode) on this GPU; null: no MIG support or unknown"),
            "mig_devices": _f(LIST, "NVML: the MIG devices of this GPU (null: not read)", fields={
                "index": _f(INT, "the MIG device's index on its GPU"),
                "uuid": _f(STR, "MIG-... UUID (CUDA_VISIBLE_DEVICES names it)"),
                "name": _f(STR, "its name (profile), e.g. NVIDIA A100-SXM4-40GB MIG 1g.5gb"),
                "memory_total_mib": _f(INT, "its memory in MiB")}),
        }),
        "errors": _f(LIST, "what went wrong reading the driver", unknown=False, of=STR),
        "nvidia_smi": _f(STR, "nvidia-smi's path"),
        "pci_gpus": _f(LIST, "NVIDIA display devices on the PCI bus (null: not readable)", fields={
            "bus_id": _f(STR, "PCI address", unknown=False),
            "device_id": _f(STR, "PCI device id"),
            "class": _f(STR, "PCI class", unknown=False),
        }),
    },
    "env": {name: _f(STR, f"the {name} environment variable (null: not set)") for name in (
        "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH",
        "PYTORCH_CUDA_ALLOC_CONF", "TORCH_CUDA_ARCH_LIST", "CUDNN_HOME", "LD_PRELOAD", "CUDA_LAUNCH_BLOCKING",
        "PYTORCH_NVML_BASED_CUDA_CHECK", "HIP_VISIBLE_DEVICES",
        # the NVIDIA Container Toolkit's: which GPUs (void/none: none) and driver parts a container gets
        "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
        # where Python finds packages besides the environment's own (they can shadow its torch)
        "PYTHONPATH", "PYTHONNOUSERSITE",
        # ROCm: the gfx target the runtime pretends an unlisted AMD GPU is
        "HSA_OVERRIDE_GFX_VERSION")},
    # The machine under the environment, read from files (probes/system.py): Linux only, null elsewhere.
    "system": {
        "kernel_modules": _f(LIST, "GPU kernel modules loaded (/proc/modules): nvidia, nvidia_uvm, nvidia_drm, "
                                   "nvidia_modeset, nvidia_peermem, nouveau, amdgpu, i915, xe; null: not readable", of=STR),
        "nvidia_module_version": _f(STR, "/sys/module/nvidia/version: the loaded nvidia module's version"),
        "secure_boot": _f(BOOL, "UEFI Secure Boot is on (efivars SecureBoot-8be4df61-...; false without UEFI)"),
        "dkms": _f(LIST, "DKMS builds of the nvidia module (/var/lib/dkms/nvidia/VERSION/KERNEL/ARCH); null: none",
                   fields={"module": _f(STR, "the module", unknown=False), "version": _f(STR, "its version"),
                           "kernel": _f(STR, "the kernel release it was built for"), "arch": _f(STR, "the CPU"),
                           "built": _f(BOOL, "a built .ko is there")}),
        "nvidia_module_for_kernel": _f(BOOL, "an nvidia.ko exists under /lib/modules/<running kernel>"),
        "nouveau_blacklisted": _f(BOOL, "a modprobe.d file says `blacklist nouveau`"),
        "shm": _f(DICT, "/dev/shm (statvfs)", fields={
            "path": _f(STR, "its path"), "total_bytes": _f(INT, "its size"), "free_bytes": _f(INT, "free space")}),
        "libcuda": _f(LIST, "where the dynamic loader finds libcuda.so.1, in the order it looks (LD_LIBRARY_PATH, "
                            "then ld.so.cache)", fields={
                                "path": _f(STR, "the file", unknown=False),
                                "source": _f(STR, "LD_LIBRARY_PATH or ld.so.cache", unknown=False),
                                "abi": _f(STR, "ld.so.cache's ABI tag (libc6,x86-64)")}),
        "driver_packages": _f(LIST, "NVIDIA driver packages the package manager installed (dpkg, rpm, pacman data); "
                                    "null: no package database readable", fields={
                                        "name": _f(STR, "the package", unknown=False), "version": _f(STR, "its version"),
                                        "manager": _f(STR, "dpkg, rpm or pacman", unknown=False)}),
        "other_gpus": _f(LIST, "AMD and Intel display controllers on the PCI bus", fields={
            "vendor": _f(STR, "amd or intel", unknown=False), "bus_id": _f(STR, "PCI address", unknown=False),
            "device_id": _f(STR, "PCI device id"), "class": _f(STR, "PCI class")}),
        "kfd": _f(BOOL, "/dev/kfd exists (the AMD GPU compute driver ROCm uses)"),
    },
    "libraries": {
        "search_path_var": _f(STR, "LD_LIBRARY_PATH, DYLD_LIBRARY_PATH or PATH", unknown=False),
        "entries": _f(LIST, "folders on that path holding CUDA/cuDNN libraries", unknown=False, fields={
            "dir": _f(STR, "the folder"),
            "libs": _f(LIST, "the libraries in it", fields={
                "file": _f(STR, "file name"), "kind": _f(STR, "cudart, cudnn, cublas, nvjitlink, ..."),
                "version": _f(STR, "version from the file name"),
                "soversion": _f(STR, "the file name's so-version"),
            }),
        }),
    },
    "toolchain": {
        "nvcc": _f(LIST, "nvcc candidates, in the order a build would pick them", unknown=False, fields={
            "path": _f(STR, "nvcc's path", unknown=False),
            "source": _f(STR, "where it was found: CUDA_HOME, PATH, ...", unknown=False),
            "cuda_home": _f(STR, "the toolkit root it belongs to", unknown=False),
            "toolkit_found": _f(BOOL, "a full toolkit (headers, libraries) is beside it", unknown=False),
            "version": _f(STR, "`nvcc --version` release"),
            "error": _f(STR, "why it could not be run"),
        }),
        "cuda_home": _f(DICT, "CUDA_HOME / CUDA_PATH as checked", unknown=False, fields={
            name: _f(DICT, f"{name} as set", fields={"value": _f(STR, "the variable's value"),
                                                     "exists": _f(BOOL, "that folder exists"),
                                                     "has_nvcc": _f(BOOL, "it holds bin/nvcc")})
            for name in ("CUDA_HOME", "CUDA_PATH")}),
        "host_compiler": _f(DICT, "the C++ compiler extensions build with", fields={
            "path": _f(STR, "its path"), "version": _f(STR, "its version line"), "error": _f(STR, "why not")}),
        "ninja": _f(DICT, "ninja", fields={
            "path": _f(STR, "its path"), "version": _f(STR, "its version"), "error": _f(STR, "why not")}),
        "msvc": _f(DICT, "Windows: Microsoft's C++ compiler, which nvcc and torch's extension builds need", always=False,
                   fields={"cl": _f(STR, "cl.exe found on PATH (a developer prompt)"),
                           "vswhere": _f(STR, "the Visual Studio Installer's vswhere.exe, when present"),
                           "installation": _f(STR, "the Visual Studio (or Build Tools) install with the C++ tools"),
                           "vc_tools": _f(BOOL, "an install with the C++ build tools (VC.Tools.x86.x64) was found"),
                           "error": _f(STR, "why vswhere could not say")}),
    },
    "extension": {
        "status": _f(DICT, "torch_envcheck.ext.extension.status()", unknown=False, fields={
            "state": _f(STR, "ok, stale, missing, torch-missing, broken; not-checked: in another env (--all-envs)",
                        unknown=False),
            "mode": _f(STR, "aot or jit"), "path": _f(STR, "the compiled library"),
            "built_against": _f(STR, "the torch it was compiled for"),
            "running_torch": _f(STR, "the torch running now"),
            "running_torch_cuda": _f(STR, "that torch's CUDA"),
            "rebuild_command": _f(STR, "the command that rebuilds it"),
            "error": _f(STR, "why it failed to load"),
            "stale_aot": _f(DICT, "a stale ahead-of-time build shadowed by a JIT one", opaque=True),
            "meta": _f(DICT, "the build's recorded metadata (shown by --verbose)", opaque=True),
        }),
        "build_info": _f(DICT, "torch_envcheck._C.build_info() (shown by --verbose; rules read only the "
                               "fields declared here)", opaque=True, fields={
            "cudnn_headers": _f(DICT, "the cuDNN headers the extension was compiled against", fields={
                "version_int": _f(INT, "CUDNN_VERSION of those headers (same encoding as torch.cudnn)")})}),
        "runtime_info": _f(DICT, "torch_envcheck._C.runtime_info()", fields={
            "available": _f(BOOL, "runtime_info() could be called"),
            "cuda_compiled": _f(BOOL, "the extension has its CUDA part"),
            "driver_present": _f(BOOL, "libcuda could be loaded"),
            "error": _f(STR, "why runtime_info() failed"), "reason": _f(STR, "why it was not called"),
            "extension": _f(DICT, "extension.status() as runtime_info saw it", opaque=True),
            "driver": _f(DICT, "the CUDA driver library as loaded", opaque=True),
            "cudnn": _f(DICT, "the cuDNN this process loaded", fields={
                "version": _f(INT, "cudnnGetVersion() (same encoding as torch.cudnn)"),
                "version_string": _f(STR, "that version as text"),
                "cudart_version": _f(INT, "cudnnGetCudartVersion()"),
                "cudart_version_string": _f(STR, "that version as text"),
                "library": _f(DICT, "the loaded library", fields=_LIBRARY),
                "handle_without_device": _f(DICT, "cudnnCreate before any device is chosen", fields=_HANDLE)}),
            "cublas": _f(DICT, "the cuBLAS this process loaded", fields={
                "version_string": _f(STR, "its version"),
                "library": _f(DICT, "the loaded library", fields=_LIBRARY),
                "handle_without_device": _f(DICT, "cublasCreate before any device is chosen", fields=_HANDLE)}),
            "loaded_libraries": _f(DICT, "files mapped into this process, per library", fields={
                **{name: _f(LIST, f"the {name} files loaded", of=STR)
                   for name in ("libtorch", "c10", "cudart", "cudnn", "cublas", "cuda_driver")},
                "error": _f(STR, "why they could not be listed")}),
            "python": _f(DICT, "torch as the extension sees it", fields={
                "torch_version": _f(STR, "torch.__version__"), "torch_cuda": _f(STR, "torch.version.cuda"),
                "torch_arch_list": _f(LIST, "torch.cuda.get_arch_list()", of=STR),
                "torch_cuda_available": _f(BOOL, "torch.cuda.is_available()"),
                "torch_cuda_initialized": _f(BOOL, "torch.cuda.is_initialized()"),
                "torch_cudnn": _f(INT, "torch.backends.cudnn.version()"),
                "torch_cudnn_error": _f(STR, "what loading cuDNN raised"),
                "error": _f(STR, "why these could not be read")}),
            "cuda": _f(DICT, "CUDA runtime facts", fields={
                "device_count": _f(INT, "cudaGetDeviceCount()"),
                "driver_version": _f(INT, "cudaDriverGetVersion() (13000 = 13.0)"),
                "runtime_version": _f(INT, "cudaRuntimeGetVersion()"),
                "runtime_version_string": _f(STR, "that version as text"),
                "error": _f(DICT, "the CUDA error getting the devices: {code, name, message}", opaque=True),
                "devices": _f(LIST, "per device", fields={
                    "error": _f(STR, "why this device's facts are missing"),
                    "sm_count": _f(INT, "multiprocessor count"),
                    "index": _f(INT, "device index"), "name": _f(STR, "device name"),
                    "compute_capability": _f(DICT, "{major, minor}", fields={
                        "major": _f(INT, "major"), "minor": _f(INT, "minor")}),
                    "capability": _f(STR, "'X.Y' (older spelling)"),
                    "kernel_image": _f(DICT, "a test kernel launched", fields={
                        "available": _f(BOOL, "the kernel image loaded"), "ok": _f(BOOL, "older spelling"),
                        "error": _f(STR, "the CUDA error"),
                        "launch": _f(DICT, "the launch's own result {ok, error}", opaque=True)}),
                    "cudnn_handle": _f(DICT, "cudnnCreate on this device", fields=_HANDLE),
                    "cublas_handle": _f(DICT, "cublasCreate on this device", fields=_HANDLE),
                })}),
            "devices": _f(LIST, "per device (older layout: same fields as cuda.devices)", fields={
                "index": _f(INT, "device index"), "name": _f(STR, "device name"),
                "compute_capability": _f(DICT, "{major, minor}", fields={
                    "major": _f(INT, "major"), "minor": _f(INT, "minor")}),
                "capability": _f(STR, "'X.Y'"),
                "kernel_image": _f(DICT, "a test kernel launched", fields={
                    "available": _f(BOOL, "loaded"), "ok": _f(BOOL, "older spelling"), "error": _f(STR, "error")}),
                "cudnn_handle": _f(DICT, "cudnnCreate", fields=_HANDLE),
                "cublas_handle": _f(DICT, "cublasCreate", fields=_HANDLE)}),
        }),
        "errors": _f(LIST, "what the extension probes raised", unknown=False, of=STR),
    },
    # conda env facts (probes/conda.py): null outside a conda env.  Lists of records, so every path
    # is declared ("conda.packages[].build").
    "conda": {
        "prefix": _f(STR, "the env's prefix: sys.prefix, which holds conda-meta/", unknown=False),
        "env_name": _f(STR, "CONDA_DEFAULT_ENV when it names this env, else the prefix's folder name"),
        "manager": _f(STR, "conda, mamba or micromamba: the program of conda-meta/history's last `# cmd:`"),
        "records": _f(INT, "conda-meta/*.json records counted", unknown=False),
        "records_truncated": _f(BOOL, "more records than the probe looks at (20000)", unknown=False),
        "packages": _f(LIST, "the CUDA-relevant packages' records (pytorch, pytorch-cuda, cpuonly, cudatoolkit, "
                             "cudnn, tensorflow, libstdcxx-ng, _openmp_mutex, ...)", unknown=False, fields={
            "name": _f(STR, "package name (from the record's file name)", unknown=False),
            "version": _f(STR, "version", unknown=False),
            "build": _f(STR, "build string (py3.11_cuda12.1_cudnn8.9.2_0, cpu_mkl_py311h..._100)", unknown=False),
            "build_number": _f(INT, "build number"),
            "channel": _f(STR, "channel as `conda list` names it: pytorch, nvidia, conda-forge, pkgs/main"),
            "channel_url": _f(STR, "the record's channel (or url) as written"),
            "subdir": _f(STR, "linux-64, win-64, noarch, ..."),
            "depends": _f(LIST, "the record's depends (first 200)", of=STR),
            "constrains": _f(LIST, "the record's constrains (first 200)", of=STR),
            "requested_spec": _f(STR, "the spec the user asked for, when conda wrote it"),
            "features": _f(STR, "features (deprecated variant selector)"),
            "file": _f(STR, "the conda-meta file name"),
            "runtime_files": _f(LIST, "for the C++/OpenMP runtime packages: their libstdc++/libgomp/libiomp5/libomp "
                                      "files", of=STR),
        }),
        "requested": _f(LIST, "the specs asked for (conda-meta/history), with what is installed", unknown=False,
                        fields={"name": _f(STR, "package name", unknown=False), "spec": _f(STR, "the spec as asked"),
                                "version": _f(STR, "installed version (null: not installed)"),
                                "build": _f(STR, "installed build string")}),
        "pip": _f(LIST, "distributions in the env's site-packages that conda did not install", unknown=False, fields={
            "name": _f(STR, "normalised distribution name", unknown=False),
            "version": _f(STR, "version from the dist-info folder name", unknown=False),
            "installer": _f(STR, "its INSTALLER file: pip, uv, ... (null: none)"),
            "dist_info": _f(STR, "the dist-info folder name"),
            "runtime_files": _f(LIST, "libstdc++/libgomp/OpenMP libraries its RECORD put into the env (prefix-relative)",
                                of=STR),
        }),
        "pip_truncated": _f(BOOL, "more dist-info folders than the probe looks at (5000)", unknown=False),
        "search_path": _f(LIST, "Windows: the PATH entries that are the env's Library\\bin or hold a CUDA runtime",
                          fields={"index": _f(INT, "position in PATH", unknown=False),
                                  "dir": _f(STR, "the directory", unknown=False),
                                  "kind": _f(STR, "env-library-bin or cuda", unknown=False),
                                  "cuda_version": _f(STR, "the CUDA version of its cudart64_*.dll or folder name")}),
        "errors": _f(LIST, "what could not be read (malformed records, ...)", unknown=False, of=STR),
    },
    # TensorFlow beside torch (probes/tensorflow.py): metadata always; the rest from a child process
    # that imports TensorFlow, only when it is installed and --no-tensorflow is not given.
    "tensorflow": {
        "installed": _f(BOOL, "a distribution providing the `tensorflow` module is installed", unknown=False),
        "distribution": _f(STR, "which one: tensorflow, tensorflow-cpu, tensorflow-intel, tensorflow-macos, tf-nightly, ..."),
        "version": _f(STR, "tf.__version__ (from the distribution when not imported)"),
        "distributions": _f(DICT, "installed TensorFlow/Keras distributions: name -> version", unknown=False, of=STR),
        "extras": _f(LIST, "the distribution's Provides-Extra (and-cuda from TF 2.14 on)", unknown=False, of=STR),
        "and_cuda": _f(LIST, "the nvidia-* wheels of its and-cuda extra, from its Requires-Dist", unknown=False, fields={
            "name": _f(STR, "the wheel: nvidia-cudnn-cu12"), "specifier": _f(STR, "its version range: <10.0,>=9.3.0.75"),
            "extra": _f(STR, "and-cuda"), "applies": _f(BOOL, "its environment marker holds here"),
            "requirement": _f(STR, "the Requires-Dist line"), "installed": _f(STR, "the installed version, null when absent")}),
        "requires": _f(DICT, "what each framework's distributions require of numpy and protobuf", unknown=False, fields={
            dep: _f(LIST, f"the Requires-Dist entries naming {dep}", fields={
                "framework": _f(STR, "tensorflow or torch"), "distribution": _f(STR, "who requires it"),
                "version": _f(STR, "that distribution's version"), "specifier": _f(STR, "the range ('' = any)"),
                "applies": _f(BOOL, "its environment marker holds here")})
            for dep in ("numpy", "protobuf")}),
        "dependency_versions": _f(DICT, "installed numpy and protobuf", unknown=False, fields={
            "numpy": _f(STR, "numpy's version"), "protobuf": _f(STR, "protobuf's version")}),
        "installer": _f(STR, "pip, uv, conda", always=False),
        "location": _f(STR, "its site-packages", always=False),
        "requires_python": _f(STR, "its Requires-Python", always=False),
        "child": _f(DICT, "the child process that imported TensorFlow", unknown=False, fields={
            "ran": _f(BOOL, "it ran"), "skipped": _f(STR, "why not: not installed, --no-tensorflow"),
            "seconds": _f(FLOAT, "how long it ran"), "returncode": _f(INT, "its exit status"),
            "error": _f(STR, "why it gave no result (timed out, died)"), "timed_out": _f(BOOL, "killed at the limit"),
            "timeout": _f(FLOAT, "that limit"),
            "output_dropped_bytes": _f(INT, "bytes of its output dropped from the middle (it printed more than is "
                                            "kept: the head and the tail)", always=False)}),
        "log": _f(DICT, "what TensorFlow logged while loading (stderr, TF_CPP_MIN_LOG_LEVEL=0)", always=False, fields={
            "dlopen_failures": _f(LIST, "each \"Could not load dynamic library '...'\"", fields={
                "library": _f(STR, "the file: cudart64_110.dll, libcudnn.so.9"), "kind": _f(STR, "cudart, cudnn, cublas, ..."),
                "version": _f(STR, "the version its name carries: 11.0, 8, 12"), "dlerror": _f(STR, "the loader's message")}),
            "cannot_dlopen_gpu_libraries": _f(BOOL, "\"Cannot dlopen some GPU libraries\" was logged"),
            "no_cuda_drivers": _f(BOOL, "\"Could not find cuda drivers on your machine\" was logged"),
            "cuinit_failed": _f(BOOL, "\"failed call to cuInit\" was logged"),
            "skipping_gpu_registration": _f(BOOL, "\"Skipping registering GPU devices\" was logged"),
            "lines": _f(LIST, "the GPU-related lines, verbatim (at most 40)", of=STR)}),
        "import_error": _f(STR, "the exception `import tensorflow` raised", always=False),
        "importable": _f(BOOL, "`import tensorflow` worked in the child", always=False),
        "import_seconds": _f(FLOAT, "how long that import took", always=False),
        "build_info": _f(DICT, "tf.sysconfig.get_build_info()", always=False, fields={
            "cuda_version": _f(STR, "CUDA it was built with: 12.5.1; on Windows the DLL suffix: 64_112 = 11.2"),
            "cudnn_version": _f(STR, "cuDNN: 9; on Windows 64_8 = 8"),
            "cuda_compute_capabilities": _f(LIST, "sm_60 ... compute_90 (older: 3.5, 7.0)", of=STR),
            "is_cuda_build": _f(BOOL, "a CUDA build"), "is_rocm_build": _f(BOOL, "a ROCm build"),
            "is_tensorrt_build": _f(BOOL, "built with TensorRT"), "cpu_compiler": _f(STR, "clang, ..."),
            "msvcp_dll_names": _f(STR, "Windows: the MSVC runtime DLLs"),
            "cudart_dll_name": _f(STR, "Windows: cudart64_110.dll"), "cudnn_dll_name": _f(STR, "Windows: cudnn64_8.dll"),
            "nvcuda_dll_name": _f(STR, "Windows: nvcuda.dll")}),
        "build_info_error": _f(STR, "what get_build_info() raised", always=False),
        "gpus": _f(LIST, "tf.config.list_physical_devices('GPU')", always=False, fields={
            "name": _f(STR, "/physical_device:GPU:0"), "device_type": _f(STR, "GPU"),
            "device_name": _f(STR, "the GPU's name (get_device_details)"),
            "capability": _f(STR, "its compute capability 'X.Y'")}),
        "gpus_error": _f(STR, "what list_physical_devices raised", always=False),
    },
    # Every installed distribution's RECORD (probes/file_owners.py): files two of them both install.
    "file_owners": {
        "distributions": _f(INT, "distributions read (each .dist-info with a RECORD, once)", unknown=False),
        "files": _f(INT, "RECORD lines read", unknown=False),
        "shared_files_differing": _f(INT, "files two distributions own with different hashes", unknown=False),
        "shared_files_identical": _f(INT, "files two distributions own with the same hash", unknown=False),
        "pairs": _f(LIST, "per pair of distributions sharing files (at most 100)", unknown=False, fields={
            "distributions": _f(LIST, "the two, as name==version", of=STR), "files": _f(INT, "files both own"),
            "differing": _f(INT, "of those, with different content"),
            "examples": _f(LIST, "up to 5 of those files, differing shared libraries first", fields={
                "path": _f(STR, "relative to site-packages"), "same_content": _f(BOOL, "the hashes agree")}),
            "location": _f(STR, "the site-packages of the second one")}),
        "pairs_total": _f(INT, "pairs found (also beyond the 100 kept)", unknown=False),
        "lines_skipped": _f(INT, "RECORD lines skipped: longer than any path, or unreadable as CSV", unknown=False,
                            always=False),
        "truncated": _f(BOOL, "a bound was reached (5000 distributions, 1,000,000 files in all, or 100 pairs)",
                        unknown=False),
    },
}

# Top-level fields besides the sections.
TOP: dict[str, Field] = {
    "schema": _f(STR, "torch_envcheck.snapshot/1", unknown=False),
    "created": _f(STR, "when the snapshot was taken (ISO 8601, UTC)"),
    "tool_version": _f(STR, "the torch_envcheck that took it"),
    "probe_errors": _f(DICT, "probe name -> the exception it raised", unknown=False, of=STR),
    "probe_seconds": _f(DICT, "probe name -> seconds it took", unknown=False, of=FLOAT),
    "normalised": _f(LIST, "facts normalise() replaced by unknown ('torch.cudnn: expected int, got str')",
                     unknown=False, of=STR),
    # not a fact of the machine: what the person running the doctor asked for (--framework, --shell),
    # kept in the snapshot so that a saved report is judged again the same way
    "request": _f(DICT, "what was asked for on the command line", fields={
        "frameworks": _f(LIST, "--framework: torch and/or tensorflow (empty: those the env holds)", of=STR),
        "shell": _f(STR, "--shell: cmd, powershell or sh (null: the detected shell)")}),
}


def _kind_ok(kind: str, value) -> bool:
    if kind == STR:
        return isinstance(value, str)
    if kind == BOOL:
        return isinstance(value, bool)
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == FLOAT:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == LIST:
        return isinstance(value, list)
    if kind == DICT:
        return isinstance(value, dict)
    raise ValueError(f"unknown kind {kind!r}")


def kind_ok(kind: str, value) -> bool:
    """Whether `value` is of a declared kind (STR, INT, ...): how the facts layer's records read a field."""
    return _kind_ok(kind, value)


def _type_name(value) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "int", float: "float"}.get(
        type(value), type(value).__name__)


def _norm_value(spec: Field, value, path: str, notes: list):
    """The value, checked against spec: the value itself, a cleaned copy, or None (unknown)."""
    if value is None:
        return None
    if not _kind_ok(spec.kind, value):
        notes.append(f"{path}: expected {spec.kind}, got {_type_name(value)}")
        return None
    if spec.kind == LIST:
        out = []
        for i, item in enumerate(value):
            if spec.fields is not None:
                if not isinstance(item, dict):
                    notes.append(f"{path}[{i}]: expected object, got {_type_name(item)}; dropped")
                    continue
                out.append(_norm_fields(spec.fields, item, f"{path}[]", notes, keep_unknown=True))
            elif spec.of is not None:
                if not _kind_ok(spec.of, item):
                    notes.append(f"{path}[{i}]: expected {spec.of}, got {_type_name(item)}; dropped")
                    continue
                out.append(item)
            else:
                out.append(item)
        return out
    if spec.kind == DICT:
        if spec.opaque:
            return value
        if spec.fields is not None:
            return _norm_fields(spec.fields, value, path, notes, keep_unknown=True)
        if spec.of is not None:
            out = {}
            for k, v in value.items():
                if v is None and spec.values_unknown:
                    out[k] = None
                elif _kind_ok(spec.of, v):
                    out[k] = v
                else:
                    notes.append(f"{path}.{k}: expected {spec.of}, got {_type_name(v)}; dropped")
            return out
    return value


def _norm_fields(fields: dict, obj: dict, path: str, notes: list, keep_unknown: bool) -> dict:
    out = {k: v for k, v in obj.items() if k not in fields} if keep_unknown else {}
    for name, spec in fields.items():
        out[name] = _norm_value(spec, obj.get(name), f"{path}.{name}" if path else name, notes)
    return out


def normalise(snapshot: dict) -> dict:
    """A new snapshot in which every declared section and field is present: its value when it has
    the declared type, else None (unknown).  Undeclared keys are kept as they are (a newer tool may
    have written them); only declared facts are read.  Idempotent: normalise(normalise(s)) == normalise(s)."""
    notes: list = []
    out = {k: v for k, v in snapshot.items() if k not in SECTIONS and k not in TOP}
    for name, spec in TOP.items():
        if name == "normalised":
            continue
        raw = snapshot.get(name)
        if raw is None and spec.kind == DICT and spec.fields:
            raw = {}  # a declared object is normalised field by field even when absent (idempotent)
        value = _norm_value(spec, raw, name, notes)
        out[name] = {} if value is None and spec.kind == DICT else value
    for section, fields in SECTIONS.items():
        value = snapshot.get(section)
        if value is None:
            out[section] = None
        elif not isinstance(value, dict):
            notes.append(f"{section}: expected object, got {_type_name(value)}")
            out[section] = None
        else:
            out[section] = _norm_fields(fields, value, section, notes, keep_unknown=True)
    previous = snapshot.get("normalised")
    kept = [n for n in previous if isinstance(n, str)] if isinstance(previous, list) else []
    out["normalised"] = kept + [n for n in notes if n not in kept]
    return out


# ---------------------------------------------------------------- declared paths

def _walk(fields: dict, prefix: str, acc: set) -> None:
    for name, spec in fields.items():
        path = f"{prefix}.{name}" if prefix else name
        acc.add(path)
        if spec.kind == LIST:
            acc.add(path + "[]")
            if spec.fields:
                _walk(spec.fields, path + "[]", acc)
        elif spec.kind == DICT:
            if spec.fields:
                _walk(spec.fields, path, acc)
            elif spec.of is not None:
                acc.add(path + ".*")


def declared_paths() -> frozenset:
    """Every declared path ("torch.devices[].capability", "packages.nvidia.*", ...)."""
    acc: set = set()
    _walk(TOP, "", acc)
    for section, fields in SECTIONS.items():
        acc.add(section)
        _walk(fields, section, acc)
    return frozenset(acc)


def declared(path: str) -> bool:
    return path in declared_paths()


def field(path: str) -> Field | None:
    """The Field declared at `path` (None for a section or an undeclared path)."""
    parts = path.replace("[]", "").split(".")
    table: dict | None = SECTIONS.get(parts[0]) if parts[0] in SECTIONS else TOP
    spec = None
    for part in parts[1:] if parts[0] in SECTIONS else parts:
        if table is None or part not in table:
            return None
        spec = table[part]
        table = spec.fields
    return spec


# ---------------------------------------------------------------- recording view

class _RecDict(dict):
    """A dict that records each key read through get/[]/in as a contract path.  Iteration
    (items(), values(), json.dumps) is a dump, not a fact read, and is not recorded."""

    def __init__(self, data, path, log):
        super().__init__(data)
        self._path, self._log = path, log

    def _sub(self, key) -> str:
        if self._path in _OPEN:
            return f"{self._path}.*"
        return f"{self._path}.{key}" if self._path else str(key)

    def _wrap(self, key, value):
        return _wrap(value, self._sub(key), self._log)

    def __getitem__(self, key):
        self._log.add(self._sub(key))
        return self._wrap(key, super().__getitem__(key))

    def get(self, key, default=None):
        self._log.add(self._sub(key))
        return self._wrap(key, super().get(key, default)) if key in self.keys() else default

    def __contains__(self, key):
        self._log.add(self._sub(key))
        return super().__contains__(key)


class _RecList(list):
    def __init__(self, data, path, log):
        super().__init__(_wrap(v, path + "[]", log) for v in data)


_OPEN: set = set()


def _wrap(value, path, log):
    if isinstance(value, dict) and not isinstance(value, _RecDict):
        return _RecDict(value, path, log)
    if isinstance(value, list) and not isinstance(value, _RecList):
        return _RecList(value, path, log)
    return value


def _open_maps() -> set:
    acc = set()

    def walk(fields, prefix):
        for name, spec in fields.items():
            path = f"{prefix}.{name}" if prefix else name
            if spec.kind == DICT and spec.fields is None and spec.of is not None:
                acc.add(path)
            if spec.fields:
                walk(spec.fields, path + ("[]" if spec.kind == LIST else ""))
    walk(TOP, "")
    for section, fields in SECTIONS.items():
        walk(fields, section)
    return acc


_OPEN.update(_open_maps())


def record_reads(snapshot: dict) -> tuple[dict, set]:
    """(view, reads): `view` behaves like `snapshot` (a dict subclass) and adds to `reads` the
    contract path of every key looked up through it, at any depth."""
    reads: set = set()
    return _RecDict(snapshot, "", reads), reads


def undeclared(reads) -> list[str]:
    """The recorded paths the contract does not declare (list items of opaque dicts included)."""
    known = declared_paths()
    return sorted(p for p in reads if p not in known)


# ---------------------------------------------------------------- checking a live snapshot

def _check_fields(fields: dict, obj: dict, path: str, out: list, depth: int = 0) -> None:
    for name, spec in fields.items():
        where = f"{path}.{name}" if path else name
        if name not in obj:
            # a section's own fields are always written (null when unknown); deeper, only the
            # always-known ones (runtime_info keeps older layouts side by side)
            if spec.always and (depth <= 1 or not spec.unknown):
                out.append(f"{where}: missing")
            continue
        value = obj[name]
        if value is None:
            if not spec.unknown:
                out.append(f"{where}: null, but the contract says it is always known")
            continue
        if not _kind_ok(spec.kind, value):
            out.append(f"{where}: {_type_name(value)}, expected {spec.kind}")
            continue
        if spec.kind == LIST:
            for i, item in enumerate(value):
                if spec.fields is not None:
                    if isinstance(item, dict):
                        _check_fields(spec.fields, item, f"{where}[{i}]", out, depth + 1)
                    else:
                        out.append(f"{where}[{i}]: {_type_name(item)}, expected object")
                elif spec.of is not None and not _kind_ok(spec.of, item):
                    out.append(f"{where}[{i}]: {_type_name(item)}, expected {spec.of}")
        elif spec.kind == DICT and not spec.opaque:
            if spec.fields is not None:
                _check_fields(spec.fields, value, where, out, depth + 1)
            elif spec.of is not None:
                out.extend(f"{where}.{k}: {_type_name(v)}, expected {spec.of}" for k, v in value.items()
                           if not (v is None and spec.values_unknown) and not _kind_ok(spec.of, v))


def violations(snapshot: dict) -> list[str]:
    """How a snapshot a probe run just wrote breaks the contract (missing fields, a null where the
    contract says the fact is always known, wrong types); [] when it honours it.  Sections that are
    null (their probe did not run) are not checked inside."""
    out: list = []
    _check_fields({k: v for k, v in TOP.items() if k != "normalised"}, snapshot, "", out)
    for section, fields in SECTIONS.items():
        value = snapshot.get(section, ...)
        if value is ...:
            out.append(f"{section}: missing")
        elif isinstance(value, dict):
            _check_fields(fields, value, section, out, 1)
        elif value is not None:
            out.append(f"{section}: {_type_name(value)}, expected object or null")
    return out


def undeclared_keys(snapshot: dict) -> list[str]:
    """Keys a snapshot holds that the contract does not declare (inside opaque objects not
    checked): a probe that writes a new fact must declare it here first."""
    known = declared_paths()
    extra: set = set()

    def walk(value, path):
        if isinstance(value, dict):
            for key, item in value.items():
                sub = f"{path}.*" if path in _OPEN else (f"{path}.{key}" if path else str(key))
                if sub not in known:
                    extra.add(sub)
                    continue
                spec = field(sub) if sub.split(".")[0] in SECTIONS else None
                if spec is None or not spec.opaque:
                    walk(item, sub)
        elif isinstance(value, list):
            for item in value:
                walk(item, path + "[]")
    walk(snapshot, "")
    return sorted(extra)
