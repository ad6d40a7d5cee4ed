"""Driver rules: is an NVIDIA driver loaded, is it new enough for torch's CUDA runtime, and did CUDA
initialise."""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck._util import versions
from torch_envcheck.advice import pip_commands as P
from torch_envcheck.advice import recommend as A
from torch_envcheck.advice import system_commands as SYS
from torch_envcheck.doctor.finding import finding
from torch_envcheck.facts import core as F
from torch_envcheck.knowledge import freshness


def _needs(s) -> dict | None:
    try:
        return kb.min_driver_for_cuda(F.torch_cuda(s), F.driver_os(s))
    except kb.KnowledgeError:
        return None


def _applies(s) -> bool:
    return F.is_cuda_torch(s) and not F.is_macos(s) and F.wsl(s) != 1


def _support(s) -> str | None:
    """How the driver runs torch's CUDA: 'toolkit' / 'compat' / 'no' / None (the one answer)."""
    return F.driver_runs(s, F.torch_cuda(s))


def _torch_says_no_driver(s) -> bool:
    return "Found no NVIDIA driver" in (F.cuda_init_error(s) or "")


# CUDA failing to initialise without a driver is no other reason (TE303's): the missing driver is it
_NO_DRIVER_HIDES = ("TE303",)


def driver_missing(s) -> list[dict]:
    if not _applies(s) or F.cuda_available(s) is True:
        return []  # (a driver/library version mismatch, TE306, hides it: the driver is there)
    present = F.driver_present(s)
    # The driver probe's verdict; when it has none (crashed: TE390), torch's own error is the evidence.
    if present is True or (present is None and not _torch_says_no_driver(s)):
        return []
    need = _needs(s) or {}
    floor, exact = need.get("compat_floor"), need.get("toolkit_minimum")
    tc = F.torch_cuda(s)
    need_txt = f">= {floor}" if floor else "new enough"
    exe = F.python_exe(s)
    rel = versions.public(F.torch_version(s))
    cpu_fix = P.pip_install_command(exe, rel, "cpu", shell=F.shell(s))
    if F.wsl(s) == 2:
        gpu_side = (f"install the NVIDIA Windows driver {need_txt} on the Windows side (WSL 2 uses it through "
                    "/usr/lib/wsl/lib; do not install a Linux driver inside WSL)")
    else:
        gpu_side = f"install the NVIDIA driver {need_txt}" + (f" ({exact} is CUDA {tc}'s own)" if exact and exact != floor else "")
    errors = F.driver_errors(s)
    container = F.container(s)
    container_txt = (f" This runs in a container ({container}): the driver lives on the host and is mapped in only "
                     "when the container is started with GPU access (Docker: `--gpus all` with the NVIDIA Container "
                     "Toolkit; Kubernetes: an nvidia.com/gpu resource).") if container else ""
    errors_txt = (" Driver probe errors: " + "; ".join(errors[:3])) if errors else ""
    pci = F.pci_gpus(s)
    details = {"torch_cuda": tc, "driver_needed_compat_floor": floor, "driver_needed_toolkit": exact,
               "driver_source": F.driver_source(s), "driver_errors": errors, "pci_gpus": F.as_details(pci),
               "cuda_init_error": F.cuda_init_error_recorded(s)}
    if pci:
        # A GPU is on the bus (also seen from a container, which lists its host's PCI devices): it sits
        # unused until the driver is loaded or mapped in, so this environment is broken.
        where = F.pci_label(pci)
        msg = (f"this machine has {where} but no NVIDIA driver is loaded: {F.torch_label(s)} (CUDA {tc}) "
               f"needs one ({need_txt})")
        expl = ("The GPU is on the PCI bus, yet no driver answers (NVML, nvidia-smi, /proc/driver/nvidia), so torch "
                "runs on the CPU and `.cuda()` raises \"Found no NVIDIA driver on your system\".")
        if container:
            expl += container_txt + f" The host itself needs the NVIDIA driver {need_txt}."
            if container == "kubernetes":
                fix = ("# request the GPU in the pod spec (resources.limits: nvidia.com/gpu: 1; the NVIDIA device "
                       "plugin runs on the node),\n# then, inside the new pod:\nnvidia-smi")
            else:
                fix = ("# on the host (NVIDIA driver and NVIDIA Container Toolkit installed), start the container "
                       "with GPU access,\n# e.g. docker run --gpus all <image> ...; then, inside it:\nnvidia-smi")
        else:
            expl += f" To use the GPU, {gpu_side}, then check with `nvidia-smi`."
            ubuntu = "ubuntu" in (F.os_pretty(s) or "").lower()
            fix = (SYS.ubuntu_drivers_install() + "   # Ubuntu's recommended NVIDIA driver; reboot, then:\nnvidia-smi"
                   if ubuntu else f"# install the NVIDIA driver {need_txt} (your distribution's package or "
                   "https://www.nvidia.com/Download/index.aspx), reboot, then:\nnvidia-smi")
        return [finding("TE301", "failure", msg, expl + errors_txt, fix, details, hides=_NO_DRIVER_HIDES)]
    if pci == []:
        # The PCI bus was read and holds no NVIDIA device: CUDA can never work here, and torch on the CPU
        # is a working setup, so this is a warning about wasted disk space, not a broken environment.
        msg = (f"{F.torch_label(s)} is a CUDA {tc} build, but this machine has no NVIDIA GPU: torch runs on the CPU")
        expl = ("No NVIDIA device is on the PCI bus and no NVIDIA driver is loaded, so CUDA cannot be used here "
                "(`.cuda()` raises \"Found no NVIDIA driver on your system\"); everything else works on the CPU. "
                "The CUDA build only costs disk space (several GB of CUDA libraries): the CPU wheel (command below) "
                "is the same torch without them.")
        if container:
            expl += f" This runs in a container ({container}), which normally lists its host's PCI devices: the host has no NVIDIA GPU either."
        return [finding("TE301", "warning", msg, expl + errors_txt, cpu_fix, details, hides=_NO_DRIVER_HIDES)]
    # Whether a GPU exists is unknown (Windows, WSL 2, no readable sysfs, a snapshot from before the PCI
    # fact): a warning, not a failure.  The exit status 1 claims "broken"; without evidence of a GPU a
    # CUDA torch on the CPU is a working setup (the default `pip install torch` on Linux is a CUDA build),
    # so the finding names both remedies and lets the reader, who knows the machine, pick one.
    msg = f"no NVIDIA driver is loaded, but {F.torch_label(s)} is a CUDA {tc} build that needs one ({need_txt})"
    expl = (f"If this machine has an NVIDIA GPU, {gpu_side}, then check with `nvidia-smi`. If it has none, "
            f"this CUDA build only costs disk space (several GB of CUDA libraries): install the CPU wheel "
            f"(command below). torch falls back to the CPU either way; `.cuda()` raises \"Found no NVIDIA "
            f"driver on your system\".") + container_txt + errors_txt
    fix = "# only if this machine has no NVIDIA GPU (check: lspci | grep -i nvidia):\n" + cpu_fix \
        if F.system(s) == "Linux" else cpu_fix
    return [finding("TE301", "warning", msg, expl, fix, details, hides=_NO_DRIVER_HIDES)]


