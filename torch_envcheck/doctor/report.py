"""The doctor's report (schema torch_envcheck.report/1), above the rules and below the renderers.

    build(snapshot)        -> Report   (the rules' findings, assembled)
    Report.to_json()       -> str      (what `--json` prints; Report.from_json(text) reads it back, and
                                        writes it out again byte for byte)
    Report.to_dict() / Report.from_dict(obj)   the same as a JSON object

Assembling is the report's job, not the rules': of the findings the rules return (in report order),
one whose code another names in `hides` is removed; a finding inferred from a table (basis "table")
in an area a fact proves to work is outranked to "ok"; every fix is checked (rules/fixcheck.py); a
finding whose code a cause names in `explains` is linked under it ("explained_by").  Then the
summary (worst severity per area over the causes), the area lines (status, headline, causes,
symptoms) and the exit status (1 when a cause is a failure, or the rules could not run).

Renderers (terminal, JSON, Markdown, the notebook's HTML, the fleet's) take a Report and read it
through its fields and methods; nothing else in the package reads a finding's or a report's keys
(tests/unit/contract/test_report_reads.py)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass

from torch_envcheck._version import __version__
from torch_envcheck.doctor.areas import areas_for, title
from torch_envcheck.facts import core as F
from torch_envcheck.facts import memo
from torch_envcheck.doctor.finding import SEVERITIES, Finding, JsonView, finding  # noqa: F401  (finding: the rules' constructor)
from torch_envcheck.doctor.headlines import headline as _headline
from torch_envcheck.facts.snapshot import REPORT_SCHEMA, jsonable

__all__ = ["Finding", "Report", "AreaLine", "build", "finding", "SEVERITIES", "REPORT_SCHEMA"]

RANK = {s: i for i, s in enumerate(SEVERITIES)}
KEYS = ("schema", "tool_version", "snapshot", "findings", "summary", "areas", "exit_status", "errors")
UNJUDGED = "could not judge: its facts are missing from the snapshot"


def _text(value, default: str = "") -> str:
    return value if isinstance(value, str) else default if value is None else str(value)


def _texts(value) -> tuple[str, ...]:
    return tuple(_text(v) for v in value) if isinstance(value, (list, tuple)) else ()


# ---------------------------------------------------------------- assembling the rules' findings

def apply_hides(found) -> list[Finding]:
    """The one way a cause silences a finding: a finding whose code another finding names in its
    `hides` is removed (finding(..., hides=[codes])); `hides` itself is not part of a report.
    What a cause merely explains stays, folded under it (link_explained)."""
    hidden = {c for f in found for c in f.hides if c != f.code}
    return [f.replace(hides=()) if f.hides else f for f in found if f.code not in hidden]


def outrank_tables(snapshot, found) -> list[Finding]:
    """A fact that proves a layer works outranks a table that says it cannot: a non-ok finding with
    basis "table" in an area F.proof() proves becomes "ok", with "outranked_by" naming the fact and
    the table's verdict kept in "table_severity"."""
    out = []
    for f in found:
        proven = F.proof(snapshot, f.area) if f.basis == "table" and f.severity != "ok" else None
        out.append(f.replace(table_severity=f.severity, severity="ok", outranked_by=proven, fix=None) if proven else f)
    return out


def check_fixes(snapshot, found) -> list[Finding]:
    """Every fix checked before it is printed (rules/fixcheck.py): one with problems says so on its
    first line and keeps them in details["fix_problems"]."""
    from torch_envcheck.doctor.rules import fixcheck  # noqa: PLC0415  (advice: loaded when a report is built)

    out = []
    for f in found:
        if f.fix:
            fix, problems = fixcheck.checked(snapshot, f.fix)
            if problems:
                f = f.replace(fix=fix, details={**f.details, "fix_problems": problems})
        out.append(f)
    return out


def link_explained(found) -> list[Finding]:
    """Set explained_by on each finding another one explains (finding(..., explains=[codes])).
    The first cause wins; a cause is never explained by its own symptom (no cycles); an ok finding
    is not a symptom."""
    out = list(found)
    for i, cause in enumerate(out):
        if not cause.explains or cause.explained_by:
            continue
        for j, f in enumerate(out):
            if j != i and f.code in cause.explains and not f.explained_by and f.severity != "ok":
                out[j] = f.replace(explained_by=cause.code)
    return out


def assemble(snapshot, raw) -> list[Finding]:
    """The report's findings from what the rules returned (Findings; anything else is dropped)."""
    found = [f for f in map(Finding.from_dict, raw or []) if f is not None]
    return link_explained(check_fixes(snapshot, outrank_tables(snapshot, apply_hides(found))))


def findings_for(snapshot) -> list[Finding]:
    """The findings a report of `snapshot` holds: the rules' findings, assembled."""
    from torch_envcheck.doctor import rules  # noqa: PLC0415  (read at call time: tests stand in a broken one)
    with memo.reading():
        return assemble(snapshot, rules.evaluate(snapshot))


