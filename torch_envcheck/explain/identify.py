"""Recognising an error: the catalogue's sentences (match) and the layer rules over what the text is made
of (extract -> layer_rules), ranked together.

    analyse(text) -> (found, entities)   every match, best first, and the entities of the text
    find(text)    -> list[Match]
    best(text)    -> Match | None

Best: the highest priority, then the match nearest the end of the text (the final error).  A rule and a
sentence that name the same diagnosis (signature id) count once: the higher-priority one stays.  When neither
recognises the text, the default answer (reading) is a vote of the layers its parts belong to, said to be so."""

from __future__ import annotations

from torch_envcheck.explain import extract, layer_rules, match, reading


def analyse(text: str, failures: list | None = None) -> tuple:
    s = match.clean(text or "")
    ent = extract.entities(s)
    sentences = match.find(s, cleaned=True)
    rules = layer_rules.find(s, ent, failures)
    found = sentences + rules
    rank = {id(m): (m.signature.priority, m.end) for m in found}
    for r in rules:
        if not r.signature.raw.get("generic"):
            continue
        a, b = _line_span(s, r.start)
        over = [m for m in sentences if m.start < b and m.end > a]
        if over:
            # a sentence of the catalogue on the rule's own line says more than the code or name alone
            top = max(over, key=lambda m: m.signature.priority)
            rank[id(r)] = (min(r.signature.priority, top.signature.priority - 0.5), r.end)
    found.sort(key=lambda m: rank[id(m)], reverse=True)
    seen, out = set(), []
    for m in found:
        if m.signature.id not in seen:
            seen.add(m.signature.id)
            out.append(m)
    if not out:
        default = reading.read(s, ent)
        if default is not None:
            out.append(default)
    return out, ent


def read_only(text: str) -> tuple:
    """(the default answer alone, as if no rule or sentence had matched, as a list; the entities): what the
    fallback says on its own (benchmarks/explain_eval.py --reading measures it)."""
    s = match.clean(text or "")
    ent = extract.entities(s)
    default = reading.read(s, ent)
    return ([default] if default is not None else []), ent


def _line_span(s: str, pos: int) -> tuple:
    a = s.rfind("\n", 0, pos) + 1
    b = s.find("\n", pos)
    return a, (len(s) if b < 0 else b)


def find(text: str) -> list:
    return analyse(text)[0]


def best(text: str):
    found = find(text)
    return found[0] if found else None
