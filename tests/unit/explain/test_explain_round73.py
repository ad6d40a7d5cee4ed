"""explain's seventy-third round, from the misses of test94 to test97 (LLM inference servers' kernels, watching the GPU,
video on the GPU, Triton's kernels): FFmpeg's NVENC/NVDEC messages, torchvision's GPU decoder, Triton's compiler and
launcher messages, torch's Triton pin, the last of two capability floors, NVIDIA's libraries on macOS, a generator on
another device. The texts are written for these tests from the tools' own messages, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose, extract
from explain_answers import fix_of as _fix


def test_ffmpegs_words_for_the_encoder_library_reach_the_drivers_video_libraries():
    r = diagnose.diagnose("[hevc_nvenc @ 0x5581] Cannot load libnvidia-encode.so.1\n[hevc_nvenc @ 0x5581] The minimum "
                          "required Nvidia driver for nvenc is 550.54.14 or newer")
    assert r["signature"] == "nvdec-driver-library" and r["layer"] == "driver" and "encoder" in r["title"]
    assert "libnvidia-encode-" in _fix(r) and "NVIDIA_DRIVER_CAPABILITIES=compute,utility,video" in _fix(r)
    r = diagnose.diagnose("$ docker run --gpus all img ffmpeg -c:v h264_nvenc out.mp4\n[h264_nvenc @ 0x1] Cannot load "
                          "libnvidia-encode.so.1")
    assert r["signature"] == "nvdec-driver-library" and "NVIDIA_DRIVER_CAPABILITIES" in _fix(r)
    assert "libnvidia-decode-" not in _fix(r)


def test_nvenc_api_newer_than_the_driver_names_the_floor_of_ffmpegs_table():
    r = diagnose.diagnose("[h264_nvenc @ 0x1] Driver does not support the required nvenc API version. Required: 12.1 "
                          "Found: 11.1\n[h264_nvenc @ 0x1] The minimum required Nvidia driver for nvenc is 530.41.03 or "
                          "newer")
    assert r["signature"] == "nvenc-api-newer-than-driver" and r["layer"] == "driver"
    assert "530.41.03" in _fix(r) and "531.61" in _fix(r) and "n11.1" in _fix(r)
    unknown = diagnose.diagnose("Driver does not support the required nvenc API version. Required: 14.0 Found: 13.0")
    assert unknown["signature"] == "nvenc-api-newer-than-driver" and "API 14.0" in _fix(unknown)


def test_a_hardware_codec_the_ffmpeg_build_lacks():
    r = diagnose.diagnose("Unknown encoder 'h264_nvenc'")
    assert r["signature"] == "ffmpeg-codec-not-built" and r["layer"] == "libraries" and "--enable-nvenc" in _fix(r)
    r = diagnose.diagnose("error: avcodec_find_decoder_by_name hevc_cuvid failed")
    assert r["signature"] == "ffmpeg-codec-not-built" and "--enable-cuvid" in _fix(r)
    r = diagnose.diagnose("Unknown encoder 'h265_nvmpi'")
    assert "--enable-nvmpi" in _fix(r)


def test_a_software_codec_unknown_is_not_this_reading():
    r = diagnose.diagnose("Unknown encoder 'libx264'")
    assert r["signature"] != "ffmpeg-codec-not-built"


def test_nvenc_refusing_a_session():
    r = diagnose.diagnose("[h264_nvenc @ 0x2] OpenEncodeSessionEx failed: out of memory (10): (no details)")
    assert r["signature"] == "nvenc-session-refused" and r["layer"] == "arch" and "session" in _fix(r)


def test_torchvisions_gpu_decoder_not_compiled():
    for msg in ("RuntimeError: cuda video backend is not available.",
                "RuntimeError: Not compiled with GPU decoder support."):
        r = diagnose.diagnose(msg)
        assert r["signature"] == "torchvision-gpu-decoder-missing" and r["layer"] == "libraries"
        assert "TORCHVISION_INCLUDE" in _fix(r) and "torchcodec" in _fix(r)


def test_tritons_launcher_code_is_decoded_in_its_api():
    codes = {c["name"] for c in extract.entities("Triton Error [HIP]: Code: 209").codes}
    assert "hipErrorNoBinaryForGpu" in codes
    r = diagnose.diagnose("Triton test failed: Triton Error [HIP]: Code: 209")
    assert r["layer"] == "rocm" and "TRITON_OVERRIDE_ARCH" in _fix(r)
    codes = {c["name"] for c in extract.entities("RuntimeError: Triton Error [CUDA]: out of memory").codes}
    # the driver's error string; the runtime's enumeration has the same words where the driver's table has none
    assert codes & {"CUDA_ERROR_OUT_OF_MEMORY", "cudaErrorMemoryAllocation"}


def test_a_compilation_error_in_the_kernels_source():
    r = diagnose.diagnose("triton.compiler.errors.CompilationError: at 12:8:\n    acc = tl.dot(a, b)\n        ^\n"
                          "AssertionError: All values in both first input shape ([constexpr[8], constexpr[16]]) and "
                          "shape must be >= 16!")
    assert r["signature"] == "triton-kernel-source-error" and r["layer"] == "not-environment"


def test_ptxas_out_of_registers_is_the_configuration():
    r = diagnose.diagnose("RuntimeError: Internal Triton PTX codegen error:\nptxas fatal   : (C7600) Register allocation "
                          "failed with register count of '255'. Compile the program with a higher register target")
    assert r["signature"] == "ptxas-register-allocation-failed" and r["layer"] == "not-environment"


def test_instructions_of_another_gpu_family():
    r = diagnose.diagnose("LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.wgmma.fence.sync.aligned")
    assert r["signature"] == "gpu-family-instruction" and r["layer"] == "arch" and "sm_90a" in _fix(r)
    other = diagnose.diagnose("LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.ldg.global.f")
    assert other["signature"] != "gpu-family-instruction"


def test_torchs_triton_pin():
    r = diagnose.diagnose("ERROR: pip's dependency resolver does not currently take into account all the packages that "
                          "are installed.\ntorch 2.3.1 requires triton==2.3.1; platform_system == \"Linux\", but you have "
                          "triton 3.0.0 which is incompatible.")
    assert r["signature"] == "torch-pins-triton" and r["layer"] == "toolchain" and 'triton==2.3.1' in _fix(r)


def test_the_floor_stated_last_decides():
    r = diagnose.diagnose("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your "
                          "Tesla P40 GPU has compute capability 6.1.\nRuntimeError: GPUs with compute capability below "
                          "7.0 are not supported.")
    assert r["layer"] == "arch"
    r = diagnose.diagnose("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your "
                          "Tesla T4 GPU has compute capability 7.5. You can use float16 instead.")
    assert r["layer"] == "not-environment"


def test_nvidias_libraries_on_macos():
    r = diagnose.diagnose("OSError: dlopen(libnvidia-ml.so.1, 6): image not found")
    assert r["signature"] == "nvidia-library-on-macos" and r["layer"] == "macos" and "mps" in _fix(r)


def test_a_generator_on_another_device():
    r = diagnose.diagnose("ValueError: Cannot generate a cpu tensor from a generator of type cuda.")
    assert r["signature"] == "generator-device-mismatch" and r["layer"] == "not-environment"
    assert 'torch.Generator(device="cpu")' in _fix(r)


def test_prose_from_the_rules_own_tables_is_not_quoted_as_a_shell_word():
    # captured values land in fixes quoted for a shell; the rules' own table entries go in as prose
    for text, words in (("LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.tcgen05.wait.st", "(sm_100a / sm_103a"),
                        ("Unknown encoder 'h264_nvenc'", "configured with --enable-ffnvcodec --enable-nvenc"),
                        ("The installed Paddle is compiled with CUDNN 7.6, but CUDNN version in your machine is 7.4",
                         "path: cuDNN 7.6 for this CUDA from NVIDIA's cuDNN archive")):
        fix = _fix(diagnose.diagnose(text))
        assert words in fix and "'\"'\"'" not in fix, fix