def _forward_compat_evidence(s) -> list[str]:
    """Where a forward-compatibility libcuda (NVIDIA's cuda-compat package) shows in the snapshot."""
    out = []
    for e in F.library_entries(s):
        if "compat" in e.dir.lower() and any(l.kind == "cuda" or (l.file or "").startswith("libcuda.")
                                             for l in e.libs):
            out.append(e.dir)
    ld = F.env(s, "LD_LIBRARY_PATH") or ""
    out += [p for p in ld.split(":") if p and "compat" in p.lower() and p not in out]
    return out


def driver_too_old(s) -> list[dict]:
    if not _applies(s) or F.driver_present(s) is not True:
        return []
    verdict = _support(s)
    if verdict not in ("no", "compat"):
        return []
    if verdict == "no" and F.cuda_works(s):
        # A proving fact outranks the table: torch initialised CUDA on this driver, so a newer libcuda
        # (NVIDIA's forward-compatibility package, typical of data-center containers) is doing the work.
        need = _needs(s) or {}
        dv, tc = F.driver_version(s), F.torch_cuda(s)
        compat = _forward_compat_evidence(s)
        n = F.device_count(s)
        return [finding(
            "TE305", "ok",
            f"{F.torch_label(s)} initialised CUDA {tc} and sees {n if n is not None else 'its'} GPU{'s' if n != 1 else ''} "
            f"on NVIDIA driver {dv or '?'}, older than the {need.get('compat_floor') or need.get('toolkit_minimum') or '?'} "
            "CUDA " + f"{tc} needs: forward compatibility is at work",
            "NVIDIA's CUDA forward-compatibility package (cuda-compat, preinstalled in NGC and many data-center "
            "containers) ships a newer user-space libcuda that runs newer CUDA on an older data-center driver "
            "branch. CUDA works here, so nothing needs reinstalling. Forward compatibility covers data-center GPUs "
            "only, and the kernel driver still decides which GPUs and features exist; upgrading the host driver "
            "removes the dependency on the compat libraries."
            + (f" Compat libraries seen in: {', '.join(compat[:3])}." if compat else ""),
            None, {"driver_version": dv, "torch_cuda": tc, "needs": need, "forward_compat_dirs": compat,
                   "proved_by": "torch.cuda.is_available() is True"})]
    need = _needs(s) or {}
    dv, dc, tc = F.driver_version(s), F.driver_cuda(s), F.torch_cuda(s)
    what = f"NVIDIA driver {dv or '?'}" + (f" (supports CUDA up to {dc})" if dc else "")
    if verdict == "compat":
        return [finding(
            "TE304", "ok",
            f"{what} runs {F.torch_label(s)}'s CUDA {tc} through minor-version compatibility",
            f"Drivers >= {need.get('compat_floor')} run any CUDA {kb.major_minor(tc)[0]}.x build. Only PTX JIT "
            f"(needed by GPUs this build has no SASS for) and a few newer APIs need CUDA {tc}'s own driver "
            f"{need.get('toolkit_minimum') or '(unknown)'}.", None,
            {"driver_version": dv, "driver_cuda": dc, "torch_cuda": tc, "needs": need})]
    build = A.recommend_build(s, capability=F.build_capability(s))
    oldest = F.oldest_build_beyond_driver(s)
    if build is None and oldest:
        return [_older_than_every_build(s, oldest, need)]
    cause = (f"torch's CUDA {tc} runtime needs driver >= {need.get('compat_floor') or need.get('toolkit_minimum') or '?'}"
             f" on {F.driver_os(s)}; CUDA initialisation fails (\"The NVIDIA driver on your system is too old\"). ")
    expl = cause + "Either upgrade the driver, or install a torch build for this driver"
    expl += (f": torch {build['torch']} {build['tag']} (command below)." if build else ".")
    fix = A.install_command(s, build) if build else None
    expl, fix = _no_silent_downgrade(s, build, need, cause, expl, fix)
    return [finding("TE302", "failure",
                    f"{what} is too old for {F.torch_label(s)} (CUDA {tc} needs driver >= "
                    f"{need.get('compat_floor') or need.get('toolkit_minimum') or '?'})",
                    expl, fix,
                    {"driver_version": dv, "driver_cuda": dc, "torch_cuda": tc, "needs": need,
                     "recommended_build": build, "cuda_init_error": F.cuda_init_error_recorded(s)})]


