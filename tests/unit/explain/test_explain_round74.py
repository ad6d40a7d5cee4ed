"""explain's seventy-fourth round, from the misses of test98 and test99 (what is recent in the stack, the reporters'
languages): the linker in any language, a runtime call's number after '#', pip on a PyTorch index without the asked
build or Python, uv's platform tags, ONNX Runtime's cuDNN start-up, StreamExecutor's DNN initialisation, the runtime API
CUDA 11 and 12 removed, NumPy's bridge, Lua's require. The texts are written for these tests from the tools' own
message formats, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose, extract
from torch_envcheck.knowledge.releases import releases
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("line", [
    "/usr/bin/ld: kann -lcublas nicht finden: Datei oder Verzeichnis nicht gefunden",
    "/usr/bin/ld: ne peut trouver -lcublas: Aucun fichier ou dossier de ce type",
    "x86_64-conda-linux-gnu/bin/ld: невозможно найти -lcublas: Нет такого файла или каталога",
    "/usr/bin/ld.gold: error: cannot find -lcublas",
])
def test_the_linker_is_read_by_its_name_and_the_library_not_by_its_words(line):
    r = diagnose.diagnose(line + "\ncollect2: error: ld returned 1 exit status")
    assert r["signature"] == "cuda-library-not-found-by-linker" and r["layer"] == "toolchain", r
    assert "libcublas.so" in r["title"] and "LIBRARY_PATH" in _fix(r)


def test_a_command_line_naming_l_options_is_not_a_linker_failure():
    ent = extract.entities("g++ -o app main.o -L/usr/local/cuda/lib64 -lcudart -lcublas")
    assert not [x for x in ent.libraries if x.get("linker")]


def test_a_library_outside_the_toolkit_gets_its_own_sdk_on_the_link():
    r = diagnose.diagnose("/usr/bin/ld: 找不到 -lnvinfer\ncollect2: error: ld returned 1 exit status")
    assert r["signature"] == "library-not-found-by-linker" and r["layer"] == "toolchain"
    assert "TensorRT" in _fix(r) and "-L" in _fix(r) and "nvidia-" not in _fix(r)


@pytest.mark.parametrize("text, name", [
    ("cudaRuntimeGetVersion() failed with error #35", "cudaErrorInsufficientDriver"),
    ("cudaGetDeviceCount failed with error #100", "cudaErrorNoDevice"),
])
def test_a_runtime_calls_number_after_a_hash_is_decoded(text, name):
    codes = extract.entities(text).codes
    assert [c["name"] for c in codes] == [name]


def _cu_tags(version):
    return [b["tag"] for r in releases() if r["torch"] == version for b in r["builds"] if b["tag"].startswith("cu")]


def test_an_index_of_a_cuda_no_release_was_built_for():
    r = diagnose.diagnose("Looking in indexes: https://download.pytorch.org/whl/cu131\nERROR: Could not find a version "
                          "that satisfies the requirement torch==2.10.0 (from versions: none)\nERROR: No matching "
                          "distribution found for torch==2.10.0")
    assert r["signature"] == "torch-index-without-release" and r["layer"] == "torch-build"
    tags = _cu_tags("2.10")
    assert tags and all(t in r["title"] for t in tags)
    # the nearest build to the one asked for: CUDA 13.0 for 13.1
    assert "whl/cu130" in _fix(r) and "torch==2.10.0" in _fix(r)


def test_a_release_that_was_not_built_for_the_index():
    r = diagnose.diagnose("Looking in indexes: https://download.pytorch.org/whl/cu118\nERROR: Could not find a version "
                          "that satisfies the requirement torch==2.9.1 (from versions: none)")
    assert r["signature"] == "torch-index-without-release"
    assert "cu118" not in _cu_tags("2.9") and all(t in _fix(r) for t in _cu_tags("2.9"))


def test_a_release_on_the_index_without_a_wheel_for_this_python():
    r = diagnose.diagnose("Looking in indexes: https://download.pytorch.org/whl/cu121\nERROR: Could not find a version "
                          "that satisfies the requirement torch==2.3.1 (from versions: none)")
    assert r["signature"] == "torch-index-release-not-for-python" and r["layer"] == "torch-build"
    assert "Python 3.8 to 3.11" in r["title"]
    newest = releases()[-1]["torch"]
    assert f"torch {newest}" in _fix(r)
    # the Python printed and inside the release's range: the cause is elsewhere, not this answer
    r = diagnose.diagnose("Python 3.10.12\nLooking in indexes: https://download.pytorch.org/whl/cu121\nERROR: Could not "
                          "find a version that satisfies the requirement torch==2.3.1 (from versions: none)")
    assert r["signature"] != "torch-index-release-not-for-python"


def test_uvs_platform_message_names_the_platforms_remedy_and_keeps_prose_unquoted():
    r = diagnose.diagnose("error: Distribution `torch==2.8.0+cu128 @ registry+https://download.pytorch.org/whl/cu128` "
                          "can't be installed because it doesn't have a source distribution or wheel for the current "
                          "platform")
    assert r["signature"] == "uv-no-wheel-for-this-python"
    assert "required-environments" in _fix(r) and "(Python 3.9 to 3.13;" in _fix(r)
    r = diagnose.diagnose("`torch==2.5.1 @ registry+https://pypi.org/simple` can't be installed because it doesn't have a "
                          "source distribution or wheel for the current platform")
    assert r["signature"] == "uv-no-wheel-for-this-python"


def test_a_local_build_locked_for_a_mac():
    r = diagnose.diagnose("error: Distribution `torch==2.12.0+cpu @ registry+https://download.pytorch.org/whl/cpu` can't be "
                          "installed because it doesn't have a source distribution or wheel for the current platform\n\n"
                          "hint: You're on macOS (`macosx_15_0_arm64`), but `torch` (v2.12.0+cpu) only has wheels for "
                          "the following platforms: `manylinux_2_28_x86_64`, `win_amd64`")
    assert r["signature"] == "uv-local-build-on-macos" and r["layer"] == "macos"
    assert "sys_platform != 'darwin'" in _fix(r)


@pytest.mark.parametrize("text", [
    "Error : CUDNN failure 4",
    "[E:onnxruntime:Default, cuda_call.cc:118 CudaCall] CUDNN failure 4000: CUDNN_STATUS_INTERNAL_ERROR ; GPU=0 ; "
    "hostname=h ; expr=cudnnCreate(&cudnn_handle_);",
    "CUDNN failure 1: CUDNN_STATUS_NOT_INITIALIZED ; GPU=0 ; hostname=h ; expr=cudnnSetStream(cudnn_handle_, stream);",
])
def test_onnx_runtimes_cudnn_not_starting(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "onnxruntime-cudnn-not-started" and r["layer"] == "cudnn", r
    assert "onnxruntime-gpu" in _fix(r) and "driver" in _fix(r)


def test_onnx_runtimes_cudnn_rejecting_the_models_parameters_stays_the_programs():
    r = diagnose.diagnose("[E:onnxruntime:Default, cuda_call.cc:118 CudaCall] CUDNN failure 3: CUDNN_STATUS_BAD_PARAM ; "
                          "GPU=0 ; hostname=h ; expr=cudnnAddTensor(handle, &alpha, x, y);")
    assert r["signature"] != "onnxruntime-cudnn-not-started" and r["environment_problem"] is False


def test_dnn_initialisation_without_its_version_line():
    tf = diagnose.diagnose("DNN library initialization failed. Look at the errors above for more details.\n\t "
                           "[[{{node StatefulPartitionedCall}}]] [Op:__inference_train_function_512]")
    assert tf["signature"] == "dnn-library-init-failed" and tf["layer"] == "cudnn"
    assert "tensorflow[and-cuda]" in _fix(tf) and "cuDNN 9.3" in _fix(tf)
    jax = diagnose.diagnose("jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization "
                            "failed. Look at the errors above for more details.")
    assert jax["signature"] == "dnn-library-init-failed" and "jax[cuda12]" in _fix(jax)
    # with the version line, the rule that reads both versions answers
    both = diagnose.diagnose("Loaded runtime CuDNN library: 9.1.0 but source was compiled with: 9.3.0.  CuDNN library "
                             "needs to have matching major version and equal or higher minor version.\nDNN library "
                             "initialization failed.")
    assert both["signature"] != "dnn-library-init-failed"


@pytest.mark.parametrize("text, gone", [
    ("init.c:938:34: error: 'struct cudaPointerAttributes' has no member named 'memoryType'", "11.0"),
    ('kernel.cu(12): error: class "cudaPointerAttributes" has no member "isManaged"', "11.0"),
    ('src/tex.cu(40): error: identifier "cudaBindTexture" is undefined', "12.0"),
])
def test_the_runtime_api_cuda_removed(text, gone):
    r = diagnose.diagnose(text)
    assert r["signature"] == "cuda-runtime-api-removed" and r["layer"] == "toolchain"
    assert f"CUDA {gone}" in r["title"] and "patch" in _fix(r)


def test_torch_without_its_numpy_bridge_cannot_read_numpy_scalars():
    r = diagnose.diagnose("    torch.tensor(x)\nRuntimeError: Could not infer dtype of numpy.float32")
    assert r["signature"] == "numpy-not-available" and r["layer"] == "numpy" and "numpy<2" in _fix(r)
    # an object of the program's own class is not the bridge
    other = diagnose.diagnose("RuntimeError: Could not infer dtype of MyBox")
    assert other.get("signature") != "numpy-not-available"


def test_luas_require_in_torch7():
    r = diagnose.diagnose("/home/user/torch/install/bin/luajit: ...torch/install/share/lua/5.1/trepl/init.lua:389: "
                          "module 'cudnn' not found:No LuaRocks module found for cudnn\n\tno field package.preload['cudnn']")
    assert r["signature"] == "lua-module-not-found" and r["layer"] == "libraries" and "luarocks install" in _fix(r)


def test_a_number_labelled_by_its_enumerations_type_and_the_word_error():
    codes = extract.entities("CUresult error result=1 file=csrc/saver.cpp func=resume line=214").codes
    assert [c["name"] for c in codes] == ["CUDA_ERROR_INVALID_VALUE"]
