"""Layer rules for errors of the program or its data, read from the numbers the error prints: what to look at, never
an install.

    conv_input_channels  a convolution's weight wants C input channels, the input has X
                         -> an RGBA/grayscale image (convert it), or the model built for other data
    index_past_size      "index N is out of bounds for dimension D with size S"
                         -> data with more classes/tokens than the layer is sized for
    mps_array_over_4gb   Metal's "total bytes of NDArray > 2**32"   -> one tensor over 4 GiB on MPS: smaller pieces
    cuda_in_forked_child  CUDA's initialization error where the text forks workers (multiprocessing, DataLoader
                         workers) -> the 'spawn' start method / CUDA only in the main process, not the driver
    child_killed_by_oom  a launcher's child killed by SIGKILL (-9) -> host memory (the OOM killer), not the install
    lightning_gpu_setting  Lightning's "GPU available: True, used: False" or its GPU request refused while torch
                         counts the GPUs -> the Trainer's accelerator/devices arguments
    half_precision_on_cpu  a CPU kernel "not implemented for 'Half'"   -> the program's dtype on the CPU (not-environment):
                         float32 there, or the GPU if one was meant; gpu-unused where the text says the GPU did not
                         engage (ZLUDA, DirectML, CUDA unavailable)
    vllm_memory_taken_at_start  vLLM's "Free memory on device ... less than desired GPU memory utilization" -> what
                         holds the GPU, or a share that fits
    pickled_model_module_missing  torch.load of a pickled model whose project module is not importable -> the program's
                         path (sys.path), or weights saved as a state_dict
    save_write_failed    torch.save's write refused by the OS (write(): fd N failed with ..., PytorchStreamWriter)
                         -> the destination's storage: space, quota, the mount, the disk
    generator_device_mismatch  a random generator on one device asked for a tensor on another (diffusers'
                         "Cannot generate a cpu tensor from a generator of type cuda", torch's "Expected a 'cuda' device
                         type for generator") -> not-environment: the generator's device
    blas_argument_refused  BLAS's "On entry to GEMM_EX parameter number N had an illegal value" (cuBLAS, the reference
                         BLAS's xerbla) -> the calling code passed a bad argument; under XLA's autotuning, notes from
                         algorithms it tries
    sanitizer_report     compute-sanitizer's own report of a kernel's access (memcheck's "Invalid __global__ read",
                         racecheck's hazards, initcheck's uninitialized reads) -> not-environment: the kernel it names
    tensor_sharing_refused  torch's refusal to share a tensor between processes: CUDA IPC on Windows (error 801 in
                         StorageSharing.cpp), a non-CPU tensor through a file descriptor ("_share_fd_: only available on
                         CPU") -> not-environment: what the program sends between processes
    profiler_with_workers  the autograd profiler's "CUDA initialization error ... DataLoader with num_workers > 0" ->
                         not-environment: the profiler's CUDA mode with worker processes
    pin_memory_without_accelerator  "Need to provide pin_memory allocator to use pin memory" -> gpu-unused: pinned memory
                         asked of a torch with no accelerator (a CPU-only build, or no GPU seen)
    nvrtc_source_error   NVRTC's compile log of a source given at run time ("default_program(18): error: expected a
                         ')'") -> not-environment: the kernel source a generator or the program wrote (a missing header,
                         "cannot open source file", is not this reading)
    own_file_shadows_package  a traceback whose file X.py (outside site-packages) imports X, then X lacks a name: the
                         program's own file shadows the package -> not-environment: rename the file
    signal_outside_main_thread  Python's "signal only works in main thread" -> not-environment: a library installing
                         signal handlers (a trainer's SLURM handling, a timeout) from a worker thread
    xgboost_data_on_cpu  XGBoost's "running on: cuda:0, while the input data is on: cpu" -> not-environment: where the
                         program keeps its data (a copy per call, slower)
    cudagraphs_skipped   inductor's "skipping cudagraphs due to ..." -> not-environment: a notice, the graph runs without
                         CUDA graphs (CPU tensors, mutated inputs, dynamic shapes)
    error_said_ignorable  a logged error whose own words say it can be ignored -> not-environment
"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail


_CONV_CHANNELS = re.compile(r"weight of size \[(?P<out>\d{1,6}), (?P<want>\d{1,6})(?:, \d{1,6}){1,3}\], expected "
                            r"input\[(?:\d{1,6}, )?(?P<got_dim>\d{1,6})(?:, \d{1,6}){1,3}\] to have (?P<w>\d{1,6}) "
                            r"channels, but got (?P<got>\d{1,6}) channels instead")

_SOURCES_CONV = ({"url": "https://pytorch.org/docs/stable/generated/torch.nn.Conv2d.html",
                  "what": "Conv2d: the input's channel dimension must equal in_channels"},
                 {"url": "https://pillow.readthedocs.io/en/stable/reference/Image.html#PIL.Image.Image.convert",
                  "what": "Image.convert('RGB') drops the alpha channel / expands grayscale"})


def conv_input_channels(ent, text):
    m, at = last_in_tail(_CONV_CHANNELS, text, "channels")
    if m is None:
        return None
    want, got = int(m.group("w")), int(m.group("got"))
    if want == 3 and got == 4:
        what = ("the input has 4 channels where the model takes 3: an image with an alpha channel (an RGBA PNG) fed as "
                "it was read")
        look = ("Convert the image to RGB before the transform: `Image.open(path).convert(\"RGB\")` (OpenCV: "
                "`cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)`), or drop the 4th channel (`x[:, :3]`).")
    elif want == 3 and got == 1:
        what = "the input has 1 channel where the model takes 3: a grayscale image"
        look = "Convert the image to RGB: `Image.open(path).convert(\"RGB\")` (or repeat the channel: `x.expand(-1, 3, -1, -1)`)."
    elif want == 1 and got == 3:
        what = "the input has 3 channels where the model takes 1: a color image for a grayscale model"
        look = "Convert the image to grayscale: `Image.open(path).convert(\"L\")`, or build the model with in_channels=3."
    else:
        what = (f"the data has {got} channels where the layer was built for {want}: the model's configuration "
                "(in_channels, the dataset's options, a label/instance map switched on or off) does not match the data")
        look = ("Make the model's input channels and the data agree: check the options that decide the number of input "
                f"channels ({want} expected, {got} given) against the ones the model was trained or defined with.")
    sig = _sig("conv-input-channels", "not-environment",
               "a convolution built for {want} input channels got {got}", 58,
               "Not an installation problem: " + what + ".", look_at=look, sources=_SOURCES_CONV)
    return _match(sig, text, at, {"want": str(want), "got": str(got)})


_INDEX_PAST = re.compile(r"index (?P<i>-?\d{1,12}) is out of bounds for dimension (?P<d>\d{1,3}) with size (?P<s>\d{1,12})")


def index_past_size(ent, text):
    m, at = last_in_tail(_INDEX_PAST, text, "out of bounds")
    if m is None:
        return None
    i, size = int(m.group("i")), int(m.group("s"))
    caps = {"index": m.group("i"), "size": m.group("s"), "dim": m.group("d")}
    sig = _sig("index-past-size", "not-environment",
               "index {index} is past the end of a dimension of size {size}", 57,
               "Not an installation problem: an index of " + m.group("i") + " reached a dimension of size " +
               m.group("s") + (" (the valid indices are 0 to " + str(size - 1) + ")" if size > 0 else "") + ". Where "
               "the index is a label or a token id, the data has more classes or tokens than the layer (or tensor) "
               "was sized for.",
               look_at=("Size the model from the data: num_classes / vocab_size / num_embeddings must be larger than "
                        "the largest label or token id (here at least " + str(max(i, size) + 1) + "), e.g. the "
                        "vocabulary size the preprocessing wrote, not a hard-coded one; for a plain index, check the "
                        "loop bounds that produced it."),
               sources=({"url": "https://pytorch.org/docs/stable/generated/torch.gather.html",
                         "what": "gather/index: every index must be below the size of its dimension"},))
    return _match(sig, text, at, caps)


_MPS_4GB = re.compile(r"total bytes of NDArray > 2\*\*32")


def mps_array_over_4gb(ent, text):
    m, at = last_in_tail(_MPS_4GB, text, "NDArray")
    if m is None:
        return None
    sig = _sig("mps-array-over-4gb", "not-environment", "a tensor over 4 GiB on MPS (Metal's NDArray limit)", 62,
               "Not an installation problem: Metal Performance Shaders cannot create one array of more than 2**32 "
               "bytes, and an operation here needed one (a large image or batch, a long sequence's attention).",
               look_at=("Work in smaller pieces on MPS: a smaller batch or resolution, tile large images, split long "
                        "inputs into chunks (shorter context), or run that step on the CPU."),
               sources=({"url": "https://developer.apple.com/documentation/metalperformanceshaders/mpsndarray",
                         "what": "MPSNDArray, the array type behind torch's MPS tensors"},))
    return _match(sig, text, at, {})


# an executable frozen by PyInstaller (its loader's frames, its bootloader's "Failed to execute script", the _MEI
# temporary folder) or built by Nuitka --standalone, failing on an import: the bundle lacks a module or a native library
# of the environment it was made from; the fix is the bundle's recipe, not an installation
_FROZEN_APP = re.compile(r"pyimod\d{2}_importers|PyInstaller[\\/]loader|\[\d{1,8}\] Failed to execute script|"
                         r"[\\/]_MEI\d{3,10}[\\/]|sys\._MEIPASS|\bnuitka\b[^\n]{0,200}--standalone")
_FROZEN_IMPORT_FAILS = re.compile(r"ImportError|ModuleNotFoundError|DLL load failed|failed to import|"
                                  r"(?:Could not|cannot) (?:load|find)[^\n]{0,80}\.(?:dll|so|pyd)|Error loading \"")


def frozen_app_import(ent, text):
    m, at = last_in_tail(_FROZEN_APP, text)
    if m is None or not _FROZEN_IMPORT_FAILS.search(text[-CONTEXT_TAIL:]):
        return None
    tool = "Nuitka" if "uitka" in m.group(0) else "PyInstaller"
    sig = _sig("frozen-app-missing-import", "not-environment",
               "the {tool} executable's bundle lacks what an import needs", 82,
               "The program runs from a {tool} bundle, not from the Python environment: an import fails because the "
               "bundle did not collect a module or a native library (numpy's C extension, torch's DLLs) that the "
               "environment has. The installation it was built from can be fine.",
               look_at="Rebuild the executable with what the import needs collected: PyInstaller `--collect-all numpy` / "
                       "`--collect-all torch` (or hiddenimports and collect_dynamic_libs in the .spec file, which a "
                       "rerun of pyi-makespec overwrites), Nuitka `--include-package=` / its torch and numpy plugins; run "
                       "the script with the environment's own python first to check it imports there.",
               causes=(), areas=(), sources=({"url": "https://pyinstaller.org/en/stable/when-things-go-wrong.html",
                                              "what": "PyInstaller: hidden imports and collected data"},))
    return _match(sig, text, at, {"tool": tool})


# CUDA cannot be used in a process forked after the parent initialised it (the CUDA runtime does not support fork):
# the child's first CUDA call fails with cudaErrorInitializationError (3), printed in torch's several wordings
_INIT_ERROR = re.compile(r"CUDA error \(3\): initialization error|cuda runtime error \(3\) ?: initialization error|"
                         r"error=3 ?: initialization error|CUDA [Ee]rror: initialization error|"
                         r"CUDAError[^\n]{0,80}initialization error|"
                         # the driver API's own wording, as bindings print it (PyCUDA: "cuInit failed: initialization
                         # error"): CUDA_ERROR_NOT_INITIALIZED's message after a fork
                         r"cuInit failed: initialization error")
_FORKS = re.compile(r"multiprocessing|mp\.Process|Process Process-\d|num_workers|_worker_loop|DataLoader worker|"
                    r"(?i:\bdataloader\b)|"
                    r"worker process|\bfork(?:ed)?\b|Pool\(|spawn|\b(?:child|parent) process")


def cuda_in_forked_child(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "initializ" not in tail:
        return None
    m, at = last_in_tail(_INIT_ERROR, text)
    if m is None or _FORKS.search(tail) is None:
        return None
    sig = _sig("cuda-in-forked-child", "not-environment",
               "CUDA used in a forked child process (multiprocessing or DataLoader workers)", 87,
               "The CUDA runtime cannot be used in a process forked after the parent initialised CUDA: the child's first "
               "CUDA call fails with an initialization error. Here the program forks (multiprocessing with the default "
               "'fork' start method on Linux, or DataLoader workers) and the children touch CUDA: CUDA tensors in the "
               "dataset or the arguments, .cuda() in a transform or collate function.",
               look_at="The program: keep CUDA in the main process (the dataset and collate_fn return CPU tensors; move "
                       "each batch to the GPU in the training loop), or start the processes with "
                       "`torch.multiprocessing.set_start_method('spawn')` under `if __name__ == '__main__':` (or "
                       "DataLoader(..., multiprocessing_context='spawn')); num_workers=0 confirms it. Nothing to install.",
               causes=(), areas=("program",),
               sources=({"url": "https://pytorch.org/docs/stable/notes/multiprocessing.html#cuda-in-multiprocessing",
                         "what": "CUDA in multiprocessing: the CUDA runtime does not support fork; use spawn or forkserver"},))
    return _match(sig, text, at, {})


# a launcher reporting its child killed by SIGKILL: torchrun's "failed (exitcode: -9)", DeepSpeed's "exits with return
# code = -9", torch.multiprocessing's "process N terminated with signal SIGKILL"; SIGKILL with no other error is the
# kernel's OOM killer (host memory), which the program's log cannot show
_KILLED = re.compile(r"exits? with return code = -9\b|\(exitcode: -9\)|exitcode\s{0,2}: -9\b|terminated with signal SIGKILL|"
                     r"Signal 9 \(SIGKILL\) received|died with <Signals\.SIGKILL: 9>")


def child_killed_by_oom(ent, text):
    m, at = last_in_tail(_KILLED, text)
    if m is None:
        return None
    sig = _sig("child-killed-by-sigkill", "not-environment",
               "a training process was killed by SIGKILL (-9): host memory, most likely the OOM killer", 82,
               "Exit code -9 is SIGKILL, which no Python error precedes: the kernel's out-of-memory killer sends it when "
               "the machine's RAM (not GPU memory) runs out, often while every rank loads the full model or the dataset "
               "at once. The install is not involved.",
               look_at="Confirm with `sudo dmesg -T | grep -i -E 'killed process|out of memory'`, then lower the host "
                       "memory the job needs: fewer ranks loading the model at the same moment, low_cpu_mem_usage / "
                       "loading straight to the GPU, fewer DataLoader workers, more swap, or a machine with more RAM.",
               causes=(), areas=("program",),
               sources=({"url": "https://man7.org/linux/man-pages/man7/signal.7.html",
                         "what": "signal(7): SIGKILL is signal 9; the OOM killer terminates processes with it"},))
    return _match(sig, text, at, {})


# PyTorch Lightning's device report and refusals: "GPU available: True, used: False" (a Trainer created without a GPU
# accelerator), and a GPU request refused in a text that shows torch counting the GPUs
_PL_UNUSED = re.compile(r"GPU available: True(?: \(cuda\))?, used: False")
_PL_REFUSED = re.compile(r"GPUs requested but none are available|You requested GPUs: \[[\d, ]{1,40}\]\s{0,40}But your machine only "
                         r"has: \[\]|MisconfigurationException: No supported gpu backend found")
_TORCH_SEES = re.compile(r"device_count\(\)\)?\s{0,40}\n?\s{0,8}(?:Out\[\d+\]: )?[1-9]\b|is_available\(\)?\s{0,40}(?:is |=|:)?\s{0,8}True|"
                         r"cuda\.is_available is true|get the number of gpu is [1-9]")


def lightning_gpu_setting(ent, text):
    tail = text[-CONTEXT_TAIL:]
    unused = last_match(_PL_UNUSED, tail)
    refused = last_match(_PL_REFUSED, tail) if unused is None else None
    if unused is None and (refused is None or _TORCH_SEES.search(tail) is None):
        return None
    m = unused or refused
    sig = _sig("lightning-gpu-setting", "not-environment",
               "torch sees the GPU; Lightning's Trainer was not set to use it", 84,
               "torch can use the GPU here; Lightning decides from the Trainer's arguments: without a GPU accelerator it "
               "runs on the CPU and says \"GPU available: True, used: False\", and some releases refuse a request such as "
               "gpus=-1 with ddp although the GPUs are visible. The Trainer's arguments, not the install.",
               look_at="Create the Trainer with the GPU named the way your Lightning version reads it: "
                       "`Trainer(accelerator='gpu', devices=1)` (or devices=N / 'auto'; older releases: gpus=N with the "
                       "count rather than -1), and check that a config file's key reaches the Trainer.",
               causes=(), areas=("program",),
               sources=({"url": "https://lightning.ai/docs/pytorch/stable/common/trainer.html#accelerator",
                         "what": "Lightning's Trainer: accelerator and devices select the GPU"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# torch.autocast's own refusals (torch/amp/autocast_mode.py in pytorch/pytorch): bfloat16 on a GPU without it, and a
# device type it does not know, most often a device with its index ("cuda:0") where the type ("cuda") is meant;
# serving engines' "Only fp16 and bf16 are supported" (a model loaded in float32 / TF32)
_AUTOCAST = re.compile(r"(?P<bf16>Current CUDA Device does not support bfloat16)|"
                       r"unsupported autocast device_type '(?P<dev>[^'\n]{1,40})'|"
                       r"(?P<only>Only (?:fp16|float16) and (?:bf16|bfloat16) are supported)")
_AUTOCAST_SOURCE = {"url": "https://github.com/pytorch/pytorch/blob/main/torch/amp/autocast_mode.py",
                    "what": "torch.autocast: device_type is a device type ('cuda', 'cpu'); bfloat16 needs "
                            "torch.cuda.is_bf16_supported()"}


def autocast_refused(ent, text):
    m, at = last_in_tail(_AUTOCAST, text)
    if m is None:
        return None
    if m.group("bf16"):
        sig = _sig("autocast-bf16-unsupported", "not-environment", "autocast asked for bfloat16 on a GPU without it", 84,
                   "torch.autocast was given dtype=torch.bfloat16 on a GPU that has no bfloat16 (compute capability "
                   "below 8.0: Volta, Turing and older); the program's dtype, not the installation.",
                   look_at="Use float16 where bfloat16 is missing: `dtype = torch.bfloat16 if "
                           "torch.cuda.is_bf16_supported() else torch.float16` (the program's or the trainer's dtype / "
                           "--bf16 option); nothing to install.",
                   sources=(_AUTOCAST_SOURCE,))
        caps = {}
    elif m.group("dev") is not None:
        dev = m.group("dev")
        indexed = ":" in dev
        sig = _sig("autocast-device-type", "not-environment", "autocast was given '{dev}' as its device type", 82,
                   "torch.autocast takes a device type ('cuda', 'cpu', 'mps', 'xpu'), not a device: " +
                   ("'{dev}' names a device with its index, which the caller passed where the type goes." if indexed else
                    "'{dev}' is not a device type autocast supports in this torch."),
                   look_at=("The caller's code: pass the device's type (`device.type`, or 'cuda' for 'cuda:0'); in a "
                            "plugin or node that passes the device string, update it to the release that fixed it."
                            if indexed else "The caller's code: a device type this torch supports with autocast."),
                   sources=(_AUTOCAST_SOURCE,))
        caps = {"dev": dev}
    else:
        sig = _sig("engine-half-precision-only", "not-environment", "the engine runs fp16 and bf16 models only", 80,
                   "The inference engine's kernels exist for float16 and bfloat16 only; the model was loaded in another "
                   "precision (float32, or a 'tf32' setting, which is a Tensor Core math mode rather than a storage "
                   "type). The run's dtype, not the installation.",
                   look_at="Load the model in float16 or bfloat16 (the engine's dtype option, or torch_dtype when "
                           "converting); bfloat16 needs a GPU of compute capability 8.0+.",
                   sources=({"url": "https://docs.nvidia.com/cuda/cublas/index.html#cublasmath-t",
                             "what": "cuBLAS math modes: TF32 is a Tensor Core mode for FP32 math"},))
        caps = {}
    return _match(sig, text, at, caps)


# scaled_dot_product_attention finding no kernel for the backends it may use ("No available kernel. Aborting
# execution."): the program restricted them (sdpa_kernel / enable_flash-only settings) to ones these inputs or this GPU
# cannot take; the warnings printed before it say why each refused
_SDPA_NONE = re.compile(r"No available kernel\.\s{0,3}Aborting execution")
_SDPA_GPU = re.compile(r"(?i)only supports gpu architectures|requires a GPU with compute capability|sm8\d.{0,20}sm9\d")


def sdpa_no_kernel(ent, text):
    m, at = last_in_tail(_SDPA_NONE, text, "No available kernel")
    if m is None:
        return None
    gpu = _SDPA_GPU.search(text[-CONTEXT_TAIL:]) is not None
    sig = _sig("sdpa-no-kernel", "arch" if gpu else "not-environment",
               "scaled_dot_product_attention has no kernel for these inputs among the backends allowed", 78,
               "torch.nn.functional.scaled_dot_product_attention picks among its flash, memory-efficient, cuDNN and math "
               "backends; the program allowed only some of them (torch.nn.attention.sdpa_kernel, or its own "
               "flash-attention setting), and none accepts these inputs" + (" on this GPU" if gpu else "") + ": the "
               "warnings above name each backend's reason (dimensions other than 4, a head size over 256, a dtype, a "
               "mask, the GPU's architecture).",
               look_at="Let SDPA fall back: turn off the program's flash-only setting (e.g. use_flash_attn=False), or "
                       "include SDPBackend.MATH in sdpa_kernel; or fix the inputs the warnings name (unsqueeze to 4-D, "
                       "float16/bfloat16 for the fused kernels).",
               sources=({"url": "https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html",
                         "what": "scaled_dot_product_attention's backends and their constraints"},))
    return _match(sig, text, at, {})


# xFormers' table of refusals ("No operator found for `memory_efficient_attention_forward` with inputs: ... `<op>` is
# not supported because: <reason> ..."; xformers/ops/fmha/dispatch.py): when an operator the GPU could run refuses
# only for the inputs (tensors on the CPU, a dtype, a bias' layout), the program's inputs are the fix, whatever the
# other operators' capability lines say
_XF_HEAD = re.compile(r"No operator found for `memory_efficient_attention_\w{3,20}`")
_XF_OP = re.compile(r"`(?P<op>[\w@.+-]{2,40})` is not supported because:\n(?P<why>(?:[ \t]{2,}[^\n]{1,300}\n?){1,20})")
_XF_GPU = re.compile(r"(?i)capability|sm\d{2}|wasn't build|was built for|not built|operator wasn't built|"
                     r"triton is not available|unavailable|requires GPU|too old")
_XF_CPU = re.compile(r"device=cpu")


def xformers_inputs_refused(ent, text):
    m, at = last_in_tail(_XF_HEAD, text, "No operator found for")
    if m is None:
        return None
    table = text[at:at + 8000]
    ops = [(o.group("op"), o.group("why")) for o in _XF_OP.finditer(table)]
    if not ops:
        return None
    on_cpu = all(_XF_CPU.search(why) for _op, why in ops)
    runnable = [op for op, why in ops if not _XF_GPU.search(why)]
    if not on_cpu and not runnable:
        return None  # every operator is held back by the GPU or the build: the capability and build rules read those
    reason = ("the query, key and value are on the CPU (every operator needs CUDA tensors)" if on_cpu else
              "{op}, which this GPU and build can run, refuses these inputs (the reasons under it: dtype, shapes, a "
              "bias' type or memory alignment)")
    sig = _sig("xformers-inputs-refused", "not-environment", "xFormers' attention refuses these inputs", 89,
               "xFormers lists why each attention operator declined the call: " + reason + ". The installation is fine; "
               "the program's tensors are the fix.",
               look_at=("Move the model and its inputs to the GPU (`.to('cuda')`), or turn xFormers attention off when "
                        "running on the CPU." if on_cpu else
                        "Make the inputs fit {op}: the dtype it lists (float16/bfloat16), the head size, and for a "
                        "tensor attn_bias an 8-aligned last dimension (allocate a larger bias and slice it, as xFormers' "
                        "HINT shows)."),
               sources=({"url": "https://github.com/facebookresearch/xformers/blob/main/xformers/ops/fmha/dispatch.py",
                         "what": "xFormers' operator dispatch and its 'is not supported because' reasons"},))
    return _match(sig, text, at, {"op": runnable[0] if runnable else None})


# A kernel without Half/BFloat16 named by its dispatch name: a CPU kernel's (its name says cpu; LayerNormKernelImpl
# is the CPU kernel's name too, the CUDA kernel of the same name dispatches Half and BFloat16). torch's CUDA kernels
# take half precision, so the tensors reached the CPU: the model is not on the GPU, or is meant for the CPU in float16.
_HALF_ON_CPU = re.compile(r"\"(?P<op>\w{0,60}(?:cpu|Cpu|CPU)\w{0,40}|LayerNormKernelImpl)\" not implemented for "
                          r"'(?P<dtype>Half|BFloat16)'")


# What says the GPU was meant and did not engage: a GPU back end named that runs torch's CUDA/DirectML path (ZLUDA,
# DirectML), or torch's own words that CUDA is unusable. Without it, half precision on the CPU is the program's choice.
_GPU_MEANT = re.compile(r"(?i)\bzluda\b|directml|is_available\(\)\W{0,12}(?:false|returned false)|Torch not compiled "
                        r"with CUDA|CUDA (?:is )?not available|no (?:CUDA )?GPUs? (?:are |were )?(?:found|detected|available)")
_HALF_SOURCES = ({"url": "https://github.com/pytorch/pytorch/issues/52291",
                  "what": "torch: half-precision operations missing on the CPU"},)


def half_precision_on_cpu(ent, text):
    m, at = last_in_tail(_HALF_ON_CPU, text, "not implemented for '")
    if m is None:
        return None
    caps = {"op": m.group("op"), "dtype": m.group("dtype")}
    if _GPU_MEANT.search(text[-CONTEXT_TAIL:]):
        sig = _sig("half-precision-on-cpu-gpu-meant", "gpu-unused",
                   "a CPU kernel ({op}) asked for {dtype}: the model runs on the CPU, not the GPU it was meant for", 80,
                   "{op} is a CPU kernel and has no {dtype} version in this torch; the CUDA kernels take half precision. "
                   "The text says the GPU path did not engage, so the half-precision model fell back to the CPU.",
                   fix="Get the GPU in use: check `python -c \"import torch; print(torch.cuda.is_available())\"` (a "
                       "CPU-only torch, no GPU visible, or the GPU back end not set up) and move the model and inputs "
                       "there (`model.to('cuda')`); to run on the CPU instead, load it in float32 (`model.float()`, "
                       "torch_dtype=torch.float32; web UIs: --precision full --no-half).",
                   areas=("torch",), sources=_HALF_SOURCES)
        return _match(sig, text, at, caps)
    sig = _sig("half-precision-on-cpu", "not-environment",
               "a CPU kernel ({op}) asked for {dtype}: the model runs on the CPU in half precision", 80,
               "{op} is a CPU kernel and has no {dtype} version in this torch; the CUDA kernels take half precision. "
               "The model (or this input) was cast to float16/bfloat16 and runs on the CPU: the program's dtype and "
               "device, not the installation.",
               look_at="On the CPU, run in float32: drop the model.half() / .to(torch.float16) call, or `model.float()` "
                       "after loading (torch_dtype=torch.float32; web UIs: --precision full --no-half). If a GPU was "
                       "meant, check `python -c \"import torch; print(torch.cuda.is_available())\"` and move the model "
                       "and inputs there (`model.to('cuda')`).",
               areas=("program",), sources=_HALF_SOURCES)
    return _match(sig, text, at, caps)


# vLLM's start-up check: the GPU's free memory against the share it was told to take
# (the words as vLLM prints them, wrapped where its message breaks the line)
_VLLM_FREE = re.compile(r"Free memory on device \((?P<free>\d{1,4}(?:\.\d{1,3})?)/(?P<total>\d{1,4}(?:\.\d{1,3})?) ?GiB\)\s{1,3}"
                        r"on\s{1,3}startup\s{1,3}is\s{1,3}less\s{1,3}than\s{1,3}desired\s{1,3}GPU\s{1,3}memory\s{1,3}utilization\s{1,3}"
                        r"\((?P<util>0?\.\d{1,3}|1(?:\.0{1,3})?), (?P<want>\d{1,4}(?:\.\d{1,3})?) ?GiB\)")


def vllm_memory_taken_at_start(ent, text):
    m, at = last_in_tail(_VLLM_FREE, text, "Free memory on device")
    if m is None:
        return None
    free, total = float(m.group("free")), float(m.group("total"))
    share = max(0.05, int(free / total * 100 - 2) / 100) if total > 0 else None
    sig = _sig("vllm-gpu-memory-taken", "not-environment",
               "vLLM finds {free} of {total} GiB free, less than the {util} share it was told to take", 82,
               "vLLM reserves gpu_memory_utilization of the GPU's whole memory at start-up and refuses when less is "
               "free: another process holds part of it (a second vLLM instance, a notebook, an earlier run that did not "
               "exit).",
               look_at="See what holds the GPU (`nvidia-smi`) and stop it, or start vLLM with a share that fits what is "
                       "free (`--gpu-memory-utilization {share}`); two servers on one GPU each need their own share.",
               sources=({"url": "https://docs.vllm.ai/en/latest/configuration/conserving_memory.html",
                         "what": "vLLM: gpu_memory_utilization, the share of GPU memory an instance takes"},))
    return _match(sig, text, at, {"free": m.group("free"), "total": m.group("total"), "util": m.group("util"),
                                  "share": f"{share:.2f}" if share else "0.8"})


# an operator's own check on its inputs' sizes, written as TORCH_CHECK/TORCH_INTERNAL_ASSERT over .size()/.dim()/
# .numel() ("pseudo.size(1) == kernel_size.numel() INTERNAL ASSERT FAILED ... Input mismatch"): the tensors the
# program passed, whatever the message's word for it
_SIZE_CHECK = re.compile(r"(?P<cond>[\w.\[\]]{1,60}\.(?:size|dim|numel|sizes)\(\d{0,2}\)(?:\[\d{1,2}\])?\s{0,2}"
                         r"(?:==|!=|<=|>=|<|>)\s{0,2}[\w.\[\]()]{1,60}) (?:INTERNAL ASSERT FAILED|CHECK FAILED|"
                         r"check failed)")


def op_input_size_check(ent, text):
    m, at = last_in_tail(_SIZE_CHECK, text, "FAILED")
    if m is None:
        m, at = last_in_tail(_SIZE_CHECK, text, "failed")
    if m is None:
        return None
    sig = _sig("op-input-size-check", "not-environment",
               "an operator's check on its inputs' sizes failed ({cond})", 76,
               "The failing condition compares the sizes of the tensors an operator was given ({cond}): the operator "
               "(a torch op or an extension's, such as torch_spline_conv's) received inputs whose shapes do not fit "
               "each other or its parameters. The check is the operator's own; the installation is not involved.",
               look_at="Print the shapes of the tensors passed to the failing call (the frame above the error) and "
                       "compare them with what the layer was built for (its dim, kernel_size, number of channels or "
                       "features, the edge attributes' columns).",
               areas=("program",), sources=({"url": "https://pytorch.org/cppdocs/notes/tensor_basics.html",
                                             "what": "ATen tensors: size(), dim(), numel()"},))
    return _match(sig, text, at, {"cond": m.group("cond")})


# torch.load unpickling a whole model (torch/serialization.py's _load: unpickler.load / find_class) and Python's own
# words when the class's module is not importable where it loads
_UNPICKLE_FRAMES = re.compile(r"serialization\.py\"?,? (?:line \d{1,5}, )?in _?load\b|serialization\.py in _?load\(|"
                              r"unpickler\.load\(\)|\bfind_class\b|torch\.load\(")
_PICKLED_MODULE = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '(?P<module>[\w.]{1,100})'|"
                             r"AttributeError: Can't get attribute '(?P<attr>\w{1,100})' on <module '(?P<on>[\w.]{1,100})'")
# top-level names of libraries a checkpoint may reference: their absence (or version) is an install, not the program's path
_LIBRARY_MODULES = frozenset("numpy scipy sklearn pandas torch torchvision torchaudio transformers timm mmcv mmdet mmseg "
                             "mmengine ultralytics omegaconf hydra lightning pytorch_lightning yaml sentencepiece "
                             "tokenizers accelerate diffusers peft einops apex detectron2 fairseq dgl torch_geometric "
                             "spacy gensim xgboost lightgbm PIL cv2 matplotlib".split())


def pickled_model_module_missing(ent, text):
    """torch.load of a pickled model object (not a state_dict) needs the code that defined its classes importable by
    the same module path: a project module ('models', 'networks.net') missing where it loads is the program's path,
    not an install.  A library's module (numpy._core, sklearn...) is left to the rules that read packages."""
    m, at = last_in_tail(_PICKLED_MODULE, text)
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    if _UNPICKLE_FRAMES.search(tail) is None:
        return None
    module = m.group("module") or m.group("on")
    if module.split(".")[0] in _LIBRARY_MODULES or module == "__main__" and m.group("attr") is None:
        return None
    caps = {"module": module, "attr": m.group("attr")}
    sig = _sig("pickled-model-module-missing", "not-environment",
               "torch.load cannot rebuild a pickled model: its module '{module}' is not importable here", 82,
               "The file holds a whole pickled model (torch.save(model)), not only its weights: unpickling imports each "
               "class from the module path it was saved from" + (" ('{attr}' from '{module}')" if m.group("attr") else
                                                                  " ('{module}'...)") +
               ", so the code that defined the model must be importable under the same name where it loads. That is "
               "the program's working directory and code, not the installation.",
               look_at="Run from the project that defined the model (or put its folder on sys.path / PYTHONPATH) so "
                       "`import {module}` works; better, load it once there and save only the weights "
                       "(torch.save(model.state_dict(), path)), then build the model in code and load_state_dict. From "
                       "torch 2.6 torch.load defaults to weights_only=True, which refuses whole pickled models: pass "
                       "weights_only=False only for a file you trust.",
               areas=("program",),
               sources=({"url": "https://docs.pytorch.org/tutorials/beginner/saving_loading_models.html",
                         "what": "saving the entire model pickles it with its module path: the defining code must be "
                                 "importable when it loads; state_dict recommended"},))
    return _match(sig, text, at, caps)


