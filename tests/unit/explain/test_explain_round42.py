"""explain's forty-second round, from test42's misses (the quantization libraries): a package saying its compiled
kernels are not installed or could not be loaded (in the passive, or without its name), and cuBLAS' status 15 (not supported) under bitsandbytes' int8
matmul. The texts are written for these tests from the packages' messages, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("text, name, dist", [
    ("WARNING - CUDA Extension not installed.", None, None),
    ("AssertionError: AWQ kernels could not be loaded. Please install them from "
     "https://github.com/casper-hansen/AutoAWQ_kernels", "autoawq-kernels", "autoawq-kernels"),
    ("ImportError: exllama kernels are not installed", "exllama", None),
])
def test_a_package_without_its_compiled_kernels(text, name, dist):
    r = diagnose.diagnose(text)
    assert r["signature"] == "package-extension-not-loaded" and r["layer"] == "toolchain", r
    assert "from source" in _fix(r) and "--no-build-isolation" in _fix(r)
    if name:
        assert name in r["title"]
    # a label read from the message goes into no pip command unless it names a distribution
    assert (f"--no-binary {dist} {dist}" if dist else "--no-binary <package> <package>") in _fix(r)


def test_a_sentence_about_kernels_that_do_load_is_not_read():
    r = diagnose.diagnose("INFO: fused kernels loaded successfully; using the fast path")
    assert r is None or r["signature"] != "package-extension-not-loaded", r


def test_cublas_status_15_under_bitsandbytes_int8_is_the_gpu():
    r = diagnose.diagnose("bin /usr/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cuda121.so\ncuBLAS API "
                          "failed with status 15\nerror detected")
    assert r["signature"] == "gpu-lacks-int8-matmul" and r["layer"] == "arch", r


def test_cublas_status_15_elsewhere_is_not_bitsandbytes():
    r = diagnose.diagnose("my_solver: cuBLAS API failed with status 15")
    assert r is None or r["signature"] != "gpu-lacks-int8-matmul", r
