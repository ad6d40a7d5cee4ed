"""The error-code tables (knowledge/data/error_codes.json) against the headers that declare them.

Each family whose header is on this machine (the nvidia-* wheels, the triton wheel, the Linux UAPI headers) is
regenerated with benchmarks/gen_error_tables.py and must agree with the shipped table: every enumerator (no code of
the family unknown), its number, its description and its layer; where the library itself loads, its own message.
A family whose header is absent is skipped, and the skip names it.  Errnos and signals are also checked against
Python's own errno and signal modules, NVML's codes against nvidia-ml-py's constants."""

from __future__ import annotations

import errno
import json
import re
import signal

import gen_error_tables as gen
import pytest

from torch_envcheck.knowledge import error_codes

with open(error_codes.FILE, encoding="utf-8") as _fh:
    SHIPPED = json.load(_fh)["tables"]

HEADER_FAMILIES = [f["enum"] for f in gen.FAMILIES if not f.get("external")]


def _rows(table: dict) -> dict:
    return {c["name"]: c for c in table["codes"]}


@pytest.fixture(scope="module")
def regenerated():
    tables, skipped = gen.generate(with_messages=True)
    return tables, skipped


@pytest.mark.parametrize("enum", HEADER_FAMILIES)
def test_family_regenerates_from_its_header(enum, regenerated):
    tables, skipped = regenerated
    if enum not in tables:
        pytest.skip(f"{enum}: header absent here ({skipped.get(enum)})")
    fresh, shipped = tables[enum], SHIPPED[enum]
    if fresh["source"].get("version") != shipped["source"].get("version"):
        # another release of the wheel: the enumerators both know must still agree
        common = set(_rows(fresh)) & set(_rows(shipped))
        assert common, enum
        for name in common:
            assert _rows(fresh)[name]["value"] == _rows(shipped)[name]["value"], name
        pytest.skip(f"{enum}: installed {fresh['source'].get('distribution')} {fresh['source'].get('version')}, "
                    f"the table is from {shipped['source'].get('version')}: compared the {len(common)} common codes")
    for key in ("enum", "library", "header", "source"):
        assert fresh[key] == shipped[key], key
    assert [(c["name"], c["value"]) for c in fresh["codes"]] == [(c["name"], c["value"]) for c in shipped["codes"]]
    for a, b in zip(fresh["codes"], shipped["codes"]):
        assert a.get("description") == b.get("description"), a["name"]
        assert a["layer"] == b["layer"], a["name"]
        if "message" in a:  # the library loaded here: its own words must be the shipped ones
            assert a["message"] == b.get("message"), a["name"]


def test_every_issue_family_is_shipped_with_a_cited_source():
    wanted = {"cudaError_t", "CUresult", "cudnnStatus_t", "cublasStatus_t", "cusparseStatus_t", "cusolverStatus_t",
              "cufftResult", "curandStatus_t", "nvrtcResult", "ncclResult_t", "nvmlReturn_t", "hipError_t", "errno",
              "signal", "windows"}
    assert wanted <= set(SHIPPED)
    for enum, t in SHIPPED.items():
        src = t["source"]
        assert str(src.get("url", "")).startswith("https://"), enum
        if "repository" in src:
            assert re.fullmatch(r"[0-9a-f]{40}", src["commit"]) and src["path"], enum
        else:
            assert src.get("distribution") and src.get("version") and src.get("path"), enum
        assert len(t["codes"]) >= 7, enum
        assert all(c["layer"] in error_codes.LAYERS for c in t["codes"]), enum


def test_recorded_data_names_no_path_of_this_machine():
    text = json.dumps(SHIPPED)
    assert "/work/" not in text and "/tmp/" not in text and "/root/" not in text


def test_headers_absent_here_are_named(regenerated):
    # the external headers (nvml.h, ROCm's hip_runtime_api.h) are given on the command line: without them the
    # generator says which it skipped
    _tables, skipped = regenerated
    assert "nvmlReturn_t" in skipped and "nvml.h" in skipped["nvmlReturn_t"]


def test_enum_parser_reads_the_header_conventions():
    body = """
    /** The first sentence here. Second one. */
    A_SUCCESS = 0,
    A_TWO = 0x2,   ///< trailing doc
    // Deprecated
    A_OLD = A_TWO,
    A_NEXT,        /**< after an alias: previous + 1 */
    A_LAST CUDNN_DEPRECATED_ENUM = 7 /* inline note */, /**< with a macro */
    """
    rows = gen.parse_enum(body)
    assert [(r["name"], r["value"]) for r in rows] == [("A_SUCCESS", 0), ("A_TWO", 2), ("A_OLD", 2), ("A_NEXT", 3),
                                                         ("A_LAST", 7)]
    assert rows[0]["description"] == "The first sentence here."
    assert rows[1]["description"] == "trailing doc"
    assert rows[2]["alias_of"] == "A_TWO" and rows[2]["deprecated"]
    assert rows[4]["description"] == "with a macro"


