"""Fleet findings from the preflight (fleet/outliers.judge) and from each rank's GPU health
(rank_facts.health, fleet/health.py): which nodes to exclude and why.  Pure functions of the rank
records and of rank 0's analysis; every finding names its nodes in `details['hosts']`, and the
ones that exclude a node say so in `details['exclude']`."""

from __future__ import annotations

from torch_envcheck._util.escape import shell_quote
from torch_envcheck.doctor.finding import finding
from torch_envcheck.doctor.report import findings_from
from torch_envcheck.fleet.table import ranks_label
from torch_envcheck.knowledge import xid as xid_table


def _host(rec) -> str | None:
    facts = rec.get("rank_facts") if isinstance(rec.get("rank_facts"), dict) else {}
    return facts.get("host") if isinstance(facts.get("host"), str) else None


def _health(rec) -> dict:
    facts = rec.get("rank_facts") if isinstance(rec.get("rank_facts"), dict) else {}
    h = facts.get("health")
    return h if isinstance(h, dict) else {}


def _int(v) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _where(ranks, hosts) -> str:
    hs = sorted(set(hosts) - {None})
    shown = ", ".join(hs[:4]) + (f" and {len(hs) - 4} more" if len(hs) > 4 else "")
    return f"{ranks_label(ranks)}" + (f" ({'node' if len(hs) == 1 else 'nodes'} {shown})" if hs else "")


def preflight(records, analysis: dict | None, preflight_result: dict | None) -> list[dict]:
    """TE958 slow nodes (exclude), TE959 a slow link no node explains, TE960 a preflight that could
    not measure or judge."""
    if preflight_result is None:
        return []
    out = []
    if not isinstance(analysis, dict) or preflight_result.get("error") or preflight_result.get("skipped"):
        why = preflight_result.get("error") or preflight_result.get("skipped") or "no results"
        return [finding("TE960", "warning", f"the preflight could not measure the fleet: {why}",
                        "Without its measurements no node can be named as slow; the stack checks above still hold.",
                        None, {})]
    slow = analysis.get("slow_ranks") or []
    if slow:
        ranks = [s["rank"] for s in slow]
        hosts = [s.get("host") for s in slow]
        why = "; ".join(f"rank {s['rank']}: {', '.join(s['reasons'])}" for s in slow[:8])
        exclude = analysis.get("exclude") or []
        out.append(finding(
            "TE958", "failure", f"{_where(ranks, hosts)} {'is' if len(ranks) == 1 else 'are'} far slower than the "
                                f"rest of the fleet ({why})",
            "Measured side by side: every rank timed the same matmul and memory-bound op, and pinged its ring "
            "neighbours, at the same moment. A rank far outside the fleet's spread (median absolute deviation) "
            f"and at least {analysis.get('min_ratio', 1.5):g}x the median would make every step of a synchronous "
            "job wait for it: a GPU or CPU held at low clocks (thermal, power), a degraded PCIe or network link, "
            "or a noisy neighbour. Leave the node out of the job and check it (nvidia-smi -q -d PERFORMANCE,CLOCK).",
            # host names come from the ranks' payloads: quoted, so a hostile name stays a word
            "sbatch --exclude=" + shell_quote(",".join(exclude)) + " ...   # or the hostfile fleet --exclude-file writes"
            if exclude else None,
            {"ranks": ranks, "hosts": sorted(set(hosts) - {None}), "exclude": exclude}))
    for link in analysis.get("slow_links") or []:
        a, b = link["ranks"]
        ha, hb = link.get("hosts") or [None, None]
        out.append(finding(
            "TE959", "warning", f"the link from rank {a} ({ha}) to rank {b} ({hb}), {link.get('kind')}, is "
                                f"{link.get('ratio', 0):.1f}x slower than the fleet's median round trip",
            "Both ranks are fast on their other link, so neither node is slow: the path between them is "
            "(a cable, a switch port, a NIC with errors, or a PCIe/NVLink path inside the node).",
            None, {"ranks": [a, b], "hosts": sorted({ha, hb} - {None})}))
    if not out and analysis.get("links", {}).get("reason") and len(records) > 1:
        out.append(finding("TE960", "warning", f"the preflight could not judge the links: {analysis['links']['reason']}",
                           "Three or more ranks are needed to tell a slow link from a slow node.", None, {}))
    return out


def _by_host(records, pick) -> tuple[list[int], list]:
    ranks, hosts = [], []
    for rec in records:
        if pick(_health(rec)):
            ranks.append(rec["rank"])
            hosts.append(_host(rec))
    return ranks, hosts


