"""Recognising an error: the catalogue's sentences (match) and the layer rules over what the text is made
of (extract -> layer_rules), ranked together.

    analyse(text) -> (found, entities)   every match, best first, and the entities of the text
    find(text)    -> list[Match]
    best(text)    -> Match | None

Best: the highest priority, then the match nearest the end of the text (the final error).  A rule and a
sentence that name the same diagnosis (signature id) count once: the higher-priority one stays."""

from __future__ import annotations

from torch_envcheck.explain import extract, layer_rules, match


def analyse(text: str) -> tuple:
    s = match.clean(text or "")
    ent = extract.entities(s)
    found = match.find(s, cleaned=True) + layer_rules.find(s, ent)
    found.sort(key=lambda m: (m.signature.priority, m.end), reverse=True)
    seen, out = set(), []
    for m in found:
        if m.signature.id not in seen:
            seen.add(m.signature.id)
            out.append(m)
    return out, ent


def find(text: str) -> list:
    return analyse(text)[0]


def best(text: str):
    found = find(text)
    return found[0] if found else None
