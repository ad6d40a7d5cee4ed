"""The facts layer: the one place that reads a snapshot.  Every rule (as `F.name(s)` through
rules/_facts.py, which re-exports this module), renderer, `advise`, `pin`, `readme-line`, the pytest
plugin and the doctor path of env_check.py read facts through these accessors, so they cannot
disagree about which GPU counts, which nvcc is in use or what a cuDNN integer means.

Every field may be missing, null or of the wrong type (a snapshot given to report() directly is not
normalised; one loaded by --from-json or made by collect() is, see contract.py): accessors check
types and return None for unknown, never a guessed value.  Only fields declared in contract.py are
read (tests/unit/contract/test_doctor_readpaths.py fails otherwise).

The single decisions, used everywhere:
  gpus(s)              torch's devices when it lists any (what a program sees), else the driver's
  build_capability(s)  the capability a wheel must serve: the lowest of every GPU in the machine
  nvcc_in_use(s)       the first nvcc candidate that runs and has a toolkit, else the first that runs
  cudnn_tuple(v)       cuDNN's integer (>= 10000: major*10000+minor*100+patch, else major*1000+...)
  recommend_build(s)   the build to install (fix lines and `advise`), install_command(s, build)
  python_cmd(s)        the interpreter as one word quoted for the snapshot's shell
"""

from __future__ import annotations

import re

from torch_envcheck._util import escape
from torch_envcheck import knowledge as kb

# download.pytorch.org serves one index per build variant: /whl/cu130, /whl/cpu, /whl/rocm6.4, /whl/xpu.
INDEX_BASE = "https://download.pytorch.org/whl/"
_TAG_RE = re.compile(r"^(cu\d+|cpu|rocm[\d.]+|xpu)$")


def d(value) -> dict:
    return value if isinstance(value, dict) else {}


def index_tag(local) -> str | None:
    """The download.pytorch.org index of a local version label ('cu130' -> 'cu130'), else None."""
    return local if isinstance(local, str) and _TAG_RE.match(local) else None


def index_url(tag: str) -> str:
    try:
        return kb.index_url(tag)
    except Exception:  # knowledge tables unavailable: the URL scheme is stable
        return INDEX_BASE + tag


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


# ---------------------------------------------------------------- platform

def system(s) -> str | None:
    return text(dig(s, "platform", "system"))


def is_macos(s) -> bool:
    return system(s) == "Darwin"


def wsl(s):
    v = dig(s, "platform", "wsl")
    return v if v in (1, 2) else None


def driver_os(s) -> str:
    """The OS whose driver tables apply: WSL uses the Windows driver."""
    return "Windows" if system(s) == "Windows" or wsl(s) == 2 else "Linux"


def python_version(s) -> str | None:
    return text(dig(s, "platform", "python", "version"))


def python_exe(s) -> str:
    return text(dig(s, "platform", "python", "executable")) or "python"