# torch.save writing the checkpoint and the write failing: the file object's error (write(): fd N failed with ...) or
# the zip writer's ("PytorchStreamWriter failed writing file ...: file write failed")
_SAVE_FRAMES = re.compile(r"torch\.save\(|serialization\.py\"?,? (?:line \d{1,5}, )?in _?save\b|in _save\b")
_SAVE_WRITE_FAILED = re.compile(r"write\(\): fd \d{1,6} failed with (?P<err>[^\n]{3,80})|"
                                r"PytorchStreamWriter failed writing (?:file|central directory)[^\n]{0,120}")


def save_write_failed(ent, text):
    m, at = last_in_tail(_SAVE_WRITE_FAILED, text)
    if m is None or _SAVE_FRAMES.search(text[-CONTEXT_TAIL:]) is None:
        return None
    caps = {"err": (m.group("err") or "").strip() or None}
    sig = _sig("torch-save-write-failed", "not-environment",
               "torch.save could not write the checkpoint" + (" ({err})" if caps["err"] else ""), 82,
               "torch.save writes the checkpoint through the file it opened, and the operating system refused a write: "
               "the destination's storage (a full disk or quota, a network filesystem that dropped, a failing disk: "
               "'Input/output error' is the device's own), not torch or its installation.",
               look_at="Check the destination: free space and quota (`df -h <folder>`, `quota -s`), whether it is a "
                       "network mount that was lost, the kernel's log for disk errors (`dmesg`); save to local storage "
                       "with room for the checkpoint (its size is about the model's parameters and optimizer state), "
                       "and keep fewer checkpoints.",
               areas=("program",),
               sources=({"url": "https://docs.pytorch.org/docs/stable/generated/torch.save.html",
                         "what": "torch.save writes to a file-like object; its writes can fail with the OS's errors"},))
    return _match(sig, text, at, caps)


