"""The one parser for boolean environment flags (ENV_CHECK_REQUIRE_GPU, TORCH_ENVCHECK_REQUIRE_GPU,
TORCH_ENVCHECK_REQUIRE_CUDA, ...): "1/true/yes/on" is true, "0/false/no/off" is false (any case,
surrounding spaces ignored), unset or empty is the default.  Anything else is an error naming the
variable and what it accepts, never a guess: `ENV_CHECK_REQUIRE_GPU=false` must not mean true.

The drop-in templates/env_check.py keeps an inline copy (it must run without this package);
tests/unit/contract/test_doctor_design.py checks that the two agree."""

from __future__ import annotations

import os

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


class EnvFlagError(ValueError):
    """An environment flag with a value that is neither true nor false."""


def parse_flag(value) -> bool | None:
    """True / False for a recognised flag value, None for unset, empty or anything else."""
    if not isinstance(value, str):
        return None
    v = value.strip().lower()
    return True if v in TRUE else (False if v in FALSE else None)


def env_flag(name: str, default: bool = False, environ=None, invalid="raise") -> bool:
    """The flag `name` from `environ` (os.environ).  Unset or empty: `default`.  An unrecognised
    value raises EnvFlagError (invalid="raise"), or gives `invalid` (True/False) where the caller
    must not fail: a "require" flag fails closed with invalid=True, an opt-out with invalid=False."""
    env = os.environ if environ is None else environ
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    parsed = parse_flag(raw)
    if parsed is None:
        if invalid == "raise":
            raise EnvFlagError(f"{name}={raw!r} is not a boolean; expected one of "
                               f"{', '.join(TRUE)} (true) or {', '.join(FALSE)} (false)")
        return bool(invalid)
    return parsed
