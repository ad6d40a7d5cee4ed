"""The report's areas, one Area record each: everything the doctor knows about an area is declared
here once, and every table that used to repeat it is derived from these records (the report order,
the optional areas, the rules that judge an area, the facts it is judged from, the probes whose
crash is its, its title, its headline, its --verbose sections, its probe-failed and could-not-judge
codes).

The rules package and doctor/headlines resolve `rules` and `headline` (dotted names of their own
modules and functions), so this module imports neither: they import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from torch_envcheck.doctor.codes import CODES
from torch_envcheck.facts.conda import in_conda_env

RULES_PACKAGE = "torch_envcheck.doctor.rules"
HEADLINES_PACKAGE = "torch_envcheck.doctor.headlines"


@dataclass(frozen=True)
class Area:
    name: str
    title: str                        # beside its [✓] mark
    rules: str                        # its rule module, in doctor/rules (RULES_PACKAGE + "." + rules)
    headline: str                     # "module:function" in doctor/headlines: its facts in one line
    probe_failed: str                 # the code of "a probe of this area crashed" (TEx90)
    could_not_judge: str | None = None  # the code of "its facts are unknown" (TEx80), when judged_by
    judged_by: tuple[str, ...] = ()   # contract paths: judged only when one of them is known; none:
    #                                   always judged (its rules are silent without their facts)
    probes: tuple[str, ...] = ()      # probe names, and words in a probe's name, whose crash is this area's
    shows: tuple[str, ...] = ()       # the snapshot sections --verbose lists under it
    applies: Callable | None = None   # an optional area: shown only where applies(snapshot) (or it has findings)

    @property
    def optional(self) -> bool:
        return self.applies is not None


ALL: tuple[Area, ...] = (
    Area("platform", "Platform", "platform", "core:platform_headline", "TE190", "TE180",
         judged_by=("platform.system",), probes=("platform", "python", "wsl", "env", "system"),
         shows=("platform", "system")),
    Area("torch", "PyTorch", "torch_rules", "core:torch_headline", "TE290", "TE280",
         judged_by=("torch.importable",), probes=("torch", "package"), shows=("torch", "packages")),
    Area("driver", "NVIDIA driver", "driver", "core:driver_headline", "TE390", "TE380",
         # torch's CUDA initialisation says much about the driver too
         judged_by=("driver.present", "torch.cuda_available"),
         probes=("driver", "nvml", "nvidia-smi", "nvidia_smi"), shows=("driver",)),
    Area("gpu", "GPUs", "gpu", "core:gpu_headline", "TE490", "TE480",
         judged_by=("driver.present", "torch.importable"), probes=("gpu", "device")),
    Area("libraries", "CUDA libraries", "libraries", "core:libraries_headline", "TE590", "TE580",
         judged_by=("libraries.entries",), probes=("librar", "cudnn"), shows=("libraries", "env")),
    Area("toolchain", "Compiler toolchain", "toolchain", "core:toolchain_headline", "TE690", "TE680",
         judged_by=("toolchain.nvcc",), probes=("toolchain", "nvcc", "compiler"), shows=("toolchain",)),
    Area("extension", "torch_envcheck extension", "extension", "core:extension_headline", "TE790", "TE780",
         judged_by=("extension.status",), probes=("extension", "build_info", "runtime_info"), shows=("extension",)),
    # judged only when TensorFlow is installed: unknown facts give no finding
    Area("tensorflow", "TensorFlow", "tensorflow", "tensorflow:headline", "TE890",
         probes=("tensorflow", "file_owner"), shows=("tensorflow", "file_owners")),
    # shown where the snapshot was taken in a conda env (or has conda findings); its rules are silent elsewhere
    Area("conda", "conda env", "conda", "conda:headline", "TE990",
         probes=("conda",), shows=("conda",), applies=in_conda_env),
)

BY_NAME: dict[str, Area] = {a.name: a for a in ALL}
AREAS: tuple[str, ...] = tuple(a.name for a in ALL if not a.optional)   # always shown, in report order
OPTIONAL_AREAS: tuple[str, ...] = tuple(a.name for a in ALL if a.optional)
ORDER: tuple[str, ...] = AREAS + OPTIONAL_AREAS


def title(name) -> str:
    a = BY_NAME.get(name)
    return a.title if a else str(name)


def areas_for(snapshot=None, findings=()) -> tuple:
    """The areas a report shows, in order: AREAS, then each optional area that applies (conda: the
    snapshot was taken in a conda env) or has findings."""
    with_findings = {getattr(f, "area", None) for f in findings or ()}
    shown = [a.name for a in ALL if a.optional and (a.name in with_findings or a.applies(snapshot))]
    return AREAS + tuple(shown)


def probe_area(name) -> str:
    """The area whose facts a probe gathers: its name (or a word in it, in report order), else platform."""
    low = str(name).lower()
    return next((a.name for a in ALL if low in a.probes), None) or \
        next((a.name for a in ALL if any(word in low for word in a.probes)), "platform")


def _check() -> None:
    """The codes an Area names belong to that area (codes.py): a typo fails at import."""
    for a in ALL:
        for code in (a.probe_failed, a.could_not_judge):
            if code is not None and (code not in CODES or CODES[code][1] != a.name):
                raise ValueError(f"area {a.name}: {code} is not one of its codes (torch_envcheck/doctor/codes.py)")
        if bool(a.judged_by) != bool(a.could_not_judge):
            raise ValueError(f"area {a.name}: a could-not-judge code goes with the facts it is judged by")


_check()