# a torch.Generator lives on one device and draws only there: torch's "Expected a 'cuda' device type for generator but
# found 'cpu'" and diffusers' randn_tensor ("Cannot generate a cpu tensor from a generator of type cuda")
_GENERATOR_DEVICE = re.compile(r"Cannot generate a (?P<want>\w{2,8}) tensor from a generator of type (?P<gen>\w{2,8})|"
                               r"Expected a '(?P<want2>\w{2,8})' device type for generator but found '(?P<gen2>\w{2,8})'")


def generator_device_mismatch(ent, text):
    m, at = last_in_tail(_GENERATOR_DEVICE, text, "generator")
    if m is None:
        return None
    sig = _sig("generator-device-mismatch", "not-environment",
               "a random generator on {gen} was asked for a tensor on {want}", 84,
               "A torch.Generator draws random numbers on the device it was created on; the program passed a "
               "generator made on {gen} to a call that creates its tensor on {want}. The installation is fine.",
               look_at="Create the generator on the device the tensor is made on: `torch.Generator(device=\"{want}\")"
                       ".manual_seed(seed)` (diffusers: the pipeline's device, or \"cpu\" for noise made on the CPU and "
                       "moved after), or pass none.",
               areas=("program",),
               sources=({"url": "https://docs.pytorch.org/docs/stable/generated/torch.Generator.html",
                         "what": "torch.Generator: a generator belongs to one device"},
                        {"url": "https://huggingface.co/docs/diffusers/using-diffusers/reusing_seeds",
                         "what": "diffusers: generators and devices for reproducible noise"}))
    return _match(sig, text, at, {"want": m.group("want") or m.group("want2"), "gen": m.group("gen") or m.group("gen2")})


