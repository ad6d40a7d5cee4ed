"""Where pip takes packages from.  Users behind a firewall or in regions where download.pytorch.org
is slow point pip at mirrors; offline machines install from a folder of wheels.

    --index-url URL   the index for every pip step (a PyPI mirror); the torch step keeps the PyTorch
                      index first and adds this one as an extra index for torch's dependencies
    --mirror BASE     a mirror of download.pytorch.org/whl/: the torch step uses BASE/<tag>
    --find-links DIR  a folder (or page) of wheels, for every step
    --no-index        no index at all: only --find-links (fully offline)
"""

from __future__ import annotations

import dataclasses
import re

PYTORCH_INDEX = "https://download.pytorch.org/whl/"
_URL = re.compile(r"(https?|file)://[^\s\"'`<>]+")


class SourceError(ValueError):
    """A package source that pip cannot use; the message names it and what was expected."""


def check_url(value: str, option: str) -> str:
    if not isinstance(value, str) or not _URL.fullmatch(value):
        raise SourceError(f"{option} {value!r} is not a URL; expected http://, https:// or file:// "
                          "with no spaces or quotes")
    return value


@dataclasses.dataclass(frozen=True)
class Sources:
    index_url: str | None = None
    mirror: str | None = None
    find_links: tuple[str, ...] = ()
    no_index: bool = False

    def __post_init__(self):
        if self.index_url is not None:
            check_url(self.index_url, "--index-url")
        if self.mirror is not None:
            check_url(self.mirror, "--mirror")
        for link in self.find_links:
            if not isinstance(link, str) or not link or "\n" in link or "\x00" in link:
                raise SourceError(f"--find-links {link!r} is not a folder or URL")

    def torch_index(self, tag: str | None) -> str | None:
        """The index the torch step installs from: the PyTorch index of `tag` (or its mirror);
        None for PyPI's own torch (macOS, or tag None) and with --no-index."""
        if self.no_index or tag is None:
            return None
        base = self.mirror or PYTORCH_INDEX
        return base.rstrip("/") + "/" + tag

    def pip_args(self, torch_tag: str | None = None, torch_step: bool = False) -> list[str]:
        """pip's source options for one step (words, not yet quoted)."""
        out: list[str] = []
        for link in self.find_links:
            out += ["--find-links", link]
        if self.no_index:
            return out + ["--no-index"]
        torch_index = self.torch_index(torch_tag) if torch_step else None
        if torch_index:
            # PyTorch's instructions install from its index alone (--index-url), which also
            # serves torch's dependencies; a user's index stays reachable as an extra one.
            out += ["--index-url", torch_index]
            if self.index_url:
                out += ["--extra-index-url", self.index_url]
        elif self.index_url:
            out += ["--index-url", self.index_url]
        return out

    def describe(self) -> list[str]:
        out = []
        if self.no_index:
            out.append("no package index (--no-index): wheels only from --find-links")
        if self.index_url:
            out.append(f"package index: {self.index_url}")
        if self.mirror:
            out.append(f"PyTorch wheels from the mirror {self.mirror}")
        out += [f"wheels also from {link}" for link in self.find_links]
        return out
