"""The doctor's rules: pure functions snapshot -> list of findings, one module per area (the module
each doctor/areas.py record names).

`evaluate(snapshot)` runs them all in report order and never raises: a probe that crashed (listed in
snapshot["probe_errors"]) becomes a warning finding, and a rule that trips over an unexpected
snapshot is reported the same way instead of taking the whole report down.  An area whose judging
facts (its Area record's judged_by) are all unknown is not judged at all: it gets one "could not
judge" failure (TEx80) instead of findings guessed from nothing.

Rules read the snapshot only through the facts layer (`from torch_envcheck.facts import core
as F`; F.name(s)), take their tables from knowledge and their install commands from advice.  A rule
never calls another rule and a rule module never imports another (import-linter's independence
contract); how findings relate is declared on the cause: finding(..., explains=[codes]) folds a
symptom under it, finding(..., hides=[codes]) removes one; the report applies both
(doctor/report.py).
"""

from __future__ import annotations

from torch_envcheck.doctor import areas
from torch_envcheck.facts import core as F
from torch_envcheck.doctor.finding import Finding, finding
from torch_envcheck.doctor.rules import conda
from torch_envcheck.doctor.rules import driver
from torch_envcheck.doctor.rules import extension
from torch_envcheck.doctor.rules import gpu
from torch_envcheck.doctor.rules import libraries
from torch_envcheck.doctor.rules import platform
from torch_envcheck.doctor.rules import tensorflow
from torch_envcheck.doctor.rules import toolchain
from torch_envcheck.doctor.rules import torch_rules

AREAS, OPTIONAL_AREAS = areas.AREAS, areas.OPTIONAL_AREAS
_BY_MODULE = {m.__name__.rsplit(".", 1)[-1]: m for m in (conda, driver, extension, gpu, libraries, platform,
                                                         tensorflow, toolchain, torch_rules)}
MODULES = {a.name: _BY_MODULE[a.rules] for a in areas.ALL}   # area -> its rule module
PROBE_FAILED = {a.name: a.probe_failed for a in areas.ALL}
COULD_NOT_JUDGE = {a.name: a.could_not_judge for a in areas.ALL if a.could_not_judge}
probe_area = areas.probe_area


def probe_errors(snapshot) -> list[Finding]:
    out = []
    for name, err in F.probe_errors(snapshot).items():
        area = probe_area(name)
        out.append(finding(PROBE_FAILED[area], "warning",
                           f"the '{name}' probe crashed: {str(err).splitlines()[0][:240] if err else '(no text)'}",
                           f"The facts that probe gathers are missing, so the {area} checks below may be incomplete. "
                           "Please report this with the output of `torch-envcheck doctor --json`.",
                           None, {"probe": name, "error": err}))
    # the extension probe keeps its own errors (extension.status(), build_info(), runtime_info())
    for err in F.extension_errors(snapshot):
        out.append(finding(PROBE_FAILED["extension"], "warning", f"an extension probe failed: {err.splitlines()[0][:240]}",
                           "The extension's facts (kernel images, cuDNN/cuBLAS handles) are missing, so those checks "
                           "were skipped.", None, {"probe": "extension", "error": err}))
    return out


def judgeable(snapshot, area: str) -> bool:
    """Whether any fact the area is judged from is known (its Area's judged_by).  An area that lists
    none (TensorFlow: judged only when it is installed) is optional: unknown facts give no finding."""
    paths = areas.BY_NAME[area].judged_by
    return not paths or any(F.known(snapshot, path) for path in paths)


def could_not_judge(area: str) -> Finding:
    paths = areas.BY_NAME[area].judged_by
    return finding(COULD_NOT_JUDGE[area], "failure",
                   f"could not judge this area: the snapshot does not record {' or '.join(paths)}",
                   "Unknown facts are not health: the probe did not run, crashed, or the report was saved by an "
                   "older torch_envcheck or edited.  Run `torch-envcheck doctor` on the machine itself (or save a "
                   "new report with `torch-envcheck --json > report.json`) to judge it.",
                   "torch-envcheck doctor", {"missing": list(paths)})


def rules() -> list[tuple[str, object]]:
    """(area, rule function) in report order."""
    return [(area, fn) for area in areas.ORDER for fn in MODULES[area].RULES]


def evaluate(snapshot) -> list[Finding]:
    """Every finding the rules return for a snapshot, in report order (area, then rule), as they
    return them: what `hides` removes, what a fact outranks, the fix check and the links of causes
    to symptoms are the report's to apply (doctor/report.py assemble)."""
    if not isinstance(snapshot, dict):
        snapshot = {}
    try:
        crashed = probe_errors(snapshot)
    except Exception as exc:  # never expected: the input is checked above
        crashed = [finding(PROBE_FAILED["platform"], "warning", f"probe_errors could not be read: {type(exc).__name__}: {exc}",
                           "", None, {"rule": "probe_errors", "error": str(exc)})]
    out: list[Finding] = []
    for area in areas.ORDER:
        out.extend(f for f in crashed if f.area == area)
        # an optional area (conda) has no could-not-judge: its rules are silent without its facts
        if area in COULD_NOT_JUDGE and not judgeable(snapshot, area):
            out.append(could_not_judge(area))
            continue
        for fn in MODULES[area].RULES:
            try:
                found = fn(snapshot)
            except Exception as exc:  # a rule bug must not hide every other finding
                found = [finding(PROBE_FAILED[area], "warning",
                                 f"the doctor's rule {fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__} failed on this snapshot: "
                                 f"{type(exc).__name__}: {exc}",
                                 "A bug in torch_envcheck, not in your setup: that one check was skipped. Please report it "
                                 "with `torch-envcheck doctor --json`.", None,
                                 {"rule": f"{fn.__module__}.{fn.__name__}", "error": f"{type(exc).__name__}: {exc}"})]
            out.extend(found)
    return out