# the reference BLAS's xerbla ("On entry to <routine> parameter number <n> had an illegal value"), which cuBLAS and
# the CPU BLAS libraries print for an argument out of range
_XERBLA = re.compile(r"On entry to\s{1,4}(?P<routine>[A-Za-z_][\w]{1,30})\s{1,4}parameter number\s{1,4}(?P<n>\d{1,2}) had an "
                     r"illegal value")
_XERBLA_SRC = {"url": "https://www.netlib.org/lapack/explore-html/d1/dc0/_b_l_a_s_2_s_r_c_2xerbla_8f_source.html",
               "what": "BLAS xerbla: 'On entry to <name> parameter number <n> had an illegal value'"}


def blas_argument_refused(ent, text):
    m, at = last_in_tail(_XERBLA, text, "had an illegal value")
    if m is None:
        return None
    xla = re.search(r"(?i)\bxla\b|\bjax\b|autotun", text[-CONTEXT_TAIL:]) is not None
    sig = _sig("blas-argument-refused", "not-environment", "the BLAS routine {routine} refused its argument {n}", 70,
               "BLAS libraries (cuBLAS, MKL, OpenBLAS) check each argument and print this when one is out of range (a "
               "size, a leading dimension, a type combination): the caller passed it, the installed libraries work." +
               (" XLA's GEMM autotuner tries cuBLAS algorithms and configurations that can be refused this way; it "
                "falls back to others, and the run's result is unaffected." if xla else ""),
               look_at=("Nothing to install. If the run goes on and its results are right, the lines are the "
                        "autotuner's; to silence them, report them to JAX/XLA with the versions (they come from its "
                        "GEMM autotuning)." if xla else
                        "Look at the call that reached {routine}: argument {n} (shapes, strides, leading dimensions, "
                        "dtypes of a matmul); a non-contiguous or empty tensor, or sizes past 2^31, are the usual causes."),
               sources=(_XERBLA_SRC,))
    return _match(sig, text, at, {"routine": m.group("routine"), "n": m.group("n")})


