"""Which ranks, links and nodes a preflight should exclude: pure functions of the measured times.

A fleet is compared with itself, not with a fixed threshold: a time is an outlier when it is far
above the fleet's median in units of the median absolute deviation (the modified z-score of
Iglewicz and Hoaglin, |0.6745 (x - median) / MAD| > 3.5) *and* at least `min_ratio` times the median,
so that a fleet whose ranks agree to within a percent does not flag its slowest by a hair.  Only
slow is bad: a rank faster than the rest is never excluded.

Links are measured between ring neighbours (rank i and rank i+1, ping-pong, `preflight.link_pairs`),
so every rank sits on two links.  A rank whose two links are both slow is the slow end; a slow link
whose two ends each have a normal second link is the link itself (a cable, a switch port), named by
both of its nodes and not blamed on either.
"""

from __future__ import annotations

import math
import re
import statistics

Z_LIMIT = 3.5          # modified z-score above which a value is an outlier (Iglewicz & Hoaglin, 1993)
MIN_RATIO = 1.5        # and at least this many times the fleet's median
MIN_SAMPLES = 3        # fewer values have no distribution to stand out from


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def slow_outliers(values: dict, min_ratio: float = MIN_RATIO, z_limit: float = Z_LIMIT) -> dict:
    """values: key -> seconds (larger is slower; None or non-positive values are ignored).
    Returns {'median', 'mad', 'outliers': {key: ratio to the median}, 'judged': n}; with fewer than
    MIN_SAMPLES usable values, outliers is empty and 'reason' says why."""
    usable = {k: float(v) for k, v in values.items() if _finite(v)}
    out = {"median": None, "mad": None, "outliers": {}, "judged": len(usable), "reason": None}
    if len(usable) < MIN_SAMPLES:
        out["reason"] = f"{len(usable)} measured value{'s' if len(usable) != 1 else ''}: too few to compare"
        return out
    med = statistics.median(usable.values())
    mad = statistics.median(abs(v - med) for v in usable.values())
    out["median"], out["mad"] = med, mad
    for key, v in usable.items():
        if v < min_ratio * med:
            continue
        # MAD 0: most ranks are identical, so anything past the ratio stands out
        z = math.inf if mad == 0 else 0.6745 * (v - med) / mad
        if z > z_limit:
            out["outliers"][key] = v / med
    return out


def attribute_links(link_times: dict, n: int, min_ratio: float = MIN_RATIO) -> dict:
    """link_times: (a, b) -> seconds for the ring links a -> b.  Returns {'ranks': {rank: [links]},
    'links': [(a, b, ratio)], 'judged': analysis of slow_outliers}: ranks whose every measured link
    is slow, and the slow links no single rank explains."""
    analysis = slow_outliers(link_times, min_ratio)
    slow = analysis["outliers"]
    touching: dict[int, list] = {}
    for (a, b) in link_times:
        if _finite(link_times[(a, b)]):
            touching.setdefault(a, []).append((a, b))
            touching.setdefault(b, []).append((a, b))
    ranks = {}
    for rank, links in touching.items():
        # one link only (two ranks, or the other was not measured): it cannot tell its two ends apart
        if len(links) >= 2 and all(link in slow for link in links):
            ranks[rank] = sorted(links)
    explained = {link for links in ranks.values() for link in links}
    lone = [(a, b, slow[(a, b)]) for (a, b) in sorted(slow) if (a, b) not in explained]
    return {"ranks": ranks, "links": lone, "analysis": analysis}


_HOST_RE = re.compile(r"^(.*?)(\d+)$")


def hostlist(hosts) -> str:
    """Slurm's compressed hostlist form: ['node01', 'node02', 'node03', 'node07', 'gpu5'] ->
    'gpu5,node[01-03,07]'.  Numbers keep their zero padding; only names ending in digits are grouped."""
    groups: dict[tuple[str, int], list[int]] = {}
    plain: list[str] = []
    for h in sorted(set(hosts)):
        m = _HOST_RE.match(h)
        if not m or not m.group(1) or "[" in h or "," in h:
            plain.append(h)
            continue
        digits = m.group(2)
        width = len(digits) if digits.startswith("0") and len(digits) > 1 else 0
        groups.setdefault((m.group(1), width), []).append(int(digits))
    parts = list(plain)
    for (prefix, width), nums in sorted(groups.items()):
        nums = sorted(set(nums))
        if len(nums) == 1:
            parts.append(f"{prefix}{nums[0]:0{width}d}")
            continue
        ranges, i = [], 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            ranges.append(f"{nums[i]:0{width}d}" if i == j else f"{nums[i]:0{width}d}-{nums[j]:0{width}d}")
            i = j + 1
        parts.append(f"{prefix}[{','.join(ranges)}]")
    return ",".join(sorted(parts))


def judge(preflight: dict | None, hosts: dict, min_ratio: float = MIN_RATIO) -> dict | None:
    """The preflight's verdict from rank 0's gathered results.  hosts: rank -> host name.

    Returns {'compute': {metric: analysis}, 'links': the link analysis, 'slow_ranks': [{rank, host,
    reasons}], 'slow_links': [{ranks, hosts, ratio, kind}], 'exclude': [hosts]}; None without results."""
    if not isinstance(preflight, dict) or not isinstance(preflight.get("ranks"), list):
        return None
    rows = {r.get("rank"): r for r in preflight["ranks"] if isinstance(r, dict) and isinstance(r.get("rank"), int)}
    n = len(rows)
    out = {"compute": {}, "slow_ranks": {}, "slow_links": [], "exclude": [], "min_ratio": min_ratio}
    # torch's matmul and the triad judge a rank; the extension's sgemm is shown beside them, not judged
    # (a third metric would be a third chance for noise to pass the bar)
    for metric in ("matmul_s", "triad_s"):
        analysis = slow_outliers({r: row.get(metric) for r, row in rows.items()}, min_ratio)
        out["compute"][metric] = analysis
        for rank, ratio in analysis["outliers"].items():
            out["slow_ranks"].setdefault(rank, []).append(f"{metric[:-2]} {ratio:.1f}x the fleet's median")
    times = {}
    for a, b in (tuple(p) for p in preflight.get("pairs") or [] if isinstance(p, list) and len(p) == 2):
        if a in rows:
            times[(a, b)] = rows[a].get("link_s")
    links = attribute_links(times, n, min_ratio)
    out["links"] = {"median": links["analysis"]["median"], "judged": links["analysis"]["judged"],
                    "reason": links["analysis"]["reason"]}
    ratios = links["analysis"]["outliers"]
    for rank, slow in links["ranks"].items():
        worst = max(ratios[link] for link in slow)
        out["slow_ranks"].setdefault(rank, []).append(
            f"both ring links {worst:.1f}x the fleet's median round trip")
    for a, b, ratio in links["links"]:
        ha, hb = hosts.get(a), hosts.get(b)
        out["slow_links"].append({"ranks": [a, b], "hosts": [ha, hb], "ratio": ratio,
                                  "kind": "within a node" if ha is not None and ha == hb else "between nodes"})
    out["exclude"] = sorted({hosts.get(r) for r in out["slow_ranks"]} - {None})
    # a list, not a dict keyed by rank: JSON keys are strings, and the saved report is read back
    out["slow_ranks"] = [{"rank": r, "host": hosts.get(r), "reasons": out["slow_ranks"][r]}
                         for r in sorted(out["slow_ranks"])]
    return out
