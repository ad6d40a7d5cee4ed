"""The snapshot this machine produces honours the data contract the rules are written against
(schema torch_envcheck.snapshot/1): every section and field is present with the documented type."""

from __future__ import annotations

import json

import pytest

import torch_envcheck.doctor as doctor
from torch_envcheck.doctor import snapshot as snapmod

STR, INT, BOOL, FLOAT, LIST, DICT, NONE = str, int, bool, (int, float), list, dict, type(None)

CONTRACT = {
    "platform": {"system": STR, "release": STR, "machine": STR, "os_pretty": (STR, NONE), "wsl": (INT, NONE),
                 "mac_ver": (STR, NONE), "apple_silicon": (BOOL, NONE), "container": (STR, NONE), "python": DICT},
    "torch": {"importable": BOOL, "import_error": (STR, NONE), "import_seconds": (FLOAT, NONE),
              "version": (STR, NONE), "local": (STR, NONE), "cuda": (STR, NONE), "hip": (STR, NONE),
              "cudnn": (INT, NONE), "arch_list": LIST, "cuda_available": (BOOL, NONE), "device_count": (INT, NONE),
              "cuda_init_error": (STR, NONE), "devices": LIST, "mps": (DICT, NONE), "mkldnn": (BOOL, NONE),
              "cxx11_abi": (BOOL, NONE), "installer": (STR, NONE), "location": (STR, NONE),
              "requires_python": (STR, NONE)},
    "packages": {"torchvision": (DICT, NONE), "torchaudio": (DICT, NONE), "triton": (DICT, NONE), "nvidia": DICT},
    "driver": {"source": (STR, NONE), "present": BOOL, "version": (STR, NONE), "cuda_version": (STR, NONE),
               "gpus": LIST, "errors": LIST, "pci_gpus": (LIST, NONE)},
    "env": {"CUDA_VISIBLE_DEVICES": (STR, NONE), "CUDA_DEVICE_ORDER": (STR, NONE), "LD_LIBRARY_PATH": (STR, NONE),
            "CUDA_HOME": (STR, NONE), "CUDA_PATH": (STR, NONE), "PYTORCH_CUDA_ALLOC_CONF": (STR, NONE)},
    "libraries": {"search_path_var": STR, "entries": LIST},
    "toolchain": {"nvcc": LIST, "cuda_home": DICT, "host_compiler": (DICT, NONE), "ninja": (DICT, NONE)},
    "extension": {"status": DICT, "build_info": (DICT, NONE), "runtime_info": (DICT, NONE)},
    "tensorflow": {"installed": BOOL, "distribution": (STR, NONE), "version": (STR, NONE), "distributions": DICT,
                   "extras": LIST, "and_cuda": LIST, "requires": DICT, "dependency_versions": DICT, "child": DICT},
    "file_owners": {"distributions": INT, "files": INT, "shared_files_differing": INT, "shared_files_identical": INT,
                    "pairs": LIST, "pairs_total": INT, "truncated": BOOL},
}
PYTHON = {"version": STR, "implementation": STR, "executable": STR, "prefix": STR, "base_prefix": STR,
          "venv": BOOL, "conda_env": (STR, NONE), "conda_prefix": (STR, NONE)}
NVCC = {"path": STR, "source": STR, "cuda_home": STR, "toolkit_found": BOOL, "version": (STR, NONE),
        "error": (STR, NONE)}


@pytest.fixture(scope="module")
def snap():
    return doctor.collect(timeout=5.0)


def _check(obj: dict, spec: dict, where: str) -> None:
    for key, kind in spec.items():
        assert key in obj, f"{where}.{key} missing"
        assert isinstance(obj[key], kind), f"{where}.{key} = {obj[key]!r} is not {kind}"


def test_snapshot_follows_the_contract(snap):
    assert snap["schema"] == "torch_envcheck.snapshot/1" and snap["tool_version"]
    assert snap["probe_errors"] == {}, snap["probe_errors"]  # on this machine every probe runs
    assert set(snap["probe_seconds"]) == set(CONTRACT)
    for section, spec in CONTRACT.items():
        _check(snap[section], spec, section)
    _check(snap["platform"]["python"], PYTHON, "platform.python")
    for entry in snap["toolchain"]["nvcc"]:
        _check(entry, NVCC, "toolchain.nvcc[]")
    for gpu in snap["driver"]["gpus"]:
        _check(gpu, {"index": INT, "name": (STR, NONE), "capability": (STR, NONE)}, "driver.gpus[]")
    for dev in snap["driver"]["pci_gpus"] or []:
        _check(dev, {"bus_id": STR, "device_id": (STR, NONE), "class": STR}, "driver.pci_gpus[]")
    for dev in snap["torch"]["devices"]:
        _check(dev, {"index": INT, "name": STR, "capability": STR, "total_memory_bytes": INT}, "torch.devices[]")
    assert snap["extension"]["status"]["state"] in ("ok", "stale", "missing", "torch-missing", "broken")


def test_snapshot_is_plain_json_and_validates(snap):
    again = json.loads(json.dumps(snap))
    assert again == snap and snapmod.validate(again) is again


def test_torch_facts_match_torch(snap):
    import torch

    t = snap["torch"]
    assert t["importable"] and t["version"] == torch.__version__ and t["cuda"] == torch.version.cuda
    assert t["cuda_available"] == torch.cuda.is_available()
    if torch.version.cuda:
        assert t["arch_list"] == torch._C._cuda_getArchFlags().split()
    assert t["cudnn"] == torch.backends.cudnn.version()
