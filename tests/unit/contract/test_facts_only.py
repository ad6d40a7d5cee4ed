"""Rules, renderers, headlines, commands, advice, fleet, explain and the pytest plugin read a
snapshot only through the facts layer (torch_envcheck/facts/): no module outside it subscripts or
.get()s a snapshot section (the top-level keys of facts/contract.py), digs into one
(F.dig(s, "torch", ...)) or takes a whole section from an accessor to read it raw (F.torch(s).get(...)).

Nor does one dig into what a typed accessor hands out: an accessor of the facts layer (facts/core.py,
conda.py, tensorflow.py, frameworks.py) that returns a record (facts/records.py: F.nvcc_in_use(s),
F.gpus(s), C.package(s, name), C.pip_dists(s), T.and_cuda(s), T.tested(s), ...) is read by attribute
(`.version`), never by key (`.get("version")`, `["version"]`, `.to_dict()["version"]`,
`dataclasses.asdict(...)`), whether on the call itself, an item of the list it returns, or a name
bound to either (`nv = F.nvcc_in_use(s)`, `for g in F.gpus(s)`).

A snapshot is recognised by its name where these modules hold one (s, snap, snapshot, rec["snapshot"]);
the checkers are tested on planted violations below, so they cannot pass by reading nothing."""

from __future__ import annotations

import ast
import os

import pytest

from torch_envcheck.facts import contract
from torch_envcheck.facts import records

from paths import REPO

PACKAGE = os.path.join(REPO, "torch_envcheck")
CHECKED = ("doctor/rules", "doctor/render", "doctor/headlines", "commands", "advice", "fleet", "explain",
           "pytest_plugin.py")
SECTION_NAMES = frozenset(contract.SECTIONS) | frozenset(contract.TOP)
SNAPSHOT_NAMES = frozenset(("s", "snap", "snapshot"))
# accessors that hand out a whole section (private to the facts layer, so rules read fields, not sections)
SECTION_ACCESSORS = frozenset((("F", "torch"), ("F", "driver"), ("F", "_torch"), ("F", "_driver"),
                               ("F", "_platform"), ("T", "tf"), ("C", "conda"), ("T", "file_owners"),
                               ("T", "child"), ("T", "log")))


def _is_snapshot(node) -> bool:
    if isinstance(node, ast.Name):
        return node.id in SNAPSHOT_NAMES
    key = None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        key = node.slice.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and isinstance(node.args[0], ast.Constant):
        key = node.args[0].value
    return key == "snapshot"


def _const(node):
    return node.value if isinstance(node, ast.Constant) else None


def raw_reads(source: str) -> list[str]:
    """Each raw snapshot read in a module's source, as 'line: code'."""
    out = []
    for node in ast.walk(ast.parse(source)):
        hit = False
        if isinstance(node, ast.Subscript):
            hit = _const(node.slice) in SECTION_NAMES and _is_snapshot(node.value)
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute):
                if f.attr == "get" and node.args:
                    hit = _const(node.args[0]) in SECTION_NAMES and _is_snapshot(f.value)
                elif f.attr == "dig" and len(node.args) > 1:
                    hit = _const(node.args[1]) in SECTION_NAMES
                elif isinstance(f.value, ast.Name):
                    hit = (f.value.id, f.attr) in SECTION_ACCESSORS
            elif isinstance(f, ast.Name) and f.id == "dig" and len(node.args) > 1:
                hit = _const(node.args[1]) in SECTION_NAMES
        if hit:
            out.append(f"{node.lineno}: {ast.unparse(node)[:120]}")
    return out


# ---------------------------------------------------------------- digging into a typed accessor's result

CORE = os.path.join(PACKAGE, "facts", "core.py")
# the facts modules whose typed accessors the dig check covers, each by its import path
FACTS_MODULES = {name: os.path.join(PACKAGE, "facts", f"{name}.py")
                 for name in ("core", "conda", "tensorflow", "frameworks")}
