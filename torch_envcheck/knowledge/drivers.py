"""Which NVIDIA driver runs which CUDA: the one answer to "does driver D run CUDA C on OS O", and
how (cuda_drivers.json: each CUDA toolkit's own minimum driver, and each CUDA major's
minor-version-compatibility floor, per OS; every row names its source).  Every rule (driver, GPU PTX,
TensorFlow, conda), `advise` and the recommendation ask driver_runs(); nothing else decides it."""

from __future__ import annotations

from torch_envcheck._util.versions import major_minor, version_tuple
from torch_envcheck.knowledge.tables import DRIVERS_FILE, KnowledgeError, load_table, os_column

TOOLKIT, COMPAT, NO = "toolkit", "compat", "no"


def min_driver_for_cuda(cuda, os_name: str | None = "Linux") -> dict | None:
    """The drivers a CUDA runtime version needs on this OS (WSL counts as Windows: the driver is
    the Windows one).  {'cuda', 'toolkit_minimum', 'compat_floor', 'unverified', 'source'}; either
    value may be None when the tables do not know it.  None for an unparseable version."""
    mm = major_minor(cuda)
    if mm is None:
        return None
    table = load_table(DRIVERS_FILE)
    col = os_column(os_name)
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


def _by_table(driver_version, cuda, os_name) -> str | None:
    """The tables' verdict on a driver version: TOOLKIT when it meets the toolkit's own minimum,
    COMPAT when it meets only the minor-version-compatibility floor, NO below both, None unknown."""
    dv = version_tuple(driver_version)
    need = min_driver_for_cuda(cuda, os_name)
    if dv is None or need is None:
        return None
    exact = need["toolkit_minimum_for"] is not None and major_minor(need["toolkit_minimum_for"]) == major_minor(cuda)
    if exact and need["toolkit_minimum"] and dv >= version_tuple(need["toolkit_minimum"]):
        return TOOLKIT
    if need["compat_floor"] and dv >= version_tuple(need["compat_floor"]):
        return COMPAT
    if need["compat_floor"] is None and need["toolkit_minimum"] is None:
        return None
    return NO


def driver_runs(cuda, driver_version=None, driver_cuda=None, os_name: str | None = "Linux") -> str | None:
    """Whether, and how, a driver runs code built with CUDA `cuda`:
      "toolkit"  it meets that CUDA toolkit's own minimum driver (everything works, PTX JIT included);
      "compat"   only through minor-version compatibility (same CUDA major; no PTX JIT of newer PTX);
      "no"       not at all;
      None       unknown.
    The driver is known by its version (checked against the tables for `os_name`: WSL 2 uses the
    Windows driver's) and/or by the newest CUDA it reports (`driver_cuda`, nvidia-smi's "CUDA
    Version").  The tables answer first; without them (no driver version, an unparseable one, a CUDA
    major they do not list, unreadable tables) the driver's CUDA does: at least `cuda` is "toolkit",
    the same major "compat", else "no".  A driver whose own CUDA is older than `cuda` is never
    "toolkit", whatever the tables say."""
    try:
        support = _by_table(driver_version, cuda, os_name) if driver_version is not None else None
    except KnowledgeError:
        support = None
    mm, dcuda = major_minor(cuda), major_minor(driver_cuda)
    if mm is None or dcuda is None:
        return support
    if support is None:
        return TOOLKIT if mm <= dcuda else (COMPAT if mm[0] == dcuda[0] else NO)
    if support == TOOLKIT and mm > dcuda:
        return COMPAT
    return support