def python_mm(s) -> str | None:
    """'3.11' from platform.python.version, None when unknown."""
    m = re.match(r"(\d+)\.(\d+)", python_version(s) or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def machine(s) -> str | None:
    return text(dig(s, "platform", "machine"))


def shell(s) -> str:
    """The shell fix commands are written for: the snapshot's OS's (escape.shell_for)."""
    return escape.shell_for(system(s))


def known(s, path: str) -> bool:
    """Whether the fact at a contract path ('torch.importable') is known (present and not null)."""
    return dig(s, *path.split(".")) is not None


def section_known(s, name: str) -> bool:
    return isinstance(dig(s, name), dict)


# ---------------------------------------------------------------- torch

def torch(s) -> dict:
    return as_dict(dig(s, "torch"))


def torch_importable(s) -> bool | None:
    v = torch(s).get("importable")
    return v if isinstance(v, bool) else None


def torch_version(s) -> str | None:
    return text(torch(s).get("version"))


def torch_release(s) -> str | None:
    return kb.release_key(torch_version(s))


def torch_local(s) -> str | None:
    return text(torch(s).get("local")) or kb.local_tag(torch_version(s))


def torch_cuda(s) -> str | None:
    v = torch(s).get("cuda")
    if isinstance(v, (int, float)):
        v = str(v)
    if text(v):
        return v
    tag = torch_local(s)
    return kb.cuda_from_tag(tag) if tag and tag.startswith("cu") else None


def is_cuda_torch(s) -> bool:
    return torch_importable(s) is not False and torch_cuda(s) is not None


def is_rocm_torch(s) -> bool:
    return bool(text(torch(s).get("hip"))) or (torch_local(s) or "").startswith("rocm")


def is_cpu_torch(s) -> bool:
    """Importable torch built without CUDA or ROCm."""
    return torch_importable(s) is True and torch_version(s) is not None and torch_cuda(s) is None \
        and not is_rocm_torch(s)


def torch_label(s) -> str:
    return f"torch {torch_version(s)}" if torch_version(s) else "torch"


def cudnn_tuple(value) -> tuple[int, int, int] | None:
    """torch.backends.cudnn.version() style int (92400 = 9.24.0; 8700 = 8.7.0) or '9.24.0' -> tuple."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (list, tuple)) and len(value) >= 2 and all(isinstance(x, int) for x in value):
        return (value[0], value[1], value[2] if len(value) > 2 else 0)
    if isinstance(value, int):
        # cuDNN 9 switched from major*1000+minor*100+patch (8907) to major*10000+minor*100+patch (92400)
        if value >= 10000:
            return (value // 10000, (value // 100) % 100, value % 100)
        if value >= 1000:
            return (value // 1000, (value // 100) % 10, value % 100)
        return None
    t = kb.version_tuple(value) if isinstance(value, str) else None
    if t and len(t) == 1 and t[0] >= 1000:
        return cudnn_tuple(t[0])
    if t:
        return (t[0], t[1] if len(t) > 1 else 0, t[2] if len(t) > 2 else 0)
    return None


def fmt_version(t) -> str:
    return ".".join(str(x) for x in t) if t else "?"


def cudnn_text(value) -> str | None:
    """'9.24.0' for 92400, '8.9.7' for 8907; None when unknown."""
    t = cudnn_tuple(value)
    return fmt_version(t) if t else None


def cudnn_mm(value) -> str | None:
    """'9.24' for 92400; None when unknown."""
    t = cudnn_tuple(value)
    return f"{t[0]}.{t[1]}" if t else None


def torch_cudnn(s) -> tuple[int, int, int] | None:
    return cudnn_tuple(torch(s).get("cudnn"))


# ---------------------------------------------------------------- driver and GPUs

def driver(s) -> dict:
    return as_dict(dig(s, "driver"))


def driver_present(s) -> bool | None:
    v = driver(s).get("present")
    return v if isinstance(v, bool) else None


def driver_version(s) -> str | None:
    return text(driver(s).get("version"))


def driver_cuda(s) -> str | None:
    return text(driver(s).get("cuda_version"))


def driver_gpus(s) -> list[dict]:
    return [g for g in as_list(driver(s).get("gpus")) if isinstance(g, dict)]


def gpus(s) -> list[dict]:
    """The GPUs with a capability where known: torch's view when it has one (it is what the program
    sees), else the driver's."""
    devs = [d for d in as_list(torch(s).get("devices")) if isinstance(d, dict)]
    return devs or driver_gpus(s)


def gpus_source(s) -> str | None:
    """Whose list gpus(s) is: "torch" or "driver" (None when there is none)."""
    if [d for d in as_list(torch(s).get("devices")) if isinstance(d, dict)]:
        return "torch"
    return "driver" if driver_gpus(s) else None


def gpu_memory_bytes(s, g: dict) -> int | None:
    """A gpus(s) item's memory: torch records bytes, the driver MiB."""
    key = "total_memory_bytes" if gpus_source(s) == "torch" else "memory_total_mib"
    v = g.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        return None
    return v if key == "total_memory_bytes" else v * 2**20


def proof(s, area: str) -> str | None:
    """The observed fact that proves an area's layer works, as "path=value", else None.  A proving
    fact outranks a table (a finding with basis="table"): torch that initialised CUDA and sees its
    GPUs proves the driver runs this torch's CUDA, whatever the driver table says (a data-center GPU
    with NVIDIA's forward-compatibility package); the extension's kernels launching on every device
    proves the GPUs run this build's code."""
    t = torch(s)
    n = t.get("device_count")
    cuda_ok = t.get("cuda_available") is True and isinstance(n, int) and not isinstance(n, bool) and n > 0
    if area == "driver" and cuda_ok:
        return f"torch.cuda_available=True, torch.device_count={n}"
    if area == "gpu" and cuda_ok:
        devs = ext_devices(s)
        if devs and all(d.get("kernel_image") is True for d in devs):
            return "extension.runtime_info.cuda.devices[].kernel_image.available=True"
    return None


