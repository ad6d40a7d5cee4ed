"""The facts layer's field readers agree with contract.py, checked rather than restated by hand:

* every one-line reader of facts/core.py (`return text(_platform(s).get("machine"))`,
  `return _bool(_torch(s).get("importable"))`, ...) reads a path contract.py declares, and its
  type guard matches the declared kind (text -> STR, _bool -> BOOL, _int -> INT, as_dict -> DICT,
  as_list -> LIST);
* ExtStatus, the typed extension.status, has exactly the fields contract.py declares for it, typed
  by their kind, so no caller digs into a sub-dict (`F.ext_status(s).get("state")`);
* so has every record of facts/records.py (a GPU, an nvcc candidate, the host compiler, ...), in
  the contract's order, read tolerantly (a missing or ill-typed field is None, never an exception),
  and its to_dict() is the object a normalised snapshot holds (findings' details show it);
* so has every reshaped record (a recorded list the accessor reshapes: some of the declared fields, in
  the contract's order), and every verdict the facts layer derives names the declared paths it is
  judged from;
* no accessor of facts/core.py hands out a dict: a computed result or a reshaped list is a record, a
  name -> value map is a read-only Mapping of plain values (named below, each with why), checked on
  the annotations and on what every accessor returns for every recorded snapshot."""

from __future__ import annotations

import ast
import dataclasses
import glob
import inspect
import json
import os
import types
from collections.abc import Mapping

import pytest

from paths import REPO
from torch_envcheck.facts import conda as C
from torch_envcheck.facts import contract
from torch_envcheck.facts import core as F
from torch_envcheck.facts import frameworks as H
from torch_envcheck.facts import records as R
from torch_envcheck.facts import tensorflow as T

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
    # these were dicts callers read .get("state"), .get("version"), ["capability"] from; they are typed now
    typed = {F.ext_status: "ExtStatus", F.nvcc_in_use: "NvccCandidate | None",
             F.nvcc_candidates: "list[NvccCandidate]", F.cuda_home: "CudaHomeVar",
             F.host_compiler: "HostCompiler | None", F.ninja: "Ninja | None", F.msvc: "Msvc | None",
             F.mps: "Mps | None", F.xpu: "Xpu | None", F.import_process: "ImportProcess | None",
             F.torch_devices: "list[TorchDevice]", F.driver_gpus: "list[DriverGpu]",
             F.gpus: "list[TorchDevice] | list[DriverGpu]", F.machine_gpus: "list[DriverGpu] | list[TorchDevice]",
             F.mig_gpus: "list[DriverGpu]", F.requires_dist: "list[RequiresDist]", F.ext_devices: "list[ExtDevice]",
             F.jetson: "Jetson | None", F.pci_gpus: "list[PciGpu] | None", F.other_gpus: "list[OtherGpu] | None",
             F.dkms_builds: "list[DkmsBuild] | None", F.driver_packages: "list[DriverPackage] | None",
             F.torch_copies: "list[TorchCopy]", F.request: "Request", F.oldest_build_beyond_driver: "OldestBuild | None",
             F.container_without_gpu: "ContainerWithoutGpu | None",
             F.cuda_visible_devices: "CudaVisibleDevices | None", F.import_broken_by_search_path: "ImportBreaker | None",
             F.wsl_linux_driver: "WslLinuxDriver | None", F.torch_shadowed: "TorchShadowed | None",
             F.visible_device_entries: "list[VisibleDeviceEntry] | None", F.library_listing: "list[LibraryListing]",
             F.shm: "Shm | None", F.library_entries: "list[LibraryFolder]",
             F.libcuda_resolution: "list[LibcudaEntry] | None"}
    for accessor, annotation in typed.items():
        assert inspect.signature(accessor).return_annotation == annotation, accessor.__name__


# ---------------------------------------------------------------- records

KIND_TYPE = {contract.STR: "str | None", contract.INT: "int | None", contract.BOOL: "bool | None",
             contract.FLOAT: "float | None"}
PATHS = {cls: [cls.PATH] for cls in R.RECORDS}
PATHS[R.CudaHomeVar] = ["toolchain.cuda_home.CUDA_HOME", "toolchain.cuda_home.CUDA_PATH"]


def _expected_type(cls, name, spec) -> str:
    if spec.kind == contract.LIST:
        item = cls.NESTED[name].__name__ if spec.fields is not None else KIND_TYPE[spec.of].split(" ")[0]
        return f"tuple[{item}, ...] | None"
    return KIND_TYPE[spec.kind]


def _key(cls, name: str) -> str:
    """The recorded key of a record's field (a field whose key is no Python name is renamed: class)."""
    return cls.KEYS.get(name, name)


