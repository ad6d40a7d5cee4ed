"""Layer rules for the GPU stack's command-line tools, read from the shell's and the tools' own words: a tool the shell
cannot find (the package that owns it says which layer is missing), nvidia-smi refusing a query field its driver
predates.

    tool_not_found   "X: command not found", "command not found: X", "'X' is not recognized as an internal or external
                     command" for a tool of the driver (prime-select, prime-run, nvidia-settings, Bumblebee's optirun),
                     the NVIDIA Container Toolkit (nvidia-ctk, nvidia-container-cli) or ROCm (rocminfo, rocm-smi,
                     amd-smi, hipcc), Nsight (nsys, ncu) or the toolkit's compute-sanitizer / cuda-gdb -> the package
                     that installs it (nvcc and nvidia-smi have rules of their own)
    smi_field_unknown  nvidia-smi's 'Field "X" is not a valid field to query' -> driver: the nvidia-smi of this driver
                     predates the field (compute_cap, ...): a newer driver, or the value given to the tool that asked
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import SOURCES, _match, _sig, last_in_tail

_UBUNTU_PRIME = {"url": "https://packages.ubuntu.com/noble/nvidia-prime",
                 "what": "Ubuntu's nvidia-prime package: prime-select, installed with the nvidia-driver-NNN packages"}
_ARCH_PRIME = {"url": "https://wiki.archlinux.org/title/PRIME",
               "what": "PRIME render offload: the nvidia-prime package's prime-run; Bumblebee superseded"}
_OFFLOAD = {"url": "https://download.nvidia.com/XFree86/Linux-x86_64/435.17/README/primerenderoffload.html",
            "what": "NVIDIA driver README: PRIME render offload (driver 435.17 and newer)"}
_ROCM_INSTALL = {"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/",
                 "what": "ROCm installation on Linux: the tools in /opt/rocm/bin"}

_NSIGHT_SYSTEMS = {"url": "https://docs.nvidia.com/nsight-systems/InstallationGuide/index.html",
                   "what": "Nsight Systems installation: with the CUDA toolkit or standalone; the nsys CLI's folder"}
_NSIGHT_COMPUTE = {"url": "https://docs.nvidia.com/nsight-compute/InstallationGuide/index.html",
                   "what": "Nsight Compute installation: with the CUDA toolkit or standalone; the ncu CLI"}
_SANITIZER = {"url": "https://docs.nvidia.com/compute-sanitizer/ComputeSanitizer/index.html",
              "what": "Compute Sanitizer: installed with the CUDA toolkit (cuda-memcheck's successor)"}

_DRIVER_PACKAGES = ("Install the NVIDIA driver's packages, which bring it (Ubuntu: `sudo ubuntu-drivers install`, or "
                    "`sudo apt install nvidia-driver-<branch>`, which pulls in nvidia-prime; Arch: `sudo pacman -S "
                    "nvidia nvidia-prime`), reboot, and check that `nvidia-smi` lists the GPU. CUDA programs need no "
                    "launcher on a laptop with two GPUs: with the NVIDIA driver loaded they run on the NVIDIA GPU.")

# tool -> (layer, who owns it, fix, sources); tools with rules of their own (nvcc, nvidia-smi) are not here
_TOOLS = {
    "prime-select": ("driver", "Ubuntu's nvidia-prime package, installed with the NVIDIA driver's packages",
                     _DRIVER_PACKAGES, (_UBUNTU_PRIME,)),
    "prime-run": ("driver", "the nvidia-prime package (Arch and others), beside the NVIDIA driver",
                  _DRIVER_PACKAGES, (_ARCH_PRIME,)),
    "nvidia-settings": ("driver", "the nvidia-settings package of the NVIDIA driver",
                        "Install the NVIDIA driver with its tools (Ubuntu: `sudo apt install nvidia-settings` beside "
                        "nvidia-driver-<branch>); CUDA itself does not need nvidia-settings.", (_UBUNTU_PRIME,)),
    "optirun": ("driver", "Bumblebee, the old launcher for laptops with two GPUs",
                "Bumblebee is superseded: with a current NVIDIA driver (435.17 or newer) CUDA programs run on the "
                "NVIDIA GPU without a launcher, and graphics use PRIME render offload (`prime-run`, or "
                "__NV_PRIME_RENDER_OFFLOAD=1 __GLX_VENDOR_LIBRARY_NAME=nvidia). " + _DRIVER_PACKAGES,
                (_ARCH_PRIME, _OFFLOAD)),
    "nvidia-ctk": ("container", "the NVIDIA Container Toolkit",
                   "Install the NVIDIA Container Toolkit on the host from NVIDIA's repository (`nvidia-container-"
                   "toolkit`), configure the runtime (`sudo nvidia-ctk runtime configure --runtime=docker`) and restart "
                   "docker; then `docker run --gpus all ...`.", (SOURCES["container_toolkit"],)),
    "rocminfo": ("rocm", "ROCm (its tools live in /opt/rocm/bin)",
                 "Install ROCm on the host (`sudo amdgpu-install --usecase=rocm`, or the distribution's rocm packages) "
                 "or add /opt/rocm/bin to PATH if it is installed; torch's ROCm wheels carry their own runtime and need "
                 "these tools only to check the GPU (`rocminfo` must list its gfx target).", (_ROCM_INSTALL,)),
    "nsys": ("env", "NVIDIA Nsight Systems (installed with the CUDA toolkit, or on its own)",
             "Install NVIDIA Nsight Systems (NVIDIA's installer or repository package `nsight-systems-<version>`; a CUDA "
             "toolkit install includes it under <toolkit>/nsight-systems-*/bin) and put the folder that holds `nsys` on "
             "PATH (e.g. `export PATH=/opt/nvidia/nsight-systems/<version>/bin:$PATH`); pip's torch wheels do not "
             "bring it.", (_NSIGHT_SYSTEMS,)),
    "ncu": ("env", "NVIDIA Nsight Compute (installed with the CUDA toolkit, or on its own)",
            "Install NVIDIA Nsight Compute (NVIDIA's installer or repository package `nsight-compute-<version>`; a CUDA "
            "toolkit install includes it as <toolkit>/bin/ncu) and put its folder on PATH (e.g. `export "
            "PATH=/usr/local/cuda/bin:$PATH`); pip's torch wheels do not bring it.", (_NSIGHT_COMPUTE,)),
    "compute-sanitizer": ("env", "the CUDA toolkit (compute-sanitizer is in its bin folder)",
                          "Install the CUDA toolkit (or its cuda-sanitizer package) and put its bin folder on PATH "
                          "(`export PATH=/usr/local/cuda/bin:$PATH`); pip's torch wheels do not bring it.",
                          (_SANITIZER,)),
}
for _alias, _base in (("nsys-ui", "nsys"), ("ncu-ui", "ncu"), ("nv-nsight-cu-cli", "ncu"), ("cuda-gdb", "compute-sanitizer"),
                      ("cuda-memcheck", "compute-sanitizer"), ("primusrun", "optirun"), ("nvidia-container-cli", "nvidia-ctk"),
                      ("nvidia-container-runtime", "nvidia-ctk"), ("nvidia-container-toolkit", "nvidia-ctk"),
                      ("rocm-smi", "rocminfo"), ("amd-smi", "rocminfo"), ("hipcc", "rocminfo"),
                      ("hipconfig", "rocminfo"), ("rocm_agent_enumerator", "rocminfo")):
    _TOOLS[_alias] = _TOOLS[_base]

_NAMES = "|".join(sorted((re.escape(t) for t in _TOOLS), key=len, reverse=True))
# bash/sh/sudo/make ("X: command not found", "X: not found"), zsh ("command not found: X"), cmd.exe and PowerShell
_NOT_FOUND = re.compile(r"(?<![\w.-])(?P<a>" + _NAMES + r"): (?:[Cc]ommand )?not found|"
                        r"command not found: (?P<b>" + _NAMES + r")\b|"
                        r"'(?P<c>" + _NAMES + r")(?:\.exe)?' is not recognized as (?:an internal or external command|"
                        r"the name of a cmdlet)")


def tool_not_found(ent, text):
    m, at = last_in_tail(_NOT_FOUND, text, "not")
    if m is None:
        return None
    tool = m.group("a") or m.group("b") or m.group("c")
    layer, owner, fix, sources = _TOOLS[tool]
    sig = _sig(f"tool-not-found-{layer}", layer, "{tool} is not installed: it comes with " + owner, 80,
               "The shell found no {tool} on PATH. {tool} is not a Python package: it comes with " + owner + ", so "
               "its absence says that part of the stack is not installed (or not on PATH) on this machine.",
               fix=fix, areas=("driver",) if layer == "driver" else (layer,), sources=sources)
    return _match(sig, text, at, {"tool": tool})


_SMI_FIELD = re.compile(r"Field \"(?P<field>[\w.]{1,60})\" is not a valid field to query")
_SMI_QUERY = {"url": "https://docs.nvidia.com/deploy/nvidia-smi/index.html",
              "what": "nvidia-smi: --query-gpu fields (nvidia-smi --help-query-gpu lists those this driver knows)"}
_CANDLE = {"url": "https://github.com/huggingface/candle/issues/733",
           "what": "candle's CUDA build asks nvidia-smi --query-gpu=compute_cap unless CUDA_COMPUTE_CAP is set; the "
                   "maintainers' answer to a driver whose nvidia-smi lacks the field: update the driver"}


def smi_field_unknown(ent, text):
    m, at = last_in_tail(_SMI_FIELD, text, "is not a valid field to query")
    if m is None:
        return None
    field = m.group("field")
    sig = _sig("nvidia-smi-field-unknown", "driver", "this driver's nvidia-smi does not know the field {field}", 82,
               "nvidia-smi comes with the NVIDIA driver, and each driver's nvidia-smi knows the query fields of its "
               "release: {field} was added after this one. A build script or tool that asks for it fails although "
               "the GPU works.",
               fix="Update the NVIDIA driver (a current branch for this GPU; `nvidia-smi --help-query-gpu` lists the "
                   "fields the installed one knows)." +
                   (" Until then give the build the value it wanted: candle and other Rust CUDA crates read "
                    "CUDA_COMPUTE_CAP (e.g. CUDA_COMPUTE_CAP=86 for an RTX 30xx; torch.cuda.get_device_capability() "
                    "prints it)." if field == "compute_cap" else ""),
               areas=("driver",), sources=(_SMI_QUERY, _CANDLE) if field == "compute_cap" else (_SMI_QUERY,))
    return _match(sig, text, at, {"field": field})
