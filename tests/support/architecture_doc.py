"""The rooms table of docs/architecture.md, generated from the import contracts in pyproject.toml
so the page cannot drift from what `lint-imports` checks.

    python tests/support/architecture_doc.py            # print the generated block
    python tests/support/architecture_doc.py --write    # rewrite it in docs/architecture.md

tests/unit/contract/test_import_graph.py fails when the page's block differs from render()."""

from __future__ import annotations

import os
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PYPROJECT = os.path.join(REPO, "pyproject.toml")
DOC = os.path.join(REPO, "docs", "architecture.md")
BEGIN = "<!-- rooms: generated from pyproject.toml by tests/support/architecture_doc.py --write; do not edit -->"
END = "<!-- end of the generated rooms -->"
ROOT = "torch_envcheck"


def contracts(path: str = PYPROJECT) -> list[dict]:
    with open(path, "rb") as fh:
        return tomllib.load(fh)["tool"]["importlinter"]["contracts"]


def _short(module: str, container: str | None = None) -> str:
    if container:
        return f"`{container[len(ROOT) + 1:].replace('.', '/')}/{module}`"
    rel = module[len(ROOT) + 1:]
    return f"`{rel.replace('.', '/')}`"


def _layer(entry: str, container: str | None = None) -> str:
    independent = [m.strip() for m in entry.split("|")]
    return ", ".join(_short(m, container) for m in independent)


def _table(contract: dict, container: str | None = None) -> list[str]:
    out = ["| Layer | Rooms (siblings never import each other) |", "|---|---|"]
    for i, entry in enumerate(contract["layers"], 1):
        out.append(f"| {i} | {_layer(entry, container)} |")
    return out


def render(path: str = PYPROJECT) -> str:
    lines = [BEGIN, ""]
    for c in contracts(path):
        if c["type"] == "layers":
            container = (c.get("containers") or [None])[0]
            lines += [f"**{c['name']}** (`{c['id']}`, layers: a room imports only rooms in rows below its own"
                      + (f", inside `{container[len(ROOT) + 1:]}/`" if container else "") + ")", ""]
            lines += _table(c, container)
            if c.get("ignore_imports"):
                lines += ["", "Named exceptions:", ""]
                lines += [f"- `{imp}`" for imp in c["ignore_imports"]]
            lines.append("")
        elif c["type"] == "forbidden":
            lines += [f"**{c['name']}** (`{c['id']}`): " + ", ".join(_short(m) for m in c["source_modules"])
                      + " never import " + ", ".join(_short(m) for m in c["forbidden_modules"]) + ".", ""]
        elif c["type"] == "independence":
            lines += [f"**{c['name']}** (`{c['id']}`): " + ", ".join(_short(m) for m in c["modules"]) + ".", ""]
        elif c["type"] == "acyclic_siblings":
            lines += [f"**{c['name']}** (`{c['id']}`)" + (": exceptions " + ", ".join(f"`{i}`" for i in c["ignore_imports"])
                                                         if c.get("ignore_imports") else ".") , ""]
        else:
            lines += [f"**{c['name']}** (`{c['id']}`, {c['type']})", ""]
    lines.append(END)
    return "\n".join(lines)


def current_block(doc: str = DOC) -> str | None:
    with open(doc, encoding="utf-8") as fh:
        text = fh.read()
    if BEGIN not in text or END not in text:
        return None
    return text[text.index(BEGIN): text.index(END) + len(END)]


def write(doc: str = DOC) -> None:
    with open(doc, encoding="utf-8") as fh:
        text = fh.read()
    block = render()
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        raise SystemExit(f"{doc} has no generated block ({BEGIN!r} ... {END!r})")
    with open(doc, "w", encoding="utf-8") as fh:
        fh.write(text)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        print(render())
