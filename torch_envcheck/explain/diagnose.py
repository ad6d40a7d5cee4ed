"""From a matched error to a diagnosis: the layer, the causes, which cause the machine shows (the
doctor's findings), the explanation and the fix.  Pure: the caller supplies the doctor's report
(a live probe or a saved one) or None when the machine is not checked.

    diagnose(text, report=None, machine="not checked") -> dict   (RESULT_SCHEMA, the --json object)

Fields: recognised, environment_problem, layer, signature, title, matched, captures, cause, cause_id,
cause_confirmed, causes[], explanation, fix, generic_fix, findings[], machine, on_this_machine[],
source, sources[], also[], basis ("message": a catalogue sentence, "rule": a layer rule, "entity": a rule that reads
one code or name, "reading": the default answer, a vote of the text's parts, with its confidence).  Values come from the input: renderers escape them for where they land."""

from __future__ import annotations

import re

from torch_envcheck.doctor.report import as_report
from torch_envcheck.explain import identify as _recognise

RESULT_SCHEMA = "torch_envcheck.explain/1"
# "not checked": --no-probe (or a renderer without a report); "not needed": not an environment error
MACHINE_STATES = ("probed", "from-json", "not checked", "not needed")

_FIELD = re.compile(r"\{([a-z_]{1,40})(?:\|([^{}]{0,200}))?\}")


def fill(template: str, values: dict, quote=None) -> str:
    """`template` with {name} replaced by values[name] and {name|default} by the value or the
    default.  quote(value) is applied to each value (shell quoting for a fix)."""
    def one(m: re.Match) -> str:
        value = values.get(m.group(1))
        if value in (None, ""):
            return m.group(2) if m.group(2) is not None else "?"
        return quote(str(value)) if quote else str(value)
    return _FIELD.sub(one, template or "")


def fields(template: str) -> list:
    """The (name, has_default) pairs of a template (the catalogue test checks them)."""
    return [(m.group(1), m.group(2) is not None) for m in _FIELD.finditer(template or "")]


_VIEW = ("code", "slug", "area", "severity", "message", "fix", "explained_by")


def _finding_view(f) -> dict:
    """The fields of a doctor's finding the result quotes (RESULT_SCHEMA's findings[])."""
    data = f.to_dict()
    return {k: data[k] for k in _VIEW if data.get(k) is not None}


def _shell(report) -> str:
    """The shell a fix is quoted for: the checked machine's (through the doctor's facts layer), else
    this one's."""
    from torch_envcheck.facts import core as F  # noqa: PLC0415
    from torch_envcheck._util.escape import shell_for  # noqa: PLC0415
    system = F.system(as_report(report).snapshot) if report is not None else None
    if system is None:
        import platform  # noqa: PLC0415
        system = platform.system()
    return shell_for(system)


def _companion(top, rest):
    """A layer rule's match on the top sentence's line that reads its names (a code, a library): its fix
    completes the sentence's."""
    if top.signature.raw.get("from") == "layer_rules":
        return None
    for x in rest:
        raw = x.signature.raw
        if raw.get("from") == "layer_rules" and raw.get("generic") and x.signature.environment_problem \
                and x.start <= top.end and x.end >= top.start and x.signature.fix:
            return x
    return None


def _entities_view(ent) -> dict:
    """The entities as the --json object shows them (positions dropped, empty kinds left out)."""
    d = ent.as_dict()
    for kind in ("codes", "libraries", "symbols", "abi_tags", "paths"):
        for item in d[kind]:
            item.pop("at", None)
    if isinstance(d["versions"].get("built_for"), dict):
        d["versions"]["built_for"] = {k: v for k, v in d["versions"]["built_for"].items() if k != "at"}
    return {k: v for k, v in d.items() if v}


def _owner_fix(owner: dict, generic: str, shell: str) -> str:
    """The fix for a package built for another torch, naming the installed distribution, what it requires of
    torch and the torch installed (read from the machine)."""
    from torch_envcheck._util.escape import shell_quote  # noqa: PLC0415
    name, version = owner.get("distribution"), owner.get("version")
    if not name:
        return generic
    req = owner.get("requires_torch")
    torch_v = owner.get("torch")
    lines = [f"{name} {version or ''} is installed".strip() +
             (f"; it requires {req}" if req else "; it declares no requirement on torch") +
             (f"; the installed torch is {torch_v}." if torch_v else ".")]
    lines.append(f"Install the {name} build made for torch {torch_v or 'installed'}, or rebuild it against this torch: "
                 f"pip install --no-build-isolation --no-binary {shell_quote(name, shell)} --no-cache-dir --force-reinstall "
                 f"--no-deps {shell_quote(name, shell)}")
    return "\n".join(lines) + "\n" + generic