@pytest.mark.parametrize("cls", R.RECORDS, ids=lambda c: c.__name__)
def test_every_record_has_the_declared_fields_in_order_typed_by_kind(cls):
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert set(cls.KEYS) <= {f.name for f in dataclasses.fields(cls)}
    for path in PATHS[cls]:
        declared = contract.field(path).fields
        assert [_key(cls, f.name) for f in dataclasses.fields(cls)] == list(declared), path
        for f in dataclasses.fields(cls):
            assert f.type == _expected_type(cls, f.name, declared[_key(cls, f.name)]), (path, f.name)


WRONG = {contract.STR: 7, contract.INT: "7", contract.BOOL: 1, contract.FLOAT: "1.5", contract.LIST: {"a": 1},
         contract.DICT: ["a"]}
RIGHT = {contract.STR: "x", contract.INT: 7, contract.BOOL: False, contract.FLOAT: 1.5}


@pytest.mark.parametrize("cls", R.RECORDS, ids=lambda c: c.__name__)
def test_a_record_reads_tolerantly(cls):
    declared = {_key(cls, f.name): f.name for f in dataclasses.fields(cls)}   # recorded key -> field
    specs = contract.field(cls.PATH).fields
    for raw in (None, [], "text", 3, True):
        assert cls.of(raw) is None
    empty = cls.of({})
    assert all(getattr(empty, n) is None for n in declared.values()) and empty == cls()
    wrong = cls.of({k: WRONG[specs[k].kind] for k in declared} | {"undeclared": 1})
    assert all(getattr(wrong, n) is None for n in declared.values()), wrong
    right = {k: RIGHT[specs[k].kind] for k in declared if specs[k].kind in RIGHT}
    rec = cls.of(right)
    assert all(getattr(rec, declared[k]) == v and type(getattr(rec, declared[k])) is type(v) for k, v in right.items())
    assert {k: v for k, v in rec.to_dict().items() if k in right} == right
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(rec, next(iter(declared.values())), None)


def test_lists_keep_items_of_the_declared_kind_only():
    g = R.DriverGpu.of({"index": 0, "mig_devices": [{"uuid": "MIG-1"}, "junk", 3, {"uuid": 5}]})
    assert g.mig_devices == (R.MigDevice(uuid="MIG-1"), R.MigDevice())
    r = R.RequiresDist.of({"name": "torch", "requires": ["a>=1", 2, None, "b"]})
    assert r.requires == ("a>=1", "b")
    assert R.Msvc.of({"cl": "  ", "vswhere": "C:/vswhere.exe"}) == R.Msvc(vswhere="C:/vswhere.exe")  # blank: unknown
    assert R.HostCompiler.of({"path": "/usr/bin/gcc"}).to_dict() == {"path": "/usr/bin/gcc", "version": None,
                                                                     "error": None}


def _objects(snap: dict, path: str) -> list:
    """The recorded objects at a record's contract path ('driver.gpus' -> each GPU)."""
    parts = path.split(".")
    found = [snap]
    for part in parts:
        nxt = []
        for obj in found:
            v = obj.get(part) if isinstance(obj, dict) else None
            nxt += v if isinstance(v, list) else ([v] if v is not None else [])
        found = nxt
    return [o for o in found if isinstance(o, dict)]


SNAPSHOTS = sorted(glob.glob(os.path.join(REPO, "tests", "snapshots", "*.json")))


def test_to_dict_is_the_normalised_object_for_every_recorded_snapshot():
    checked = 0
    for path in SNAPSHOTS:
        with open(path, encoding="utf-8") as fh:
            snap = contract.normalise(json.load(fh))
        for cls in R.RECORDS:
            for p in PATHS[cls]:
                for obj in _objects(snap, p):
                    declared = {k: v for k, v in obj.items() if k in contract.field(p).fields}
                    assert cls.of(obj).to_dict() == declared, (os.path.basename(path), p)
                    checked += 1
    assert checked > 300, checked


