"""What the doctor knows about the stack: minimum drivers per CUDA version, PyTorch releases with their
CUDA builds, arch lists, cuDNN and Python ranges.

The facts live in versioned JSON tables (torch_envcheck/knowledge/data/*.json, every row naming its source);
this module only loads them (lazily, once) and answers questions.  Used by the rules and by the
`advise` command.  Pure Python: no torch import.
"""

from __future__ import annotations

import functools
import json
import os
import re

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
DRIVERS_FILE = "cuda_drivers.json"
RELEASES_FILE = "torch_releases.json"
CAPABILITIES_FILE = "cuda_capabilities.json"


class KnowledgeError(RuntimeError):
    """A data table is missing or malformed (a packaging bug, not a user error)."""


@functools.lru_cache(maxsize=None)
def load_table(name: str) -> dict:
    path = os.path.join(DATA_DIR, name)
    try:
        with open(path, encoding="utf-8") as fh:
            table = json.load(fh)
    except (OSError, ValueError) as exc:
        raise KnowledgeError(f"cannot read the knowledge table {path}: {exc}") from exc
    if not isinstance(table, dict) or "schema_version" not in table:
        raise KnowledgeError(f"{path} is not a torch_envcheck knowledge table (no schema_version)")
    # issue 17: rows learned by `torch-envcheck knowledge update` (a dated overlay in the user's
    # cache) are preferred over the shipped rows; without an overlay the shipped table is returned.
    from torch_envcheck.knowledge import overlay  # noqa: PLC0415
    return overlay.apply(name, table)


def clear_caches() -> None:
    """Forget the loaded tables (after `knowledge update` wrote a new overlay, or in tests)."""
    for fn in (load_table, _releases_sorted, _release_by_key):
        fn.cache_clear()


# ---------------------------------------------------------------- version helpers

def version_tuple(text) -> tuple[int, ...] | None:
    """'580.65.06' -> (580, 65, 6); '2.14.1+cu130' -> (2, 14, 1); '2.15.0.dev20260101' -> (2, 15, 0);
    junk -> None.  PEP 440 versions are parsed by `packaging` (a declared dependency, pure Python),
    imported here rather than at the top so the doctor still runs where it is missing (a broken
    environment, a source checkout on PYTHONPATH); then, like any string packaging rejects (a
    driver's '535.104.05-1ubuntu'), the leading dotted number is taken."""
    if text is None or isinstance(text, bool):
        return None
    return _parse_version(str(text).strip()[:64])


# The rules parse the same few strings (the tables' CUDA versions, the snapshot's) hundreds of times
# per report; bounded, so a report full of distinct strings cannot grow it.
@functools.lru_cache(maxsize=4096)
def _parse_version(text: str) -> tuple[int, ...] | None:
    try:
        from packaging.version import InvalidVersion, Version  # noqa: PLC0415
    except ImportError:
        Version = None
    if Version is not None:
        try:
            return tuple(Version(text).release)
        except InvalidVersion:
            pass
    m = re.match(r"(\d+(?:\.\d+)*)", text)
    if not m:
        return None
    return tuple(int(p) for p in m.group(1).split("."))


def major_minor(text) -> tuple[int, int] | None:
    t = version_tuple(text)
    if not t:
        return None
    return (t[0], t[1] if len(t) > 1 else 0)


def release_key(torch_version) -> str | None:
    """'2.14.1+cu130' -> '2.14'."""
    mm = major_minor(torch_version)
    return f"{mm[0]}.{mm[1]}" if mm else None


def cuda_from_tag(tag: str | None) -> str | None:
    """'cu130' -> '13.0', 'cu118' -> '11.8'; anything else -> None."""
    m = re.fullmatch(r"cu(\d+)(\d)", tag or "")
    return f"{int(m.group(1))}.{m.group(2)}" if m else None


def tag_from_cuda(cuda: str | None) -> str | None:
    mm = major_minor(cuda)
    return f"cu{mm[0]}{mm[1]}" if mm else None


def local_tag(version: str | None) -> str | None:
    """The local version label of a wheel: '0.29.1+cu130' -> 'cu130'; no label -> None."""
    if not version or "+" not in str(version):
        return None
    return str(version).split("+", 1)[1].strip().lower() or None


