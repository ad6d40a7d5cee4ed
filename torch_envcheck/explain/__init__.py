"""From an error message to its cause and fix: `torch-envcheck explain`, `run`, the
Jupyter extension and the pytest plugin all use this package.

    explain(text, report=None, machine="not checked") -> dict   the diagnosis (diagnose.RESULT_SCHEMA)
    recognise(text) -> match.Match | None                         the best diagnosis, no machine check

Modules: extract (what a text is made of: error codes, libraries, symbols, ABI tags, owners of files,
versions, GPUs, targets), layer_rules (diagnoses from those entities), catalogue (the sentences, from
knowledge/data/error_signatures.json), decode (captured versions -> meanings), match (bounded, linear
matching of the sentences), identify (both, ranked; else reading, the default answer: a vote of the layers the
text's parts belong to), diagnose (causes against the doctor's findings),
owners (who owns a failing file, from the machine or a saved report), textin (bounded reading of logs), render (terminal, HTML, JSON), gpu_usage (NVML
per-process sampling for `run`).  Importing it imports neither torch nor the doctor's probes."""

from __future__ import annotations


def explain(text: str, report: dict | None = None, machine: str = "not checked") -> dict:
    from torch_envcheck.explain.diagnose import diagnose  # noqa: PLC0415
    return diagnose(text, report=report, machine=machine)


def recognise(text: str):
    from torch_envcheck.explain.identify import best  # noqa: PLC0415
    return best(text)
