"""Writing the knowledge overlay: the validated document, atomically, where knowledge/overlay.py
reads it.  Validation is the reader's own (overlay.validate), so nothing is written that the reader
would refuse; the write drops the reader's cache so the next table load merges the new rows."""

from __future__ import annotations

import json
import os

from torch_envcheck._util.atomic_write import write_atomic
from torch_envcheck._util.dirs import make_dirs
from torch_envcheck.knowledge import overlay


def write(doc: dict, file: str | None = None) -> str:
    """Validate `doc` and write it atomically; returns the path.  Raises OverlayError / OSError."""
    clean = overlay.validate(doc)
    clean["digest"] = overlay.digest(clean)  # what the reader checks: a file edited afterwards is refused
    text = json.dumps(clean, indent=1, sort_keys=True, ensure_ascii=True) + "\n"
    if len(text) > overlay.MAX_BYTES:
        raise overlay.OverlayError(f"the overlay would be larger than {overlay.MAX_BYTES >> 20} MiB")
    file = file or overlay.path()
    make_dirs(os.path.dirname(file))  # iterative: a stranger's deep path is an OSError, not a RecursionError
    write_atomic(file, text, 0o600)   # the reader refuses a file other users may write
    overlay.reset()
    return file
