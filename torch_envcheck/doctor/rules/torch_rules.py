"""torch rules: importable at all, the right flavour (CPU / CUDA) for this machine, and companions
(torchvision, torchaudio) from the same index as torch."""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck.advice import frameworks as FW
from torch_envcheck.advice import pip_commands as P
from torch_envcheck.advice import recommend as A
from torch_envcheck._util import versions
from torch_envcheck._util.escape import env_assign
from torch_envcheck.doctor.finding import finding
from torch_envcheck.facts import core as F
from torch_envcheck.facts.records import ImportProcess
from torch_envcheck.facts import frameworks as H
from torch_envcheck.facts import tensorflow as T
from torch_envcheck.knowledge import freshness


def not_importable(s) -> list[dict]:
    if F.torch_importable(s) is not False:
        return []
    err = F.import_error(s) or "(no error text recorded)"
    exe = F.python_exe(s)
    missing = "No module named 'torch'" in err or "No module named \"torch\"" in err
    if missing and not H.judges(s, "torch"):
        return [_other_framework_env(s, exe)]
    cap = F.build_capability(s)
    build = None
    if F.driver_present(s) and not F.is_macos(s):
        build = A.recommend_build(s, capability=cap)
    if F.is_macos(s) and F.rosetta(s) is True:
        fix = A.advise(s)[1]  # an x86_64 Python under Rosetta: a native one first (TE105's steps, `advise`'s)
    elif F.is_macos(s):
        fix = A.pip_command(s, "install", "torch")
    elif build:
        fix = P.pip_install_command(exe, build["torch"], build["tag"], shell=F.shell(s))
    elif F.driver_present(s) is False:
        fix = P.pip_install_command(exe, None, "cpu", shell=F.shell(s))
    else:
        fix = A.pip_command(s, "install", "torch")
    if F.system(s) == "Windows" and not build and not F.driver_present(s):
        fix = A.pip_command(s, "install", "torch")  # PyPI's Windows wheel is the CPU build
    conda = F.conda_env(s)
    where = f"conda env {conda}" if conda else ("a venv" if F.in_venv(s) is True else "no venv")
    if missing:
        msg = f"torch is not installed for this interpreter ({exe}, {where})"
        expl = ("If you installed torch elsewhere, the wrong environment is active: activate that one "
                "(`conda activate NAME` / `source VENV/bin/activate`) or run its python. Otherwise install "
                "torch into this interpreter with the command below (it uses exactly this python).")
    else:
        msg = f"torch is installed but fails to import in {exe}: {err.splitlines()[0][:200]}"
        expl = ("The torch installation is broken (a missing or mismatched shared library, a partial "
                "upgrade, or two torch copies on sys.path). Reinstalling it in this interpreter usually fixes it.")
        cause = F.import_broken_by_search_path(s)
        clash = FW.pin_clash(s)
        if clash and clash["broken"] == "torch":
            # TensorFlow's and-cuda pins replaced the CUDA wheels torch pins (TE852 explains this):
            # reinstalling torch would re-pin them and break TensorFlow again.
            expl = (f"Caused by TE852: {T.tf_label(s)}'s and-cuda extra pins other versions of the nvidia-* wheels "
                    f"torch requires, and pip replaced torch's: {FW.clash_text(s, clash)}. Reinstalling torch would "
                    "put its versions back and break TensorFlow the same way; one environment per framework keeps both "
                    "(commands below).")
            fix = FW.two_environments(s)
        elif cause:
            # The cause is a folder on the library search path (TE505, which explains this finding):
            # reinstalling torch cannot help.
            expl = (f"Caused by {cause.var} (TE505 in the libraries area): "
                    + F.import_breaker_label(cause) + ". Reinstalling torch cannot help while that folder wins.")
            fix = A.search_path_fix(s, cause)
    # How the import process ended (the probe imports torch in a child): a signal, an exit or a hang.
    recorded = F.import_process(s)
    proc = recorded or ImportProcess()  # not recorded: nothing known of how it ended
    if proc.timed_out is True:
        expl = ("`import torch` did not finish in time: a hung import (a file lock or a slow network file "
                "system, a stuck GPU driver, a .pth file or sitecustomize that waits). Give it longer with "
                "the command below; if it still hangs, `python -X importtime -c \"import torch\"` shows "
                "where it stops.")
        fix = "torch-envcheck --timeout 120"
    elif F.text(proc.signal) == "SIGILL":
        expl = ("The process died on an illegal instruction while importing torch: this torch build uses "
                "CPU instructions this processor (or the emulator running it) lacks, e.g. AVX2 on an old "
                "x86 CPU. Install a torch build for this CPU, or run on a newer machine. " + expl)
    elif F.text(proc.signal):
        expl = (f"The process died with {F.text(proc.signal)} while importing torch: a crash inside "
                "a native library (a mismatched CUDA/MKL library, LD_PRELOAD or LD_LIBRARY_PATH pulling in "
                "another copy). " + expl)
    elif proc.returncode not in (0, None):
        expl = ("`import torch` ended the whole Python process (a native library that exits instead of "
                "raising, e.g. oneMKL's \"FATAL ERROR: Cannot load ...\"). " + expl)
    return [finding("TE201", "failure", msg, expl, fix,
                    {"executable": exe, "import_error": err, "venv": F.in_venv(s), "conda_env": F.conda_env(s),
                     "prefix": F.python_prefix(s), "recommended_build": build,
                     "import_process": F.as_details(recorded)})]


