"""Which torch a Jetson board takes (data/jetpack_wheels.json): NVIDIA's wheel for its JetPack
release, found by the L4T (Jetson Linux) release /etc/nv_tegra_release names, or, from JetPack 7
(L4T R38) on, the server-aarch64 wheels of the PyTorch index, whose code runs on Jetson from CUDA
13.2 (torch's DEVICE_REQUIREMENT_POST_JETSON_SBSA_UNIFICATION)."""

from __future__ import annotations

import re

from torch_envcheck._util.versions import major_minor, version_tuple
from torch_envcheck.knowledge.tables import load_table

TABLE = "jetpack_wheels.json"
# /etc/nv_tegra_release's first line, as the platform probe keeps it: "R36 (release), REVISION: 4.3"
_L4T = re.compile(r"R(\d+)\s*(?:\([^)]*\))?\s*,?\s*REVISION:\s*(\d+)(?:\.(\d+))?", re.IGNORECASE)


def parse_l4t(text) -> tuple[int, int, int] | None:
    """'R36 (release), REVISION: 4.3' -> (36, 4, 3); '36.4.3' -> (36, 4, 3); None when unreadable."""
    if not isinstance(text, str):
        return None
    m = _L4T.search(text)
    if m:
        return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    t = version_tuple(text) if re.fullmatch(r"\s*R?\d+(\.\d+){1,2}\s*", text) else None
    return (t + (0, 0))[:3] if t else None


def l4t_text(l4t: tuple | None) -> str:
    return "R" + ".".join(str(x) for x in l4t) if l4t else "unknown"


def table() -> dict:
    return load_table(TABLE)


def source(row: dict) -> dict:
    """The row's source ({'title', 'url'}) from the table's sources."""
    return table().get("sources", {}).get(row.get("source"), {})


def sbsa_wheels_run(l4t: tuple | None) -> bool:
    """JetPack 7 (L4T R38) and later: the PyTorch index's aarch64 (SBSA) wheels serve the board (Thor's
    sm_110 is in their arch lists; from CUDA 13.2 SBSA code runs on Jetson), so the ordinary
    recommendation, which checks the arch list against the GPU, applies."""
    floor = int(table().get("sbsa_from_l4t") or 38)
    return bool(l4t) and l4t[0] >= floor


def row_for(l4t: tuple | None) -> dict | None:
    """The JetPack row whose L4T releases include this one ('36.4' covers R36.4.0 and R36.4.3)."""
    if not l4t:
        return None
    for row in table().get("rows", []):
        for prefix in row.get("l4t", []):
            p = version_tuple(prefix) or ()
            if p and tuple(l4t[:len(p)]) == tuple(p):
                return row
    return None


def wheel_for(l4t: tuple | None, python_version) -> dict:
    """What a Jetson on this L4T release with this Python installs: {'kind': 'jetpack', 'row', ...},
    {'kind': 'sbsa'} (the PyTorch index's wheels), or {'kind': None, 'why'} when no wheel in the
    table fits (an unknown L4T release, or a Python the JetPack wheel was not built for)."""
    if sbsa_wheels_run(l4t):
        return {"kind": "sbsa", "why": f"JetPack 7 or later ({l4t_text(l4t)}, CUDA 13): the PyTorch index's aarch64 "
                                       "wheels carry code for this generation of Jetson, so the ordinary "
                                       "recommendation applies"}
    row = row_for(l4t)
    if row is None:
        known = ", ".join(f"JetPack {r['jetpack']} (L4T R{'/R'.join(r['l4t'])})" for r in table().get("rows", []))
        return {"kind": None, "why": f"L4T {l4t_text(l4t)} is not in the JetPack wheel table ({known})"}
    py = major_minor(python_version)
    want = major_minor(row.get("python"))
    if py is not None and want is not None and py != want:
        return {"kind": None, "row": row,
                "why": f"NVIDIA's wheel for JetPack {row['jetpack']} is built for Python {row['python']} "
                       f"(the system Python of that JetPack), not {python_version}"}
    return {"kind": "jetpack", "row": row,
            "why": f"JetPack {row['jetpack']} (L4T {l4t_text(l4t)}): NVIDIA's torch {row['torch']} wheel for "
                   f"Python {row['python']} and CUDA {row['cuda']} ({source(row).get('url', 'NVIDIA')})"
                   + (" [row marked unverified]" if row.get("unverified") else "")}
