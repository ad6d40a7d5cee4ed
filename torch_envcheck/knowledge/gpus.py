"""Which GPUs a build's code runs on: arch lists (TORCH_CUDA_ARCH_LIST syntax and torch's
get_arch_list() syntax), torch's own device-requirement table for SASS (cuda_capabilities.json),
PTX JIT, the Jetson (Tegra) GPUs, and the oldest GPU each cuDNN major supports."""

from __future__ import annotations

import re

from torch_envcheck._util.versions import major_minor, version_tuple
from torch_envcheck.knowledge.tables import CAPABILITIES_FILE, load_table, os_column


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
        if ptx and os_column(os_name) == "linux":
            out.append(f"compute_{mm[0]}{mm[1]}")
    return out



def _is_arm(machine: str | None) -> bool:
    return (machine or "").lower() in ("aarch64", "arm64")


def build_arch_list(build: dict, os_name: str | None = "Linux", machine: str | None = None) -> list[str] | None:
    """A build's arch list for this OS and CPU.  Linux aarch64 wheels have their own lists
    ('arch_list_linux_aarch64'); where the table has none for them, None (= unknown), never the
    x86_64 list."""
    if _is_arm(machine) and os_column(os_name) == "linux":
        spec = build.get("arch_list_linux_aarch64")
        return parse_arch_list(spec, os_name) if spec else None
    spec = build.get("arch_list")  # None for a build learned from a package index (no binary read)
    return parse_arch_list(spec, os_name) if spec else None



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
    mm = major_minor(cudnn_version)
    if not mm:
        return None
    table = load_table(CAPABILITIES_FILE)
    rows = [r for r in table.get("cudnn_min_capability_by_version") or []
            if major_minor(r.get("cudnn")) and major_minor(r.get("cudnn"))[0] == mm[0]
            and major_minor(r.get("cudnn")) <= mm]
    if rows:
        return max(rows, key=lambda r: major_minor(r["cudnn"]))["min"]
    return table["cudnn_min_capability"].get(str(mm[0]))


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