def _other_framework_env(s, exe: str) -> dict:
    """No torch in an env that holds another framework: the guides' one-framework-per-env layout."""
    conda = F.conda_env(s)
    where = f"conda env {conda}" if conda else ("this venv" if F.in_venv(s) is True else "this interpreter")
    held = H.label(s)
    if "tensorflow" in H.held(s):
        msg = f"torch is not installed in {where}, which holds {held}: judged as a TensorFlow environment"
    else:
        msg = f"torch is not installed in {where}; --framework asks for {' and '.join(H.judged(s))} only"
    return finding("TE201", "ok", msg,
                   "One framework per environment is what the TensorFlow and PyTorch setup guides advise "
                   "(`conda create -n tf-gpu` / `-n pt-gpu`): installing torch here would put a second CUDA "
                   "stack into this env. To use torch, activate the env that holds it (`conda activate pt-gpu`) "
                   "or run that env's python; `torch-envcheck --all-envs` checks every env at once, and "
                   "`--framework torch` judges this one for torch.",
                   None, {"executable": exe, "frameworks": list(H.held(s)), "conda_env": conda, "note": True})


def numpy_missing(s) -> list[dict]:
    """torch imported but could not initialise NumPy (not installed, or an ABI it cannot use)."""
    err = F.numpy_error(s)
    if F.torch_importable(s) is not True or not err:
        return []
    return [finding("TE250", "warning", f"torch runs without NumPy: {err[:200]}",
                    "torch imported, but tensor.numpy() and torch.from_numpy() fail until NumPy can be "
                    "loaded (torch printed \"Failed to initialize NumPy\" on import). Install NumPy into "
                    "this interpreter; if it is installed, its version does not fit this torch "
                    "(e.g. NumPy 2 with a torch built for NumPy 1): reinstall it with the command below.",
                    A.pip_command(s, "install", "numpy"),
                    {"numpy_error": err})]


