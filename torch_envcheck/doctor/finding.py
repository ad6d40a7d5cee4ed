"""A finding, the item of a report's "findings" (schema torch_envcheck.report/1), and `finding()`,
the one constructor the rules call.  Code, slug and area come from codes.py, so a rule cannot
mistype them; the fields are checked by tests/unit/rules (every finding of every recorded snapshot).

`Finding` is a frozen dataclass: what the report does to a finding (hide it, outrank it, check its
fix, link it under its cause: doctor/report.py) makes a new one.  `to_dict()` / `from_dict()` are
its JSON form, key order included (a saved report reads back and writes out byte for byte); the
read-only mapping view (f["code"]) is that JSON form, for tests and scripts that read findings as
JSON.  Inside the package fields are read as attributes (tests/unit/contract/test_report_reads.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from torch_envcheck.doctor.codes import CODES
from torch_envcheck.facts.snapshot import jsonable

SEVERITIES = ("ok", "warning", "failure")
BASES = ("fact", "table")

# The keys of a finding's JSON object, in the order a report writes them.  The first eight are
# always written; the others only when set.  Anything else a saved report holds is kept in `extra`
# and written after them.
ALWAYS = ("code", "slug", "area", "severity", "message", "explanation", "fix", "details")
OPTIONAL = ("basis", "explains", "hides", "table_severity", "outranked_by", "explained_by")
KEYS = ALWAYS + OPTIONAL


def _text(value, default: str = "") -> str:
    return value if isinstance(value, str) else default if value is None else str(value)


def _opt_text(value) -> str | None:
    return None if value is None else _text(value)


def _codes(value) -> tuple[str, ...]:
    return tuple(_text(c) for c in value) if isinstance(value, (list, tuple)) else ()


class JsonView(Mapping):
    """The JSON form of a frozen record, read-only and built once (f["code"], rep["findings"]): for
    tests and scripts that read findings and reports as JSON; the package reads the fields."""

    def _view(self) -> dict:
        view = self.__dict__.get("_json")
        if view is None:
            view = self.to_dict()
            object.__setattr__(self, "_json", view)
        return view

    def __getitem__(self, key):
        return self._view()[key]

    def __iter__(self):
        return iter(self._view())

    def __len__(self) -> int:
        return len(self._view())


@dataclass(frozen=True, eq=True)
class Finding(JsonView):
    code: str
    slug: str
    area: str
    severity: str
    message: str
    explanation: str = ""
    fix: str | None = None
    details: dict = field(default_factory=dict)   # plain JSON data; never changed after construction
    basis: str | None = None                       # "table": inferred from a knowledge table, "fact": observed
    explains: tuple[str, ...] = ()                 # codes of the symptoms this cause folds under it
    hides: tuple[str, ...] = ()                    # codes this one removes from the report (never written)
    table_severity: str | None = None              # outranked: what the table said
    outranked_by: str | None = None                # outranked: the fact that proves the layer works
    explained_by: str | None = None                # a symptom: the code of its cause
    extra: tuple[tuple[str, Any], ...] = ()        # keys of a saved report this version does not know

    __hash__ = None  # type: ignore[assignment]  (details is a dict)

    # ------------------------------------------------------------------ what it says
    @property
    def counts(self) -> bool:
        """A cause (no other finding explains it): it counts in the summary, verdict and exit status."""
        return not self.explained_by

    @property
    def is_problem(self) -> bool:
        return self.severity in ("failure", "warning")

    def replace(self, **changes) -> "Finding":
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        out = {"code": self.code, "slug": self.slug, "area": self.area, "severity": self.severity,
               "message": self.message, "explanation": self.explanation, "fix": self.fix,
               "details": jsonable(self.details)}
        if self.basis is not None:
            out["basis"] = self.basis
        for key in ("explains", "hides"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        for key in ("table_severity", "outranked_by", "explained_by"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        for key, value in self.extra:
            out.setdefault(key, jsonable(value))
        return out

    @classmethod
    def from_dict(cls, data) -> "Finding | None":
        """A finding from its JSON object (a saved report, a rank's report), or None when `data` is not
        an object.  A severity it does not know reads as "warning", a missing area as "platform", a
        value of the wrong type as text (the values are strangers': renderers escape them)."""
        if isinstance(data, Finding):
            return data
        if not isinstance(data, Mapping):
            return None
        sev = data.get("severity")
        details = data.get("details")
        return cls(code=_text(data.get("code")), slug=_text(data.get("slug")), area=_text(data.get("area"), "platform"),
                   severity=sev if sev in SEVERITIES else "warning", message=_text(data.get("message")),
                   explanation=_text(data.get("explanation")), fix=_opt_text(data.get("fix")),
                   details=dict(details) if isinstance(details, Mapping) else {},
                   basis=_opt_text(data.get("basis")), explains=_codes(data.get("explains")),
                   hides=_codes(data.get("hides")), table_severity=_opt_text(data.get("table_severity")),
                   outranked_by=_opt_text(data.get("outranked_by")), explained_by=_opt_text(data.get("explained_by")) or None,
                   extra=tuple((str(k), v) for k, v in data.items() if k not in KEYS))



def finding(code: str, severity: str, message: str, explanation: str = "", fix: str | None = None,
            details: dict | None = None, area: str | None = None, explains=(), basis: str | None = None,
            hides=()) -> Finding:
    """One finding.  `area` overrides the code's area only for the per-area probe-failure codes.
    How a cause relates to other findings, the one mechanism (rules never call each other):
    `explains` names the codes of findings that this one causes (a symptom such as a failed CUDA
    initialisation explained by an invalid CUDA_VISIBLE_DEVICES): the report folds those under this
    one, and the verdict counts the cause.  `hides` names the codes of findings that must not appear
    beside this one at all (the report removes them): an area's "ok" finding next to a problem in
    it, or a symptom whose own text would be wrong once the cause is known.
    `basis` "table" marks a finding inferred from the knowledge tables (a driver minimum, an arch
    list) rather than observed; when a fact proves the layer works (facts.proof()), the report
    outranks it: it becomes "ok" with "outranked_by" naming the proving fact."""
    if code not in CODES:
        raise KeyError(f"unknown finding code {code!r}: add it to torch_envcheck/doctor/codes.py")
    if severity not in SEVERITIES:
        raise ValueError(f"severity must be one of {SEVERITIES}, not {severity!r}")
    slug, code_area, _title = CODES[code]
    if basis is not None and basis not in BASES:
        raise ValueError(f"basis must be one of {BASES}, not {basis!r}")
    for name, codes in (("explains", explains), ("hides", hides)):
        unknown = [c for c in codes if c not in CODES]
        if unknown:
            raise KeyError(f"{name} names unknown finding codes {unknown}")
    return Finding(code=code, slug=slug, area=area or code_area, severity=severity, message=message,
                   explanation=explanation, fix=fix, details=dict(details or {}), basis=basis,
                   explains=tuple(explains), hides=tuple(hides))
