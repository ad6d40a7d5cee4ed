"""RULES, gathered by hand in layer_rules/__init__.py, holds every rule of every layer_rules module once: two modules
with a rule of the same name would let the later import hide the earlier rule without a trace, and a rule written but
not registered never runs."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import Counter

from torch_envcheck.explain import layer_rules


def _module_rules():
    for info in pkgutil.iter_modules(layer_rules.__path__):
        if info.name == "kit":
            continue
        mod = importlib.import_module(f"{layer_rules.__name__}.{info.name}")
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ != mod.__name__ or name.startswith("_"):
                continue
            if list(inspect.signature(fn).parameters)[:2] == ["ent", "text"]:
                yield fn


def test_no_two_rules_share_a_name():
    names = Counter(fn.__name__ for fn in layer_rules.RULES)
    assert not [n for n, c in names.items() if c > 1]


def test_every_rule_of_every_module_is_registered_once():
    registered = Counter(id(fn) for fn in layer_rules.RULES)
    missing = [f"{fn.__module__}.{fn.__name__}" for fn in _module_rules() if registered[id(fn)] != 1]
    assert not missing, missing
