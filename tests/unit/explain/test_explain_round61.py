"""explain's sixty-first round, from test65's, test66's and test67's misses (JAX on the GPU, conda environments,
fine-tuning LLMs): jax's own version check and its CUDA plugin, pip's extras, jaxlib+cuda pins, XLA's ptxas and memory
words, conda's transaction and conflict reports, TensorFlow 1.x's DLL self-check, transformers' bf16 and quantization
checks, torchao, wheels of packages built per torch, names missing from a library. The texts are written for these
tests from the tools' own messages, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("text", [
    "RuntimeError: jaxlib version 0.4.30 is newer than and incompatible with jax version 0.4.23. Please update your jax "
    "and/or jaxlib packages.",
    "RuntimeError: jaxlib is version 0.4.7, but this version of jax requires version >= 0.4.14.",
])
def test_jax_and_jaxlib_of_two_releases(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "jax-jaxlib-versions-differ" and r["layer"] == "torch-build"
    assert 'jax[cuda12]' in _fix(r)


def test_a_cuda_plugin_importing_a_name_this_jax_lacks():
    r = diagnose.diagnose(
        "Jax plugin configuration error: Plugin module %s could not be loaded\nTraceback (most recent call last):\n"
        "  File \"/opt/py/site-packages/jax_plugins/xla_cuda12/__init__.py\", line 20, in <module>\n"
        "    from jax._src.lib import cuda_versions\n"
        "ImportError: cannot import name 'cuda_versions' from 'jax._src.lib'")
    assert r["signature"] == "jax-jaxlib-versions-differ" and "plugin" in r["title"]


def test_a_plugin_that_cannot_load_a_cuda_library_is_left_to_the_library_rules():
    r = diagnose.diagnose("Jax plugin configuration error: Plugin module %s could not be loaded\n"
                          "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory")
    assert r["signature"] != "jax-jaxlib-versions-differ"


def test_pip_without_the_extra_explains_jaxs_linux_only_cuda_wheels():
    r = diagnose.diagnose("WARNING: jax 0.4.6 does not provide the extra 'cuda12'")
    assert r["signature"] == "pip-extra-not-provided" and "WSL 2" in _fix(r)
    r = diagnose.diagnose("WARNING: somepkg 1.2 does not provide the extra 'gpu'")
    assert r["signature"] == "pip-extra-not-provided" and r["layer"] == "env" and "WSL" not in _fix(r)


def test_a_jaxlib_cuda_pin_points_to_the_plugin_wheels():
    r = diagnose.diagnose("ERROR: Could not find a version that satisfies the requirement jaxlib==0.4.31+cuda12.cudnn89 "
                          "(from versions: 0.4.1+cuda11.cudnn82)")
    assert r["signature"] == "jaxlib-cuda-version-not-found" and '"jax[cuda12]"' in _fix(r)


@pytest.mark.parametrize("text", [
    "jaxlib.xla_extension.XlaRuntimeError: UNIMPLEMENTED: ptxas too old. Falling back to the driver to compile.",
    "W ptx_compiler_helpers.cc:87] *** WARNING *** Invoking ptxas with version 12.2.140, which corresponds to a CUDA "
    "version <=12.6.2. CUDA versions 12.x.y up to and including 12.6.2 miscompile certain edge cases around clamping.\n"
    "Please upgrade to CUDA 12.6.3 or newer.",
    "ptxas : Unsupported .version 8.5; current version is '8.1'",
])
def test_xlas_ptxas_words_are_the_toolkits(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "xla-ptxas-too-old" and r["layer"] == "toolchain" and "ptxas" in _fix(r)


def test_the_drivers_jit_refusing_ptx_stays_the_drivers():
    r = diagnose.diagnose("numba.cuda.cudadrv.driver.LinkerError: [222] Call to cuLinkAddData results in "
                          "CUDA_ERROR_UNSUPPORTED_PTX_VERSION\nptxas application ptx input, line 9; fatal   : "
                          "Unsupported .version 8.4; current version is '8.2'")
    assert r["layer"] == "driver"


def test_xlas_out_of_memory_is_the_workloads():
    r = diagnose.diagnose("E external/xla/pjrt/pjrt_stream_executor_client.cc] Execution of replica 0 failed: "
                          "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2147483648 bytes.")
    assert r["signature"] == "xla-out-of-memory" and r["layer"] == "not-environment"
    assert "2.0 GiB" in r["title"] and "XLA_PYTHON_CLIENT_MEM_FRACTION" in _fix(r)


def test_condas_plan_choosing_the_cpu_build():
    r = diagnose.diagnose("The following NEW packages will be INSTALLED:\n\n"
                          "  numpy              pkgs/main/linux-64::numpy-1.26.4-py311h08b1b3b_0\n"
                          "  pytorch            pytorch/linux-64::pytorch-2.1.0-py3.11_cpu_0\n")
    assert r["signature"] == "conda-plans-cpu-build" and r["layer"] == "torch-build"
    assert "py3.11_cpu_0" in r["title"] and "pytorch-gpu" in _fix(r)
    r = diagnose.diagnose("The following NEW packages will be INSTALLED:\n\n"
                          "  cpu-only           pytorch/linux-64::cpu-only-1.0-0\n")
    assert r["signature"] == "conda-plans-cpu-build"


def test_a_plan_with_a_cuda_build_is_not_read_as_cpu():
    r = diagnose.diagnose("The following NEW packages will be INSTALLED:\n\n"
                          "  pytorch            pytorch/linux-64::pytorch-2.1.0-py3.11_cuda12.1_cudnn8.9.2_0\n")
    assert r is None or r["signature"] != "conda-plans-cpu-build"


def test_the_cudatoolkit_range_pytorch_asks_for_in_a_conflict():
    r = diagnose.diagnose("UnsatisfiableError: The following specifications were found to be in conflict:\n"
                          "  - cudatoolkit 11.8*\n  - pytorch 1.12.1* -> cudatoolkit >=11.6,<11.7\n")
    assert r["signature"] == "conda-pytorch-cudatoolkit-range" and "cudatoolkit=11.6" in _fix(r)


def test_an_environment_files_packages_no_channel_has():
    r = diagnose.diagnose("Solving environment: failed\n\nResolvePackageNotFound: \n  - cudnn=8.2.1\n  - nccl\n")
    assert r["signature"] == "conda-resolve-package-not-found" and r["layer"] == "env"
    assert "cudnn=8.2.1" in r["title"] and "conda-forge" in _fix(r)


def test_tensorflows_self_check_names_the_cuda_of_its_dll():
    r = diagnose.diagnose("ImportError: Could not find 'cudart64_100.dll'. TensorFlow requires that this DLL be installed "
                          "in a directory that is named in your %PATH% environment variable.")
    assert r["signature"] == "tensorflow-self-check-dll" and r["layer"] == "tensorflow" and "CUDA 10.0" in r["title"]


def test_the_trainers_bf16_refusal_is_the_gpus_unless_torch_is_old():
    r = diagnose.diagnose("ValueError: Your setup doesn't support bf16/gpu.")
    assert r["signature"] == "trainer-bf16-unsupported-gpu" and r["layer"] == "arch" and "fp16=True" in _fix(r)
    r = diagnose.diagnose("torch==1.9\nValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using "
                          "Ampere GPU with cuda>=11.0")
    assert r["signature"] == "trainer-bf16-old-torch" and r["layer"] == "torch-build"


def test_quantized_loading_that_needs_a_cuda_torch():
    r = diagnose.diagnose("ImportError: Using `load_in_4bit=True` requires Accelerate: `pip install accelerate` and the "
                          "latest version of bitsandbytes: `pip install -i https://pypi.org/simple/ bitsandbytes`")
    assert r["signature"] == "quantization-needs-cuda-torch" and "is_available" in _fix(r)


def test_torchaos_skipped_extensions_name_the_torch():
    r = diagnose.diagnose("Skipping import of cpp extensions due to incompatible torch version. Please upgrade to torch "
                          ">= 2.9.0 (found 2.8.0+cu128).")
    assert r["signature"] == "torchao-built-for-another-torch" and r["layer"] == "toolchain"
    assert "2.8.0+cu128" in r["title"]


def test_no_wheel_of_a_package_built_per_torch():
    r = diagnose.diagnose("ERROR: Could not find a version that satisfies the requirement flash-attn==2.9.9 "
                          "(from versions: none)\nERROR: No matching distribution found for flash-attn==2.9.9")
    assert r["signature"] == "torch-extension-wheel-not-found" and "flash-attn" in r["title"]


def test_a_name_missing_from_a_pure_python_library_is_its_release():
    r = diagnose.diagnose("ImportError: cannot import name 'LoraRuntimeConfig' from 'somelib' "
                          "(/opt/py/site-packages/somelib/__init__.py)")
    assert r["signature"] == "name-missing-from-package" and r["layer"] == "env" and "somelib" in _fix(r)


@pytest.mark.parametrize("text", [
    "ImportError: cannot import name 'Tensor' from 'torch' (unknown location)",
    "ImportError: cannot import name '_C' from 'somelib'",
    "ImportError: cannot import name 'amp' from 'apex'",
])
def test_frameworks_private_names_and_namespace_shadows_are_not_a_release_skew(text):
    r = diagnose.diagnose(text)
    assert r is None or r["signature"] != "name-missing-from-package"
