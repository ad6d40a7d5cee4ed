"""explain's sixty-second round, from test68's and test69's misses (the commonest failures in plain words; frameworks
scheduling GPUs): THC's "cuda runtime error (N)" decoded by its number, pip's skipped wheels and an untrusted mirror
(and the platform tags of skipped wheels not read as this machine's), nvidia-smi against its NVML, Horovod's GPU build
on a CPU torch, Python 3.6's "cannot import name" without its module, a library's OUT_OF_MEMORY status. The texts are
written for these tests from the tools' own messages, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_thcs_cuda_runtime_error_is_decoded_by_its_number():
    r = diagnose.diagnose("RuntimeError: cuda runtime error (700)")
    assert r["signature"] == "code-cudaerror-illegaladdress" and r["layer"] == "not-environment"
    r = diagnose.diagnose("RuntimeError: cuda runtime error (35)")
    assert r["signature"] == "code-cudaerror-insufficientdriver" and r["layer"] == "driver"


_SKIPPED = ("  Skipping link: none of the wheel's tags match: cp310-cp310-macosx_11_0_arm64: https://files.example/"
            "packages/aa/torch-2.2.0-cp310-cp310-macosx_11_0_arm64.whl (from https://pypi.org/simple/torch/)\n"
            "  Skipping link: none of the wheel's tags match: cp311-cp311-manylinux1_x86_64: https://files.example/"
            "packages/bb/torch-2.2.0-cp311-cp311-manylinux1_x86_64.whl (from https://pypi.org/simple/torch/)\n"
            "  Skipping link: none of the wheel's tags match: cp312-cp312-win_amd64: https://files.example/"
            "packages/cc/torch-2.2.0-cp312-cp312-win_amd64.whl (from https://pypi.org/simple/torch/)\n")


def test_every_wheel_skipped_names_the_pythons_they_are_for():
    r = diagnose.diagnose(_SKIPPED)
    assert r["signature"] == "wheels-all-skipped" and r["layer"] == "torch-build"
    assert "cp310, cp311, cp312" in _fix(r) and "Linux, Windows, macOS" in r["explanation"]


def test_the_skipped_wheels_platform_tags_are_not_this_machines():
    r = diagnose.diagnose(_SKIPPED)
    assert r["layer"] != "macos"


def test_an_untrusted_http_mirror_is_why_nothing_was_found():
    r = diagnose.diagnose("Collecting torch\n  The repository located at mirror.example.org is not a trusted or secure "
                          "host and is being ignored.\n  Could not find a version that satisfies the requirement torch "
                          "(from versions: )\nNo matching distribution found for torch")
    assert r["signature"] == "pip-index-untrusted" and r["layer"] == "torch-build"
    assert "--trusted-host mirror.example.org" in _fix(r)


def test_nvidia_smi_against_another_nvml():
    r = diagnose.diagnose("Mismatch in versions between nvidia-smi and NVML.\nAre you sure you are using nvidia-smi "
                          "provided with the driver?")
    assert r["signature"] == "nvidia-smi-nvml-mismatch" and r["layer"] == "libraries" and "LD_LIBRARY_PATH" in _fix(r)


def test_horovods_gpu_build_on_a_cpu_torch():
    r = diagnose.diagnose("RuntimeError: Horovod build with GPU support was requested but this PyTorch installation "
                          "does not support CUDA.")
    assert r["signature"] == "horovod-torch-without-cuda" and r["layer"] == "torch-build"
    assert "HOROVOD_GPU_OPERATIONS=NCCL" in _fix(r)


def test_python36s_import_error_takes_the_module_from_the_statement():
    r = diagnose.diagnose("---> 3 from somelib.utils import parse_size, format_size\n\n"
                          "ImportError: cannot import name 'format_size'")
    assert r["signature"] == "name-missing-from-package" and "somelib" in _fix(r)


def test_a_librarys_out_of_memory_status_is_the_workloads():
    r = diagnose.diagnose("std::bad_alloc: RMM_ERROR_OUT_OF_MEMORY: could not allocate the pool")
    assert r is not None and r["layer"] == "not-environment"