def pci_gpus(s) -> list[dict] | None:
    """NVIDIA display/3D devices on the PCI bus (driver.pci_gpus): a GPU is there even when no driver
    is loaded.  None = unknown: not recorded, not readable (Windows, macOS), or WSL 2, whose GPU is
    paravirtualised through /dev/dxg and never shows on the Linux PCI bus."""
    v = driver(s).get("pci_gpus")
    if not isinstance(v, list) or wsl(s) == 2:
        return None
    return [g for g in v if isinstance(g, dict)]


def pci_label(devs: list[dict]) -> str:
    """'an NVIDIA GPU on PCI 0000:01:00.0 (device 0x2684)' / '2 NVIDIA GPUs on PCI (...; ...)'."""
    parts = [f"{text(d.get('bus_id')) or '?'}" + (f" (device {d['device_id']})" if text(d.get("device_id")) else "")
             for d in devs]
    if len(parts) == 1:
        return f"an NVIDIA GPU on PCI {parts[0]}"
    return f"{len(parts)} NVIDIA GPUs on PCI ({'; '.join(parts)})"


def has_nvidia_gpu(s) -> bool:
    return bool(driver_gpus(s)) or bool(pci_gpus(s)) or \
        bool([d for d in as_list(torch(s).get("devices")) if isinstance(d, dict)])


def capability_tuple(cap) -> tuple[int, int] | None:
    return kb.major_minor(cap) if isinstance(cap, str) else None


def capabilities(s) -> list[str]:
    """The known compute capabilities of every GPU in the machine, in device order ('8.0', '12.0'):
    the driver's list (CUDA_VISIBLE_DEVICES hides none of it), else torch's devices."""
    def caps(lst):
        return [c for c in (text(g.get("capability")) for g in lst) if c and capability_tuple(c)]
    return caps(driver_gpus(s)) or caps([d for d in as_list(torch(s).get("devices")) if isinstance(d, dict)])


def build_capability(s) -> str | None:
    """The capability a torch build must serve: the lowest of capabilities(s) (a wheel that covers
    the oldest GPU's architecture is the one the release tables can answer for); None when unknown."""
    caps = capabilities(s)
    return min(caps, key=capability_tuple) if caps else None


def gpu_label(g: dict) -> str:
    name = text(g.get("name")) or f"GPU {g.get('index', '?')}"
    cap = text(g.get("capability"))
    return f"{name} (compute capability {cap})" if cap else name


def arch_list(s) -> list[str]:
    lst = [a for a in as_list(torch(s).get("arch_list")) if isinstance(a, str)]
    if lst:
        return lst
    tag = torch_local(s) or kb.tag_from_cuda(torch_cuda(s))
    if torch_version(s) and tag:
        try:
            return kb.wheel_arch_list(torch_version(s), tag, system(s), text(dig(s, "platform", "machine"))) or []
        except kb.KnowledgeError:
            return []
    return []


# ---------------------------------------------------------------- environment, packages

def env(s, name) -> str | None:
    v = dig(s, "env", name)
    return v if isinstance(v, str) else None


def package(s, name) -> dict:
    return as_dict(dig(s, "packages", name))


def nvidia_packages(s) -> dict:
    return {k: v for k, v in as_dict(dig(s, "packages", "nvidia")).items() if isinstance(v, str)}


def nvidia_package_version(s, prefix: str) -> tuple[str, str] | None:
    """('nvidia-cudnn-cu13', '9.24.0.43') for prefix 'nvidia-cudnn' (with or without -cuXX)."""
    for name, ver in nvidia_packages(s).items():
        if re.fullmatch(re.escape(prefix) + r"(-cu\d+)?", name.lower()):
            return name, ver
    return None


def cvd_hides_all(s) -> bool:
    v = env(s, "CUDA_VISIBLE_DEVICES")
    return v is not None and not v.strip()