def gpu_health(records) -> list[dict]:
    """TE961-TE967 from each rank's GPU health facts."""
    out = []

    def add(code, severity, pick, what, why, fix, exclude: bool):
        ranks, hosts = _by_host(records, pick)
        if ranks:
            details = {"ranks": ranks, "hosts": sorted(set(hosts) - {None})}
            if exclude:
                details["exclude"] = details["hosts"]
            out.append(finding(code, severity, f"{_where(ranks, hosts)}: {what}", why, fix, details))

    add("TE961", "failure", lambda h: _int(h.get("ecc_uncorrected_volatile")) > 0,
        "uncorrectable ECC errors since the driver loaded",
        "An uncorrectable (double-bit) memory error means data on that GPU was lost or corrupted; NVIDIA's "
        "guidance is to drain the node and reset the GPU, and to service it if the errors come back.",
        "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT   # on the node; then drain it and reset the GPU", True)
    add("TE962", "failure", lambda h: h.get("remapping_failed") is True,
        "row remapping failed (no spare rows left)",
        "The GPU could not remap a failing memory row: it needs servicing (NVIDIA's row remapping guide).",
        "nvidia-smi -q -d ROW_REMAPPER   # on the node; take the GPU out of service", True)
    add("TE962", "warning", lambda h: h.get("remapping_pending") is True and h.get("remapping_failed") is not True,
        "a memory row remapping waits for a GPU reset",
        "The GPU recorded a failing row; the remap takes effect at the next reset. Until then the row is still used.",
        "nvidia-smi -r -i <GPU>   # reset the GPU (no process may use it), or reboot the node", False)
    add("TE963", "warning", lambda h: h.get("retired_pages_pending") is True,
        "retired memory pages wait for a reset",
        "Pages retired after ECC errors are excluded from use only after the GPU is reset.",
        "nvidia-smi -r -i <GPU>   # or reboot the node", False)
    add("TE964", "warning", lambda h: bool(h.get("clock_event_reasons")),
        "clocks held down by " + "the hardware",
        "NVML reports an active thermal, power or hardware slowdown: the GPU runs below its clocks while it "
        "lasts, and every rank of a synchronous job waits for it.",
        "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER   # on the node: check cooling and power", False)
    add("TE965", "warning", lambda h: _int(h.get("pcie_width_max")) > 0 and 0 < _int(h.get("pcie_width")) < _int(h.get("pcie_width_max")),
        "the PCIe link runs narrower than the device supports",
        "A link trained to fewer lanes (e.g. x8 of x16) halves host-device bandwidth: a badly seated card, a "
        "riser or a slot fault. (The link generation may drop at idle to save power; the width does not.)",
        "nvidia-smi -q -d PCIE   # on the node; reseat or move the card", False)
    add("TE966", "warning", lambda h: _int(h.get("nvlink_active")) > 0 and _int(h.get("nvlink_inactive")) > 0,
        "some NVLinks are down while others are up",
        "Traffic between GPUs falls back to fewer links (or PCIe): collectives inside the node slow down.",
        "nvidia-smi nvlink --status   # on the node", False)

    hardware, reset = {}, {}
    for rec in records:
        for x in _health(rec).get("xid") or []:
            row = xid_table.describe(x.get("xid")) if isinstance(x, dict) else None
            if row and row["kind"] == "hardware":
                hardware.setdefault(rec["rank"], set()).add(row["xid"])
            elif row and row["kind"] == "reset":
                reset.setdefault(rec["rank"], set()).add(row["xid"])
    by_rank = {r["rank"]: r for r in records}
    for severity, seen, why, exclude in (
            ("failure", hardware, "Xids NVIDIA's catalog attributes to the hardware: drain the node and "
                                  "follow the catalog's action for each.", True),
            ("warning", reset, "Xids that a GPU reset clears (NVIDIA's Xid catalog).", False)):
        if not seen:
            continue
        ranks = sorted(seen)
        hosts = [_host(by_rank[r]) for r in ranks]
        names = sorted({f"Xid {x} ({xid_table.describe(x)['name']})" for r in ranks for x in seen[r]})
        details = {"ranks": ranks, "hosts": sorted(set(hosts) - {None}), "xids": sorted({x for r in ranks for x in seen[r]})}
        if exclude:
            details["exclude"] = details["hosts"]
        out.append(finding("TE967", severity, f"{_where(ranks, hosts)}: the driver logged {', '.join(names[:6])}",
                           why, "journalctl -k | grep -i xid   # on the node", details))
    return out


def exclude_hosts(findings) -> list[str]:
    """The nodes the findings say to leave out of the job."""
    hosts = set()
    for f in findings_from(list(findings)):
        if f.severity == "failure":
            hosts.update(h for h in f.details.get("exclude") or [] if isinstance(h, str))
    return sorted(hosts)
