"""explain's eighty-seventh round, from the misses of test127 (GPU data loading), test128 (CUDA across processes) and
test129 (TensorFlow's companion packages): a TensorFlow op library's tensorflow:: symbols, torchvision built without a
codec, tensors shared between processes that cannot be, the profiler's CUDA mode with DataLoader workers, and pinned
memory without an accelerator. The texts are written for these tests from the messages' formats, not copied from the
corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose, extract
from explain_answers import fix_of as _fix


def test_a_companion_packages_op_wanting_a_tensorflow_symbol_is_its_release_for_this_tensorflow():
    r = diagnose.diagnose("tensorflow.python.framework.errors_impl.NotFoundError: /opt/venv/lib/python3.10/site-packages/"
                          "tensorflow_text/python/ops/_wordpiece_tokenizer.so: undefined symbol: "
                          "_ZN10tensorflow15OpKernelContext5inputEi")
    # (framework_families' rule reads this shape, a known companion's path with its symbol: the same layer)
    assert r["signature"] == "tensorflow-addon-for-another-tensorflow" and r["layer"] == "toolchain"
    assert "tensorflow-text" in _fix(r)
    bare = diagnose.diagnose("undefined symbol: _ZN10tensorflow7strings6StrCatERKNS0_8AlphaNumES3_")
    assert bare["signature"] == "tensorflow-op-abi" and bare["layer"] == "toolchain" and "pip show" in _fix(bare)


def test_an_own_op_not_linked_to_the_framework_gets_tensorflows_flags():
    r = diagnose.diagnose("NotFoundError: ./my_op.so: undefined symbol: _ZTIN10tensorflow8OpKernelE")
    assert r["signature"] == "tensorflow-op-abi" and "get_link_flags" in _fix(r)


def test_a_cxx11_string_in_a_tensorflow_symbol_is_the_string_abi_not_an_old_libstdcxx():
    text = ("NotFoundError: /tmp/cache/fused_op.so: undefined symbol: "
            "_ZN10tensorflow12OpDefBuilder4AttrENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE")
    assert extract.entities(text).symbols[-1]["abi"] == "tensorflow"
    r = diagnose.diagnose(text)
    assert r["signature"] == "tensorflow-op-abi" and "_GLIBCXX_USE_CXX11_ABI" in _fix(r)


def test_a_cut_symbol_under_a_companion_packages_path_is_still_its_build():
    r = diagnose.diagnose("NotFoundError: /usr/lib/python3/dist-packages/tensorflow_addons/custom_ops/layers/_x_ops.so: "
                          "undefined symbol")
    assert r["signature"] == "tensorflow-op-abi" and "tensorflow-addons" in _fix(r)


def test_torchvision_without_a_codec_is_its_build():
    r = diagnose.diagnose("RuntimeError: decode_jpeg_cuda: torchvision not compiled with nvJPEG support")
    assert r["signature"] == "torchvision-built-without-codec" and r["layer"] == "torch-build"
    assert "device='cpu'" in _fix(r)
    cpu = diagnose.diagnose("RuntimeError: encode_png: torchvision not compiled with libpng support")
    assert cpu["signature"] == "torchvision-built-without-codec" and "device='cpu'" not in _fix(cpu)


def test_cuda_ipc_on_windows_is_the_programs_sharing():
    r = diagnose.diagnose("RuntimeError: cuda runtime error (801) : operation not supported at C:\\\\w\\\\torch\\\\csrc\\\\"
                          "generic\\\\StorageSharing.cpp:247")
    assert r["signature"] == "cuda-tensor-sharing-on-windows" and r["environment_problem"] is False


def test_a_non_cpu_tensor_through_shared_memory_is_the_programs():
    r = diagnose.diagnose("Reason: 'RuntimeError('_share_filename_: only available on CPU')'")
    assert r["signature"] == "non-cpu-tensor-shared" and r["environment_problem"] is False


def test_the_profilers_cuda_mode_with_workers_is_the_programs():
    r = diagnose.diagnose("CUDA initialization error.\nThis can occur if one runs the profiler in CUDA mode on code\n"
                          "that creates a DataLoader with num_workers > 0.")
    assert r["signature"] == "profiler-cuda-with-workers" and r["environment_problem"] is False


def test_pinned_memory_without_an_accelerator_is_the_gpu_unused():
    r = diagnose.diagnose("RuntimeError: Need to provide pin_memory allocator to use pin memory.")
    assert r["signature"] == "pin-memory-without-accelerator" and r["layer"] == "gpu-unused"
    assert "pin_memory=False" in _fix(r)