def _no_silent_downgrade(s, build, need: dict, cause: str, expl: str, fix):
    """When the build that fits this driver is an older release than the installed one, the
    explanation says so; and when that is only because the tables lack the installed release's
    other builds (2.15 lists cu132 only, or a release newer than the tables), the fix is the driver
    upgrade that keeps the installed torch, with the older build named as the alternative."""
    note = freshness.downgrade_note(F.torch_version(s), build, "the newest build the tables know for this driver",
                                    driver=(F.driver_version(s), F.driver_os(s)))
    if not note:
        return expl, fix
    if not freshness.tables_incomplete_for(F.torch_version(s)):
        return expl + " Note: " + note, fix
    want = need.get("compat_floor") or need.get("toolkit_minimum")
    expl = (cause + f"Upgrade the driver to {'>= ' + want if want else 'a newer one'} (command below): it keeps "
            f"{F.torch_label(s)} as it is. The alternative is an older release: {note} Its command: {fix}")
    return expl, _driver_upgrade_fix(s, f">= {want}" if want else "(the newest for this GPU)")


def _driver_upgrade_fix(s, need_txt: str) -> str:
    if F.wsl(s) == 2 or F.system(s) == "Windows":
        return (f"# install the NVIDIA Windows driver {need_txt} (https://www.nvidia.com/Download/index.aspx), "
                "reboot Windows, then:\nnvidia-smi")
    ubuntu = "ubuntu" in (F.os_pretty(s) or "").lower()
    if ubuntu:
        return SYS.ubuntu_drivers_install() + "   # the newest recommended NVIDIA driver; reboot, then:\nnvidia-smi"
    return (f"# install the NVIDIA driver {need_txt} (your distribution's package or "
            "https://www.nvidia.com/Download/index.aspx), reboot, then:\nnvidia-smi")


