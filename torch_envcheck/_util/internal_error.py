"""The last resort of every command: an unexpected exception becomes one line on stderr and exit
status 2, never a traceback.  TORCH_ENVCHECK_DEBUG=1 re-raises it (with its traceback) for whoever
is fixing the bug.  Here, below every command, so that a command module can guard its own entry
point without importing the command line above it."""

from __future__ import annotations

import os
import sys


def internal_error(command: str, exc: BaseException) -> int:
    """Report `exc`, raised while `command` ran, as one line on stderr; returns the exit status 2."""
    if os.environ.get("TORCH_ENVCHECK_DEBUG", "").strip().lower() in ("1", "true", "yes", "on"):
        raise exc
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415

    where = exc.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    at = f" at {os.path.basename(where.tb_frame.f_code.co_filename)}:{where.tb_lineno}" if where else ""
    try:
        print(f"torch-envcheck {command}: internal error{at}: {terminal(type(exc).__name__)}: "
              f"{terminal(str(exc))[:300]} (please report it; TORCH_ENVCHECK_DEBUG=1 shows the traceback)",
              file=sys.stderr)
    except Exception:  # noqa: BLE001  (no usable stderr)
        pass
    return 2
