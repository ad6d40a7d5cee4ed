"""Compiled modules named unlike the distribution that ships them: which distribution a top-level extension module
belongs to, and how that distribution builds it.

A pure table (no I/O).  A torch C++/CUDA extension is usually installed as a top-level module of its own
(`fused_layer_norm_cuda.cpython-310-x86_64-linux-gnu.so` directly in site-packages), named by the `name=` of its
`CUDAExtension`/`CppExtension` in the distribution's setup.py, not by the distribution.  When a text names only that
module (an undefined symbol in it, "No module named 'fused_layer_norm_cuda'") explain needs the distribution to name
the fix: rebuilding "fused_layer_norm" installs nothing; apex, built with its extension flags, does.  A live probe
finds the owner through importlib.metadata (explain/owners.py); from the text alone this table does.

    distribution_of("fused_layer_norm_cuda") -> {"distribution", "build", "source"} | None

Each row is read from the distribution's setup.py (the `name=` of each extension), cited by repository, path and
commit.  Modules whose name already says their distribution once a conventional suffix is dropped
(`flash_attn_2_cuda`, `causal_conv1d_cuda`, `torch_scatter/_scatter_cuda.so`) need no row."""

from __future__ import annotations

import re

_APEX_SRC = "https://github.com/NVIDIA/apex/blob/705cba91fc26413d484f5ce2983427d840199a97/setup.py"
_APEX_BUILD = ("apex builds its compiled modules only when asked: from its source tree, `pip install -v "
               "--no-build-isolation --no-cache-dir --config-settings \"--build-option=--cpp_ext\" --config-settings "
               "\"--build-option=--cuda_ext\" ./` (older pip: `--global-option=\"--cpp_ext\" "
               "--global-option=\"--cuda_ext\"`), against the installed torch and a CUDA toolkit of torch's CUDA "
               "version; a plain `pip install apex` or `pip install ./` installs apex without them. With torch 2.x "
               "most of apex is in torch itself (torch.amp, torch.nn.LayerNorm, fused optimizers): uninstalling apex "
               "is often the simpler fix.")
_MAMBA_SRC = "https://github.com/state-spaces/mamba/blob/fe5f0c855ec59889dfdd45c6b1fe22c89ccf754f/setup.py"
_MAMBA_BUILD = ("Install the mamba-ssm wheel built for the installed torch, CUDA and Python (its release page lists "
                "them per torch and CUDA version), or build it against the installed torch: `pip install "
                "--no-build-isolation --no-cache-dir --force-reinstall mamba-ssm` (causal-conv1d likewise).")

# module -> (distribution, how it builds that module, source: the setup.py that names the extension)
_MODULES = {
    # apex: CppExtension('apex_C') with --cpp_ext; amp_C, syncbn, fused_layer_norm_cuda, mlp_cuda with --cuda_ext;
    # the others with their own flags (--distributed_adam, --bnp, --xentropy, --deprecated_fused_adam, ...)
    **{m: ("apex", _APEX_BUILD, _APEX_SRC)
       for m in ("apex_C", "amp_C", "syncbn", "fused_layer_norm_cuda", "mlp_cuda", "distributed_adam_cuda", "distributed_lamb_cuda", "bnp", "xentropy_cuda", "fused_adam_cuda",
                 "fused_lamb_cuda")},
    "selective_scan_cuda": ("mamba-ssm", _MAMBA_BUILD, _MAMBA_SRC),
}


def distribution_of(module: str | None) -> dict | None:
    """The distribution that ships a top-level compiled module, how it builds it and the source; None when the
    table does not know the module."""
    if not module:
        return None
    row = _MODULES.get(module.split(".")[0])
    if row is None:
        return None
    dist, build, source = row
    return {"distribution": dist, "build": build, "source": source}


# Distributions whose compiled parts are built against one torch (their wheels name the torch and CUDA they are for,
# or they build from source at install): when a text shows a torch-ABI failure without the binary's path, the one it
# names is the likely owner.  import name -> distribution.
TORCH_EXTENSION_DISTRIBUTIONS = {
    "flash_attn": "flash-attn", "xformers": "xformers", "mmcv": "mmcv", "detectron2": "detectron2", "apex": "apex",
    "deepspeed": "deepspeed", "bitsandbytes": "bitsandbytes", "torch_scatter": "torch-scatter",
    "torch_sparse": "torch-sparse", "torch_cluster": "torch-cluster", "pytorch3d": "pytorch3d", "torchvision": "torchvision",
    "torchaudio": "torchaudio", "mamba_ssm": "mamba-ssm", "causal_conv1d": "causal-conv1d", "vllm": "vllm",
    "sgl_kernel": "sgl-kernel", "flashinfer": "flashinfer-python", "auto_gptq": "auto-gptq", "exllamav2": "exllamav2",
    "spconv": "spconv", "nvdiffrast": "nvdiffrast", "gsplat": "gsplat", "kaolin": "kaolin", "transformer_engine":
    "transformer-engine", "natten": "natten", "torch_tensorrt": "torch-tensorrt", "fairseq": "fairseq",
    "fbgemm_gpu": "fbgemm-gpu", "torchrec": "torchrec", "sageattention": "sageattention",
}

