"""Layer rules for notebooks (Jupyter, VS Code, Colab, Kaggle), read from the front ends' own messages.

    notebook_restart_after_install  Colab's "You must restart the runtime in order to use newly installed versions",
                         IPython's "you may need to restart the kernel to use updated packages" -> env: restart the
                         kernel (and leave the kernel's own packages alone)
    vscode_kernel_needs_ipykernel  VS Code's "Running cells with 'X' requires the ipykernel package" -> env: ipykernel
                         in that interpreter, or another kernel    colab_gpu_check_failed  "SystemError: GPU device not found", the check of Colab's TensorFlow-with-GPU notebook ->
                         gpu-unused: the runtime has no GPU (its type, or none assigned)
    zerogpu_cuda_outside_task  Hugging Face's `spaces` package on ZeroGPU: CUDA touched in the main process, or before
                         `spaces` was imported -> env: CUDA only inside @spaces.GPU functions; a Space not scheduled for
                         lack of hardware -> container: retry or other hardware
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_COLAB_RESTART = re.compile(r"You must restart the runtime in order to use newly installed versions|"
                            r"you may need to restart the kernel to use updated packages")
# Colab's own warning before it: upgrading the packages the kernel itself runs on
_KERNEL_PACKAGES = re.compile(r"Upgrading ipython, ipykernel, tornado, prompt-toolkit(?:, pyzmq)?")
_PREVIOUSLY_IMPORTED = re.compile(r"previously imported in this runtime:\s{0,8}\[(?P<pkgs>[^\]\n]{1,200})\]")


def notebook_restart_after_install(ent, text):
    m, at = last_in_tail(_COLAB_RESTART, text, "restart the")
    if m is None:
        return None
    pkgs = _PREVIOUSLY_IMPORTED.search(text)
    names = pkgs.group("pkgs").strip() if pkgs else None
    kernel_own = _KERNEL_PACKAGES.search(text) is not None
    sig = _sig("notebook-restart-after-install", "env",
               "the running kernel still holds the versions it imported before the install{names_note|}", 78,
               "pip installed new versions of packages this kernel had already imported{names_note|}; a running "
               "Python keeps the modules it loaded, so the notebook goes on with the old code (or with old and new "
               "files mixed) until the kernel restarts." +
               (" Among them are packages the kernel itself runs on (ipython, ipykernel, tornado, pyzmq): upgrading "
                "those can make the runtime crash or hang." if kernel_own else ""),
               fix="Restart the kernel after the install cell (Colab: Runtime > Restart session; Jupyter and VS Code: "
                   "Restart Kernel), then run the notebook from the top; put all installs in the first cell, before "
                   "any import, so that one restart is enough." +
                   (" Leave the kernel's own packages (ipython, ipykernel, tornado, prompt-toolkit, pyzmq) at the "
                    "runtime's versions: drop them from the install cell, or pin what needs them to versions that "
                    "accept the runtime's." if kernel_own else ""),
               areas=("python",),
               sources=({"url": "https://ipython.readthedocs.io/en/stable/interactive/magics.html#magic-pip",
                         "what": "%pip installs into the kernel's environment; a restart loads what it installed"},
                        {"url": "https://github.com/googlecolab/colabtools",
                         "what": "Colab's runtime, which prints the restart warning after pip replaces imported modules"}))
    return _match(sig, text, at, {"names_note": f" ({names})" if names else None})


_VSCODE_IPYKERNEL = re.compile(r"Running cells with '(?P<env>[^'\n]{1,120})' requires the ipykernel package|"
                               r"requires the ipykernel package to be installed")


def vscode_kernel_needs_ipykernel(ent, text):
    m, at = last_in_tail(_VSCODE_IPYKERNEL, text, "ipykernel package")
    if m is None:
        return None
    sig = _sig("notebook-kernel-without-ipykernel", "env",
               "the interpreter chosen as the notebook's kernel has no (working) ipykernel{env_note|}", 84,
               "A notebook cell runs in a kernel started from the interpreter the notebook selects{env_note|}; VS Code "
               "starts it through that interpreter's ipykernel package, which is not installed there (or is broken). "
               "The packages the notebook imports must be in that same environment.",
               fix="Install ipykernel with that interpreter's own pip: `<path to that python> -m pip install -U "
                   "ipykernel` (the interpreter itself, not the activate script; in a conda environment `conda install "
                   "-n <env> ipykernel`), or select a kernel (top right of the notebook) whose environment has ipykernel "
                   "and your packages; `import sys; print(sys.executable)` in a cell shows which one runs.",
               areas=("python",),
               sources=({"url": "https://github.com/microsoft/vscode-jupyter/wiki/IPyKernel-and-other-dependencies-are-"
                                "not-installed",
                         "what": "VS Code Jupyter: the selected interpreter needs ipykernel to run cells"},))
    return _match(sig, text, at, {"env_note": f" ('{m.group('env')}')" if m.group("env") else None})


# Colab's "TensorFlow with GPU" notebook checks `tf.test.gpu_device_name()` and raises SystemError('GPU device not
# found') when it is not /device:GPU:0: the runtime the notebook is connected to has no GPU TensorFlow can use
_COLAB_GPU_CHECK = re.compile(r"SystemError[:(]\s{0,2}'?\"?GPU device not found|raise SystemError\('GPU device not found'")
_COLAB_GPU_NB = {"url": "https://colab.research.google.com/notebooks/gpu.ipynb",
                 "what": "Colab's TensorFlow with GPU notebook: Runtime > Change runtime type > Hardware accelerator, "
                         "and the gpu_device_name() check"}


def colab_gpu_check_failed(ent, text):
    m, at = last_in_tail(_COLAB_GPU_CHECK, text, "GPU device not found")
    if m is None:
        return None
    sig = _sig("colab-gpu-check-failed", "gpu-unused", "the notebook's runtime has no GPU for TensorFlow", 84,
               "The check from Colab's TensorFlow-with-GPU notebook found no GPU: tf.test.gpu_device_name() is not "
               "/device:GPU:0, so TensorFlow runs on the CPU. On Colab the runtime's type is not GPU, or none was "
               "assigned to this session (Colab gives GPUs subject to availability and usage limits); elsewhere the "
               "TensorFlow installed is not a GPU build for this machine.",
               fix="On Colab: Runtime > Change runtime type > Hardware accelerator: a GPU, save, and run again; if it is "
                   "already a GPU runtime, Runtime > Disconnect and delete runtime (older menus: Factory reset runtime) "
                   "and connect again to get a fresh VM (`!nvidia-smi` shows whether it has a GPU). On your own machine "
                   "install TensorFlow's GPU build for it (Linux/WSL 2: `pip install tensorflow[and-cuda]`).",
               areas=("tensorflow",), sources=(_COLAB_GPU_NB,))
    return _match(sig, text, at, {})


# Hugging Face's `spaces` package on ZeroGPU Spaces, where a GPU is attached only while a function decorated with
# @spaces.GPU runs; and the Hub's scheduler when no machine of the Space's hardware is free
_ZEROGPU = re.compile(r"CUDA must not be initialized in the main process|CUDA has been initialized before importing the "
                      r"`?spaces`? package|(?P<sched>Scheduling failure: not enough hardware capacity)")
_ZEROGPU_DOC = {"url": "https://huggingface.co/docs/hub/spaces-zerogpu",
                "what": "Spaces ZeroGPU: @spaces.GPU, import spaces before torch, CUDA only inside the decorated functions"}


def zerogpu_cuda_outside_task(ent, text):
    m, at = last_in_tail(_ZEROGPU, text)
    if m is None:
        return None
    if m.group("sched"):
        sig = _sig("space-hardware-unavailable", "container", "the Space's GPU hardware is not available now", 80,
                   "The Hub could not start the Space: no machine of the hardware it asks for was free. Nothing in the "
                   "code or the installation is wrong.",
                   fix="Restart the Space later (Settings > Factory rebuild / Restart), or choose other hardware for it, "
                       "or run the app locally or in a duplicate Space on another GPU.",
                   areas=("driver",), sources=(_ZEROGPU_DOC,))
        return _match(sig, text, at, {})
    sig = _sig("zerogpu-cuda-outside-task", "env", "CUDA was touched outside a ZeroGPU task", 84,
               "On ZeroGPU Spaces the main process has no GPU: one is attached only while a function decorated with "
               "@spaces.GPU runs, and the `spaces` package must be imported before anything initialises CUDA. The app "
               "touched CUDA at import or start-up (model.to('cuda'), torch.cuda.is_available() or a library that "
               "probes it).",
               fix="`import spaces` first (before torch and the libraries that load it), keep the model on the CPU (or "
                   "'cuda' in code that only runs inside the decorated function) at start-up, and do all GPU work "
                   "inside functions decorated with @spaces.GPU; the stack trace shows which line initialised CUDA.",
               areas=("driver",), sources=(_ZEROGPU_DOC,))
    return _match(sig, text, at, {})