def summarize(findings, snapshot=None) -> dict[str, str]:
    """Worst severity per area over the findings that count (causes), in report order ("ok" where
    an area has none; the optional areas only where they apply, see areas.areas_for)."""
    summary = {area: "ok" for area in areas_for(snapshot, findings)}
    for f in findings:
        if f.counts and RANK[f.severity] > RANK[summary.get(f.area, "ok")]:
            summary[f.area] = f.severity
    return summary


# ---------------------------------------------------------------- the report

@dataclass(frozen=True)
class AreaLine:
    """report["areas"][area]: its status (from its findings that count, as the summary holds it), its
    headline, the codes of its causes and of its symptoms folded under other findings."""
    title: str
    status: str
    headline: str
    causes: tuple[str, ...] = ()
    explained: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"title": self.title, "status": self.status, "headline": self.headline,
                "causes": list(self.causes), "explained": list(self.explained)}

    @classmethod
    def from_dict(cls, data) -> "AreaLine | None":
        if not isinstance(data, Mapping):
            return None
        status = data.get("status")
        return cls(_text(data.get("title")), status if status in SEVERITIES else _text(status, "?"),
                   _text(data.get("headline")), _texts(data.get("causes")), _texts(data.get("explained")))


def area_lines(snapshot, findings, summary) -> dict[str, AreaLine]:
    """Per area shown: an area that could not be judged (a TEx80 finding) says so in its headline."""
    out = {}
    for area in areas_for(snapshot, findings):
        mine = [f for f in findings if f.area == area]
        unknown = any(f.slug.endswith("-unknown") and f.counts for f in mine)
        out[area] = AreaLine(title(area), summary.get(area, "ok"),
                             UNJUDGED if unknown else _headline(area, snapshot),
                             tuple(f.code for f in mine if f.counts and f.severity != "ok"),
                             tuple(f"{f.code} (explained by {f.explained_by})" for f in mine if not f.counts))
    return out


@dataclass(frozen=True)
class Report(JsonView):
    snapshot: dict
    findings: tuple[Finding, ...]
    summary: dict                                  # area -> worst severity of its causes
    areas: dict | None = None                      # area -> AreaLine; None: a report written without them
    exit_status: int = 0
    errors: tuple[str, ...] = ()                   # the doctor's own errors (the rules could not run)
    tool_version: str = __version__
    schema: str = REPORT_SCHEMA
    extra: tuple = ()                              # keys of a saved report this version does not know

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ reading it
    @property
    def causes(self) -> tuple[Finding, ...]:
        """The findings that count: those no other finding explains."""
        return tuple(f for f in self.findings if f.counts)

    @property
    def problems(self) -> tuple[Finding, ...]:
        """The causes that are failures or warnings, in report order."""
        return tuple(f for f in self.causes if f.is_problem)

    def symptoms_of(self, cause: Finding) -> tuple[Finding, ...]:
        """The findings folded under a cause (explained_by its code)."""
        return tuple(f for f in self.findings if f.explained_by and f.explained_by == cause.code)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.causes if f.severity == severity)

    @property
    def failed(self) -> bool:
        return bool(self.exit_status)

    def shown_areas(self) -> tuple[str, ...]:
        """The areas a report shows, in order (areas.areas_for)."""
        return areas_for(self.snapshot, self.findings)

    def status(self, area: str) -> str:
        sev = self.summary.get(area, "ok")
        return sev if sev in SEVERITIES else "ok"

    def area_line(self, area: str) -> AreaLine:
        """The area's line as the report holds it, or as this version would write it."""
        line = (self.areas or {}).get(area)
        return line if line is not None else AreaLine(title(area), self.status(area), _headline(area, self.snapshot))

    def headline(self, area: str) -> str:
        """The area's headline as the report holds it ("could not judge: ..." where it could not)."""
        return self.area_line(area).headline

    def facts_headline(self, area: str) -> str:
        """The area's facts in one line, read from the snapshot now."""
        return _headline(area, self.snapshot)

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        out = {"schema": self.schema, "tool_version": self.tool_version, "snapshot": self.snapshot,
               "findings": [f.to_dict() for f in self.findings], "summary": dict(self.summary)}
        if self.areas is not None:
            out["areas"] = {k: v.to_dict() for k, v in self.areas.items()}
        out["exit_status"] = self.exit_status
        if self.errors:
            out["errors"] = list(self.errors)
        for key, value in self.extra:
            out.setdefault(key, value)
        return out

    def to_json(self) -> str:
        """The report as `--json` prints it.  ASCII only: every control character, bidirectional
        override or lone surrogate in a value is written as a \\uXXXX escape, so the JSON cannot act
        on a terminal and stays valid in any encoding (a PowerShell 5.1 `>` re-encodes it as UTF-16,
        which `--from-json` reads)."""
        return json_text(self.to_dict())

    @classmethod
    def from_dict(cls, data) -> "Report":
        """A report from its JSON object.  Whatever is missing or of the wrong type reads as absent
        (a finding that is not an object is dropped); the snapshot is kept as it is (the facts layer
        reads it, whatever it holds)."""
        if isinstance(data, Report):
            return data
        data = data if isinstance(data, Mapping) else {}
        snap = data.get("snapshot")
        raw_findings = data.get("findings")
        findings = tuple(f for f in map(Finding.from_dict, raw_findings if isinstance(raw_findings, (list, tuple)) else ())
                         if f is not None)
        summary = data.get("summary")
        areas = data.get("areas")
        if isinstance(areas, Mapping):
            areas = {str(k): line for k, line in ((k, AreaLine.from_dict(v)) for k, v in areas.items())
                     if line is not None}
        else:
            areas = None
        status = data.get("exit_status")
        return cls(snapshot=snap if isinstance(snap, dict) else {}, findings=findings,
                   summary={str(k): v for k, v in summary.items()} if isinstance(summary, Mapping) else {},
                   areas=areas, exit_status=status if isinstance(status, int) and not isinstance(status, bool) else 1,
                   errors=_texts(data.get("errors")), tool_version=_text(data.get("tool_version")),
                   schema=_text(data.get("schema"), REPORT_SCHEMA),
                   extra=tuple((str(k), v) for k, v in data.items() if k not in KEYS))

    @classmethod
    def from_json(cls, text) -> "Report":
        return cls.from_dict(json.loads(text))



