"""explain's hundred-and-eighth round, from the misses of test199 to test203 (geospatial, chemistry ML, music
generation, anomaly detection, fastai): torch's own capability warnings in all their forms. The texts are written for
these tests from the format strings of torch/cuda/__init__.py (_check_capability, _warn_unsupported_code), not copied
from the corpus; the builds a fix may name are the release table's (knowledge.releases)."""

from __future__ import annotations

import importlib
import re

from torch_envcheck.explain import diagnose

# the module (torch_envcheck.knowledge exports a function of the same name)
_REL = importlib.import_module("torch_envcheck.knowledge.releases")

_LIST_HEAD = ("The following list shows the CCs this version of PyTorch was built for and the hardware CCs it "
              "supports:\n")


def _newer_gpu(suggest: str) -> str:
    return ("UserWarning: Found GPU0 NVIDIA GeForce RTX 5070 which is of compute capability (CC) 12.0.\n" + _LIST_HEAD +
            "- 5.0 which supports hardware CC >=5.0,<6.0 except {5.3}\n"
            "- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}\n"
            "- 9.0 which supports hardware CC >=9.0,<10.0\n"
            "Your installed torch==2.13.0+cu126 does not include kernels for this GPU. Reinstall the same version "
            "against a CUDA build that does, e.g.:\n" + suggest)


def _tag_serves(tag: str, capability: str) -> bool:
    return any(r["tag"] == tag for r in _REL.releases_supporting(capability))


def test_a_gpu_newer_than_every_listed_target_gets_a_build_the_table_confirms():
    r = diagnose.diagnose(_newer_gpu("  For CUDA 12.8 use pip install torch==2.13.0 --index-url "
                                     "https://download.pytorch.org/whl/cu128"))
    assert r["signature"] == "gpu-newer-than-build-targets" and r["layer"] == "arch" and r["environment_problem"]
    tags = re.findall(r"download\.pytorch\.org/whl/(cu\d{3})", r["fix"])
    assert tags and all(_tag_serves(t, "12.0") for t in tags), r["fix"]
    assert "sm_120" in r["fix"] and "cu126" not in tags


def test_the_warnings_own_suggestion_never_decides_the_index():
    # the text is a stranger's: an index or a CUDA the release table does not know is not repeated
    r = diagnose.diagnose(_newer_gpu("  For CUDA 9.9 use pip install torch==2.13.0 --index-url "
                                     "https://packages.example.invalid/whl/cu999"))
    assert r["signature"] == "gpu-newer-than-build-targets"
    assert "example.invalid" not in r["fix"] and "cu999" not in r["fix"]
    tags = re.findall(r"download\.pytorch\.org/whl/(cu\d{3})", r["fix"])
    assert tags and all(_tag_serves(t, "12.0") for t in tags), r["fix"]


def test_a_gpu_older_than_the_listed_targets_gets_an_older_cuda_build():
    r = diagnose.diagnose("Found GPU0 Tesla V100-PCIE-32GB which is of compute capability (CC) 7.0.\n" + _LIST_HEAD +
                          "- 7.5 which supports hardware CC >=7.5,<8.0\n"
                          "- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}\n"
                          "Your installed torch==2.11.0+cu130 does not include kernels for this GPU.")
    assert r["signature"] == "gpu-older-than-build" and r["layer"] == "arch"
    tags = re.findall(r"download\.pytorch\.org/whl/(cu\d{3})", r["fix"])
    assert tags and all(_tag_serves(t, "7.0") for t in tags), r["fix"]


def test_the_spec_is_quoted_once_for_the_shell():
    # a wildcard spec must reach pip as one word, quoted once (not a quoted quote)
    r = diagnose.diagnose("UserWarning:\n    Found GPU0 Tesla P100-PCIE-16GB which is of cuda capability 6.0.\n"
                          "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
                          "    (7.0) - (12.0)\n")
    assert r["signature"] == "gpu-older-than-build"
    assert "\"'" not in r["fix"] and "'\"" not in r["fix"], r["fix"]
    spec = re.search(r"pip install (\S+) --index-url", r["fix"])
    assert spec and spec.group(1).strip("'\"").startswith("torch=="), r["fix"]


def test_a_gpu_just_above_the_range_in_the_same_major_is_a_notice():
    text = ("UserWarning: Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
            "Minimum and Maximum cuda capability supported by this version of PyTorch is (8.0) - (12.0)")
    r = diagnose.diagnose(text)
    assert r["signature"] == "gpu-within-family-of-build" and r["environment_problem"] is False
    # a kernel failing after it is not the range check's notice
    after = diagnose.diagnose(text + "\nRuntimeError: CUDA error: no kernel image is available for execution on the "
                              "device")
    assert after["signature"] != "gpu-within-family-of-build"


def test_a_gpu_a_listed_target_serves_and_jetson_boards_are_not_this_rule():
    served = diagnose.diagnose("Found GPU0 NVIDIA A10 which is of compute capability (CC) 8.6.\n" + _LIST_HEAD +
                               "- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}\n")
    assert served["signature"] not in ("gpu-newer-than-build-targets", "gpu-older-than-build")
    orin = diagnose.diagnose("Found GPU0 Orin which is of compute capability (CC) 8.7.\n" + _LIST_HEAD +
                             "- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}\n"
                             "- 9.0 which supports hardware CC >=9.0,<10.0\n")
    assert orin["signature"] not in ("gpu-newer-than-build-targets", "gpu-within-family-of-build")
