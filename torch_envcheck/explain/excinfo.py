"""The text an exception carries, as `explain` would read it in a traceback: its message and those of
the exceptions it was raised from or during (at most MAX_CHAIN), innermost first, plus the captured
output of a failed subprocess (CalledProcessError: a compiler's errors), bounded.  Used by the Jupyter
extension and the pytest plugin."""

from __future__ import annotations

import traceback

MAX_CHAIN = 5
MAX_OUTPUT = 64 * 1024


def exception_text(value: BaseException) -> str:
    chain, seen, cur = [], set(), value
    while cur is not None and id(cur) not in seen and len(chain) < MAX_CHAIN:
        seen.add(id(cur))
        chain.append(cur)
        cur = cur.__cause__ or cur.__context__
    parts = []
    for exc in reversed(chain):
        try:
            output = getattr(exc, "stderr", None) or getattr(exc, "output", None)
        except BaseException:  # noqa: BLE001  (a property that raises)
            output = None
        if isinstance(output, bytes):
            output = output[-MAX_OUTPUT:].decode("utf-8", errors="replace")
        if isinstance(output, str) and output:
            parts.append(output[-MAX_OUTPUT:])
        try:
            parts.append("".join(traceback.format_exception_only(type(exc), exc)))
        except BaseException:  # noqa: BLE001  (a broken __str__ may raise anything, SystemExit included)
            parts.append(type(exc).__name__)
    return "\n".join(parts)
