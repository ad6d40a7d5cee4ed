"""What the package indexes say about torch and TensorFlow releases, derived from their
file lists and core metadata (index.py reads them): the releases and their newest patches, the
CPython versions with wheels, Requires-Python, what `pip install torch` gets from PyPI per platform
(the CUDA version and cuDNN its Requires-Dist pins select: `cuda-toolkit[...]==13.2.2` or
`nvidia-cuda-runtime-cu12==12.8.90` -> cu132 / cu128, `nvidia-cudnn-cu13==9.26.0.51`; no CUDA pin on
that platform -> cpu), the CUDA builds each PyTorch index (download.pytorch.org/whl/<tag>, or a
mirror) lists per release and platform with their cuDNN pins, and TensorFlow's `and-cuda` pins.

Shared by `knowledge update` (which keeps what the tables lack, update.py) and `knowledge check`
(which compares everything with the tables, check.py).  Requirements and markers are read with
packaging; a pin is evaluated for each platform with that platform's marker environment.
"""

from __future__ import annotations

import dataclasses
import re

from torch_envcheck._util.versions import major_minor
from torch_envcheck.knowledge_update import index as ix

PYPI_JSON = "https://pypi.org/pypi"
PYPI_SIMPLE = "https://pypi.org/simple"
PYTORCH_INDEX = "https://download.pytorch.org/whl"
# the platforms whose metadata is read per release (macOS x86_64 wheels ended with torch 2.2)
READ_PLATFORMS = ("linux_x86_64", "linux_aarch64", "win_amd64", "macos_arm64")
_MARKER_ENV = {
    "linux_x86_64": {"platform_system": "Linux", "sys_platform": "linux", "platform_machine": "x86_64", "os_name": "posix"},
    "linux_aarch64": {"platform_system": "Linux", "sys_platform": "linux", "platform_machine": "aarch64", "os_name": "posix"},
    "win_amd64": {"platform_system": "Windows", "sys_platform": "win32", "platform_machine": "AMD64", "os_name": "nt"},
    "macos_arm64": {"platform_system": "Darwin", "sys_platform": "darwin", "platform_machine": "arm64", "os_name": "posix"},
    "macos_x86_64": {"platform_system": "Darwin", "sys_platform": "darwin", "platform_machine": "x86_64", "os_name": "posix"},
}


@dataclasses.dataclass
class Sources:
    """Where to read (pip's vocabulary): PyPI's JSON API (None: not used), the simple index that
    replaces it (--index-url) and extra ones (--extra-index-url), and the PyTorch index base, one
    simple index per CUDA tag below it (--mirror; None: not read)."""
    json_api: str | None = PYPI_JSON
    index_url: str | None = None
    extra_index_urls: tuple = ()
    pytorch: str | None = PYTORCH_INDEX
    tags: tuple = ()
    wheel_range: bool = True

    def describe(self) -> list[str]:
        out = []
        if self.json_api:
            out.append(f"{self.json_api}/<project>/json")
        if self.index_url:
            out.append(f"{self.index_url}/<project>/")
        out += [f"{u}/<project>/" for u in self.extra_index_urls]
        if self.pytorch:
            out.append(f"{self.pytorch}/<cuda tag>/torch/")
        return out


@dataclasses.dataclass
class TorchRelease:
    release: str
    latest: str
    versions: list
    pythons: list = dataclasses.field(default_factory=list)
    requires_python: str | None = None
    pypi: dict = dataclasses.field(default_factory=dict)        # platform -> 'cu132' | 'cpu'
    pypi_cudnn: dict = dataclasses.field(default_factory=dict)  # platform -> '9.26.0.51'
    pypi_platforms: list = dataclasses.field(default_factory=list)
    builds: dict = dataclasses.field(default_factory=dict)      # tag -> {platforms, pythons, cudnn, learned_from}
    metadata: dict = dataclasses.field(default_factory=dict)    # platform -> {'source', 'url'}
    unread: dict = dataclasses.field(default_factory=dict)      # platform -> why its metadata was not read
    learned_from: str | None = None