def _older_than_every_build(s, oldest, need: dict) -> dict:
    dv, tc = F.driver_version(s), F.torch_cuda(s)
    want = need.get("compat_floor") or need.get("toolkit_minimum")
    return finding(
        "TE307", "failure",
        f"NVIDIA driver {dv} is older than every torch build needs (the oldest CUDA in any build, {oldest.cuda}, "
        f"needs >= {oldest.driver}): upgrade the driver",
        f"No torch build in the doctor's tables runs on this driver, so reinstalling torch cannot help. "
        f"{F.torch_label(s)} (CUDA {tc}) needs driver >= {want or '?'}; upgrading to it (or newer) makes the "
        "installed torch work as it is.",
        _driver_upgrade_fix(s, f">= {want}" if want else "(the newest for this GPU)"),
        {"driver_version": dv, "torch_cuda": tc, "needs": need, "oldest_build": oldest.to_dict()})


def library_mismatch(s) -> list[dict]:
    """CUDA error 803 / NVML "Driver/library version mismatch": the kernel module still loaded is not
    the version of the user-space driver (libcuda, libnvidia-ml) installed since, typically right
    after a driver upgrade without a reboot."""
    hit = F.library_mismatch(s)
    if not hit:
        return []
    if F.wsl(s) == 2 or F.system(s) == "Windows":
        fix = "# restart Windows (WSL 2: `wsl --shutdown` in PowerShell, then reopen), then:\nnvidia-smi"
    else:
        fix = ("sudo reboot\n# or, with no process using the GPU, reload the NVIDIA kernel modules:\n"
               "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia nvidia_uvm\nnvidia-smi")
    explains = ["TE303"] if F.cuda_available(s) is False else []
    # the two versions themselves, where the files say them: /sys/module/nvidia/version and the packages
    module = F.nvidia_module_version(s)
    installed = sorted({p.version.split("-")[0] for p in F.driver_packages(s) or ()
                        if p.version and p.version[:1].isdigit()} - {module})
    versions_txt = (f" (kernel module {module}, user-space driver {', '.join(installed[:2])})"
                    if module and installed else "")
    return [finding(
        "TE306", "failure",
        "the NVIDIA kernel module and the user-space driver libraries are different versions (CUDA error 803, "
        "\"Driver/library version mismatch\")" + versions_txt + ": " + hit.splitlines()[0][:200],
        "This usually follows a driver upgrade: the new libcuda/libnvidia-ml are installed, but the old kernel "
        "module is still loaded. Reinstalling torch cannot fix it. Reboot, or reload the nvidia kernel modules "
        "once no process uses the GPU (`nvidia-smi` and `lsof /dev/nvidia*` list them). If it persists after a "
        "reboot, two driver installations are mixed (a distribution package and a .run installer, or a "
        "container's own libcuda): remove one.",
        fix, {"error": hit, "driver_version": F.driver_version(s), "kernel_module_version": module,
              "installed_driver_versions": installed}, explains=explains,
        hides=["TE301"])]  # "no NVIDIA driver is loaded": it is, in another version than its libraries


def _explained_by(s) -> str | None:
    """The cause of a failed CUDA initialisation that another finding reports (and explains this
    one by), named in this one's text."""
    if F.library_mismatch(s):
        return "TE306 (driver/library version mismatch)"
    hit = F.container_without_gpu(s)
    if hit is not None:
        return f"TE309 (NVIDIA_VISIBLE_DEVICES={hit.value}: the container was started without a GPU)"
    cvd = F.cuda_visible_devices(s)
    if cvd and cvd.invalid is not None and not cvd.valid:
        return "TE403 (CUDA_VISIBLE_DEVICES names no usable GPU)"
    return None


