"""The doctor: probes gather facts into a snapshot, rules (torch_envcheck.doctor.rules) turn the
snapshot into findings, renderers print the report.  A saved snapshot or report can be diagnosed
again anywhere (`torch-envcheck --from-json FILE`).

    collect(timeout=5.0) -> snapshot dict      (schema torch_envcheck.snapshot/1, contract.normalise()d)
    report(snapshot)     -> report dict        (schema torch_envcheck.report/1)

Causes before symptoms: a finding whose code is named in another finding's `explains` gets
"explained_by": <the cause's code>; the renderers fold it under its cause, and the per-area summary,
the verdict and the exit status count only findings that are not explained.
    diagnose(snapshot=None) -> report dict     (collects first when no snapshot is given)
"""

from __future__ import annotations

import datetime as _dt

from torch_envcheck._util import bounds
from torch_envcheck._version import __version__
from torch_envcheck.doctor.areas import AREAS, OPTIONAL_AREAS, areas_for
from torch_envcheck.facts.contract import normalise
from torch_envcheck.doctor.finding import SEVERITIES
from torch_envcheck.facts.snapshot import REPORT_SCHEMA, SNAPSHOT_SCHEMA, jsonable

__all__ = ["AREAS", "OPTIONAL_AREAS", "SEVERITIES", "areas_for", "collect", "report", "diagnose", "SNAPSHOT_SCHEMA", "REPORT_SCHEMA"]


def _tool_version() -> str:
    return __version__


def collect(timeout: float = 5.0, only=None, torch_timeout: float | None = None, tensorflow: bool = True) -> dict:
    """Run the probes (all, or those named in `only`) and return the snapshot.  Never raises
    because of what it finds: failures are facts in probe_errors / driver.errors.
    tensorflow=False: TensorFlow's metadata only, without importing it in a child process."""
    # The probes, rules and renderers are imported when they run: every reader of the facts layer
    # imports this package, and must not pay for them.
    from torch_envcheck.doctor import probes  # noqa: PLC0415

    res = probes.run(timeout=timeout, only=only, torch_timeout=torch_timeout, tensorflow=tensorflow)
    snap = {
        "schema": SNAPSHOT_SCHEMA,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "tool_version": _tool_version(),
        "probe_errors": res["probe_errors"],
        "probe_seconds": res["probe_seconds"],
        "request": {"frameworks": [], "shell": None},  # the command line's --framework/--shell (commands/_source)
    }
    snap.update(res["sections"])
    # The bounds a saved report is read with (--from-json) apply here too: what this run collects,
    # its own --json can always be read back; a cut is named in probe_errors.
    snap, cut = bounds.fit_snapshot(jsonable(snap))
    bounds.note_into(snap, cut)
    return normalise(snap)


def _clean(finding) -> dict | None:
    if not isinstance(finding, dict):
        return None
    f = dict(finding)
    if f.get("severity") not in SEVERITIES:
        f["severity"] = "warning"
    f.setdefault("area", "platform")
    return f


def link_explained(findings: list[dict]) -> list[dict]:
    """Set "explained_by" on each finding another one explains (finding(..., explains=[codes])).
    The first cause wins; a cause is never explained by its own symptom (no cycles)."""
    for cause in findings:
        codes = cause.get("explains")
        if not isinstance(codes, list) or cause.get("explained_by"):
            continue
        for f in findings:
            if f is cause or f.get("code") not in codes or f.get("explained_by"):
                continue
            if f.get("severity") == "ok":
                continue  # an ok finding is not a symptom
            f["explained_by"] = cause.get("code")
    return findings


def causes(findings: list[dict]) -> list[dict]:
    """The findings that count: those no other finding explains."""
    return [f for f in findings if not f.get("explained_by")]


def summarize(findings: list[dict], snapshot=None) -> dict:
    """Worst severity per area over the findings that count (causes), in report order ("ok" where
    an area has none; the optional areas only where they apply, see areas_for)."""
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    summary = {area: "ok" for area in areas_for(snapshot, findings)}
    for f in causes(findings):
        area = f.get("area")
        if rank[f["severity"]] > rank[summary.get(area, "ok")]:
            summary[area] = f["severity"]
    return summary


def report(snapshot: dict) -> dict:
    """Diagnose a snapshot: the findings of torch_envcheck.doctor.rules, a per-area summary and
    the exit status (1 when any finding is a failure)."""
    errors = []
    try:
        from torch_envcheck.doctor import rules  # noqa: PLC0415
        raw = rules.evaluate(snapshot)
        findings = link_explained([f for f in map(_clean, raw or []) if f is not None])
    except Exception as exc:  # a crashing rule must not hide the facts already gathered
        findings = []
        errors.append(f"the rules could not run: {type(exc).__name__}: {exc}")
    summary = summarize(findings, snapshot)
    failed = bool(errors) or any(f["severity"] == "failure" for f in causes(findings))
    from torch_envcheck.doctor.render import areas as _areas  # noqa: PLC0415
    out = {
        "schema": REPORT_SCHEMA,
        "tool_version": _tool_version(),
        "snapshot": snapshot,
        "findings": jsonable(findings),
        "summary": summary,
        "areas": _areas.area_lines(snapshot, findings, summary),
        "exit_status": 1 if failed else 0,
    }
    if errors:
        out["errors"] = errors
    return out


def diagnose(snapshot: dict | None = None, timeout: float = 5.0) -> dict:
    """The report for `snapshot`, or for this environment when none is given."""
    return report(collect(timeout=timeout) if snapshot is None else snapshot)