@dataclasses.dataclass
class TfRelease:
    release: str
    latest: str
    pythons: list = dataclasses.field(default_factory=list)     # Linux x86_64 wheels
    requires_python: str | None = None
    and_cuda: list | None = None
    cuda: str | None = None
    cudnn: str | None = None
    learned_from: str | None = None
    unread: str | None = None


@dataclasses.dataclass
class Learned:
    torch: dict = dataclasses.field(default_factory=dict)        # release -> TorchRelease
    tensorflow: dict = dataclasses.field(default_factory=dict)   # release -> TfRelease
    problems: list = dataclasses.field(default_factory=list)     # one line each
    read: list = dataclasses.field(default_factory=list)         # the listings read
    skipped_files: int = 0
    tags_read: list = dataclasses.field(default_factory=list)
    # release -> why what its wheels say could not be read (seen on an index, not fully learned)
    unlearned: dict = dataclasses.field(default_factory=dict)

    def could_not_learn(self, rel: str, why: str) -> None:
        reasons = self.unlearned.setdefault(rel, [])
        if why not in reasons and len(reasons) < 8:
            reasons.append(why)


def _mm(v) -> tuple:
    """(major, minor), (0, 0) for what has none: this module sorts by it."""
    return major_minor(str(v or "")) or (0, 0)


def _vkey(v: str):
    from packaging.version import Version  # noqa: PLC0415
    return Version(v)


def release_key(version: str) -> str:
    a, b = _mm(version)
    return f"{a}.{b}"


def marker_env(platform: str, python: str | None = None, extra: str = "") -> dict:
    py = python or "3.12"
    env = dict(_MARKER_ENV[platform])
    env.update(python_version=py, python_full_version=py + ".0", implementation_name="cpython",
               platform_python_implementation="CPython", platform_release="", platform_version="",
               implementation_version=py + ".0", extra=extra)
    return env


def requirements(lines, platform: str, python: str | None = None, extra: str = ""):
    """The Requires-Dist lines that apply on `platform` (and with `extra`), as packaging Requirements;
    lines packaging cannot parse are skipped."""
    from packaging.requirements import InvalidRequirement, Requirement  # noqa: PLC0415
    out = []
    env = marker_env(platform, python, extra)
    for line in lines or ():
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        try:
            if req.marker is not None and not req.marker.evaluate(env):
                continue
        except Exception:  # noqa: BLE001  (a marker packaging cannot evaluate)
            continue
        out.append(req)
    return out


def _pinned(req) -> str | None:
    """The version of an `==X` specifier, else None."""
    for spec in req.specifier:
        if spec.operator in ("==", "===") and re.fullmatch(r"\d+(\.\d+){0,4}", spec.version):
            return spec.version
    return None


def _lower_bound(req) -> str | None:
    for spec in req.specifier:
        if spec.operator in (">=", "==", "~=") and re.fullmatch(r"\d+(\.\d+){0,4}", spec.version):
            return spec.version
    return None


def torch_pins(lines, platform: str, python: str | None = None) -> dict:
    """{'tag': 'cu132' | 'cpu', 'cuda': '13.2' | None, 'cudnn': '9.26.0.51' | None} from torch's
    Requires-Dist on a platform: the CUDA toolkit (`cuda-toolkit==13.2.2`, or the runtime wheel
    `nvidia-cuda-runtime[-cu12]==12.8.90`) and cuDNN (`nvidia-cudnn-cuXX==...`) it pins there."""
    from packaging.utils import canonicalize_name  # noqa: PLC0415
    cuda = cudnn = None
    for req in requirements(lines, platform, python):
        name = canonicalize_name(req.name)
        v = _pinned(req)
        if not v:
            continue
        if name == "cuda-toolkit" or re.fullmatch(r"nvidia-cuda-runtime(-cu\d+)?", name):
            cuda = cuda or "{}.{}".format(*_mm(v))
        elif re.fullmatch(r"nvidia-cudnn(-cu\d+)?", name):
            cudnn = cudnn or v
    tag = ("cu{}{}".format(*_mm(cuda))) if cuda else "cpu"
    return {"tag": tag, "cuda": cuda, "cudnn": cudnn}