def cuda_init_failed(s) -> list[dict]:
    if not _applies(s) or F.driver_present(s) is False or F.cuda_available(s) is not False:
        return []
    if F.driver_present(s) is None and not F.cuda_init_error(s):
        return []  # neither the driver probe nor torch says anything
    if _support(s) == "no":
        return []  # TE303 is a failure "for another reason" than a driver too old for this CUDA: it says the driver is new enough
    err = F.cuda_init_error(s)
    expl = "The driver is loaded and new enough, yet torch could not initialise CUDA."
    cause = _explained_by(s)
    if cause:
        expl += f" The cause is reported as {cause}: fix that first."
    elif err and "804" in err:
        expl += (" Error 804 means a CUDA forward-compatibility libcuda (cuda-compat package, or a container's "
                 "compat libs) is loaded on a GPU that does not support it: remove it from LD_LIBRARY_PATH / "
                 "ld.so.conf so the driver's own libcuda is used.")
    elif err and "no CUDA-capable device" in err:
        expl += " CUDA_VISIBLE_DEVICES may name no existing device, or the device nodes (/dev/nvidia*) are not accessible (containers: --gpus all)."
    else:
        expl += " Common causes: GPU in a bad state (see `nvidia-smi`, dmesg Xid errors), missing /dev/nvidia* access in a container, a mismatched libcuda on LD_LIBRARY_PATH."
    return [finding("TE303", "failure",
                    "CUDA failed to initialise: " + (err.splitlines()[0][:240] if err else "torch.cuda.is_available() is False (no error text recorded)"),
                    expl, None, {"cuda_init_error": err, "driver_version": F.driver_version(s)})]


# NVIDIA Container Toolkit: NVIDIA/nvidia-container-toolkit cmd/nvidia-container-runtime/README.md
# (commit 12e005e6e83a), "NVIDIA_VISIBLE_DEVICES ... none: no GPU will be accessible, but driver
# capabilities will be enabled; void or empty or unset: nvidia-container-runtime will have the same
# behavior as runc".  Kubernetes gives a container GPUs only through a resource limit
# (https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/; NVIDIA/k8s-device-plugin README).
K8S_GPU_FIX = ("# request a GPU for this pod: in its spec, under the container, add\n"
               "#   resources:\n"
               "#     limits:\n"
               "#       nvidia.com/gpu: 1\n"
               "# then recreate the pod (the NVIDIA device plugin gives the container the GPU and sets "
               "NVIDIA_VISIBLE_DEVICES), and inside it check:\n"
               "nvidia-smi")
DOCKER_GPU_FIX = ("# start the container with GPU access (NVIDIA Container Toolkit on the host), e.g.\n"
                  "#   docker run --gpus all <image> ...   (or -e NVIDIA_VISIBLE_DEVICES=all with --runtime=nvidia)\n"
                  "# then, inside it:\n"
                  "nvidia-smi")


def container_without_gpu(s) -> list[dict]:
    """TE309: a container started without a GPU (NVIDIA_VISIBLE_DEVICES void/none/empty) where CUDA sees
    none: the value names the cause, which `CUDA failed to initialise` (TE303) or `no driver` (TE301)
    only shows."""
    hit = F.container_without_gpu(s)
    if hit is None:
        return []
    value = hit.value
    k8s = hit.container == "kubernetes"
    expl = (f"NVIDIA_VISIBLE_DEVICES={value!r} tells the NVIDIA Container Toolkit that this container gets no GPU: "
            f"{hit.meaning} (NVIDIA Container Toolkit, 'NVIDIA_VISIBLE_DEVICES'). ")
    if k8s:
        expl += ("In Kubernetes a container gets a GPU only when its pod spec requests one (resources.limits "
                 "nvidia.com/gpu); the NVIDIA device plugin then sets this variable to the GPUs it assigned. A pod "
                 "without the request runs on the GPU node with no GPU, whatever the image sets.")
    else:
        expl += "The container was started without GPU access; the GPU and driver stay on the host."
    explains = ["TE301"] if F.driver_present(s) is False else ["TE303"]
    return [finding("TE309", "failure",
                    f"this {hit.container} container was started without a GPU: NVIDIA_VISIBLE_DEVICES={value}"
                    + (" (the pod requests no nvidia.com/gpu)" if k8s else ""),
                    expl + " torch falls back to the CPU.", K8S_GPU_FIX if k8s else DOCKER_GPU_FIX,
                    {"NVIDIA_VISIBLE_DEVICES": value, "container": hit.container,
                     "cuda_init_error": F.cuda_init_error_recorded(s)}, explains=explains)]


def driver_ok(s) -> list[dict]:
    if F.is_macos(s) or F.wsl(s) == 1 or F.driver_present(s) is not True:
        return []
    dv, dc = F.driver_version(s), F.driver_cuda(s)
    desc = f"NVIDIA driver {dv or '?'}" + (f" (supports CUDA up to {dc})" if dc else "")
    if F.is_cuda_torch(s):
        if _support(s) != "toolkit":
            return []
        need = _needs(s) or {}
        want = need.get('toolkit_minimum') or need.get('compat_floor')
        return [finding("TE300", "ok", f"{desc} is new enough for {F.torch_label(s)} (CUDA {F.torch_cuda(s)} "
                        + (f"needs >= {want})" if want else "is not in the driver tables: judged by the driver's own "
                           "CUDA version, see TE308)"), "", None,
                        {"driver_version": dv, "driver_cuda": dc, "needs": need})]
    if F.is_cpu_torch(s):
        return [finding("TE300", "ok", f"{desc} is loaded", "", None, {"driver_version": dv, "driver_cuda": dc})]
    return []