RECORD_TYPES = frozenset(c.__name__ for c in records.RECORDS + records.RESHAPED + records.VERDICTS) | {
    "ExtDevice", "ExtStatus"}
KEY_READS = frozenset(("get", "setdefault", "pop", "items", "keys", "values"))


def typed_accessors(path: str = CORE) -> frozenset:
    """The accessors of a facts module whose return annotation names a record type (read from the
    source, so a new typed accessor is covered without a list kept here)."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    out = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and node.returns is not None:
            names = {n.id for n in ast.walk(node.returns) if isinstance(n, ast.Name)}
            names |= {n.value for n in ast.walk(node.returns) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            # a name -> record map (Mapping[str, CondaPackage]) is read by name: .get(name), .items()
            if names & RECORD_TYPES and not ast.unparse(node.returns).startswith("Mapping"):
                out.add(node.name)
    return frozenset(out)


TYPED_BY_MODULE = {name: typed_accessors(path) for name, path in FACTS_MODULES.items()}
TYPED = TYPED_BY_MODULE["core"]


def _core_aliases(tree) -> tuple[dict, dict]:
    """({module alias: its typed accessors}: {'F': core's, 'C': conda's, ...}, {function name imported
    from a facts module: True}: {'gpus': True})."""
    modules, functions = {}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "torch_envcheck.facts":
            modules.update({a.asname or a.name: TYPED_BY_MODULE[a.name] for a in node.names
                            if a.name in TYPED_BY_MODULE})
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torch_envcheck.facts."):
            typed = TYPED_BY_MODULE.get(node.module.rsplit(".", 1)[1], frozenset())
            functions.update({a.asname or a.name: True for a in node.names if a.name in typed})
        elif isinstance(node, ast.Import):
            for a in node.names:
                mod = a.name.rsplit(".", 1)[-1]
                if a.name.startswith("torch_envcheck.facts.") and a.asname and mod in TYPED_BY_MODULE:
                    modules[a.asname] = TYPED_BY_MODULE[mod]
    return modules, functions


def _strip(node):
    """What an expression is read from once list items, slices and `.to_dict()` are looked through."""
    while True:
        if isinstance(node, ast.Subscript) and not (isinstance(node.slice, ast.Constant)
                                                    and isinstance(node.slice.value, str)):
            node = node.value  # F.gpus(s)[0], F.gpus(s)[:4]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "to_dict":
            node = node.func.value
        elif isinstance(node, ast.BoolOp):
            node = node.values[0]  # F.gpus(s) or [...]
        else:
            return node


SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
          ast.GeneratorExp)


def _in_scope(scope):
    """The nodes of one scope: its own, and the nested scopes' heads (not their insides), as Python
    binds names (a comprehension, a function and a lambda have scopes of their own)."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def _bindings(node):
    """(target, value) pairs a node binds: an assignment, a loop, a comprehension's `for`."""
    if isinstance(node, ast.Assign):
        return [(t, node.value) for t in node.targets]
    if isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        return [(node.target, node.value)]
    if isinstance(node, (ast.For, ast.comprehension)):
        return [(node.target, node.iter)]
    return []