def _os_column(os_name: str | None) -> str:
    return "windows" if (os_name or "").lower().startswith("win") else "linux"


# ---------------------------------------------------------------- drivers

def min_driver_for_cuda(cuda, os_name: str | None = "Linux") -> dict | None:
    """The drivers a CUDA runtime version needs on this OS (WSL counts as Windows: the driver is
    the Windows one).  {'cuda', 'toolkit_minimum', 'compat_floor', 'unverified', 'source'}; either
    value may be None when the tables do not know it.  None for an unparseable version."""
    mm = major_minor(cuda)
    if mm is None:
        return None
    table = load_table(DRIVERS_FILE)
    col = _os_column(os_name)
    floor = next((r for r in table["compat_floors"] if r["cuda_major"] == mm[0]), None)
    exact = next((r for r in table["toolkit_minimums"] if major_minor(r["cuda"]) == mm), None)
    if exact is None:
        # An unlisted minor (e.g. 12.7): the nearest listed lower minor of the same major is a
        # lower bound of the real requirement, never an overstatement.
        lower = [r for r in table["toolkit_minimums"]
                 if major_minor(r["cuda"])[0] == mm[0] and major_minor(r["cuda"]) < mm]
        exact = max(lower, key=lambda r: major_minor(r["cuda"])) if lower else None
    return {
        "cuda": f"{mm[0]}.{mm[1]}",
        "toolkit_minimum": exact[col] if exact else None,
        "toolkit_minimum_for": exact["cuda"] if exact else None,
        "compat_floor": floor[col] if floor else None,
        "unverified": bool((exact or {}).get("unverified", True)) if exact else True,
        "source": table["sources"].get((exact or floor or {}).get("source", ""), None),
    }


def driver_supports(driver_version, cuda, os_name: str | None = "Linux") -> str | None:
    """'toolkit' when the driver meets the toolkit's own minimum, 'compat' when it only meets the
    minor-version-compatibility floor, 'no' when it is below both, None when unknown."""
    dv = version_tuple(driver_version)
    need = min_driver_for_cuda(cuda, os_name)
    if dv is None or need is None:
        return None
    exact = need["toolkit_minimum_for"] is not None and major_minor(need["toolkit_minimum_for"]) == major_minor(cuda)
    if exact and need["toolkit_minimum"] and dv >= version_tuple(need["toolkit_minimum"]):
        return "toolkit"
    if need["compat_floor"] and dv >= version_tuple(need["compat_floor"]):
        return "compat"
    if need["compat_floor"] is None and need["toolkit_minimum"] is None:
        return None
    return "no"


# ---------------------------------------------------------------- releases and arch lists

@functools.lru_cache(maxsize=None)
def _releases_sorted() -> tuple:
    return tuple(sorted(load_table(RELEASES_FILE)["releases"], key=lambda r: version_tuple(r["torch"])))


def releases() -> list[dict]:
    """All known releases, oldest first (shared rows: do not modify them)."""
    return list(_releases_sorted())


@functools.lru_cache(maxsize=256)
def _release_by_key(key: str | None) -> dict | None:
    return next((r for r in _releases_sorted() if r["torch"] == key), None)


def release(torch_version) -> dict | None:
    return _release_by_key(release_key(torch_version))


def latest_known_release() -> str:
    return releases()[-1]["torch"]


def index_url(tag: str) -> str:
    return load_table(RELEASES_FILE)["index_url_template"].format(tag=tag)


def parse_arch_list(spec: str, os_name: str | None = "Linux") -> list[str]:
    """TORCH_CUDA_ARCH_LIST syntax -> torch.cuda.get_arch_list() syntax:
    '8.6;12.0+PTX' -> ['sm_86', 'sm_120', 'compute_120'].  PTX only on Linux builds."""
    out: list[str] = []
    for item in re.split(r"[;\s]+", spec.strip()):
        if not item:
            continue
        ptx = item.upper().endswith("+PTX")
        cc = item[:-4] if ptx else item
        mm = major_minor(cc)
        if mm is None:
            continue
        out.append(f"sm_{mm[0]}{mm[1]}")
        if ptx and _os_column(os_name) == "linux":
            out.append(f"compute_{mm[0]}{mm[1]}")
    return out