# ---------------------------------------------------------------- a fleet rank's report

RANK_KEYS = ("findings", "summary", "exit_status", "errors")   # what a fleet's rank record keeps of a report
MAX_RANK_FINDINGS = 200
_RANK_TEXT_LIMIT = 4000


def rank_summary(report: Report) -> dict:
    """The part of a report a fleet's rank record keeps (RANK_KEYS), as JSON."""
    data = report.to_dict()
    return {k: data[k] for k in RANK_KEYS if k in data}


def rank_report_from(data) -> dict | None:
    """A rank's own report (RANK_KEYS of a report's JSON) when rank 0 can take it as its own:
    well-formed findings with known codes, bounded texts, an exit status, a summary of known
    severities.  Else None, and rank 0 diagnoses the snapshot itself."""
    from torch_envcheck.doctor.codes import CODES  # noqa: PLC0415

    if not isinstance(data, dict):
        return None
    findings = data.get("findings")
    if not isinstance(findings, list) or len(findings) > MAX_RANK_FINDINGS:
        return None
    for f in findings:
        if not (isinstance(f, dict) and f.get("code") in CODES and f.get("severity") in SEVERITIES
                and isinstance(f.get("message"), str) and len(f["message"]) <= _RANK_TEXT_LIMIT
                and all(f.get(k) is None or isinstance(f.get(k), str) for k in ("explanation", "fix"))):
            return None
    if data.get("exit_status") not in (0, 1) or not isinstance(data.get("summary"), dict):
        return None
    # area -> severity, as the doctor writes it; anything else from the rank is not kept
    summary = {k[:40]: v for k, v in list(data["summary"].items())[:64] if isinstance(k, str) and v in SEVERITIES}
    errors = [e[:_RANK_TEXT_LIMIT] for e in data.get("errors")[:20] if isinstance(e, str)] \
        if isinstance(data.get("errors"), list) else None
    return {"findings": findings, "summary": summary, "exit_status": data["exit_status"],
            **({"errors": errors} if errors is not None else {})}


def findings_from(data) -> tuple[Finding, ...]:
    """The findings of a JSON list of them (a fleet report's own findings), objects only."""
    return tuple(f for f in map(Finding.from_dict, data if isinstance(data, (list, tuple)) else ()) if f is not None)


def as_report(report) -> Report:
    """A renderer's input as a Report: a Report, or a report's JSON object (a saved report)."""
    return Report.from_dict(report)


def json_text(data) -> str:
    """JSON as the doctor writes it (Report.to_json): indented, ASCII only, never NaN."""
    try:
        text = json.dumps(data, indent=2, ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError):  # an object json cannot write, or NaN: make it plain data
        text = json.dumps(_finite(jsonable(data)), indent=2, ensure_ascii=True, allow_nan=False)
    return text + "\n"


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def build(snapshot: dict) -> Report:
    """Diagnose a snapshot: the findings of torch_envcheck.doctor.rules, assembled; a per-area
    summary and the exit status (1 when any cause is a failure)."""
    errors = []
    try:
        findings = findings_for(snapshot)
    except Exception as exc:  # a crashing rule must not hide the facts already gathered
        findings = []
        errors.append(f"the rules could not run: {type(exc).__name__}: {exc}")
    summary = summarize(findings, snapshot)
    failed = bool(errors) or any(f.severity == "failure" for f in findings if f.counts)
    return Report(snapshot=snapshot, findings=tuple(findings), summary=summary,
                  areas=area_lines(snapshot, findings, summary), exit_status=1 if failed else 0,
                  errors=tuple(errors))


class _Module(type(json)):
    """`doctor.report(snapshot)` has always built a report, and this module took its name: calling the
    module builds one (build), so `from torch_envcheck.doctor import report; report(s)` keeps working
    whichever of the two an import finds first."""

    def __call__(self, snapshot: dict) -> Report:
        return build(snapshot)


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _Module