def and_cuda(lines) -> list[str]:
    """TensorFlow's `and-cuda` extra: the requirements that apply with it and not without it,
    written as name + specifier (the tables' form: 'nvidia-cudnn-cu12<10.0,>=9.3.0.75')."""
    base = {str(r) for r in requirements(lines, "linux_x86_64")}
    out = []
    for r in requirements(lines, "linux_x86_64", extra="and-cuda"):
        if str(r) in base:
            continue
        out.append(f"{r.name}{'[' + ','.join(sorted(r.extras)) + ']' if r.extras else ''}{r.specifier}")
    return sorted(out)


def _cuda_from_and_cuda(pins: list[str]) -> tuple[str | None, str | None]:
    from packaging.requirements import Requirement  # noqa: PLC0415
    cuda = cudnn = None
    for line in pins:
        r = Requirement(line)
        lo = _lower_bound(r)
        if not lo:
            continue
        if re.fullmatch(r"nvidia-cuda-runtime(-cu\d+)?", r.name.lower()):
            cuda = "{}.{}".format(*_mm(lo))
        elif re.fullmatch(r"nvidia-cudnn(-cu\d+)?", r.name.lower()):
            cudnn = "{}.{}".format(*_mm(lo))
    return cuda, cudnn


def index_of(url) -> str | None:
    """The folder (index page) a wheel URL lies in."""
    return url.rsplit("/", 1)[0] if isinstance(url, str) and "/" in url else None


# ---------------------------------------------------------------- reading

def list_project(fetcher: ix.Fetcher, src: Sources, project: str, out: Learned) -> tuple[list, dict | None]:
    """Every wheel of `project` the configured indexes list (JSON API or --index-url, plus the extra
    indexes), de-duplicated by file name; problems are recorded, not raised."""
    files, seen, info = [], set(), None
    readers = []
    if src.json_api:
        readers.append(("json-api", src.json_api))
    if src.index_url:
        readers.append(("simple", src.index_url))
    readers += [("simple", u) for u in src.extra_index_urls]
    for kind, base in readers:
        try:
            listing = ix.read_json_api(fetcher, base, project) if kind == "json-api" else ix.read_simple(fetcher, base, project)
        except ix.IndexReadError as exc:
            out.problems.append(str(exc))
            continue
        out.read.append(f"{listing.url} ({listing.kind}: {len(listing.files)} wheels)")
        if listing.refused:
            out.problems.append(listing.refused)
        out.skipped_files += listing.skipped
        info = info or listing.info
        for f in listing.files:
            if f.filename not in seen:
                seen.add(f.filename)
                files.append(f)
    return files, info


def _pick(files: list, platform: str) -> ix.IndexFile | None:
    """One wheel of a platform to read the metadata of: CPython 3.12 when there is one, else the
    newest CPython; wheels with a local label (a PyTorch index build) only when no plain one."""
    cands = [f for f in files if platform in f.platforms and f.pythons]
    if not cands:
        return None
    return max(cands, key=lambda f: (f.local is None, "3.12" in f.pythons, max(_mm(p) for p in f.pythons), f.filename))


def _by_release(files: list, local=False) -> dict:
    out: dict = {}
    for f in files:
        if f.yanked or (f.local is not None) != local:
            continue
        out.setdefault(release_key(f.version), []).append(f)
    return out


def _read_meta(fetcher, f, src: Sources, info: dict | None, out: Learned):
    try:
        return ix.read_metadata(fetcher, f, wheel_range=src.wheel_range)
    except ix.IndexReadError as exc:
        if info and info.get("version") == f.version and info.get("requires_dist") is not None:
            return ix.Metadata("?", f.version, info.get("requires_python"), info["requires_dist"], "json-api-info",
                               f.url)
        return str(exc)


