"""Layer rules for what the launchers and web UIs users start their models with print (AUTOMATIC1111's and Forge's
launch.py, ComfyUI): a venv without pip, an import halted on purpose, the UNet's NaN check.

    venv_without_pip  "<venv>/python: No module named pip"        -> env: the venv was created without pip
    import_halted     "import of X halted; None in sys.modules"   -> env: the program blocked X on purpose
    nan_check_refused  the web UI's NansException ("A tensor with all NaNs was produced in Unet/VAE") -> not-environment:
                     half precision for this model or GPU
    webui_torch_gpu_check  the web UI's start-up check of its venv's torch ("Torch is not able to use GPU", or the
                     check's command failing) -> torch-build: the venv's torch is not a build for this GPU
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail

_NO_PIP = re.compile(r"(?P<py>[^\s'\"]{0,200}python[\d.]{0,5}(?:\.exe)?)?:? No module named '?pip'?(?![\w.])")


def venv_without_pip(ent, text):
    m, at = last_in_tail(_NO_PIP, text, "No module named")
    if m is None:
        return None
    py = m.group("py")
    sig = _sig("python-without-pip", "env", "the Python that installs has no pip{py_note|}", 80,
               "`python -m pip` needs pip inside that interpreter; this one{py_note|} has none: a venv created by a "
               "Python without ensurepip (Debian and Ubuntu split it into the python3-venv package), or an embedded "
               "or system Python without pip.",
               fix="Give that Python pip: `python -m ensurepip --upgrade` with that interpreter; on Debian/Ubuntu "
                   "install `python3-venv` (or `python3.X-venv` for the Python in use) and create the venv again "
                   "(delete the folder, then the launcher recreates it), or `curl -sS https://bootstrap.pypa.io/"
                   "get-pip.py | <that python>`.",
               areas=("python",),
               sources=({"url": "https://docs.python.org/3/library/ensurepip.html",
                         "what": "ensurepip: bootstrapping pip into an installation or venv"},))
    return _match(sig, text, at, {"py_note": f" ({py})" if py else None})


_HALTED = re.compile(r"import of (?P<mod>[\w.]{1,80}) halted; None in sys\.modules")


def import_halted(ent, text):
    m, at = last_in_tail(_HALTED, text, "halted; None in sys.modules")
    if m is None:
        return None
    mod = m.group("mod")
    webui = mod == "xformers"
    sig = _sig("import-halted-on-purpose", "env", "the program disabled {mod} on purpose (None in sys.modules)", 80,
               "Python raises this when sys.modules['{mod}'] is None: something in the process set it so that {mod} "
               "cannot be imported, on purpose." + (" AUTOMATIC1111's web UI and Forge do this for xformers unless "
                                                    "the launch options ask for it." if webui else ""),
               fix=("Launch with --xformers in COMMANDLINE_ARGS (webui-user.bat / webui-user.sh) to use xformers, or "
                    "uninstall xformers and remove the code that imports it; nothing is broken in the install."
                    if webui else
                    "Find where the program sets sys.modules['{mod}'] = None (a launcher option, a compatibility shim) "
                    "and enable {mod} the program's own way; the install needs no change."),
               areas=("python",),
               sources=({"url": "https://docs.python.org/3/reference/import.html#the-module-cache",
                         "what": "a None in sys.modules makes the import raise ModuleNotFoundError"},))
    return _match(sig, text, at, {"mod": mod})


_NANS = re.compile(r"A tensor with all NaNs was produced in (?P<part>Unet|VAE|\w{2,20})|"
                   r"A tensor with all NaN's was produced in (?P<part2>Unet|VAE|\w{2,20})")


def nan_check_refused(ent, text):
    m, at = last_in_tail(_NANS, text, "was produced in")
    if m is None:
        return None
    part = m.group("part") or m.group("part2")
    sig = _sig("webui-nan-check", "not-environment", "the model produced NaNs in the {part} (half precision)", 80,
               "The web UI checks the {part}'s output and stops when it is all NaN: half precision (fp16) overflowed "
               "for this model, or the GPU does not compute half precision well. The install is not the cause.",
               look_at="Use the settings the message names: 'Upcast cross attention layer to float32' (Settings > "
                       "Stable Diffusion), or launch with --no-half (and --no-half-vae for the VAE); a VAE fixed for "
                       "fp16 avoids it for SDXL. --disable-nan-check only hides the black images.",
               areas=("gpu",),
               sources=({"url": "https://github.com/AUTOMATIC1111/stable-diffusion-webui/wiki/Command-Line-Arguments-and-Settings",
                         "what": "--no-half, --no-half-vae, --upcast-sampling, --disable-nan-check"},))
    return _match(sig, text, at, {"part": part})


# AUTOMATIC1111's web UI (and its forks: Forge, the DirectML and ZLUDA ones) checks its venv's torch before it starts
# (modules/launch_utils.py, prepare_environment): `assert torch.cuda.is_available(), 'Torch is not able to use GPU; add
# --skip-torch-cuda-test ...'`, run as a command whose failure prints "Error running command" and the command itself
_WEBUI_CHECK = re.compile(r"Torch is not able to use GPU|Error running command\.?[^\n]{0,4}\n(?:[^\n]{0,200}\n){0,3}"
                          r"[^\n]{0,400}assert torch\.cuda\.is_available\(\)")
_WEBUI_SRC = {"url": "https://github.com/AUTOMATIC1111/stable-diffusion-webui/blob/master/modules/launch_utils.py",
              "what": "the web UI's prepare_environment: TORCH_COMMAND, and the check that its torch can use the GPU"}


def webui_torch_gpu_check(ent, text):
    m, at = last_in_tail(_WEBUI_CHECK, text)
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    nvidia = re.search(r"(?i)\bNVIDIA\b|GeForce|\bRTX\b|\bGTX\b|Quadro|Tesla", tail) is not None
    other_vendor = re.search(r"(?i)\+rocm|/whl/rocm|directml|zluda|-amd\b|\bamd-", tail) is not None
    nix = "/nix/store/" in tail
    if nvidia and other_vendor:
        why = ("The launcher installed torch for another GPU vendor (a ROCm or DirectML build, or the AMD/DirectML fork "
               "of the web UI) on a machine whose GPU is NVIDIA's, so the venv's torch cannot use it.")
    else:
        why = ("The web UI starts by checking that the torch in its venv can use the GPU, and it cannot: the venv holds "
               "a CPU build (or one for another vendor: ROCm, DirectML), or that torch sees no driver.")
    fix = ("Give the web UI's venv torch's CUDA build for this driver: set TORCH_COMMAND (webui-user.sh / .bat) to "
           "`pip install torch torchvision --index-url https://download.pytorch.org/whl/cu121` (the cuXXX that "
           "`nvidia-smi`'s CUDA version allows), delete the venv folder and start again; with an NVIDIA GPU use the "
           "standard web UI, not the AMD/DirectML fork. Check with `venv/bin/python -c \"import torch; "
           "print(torch.__version__, torch.cuda.is_available())\"` (a version ending +cpu is the CPU build); AMD GPUs "
           "need the ROCm build on Linux. --skip-torch-cuda-test only skips the check and runs on the CPU.")
    if nix:
        fix += (" Under Nix the torch comes from nixpkgs: build it with CUDA (`cudaSupport = true` in the nixpkgs "
                "config, or the flake's CUDA overlay) rather than from the launcher's pip.")
    sig = _sig("webui-torch-cannot-use-gpu", "torch-build", "the web UI's torch cannot use the GPU", 84, why, fix=fix,
               areas=("torch",), sources=(_WEBUI_SRC,))
    return _match(sig, text, at, {})