def _is_arm(machine: str | None) -> bool:
    return (machine or "").lower() in ("aarch64", "arm64")


def build_arch_list(build: dict, os_name: str | None = "Linux", machine: str | None = None) -> list[str] | None:
    """A build's arch list for this OS and CPU.  Linux aarch64 wheels have their own lists
    ('arch_list_linux_aarch64'); where the table has none for them, None (= unknown), never the
    x86_64 list."""
    if _is_arm(machine) and _os_column(os_name) == "linux":
        spec = build.get("arch_list_linux_aarch64")
        return parse_arch_list(spec, os_name) if spec else None
    spec = build.get("arch_list")  # None for a build learned from a package index (no binary read)
    return parse_arch_list(spec, os_name) if spec else None


_PLATFORM_KEYS = {("linux", False): "linux_x86_64", ("linux", True): "linux_aarch64", ("windows", False): "win_amd64"}


def build_on_platform(build: dict, os_name: str | None = "Linux", machine: str | None = None) -> bool:
    """Whether a build exists for this OS and CPU.  A build row with 'platforms' (issue 17: e.g. 2.15
    cu132, seen for Linux x86_64 and aarch64 only) is never offered elsewhere; without it every
    build is assumed to exist on Linux and Windows, as before."""
    plats = build.get("platforms")
    if not isinstance(plats, list):
        return True
    col = _os_column(os_name)
    if col == "linux" and not machine:
        return any(str(p).startswith("linux_") for p in plats)
    return _PLATFORM_KEYS.get((col, _is_arm(machine))) in plats


def wheel_arch_list(torch_version, cuda_tag: str, os_name: str | None = "Linux",
                    machine: str | None = None) -> list[str] | None:
    rel = release(torch_version)
    if rel is None:
        return None
    build = next((b for b in rel["builds"] if b["tag"] == cuda_tag), None)
    return build_arch_list(build, os_name, machine) if build else None


def python_range(torch_version) -> tuple[str, str] | None:
    """(min, max) Python minor versions with wheels for a release ('experimental' ones included:
    wheels are published for them)."""
    rel = release(torch_version)
    if rel is None or not rel.get("python_min") or not rel.get("python_max"):
        return None  # (an overlay row learned without wheels to read the range from)
    hi = rel.get("python_experimental") or rel["python_max"]
    if version_tuple(rel["python_max"]) > version_tuple(hi):
        hi = rel["python_max"]
    return rel["python_min"], hi


def python_supported(torch_version, python_version) -> bool | None:
    rng = python_range(torch_version)
    py = major_minor(python_version)
    if rng is None or py is None:
        return None
    return major_minor(rng[0]) <= py <= major_minor(rng[1])


def _arch_entries(arch_list) -> list[tuple[str, tuple[int, int]]]:
    out = []
    for a in arch_list or []:
        m = re.fullmatch(r"(sm|compute)_(\d+?)(\d)([af]?)", str(a).strip())
        if m:
            out.append((m.group(1) + (m.group(4) and "_" + m.group(4)), (int(m.group(2)), int(m.group(3))), ))
    return out


def _cc_text(v: tuple[int, int]) -> str:
    return f"{v[0]}.{v[1]}"


def _requirement(code: tuple[int, int], build_cuda=None) -> dict | None:
    """The device requirement of SASS built for `code` (cuda_capabilities.json, torch's own table):
    builds with CUDA >= 13.2 use the rows where SBSA binaries also run on Jetson."""
    table = load_table(CAPABILITIES_FILE)
    key = _cc_text(code)
    bc = major_minor(build_cuda)
    if bc is not None and bc >= (13, 2) and key in table["device_requirement_from_cuda_13_2"]:
        return table["device_requirement_from_cuda_13_2"][key]
    return table["device_requirement"].get(key)