def distribution_by_prefix(stem: str | None, exclude: frozenset = frozenset()) -> str | None:
    """The torch-extension distribution whose import name a compiled file's stem is or starts with
    (fbgemm_gpu_py: fbgemm-gpu, flash_attn_2_cuda: flash-attn), the longest such name; None when none is."""
    if not stem:
        return None
    names = [k for k in TORCH_EXTENSION_DISTRIBUTIONS if k not in exclude and (stem == k or stem.startswith(k + "_"))]
    return TORCH_EXTENSION_DISTRIBUTIONS[max(names, key=len)] if names else None


# Distributions PyTorch's own index publishes per CUDA (https://download.pytorch.org/whl/<cu tag>, beside torch), as
# their install pages give them: the build that matches a torch from that index comes from the same one
ON_TORCH_INDEX = {
    "fbgemm-gpu": "https://docs.pytorch.org/FBGEMM/fbgemm_gpu/development/InstallationInstructions.html",
    "torchrec": "https://docs.pytorch.org/torchrec/setup-torchrec.html",
}

_NAMED = re.compile(r"(?<![\w-])(" + "|".join(sorted({re.escape(d) for d in TORCH_EXTENSION_DISTRIBUTIONS.values()} |
                                                     {re.escape(m) for m in TORCH_EXTENSION_DISTRIBUTIONS},
                                                     key=len, reverse=True)) + r")(?![\w-])", re.IGNORECASE)


def extension_named_in(text: str) -> str | None:
    """The last torch-extension distribution the text names (by its import or distribution name), or None."""
    last = None
    for m in _NAMED.finditer(text[-65536:]):
        last = m.group(1).lower()
    if last is None:
        return None
    return TORCH_EXTENSION_DISTRIBUTIONS.get(last.replace("-", "_"), last)


# Where a torch-extension distribution publishes wheels built per torch and CUDA release (the build its users should
# install instead of compiling), as each project's install page gives it.  {torch}: torch's major.minor.patch (PyG:
# "2.5.0"), {torch_mm}: major.minor (DGL, mmcv), {cu}: the CUDA tag ("cu121", or "cpu").
_PYG = ("https://data.pyg.org/whl/torch-{torch}+{cu}.html",
        "https://pytorch-geometric.readthedocs.io/en/latest/install/installation.html")
PREBUILT_INDEXES = {
    **{d: _PYG for d in ("torch-scatter", "torch-sparse", "torch-cluster", "torch-spline-conv", "pyg-lib")},
    "dgl": ("https://data.dgl.ai/wheels/torch-{torch_mm}/{cu}/repo.html", "https://www.dgl.ai/pages/start.html"),
    "mmcv": ("https://download.openmmlab.com/mmcv/dist/{cu}/torch{torch_mm}/index.html",
             "https://mmcv.readthedocs.io/en/latest/get_started/installation.html"),
    "mmcv-full": ("https://download.openmmlab.com/mmcv/dist/{cu}/torch{torch_mm}/index.html",
                  "https://mmcv.readthedocs.io/en/v1.7.0/get_started/installation.html"),
}


# distributions PyPI does not carry at all: their project's index is the only place (checked against PyPI's JSON API:
# https://pypi.org/pypi/pyg-lib/json answers 404, 2026-12-04)
_ONLY_ON_OWN_INDEX = frozenset({"pyg-lib"})


def only_on_own_index(distribution: str | None) -> bool:
    return (distribution or "").lower().replace("_", "-") in _ONLY_ON_OWN_INDEX


def prebuilt_index(distribution: str | None) -> dict | None:
    """{"url": the find-links page template, "source": the install page that gives it} for a distribution whose
    project publishes wheels per torch and CUDA, else None."""
    row = PREBUILT_INDEXES.get((distribution or "").lower().replace("_", "-"))
    return {"url": row[0], "source": row[1]} if row else None


# Distributions not installable by name from PyPI (the name is another project's there, or absent): their install
# pages build them from the repository.  distribution -> (the command, as their pages give it, the page)
_FROM_SOURCE = {
    "apex": ("`pip install -v --no-build-isolation --no-cache-dir --config-settings \"--build-option=--cpp_ext\" "
             "--config-settings \"--build-option=--cuda_ext\" git+https://github.com/NVIDIA/apex.git`",
             "https://github.com/NVIDIA/apex#from-source"),
    "detectron2": ("`python -m pip install --no-build-isolation 'git+https://github.com/facebookresearch/detectron2.git'`",
                   "https://github.com/facebookresearch/detectron2/blob/main/INSTALL.md"),
    "pytorch3d": ("`pip install --no-build-isolation \"git+https://github.com/facebookresearch/pytorch3d.git@stable\"`",
                  "https://github.com/facebookresearch/pytorch3d/blob/main/INSTALL.md"),
}


def source_build(distribution: str) -> dict | None:
    """{"command", "page"} for a distribution PyPI does not serve under its name (its install page builds it from the
    repository), else None: pip's own build of the name is the way."""
    row = _FROM_SOURCE.get(distribution.lower().replace("_", "-"))
    return {"command": row[0], "page": row[1]} if row else None
