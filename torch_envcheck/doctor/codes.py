"""The doctor's finding codes.  Stable: users search for them and scripts match on them, so a code
is never renumbered or reused; new findings get new numbers.  Listed in the README."""

from __future__ import annotations

# code -> (slug, area, one-line title)
CODES: dict[str, tuple[str, str, str]] = {
    # platform and Python
    "TE100": ("platform-ok", "platform", "the platform and Python can run PyTorch"),
    "TE101": ("wsl1", "platform", "WSL 1 cannot use the GPU; CUDA needs WSL 2"),
    "TE102": ("macos-no-cuda", "platform", "macOS has no CUDA; use the MPS backend on Apple silicon"),
    "TE103": ("python-unsupported", "platform", "this Python version is outside the torch release's supported range"),
    # torch and its companions
    "TE200": ("torch-ok", "torch", "torch imports (a build without CUDA that fits this machine, e.g. MPS or ROCm)"),
    "TE201": ("torch-not-importable", "torch", "torch cannot be imported in this interpreter"),
    "TE202": ("cpu-wheel-with-gpu", "torch", "a CPU-only torch is installed on a machine with an NVIDIA GPU"),
    "TE203": ("cpu-wheel-no-gpu", "torch", "a CPU-only torch on a machine without an NVIDIA GPU: fine"),
    "TE204": ("companion-cuda-mismatch", "torch", "torchvision/torchaudio come from another CUDA index than torch"),
    "TE205": ("torch-cuda-ok", "torch", "a CUDA torch that initialises and sees its GPUs"),
    # driver
    "TE300": ("driver-ok", "driver", "the NVIDIA driver supports the CUDA runtime torch was built with"),
    "TE301": ("driver-missing", "driver", "no NVIDIA driver is loaded"),
    "TE302": ("driver-too-old", "driver", "the NVIDIA driver is too old for the CUDA runtime torch was built with"),
    "TE303": ("cuda-init-failed", "driver", "CUDA failed to initialise for another reason"),
    # GPUs
    "TE400": ("gpu-ok", "gpu", "every GPU is covered by this torch build's arch list"),
    "TE401": ("gpu-arch-unsupported", "gpu", "the GPU's compute capability is not in this torch build's arch list"),
    "TE402": ("cuda-visible-devices-empty", "gpu", "CUDA_VISIBLE_DEVICES is set but empty: no GPU is visible"),
    "TE403": ("cuda-visible-devices-invalid", "gpu", "CUDA_VISIBLE_DEVICES names devices that do not exist"),
    # CUDA libraries
    "TE500": ("libraries-ok", "libraries", "no foreign CUDA/cuDNN libraries shadow torch's own"),
    "TE501": ("ld-library-path-shadows", "libraries", "LD_LIBRARY_PATH holds CUDA/cuDNN libraries of another version than torch's"),
    "TE502": ("cudnn-version-mismatch", "libraries", "the cuDNN loaded at run time differs from the one torch was built with"),
    "TE503": ("cudnn-handle-failed", "libraries", "creating a cuDNN (or cuBLAS) handle failed"),
    # toolchain (compiling extensions only; the wheel itself never needs it)
    "TE600": ("toolchain-ok", "toolchain", "the CUDA toolchain can compile extensions for this torch (or none is needed)"),
    "TE601": ("nvcc-missing", "toolchain", "no nvcc: CUDA extensions cannot be compiled (torch itself still works)"),
    "TE602": ("nvcc-major-mismatch", "toolchain", "nvcc's CUDA major version differs from torch's"),
    "TE603": ("cuda-home-invalid", "toolchain", "CUDA_HOME / CUDA_PATH points at no CUDA toolkit"),
    # the torch_envcheck extension
    "TE700": ("extension-ok", "extension", "the compiled extension matches this torch and loads"),
    "TE701": ("extension-stale", "extension", "the compiled extension was built against another torch"),
    "TE702": ("extension-no-kernel-image", "extension", "the extension has no kernel image for a GPU"),
    "TE703": ("extension-not-built", "extension", "the extension is not compiled for this torch yet"),
    "TE704": ("extension-kernels-wrong", "extension", "the extension's kernels disagree with torch's built-ins"),
    # added by the rules: more findings per area, and a probe that crashed (one code per area)
    "TE304": ("driver-minor-compat-only", "driver", "the driver runs this CUDA only through minor-version compatibility"),
    "TE404": ("ptx-jit-driver-too-old", "gpu", "the GPU needs PTX JIT, which needs a newer driver than it has"),
    "TE705": ("extension-broken", "extension", "the compiled extension exists but fails to load"),
    # "could not judge": the facts an area is judged from are unknown (contract.JUDGED_BY), so the
    # doctor says so instead of reading missing facts as health.  TEx80-TEx89 per area.
    "TE180": ("platform-unknown", "platform", "could not judge the platform: its facts are missing from the snapshot"),
    "TE280": ("torch-unknown", "torch", "could not judge torch: its facts are missing from the snapshot"),
    "TE380": ("driver-unknown", "driver", "could not judge the NVIDIA driver: its facts are missing from the snapshot"),
    "TE480": ("gpu-unknown", "gpu", "could not judge the GPUs: neither driver nor torch facts are in the snapshot"),
    "TE580": ("libraries-unknown", "libraries", "could not judge the CUDA libraries: their facts are missing from the snapshot"),
    "TE680": ("toolchain-unknown", "toolchain", "could not judge the toolchain: its facts are missing from the snapshot"),
    "TE780": ("extension-unknown", "extension", "could not judge the extension: its facts are missing from the snapshot"),
    # added by the knowledge rules (issue 8): contradictions, causes, Jetson, Rosetta, ROCm, 803, Kepler
    "TE105": ("rosetta-x86-python", "platform", "an x86_64 Python runs under Rosetta on Apple silicon: no MPS"),
    "TE206": ("rocm-wheel-with-nvidia-gpu", "torch", "a ROCm torch is installed on a machine with only NVIDIA GPUs"),
    "TE305": ("driver-forward-compat", "driver", "CUDA works although the driver is older than the tables require (forward compatibility)"),
    "TE306": ("driver-library-mismatch", "driver", "the loaded NVIDIA kernel module and the user-space driver differ (CUDA error 803)"),
    "TE307": ("driver-older-than-every-build", "driver", "the NVIDIA driver is older than every torch build needs: upgrade the driver"),
    "TE405": ("jetson-needs-jetpack-wheel", "gpu", "a Jetson GPU with a torch wheel that has no kernels for it: use NVIDIA's JetPack wheels"),
    "TE406": ("gpu-unsupported-by-cudnn", "gpu", "the GPU is older than this torch's cuDNN supports (cuDNN 9: compute capability >= 5.0)"),
    "TE505": ("library-path-breaks-import", "libraries", "a folder on LD_LIBRARY_PATH makes `import torch` fail"),
    "TE190": ("platform-probe-failed", "platform", "a platform probe crashed: its facts are missing"),
    "TE250": ("torch-without-numpy", "torch", "torch imports but cannot load NumPy: tensor.numpy() fails"),
    "TE290": ("torch-probe-failed", "torch", "a torch probe crashed: its facts are missing"),
    "TE390": ("driver-probe-failed", "driver", "a driver probe crashed: its facts are missing"),
    "TE490": ("gpu-probe-failed", "gpu", "a GPU probe crashed: its facts are missing"),
    "TE590": ("libraries-probe-failed", "libraries", "a library probe crashed: its facts are missing"),
    "TE690": ("toolchain-probe-failed", "toolchain", "a toolchain probe crashed: its facts are missing"),
    "TE790": ("extension-probe-failed", "extension", "an extension probe crashed: its facts are missing"),
    # conda environments (TE900-TE939; TE990-TE999 for the conda probe)
    "TE900": ("conda-ok", "conda", "the conda env's CUDA packages fit each other and this machine"),
    "TE901": ("conda-cpu-pytorch-with-gpu", "conda", "conda installed a CPU build of pytorch on a machine with an NVIDIA GPU"),
    "TE902": ("conda-pytorch-cuda-missing", "conda", "conda's pytorch from the pytorch channel has no pytorch-cuda package"),
    "TE903": ("conda-torch-installed-twice", "conda", "torch is installed twice: conda's pytorch and a pip torch"),
    "TE904": ("conda-runtime-replaced-by-pip", "conda", "pip overwrote conda's C++/OpenMP runtime libraries"),
    "TE905": ("conda-pip-nvidia-wheels", "conda", "pip's nvidia-* CUDA wheels sit beside conda's CUDA packages"),
    "TE906": ("conda-cuda-mismatch-tensorflow", "conda", "the env's cudatoolkit/cudnn differ from what its TensorFlow was built with"),
    "TE907": ("conda-cuda-mismatch-pytorch", "conda", "the env's CUDA packages differ from what its conda pytorch was built with"),
    "TE908": ("conda-system-cuda-first-on-path", "conda", "Windows: a system CUDA toolkit comes before the env's Library\\bin on PATH"),
    "TE990": ("conda-probe-failed", "conda", "the conda probe crashed: its facts are missing"),
    "TE991": ("conda-records-unreadable", "conda", "some conda-meta records could not be read"),
    # TensorFlow beside PyTorch (and files that two installed distributions both own)
    "TE800": ("tensorflow-ok", "tensorflow", "TensorFlow imports and its build fits this machine"),
    "TE801": ("tensorflow-cuda-libs-missing", "tensorflow", "a TensorFlow CUDA build whose CUDA/cuDNN libraries are not installed"),
    "TE802": ("tensorflow-untested-stack", "tensorflow", "Python, CUDA or cuDNN differ from TensorFlow's tested build configuration"),
    "TE803": ("tensorflow-windows-no-gpu", "tensorflow", "native Windows with TensorFlow 2.11 or later: no GPU support"),
    "TE804": ("tensorflow-driver-too-old", "tensorflow", "the NVIDIA driver is too old for TensorFlow's CUDA"),
    "TE805": ("tensorflow-gpu-arch-unsupported", "tensorflow", "the GPU's compute capability is not in TensorFlow's cuda_compute_capabilities"),
    "TE806": ("tensorflow-cpu-with-gpu", "tensorflow", "a CPU-only TensorFlow (tensorflow-cpu, or macOS) on a machine with an NVIDIA GPU"),
    "TE807": ("tensorflow-dlopen-failed", "tensorflow", "TensorFlow could not load GPU libraries (Could not load dynamic library ...)"),
    "TE808": ("tensorflow-not-importable", "tensorflow", "TensorFlow is installed but cannot be imported"),
    "TE809": ("tensorflow-torch-cuda-generations", "tensorflow", "torch and TensorFlow need different CUDA generations in one environment"),
    "TE850": ("files-owned-twice", "tensorflow", "two installed distributions own the same files: one overwrote the other"),
    "TE851": ("shared-dependency-conflict", "tensorflow", "numpy/protobuf: the installed version or the frameworks' requirements conflict"),
    "TE880": ("tensorflow-unknown", "tensorflow", "could not judge TensorFlow: its facts are missing from the snapshot"),
    "TE890": ("tensorflow-probe-failed", "tensorflow", "a TensorFlow probe crashed: its facts are missing"),
    "TE891": ("tensorflow-child-timeout", "tensorflow", "importing TensorFlow in a child process did not finish in time"),
    "TE892": ("tensorflow-child-crashed", "tensorflow", "the TensorFlow child process died without a result"),
    # fleet mode (torch-envcheck fleet): findings about a whole job, never about one environment
    "TE940": ("fleet-ok", "fleet", "every rank reported and their stacks match"),
    "TE941": ("fleet-rank-missing", "fleet", "a rank never reached rank 0 (died or was never started)"),
    "TE942": ("fleet-rank-late", "fleet", "a rank arrived but sent no snapshot in time (hung in a probe)"),
    "TE943": ("fleet-rank-unreadable", "fleet", "a rank sent a snapshot rank 0 cannot read"),
    "TE944": ("fleet-mixed-torch", "fleet", "the ranks run different torch versions"),
    "TE945": ("fleet-mixed-nccl", "fleet", "the ranks run different NCCL versions"),
    "TE946": ("fleet-mixed-cudnn", "fleet", "the ranks run different cuDNN versions"),
    "TE947": ("fleet-mixed-gpu-generations", "fleet", "the ranks use GPUs of different generations"),
    "TE948": ("fleet-driver-behind", "fleet", "a node's NVIDIA driver is older than the one most nodes run"),
    "TE949": ("fleet-same-stack-different-results", "fleet", "ranks with identical stacks report different findings"),
    "TE950": ("fleet-nccl-env-differs", "fleet", "NCCL_* variables differ across ranks"),
    "TE951": ("fleet-mixed-python", "fleet", "the ranks run different Python versions"),
    "TE952": ("fleet-gpu-count-differs", "fleet", "the nodes see different numbers of GPUs"),
    "TE953": ("fleet-gpu-shared", "fleet", "more ranks on a node than GPUs visible to them"),
    "TE954": ("fleet-group-failed", "fleet", "the ranks could not form a gloo process group"),
    "TE955": ("fleet-barrier-missing", "fleet", "monitored_barrier named ranks that did not reach it"),
    "TE956": ("fleet-bandwidth-failed", "fleet", "the collective bandwidth measurement failed"),
    "TE957": ("fleet-rank-failures", "fleet", "ranks whose own environment has failures"),
    # knowledge older than the machine (issue 17): judged from live facts, `torch-envcheck knowledge update`
    "TE207": ("torch-newer-than-knowledge", "torch", "torch is newer than the doctor's release tables: judged from live facts"),
    "TE208": ("torch-build-not-in-knowledge", "torch", "this CUDA build of torch is not in the doctor's release tables"),
    "TE308": ("driver-newer-than-knowledge", "driver", "the CUDA of the driver or of torch is newer than the doctor's driver tables"),
    "TE407": ("gpu-newer-than-knowledge", "gpu", "the GPU's compute capability is newer than the doctor's GPU tables"),
    "TE810": ("tensorflow-newer-than-knowledge", "tensorflow", "TensorFlow is newer than the doctor's TensorFlow tables"),
}


def slug(code: str) -> str:
    return CODES[code][0]


def title(code: str) -> str:
    return CODES[code][2]