def cpu_wheel(s) -> list[dict]:
    if not F.is_cpu_torch(s) or F.is_macos(s):
        return []
    gl = F.driver_gpus(s)
    pci = F.pci_gpus(s)
    # A GPU on the PCI bus counts even with no driver loaded: the CPU wheel still leaves it unused.
    if F.driver_present(s) is True or gl or pci:
        names = ", ".join(F.gpu_label(g) for g in gl) or (F.pci_label(pci) if pci else "an NVIDIA GPU")
        cap = F.build_capability(s)
        build = A.recommend_build(s, capability=cap)
        dv = F.driver_version(s)
        msg = (f"{F.torch_label(s)} is a CPU-only build, but this machine has {names}"
               + (f" with driver {dv}" + (f" (CUDA {F.driver_cuda(s)})" if F.driver_cuda(s) else "") if dv else ""))
        expl = ("torch.cuda.is_available() is False and `.cuda()` raises \"Torch not compiled with CUDA "
                "enabled\": the GPU is unused.")
        if F.system(s) == "Windows":
            expl += " On Windows, plain `pip install torch` from PyPI installs the CPU build; CUDA builds come from download.pytorch.org."
        if F.driver_present(s) is not True:
            expl += (" No NVIDIA driver is loaded either: install it first (check with `nvidia-smi`), then a "
                     "CUDA build of torch.")
        if build:
            expl += (f" torch {build['torch']} {build['tag']} fits "
                     + ("this driver" if F.driver_present(s) is True else "a current driver")
                     + (f" and the GPU ({build['entry']} kernels)" if build.get("entry") else "") + ".")
            note = freshness.downgrade_note(F.torch_version(s), build, "the newest CUDA build the tables know for "
                                            "this machine", driver=(F.driver_version(s), F.driver_os(s)))
            expl += f" Note: {note}" if note else ""  # a downgrade is never silent
        return [finding("TE202", "failure", msg, expl, A.install_command(s, build) if build else None,
                        {"torch": F.torch_version(s), "gpus": F.as_details(gl), "pci_gpus": F.as_details(pci), "driver_version": dv,
                         "driver_cuda": F.driver_cuda(s), "recommended_build": build})]
    if F.driver_present(s) is False:
        if pci == []:
            return [finding("TE203", "ok",
                            f"{F.torch_label(s)} is a CPU-only build and this machine has no NVIDIA GPU: the CPU build fits it",
                            "Nothing to fix: no NVIDIA device is on the PCI bus and no NVIDIA driver is loaded.",
                            None, {"torch": F.torch_version(s), "pci_gpus": pci})]
        return [finding("TE203", "ok",
                        f"{F.torch_label(s)} is a CPU-only build and no NVIDIA driver is loaded: the CPU build fits this machine",
                        "Nothing to fix. (If this machine does have an NVIDIA GPU, install its driver first, then a CUDA build.)",
                        None, {"torch": F.torch_version(s)})]
    return []


def rocm_wheel(s) -> list[dict]:
    """A ROCm torch on a machine whose GPUs are NVIDIA only: like a CPU wheel, the GPU goes unused.
    A ROCm torch that sees a GPU (an AMD one) is not this case."""
    if not F.is_rocm_torch(s) or F.torch_importable(s) is not True or F.is_macos(s):
        return []
    if F.cuda_available(s) is True or not F.has_nvidia_gpu(s):
        return []
    gl = F.driver_gpus(s)
    pci = F.pci_gpus(s)
    names = ", ".join(F.gpu_label(g) for g in gl) or (F.pci_label(pci) if pci else "an NVIDIA GPU")
    cap = next((g.capability for g in gl if F.text(g.capability)), None)
    build = A.recommend_build(s, capability=cap)
    msg = (f"{F.torch_label(s)} is a ROCm (AMD) build, but this machine's GPU is {names}: torch runs on the CPU")
    expl = ("ROCm builds drive AMD GPUs through HIP only; on NVIDIA hardware torch.cuda.is_available() is False "
            "and everything runs on the CPU, exactly as with a CPU-only wheel. Install a CUDA build instead"
            + (f": torch {build['torch']} {build['tag']} fits this driver and GPU." if build else
               (" (install the NVIDIA driver first)." if F.driver_present(s) is not True else ".")))
    return [finding("TE206", "failure", msg, expl, A.install_command(s, build) if build else None,
                    {"torch": F.torch_version(s), "hip": F.torch_hip(s), "gpus": F.as_details(gl), "pci_gpus": F.as_details(pci),
                     "recommended_build": build}, hides=["TE200"])]


