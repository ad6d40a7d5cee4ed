"""PyTorch's releases and their builds (torch_releases.json): Python ranges, arch lists, the
download.pytorch.org index of each build, and the search for the newest build a machine runs (its
driver through drivers.driver_runs, its GPU through gpus.capability_match, its Python), plus the pip
command that installs one."""

from __future__ import annotations

import functools

from torch_envcheck._util.versions import cuda_from_tag, major_minor, release_key, version_tuple
from torch_envcheck.knowledge.drivers import COMPAT, NO, driver_runs, min_driver_for_cuda
from torch_envcheck.knowledge.gpus import build_arch_list, capability_match, cudnn_supports
from torch_envcheck.knowledge import overlay
from torch_envcheck.knowledge.tables import RELEASES_FILE, clear_loaded, os_column, load_table


@functools.lru_cache(maxsize=8)
def _releases_sorted(_generation: int) -> tuple:
    return tuple(sorted(load_table(RELEASES_FILE)["releases"], key=lambda r: version_tuple(r["torch"])))


def releases() -> list[dict]:
    """All known releases, oldest first (shared rows: do not modify them)."""
    return list(_releases_sorted(overlay.generation()))


@functools.lru_cache(maxsize=256)
def _release_by_key(key: str | None, generation: int) -> dict | None:
    return next((r for r in _releases_sorted(generation) if r["torch"] == key), None)


def release(torch_version) -> dict | None:
    return _release_by_key(release_key(torch_version), overlay.generation())


def verified_releases() -> list[dict]:
    """The releases the shipped tables hold, oldest first: those an overlay added are hints from an
    index and never count as "the newest release" of any advice."""
    return [r for r in releases() if not overlay.is_learned(r)]


def latest_known_release() -> str:
    """The newest release of the shipped (verified) tables."""
    return verified_releases()[-1]["torch"]


def latest_learned_release() -> dict | None:
    """The newest release row an overlay added, when it is newer than every verified one (a hint)."""
    rels = releases()
    return rels[-1] if rels and overlay.is_learned(rels[-1]) else None


def index_url(tag: str) -> str:
    return load_table(RELEASES_FILE)["index_url_template"].format(tag=tag)


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


def _build_serves(build: dict, capability) -> bool:
    """False when the build's cuDNN does not support the GPU (cuDNN 9 and Kepler): its kernels may
    load, but every cuDNN op (convolutions, RNNs) fails."""
    return cudnn_supports(build.get("cudnn"), capability) is not False if capability is not None else True


def min_driver_any_build(os_name: str | None = "Linux") -> dict | None:
    """The lowest driver that runs at least one build in the tables (the compatibility floor of the
    oldest CUDA major a build uses): {'driver', 'cuda', 'torch', 'tag'}.  A driver below it needs
    an upgrade: no torch build in the tables runs on it."""
    best = None
    for rel in verified_releases():
        for b in rel["builds"]:
            if overlay.is_learned(b):
                continue
            need = min_driver_for_cuda(cuda_from_tag(b["tag"]), os_name) or {}
            drv = need.get("compat_floor") or need.get("toolkit_minimum")
            if drv and (best is None or version_tuple(drv) < version_tuple(best["driver"])):
                best = {"driver": drv, "cuda": cuda_from_tag(b["tag"]), "torch": rel["torch"], "tag": b["tag"]}
    return best


_PLATFORM_KEYS = {("linux", False): "linux_x86_64", ("linux", True): "linux_aarch64", ("windows", False): "win_amd64"}


def build_on_platform(build: dict, os_name: str | None = "Linux", machine: str | None = None) -> bool:
    """Whether a build exists for this OS and CPU.  A build row with 'platforms' (e.g. 2.15 cu132,
    seen for Linux x86_64 and aarch64 only) is never offered elsewhere; without it every build is
    assumed to exist on Linux and Windows."""
    plats = build.get("platforms")
    if not isinstance(plats, list):
        return True
    col = os_column(os_name)
    if col == "linux" and not machine:
        return any(str(p).startswith("linux_") for p in plats)
    return _PLATFORM_KEYS.get((col, (machine or "").lower() in ("aarch64", "arm64"))) in plats


def releases_supporting(capability, os_name: str | None = "Linux", machine: str | None = None) -> list[dict]:
    """Every (release, build) whose wheel runs on a GPU of this capability, newest release first,
    newest CUDA first within a release.  Items: {'torch', 'tag', 'cuda', 'via', 'entry',
    'python_min', 'python_max', 'index_url', 'unverified'}."""
    out = []
    for rel in reversed(releases()):
        for b in sorted(rel["builds"], key=lambda b: version_tuple(cuda_from_tag(b["tag"])), reverse=True):
            if overlay.is_learned(b) or overlay.is_learned(rel) or not build_on_platform(b, os_name, machine):
                continue  # a learned build is a hint: nobody verified it exists for this GPU
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
    """The newest release and CUDA build that this machine can run (_latest_release_for says how),
    a fresh dict each call.  A report asks the same question many times (each conda and pip route,
    each rule that recommends a build): the answers are kept per overlay generation, for arguments
    that can be kept (hashable)."""
    args = (driver_cuda, capability, os_name, python_version, driver_version, torch_release, machine,
            driver_os_name)
    try:
        hash(args)
    except TypeError:
        found = _latest_release_for(*args)
    else:
        found = _latest_release_cached(args, overlay.generation())
    return dict(found) if found is not None else None