def recommend_build(s, capability=None) -> dict | None:
    """THE recommendation (the fix lines of the rules and `advise` both call it): the build to
    install: the installed release if one of its builds fits this driver, GPU and Python, else the
    newest release that does.  `capability` defaults to build_capability(s).  None when nothing fits
    or the tables cannot be read."""
    if capability is None:
        capability = build_capability(s)
    args = dict(driver_cuda=driver_cuda(s), capability=capability, os_name=system(s), driver_os_name=driver_os(s),
                python_version=python_version(s), driver_version=driver_version(s),
                machine=machine(s))
    try:
        kept = keep_installed(s, capability)  # issue 17: never trade a working torch the tables lack
        if kept:
            return kept
        rel = torch_release(s)
        if rel and kb.release(rel):
            same = kb.latest_release_for(torch_release=rel, **args)
            if same:
                return same
        return kb.latest_release_for(**args)
    except kb.KnowledgeError:
        return None


def installed_fits(s, capability=None) -> bool | None:
    """Whether the live facts show the installed CUDA torch running here: True when torch
    initialised CUDA and its binary's kernels cover the GPU (or the extension's kernels launched);
    False when they rule it out (the driver reports an older CUDA major or minor than torch needs,
    torch says the driver is too old, or the binary has no kernels for the GPU); None unknown."""
    tc, dc = kb.major_minor(torch_cuda(s)), kb.major_minor(driver_cuda(s))
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


def keep_installed(s, capability=None) -> dict | None:
    """The installed CUDA torch as the build to recommend when the tables cannot describe it (a
    newer release, a build they do not list) and the live facts do not rule it out
    (knowledge/freshness.py decides; issue 17)."""
    from torch_envcheck.knowledge import freshness  # noqa: PLC0415
    tv = torch_version(s)
    if not tv or (not is_cuda_torch(s) and torch_importable(s) is not False):
        return None  # only a CUDA torch, or one that does not import (its version says which build)
    tag = torch_local(s) or kb.tag_from_cuda(torch_cuda(s))
    return freshness.keep_installed(tv, tag, torch_cuda_any(s), installed_fits(s, capability), capability,
                                    binary_arch_list(s))


def companions_installed(s) -> list[str]:
    return [n for n in ("torchvision", "torchaudio") if text(package(s, n).get("version"))]


def install_command(s, build: dict, companions=True) -> str:
    """The pip command installing `build` (from recommend_build) into this interpreter, quoted for
    the snapshot's shell.  companions: True = the torchvision/torchaudio installed now, or a list."""
    rel = build["torch"]
    tv = torch_version(s)
    spec = rel
    if tv and kb.release_key(tv) == rel:
        # keep the installed release exactly, change only its flavour (a valid PEP 440 version only)
        spec = escape.requirement_version(tv.split("+", 1)[0]) or rel
    names = companions_installed(s) if companions is True else list(companions or ())
    return kb.pip_install_command(python_exe(s), spec, build["tag"], names, shell=shell(s))


def pip_command(s, *args: str) -> str:
    """`<python> -m pip ARGS...` with every word quoted for the snapshot's shell."""
    return escape.shell_join([python_exe(s), "-m", "pip", *args], shell(s))


def python_cmd(s) -> str:
    """This interpreter as one word quoted for the snapshot's shell (`&` prefix not included)."""
    return escape.shell_quote(python_exe(s), shell(s))


def nvcc_candidates(s) -> list[dict]:
    return [c for c in as_list(dig(s, "toolchain", "nvcc")) if isinstance(c, dict)]


def nvcc_in_use(s) -> dict | None:
    """The nvcc a build would use: the first candidate (cpp_extension's lookup order) that runs and
    has a toolkit beside it, else the first that runs; None when none runs."""
    runs = [c for c in nvcc_candidates(s) if text(c.get("version"))]
    return next((c for c in runs if c.get("toolkit_found") is not False), runs[0] if runs else None)


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


def ext_devices(s) -> list[dict]:
    """The extension's per-device facts (runtime_info.cuda.devices[], README "runtime_info fields"),
    normalised: index, name, capability 'X.Y', kernel_image bool|None, kernel_error, cudnn_handle /
    cublas_handle (bool|None) with their status texts."""
    ri = as_dict(dig(s, "extension", "runtime_info"))
    raw = as_list(dig(ri, "cuda", "devices")) or as_list(ri.get("devices"))
    out = []
    for d in raw:
        if not isinstance(d, dict):
            continue
        ki, ch, bh = d.get("kernel_image"), d.get("cudnn_handle"), d.get("cublas_handle")
        out.append({
            "index": d.get("index"), "name": text(d.get("name")),
            "capability": _cap_text(d.get("compute_capability")) or _cap_text(d.get("capability")),
            "kernel_image": _avail(ki), "kernel_error": as_dict(ki).get("error"),
            "cudnn_handle": _avail(ch), "cudnn_status": as_dict(ch).get("status"),
            "cublas_handle": _avail(bh), "cublas_status": as_dict(bh).get("status") or as_dict(bh).get("message"),
        })
    return out


