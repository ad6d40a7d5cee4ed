"""Every command builder, fed interpreter paths and values drawn from shell metacharacters, writes
commands that a shell parses back into exactly the argv that was meant, whatever the values hold.

The shells are modelled in tests/support/shell_models.py (POSIX, PowerShell, cmd: the rules and
their sources are listed there); POSIX lines are also split with shlex (posix=True) as a second
opinion.  The oracle is the words the builder was given: argv must come out equal to them, as the
tool normalises a value for a command line (escape.terminal: a tab or newline becomes a space;
nothing else changes).  Builders covered: the doctor's fix lines (all rules, metamorphic: a drawn
value against a plain one, every other token equal), `advise` (one and two environments, the plan
form), `advise --script` (sh, ps1, bat), `pin`, `pin --conda` (environment.yml, parsed as YAML) and
`rebuild --dry-run`.

Bounded: at most 100 examples per builder, derandomized, no deadline; the file runs in seconds.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import shlex

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import shell_models as M  # noqa: E402
from _rules_helpers import load  # noqa: E402
from torch_envcheck._util import escape  # noqa: E402
from torch_envcheck.facts import snapshot as snapmod  # noqa: E402

META = ";|&$`'\"\\ \t\n*?[]{}()<>!#~%^,="
UNICODE = "é中ß\u2018\u2019\u201c\u201d\u2013\u2014"
PLAIN = "aZ09_.-:@+"
SETTINGS = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
INJECTED = "/home/u/a -m pip ;touch PWNED; #/bin/python"  # the issue's example


def values(exclude: str = "", min_size: int = 1):
    chars = [c for c in META + UNICODE + PLAIN if c not in exclude]
    return st.text(st.sampled_from(chars), min_size=min_size, max_size=20)


def norm(word: str) -> str:
    """A word as the tool writes it into a command: escape.terminal (tab, newline -> space)."""
    return escape.terminal(word)


def parse(line: str, shell: str, **kw) -> list[list[str]]:
    tokens = M.MODELS[shell](line, **kw)
    return M.argvs(tokens)


def check_posix_with_shlex(line: str, expected: list[list[str]]) -> None:
    """shlex (POSIX mode, punctuation split) agrees on the words and the command boundaries.  shlex
    returns a quoted ';' as ';' too: a token counts as an operator only when the text it was read
    from does not begin with a quote or a backslash (a program named ';' is quoted, not a separator)."""
    import io

    stream = io.StringIO(line)
    lex = shlex.shlex(stream, posix=True, punctuation_chars=";&|")
    lex.whitespace_split = True
    lex.commenters = ""
    cmds, cur = [], []
    while True:
        start = stream.tell()
        w = lex.get_token()
        if w is None or w == lex.eof:
            break
        end = stream.tell()
        raw = line[start:end].lstrip()
        if w in ("&&", "||", ";", "|") and raw[:1] not in ("'", '"', "\\"):
            cmds.append(cur)
            cur = []
        else:
            cur.append(w)
    cmds.append(cur)
    assert [c for c in cmds if c] == expected, (line, cmds, expected)


# ------------------------------------------------------------------------------------------ advise

def _snap(name: str) -> dict:
    return snapmod.validate(copy.deepcopy(load(name)))


def _two_env_snapshot() -> dict:
    s = copy.deepcopy(load("tf_wsl2_tf221_and_cuda"))
    s["driver"].update(version="581.57", cuda_version="13.0")  # torch cu130, TensorFlow CUDA 12
    return snapmod.validate(s)


def _advise_lines(s: dict) -> list:
    from torch_envcheck.advice import tensorflow as tfa
    from torch_envcheck.commands import advise as A

    why, cmd = A.advise(s)
    _why, cmds = tfa.extend(s, why, cmd, A._picked_cuda(cmd), "both")
    return [cmd] + list(cmds)


@SETTINGS
@given(exe=st.one_of(values(), values().map(lambda v: f"/home/u/{v}/bin/python")))
@example(exe=INJECTED)
def test_advise_commands_parse_back_to_their_words_posix(exe):
    s = _two_env_snapshot()
    s["platform"]["python"]["executable"] = exe
    lines = _advise_lines(s)
    assert len(lines) == 3, lines  # the one-environment command, then the two environments
    one, torch_env, tf_env = lines
    assert parse(one, "posix") == [[norm(w) for w in one.argv]]
    check_posix_with_shlex(one, [[norm(w) for w in one.argv]])
    for line, name, src in ((torch_env, "torch", one), (tf_env, "tf", None)):
        got = parse(line, "posix", allow_tilde=("~/venvs/",))
        assert got[0] == ["python3", "-m", "venv", f"~/venvs/{name}"], line
        assert got[1][:3] == [f"~/venvs/{name}/bin/python", "-m", "pip"], line
        if src is not None:
            assert got[1][3:] == [norm(w) for w in src.argv[3:]]
        assert len(got) == 2 and "PWNED" not in "".join(got[0] + got[1][:3])


@SETTINGS
@given(exe=st.one_of(values(), values().map(lambda v: f"C:\\Users\\{v}\\python.exe")))
@example(exe="C:\\Users\\a -m pip ;calc; #\\python.exe")
def test_advise_commands_parse_back_to_their_words_powershell(exe):
    s = _snap("windows_cpu_wheel_rtx4070")
    s["platform"]["python"]["executable"] = exe
    s["request"] = {"shell": "powershell"}  # --shell powershell
    from torch_envcheck.commands import advise as A
    _why, cmd = A.advise(s)
    assert cmd.shell == "powershell"
    assert parse(cmd, "powershell") == [[norm(w) for w in cmd.argv]]
    from torch_envcheck.advice.venv_commands import in_new_venv
    line = in_new_venv(cmd, "torch", "Windows")
    prefix = "py -m venv $HOME\\venvs\\torch; & $HOME\\venvs\\torch\\Scripts\\python.exe "  # our own text
    assert line.startswith(prefix), line
    assert parse("x " + line[len(prefix):], "powershell") == [["x", *[norm(w) for w in cmd.argv[1:]]]]


def _sections(text: str) -> list[tuple[str, str]]:
    """(shell, line) of a fix for either Windows shell: lines under escape.SECTION's comments belong
    to that shell; every other line to both (once for each)."""
    return [(s, line) for shell, line in M.sections(text) for s in ([shell] if shell else ["powershell", "cmd"])]


@SETTINGS
@given(exe=st.one_of(values(), values().map(lambda v: f"C:\\Users\\{v}\\python.exe")))
@example(exe="C:\\Users\\a -m pip ;calc; #\\python.exe")
@example(exe="C:\\Users\\John Smith\\miniconda3\\envs\\pt-gpu\\python.exe")
@example(exe="C:\\Users\\user\\miniconda3\\envs\\pt-gpu\\python.exe")
def test_advise_commands_on_windows_run_alike_in_cmd_and_powershell(exe):
    """The shell unknown (the snapshot's own case): each line reads back as the same words in
    cmd.exe (as pasted into Anaconda Prompt; the model of a prompt is a .bat file's without %%) and
    in PowerShell, or sits in that shell's own section; a word that no quoting can carry alike is
    caught by the fix checker instead."""
    from torch_envcheck.advice import check
    from torch_envcheck.commands import advise as A
    s = _snap("windows_cpu_wheel_rtx4070")
    s["platform"]["python"]["executable"] = exe
    _why, cmd = A.advise(s)
    assert cmd.shell == escape.EITHER
    want = [norm(w) for w in cmd.argv]
    try:
        for shell, line in _sections(cmd):
            assert parse(line, shell) == [want], (shell, line)
    except (M.Unsafe, AssertionError):
        assert check.problems(s, cmd), cmd  # not carried alike: the checker must say so
        return
    assert not check.problems(s, cmd), cmd


def test_windows_fix_with_single_quotes_is_not_a_requirement_in_cmd():
    """What the PowerShell-only fix did in Anaconda Prompt: pip got `'torch==2.4.*'` with its
    quotes.  The cmd.exe reading says so; the fix for either shell double-quotes instead."""
    from torch_envcheck.advice import check, shellwords
    s = _snap("windows_cpu_wheel_rtx4070")
    old = "C:\\env\\python.exe -m pip install 'torch==2.4.*' --index-url https://download.pytorch.org/whl/cu118"
    assert shellwords.commands(old, "cmd")[0][4] == "'torch==2.4.*'"
    assert M.argvs(M.cmd(old))[0][4] == "'torch==2.4.*'"  # the tests' own cmd model agrees
    texts = [p.text() for p in check.problems(s, old)]
    assert any("not a valid requirement" in t for t in texts) and any("single quotes" in t for t in texts), texts
    new = escape.shell_join(["C:\\env\\python.exe", "-m", "pip", "install", "torch==2.4.*"], escape.EITHER)
    assert str(new) == 'C:\\env\\python.exe -m pip install "torch==2.4.*"'
    assert parse(new, "cmd") == parse(new, "powershell") == [["C:\\env\\python.exe", "-m", "pip", "install", "torch==2.4.*"]]
    assert check.problems(s, new) == []


def test_the_issue_example_cannot_run_touch():
    s = _two_env_snapshot()
    s["platform"]["python"]["executable"] = INJECTED
    for line in _advise_lines(s):
        for argv in parse(line, "posix", allow_tilde=("~/venvs/",)):
            assert argv[0] != "touch", line


@SETTINGS
@given(exe=values().map(lambda v: f"/home/u/{v}/bin/python"), dest=values(), mirror=values(exclude=" \t\n\"'`<>"))
def test_advise_plan_form_parses_back(exe, dest, mirror):
    import argparse

    from torch_envcheck.commands import advise as A
    from torch_envcheck.advice.sources import SourceError

    s = _snap("h100_cu130_healthy")
    s["platform"]["python"]["executable"] = exe
    args = argparse.Namespace(script=None, conda=False, index_url=None, mirror="https://m.example/" + mirror,
                              find_links=[dest], no_index=False, torch=None, companions=None, tensorflow=False,
                              requirements=None, from_requirements=None, dest=None, quiet=True, output=None)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            rc = A._plan_output(args, s)
        except SourceError:
            return
    if rc == 2:
        return  # a mirror URL the plan refuses: nothing printed to parse
    from torch_envcheck.commands import rebuild as rebuild_cli
    plan = rebuild_cli.make_plan(args, s)
    lines = [ln for ln in out.getvalue().splitlines() if ln and not ln.startswith("#")]
    assert len(lines) == len(plan.steps())
    for line, step in zip(lines, plan.steps()):
        want = [norm(w) for w in [exe, "-m", "pip", "install", *step["pip"]]]
        assert parse(line, "posix") == [want], line
        check_posix_with_shlex(line, [want])


# -------------------------------------------------------------------------------------- fix lines

_FIX_SNAPSHOTS = {"posix": ("rtx5090_cu121", "cpu_wheel_gpu_without_driver", "conda_linux_pytorch23_pip_torch_over",
                            "jetson_agx_orin_pytorch_index_aarch64_wheel", "tf_torch_cu130_one_venv",
                            "ld_library_path_cuda121_breaks_import_torch",
                            # the JetPack torchvision build, and-cuda only where it exists
                            "jetson_orin_jetpack_torch_pypi_torchvision", "linux_tf212_cpu_build_rtx3090"),
                  "powershell": ("windows_cpu_wheel_rtx4070", "tf_win10_tf26_cudart_missing",
                                 "conda_windows10_tf26_cuda110_on_path", "win10_tf210_cpu_build_gtx1660")}
_BENIGN = "BENIGNVALUE"


def _fix_lines(s: dict) -> list[tuple[str, list[str]]]:
    from torch_envcheck.doctor import rules
    return [(f["code"], (f.get("fix") or "").split("\n")) for f in rules.evaluate(s) if f.get("fix")]


def _with_exe(name: str, exe: str, shell: str | None = None) -> dict:
    s = copy.deepcopy(load(name))
    s["platform"]["python"]["executable"] = exe
    if shell == "powershell" and s["platform"]["system"] == "Windows":
        s["request"] = {"shell": "powershell"}  # --shell powershell (unknown: lines for both, tested below)
    return snapmod.validate(s)


def _tokens(shell: str, line: str):
    """The line's tokens; PowerShell's call operator (`&` before a quoted program) is not compared:
    a plain path needs none, a quoted one does."""
    toks = M.MODELS[shell](line, allow_tilde=("~/",)) if shell == "posix" else M.MODELS[shell](line)
    return [t for t in toks if t != ("op", "&")]


def _metamorphic(name: str, shell: str, template: str, drawn: str) -> None:
    base = _fix_lines(_with_exe(name, template.format(_BENIGN), shell))
    got = _fix_lines(_with_exe(name, template.format(drawn), shell))
    assert [c for c, _ in base] == [c for c, _ in got], name
    for (code, base_lines), (_, lines) in zip(base, got):
        assert len(base_lines) == len(lines), (code, lines)  # a value never adds a line
        for b, line in zip(base_lines, lines):
            if _BENIGN not in b:
                assert b == line
                continue
            try:
                want_tokens = _tokens(shell, b)
            except M.Unsafe:
                continue  # a prose line of the fix (an instruction, not a command): nothing to compare
            got_tokens = _tokens(shell, line)
            want = [(k, t.replace(_BENIGN, norm(drawn))) for k, t in want_tokens]
            assert got_tokens == want, (code, line)


@SETTINGS
@given(v=values(exclude="/\\"))
@example(v="a -m pip ;touch PWNED; #")
def test_fix_lines_posix_keep_their_shape(v):
    for name in _FIX_SNAPSHOTS["posix"]:
        _metamorphic(name, "posix", "/home/u/{}/bin/python", v)


@SETTINGS
@given(v=values(exclude="/\\"))
@example(v="a'; calc; '")
def test_fix_lines_powershell_keep_their_shape(v):
    for name in _FIX_SNAPSHOTS["powershell"]:
        _metamorphic(name, "powershell", "C:\\Users\\{}\\python.exe", v)


@SETTINGS
@given(v=values(exclude="/\\"))
@example(v="a'; calc; '")
@example(v="John Smith")
@example(v="a%PATH%b")
def test_fix_lines_for_either_windows_shell_keep_their_shape(v):
    """The shell not told apart (the recorded snapshots' case): every command line of every fix reads
    back in cmd.exe and in PowerShell (or in its own section's shell) with the drawn value as one
    literal word, or the fix checker has put its caution on the fix."""
    from torch_envcheck.doctor import rules
    exe = f"C:\\Users\\{v}\\python.exe"
    for name in _FIX_SNAPSHOTS["powershell"]:
        for f in rules.evaluate(_with_exe(name, exe)):
            fix = f.get("fix") or ""
            if not fix or fix.startswith("# caution"):
                continue
            for shell, line in _sections(fix):
                try:
                    argvs = M.argvs(M.MODELS[shell](line))
                except M.Unsafe:
                    assert v not in line or not line.startswith(("C:", '"C:', "& ")), (f["code"], shell, line)
                    continue  # a prose line (an instruction): nothing to compare
                words = [w for argv in argvs for w in argv]
                if norm(exe) in line:
                    assert norm(exe) in words, (f["code"], shell, line)
                assert not any(w.startswith("#") for w in words), (f["code"], shell, line)  # cmd has no # comment


@SETTINGS
@given(v=values(exclude="\\"))
@example(v="x' }) ; calc ; ({ '")
def test_a_path_folder_in_a_fix_stays_one_word(v):
    """TE811 (and TE908) edit PATH for the session with the folder named in the snapshot: whatever the
    folder's name, the PowerShell line reads back with that one value as one literal word."""
    base_dir = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0\\bin"
    for name, code in (("win11_tf210_cuda110_first_on_path", "TE811"), ("conda_windows10_tf26_cuda110_on_path", "TE908")):
        s = copy.deepcopy(load(name))
        s["request"] = {"shell": "powershell"}
        drawn = "C:\\" + v + "\\CUDA\\v11.0\\bin"
        if code == "TE811":
            s["libraries"]["entries"][0]["dir"] = drawn
        else:
            s["conda"]["search_path"] = [dict(e, dir=drawn) if e["dir"] == base_dir else e for e in s["conda"]["search_path"]]
        s = snapmod.validate(s)
        from torch_envcheck.doctor import rules
        f = next((f for f in rules.evaluate(s) if f["code"] == code), None)
        assert f is not None, (name, drawn)
        first = f["fix"].splitlines()[0]
        m = re.fullmatch(r"\$env:Path = \(\$env:Path -split ';' \| Where-Object \{ \$_ -ne (.+) \}\) -join ';'", first)
        assert m, first
        assert parse("x " + m.group(1), "powershell") == [["x", norm(drawn)]], first
        # and cmd.exe's line (--shell cmd): the folder inside %PATH:...;=%, or no command at all
        s["request"] = {"shell": "cmd"}
        f = next(f for f in rules.evaluate(snapmod.validate(s)) if f["code"] == code)
        first = f["fix"].splitlines()[0]
        if any(c in norm(drawn) for c in '%"='):
            assert first.startswith("rem "), first
        else:
            assert first == f'set "PATH=%PATH:{norm(drawn)};=%"', first


# ----------------------------------------------------------------------------------- setup scripts

def _script_plan(tmp_path_factory, find_link: str, req_name: str):
    from torch_envcheck.advice import plan as planmod
    from torch_envcheck.advice.sources import Sources

    d = tmp_path_factory.mktemp("req")
    req = d / req_name
    req.write_text("numpy>=1.26\n")
    return planmod.from_advice(_snap("h100_cu130_healthy"), companions=("torchvision",), requirements=str(req),
                               sources=Sources(find_links=(find_link,)))


def _pip_expectations(plan, spec):
    steps = [(s["name"], ["-m", "pip", "install", *s["pip"]]) for s in plan.steps()]
    steps.append(("install torch_envcheck", ["-m", "pip", "install", spec, "pytest", *plan.sources.pip_args()]))
    return [(name, [norm(w) for w in words]) for name, words in steps]


_FILE_NAME_EXCLUDE = "/\\\x00\n"


@SETTINGS
@given(dest=values(), link=values(exclude="\n"), req=values(exclude=_FILE_NAME_EXCLUDE), spec=values())
@example(dest="envs,old", link="x", req="r.txt", spec="s")
def test_setup_scripts_parse_back(tmp_path_factory, dest, link, req, spec):
    from torch_envcheck.advice import scripts

    if req in (".", ".."):
        return
    plan = _script_plan(tmp_path_factory, link, req)
    want = _pip_expectations(plan, spec)
    # sh
    text = scripts.render(plan, "sh", dest, spec)
    env_line = next(ln for ln in text.splitlines() if ln.startswith("ENV_DIR=${1:-"))
    assert parse("x " + env_line[len("ENV_DIR=${1:-"):-1], "posix") == [["x", norm(dest)]]
    pip = [parse(ln, "posix", allow_vars=("PY",)) for ln in text.splitlines() if ln.startswith('"$PY" -m pip install')]
    assert [p[0] for p in pip] == [["$PY", *w] for _n, w in want]
    assert [p[1][0] for p in pip] == ["fail"] * len(want)
    # ps1
    text = scripts.render(plan, "ps1", dest, spec)
    lines = text.split("\r\n")
    param = next(ln for ln in lines if ln.startswith("param([string]$EnvDir = "))
    assert parse("x " + param[len("param([string]$EnvDir = "):-1], "powershell") == [["x", norm(dest)]]
    pip = [parse(ln, "powershell", allow_vars=("Py",)) for ln in lines if ln.startswith("& $Py -m pip install")]
    assert [p[0] for p in pip] == [["$Py", *w] for _n, w in want]
    # bat: the pip lines, and DEST only ever inside quotes
    text = scripts.render(plan, "bat", dest, spec)
    lines = text.split("\r\n")
    pip = [parse(ln, "cmd", allow_vars=("PY",)) for ln in lines if ln.startswith('"%PY%" -m pip install')]
    assert [p[0] for p in pip] == [["$PY", *w] for _n, w in want]
    set_line = next(ln for ln in lines if ln.startswith('set "ENV_DIR='))
    assert set_line.endswith('"') and set_line[len('set "ENV_DIR='):-1].replace("%%", "%") == norm(dest).replace('"', "")
    benign = scripts.render(plan, "bat", "plainenv", spec).split("\r\n")
    value = norm(dest).replace('"', "")
    for mine, plain in zip(lines, benign):
        if "%ENV_DIR%" in plain:
            # what cmd sees after expanding %ENV_DIR%: the same characters act as with a plain name
            assert _cmd_specials(mine.replace("%ENV_DIR%", value)) == _cmd_specials(plain.replace("%ENV_DIR%", "plainenv")), mine


def _cmd_specials(line: str) -> list[str]:
    """The characters cmd acts on outside quotes, in order (after %-expansion)."""
    out, quoted = [], False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "&|<>()^,;= ":
            out.append(ch)
    return out


# ------------------------------------------------------------------------------------ pin, env.yml

@SETTINGS
@given(torch_v=values(), tv=values(), tf=values())
@example(torch_v="2.14.1+cu130\n--index-url http://evil/", tv="0.29.1; rm -rf ~", tf="2.21.0")
def test_pin_lines_are_requirements_or_comments(torch_v, tv, tf):
    from packaging.requirements import Requirement

    from torch_envcheck.commands.pin import lines

    s = copy.deepcopy(load("tf_torch_cu130_one_venv"))
    s["torch"]["version"] = torch_v
    s["packages"]["torchvision"] = {"version": tv, "installer": "pip", "location": None}
    s["tensorflow"]["version"] = tf
    s = snapmod.validate(s)
    try:
        out = lines(s)
    except ValueError:
        assert escape.requirement_version(torch_v) is None  # refused only for an invalid torch version
        return
    for line in out:
        assert "\n" not in line
        if line.startswith("#"):
            continue
        if line.startswith("--extra-index-url "):
            assert re.fullmatch(r"--extra-index-url https://download\.pytorch\.org/whl/[a-z0-9.]+", line), line
            continue
        req = Requirement(line)
        assert str(req) == line or line.replace(" ", "") == str(req).replace(" ", ""), line
    pinned = {Requirement(ln).name: str(Requirement(ln).specifier) for ln in out
              if not ln.startswith(("#", "--"))}
    assert pinned["torch"] == f"=={escape.requirement_version(torch_v)}"
    if escape.requirement_version(tv):
        assert pinned["torchvision"] == f"=={escape.requirement_version(tv)}"
    else:
        assert "torchvision" not in pinned


@SETTINGS
@given(version=values(), build=values(), channel=values(), env_name=values(), pip_name=values(), pip_version=values())
def test_environment_yml_is_yaml_holding_only_valid_values(version, build, channel, env_name, pip_name, pip_version):
    yaml = pytest.importorskip("yaml")
    from torch_envcheck.advice import env_yml

    s = copy.deepcopy(load("conda_linux_pytorch23_cu121_healthy"))
    pkgs = s["conda"]["packages"]
    rec = next(p for p in pkgs if p["name"] == "pytorch")
    rec.update(version=version, build=build, channel=channel)
    for item in s["conda"]["requested"]:
        if item["name"] == "pytorch":
            item["version"] = version
    s["conda"]["env_name"] = env_name
    s["conda"]["pip"] = [{"name": pip_name, "version": pip_version, "installer": "pip", "dist_info": "x",
                          "runtime_files": None}]
    from torch_envcheck.facts import conda as C

    s = snapmod.validate(s)
    text = env_yml.build(s)
    data = yaml.safe_load(text)  # one YAML document; a value cannot add a key or an entry
    assert set(data) == {"name", "channels", "dependencies"}
    name = C.env_name(s)
    assert data["name"] == (name if name and re.fullmatch(r"[A-Za-z0-9_.\-]{1,64}", name) else "env")
    deps = [d for d in data["dependencies"] if isinstance(d, str)]
    spec = [d for d in deps if d.split("::")[-1].split("=")[0] == "pytorch"]
    if re.fullmatch(r"[A-Za-z0-9_.+!*]{1,64}", version):
        assert len(spec) == 1 and f"pytorch={version}" in spec[0]
    else:
        assert spec == []
    pips = [d for d in data["dependencies"] if isinstance(d, dict)]
    for block in pips:
        for line in block["pip"] or []:  # only comments: an empty pip list
            assert line == f"{pip_name}=={escape.requirement_version(pip_version)}"


# ------------------------------------------------------------------------------------ rebuild --dry-run

@SETTINGS
@given(dest=values(), link=values(exclude="\n"))
@example(dest="a -m pip ;touch PWNED; #", link="$(touch PWNED)")
def test_rebuild_dry_run_commands_parse_back(dest, link):
    from torch_envcheck.advice import plan as planmod
    from torch_envcheck.advice.sources import Sources
    from torch_envcheck.commands import rebuild as rebuild_cli
    from torch_envcheck.rebuild import runner

    plan = planmod.from_advice(_snap("h100_cu130_healthy"), sources=Sources(find_links=(link,)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rebuild_cli._dry_run(plan, dest)
    lines = [ln for ln in out.getvalue().splitlines() if not ln.startswith("#")]
    py = runner.env_python(os.path.abspath(dest), plan.conda)
    want = [["python" + plan.python, "-m", "venv", os.path.abspath(dest)]]
    want += [[py, "-m", "pip", "install", *s["pip"]] for s in plan.steps()]
    want += [[py, "-m", "pip", "install", "<this torch_envcheck, as a wheel>", "pytest", *plan.sources.pip_args()],
             [py, "-m", "torch_envcheck", "selftest"]]
    assert len(lines) == len(want)
    for line, words in zip(lines, want):
        expected = [[norm(w) for w in words]]
        assert parse(line, "posix") == expected, line
        check_posix_with_shlex(line, expected)


def test_a_program_that_looks_like_an_assignment_or_a_keyword_is_quoted():
    # `A=b -m pip` would set a variable and run `-m`; `if -m pip` is a syntax error
    for prog in ("A=b", "if", "!", "{"):
        line = escape.shell_join([prog, "-m", "pip"])
        assert parse(line, "posix") == [[prog, "-m", "pip"]], line


def test_control_characters_never_leave_their_word():
    line = escape.shell_join(["/x/py\nthon\x1b[31m", "-m", "pip"])
    assert "\n" not in line and "\x1b" not in line
    assert parse(line, "posix") == [["/x/py thon\\x1b[31m", "-m", "pip"]]
    assert json.dumps(line)  # plain text