def digs(source: str) -> list[str]:
    """Each read by key of a typed accessor's result in a module's source, as 'line: code'."""
    tree = ast.parse(source)
    modules, functions = _core_aliases(tree)

    def typed_call(node) -> bool:
        if not isinstance(node, ast.Call):
            return False
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            return f.attr in modules.get(f.value.id, ())
        return isinstance(f, ast.Name) and f.id in functions

    out: list = []

    def visit(scope, inherited: set) -> None:
        nodes = list(_in_scope(scope))
        local, bound = set(), set()
        for _ in range(2):  # twice: `nv = used(s)` then `d = nv.to_dict()`
            for node in nodes:
                for target, value in _bindings(node):
                    names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
                    local |= names
                    src = _strip(value)
                    if typed_call(src) or (isinstance(src, ast.Name) and src.id in bound | inherited):
                        bound |= names
        bound |= inherited - local

        def typed(node) -> bool:
            src = _strip(node)
            return typed_call(src) or (isinstance(src, ast.Name) and src.id in bound)

        for node in nodes:
            hit = False
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                    and isinstance(node.slice.value, str):
                hit = typed(node.value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in KEY_READS:
                hit = typed(node.func.value)
            elif isinstance(node, ast.Call) and node.args and (
                    (isinstance(node.func, ast.Attribute) and node.func.attr == "asdict")
                    or (isinstance(node.func, ast.Name) and node.func.id in ("asdict", "vars"))):
                hit = typed(node.args[0])
            if hit:
                out.append(f"{node.lineno}: {ast.unparse(node)[:120]}")
            if isinstance(node, SCOPES) and node is not scope:
                visit(node, bound)

    visit(tree, set())
    return sorted(set(out))


def _modules():
    for rel in CHECKED:
        path = os.path.join(PACKAGE, rel)
        if path.endswith(".py"):
            yield path
            continue
        for dirpath, _dirs, files in os.walk(path):
            yield from (os.path.join(dirpath, f) for f in sorted(files) if f.endswith(".py"))


@pytest.mark.parametrize("path", sorted(_modules()), ids=lambda p: os.path.relpath(p, PACKAGE))
def test_reads_the_snapshot_only_through_facts(path):
    with open(path, encoding="utf-8") as fh:
        assert raw_reads(fh.read()) == [], "read these through an accessor in torch_envcheck/facts/"


@pytest.mark.parametrize("path", sorted(_modules()), ids=lambda p: os.path.relpath(p, PACKAGE))
def test_never_digs_into_a_typed_accessor(path):
    with open(path, encoding="utf-8") as fh:
        assert digs(fh.read()) == [], "read the record's attributes (facts/records.py), not keys"


def test_the_accessors_that_once_handed_out_dicts_are_typed():
    assert {"nvcc_in_use", "nvcc_candidates", "host_compiler", "ninja", "msvc", "cuda_home", "mps", "xpu",
            "import_process", "gpus", "machine_gpus", "torch_devices", "driver_gpus", "mig_gpus", "requires_dist",
            "ext_devices", "ext_status", "jetson", "pci_gpus", "other_gpus", "dkms_builds", "driver_packages",
            "torch_copies", "request", "oldest_build_beyond_driver", "container_without_gpu", "cuda_visible_devices",
            "import_broken_by_search_path", "wsl_linux_driver", "torch_shadowed", "visible_device_entries",
            "library_listing", "shm", "library_entries", "libcuda_resolution"} <= TYPED
    assert {"package", "pip_dists", "pip_dist", "search_path", "pytorch_flavour"} <= \
        TYPED_BY_MODULE["conda"]
    assert {"tested", "tf_gpus", "dlopen_failures", "and_cuda", "path_libs", "requires", "owners_summary",
            "owner_pairs", "windows_path_cuda_dirs"} <= TYPED_BY_MODULE["tensorflow"]


def test_every_checked_room_exists():
    assert all(os.path.exists(os.path.join(PACKAGE, rel)) for rel in CHECKED)
    assert len(list(_modules())) > 40


PLANTED = [
    's["torch"]["cuda"]',
    'snap.get("driver")',
    'rec["snapshot"]["platform"]',
    'rec.get("snapshot").get("env")',
    'F.dig(s, "platform", "machine")',
    'dig(snapshot, "extension", "status")',
    'F.torch(s).get("cuda")',
    'T.tf(s).get("version")',
    'snap.get("probe_errors")',
]


@pytest.mark.parametrize("code", PLANTED)
def test_the_check_catches_a_planted_raw_read(code):
    assert len(raw_reads(f"def rule(s, snap, snapshot, rec):\n    return {code}\n")) >= 1


@pytest.mark.parametrize("code", ['build["torch"]', 'rec["torch"]', 'F.torch_version(s)', 'F.dig(rec, "rank_facts")',
                                  's.get("version")', 'F.gpus(s)[0].get("capability")'])
def test_the_check_leaves_other_reads_alone(code):
    assert raw_reads(f"def rule(s, build, rec):\n    return {code}\n") == []


HEADER = ("import dataclasses\nfrom torch_envcheck.facts import core as F\nfrom torch_envcheck.facts.core import gpus\n"
          "from torch_envcheck.facts import conda as C\nfrom torch_envcheck.facts import tensorflow as T\n"
          "from torch_envcheck.facts.conda import pip_dists\n")
DUG = [
    'return F.nvcc_in_use(s).get("version")',
    'return F.host_compiler(s)["path"]',
    'return F.gpus(s)[0].get("capability")',
    'return gpus(s)[0]["name"]',
    'nv = F.nvcc_in_use(s)\n    return nv["version"]',
    'nv = F.nvcc_in_use(s) or {}\n    return nv.get("path")',
    'for g in F.machine_gpus(s):\n        print(g.get("name"))',
    'return [c.get("path") for c in F.nvcc_candidates(s)]',
    'return F.cuda_home(s, "CUDA_HOME").get("value")',
    'return F.import_process(s).to_dict().get("signal")',
    'd = F.msvc(s).to_dict()\n    return d["cl"]',
    'return dataclasses.asdict(F.mps(s))["available"]',
    'return F.requires_dist(s)[0]["requires"]',
    'return {k: v for k, v in F.ninja(s).to_dict().items()}',
    'return F.ext_devices(s)[0]["kernel_image"]',
    'return (x := F.xpu(s)) and x["available"]',
    'return F.cuda_visible_devices(s)["raw"]',
    'for e in F.library_entries(s):\n        print([l["kind"] for l in e.libs], e["dir"])',
    'b = F.import_broken_by_search_path(s)\n    return b["suspects"][0]',
    'return F.torch_shadowed(s).get("by")',
    # conda's and TensorFlow's accessors
    'return C.package(s, "pytorch")["build"]',
    'rec = C.package(s, "pytorch")\n    return rec.get("channel")',
    'return [d["name"] for d in C.pip_dists(s) if d["name"].startswith("nvidia-")]',
    'return pip_dists(s)[0]["version"]',
    'return C.pytorch_flavour(s)["kind"]',
    'return [e.get("kind") for e in C.search_path(s)]',
    'return [r["installed"] for r in T.and_cuda(s)]',
    'row = T.tested(s) or {}\n    return row.get("cuda")',
    'return T.owners_summary(s)["pairs_total"]',
    'return [p["differing"] for p in T.owner_pairs(s)]',
    'return [f["kind"] for f in T.dlopen_failures(s)]',
    'return [r["specifier"] for r in T.requires(s, "numpy")]',
    'return [d["cuda"] for d in T.windows_path_cuda_dirs(s)]',
    'return [g.get("name") for g in T.tf_gpus(s)]',
]


@pytest.mark.parametrize("code", DUG)
def test_the_dig_check_catches_a_planted_dig(code):
    assert len(digs(f"{HEADER}def rule(s):\n    {code}\n")) >= 1


@pytest.mark.parametrize("code", [
    'return F.nvcc_in_use(s).version',
    'return [g.capability for g in F.gpus(s)]',
    'nv = F.nvcc_in_use(s)\n    return {"nvcc": nv.to_dict() if nv else None}',
    'return F.cuda_visible_devices(s).raw',
    'return F.probe_errors(s)["gpu"]',                 # an open map (name -> value), read by name
    'g = {"name": "x"}\n    return g["name"]',        # another `g`, in a function of its own
    'return T.gpus(s)[0].get("name")',                 # no accessor of the facts layer has that name
    'return T.tf_distributions(s)["keras"]',           # an open map (name -> version), read by name
    'return C.package(s, "pytorch").build',
    'return [r.name for r in T.and_cuda(s)]',
])
def test_the_dig_check_leaves_attribute_reads_alone(code):
    assert digs(f"{HEADER}def rule(s):\n    {code}\n") == []