@functools.lru_cache(maxsize=512)
def _latest_release_cached(args: tuple, _generation: int) -> dict | None:
    return _latest_release_for(*args)


def _latest_release_for(driver_cuda=None, capability=None, os_name: str | None = "Linux",
                        python_version=None, driver_version=None, torch_release=None,
                        machine: str | None = None, driver_os_name: str | None = None) -> dict | None:
    """The newest release and CUDA build that this machine can run: a CUDA the driver runs
    (`driver_version` checked against the tables, else `driver_cuda`, nvidia-smi's 'CUDA Version';
    minor-version compatibility counts, except for PTX JIT), the GPU's capability covered (SASS
    preferred over PTX JIT), and wheels for this Python; `torch_release` restricts it to one
    release.  `os_name`/`machine` select the wheels' arch lists, `driver_os_name` (default
    os_name) the driver table.  Any argument may be None (= no constraint).  None when nothing fits."""
    candidates = []
    for rel in reversed(releases()):
        if torch_release is not None and rel["torch"] != release_key(torch_release):
            continue
        if python_version and python_supported(rel["torch"], python_version) is False:
            continue
        for b in sorted(rel["builds"], key=lambda b: version_tuple(cuda_from_tag(b["tag"])), reverse=True):
            if overlay.is_learned(b) or overlay.is_learned(rel) or not build_on_platform(b, os_name, machine):
                continue  # a learned build is a hint: no command is made for it
            cuda = cuda_from_tag(b["tag"])
            # How the driver runs this build: its own toolkit's driver, or only minor-version compat
            # (WSL 2 runs Linux wheels on the Windows driver: driver_os_name picks its table).
            support = driver_runs(cuda, driver_version, driver_cuda, driver_os_name or os_name)
            if support == NO:
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
                if via == "ptx" and support == COMPAT:
                    continue  # PTX JIT needs the toolkit's own driver
            candidates.append((rel, b, cuda, via, support, entry))
    if not candidates:
        return None
    # The newest release with SASS for the GPU (no JIT delay, no extra driver requirement), else the
    # newest at all; within it the build the driver fully supports, then the newest CUDA.
    first = next((c for c in candidates if c[3] != "ptx"), candidates[0])
    same = [c for c in candidates if c[0] is first[0] and (c[3] != "ptx") == (first[3] != "ptx")]
    rel, b, cuda, via, support, entry = max(same, key=lambda c: (c[4] != COMPAT, version_tuple(c[2])))
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


# torchtext's releases by the torch each was built for (pytorch/text README, "Installation": the version table);
# 0.18 (torch 2.3) is its last: development stopped there
_TORCHTEXT = {(1, 12): "0.13", (1, 13): "0.14", (2, 0): "0.15", (2, 1): "0.16", (2, 2): "0.17", (2, 3): "0.18"}
# (torchtext's last release, the torch it pairs with), from the table's newest row
TORCHTEXT_LAST = (_TORCHTEXT[max(_TORCHTEXT)], "%d.%d" % max(_TORCHTEXT))


# torch's own modules removed in a release, which packages written for older releases still import: module -> (the
# release that removed it, what replaces it, the source)
REMOVED_MODULES = {
    "torch._six": ("2.0", "`from torch import inf, nan`; `str` for string_classes, `int` for int_classes",
                   "https://github.com/pytorch/pytorch/pull/94709"),
}


def removed_module(name: str | None) -> dict | None:
    """{"module", "removed_in", "replacement", "source"} for a torch module a release removed, else None."""
    row = REMOVED_MODULES.get(name or "")
    return None if row is None else {"module": name, "removed_in": row[0], "replacement": row[1], "source": row[2]}


def torchtext_for(torch_version) -> str | None:
    """The torchtext minor built for a torch release (1.12 to 2.3); None for any other torch (none exists after 2.3)."""
    mm = major_minor(torch_version) if torch_version else None
    return _TORCHTEXT.get(mm) if mm else None


def clear_caches() -> None:
    """Forget the loaded tables, the overlay merged into them and what was computed from them
    (after `knowledge update` wrote a new overlay, or in tests)."""
    overlay.reset()
    clear_loaded()
    for fn in (_releases_sorted, _release_by_key, _latest_release_cached):
        fn.cache_clear()

