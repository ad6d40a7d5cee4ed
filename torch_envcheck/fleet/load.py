"""Reading a saved fleet report (`fleet --from-json FILE`): bounded, validated, and re-diagnosed with
this machine's rules.  Every rank's snapshot is checked like the doctor's --from-json checks one; a
record that fails becomes a "garbage" rank with the reason, so one bad rank never hides the rest.
The group and bandwidth results are measurements, kept as recorded (numbers and short texts only)."""

from __future__ import annotations

import json

from torch_envcheck.fleet import aggregate
from torch_envcheck.fleet import bandwidth
from torch_envcheck.fleet import FLEET_SCHEMA
from torch_envcheck.fleet.launch import MAX_WORLD

MAX_FILE = 256 << 20
MAX_TEXT = 2000


class FleetFileError(ValueError):
    """Not a fleet report; the message names what was wrong and what was expected."""


def _text(v, limit: int = MAX_TEXT):
    return v[:limit] if isinstance(v, str) else None


def _num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _rank_record(i: int, raw) -> dict:
    from torch_envcheck.facts.snapshot import SnapshotError, validate  # noqa: PLC0415

    if not isinstance(raw, dict):
        return {"rank": i, "status": "garbage", "error": f"record {i} is not an object",
                "rank_facts": None, "snapshot": None, "report": None}
    rank = raw.get("rank")
    if not isinstance(rank, int) or isinstance(rank, bool) or not 0 <= rank < MAX_WORLD:
        rank = i
    status = raw.get("status") if raw.get("status") in aggregate.STATUSES else "garbage"
    from torch_envcheck.fleet.rank_facts import normalise  # noqa: PLC0415
    rec = {"rank": rank, "status": status, "error": _text(raw.get("error")),
           "rank_facts": normalise(raw.get("rank_facts")) if isinstance(raw.get("rank_facts"), dict) else None,
           "snapshot": None, "report": None, "probe_seconds": _num(raw.get("probe_seconds"))}
    snap = raw.get("snapshot")
    if snap is not None:
        try:
            rec["snapshot"] = validate(snap, f"rank {rank}'s snapshot")
        except SnapshotError as exc:
            rec.update(status="garbage", error=str(exc)[:MAX_TEXT])
    return rec


def _group(raw) -> dict | None:
    if not isinstance(raw, dict):
        return None
    out = {k: _text(raw.get(k)) for k in ("backend", "gloo_group", "error", "stage", "skipped")}
    out["formed"] = raw.get("formed") is True
    out["seconds"] = _num(raw.get("seconds"))
    missing = raw.get("barrier_missing")
    out["barrier_missing"] = [r for r in missing if isinstance(r, int) and not isinstance(r, bool)][:MAX_WORLD] \
        if isinstance(missing, list) else None
    return out


def _bandwidth(raw) -> dict | None:
    if not isinstance(raw, dict):
        return None
    out = {k: _text(raw.get(k)) for k in ("backend", "device", "link", "timer", "dtype", "error", "skipped",
                                          "cap_note", "budget_note")}
    for k in ("world_size", "iters", "warmup", "cap_bytes"):
        out[k] = _num(raw.get(k))
    ops = {}
    for op, rows in (raw.get("ops") or {}).items() if isinstance(raw.get("ops"), dict) else ():
        if op in bandwidth.OPS and isinstance(rows, list):
            ops[op] = [{k: _num(r.get(k)) for k in ("bytes", "count", "iters", "time_us", "algbw_gbps", "busbw_gbps")}
                       for r in rows[:64] if isinstance(r, dict)]
    out["ops"] = ops
    return out


def _preflight(raw) -> dict | None:
    """The preflight's measurements as recorded: numbers per rank and the ring's pairs; the analysis is
    made again from them, never read."""
    if not isinstance(raw, dict):
        return None
    from torch_envcheck.fleet.preflight import FIELDS  # noqa: PLC0415
    out = {k: _text(raw.get(k)) for k in ("device", "error", "skipped")}
    for k in ("matmul_n", "matmul_flops", "triad_bytes", "link_bytes", "threads"):
        out[k] = _num(raw.get(k))
    rows = raw.get("ranks") if isinstance(raw.get("ranks"), list) else []
    out["ranks"] = [{"rank": r["rank"], **{k: _num(r.get(k)) for k in FIELDS}} for r in rows[:MAX_WORLD]
                    if isinstance(r, dict) and isinstance(r.get("rank"), int) and not isinstance(r.get("rank"), bool)]
    pairs = raw.get("pairs") if isinstance(raw.get("pairs"), list) else []
    out["pairs"] = [[p[0], p[1]] for p in pairs[:MAX_WORLD] if isinstance(p, list) and len(p) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in p)]
    for k in ("error", "skipped"):
        if out[k] is None:
            del out[k]
    ratio = _num((raw.get("analysis") or {}).get("min_ratio")) if isinstance(raw.get("analysis"), dict) else None
    if ratio is not None and 1.05 <= ratio <= 100:
        out["min_ratio"] = ratio
    return out


