"""The facts layer's field readers agree with contract.py, checked rather than restated by hand:

* every one-line reader of facts/core.py (`return text(_platform(s).get("machine"))`,
  `return _bool(_torch(s).get("importable"))`, ...) reads a path contract.py declares, and its
  type guard matches the declared kind (text -> STR, _bool -> BOOL, _int -> INT, as_dict -> DICT,
  as_list -> LIST);
* ExtStatus, the typed extension.status, has exactly the fields contract.py declares for it, typed
  by their kind, so no caller digs into a sub-dict (`F.ext_status(s).get("state")`)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os

from paths import REPO
from torch_envcheck.facts import contract
from torch_envcheck.facts import core as F

CORE = os.path.join(REPO, "torch_envcheck", "facts", "core.py")
GUARD_KIND = {"text": contract.STR, "_bool": contract.BOOL, "_int": contract.INT,
              "as_dict": contract.DICT, "as_list": contract.LIST}


def _functions() -> dict[str, ast.FunctionDef]:
    with open(CORE, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _returned(fn: ast.FunctionDef):
    body = [n for n in fn.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    return body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else None


def _path(expr, funcs) -> str | None:
    """The snapshot path an expression reads: dig(s, "a", "b"), helper(s) (a one-line section
    helper), X.get("key") on one of those; None when it is anything else."""
    if not isinstance(expr, ast.Call):
        return None
    f = expr.func
    if isinstance(f, ast.Name) and f.id == "dig" and all(isinstance(a, ast.Constant) for a in expr.args[1:]):
        keys = [a.value for a in expr.args[1:]]
        if isinstance(expr.args[0], ast.Name):  # dig(s, ...): from the top
            return ".".join(keys)
        base = _path(expr.args[0], funcs)
        return ".".join([base, *keys]) if base else None
    if isinstance(f, ast.Name) and f.id == "as_dict" and len(expr.args) == 1:
        return _path(expr.args[0], funcs)
    if isinstance(f, ast.Name) and f.id in funcs and f.id.startswith("_") and len(expr.args) == 1:
        inner = _returned(funcs[f.id])
        return _path(inner, funcs) if inner is not None else None
    if isinstance(f, ast.Attribute) and f.attr == "get" and expr.args and isinstance(expr.args[0], ast.Constant):
        base = _path(f.value, funcs)
        return f"{base}.{expr.args[0].value}" if base else None
    return None


def field_readers() -> dict[str, tuple[str, str]]:
    """{accessor: (guard, path)} for every one-line field reader of facts/core.py."""
    funcs = _functions()
    out = {}
    for name, fn in funcs.items():
        ret = _returned(fn)
        if (isinstance(ret, ast.Call) and isinstance(ret.func, ast.Name) and ret.func.id in GUARD_KIND
                and len(ret.args) == 1):
            path = _path(ret.args[0], funcs)
            if path:
                out[name] = (ret.func.id, path)
    return out


def test_the_scanner_finds_the_field_readers():
    readers = field_readers()
    assert readers["machine"] == ("text", "platform.machine")
    assert readers["torch_importable"] == ("_bool", "torch.importable")
    assert readers["python_version"] == ("text", "platform.python.version")
    assert len(readers) >= 30, sorted(readers)


def test_every_field_reader_reads_a_declared_field_of_its_kind():
    wrong = []
    for name, (guard, path) in sorted(field_readers().items()):
        spec = contract.field(path)
        if spec is None and path in contract.SECTIONS:
            spec = contract.Field(contract.DICT, "a section")
        if spec is None:
            wrong.append(f"{name}: reads {path}, which contract.py does not declare")
        elif spec.kind != GUARD_KIND[guard] and not (guard == "as_dict" and spec.kind == contract.DICT):
            wrong.append(f"{name}: {guard}() on {path}, declared {spec.kind}")
    assert not wrong, "\n".join(wrong)


def test_ext_status_has_the_declared_fields_typed_by_kind():
    spec = contract.field("extension.status")
    declared = {k: f.kind for k, f in spec.fields.items()}
    typed = {f.name: f.type for f in dataclasses.fields(F.ExtStatus)}
    assert set(typed) == set(declared)
    for name, kind in declared.items():
        assert typed[name] == {contract.STR: "str | None", contract.DICT: "dict"}[kind], name


def test_ext_status_reads_every_field_and_never_a_wrong_type():
    snap = {"extension": {"status": {"state": "stale", "mode": "aot", "path": "/x/_C.so", "built_against": "2.13.0",
                                     "running_torch": 5, "stale_aot": {"path": "/y/_C.so", "reason": "ABI"},
                                     "meta": "not an object"}}}
    st = F.ext_status(snap)
    assert (st.state, st.mode, st.path, st.built_against) == ("stale", "aot", "/x/_C.so", "2.13.0")
    assert st.running_torch is None and st.meta == {} and st.error is None   # wrong type and missing: unknown
    assert (st.stale_path, st.stale_reason) == ("/y/_C.so", "ABI") and F.ext_state(snap) == "stale"
    assert F.ext_state({}) is None and F.ext_status(None) == F.ExtStatus()


def test_no_accessor_hands_out_a_sub_dict_to_dig_into():
    # ext_status was one: a dict callers read .get("state") from.  It is typed now.
    assert inspect.signature(F.ext_status).return_annotation in ("ExtStatus", F.ExtStatus)
