"""Install commands are built in one room, advice/: the knowledge tables answer which versions and
which index, the rules take their install lines from advice (advice/pip_commands.py,
advice/recommend.py, advice/conda_commands.py) and never put a pip, uv, conda, mamba or micromamba
command together themselves: not as a word list (`f(py, "-m", "pip", "install", ...)`,
`command_line(s, manager, "install", ...)`), nor as text (`f"{py} -m pip install ..."`, the JetPack
placeholder lines, `"conda install -c conda-forge ..."`).  A rule says what to install (packages,
pins, channels) to an advice function that says how.  The same holds for the system package managers
(apt-get, apt, dnf, yum, zypper, pacman, ubuntu-drivers, winget, choco, brew, port): their lines are
written in advice/system_commands.py, with the platform's quoting.  Prose that quotes a command in
backticks (`pip install --user`) is an explanation, not a fix, and is left alone.

Checked on the source with ast, and the checker is tested on planted violations below, so it cannot
pass by reading nothing."""

from __future__ import annotations

import ast
import os
import re

import pytest

from paths import REPO

PACKAGE = os.path.join(REPO, "torch_envcheck")
BUILDERS = {"shell_join", "shell_quote", "pip_install_words", "pip_install_command"}
MANAGERS = {"pip", "pip3", "uv", "conda", "mamba", "micromamba"}
SYSTEM_MANAGERS = {"apt-get", "apt", "dnf", "yum", "zypper", "pacman", "ubuntu-drivers", "winget", "choco", "brew",
                   "port", "apk", "emerge"}
VERBS = {"install", "uninstall", "remove", "create", "update", "env", "add", "sync", "purge", "upgrade", "in", "rm",
         "-S", "-Sy", "-Syu", "-R", "-Rs", "-Rns"}
RAW_JOINERS = {"command_line", "command"}   # advice's word joiners: quoting, no choice of words
# A command line written as text: a line (or what follows && / || / ;) that starts with a package
# manager and its verb, or with an interpreter (a placeholder {}, python3, .venv/bin/python, py -3.11)
# running `-m pip install|uninstall`.  Prose names commands mid-sentence or in backticks.
COMMAND_TEXT = re.compile(
    r"(?m)(?:^|&&|\|\||;)\s*(?:sudo\s+)?"
    r"(?:(?:pip3?|uv(?:\s+pip)?|conda|mamba|micromamba)(?:\.exe)?\s+(?:install|uninstall|remove|create|update|"
    r"env\s+create|add|sync)\b"
    r"|(?:\{\}|[\w./\\{}-]*python[\w.{}]*|py\s+-[\w.{}]+)\s+-m\s+pip\s+(?:install|uninstall)\b"
    # the system package managers (sudo or not; the verb after any options: apt-get -y install)
    r"|(?:apt-get|apt|dnf|yum|zypper|pacman|ubuntu-drivers|winget|choco|brew|port|apk|emerge)(?:\.exe)?"
    r"(?:\s+-{1,2}[\w-]+)*\s+(?:install|uninstall|remove|purge|upgrade|update|add|in|rm|-S\w*|-R\w*)(?![\w-]))")
BACKTICKED = re.compile(r"`[^`]*`")


def _files(room: str) -> list[str]:
    out = []
    for dirpath, _dirs, files in os.walk(os.path.join(PACKAGE, *room.split("/"))):
        out += [os.path.join(dirpath, f) for f in files if f.endswith(".py")]
    return sorted(out)


def _words(call: ast.Call) -> list[str]:
    return [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]


