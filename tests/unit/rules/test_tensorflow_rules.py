"""TensorFlow rules (TE800-TE851, TE890-TE892): every rule has one case where it fires and one where it
stays silent (the recorded TensorFlow snapshots' findings are in tests/data/scenarios.json)."""

from __future__ import annotations

import copy
import json

import pytest

from torch_envcheck.doctor import report
from torch_envcheck.doctor.codes import CODES
from torch_envcheck.doctor.render import areas
from torch_envcheck.doctor.report import findings_for
from torch_envcheck.doctor.rules import tensorflow as R
from torch_envcheck.knowledge.tensorflow import decode_build_version, describe_library

from _rules_helpers import by_code, load

# The recorded TensorFlow snapshots' expected findings are in tests/data/scenarios.json (test_scenarios.py).


def snap(name):
    return copy.deepcopy(load(name))


def tf_codes(findings):
    return [(f["code"], f["severity"]) for f in findings if f["area"] == "tensorflow"]


def test_codes_in_their_ranges():
    tf = [c for c, (_slug, area, _t) in CODES.items() if area == "tensorflow"]
    assert tf and all(800 <= int(c[2:]) <= 899 for c in tf)
    assert [c for c in tf if CODES[c][0].endswith("probe-failed")] == ["TE890"]


# ---------------------------------------------------------------- the missing CUDA libraries (Done-when 1)

def test_te801_names_missing_cuda12_wheels_and_the_fix():
    s = snap("tf_torch_cu130_one_venv")
    f = by_code(findings_for(s), "TE801")[0]
    assert "CUDA 12" in f["message"] and "12 of the 12" in f["message"]
    assert "nvidia-cudnn-cu12" in f["explanation"] and "nvidia-cublas-cu12" in f["explanation"]
    assert f["fix"].endswith("-m pip install 'tensorflow[and-cuda]==2.21.0'")
    assert f["details"]["missing_wheels"][:1] == ["nvidia-cublas-cu12"]


def test_te801_silent_when_the_and_cuda_wheels_are_installed():
    assert not by_code(findings_for(snap("tf_wsl2_tf221_and_cuda")), "TE801")


def test_te801_silent_when_the_libraries_are_on_the_library_path():
    s = snap("tf_torch_cu130_one_venv")
    s["libraries"] = {"search_path_var": "LD_LIBRARY_PATH", "entries": [{"dir": "/usr/local/cuda-12.5/lib64", "libs": [
        {"file": "libcudart.so.12", "kind": "cudart", "version": "12", "soversion": "12"},
        {"file": "libcudnn.so.9", "kind": "cudnn", "version": "9", "soversion": "9"}]}]}
    assert not by_code(findings_for(s), "TE801")


def test_te801_is_a_failure_with_a_gpu_and_explains_te807():
    s = snap("tf_win10_tf26_cudart_missing")
    f = by_code(findings_for(s), "TE801")[0]
    assert f["severity"] == "failure" and f["explains"] == ["TE807"]
    assert "CUDA Toolkit 11.2" in f["fix"] and "cuDNN 8.1" in f["fix"]  # TF 2.6 has no and-cuda extra


def test_te801_silent_for_a_cpu_build():
    s = snap("tf_torch_cu130_one_venv")
    s["tensorflow"]["build_info"]["is_cuda_build"] = False
    assert not by_code(findings_for(s), "TE801")


# ---------------------------------------------------------------- TE807: decoded library names

def test_te807_decodes_library_names():
    f = by_code(findings_for(snap("tf_win10_tf26_cudart_missing")), "TE807")[0]
    assert "cudart64_110.dll = the CUDA 11.0 runtime" in f["message"]
    assert "cudnn64_8.dll = cuDNN 8" in f["message"]
    assert "any CUDA 11.x toolkit" in f["explanation"]


def test_te807_silent_without_dlopen_failures_and_for_tensorrt_alone():
    assert not by_code(findings_for(snap("tf_wsl2_tf221_and_cuda")), "TE807")
    s = snap("tf_wsl2_tf221_and_cuda")
    s["tensorflow"]["log"]["dlopen_failures"] = [{"library": "libnvinfer.so.7"}, {"library": "libnvinfer_plugin.so.7"}]
    assert not by_code(findings_for(s), "TE807")


def test_te807_linux_names():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["tensorflow"]["log"]["dlopen_failures"] = [{"library": "libcudart.so.12"}, {"library": "libcudnn.so.9"}]
    f = by_code(findings_for(s), "TE807")[0]
    assert "libcudart.so.12 = the CUDA 12 runtime" in f["message"] and "libcudnn.so.9 = cuDNN 9" in f["message"]
    assert f["severity"] == "failure"  # the RTX 3070 is there