def knowledge_gap(s) -> list[dict]:
    """The driver table ends before torch's CUDA or the driver's own: the report says so
    and names the table's date; the driver is then judged by its own report (nvidia-smi's CUDA
    version) and by whether CUDA initialised."""
    if F.is_macos(s) or F.driver_present(s) is not True:
        return []
    tc = F.torch_cuda(s) if F.is_cuda_torch(s) else None
    try:
        gap = freshness.driver_gap(F.driver_version(s), F.driver_cuda(s), tc, F.driver_os(s))
    except kb.KnowledgeError:
        return []
    if gap is None:
        return []
    dv, dc = F.driver_version(s) or "?", F.driver_cuda(s)
    details = {"driver_version": F.driver_version(s), "driver_cuda": dc, "torch_cuda": tc,
               "newest_cuda_in_tables": gap["newest_cuda"], "tables_updated": gap["updated"], "judged_from": "live facts"}
    later = ("Driver minimums come with torch_envcheck's tables (NVIDIA publishes them with each CUDA release); a "
             "newer torch_envcheck knows newer ones.")
    if gap["kind"] == "driver":
        return [finding("TE308", "ok",
                        f"NVIDIA driver {dv} (CUDA {dc}) is newer than {gap['tables']}, which end at CUDA "
                        f"{gap['newest_cuda']}: it meets every minimum they list", later, None, details)]
    dct, tct = kb.major_minor(dc), kb.major_minor(tc)
    runs = F.cuda_works(s) or bool(dct and tct and dct >= tct)
    how = ("torch initialised CUDA on it" if F.cuda_works(s) else
           f"the driver reports CUDA up to {dc}" if dc else "the driver does not report its CUDA version")
    return [finding("TE308", "ok" if runs else "warning",
                    f"{F.torch_label(s)}'s CUDA {tc} is newer than {gap['tables']}, which end at CUDA "
                    f"{gap['newest_cuda']}: the driver was judged from live facts ({how})",
                    ("The tables cannot say which driver CUDA " + f"{tc} needs; " +
                     ("the live facts show this driver runs it. " if runs else
                      "the live facts do not show that this driver runs it: if CUDA fails to initialise, upgrade the "
                      "driver to one whose nvidia-smi shows CUDA " + f"{tc} or newer. ") + later),
                    None, details)]


RULES = [driver_missing, driver_too_old, library_mismatch, container_without_gpu, cuda_init_failed, driver_ok,
         knowledge_gap]


# ---------------------------------------------------------------- the kernel module under the driver

# Rebuilding the initramfs, per distribution family, so that a modprobe.d change reaches early boot.
_INITRAMFS = {"debian": "sudo update-initramfs -u", "fedora": "sudo dracut --force", "rhel": "sudo dracut --force",
              "suse": "sudo dracut --force", "arch": "sudo mkinitcpio -P"}
# The key DKMS / akmods sign modules with, which Secure Boot must trust (enrolled as a MOK).
_MOK_KEY = {"ubuntu": "/var/lib/shim-signed/mok/MOK.der", "debian": "/var/lib/dkms/mok.pub",
            "fedora": "/etc/pki/akmods/certs/public_key.der", "rhel": "/var/lib/dkms/mok.pub",
            "arch": "/var/lib/dkms/mok.pub"}
NVIDIA_NOUVEAU_DOC = "https://docs.nvidia.com/cuda/archive/12.2.0/cuda-installation-guide-linux/#disabling-nouveau"


def _mok_key(s) -> str | None:
    if "ubuntu" in (F.os_pretty(s) or "").lower():
        return _MOK_KEY["ubuntu"]
    return _MOK_KEY.get(F.distro_family(s) or "")


def _module_cause(s) -> str:
    """TE312 nouveau holds the GPU, TE311 Secure Boot refuses a module that was built, TE313 no module
    for the running kernel, TE310 none of these visible."""
    if F.module_loaded(s, "nouveau"):
        return "TE312"
    built = F.nvidia_module_for_kernel(s)
    release = F.kernel_release(s)
    dkms = F.dkms_builds(s)
    if dkms and release and built is not True:
        built = any(d.kernel == release and d.built is True for d in dkms)
    if F.secure_boot(s) is True and built is not False:
        return "TE311"
    if built is False:
        return "TE313"
    return "TE310"


