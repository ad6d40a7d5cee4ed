"""The machine under the Python environment, as files say it (Linux): which GPU kernel modules are
loaded (/proc/modules), the nvidia module's version, Secure Boot (UEFI's SecureBoot variable, readable
without root), the DKMS builds of the nvidia module and whether one exists for the running kernel,
whether nouveau is blacklisted, /dev/shm's size, which libcuda.so.1 the dynamic loader resolves, the
NVIDIA driver packages the package manager installed (dpkg, rpm and pacman data read as files), and the
AMD and Intel GPUs on the PCI bus (ROCm, XPU).  Facts only: the rules judge them.

Every read is bounded and never blocks (_util/safe_open: regular files only, a size limit; folder
walks stop after a fixed number of entries and never follow links); a fact that cannot be read is
None (unknown), never a guess.  Runs one program at most (`ldconfig -p`, under the probe's time limit).
"""

from __future__ import annotations

import os
import re
import sqlite3

from torch_envcheck._util import proc as _proc, safe_open
from torch_envcheck.doctor.probes import pci

# /proc/modules: "name size refcount deps state offset [taint]", one module a line (proc(5)).
GPU_MODULES = ("nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia_peermem", "nouveau",
               "amdgpu", "i915", "xe")
# UEFI's global-variable GUID (UEFI spec, "Globally Defined Variables"); efivarfs prefixes the value
# with the variable's 4 attribute bytes, so SecureBoot reads as 5 bytes, the last 1 when it is on.
SECURE_BOOT_VAR = "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
# What a distribution installs the NVIDIA driver as: Debian/Ubuntu (nvidia-driver-550,
# libnvidia-compute-550, nvidia-dkms-550, cuda-drivers), Fedora/RHEL (nvidia-driver, kmod-nvidia,
# akmod-nvidia, xorg-x11-drv-nvidia), openSUSE (nvidia-compute-G06), Arch (nvidia, nvidia-utils).
_DRIVER_PACKAGE = re.compile(
    r"^(nvidia-driver(-[\w.]+)?|nvidia-dkms(-[\w.]+)?|nvidia-kernel-(common|source|open)(-[\w.]+)?|"
    r"libnvidia-compute(-[\w.]+)?|libnvidia-gl(-[\w.]+)?|nvidia-utils(-[\w.]+)?|nvidia-compute-utils(-[\w.]+)?|"
    r"nvidia-open(-[\w.]+)?|nvidia|nvidia-lts|cuda-drivers(-[\w.]+)?|kmod-nvidia(-[\w.]+)?|akmod-nvidia|"
    r"xorg-x11-drv-nvidia(-[\w.]+)?|nvidia-compute-G0\d|nvidia-driver-G0\d(-[\w.]+)?|nvidia-gl-G0\d)$")
PCI_VENDORS = {"0x1002": "amd", "0x8086": "intel"}
MAX_ENTRIES = 20000          # entries a folder walk visits at most
DPKG_STATUS_LIMIT = 32 << 20  # a large Debian system's status file is a few MB
RPMDB_LIMIT = 512 << 20


def _read(path: str, limit: int = 65536) -> str | None:
    try:
        return safe_open.read_text(path, limit, overflow="head")
    except OSError:
        return None


def parse_proc_modules(text: str | None) -> list[str] | None:
    """The GPU modules (GPU_MODULES) loaded, in /proc/modules order; None when it was not readable."""
    if text is None:
        return None
    names = [line.split(" ", 1)[0] for line in text.splitlines() if line.strip()]
    return [n for n in names if n in GPU_MODULES]


def secure_boot(efivars: str = "/sys/firmware/efi/efivars", efi: str = "/sys/firmware/efi") -> bool | None:
    """True/False from UEFI's SecureBoot variable; False on a machine booted without UEFI (no
    /sys/firmware/efi: Secure Boot cannot be on); None when it cannot be read."""
    if not os.path.isdir(efi):
        return False if os.path.isdir("/sys/firmware") else None
    try:
        raw = safe_open.read_bytes(os.path.join(efivars, SECURE_BOOT_VAR), 64, overflow="head")
    except FileNotFoundError:
        return False if os.path.isdir(efivars) else None  # firmware without the variable: no Secure Boot
    except OSError:
        return None
    return bool(raw[4]) if len(raw) >= 5 else None


def _walk_limited(top: str, limit: int = MAX_ENTRIES):
    """(dirpath, filenames) under top, never following links, at most `limit` entries in all."""
    seen = 0
    stack = [top]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            continue
        files = []
        for e in entries:
            seen += 1
            if seen > limit:
                return
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                else:
                    files.append(e.name)
            except OSError:
                continue
        yield d, files


