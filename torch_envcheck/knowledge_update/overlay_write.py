"""Writing the knowledge overlay: the validated document, atomically, where knowledge/overlay.py
reads it.  Validation is the reader's own (overlay.validate), so nothing is written that the reader
would refuse; the write drops the reader's cache so the next table load merges the new rows."""

from __future__ import annotations

import json
import os

from torch_envcheck._util.atomic_write import write_atomic
from torch_envcheck.knowledge import overlay


def write(doc: dict, file: str | None = None) -> str:
    """Validate `doc` and write it atomically; returns the path.  Raises OverlayError / OSError."""
    clean = overlay.validate(doc)
    text = json.dumps(clean, indent=1, sort_keys=True, ensure_ascii=True) + "\n"
    if len(text) > overlay.MAX_BYTES:
        raise overlay.OverlayError(f"the overlay would be larger than {overlay.MAX_BYTES >> 20} MiB")
    file = file or overlay.path()
    os.makedirs(os.path.dirname(file), exist_ok=True)
    write_atomic(file, text)
    overlay.reset()
    return file
