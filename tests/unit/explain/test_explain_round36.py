"""explain's thirty-sixth round, from test36's misses (LLM inference servers and local runners): a package's extension
wanting a function of its own that its build left out, vLLM's start-up memory check against a GPU another process
uses, llama-cpp-python's CPU-only default build (and CMAKE_ARGS in Windows' shells). The texts are written for these
tests from each tool's messages and documentation, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_a_packages_own_symbol_missing_is_its_build():
    r = diagnose.diagnose("ImportError: /opt/venv/lib/python3.12/site-packages/sgl_kernel/common_ops.abi3.so: undefined "
                          "symbol: _Z19fp8_blockwise_mm_sm90RN2at6TensorERKS0_")
    assert r["signature"] == "package-own-symbol-missing" and r["layer"] == "toolchain", r
    assert "sgl_kernel" in r["title"] and "--no-cache-dir" in _fix(r), r


def test_a_torch_symbol_stays_the_torch_abi_reading():
    r = diagnose.diagnose("ImportError: /opt/venv/lib/python3.12/site-packages/vllm/_C.abi3.so: undefined symbol: "
                          "_ZNK3c1011StorageImpl27throw_data_ptr_access_errorEv")
    assert r["signature"] != "package-own-symbol-missing", r


def test_a_cuda_symbol_is_not_the_packages_own():
    r = diagnose.diagnose("ImportError: /opt/venv/lib/python3.12/site-packages/mypkg/_ext.so: undefined symbol: "
                          "cublasLtMatmulAlgoGetHeuristic")
    assert r is None or r["signature"] != "package-own-symbol-missing", r


def test_vllms_start_up_check_names_a_share_that_fits():
    r = diagnose.diagnose("ValueError: Free memory on device (30.5/79.1 GiB) on startup is less than desired GPU memory "
                          "utilization (0.9, 71.19 GiB). Decrease GPU memory utilization or reduce GPU memory used by "
                          "other processes.")
    assert r["signature"] == "vllm-gpu-memory-taken" and r["environment_problem"] is False, r
    assert "--gpu-memory-utilization 0.36" in _fix(r) and "nvidia-smi" in _fix(r), _fix(r)


def test_llama_cpp_python_without_gpu_is_its_cpu_build():
    r = diagnose.diagnose("llama_cpp_python 0.3.2 on Ubuntu, RTX 3090: the model still runs slowly, n_gpu_layers=-1 has "
                          "no effect and nvidia-smi shows no usage.")
    assert r["signature"] == "llama-cpp-python-cpu-build" and r["layer"] == "gpu-unused", r
    assert "-DGGML_CUDA=on" in _fix(r) and "$env:CMAKE_ARGS" in _fix(r), _fix(r)


def test_cmake_args_refused_by_cmd_is_the_shells_syntax():
    r = diagnose.diagnose("C:\\> CMAKE_ARGS=\"-DGGML_CUDA=on\" pip install llama-cpp-python\n'CMAKE_ARGS' is not "
                          "recognized as an internal or external command,\noperable program or batch file.")
    assert r["signature"] == "llama-cpp-python-cpu-build" and "Windows" in r["explanation"], r


def test_llama_cpp_python_named_without_a_gpu_symptom_is_not_this_answer():
    r = diagnose.diagnose("llama_cpp_python 0.3.2\nValueError: Failed to load model from file: model.gguf")
    assert r is None or r["signature"] != "llama-cpp-python-cpu-build", r
