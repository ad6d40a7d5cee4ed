"""explain's eighty-ninth round, from the misses of test131 (exporting models): an ONNX opset past the installed
torch's exporter, the onnx package torch.onnx cannot import, pip finding only yanked releases, and NVRTC's log of a
source compiled at run time. The texts are written for these tests from the messages' formats, not copied from the
corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_an_opset_past_the_exporter_is_the_torch_release():
    r = diagnose.diagnose("ValueError: Unsupported ONNX opset version: 21")
    assert r["signature"] == "onnx-opset-beyond-exporter" and r["layer"] == "torch-build"
    assert "opset 21" in _fix(r) and "opset_version" in _fix(r)


def test_torch_onnx_without_onnx_is_the_interpreters_package():
    r = diagnose.diagnose("torch.onnx.OnnxExporterError: Module onnx is not installed!")
    assert r["signature"] == "onnx-package-missing" and r["layer"] == "env"
    assert "python -m pip install onnx" in _fix(r) and "onnx.__file__" in _fix(r)


def test_only_yanked_releases_then_none_is_the_projects_install_route():
    r = diagnose.diagnose("ERROR: Ignored the following yanked versions: 0.3.0\nERROR: Could not find a version that "
                          "satisfies the requirement edgepkg (from versions: none)\nERROR: No matching distribution found "
                          "for edgepkg")
    assert r["signature"] == "only-yanked-releases" and "edgepkg" in _fix(r) and "0.3.0" in r["title"]


def test_nvrtc_compiling_a_generated_source_is_the_sources_error():
    r = diagnose.diagnose("RuntimeError: default_program(42): error: identifier \"foo\" is undefined")
    assert r["signature"] == "nvrtc-source-error" and r["environment_problem"] is False


def test_nvrtc_missing_a_header_is_not_the_sources_error():
    r = diagnose.diagnose("default_program(1): catastrophic error: cannot open source file \"cuda_fp16.h\"")
    assert r.get("signature") != "nvrtc-source-error"