def xpu_wheel(s) -> list[dict]:
    """An Intel XPU build (+xpu) where torch.xpu sees no device: on an NVIDIA machine the GPU goes unused
    (the CUDA build is the fix); on a machine without any GPU it runs on the CPU (the CPU wheel is the
    same torch without oneAPI's libraries).  With an Intel GPU on the bus it is left alone: the XPU
    build is the right one there, whatever the driver's state."""
    if not F.is_xpu_torch(s) or F.torch_importable(s) is not True or F.is_macos(s) or F.xpu_available(s):
        return []
    if F.has_vendor_gpu(s, "intel"):
        return []
    xpu = F.xpu(s)
    details = {"torch": F.torch_version(s), "xpu": xpu.to_dict() if xpu else {}, "xpu_version": F.torch_xpu_version(s),
               "other_gpus": F.as_details(F.other_gpus(s)), "pci_gpus": F.as_details(F.pci_gpus(s))}
    if F.has_nvidia_gpu(s):
        gl, pci = F.driver_gpus(s), F.pci_gpus(s)
        names = ", ".join(F.gpu_label(g) for g in gl) or (F.pci_label(pci) if pci else "an NVIDIA GPU")
        build = A.recommend_build(s, capability=F.build_capability(s))
        return [finding("TE210", "failure",
                        f"{F.torch_label(s)} is an Intel XPU build, but this machine's GPU is {names}: torch runs on the CPU",
                        "XPU builds drive Intel GPUs through SYCL/Level Zero only; on NVIDIA hardware torch.xpu and "
                        "torch.cuda both see nothing. Install a CUDA build"
                        + (f": torch {build['torch']} {build['tag']} fits this driver and GPU." if build else "."),
                        A.install_command(s, build) if build else None, {**details, "recommended_build": build})]
    if F.has_vendor_gpu(s, "intel") is False and F.pci_gpus(s) == []:
        return [finding("TE210", "warning",
                        f"{F.torch_label(s)} is an Intel XPU build, but this machine has no Intel or NVIDIA GPU: torch "
                        "runs on the CPU",
                        "torch.xpu sees no device and no GPU is on the PCI bus, so everything runs on the CPU; the CPU "
                        "wheel (command below) is the same torch without the oneAPI runtime libraries.",
                        A.pip_command(s, "install", "--force-reinstall", f"torch=={versions.public(F.torch_version(s))}",
                                      "--index-url", A.index_url("cpu")), details)]
    return []


def rocm_gpu(s) -> list[dict]:
    """A ROCm torch on a machine with an AMD GPU (PCI, /dev/kfd) that sees no device: the GPU's gfx
    target is not in the build (consumer RDNA cards), or HSA_OVERRIDE_GFX_VERSION names a wrong one.
    Never fixed into a CPU or CUDA wheel: the ROCm build is the right kind."""
    if not F.is_rocm_torch(s) or F.torch_importable(s) is not True or F.cuda_available(s) is True:
        return []
    if not (F.has_vendor_gpu(s, "amd") or F.kfd(s) is True):
        return []
    override = F.env(s, "HSA_OVERRIDE_GFX_VERSION")
    arch = [a for a in F.binary_arch_list(s) if a.startswith("gfx")]
    amd = [g for g in F.other_gpus(s) or () if g.vendor == "amd"]
    where = ", ".join(f"{g.bus_id} (device {g.device_id or '?'})" for g in amd[:3]) or "an AMD GPU (/dev/kfd)"
    msg = (f"{F.torch_label(s)} is a ROCm build and this machine has {where}, but torch sees no GPU"
           + (f" (HSA_OVERRIDE_GFX_VERSION={override})" if override else ""))
    expl = ("A ROCm build runs only on the gfx targets it was compiled for"
            + (f" ({', '.join(arch)})" if arch else "") + ". A GPU outside that list (most consumer Radeon cards) is "
            "invisible to torch; ROCm lets such a card run as a close relative with HSA_OVERRIDE_GFX_VERSION "
            "(RDNA 3, gfx110x: 11.0.0; RDNA 2, gfx103x: 10.3.0). Also check that your user can open /dev/kfd and "
            "/dev/dri (groups render and video). Keep the ROCm build: a CPU or CUDA wheel would not use this GPU.")
    if override:
        expl += (f" HSA_OVERRIDE_GFX_VERSION is already {override}: that target does not fit this GPU or this build "
                 "(rocminfo names the GPU's gfx target).")
        fix = "rocminfo | grep -i -m2 gfx   # the GPU's own gfx target\n" + env_assign("HSA_OVERRIDE_GFX_VERSION", None, F.shell(s))
    else:
        fix = ("rocminfo | grep -i -m2 gfx   # the GPU's own gfx target\n"
               "# RDNA 3 (gfx1100-gfx1103):\n" + env_assign("HSA_OVERRIDE_GFX_VERSION", "11.0.0", F.shell(s))
               + "\n# RDNA 2 (gfx1030-gfx1036) instead:  " + env_assign("HSA_OVERRIDE_GFX_VERSION", "10.3.0", F.shell(s)))
    return [finding("TE211", "failure", msg, expl, fix,
                    {"torch": F.torch_version(s), "hip": F.torch_hip(s), "arch_list": arch, "amd_gpus": F.as_details(amd),
                     "kfd": F.kfd(s), "HSA_OVERRIDE_GFX_VERSION": override}, hides=["TE200"])]


