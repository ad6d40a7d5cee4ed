"""The rules' name for the facts layer (torch_envcheck/doctor/facts/core.py): rules call `F.name(s)`.
Every accessor lives there; this module only re-exports them, so rule modules keep `from . import
_facts as F` and never index the snapshot themselves."""

from __future__ import annotations

from torch_envcheck.doctor.facts.core import *  # noqa: F401,F403
from torch_envcheck.doctor.facts.core import _avail, _cap_text  # noqa: F401
