"""`torch-envcheck init [DIR] [--force] [--check]`: write env_check.py into a project.

env_check.py is a stand-alone script (it needs only torch) that users keep at the root of their
project and run on every new machine or in CI.  The file comes from templates/env_check.py, shipped
as package data; its header carries the template version so `--check` can say how old a copy is.

Exit status: 0 written / up to date; 1 refused (file exists, no --force) or, with --check, differs;
2 bad DIR or, with --check, no env_check.py there.
"""

from __future__ import annotations

import difflib
import os
import re
import sys

from torch_envcheck._util.atomic_write import write_atomic
from torch_envcheck._util.escape import terminal

FILENAME = "env_check.py"
TEMPLATE = "env_check.py"
_VERSION_RE = re.compile(r"^TEMPLATE_VERSION\s*=\s*(\d+)\s*$", re.MULTILINE)


def add_arguments(parser) -> None:
    parser.add_argument("directory", nargs="?", default=".", metavar="DIR",
                        help="the project directory to write env_check.py into (default: the current one)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--force", action="store_true", help="overwrite an existing env_check.py")
    mode.add_argument("--check", action="store_true",
                      help="do not write: exit 0 if DIR/env_check.py equals the current template, "
                           "1 (with a diff) if it differs, 2 if it is missing")


def template_text() -> str:
    """The current template, read from the installed package (works from a wheel or the source tree)."""
    try:
        from importlib.resources import files
        return (files("torch_envcheck") / "templates" / TEMPLATE).read_text(encoding="utf-8")
    except (ImportError, AttributeError):  # Python 3.8 has no importlib.resources.files
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        with open(os.path.join(here, "templates", TEMPLATE), encoding="utf-8") as fh:
            return fh.read()


def template_version(text: str) -> int | None:
    m = _VERSION_RE.search(text)
    return int(m.group(1)) if m else None


# A folder name is the user's (or a cloned repository's): it may hold escape sequences (OSC, CSI)
# that a terminal would obey.  Every path and every line of the user's file is printed through
# escape.terminal(); the file itself is read through safe_open (a FIFO named env_check.py is refused).
MAX_FILE = 4 << 20


def _err(msg: str) -> None:
    print(f"torch-envcheck init: {msg}", file=sys.stderr)


def _p(path: str) -> str:
    return terminal(path)


def check(path: str, template: str) -> int:
    from torch_envcheck._util import safe_open  # noqa: PLC0415

    folder = _p(os.path.dirname(path) or ".")
    if not os.path.lexists(path):
        _err(f"{_p(path)} does not exist; create it with `torch-envcheck init {folder}`")
        return 2
    try:
        current = safe_open.read_text(path, MAX_FILE)
    except OSError as exc:
        _err(f"{_p(path)} cannot be read: {exc.strerror or exc}")
        return 2
    if current == template:
        print(f"{_p(path)} is up to date (template version {template_version(template)})")
        return 0
    diff = list(difflib.unified_diff(current.splitlines(keepends=True), template.splitlines(keepends=True),
                                     fromfile=f"{_p(path)} (yours)", tofile="template (current)"))
    added = sum(1 for line in diff if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in diff if line.startswith("-") and not line.startswith("---"))
    theirs, ours = template_version(current), template_version(template)
    origin = (f"yours was written from template version {theirs}" if theirs is not None
              else "yours has no TEMPLATE_VERSION line")
    print(f"{_p(path)} differs from the current template (version {ours}; {origin}): "
          f"{removed} line(s) of yours are not in the template, {added} line(s) of the template are not in yours.")
    sys.stdout.writelines(terminal(line.rstrip("\n"), multiline=True) + "\n" for line in diff)
    print(f"To replace it with the current template: torch-envcheck init --force {folder}")
    return 1


def write(path: str, template: str, force: bool) -> int:
    if os.path.lexists(path) and not force:
        _err(f"{_p(path)} already exists; not overwriting it. "
             f"`torch-envcheck init --check` shows how it differs from the template; "
             f"add --force to replace it.")
        return 1
    # atomic_write: a fresh exclusive temp file in the target folder, then os.replace, which swaps the
    # directory entry: a symlink at env_check.py is replaced, not followed, and a file or symlink
    # already at some fixed name such as env_check.py.tmp is never written through.
    write_atomic(path, template, 0o755, prefix=".env_check.")  # 0o755: ./env_check.py runs
    from torch_envcheck._util.escape import shell_quote  # noqa: PLC0415
    print(f"wrote {_p(path)} (template version {template_version(template)}); run it with: "
          f"python {shell_quote(path)}")
    return 0


def run(args) -> int:
    directory = args.directory
    if not os.path.isdir(directory):
        what = "is not a directory" if os.path.exists(directory) else "does not exist"
        _err(f"{_p(directory)} {what}; expected the project directory to put env_check.py in")
        return 2
    path = os.path.join(directory, FILENAME)
    try:
        template = template_text()
    except OSError as exc:
        _err(f"the env_check.py template is missing from this installation ({exc}); reinstall torch_envcheck")
        return 2
    if args.check:
        return check(path, template)
    try:
        return write(path, template, args.force)
    except OSError as exc:
        _err(f"cannot write {_p(path)}: {exc.strerror or exc}")
        return 1