def shadowed(s) -> list[dict]:
    """torch imported from the user site (pip --user) or a PYTHONPATH folder while this environment
    has its own torch: fixes and upgrades land on one copy, imports use the other."""
    sh = F.torch_shadowed(s)
    if sh is None:
        return []
    own = sh.shadowed[0]
    imported = sh.imported
    imported_version = imported.version if imported else None
    differs = imported_version and own.version and imported_version != own.version
    sev = "failure" if differs or not imported else "warning"
    msg = (f"torch is imported from {sh.imported_from} ({sh.by}"
           + (f", torch {imported_version}" if imported_version else "")
           + f"), not from this environment's own torch {own.version or '?'} in {own.location}")
    expl = ("Python searches the user site (~/.local, from `pip install --user`) and PYTHONPATH folders before the "
            "environment's site-packages, so that copy is the one imported. Every install into the environment then "
            "changes a torch that is never used, and the report's other findings describe the imported copy.")
    if sh.by == "user site":
        names = ["torch"] + [n for n in ("torchvision", "torchaudio")
                             if (F.package_location(s, n) or "") == sh.imported_from]
        expl += (" Remove the user-site copy: pip finds it first, so its uninstall removes that copy and leaves the "
                 "environment's own. (In a conda environment user sites are on by default; "
                 "`PYTHONNOUSERSITE=1` turns them off for one shell.)")
        fix = ("# removes the copy in the user site (pip finds it before the environment's own):\n"
               + A.pip_command(s, "uninstall", "-y", *names) + "\n" + A.python_cmd(s)
               + " -c 'import torch; print(torch.__file__)'")
    else:
        expl += f" PYTHONPATH puts {sh.imported_from} first: drop that folder from it."
        fix = env_assign("PYTHONPATH", None, F.shell(s))
    return [finding("TE209", sev, msg, expl, fix,
                    {"imported_from": sh.imported_from, "by": sh.by,
                     "imported": imported.to_dict() if imported else {},
                     "environment_copy": own.to_dict(), "torch_file": F.torch_file(s)})]


