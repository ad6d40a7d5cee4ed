"""Layer rule for decoded error codes: a code of a known family (cudaError_t, CUresult, cuBLAS, cuDNN, NCCL, NVML,
HIP, errno, signals, Windows) read from knowledge/data/error_codes.json, and the advice each code gets.

    error_code       a code of a decoded family (cudaError_t, CUresult, cuBLAS, ..., NCCL, NVML, HIP, errno,
                     signals, Windows)                                  -> the layer its table gives, the code's advice"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.explain.layer_rules.kit import (CONTEXT_TAIL, _HIP_TEXT, _SHM_TEXT, _TF_TEXT, _bare, _context, on_windows,
    _match, _sig)
from torch_envcheck.explain.layer_rules.driver import (_INIT_CALL, _NEWER_GPU_FIX, _ROOT_ONLY_FIX,
    _gpu_newer_than_build, _old_build, _root_only)
from torch_envcheck.explain.layer_rules.rocm import _rocm_pair
from torch_envcheck.knowledge.arm_baseline import armv8_0_regression
from torch_envcheck.explain.layer_rules.packages import _imported_package, _traceback_package


# Per-code advice, by the code's bare name (prefix and underscores removed, lower case): what to do.
_ADVICE = {
    "unknown": ("The CUDA driver failed for an unstated reason; after a suspend/resume the nvidia_uvm module is "
                "left broken; in the middle of a run that had worked, the GPU itself faulted (an Xid in the kernel log).",
                "Reload the unified-memory module: `sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm` (or reboot); "
                "check `nvidia-smi` works. If it came after the program had run for a while, read the kernel log "
                "(`sudo dmesg | grep -i xid`) and the GPU's temperatures and clocks: an overheating or overclocked GPU, "
                "or failing power, is hardware, not the driver package."),
    "systemnotready": ("On NVSwitch machines CUDA waits for NVIDIA Fabric Manager to configure the fabric.",
                       "Install nvidia-fabricmanager of exactly the driver's version and start it: `sudo systemctl "
                       "enable --now nvidia-fabricmanager` (restart it after a driver update)."),
    "systemdrivermismatch": ("The loaded NVIDIA kernel module and the user-space driver libraries differ.",
                             "Reboot (or reload the nvidia kernel modules) so both come from the same driver install."),
    "compatnotsupportedondevice": ("CUDA forward compatibility (the cuda-compat package) is used on a GPU that does not "
                                   "support it (GeForce/consumer GPUs).", "Remove the cuda-compat libraries from "
                                   "LD_LIBRARY_PATH and update the NVIDIA driver instead."),
    "cudartunloading": ("A CUDA call ran while the process was exiting, after the CUDA runtime had been unloaded: a "
                        "destructor, an atexit handler or a thread that outlives the main program.",
                        "Not the installation: release CUDA objects before the program ends (delete models and tensors, "
                        "join worker threads and DataLoader workers, destroy_process_group()); an error printed only at "
                        "exit, after the results were written, is harmless."),
    "deinitialized": ("A CUDA driver call ran while the process was exiting, after the driver had been shut down: a "
                      "destructor, an atexit handler or a thread that outlives the main program.",
                      "Not the installation: release CUDA objects before the program ends (delete models and tensors, "
                      "join worker threads and DataLoader workers, destroy_process_group()); an error printed only at "
                      "exit, after the results were written, is harmless."),
    "insufficientdriver": ("The NVIDIA driver is older than the CUDA runtime needs.",
                           "Update the NVIDIA driver, or install a torch build for an older CUDA that this driver runs."),
    "callrequiresnewerdriver": ("The NVIDIA driver is older than the CUDA runtime needs.",
                                "Update the NVIDIA driver."),
    "nodevice": ("CUDA sees no GPU: none is present, the driver is not loaded, CUDA_VISIBLE_DEVICES hides them, or a "
                 "container was started without one.", "Check `nvidia-smi`; unset CUDA_VISIBLE_DEVICES or give valid "
                 "indices; start containers with `--gpus all`."),
    "stublibrary": ("The libcuda.so loaded is the toolkit's stub, not the driver's.",
                    "Remove the CUDA toolkit's lib64/stubs folder from LD_LIBRARY_PATH."),
    "operatingsystem": ("The operating system refused the GPU call (permissions, cgroups, or an unsupported OS call).",
                        "Check the device nodes /dev/nvidia* are readable (the `video`/`render` groups) and, in "
                        "containers, that the NVIDIA runtime is used; at cuInit, the driver's kernel module can be the "
                        "one failing (`dmesg | grep -i nvrm`): reload or reinstall the NVIDIA driver and reboot."),
    "notpermitted": ("The operation is not permitted for this process (device-node permissions or MIG/exclusive mode).",
                     "Add the user to the `video`/`render` groups (or fix /dev/nvidia* permissions) and re-login."),
    "devicesunavailable": ("The GPU is in exclusive-process mode and busy, or prohibited.",
                           "Check `nvidia-smi -q -d COMPUTE` and the processes using the GPU; set the compute mode to "
                           "Default (`sudo nvidia-smi -c 0`)."),
    "invaliddevice": ("A device index beyond the GPUs this process sees.",
                      "Use an index below torch.cuda.device_count(); check CUDA_VISIBLE_DEVICES."),
    "jitcompilernotfound": ("The PTX JIT compiler library (libnvidia-ptxjitcompiler, part of the driver) is missing.",
                            "Reinstall the NVIDIA driver (containers: use the NVIDIA runtime)."),
    "eccuncorrectable": ("The GPU reported an uncorrectable ECC memory error: hardware.",
                         "Check `nvidia-smi -q -d ECC`, reset the GPU (`nvidia-smi -r`) or have it replaced."),
    "gpuislost": ("The GPU fell off the bus: power, thermal or hardware failure.",
                  "Check dmesg for Xid errors, power and cooling; reboot; reseat or replace the GPU."),
    "librmversionmismatch": ("The NVIDIA kernel module and the user-space driver libraries are of different versions "
                             "(after a driver update without reboot).", "Reboot, or reload the nvidia kernel modules."),
    "driverNotLoaded".lower(): ("No NVIDIA kernel driver is loaded.", "Install the NVIDIA driver and reboot."),
    "librarynotfound": ("libnvidia-ml is not found: no NVIDIA driver, or a container without the NVIDIA runtime.",
                        "Install the NVIDIA driver; start containers with `--gpus all`."),
    "nopermission": ("This user may not access the GPU.",
                     "Add the user to the `video`/`render` groups (or fix /dev/nvidia* permissions) and re-login."),
    "unsupportedptxversion": ("The PTX was generated by a CUDA toolkit newer than the driver supports.",
                              "Update the NVIDIA driver to one that supports the toolkit's CUDA version (or compile "
                              "with the CUDA the driver supports)."),
    "invalidptx": ("The driver could not JIT-compile the PTX (a toolkit newer than the driver).",
                   "Update the NVIDIA driver."),
    "launchtimeout": ("A kernel ran longer than the display watchdog allows: the GPU also drives a display "
                      "(kernelExecTimeoutEnabled; Windows' TDR, or the X server's watchdog on Linux).",
                      "Run on a GPU with no display attached (on Linux, one X does not use); on Windows raise the "
                      "watchdog's delay (TdrDelay under HKLM\\System\\CurrentControlSet\\Control\\GraphicsDrivers, then "
                      "reboot) or update the driver; smaller batches keep each kernel under it."),
    "archmismatch": ("The library has no code for this GPU's architecture.",
                     "Install a build whose CUDA supports this GPU (compute capability): torch's newer CUDA builds."),
}


def code_advice(code: dict) -> tuple | None:
    """(why, fix) this module's table gives for a decoded code (an entity of extract's `codes`), or None."""
    return _ADVICE.get(_bare(code))


_ARCH_FIX_CUDA = ("The binary has no code for this GPU's compute capability (sm_XY). Rebuild it for your GPU "
                  "(TORCH_CUDA_ARCH_LIST=\"8.6\" for torch extensions, CUDA_ARCH_BIN for OpenCV, -gencode arch=compute_XY,"
                  "code=sm_XY for nvcc), or install a build whose arch list includes your GPU.")


_ARCH_FIX_TF = ("This TensorFlow has no kernels (or PTX) for this GPU's architecture: install a TensorFlow release "
                "built with a CUDA that supports it (TensorFlow 2.4 or newer, CUDA 11, for Ampere GPUs such as A100 / RTX "
                "30xx; the newest release for newer GPUs), `pip install -U 'tensorflow[and-cuda]'`.")


_ARCH_FIX_HIP = ("The ROCm build has no code object for this GPU's gfx target. For a consumer RDNA GPU close to a "
                 "supported one, run with HSA_OVERRIDE_GFX_VERSION (e.g. HSA_OVERRIDE_GFX_VERSION=10.3.0 for gfx103x, "
                 "11.0.0 for gfx110x), or install a ROCm/torch build that lists your gfx target. A target no current "
                 "official build lists (one ROCm dropped, or never shipped) needs torch built from source for it "
                 "(`PYTORCH_ROCM_ARCH=<gfx target> python setup.py develop`) or an older ROCm release that still "
                 "shipped it. A program built here (llama.cpp, a CMake or hipcc project) is rebuilt with its target "
                 "list naming the GPU: `-DAMDGPU_TARGETS=<gfx target>` (GPU_TARGETS in newer CMake files) or "
                 "`--offload-arch=<gfx target>` for hipcc; `rocminfo | grep gfx` names it.")


_NE_LOOK = {
    "memoryallocation": "The GPU ran out of memory: reduce the batch size or model size, free cached tensors, or use a "
                        "GPU with more memory (torch.cuda.memory_summary() shows who holds it).",
    "outofmemory": "The GPU ran out of memory: reduce the batch size or model size (torch.cuda.memory_summary()).",
    "allocfailed": "An allocation failed: the GPU is out of memory. Reduce the batch size or model size.",
    "notinitialized": "Creating the library's handle failed, which in practice means the GPU was out of memory at that "
                      "moment (or an earlier CUDA error): reduce the batch size, and rerun with CUDA_LAUNCH_BLOCKING=1 "
                      "to see the first error.",
    "illegaladdress": "A kernel accessed memory it does not own: a bug in the program or an extension (often an "
                      "out-of-range index). Rerun with CUDA_LAUNCH_BLOCKING=1 to see where.",
    "launchfailure": "A kernel failed: rerun with CUDA_LAUNCH_BLOCKING=1 to find the failing operation.",
    "assert": "A device-side assert fired (usually an index out of range, e.g. a label >= the number of classes); "
              "rerun with CUDA_LAUNCH_BLOCKING=1.",
}


_UNIT = {"b": 1 / 2 ** 30, "kib": 1 / 2 ** 20, "kb": 1 / 2 ** 20, "mib": 1 / 1024, "mb": 1 / 1024, "gib": 1.0,
         "gb": 1.0, "tib": 1024.0, "tb": 1024.0}
_SIZE = r"(\d{1,7}(?:\.\d{1,4})?)\s{0,2}([KMGT]i?B|B)\b"
# the sizes an out-of-memory report gives: TensorFlow 1.x's device lines ("Total memory: 7.91GiB / Free memory:
# 148.69MiB"), torch's older message ("(GPU 0; 7.79 GiB total capacity; 1.20 GiB already allocated; 10.50 MiB free;
# 1.30 GiB reserved in total by PyTorch)") and its newer one ("GPU 0 has a total capacity of 23.65 GiB of which 13.06
# MiB is free. ... Including non-PyTorch memory, this process has 2.10 GiB memory in use.")
_TF_MEMORY = re.compile(r"Total memory:\s{0,3}" + _SIZE + r"\s{0,8}Free memory:\s{0,3}" + _SIZE, re.ASCII)
_TORCH_OLD_MEMORY = re.compile(_SIZE + r" total capacity; [^;\n]{1,40}; " + _SIZE + r" free; " + _SIZE +
                               r" reserved in total by PyTorch", re.ASCII)
_TORCH_NEW_MEMORY = re.compile(r"total capacity of " + _SIZE + r" of which " + _SIZE + r" is free\.[^\n]{0,400}?"
                               r"this process has " + _SIZE + r" memory in use", re.ASCII)


def _gib(num: str, unit: str) -> float:
    return float(num) * _UNIT[unit.lower()]


def _held_elsewhere(text: str):
    """(total GiB, GiB held outside this process) when the report's own sizes say most of the GPU's memory was taken
    before this process asked (by other processes, or a context left behind), else None."""
    tail = text[-CONTEXT_TAIL:]
    m = _TF_MEMORY.search(tail)
    if m:
        total, free = _gib(*m.group(1, 2)), _gib(*m.group(3, 4))
        # TensorFlow prints these lines as the device is created, before it allocates anything
        other = total - free
    else:
        m = _TORCH_NEW_MEMORY.search(tail)
        if m:
            total, free, mine = _gib(*m.group(1, 2)), _gib(*m.group(3, 4)), _gib(*m.group(5, 6))
            other = total - free - mine
        else:
            m = _TORCH_OLD_MEMORY.search(tail)
            if not m:
                return None
            total, free, mine = _gib(*m.group(1, 2)), _gib(*m.group(3, 4)), _gib(*m.group(5, 6))
            # a CUDA context outside PyTorch's allocator takes up to about 1 GiB of its own
            other = total - free - mine - 1.0
    if total > 0 and other > max(1.0, 0.5 * total):
        return total, other
    return None


BURST = 3000


def error_code(ent, text):
    codes = [c for c in ent.codes if c.get("layer") not in (None, "none")]
    if not codes:
        return None
    # prefer a code read from its name or message over a bare number, the last of them
    strong = [c for c in codes if c.get("how") in ("name", "message", "signal")] or \
        [c for c in codes if c.get("how") == "message-context"]
    # a crash signal is the consequence of what was printed before it: a code read from a number beats it
    pool = ([x for x in (strong or codes) if x.get("family") != "signal"] or
            [x for x in codes if x.get("family") != "signal"] or (strong or codes))
    # the first code of the last burst (codes within BURST characters of the last one): once CUDA fails, later
    # calls fail too, so the first of them is the cause
    last = pool[-1]["at"]
    burst = [x for x in pool if last - x["at"] <= BURST]
    env = [x for x in burst if x.get("layer") not in ("not-environment",)]
    c = (env or burst)[0] if burst else pool[-1]
    via_collective = False
    if c["family"] in ("ncclResult_t", "rcclResult_t") and _bare(c) == "unhandledcudaerror":
        # NCCL's "unhandled cuda error" wraps a CUDA call that failed: the CUDA code it printed (by name, message or
        # number, often on a WARN line before it) is the cause, and its layer is the answer
        under = [x for x in codes if x["family"] in ("cudaError_t", "CUresult") and abs(x["at"] - c["at"]) <= BURST]
        under = [x for x in under if x.get("layer") != "not-environment" or _bare(x) == "peeraccessunsupported"
                 or _context(text, _NVLS_TEXT)]
        if under:
            c, via_collective = under[0], True
    bare = _bare(c)
    fam, layer = c["family"], c["layer"]
    if bare in ("cudartunloading", "deinitialized") and c.get("how") == "number":
        # a bare 4 is teardown only in today's numbering (CUDA 10.1 renumbered the runtime's codes): without the name
        # or the message it is a driver-side failure as it was read before
        layer = "driver"
    hip = fam == "hipError_t" or (fam == "cudaError_t" and _context(text, _HIP_TEXT))
    if hip and layer not in ("not-environment",):
        layer = "rocm"
    hip_init = hip and _context(text, r"hipGetDeviceCount|hipInit|HIP initialization|NumHipDevices")
    caps = {"code": c["name"], "value": c["value"], "code_message": c.get("message") or c.get("description"),
            "library": c.get("library")}
    meaning = c.get("description") or c.get("message") or ""
    meaning = c.get('message') or c.get('description')
    title = f"{c['library']} {c['name']} ({c['value']})" + (f": {meaning}" if meaning else "")
    explanation = (f"{c['name']} = {c['value']} in {fam}: {meaning}").rstrip()
    fix = None
    look = None
    sources = ()
    priority = {"name": 64, "message": 64, "message-context": 61}.get(c.get("how"), 58)
    newer = _gpu_newer_than_build(ent)
    # the CUDA code printed on NCCL's own NVLS line ("Failed to bind NVLink SHARP (NVLS) Multicast memory: CUDA error
    # 401") is the same call, whether or not NCCL's unhandled-CUDA-error code follows it in the paste
    line_start = text.rfind("\n", 0, c["at"]) + 1
    nvls_line = re.search(r"(?i:nvls)|NVLink SHARP|[Mm]ulticast", text[line_start:c["at"] + 200].split("\n", 1)[0]) is not None
    if (via_collective or nvls_line) and layer == "not-environment" and bare != "peeraccessunsupported":
        # a CUDA call NCCL made on NVLink SHARP (multicast) memory failed: the NVSwitch fabric's state, which the
        # Fabric Manager keeps (restarted, stopped or at another version than the driver)
        layer = "driver"
        fix = ("NCCL's NVLink SHARP (NVLS) setup failed in CUDA: the NVSwitch fabric is not in a usable state. Check "
               "the Fabric Manager (`systemctl status nvidia-fabricmanager`; its version must equal the driver's), "
               "restart it or reboot the host; meanwhile NCCL_NVLS_ENABLE=0 avoids NVLS.")
        explanation += " NCCL failed while binding NVLS (multicast) memory: the NVSwitch fabric, not the program."
    elif fam == "miopenStatus_t" and layer == "rocm":
        # MIOpen's own failures (its Exception's default status): a kernel it could not compile or find for the
        # GPU, a database or cache it could not read, write or lock, a configuration none of its solvers handles
        fix = ("MIOpen (ROCm's convolution library, which torch uses on AMD GPUs as cuDNN on NVIDIA's) failed inside "
               "itself. Rerun with MIOPEN_ENABLE_LOGGING=1 MIOPEN_LOG_LEVEL=5 to see the solver and the step that "
               "failed; make its user database and kernel cache writable (MIOPEN_USER_DB_PATH, "
               "MIOPEN_CUSTOM_CACHE_DIR; by default under ~/.config/miopen and ~/.cache/miopen) and try "
               "MIOPEN_FIND_MODE=FAST; `torch.backends.cudnn.enabled = False` confirms it is MIOpen (torch then "
               "uses its own kernels for that layer). Where the GPU's gfx target or this convolution is not yet "
               "supported, a newer ROCm and torch build (its MIOpen) is the fix.")
        explanation += (" MIOpen returns it for failures of its own (a kernel that did not compile, a database it "
                        "could not use, a configuration no solver handles), not for a wrong argument.")
        sources = ({"url": "https://rocm.docs.amd.com/projects/MIOpen/en/latest/reference/env_variables.html",
                    "what": "MIOpen's environment variables: logging, find mode, databases and cache"},)
    elif hip and layer == "rocm" and bare not in ("nokernelimagefordevice", "nobinaryforgpu", "invaliddevicefunction") \
            and _rocm_pair(ent, text):
        # torch's ROCm and the system's ROCm set against each other: code compiled here (an extension's hipcc) used
        # the system's, torch's wheel carries its own; a HIP failure between them is that difference
        built, system = _rocm_pair(ent, text)
        fix = (f"torch is built for ROCm {built}, the system's ROCm is {system}: install the torch build for ROCm "
               f"{system} (`pip install torch --index-url https://download.pytorch.org/whl/rocm{system}`, or its "
               f"nightly when no release has it) so torch and what was compiled here (hipcc from /opt/rocm) match, "
               f"then rebuild the compiled packages; or install ROCm {built} to match torch.")
        explanation += f" torch is built for ROCm {built}; the system's ROCm is {system}."
    elif bare == "memoryallocation" and fam == "cudaError_t" and ent.platform.get("wsl") and \
            "Tried to allocate" not in text[-CONTEXT_TAIL:]:
        # a CUDA call's own out-of-memory (not the caching allocator's "Tried to allocate": the GPU's memory was
        # not what ran out) under WSL 2: CUDA on WSL limits pinned (page-locked) host memory, and the WSL VM has a
        # memory limit of its own (NVIDIA's CUDA on WSL guide, known limitations)
        layer = "wsl"
        fix = ("Under WSL 2, CUDA's pinned (page-locked) host memory is limited and the WSL VM's memory is capped: "
               "set pin_memory=False in the DataLoader (and avoid large pinned buffers), and give the VM more memory "
               "and swap in %UserProfile%\\.wslconfig (`[wsl2]` `memory=...`, `swap=...`, then `wsl --shutdown`). "
               "If the GPU's own memory is full (`nvidia-smi`), use a smaller batch instead.")
        explanation += (" Raised by a CUDA call, not by torch's allocator running out of GPU memory, in a text from "
                        "WSL 2: CUDA on WSL limits pinned host memory.")
    elif bare in ("executionfailed", "archmismatch", "internalerror", "nokernelimagefordevice", "invaliddevicefunction",
                  "nobinaryforgpu") and newer and not hip:
        layer = "arch"
        fix = _NEWER_GPU_FIX
        caps.update(newer)
        explanation += (" {gpu} is compute capability {capability} ({sm}), which CUDA {cuda} predates: no library "
                        "built with it has code for this GPU.")
    elif fam == "cufftResult" and bare == "internalerror":
        # cuFFT raises it from inside the library on a valid plan: in practice a cuFFT without code for the GPU
        # (torch built with CUDA 11.7 on Ada / Hopper, with 12.x < 12.8 on Blackwell)
        layer = "arch"
        fix = ("cuFFT failed inside the library: the cuFFT this build ships predates the GPU (CUDA 11.7 or older on "
               "RTX 40xx / L4 / H100, sm_89/sm_90; older than CUDA 12.8 on RTX 50xx / B200). Install a torch built "
               "with a newer CUDA: CUDA 11.8 or newer (cu118, cu12x; cu128 for Blackwell), from "
               "https://pytorch.org/get-started/locally/.")
        explanation += " On a valid transform, an internal cuFFT error means its kernels do not support this GPU."
    elif bare in ("executionfailed", "archmismatch", "internalerror") and not hip and not ent.gpus and \
            (old := _old_build(ent, text)):
        # a kernel that cannot run at all under a stack built with CUDA 9/10 (torch before 1.7, TensorFlow before 2.4),
        # the GPU not named: every GPU sold since 2020 is of an architecture those toolkits cannot build for (the
        # table calls these codes the program's; the build's age says otherwise)
        layer = "arch"
        fix = ("Check the GPU (`nvidia-smi -L`): a GPU of the {generation} generation or newer ({sm} and later) needs "
               "code built with "
               "CUDA {first_cuda} or newer (Ampere, RTX 30xx / A100: CUDA 11.1; Ada and Hopper: 11.8; Blackwell, RTX "
               "50xx: 12.8), which this build predates. Install a current build (torch from "
               "https://pytorch.org/get-started/locally/ with a cu118 or cu12x wheel; TensorFlow 2.12 or newer) with "
               "the driver it needs. Only on an older GPU is it the program: rerun with CUDA_LAUNCH_BLOCKING=1 to see "
               "the failing call.")
        caps.update(old)
        explanation += (" {stack} predates the {generation} GPUs and every later generation: a build made with CUDA "
                        "{cuda} has no code for them, and its kernels fail to launch there. Each needs at least: "
                        "{needs}.")
    elif bare == "toomanypeers":
        # cudaEnablePeerAccess beyond the hardware's peer limit (8 peers per GPU): a process that enables peer access
        # to every visible GPU, the shape of a launch that gives each process all GPUs (the table's layer)
        fix = ("A process enabled peer access to more GPUs than the hardware allows (8 peers per GPU). Give each process "
               "only its own GPU: launch one process per GPU (torchrun --nproc_per_node / Accelerate's num_processes "
               "equal to the GPUs used, each setting torch.cuda.set_device(LOCAL_RANK)), or restrict the visible GPUs "
               "with CUDA_VISIBLE_DEVICES; `accelerate test` checks an Accelerate configuration.")
        explanation += " Peer access between GPUs is limited to 8 peers per device."
    elif c.get("how") == "debugger" and layer == "not-environment":
        look = ("cuda-gdb prints a warning for every CUDA API call that returns an error, including errors the program "
                "expects and handles (here " + c["name"] + "): harmless when the program goes on; not an installation "
                "problem: the installation needs no change.")
        explanation += " Reported by cuda-gdb (\"Cuda API error detected\"), a debugger warning, not a failure of the program."
    elif bare == "peeraccessunsupported" and _context(text, r"NCCL|nccl|IPC|all_reduce|allreduce"):
        layer = "distributed"
        fix = ("The GPUs cannot reach each other peer-to-peer (PCIe topology, IOMMU/ACS, or consumer GPUs without P2P), "
               "and the collective library tried P2P/IPC between them: set NCCL_P2P_DISABLE=1 (it must reach every "
               "worker process; for a custom all-reduce, disable it), or enable P2P in the platform (IOMMU/ACS "
               "settings); `nvidia-smi topo -p2p r` shows which pairs can.")
        explanation += " NCCL (or a custom all-reduce) needs peer access between the GPUs for its P2P transport."
    elif layer == "not-environment" and fam in ("cudaError_t", "CUresult") and _INIT_CALL.search(
            text[max(0, c["at"] - 400):c["at"] + 80]):
        # returned while CUDA starts (cudaGetDeviceCount, cuInit): no argument of the program is involved yet, so
        # whatever the table says of the code elsewhere, here it is the driver refusing this process
        layer = "driver"
        if _root_only(text):
            fix = _ROOT_ONLY_FIX
            explanation += " The GPU works for root only: this user may not open its device nodes."
        else:
            fix = ("CUDA failed while starting, before the program ran any kernel: check the driver (`nvidia-smi`; "
                   "`dmesg` for NVRM/Xid lines), that this user may open the GPU's device nodes (`ls -l /dev/nvidia*`, "
                   "Jetson: the `video` group), and, in a container or VM, that the GPU is passed in with its driver.")
        explanation += " It was returned while CUDA initialised, so it is the driver's or the machine's answer."
    elif layer == "not-environment" and fam == "ur_result_t":
        # oneAPI's Unified Runtime (SYCL, torch's XPU builds): no CUDA tools apply
        look = ("An error of the program or its workload on the Intel GPU, not of the installation: " +
                ("the device ran out of memory or resources for this work: a smaller batch or tensor, or "
                 "torch.xpu.empty_cache() between steps." if re.search(r"outof|allocation", bare) else
                 "run with SYCL_UR_TRACE=1 to see the failing call, and check the "
                 "operation's arguments; a torch operator failing so on valid input is a torch-xpu-ops bug to report."))
    elif layer == "not-environment":
        look = _NE_LOOK.get(bare) or ("An error of the program or its inputs, not of the installation: "
                                      "rerun with CUDA_LAUNCH_BLOCKING=1 to see the failing call, and check its arguments.")
        if bare not in _NE_LOOK and bare in _ADVICE:
            # a code with its own reading (teardown after the runtime unloaded): that, not the generic one
            explanation += " " + _ADVICE[bare][0]
            look = _ADVICE[bare][1]
        if bare == "notsupported" and fam == "cudnnStatus_t":
            # cuDNN has no algorithm for these arguments: torch's own message names a non-contiguous input; the
            # other usual ones are a tensor past cuDNN's size limits (a batch too large) or a dtype/layout it lacks
            look = ("cuDNN has no algorithm for this call's arguments (CUDNN_STATUS_NOT_SUPPORTED), a limit of the "
                    "inputs, not of the installation: make the input contiguous (`x = x.contiguous()` after permute / "
                    "transpose / expand), use a smaller batch size (a tensor too large for cuDNN: split the batch), "
                    "and check the dtype and memory format; the installation is fine.")
        held = _held_elsewhere(text) if bare in ("outofmemory", "memoryallocation", "allocfailed") else None
        if held:
            look = (f"Something else holds the GPU's memory: about {held[1]:.1f} of its {held[0]:.1f} GiB were in use "
                    "outside this process when it asked. `nvidia-smi` lists the processes holding it (another job, a "
                    "notebook kernel, a stale process from an earlier run): stop them or pick a free GPU with "
                    "CUDA_VISIBLE_DEVICES. The installation is fine.")
        if bare == "notinitialized" and fam == "cublasStatus_t":
            explanation += (" cublasCreate returns it when it cannot allocate its workspace: the GPU was out of memory "
                            "(or a previous CUDA error left the context broken).")
    elif hip and bare == "nodevice":
        fix = ("HIP sees no GPU: check that `rocminfo` (Windows: `hipInfo`) lists it. The GPU must be one this ROCm / HIP "
               "SDK release supports (its supported-GPUs list; older parts such as gfx803 / RX 580 are not supported by "
               "recent releases: use an older release or a supported GPU); on Linux the user needs the `render` and "
               "`video` groups and the amdgpu driver loaded; HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES must not hide "
               "it; a container needs --device=/dev/kfd --device=/dev/dri; on Windows the HIP SDK needs the AMD driver of "
               "its release and the Visual C++ runtime.")
    elif hip_init:
        fix = ("HIP could not start on this GPU: check the kernel driver's messages (`dmesg | grep -i kfd`): older GPUs "
               "(gfx803) need PCIe atomics support from the CPU/motherboard; a gfx target ROCm does not ship needs "
               "HSA_OVERRIDE_GFX_VERSION; check the user is in the `render` and `video` groups.")
        explanation += " HIP failed while counting the GPUs: the ROCm kernel driver (amdgpu/kfd) refused the device."
    elif bare in ("nokernelimagefordevice", "nobinaryforgpu", "invaliddevicefunction", "invalidkernelimage",
                  "invalidimage", "invalidkernelfile"):
        fix = _ARCH_FIX_HIP if hip else (_ARCH_FIX_TF if _context(text, _TF_TEXT) else _ARCH_FIX_CUDA)
        if hip and re.search(r"(?i)\btriton\b", text[-CONTEXT_TAIL:]):
            # Triton's AMD backend compiles for the target the device reports (parse_options: TRITON_OVERRIDE_ARCH)
            fix = ("Triton compiled its kernel for the gfx target it detected, which this GPU does not load: set "
                   "TRITON_OVERRIDE_ARCH to the GPU's own target (its name in `rocminfo` / `hipInfo`, e.g. "
                   "TRITON_OVERRIDE_ARCH=gfx1201 for a Radeon RX 9070 XT) before Python starts. " + fix)
        explanation += " The binary was not compiled for this GPU's architecture."
    elif fam == "ncclResult_t":
        fix = _nccl_fix(bare, text)
    elif fam == "signal":
        fix, explanation, layer = _signal_fix(c, text, explanation, layer, _torch_version_named(ent, text))
    elif fam == "windows" and c["value"] == 206 or (fam == "errno" and c["name"] == "ENOENT" or fam == "windows" and
                                                    c["value"] in (2, 3)) and _long_windows_path(text, c["at"]):
        # a file Windows cannot reach because its path is longer than MAX_PATH: the OS's limit, not a missing file
        fix, layer = _LONG_PATH_FIX, "windows-runtime"
        explanation += (" The path named is longer than Windows' MAX_PATH (260 characters): without long-path support "
                        "enabled, Windows reports such a file as not found.")
    elif fam == "errno":
        fix, layer = _errno_fix(c, text, layer)
    elif fam == "windows" and c["value"] in (127, 0xC0000139) and _dll_owner(ent):
        owner = _dll_owner(ent)
        caps["package"] = owner
        fix = ("A DLL of {package} lacks a procedure another of its DLLs wants: files of two {package} versions are "
               "mixed in its folder (an upgrade over an old install, a failed uninstall). Remove it completely: `pip "
               "uninstall -y {package}` (repeat until pip finds none), delete what is left of its folder in "
               "site-packages, then install it again; keep other copies of its DLLs off PATH.")
    elif fam == "windows" and c["value"] in (2, 3) and _MISSING_TOOL.search(text[-CONTEXT_TAIL:]):
        # Windows' "file not found" when a build runs a tool: errno's ENOENT by another name
        fix, layer = _errno_fix(dict(c, name="ENOENT"), text, layer)
    elif fam == "windows" and c["value"] in (126, 0xC0000135) and _cuda_dll(ent):
        # the DLL named was found (its path is printed); what is missing is a DLL it imports, and for a CUDA part
        # those are the CUDA runtime / cuBLAS / cuDNN DLLs of the versions its build was made with
        caps["dll"] = _cuda_dll(ent)
        fix = ("{dll} was found, but a DLL it depends on was not (Windows error 126 names no file): for a CUDA part "
               "that is the CUDA runtime, cuBLAS and cuDNN DLLs of the major versions its release was built with (its "
               "requirements page lists them: CUDA 11 or 12, cuDNN 8 or 9). Install those versions and put their bin "
               "folders on PATH (cuDNN 9 keeps its DLLs in bin\\<CUDA version>), or, from Python, add the nvidia-* "
               "wheels' folders with os.add_dll_directory; the Microsoft Visual C++ Redistributable (x64) is the other "
               "usual missing dependency. `dumpbin /dependents` on the DLL lists what it imports.")
    elif fam == "windows":
        fix = _windows_fix(c)
    elif fam == "nvmlReturn_t" and bare == "operatingsystem":
        fix = ("The operating system keeps this process from the GPU's control device: in a container, the NVIDIA "
               "runtime's cgroup setup (no-cgroups in /etc/nvidia-container-runtime/config.toml, or --privileged / "
               "the device list); under WSL 2 or a GPU-PV VM, the Windows host must expose the GPU (WDDM mode, a "
               "driver that supports WSL).")
    elif fam in ("cudaError_t", "CUresult") and bare == "notsupported":
        explanation += (" The operation the program asked for is not available on this GPU, driver or platform: most "
                        "often the asynchronous allocator (cudaMallocAsync: ComfyUI's default, or "
                        "PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync), which needs memory pools that older GPUs "
                        "(Maxwell and earlier, the MX series), vGPU and some virtual machines lack; or CUDA IPC, "
                        "peer-to-peer or managed memory where the platform (WSL 2, Windows) does not offer them.")
        fix = ("Use the default (native) allocator: ComfyUI with `--disable-cuda-malloc`, otherwise remove "
               "backend:cudaMallocAsync from PYTORCH_CUDA_ALLOC_CONF. If the failing call shares CUDA tensors between "
               "processes (DataLoader workers, multiprocessing) or between GPUs, keep them in one process (num_workers=0 "
               "for CUDA tensors) or on one GPU; `nvidia-smi -q` shows what the GPU and driver support.")
    elif fam == "ur_result_t" and layer in ("driver", "arch", "env"):
        fix = {"driver": "Check Intel's GPU stack: `sycl-ls` (or `clinfo`) must list the GPU with its Level Zero "
                         "driver; install or update Intel's GPU driver (Linux: the compute runtime, intel-level-zero-gpu "
                         "and intel-opencl-icd from Intel's repository; Windows: the current Arc / Iris Xe graphics "
                         "driver) and reboot. A device lost under memory pressure is fixed in newer drivers; meanwhile "
                         "keep the work inside the GPU's memory (torch.xpu.set_per_process_memory_fraction).",
               "arch": "The device-side program could not be built for this GPU: it uses a feature the GPU lacks (FP64 "
                       "on integrated GPUs: set OverrideDefaultFP64Settings=1 and IGC_EnableDPEmulation=1 for the "
                       "compute runtime's emulation, or keep the tensors in float32), or the build log names what "
                       "failed; a discrete GPU with the feature runs it.",
               "env": "Check the device index the program uses and ONEAPI_DEVICE_SELECTOR / ZE_AFFINITY_MASK, which "
                      "choose the visible Intel GPUs."}[layer]
        sources = sources + ({"url": "https://github.com/pytorch/pytorch/issues/149953",
                              "what": "XPU on an iGPU without FP64: the compute runtime's FP64 emulation settings"},)
    elif fam == "VkResult" and layer in ("driver", "arch", "env"):
        fix = _vulkan_fix(bare, layer, ent, text)
        sources = sources + (_VK_LOADER,)
    elif bare == "unknown" and fam in ("cudaError_t", "CUresult") and on_windows(ent, text):
        # nvidia_uvm and dmesg are Linux's: on Windows the driver package itself is what to renew
        fix = ("Update the NVIDIA driver to a current release for this GPU (a clean install: NVIDIA's installer, "
               "\"Perform a clean installation\") and reboot; check `nvidia-smi` lists the GPU. If it came after the "
               "program had run for a while, watch the GPU's temperatures and clocks (an overclock, or failing power, is "
               "hardware) and Windows' event log for a display driver reset (TDR).")
        explanation += " " + _ADVICE[bare][0].split(";")[0] + "."
    elif bare in _ADVICE and not (bare in ("cudartunloading", "deinitialized") and c.get("how") == "number"):
        extra, fix = _ADVICE[bare]
        explanation += " " + extra
    else:
        fix = {"driver": "Check the NVIDIA driver: `nvidia-smi` must list the GPU; update or reinstall the driver "
                         "and reboot.",
               "libraries": "Check which CUDA libraries are loaded: keep one CUDA version (torch's nvidia-* wheels) and "
                            "remove other CUDA folders from LD_LIBRARY_PATH.",
               "env": "Check CUDA_VISIBLE_DEVICES and the device index the program uses.",
               "toolchain": "Check the compiler/JIT options and the CUDA toolkit version the program compiles with.",
               "distributed": "Rerun with NCCL_DEBUG=INFO and check the network interfaces (NCCL_SOCKET_IFNAME) and "
                              "/dev/shm.",
               "arch": _ARCH_FIX_CUDA, "rocm": _ARCH_FIX_HIP,
               "container": "Give the container enough shared memory: `docker run --shm-size=8g` or `--ipc=host`.",
               "windows-runtime": "Install the Microsoft Visual C++ Redistributable (x64)."}.get(
            layer, "Run `torch-envcheck` to check the installation.")
    if via_collective:
        priority = 80  # the cause under NCCL's wrapper: above the wrapper's own sentence
    if layer == "arch" and newer:
        priority = 89
    if fam in ("windows", "errno", "signal"):
        priority = 66 if c.get("how") != "number" or fam == "windows" else 60
        if fam == "signal":
            # a crash signal is the consequence of whatever was printed before it; only a bus error in shared
            # memory says its own cause
            priority = 66 if (c["name"] == "SIGBUS" and layer == "container") else 50
        if fam == "windows" and c["value"] not in (126, 0xC0000135):
            priority = 77  # decisive (the paging file, a wrong-bitness DLL): above "Error loading X" DLL guesses
    # the reason Windows gave on a "DLL load failed" line, other than a missing module: it says more than that
    # line's own sentence (which assumes a missing DLL), unless a third-party package's module is the one that
    # failed (its build for torch is the question: packages.package_dll_load_failed)
    reason = (fam == "windows" and c.get("how") == "message" and c["value"] not in (2, 3, 126, 1114, 0xC0000135)
              and not (_traceback_package(ent) or _imported_package(text)))
    sig = _sig(f"code-{fam.lower().replace('_t', '').replace('_', '-')}-{bare[:40]}", layer, title, priority,
               explanation, fix=fix, look_at=look,
               causes=(("machine", "CUDA failed to initialise for another reason", ("TE303",)),) if layer == "driver" else (),
               areas=("driver",) if layer == "driver" else (),
               sources=({"url": c.get("source") or "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html",
                         "what": f"{fam}: {c['name']} = {c['value']} (the header that declares it)"},) + sources,
               generic=not reason)
    return _match(sig, text, c["at"], caps)


_NVLS_TEXT = r"NVLS|NVLink SHARP|[Ff]abric ?[Mm]anager|NVSwitch"

# Vulkan's loader finds drivers (ICDs) by their manifest files: on Linux /usr/share/vulkan/icd.d/*.json (NVIDIA's
# nvidia_icd.json, installed with the driver's GL/Vulkan part; Mesa's radeon_icd/intel_icd/lvp_icd from
# mesa-vulkan-drivers), VK_ICD_FILENAMES / VK_DRIVER_FILES to point at one; `vulkaninfo` lists what it found
_VK_LOADER = {"url": "https://github.com/KhronosGroup/Vulkan-Loader/blob/main/docs/LoaderDriverInterface.md",
              "what": "Vulkan's loader: driver (ICD) manifests, their search paths, VK_DRIVER_FILES / VK_ICD_FILENAMES"}


def _vulkan_fix(bare: str, layer: str, ent, text: str) -> str:
    wsl = bool(ent.platform.get("wsl")) or _context(text, r"/usr/lib/wsl|\bWSL\b|microsoft-standard")
    if layer == "arch":
        return ("The GPU or its driver does not offer what the program asked of Vulkan (a feature, a format): update the "
                "GPU driver, check the device's limits with `vulkaninfo`, or run the program's CPU build (or another "
                "backend) on this GPU.")
    if layer == "env":
        return ("A layer named for the Vulkan loader (VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE, or the program's "
                "validation-layer option) is not installed: unset it, or install the layers (the Vulkan SDK, or the "
                "distribution's vulkan-validationlayers package).")
    if bare in ("incompatibledriver", "initializationfailed"):
        return ("The Vulkan loader found no working driver for a GPU (`vulkaninfo --summary` lists what it finds): "
                + ("WSL 2 has none by default: install Mesa's Vulkan drivers with the d3d12 (dozen) driver, or run the "
                   "program's CPU build; " if wsl else "") +
                "install the GPU driver's Vulkan part (NVIDIA: the driver with its GL/Vulkan libraries, not a "
                "--no-opengl-files or compute-only install, whose /usr/share/vulkan/icd.d/nvidia_icd.json names "
                "libGLX_nvidia; AMD and Intel: mesa-vulkan-drivers; Windows: the GPU vendor's current driver), or in a "
                "container start it with `-e NVIDIA_DRIVER_CAPABILITIES=all`; without a Vulkan-capable GPU use the "
                "program's CPU build (a build without its Vulkan backend).")
    return ("The GPU's Vulkan driver failed (a lost device, an extension it lacks, an unstated error): update or "
            "reinstall the GPU driver and reboot; `vulkaninfo --summary` shows the driver in use. A device lost in the "
            "middle of a run can also be the GPU itself (its clocks, power, temperatures).")


def _nccl_fix(bare: str, text: str) -> str:
    if _context(text, r"Duplicate GPU detected"):
        return ("Each rank must use its own GPU: call torch.cuda.set_device(local_rank) (LOCAL_RANK from torchrun) before "
                "init_process_group, or give each process one GPU with CUDA_VISIBLE_DEVICES.")
    if _context(text, r"/dev/shm|shared memory|shm"):
        return ("NCCL could not create its shared-memory segments: enlarge /dev/shm (`docker run --shm-size=8g` or "
                "`--ipc=host`), or set NCCL_SHM_DISABLE=1.")
    if bare == "invalidusage":
        return ("Check that every rank uses its own GPU (torch.cuda.set_device(local_rank) with LOCAL_RANK), the same "
                "collective order and the same world size; rerun with NCCL_DEBUG=WARN.")
    return ("Rerun with NCCL_DEBUG=INFO: check /dev/shm is large enough (containers: `--shm-size` or `--ipc=host`), "
            "the network interface (NCCL_SOCKET_IFNAME), and that every rank uses its own GPU (set_device(LOCAL_RANK)).")


# (macOS' shells print a signal's number after its name: "Illegal instruction: 4", "Abort trap: 6")
# Names are bounded by ASCII letters and digits, not \b: in Chinese or Japanese prose ("换成M1的Mac笔记本") the
# characters around a name are word characters too.
_MAC_TEXT = (r"(?im)(?:Illegal instruction|Abort trap|Segmentation fault|Bus error): \d{1,2}[ \t]*$|\bdarwin\b|macOS|"
             r"(?<![A-Za-z0-9])mac ?book|(?<![A-Za-z0-9])Mac(?![A-Za-z0-9])|Apple (?:M\d|silicon)|"
             r"(?<![A-Za-z0-9])M[1-4](?: (?:Pro|Max|Ultra|chip))?(?![A-Za-z0-9])[^\n]{0,20}(?:Mac|chip|芯片)|Mac ?M[1-4]|arm64")


_INTEL_MAC_TEXT = r"(?i)Intel (?:Mac|Core|i[3579])|x86_64[^\n]{0,40}darwin|macosx_\d{1,2}_\d{1,2}_x86_64"
# Apple silicon in the words of a user: a chip named after a preposition ("on M1"), Rosetta, `arch` printing i386 (a
# shell under Rosetta answers i386)
_APPLE_SILICON_WORDS = (r"(?i)(?<![A-Za-z0-9])(?:on|an|my|the|with|using) (?:Mac ?)?M[1-4](?: (?:Pro|Max|Ultra))?"
                        r"(?![A-Za-z0-9])|Rosetta|(?m:^\s{0,4}\bi386\s*$)")
# A Linux machine: bash's "(core dumped)" (macOS' bash prints the number, "Illegal instruction: 4"), a Linux home,
# a distribution's name
_LINUX_TEXT = r"(?i)\(core dumped\)|/home/|\bubuntu\b|\bdebian\b|\blinux\b"
# 64-bit ARM boards running Linux (NVIDIA Jetson, Raspberry Pi, Graviton servers)
_ARM_LINUX_TEXT = (r"(?i)jetson|jetpack|\bl4t\b|tegra|xavier|\borin\b|\bnano\b|raspberry|graviton|aarch64|\barm64\b|"
                   # a user-space code address 0x0000ffff........: aarch64's 48-bit user space (on x86-64 the address is
                   # not canonical, so no frame can have it)
                   r"\b0x0000ffff[0-9a-f]{8}\b")


# torch's own native libraries in a frame or a path (libtorch*, libc10, libcaffe2: torch 1.x's, torch/lib)
_TORCH_NATIVE_TEXT = r"libtorch[\w.]{0,20}\.so|libc10\.so|libcaffe2\.so|torch/lib/|torch\\lib\\|ATEN_CPU_CAPABILITY"


# collect_env's "Versions" section, where the version stands alone on its line (extract reads the other forms)
_VERSIONS_SECTION = re.compile(r"^#{0,4}\s*Versions\s*\n+\s*(?P<v>\d{1,2}\.\d{1,3}\.\d{1,3})\s*$", re.M)


def _torch_version_named(ent, text: str) -> str | None:
    if ent.versions.get("torch"):
        return ent.versions["torch"]
    m = last_match(_VERSIONS_SECTION, text[-CONTEXT_TAIL:])
    return m.group("v") if m else None


def _signal_fix(c: dict, text: str, explanation: str, layer: str, torch_version: str | None):
    name = c["name"]
    if name == "SIGBUS":
        return ("Give the container more shared memory: `docker run --shm-size=8g ...` or `--ipc=host` (Kubernetes: "
                "mount an emptyDir with medium Memory at /dev/shm); or lower DataLoader num_workers.",
                explanation + " A bus error in DataLoader workers or NCCL means /dev/shm (shared memory) is full: "
                "containers get 64 MB by default.", "container")
    if name == "SIGKILL":
        return ("The process was killed, most often by the kernel's out-of-memory killer (host RAM): lower the batch "
                "size / num_workers, or add RAM or swap; `dmesg | grep -i oom` confirms it.", explanation, "env")
    arm_linux = name == "SIGILL" and _context(text, _ARM_LINUX_TEXT) and (
        _context(text, _LINUX_TEXT) or not (_context(text, _MAC_TEXT) or _context(text, _APPLE_SILICON_WORDS)))
    lse = arm_linux and armv8_0_regression(torch_version)
    if lse:
        # the release's own aarch64 wheels, not NumPy's OpenBLAS: a build with ARMv8.1 atomics on an ARMv8.0 core
        return (f"torch {lse['release']}'s aarch64 wheels use ARMv8.1 LSE atomics, which ARMv8.0 cores (Cortex-A53/"
                f"A57/A72/A73: Raspberry Pi 3 and 4, many boards) lack, so `import torch` dies of SIGILL: install "
                f"torch {lse['fixed_in']} or later (`pip install \"torch>={lse['fixed_in']}\"`), or the release "
                f"before it. `grep -m1 Features /proc/cpuinfo` without 'atomics' is such a core.",
                explanation + f" torch {lse['release']} is a release whose aarch64 wheels need ARMv8.1 atomics.",
                "torch-build")
    if arm_linux and _context(text, _TORCH_NATIVE_TEXT) and not _context(text, _TF_TEXT + r"|\btf\b"):
        # the frames are in torch's own libraries (its aarch64 wheels bundle their BLAS): the wheel was built for a
        # newer ARM core than this one
        return ("torch's aarch64 wheel ran an instruction this ARM core lacks (its libraries, with the BLAS they "
                "bundle, were built for a newer core than ARMv8.0's Cortex-A53/A57/A72: Raspberry Pi 3 and 4): install "
                "another torch release or a build made for this board (the releases known to crash so are 2.4.0, 2.6.0 "
                "and 2.10.0, fixed in the next), and try `export OPENBLAS_CORETYPE=ARMV8` for the BLAS kernels; `grep -m1 "
                "Features /proc/cpuinfo` shows what the core has.",
                explanation + " An illegal instruction inside torch's own libraries on ARM is a wheel built for a newer "
                "ARM core.", "torch-build")
    if arm_linux and not _context(text, _TF_TEXT + r"|\btf\b"):
        # NumPy's bundled OpenBLAS picks its kernels by the CPU it detects; on some ARM cores (the Jetsons: NumPy 1.19.5's
        # wheels) it picks one the core cannot run, so `import numpy`, or anything importing it (torch), dies of SIGILL
        return ("On 64-bit ARM Linux (a Jetson, a Raspberry Pi) the usual cause is the OpenBLAS inside NumPy choosing "
                "kernels this CPU cannot run: `export OPENBLAS_CORETYPE=ARMV8` before starting Python (add it to "
                "~/.bashrc), or install another NumPy than 1.19.5 (`pip install numpy==1.19.4`, or a newer release). "
                "If NumPy alone imports fine, the crashing package was built for a newer ARM core: install its build "
                "for this board (JetPack's wheels on a Jetson).",
                explanation + " On ARM Linux boards an illegal instruction at import is most often NumPy's OpenBLAS "
                "(OPENBLAS_CORETYPE).", "env")
    # zsh's wording alone, from a machine that shows nothing of Linux: macOS' default shell
    apple = _context(text, _MAC_TEXT) or _context(text, _APPLE_SILICON_WORDS) or (
        _context(text, r"illegal hardware instruction") and not _context(text, _LINUX_TEXT)
        and not _context(text, _ARM_LINUX_TEXT))
    if name == "SIGILL" and apple and not arm_linux and not _context(text, _INTEL_MAC_TEXT):
        # a Mac that is not an Intel one: an x86_64 binary under Rosetta 2, which does not translate AVX
        return ("This is an x86_64 build running under Rosetta on Apple silicon, which has no AVX: use a native arm64 "
                "Python (`python -c \"import platform; print(platform.machine())\"` must print arm64; not a terminal or "
                "conda opened under Rosetta) and the package's Apple-silicon build there (TensorFlow: its macOS arm64 "
                "wheels from 2.13, or tensorflow-macos with tensorflow-metal before; torch: the macOS arm64 wheels).",
                explanation + " On a Mac with Apple silicon an illegal instruction is an x86_64 binary under Rosetta.",
                "macos")
    if name == "SIGILL" and _context(text, _TF_TEXT + r"|\btf\b"):
        # TensorFlow's binaries use AVX from 1.6 on (and later ones more); the framework named is whose build to change
        return ("TensorFlow's prebuilt binaries need AVX (from release 1.6; newer ones more: AVX2, FMA) and this CPU "
                "lacks it: build TensorFlow from source on this machine (or use a community no-AVX build), use an old "
                "release made before AVX, or run on a CPU (or VM configuration) that exposes AVX.",
                explanation + " An illegal instruction at `import tensorflow` is a CPU without the AVX the binary uses.",
                "tensorflow")
    if name == "SIGILL" and _context(text, _TORCH_NATIVE_TEXT):
        # torch dispatches its CPU kernels by what the CPU reports (cpuinfo); a kernel of a newer instruction set on a
        # CPU, or a virtual CPU model, without it is torch's build against this CPU
        return ("torch ran a CPU kernel of an instruction set this CPU does not offer (AVX2/AVX-512 kernels named in the "
                "frames): start it with `ATEN_CPU_CAPABILITY=default` (or `avx2`) so torch's own kernels keep to what the "
                "CPU has; in a virtual machine give the guest the host's CPU features (libvirt/QEMU `host-passthrough`, "
                "a CPU model with AVX2); on a CPU without AVX, build torch from source or use a release built for it.",
                explanation + " An illegal instruction inside torch's libraries is a CPU (or a VM's CPU model) without "
                "an instruction set the build uses.", "torch-build")
    if name == "SIGILL":
        return ("The CPU lacks an instruction the binary uses (AVX/AVX2/AVX-512): install a build for this CPU (older "
                "wheels, or build from source).", explanation, "env")
    return ("Rerun with faulthandler enabled (`python -X faulthandler ...`) to see where it crashes.", explanation, layer)


# Windows' MAX_PATH is 260 characters with the terminating NUL, so a path of 260 characters or more cannot be opened
# by a program that has not opted into long paths (LongPathsEnabled, and a manifest Python has had since 3.6):
# https://learn.microsoft.com/en-us/windows/win32/fileio/maximum-file-path-limitation ; pip's own hint points there
# (https://pip.pypa.io/warnings/enable-long-paths).  ERROR_FILENAME_EXCED_RANGE (206) is the same limit by its code.
MAX_PATH = 260
_QUOTED_WINDOWS_PATH = re.compile(r"""['"](?P<path>[A-Za-z]:(?:\\\\|\\|/)[^'"\n]{1,2000})['"]""")
_LONG_PATH_FIX = ("Enable Windows long paths (set LongPathsEnabled to 1 under HKLM\\SYSTEM\\CurrentControlSet\\Control\\"
                  "FileSystem, or the group policy \"Enable Win32 long paths\"; see https://pip.pypa.io/warnings/"
                  "enable-long-paths), or install into a shorter path (a Python or environment folder near the drive's "
                  "root, a short TEMP).")


def _long_windows_path(text: str, at: int) -> bool:
    """Whether the line of the code at `at` names a quoted Windows path of MAX_PATH characters or more (a Python
    repr doubles its backslashes: counted once)."""
    end = text.find("\n", at)
    line = text[at:end if end >= 0 else len(text)]
    return any(len(m.group("path").replace("\\\\", "\\")) >= MAX_PATH for m in _QUOTED_WINDOWS_PATH.finditer(line[:4000]))


# RDMA verbs (libibverbs: ibv_reg_mr, ibv_create_cq/qp, ...) register pinned memory, limited by RLIMIT_MEMLOCK
# (https://man7.org/linux/man-pages/man3/ibv_reg_mr.3.html, https://man7.org/linux/man-pages/man2/setrlimit.2.html)
_RDMA_CALL = r"\bibv_[a-z_]{2,30}\d?\b|\bmlx[45]_\d{1,2}\b|ibvwrap|\bRDMA\b"


def _errno_fix(c: dict, text: str, layer: str):
    name = c["name"]
    if name == "ENOSPC" and _context(text, _SHM_TEXT):
        return ("Enlarge shared memory: `docker run --shm-size=8g` or `--ipc=host`; check `df -h /dev/shm`.", "container")
    if name == "ENOSPC":
        return ("Free disk space (df -h) or point TMPDIR / caches (HF_HOME, TORCH_HOME, pip cache) at a bigger disk.", "env")
    if name == "EMFILE":
        return ("Raise the open-file limit (`ulimit -n 65535`) or use torch.multiprocessing.set_sharing_strategy("
                "'file_system').", "env")
    if name == "EADDRINUSE":
        return ("Another process holds the port: pick a free MASTER_PORT (torchrun --master_port) or stop the old job.",
                "distributed")
    if name in ("ECONNREFUSED", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET"):
        return ("Check MASTER_ADDR/MASTER_PORT are reachable from every node (firewall) and that rank 0 is running.",
                "distributed")
    if name in ("EACCES", "EPERM") and _context(text, r"/dev/nvidia|/dev/dri|/dev/kfd"):
        return ("Give the user access to the GPU device nodes: add it to the `video` and `render` groups "
                "(`sudo usermod -aG video,render $USER`) and log in again.", "driver")
    if name == "ENOMEM" and _context(text, r"/dev/kfd"):
        # opening the ROCm kernel driver's node fails with ENOMEM when kfd will not create a process for this GPU:
        # not host RAM
        return ("The ROCm kernel driver (kfd) refused the GPU: read `sudo dmesg | grep -i kfd`. \"not supported in kfd\" "
                "means the GPU is not supported by ROCm at all (e.g. GCN 1/2 parts such as Pitcairn): use a supported GPU; "
                "a message about PCIe atomics means the CPU/motherboard/slot lacks PCIe atomics support that this GPU "
                "needs (use a slot wired to the CPU, enable it in firmware, or a newer GPU).", "rocm")
    if name == "ENOMEM" and _context(text, _RDMA_CALL):
        # an RDMA verb (ibv_reg_mr, ibv_create_cq, ...) pins the memory it registers, counted against the process'
        # locked-memory limit (RLIMIT_MEMLOCK, `ulimit -l`, often 64 KiB-8 MiB by default and in containers): that
        # limit, not RAM, is what ran out
        return ("Raise the locked-memory limit for the job: `ulimit -l unlimited` where it starts (check it inside "
                "mpirun/srun too), `* soft memlock unlimited` and `* hard memlock unlimited` in "
                "/etc/security/limits.conf (log in again), LimitMEMLOCK=infinity for a systemd service; for a container "
                "`docker run --ulimit memlock=-1` (Kubernetes: the runtime's memlock default).", "distributed")
    if name == "ENOMEM":
        return ("The host is out of memory (RAM): lower the batch size or DataLoader workers, or add RAM/swap.", "env")
    if name == "ENOENT":
        tool = _MISSING_TOOL.search(text[-CONTEXT_TAIL:])
        if tool:
            prog = tool.group("prog") or tool.group("prog2")
            base = prog.lower().removesuffix(".exe")
            how = _TOOL_FIX.get(base, "install it and make sure it is on PATH")
            layer = _TOOL_LAYER.get(re.sub(r"-\d{1,2}$", "", base), "toolchain")
            who = "The build" if layer == "toolchain" else "The command"
            return (f"{who} runs `{prog}`, which is not installed or not on PATH: {how}.", layer)
    return ("Check the file or resource the failing call names.", layer)


# A program a build runs that is not on PATH: subprocess' "[Errno 2] No such file or directory: 'ninja'" names it
# bare (no folder); the build tools among them are the toolchain's.
_TOOLS = (r"(?:ninja|cmake|make|gcc|g\+\+|cc|c\+\+|clang|clang\+\+|cl|cl\.exe|nvcc|hipcc|ld|link\.exe|ccache|rustc|cargo|"
          r"nvidia-smi|singularity|apptainer|docker|podman|nvidia-container-cli)(?:-\d{1,2})?")
# the tools that are not a build's: the driver's utility, the container runtimes (a job script that starts one)
_TOOL_LAYER = {"nvidia-smi": "driver", "singularity": "container", "apptainer": "container", "docker": "container",
               "podman": "container", "nvidia-container-cli": "container"}


# the program named after the code, bare or as a path (subprocess' "[Errno 2] No such file or directory: 'ninja'", a
# build's own "'/usr/local/cuda/bin/nvcc'" from CUDA_HOME), or in
# torch.utils.cpp_extension's own check of the compiler ("Error checking compiler version for cl: [WinError 2] ..."),
# which is how Windows' "file not found" (WinError 2, in any language) names it
_MISSING_TOOL = re.compile(r"No such file or directory: '(?:[^'\n]{0,240}[/\\])?(?P<prog>" + _TOOLS + r")'|"
                           r"[Ee]rror checking compiler version for (?P<prog2>" + _TOOLS + r")(?![\w.+-])")


_TOOL_FIX = {"ninja": "`pip install ninja` (torch.utils.cpp_extension builds with it)",
             "gcc": "install a C/C++ compiler (Debian/Ubuntu: `sudo apt install build-essential`; conda: gxx_linux-64)",
             "g++": "install a C++ compiler (Debian/Ubuntu: `sudo apt install build-essential`; conda: gxx_linux-64)",
             "cc": "install a C compiler (Debian/Ubuntu: `sudo apt install build-essential`)",
             "c++": "install a C++ compiler (Debian/Ubuntu: `sudo apt install build-essential`)",
             "cmake": "`pip install cmake` (or the system's cmake package)",
             "nvcc": "install a CUDA toolkit of torch's CUDA version and set CUDA_HOME to it (its bin/ on PATH)",
             "hipcc": "install the ROCm development packages (hipcc) and set ROCM_HOME",
             "cl": "install the Microsoft C++ Build Tools (Visual Studio Build Tools, workload \"Desktop development "
                   "with C++\") and build from its Developer prompt (vcvars64.bat), which puts cl.exe on PATH",
             "rustc": "install Rust (rustup)", "cargo": "install Rust (rustup)",
             "nvidia-smi": "it comes with the NVIDIA driver (`/usr/bin/nvidia-smi`); install the driver on the host, and "
                           "start containers with the NVIDIA runtime (`--gpus all`), which mounts it",
             "singularity": "on a cluster load it first (`module load singularity` / `module load apptainer`, often on "
                            "compute nodes only), and run GPU jobs inside the image with `singularity exec --nv <image> "
                            "<command>`",
             "apptainer": "on a cluster load it first (`module load apptainer`, often on compute nodes only), and run "
                          "GPU jobs inside the image with `apptainer exec --nv <image> <command>`",
             "docker": "install Docker Engine and the NVIDIA Container Toolkit (`--gpus all`), or use the cluster's "
                       "runtime (Singularity/Apptainer)",
             "podman": "install Podman and the NVIDIA Container Toolkit (CDI: `--device nvidia.com/gpu=all`)",
             "nvidia-container-cli": "install the NVIDIA Container Toolkit (libnvidia-container-tools) on the host"}


def _dll_owner(ent) -> str | None:
    """The distribution whose own folder holds the DLL a Windows loader error names (site-packages\\torch\\lib\\
    c10_cuda.dll -> torch), when the text gives its path."""
    for p in reversed(ent.paths):
        if p.get("distribution") and p["path"].lower().endswith((".dll", ".pyd")):
            return p["distribution"]
    return None


_CUDA_DLL = re.compile(r"(?i)cuda|cudnn|cublas|cufft|curand|cusparse|cusolver|nvrtc|nvinfer|tensorrt")


def _cuda_dll(ent) -> str | None:
    """The CUDA part a Windows loader error is about: the last DLL the text names whose name says CUDA (a provider,
    a CUDA library, an extension built for CUDA)."""
    for lib in reversed(ent.libraries):
        if lib["file"].lower().endswith(".dll") and _CUDA_DLL.search(lib["file"]):
            return lib["file"]
    return None


def _windows_fix(c: dict) -> str:
    v = c["value"]
    if v == 1455:
        return ("Windows' paging file is too small for the DLLs torch maps: enlarge the page file (System > Advanced > "
                "Performance > Virtual memory: let Windows manage it, or set a larger size on the drive), reboot, and "
                "lower DataLoader num_workers (each worker maps the DLLs again).")
    if v in (126, 0xC0000135, 1114, 0xC0000142):
        return ("A DLL or one of its dependencies is missing: install the latest Microsoft Visual C++ Redistributable "
                "(x64, https://aka.ms/vs/17/release/vc_redist.x64.exe); for CUDA DLLs install the matching CUDA/cuDNN "
                "or torch's CUDA build.")
    if v in (127, 182, 0xC0000139, 0xC0000138):
        # 182 (ERROR_INVALID_ORDINAL): an import by ordinal the loaded DLL lacks, the ordinal twin of 127
        return ("A DLL of another version was loaded (it lacks a procedure or ordinal another DLL imports): another copy "
                "of the same name, earlier on the DLL search path, shadows the right one (a conflicting libiomp5md.dll, "
                "a CUDA or Qt DLL of another release). Find it (`where <name>.dll`, or Process Monitor's Load Image "
                "events) and remove that folder from PATH, or use os.add_dll_directory for the right one.")
    if v in (193, 0xC000007B):
        return ("The DLL is not a valid image for this process: a 32-bit DLL or Python mixed with 64-bit ones (use a "
                "64-bit Python and remove 32-bit DLL folders from PATH), or a damaged file (an install or download cut "
                "short): for a DLL inside a package's folder, reinstall that package cleanly (`pip install "
                "--force-reinstall --no-cache-dir <package>`, e.g. torch for torch\\lib's DLLs, or delete the venv and "
                "create it again).")
    if v == 206:
        return "Enable long paths (LongPathsEnabled in the registry / group policy) or install into a shorter path."
    if v == 0xC000001D:
        return "The CPU lacks an instruction the binary uses (AVX): install a build for this CPU."
    return "Check the file or DLL the failing call names."
