"""explain's seventeenth round, from test17's misses (where users run torch) read as structure: nvidia-smi finding no
device, ld passing over a library of another architecture, setuptools refusing `setup.py install`, conda's argparse
refusing its command line, TorchSharp without its libtorch package, CUDA available in one run and not in another (two
environments), a cluster's CUDA module not loaded, nvcc's diagnostics quoted without file:line, MPS named only in a
list of backends, conda's macOS platform folders, and CUDA_ERROR_INVALID_PTX as the driver's. The texts follow each
tool's documented format; the oracle is what the format means."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose, extract


def test_nvidia_smi_finding_no_device_is_the_machine_not_the_environment_variable():
    r = diagnose.diagnose("RuntimeError: No CUDA GPUs are available\nnvidia-smi --query-gpu=driver_version "
                          "--format=csv,noheader --> No devices were found")
    assert r["signature"] == "driver-sees-no-gpu" and r["layer"] == "driver" and "lspci" in r["fix"], r


def test_ld_skipping_a_library_of_another_architecture_is_the_toolchains():
    r = diagnose.diagnose("/env/bin/../lib/gcc/x86_64-conda-linux-gnu/12.1.0/../../../../x86_64-conda-linux-gnu/bin/"
                          "ld.gold: warning: skipping incompatible /opt/lib/aarch64/libtorch_cpu.so while searching for "
                          "torch_cpu\nld.gold: error: cannot find -ltorch_cpu")
    assert r["signature"] == "linker-skips-incompatible-library" and "aarch64" in r["explanation"], r
    bfd = diagnose.diagnose("/usr/bin/ld: skipping incompatible /usr/lib/libfoo.so when searching for -lfoo")
    assert bfd["signature"] == "linker-skips-incompatible-library", bfd["signature"]


@pytest.mark.parametrize("line", [
    'Please avoid running "setup.py" and "easy_install".',
    "Please avoid running ``setup.py`` directly.",
])
def test_setuptools_refusing_setup_py_install_is_pip_install_dot(line):
    r = diagnose.diagnose(f"$ python setup.py install\n{line}\nInstead, use pypa/build, pypa/installer or other "
                          "standards-based tools.")
    assert r["signature"] == "setup-py-install-deprecated" and "python -m pip install ." in r["fix"], r


def test_conda_refusing_a_channel_without_its_flag_is_the_command():
    r = diagnose.diagnose("usage: conda-script.py [-h] [-V] command ...\nconda-script.py: error: unrecognized "
                          "arguments: nvidia")
    assert r["signature"] == "conda-usage-error" and r["environment_problem"] is False, r
    assert "-c pytorch -c nvidia" in r["explanation"], r["explanation"]


def test_torchsharp_without_its_libtorch_package_names_the_package():
    r = diagnose.diagnose("System.NotSupportedException: This application or script uses TorchSharp but doesn't "
                          "contain a reference to libtorch-cuda-12.1-linux-x64, Version=2.2.1.1.")
    assert r["signature"] == "torchsharp-without-libtorch-package", r["signature"]
    assert "dotnet add package libtorch-cuda-12.1-linux-x64 --version 2.2.1.1" in r["fix"], r["fix"]


def test_cuda_available_in_one_run_and_not_in_another_is_two_environments():
    r = diagnose.diagnose("venv\\lib\\site-packages\\torch\\amp\\autocast_mode.py:266: UserWarning: User provided "
                          "device_type of 'cuda', but CUDA is not available.\nbut when I run the test:\nIs CUDA "
                          "available: True\nPyTorch version: 2.7.0+cu128")
    assert r["signature"] == "cuda-available-in-another-environment" and r["layer"] == "env", r
    assert "sys.executable" in r["fix"], r["fix"]
    # only the failing side: not this reading
    one = diagnose.diagnose("UserWarning: User provided device_type of 'cuda', but CUDA is not available.")
    assert one["signature"] != "cuda-available-in-another-environment", one["signature"]


def test_a_cluster_cuda_module_not_loaded_in_the_job():
    r = diagnose.diagnose("INFO:cellpose.core:Neither TORCH CUDA nor MPS version not installed/working.\nOn the "
                          "cluster one needs `module load cuda/12.4` to make it work.")
    assert r["signature"] == "cluster-cuda-module-not-loaded" and "module load cuda/12.4" in r["fix"], r
    assert r["layer"] == "libraries", r["layer"]


def test_nvccs_diagnostic_without_file_and_line_is_a_cuda_compilation():
    e = extract.entities("error: An extended __device__ lambda must not be defined in a function that is defined "
                         "within another function")
    assert [b["tool"] for b in e.builds if b["what"] == "compile"] == ["nvcc"]
    r = diagnose.diagnose("Ubuntu 16.04 (docker), cuda 8.0\nerror: An extended __device__ lambda must not be defined "
                          "in a function that is defined within another function")
    assert r["layer"] == "toolchain", r["signature"]


@pytest.mark.parametrize("text, mac", [
    ("INFO:cellpose.core:Neither TORCH CUDA nor MPS version not installed/working.", None),
    ("torch.device('mps') failed", True),
    ("Current channels:\n  - https://conda.anaconda.org/pytorch/osx-arm64", True),
    ("running it on M1 machine with 8GB RAM", True),
])
def test_mps_in_a_list_of_backends_is_not_a_mac(text, mac):
    assert extract.entities(text).platform.get("macos") is mac


def test_invalid_ptx_is_the_drivers_jit():
    r = diagnose.diagnose("ai.rapids.cudf.CudfException: CUDA_ERROR_INVALID_PTX\n  at ai.rapids.cudf.ColumnVector")
    assert r["layer"] == "driver" and "driver" in r["fix"], r