def learn_torch(fetcher: ix.Fetcher, src: Sources, out: Learned, want=lambda rel: True) -> None:
    files, info = list_project(fetcher, src, "torch", out)
    # wheels with a local label on --index-url / --extra-index-url (a PyTorch index or a mirror of
    # one given as the index): builds of their tag, learned as the PyTorch index's are
    local = sorted({f.local for f in files if f.local and f.local.startswith("cu")})
    for tag in local:
        _learn_builds(fetcher, src, out, want, tag, [f for f in files if f.local == tag])
    for rel, fs in sorted(_by_release(files).items(), key=lambda kv: _mm(kv[0])):
        versions = sorted({f.version for f in fs}, key=_vkey)
        latest = versions[-1]
        latest_files = [f for f in fs if f.version == latest]
        # the CPython versions with wheels of any patch of the release (a later patch may drop one)
        tr = TorchRelease(rel, latest, versions,
                          pythons=sorted({p for f in fs for p in f.pythons}, key=_mm),
                          requires_python=next((f.requires_python for f in latest_files if f.requires_python), None),
                          pypi_platforms=sorted({p for f in latest_files for p in f.platforms}),
                          learned_from=latest_files[0].url)
        known = out.torch.get(rel)
        if known is not None:  # builds of it were seen with a local label above: keep them
            tr.builds = known.builds
            tr.versions = sorted(set(tr.versions) | set(known.versions), key=_vkey)
        out.torch[rel] = tr
        if not want(rel):
            continue
        for plat in READ_PLATFORMS:
            f = _pick(latest_files, plat)
            if f is None:
                continue
            meta = _read_meta(fetcher, f, src, info, out)
            if isinstance(meta, str):
                tr.unread[plat] = meta
                out.could_not_learn(rel, f"the metadata of {f.filename} could not be read ({meta}), so what "
                                         f"PyPI's wheel is on {plat} is unknown")
                continue
            py = f.pythons[-1] if f.pythons else None
            pins = torch_pins(meta.requires_dist, plat, py)
            tr.pypi[plat] = pins["tag"]
            if pins["cudnn"]:
                tr.pypi_cudnn[plat] = pins["cudnn"]
            tr.metadata[plat] = {"source": meta.source, "url": meta.url}
            tr.requires_python = meta.requires_python or tr.requires_python
            if pins["tag"] != "cpu":
                b = tr.builds.setdefault(pins["tag"], {"platforms": [], "pythons": list(tr.pythons), "cudnn": None,
                                                       "learned_from": f.url})
                b["platforms"] = sorted(set(b["platforms"]) | {plat})
                b["cudnn"] = b["cudnn"] or pins["cudnn"]
    if src.pytorch:
        learn_pytorch_index(fetcher, src, out, want)


def learn_pytorch_index(fetcher: ix.Fetcher, src: Sources, out: Learned, want) -> None:
    """The CUDA builds per release on the PyTorch index (one simple index per tag)."""
    absent: list = []
    _read_tags(fetcher, src, out, want, absent)
    if absent:
        out.problems.append(f"{src.pytorch} has no torch page for {', '.join(absent)} (HTTP 404 or no such folder)")


