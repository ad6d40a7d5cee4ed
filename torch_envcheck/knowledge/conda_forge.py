"""conda-forge's pytorch: which CUDA builds each release carries per conda platform, with their arch
lists (conda_cuda.json conda_forge_pytorch, read from the pytorch-cpu feedstock's recipe), and the
search for the newest one a machine runs: its driver (drivers.driver_runs), its GPU (gpus.capability_match
on the build's arch list), its Python and its platform.

    subdir(os_name, machine)      the conda platform ('linux-64', 'linux-aarch64', 'win-64'), None elsewhere
    forge_releases()              the rows, newest first
    forge_arch_list(build, os)    a build's arch list in get_arch_list() syntax (PTX counted on Linux only)
    forge_pick(...)               the newest release and CUDA build that fits, or None
    forge_release(version)        the row of one release (its major.minor), or None

The pytorch channel published its last release with 2.5 (pytorch/pytorch#138506); conda-forge is where
newer conda builds come from.  A CUDA build not listed here is never offered: the table is the
promise that the build exists for that platform and carries the GPU's arch.
"""

from __future__ import annotations

from torch_envcheck._util.versions import major_minor, release_key, version_tuple
from torch_envcheck.knowledge.drivers import COMPAT, NO, driver_runs
from torch_envcheck.knowledge.gpus import capability_match, parse_arch_list
from torch_envcheck.knowledge.tables import KnowledgeError, load_table

TABLE_FILE = "conda_cuda.json"

_SUBDIRS = {("linux", "x86_64"): "linux-64", ("linux", "amd64"): "linux-64",
            ("linux", "aarch64"): "linux-aarch64", ("linux", "arm64"): "linux-aarch64",
            ("windows", "amd64"): "win-64", ("windows", "x86_64"): "win-64",
            ("darwin", "arm64"): "osx-arm64", ("darwin", "x86_64"): "osx-64"}


def subdir(os_name: str | None, machine: str | None) -> str | None:
    """The conda platform of an OS and CPU ('linux-64', 'linux-aarch64', 'win-64', 'osx-arm64',
    'osx-64'), else None (32-bit, unknown).  A CPU left unknown counts as x86-64."""
    osn = (os_name or "").lower()
    col = "windows" if osn.startswith("win") else (osn if osn in ("linux", "darwin") else None)
    if col is None:
        return None
    return _SUBDIRS.get((col, (machine or "x86_64").lower()))


def _section() -> dict:
    sec = load_table(TABLE_FILE).get("conda_forge_pytorch")
    if not isinstance(sec, dict) or not isinstance(sec.get("releases"), list):
        raise KnowledgeError(f"{TABLE_FILE} has no conda_forge_pytorch table")
    return sec


def forge_releases() -> list[dict]:
    """conda-forge's pytorch releases in the table, newest first (shared rows: do not modify them)."""
    rows = [r for r in _section()["releases"] if isinstance(r, dict) and version_tuple(r.get("version"))]
    return sorted(rows, key=lambda r: version_tuple(r["version"]), reverse=True)


def forge_release(version) -> dict | None:
    key = release_key(version)
    return next((r for r in forge_releases() if r.get("pytorch") == key), None)


def first_windows_release() -> str | None:
    """The first release with win-64 builds on conda-forge (2.5: 2.5.1 build 9)."""
    return _section().get("first_win64_release")


def forge_arch_list(build: dict, os_name: str | None) -> list[str]:
    """The build's arch list, torch.cuda.get_arch_list() syntax.  PTX only on Linux: a win-64
    build's PTX was not checked, so a GPU newer than its SASS is never sent to it."""
    return parse_arch_list(str(build.get("arch_list") or ""), os_name)


def _python_fits(row: dict, python_version) -> bool:
    py, lo, hi = major_minor(python_version), major_minor(row.get("python_min")), major_minor(row.get("python_max"))
    return py is None or lo is None or hi is None or lo <= py <= hi


