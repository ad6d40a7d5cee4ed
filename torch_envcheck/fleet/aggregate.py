"""Rank 0's side: turn what arrived (payload bytes per rank, or nothing) into rank records, diagnose
each rank's snapshot with the doctor's rules, and assemble the fleet report (schema
torch_envcheck.fleet/1) that the renderers print and `fleet --from-json` reads back.

Ranks of one job mostly share one stack, so a rank's findings are cached under its snapshot minus
the fields that differ on every run (timestamps, probe timings): 1024 ranks cost a few distinct
diagnoses, not 1024."""

from __future__ import annotations

import datetime as _dt
import json

from torch_envcheck.doctor import report as doctor_report
from torch_envcheck.doctor.report import rank_report_from, rank_summary
from torch_envcheck.facts import core as F
from torch_envcheck.fleet import rules
from torch_envcheck.fleet.records import counted
from torch_envcheck.fleet import table
from torch_envcheck.fleet import wire
from torch_envcheck.fleet import FLEET_SCHEMA

STATUSES = ("ok", "late", "missing", "garbage")


def _stable_key(snap: dict) -> str:
    return json.dumps(F.stable_key(snap), sort_keys=True, separators=(",", ":"), default=str)


def short_report(snap: dict) -> dict:
    """The part of the doctor's report a rank record keeps."""
    return rank_summary(doctor_report.build(snap))


def use_rank_report(payload: dict) -> dict | None:
    """The report a rank computed for itself, when rank 0 can take it as its own: the same
    torch_envcheck version (so the same rules) and a well-formed report (report.rank_report_from).
    Else None, and rank 0 diagnoses the snapshot itself."""
    from torch_envcheck._version import __version__  # noqa: PLC0415

    if payload.get("tool_version") != __version__:
        return None
    return rank_report_from(payload.get("report"))


class Diagnoser:
    def __init__(self):
        self._cache: dict[str, dict] = {}
        self.distinct = 0

    def __call__(self, snap: dict) -> dict:
        key = _stable_key(snap)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = short_report(snap)
            self.distinct += 1
        return hit


def record_from_arrival(rank: int, arrival: dict | None) -> dict:
    """One rank's record from what the store held for it."""
    arrival = arrival or {}
    hello = arrival.get("hello") if isinstance(arrival.get("hello"), dict) else None
    rec = {"rank": rank, "status": "missing", "error": None, "rank_facts": None, "snapshot": None, "report": None}
    if hello:
        from torch_envcheck.fleet.rank_facts import normalise  # noqa: PLC0415
        rec["rank_facts"] = normalise({k: hello.get(k) for k in ("host", "pid", "local_rank", "torch") if k in hello})
        rec["rank_facts"]["rank"] = rank
    data = arrival.get("data")
    if data is None:
        if hello or arrival.get("arrived"):
            rec["status"] = "late"
            rec["error"] = "no snapshot before rank 0's deadline"
        return rec
    try:
        payload = wire.decode(data, rank)
    except wire.WireError as exc:
        rec["status"] = "garbage"
        rec["error"] = str(exc)[:400]
        return rec
    rec["rank_facts"] = payload["rank_facts"]
    rec["snapshot"] = payload.get("snapshot")
    if rec["snapshot"] is not None:
        rec["report"] = use_rank_report(payload)
    secs = payload.get("probe_seconds")
    rec["probe_seconds"] = secs if isinstance(secs, (int, float)) and not isinstance(secs, bool) else None
    if payload.get("probe_error") or rec["snapshot"] is None:
        rec["status"] = "late"
        rec["error"] = str(payload.get("probe_error") or "no snapshot")[:400]
    else:
        rec["status"] = "ok"
    return rec


def diagnose_records(records, diagnoser=None) -> dict:
    """Diagnose the records that carry a snapshot but no report yet (from a rank of another
    torch_envcheck version, or read back with --from-json)."""
    diagnoser = diagnoser or Diagnoser()
    from_ranks = 0
    for rec in records:
        if not isinstance(rec.get("snapshot"), dict):
            continue
        if isinstance(rec.get("report"), dict):
            from_ranks += 1
        else:
            rec["report"] = diagnoser(rec["snapshot"])
    return {"diagnosed_by_rank_0": diagnoser.distinct, "diagnosed_by_their_rank": from_ranks}


def verdict(records, findings) -> dict:
    counts = {s: sum(1 for r in records if r["status"] == s) for s in STATUSES}
    failing = sum(1 for r in records if counted(r, "failure"))
    n_fail = sum(1 for f in findings if f.severity == "failure")
    n_warn = sum(1 for f in findings if f.severity == "warning")
    warned = sum(1 for r in records if counted(r, "warning"))
    status = "failure" if n_fail or failing else "warning" if n_warn or warned else "ok"
    n = len(records)
    parts = [f"{counts['ok']} of {n} rank{'s' if n != 1 else ''} reported"]
    parts += [f"{counts[s]} {s}" for s in ("missing", "late", "garbage") if counts[s]]
    if failing:
        parts.append(f"{failing} with failures")
    if warned:
        parts.append(f"{warned} with warnings")
    parts.append(f"{n_fail} fleet failure{'s' if n_fail != 1 else ''}, {n_warn} fleet warning{'s' if n_warn != 1 else ''}")
    return {"status": status, "exit_status": 1 if status == "failure" else 0, "text": "; ".join(parts),
            "counts": dict(counts, with_failures=failing, with_warnings=warned)}


def build(records, group=None, bandwidth=None, timeout=None, created=None, diagnoser=None, world_size=None,
          preflight=None, min_ratio=None) -> dict:
    """The fleet report from rank records (each already carrying its doctor report or not).
    `preflight`: rank 0's gathered preflight results (fleet --preflight), judged here."""
    from torch_envcheck._version import __version__  # noqa: PLC0415
    from torch_envcheck.fleet import outliers  # noqa: PLC0415

    table.reset()
    stats = diagnose_records(records, diagnoser)
    errors = []
    analysis = None
    if isinstance(preflight, dict) and not preflight.get("error") and not preflight.get("skipped"):
        hosts = {r["rank"]: (r.get("rank_facts") or {}).get("host") for r in records}
        analysis = outliers.judge(preflight, hosts, min_ratio or preflight.get("min_ratio") or outliers.MIN_RATIO)
    findings = rules.evaluate(records, group=group, bandwidth=bandwidth, timeout=timeout, errors=errors,
                              preflight=preflight, analysis=analysis)
    try:
        hetero = table.build(records)
        same = table.common(records, {row["key"] for row in hetero})
    except Exception as exc:
        hetero, same = [], []
        errors.append(f"the heterogeneity table could not be built: {type(exc).__name__}: {exc}")
    v = verdict(records, findings)
    if errors:
        v.update(status="failure", exit_status=1)
    out = {
        "schema": FLEET_SCHEMA, "tool_version": __version__,
        "created": created or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "world_size": world_size if world_size is not None else len(records),
        "timeout_s": timeout, "verdict": v, "findings": [f.to_dict() for f in findings], "heterogeneity": hetero, "same_on_every_rank": same,
        "group": group, "bandwidth": bandwidth, "ranks": records,
        "stats": stats,
    }
    if preflight is not None:
        out["preflight"] = dict(preflight, analysis=analysis)
    exclude = rules.exclude_hosts(findings)
    if preflight is not None or exclude:
        out["exclude"] = {"hosts": exclude, "slurm": outliers.hostlist(exclude)}
    if errors:
        out["errors"] = errors
    table.reset()
    return out
