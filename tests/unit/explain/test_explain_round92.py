"""explain's ninety-second round, from the misses of test134 to test137 (large-scale training libraries, OpenCV with
CUDA, llama.cpp and Ollama, Accelerate): the program's own file shadowing a package, Accelerate's fp16 without a GPU,
a stale object file, Transformer Engine without its PyTorch extension, another library's CPU build as gpu-unused,
ggml's "ROCm error", and CUDA's unknown error on Windows. The texts are written for these tests from the messages'
formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_the_programs_own_file_named_like_a_package_shadows_it():
    r = diagnose.diagnose("Traceback (most recent call last):\n  File \"/home/user/work/numpy.py\", line 1, in <module>\n"
                          "    import numpy\n  File \"/home/user/work/numpy.py\", line 3, in <module>\n    numpy.zeros(3)\n"
                          "AttributeError: partially initialized module 'numpy' has no attribute 'zeros'")
    assert r["signature"] == "own-file-shadows-package" and r["environment_problem"] is False
    assert "numpy.py" in _fix(r) and "__pycache__" in _fix(r)


def test_a_packages_own_module_importing_its_package_is_not_shadowing():
    r = diagnose.diagnose("  File \"/opt/venv/lib/python3.11/site-packages/foo/foo.py\", line 1, in <module>\n"
                          "    import foo\nImportError: cannot import name 'bar' from 'foo'")
    assert r.get("signature") != "own-file-shadows-package"


def test_accelerates_fp16_without_a_gpu_is_the_torch_that_runs():
    r = diagnose.diagnose("ValueError: fp16 mixed precision requires a GPU")
    assert r["signature"] == "mixed-precision-needs-gpu" and r["layer"] == "torch-build"
    assert "download.pytorch.org/whl/cu" in _fix(r) and "mixed_precision" in _fix(r)


def test_a_stale_object_file_is_a_clean_rebuild():
    r = diagnose.diagnose("build/kernels/softmax.o: file not recognized: File format not recognized\ncollect2: error: "
                          "ld returned 1 exit status")
    assert r["signature"] == "object-file-not-recognized" and "build/kernels/softmax.o" in _fix(r)


def test_transformer_engine_without_its_pytorch_extension():
    r = diagnose.diagnose("  File \"/opt/venv/lib/python3.12/site-packages/transformer_engine/pytorch/__init__.py\", line "
                          "40, in _load_library\n    so_path = next(so_dir.glob(pattern))\nStopIteration")
    assert r["signature"] == "transformer-engine-torch-missing" and "transformer-engine[pytorch]" in _fix(r)


def test_another_librarys_cpu_build_warning_is_the_gpu_unused():
    r = diagnose.diagnose("[ WARN:0@1.0] global net_impl.cpp:178 setUpNet DNN module was not built with CUDA backend; "
                          "switching to CPU")
    assert r["signature"] == "framework-cpu-build" and r["layer"] == "gpu-unused" and "OPENCV_DNN_CUDA" in _fix(r)


def test_ggml_rocm_error_reads_the_rocm_targets():
    r = diagnose.diagnose("ROCm error: ggml-cuda.cu:1234: invalid device function")
    assert r["layer"] == "rocm" and "AMDGPU_TARGETS" in _fix(r)


def test_cudas_unknown_error_on_windows_is_the_driver_package_not_nvidia_uvm():
    r = diagnose.diagnose("C:\\\\src\\\\opencv\\\\modules\\\\core\\\\src\\\\cuda_info.cpp:62: error: cudaErrorUnknown")
    assert r["layer"] == "driver" and "nvidia_uvm" not in _fix(r) and "clean install" in _fix(r)
    bare = diagnose.diagnose("\\modules\\core\\src\\cuda_info.cpp:62: error: (-217:Gpu API call) unknown error")
    assert "nvidia_uvm" not in _fix(bare)