def judge(row: dict, build: dict, *, platform: str, os_name: str | None, capability=None, driver_cuda=None,
          driver_version=None, python_version=None, driver_os_name: str | None = None) -> dict:
    """Whether one build of one release serves this machine: {'ok', 'why' (the first check that
    failed, or None), 'via', 'entry', 'driver_support'}."""
    out = {"ok": False, "why": None, "via": None, "entry": None, "driver_support": None}
    if platform not in (build.get("platforms") or []):
        out["why"] = f"no {platform} build with CUDA {build.get('cuda')}"
        return out
    if not _python_fits(row, python_version):
        out["why"] = f"Python {major_minor(python_version)[0]}.{major_minor(python_version)[1]} is outside " \
                     f"{row.get('python_min')}-{row.get('python_max')}"
        return out
    support = driver_runs(build.get("cuda"), driver_version, driver_cuda, driver_os_name or os_name)
    if support == NO:
        out["why"] = f"the driver does not run CUDA {build.get('cuda')}"
        return out
    if capability is not None:
        m = capability_match(capability, forge_arch_list(build, os_name), build.get("cuda"))
        if not m["ok"]:
            out["why"] = f"no kernels for compute capability {capability} (arch list {build.get('arch_list')})"
            return out
        if m["via"] == "ptx" and support == COMPAT:
            out["why"] = f"PTX JIT for compute capability {capability} needs the driver of CUDA {build.get('cuda')}"
            return out
        out.update(via=m["via"], entry=m["entry"])
    out.update(ok=True, driver_support=support)
    return out


def forge_pick(*, os_name: str | None, machine: str | None, capability=None, driver_cuda=None, driver_version=None,
               python_version=None, driver_os_name: str | None = None, torch_release=None,
               not_below=None) -> dict | None:
    """The newest conda-forge release and CUDA build this machine runs (SASS preferred over PTX JIT,
    then the build its driver fully supports, then the newest CUDA); `torch_release` restricts it
    to one release, `not_below` (an installed torch version) drops every release older than it: a
    fix never downgrades.  {'pytorch', 'version', 'cuda', 'platform', 'arch_list', 'via', 'entry',
    'driver_support', 'source'}; None when nothing fits or the platform has no conda-forge CUDA build."""
    plat = subdir(os_name, machine)
    if plat is None:
        return None
    floor = version_tuple(release_key(not_below)) if not_below else None
    candidates = []
    for row in forge_releases():
        if torch_release is not None and row.get("pytorch") != release_key(torch_release):
            continue
        if floor and version_tuple(row.get("pytorch")) < floor:
            continue
        for b in row.get("builds") or []:
            j = judge(row, b, platform=plat, os_name=os_name, capability=capability, driver_cuda=driver_cuda,
                      driver_version=driver_version, python_version=python_version, driver_os_name=driver_os_name)
            if j["ok"]:
                candidates.append((row, b, j))
    if not candidates:
        return None
    first = next((c for c in candidates if c[2]["via"] != "ptx"), candidates[0])
    same = [c for c in candidates if c[0] is first[0] and (c[2]["via"] != "ptx") == (first[2]["via"] != "ptx")]
    row, b, j = max(same, key=lambda c: (c[2]["driver_support"] != COMPAT, version_tuple(c[1].get("cuda"))))
    return {"pytorch": row["pytorch"], "version": row.get("version"), "cuda": b.get("cuda"), "platform": plat,
            "arch_list": b.get("arch_list"), "via": j["via"], "entry": j["entry"],
            "driver_support": j["driver_support"], "source": row.get("source")}


def cpu_release(*, os_name: str | None, machine: str | None, python_version=None, not_below=None) -> dict | None:
    """The newest conda-forge release (its CPU build) for this Python and platform (cpu_platforms),
    never below `not_below`; None when the platform is not in the table."""
    plat = subdir(os_name, machine)
    if plat is None:
        return None
    floor = version_tuple(release_key(not_below)) if not_below else None
    for row in forge_releases():
        if floor and version_tuple(row.get("pytorch")) < floor:
            continue
        if _python_fits(row, python_version) and plat in (_section().get("cpu_platforms") or []):
            return {"pytorch": row["pytorch"], "version": row.get("version"), "platform": plat,
                    "source": row.get("source")}
    return None


def companion_on(name: str, platform: str | None) -> bool:
    """Whether conda-forge builds a companion package (torchvision) for this conda platform; its
    variant follows pytorch's (its run requirement pins pytorch's cuda*/cpu* build)."""
    row = _section().get(name)
    return bool(platform) and isinstance(row, dict) and platform in (row.get("platforms") or [])


def build_spec(pick: dict) -> str:
    """The conda match spec of a CUDA pick: 'pytorch=2.13.*=cuda129*' (the recipe's build string
    starts with 'cuda' and the CUDA version without its dot)."""
    mm = major_minor(pick["cuda"])
    return f"pytorch={pick['pytorch']}.*=cuda{mm[0]}{mm[1]}*"


def cuda_version_spec(pick: dict) -> str:
    """'cuda-version=12.9': the CUDA runtime conda-forge's CUDA packages are built for."""
    mm = major_minor(pick["cuda"])
    return f"cuda-version={mm[0]}.{mm[1]}"
