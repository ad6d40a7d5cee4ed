"""Layer rules for a program that says it runs on the CPU because it found no GPU: a library's own fallback warning
("No GPU being used", "CUDA not available, using CPU", "no GPU found, falling back to CPU").

    library_fell_back_to_cpu  a library's warning that it found no usable GPU and runs on the CPU -> gpu-unused: what
                     torch sees (torch.cuda.is_available()), most often a CPU-only torch in that environment; it
                     ranks below the catalogue's "no GPU found" sentence (cuda-is-available-false), which keeps the
                     texts it reads
    mixed_precision_needs_gpu  Accelerate's "fp16 mixed precision requires a GPU" (its Accelerator with CUDA unavailable
                     to torch) -> torch-build: the torch that runs sees no GPU, most often a CPU-only build
    library_built_without_gpu  a library's own "didn't compile with GPU, will force to use CPU" -> gpu-unused: that
                     library's GPU build (FastDeploy's fastdeploy-gpu-python), not torch's
    gpu_choice_not_offered  argparse's "invalid choice: 'cuda' (choose from ...)" (or clap's "invalid value ... [possible
                     values: ...]") for a device or provider option -> the
                     choices offer no GPU: gpu-unused (the program lists what its installed runtime has: a CPU build);
                     they offer a GPU under another name ('cuda-12.2'): not-environment, one of those
    onnxruntime_sessions_on_cpu  insightface's "Applied providers: ['CPUExecutionProvider']" for every model ->
                     gpu-unused: the sessions got only the CPU provider (the CPU onnxruntime, or CUDA's provider not
                     loadable)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import SOURCES, _match, _sig, last_in_tail

_ACT = r"(?:using|running on|runs? on|falling back to|fall(?:s|ing)? back to|defaulting to|switching to|will use)"
_FELL_BACK = re.compile(r"\bNo GPU being used\b|"
                        r"\b(?:CUDA|GPU|cuda|gpu)(?: device)?(?: is| was)? not (?:available|found|detected)[,;:.]?\s{0,3}"
                        r"(?:-\s{0,2})?" + _ACT + r" (?:the )?CPU\b|"
                        r"\bNo (?:CUDA |NVIDIA |CUDA-capable )?(?:GPUs?|devices?) (?:found|detected|available)[,;:.]?\s{0,3}"
                        r"(?:-\s{0,2})?" + _ACT + r" (?:the )?CPU\b|"
                        # GFPGAN's inference scripts (and their forks) when torch.cuda.is_available() is False
                        r"\bThe unoptimized RealESRGAN is slow on CPU\b", re.I)
_IS_AVAILABLE = {"url": "https://docs.pytorch.org/docs/stable/generated/torch.cuda.is_available.html",
                 "what": "torch.cuda.is_available(): False for a CPU-only build or when no GPU can be used"}


def library_fell_back_to_cpu(ent, text):
    m, at = last_in_tail(_FELL_BACK, text)
    if m is None:
        return None
    sig = _sig("library-fell-back-to-cpu", "gpu-unused", "the program found no usable GPU and runs on the CPU", 48,
               "Libraries built on torch pick the GPU when torch.cuda.is_available() is True and warn before falling "
               "back to the CPU. It is False when the torch of this environment is the CPU-only build (the most common "
               "case: a plain `pip install torch` on Windows, or a package that pulled it in), when its CUDA libraries "
               "could not load, or when the driver shows no GPU.",
               fix="Check in the environment that runs the program: `python -c \"import torch; print(torch.__version__, "
                   "torch.version.cuda, torch.cuda.is_available())\"`. A version ending in +cpu (torch.version.cuda "
                   "None) is the CPU-only build: install torch's CUDA build there, `pip install --force-reinstall torch "
                   "torchvision torchaudio --index-url https://download.pytorch.org/whl/cuXYZ` (the cuXYZ pytorch.org's "
                   "selector gives for your driver). A CUDA build that prints False: run "
                   "`nvidia-smi` (the driver must list the GPU) and check CUDA_VISIBLE_DEVICES.",
               causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),), areas=("torch",),
               sources=(_IS_AVAILABLE, SOURCES["torch_index"]))
    return _match(sig, text, at, {})


# Accelerate (src/accelerate/state.py): err.format(mode="fp16", requirement="a GPU") when fp16 is asked for and torch
# offers no CUDA (nor another accelerator)
_FP16_NEEDS_GPU = re.compile(r"fp16 mixed precision requires a GPU|mode=\"fp16\", requirement=\"a GPU\"")


def mixed_precision_needs_gpu(ent, text):
    m, at = last_in_tail(_FP16_NEEDS_GPU, text, "fp16")
    if m is None:
        return None
    sig = _sig("mixed-precision-needs-gpu", "torch-build",
               "Accelerate was asked for fp16 and the torch that runs sees no GPU", 82,
               "Accelerate (kohya_ss, diffusers' and transformers' training scripts) accepts mixed_precision='fp16' only "
               "when torch can use a GPU; torch.cuda.is_available() is False in this environment: most often torch is "
               "its CPU-only build (pip's default on Windows), or it cannot reach the GPU.",
               fix="Check in the environment the script runs (its venv): `python -c \"import torch; print(torch.__version__, "
                   "torch.cuda.is_available())\"`. A +cpu version: install torch's CUDA build there (`pip install "
                   "--force-reinstall torch torchvision --index-url https://download.pytorch.org/whl/cu<XY>`, the "
                   "versions the project pins); a CUDA build that says False: the driver (`nvidia-smi`). To train on "
                   "the CPU instead, set mixed_precision to \"no\" (accelerate config).",
               causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),), areas=("torch",),
               sources=(_IS_AVAILABLE,))
    return _match(sig, text, at, {})


# a library that says its own build has no GPU support and runs on the CPU (FastDeploy's RuntimeOption::UseGpu: "The
# FastDeploy didn't compile with GPU, will force to use CPU")
_LIB_NO_GPU_BUILD = re.compile(r"(?:The )?(?P<lib>[A-Z][\w.-]{1,40}) (?:didn't|did not|wasn't|was not) compiled? with "
                               r"(?:GPU|CUDA)(?: support)?,? (?:will )?(?:force to use|fall(?:ing)? back to|use|using) (?:the )?CPU")
_FASTDEPLOY = {"url": "https://github.com/PaddlePaddle/FastDeploy#installation",
               "what": "FastDeploy's Python packages: fastdeploy-python (CPU) and fastdeploy-gpu-python"}


def library_built_without_gpu(ent, text):
    m, at = last_in_tail(_LIB_NO_GPU_BUILD, text, "compile")
    if m is None:
        return None
    lib = m.group("lib")
    fd = lib.lower() == "fastdeploy"
    sig = _sig("library-built-without-gpu", "gpu-unused", "the installed {lib} is its CPU build", 80,
               "{lib} reports that the build installed has no GPU support, so everything it runs goes to the CPU; the "
               "GPU, the driver and torch are not the question.",
               fix=("Install FastDeploy's GPU package in place of the CPU one: `pip uninstall -y fastdeploy-python` then "
                    "`pip install fastdeploy-gpu-python -f https://www.paddlepaddle.org.cn/whl/fastdeploy.html` (with the "
                    "CUDA and cuDNN its release names)." if fd else
                    "Install {lib}'s GPU build (its CUDA package or wheel, for your CUDA) in place of the CPU one, or build "
                    "it from source with its GPU option on."),
               areas=("driver",), sources=(_FASTDEPLOY,) if fd else ())
    return _match(sig, text, at, {"lib": lib})


# argparse's message for a value outside an option's choices (Lib/argparse.py: "argument %s: invalid choice: %r
# (choose from %s)"); programs that build a device or provider option's choices from what the installed runtime
# offers (ONNX Runtime's get_available_providers, torch's backends) list only 'cpu' where that runtime has no GPU
_INVALID_CHOICE = re.compile(r"argument (?P<opt>-{1,2}[\w-]{1,40}(?:/-{1,2}[\w-]{1,40})?): invalid choice: "
                             r"['\"](?P<got>[^'\"\n]{1,40})['\"] \(choose from (?P<choices>[^)\n]{1,600})\)")
# clap's (Rust command lines): "error: invalid value 'cuda' for '--device <DEVICE>'" then "[possible values: cpu]"
_CLAP_INVALID = re.compile(r"invalid value '(?P<got>[^'\n]{1,40})' for '(?P<opt>-{1,2}[\w-]{1,40})(?: <[\w-]{1,40}>)?'"
                           r"\s{0,200}?\[possible values: (?P<choices>[^\]\n]{1,600})\]")
_GPU_WORD = re.compile(r"(?i)^(?:cuda|gpu|tensorrt|trt|rocm|hip|directml|dml|mps|xpu|coreml|openvino|vulkan|metal)"
                       r"(?:[\w.:-]{0,20})$")
_ARGPARSE = {"url": "https://docs.python.org/3/library/argparse.html#choices",
             "what": "argparse's choices: a value outside them is refused with the list of those allowed"}
# the step both ONNX Runtime readings give: the GPU package alone (the CPU one installs the same module)
_ORT_GPU_ONLY = ("keep only ONNX Runtime's GPU package: `pip uninstall -y onnxruntime onnxruntime-gpu` then `pip install "
                 "onnxruntime-gpu` (the release for your CUDA and cuDNN: ONNX Runtime's CUDA requirements table), and "
                 "check `python -c \"import onnxruntime; print(onnxruntime.get_available_providers())\"` lists "
                 "CUDAExecutionProvider")
_ORT_PROVIDERS = {"url": "https://onnxruntime.ai/docs/execution-providers/",
                  "what": "ONNX Runtime's execution providers: CUDA's is in the onnxruntime-gpu package"}


def _family(name: str) -> str:
    low = name.strip().lower()
    return "nvidia" if low.startswith(("cuda", "gpu", "nvidia", "tensorrt", "trt")) else low[:3]


def gpu_choice_not_offered(ent, text):
    m, at = last_in_tail(_INVALID_CHOICE, text, "invalid choice")
    clap = m is None
    if clap:
        m, at = last_in_tail(_CLAP_INVALID, text, "possible values")
    if m is None or not _GPU_WORD.match(m.group("got").strip()):
        return None
    choices = [c.strip(" '\"") for c in m.group("choices").split(",")]
    # the same GPU under another name ('cuda-12.2', 'cuda:0', 'gpu' for 'cuda'): another vendor's backend ('metal',
    # 'directml') does not serve the GPU asked for
    gpu_choices = [c for c in choices if c and _GPU_WORD.match(c) and _family(c) == _family(m.group("got"))]
    values = {"opt": m.group("opt"), "got": m.group("got"), "choices": ", ".join(c for c in choices if c)}
    if gpu_choices:
        values["pick"] = gpu_choices[0]
        sig = _sig("gpu-choice-under-another-name", "not-environment",
                   "{opt} takes the GPU under another name ({choices})", 70,
                   "The option's choices include a GPU backend, named otherwise than '{got}': the value given is not "
                   "one of them. The installation is not the question.",
                   look_at="Pass one of the listed values, e.g. `{opt} {pick}` (the one for your CUDA), as the "
                           "program's --help lists them.",
                   areas=("env",), sources=(_ARGPARSE,))
        return _match(sig, text, at, values)
    ort = bool(re.search(r"(?i)provider", m.group("opt")) or "onnxruntime" in text.lower())
    if clap and not ort:
        # a Rust program: its GPU support is a Cargo feature of its build, or its CUDA release
        sig = _sig("gpu-choice-not-offered", "gpu-unused",
                   "{opt} offers no GPU ({choices}): this build of the program has no GPU support", 78,
                   "The program's {opt} lists the devices its build supports, and this build (a CPU release, or built "
                   "without its GPU feature) has none, so '{got}' is refused before anything runs.",
                   fix="Install the program's CUDA build: its CUDA release binary or container image, or build it with "
                       "its GPU feature (Cargo: `cargo build --release --features cuda`, the feature its README names), "
                       "then run again with {opt} {got}.",
                   causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
                   sources=({"url": "https://doc.rust-lang.org/cargo/reference/features.html",
                             "what": "Cargo features: optional parts of a Rust build, such as a CUDA backend"},))
        return _match(sig, text, at, values)
    sig = _sig("gpu-choice-not-offered", "gpu-unused",
               "{opt} offers no GPU ({choices}): the runtime installed is its CPU build", 78,
               "The program lists for {opt} the backends its installed runtime reports, and that list has no GPU: the "
               "runtime in this environment is a CPU build (or its GPU part did not load), so '{got}' is refused "
               "before anything runs on the GPU.",
               fix=("The choices are ONNX Runtime's providers: " + _ORT_GPU_ONLY + ", then run again with {opt} {got}."
                    if ort else
                    "Install the GPU build of the runtime the program uses in this environment (for torch, the CUDA "
                    "wheel: `pip install torch --index-url https://download.pytorch.org/whl/cu126` or the cuXYZ your "
                    "driver allows; check `python -c \"import torch; print(torch.cuda.is_available())\"`), then run "
                    "again with {opt} {got}."),
               causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
               sources=(_ARGPARSE, _ORT_PROVIDERS) if ort else (_ARGPARSE, _IS_AVAILABLE))
    return _match(sig, text, at, values)


# insightface's model loader logs each ONNX session's providers ("Applied providers: %s, with options: %s",
# python-package/insightface/model_zoo/model_zoo.py in deepinsight/insightface)
_APPLIED = re.compile(r"Applied providers: \[(?P<list>[^\]\n]{1,300})\]")


def onnxruntime_sessions_on_cpu(ent, text):
    m, at = last_in_tail(_APPLIED, text, "Applied providers")
    if m is None:
        return None
    tail = text[at:]
    lists = [x.group("list") for x in _APPLIED.finditer(text[-65536:])]
    if any(x.strip().strip("'\"") != "CPUExecutionProvider" for x in lists):
        return None  # a session with another provider: the GPU is in use somewhere
    if re.search(r"Traceback \(most recent call last\)|\b\w*Error:", tail):
        return None  # a failure after the log is what to read
    sig = _sig("onnxruntime-sessions-on-cpu", "gpu-unused",
               "every ONNX Runtime session got only the CPU provider", 74,
               "insightface (and the face tools built on it) logs the providers each model's ONNX Runtime session "
               "got: here only CPUExecutionProvider, for every model, so nothing runs on the GPU. ONNX Runtime gives "
               "a session the CUDA provider only where the onnxruntime-gpu package is the one imported and its "
               "CUDA and cuDNN libraries load.",
               fix=_ORT_GPU_ONLY[0].upper() + _ORT_GPU_ONLY[1:] + "; if it does and the log still shows the CPU only, "
                   "the program asks for the CPU (insightface's FaceAnalysis(providers=[...]) and ctx_id / the tool's execution-provider "
                   "option) or CUDA's libraries do not load (ONNX Runtime's log at verbosity 0 names the one missing).",
               causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
               sources=(_ORT_PROVIDERS, {"url": "https://github.com/deepinsight/insightface/blob/master/python-package/"
                                                "insightface/model_zoo/model_zoo.py",
                                         "what": "insightface's model loader: the providers each session was given"}))
    return _match(sig, text, at, {})