@pytest.mark.parametrize("name", sorted(gen.ERRNOS))
def test_errno_values_are_this_platform_s(name):
    if not hasattr(errno, name):
        pytest.skip(f"{name} is not defined here")
    code = error_codes.by_name(name)
    assert code is not None and code.value == getattr(errno, name) and code.family == "errno"


@pytest.mark.parametrize("name", sorted(gen.SIGNALS))
def test_signal_values_are_this_platform_s(name):
    if not hasattr(signal, name):
        pytest.skip(f"{name} is not defined here")
    assert error_codes.by_name(name).value == getattr(signal, name)


def test_nvml_codes_agree_with_nvidia_ml_py():
    pynvml = pytest.importorskip("pynvml")
    shipped = _rows(SHIPPED["nvmlReturn_t"])
    consts = {k: v for k, v in vars(pynvml).items() if re.fullmatch(r"NVML_(?:SUCCESS|ERROR_[A-Z_]+)", k) and isinstance(v, int)}
    common = set(consts) & set(shipped)
    assert len(common) >= 20
    assert all(shipped[k]["value"] == consts[k] for k in common)


def test_hip_codes_agree_with_the_triton_wheel_s_header():
    path = gen.find_in_wheel("triton/backends/amd/include/hip/hip_runtime_api.h")
    if path is None:
        pytest.skip("triton's hip_runtime_api.h is not installed here")
    fam = next(f for f in gen.FAMILIES if f["enum"] == "hipError_t")
    with open(path, encoding="utf-8", errors="replace") as fh:
        rows = {r["name"]: r["value"] for r in gen.parse_enum(gen.enum_body(fh.read(), fam))}
    shipped = _rows(SHIPPED["hipError_t"])
    common = set(rows) & set(shipped)
    assert len(common) >= 60
    assert all(shipped[k]["value"] == rows[k] for k in common)


@pytest.mark.parametrize("family, value, name", [
    ("cudaError_t", 209, "cudaErrorNoKernelImageForDevice"), ("cudaError_t", 35, "cudaErrorInsufficientDriver"),
    ("cudaError_t", 802, "cudaErrorSystemNotReady"), ("CUresult", 999, "CUDA_ERROR_UNKNOWN"),
    ("cublasStatus_t", 1, "CUBLAS_STATUS_NOT_INITIALIZED"), ("ncclResult_t", 2, "ncclSystemError"),
    ("nvmlReturn_t", 18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"), ("hipError_t", 98, "hipErrorInvalidDeviceFunction"),
    ("windows", 126, "ERROR_MOD_NOT_FOUND"), ("windows", 0xC0000135, "STATUS_DLL_NOT_FOUND"),
    ("windows", 1455, "ERROR_COMMITMENT_LIMIT"),
])
def test_lookup_by_value(family, value, name):
    assert error_codes.by_value(family, value).name == name


def test_lookup_by_the_library_s_own_message():
    assert error_codes.by_message("cudaError_t", "no kernel image is available for execution on the device").value == 209
    assert error_codes.by_message("cublasStatus_t", "the library was not initialized").name == "CUBLAS_STATUS_NOT_INITIALIZED"
    # HIP prints the CUDA runtime's words for the code of the same name
    assert error_codes.by_name("hipErrorInvalidDeviceFunction").message == "invalid device function"


def test_layers_of_telling_codes():
    assert error_codes.by_name("cudaErrorInsufficientDriver").layer == "driver"
    assert error_codes.by_name("cudaErrorNoKernelImageForDevice").layer == "arch"
    assert error_codes.by_name("cudaErrorIllegalAddress").layer == "not-environment"
    assert error_codes.by_name("cudaErrorMemoryAllocation").layer == "not-environment"
    assert error_codes.by_name("CUBLAS_STATUS_NOT_INITIALIZED").layer == "not-environment"  # cublasCreate: OOM
    assert error_codes.by_name("hipErrorNoBinaryForGpu").layer == "rocm"
    assert error_codes.by_name("CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED").layer == "cudnn"
    assert error_codes.by_name("cudaSuccess").environment_problem is None