# compute-sanitizer's reports, each line prefixed by its "========= " marker (the Compute Sanitizer documentation's
# memcheck, racecheck and initcheck examples): a tool that found what a kernel did, not what is installed
_SANITIZER = re.compile(r"(?m)^={4,12}\s{1,8}(?P<kind>Invalid __(?:global|shared|local)__ (?:read|write|atomic)|"
                        r"Misaligned (?:Shared or Local )?[Aa]ddress|Uninitialized __global__ memory read|"
                        r"(?:Error|Warning): (?:Race|Potential \w{1,20} hazard)[^\n]{0,40}|Malloc/Free error|"
                        r"Invalid __global__ memory access|Hardware Exception)")
_SANITIZER_KERNEL = re.compile(r"(?m)^={4,12}\s{1,12}at (?:0x[0-9a-f]{1,16} in )?(?P<kernel>[^\n]{1,200})")
_SANITIZER_SRC = {"url": "https://docs.nvidia.com/compute-sanitizer/ComputeSanitizer/index.html",
                  "what": "Compute Sanitizer: memcheck, racecheck and initcheck report formats"}


def sanitizer_report(ent, text):
    m, at = last_in_tail(_SANITIZER, text, "====")
    if m is None:
        return None
    k = _SANITIZER_KERNEL.search(text, m.end(), m.end() + 600)
    kernel = k.group("kernel").strip()[:120] if k else None
    torch_kernel = bool(kernel) and re.search(r"\bat::native\b|_ZN2at6native|\bc10::", kernel) is not None
    sig = _sig("sanitizer-report", "not-environment", "compute-sanitizer found a kernel's {kind}", 78,
               "compute-sanitizer watches each kernel's memory accesses (memcheck), shared-memory hazards (racecheck) "
               "and reads of uninitialized memory (initcheck) and reports what the kernel did" +
               (" in {kernel}" if kernel else "") + ": the kernel's code or the input it was given, not the "
               "installation." + (" The kernel is torch's own: an input torch does not validate (sizes, indices, "
               "lengths) reaches it, or a torch bug." if torch_kernel else ""),
               look_at=("Look at the kernel the report names and its launch: the index arithmetic and bounds for the "
                        "sizes it was given, or, for a library's kernel (torch's at::native ones), the arguments the "
                        "program passes (lengths, indices, targets in range). Nothing to install."),
               sources=(_SANITIZER_SRC,))
    return _match(sig, text, at, {"kind": m.group("kind").strip(), "kernel": kernel})