def parse(data, source: str = "fleet report") -> dict:
    expected = f"a torch_envcheck fleet report (schema {FLEET_SCHEMA}, from `torch-envcheck fleet --json`)"
    if not isinstance(data, dict):
        raise FleetFileError(f"{source}: expected {expected}, got {type(data).__name__}")
    schema = data.get("schema")
    if schema != FLEET_SCHEMA:
        hint = " (a single rank's report: read it with `torch-envcheck --from-json`)" \
            if isinstance(schema, str) and schema.startswith("torch_envcheck.") else ""
        raise FleetFileError(f"{source}: schema {str(schema)[:80]!r}; expected {expected}{hint}")
    ranks = data.get("ranks")
    if not isinstance(ranks, list) or not ranks:
        raise FleetFileError(f"{source}: \"ranks\" must be a non-empty list of rank records")
    if len(ranks) > MAX_WORLD:
        raise FleetFileError(f"{source}: {len(ranks)} ranks, more than the {MAX_WORLD} this tool reads")
    records = sorted((_rank_record(i, r) for i, r in enumerate(ranks)), key=lambda r: r["rank"])
    seen = set()
    for rec in records:
        if rec["rank"] in seen:
            raise FleetFileError(f"{source}: rank {rec['rank']} appears twice")
        seen.add(rec["rank"])
    timeout = _num(data.get("timeout_s"))
    rep = aggregate.build(records, group=_group(data.get("group")), bandwidth=_bandwidth(data.get("bandwidth")),
                          timeout=timeout, created=_text(data.get("created"), 64),
                          world_size=_num(data.get("world_size")) or len(records),
                          preflight=_preflight(data.get("preflight")))
    return rep


def _read(path: str) -> bytes:
    from torch_envcheck.facts.snapshot import read_bounded  # noqa: PLC0415
    return read_bounded(path, MAX_FILE, FleetFileError,
                        what="a fleet report saved with `torch-envcheck fleet --json`", pipe="a fleet report")


def load(path: str) -> dict:
    """Read a saved fleet report (a file, or "-" for stdin) with the doctor's defences against a
    stranger's file (snapshot.py: encodings, nesting depth checked before parsing, lone
    surrogates, NaN), at a fleet's size: each rank record is bounded like one report."""
    from torch_envcheck.facts import snapshot as snapmod  # noqa: PLC0415

    if not isinstance(path, str) or not path:
        raise FleetFileError("--from-json needs a file name (or '-' for standard input)")
    raw = _read(path)
    if len(raw) > MAX_FILE:
        raise FleetFileError(f"{path}: larger than {MAX_FILE >> 20} MiB; a 1024-rank fleet report is about 11 MB")
    if not raw.strip():
        raise FleetFileError(f"{path}: empty; expected a fleet report saved with `torch-envcheck fleet --json`")
    try:
        text = snapmod._decode(raw, path).lstrip("\ufeff")  # noqa: SLF001  (the doctor's one decoder)
        if "\x00" in text:
            raise FleetFileError(f"{path}: contains NUL characters; expected a fleet report")
        if snapmod._depth(text) > snapmod.MAX_DEPTH + 2:  # noqa: SLF001  (a report sits two levels down)
            raise FleetFileError(f"{path}: JSON nested more than {snapmod.MAX_DEPTH + 2} levels deep; "
                                 "a fleet report nests a few levels")
    except snapmod.SnapshotError as exc:
        raise FleetFileError(str(exc).replace("torch_envcheck report", "fleet report")) from None
    try:
        data = json.loads(text, parse_constant=snapmod._constant)  # noqa: SLF001  (NaN -> unknown)
    except RecursionError:
        raise FleetFileError(f"{path}: JSON nested too deep; expected a fleet report") from None
    except ValueError as exc:
        raise FleetFileError(f"{path}: not valid JSON (line {getattr(exc, 'lineno', '?')}): "
                             f"{str(getattr(exc, 'msg', exc)).splitlines()[0][:200]}; expected a fleet report "
                             "saved with `torch-envcheck fleet --json`") from None
    if isinstance(data, dict) and isinstance(data.get("ranks"), list):
        if len(data["ranks"]) > MAX_WORLD:
            raise FleetFileError(f"{path}: {len(data['ranks'])} ranks, more than the {MAX_WORLD} this tool reads")
        cleaned = []
        for i, rec in enumerate(data["ranks"]):
            try:  # each rank's record bounded like one report; a bad one is that rank's problem only
                cleaned.append(snapmod._clean(rec, path, [snapmod.MAX_NODES]))  # noqa: SLF001
            except snapmod.SnapshotError as exc:
                cleaned.append({"rank": i, "status": "garbage", "error": str(exc)[:MAX_TEXT]})
        data["ranks"] = cleaned
        for key in ("group", "bandwidth", "preflight"):
            try:
                data[key] = snapmod._clean(data.get(key), path, [100_000])  # noqa: SLF001
            except snapmod.SnapshotError:
                data[key] = None
    return parse(data, path)