def sass_runs_on(code, device, build_cuda=None) -> bool:
    """Whether SASS sm_XY (code 'X.Y' or (X, Y)) runs on a GPU of capability `device`, by the rule
    torch checks GPUs with (pytorch/pytorch torch/cuda/__init__.py, DEVICE_REQUIREMENT): the same
    major with an equal or higher minor, except that discrete-GPU code does not run on the Jetson
    (Tegra) GPUs 5.3, 6.2, 7.2, 8.7 and Jetson code only on its own GPU (10.1 and 11.0 are one GPU,
    renamed).  A code torch's table does not list gets the same-major interval, as torch does."""
    c = code if isinstance(code, tuple) else major_minor(code)
    d = device if isinstance(device, tuple) else major_minor(device)
    if c is None or d is None:
        return False
    req = _requirement(c, build_cuda)
    if req is None:
        return d[0] == c[0] and d[1] >= c[1]
    dt = _cc_text(d)
    if "set" in req:
        return dt in req["set"]
    lo = major_minor(req["interval"])
    return d[0] == lo[0] and d[1] >= lo[1] and dt not in req.get("exclude", ())


def is_tegra(capability) -> bool:
    """A Jetson/Tegra (integrated) GPU's compute capability (cuda_capabilities.json)."""
    mm = major_minor(capability)
    return mm is not None and _cc_text(mm) in load_table(CAPABILITIES_FILE)["tegra_capabilities"]


def cudnn_min_capability(cudnn_version) -> str | None:
    """The smallest compute capability a cuDNN release supports: the row of
    cudnn_min_capability_by_version with the greatest cuDNN not above this one's major.minor
    (9.10: '5.0'; 9.11 and newer: '7.5'), else the per-major value ('5.0' for cuDNN 9: no Kepler)."""
    t = version_tuple(cudnn_version)
    if not t:
        return None
    table = load_table(CAPABILITIES_FILE)
    mm = (t[0], t[1] if len(t) > 1 else 0)
    rows = [r for r in table.get("cudnn_min_capability_by_version") or []
            if major_minor(r.get("cudnn")) and major_minor(r.get("cudnn"))[0] == mm[0]
            and major_minor(r.get("cudnn")) <= mm]
    if rows:
        return max(rows, key=lambda r: major_minor(r["cudnn"]))["min"]
    return table["cudnn_min_capability"].get(str(t[0]))


def cudnn_supports(cudnn_version, capability) -> bool | None:
    lo, cc = cudnn_min_capability(cudnn_version), major_minor(capability)
    if lo is None or cc is None:
        return None
    return cc >= major_minor(lo)


def capability_match(capability, arch_list, build_cuda=None) -> dict:
    """How (if at all) a GPU of this compute capability can run code built for `arch_list`.

    SASS (sm_XY) runs where torch's own device-requirement table says it does (`sass_runs_on`:
    same major, minor >= Y, Jetson GPUs apart); arch-specific 'sm_90a'-style entries run only on
    exactly that GPU.  PTX (compute_XY) is JIT-compiled by the driver for any GPU with capability
    >= X.Y, any major.  `build_cuda` (the build's CUDA version) selects torch's table for builds
    with CUDA >= 13.2, whose server-aarch64 binaries also run on Jetson.
    Returns {'ok': bool|None, 'via': 'sass'|'ptx'|None, 'entry': str|None,
             'min': 'X.Y'|None, 'max': 'X.Y'|None}; ok None when the capability is unknown."""
    cc = major_minor(capability)
    entries = _arch_entries(arch_list)
    sass = sorted(v for k, v in entries if k == "sm")
    result = {"ok": None, "via": None, "entry": None,
              "min": f"{sass[0][0]}.{sass[0][1]}" if sass else None,
              "max": f"{sass[-1][0]}.{sass[-1][1]}" if sass else None}
    if cc is None or not entries:
        return result
    for kind, v in sorted(entries, key=lambda e: e[1], reverse=True):
        if kind == "sm" and sass_runs_on(v, cc, build_cuda):
            result.update(ok=True, via="sass", entry=f"sm_{v[0]}{v[1]}")
            return result
        if kind in ("sm_a", "sm_f") and v == cc:
            result.update(ok=True, via="sass", entry=f"sm_{v[0]}{v[1]}{kind[-1]}")
            return result
    ptx = [v for k, v in entries if k == "compute" and v <= cc]
    if ptx:
        v = max(ptx)
        result.update(ok=True, via="ptx", entry=f"compute_{v[0]}{v[1]}")
        return result
    result["ok"] = False
    return result


