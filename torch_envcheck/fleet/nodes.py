"""The preflight's page: one row per node (its ranks, stack, compute, links and GPU health), the
nodes to exclude first.  Built from the report alone (a saved one too), for the renderers."""

from __future__ import annotations

import statistics

from torch_envcheck.fleet import table


def _median(values):
    vals = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0]
    return statistics.median(vals) if vals else None


def _health_notes(health: dict) -> list[str]:
    notes = []
    if (health.get("ecc_uncorrected_volatile") or 0) > 0:
        notes.append(f"{health['ecc_uncorrected_volatile']} uncorrectable ECC")
    if health.get("remapping_failed"):
        notes.append("row remapping failed")
    elif health.get("remapping_pending"):
        notes.append("row remap pending")
    if health.get("retired_pages_pending"):
        notes.append("page retirement pending")
    if health.get("clock_event_reasons"):
        notes.append("clocks: " + "/".join(health["clock_event_reasons"]))
    w, wmax = health.get("pcie_width"), health.get("pcie_width_max")
    if isinstance(w, int) and isinstance(wmax, int) and 0 < w < wmax:
        notes.append(f"PCIe x{w} of x{wmax}")
    if (health.get("nvlink_active") or 0) > 0 and (health.get("nvlink_inactive") or 0) > 0:
        notes.append(f"{health['nvlink_inactive']} NVLinks down")
    xids = sorted({x.get("xid") for x in health.get("xid") or [] if isinstance(x, dict)} - {None})
    if xids:
        notes.append("Xid " + ",".join(str(x) for x in xids[:6]))
    return notes


def rows(report: dict) -> list[dict]:
    """[{host, ranks, stack, matmul_gflops, triad_gbps, link_ms, health, exclude}] with the nodes to
    exclude first, then by host name."""
    records = [r for r in report.get("ranks") or [] if isinstance(r, dict)]
    pf = report.get("preflight") if isinstance(report.get("preflight"), dict) else {}
    measured = {r.get("rank"): r for r in pf.get("ranks") or [] if isinstance(r, dict)}
    flops, moved = pf.get("matmul_flops"), pf.get("triad_bytes")
    exclude = set((report.get("exclude") or {}).get("hosts") or [])
    by_host: dict[str, list] = {}
    for rec in records:
        host = (rec.get("rank_facts") or {}).get("host") or "unknown"
        by_host.setdefault(str(host), []).append(rec)
    out = []
    for host, recs in by_host.items():
        ranks = sorted(r["rank"] for r in recs)
        m = [measured.get(r, {}) for r in ranks]
        mm, tr = _median(x.get("matmul_s") for x in m), _median(x.get("triad_s") for x in m)
        link = [x.get("link_s") for x in m if isinstance(x.get("link_s"), (int, float))]
        notes = []
        for rec in recs:
            notes += _health_notes((rec.get("rank_facts") or {}).get("health") or {})
        row = table.row(recs[0])
        out.append({
            "host": host, "ranks": table.rank_ranges(ranks, table.LABEL_LIMIT),
            "stack": f"torch {row.get('torch') or '?'}, driver {row.get('driver') or '?'}",
            "matmul_gflops": flops / mm / 1e9 if mm and isinstance(flops, (int, float)) else None,
            "triad_gbps": moved / tr / 1e9 if tr and isinstance(moved, (int, float)) else None,
            "link_ms": max(link) * 1e3 if link else None,
            "health": "; ".join(sorted(set(notes))) or "ok",
            "exclude": host in exclude,
        })
    return sorted(out, key=lambda r: (not r["exclude"], r["host"]))


def fmt(value, spec: str) -> str:
    return format(value, spec) if isinstance(value, (int, float)) else "-"
