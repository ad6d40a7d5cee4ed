"""The system package managers' command lines (apt-get, dnf, zypper, pacman, ubuntu-drivers on Linux;
winget on Windows): the one place they are written, so a rule says what the machine needs (a kernel's
headers, a GCC major, the driver packages to remove, Microsoft's C++ build tools) and this module says
how, for the distribution family the facts name (F.distro_family: debian, fedora, rhel, suse, arch).

Every value that comes from a snapshot (a kernel release, a package name) is one word quoted for the
shell the line runs in: POSIX for the Linux lines (run with sudo, in a POSIX shell), the snapshot's
own shell for winget's.  A family with no known command gets a comment saying what to install, never a
guessed command.  tests/unit/contract/test_commands_from_advice.py fails on such a line in a rule."""

from __future__ import annotations

from torch_envcheck._util import escape
from torch_envcheck.facts import core as F

# How each installed-package database's manager removes packages (the driver_packages probe records
# the database: dpkg, rpm or pacman).  An unknown one is taken as Debian's, the most common.
_REMOVE = {"dpkg": "sudo apt-get remove --purge", "rpm": "sudo dnf remove", "pacman": "sudo pacman -Rns"}
# The placeholder a line uses when the running kernel's release is not recorded (expanded by the shell).
RUNNING_KERNEL = "$(uname -r)"


def _word(value: str) -> str:
    return escape.shell_quote(value, "posix")


def _kernel(release: str | None) -> str:
    return _word(release) if release else RUNNING_KERNEL


def _in_kernel(prefix: str, release: str | None) -> str:
    """A package named after a kernel release (linux-headers-6.8.0-49-generic), one word."""
    return _word(prefix + release) if release else prefix + RUNNING_KERNEL


def ubuntu_drivers_install() -> str:
    """Ubuntu's recommended NVIDIA driver (ubuntu-drivers picks the package for this GPU)."""
    return "sudo ubuntu-drivers install"


def kernel_headers_rebuild(s, release: str | None) -> str:
    """Install the headers of a kernel release (the running one when None) and rebuild the NVIDIA module
    against them: DKMS, or akmods on Fedora (RPM Fusion)."""
    rel = _kernel(release)
    family = F.distro_family(s)
    if family == "debian":
        return f"sudo apt-get install {_in_kernel('linux-headers-', release)} && sudo dkms autoinstall -k {rel}"
    if family == "fedora":
        return f"sudo dnf install {_in_kernel('kernel-devel-', release)} && sudo akmods --force --kernels {rel}"
    if family == "rhel":
        return (f"sudo dnf install {_in_kernel('kernel-devel-', release)} {_in_kernel('kernel-headers-', release)}"
                f" && sudo dkms autoinstall -k {rel}")
    if family == "suse":
        return f"sudo zypper install kernel-default-devel && sudo dkms autoinstall -k {rel}"
    if family == "arch":
        return f"sudo pacman -S --needed linux-headers && sudo dkms autoinstall -k {rel}"
    return f"# install the kernel headers for {rel} with your package manager, then:\nsudo dkms autoinstall -k {rel}"


def remove_packages(manager: str | None, names) -> str:
    """Remove installed packages with the manager of the database that lists them (dpkg, rpm, pacman)."""
    words = " ".join(_word(n) for n in sorted(set(names)))
    return f"{_REMOVE.get(manager or 'dpkg', _REMOVE['dpkg'])} {words}"


def gcc_install(s, major: int) -> str | None:
    """Install one GCC major beside the system's: Debian/Ubuntu's gcc-N/g++-N, RHEL's gcc-toolset-N (its
    compilers under /opt/rh/gcc-toolset-N); None where the family ships no such package (Fedora has one
    GCC) or is unknown."""
    family = F.distro_family(s)
    if family == "debian":
        return f"sudo apt-get install gcc-{int(major)} g++-{int(major)}"
    if family == "rhel":
        return f"sudo dnf install gcc-toolset-{int(major)}"
    return None


def winget_install(s, package_id: str, *extra: str) -> str:
    """winget's install of one package by its exact id, quoted for the snapshot's shell."""
    return escape.shell_join(("winget", "install", "--id", package_id, "-e", *extra), F.shell(s))
