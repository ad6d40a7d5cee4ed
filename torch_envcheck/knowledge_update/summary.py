"""What the doctor knows and from when (`torch-envcheck knowledge show`): each shipped
table's date and newest row, and the overlay's date, sources and what it adds."""

from __future__ import annotations

import os

from torch_envcheck import knowledge as kb


def _newest(name: str, table: dict) -> str | None:
    if name == kb.RELEASES_FILE:
        rels = sorted(table.get("releases", []), key=lambda r: kb.version_tuple(r["torch"]) or ())
        if not rels:
            return None
        r = rels[-1]
        return f"torch {r['torch']} (builds {', '.join(b['tag'] for b in r.get('builds', [])) or 'none'})"
    if name == kb.DRIVERS_FILE:
        rows = sorted(table.get("toolkit_minimums", []), key=lambda r: kb.version_tuple(r["cuda"]) or ())
        return f"CUDA {rows[-1]['cuda']} (Linux driver >= {rows[-1].get('linux') or '?'})" if rows else None
    if name == kb.CAPABILITIES_FILE:
        keys = sorted(table.get("device_requirement", {}), key=lambda k: kb.version_tuple(k) or ())
        return f"compute capability {keys[-1]}" if keys else None
    if name == "tensorflow_builds.json":
        rows = sorted(table.get("builds", []), key=lambda r: kb.version_tuple(r["tensorflow"]) or ())
        return f"TensorFlow {rows[-1]['tensorflow']}" if rows else None
    if name == "docker_images.json":
        p = table.get("latest_patch", {})
        return f"torch {max(p.values(), key=lambda v: kb.version_tuple(v) or ())}" if p else None
    if name == "conda_cuda.json":
        return None
    if name == "jetpack_wheels.json":
        rows = table.get("rows", [])
        return f"JetPack {rows[0]['jetpack']} (torch {rows[0]['torch']})" if rows else None
    return None


TABLES = (kb.RELEASES_FILE, kb.DRIVERS_FILE, kb.CAPABILITIES_FILE, "tensorflow_builds.json", "docker_images.json",
          "conda_cuda.json", "jetpack_wheels.json", "windows_dll_search.json")


def known() -> dict:
    """{'tables': [{name, updated, newest (shipped), newest_with_overlay}], 'overlay': {...} | None}."""
    import json  # noqa: PLC0415
    from torch_envcheck.knowledge import overlay  # noqa: PLC0415
    from torch_envcheck.knowledge_update import update  # noqa: PLC0415
    out = {"tables": [], "overlay": None, "overlay_path": overlay.path(), "data_dir": kb.DATA_DIR}
    for name in TABLES:
        try:
            with open(os.path.join(kb.DATA_DIR, name), encoding="utf-8") as fh:
                raw = json.load(fh)
            merged = kb.load_table(name)
        except (OSError, ValueError, kb.KnowledgeError) as exc:
            out["tables"].append({"name": name, "error": str(exc)})
            continue
        out["tables"].append({"name": name, "updated": raw.get("updated"), "newest": _newest(name, raw),
                              "newest_with_overlay": _newest(name, merged) if merged is not raw else None})
    ov = overlay.load()
    if ov is not None:
        out["overlay"] = {"fetched": ov["fetched"], "sources": ov["sources"], "tool_version": ov.get("tool_version"),
                          "adds": update.describe(ov)}
    return out


def render(info: dict) -> str:
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    lines = ["The doctor's knowledge tables (shipped with torch_envcheck):"]
    for t in info["tables"]:
        if "error" in t:
            lines.append(f"  {t['name']:<24} unreadable: {terminal(t['error'])}")
            continue
        lines.append(f"  {t['name']:<24} updated {t['updated'] or '?':<11} newest: {terminal(t['newest'] or '-')}"
                     + (f"; with the overlay: {terminal(t['newest_with_overlay'])}"
                        if t.get("newest_with_overlay") and t["newest_with_overlay"] != t["newest"] else ""))
    ov = info["overlay"]
    if ov is None:
        lines.append(f"Overlay: none ({terminal(info['overlay_path'])}); `torch-envcheck knowledge update` writes one "
                     "from the package indexes. Offline, the shipped tables serve.")
    else:
        lines.append(f"Overlay: {terminal(info['overlay_path'])}, fetched {terminal(ov['fetched'])}"
                     + (f" by torch_envcheck {terminal(ov['tool_version'])}" if ov.get("tool_version") else ""))
        for s in ov["sources"][:20]:
            lines.append(f"  from {terminal(s)}")
        for a in ov["adds"]:
            lines.append(f"  adds {terminal(a)}")
        if not ov["adds"]:
            lines.append("  adds nothing: the shipped tables knew every release and build the indexes listed")
    return "\n".join(lines) + "\n"
