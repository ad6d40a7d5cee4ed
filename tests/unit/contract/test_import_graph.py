"""The package's import graph has no cycle, function-local imports included (the same rule
`lint-imports` checks with the contracts in pyproject.toml; this test needs no import-linter), and
no rule calls another rule.

The graph is read from the source with ast: every `import` and `from ... import` statement, wherever
it stands (a function-local import is an edge like any other), resolved to the package's modules."""

from __future__ import annotations

import ast
import functools
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


@functools.lru_cache(maxsize=1)
def package_graph() -> dict[str, set[str]]:
    """This package's graph, read once per test run (the sources do not change during one)."""
    return graph(modules())


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
    found = {frozenset(c) for c in cycles(package_graph())}
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
    imported = package_graph()[module.__name__]
    assert not imported & siblings


# ------------------------------------------------------------------ the rooms, from the contracts
# The same layers `lint-imports` checks, read from pyproject.toml and applied to the ast graph above:
# no import from a lower room to a higher one (nor between independent siblings of one layer) except
# the imports the contracts name, every room under a contract, and docs/architecture.md showing them.

import architecture_doc  # noqa: E402  (tests/support)



# Not rooms: the package's front door (torch_envcheck/__init__.py re-exports the public API) and the
# drop-in env_check.py template, which is copied into projects and never imported from the package.
NOT_ROOMS = {PACKAGE, f"{PACKAGE}.templates"}


def _layers(contract: dict) -> list[list[str]]:
    container = (contract.get("containers") or [None])[0]
    return [[f"{container}.{m.strip()}" if container else m.strip() for m in entry.split("|")]
            for entry in contract["layers"]]


def _owner(module: str, layers: list[list[str]]) -> tuple[int, str] | None:
    best = None
    for i, layer in enumerate(layers):
        for room in layer:
            if (module == room or module.startswith(room + ".")) and (best is None or len(room) > len(best[1])):
                best = (i, room)
    return best


def upward_imports(edges: dict[str, set[str]], contract: dict) -> list[str]:
    """Imports that break a layers contract: to a higher layer, or between two independent rooms of
    one layer; the contract's ignore_imports excepted."""
    layers = _layers(contract)
    ignored = {tuple(s.strip() for s in imp.split("->")) for imp in contract.get("ignore_imports", ())}
    bad = []
    for src, targets in sorted(edges.items()):
        a = _owner(src, layers)
        for dst in sorted(targets):
            b = _owner(dst, layers)
            if a is None or b is None or a[1] == b[1] or (src, dst) in ignored:
                continue
            if b[0] < a[0] or b[0] == a[0]:
                bad.append(f"{src} -> {dst}")
    return bad


@pytest.mark.parametrize("contract", [c for c in architecture_doc.contracts() if c["type"] == "layers"],
                         ids=lambda c: c["id"])
def test_no_import_runs_up_the_layers(contract):
    assert upward_imports(package_graph(), contract) == []


def test_the_layer_check_sees_an_upward_import():
    contract = {"layers": ["pkg.top", "pkg.mid | pkg.side", "pkg.low"], "ignore_imports": ["pkg.low.x -> pkg.mid.y"]}
    edges = {"pkg.top.a": {"pkg.mid.b", "pkg.low.c"}, "pkg.low.c": {"pkg.top.a"}, "pkg.mid.b": {"pkg.side.d"},
             "pkg.low.x": {"pkg.mid.y"}, "pkg.mid.y": set(), "pkg.side.d": set()}
    assert upward_imports(edges, contract) == ["pkg.low.c -> pkg.top.a", "pkg.mid.b -> pkg.side.d"]


def test_every_room_is_under_the_rooms_contract():
    rooms = next(c for c in architecture_doc.contracts() if c["id"] == "rooms")
    layers = _layers(rooms)
    tops = {".".join(m.split(".")[:2]) for m in modules()} - NOT_ROOMS
    assert sorted(t for t in tops if _owner(t, layers) is None) == []
    doctor = next(c for c in architecture_doc.contracts() if c["id"] == "doctor")
    parts = {".".join(m.split(".")[:3]) for m in modules() if m.startswith(f"{PACKAGE}.doctor.")}
    parts -= {f"{PACKAGE}.doctor.__main__"}  # the command line under another name
    assert sorted(p for p in parts if _owner(p, _layers(doctor)) is None) == []


def test_architecture_doc_shows_the_contracts():
    assert architecture_doc.current_block() == architecture_doc.render(), (
        "docs/architecture.md's rooms differ from pyproject.toml: python tests/support/architecture_doc.py --write")


# Knowledge answers from its tables: it reads its data and the overlay, and reaches nothing else.
NETWORK_OR_PROCESS = {"urllib", "http", "socket", "ssl", "subprocess", "ftplib", "requests", "asyncio"}


@pytest.mark.parametrize("name", sorted(m for m in modules() if m == f"{PACKAGE}.knowledge"
                                        or m.startswith(f"{PACKAGE}.knowledge.")))
def test_knowledge_reaches_no_network_and_starts_no_process(name):
    with open(modules()[name], encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    reached = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            reached |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            reached.add(node.module.split(".")[0])
    assert reached & NETWORK_OR_PROCESS == set()
