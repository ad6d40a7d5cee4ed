"""Writing a file so that a reader never sees half of it and a planted file cannot redirect it: the
text goes to a new temporary file created exclusively (O_EXCL, random name) in the target's own
folder, which then replaces the target by rename.  A symlink at the target is replaced, never
followed, and a symlink named like the temporary file is never written through."""

from __future__ import annotations

import os
import tempfile


def write_atomic(path: str, text: str | bytes, mode: int = 0o644, prefix: str = ".torch-envcheck.") -> None:
    """Write `text` (a str as UTF-8, newlines as given; bytes as they are) to `path` with permission
    bits `mode`; raises OSError."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=os.path.dirname(os.path.abspath(path)))
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as fh:
                fh.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
