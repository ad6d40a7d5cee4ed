"""The platforms a project locks for (`advise --uv/--pixi --target linux,windows,macos`): each with
the PEP 508 marker uv's sources and environments use, the values that marker is evaluated with, and
the OS/CPU the knowledge tables name its wheels by."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Target:
    name: str          # linux, linux-aarch64, windows, macos
    os: str            # platform.system(): Linux, Windows, Darwin
    machine: str       # platform.machine() as the tables name it
    marker: str        # PEP 508 marker selecting it (uv's [tool.uv.sources], environments)
    conda: str         # pixi's platform name

    def env(self) -> dict:
        """The marker environment a resolver uses for it (packaging.markers.Marker.evaluate)."""
        return {"sys_platform": {"Linux": "linux", "Windows": "win32", "Darwin": "darwin"}[self.os],
                "platform_system": self.os, "platform_machine": self.machine, "os_name":
                "nt" if self.os == "Windows" else "posix"}


TARGETS = {
    "linux": Target("linux", "Linux", "x86_64", "sys_platform == 'linux' and platform_machine == 'x86_64'",
                    "linux-64"),
    "linux-aarch64": Target("linux-aarch64", "Linux", "aarch64",
                            "sys_platform == 'linux' and platform_machine == 'aarch64'", "linux-aarch64"),
    "windows": Target("windows", "Windows", "AMD64", "sys_platform == 'win32'", "win-64"),
    "macos": Target("macos", "Darwin", "arm64", "sys_platform == 'darwin'", "osx-arm64"),
}


def own(os_name: str | None, machine: str | None) -> str | None:
    """The target name of a machine (None: a platform no target describes)."""
    if os_name == "Linux":
        return "linux-aarch64" if (machine or "").lower() in ("aarch64", "arm64") else "linux"
    if os_name == "Windows":
        return "windows"
    if os_name == "Darwin":
        return "macos"
    return None


def parse(text: str | None, os_name: str | None = None, machine: str | None = None) -> list[Target] | None:
    """The targets named in `text` (comma-separated), in that order; None: the default, which the
    caller fills from the snapshot (default_for).  Raises ValueError naming an unknown one."""
    if text is None:
        return None
    names = [w.strip().lower() for w in text.split(",") if w.strip()]
    known = ", ".join(TARGETS)
    if not names:
        raise ValueError(f"--target: no platform named (one or more of {known})")
    bad = [n for n in names if n not in TARGETS]
    if bad:
        raise ValueError(f"--target: unknown platform {bad[0][:40]!r} (one or more of {known})")
    return [TARGETS[n] for n in dict.fromkeys(names)]


def default_for(os_name: str | None, machine: str | None) -> list[Target]:
    """This machine's platform first, then the other desktop platforms a project usually targets."""
    first = own(os_name, machine) or "linux"
    order = [first] + [n for n in ("linux", "windows", "macos") if n != first and not
                       (first == "linux-aarch64" and n == "linux")]
    return [TARGETS[n] for n in order]
