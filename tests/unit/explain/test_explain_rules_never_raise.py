"""No layer rule raises on any text of the corpora: every world-corpus text (development and retired test splits) and
every catalogued error. A rule that raises is left out of the answer at run time (one rule's bug costs its own answer,
not the whole reading), which would hide the bug; this test makes it visible."""

from __future__ import annotations

import json
from pathlib import Path

from torch_envcheck.explain import identify

DATA = Path(__file__).resolve().parents[2] / "data" / "explain"


def _texts():
    for f in sorted(DATA.glob("world_*.json")):
        for e in json.loads(f.read_text(encoding="utf-8"))["entries"]:
            yield e["id"], e["text"]
    for e in json.loads((DATA / "real_errors.json").read_text(encoding="utf-8"))["entries"]:
        yield e["id"], e["text"]


def test_no_rule_raises_on_the_corpus():
    failed = []
    n = 0
    for ident, text in _texts():
        n += 1
        failures: list = []
        identify.analyse(text, failures)
        failed += [(ident, *f) for f in failures]
    assert n > 2000
    assert not failed, failed[:10]


def test_a_raising_rule_costs_only_its_own_answer(monkeypatch):
    from torch_envcheck.explain import layer_rules

    def broken(ent, text):
        raise NameError("boom")

    monkeypatch.setattr(layer_rules, "RULES", (broken, *layer_rules.RULES))
    failures: list = []
    found, _ent = identify.analyse("ERROR: Your GPU does not support Int8 Matmul!", failures)
    assert failures == [("broken", "NameError: boom")]
    assert found and found[0].signature.id == "gpu-lacks-int8-matmul"