def test_the_typed_accessors_read_a_snapshot():
    snap = {"torch": {"devices": [{"index": 0, "name": "H100", "capability": "9.0", "total_memory_bytes": 2**30}],
                      "mps": {"built": True, "available": False}, "import_process": {"signal": "SIGILL"}},
            "driver": {"gpus": [{"index": 0, "name": "H100", "capability": "9.0", "memory_total_mib": 1024,
                                 "mig_mode": True, "mig_devices": []}, "junk"]},
            "toolchain": {"nvcc": [{"path": "/a/nvcc", "version": None, "error": "exit 1"},
                                   {"path": "/b/nvcc", "version": "13.0", "toolkit_found": True}],
                          "cuda_home": {"CUDA_HOME": {"value": "/b", "exists": True, "has_nvcc": True}},
                          "host_compiler": {"path": "/usr/bin/gcc", "version": "gcc 12"}, "ninja": "not an object"}}
    assert [g.capability for g in F.gpus(snap)] == ["9.0"] and F.gpus_source(snap) == "torch"
    assert F.gpus(snap)[0].memory_bytes == 2**30 == F.driver_gpus(snap)[0].memory_bytes
    assert F.machine_gpus(snap) == F.driver_gpus(snap) and len(F.driver_gpus(snap)) == 1
    assert F.mig_gpus(snap)[0].mig_devices == () and F.mig_uuids(snap) == []
    assert F.nvcc_in_use(snap).path == "/b/nvcc" and len(F.nvcc_candidates(snap)) == 2
    assert F.cuda_home(snap, "CUDA_HOME").has_nvcc is True and F.cuda_home(snap, "CUDA_PATH") == R.CudaHomeVar()
    assert F.host_compiler(snap).version == "gcc 12" and F.ninja(snap) is None and F.msvc(snap) is None
    assert F.mps(snap) == R.Mps(built=True, available=False) and F.mps_available(snap) is False
    assert F.import_process(snap).signal == "SIGILL" and F.import_process({}) is None
    assert F.gpu_label(F.gpus(snap)[0]) == "H100 (compute capability 9.0)"
    for accessor in (F.gpus, F.nvcc_candidates, F.requires_dist, F.ext_devices, F.mig_gpus):
        assert accessor({}) == [] and accessor(None) == [] and accessor({"torch": "x", "toolchain": 3}) == []
    for accessor in (F.nvcc_in_use, F.host_compiler, F.ninja, F.msvc, F.mps, F.xpu, F.import_process, F.jetson):
        assert accessor({}) is None and accessor(None) is None


MODULES = {"core": F, "conda": C, "tensorflow": T, "frameworks": H}
# The functions of the facts modules that hand out a dict: primitives and whole-section views (which
# test_facts_only.py keeps inside the facts layer), never a fact to read a field of.
DICT_ACCESSORS = {
    "core.as_dict": "primitive", "core.dig": "primitive", "core.section": "a whole section, shown by --verbose",
    "core.stable_key": "the whole snapshot, compared as a key",
    "core.ext_gencode": "build_info.cuda.gencode as recorded, put into a finding's details (shown, never judged)",
    "conda.conda": "the conda section, read by conda.py's accessors only",
    "tensorflow.tf": "the tensorflow section, read by tensorflow.py's accessors only",
    "tensorflow.child": "tensorflow.child, read by tensorflow.py's accessors only",
    "tensorflow.log": "tensorflow.log, read by tensorflow.py's accessors only",
    "tensorflow.file_owners": "the file_owners section, read by tensorflow.py's accessors only",
    "tensorflow.build_info": "tf.sysconfig.get_build_info() as recorded: read by tensorflow.py's accessors, shown "
                             "whole in a finding's details (never judged there)",
}
UNANNOTATED_VIEWS = {"core.dig", "core.section", "core.ext_gencode"}
# ExtStatus's free-form objects, as contract.py declares them (read through stale_path / stale_reason)
FREE_FORM = {"meta", "stale_aot"}
# Open maps, name -> value with no fields to dig for: read-only (types.MappingProxyType), plain values
# or records.
OPEN_MAPS = {
    "core.probe_errors": "probe name -> the error it raised", "core.probe_seconds": "probe name -> seconds",
    "core.installed_versions": "distribution -> version (None: recorded as not installed)",
    "core.nvidia_packages": "nvidia-* wheel -> version",
    "conda.packages": "package name -> its record (CondaPackage)",
    "conda.requested": "package name -> what was asked for (CondaRequest)",
    "tensorflow.tf_distributions": "TensorFlow/Keras distribution -> version",
}


