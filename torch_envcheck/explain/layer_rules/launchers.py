"""Layer rules for what the launchers and web UIs users start their models with print (AUTOMATIC1111's and Forge's
launch.py, ComfyUI): a venv without pip, an import halted on purpose, the UNet's NaN check.

    venv_without_pip  "<venv>/python: No module named pip"        -> env: the venv was created without pip
    import_halted     "import of X halted; None in sys.modules"   -> env: the program blocked X on purpose
    nan_check_refused  the web UI's NansException ("A tensor with all NaNs was produced in Unet/VAE") -> not-environment:
                     half precision for this model or GPU
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

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
