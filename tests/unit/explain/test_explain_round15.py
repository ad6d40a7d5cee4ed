"""explain's fifteenth round, from test15's misses read as structure: gdb's signal report, a SIGILL inside torch's own
libraries, a segfault before the program runs (right after the imports), the object file nvcc never wrote and nvcc's
unknown option, torch's CUDA and nvcc's in a user's words, the word "container" in Chinese, Japanese and Korean, a
cuDNN function a program looks up itself, a PyInstaller/Nuitka bundle failing an import, the CUDA runtime's longer
messages quoted anywhere, Python's namespace-package "(unknown location)", jax's CPU-only jaxlib, and torch's
"built with CUDA: False". The texts follow each tool's documented format; the oracle is what the format means."""

from __future__ import annotations

from torch_envcheck.explain import diagnose, extract


def test_gdbs_signal_line_is_read_and_sigill_in_torch_is_its_build_against_this_cpu():
    text = ('Thread 1 "python" received signal SIGILL, Illegal instruction.\n0x00007f in '
            "cpu_kernel_vec_AVX512 () from /opt/venv/lib/python3.10/site-packages/torch/lib/libtorch_cpu.so")
    assert [c["name"] for c in extract.entities(text).codes] == ["SIGILL"]
    r = diagnose.diagnose(text)
    assert r["layer"] == "torch-build" and "ATEN_CPU_CAPABILITY" in r["fix"], r
    # a SIGILL outside torch keeps the generic answer
    other = diagnose.diagnose("$ ./mybinary\nIllegal instruction (core dumped)")
    assert other["layer"] == "env", other["signature"]


def test_a_segfault_right_after_the_imports_is_native_libraries_meeting():
    r = diagnose.diagnose("import cv2\nimport open3d\nimport torch\n\nSegmentation fault (core dumped)")
    assert r["signature"] == "crash-at-import" and r["layer"] == "libraries", r["signature"]
    assert "LD_LIBRARY_PATH" in r["fix"] and "Import torch first" in r["fix"] and "open3d" in r["fix"], r["fix"]
    # a crash after the program has run is not an import's
    later = diagnose.diagnose(">>> import torch\n>>> y = model(x)\nTraceback (most recent call last):\n  File \"<stdin>\", "
                              "line 1\nSegmentation fault (core dumped)")
    assert later["signature"] != "crash-at-import", later["signature"]


def test_the_object_nvcc_never_wrote_and_nvccs_unknown_option():
    r = diagnose.diagnose("gcc -shared build/roi.cu.o -o roi.so\ngcc: error: build/roi.cu.o: No such file or directory")
    assert r["signature"] == "nvcc-output-missing" and "-ccbin" in r["fix"], r
    u = diagnose.diagnose("nvcc fatal   : Unknown option '--generate-dependencies-with-compile'\nninja: build stopped")
    assert u["signature"] == "nvcc-older-than-build" and "CUDA_HOME" in u["fix"], u


def test_torchs_cuda_and_nvccs_in_a_users_words():
    r = diagnose.diagnose("my torch.version.cuda is 11.8 but nvcc --version says 12.4, the build fails")
    assert r["layer"] == "toolchain" and "CUDA_HOME" in r["fix"], r


def test_the_word_container_in_chinese_japanese_and_korean():
    for word in ("容器", "コンテナ", "컨테이너"):
        ent = extract.entities(f"{word} nvidia-smi: NVIDIA-SMI has failed because it couldn't communicate with the "
                               "NVIDIA driver")
        assert ent.platform.get("container"), word


def test_a_cudnn_function_looked_up_by_the_program_is_a_cudnn_version():
    r = diagnose.diagnose("terminate called after throwing an instance of 'std::runtime_error'\n  what():  Failed to "
                          "load function 'cudnnCreateRNNDataDescriptor' from dynamic library.\nAborted (core dumped)")
    assert r["layer"] == "cudnn" and "cuDNN" in r["fix"], r


def test_a_frozen_bundle_failing_an_import_is_its_recipe_not_the_installation():
    r = diagnose.diagnose('File "PyInstaller/loader/pyimod02_importers.py", line 419, in exec_module\n'
                          "ImportError: DLL load failed while importing _C: The specified module could not be found.\n"
                          "[1234] Failed to execute script 'app' due to unhandled exception!")
    assert r["layer"] == "not-environment" and r["environment_problem"] is False, r["signature"]
    assert "--collect-all" in (r.get("look_at") or r.get("fix") or "")


def test_a_long_runtime_message_is_read_wherever_it_is_quoted():
    ent = extract.entities('Sometimes I get "an illegal memory access was encountered" in kernel.cu line 40')
    assert "cudaErrorIllegalAddress" in [c["name"] for c in ent.codes], ent.codes
    # short messages stay in the context rule's hands
    assert extract.entities("the model says: invalid argument").codes == []


def test_unknown_location_is_a_folder_shadowing_the_package():
    r = diagnose.diagnose("ImportError: cannot import name 'AutoModel' from 'transformers' (unknown location)")
    assert r["signature"] == "namespace-package-shadow" and r["layer"] == "env", r
    assert "transformers.__path__" in r["fix"], r["fix"]


def test_jaxs_cpu_only_jaxlib_and_its_fallback_after_a_cuda_failure():
    r = diagnose.diagnose("An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
                          "Falling back to cpu.")
    assert r["signature"] == "jaxlib-without-cuda" and 'jax[cuda12]' in r["fix"], r
    after = diagnose.diagnose("E cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device "
                              "is detected\nNo GPU/TPU found, falling back to CPU.")
    assert after["signature"] != "jaxlib-without-cuda", after["signature"]


def test_built_with_cuda_false_is_the_cpu_build():
    r = diagnose.diagnose("PyTorch built with CUDA:         False\nPyTorch detects CUDA available:  False")
    assert r["layer"] == "torch-build" and "whl/cu" in r["fix"], r