# torch's storage sharing between processes (torch/csrc/StorageSharing.cpp): CUDA IPC, which Windows does not support
# (CUDA's cudaIpc* calls return cudaErrorNotSupported, 801, there), and a non-CPU storage sent through a file
# descriptor or a shared-memory file, which only CPU storages have
_SHARING = re.compile(r"(?P<ipc>(?:Runtime Error|CUDA error|error)\s{0,2}\(?801\)?[^\n]{0,80}(?:operation not supported)?"
                      r"[^\n]{0,40}StorageSharing\.cpp|operation not supported at [^\n]{0,200}StorageSharing\.cpp)|"
                      r"(?P<fd>_share_(?:fd|filename)_: only available on CPU)")
_SHARING_SRC = {"url": "https://pytorch.org/docs/stable/notes/windows.html#cuda-ipc-operations",
                "what": "torch on Windows: CUDA IPC operations are not supported (share CPU tensors, or use one process)"}


def tensor_sharing_refused(ent, text):
    m, at = last_in_tail(_SHARING, text)
    if m is None:
        return None
    if m.group("ipc"):
        sig = _sig("cuda-tensor-sharing-on-windows", "not-environment",
                   "CUDA tensors cannot be shared between processes on Windows (CUDA IPC)", 84,
                   "torch shares a CUDA tensor with another process through CUDA IPC, which Windows does not support "
                   "(the driver answers 801, operation not supported): sending a CUDA tensor through a multiprocessing "
                   "queue, a DataLoader worker returning CUDA tensors, or a model on the GPU passed to a spawned process.",
                   look_at="Keep CUDA tensors in one process on Windows: move them to the CPU before sending (.cpu()), "
                           "create them on the GPU inside the process that uses them, or set the DataLoader's "
                           "num_workers=0 when its dataset returns CUDA tensors. Nothing to install.",
                   areas=("torch",), sources=(_SHARING_SRC,))
    else:
        sig = _sig("non-cpu-tensor-shared", "not-environment",
                   "a tensor on a non-CPU device was sent to another process through shared memory", 82,
                   "torch.multiprocessing shares CPU tensors through a file descriptor or a shared-memory file; a tensor "
                   "on another device (XPU, MPS) has no such storage, and only CUDA tensors have a device-to-device path "
                   "(CUDA IPC), so returning or queueing the tensor between processes fails.",
                   look_at="Move the tensor to the CPU before it leaves the process (`.cpu()` in the worker's result), "
                           "or keep the device work in one process. Nothing to install.",
                   areas=("torch",),
                   sources=({"url": "https://github.com/pytorch/pytorch/blob/main/torch/csrc/StorageSharing.cpp",
                             "what": "_share_fd_ and _share_filename_: only CPU storages"},))
    return _match(sig, text, at, {})


