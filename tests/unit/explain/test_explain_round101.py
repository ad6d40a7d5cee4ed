"""explain's hundred-and-first round, from the misses of test164 to test168 (DeepStream, speech toolkits, medical
segmentation, sparse convolution, quantum simulators): torch's incompatible-device warning read from its other lines,
packages built without their CUDA code or framework ops, Qiskit Aer's CPU build, Kaldi's configure without MKL,
GStreamer's missing elements and refused pipelines, and three program errors (a GPU tensor handed to NumPy, a
non-contiguous tensor, DataParallel's parameters left on the CPU). The texts are written for these tests from the
programs' message formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def _r(text):
    return diagnose.diagnose(text)


def test_torchs_incompatible_device_warning_without_its_sm_line():
    named = _r("If you want to use the NVIDIA GeForce RTX 4090 GPU with PyTorch, please check the instructions at "
               "https://pytorch.org/get-started/locally/")
    assert named["signature"] == "torch-arch-list-without-gpu" and named["layer"] == "arch"
    assert "sm_89" in named["fix"] and "11.8" in named["fix"] and "whl/cu118" in named["fix"]
    listed = _r("The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.")
    assert listed["signature"] == "torch-arch-list-without-gpu"
    assert "sm_90" in listed["fix"] and "Blackwell" in listed["fix"] and "whl/cu128" in listed["fix"]
    older = _r("The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.")
    assert "Turing" in older["fix"] and "whl/cu100" in older["fix"]
    # the GPU named elsewhere in the text decides
    titled = _r("With an RTX A6000:\nThe current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.")
    assert "sm_86" in titled["fix"] and "whl/cu111" in titled["fix"]


def test_packages_built_without_their_cuda_code_or_framework_ops():
    said = _r("WARNING | nndet.core.boxes.nms:<module>:26 - nnDetection was not build with GPU support!")
    assert said["signature"] == "extension-built-without-cuda" and "FORCE_CUDA=1" in said["fix"]
    attr = _r("AttributeError: module 'pointops.backend' has no attribute 'knn_query_cuda'")
    assert attr["signature"] == "extension-built-without-cuda" and "pointops" in attr["title"]
    # torch's own CUDA functions missing are its CPU build, not an extension's
    assert _r("AttributeError: module 'torch._C' has no attribute '_cuda_getDeviceCount'")["signature"] != \
        "extension-built-without-cuda"
    o3d = _r("    raise Exception('Open3D was not built with PyTorch support!')\nException: Open3D was not built with "
             "PyTorch support!")
    assert o3d["signature"] == "package-without-framework-ops" and "BUILD_PYTORCH_OPS" in o3d["fix"]
    other = _r("Exception: Foo3D was not built with TensorFlow support")
    assert other["signature"] == "package-without-framework-ops" and "Open3D's ML module" not in other["fix"]


def test_aer_kaldi_and_gstreamer():
    aer = _r("qiskit_aer.aererror.AerError: 'Simulation device \"GPU\" is not supported on this system'")
    assert aer["signature"] == "qiskit-aer-without-gpu" and aer["layer"] == "gpu-unused"
    assert "qiskit-aer-gpu" in aer["fix"]
    kaldi = _r("Configuring MKL library directory: ***configure failed: MKL libraries could not be found. Please use "
               "the switch --mkl-libdir or try another math library, e.g. --mathlib=ATLAS.")
    assert kaldi["signature"] == "kaldi-configure-mkl-missing" and "--mathlib=OPENBLAS" in kaldi["fix"]
    el = _r("WARN GST_ELEMENT_FACTORY gstelementfactory.c:456:gst_element_factory_make: no such element factory "
            "\"nvinferserver\"!")
    assert el["signature"] == "gstreamer-element-missing" and el["layer"] == "container" and "-triton" in el["fix"]
    el2 = _r("WARNING: erroneous pipeline: no element \"x264enc\"")
    assert el2["signature"] == "gstreamer-element-missing" and el2["layer"] == "libraries" and "gst-inspect-1.0" in el2["fix"]
    neg = _r("nvinfer gstnvinfer.cpp:2288:gst_nvinfer_output_loop:<primary_gie> error: streaming stopped, reason "
             "not-negotiated (-4)")
    assert neg["signature"] == "gstreamer-pipeline-refused" and neg["environment_problem"] is False
    crit = _r("(gst-launch-1.0:4720): GStreamer-CRITICAL **: 16:00:27.748: gst_mini_object_unref: assertion "
              "'mini_object != NULL' failed")
    assert crit["signature"] == "gstreamer-pipeline-refused" and crit["environment_problem"] is False


def test_program_errors_that_name_a_device_or_a_layout():
    for text, look in (("exception in main training loop: can't convert CUDA tensor to numpy. Use Tensor.cpu() to copy "
                        "the tensor to host memory first.", ".cpu()"),
                       ("RuntimeError: Source tensor must be contiguous.", ".contiguous()"),
                       ("RuntimeError: module must have its parameters and buffers on device cuda:0 (device_ids[0]) but "
                        "found one of them on device: cpu", "model.to(device)")):
        r = _r(text)
        assert r["environment_problem"] is False and r["layer"] == "not-environment", text
        assert look in (r.get("look_at") or r.get("fix") or ""), (text, r)