def _docstrings(tree) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _text(node) -> str | None:
    """A string constant's text, or an f-string's with each placeholder as {}."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def builds_commands(source: str, *, quoting_allowed: bool) -> list[str]:
    """What in `source` puts a command line together: a package manager's word list in a call
    (pip/uv/conda/mamba/micromamba and a verb), a raw joiner called with such words, a command line
    written as text, a call to a command builder by name (the quoting helpers only where not
    quoting_allowed)."""
    found = []
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    for node in ast.walk(tree):
        text = _text(node) if id(node) not in docstrings and id(node) not in inner else None
        if text is not None and COMMAND_TEXT.search(BACKTICKED.sub("", text)):
            found.append(f"line {node.lineno}: a command written as text: {text[:60]!r}")
        if isinstance(node, ast.Call):
            words = _words(node)
            first = next((i for i, w in enumerate(words) if w in MANAGERS | SYSTEM_MANAGERS), None)
            if first is not None and any(w in VERBS for w in words[first + 1:]):
                found.append(f"line {node.lineno}: a {words[first]} command built in place")
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in RAW_JOINERS and words and words[0] in VERBS | MANAGERS | SYSTEM_MANAGERS:
                found.append(f"line {node.lineno}: {name}() given a package manager's words")
            if name in BUILDERS and (not quoting_allowed or name.startswith("pip_")):
                owner = node.func.value if isinstance(node.func, ast.Attribute) else None
                via = owner.id if isinstance(owner, ast.Name) else ""
                if not (quoting_allowed and via == "P"):  # P: advice.pip_commands, by the rules' convention
                    found.append(f"line {node.lineno}: {name}()")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torch_envcheck.knowledge"):
            found += [f"line {node.lineno}: {a.name} from knowledge" for a in node.names if a.name.startswith("pip_")]
        if isinstance(node, ast.ImportFrom) and node.module == "torch_envcheck.advice.conda":
            found += [f"line {node.lineno}: {a.name} (conda's raw joiner): use advice.conda_commands"
                      for a in node.names if a.name in RAW_JOINERS]
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
    assert builds_commands("A.pip_command(s, 'install', 'numpy')\n", quoting_allowed=True) == []


PLANTED_RULE_COMMANDS = [
    "f(py, '-m', 'pip', 'uninstall', '-y', 'torch')",
    "command_line(s, C.manager(s), 'install', 'pytorch=2.5', '-c', 'pytorch')",
    "_conda(s, 'env', 'create', '-n', 'x', '-f', 'environment.yml')".replace("_conda", "command_line"),
    "command_line(s, 'mamba', 'remove', 'cpuonly')",
    "A.command(s, 'conda', 'install', '-c', 'conda-forge', 'cudatoolkit=11.2')",
    "f'{A.python_cmd(s)} -m pip install <the torch wheel for your JetPack>'",
    "'python3 -m pip install ' + A.posix_word(req)",
    "f'py -{mm} -m pip install {req}'",
    "'conda install --force-reinstall cudatoolkit=11.2'",
    "f'# first:\\nmicromamba install {spec} -c conda-forge'",
    "f'python{mm} -m venv .venv && .venv/bin/python -m pip install ' + req",
    "'uv pip install torch --python ' + exe",
    # the system package managers
    "f'sudo apt-get install linux-headers-{rel} && sudo dkms autoinstall -k {rel}'",
    "'sudo apt-get -y install gcc-12 g++-12'",
    "f'sudo dnf install gcc-toolset-{want}'",
    "'sudo zypper install kernel-default-devel'",
    "'sudo pacman -S --needed linux-headers'",
    "'sudo pacman -Rns nvidia-dkms'",
    "f'{prefix}\\nsudo yum remove {name}'",
    "{'dpkg': 'sudo apt-get remove --purge', 'rpm': 'sudo dnf remove'}",
    "'sudo ubuntu-drivers install   # the recommended driver'",
    "'winget install --id Microsoft.VCRedist.2015+.x64 -e\\n'",
    "A.command(s, 'winget', 'install', '--id', 'X')",
    "'choco install cuda'",
    "'brew install libomp'",
    "f'# first:\\nsudo apt install nvidia-driver-{v}'",
]


@pytest.mark.parametrize("code", PLANTED_RULE_COMMANDS)
def test_the_checker_sees_planted_conda_jetpack_and_text_commands(code):
    assert builds_commands(f"x = {code}\n", quoting_allowed=True), code


def test_the_checker_sees_conda_s_raw_joiner_imported_into_a_rule():
    assert builds_commands("from torch_envcheck.advice.conda import command_line\n", quoting_allowed=True)


@pytest.mark.parametrize("code", [
    "'Remove the user-site copy (from `pip install --user`) first'",   # prose quoting a command
    "'pip installs a wheel\\'s files over whatever is there'",
    "CC.install(s, 'pytorch=2.5', channels=('pytorch', 'nvidia'))",
    "CC.remove(s, 'cpuonly')",
    "SYS.winget_install(s, 'Microsoft.VCRedist.2015+.x64')",           # the system commands' advice
    "SYS.kernel_headers_rebuild(s, release)",
    "'the driver from `sudo apt-get install nvidia-driver-550` shadows WSL\\'s'",  # prose, backticked
    "'apt-get installs packages system-wide'",
    "'sudo update-initramfs -u'",                                       # not a package manager
    "'the next `conda update` or `conda install` can remove pip\\'s files'",
    "'a conda update of one half leaves the other behind'",
    "r'torch-envcheck build(?: --force)?|pip install --no-build-isolation'",  # a pattern checking a command
])
def test_the_checker_leaves_prose_and_advice_calls_alone(code):
    assert builds_commands(f"x = {code}\n", quoting_allowed=True) == [], code


def test_a_docstring_may_show_a_command():
    assert builds_commands('"""Fixes: conda install pytorch -c pytorch."""\n', quoting_allowed=True) == []


def test_the_pip_command_lives_in_advice():
    import torch_envcheck.knowledge as kb
    from torch_envcheck.advice import pip_commands
    assert not hasattr(kb, "pip_install_command") and not hasattr(kb, "pip_install_words")
    assert pip_commands.pip_install_words("python", "2.14.1", "cu126")[:4] == ["python", "-m", "pip", "install"]


def test_system_package_manager_lines_live_in_advice():
    """The rules once wrote apt-get/dnf/zypper/pacman/winget lines themselves: they ask advice now."""
    from torch_envcheck.advice import system_commands as SYS
    with open(os.path.join(PACKAGE, "advice", "system_commands.py"), encoding="utf-8") as fh:
        assert builds_commands(fh.read(), quoting_allowed=True)   # the room that writes them (so the check bites)
    assert callable(SYS.kernel_headers_rebuild) and callable(SYS.remove_packages)
