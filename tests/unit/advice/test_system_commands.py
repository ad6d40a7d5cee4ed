"""The system package managers' lines (advice/system_commands.py): one per distribution family,
read back by a model of the shell that runs them, so a kernel release or package name from a
stranger's snapshot stays one word and a family with no known command gets a comment, never a guess."""

from __future__ import annotations

import pytest

import shell_models as sm
from torch_envcheck.advice import system_commands as SYS


def snap(os_pretty: str | None = None, system: str = "Linux", shell: str | None = None) -> dict:
    return {"platform": {"system": system, "os_pretty": os_pretty}, "request": {"shell": shell}}


def words(line: str, shell: str = "posix", allow_vars=()) -> list[list[str]]:
    return sm.argvs(sm.MODELS[shell](line, allow_vars=allow_vars))


@pytest.mark.parametrize("os_pretty,want", [
    ("Ubuntu 24.04.1 LTS", [["sudo", "apt-get", "install", "linux-headers-6.8.0-49-generic"],
                            ["sudo", "dkms", "autoinstall", "-k", "6.8.0-49-generic"]]),
    ("Fedora Linux 41 (Workstation Edition)", [["sudo", "dnf", "install", "kernel-devel-6.8.0-49-generic"],
                                               ["sudo", "akmods", "--force", "--kernels", "6.8.0-49-generic"]]),
    ("Rocky Linux 9.4 (Blue Onyx)", [["sudo", "dnf", "install", "kernel-devel-6.8.0-49-generic",
                                      "kernel-headers-6.8.0-49-generic"],
                                     ["sudo", "dkms", "autoinstall", "-k", "6.8.0-49-generic"]]),
    ("openSUSE Tumbleweed", [["sudo", "zypper", "install", "kernel-default-devel"],
                             ["sudo", "dkms", "autoinstall", "-k", "6.8.0-49-generic"]]),
    ("Arch Linux", [["sudo", "pacman", "-S", "--needed", "linux-headers"],
                    ["sudo", "dkms", "autoinstall", "-k", "6.8.0-49-generic"]]),
])
def test_kernel_headers_per_family(os_pretty, want):
    assert words(SYS.kernel_headers_rebuild(snap(os_pretty), "6.8.0-49-generic")) == want


def test_kernel_headers_of_an_unknown_family_is_a_comment_then_dkms():
    line = SYS.kernel_headers_rebuild(snap("Gentoo Linux"), "6.8.0-49-generic")
    first, second = line.split("\n")
    assert first.startswith("# install the kernel headers for 6.8.0-49-generic")
    assert words(second) == [["sudo", "dkms", "autoinstall", "-k", "6.8.0-49-generic"]]


def test_an_unknown_release_is_the_running_kernel():
    line = SYS.kernel_headers_rebuild(snap("Ubuntu 22.04"), None)
    assert line == "sudo apt-get install linux-headers-$(uname -r) && sudo dkms autoinstall -k $(uname -r)"


@pytest.mark.parametrize("release", ["6.8.0; rm -rf ~", "6.8 $(reboot)", "a b", "`id`", "x\ny"])
def test_a_hostile_release_stays_one_word(release):
    for os_pretty in ("Ubuntu 24.04", "Fedora Linux 41", "Rocky Linux 9", "openSUSE Leap", "Arch Linux"):
        argv = words(SYS.kernel_headers_rebuild(snap(os_pretty), release))
        assert len(argv) == 2 and argv[0][:2] == ["sudo", argv[0][1]] and argv[1][0] == "sudo", (os_pretty, argv)
        if "\n" not in release:  # (a newline is made a space by the quoting: escape.shell_quote)
            assert argv[-1][-1] == release, (os_pretty, argv)


@pytest.mark.parametrize("manager,want", [
    ("dpkg", ["sudo", "apt-get", "remove", "--purge"]), ("rpm", ["sudo", "dnf", "remove"]),
    ("pacman", ["sudo", "pacman", "-Rns"]), (None, ["sudo", "apt-get", "remove", "--purge"]),
    ("unknown-db", ["sudo", "apt-get", "remove", "--purge"]),
])
def test_remove_packages_by_the_database_that_lists_them(manager, want):
    names = ["nvidia-driver-550", "libnvidia-compute-550", "nvidia-driver-550", "evil; reboot"]
    assert words(SYS.remove_packages(manager, names)) == [want + sorted(set(names))]


@pytest.mark.parametrize("os_pretty,want", [
    ("Ubuntu 24.04", [["sudo", "apt-get", "install", "gcc-13", "g++-13"]]),
    ("Red Hat Enterprise Linux 9.4", [["sudo", "dnf", "install", "gcc-toolset-13"]]),
])
def test_gcc_install(os_pretty, want):
    assert words(SYS.gcc_install(snap(os_pretty), 13)) == want


@pytest.mark.parametrize("os_pretty", ["Fedora Linux 41", "Arch Linux", None])
def test_gcc_install_where_no_such_package_is_known(os_pretty):
    assert SYS.gcc_install(snap(os_pretty), 13) is None


@pytest.mark.parametrize("shell", ["cmd", "powershell", None])
def test_winget_is_quoted_for_the_windows_shell(shell):
    line = SYS.winget_install(snap(system="Windows", shell=shell), "Microsoft.VisualStudio.2022.BuildTools",
                              "--override", "--passive --wait --add X")
    want = ["winget", "install", "--id", "Microsoft.VisualStudio.2022.BuildTools", "-e", "--override",
            "--passive --wait --add X"]
    for model in ([shell] if shell else ["cmd", "powershell"]):   # unknown: valid in both
        assert words(line, model) == [want], (model, line)