# the autograd profiler's own message (torch/autograd/profiler.py) when its CUDA mode meets a DataLoader's workers
_PROFILER_WORKERS = re.compile(r"This can occur if one runs the profiler in CUDA mode on code\s{0,4}that creates a "
                               r"DataLoader with num_workers > 0")


def profiler_with_workers(ent, text):
    m, at = last_in_tail(_PROFILER_WORKERS, text, "profiler in CUDA mode")
    if m is None:
        return None
    sig = _sig("profiler-cuda-with-workers", "not-environment",
               "the profiler's CUDA mode does not work with DataLoader worker processes", 85,
               "torch's autograd profiler (and torch.utils.bottleneck) in CUDA mode initialises CUDA in the main process; "
               "DataLoader workers forked from it cannot use CUDA, so profiling code whose DataLoader has "
               "num_workers > 0 fails with CUDA's initialization error. The installation is not at fault.",
               look_at="Profile with num_workers=0, or without the CUDA mode (use_cuda=False), or with torch.profiler and "
                       "the 'spawn' start method for the workers (multiprocessing_context='spawn').",
               areas=("torch",),
               sources=({"url": "https://github.com/pytorch/pytorch/issues/6313",
                         "what": "the profiler's CUDA mode and DataLoader workers"},))
    return _match(sig, text, at, {})


# torch's pinned-memory allocator lookup (aten/src/ATen/...: "Need to provide pin_memory allocator to use pin memory."):
# pinned host memory belongs to an accelerator's runtime; a torch with none (a CPU-only build) has no allocator for it
_PIN_NO_ALLOCATOR = re.compile(r"Need to provide pin_memory allocator to use pin memory")


def pin_memory_without_accelerator(ent, text):
    m, at = last_in_tail(_PIN_NO_ALLOCATOR, text, "pin_memory allocator")
    if m is None:
        return None
    sig = _sig("pin-memory-without-accelerator", "gpu-unused",
               "pinned memory was asked of a torch with no accelerator (a CPU-only build, or no GPU)", 82,
               "Pinned (page-locked) host memory comes from an accelerator's runtime (CUDA, XPU, MPS); torch finds no "
               "allocator for it when it has no accelerator: a CPU-only build, or a GPU build that sees no GPU. The "
               "program (a DataLoader with pin_memory=True, .pin_memory()) asks for it anyway.",
               fix="If a GPU was meant: install torch's CUDA build (`pip install torch --index-url "
                   "https://download.pytorch.org/whl/cu<XY>`) and check `torch.cuda.is_available()`; on a CPU-only machine "
                   "pass pin_memory=False (or pin_memory=torch.cuda.is_available()).",
               causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),), areas=("torch",),
               sources=({"url": "https://pytorch.org/docs/stable/data.html#memory-pinning",
                         "what": "DataLoader memory pinning: for transfers to CUDA devices"},))
    return _match(sig, text, at, {})


# NVRTC names a program compiled without a name "default_program" in its log: a kernel source made at run time (torch's
# JIT fusers, CuPy's RawKernel, a library's generated code)
_NVRTC_SOURCE = re.compile(r"default_program\((?P<line>\d{1,6})\): (?:catastrophic )?error: (?P<what>[^\n]{1,160})")


def nvrtc_source_error(ent, text):
    m, at = last_in_tail(_NVRTC_SOURCE, text, "default_program(")
    if m is None:
        return None
    if re.search(r"(?i)cannot open source file|could not open source file", text[-CONTEXT_TAIL:]):
        return None  # a header NVRTC cannot find: the installation's include path, another reading
    sig = _sig("nvrtc-source-error", "not-environment", "a kernel source compiled at run time does not compile: {what}", 76,
               "NVRTC (CUDA's run-time compiler) compiled a kernel source made while the program ran (torch's JIT "
               "fusers and TensorExpr, CuPy's RawKernel or ElementwiseKernel, a library's generated code) and the "
               "source itself has an error at line {line}: the generator or the program wrote code that does not "
               "compile, not a missing part of the installation.",
               look_at="Find who generated the source (the traceback's caller): for torch's JIT fusers disable the fuser "
                       "for that code (torch._C._jit_override_can_fuse_on_gpu(False), or torch.jit.enable_onednn_fusion "
                       "off) and report the case; for one's own kernel, fix the line NVRTC names.",
               sources=({"url": "https://docs.nvidia.com/cuda/nvrtc/index.html",
                         "what": "NVRTC: nvrtcGetProgramLog gives the compile log of a runtime-compiled source"},))
    return _match(sig, text, at, {"line": m.group("line"), "what": m.group("what").strip()[:100]})