def kernel_module_missing(s) -> list[dict]:
    """The user-space driver is installed (nvidia-smi, libcuda, driver packages) and the machine has an
    NVIDIA GPU, but /proc/modules shows no nvidia module: CUDA cannot start.  Its cause, from the
    files: nouveau bound to the GPU, Secure Boot refusing an unsigned module, or no module built for
    the running kernel; each with its distribution's fix.  Not on WSL (no kernel module there), macOS
    or Jetson (nvgpu)."""
    if F.system(s) != "Linux" or F.wsl(s) or F.is_tegra(s) or F.driver_present(s) is True:
        return []
    if F.module_loaded(s, "nvidia") is not False or F.pci_gpus(s) == []:
        return []
    evidence = F.userspace_driver(s) or next((p.name for p in F.driver_packages(s) or ()), None) \
        or next((f"DKMS nvidia {d.version}" for d in F.dkms_builds(s) or ()), None)
    if not evidence:
        return []
    code = _module_cause(s)
    release = F.kernel_release(s)
    family = F.distro_family(s)
    pci = F.pci_gpus(s)
    where = F.pci_label(pci) if pci else "an NVIDIA GPU"
    container = F.container(s)
    host = (f" This runs in a container ({container}): the module is the host's, so run the fix on the host."
            if container else "")
    details = {"kernel_modules": F.kernel_modules(s), "kernel_release": release, "secure_boot": F.secure_boot(s),
               "nvidia_module_for_kernel": F.nvidia_module_for_kernel(s), "dkms": F.as_details(F.dkms_builds(s)),
               "userspace_driver": evidence, "distribution": family}
    check = "sudo modprobe nvidia && nvidia-smi"
    if code == "TE312":
        blacklisted = F.nouveau_blacklisted(s)
        rebuild = _INITRAMFS.get(family or "")
        msg = f"the nouveau driver is bound to {where}, so the NVIDIA kernel module cannot load (user-space driver: {evidence})"
        expl = ("Only one kernel driver can own the GPU: nouveau (the open-source driver the kernel loads by default) "
                "took it, so the nvidia module is not loaded and CUDA finds no driver. Blacklist nouveau, rebuild the "
                "initramfs (nouveau is loaded from it in early boot) and reboot (NVIDIA CUDA Installation Guide for "
                f"Linux, 'Disabling Nouveau': {NVIDIA_NOUVEAU_DOC}).")
        lines = []
        if blacklisted:
            expl += " A modprobe.d file already blacklists nouveau: the initramfs still loads it, so rebuild the initramfs."
        else:
            lines.append("printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf")
        lines.append(rebuild or "# rebuild the initramfs with your distribution's tool (dracut, mkinitcpio, update-initramfs)")
        lines += ["sudo reboot", "# after the reboot:", "nvidia-smi"]
        return [finding("TE312", "failure", msg, expl + host, "\n".join(lines), details, hides=["TE301", "TE303"])]
    if code == "TE311":
        key = _mok_key(s)
        msg = (f"Secure Boot is on and the NVIDIA kernel module is not loaded: the kernel refuses the unsigned module "
               f"(user-space driver: {evidence})")
        expl = ("With UEFI Secure Boot on, the kernel loads only modules signed by a trusted key. DKMS (or akmods) "
                "built the nvidia module and signed it with a machine-owner key (MOK) that the firmware does not trust "
                "yet, so `modprobe nvidia` fails (\"Key was rejected by service\" / \"Required key not available\"). "
                "Enroll that key: `mokutil --import` asks for a one-time password, and at the next boot the blue MOK "
                "Manager screen asks for it under \"Enroll MOK\". (Turning Secure Boot off in the firmware also works, "
                "at the cost of Secure Boot.) Reinstalling the driver does not help: it builds the same unsigned module.")
        fix = ((f"sudo mokutil --import {key}" if key else
                "# enroll the key your DKMS signs modules with (dkms 3: /var/lib/dkms/mok.pub):\nsudo mokutil --import /var/lib/dkms/mok.pub")
               + "\nsudo reboot   # MOK Manager: Enroll MOK, enter the password\n# after the reboot:\n" + check)
        return [finding("TE311", "failure", msg, expl + host, fix, details, hides=["TE301", "TE303"])]
    if code == "TE313":
        built_for = sorted({str(d.kernel) for d in F.dkms_builds(s) or () if d.built})
        msg = (f"the NVIDIA kernel module was not built for the running kernel {release or '?'}"
               + (f" (DKMS built it for {', '.join(built_for[:3])})" if built_for else "")
               + f"; the user-space driver is installed ({evidence})")
        expl = ("After a kernel update DKMS rebuilds the nvidia module for the new kernel only when that kernel's "
                "headers are installed; without them the new kernel boots with no nvidia module and CUDA finds no "
                "driver. Install the headers of the running kernel and let DKMS build the module for it.")
        fix = SYS.kernel_headers_rebuild(s, release) + "\n" + check
        return [finding("TE313", "failure", msg, expl + host, fix, details, hides=["TE301", "TE303"])]
    msg = f"the NVIDIA user-space driver is installed ({evidence}) but the nvidia kernel module is not loaded"
    expl = ("CUDA talks to the GPU through the nvidia kernel module, which is not in /proc/modules. Neither nouveau, "
            "nor Secure Boot, nor a missing build for this kernel explains it from the files read: load it and read "
            "the kernel's reason.")
    fix = "sudo modprobe nvidia\nsudo dmesg | grep -i -E 'nvidia|nvrm' | tail -n 20\nnvidia-smi"
    return [finding("TE310", "failure", msg, expl + host, fix, details, hides=["TE301", "TE303"])]


