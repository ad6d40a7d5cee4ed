"""Rules about torch_envcheck's own compiled extension `_C`: built for this torch, loadable, and with a
kernel image for every GPU."""

from __future__ import annotations

import re

from torch_envcheck import knowledge as kb
from torch_envcheck._util.escape import shell_quote
from torch_envcheck.doctor.finding import finding
from torch_envcheck.facts import core as F

BUILD = "torch-envcheck build"
# The rebuild commands torch_envcheck.ext.extension writes into a snapshot; anything else is not run.
_KNOWN_COMMAND = re.compile(r"torch-envcheck build(?: --force)?|pip install --no-build-isolation --force-reinstall "
                            r"--no-deps torch_envcheck")


def state(s) -> list[dict]:
    st = F.ext_status(s)
    state = F.text(st.state)
    cmd = F.text(st.rebuild_command) or BUILD
    if not _KNOWN_COMMAND.fullmatch(cmd):  # a stranger's snapshot could name any command here
        cmd = BUILD
    if state == "stale":
        reason = st.stale_reason or F.text(st.error) or "built against another torch"
        return [finding("TE701", "warning",
                        f"the installed extension binary {st.stale_path or st.path or ''} is stale: {reason}".replace("  ", " "),
                        "A binary built against another torch fails to load (\"undefined symbol: _ZN...\"), so it is "
                        "ignored; the first use compiles a fresh one into the cache (a few minutes), or run the command now.",
                        f"{cmd} --force" if "--force" not in cmd else cmd,
                        {"built_against": st.built_against, "running_torch": st.running_torch, "stale_aot": st.stale_aot})]
    if state == "missing":
        return [finding("TE703", "warning", f"the torch_envcheck extension is not compiled for {F.torch_label(s)} yet",
                        "It is compiled on first use (a few minutes, once per torch version); its checks and kernels "
                        "are unavailable until then." + (f" Last note: {st.error}" if F.text(st.error) else ""),
                        cmd, {"running_torch": st.running_torch})]
    if state == "broken":
        return [finding("TE705", "failure", f"the compiled extension fails to load: {(F.text(st.error) or '?').splitlines()[0][:240]}",
                        "The binary exists but cannot be imported (corrupt file, missing library). Rebuild it.",
                        f"{cmd} --force", {"path": st.path, "error": st.error})]
    return []


def _torch_covers(s, cap) -> bool:
    arch = F.arch_list(s)
    return not arch or kb.capability_match(cap, arch)["ok"] is not False


def kernel_image(s) -> list[dict]:
    if F.ext_state(s) not in ("ok", None):
        return []
    out = []
    for d in F.ext_devices(s):
        if d.kernel_image is not False:
            continue
        cap = d.capability
        if cap and not _torch_covers(s, cap):
            continue  # a GPU torch has no kernels for (TE401/TE405 judge that): the extension's cannot matter there
        label = F.gpu_label(d)
        out.append(finding("TE702", "warning",
                           f"the extension has no kernel image for {label}",
                           "It was compiled for other GPU architectures (its build chose them when no GPU was visible, "
                           "or from TORCH_CUDA_ARCH_LIST); its CUDA ops fail with \"no kernel image is available\". "
                           "Rebuild it for this GPU.",
                           f"TORCH_CUDA_ARCH_LIST={shell_quote(cap)} {BUILD} --force" if cap else f"{BUILD} --force",
                           {"device": d.to_dict(), "error": d.kernel_error,
                            "built_for": F.ext_gencode(s)}, hides=["TE700"]))
    return out


def extension_ok(s) -> list[dict]:
    st = F.ext_status(s)
    if F.text(st.state) != "ok":
        return []  # (a GPU without a kernel image, TE702, hides it)
    mode = F.text(st.mode)
    return [finding("TE700", "ok",
                    f"the extension ({mode or 'built'}) matches {F.torch_label(s)} and loads"
                    + (f" from {st.path}" if F.text(st.path) else ""), "", None,
                    {"mode": mode, "path": st.path, "built_against": st.built_against})]


RULES = [state, kernel_image, extension_ok]