# a program's own X.py importing X: Python puts the script's folder first on sys.path, so `import X` finds the file
# itself, which lacks what the real package has
_SELF_IMPORT = re.compile(r"File \"(?P<path>[^\"\n]{0,300}?)(?P<name>[A-Za-z_]\w{0,60})\.py\", line \d{1,7}[^\n]{0,120}\n"
                          r"\s{0,12}(?:import (?P=name)\b|from (?P=name)(?:\.\w{1,60}){0,4} import)")
_NAME_MISSING = re.compile(r"cannot import name|has no attribute|partially initialized module|No module named '\w{1,60}\.")


def own_file_shadows_package(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_SELF_IMPORT, tail) if ".py\"" in tail else None
    if m is None or re.search(r"[/\\](?:site|dist)-packages[/\\]|[/\\]lib[/\\]python\d", m.group("path")):
        return None
    if not _NAME_MISSING.search(tail, m.end()):
        return None
    name = m.group("name")
    sig = _sig("own-file-shadows-package", "not-environment",
               "the program's own {name}.py is imported in place of the package {name}", 84,
               "{path}{name}.py imports {name}: Python searches the script's own folder first, so the import finds "
               "this file (or its folder's {name}.py) instead of the installed package, and the names the package has "
               "are missing from it. The installation is not at fault.",
               look_at="Rename the file (and any other {name}.py or {name}/ folder beside the script) to a name no "
                       "package uses, delete the __pycache__ folder next to it, and run again.",
               sources=({"url": "https://docs.python.org/3/library/sys_path_init.html",
                         "what": "sys.path starts with the script's directory: a module there shadows an installed one"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"name": name, "path": m.group("path")})


# CPython's signal.signal() outside the main thread of the main interpreter (Modules/signalmodule.c)
_SIGNAL_THREAD = re.compile(r"ValueError: signal only works in main thread")


def signal_outside_main_thread(ent, text):
    m, at = last_in_tail(_SIGNAL_THREAD, text, "signal only works in main thread")
    if m is None:
        return None
    sig = _sig("signal-outside-main-thread", "not-environment",
               "a signal handler was installed outside the main thread", 80,
               "Python lets only the main thread install signal handlers; code that does so from a worker thread (a "
               "trainer's SLURM or preemption handling run inside a Ray or Dask worker, a timeout decorator, a web "
               "server's request thread) fails with this error. The installation is not at fault.",
               look_at="Run that code in the process's main thread, or turn its signal handling off where the framework "
                       "allows it (Lightning: a plugin/environment without SLURM auto-requeue, e.g. "
                       "plugins=[LightningEnvironment()] under Ray; a timeout without signals).",
               sources=({"url": "https://docs.python.org/3/library/signal.html#signals-and-threads",
                         "what": "Python: only the main thread may set a new signal handler"},))
    return _match(sig, text, at, {})


# XGBoost's warning (src/context.cc / predictor): the booster on the GPU, the data in host memory
_XGB_DATA_CPU = re.compile(r"XGBoost is running on: (?P<dev>cuda(?::\d{1,2})?), while the input data is on: cpu")


def xgboost_data_on_cpu(ent, text):
    m, at = last_in_tail(_XGB_DATA_CPU, text, "while the input data is on")
    if m is None:
        return None
    sig = _sig("xgboost-data-on-cpu", "not-environment", "XGBoost runs on {dev} and its input data is in host memory", 76,
               "XGBoost warns that the booster runs on the GPU while the data it is given (a NumPy array, a pandas frame) "
               "lives in host memory, so each call copies it to the GPU: slower, not an error, and not the installation.",
               look_at="Give XGBoost data already on the GPU (a CuPy array, a cuDF frame, a DMatrix/QuantileDMatrix made "
                       "from them), or set the booster's device to cpu for prediction on host data; the warning is "
                       "harmless otherwise.",
               sources=({"url": "https://xgboost.readthedocs.io/en/stable/gpu/index.html",
                         "what": "XGBoost on GPUs: device='cuda', and data on the device avoids copies"},))
    return _match(sig, text, at, {"dev": m.group("dev")})


# torch._inductor's cudagraph trees log why a compiled graph will not be captured ("skipping cudagraphs due to cpu
# device (arg7_1)", "... mutated inputs"); the graph then runs, compiled, without CUDA graphs
_CUDAGRAPHS_SKIP = re.compile(r"skipping cudagraphs due to (?P<why>[^\n.]{3,120})")
_CUDAGRAPH_UTILS = {"url": "https://github.com/pytorch/pytorch/blob/main/torch/_inductor/cudagraph_utils.py",
                    "what": "inductor's reasons for skipping CUDA graphs (CPU devices, mutated inputs, dynamic shapes)"}


def cudagraphs_skipped(ent, text):
    m, at = last_in_tail(_CUDAGRAPHS_SKIP, text, "skipping cudagraphs")
    if m is None or re.search(r"Traceback \(most recent call last\)|\b[A-Z]\w{2,40}Error: ", text[at:]):
        return None
    sig = _sig("cudagraphs-skipped", "not-environment", "torch.compile did not use CUDA graphs: {why}", 62,
               "torch.compile's inductor (mode=\"reduce-overhead\" / max-autotune, or a node that asks for CUDA graphs) "
               "captures a compiled graph as a CUDA graph only when every input is on the GPU and it mutates none of them; "
               "here it logged why it skipped that ({why}). The compiled graph still runs; nothing is broken.",
               look_at="If the speed matters, move the input it names onto the GPU before the compiled call (or keep that "
                       "tensor out of the compiled function); otherwise ignore the notice (TORCH_LOGS can quiet it).",
               sources=(_CUDAGRAPH_UTILS,))
    return _match(sig, text, at, {"why": m.group("why").strip()})


# a logged error that says of itself it is harmless ("This error log can be ignored.", torch_npu's allocator when it
# frees cached blocks and retries)
_IGNORABLE = re.compile(r"(?:This|The above)\s(?:error\s)?(?:log|message|error|warning)\s(?:can|may)\s(?:safely\s)?be\s(?:safely\s)?ignored")


def error_said_ignorable(ent, text):
    m, at = last_in_tail(_IGNORABLE, text, "ignored")
    if m is None or re.search(r"Traceback \(most recent call last\)|\b[A-Z]\w{2,40}Error: ", text[at:]):
        return None
    sig = _sig("error-said-ignorable", "not-environment", "a logged error that says it can be ignored", 66,
               "The line is the library's own log of a step it recovered from (a cache freed and the allocation retried, "
               "an optional probe that failed), and it says so itself; nothing failed after it.",
               look_at="Nothing to fix unless the program then stops; if it does, the error after this line is the one to "
                       "read.", sources=())
    return _match(sig, text, at, {})