def _annotated(*words) -> set:
    out = set()
    for mod, module in MODULES.items():
        with open(module.__file__, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        out |= {f"{mod}.{node.name}" for node in tree.body
                if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and node.returns is not None
                and any(w in ast.unparse(node.returns) for w in words)}
    return out


def test_every_accessor_handing_out_a_dict_is_named():
    dict_returning = _annotated("dict")
    assert dict_returning - set(DICT_ACCESSORS) == set(), "return a record (facts/records.py) instead"
    assert set(DICT_ACCESSORS) - dict_returning - UNANNOTATED_VIEWS == set(), "no longer a dict: drop it here"
    assert _annotated("Mapping") == set(OPEN_MAPS), "a name -> value map is named in OPEN_MAPS, with why"


def _plain(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _dicts_in(value, depth=0) -> bool:
    """Whether a value an accessor returned holds a dict anywhere (a record's fields, list items, ...)."""
    if isinstance(value, dict):
        return True
    if depth > 4:
        return False
    if isinstance(value, (R.Record, R.Verdict, R.ExtDevice, F.ExtStatus)):
        return any(_dicts_in(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)
                   if not (isinstance(value, F.ExtStatus) and f.name in FREE_FORM))
    if isinstance(value, (list, tuple)):
        return any(_dicts_in(v, depth + 1) for v in value)
    if isinstance(value, Mapping):
        return any(_dicts_in(v, depth + 1) for v in value.values())
    return False


def _one_snapshot_accessors():
    """The public functions of the facts modules that take the snapshot alone, as 'module.name'."""
    out = []
    for mod, module in MODULES.items():
        for name, fn in sorted(vars(module).items()):
            if (name.startswith("_") or f"{mod}.{name}" in DICT_ACCESSORS or not inspect.isfunction(fn)
                    or fn.__module__ != module.__name__):
                continue
            params = list(inspect.signature(fn).parameters.values())
            if len(params) == 1 and params[0].name in ("s", "snap", "snapshot"):
                out.append(f"{mod}.{name}")
    return out


def test_no_accessor_returns_a_dict_for_any_recorded_snapshot():
    """What every one-argument accessor returns, over every recorded snapshot: no dict anywhere in it
    (ExtStatus's free-form objects aside), an open map read-only with plain values."""
    names = _one_snapshot_accessors()
    assert {"core.gpus", "core.cuda_visible_devices", "core.library_entries", "core.probe_errors", "core.shm",
            "core.request", "conda.packages", "conda.pip_dists", "conda.pytorch_flavour", "tensorflow.and_cuda",
            "tensorflow.tested", "tensorflow.owner_pairs", "frameworks.held"} <= set(names)
    wrong, called = set(), 0
    for path in SNAPSHOTS:
        with open(path, encoding="utf-8") as fh:
            snap = contract.normalise(json.load(fh))
        for name in names:
            mod, fn = name.split(".")
            value = getattr(MODULES[mod], fn)(snap)
            called += 1
            if name in OPEN_MAPS:
                if not isinstance(value, types.MappingProxyType) or _dicts_in(list(value.values())):
                    wrong.add(f"{name}: {type(value).__name__}")
            elif _dicts_in(value):
                wrong.add(f"{name} ({os.path.basename(path)}): {str(value)[:100]}")
    assert called > 8000 and not wrong, sorted(wrong)


def test_the_dict_check_catches_a_planted_dict():
    assert _dicts_in({"a": 1}) and _dicts_in([R.LibraryOnPath(), {"dir": "x"}])
    assert _dicts_in(R.TorchShadowed(imported={"location": "x"}))   # a dict inside a record's field
    assert _dicts_in(types.MappingProxyType({"a": {"b": 1}}))        # a map of maps
    assert not _dicts_in([R.LibraryFolder("x", (R.LibraryFile("libcudart.so.13", "cudart", "13.0"),))])


def test_open_maps_are_read_only():
    snap = {"probe_errors": {"gpu": "boom", "odd": {"nested": 1}}, "probe_seconds": {"gpu": 0.5, "bad": "x"},
            "packages": {"installed": {"torch": "2.13.0", "gone": 5}, "nvidia": {"nvidia-cudnn-cu13": "9.1", "x": 1}}}
    assert dict(F.probe_errors(snap)) == {"gpu": "boom"} and dict(F.probe_seconds(snap)) == {"gpu": 0.5}
    assert dict(F.installed_versions(snap)) == {"torch": "2.13.0", "gone": None}
    assert dict(F.nvidia_packages(snap)) == {"nvidia-cudnn-cu13": "9.1"}
    for name in OPEN_MAPS:
        mod, fn = name.split(".")
        with pytest.raises(TypeError):
            getattr(MODULES[mod], fn)(snap)["planted"] = "x"


@pytest.mark.parametrize("cls", R.RESHAPED, ids=lambda c: c.__name__)
def test_a_reshaped_record_has_declared_fields_in_the_contracts_order(cls):
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    declared = list(contract.field(cls.PATH).fields)
    names = [_key(cls, f.name) for f in dataclasses.fields(cls)]
    assert set(names) <= set(declared) and names == [k for k in declared if k in names], (cls.PATH, names)
    for f in dataclasses.fields(cls):
        assert f.type == _expected_type(cls, f.name, contract.field(cls.PATH).fields[_key(cls, f.name)]), f.name


def _declared(path: str) -> bool:
    return path in contract.SECTIONS or path in contract.TOP or contract.field(path) is not None


@pytest.mark.parametrize("cls", R.VERDICTS, ids=lambda c: c.__name__)
def test_a_verdict_is_frozen_and_names_the_declared_paths_it_is_judged_from(cls):
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert cls.FROM and all(_declared(p) for p in cls.FROM), [p for p in cls.FROM if not _declared(p)]
    assert list(cls().to_dict()) == [f.name for f in dataclasses.fields(cls)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(cls(), dataclasses.fields(cls)[0].name, None)


def test_the_derived_accessors_read_a_snapshot():
    snap = {"platform": {"system": "Linux", "container": "docker"},
            "env": {"CUDA_VISIBLE_DEVICES": "0,7,1", "NVIDIA_VISIBLE_DEVICES": "void"},
            "torch": {"importable": True, "version": "2.13.0+cu130", "cuda": "13.0", "cuda_available": False},
            "driver": {"present": True, "gpus": [{"index": 0, "uuid": "GPU-a"}, {"index": 1, "uuid": "GPU-b"}]},
            "libraries": {"entries": [{"dir": "/opt/cuda/lib64", "libs": [
                {"file": "libcudart.so.12", "kind": "CUDART", "version": "12.1", "soversion": "12"}, "junk"]},
                {"dir": "", "libs": []}, {"dir": "/x", "libs": "not a list"}]},
            "system": {"libcuda": [{"path": "/usr/lib/i386/libcuda.so.1", "source": "ld.so.cache", "abi": "libc6"},
                                   {"path": "/usr/lib/x86_64/libcuda.so.1", "source": "ld.so.cache",
                                    "abi": "libc6,x86-64"}],
                       "shm": {"total_bytes": 64 << 20}}}
    cvd = F.cuda_visible_devices(snap)
    assert (cvd.raw, cvd.n, cvd.empty, cvd.valid, cvd.invalid) == ("0,7,1", 2, False, ("0",), "7")
    assert cvd.to_dict() == {"raw": "0,7,1", "n": 2, "empty": False, "valid": ["0"], "invalid": "7"}
    assert [(e.entry, e.exists) for e in F.visible_device_entries(snap, "CUDA_VISIBLE_DEVICES")] == \
        [("0", True), ("7", False), ("1", True)]
    assert F.container_without_gpu(snap) == R.ContainerWithoutGpu(
        "void", "neither GPUs nor the driver's libraries are given to the container", "docker")
    lib = F.library_entries(snap)
    assert lib == [R.LibraryFolder("/opt/cuda/lib64", (R.LibraryFile("libcudart.so.12", "cudart", "12.1"),)),
                   R.LibraryFolder("/x", ())]
    assert [(e.dir, e.files) for e in F.library_listing(snap)] == [("/opt/cuda/lib64", 2), (None, 0), ("/x", 0)]
    assert F.libcuda_resolution(snap) == [R.LibcudaEntry("/usr/lib/x86_64/libcuda.so.1", "ld.so.cache")]
    assert F.shm(snap) == R.Shm("/dev/shm", 64 << 20, None)
    assert F.request(snap) == R.Request() and F.request({"request": {"frameworks": ["torch", 3], "shell": "cmd"}}) \
        == R.Request(("torch",), "cmd")
    for accessor in (F.cuda_visible_devices, F.container_without_gpu, F.import_broken_by_search_path,
                     F.wsl_linux_driver, F.torch_shadowed, F.shm, F.libcuda_resolution):
        assert accessor({}) is None


def _not_json(value, path="details") -> list[str]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in ([f"{path}: key {k!r}"] if not isinstance(k, str) else [])
                + _not_json(v, f"{path}.{k}")]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in _not_json(v, f"{path}[{i}]")]
    if value is None or isinstance(value, (str, bool, int, float)):
        return []
    return [f"{path}: {type(value).__name__}"]


def test_findings_details_hold_json_not_records():
    """A record put into a finding's details as it is would be written as its repr (json's default=str):
    rules put its to_dict() there (F.as_details).  Every rule over every recorded snapshot."""
    from torch_envcheck.doctor.rules import evaluate  # noqa: PLC0415
    wrong, seen = [], 0
    for path in SNAPSHOTS:
        with open(path, encoding="utf-8") as fh:
            snap = contract.normalise(json.load(fh))
        for f in evaluate(snap):
            seen += 1
            wrong += [f"{os.path.basename(path)} {f.code} {p}" for p in _not_json(f.details)]
    assert seen > 300 and not wrong, wrong[:10]
