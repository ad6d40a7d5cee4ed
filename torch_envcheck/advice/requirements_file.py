"""Reading a requirements file once, for a plan (`rebuild -r FILE`, `rebuild --from-requirements FILE`,
`advise --script -r FILE`): what pip is handed is exactly what was checked here.

pip treats a requirements file as part of its command line: an `--index-url`, `--extra-index-url`,
`--trusted-host`, `--find-links`, `-r`/`-c` line changes where packages come from (overriding the
plan's --mirror / --index-url, unseen by --dry-run), and pip replaces `${VAR}` in any line with that
environment variable's value (pip's docs, "Requirements File Format": "Using Environment
Variables"), which would send a secret to whatever index the line names.  pip also reads the file
again by its path when it runs, so what a check saw is not necessarily what pip gets.  So:

- the file is read once (a regular file only, never a FIFO: _util/safe_open; at most 1 MiB, UTF-8);
- every line must be a plain requirement (NAME[extras][specifiers][; marker]); a `$` anywhere, a
  line continuation, a URL or an option line is refused, naming the line, with one exception:
  the `--extra-index-url https://download.pytorch.org/whl/<tag>` (or `--index-url`) line that
  `torch-envcheck pin` writes is dropped and said so, because the plan's own torch index (or its
  --mirror) serves exactly that;
- rebuild hands pip the checked lines in a private copy (runner.py), never the path.
"""

from __future__ import annotations

import dataclasses
import re

MAX_BYTES = 1 << 20
MAX_LINES = 5000

_REQ_LINE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,-]+\])?"
                       r"((===?|~=|!=|<=|>=|<|>)[A-Za-z0-9.*+!_-]+(,(===?|~=|!=|<=|>=|<|>)[A-Za-z0-9.*+!_-]+)*)?"
                       r"(\s*;\s*[A-Za-z0-9_ .'\"<>=!()]+)?")
# What `torch-envcheck pin` writes above its pins: the PyTorch index of the pinned build.
_PYTORCH_INDEX_LINE = re.compile(r"--(?:extra-)?index-url(?:\s+|=)(https://download\.pytorch\.org/whl/"
                                 r"(?:cu\d+|cpu|rocm[\d.]+|xpu))/?")
_SOURCE_OPTIONS = ("--index-url", "-i", "--extra-index-url", "--trusted-host", "--find-links", "-f", "--no-index")
_OPTIONS_HINT = ("package sources go on the command line (--index-url, --mirror, --find-links, --no-index), "
                 "where the plan and --dry-run show them")


class RequirementsError(ValueError):
    """The file cannot be used; the message names the file and, for a bad line, its number."""


@dataclasses.dataclass(frozen=True)
class Requirements:
    path: str
    lines: tuple[str, ...]        # the checked requirement lines, comments and blanks dropped
    notes: tuple[str, ...] = ()   # option lines dropped, and why (shown with the plan)


def _show(text: str) -> str:
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    return repr(terminal(text)[:120])


def read(path: str) -> Requirements:
    """The checked requirement lines of `path`; RequirementsError names the first problem."""
    from torch_envcheck._util import safe_open  # noqa: PLC0415
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415

    shown = terminal(path)
    try:
        data = safe_open.read_bytes(path, MAX_BYTES)
    except safe_open.FileTooLarge:
        raise RequirementsError(f"{shown} is larger than {MAX_BYTES >> 20} MiB; expected a requirements file") from None
    except OSError as exc:
        raise RequirementsError(f"cannot read the requirements file {shown}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RequirementsError(f"{shown} is not UTF-8 text; expected a requirements file") from None
    lines, notes = [], []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        where = f"{shown}, line {n}: {_show(line)}"
        if len(lines) >= MAX_LINES:
            raise RequirementsError(f"{shown} has more than {MAX_LINES} requirement lines")
        if "$" in line:
            raise RequirementsError(f"{where} holds `$`: pip would replace ${{VAR}} in it with an environment "
                                    "variable's value (and send it wherever the line points); write the value itself")
        if line.endswith("\\"):
            raise RequirementsError(f"{where} continues on the next line; write each requirement on one line")
        m = _PYTORCH_INDEX_LINE.fullmatch(line)
        if m:
            notes.append(f"{shown}: its line {n} ({m.group(1)}, as `torch-envcheck pin` writes it) is left out: "
                         "the plan installs torch from that index itself (or from --mirror)")
            continue
        if line.startswith("-"):
            option = re.split(r"[\s=]", line, 1)[0]
            hint = _OPTIONS_HINT if option in _SOURCE_OPTIONS else "write plain requirements (NAME==VERSION)"
            raise RequirementsError(f"{where} is a pip option ({terminal(option)[:40]}), which this command does not "
                                    f"take from a file: {hint}")
        if not _REQ_LINE.fullmatch(line):
            raise RequirementsError(f"{where} is not a requirement this command installs (expected "
                                    "NAME[==VERSION], optionally with extras and a marker)")
        lines.append(line)
    return Requirements(path, tuple(lines), tuple(notes))


def write_private(lines, directory: str, name: str) -> str:
    """`lines` in a new file `name` inside `directory` (a private folder the caller made with
    tempfile.mkdtemp): the copy pip is handed instead of the original path."""
    import os  # noqa: PLC0415

    path = os.path.join(directory, name)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("".join(line + "\n" for line in lines))
    return path
