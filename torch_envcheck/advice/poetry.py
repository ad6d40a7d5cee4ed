"""The advice in Poetry's words (`advise --poetry`): the pyproject.toml fragment that sends torch
and its companions to the advised build's PyTorch index on the platforms that take it, and to PyPI
elsewhere.  Poetry 1.5+ source priorities: the PyTorch index as an `explicit` source, used only by
the packages that name it (python-poetry/poetry docs/repositories.md, "Explicit Package Sources",
whose PyTorch example commit 1754f5a5ec02b7909aa2e2b12a17a8150f852c13 added), and one dependency
entry per platform group with `markers` (Poetry's multiple-constraints dependencies)."""

from __future__ import annotations

from torch_envcheck.advice import check
from torch_envcheck.advice.pins import requirements
from torch_envcheck.advice.recommend import index_url
from torch_envcheck.advice.targets import Target, default_for, own
from torch_envcheck.facts import core as F
from torch_envcheck.advice.uv import FAMILY, _toml_str, picks


def _split(req: str) -> tuple[str, str]:
    name, _, version = req.partition("==")
    return name.strip(), ("==" + version.strip()) if version else "*"


def fragment(reqs: list[str], chosen: dict, targets: list[Target]) -> str:
    used = [tag for tag in dict.fromkeys(chosen[t.name] for t in targets) if tag]
    lines = ["# pyproject.toml (Poetry >= 1.5)"]
    for tag in used:
        lines += ["[[tool.poetry.source]]", f"name = {_toml_str('pytorch-' + tag)}", f"url = {_toml_str(index_url(tag))}",
                  'priority = "explicit"', ""]
    lines.append("[tool.poetry.dependencies]")
    for req in reqs:
        name, version = _split(req)
        if name not in FAMILY:
            continue
        groups = [(tag, [t for t in targets if chosen[t.name] == tag]) for tag in used]
        pypi = [t for t in targets if chosen[t.name] is None]
        if pypi:
            groups.append((None, pypi))
        lines.append(f"{name} = [")
        for tag, ts in groups:
            marker = " or ".join(f"({t.marker})" if len(ts) > 1 and " and " in t.marker else t.marker for t in ts)
            src = f", source = {_toml_str('pytorch-' + tag)}" if tag else ""
            lines.append(f"  {{ version = {_toml_str(version)}{src}, markers = {_toml_str(marker)} }},")
        lines.append("]")
    return "\n".join(lines) + "\n"


def render(s, targets: list[Target] | None = None) -> dict:
    from torch_envcheck.advice.recommend import recommend  # noqa: PLC0415
    rec = recommend(s)
    why = list(rec["reasons"])
    if rec["kind"] not in ("cuda", "cpu", "pypi") and not (rec["kind"] == "keep" and rec.get("tag")):
        why.append("no Poetry fragment: " + ("nothing fits this machine" if rec["kind"] is None else
                                            "this machine's torch comes from no package index (`torch-envcheck advise`)"))
        return {"reasons": why, "text": None, "problems": []}
    tgs = targets or default_for(F.system(s), F.machine(s))
    chosen, more = picks(rec, tgs, own(F.system(s), F.machine(s)))
    reqs = requirements(s, rec)
    text = fragment(reqs, chosen, tgs)
    problems = [p.text() for p in check.fragment_problems(text, "poetry", tgs, chosen, reqs)]
    return {"reasons": why + more, "text": text, "problems": problems}
