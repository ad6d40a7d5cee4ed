"""explain's fifty-eighth round, from test59's and test60's misses (building extensions against the installed torch;
TensorFlow's GPU support): a compiler error inside load_inline's own sources, a compiled module without the init
function its name needs, torch's C++17 requirement quoted without its #error, XLA's registration notices, TensorFlow's
kernel-module-against-libcuda versions, pip refusing a TensorFlow wheel. The texts are written for these tests from
the tools' own messages (gcc, CPython's importdl.c, torch's headers, XLA's logs, pip), not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


_INLINE = ("RuntimeError: Error building extension 'my_ops': [1/2] c++ -MMD -MF main.o.d -DTORCH_EXTENSION_NAME=my_ops "
           "-fPIC -std=c++17 -c /home/u/.cache/torch_extensions/py311_cu121/my_ops/main.cpp -o main.o\n"
           "FAILED: main.o\n"
           "/home/u/.cache/torch_extensions/py311_cu121/my_ops/main.cpp: In function 'at::Tensor add_one(at::Tensor)':\n"
           "/home/u/.cache/torch_extensions/py311_cu121/my_ops/main.cpp:7:28: error: expected ';' before '}' token\n"
           "ninja: build stopped: subcommand failed.")


def test_a_compile_error_in_load_inlines_own_source_is_the_programs():
    r = diagnose.diagnose(_INLINE)
    assert r["signature"] == "inline-extension-source-error" and r["layer"] == "not-environment"
    assert "main.cpp" in r["title"] and "install" not in _fix(r).replace("installation", "")


def test_a_cuda_source_error_of_load_inline_names_cuda_cu():
    r = diagnose.diagnose("/tmp/torch_extensions/k/cuda.cu(12): error: identifier \"blockIdxx\" is undefined\n"
                          "1 error detected in the compilation of \"/tmp/torch_extensions/k/cuda.cu\".\n"
                          "RuntimeError: Error building extension 'k'")
    assert r["signature"] == "inline-extension-source-error" and "cuda.cu" in r["title"]


def test_a_missing_header_in_the_same_build_is_the_toolchains_not_the_code():
    text = _INLINE.replace("error: expected ';' before '}' token", "fatal error: cuda_runtime.h: No such file or directory")
    r = diagnose.diagnose(text)
    assert r["signature"] != "inline-extension-source-error" and r["layer"] != "not-environment"


def test_a_module_without_its_init_function_is_rebuilt_under_its_own_name():
    r = diagnose.diagnose("Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n"
                          "    import fused_ops\nImportError: dynamic module does not define module export function "
                          "(PyInit_fused_ops)")
    assert r["signature"] == "module-init-function-missing" and r["layer"] == "toolchain"
    assert "fused_ops" in r["title"] and "PYBIND11_MODULE" in _fix(r)


def test_python_2s_init_function_is_named_as_python_2s():
    r = diagnose.diagnose("ImportError: dynamic module does not define init function (initfused_ops)")
    assert r["signature"] == "module-init-function-missing" and "Python 2" in r["explanation"]


def test_torchs_cxx17_requirement_quoted_without_its_error_directive():
    r = diagnose.diagnose('Building my project fails: "C++17 or later compatible compiler is required to use PyTorch."')
    assert r["signature"] == "aten-needs-cxx-standard" and "CMAKE_CXX_STANDARD 17" in _fix(r)


def test_xlas_registration_notices_alone_are_no_failure():
    r = diagnose.diagnose(
        "2025-01-02 10:00:00.000001: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:8310] Unable to register "
        "cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered\n"
        "E0000 00:00:1735812000.000002   4242 cuda_blas.cc:1418] Unable to register cuBLAS factory: Attempting to "
        "register factory for plugin cuBLAS when one has already been registered\n"
        "W0000 00:00:1735812000.000003   4242 computation_placer.cc:177] computation placer already registered. Please "
        "check linkage and avoid linking the same target more than once.")
    assert r["signature"] == "xla-plugin-registered-twice" and r["layer"] == "not-environment"


def test_xlas_notices_before_a_real_failure_leave_the_failure_to_be_read():
    r = diagnose.diagnose(
        "E0000 cuda_dnn.cc:8310] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN "
        "when one has already been registered\n"
        "Traceback (most recent call last):\n  File \"t.py\", line 2, in <module>\n"
        "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory")
    assert r["signature"] != "xla-plugin-registered-twice"


def test_tensorflows_kernel_module_against_libcuda_is_a_reboot_not_a_reinstall():
    r = diagnose.diagnose(
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:185] libcuda reported version is: 535.129.3\n"
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] kernel reported version is: 530.30.2\n"
        "E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:296] kernel version 530.30.2 does not match DSO version "
        "535.129.3 -- cannot find working devices in this configuration")
    assert r["signature"] == "driver-module-version-mismatch" and r["layer"] == "driver"
    assert "reboot" in _fix(r) and "535.129.3" in r["title"] and "530.30.2" in r["title"]


def test_the_same_versions_inside_wsl_point_at_a_linux_driver_installed_there():
    r = diagnose.diagnose(
        "Linux DESKTOP-1 5.15.153.1-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n"
        "E external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:262] kernel version 550.120.0 does not "
        "match DSO version 560.35.5 -- cannot find working devices in this configuration")
    assert r["signature"] == "driver-module-version-mismatch-wsl" and r["layer"] == "wsl"
    assert "Remove the Linux NVIDIA driver" in _fix(r)


def test_pip_refusing_a_tensorflow_wheel_is_tensorflows_build():
    r = diagnose.diagnose("ERROR: tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl is not a "
                          "supported wheel on this platform.")
    assert r["signature"] == "wheel-tags-not-this-interpreter" and r["layer"] == "tensorflow"


def test_pip_refusing_a_torch_wheel_stays_torchs_build():
    r = diagnose.diagnose("ERROR: torch-2.3.1+cu121-cp312-cp312-linux_x86_64.whl is not a supported wheel on this "
                          "platform.")
    assert r["signature"] == "wheel-tags-not-this-interpreter" and r["layer"] == "torch-build"