@pytest.mark.parametrize("name,text", [
    ("cudart64_110.dll", "the CUDA 11.0 runtime"), ("cudart64_101.dll", "the CUDA 10.1 runtime"),
    ("cudart64_12.dll", "the CUDA 12 runtime"), ("cudnn64_8.dll", "cuDNN 8"), ("libcudart.so.12", "the CUDA 12 runtime"),
    ("libcudart.so.11.0", "the CUDA 11.0 runtime"), ("libcudnn.so.8", "cuDNN 8"), ("libcublas.so.12", "cuBLAS of CUDA 12"),
    ("C:\\CUDA\\bin\\cublas64_11.dll", "cuBLAS of CUDA 11"), ("libnvinfer.so.7", "TensorRT 7 (optional: TF runs without it)")])
def test_library_names_decoded(name, text):
    assert describe_library(name)["text"] == text


@pytest.mark.parametrize("value,kind,out", [("64_112", "cuda", "11.2"), ("64_110", "cuda", "11.0"), ("64_101", "cuda", "10.1"),
                                            ("64_8", "cudnn", "8"), ("12.5.1", "cuda", "12.5.1"), ("9", "cudnn", "9"),
                                            ("junk", "cuda", None), (None, "cuda", None), (True, "cuda", None)])
def test_windows_build_info_versions(value, kind, out):
    assert decode_build_version(value, kind) == out


# ---------------------------------------------------------------- TE803 / TE806

def test_te803_fires_on_native_windows_with_a_gpu():
    f = by_code(findings_for(snap("tf_win11_tf215_rtx4070")), "TE803")[0]
    assert "wsl --install" in f["fix"] and "tensorflow<2.11" in f["fix"]
    assert "3.7-3.10, not 3.11.9" in f["explanation"]


def test_te803_silent_without_a_gpu_or_before_2_11():
    s = snap("tf_win11_tf215_rtx4070")
    s["driver"] = {"present": False, "gpus": [], "errors": [], "pci_gpus": None}
    found = findings_for(s)
    assert not by_code(found, "TE803") and tf_codes(found) == [("TE800", "ok")]
    s = snap("tf_win11_tf215_rtx4070")
    s["tensorflow"]["version"] = "2.10.1"
    assert not by_code(findings_for(s), "TE803")


def test_te806_tensorflow_cpu_beside_a_gpu():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["tensorflow"].update(distribution="tensorflow-cpu", distributions={"tensorflow-cpu": "2.21.0"}, gpus=[])
    s["tensorflow"]["build_info"] = {"is_cuda_build": False, "is_rocm_build": False}
    f = by_code(findings_for(s), "TE806")[0]
    assert "uninstall -y tensorflow-cpu" in f["fix"] and "'tensorflow[and-cuda]==2.21.0'" in f["fix"]


def test_te806_silent_without_a_gpu():
    s = snap("tf_torch_cu130_one_venv")
    s["tensorflow"].update(distribution="tensorflow-cpu")
    s["tensorflow"]["build_info"] = {"is_cuda_build": False}
    assert not by_code(findings_for(s), "TE806")


def test_te806_macos_with_an_nvidia_gpu():
    s = load("macos_apple_silicon")
    s["tensorflow"] = {"installed": True, "distribution": "tensorflow", "version": "2.16.2", "child": {"ran": False}}
    s["driver"] = {"present": True, "version": "418.1", "gpus": [{"index": 0, "name": "NVIDIA Quadro K5000", "capability": "3.0"}]}
    assert by_code(findings_for(s), "TE806")
    s["driver"] = {"present": False}
    assert not by_code(findings_for(s), "TE806")


# ---------------------------------------------------------------- TE804 / TE805

def test_te804_driver_too_old_for_tf_cuda():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["driver"].update(version="472.12", cuda_version="11.4")
    f = by_code(findings_for(s), "TE804")[0]
    assert "472.12" in f["message"] and "CUDA 12.5.1" in f["message"] and f["severity"] == "failure"


def test_te804_silent_with_a_new_driver():
    assert not by_code(findings_for(snap("tf_wsl2_tf221_and_cuda")), "TE804")


def test_te805_gpu_older_than_tf_arch_list():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["torch"]["devices"] = [{"index": 0, "name": "Tesla K80", "capability": "3.7"}]
    f = by_code(findings_for(s), "TE805")[0]
    assert "Tesla K80" in f["message"] and "compute_90" in f["message"]


def test_te805_silent_for_covered_gpus_including_ptx():
    s = snap("tf_wsl2_tf221_and_cuda")
    assert not by_code(findings_for(s), "TE805")
    s["torch"]["devices"] = [{"index": 0, "name": "NVIDIA H200", "capability": "9.0"},
                             {"index": 1, "name": "NVIDIA RTX PRO 6000", "capability": "12.0"}]  # via compute_90 PTX
    assert not by_code(findings_for(s), "TE805")