def companions(s) -> list[dict]:
    tv = F.torch_version(s)
    # A PyPI torch carries no local tag; its flavour still shows in torch.version.cuda.  Only the PyTorch
    # index's labels name an index (cu130, cpu, rocm6.4): NVIDIA's JetPack torch ('+872d972e41.nv24.08')
    # and a source build ('+git...', '0.20.0a0+afc54f7') carry their own, which say nothing of a CUDA index.
    own_label = F.torch_index_label(s) is None and versions.local_label(tv) is not None
    ttag = F.torch_index_label(s) or (None if own_label else kb.tag_from_cuda(F.torch_cuda(s))) or \
        ("cpu" if F.is_cpu_torch(s) and not F.is_macos(s) and not own_label else None)
    if not tv or F.torch_importable(s) is False:
        return []
    out = []
    for name in ("torchvision", "torchaudio"):
        ver = F.package_version(s, name)
        if not ver:
            continue
        ctag = versions.index_label(ver)
        problems = []
        if ttag and ctag and ctag != ttag:
            problems.append(f"{name} {ver} is a {ctag} build, torch {tv} a {ttag} build")
        rel = F.torch_release(s)
        if name == "torchvision":
            want = kb.torchvision_for(rel) if rel else None
            if want and kb.release_key(ver) != want:
                problems.append(f"{name} {ver} belongs to another torch (torch {rel} pairs with torchvision {want})")
        elif name == "torchaudio" and rel and kb.torchaudio_for(rel) and kb.release_key(ver) != kb.torchaudio_for(rel):
            # the release's paired torchaudio (2.15 -> 2.11); none for 2.12-2.14, which no torchaudio pins
            problems.append(f"{name} {ver} belongs to another torch (torch {rel} pairs with torchaudio "
                            f"{kb.torchaudio_for(rel)})")
        if not problems:
            continue
        tag = ttag if ttag and (ttag.startswith("cu") or ttag == "cpu" or ttag.startswith("rocm")) else None
        fix = None
        if name == "torchvision" and rel and F.is_tegra(s) and own_label and kb.torchvision_for(rel):
            # NVIDIA publishes torch, not torchvision, for JetPack: it is built from source against that torch
            fix = A.torchvision_from_source(s, kb.torchvision_for(rel))
        elif tag and rel:
            if name == "torchvision" and kb.torchvision_for(rel):
                spec = f"torchvision=={kb.torchvision_for(rel)}.*"  # quoted by pip_command
            elif name == "torchaudio" and kb.torchaudio_for(rel):
                spec = f"torchaudio=={kb.torchaudio_for(rel)}.*"  # the release's paired torchaudio
            else:
                spec = name
            # --no-deps: replace only the companion, keep the torch that is installed.
            fix = A.pip_command(s, "install", "--force-reinstall", "--no-deps", spec, "--index-url", kb.index_url(tag))
        out.append(finding(
            "TE204", "failure", "; ".join(problems),
            f"{name}'s compiled operators are built against one exact torch and CUDA: a mismatch fails at "
            "import or at the first op (\"operator torchvision::nms does not exist\", \"Detected that PyTorch "
            "and torchvision were compiled with different CUDA major versions\"). Install it from torch's index.",
            fix, {"package": name, "version": ver, "torch": tv, "torch_tag": ttag, "package_tag": ctag}))
    return out


def torch_ok(s) -> list[dict]:
    if F.torch_importable(s) is not True or not F.torch_version(s):
        return []
    if F.is_cuda_torch(s):
        n = F.device_count(s)
        if F.cuda_available(s) is True and n is not None and n > 0:
            names = ", ".join(F.text(d.name) or "?" for d in F.torch_devices(s))
            return [finding("TE205", "ok",
                            f"{F.torch_label(s)} initialised CUDA {F.torch_cuda(s)} and sees {n} GPU{'s' if n != 1 else ''}"
                            + (f" ({names})" if names else ""), "", None,
                            {"torch": F.torch_version(s), "cuda": F.torch_cuda(s), "device_count": n})]
        return []
    if F.is_xpu_torch(s) and F.xpu_available(s):
        xpu = F.xpu(s)
        n = xpu.device_count
        names = ", ".join(str(d) for d in xpu.devices or ())
        return [finding("TE200", "ok", f"{F.torch_label(s)} is an Intel XPU build and sees {n or '?'} Intel GPU"
                        + ("s" if n != 1 else "") + (f" ({names})" if names else "") + ": the CUDA checks do not apply",
                        "", None, {"torch": F.torch_version(s), "xpu": xpu.to_dict()})]
    if F.is_rocm_torch(s):  # (on an NVIDIA-only machine TE206 hides it)
        return [finding("TE200", "ok", f"{F.torch_label(s)} is a ROCm build (HIP {F.torch_hip(s) or '?'}): the CUDA checks do not apply",
                        "", None, {"torch": F.torch_version(s), "hip": F.torch_hip(s)})]
    if F.is_macos(s):
        state = "MPS available" if F.mps_available(s) else "no MPS"
        return [finding("TE200", "ok", f"{F.torch_label(s)} imports ({state})", "", None, {"torch": F.torch_version(s)})]
    if F.is_cpu_torch(s) and F.driver_present(s) is None and not F.driver_gpus(s):
        return [finding("TE200", "ok", f"{F.torch_label(s)} (CPU-only build) imports; whether an NVIDIA driver exists is unknown",
                        "", None, {"torch": F.torch_version(s)})]
    return []