def _build_serves(build: dict, capability) -> bool:
    """False when the build's cuDNN does not support the GPU (cuDNN 9 and Kepler): its kernels may
    load, but every cuDNN op (convolutions, RNNs) fails."""
    return cudnn_supports(build.get("cudnn"), capability) is not False if capability is not None else True


def min_driver_any_build(os_name: str | None = "Linux") -> dict | None:
    """The lowest driver that runs at least one build in the tables (the compatibility floor of the
    oldest CUDA major a build uses): {'driver', 'cuda', 'torch', 'tag'}.  A driver below it needs
    an upgrade: no torch build in the tables runs on it."""
    best = None
    for rel in releases():
        for b in rel["builds"]:
            need = min_driver_for_cuda(cuda_from_tag(b["tag"]), os_name) or {}
            drv = need.get("compat_floor") or need.get("toolkit_minimum")
            if drv and (best is None or version_tuple(drv) < version_tuple(best["driver"])):
                best = {"driver": drv, "cuda": cuda_from_tag(b["tag"]), "torch": rel["torch"], "tag": b["tag"]}
    return best


def releases_supporting(capability, os_name: str | None = "Linux", machine: str | None = None) -> list[dict]:
    """Every (release, build) whose wheel runs on a GPU of this capability, newest release first,
    newest CUDA first within a release.  Items: {'torch', 'tag', 'cuda', 'via', 'entry',
    'python_min', 'python_max', 'index_url', 'unverified'}."""
    out = []
    for rel in reversed(releases()):
        for b in sorted(rel["builds"], key=lambda b: version_tuple(cuda_from_tag(b["tag"])), reverse=True):
            if not build_on_platform(b, os_name, machine):
                continue
            arch = build_arch_list(b, os_name, machine)
            m = capability_match(capability, arch, cuda_from_tag(b["tag"])) if arch else {"ok": False}
            if m["ok"] and _build_serves(b, capability):
                lo, hi = python_range(rel["torch"]) or (None, None)
                out.append({"torch": rel["torch"], "tag": b["tag"], "cuda": cuda_from_tag(b["tag"]),
                            "via": m["via"], "entry": m["entry"], "python_min": lo, "python_max": hi,
                            "index_url": index_url(b["tag"]),
                            "unverified": bool(b.get("unverified") or rel.get("unverified"))})
    return out


def latest_release_for(driver_cuda=None, capability=None, os_name: str | None = "Linux",
                       python_version=None, driver_version=None, torch_release=None,
                       machine: str | None = None, driver_os_name: str | None = None) -> dict | None:
    """The newest release and CUDA build that this machine can run: a CUDA the driver runs
    (`driver_version` checked against the tables, else `driver_cuda`, nvidia-smi's 'CUDA Version';
    minor-version compatibility counts, except for PTX JIT), the GPU's capability covered (SASS
    preferred over PTX JIT), and wheels for this Python; `torch_release` restricts it to one
    release.  `os_name`/`machine` select the wheels' arch lists, `driver_os_name` (default
    os_name) the driver table.  Any argument may be None (= no constraint).  None when nothing fits."""
    dcuda = major_minor(driver_cuda)
    candidates = []
    for rel in reversed(releases()):
        if torch_release is not None and rel["torch"] != release_key(torch_release):
            continue
        if python_version and python_supported(rel["torch"], python_version) is False:
            continue
        for b in sorted(rel["builds"], key=lambda b: version_tuple(cuda_from_tag(b["tag"])), reverse=True):
            if not build_on_platform(b, os_name, machine):
                continue
            cuda = cuda_from_tag(b["tag"])
            # How the driver runs this build: its own toolkit's driver, or only minor-version compat.
            support = None
            if driver_version is not None:
                # WSL 2 runs Linux wheels on the Windows driver: the tables differ
                support = driver_supports(driver_version, cuda, driver_os_name or os_name)
            mm = major_minor(cuda)
            if support is None and dcuda is not None:
                support = "toolkit" if mm <= dcuda else ("compat" if mm[0] == dcuda[0] else "no")
            elif support == "toolkit" and dcuda is not None and mm > dcuda:
                support = "compat"  # the driver itself says its newest CUDA is older
            if support == "no":
                continue
            via = entry = None
            arch = build_arch_list(b, os_name, machine)
            if arch is None:
                continue  # no arch list known for this CPU architecture's wheels
            if capability is not None:
                m = capability_match(capability, arch, cuda)
                if not m["ok"] or not _build_serves(b, capability):
                    continue
                via, entry = m["via"], m["entry"]
                if via == "ptx" and support == "compat":
                    continue  # PTX JIT needs the toolkit's own driver
            candidates.append((rel, b, cuda, via, support, entry))
    if not candidates:
        return None
    # The newest release with SASS for the GPU (no JIT delay, no extra driver requirement), else the
    # newest at all; within it the build the driver fully supports, then the newest CUDA.
    first = next((c for c in candidates if c[3] != "ptx"), candidates[0])
    same = [c for c in candidates if c[0] is first[0] and (c[3] != "ptx") == (first[3] != "ptx")]
    rel, b, cuda, via, support, entry = max(same, key=lambda c: (c[4] != "compat", version_tuple(c[2])))
    return {"torch": rel["torch"], "tag": b["tag"], "cuda": cuda, "via": via, "entry": entry,
            "driver_support": support, "cudnn": b.get("cudnn"),
            "index_url": index_url(b["tag"]), "python_min": (python_range(rel["torch"]) or (None, None))[0],
            "python_max": (python_range(rel["torch"]) or (None, None))[1],
            "unverified": bool(b.get("unverified") or rel.get("unverified"))}


