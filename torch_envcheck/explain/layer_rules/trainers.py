"""Layer rules for the training frameworks over torch (DeepSpeed, Accelerate, transformers' device_map), read from their
own messages, and for the run-time (JIT) builds of torch extensions that DeepSpeed's ops go through.

    extension_jit_build_failed  torch.utils.cpp_extension's JIT build failing ("Error building extension 'X'", ninja's
                         FAILED object or CalledProcessError under _run_ninja_build) -> toolchain: the compiler's first
                         error; a DeepSpeed op can be prebuilt instead (DS_BUILD_<OP>=1)
    deepspeed_op_unavailable  DeepSpeed's ops that did not build: DeepSpeedCPUAdam without ds_opt_adam, setup.py's "Unable
                         to pre-compile <op>" -> toolchain (the op's build, async_io's libaio); async_io's libaio warning
                         alone -> not-environment (only NVMe offload needs it)
    accelerate_launch_defaults  accelerate launch's "--mixed_precision was set to a value of 'no'" -> not-environment:
                         the launch arguments or `accelerate config`
    accelerate_bf16_unavailable  "bf16 mixed precision requires PyTorch >= 1.10 and a supported device" -> the GPU has no
                         bf16 (not-environment: fp16), or torch older than 1.10 where the text shows one (torch-build)
    device_map_refused   transformers/accelerate refusing a device_map (a device for every parameter, a string that
                         names no device or strategy, a device_map='auto' model in distributed training) -> not-environment
    lightning_gpus_requested  Lightning's "You requested GPUs: [..] But your machine only has: [..]" -> none at all:
                     gpu-unused (the torch that runs sees no GPU); some: not-environment (the index asked for)
    lightning_accelerator_unavailable  Lightning's "`CUDAAccelerator` can not run on your system since the accelerator
                     is not available" -> torch-build: the torch that runs sees no GPU
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail
from torch_envcheck.explain.match import last_match

_CPP_EXTENSION = {"url": "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py",
                  "what": "load()/_jit_compile: 'Building extension module X...', _run_ninja_build raising "
                          "'Error building extension X' after ninja's failed step"}
_DS_INSTALL = {"url": "https://www.deepspeed.ai/tutorials/advanced-install/",
               "what": "DeepSpeed: ops JIT-compiled at run time, or prebuilt with DS_BUILD_OPS=1 / DS_BUILD_<OP>=1; "
                       "async_io needs libaio-dev; ds_report lists each op's compatibility"}

# DeepSpeed's op names (op_builder) -> the DS_BUILD_ variable that prebuilds it
_DS_OPS = {"fused_adam": "FUSED_ADAM", "cpu_adam": "CPU_ADAM", "cpu_adagrad": "CPU_ADAGRAD", "cpu_lion": "CPU_LION",
           "fused_lamb": "FUSED_LAMB", "fused_lion": "FUSED_LION", "transformer": "TRANSFORMER",
           "stochastic_transformer": "STOCHASTIC_TRANSFORMER", "transformer_inference": "TRANSFORMER_INFERENCE",
           "utils": "UTILS", "async_io": "AIO", "quantizer": "QUANTIZER", "random_ltd": "RANDOM_LTD",
           "sparse_attn": "SPARSE_ATTN", "evoformer_attn": "EVOFORMER_ATTN", "inference_core_ops": "INFERENCE_CORE_OPS",
           "ragged_device_ops": "RAGGED_DEVICE_OPS", "fp_quantizer": "FP_QUANTIZER", "gds": "GDS"}

_JIT_FAILED = re.compile(r"Error building extension '(?P<name>[\w.-]{1,80})'"
                         r"|Building extension module (?P<name2>\w{1,80})\.\.\.[\s\S]{0,1200}?(?:CalledProcessError|"
                         r"_run_ninja_build)"
                         r"|(?<![A-Za-z])FAILED: (?P<obj>[\w./+-]{1,200}?\.(?:cuda\.)?o)\b")
_JIT_CONTEXT = re.compile(r"(?i)torch_extensions|cpp_extension|deepspeed|build\.ninja|Building extension module")
_OP_IN_OBJ = re.compile(r"(?:^|/)(?P<op>[a-z_]{2,40})/build\.ninja|torch_extensions/(?:[\w.-]{1,40}/)?(?P<op2>[a-z_]{2,40})/")


def _ds_hint(op: str | None) -> str:
    var = _DS_OPS.get(op or "")
    return (f" For DeepSpeed's {op} op, it can instead be prebuilt when installing: `DS_BUILD_{var}=1 pip install "
            "deepspeed --no-build-isolation` (ds_report lists which ops this machine can build)." if var else
            " DeepSpeed's ops can instead be prebuilt when installing (DS_BUILD_OPS=1, or DS_BUILD_<OP>=1 for one op; "
            "ds_report lists which ops this machine can build).")


def extension_jit_build_failed(ent, text):
    m, at = last_in_tail(_JIT_FAILED, text)
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    name = m.group("name") or m.group("name2")
    if m.group("obj"):
        if not _JIT_CONTEXT.search(tail):
            return None
        o = last_match(_OP_IN_OBJ, tail)
        name = (o.group("op") or o.group("op2")) if o else None
    op = name if name in _DS_OPS else None
    sig = _sig("extension-jit-build-failed", "toolchain",
               "the run-time build of the torch extension {name|an extension} failed", 66,
               "The extension is compiled on this machine the first time it is used (torch.utils.cpp_extension, which "
               "DeepSpeed's ops use), with nvcc for its CUDA sources and the host C++ compiler; one of the compiler "
               "steps failed, and its own error, printed above this line in the full log, names the cause.",
               fix="Find the compiler's first error above (`error:` or `nvcc fatal`). The usual causes: no nvcc, or an "
                   "nvcc of another CUDA than torch's (compare `nvcc --version` with `python -c \"import torch; "
                   "print(torch.version.cuda)\"` and point CUDA_HOME at the matching toolkit), a host compiler newer "
                   "than that nvcc accepts, or Python's development headers missing (python3-dev). Delete the "
                   "extension's folder under ~/.cache/torch_extensions before trying again." + _ds_hint(op),
               areas=("toolchain",), sources=(_CPP_EXTENSION, _DS_INSTALL))
    return _match(sig, text, at, {"name": name})


_CPU_OPTIMIZER = re.compile(r"'(?P<cls>DeepSpeedCPU(?:Adam|Adagrad|Lion))' object has no attribute 'ds_opt_\w{2,12}'")
_PRECOMPILE = re.compile(r"Unable to pre-compile (?P<op>\w{1,40}|\{op_name\})")
_AIO_WARNING = re.compile(r"async_io requires the (?:dev libaio \.so object and headers|libraries: \['libaio-dev'\])")


def deepspeed_op_unavailable(ent, text):
    m, at = last_in_tail(_CPU_OPTIMIZER, text, "object has no attribute 'ds_opt_")
    if m is not None:
        op = {"DeepSpeedCPUAdam": "cpu_adam", "DeepSpeedCPUAdagrad": "cpu_adagrad",
              "DeepSpeedCPULion": "cpu_lion"}[m.group("cls")]
        sig = _sig("deepspeed-cpu-optimizer-not-built", "toolchain",
                   "DeepSpeed's {op} op did not build, so {cls} has no optimizer", 84,
                   "{cls} (ZeRO's CPU offload of the optimizer) sets ds_opt_* only after its C++ op, {op}, has been "
                   "built and loaded; the build or load failed first (its error is printed above, on the first run), "
                   "and the object's destructor then trips on the missing attribute.",
                   fix="Run once more and read the first error above this one (or run ds_report): the op is compiled "
                       "with nvcc and the host compiler, so nvcc must match torch's CUDA (`nvcc --version` against "
                       "`python -c \"import torch; print(torch.version.cuda)\"`, CUDA_HOME at that toolkit) and "
                       "Python's headers must be installed (python3-dev). Or prebuild it: `DS_BUILD_{var}=1 pip install "
                       "deepspeed --no-build-isolation`; or turn the optimizer's CPU offload off in the DeepSpeed "
                       "config.",
                   areas=("toolchain",), sources=(_DS_INSTALL,))
        return _match(sig, text, at, {"op": op, "cls": m.group("cls"), "var": _DS_OPS[op]})
    m, at = last_in_tail(_PRECOMPILE, text, "Unable to pre-compile")
    if m is not None:
        op = m.group("op") if m.group("op") in _DS_OPS else None
        aio = op == "async_io" or (op is None and "async_io" in text[-CONTEXT_TAIL:])
        sig = _sig("deepspeed-op-precompile-failed", "toolchain",
                   "DeepSpeed's install could not prebuild the {op|requested} op", 84,
                   "With DS_BUILD_OPS=1 (or DS_BUILD_<OP>=1) DeepSpeed's setup.py builds its C++/CUDA ops during the "
                   "install and stops when an op's requirements are not met on this machine.",
                   fix=("The async_io op needs libaio's development files: `apt install libaio-dev` (Debian/Ubuntu), "
                        "`dnf install libaio-devel` (Fedora/RHEL); or leave it out with DS_BUILD_AIO=0 (only NVMe "
                        "offload uses it)." if aio else
                        "Run ds_report to see which requirement that op lacks; leave the op out with DS_BUILD_{var|<OP>}=0 "
                        "(it is then JIT-built when first used), or DS_BUILD_OPS=0 to prebuild none. async_io, the op "
                        "that most often fails, needs libaio-dev (DS_BUILD_AIO=0 skips it)."),
                   areas=("toolchain",), sources=(_DS_INSTALL,))
        return _match(sig, text, at, {"op": op, "var": _DS_OPS.get(op or "")})
    m, at = last_in_tail(_AIO_WARNING, text, "async_io requires the")
    if m is None:
        return None
    sig = _sig("deepspeed-async-io-notice", "not-environment",
               "ds_report's notice that the async_io op cannot be built (libaio missing)", 70,
               "DeepSpeed lists every op it could build; async_io (ZeRO-Infinity's NVMe offload) needs libaio's "
               "development files. The other ops and training without NVMe offload are unaffected.",
               look_at="Nothing to do unless you offload to NVMe; then install libaio-dev (Debian/Ubuntu) or "
                       "libaio-devel (Fedora/RHEL), and set CFLAGS/LDFLAGS to a libaio built from source.",
               areas=("toolchain",), sources=(_DS_INSTALL,))
    return _match(sig, text, at, {})


_LAUNCH_DEFAULTS = re.compile(r"--(?P<opt>[a-z][a-z_]{2,40}) was set to a value of [`']?(?P<val>[\w.-]{1,40})"
                              r"|The following values were not passed to `accelerate launch` and had defaults used instead")


def accelerate_launch_defaults(ent, text):
    m, at = last_in_tail(_LAUNCH_DEFAULTS, text)
    if m is None:
        return None
    sig = _sig("accelerate-launch-defaults", "not-environment",
               "accelerate launch used its defaults" + (" (--{opt}: {val})" if m.group("opt") else ""), 78,
               "`accelerate launch` reports the options it got neither from the command line nor from a config "
               "file (accelerate config's default_config.yaml) and the defaults it used instead. A notice about the "
               "launch, not an error of the installation; a training script may still read its own precision setting.",
               look_at="Pass the option to accelerate launch itself (e.g. `accelerate launch --mixed_precision bf16 "
                       "--num_processes 2 train.py`, before the script's name) or run `accelerate config` once to "
                       "write the defaults you want.",
               areas=("program",),
               sources=({"url": "https://huggingface.co/docs/accelerate/package_reference/cli#accelerate-launch",
                         "what": "accelerate launch's options and the config file it reads"},))
    return _match(sig, text, at, {"opt": m.group("opt"), "val": m.group("val")})


_BF16_ACCEL = re.compile(r"bf16 mixed precision requires PyTorch >= ?1\.10 and a supported device")


def accelerate_bf16_unavailable(ent, text):
    m, at = last_in_tail(_BF16_ACCEL, text, "bf16 mixed precision requires")
    if m is None:
        return None
    torch_v = ent.versions.get("torch") or ent.packages.get("torch")
    old = bool(torch_v) and re.match(r"1\.[0-9](?:\.|$|\+)", torch_v) is not None
    if old:
        sig = _sig("accelerate-bf16-needs-torch-1-10", "torch-build",
                   "bf16 mixed precision needs torch 1.10 or newer (installed: {torch})", 84,
                   "accelerate runs bf16 autocast only with torch 1.10 or newer, and this torch is older.",
                   fix="Upgrade torch within its CUDA build (the install command for your CUDA at "
                       "https://pytorch.org/get-started/locally/), or use --mixed_precision fp16.",
                   areas=("torch",), sources=({"url": "https://github.com/huggingface/accelerate/blob/main/src/"
                                                      "accelerate/accelerator.py",
                                               "what": "Accelerator: bf16 needs torch >= 1.10 and a device with bf16"},))
        return _match(sig, text, at, {"torch": torch_v})
    sig = _sig("accelerate-bf16-unsupported-device", "not-environment",
               "bf16 mixed precision asked for on a device without bfloat16", 84,
               "accelerate checks torch's version and the device: NVIDIA GPUs before Ampere (compute capability 8.0: "
               "V100, T4, the GTX/RTX 20 series and older) have no bfloat16, and the CPU path needs support too. "
               "The program's precision setting chose it.",
               look_at="Use fp16 on this GPU (`--mixed_precision fp16`, Accelerator(mixed_precision='fp16'), fp16=True in "
                       "a Trainer), or no mixed precision; bf16 needs an Ampere or newer GPU.",
               areas=("program",), sources=({"url": "https://github.com/huggingface/accelerate/blob/main/src/"
                                                    "accelerate/accelerator.py",
                                             "what": "Accelerator: bf16 needs torch >= 1.10 and a device with bf16"},))
    return _match(sig, text, at, {})


_DEVICE_MAP = re.compile(r"The device_map provided does not give any device for the following parameters"
                         r"|When passing device_map as a string, the value needs to be a device name"
                         r"|You can't train a model that has been loaded with `device_map='auto'` in any distributed mode")


def device_map_refused(ent, text):
    m, at = last_in_tail(_DEVICE_MAP, text, "device_map")
    if m is None:
        return None
    what = m.group(0)
    distributed = what.startswith("You can't train")
    sig = _sig("device-map-refused", "not-environment",
               "the model's device_map was refused" + (": device_map='auto' cannot be trained in distributed mode"
                                                       if distributed else ""), 82,
               ("A model loaded with device_map='auto' is split over the GPUs of one process; DDP, FSDP and DeepSpeed "
                "each want the whole model in every process." if distributed else
                "transformers' from_pretrained (through accelerate) places each parameter where device_map says: every "
                "parameter must get a device, and a string must be a device ('cpu', 'cuda:0') or a strategy ('auto', "
                "'balanced', 'balanced_low_0', 'sequential').") + " The program's argument, not the installation.",
               look_at=("Load the model without device_map (or device_map={'': local_rank}) when training with several "
                        "processes, or run a single process (--num_processes=1) to keep device_map='auto'."
                        if distributed else
                        "Pass device_map='auto' (or a device such as 'cuda:0'), or a dict that covers every module of the "
                        "model (the names in model.named_parameters()); an empty value from a script's argument is the "
                        "usual cause."),
               areas=("program",),
               sources=({"url": "https://huggingface.co/docs/accelerate/concept_guides/big_model_inference",
                         "what": "device_map: 'auto', 'balanced', 'balanced_low_0', 'sequential', or a dict"},))
    return _match(sig, text, at, {})


# Lightning's device check (lightning/pytorch/utilities/device_parser.py): the GPU indices asked for against those torch
# reports
_LIGHTNING_GPUS = re.compile(r"You requested GPUs?:\s{0,3}\[(?P<want>[\d, ]{0,40})\]\s{0,8}But your machine only has:\s{0,3}"
                             r"\[(?P<have>[\d, ]{0,40})\]")


def lightning_gpus_requested(ent, text):
    m, at = last_in_tail(_LIGHTNING_GPUS, text, "You requested GPU")
    if m is None:
        return None
    want, have = m.group("want").strip(), m.group("have").strip()
    if not have:
        sig = _sig("lightning-no-gpu-seen", "gpu-unused", "Lightning was asked for GPU {want} and torch sees none", 83,
                   "Lightning checks the GPU indices the Trainer asks for against the GPUs torch reports; torch reports "
                   "none: a CPU-only torch in this environment, a driver torch cannot use, or CUDA_VISIBLE_DEVICES set "
                   "to nothing.",
                   fix="Check in the environment that runs the training: `python -c \"import torch; "
                       "print(torch.__version__, torch.cuda.is_available())\"`. A +cpu version: install torch's CUDA "
                       "build (`pip install torch --index-url https://download.pytorch.org/whl/cu<XY>`); False with a "
                       "CUDA build: the driver (`nvidia-smi`) or CUDA_VISIBLE_DEVICES. To train on the CPU, "
                       "accelerator=\"cpu\".",
                   causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),), areas=("torch",),
                   sources=(_LIGHTNING_DEVICES,))
    else:
        sig = _sig("lightning-gpu-index-absent", "not-environment",
                   "Lightning was asked for GPU {want}; the machine's GPUs are {have}", 83,
                   "The Trainer's devices / gpus names GPU indices ({want}) that are not among those torch reports "
                   "({have}): a list of indices where a count was meant (gpus=[1] is the GPU with index 1, gpus=1 is one "
                   "GPU), or a configuration written for a machine with more GPUs.",
                   look_at="Ask for the GPUs this machine has: devices=1 (a count) or devices=[0] (its index); "
                           "CUDA_VISIBLE_DEVICES renumbers the GPUs the process sees from 0.",
                   areas=("torch",), sources=(_LIGHTNING_DEVICES,))
    return _match(sig, text, at, {"want": want, "have": have})


_LIGHTNING_DEVICES = {"url": "https://lightning.ai/docs/pytorch/stable/accelerators/gpu_basic.html",
                      "what": "Lightning: devices as a count or a list of GPU indices"}
# Lightning's accelerator check (lightning/pytorch/trainer/connectors/accelerator_connector.py)
_ACCEL_UNAVAILABLE = re.compile(r"`(?P<acc>CUDAAccelerator|MPSAccelerator|XLAAccelerator)` can not run on your system since "
                                r"the accelerator is not available")


def lightning_accelerator_unavailable(ent, text):
    m, at = last_in_tail(_ACCEL_UNAVAILABLE, text, "can not run on your system")
    if m is None:
        return None
    acc = m.group("acc")
    sig = _sig("lightning-accelerator-unavailable", "torch-build",
               "Lightning's {acc} cannot run: the torch that runs sees no such device", 82,
               "The Trainer asks for {acc}, and Lightning finds the accelerator unavailable in this torch "
               "(torch.cuda.is_available() False for CUDA): a torch build without it (the CPU-only wheel), a driver "
               "torch cannot use, or a torch release whose device count is broken on this system.",
               fix="Check in the environment that runs the training: `python -c \"import torch; print(torch.__version__, "
                   "torch.cuda.is_available(), torch.cuda.device_count())\"`. A +cpu version: install torch's CUDA build "
                   "(`pip install torch --index-url https://download.pytorch.org/whl/cu<XY>`); a CUDA build that says "
                   "False: the driver (`nvidia-smi`), or another torch release; accelerator=\"cpu\" to run without it.",
               causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),), areas=("torch",),
               sources=(_LIGHTNING_DEVICES,))
    return _match(sig, text, at, {"acc": acc})