def unrecognised(machine: str = "not checked") -> dict:
    return {"schema": RESULT_SCHEMA, "recognised": False, "environment_problem": None, "layer": None, "signature": None,
            "title": None, "matched": None, "captures": {}, "cause": None, "cause_id": None, "cause_confirmed": False,
            "causes": [], "explanation": None, "fix": None, "generic_fix": None, "findings": [], "machine": machine,
            "on_this_machine": [], "source": None, "sources": [], "also": [], "basis": None}


def diagnose(text: str, report=None, machine: str = "not checked", found: list | None = None,
             entities=None, owner: dict | None = None) -> dict:
    """The diagnosis of `text` (an error message or a log).  `report`: the doctor's report for the
    machine to check the causes on (None: not checked).  `found` / `entities`: recognise.analyse(text)
    when the caller already has them.  `owner`: the installed distribution that owns the failing file
    (owners.lookup: name, version, its Requires-Dist on torch, the installed torch), when checked."""
    if found is None:
        found, entities = _recognise.analyse(text)
    if not found:
        out = unrecognised(machine if report is not None else "not checked")
        if entities is not None:
            out["entities"] = _entities_view(entities)
        return out
    m = found[0]
    sig = m.signature
    values = m.values
    from torch_envcheck._util.escape import shell_quote  # noqa: PLC0415
    shell = _shell(report)
    out = unrecognised()
    basis = {"reading": "reading", "layer_rules": "entity" if sig.raw.get("generic") else "rule"}.get(sig.raw.get("from"),
                                                                                                     "message")
    out.update(basis=basis)
    if basis == "reading":
        out.update(confidence=sig.raw.get("confidence"))
    out.update(recognised=True, environment_problem=sig.environment_problem, layer=sig.layer, signature=sig.id,
               title=fill(sig.title, values), matched=m.line, captures=dict(values), explanation=fill(sig.explanation, values),
               source=sig.source, sources=[dict(s) for s in sig.sources],
               also=[x.signature.id for x in found[1:]])
    if entities is not None:
        out["entities"] = _entities_view(entities)
    if not sig.environment_problem:
        # Not an installation problem: no cause to look for on the machine and never a reinstall.
        out.update(fix=fill(sig.look_at, values), generic_fix=fill(sig.look_at, values), machine="not needed")
        return out
    generic = fill(sig.fix, values, quote=lambda v: shell_quote(v, shell))
    companion = _companion(m, found[1:])
    if companion is not None:
        # a sentence matched: what the names on its line say (a wheel, a CUDA version, a package) is added
        extra = fill(companion.signature.fix, companion.values, quote=lambda v: shell_quote(v, shell))
        if extra and extra not in generic:
            generic = generic + "\n" + extra
    if owner:
        out["owner"] = dict(owner)
        generic = _owner_fix(owner, generic, shell)
    report = as_report(report) if report is not None else None
    findings = report.findings if report is not None else None
    causes = []
    for c in sig.causes:
        hits = [f for f in findings or () if f.code in c.findings]
        causes.append({"id": c.id, "text": fill(c.text, values), "findings": list(c.findings),
                       "present": (bool(hits) if findings is not None else None), "_hits": hits})
    present = [c for c in causes if c["present"]]
    # A cause whose finding no other finding explains is the root: it goes first.
    present.sort(key=lambda c: all(not h.counts for h in c["_hits"]))
    chosen = present[0] if present else (causes[0] if causes else None)
    fix = generic
    if present:
        doctor_fix = next((h.fix for h in chosen["_hits"] if h.fix), None)
        fix = doctor_fix or generic
    confirming = [_finding_view(h) for c in present for h in c["_hits"]]
    seen, uniq = set(), []
    for view in confirming:
        if view["code"] not in seen:
            seen.add(view["code"])
            uniq.append(view)
    on_machine = []
    if findings is not None and not present:
        for a in sig.areas:
            info = (report.areas or {}).get(a)
            if info:
                on_machine.append(f"{info.title or a}: {info.headline or '?'} ({info.status or '?'})")
    for c in causes:
        del c["_hits"]
    out.update(cause=chosen["text"] if chosen else None, cause_id=chosen["id"] if chosen else None,
               cause_confirmed=bool(present), causes=causes, fix=fix, generic_fix=generic, findings=uniq,
               machine=machine if findings is not None else "not checked", on_this_machine=on_machine)
    return out