# ---- knowledge additions
# Accessors the knowledge rules added (Jetson, Rosetta, forward compatibility, error 803, the binary's
# arch list, libraries breaking `import torch`).  New snapshot keys read here: platform.rosetta,
# platform.jetson, torch.installed, torch.cuda_warnings, libraries.entries[].libs[].

def container(s) -> str | None:
    return text(dig(s, "platform", "container"))


def rosetta(s) -> bool | None:
    """platform.rosetta: True when this Python runs translated by Rosetta 2 (sysctl.proc_translated)."""
    v = dig(s, "platform", "rosetta")
    return v if isinstance(v, bool) else None


def apple_silicon(s) -> bool | None:
    v = dig(s, "platform", "apple_silicon")
    return v if isinstance(v, bool) else None


def jetson(s) -> dict | None:
    """platform.jetson: {'model', 'l4t'} on a Jetson/Tegra board, None elsewhere or unknown."""
    v = dig(s, "platform", "jetson")
    return v if isinstance(v, dict) else None


def import_error(s) -> str | None:
    return text(torch(s).get("import_error"))


def torch_installed(s) -> bool | None:
    v = torch(s).get("installed")
    return v if isinstance(v, bool) else None


def cuda_available(s) -> bool | None:
    v = torch(s).get("cuda_available")
    return v if isinstance(v, bool) else None


def device_count(s) -> int | None:
    v = torch(s).get("device_count")
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def cuda_works(s) -> bool:
    """A proving fact: torch initialised CUDA and sees at least one GPU.  It outranks any table that
    says the driver cannot run this build (e.g. NVIDIA's forward-compatibility package)."""
    n = device_count(s)
    return torch_importable(s) is True and cuda_available(s) is True and (n is None or n > 0)


def cuda_init_error(s) -> str | None:
    return text(torch(s).get("cuda_init_error"))


def cuda_warnings(s) -> list[str]:
    return [w for w in as_list(torch(s).get("cuda_warnings")) if isinstance(w, str)]


def driver_errors(s) -> list[str]:
    return [e for e in as_list(driver(s).get("errors")) if isinstance(e, str)]


def binary_arch_list(s) -> list[str]:
    """The arch list read from the installed torch binary (torch._C._cuda_getArchFlags()), [] when
    the snapshot has none."""
    return [a for a in as_list(torch(s).get("arch_list")) if isinstance(a, str)]


def arch_list_source(s) -> str | None:
    """'binary' when arch_list() comes from the installed torch, 'table' when from the tables."""
    if binary_arch_list(s):
        return "binary"
    return "table" if arch_list(s) else None


def library_path_var(s) -> str:
    return text(dig(s, "libraries", "search_path_var")) or "LD_LIBRARY_PATH"


def library_entries(s) -> list[dict]:
    """libraries.entries: [{'dir', 'libs': [{'file', 'kind', 'version'}]}] normalised."""
    out = []
    for e in as_list(dig(s, "libraries", "entries")):
        e = as_dict(e)
        d = text(e.get("dir"))
        if not d:
            continue
        libs = [{"file": text(x.get("file")), "kind": (text(x.get("kind")) or "").lower() or None,
                 "version": text(x.get("version"))} for x in as_list(e.get("libs")) if isinstance(x, dict)]
        out.append({"dir": d, "libs": libs})
    return out


def torch_cuda_any(s) -> str | None:
    """torch's CUDA version even when torch does not import (from the wheel's local tag)."""
    v = torch(s).get("cuda")
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = str(v)
    if text(v):
        return v
    tag = torch_local(s)
    return kb.cuda_from_tag(tag) if tag and tag.startswith("cu") else None


def gpu_capabilities(s) -> list[str]:
    return [c for c in (text(g.get("capability")) for g in gpus(s)) if c]


def is_tegra(s) -> bool:
    """A Jetson board: the platform probe says so, or a GPU has a Tegra compute capability."""
    if jetson(s):
        return True
    try:
        return any(kb.is_tegra(c) for c in gpu_capabilities(s))
    except kb.KnowledgeError:
        return False