def _live_summary(s) -> str:
    """What torch itself reports, in words: the facts a release the tables lack is judged from."""
    parts = []
    if F.cuda_works(s):
        n = F.device_count(s)
        parts.append(f"it initialised CUDA {F.torch_cuda(s) or '?'} and sees {n if n is not None else 'its'} "
                     f"GPU{'s' if n != 1 else ''}")
    elif F.torch_importable(s) is False:
        parts.append("it does not import in this interpreter, so nothing could be read from it")
    elif F.cuda_available(s) is False:
        err = F.cuda_init_error(s)
        parts.append("CUDA did not initialise" + (f" ({err.splitlines()[0][:160]})" if err else ""))
    if F.binary_arch_list(s):
        parts.append("its binary has kernels for " + " ".join(F.binary_arch_list(s)[:16]))
    if F.torch_requires_python(s):
        parts.append(f"its metadata requires Python {F.torch_requires_python(s)}")
    return "; ".join(parts) or "nothing beyond its version"


def knowledge_gap(s) -> list[dict]:
    """A torch the knowledge tables cannot describe: a release newer than every row
    (TE207) or a CUDA build its release's row does not list (TE208).  The report says so, names the
    tables' date, and the other rules judge it from live facts; `knowledge update` learns it."""
    tv = F.torch_version(s)
    if not tv or F.is_macos(s) or F.is_rocm_torch(s):
        return []
    tag = F.torch_local(s) or kb.tag_from_cuda(F.torch_cuda(s))
    try:
        gap = freshness.torch_gap(tv, tag)
    except kb.KnowledgeError:
        return []
    if gap is None or gap["kind"] not in ("release", "build"):
        return []
    live = _live_summary(s)
    expl = (f"What torch itself reports: {live}. The checks that need a release's row (its CUDA builds and their "
            "GPU architectures, its Python range, the paired torchvision/torchaudio) used those live facts instead, "
            "and no fix in this report replaces this torch with an older release because the tables end earlier. "
            f"`{freshness.UPDATE_COMMAND}` learns newer releases and their builds from the package indexes (PyPI and "
            "download.pytorch.org, or your mirror: --index-url, --mirror).")
    details = {"torch": tv, "tag": tag, "newest_known": gap["newest"], "tables_updated": gap["updated"],
               "overlay_fetched": gap["overlay"], "judged_from": "live facts", "live": live}
    if gap["kind"] == "release":
        return [finding("TE207", "warning",
                        f"{F.torch_label(s)} is newer than {gap['tables']}, which end at torch {gap['newest']}: "
                        "judged from live facts", expl, freshness.UPDATE_COMMAND, details)]
    known = ", ".join(t for t in gap["known_tags"] if t) or "no CUDA build"
    if not gap.get("complete", True):
        expl = (f"The tables' list of torch {gap['release']} builds is known to be incomplete (only the builds that "
                f"could be read are listed). " + expl)
    details["known_tags"] = gap["known_tags"]
    return [finding("TE208", "warning",
                    f"{F.torch_label(s)} is a {tag} build, which {gap['tables']} do not list for torch {gap['release']} "
                    f"(they list {known}): judged from live facts", expl, freshness.UPDATE_COMMAND, details)]


RULES = [not_importable, cpu_wheel, rocm_wheel, xpu_wheel, rocm_gpu, shadowed, companions, numpy_missing, torch_ok,
         knowledge_gap]
