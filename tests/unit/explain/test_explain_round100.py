"""explain's hundredth round, from the misses of test159 to test163 (time series, audio separation, photogrammetry,
super-resolution, molecular dynamics): applications built without CUDA (COLMAP, DeePMD-kit), Meshroom's CUDA GPU
check, GROMACS's OpenCL build on NVIDIA, Chromium's GPU notices, TensorFlow's cuDNN start-up, TensorBoard over
TensorFlow 1.x, NVRTC's builtins of another CUDA, nvcc inside gcc's headers, GFPGAN's CPU warning and torch's per-op
device checks. The texts are written for these tests from the programs' message formats, not copied from the
corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def _r(text):
    return diagnose.diagnose(text)


def test_applications_built_without_cuda():
    banner = _r("$ colmap\nCOLMAP 3.8 -- Structure-from-Motion and Multi-View Stereo\n(Commit 43de802 on 2023-01-31 without CUDA)")
    assert banner["signature"] == "colmap-without-cuda" and banner["layer"] == "gpu-unused"
    assert "use_gpu 0" in banner["fix"] and "windows-cuda" in banner["fix"]
    check = _r("F0101 10:00:00.000000 1234 sift.cc:900] Check failed: num_cuda_devices > 0 (0 vs. 0)\n*** Check failure stack trace: ***")
    assert check["signature"] == "colmap-without-cuda" and "found no CUDA device" in check["title"]
    deepmd = _r("DEEPMD INFO    computing device:     cpu:0\nDEEPMD INFO    CUDA_VISIBLE_DEVICES: 0,1\n"
                "DEEPMD INFO    Count of visible GPU: 0")
    assert deepmd["signature"] == "deepmd-sees-no-gpu" and "*gpu" in deepmd["fix"]
    # GPUs counted: nothing to say
    assert _r("DEEPMD INFO    CUDA_VISIBLE_DEVICES: 0,1\nDEEPMD INFO    Count of visible GPU: 2")["signature"] != \
        "deepmd-sees-no-gpu"


def test_meshroom_and_gromacs():
    mesh = _r("[error] This program needs a CUDA-Enabled GPU (with at least compute capability 2.0).")
    assert mesh["signature"] == "alicevision-needs-cuda-gpu" and mesh["layer"] == "driver" and "driver" in mesh["fix"]
    gmx = _r("Internal error (bug):\nFailed to compile NBNXN kernels for GPU #NVIDIA GeForce RTX 3090\n"
             "  Could not build OpenCL program, error was Unknown OpenCL error: -9999")
    assert gmx["signature"] == "gromacs-opencl-on-nvidia" and "-DGMX_GPU=CUDA" in gmx["fix"]
    amd = _r("Failed to compile NBNXN kernels for GPU #AMD Radeon RX 6800\n  Could not build OpenCL program, error was X")
    assert amd["signature"] != "gromacs-opencl-on-nvidia"


def test_chromium_gpu_notices_are_not_the_installation():
    line = ("[1200:4410:0301/101500.250:ERROR:gpu_init.cc(523)] Passthrough is not supported, GL is egl, ANGLE is")
    r = _r(line)
    assert r["signature"] == "chromium-gpu-log" and r["environment_problem"] is False
    assert _r(line + "\n[1200:4410:0301/101501.000:FATAL:gpu_data_manager_impl_private.cc(448)] GPU process isn't "
              "usable. Goodbye.")["signature"] != "chromium-gpu-log"


def test_tensorflow_cudnn_start_and_tensorboard_over_tf1():
    r = _r("tensorflow.python.framework.errors_impl.UnknownError: 2 root error(s) found.\n  (0) Unknown: Failed to get "
           "convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a "
           "warning log message was printed above.")
    assert r["signature"] == "tensorflow-cudnn-not-initialised" and r["layer"] == "cudnn"
    assert "TF_FORCE_GPU_ALLOW_GROWTH" in r["fix"]
    tb = _r("AttributeError: module 'tensorflow._api.v1.io.gfile' has no attribute 'get_filesystem'")
    assert tb["signature"] == "tensorboard-with-tensorflow1" and "pip uninstall tensorflow" in tb["fix"]


def test_nvrtc_builtins_and_nvcc_in_host_headers():
    r = _r("CUDA platform error: Error compiling program: builtins: link error: Invalid value")
    assert r["signature"] == "nvrtc-builtins-mismatch" and r["layer"] == "libraries"
    n = _r("/opt/cuda-10.1/bin/nvcc -c kernels.cu -o kernels.o -gencode=arch=compute_61,code=sm_61\n"
           "/opt/gcc/8.1.0/include/c++/8.1.0/bits/basic_string.tcc: In instantiation of 'static std::basic_string<_CharT>'")
    assert n["signature"] == "nvcc-fails-in-host-stdlib" and n["layer"] == "toolchain"
    assert "8.1.0" in n["title"] and "10.1" in n["title"] and "NVCC_CCBIN" in n["fix"]
    # a libstdc++ error with no nvcc in sight is not nvcc's
    assert _r("/usr/include/c++/12/bits/stl_vector.h:1123: error: no match for 'operator='")["signature"] != \
        "nvcc-fails-in-host-stdlib"


def test_gfpgans_cpu_warning_and_per_op_device_checks():
    g = _r("UserWarning: The unoptimized RealESRGAN is slow on CPU. We do not use it. If you really want to use it, "
           "please modify the corresponding codes.")
    assert g["signature"] == "library-fell-back-to-cpu" and g["layer"] == "gpu-unused"
    d = _r("RuntimeError: stft input and window must be on the same device but got self on cuda:0 and window on cpu")
    assert d["signature"] == "tensors-on-different-devices" and d["environment_problem"] is False