def dkms_builds(root: str = "/var/lib/dkms", module: str = "nvidia") -> list[dict] | None:
    """DKMS's tree /var/lib/dkms/<module>/<version>/<kernel>/<arch>/module/*.ko*: one row per build
    {module, version, kernel, arch, built}; None when DKMS holds no such module (or none is installed)."""
    base = os.path.join(root, module)
    if not os.path.isdir(base):
        return None
    out = []
    try:
        versions = sorted(v for v in os.listdir(base) if not v.startswith(".") and v not in ("original_module", "kernel"))
    except OSError:
        return None
    for version in versions[:20]:
        vdir = os.path.join(base, version)
        if os.path.islink(vdir) or not os.path.isdir(vdir):
            continue
        try:
            kernels = sorted(k for k in os.listdir(vdir) if k not in ("source", "build", "log"))
        except OSError:
            continue
        for kernel in kernels[:50]:
            kdir = os.path.join(vdir, kernel)
            if os.path.islink(kdir) or not os.path.isdir(kdir):
                continue
            try:
                arches = sorted(os.listdir(kdir))
            except OSError:
                continue
            for arch in arches[:4]:
                mdir = os.path.join(kdir, arch, "module")
                try:
                    built = any(n.startswith(module + ".ko") for n in os.listdir(mdir))
                except OSError:
                    built = False
                out.append({"module": module, "version": version, "kernel": kernel, "arch": arch, "built": built})
    return out


def module_for_kernel(release: str, root: str = "/lib/modules", module: str = "nvidia") -> bool | None:
    """Whether a <module>.ko (any compression) exists for the running kernel under
    /lib/modules/<release> (DKMS's updates/dkms, a distribution's kernel/..., extra/); None when that
    folder cannot be read."""
    top = os.path.join(root, release)
    if not release or not os.path.isdir(top):
        return None
    name = re.compile(re.escape(module) + r"\.ko(\.(xz|zst|gz))?$")
    for _d, files in _walk_limited(top):
        if any(name.match(f) for f in files):
            return True
    return False


def nouveau_blacklisted(folders=("/etc/modprobe.d", "/usr/lib/modprobe.d", "/lib/modprobe.d")) -> bool | None:
    """Whether a modprobe.d file says `blacklist nouveau`; None when no such folder is readable."""
    seen = False
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))[:500]
        except OSError:
            continue
        seen = True
        for name in names:
            if not name.endswith(".conf"):
                continue
            text = _read(os.path.join(folder, name), 65536) or ""
            if re.search(r"^\s*blacklist\s+nouveau\s*$", text, re.M):
                return True
    return False if seen else None


def shm(path: str = "/dev/shm") -> dict | None:
    """{path, total_bytes, free_bytes} of the shared-memory file system (statvfs: no read, no wait)."""
    if not os.path.isdir(path):
        return None
    try:
        st = os.statvfs(path)
    except OSError:
        return None
    return {"path": path, "total_bytes": st.f_blocks * st.f_frsize, "free_bytes": st.f_bavail * st.f_frsize}


_LDCONFIG_LINE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S.*)$")


def parse_ldconfig(text: str, soname: str = "libcuda.so.1") -> list[dict]:
    """`ldconfig -p` lines for `soname`, in the cache's order (the loader takes the first of its
    word size): [{path, source: 'ld.so.cache', abi}]."""
    out = []
    for line in (text or "").splitlines():
        m = _LDCONFIG_LINE.match(line)
        if m and m.group(1) == soname:
            out.append({"path": m.group(3).strip(), "source": "ld.so.cache", "abi": m.group(2)})
    return out


