"""The bounds of the JSON documents this tool writes and reads back: a snapshot, a doctor report, a
fleet rank's payload, a fleet report.  One set of numbers, applied on both sides:

    when loading (facts/snapshot.py, fleet/load.py):   a file past them is refused, with one line
    when collecting (doctor.collect, fleet/wire.py):     what passes them is cut, and the cut is noted

so that nothing the tool accepts live (a TensorFlow child listing 20,000 GPUs, a rank's snapshot
nested 900 deep) makes a saved report the tool then refuses to read.

    certainly_within(text, depth=, nodes=)      -> True when raw JSON text cannot pass the bounds (a
                                                 cheap test on the text: fit() is then not needed)
    fit(value, depth=, items=, nodes=, chars=)  -> (value within the bounds, notes on what was cut)
    fit_snapshot(snapshot)                      -> (snapshot that a saved report of it can hold, notes)
    note_into(snapshot, notes)                  the notes as probe_errors entries "<section> (bounds)"
"""

from __future__ import annotations

import itertools
import json
import re

# A real report is ~10-100 KiB, a few levels deep, with a handful of GPUs and a few hundred packages.
MAX_BYTES = 16 * 2**20    # one saved report (doctor)
MAX_DEPTH = 64            # nesting of a saved document
MAX_ITEMS = 10_000        # entries in one list or object
MAX_NODES = 1_000_000     # values in one document
MAX_CHARS = 1 << 20       # one string (a real fact is a path, a version, a log line)

# A snapshot is saved inside a report ({"snapshot": {...}}): one level less, and room for the
# findings and areas beside it in nodes and bytes.
SNAPSHOT_DEPTH = MAX_DEPTH - 1
SNAPSHOT_NODES = MAX_NODES // 2
SNAPSHOT_BYTES = MAX_BYTES // 4
MAX_NOTES = 20


# A JSON string, or an unterminated one running to the end: "unrolled" so that it always matches
# at its first attempt (no backtracking, so linear even for `"\"\"\"...`).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def depth(text: str) -> int:
    """How deep the brackets of JSON `text` nest (brackets inside strings do not count)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0)


def certainly_within(text: str, depth_limit: int = MAX_DEPTH, nodes: int = MAX_NODES) -> bool:
    """Whether the JSON `text` is certainly within the bounds, from the text alone: no string can be
    longer than the text, no list or object can hold more entries, and the document no more
    values, than there are `,` `:` `[` in it (plus one).  False only means "walk it" (fit())."""
    if len(text) > MAX_CHARS:
        return False
    separators = text.count(",") + text.count(":") + text.count("[") + 1
    return separators < min(MAX_ITEMS, nodes) and depth(text) <= depth_limit


class _Fit:
    def __init__(self, depth: int, items: int, nodes: int, chars: int):
        self.depth, self.items, self.nodes, self.chars = depth, items, nodes, chars
        self.notes: list[str] = []
        self.cut_nodes = 0

    def note(self, text: str) -> None:
        if len(self.notes) < MAX_NOTES:
            self.notes.append(text)

    def walk(self, value, path: str, level: int):
        if self.nodes <= 0:
            self.cut_nodes += 1
            return None
        self.nodes -= 1
        if isinstance(value, str):
            if len(value) > self.chars:
                self.note(f"{path or 'the document'}: a string of {len(value)} characters, the first "
                          f"{self.chars} kept")
                return value[: self.chars]
            return value
        if isinstance(value, (dict, list, tuple)):
            if level > self.depth:
                self.note(f"{path or 'the document'}: nested deeper than {self.depth} levels; dropped")
                return None
            if isinstance(value, dict):
                keys = list(value)
                if len(keys) > self.items:
                    self.note(f"{path}: {len(keys)} entries, the first {self.items} kept")
                    keys = keys[: self.items]
                out = {}
                for k in keys:
                    name = str(k)[: self.chars] if not isinstance(k, str) or len(k) > self.chars else k
                    out[name] = self.walk(value[k], f"{path}.{name[:60]}" if path else name[:60], level + 1)
                return out
            seq = list(value)
            if len(seq) > self.items:
                self.note(f"{path}: {len(seq)} entries, the first {self.items} kept")
                seq = seq[: self.items]
            return [self.walk(v, f"{path}[]", level + 1) for v in seq]
        return value


def fit(value, depth: int = MAX_DEPTH, items: int = MAX_ITEMS, nodes: int = MAX_NODES, chars: int = MAX_CHARS,
        path: str = "") -> tuple[object, list[str]]:
    """`value` (JSON data) cut to the bounds: containers nested deeper than `depth` become null,
    lists and objects keep their first `items` entries, strings their first `chars` characters,
    values past the `nodes`-th become null.  (value, notes): each note names a cut path."""
    f = _Fit(depth, items, nodes, chars)
    out = f.walk(value, path, 1)
    if f.cut_nodes:
        f.note(f"{path or 'the document'}: more than {nodes} values; the last {f.cut_nodes} dropped")
    return out, f.notes


def size(value) -> int:
    """Bytes of `value` as the doctor's --json writes it (indented, ASCII)."""
    return len(json.dumps(value, indent=2, ensure_ascii=True, default=str))


def fit_snapshot(snap: dict) -> tuple[dict, list[str]]:
    """A snapshot that a saved report of it stays within the bounds of (depth, entries, values,
    bytes); the notes say what was cut.  A snapshot already within them comes back unchanged."""
    items, chars = MAX_ITEMS, MAX_CHARS
    out, notes = fit(snap, SNAPSHOT_DEPTH, items, SNAPSHOT_NODES, chars)
    while size(out) > SNAPSHOT_BYTES and (items > 10 or chars > 1000):
        # Still too large to save: tighter bounds until it fits (each round halves them).
        items, chars = max(10, items // 4), max(1000, chars // 4)
        out, more = fit(snap, SNAPSHOT_DEPTH, items, SNAPSHOT_NODES, chars)
        notes = more + [f"the snapshot was larger than {SNAPSHOT_BYTES >> 20} MiB; every list and object cut to "
                        f"{items} entries and every string to {chars} characters"]
    return out, notes


def note_into(snap: dict, notes: list[str]) -> None:
    """Record `notes` in the snapshot's probe_errors, one entry per section ("tensorflow (bounds)"),
    so the report says which facts were cut."""
    if not notes or not isinstance(snap, dict):
        return
    errors = snap.get("probe_errors")
    if not isinstance(errors, dict):
        errors = snap["probe_errors"] = {}
    by: dict[str, list[str]] = {}
    for n in notes:
        section = n.split(".", 1)[0].split("[", 1)[0].split(":", 1)[0].strip() or "snapshot"
        by.setdefault(section[:40], []).append(n)
    for section, texts in by.items():
        key = f"{section} (bounds)"
        errors[key] = ("cut to stay within the bounds a saved report is read with: " + "; ".join(texts))[:2000]
