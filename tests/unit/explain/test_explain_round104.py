"""explain's hundred-and-fourth round, from the misses of test179 to test183 (MATLAB, Metal backends, JavaScript ML,
probabilistic programming, video interpolation apps): Metal libraries and ggml's Metal backend, ONNX Runtime Web's
bundles, tfjs-node's native addon, MATLAB's CUDA driver and ncnn's Vulkan runtime without a GPU. The texts are written
for these tests from the programs' message formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def _r(text):
    return diagnose.diagnose(text)


def test_metal_libraries_and_ggml_metal():
    os_ = _r("Failed to load the default metallib: this library is using language version 3.2, which is not supported "
             "on this OS.")
    assert os_["signature"] == "metal-library-newer-than-macos" and os_["layer"] == "macos" and "3.2" in os_["title"]
    tool = _r('xcrun: error: unable to find utility "metal", not a developer tool or in PATH')
    assert tool["signature"] == "metal-compiler-missing" and "xcode-select --switch" in tool["fix"]
    lib = _r("Failed to find the default library.")
    assert lib["signature"] == "metal-default-library-missing" and "GGML_METAL_EMBED_LIBRARY" in lib["fix"]
    ni = _r('GGML_ASSERT: /src/ggml-metal.m:1200: false && "not implemented"')
    assert ni["signature"] == "ggml-metal-not-implemented" and ni["environment_problem"] is False
    init = _r("whisper_init_state: ggml_metal_init() failed")
    assert init["signature"] == "ggml-metal-init-failed" and "GGML_METAL=OFF" in init["fix"]
    src = _r("ggml_metal_init: default.metallib not found, loading from source\nggml_metal_init: error: Error "
             "Domain=MTLLibraryErrorDomain Code=3 \"program_source:3:10: fatal error: 'ggml-common.h' file not found\"")
    assert src["signature"] == "ggml-metal-library-not-embedded" and src["layer"] == "toolchain"


def test_onnxruntime_web_and_tfjs_node():
    b = _r("Error: no available backend found. ERR: [webgpu] backend not found.")
    assert b["signature"] == "onnxruntime-web-backend-missing" and "onnxruntime-web/webgpu" in b["fix"]
    nav = _r("Error: no available backend found. ERR: [webgpu] Error: WebGPU is not supported in current environment")
    assert nav["signature"] == "onnxruntime-web-backend-missing" and nav["layer"] == "driver"
    dll = _r("Error: The specified module could not be found.\n\\\\?\\C:\\app\\node_modules\\@tensorflow\\tfjs-node-gpu\\"
             "lib\\napi-v8\\tfjs_binding.node")
    assert dll["signature"] == "tfjs-node-dll-missing" and dll["layer"] == "windows-runtime"
    built = _r("Error: The Node.js native addon module (tfjs_binding.node) can not be found at path: /app/lib")
    assert built["signature"] == "tfjs-node-addon-not-built" and "--build-addon-from-source" in built["fix"]


def test_matlab_driver_and_ncnn_vulkan():
    m = _r("Error using gpuArray\nThe CUDA driver could not be loaded. An NVIDIA GPU with CUDA driver is required.")
    assert m["signature"] == "matlab-cuda-driver" and m["layer"] == "driver"
    for text in ("[0 NVIDIA GeForce GTX 1060]  queueC=2[8]\nno vulkan device\ninvalid gpu device",
                 "vkEnumeratePhysicalDevices failed 5\ninvalid gpu device"):
        r = _r(text)
        assert r["signature"] == "ncnn-no-vulkan-device" and "vulkaninfo" in r["fix"], text