# ---------------------------------------------------------------- WSL 2: the Windows driver, not a Linux one

def wsl_linux_driver(s) -> list[dict]:
    """WSL 2 reaches the GPU through the Windows driver's libraries in /usr/lib/wsl/lib; a Linux NVIDIA
    driver installed inside WSL puts its own libcuda.so.1 first and CUDA fails.  The fix removes those
    packages (never installs a driver, never the CPU wheel)."""
    hit = F.wsl_linux_driver(s)
    if hit is None:
        return []
    pkgs = hit.packages
    by_manager: dict = {}
    for p in pkgs:
        by_manager.setdefault(p.manager or "dpkg", []).append(p.name)
    lines = []
    for manager, names in by_manager.items():
        lines.append(SYS.remove_packages(manager, names))
    shadow = hit.libcuda
    via_path = next((e for e in F.libcuda_resolution(s) or () if e.path == shadow
                     and e.source == "LD_LIBRARY_PATH"), None)
    dropped = A.drop_from_library_path(s, "LD_LIBRARY_PATH", [shadow.rsplit("/", 1)[0]]) if via_path else None
    if dropped:
        # found first through LD_LIBRARY_PATH (a CUDA compat folder, a copied driver): drop the folder
        lines.append(dropped)
    elif shadow and not pkgs:
        # a copy no package owns (a runfile install, or copied by hand)
        lines.append(f"sudo rm {A.posix_word(shadow)}")
    lines += ["sudo ldconfig", "# then, in Windows (PowerShell): wsl --shutdown   and reopen WSL; check with:",
              "ls -l /usr/lib/wsl/lib/libcuda.so.1 && nvidia-smi"]
    named = ", ".join(p.name for p in pkgs[:4]) + (" ..." if len(pkgs) > 4 else "")
    msg = ("a Linux NVIDIA driver is installed inside WSL 2"
           + (f" ({named})" if named else "")
           + (f": the loader takes {shadow} instead of the Windows driver's /usr/lib/wsl/lib/libcuda.so.1" if shadow else ""))
    expl = ("Under WSL 2 the GPU belongs to the Windows NVIDIA driver, which WSL exposes through the stub libraries in "
            "/usr/lib/wsl/lib; NVIDIA's CUDA on WSL guide says not to install any Linux display driver inside WSL. "
            "A Linux driver package's libcuda.so.1 is found first and cannot reach the GPU (CUDA fails to initialise, "
            "or nvidia-smi says it cannot communicate with the driver). Remove the Linux driver packages (the CUDA "
            "toolkit without its driver, e.g. `cuda-toolkit-12-x`, may stay); keep torch as it is.")
    sev = "failure" if F.cuda_works(s) is not True else "warning"
    details = {"packages": F.as_details(pkgs), "libcuda_first": shadow,
               "libcuda": F.as_details(F.libcuda_resolution(s)), "wsl_lib_present": hit.wsl_lib}
    return [finding("TE314", sev, msg, expl, "\n".join(lines), details, hides=["TE301"], explains=["TE303"])]


RULES += [kernel_module_missing, wsl_linux_driver]