# ---------------------------------------------------------------- TE802

def test_te802_python_outside_the_tested_range():
    s = snap("tf_win10_tf26_cudart_missing")
    s["platform"]["python"]["version"] = "3.10.11"
    f = by_code(findings_for(s), "TE802")[0]
    assert "Python 3.10.11 (tested: 3.6-3.9)" in f["message"]
    assert "tensorflow.org/install/source_windows" in f["explanation"]


def test_te802_cudnn_wheel_of_another_major():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["packages"]["nvidia"]["nvidia-cudnn-cu12"] = "8.9.7.29"
    f = by_code(findings_for(s), "TE802")[0]
    assert "nvidia-cudnn-cu12 8.9.7.29 (tested: cuDNN 9.3)" in f["message"]


def test_te802_silent_on_the_tested_stack():
    assert not by_code(findings_for(snap("tf_wsl2_tf221_and_cuda")), "TE802")


# ---------------------------------------------------------------- TE808 / TE891 / TE892 / TE890

def test_te808_not_importable():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["tensorflow"].update(importable=False, import_error="ImportError: numpy.core.multiarray failed to import",
                           build_info=None, gpus=None)
    f = by_code(findings_for(s), "TE808")[0]
    assert f["severity"] == "failure" and "numpy.core.multiarray" in f["message"]
    assert "--force-reinstall" in f["fix"] and "tensorflow==2.21.0" in f["fix"]


def test_te808_silent_when_the_child_did_not_run():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["tensorflow"].update(importable=None, child={"ran": False, "skipped": "--no-tensorflow"})
    assert not by_code(findings_for(s), "TE808")


def test_te891_timeout_and_te892_crash():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["tensorflow"].update(importable=False, build_info=None, gpus=None,
                           child={"ran": True, "timed_out": True, "timeout": 60.0,
                                  "error": "`python -c` timed out after 60 s"})
    found = findings_for(s)
    assert by_code(found, "TE891") and not by_code(found, "TE808")
    s["tensorflow"]["child"] = {"ran": True, "timed_out": False, "returncode": -4,
                                "error": "the TensorFlow child exited -4 without a result: (no output)"}
    f = by_code(findings_for(s), "TE892")[0]
    assert "AVX" in f["explanation"]
    assert not by_code(findings_for(snap("tf_wsl2_tf221_and_cuda")), "TE891")
    assert not by_code(findings_for(snap("tf_wsl2_tf221_and_cuda")), "TE892")


def test_te890_probe_crash():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["probe_errors"] = {"tensorflow": "RuntimeError: boom", "file_owners": "OSError: nope"}
    f = by_code(findings_for(s), "TE890")
    assert len(f) == 2 and {x["area"] for x in f} == {"tensorflow"}
    assert not by_code(findings_for(snap("tf_wsl2_tf221_and_cuda")), "TE890")


# ---------------------------------------------------------------- TE809 / TE850 / TE851

def test_te809_two_cuda_generations_recommend_two_environments():
    f = by_code(findings_for(snap("tf_torch_cu130_one_venv")), "TE809")[0]
    assert "python3 -m venv ~/venvs/torch" in f["fix"] and "whl/cu130" in f["fix"]
    assert "'tensorflow[and-cuda]==2.21.0'" in f["fix"]


def test_te809_silent_for_one_generation():
    assert not by_code(findings_for(snap("tf_wsl2_tf221_and_cuda")), "TE809")  # cu126 + CUDA 12.5


def _pair(dist_a, dist_b, differing=20, files=28):
    return {"distributions": [dist_a, dist_b], "files": files, "differing": differing,
            "examples": [{"path": "nvidia/cudnn/lib/libcudnn.so.9", "same_content": False},
                         {"path": "nvidia/cudnn/include/cudnn.h", "same_content": True}],
            "location": "/home/user/venv/lib/python3.11/site-packages"}


def test_te850_files_owned_twice():
    s = snap("tf_torch_cu130_one_venv")
    s["file_owners"]["pairs"] = [_pair("nvidia-cudnn-cu12==9.28.0.42", "nvidia-cudnn-cu13==9.28.1.4")]
    found = findings_for(s)
    f = by_code(found, "TE850")[0]
    assert "nvidia-cudnn-cu12==9.28.0.42 and nvidia-cudnn-cu13==9.28.1.4 (20 files)" in f["message"]
    assert "nvidia/cudnn/lib/libcudnn.so.9" in f["explanation"]
    assert "--force-reinstall --no-deps nvidia-cudnn-cu12==9.28.0.42" in f["fix"]
    assert by_code(found, "TE809")[0]["explains"] == ["TE850"]
    assert "20 files owned by two distributions" in areas.headline("tensorflow", s)


