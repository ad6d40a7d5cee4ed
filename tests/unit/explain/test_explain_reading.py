"""explain's default answer: a text no rule and no catalogue sentence recognises is read from its parts, by a vote of
the layers they belong to, and the answer says it is such a reading, with its confidence.

Each text is a variant nobody collected, in another package's, tool's, release's or language's shape; the oracle is
the structure of the text (whose compiler diagnostic, whose build, whose operator namespace, which allocator's
exhaustion, which program reports), written down before the code was run on it.  Every text here was unrecognised
before the default answer existed."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose, extract, match, reading

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?|dnf|yum|brew)\s+(?:install|add|upgrade)\b|\breinstall\b|"
                       r"--force-reinstall|--upgrade\b", re.IGNORECASE)
_INSTALL_CMD = re.compile(r"\b(?:pip3?|uv pip|conda)\s+install\b(?P<args>[^\n;)`]{0,200})")


def installs_torch(fix: str) -> bool:
    """Whether an install command in `fix` names torch itself among its arguments (not torch-scatter, not text)."""
    return any("torch" in re.split(r"[\s=<>~]+", m.group("args").split(". ")[0]) for m in _INSTALL_CMD.finditer(fix))


def _d(text: str) -> dict:
    return diagnose.diagnose(text)


def _reading(d: dict, layer: str) -> None:
    assert d["recognised"] and d["basis"] == "reading" and d["signature"] == f"reading-{layer}", d["signature"]
    assert d["layer"] == layer
    assert "not a known message" in d["title"] and "reading of the text's parts" in d["title"]
    assert isinstance(d["confidence"], float) and 0.0 < d["confidence"] <= 1.0
    assert f"confidence {d['confidence']:.2f}" in d["explanation"]


# --- a build that fails: the package pip builds and the compiler that failed name the fix ------------------------

@pytest.mark.parametrize("text, package, tool_word", [
    # gcc's diagnostic under pip's legacy setup.py build
    ("  Building wheel for spconv (setup.py) ... error\n  src/spconv/indice.cc:23:10: error: 'std::optional' has not "
     "been declared\n  error: command '/usr/bin/g++' failed with exit code 1\n  ERROR: Failed building wheel for spconv\n"
     "Failed to build spconv", "spconv", "build-essential"),
    # MSVC's diagnostic, its message in Chinese, under a Windows build
    ("  pytorch3d\\csrc\\ext.cpp(12): error C2065: \u201cTHCState\u201d: \u672a\u58f0\u660e\u7684\u6807\u8bc6\u7b26\n"
     "  error: command 'C:\\\\Program Files\\\\Microsoft Visual Studio\\\\2022\\\\BuildTools\\\\VC\\\\Tools\\\\MSVC\\\\"
     "14.38.33130\\\\bin\\\\HostX64\\\\x64\\\\cl.exe' failed with exit code 2\n  ERROR: Failed building wheel for "
     "pytorch3d", "pytorch3d", "Visual Studio Build Tools"),
    # uv's report of a failed build, nvcc's diagnostic on a .cu file
    ("  \u00d7 Failed to build `natten==0.17.1`\n  \u251c\u2500\u25b6 The build backend returned an error\n"
     "  \u2570\u2500\u25b6 Call to `setuptools.build_meta.build_wheel` failed (exit status: 1)\n"
     "      csrc/natten.cu(44): error: identifier \"__hmax2\" is undefined", "natten", "CUDA toolkit"),
])
def test_a_failed_build_is_the_toolchain_of_the_package_built(text, package, tool_word):
    d = _d(text)
    _reading(d, "toolchain")
    assert package in d["fix"] and tool_word in d["fix"], d["fix"]
    assert not installs_torch(d["fix"]), d["fix"]  # the package's build, never a torch reinstall


def test_the_build_entities_are_read_from_their_own_formats():
    ent = extract.entities(match.clean(
        "  Building wheel for flash-attn (setup.py) ... error\n"
        "  /tmp/pip-install-x/flash-attn_1/csrc/flash_fwd.cu(12): error: identifier \"x\" is undefined\n"
        "  C:\\src\\ext\\kernel.cpp(40): fatal error C1083: Cannot open include file: 'cuda_runtime.h'\n"
        "  csrc/ops.cpp:12:10: fatal error: Python.h: No such file or directory\n"
        "  ninja: build stopped: subcommand failed.\n  ERROR: Failed building wheel for flash-attn\n"))
    compiles = {b["file"]: b["tool"] for b in ent.builds if b["what"] == "compile"}
    assert compiles == {"/tmp/pip-install-x/flash-attn_1/csrc/flash_fwd.cu": "nvcc", "C:\\src\\ext\\kernel.cpp": "msvc",
                        "csrc/ops.cpp": "cc"}
    assert [b["tool"] for b in ent.builds if b["what"] == "tool"] == ["ninja"]
    assert [(b["package"], b["failed"]) for b in ent.builds if b["what"] == "package"] == [("flash-attn", True)]


# --- the program that reports the error, and tools named as missing ------------------------------------------------

@pytest.mark.parametrize("text, layer", [
    ("$ sudo modprobe nvidia\nmodprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-45-generic", "driver"),
    ("hipcc: error: unsupported option '--offload-arch=gfx1151'\nmake: *** [Makefile:12: kernel.o] Error 1", "rocm"),
    # (cpp_extension's own "Error building extension 'X'" has a rule of its own: trainers.extension_jit_build_failed)
    ("RuntimeError: could not build the op 'fused': no C++ compiler found; set CXX", "toolchain"),
])
def test_the_reporting_program_or_the_missing_tool_names_the_layer(text, layer):
    _reading(_d(text), layer)


# --- not the environment: no reinstall, whoever's allocator or data --------------------------------------------

@pytest.mark.parametrize("text", [
    # (XLA's own "Out of memory while trying to allocate" has a rule of its own: xla_out_of_memory)
    "mxnet.base.MXNetError: out of memory while allocating a buffer of 2GB",
    "ValueError: Expected input batch_size (32) to match target batch_size (64).",
])
def test_memory_and_the_programs_data_are_not_the_environment(text):
    d = _d(text)
    _reading(d, "not-environment")
    assert d["environment_problem"] is False and d["machine"] == "not needed"
    assert not REINSTALL.search(d["fix"] or ""), d["fix"]


def test_an_exception_class_that_names_no_layer_stays_unrecognised():
    for text in ("ValueError: x must be positive", "RuntimeError: something went wrong", "all good"):
        d = _d(text)
        assert d["recognised"] is False and d["basis"] is None, text


# --- the vote: the deepest part decides, the surface does not ------------------------------------------------------

def test_the_deepest_part_wins_over_a_surface_exception_and_a_platform():
    vs = [reading.Vote("not-environment", 2.0, 1, "exceptions", "OutOfMemoryError", 10),
          reading.Vote("macos", 1.0, 1, "platform", "macos", 20),
          reading.Vote("cudnn", 1.0, 4, "libraries", "libcudnn_cnn_infer.so.8", 5, "install nvidia-cudnn-cu12")]
    layer, top, confidence = reading.decide(vs)
    assert layer == "cudnn" and top.what == "libcudnn_cnn_infer.so.8"
    # the share of the weight on the winner (4 of 7), at the root-cause depth's factor
    assert confidence == round(4 / 7 * 0.95, 2)


def test_a_driver_part_in_a_text_from_wsl_is_the_windows_driver():
    vs = [reading.Vote("driver", 2.5, 3, "codes", "cudaErrorInsufficientDriver", 5),
          reading.Vote("wsl", 1.0, 1, "platform", "wsl", 50)]
    assert reading.decide(vs)[0] == "wsl"


def test_the_torch_install_check_reads_the_command_not_the_prose():
    assert installs_torch("pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu128")
    assert not installs_torch("pip install natten --only-binary :all:); otherwise a CUDA toolkit of torch's CUDA")
    assert not installs_torch("pip install torch-scatter -f https://data.pyg.org/whl/torch-2.4.0+cu121.html")


def test_a_third_party_binary_with_a_torch_symbol_is_that_packages_build_never_torch():
    text = ("ImportError: /opt/venv/lib/python3.12/site-packages/sageattention/_qattn_sm90.cpython-312-x86_64-linux-gnu.so: "
            "undefined symbol: _ZN3c106detail23torchInternalAssertFailEPKcS2_jS2_RKSs")
    s = match.clean(text)
    m = reading.read(s, extract.entities(s))
    assert m is not None and m.signature.layer == "toolchain"
    assert "sageattention" in m.signature.fix and not installs_torch(m.signature.fix), m.signature.fix


# --- a version conflict's direction decides the fix; the platform decides NCCL's --------------------------------

def _read(text: str):
    s = match.clean(text)
    return reading.read(s, extract.entities(s))


@pytest.mark.parametrize("text, layer, words", [
    # the build is newer than what runs: upgrade what runs
    ("ImportError: jaxlib was built against cuDNN 8.9.4 but the installed cuDNN is 8.7.0", "cudnn", "upgrade cuDNN"),
    # the build is older than what runs: the module's release for what runs (NumPy 1.x vs 2)
    ("ImportError: scipy._lib was compiled against NumPy 1.26.4 but this version of numpy is 2.1.0", "numpy", "numpy<2"),
])
def test_the_direction_of_a_version_conflict_decides_what_to_change(text, layer, words):
    m = _read(text)
    assert m is not None and m.signature.layer == layer
    assert words in m.signature.fix, m.signature.fix


def test_nccl_failing_on_native_windows_is_the_gloo_backend():
    m = _read("  File \"C:\\Users\\me\\proj\\train.py\", line 40, in main\n"
              "torch.distributed.DistBackendError: NCCL error in: ..\\torch\\csrc\\distributed\\c10d\\ProcessGroupNCCL.cpp:1970, "
              "internal error")
    assert m is not None and m.signature.layer == "distributed"
    assert "gloo" in m.signature.fix, m.signature.fix


def test_two_devices_in_one_error_are_the_programs():
    d = _d("RuntimeError: Expected every operand on one device, got mps:0 for argument #2 'mat2' (cpu and mps)")
    assert d["recognised"] and d["layer"] == "not-environment" and d["environment_problem"] is False, d["signature"]


@pytest.mark.parametrize("text, layer", [
    ("2019-05-01 12:00:00: F tensorflow/core/platform/cpu_feature_guard.cc:37] The TensorFlow library was compiled "
     "to use FMA instructions, but these aren't available on your machine.", "tensorflow"),
    ("Illegal instruction after pip install torch==2.3.0: the wheel was compiled to use AVX2 instructions, but these "
     "aren't available on your machine", "torch-build"),
    # another package's binary: the instruction set alone names no layer
    ("RuntimeError: this onnxruntime build uses AVX512F, which is not supported by this CPU", None),
])
def test_instructions_the_cpu_lacks_are_the_frameworks_build(text, layer):
    m = _read(text)
    got = m.signature.layer if m is not None else None
    assert got == layer, m and m.signature.id


# --- root causes the default reads on their own: a header's owner, a private module, a target nvcc lacks, the
# linker's -lcuda, an illegal instruction on a Mac, shared memory -------------------------------------------------

@pytest.mark.parametrize("text, layer, words", [
    ("kernels/gemm.cu:2:10: fatal error: 'cublas_v2.h' file not found", "toolchain", "CUDA toolkit"),
    ("\u8fd0\u884c\u65f6\u62a5\u9519 No module named 'spconv.core_cc._ext'\uff0c\u600e\u4e48\u89e3\u51b3", "toolchain", "spconv"),
    ("nvcc fatal   : Value 'sm_120' is not defined for option 'gpu-architecture'", "toolchain", "12.8"),
    ("/usr/bin/ld: cannot find -lcuda: No such file or directory\ncollect2: error: ld returned 1 exit status",
     "libraries", "libcuda.so"),
    ("zsh: illegal hardware instruction  python app.py\n(on my MacBook Air M2)", "macos", "arm64"),
    ("OSError: [Errno 28] No space left on device: '/dev/shm/torch_1234_5678'", "container", "--shm-size"),
])
def test_a_root_cause_part_decides_alone(text, layer, words):
    m = _read(text)
    assert m is not None and m.signature.layer == layer, m and [v["kind"] + ":" + v["layer"] for v in m.signature.raw["votes"]]
    assert words in m.signature.fix, m.signature.fix


@pytest.mark.parametrize("text, layer", [
    # the loader's reason (the paging file) is the cause; the cuDNN DLL it names is what failed for it
    ("OSError: [WinError 1455] Le fichier de pagination est insuffisant pour terminer cette op\u00e9ration. Error "
     "loading \"C:\\env\\Lib\\site-packages\\nvidia\\cudnn\\bin\\cudnn_ops64_9.dll\" or one of its dependencies.",
     "windows-runtime"),
    # an illegal instruction on a Mac is the Mac's build even when TensorFlow is named
    ("$ python -c 'import tensorflow'\nzsh: illegal hardware instruction  python -c 'import tensorflow'\nMacBook Pro M3",
     "macos"),
])
def test_the_part_that_says_why_wins_over_the_part_that_failed(text, layer):
    m = _read(text)
    assert m is not None and m.signature.layer == layer, m and [v["kind"] + ":" + v["layer"] for v in m.signature.raw["votes"]]