def torchvision_for(torch_version) -> str | None:
    rel = release(torch_version)
    return rel.get("torchvision") if rel else None


def torchaudio_for(torch_version) -> str | None:
    """The torchaudio minor that pairs with a release: the row's 'torchaudio' where it has one (2.15
    -> '2.11'; null for 2.12-2.14, which no torchaudio release pins), else the release itself
    (torchaudio 2.N paired with torch 2.N up to 2.10).  None: pin no torchaudio version."""
    rel = release(torch_version)
    if rel is None:
        return None
    return rel["torchaudio"] if "torchaudio" in rel else rel["torch"]


def pip_install_words(python: str | None, torch_spec: str | None, tag: str,
                      companions=(), no_deps: bool = False) -> list[str]:
    """The words of a pip command installing torch (and the companions named) from one index.
    torch_spec '2.14.1' pins exactly (it matches 2.14.1+cu126 on that index), '2.14' pins the
    release ('2.14.*'), None takes the newest.  A torch_spec that is not a PEP 440 version (from a
    stranger's snapshot) is never pasted into the command: its release key is used instead."""
    from torch_envcheck._util.escape import requirement_version  # noqa: PLC0415
    if torch_spec is not None and requirement_version(torch_spec) is None:
        torch_spec = release_key(torch_spec)
    rel = release_key(torch_spec) if torch_spec else None
    pins = []
    if torch_spec is not None:
        # Only a plain X.Y.Z exists on the index; a source build's '2.14.0a0+git...' pins its release.
        exact = re.fullmatch(r"\d+\.\d+\.\d+", str(torch_spec).split("+", 1)[0]) is not None
        pins.append(f"torch=={torch_spec}" if exact else f"torch=={rel}.*")
    else:
        pins.append("torch")
    for c in companions:
        if c == "torchvision" and rel and torchvision_for(rel):
            pins.append(f"torchvision=={torchvision_for(rel)}.*")
        elif c == "torchaudio" and rel and torchaudio_for(rel):
            # the paired torchaudio; a missing pin fails loudly instead of mixing builds.
            pins.append(f"torchaudio=={torchaudio_for(rel)}.*")
        else:
            pins.append(c)
    flags = ["--force-reinstall", "--no-deps"] if no_deps else ["--force-reinstall"]
    return [python or "python", "-m", "pip", "install", *flags, *pins, "--index-url", index_url(tag)]


def pip_install_command(python: str | None, torch_spec: str | None, tag: str,
                        companions=(), no_deps: bool = False, shell: str = "posix") -> str:
    """pip_install_words() as one command line, every word quoted for `shell` (escape.shell_join:
    "posix", "powershell" or "cmd"), so an interpreter path or version from a snapshot cannot
    inject anything."""
    from torch_envcheck._util.escape import shell_join  # noqa: PLC0415
    return shell_join(pip_install_words(python, torch_spec, tag, companions, no_deps), shell)
