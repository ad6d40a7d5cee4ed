"""Build finding dicts, the items of a report's "findings" (schema torch_envcheck.report/1): code,
slug, area, severity, message, explanation, fix, details, and optionally basis and explains (a
finding's hides is read and removed by rules.evaluate).  Code, slug and area come from codes.py, so
a rule cannot mistype them; the fields are checked by tests/unit/rules (every finding of every
recorded snapshot)."""

from __future__ import annotations

from torch_envcheck.doctor.codes import CODES

SEVERITIES = ("ok", "warning", "failure")


BASES = ("fact", "table")


def finding(code: str, severity: str, message: str, explanation: str = "", fix: str | None = None,
            details: dict | None = None, area: str | None = None, explains=(), basis: str | None = None,
            hides=()) -> dict:
    """One finding.  `area` overrides the code's area only for the per-area probe-failure codes.
    How a cause relates to other findings, the one mechanism (rules never call each other):
    `explains` names the codes of findings that this one causes (a symptom such as a failed CUDA
    initialisation explained by an invalid CUDA_VISIBLE_DEVICES): the report folds those under this
    one, and the verdict counts the cause.  `hides` names the codes of findings that must not appear
    beside this one at all (rules.evaluate removes them): an area's "ok" finding next to a problem in
    it, or a symptom whose own text would be wrong once the cause is known.
    `basis` "table" marks a finding inferred from the knowledge tables (a driver minimum, an arch
    list) rather than observed; when a fact proves the layer works (facts.proof()), the report
    outranks it: it becomes "ok" with "outranked_by" naming the proving fact."""
    if code not in CODES:
        raise KeyError(f"unknown finding code {code!r}: add it to torch_envcheck/doctor/codes.py")
    if severity not in SEVERITIES:
        raise ValueError(f"severity must be one of {SEVERITIES}, not {severity!r}")
    slug, code_area, _title = CODES[code]
    out = {"code": code, "slug": slug, "area": area or code_area, "severity": severity,
           "message": message, "explanation": explanation, "fix": fix, "details": dict(details or {})}
    if basis is not None:
        if basis not in BASES:
            raise ValueError(f"basis must be one of {BASES}, not {basis!r}")
        out["basis"] = basis
    if explains:
        unknown = [c for c in explains if c not in CODES]
        if unknown:
            raise KeyError(f"explains names unknown finding codes {unknown}")
        out["explains"] = list(explains)
    if hides:
        unknown = [c for c in hides if c not in CODES]
        if unknown:
            raise KeyError(f"hides names unknown finding codes {unknown}")
        out["hides"] = list(hides)
    return out
