"""From an error message to its cause and fix: `torch-envcheck explain`, `run`, the
Jupyter extension and the pytest plugin all use this package.

    explain(text, report=None, machine="not checked") -> dict   the diagnosis (diagnose.RESULT_SCHEMA)
    recognise(text) -> match.Match | None                         the best signature, no machine check

Modules: catalogue (the signatures, from knowledge/data/error_signatures.json), decode (captured
versions -> meanings), match (bounded, linear matching), diagnose (causes against the doctor's
findings), textin (bounded reading of logs), render (terminal, HTML, JSON), gpu_usage (NVML
per-process sampling for `run`).  Importing it imports neither torch nor the doctor's probes."""

from __future__ import annotations


def explain(text: str, report: dict | None = None, machine: str = "not checked") -> dict:
    from torch_envcheck.explain.diagnose import diagnose  # noqa: PLC0415
    return diagnose(text, report=report, machine=machine)


def recognise(text: str):
    from torch_envcheck.explain.match import best  # noqa: PLC0415
    return best(text)