def libcuda(env: dict, timeout: float, soname: str = "libcuda.so.1") -> list[dict] | None:
    """Where the dynamic loader finds libcuda.so.1, in the order it looks: each LD_LIBRARY_PATH folder
    holding it, then ld.so.cache (`ldconfig -p`).  None when neither could be read."""
    out = []
    for d in (env.get("LD_LIBRARY_PATH") or "").split(":"):
        if d and os.path.isfile(os.path.join(d, soname)):
            out.append({"path": os.path.join(d, soname), "source": "LD_LIBRARY_PATH", "abi": None})
    ldconfig = next((p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig", "/usr/bin/ldconfig") if os.path.isfile(p)), None)
    if ldconfig is None:
        return out or None
    try:
        rc, stdout, _err = _proc.run([ldconfig, "-p"], timeout)
    except _proc.CommandFailed:
        return out or None
    if rc != 0:
        return out or None
    return out + parse_ldconfig(stdout, soname)


def parse_dpkg_status(text: str) -> list[dict]:
    """Installed NVIDIA driver packages from dpkg's status file (RFC 822-like stanzas)."""
    out = []
    for stanza in re.split(r"\n\s*\n", text or ""):
        fields = dict(re.findall(r"^([A-Za-z-]+):[ \t]*(.*)$", stanza, re.M))
        name, status = fields.get("Package"), fields.get("Status", "")
        if name and _DRIVER_PACKAGE.match(name) and status.endswith(" installed") and "not-installed" not in status:
            out.append({"name": name, "version": fields.get("Version") or None, "manager": "dpkg"})
    return out


def rpm_names(path: str) -> list[str] | None:
    """Package names of an rpm database in SQLite form (rpm >= 4.16: Fedora 33+, RHEL 9): its Name
    index.  Opened read-only and immutable (no lock, no journal), after checking it is a regular
    file of a bounded size."""
    try:
        fd, st = safe_open.open_fd(path)
        os.close(fd)
    except OSError:
        return None
    if st.st_size > RPMDB_LIMIT:
        return None
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, timeout=1.0)
    except sqlite3.Error:
        return None
    try:
        rows = con.execute("SELECT key FROM Name LIMIT 100000").fetchall()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    return [r[0].decode("utf-8", "replace") if isinstance(r[0], bytes) else str(r[0]) for r in rows]


_PACMAN_DIR = re.compile(r"^(.+)-([^-]+-[^-]+)$")


def driver_packages(dpkg: str = "/var/lib/dpkg/status", rpmdb: str = "/var/lib/rpm/rpmdb.sqlite",
                    pacman: str = "/var/lib/pacman/local") -> list[dict] | None:
    """NVIDIA driver packages the distribution's package manager installed; None when no package
    database could be read."""
    out, read_any = [], False
    try:
        text = safe_open.read_text(dpkg, DPKG_STATUS_LIMIT, overflow="head", encoding="utf-8")
        read_any = True
        out += parse_dpkg_status(text)
    except OSError:
        pass
    names = rpm_names(rpmdb)
    if names is not None:
        read_any = True
        out += [{"name": n, "version": None, "manager": "rpm"} for n in sorted(set(names)) if _DRIVER_PACKAGE.match(n)]
    try:
        dirs = sorted(os.listdir(pacman))[:20000]
        read_any = True
    except OSError:
        dirs = []
    for d in dirs:
        m = _PACMAN_DIR.match(d)
        if m and _DRIVER_PACKAGE.match(m.group(1)):
            out.append({"name": m.group(1), "version": m.group(2), "manager": "pacman"})
    return out if read_any else None


def other_gpus(root: str = pci.DEVICES) -> list[dict] | None:
    """AMD and Intel display controllers (PCI class 0x03xxxx) on the PCI bus: what a ROCm or an XPU
    torch would run on.  None when the bus cannot be read."""
    devices = pci.display_controllers(root)
    if devices is None:
        return None
    return [{"vendor": PCI_VENDORS[d["vendor"]], "bus_id": d["bus_id"], "device_id": d["device_id"], "class": d["class"]}
            for d in devices if d["vendor"] in PCI_VENDORS]


def probe(env: dict | None = None, timeout: float = 5.0) -> dict:
    import platform as _platform  # noqa: PLC0415
    env = dict(os.environ) if env is None else env
    out = {"kernel_modules": None, "nvidia_module_version": None, "secure_boot": None, "dkms": None,
           "nvidia_module_for_kernel": None, "nouveau_blacklisted": None, "shm": None, "libcuda": None,
           "driver_packages": None, "other_gpus": None, "kfd": None}
    if _platform.system() != "Linux":
        return out
    out["kernel_modules"] = parse_proc_modules(_read("/proc/modules", 4 << 20))
    version = _read("/sys/module/nvidia/version", 256)
    out["nvidia_module_version"] = version.strip() or None if version is not None else None
    out["secure_boot"] = secure_boot()
    out["dkms"] = dkms_builds()
    out["nvidia_module_for_kernel"] = module_for_kernel(_platform.release())
    out["nouveau_blacklisted"] = nouveau_blacklisted()
    out["shm"] = shm()
    out["libcuda"] = libcuda(env, timeout)
    out["driver_packages"] = driver_packages()
    out["other_gpus"] = other_gpus()
    out["kfd"] = os.path.exists("/dev/kfd")
    return out
