"""explain's twelfth round, from test12's misses read as structure: the static linker's "undefined reference" (a link
step without the library) against the loader's "undefined symbol" (two versions mixed), a symbol quoted in the message,
a kernel crash inside an NVIDIA module, a workload left running through a suspend, TensorFlow on native Windows said
in prose.  The texts follow each tool's documented format; the oracle is what the format means."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose, extract


def test_a_link_time_reference_without_the_library_is_a_missing_link_flag():
    r = diagnose.diagnose("main.cpp:(.text+0x2a): undefined reference to `cublasLtMatmulDescCreate'\n"
                          "collect2: error: ld returned 1 exit status")
    assert r["layer"] == "toolchain" and r["signature"] == "cuda-library-not-linked", r
    assert "-lcublasLt" in r["fix"] and "CUDA::cublasLt" in r["fix"], r["fix"]


def test_a_shared_library_missing_a_versioned_symbol_at_link_time_is_two_versions_mixed():
    r = diagnose.diagnose("/usr/bin/ld: /usr/local/cuda-11.7/lib64/libcublas.so: undefined reference to "
                          "`cublasLtGetStatusString@libcublasLt.so.11'\ncollect2: error: ld returned 1 exit status")
    assert r["layer"] == "libraries" and r["signature"] == "cuda-library-version-mixed", r


@pytest.mark.parametrize("quote", ['"', "'", "`"])
def test_a_quoted_symbol_is_read(quote):
    ent = extract.entities(f"undefined symbol: {quote}ncclCommWindowRegister{quote}")
    assert [s["symbol"] for s in ent.symbols] == ["ncclCommWindowRegister"], ent.symbols
    assert ent.symbols[0].get("abi") == "nccl"


_OOPS = ("BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
         "RIP: 0010:_raw_q_flush+0x87/0x110 [nvidia_uvm]\n"
         " nv_kthread_q_flush+0x18/0x70 [nvidia_uvm]\n"
         " {frame}\n")


def test_a_kernel_crash_in_an_nvidia_module_at_suspend_is_the_driver():
    r = diagnose.diagnose(_OOPS.format(frame="uvm_suspend+0x17b/0x1a0 [nvidia_uvm]\nnote: nvidia-sleep.sh exited "
                                             "with irqs disabled"))
    assert r["layer"] == "driver" and r["signature"] == "nvidia-kernel-module-crash", r
    assert "nvidia_uvm" in r["fix"] and "suspend" in r["fix"], r["fix"]


def test_a_kernel_crash_elsewhere_is_not_the_nvidia_driver():
    r = diagnose.diagnose("BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
                          "RIP: 0010:ext4_writepages+0x2a/0x110 [ext4]\n ext4_do_writepages+0x18/0x70 [ext4]\n")
    assert (r or {}).get("signature") != "nvidia-kernel-module-crash", r


def test_a_workload_left_running_through_a_suspend_is_the_uvm_module():
    r = diagnose.diagnose("[  409.775718] NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception: Shader Program Header 11 "
                          "Error\nTurns out the problem only occurs when leaving a container running through the "
                          "suspend.")
    assert r["signature"] == "cuda-broken-after-suspend" and "nvidia_uvm" in r["fix"], r


@pytest.mark.parametrize("words", ["Tensorflow can't detect my gpu.", "TensorFlow does not find the GPU",
                                   "tensorflow couldn't see any GPU"])
def test_tensorflow_after_2_10_on_native_windows_said_in_prose(words):
    r = diagnose.diagnose(f"TensorFlow version: 2.17.0\nOS platform and distribution: Windows 11\n{words}\n")
    assert r["signature"] == "tensorflow-windows-native-no-gpu" and "WSL 2" in r["fix"], r


def test_tensorflow_2_10_on_windows_is_not_told_it_has_no_gpu_build():
    r = diagnose.diagnose("TensorFlow version: 2.10.1\nOS platform and distribution: Windows 11\n"
                          "Tensorflow can't detect my gpu.\n")
    assert (r or {}).get("signature") != "tensorflow-windows-native-no-gpu", r


@pytest.mark.parametrize("error, layer", [
    ('docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].', "container"),
    (">>> torch.cuda.is_available()\nFalse", "torch-build"),
    ("RuntimeError: No CUDA GPUs are available", "torch-build"),
])
@pytest.mark.parametrize("graphics", ["Graphics Mesa Intel® Xe Graphics (TGL GT2)", "GPU: Intel(R) UHD Graphics 620",
                                      "Intel Arc A770 Graphics"])
def test_a_machine_whose_only_gpu_is_intel_has_no_cuda_device(error, layer, graphics):
    r = diagnose.diagnose(f"{error}\n{graphics}\n")
    assert r["signature"] == "intel-graphics-without-nvidia" and r["layer"] == layer, r
    assert "cpu" in r["fix"].lower() and "xpu" in r["fix"], r["fix"]
    assert "nvidia-container-toolkit" not in r["fix"].lower(), r["fix"]


@pytest.mark.parametrize("nvidia", ["NVIDIA GeForce GTX 1050", "Tesla T4", "GeForce RTX 3060 Laptop GPU"])
def test_intel_graphics_beside_an_nvidia_gpu_is_not_this(nvidia):
    r = diagnose.diagnose(f">>> torch.cuda.is_available()\nFalse\nGPU: Intel UHD Graphics 630 and {nvidia}\n")
    assert (r or {}).get("signature") != "intel-graphics-without-nvidia", r


def test_tensorflows_own_initialization_message_gets_tensorflows_arch_fix():
    r = diagnose.diagnose("RuntimeError: CUDA runtime implicit initialization on GPU:0 failed. Status: device kernel "
                          "image is invalid")
    assert r["layer"] == "arch" and "TensorFlow" in r["fix"], r