def _read_tags(fetcher: ix.Fetcher, src: Sources, out: Learned, want, absent: list) -> None:
    for n, tag in enumerate(src.tags):
        base = src.pytorch.rstrip("/") + "/" + tag
        try:
            listing = ix.read_simple(fetcher, base, "torch")
        except ix.IndexReadError as exc:
            if exc.status == 404:
                absent.append(tag)  # said once below: an index without that tag's page
                continue
            out.problems.append(str(exc))
            if exc.status is None and n + 1 < len(src.tags):
                # the host did not answer at all (no name, no route, a timeout): the other tags live there too
                out.problems.append(f"the PyTorch index {src.pytorch} did not answer: the tags "
                                    f"{', '.join(src.tags[n + 1:])} were not tried")
                break
            continue
        out.read.append(f"{listing.url} ({listing.kind}: {len(listing.files)} wheels)")
        if listing.refused:
            out.problems.append(listing.refused)
        out.tags_read.append(tag)
        out.skipped_files += listing.skipped
        _learn_builds(fetcher, src, out, want, tag, [f for f in listing.files if f.local == tag])


def _learn_builds(fetcher: ix.Fetcher, src: Sources, out: Learned, want, tag: str, mine: list) -> None:
    """The `tag` builds (wheels with that local label) of each release among `mine`: platforms,
    CPython versions and (metadata read where the release is wanted) the cuDNN pin."""
    for rel, fs in _by_release(mine, local=True).items():
        versions = sorted({f.version for f in fs}, key=_vkey)
        latest = [f for f in fs if f.version == versions[-1]]
        tr = out.torch.get(rel)
        if tr is None:
            tr = out.torch[rel] = TorchRelease(rel, versions[-1], versions,
                                               pythons=sorted({p for f in latest for p in f.pythons}, key=_mm),
                                               requires_python=next((f.requires_python for f in latest
                                                                     if f.requires_python), None),
                                               learned_from=latest[0].url)
        elif _vkey(versions[-1]) > _vkey(tr.latest):
            tr.latest = versions[-1]
        b = tr.builds.setdefault(tag, {"platforms": [], "pythons": [], "cudnn": None, "learned_from": latest[0].url})
        b["platforms"] = sorted(set(b["platforms"]) | {p for f in latest for p in f.platforms})
        b["pythons"] = sorted(set(b["pythons"]) | {p for f in latest for p in f.pythons}, key=_mm)
        if not want(rel) or b.get("cudnn"):
            continue
        f = _pick(latest, "linux_x86_64") or _pick(latest, "linux_aarch64")
        if f is None:
            continue
        meta = _read_meta(fetcher, f, src, None, out)
        if isinstance(meta, str):
            out.problems.append(meta)
            out.could_not_learn(rel, f"the metadata of {f.version}+{tag} could not be read ({meta}), "
                                     "so its cuDNN pin is unknown")
            continue
        b["cudnn"] = torch_pins(meta.requires_dist, "linux_x86_64" if "linux_x86_64" in f.platforms
                                else "linux_aarch64", f.pythons[-1] if f.pythons else None)["cudnn"]


def learn_tensorflow(fetcher: ix.Fetcher, src: Sources, out: Learned, want=lambda rel: True) -> None:
    files, info = list_project(fetcher, src, "tensorflow", out)
    for rel, fs in sorted(_by_release(files).items(), key=lambda kv: _mm(kv[0])):
        versions = sorted({f.version for f in fs}, key=_vkey)
        latest = [f for f in fs if f.version == versions[-1]]
        linux = [f for f in latest if "linux_x86_64" in f.platforms]
        tr = TfRelease(rel, versions[-1], pythons=sorted({p for f in fs if "linux_x86_64" in f.platforms
                                                           for p in f.pythons}, key=_mm),
                       requires_python=next((f.requires_python for f in latest if f.requires_python), None),
                       learned_from=(linux or latest)[0].url)
        out.tensorflow[rel] = tr
        if not want(rel):
            continue
        f = _pick(latest, "linux_x86_64")
        if f is None:
            tr.unread = "no Linux x86_64 wheel"
            continue
        meta = _read_meta(fetcher, f, src, info, out)
        if isinstance(meta, str):
            tr.unread = meta
            continue
        tr.requires_python = meta.requires_python or tr.requires_python
        tr.and_cuda = and_cuda(meta.requires_dist)
        tr.cuda, tr.cudnn = _cuda_from_and_cuda(tr.and_cuda)
