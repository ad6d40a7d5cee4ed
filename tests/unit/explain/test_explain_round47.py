"""explain's forty-seventh round, from test47's misses (graph-learning libraries): DGL's per-torch graphbolt and
tensoradapter libraries, pyg-lib absent from PyPI, an extension's own CUDA check against torch's (PyG's torch_scatter
and the like, from their project's index), and an operator's size check failing. The texts are written for these tests
from the libraries' messages, not copied from the corpus."""

from __future__ import annotations

import re

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import compiled_modules
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get) install\b|\breinstall\b")


def test_pyg_lib_is_only_on_its_own_index():
    assert compiled_modules.only_on_own_index("pyg_lib") and not compiled_modules.only_on_own_index("torch-scatter")


def test_dgl_graphbolt_missing_for_a_newer_torch_names_dgls_index_for_it():
    r = diagnose.diagnose("torch 2.5.1+cu124\nFileNotFoundError: Cannot find DGL C++ graphbolt library at "
                          "/env/lib/python3.11/site-packages/dgl/graphbolt/libgraphbolt_pytorch_2.5.1.so")
    assert r["signature"] == "dgl-library-for-torch-missing" and r["layer"] == "toolchain", r
    assert "https://data.dgl.ai/wheels/torch-2.5/cu124/repo.html" in _fix(r)


def test_dgl_tensoradapter_for_a_torch_it_does_not_ship():
    r = diagnose.diagnose("TensorDispatcher: dlopen failed: /env/lib/python3.9/site-packages/dgl/tensoradapter/pytorch/"
                          "libtensoradapter_pytorch_1.13.1.so: cannot open shared object file: No such file or directory")
    assert r["signature"] == "dgl-library-for-torch-missing" and "1.13.1" in r["title"], r


def test_dgl_library_named_by_a_conda_forge_version_suffix():
    r = diagnose.diagnose("FileNotFoundError: Cannot find DGL C++ graphbolt library at /c/envs/g/lib/python3.10/"
                          "site-packages/dgl/graphbolt/libgraphbolt_pytorch_2.1.2.post301.so")
    assert r["signature"] == "dgl-torch-version-suffix", r
    assert "conda-forge" in _fix(r) and "2.1.2.post301" in r["title"]


def test_dgl_message_without_the_file_uses_the_torch_the_text_shows():
    r = diagnose.diagnose("torch 2.6.0\nFileNotFoundError: Cannot find DGL C++ graphbolt library")
    assert r["signature"] == "dgl-library-for-torch-missing" and "torch-2.6" in _fix(r), r


def test_pip_finds_no_pyg_lib_because_pypi_has_none():
    r = diagnose.diagnose("torch 2.4.0+cu121\nERROR: Could not find a version that satisfies the requirement pyg-lib (from "
                          "versions: none)\nERROR: No matching distribution found for pyg-lib")
    assert r["signature"] == "index-only-distribution" and r["layer"] == "toolchain", r
    assert "https://data.pyg.org/whl/torch-2.4.0+cu121.html" in _fix(r)


def test_pip_finding_no_other_package_is_not_this_rule():
    r = diagnose.diagnose("ERROR: Could not find a version that satisfies the requirement torch-scatter (from versions: "
                          "none)\nERROR: No matching distribution found for torch-scatter")
    assert r is None or r["signature"] != "index-only-distribution", r


def test_torch_scatter_of_another_cuda_gets_pygs_index_for_torchs_cuda():
    r = diagnose.diagnose("torch 1.13.1+cu117\nRuntimeError: Detected that PyTorch and torch_sparse were compiled with "
                          "different CUDA versions. PyTorch has CUDA version 11.7 and torch_sparse has CUDA version 11.6. "
                          "Please reinstall the torch_sparse that matches your PyTorch install.")
    assert r["signature"] == "extension-cuda-differs" and r["layer"] == "toolchain", r
    assert "pip install --force-reinstall --no-deps torch-sparse -f https://data.pyg.org/whl/torch-1.13.1+cu117.html" \
        in _fix(r)


def test_an_extension_without_a_known_index_is_rebuilt_against_torch():
    r = diagnose.diagnose("RuntimeError: Detected that PyTorch and fancyops were compiled with different CUDA versions. "
                          "PyTorch has CUDA version 12.1 and fancyops has CUDA version 11.8.")
    assert r["signature"] == "extension-cuda-differs" and "--no-build-isolation" in _fix(r), r


def test_torchvision_keeps_its_own_answer():
    r = diagnose.diagnose("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major "
                          "versions. PyTorch has CUDA Version=11.8 and torchvision has CUDA Version=12.1.")
    assert r["signature"] == "companion-cuda-differs", r


def test_an_operators_size_check_is_the_program():
    r = diagnose.diagnose("RuntimeError: The following operation failed in the TorchScript interpreter.\nRuntimeError: "
                          "weight.size(0) == pseudo.size(1) INTERNAL ASSERT FAILED at \"csrc/cpu/basis_cpu.cpp\":42, please "
                          "report a bug to PyTorch. Input mismatch")
    assert r["signature"] == "op-input-size-check" and r["environment_problem"] is False, r
    assert "weight.size(0) == pseudo.size(1)" in r["title"] and not _INSTALL.search(_fix(r))


def test_a_device_index_assert_is_not_a_size_check():
    r = diagnose.diagnose("RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "
                          "\"../aten/src/ATen/cuda/CUDAContext.cpp\":50")
    assert r is None or r["signature"] != "op-input-size-check", r
