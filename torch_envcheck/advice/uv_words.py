"""A `uv pip install|uninstall ...` command read as the pip command it amounts to, for the fix
checker: (interpreter, pip words).  `--python EXE` names the environment (None: the active one);
`--torch-backend TAG` becomes the PyTorch index of that tag (uv sends the PyTorch packages there:
astral-sh/uv crates/uv-torch/src/backend.rs); `--default-index` is pip's `--index-url`, `--index`
its `--extra-index-url`.  uv flags without a pip meaning that take a value are dropped with it."""

from __future__ import annotations

_VALUE_FLAGS_DROPPED = ("--index-strategy", "--resolution", "--prerelease", "--exclude-newer", "--cache-dir",
                        "--python-platform", "--python-version", "--link-mode", "--keyring-provider")
_RENAMED = {"--default-index": "--index-url", "--index": "--extra-index-url"}


def as_pip(argv: list[str], index_url) -> tuple[str | None, list[str] | None]:
    """(interpreter or None, pip words) of a `uv pip` command; (None, None) for anything else.
    index_url(tag) -> URL of a PyTorch index (recommend.index_url)."""
    if len(argv) < 3 or argv[:2] != ["uv", "pip"]:
        return None, None
    exe, words, it = None, [argv[2]], iter(range(3, len(argv)))
    for i in it:
        w = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        flag, eq, val = w.partition("=")
        if flag in ("--reinstall", "--force-reinstall"):
            words.append("--force-reinstall")
            continue
        if flag in ("--python", "-p", "--torch-backend", "--reinstall-package") + _VALUE_FLAGS_DROPPED + tuple(_RENAMED):
            if not eq:
                val = nxt
                next(it, None)
            if flag in ("--python", "-p"):
                exe = val
            elif flag == "--torch-backend" and val and val != "auto":
                words += ["--index-url", index_url(val)]
            elif flag == "--reinstall-package" and "--force-reinstall" not in words:
                words.append("--force-reinstall")
            elif flag in _RENAMED and val:
                words += [_RENAMED[flag], val]
            continue
        words.append(w)
    return exe, words
