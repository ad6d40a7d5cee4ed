"""Install commands are built in one room, advice/: the knowledge tables answer which versions and
which index, the rules take their install lines from advice (advice/pip_commands.py,
advice/recommend.py) and never put a pip install command together themselves.

Checked on the source with ast, and the checker is tested on planted violations below, so it cannot
pass by reading nothing."""

from __future__ import annotations

import ast
import os

import pytest

from paths import REPO

PACKAGE = os.path.join(REPO, "torch_envcheck")
BUILDERS = {"shell_join", "shell_quote", "pip_install_words", "pip_install_command"}


def _files(room: str) -> list[str]:
    out = []
    for dirpath, _dirs, files in os.walk(os.path.join(PACKAGE, *room.split("/"))):
        out += [os.path.join(dirpath, f) for f in files if f.endswith(".py")]
    return sorted(out)


def _words(call: ast.Call) -> list[str]:
    return [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]


def builds_commands(source: str, *, quoting_allowed: bool) -> list[str]:
    """What in `source` puts a command line together: a pip install word list in a call, a call to
    a command builder by name (the quoting helpers only where not quoting_allowed)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            words = _words(node)
            if "pip" in words and "install" in words[words.index("pip"):]:
                found.append(f"line {node.lineno}: a pip install command built in place")
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in BUILDERS and (not quoting_allowed or name.startswith("pip_")):
                owner = node.func.value if isinstance(node.func, ast.Attribute) else None
                via = owner.id if isinstance(owner, ast.Name) else ""
                if not (quoting_allowed and via == "P"):  # P: advice.pip_commands, by the rules' convention
                    found.append(f"line {node.lineno}: {name}()")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torch_envcheck.knowledge"):
            found += [f"line {node.lineno}: {a.name} from knowledge" for a in node.names if a.name.startswith("pip_")]
    return found


@pytest.mark.parametrize("path", _files("knowledge"), ids=lambda p: os.path.relpath(p, PACKAGE))
def test_knowledge_builds_no_command(path):
    with open(path, encoding="utf-8") as fh:
        assert builds_commands(fh.read(), quoting_allowed=False) == []


@pytest.mark.parametrize("path", _files("doctor/rules"), ids=lambda p: os.path.relpath(p, PACKAGE))
def test_rules_take_install_commands_from_advice(path):
    with open(path, encoding="utf-8") as fh:
        assert builds_commands(fh.read(), quoting_allowed=True) == []


def test_the_checker_sees_planted_commands():
    assert builds_commands("x = f(py, '-m', 'pip', 'install', 'torch')\n", quoting_allowed=True)
    assert builds_commands("from torch_envcheck.knowledge.releases import pip_install_command\n",
                           quoting_allowed=True)
    assert builds_commands("kb.pip_install_command(py, '2.1', 'cpu')\n", quoting_allowed=True)
    assert builds_commands("escape.shell_join(words)\n", quoting_allowed=False)
    assert builds_commands("shell_quote(x)\n", quoting_allowed=False)
    assert builds_commands("P.pip_install_command(py, '2.1', 'cpu')\n", quoting_allowed=True) == []
    assert builds_commands("f(py, '-m', 'pip', 'uninstall', '-y', 'torch')\n", quoting_allowed=True) == []


def test_the_pip_command_lives_in_advice():
    import torch_envcheck.knowledge as kb
    from torch_envcheck.advice import pip_commands
    assert not hasattr(kb, "pip_install_command") and not hasattr(kb, "pip_install_words")
    assert pip_commands.pip_install_words("python", "2.14.1", "cu126")[:4] == ["python", "-m", "pip", "install"]