def test_te850_silent_for_identical_files_only():
    s = snap("tf_torch_cu130_one_venv")
    s["file_owners"]["pairs"] = [_pair("nvidia-cublas-cu12==12.5.3.2", "nvidia-cudnn-cu12==9.3.0.75", differing=0, files=1)]
    assert not by_code(findings_for(s), "TE850")


def test_te851_installed_numpy_outside_a_requirement():
    s = snap("tf_win10_tf26_cudart_missing")
    s["tensorflow"]["dependency_versions"]["numpy"] = "2.0.2"
    f = by_code(findings_for(s), "TE851")[0]
    assert "numpy 2.0.2 does not satisfy tensorflow 2.6.0 (numpy~=1.19.2)" in f["message"]
    assert "'numpy~=1.19.2'" in f["fix"] or "numpy~=1.19.2" in f["fix"]


def test_te851_frameworks_without_a_common_version():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["tensorflow"]["requires"]["numpy"] = [
        {"framework": "tensorflow", "distribution": "tensorflow", "version": "2.21.0", "specifier": "<2.0", "applies": True},
        {"framework": "torch", "distribution": "torchvision", "version": "0.29.1", "specifier": ">=2.1", "applies": True}]
    s["tensorflow"]["dependency_versions"]["numpy"] = "2.1.3"
    f = [x for x in by_code(findings_for(s), "TE851") if "both frameworks" in x["message"]]
    assert f and f[0]["fix"] is None


def test_te851_silent_when_requirements_hold():
    assert not by_code(findings_for(snap("tf_wsl2_tf221_and_cuda")), "TE851")
    assert not by_code(findings_for(snap("tf_win10_tf26_cudart_missing")), "TE851")


# ---------------------------------------------------------------- TE800, headline, report

def test_te800_ok_only_without_problems():
    assert by_code(findings_for(snap("tf_wsl2_tf221_and_cuda")), "TE800")
    assert not by_code(findings_for(snap("tf_torch_cu130_one_venv")), "TE800")


def test_no_tensorflow_installed_no_tensorflow_findings():
    found = findings_for(load("h100_cu130_healthy"))
    assert tf_codes(found) == []
    assert areas.headline("tensorflow", load("h100_cu130_healthy")) == "not recorded in this snapshot"
    s = load("h100_cu130_healthy")
    s["tensorflow"] = {"installed": False, "child": {"ran": False, "skipped": "TensorFlow is not installed"}}
    assert areas.headline("tensorflow", s) == "TensorFlow not installed"
    rep = report(load("h100_cu130_healthy"))
    assert rep["summary"]["tensorflow"] == "ok"


def test_headline_and_report_area():
    s = snap("tf_wsl2_tf221_and_cuda")
    assert areas.headline("tensorflow", s) == ("tensorflow 2.21.0, CUDA 12.5.1, cuDNN 9 build, 1 GPU visible, "
                                               "no file owned by two of 96 distributions")
    rep = report(snap("tf_win10_tf26_cudart_missing"))
    assert rep["summary"]["tensorflow"] == "failure" and rep["exit_status"] == 1


@pytest.mark.parametrize("mangle", [
    lambda s: s.update(tensorflow=[]), lambda s: s.update(tensorflow={"installed": True, "version": 5}),
    lambda s: s["tensorflow"].update(build_info="x", gpus={"a": 1}, log=[], and_cuda="x", requires=[1], child=3),
    lambda s: s["tensorflow"]["log"].update(dlopen_failures=[None, 3, {"library": None}, "cudart64_110.dll"] * 100),
    lambda s: s.update(file_owners={"pairs": [None, {"distributions": "x"}, {"distributions": [1, 2]}] * 1000}),
])
def test_hostile_snapshots_do_not_crash_the_rules(mangle):
    s = snap("tf_win10_tf26_cudart_missing")
    mangle(s)
    found = findings_for(s)
    assert not [f for f in found if f["code"] == "TE890"]
    json.dumps([f.to_dict() for f in found])
    areas.headline("tensorflow", s)


def test_every_rule_is_listed():
    assert R.RULES[-1] is R.tensorflow_ok and len(set(R.RULES)) == len(R.RULES)


def test_te801_fix_without_a_gpu_and_without_torch_cuda():
    s = snap("tf_torch_cu130_one_venv")
    s["torch"].update(cuda=None, version="2.13.0+cpu", local="cpu", cudnn=None)
    f = by_code(findings_for(s), "TE801")[0]
    assert f["severity"] == "warning"
    assert "uninstall -y tensorflow" in f["fix"] and "install tensorflow-cpu==2.21.0" in f["fix"]
    s["driver"]["pci_gpus"] = None  # unknown: the plain and-cuda install
    f = by_code(findings_for(s), "TE801")[0]
    assert f["fix"] == "/home/user/venvs/tf-torch/bin/python -m pip install 'tensorflow[and-cuda]==2.21.0'"
