"""The package's import graph has no cycle, function-local imports included (the same rule
`lint-imports` checks with the contracts in pyproject.toml; this test needs no import-linter), and
no rule calls another rule.

The graph is read from the source with ast: every `import` and `from ... import` statement, wherever
it stands (a function-local import is an edge like any other), resolved to the package's modules."""

from __future__ import annotations

import ast
import inspect
import os

import pytest

from torch_envcheck.doctor import rules

from paths import REPO

PACKAGE = "torch_envcheck"




def modules(root: str = REPO) -> dict[str, str]:
    out = {}
    for dirpath, _dirs, files in os.walk(os.path.join(root, PACKAGE)):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                name = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                out[name[: -len(".__init__")] if name.endswith(".__init__") else name] = path
    return out


def graph(mods: dict[str, str]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        is_pkg = path.endswith("__init__.py")
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != mod:
                    edges[mod].add(t)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop(); on.discard(w); comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


def test_no_import_cycle_anywhere():
    found = {frozenset(c) for c in cycles(graph(modules()))}
    assert found == set(), [sorted(c) for c in found]


def test_the_cycle_check_sees_function_local_imports(tmp_path):
    pkg = tmp_path / PACKAGE
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text("from torch_envcheck.a import y\n")
    (pkg / "a" / "y.py").write_text("def f():\n    from . import x  # hidden in a function\n")
    (pkg / "z.py").write_text("import torch_envcheck.a.x\n")
    mods = modules(str(tmp_path))
    assert cycles(graph(mods)) == [{"torch_envcheck.a.x", "torch_envcheck.a.y"}]


@pytest.mark.parametrize("area", sorted(rules.MODULES), ids=lambda a: f"{a}-rules")
def test_no_rule_calls_another_rule(area):
    module = rules.MODULES[area]
    names = {fn.__name__ for fn in module.RULES}
    calls = [node.func.id for node in ast.walk(ast.parse(inspect.getsource(module)))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names]
    assert calls == [], "relate findings with finding(..., explains=/hides=), not by calling a rule"
    siblings = {m.__name__ for m in rules.MODULES.values()} - {module.__name__}
    imported = graph(modules())[module.__name__]
    assert not imported & siblings
