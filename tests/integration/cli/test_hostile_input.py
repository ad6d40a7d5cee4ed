"""`--from-json` treats a saved report as hostile input.  Each hostile input (a
wrong type, a cut file, a deep nesting, an escape sequence) either gives exit 2 with one line naming the problem, or a correct
report; never a traceback or a hang.  Every case runs through the real command line (a
subprocess) for each command that reads a report: the doctor, advise, pin and readme-line."""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys

import pytest

from doctor_support import REPO, run_cli, run_inprocess
from torch_envcheck.facts import snapshot as snapmod

# Saved reports, recorded snapshots and indexes the tests serve: nothing here reads this machine's torch.
pytestmark = pytest.mark.any_torch_build

SNAPS = os.path.join(REPO, "tests", "snapshots")
HEALTHY = os.path.join(SNAPS, "h100_cu130_healthy.json")
COMMANDS = ([], ["advise"], ["pin"], ["readme-line"])


def _snap() -> dict:
    with open(HEALTHY, encoding="utf-8") as fh:
        return json.load(fh)


def _one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("torch-envcheck: error: ")
    for n in needles:
        assert n in lines[0], lines[0]
    assert proc.stdout == ""


def _for_every_command(path_or_dash: str, *needles: str, **kw) -> None:
    for cmd in COMMANDS:
        _one_line_error(run_cli(sys.executable, cmd + ["--from-json", path_or_dash], **kw), *needles)


def test_deep_nesting_is_refused_before_parsing(tmp_path):
    for name, text in (("lists", "[" * 100_000 + "]" * 100_000), ("objects", '{"a":' * 50_000 + "1" + "}" * 50_000),
                       ("unclosed", "[" * 1_000_000)):
        p = tmp_path / f"{name}.json"
        p.write_text(text)
        _for_every_command(str(p), "nested more than 64 levels")


def test_deep_nesting_inside_a_valid_report(tmp_path):
    snap = _snap()
    deep: object = "x"
    for _ in range(5000):
        deep = {"k": [deep]}
    snap["platform"]["extra"] = deep
    p = tmp_path / "deep.json"
    p.write_text(_dumps_deep(snap))
    _for_every_command(str(p), "nested more than 64 levels")


def _dumps_deep(obj) -> str:
    # json.dumps itself recurses; build the text iteratively.
    snap = dict(obj)
    deep = snap["platform"].pop("extra")
    n = 0
    while isinstance(deep, dict):
        deep = deep["k"][0]
        n += 1
    inner = '{"k":[' * n + json.dumps(deep) + "]}" * n
    text = json.dumps(snap)
    return text.replace('"platform": {', '"platform": {"extra": ' + inner + ", ", 1)


def test_brackets_inside_strings_do_not_count_as_nesting(tmp_path):
    snap = _snap()
    snap["platform"]["os_pretty"] = "[" * 10_000 + '{"' * 100
    p = tmp_path / "s.json"
    p.write_text(json.dumps(snap))
    assert snapmod.load(str(p))["platform"]["os_pretty"].startswith("[[[")


def test_unterminated_escaped_quotes_scan_in_linear_time(tmp_path):
    """`"\\"\\"\\"...` never closes a string: a backtracking string pattern took minutes on 1 MiB
    (run_cli's timeout would fail this test); the scanner takes one pass."""
    p = tmp_path / "quotes.json"
    p.write_text('["' + '\\"' * 500_000)
    _one_line_error(run_cli(sys.executable, ["--from-json", str(p)]), "not valid JSON")
    assert snapmod._depth('["' + '\\"' * 10 + '", [[1]], "[[[["]') == 3


def test_dev_zero_is_refused_as_a_device():
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    # run_cli's timeout (120 s) turns a hang into a failure; a device is never read (_util/safe_open.py)
    _for_every_command("/dev/zero", "a character device, not a regular file")


def test_large_file_is_refused_by_size(tmp_path):
    p = tmp_path / "big.json"
    with open(p, "w") as fh:
        fh.write('{"schema": "torch_envcheck.snapshot/1", "pad": "')
        fh.write("x" * (snapmod.MAX_BYTES + 10))
        fh.write('"}')
    with pytest.raises(snapmod.SnapshotError, match="larger than 16 MiB"):
        snapmod.load(str(p))


def test_a_million_gpus_is_refused(tmp_path):
    snap = _snap()
    snap["driver"]["gpus"] = [{}] * 1_000_000
    p = tmp_path / "gpus.json"
    p.write_text(json.dumps(snap, separators=(",", ":")))
    assert os.path.getsize(p) < snapmod.MAX_BYTES  # refused for the count, not the size
    _for_every_command(str(p), "a list with 1000000 entries")


def test_too_many_values_overall_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(snapmod, "MAX_NODES", 50)
    p = tmp_path / "r.json"
    p.write_text(json.dumps(_snap()))
    with pytest.raises(snapmod.SnapshotError, match="more than 50 values"):
        snapmod.load(str(p))


def test_huge_object_is_refused(tmp_path):
    snap = _snap()
    snap["env"] = {f"VAR{i}": "1" for i in range(snapmod.MAX_ITEMS + 1)}
    p = tmp_path / "env.json"
    p.write_text(json.dumps(snap))
    with pytest.raises(snapmod.SnapshotError, match="an object with 10001 entries"):
        snapmod.load(str(p))


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le-bom", "utf-16-be-bom",
                                      "utf-16-le", "utf-16-be", "utf-32"])
def test_encodings_of_saved_reports(tmp_path, encoding):
    """PowerShell 5.1's `torch-envcheck --json > report.json` writes UTF-16 LE with a BOM; Notepad
    may add a UTF-8 BOM; all of them read as the same report."""
    snap = _snap()
    for gpu in snap["driver"]["gpus"][:1] + snap["torch"]["devices"][:1]:
        gpu["name"] = "NVIDIA H100 80GB HBM3 – ü 日本"
    text = json.dumps(snap, ensure_ascii=False, indent=2).replace("\n", "\r\n")
    if encoding == "utf-16-le-bom":
        raw = codecs.BOM_UTF16_LE + text.encode("utf-16-le")
    elif encoding == "utf-16-be-bom":
        raw = codecs.BOM_UTF16_BE + text.encode("utf-16-be")
    else:
        raw = text.encode(encoding)
    p = tmp_path / "report.json"
    p.write_bytes(raw)
    assert snapmod.load(str(p)) == snapmod.validate(json.loads(json.dumps(snap)))
    proc = run_cli(sys.executable, ["readme-line", "--from-json", str(p)])
    assert proc.returncode == 0 and "日本" in proc.stdout, proc.stderr


def test_powershell_saved_full_report_is_diagnosed(tmp_path):
    """A whole report (not just a snapshot) saved as UTF-16 LE with a BOM, CRLF line ends."""
    rep = run_cli(sys.executable, ["--json", "--from-json", HEALTHY])
    assert rep.returncode == 0
    p = tmp_path / "report.json"
    p.write_bytes(codecs.BOM_UTF16_LE + rep.stdout.replace("\n", "\r\n").encode("utf-16-le"))
    again = run_cli(sys.executable, ["--json", "--from-json", str(p)])
    assert again.returncode == 0 and json.loads(again.stdout)["snapshot"] == json.loads(rep.stdout)["snapshot"]


def test_invalid_utf8_and_odd_utf16_are_refused(tmp_path):
    p = tmp_path / "latin1.json"
    p.write_bytes('{"schema": "torch_envcheck.snapshot/1", "x": "\xe9"}'.encode("latin-1"))
    _for_every_command(str(p), "not UTF-8 or UTF-16 text")
    q = tmp_path / "odd16.json"
    q.write_bytes(codecs.BOM_UTF16_LE + b"{\x00}")
    _one_line_error(run_cli(sys.executable, ["--from-json", str(q)]), "not UTF-8 or UTF-16 text")


@pytest.mark.parametrize("where", ["gpu name", "key", "version", "pair", "path"])
def test_lone_surrogates_are_neutralised(tmp_path, where):
    snap = _snap()
    text = json.dumps(snap)
    if where == "gpu name":
        text = text.replace('"NVIDIA H100 80GB HBM3"', '"NVIDIA \\ud800 H100"')
    elif where == "key":
        text = text.replace('"env": {', '"env": {"\\udfff": "\\udc80", ', 1)
    elif where == "version":
        text = text.replace('"2.14.1+cu130"', '"2.14.1\\ud800"', 1)
    elif where == "pair":  # a valid pair stays the character it encodes
        text = text.replace('"NVIDIA H100 80GB HBM3"', '"NVIDIA \\ud83d\\ude00"')
    else:
        text = text.replace('"/home/ana/venvs/train/bin/python"', '"/home/\\ud800/bin/python"')
    assert text != json.dumps(snap)
    p = tmp_path / "s.json"
    p.write_text(text)
    loaded = json.dumps(snapmod.load(str(p)), ensure_ascii=False)
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in loaded)
    if where == "pair":
        assert "\U0001F600" in loaded
    for cmd in COMMANDS + (["--markdown"], ["--json"], ["--verbose"]):
        proc = run_cli(sys.executable, cmd + ["--from-json", str(p)])
        assert proc.returncode in (0, 1), (cmd, proc.stderr)
        assert "Traceback" not in proc.stderr, proc.stderr
    assert "\ufffd" in run_cli(sys.executable, ["--verbose", "--from-json", str(p)]).stdout or where == "pair"


def test_closed_stdin():
    for cmd in COMMANDS:
        argv = [sys.executable, "-m", "torch_envcheck"] + cmd + ["--from-json", "-"]
        env = dict(os.environ, PYTHONPATH=REPO)
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=120)
        _one_line_error(proc, "empty")
        closed = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh"] + argv, capture_output=True, text=True,
                                env=env, timeout=120)
        _one_line_error(closed, "standard input is closed")


def test_stdin_report_is_read():
    with open(HEALTHY, "rb") as fh:
        data = fh.read()
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run([sys.executable, "-m", "torch_envcheck", "readme-line", "--from-json", "-"], input=data,
                          capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0 and b"NVIDIA H100" in proc.stdout


def test_empty_file_name_never_probes_this_machine():
    _for_every_command("", "needs a file name")
    # the `--from-json=` spelling too
    _one_line_error(run_cli(sys.executable, ["--from-json="]), "needs a file name")


@pytest.mark.parametrize("content, needle", [
    ("", "empty"), ("   \n", "empty"), ("{", "not valid JSON"), ("[1, 2]", "got a list"), ("null", "got null"),
    ('{"schema": 5}', '"schema" is a number'), ("NaN", "got null"),
    ("1" * 5000, "not valid JSON"),  # an integer past Python's digit limit
    ('{"a": "\x00"}', "NUL characters"),
])
def test_malformed_files(tmp_path, content, needle):
    p = tmp_path / "bad.json"
    p.write_text(content)
    _for_every_command(str(p), needle)


def test_a_section_of_the_wrong_type_is_unknown_not_an_error(tmp_path):
    """The contract normalises a wrong type to unknown, noted in `normalised`: the doctor then says
    it could not judge that area (exit 1) rather than refusing the whole report."""
    p = tmp_path / "odd.json"
    p.write_text('{"schema": "torch_envcheck.snapshot/1", "torch": [1]}')
    snap = snapmod.load(str(p))
    assert snap["torch"] is None and any(n.startswith("torch") for n in snap["normalised"])
    proc = run_cli(sys.executable, ["--from-json", str(p)])
    assert proc.returncode == 1 and "Traceback" not in proc.stderr


def test_missing_file_and_directory(tmp_path):
    _for_every_command(str(tmp_path / "nope.json"), "cannot read it")
    _for_every_command(str(tmp_path), "is a directory")


def test_error_line_escapes_a_hostile_file_name(tmp_path):
    name = tmp_path / "evil\x1b]0;title\x07.json"
    proc = run_cli(sys.executable, ["--from-json", str(name)])
    _one_line_error(proc, "cannot read it")
    assert "\x1b" not in proc.stderr and "\\x1b" in proc.stderr


def test_nan_and_infinity_become_unknown(tmp_path):
    text = json.dumps(_snap()).replace('"total_memory_bytes": 85', '"total_memory_bytes": NaN, "x": 85', 1)
    text = text.replace('"schema"', '"big": Infinity, "schema"', 1)
    p = tmp_path / "nan.json"
    p.write_text(text)
    snap = snapmod.load(str(p))
    assert snap["big"] is None
    proc = run_cli(sys.executable, ["--json", "--from-json", str(p)])
    assert proc.returncode in (0, 1) and "NaN" not in proc.stdout and "Infinity" not in proc.stdout
    json.loads(proc.stdout)


WRONG_TYPES = [
    ("torch", "version", 2.14), ("torch", "version", ["2.14.1"]), ("torch", "cuda", {"x": 1}),
    ("torch", "devices", "NVIDIA H100"), ("torch", "devices", [1, None, "x"]), ("torch", "cudnn", "92400"),
    ("torch", "cuda_available", "yes"), ("torch", "mps", [True]), ("driver", "gpus", {"0": "H100"}),
    ("driver", "gpus", [{"capability": [9, 0]}, {"capability": 9.0}, {"name": None}]),
    ("driver", "version", 580), ("driver", "cuda_version", 13.0), ("driver", "present", "false"),
    ("driver", "pci_gpus", "0000:01:00.0"), ("platform", "python", "3.12"), ("platform", "python", {"executable": 7}),
    ("platform", "system", ["Linux"]), ("platform", "wsl", "2"), ("packages", "torchvision", "0.29.1"),
    ("packages", "torchvision", {"version": 0.29}), ("env", "CUDA_VISIBLE_DEVICES", 0),
    ("env", "LD_LIBRARY_PATH", ["/usr/lib"]), ("libraries", "entries", {"dir": "/x"}),
    ("libraries", "entries", [{"dir": None, "libs": "libcudart.so"}]), ("toolchain", "nvcc", "/usr/bin/nvcc"),
    ("toolchain", "nvcc", [{"version": 12.4, "path": ["x"]}]), ("extension", "status", "ok"),
    ("extension", "status", {"state": ["ok"], "rebuild_command": 5}), ("extension", "runtime_info", [1]),
]


def _inprocess(argv):
    return subprocess.CompletedProcess(argv, *run_inprocess(argv))


def _check_survives(proc, where) -> None:
    assert "Traceback" not in proc.stderr + proc.stdout and "internal error" not in proc.stderr, where
    assert proc.returncode in (0, 1, 2), where
    if proc.returncode == 2 or not proc.stdout:
        assert len(proc.stderr.strip().splitlines()) == 1, where


@pytest.mark.parametrize("section, key, value", WRONG_TYPES, ids=[f"{s}.{k}={type(v).__name__}" for s, k, v in WRONG_TYPES])
def test_wrong_types(tmp_path, section, key, value):
    """Wrong types anywhere: every command ends with a report (exit 0/1) or one line (exit 1/2),
    never a traceback or the last-resort guard's "internal error".  In-process, one type at a time."""
    snap = _snap()
    if not isinstance(snap.get(section), dict):
        snap[section] = {}
    snap[section][key] = value
    p = tmp_path / "r.json"
    p.write_text(json.dumps(snap))
    for cmd in COMMANDS + (["--markdown"], ["--json"], ["--verbose"]):
        proc = _inprocess(cmd + ["--from-json", str(p)])
        _check_survives(proc, (cmd, section, key, value, proc.stderr[-800:]))


def test_wrong_types_end_to_end(tmp_path):
    """The same through the real command line (subprocesses): the wrong types merged into a few
    reports, each run by every command."""
    groups: list[dict] = []
    for section, key, value in WRONG_TYPES:
        for g in groups:
            if (section, key) not in g:
                g[(section, key)] = value
                break
        else:
            groups.append({(section, key): value})
    for i, group in enumerate(groups):
        snap = _snap()
        for (section, key), value in group.items():
            snap[section][key] = value
        p = tmp_path / f"r{i}.json"
        p.write_text(json.dumps(snap))
        for cmd in COMMANDS + (["--markdown"],):
            proc = run_cli(sys.executable, cmd + ["--from-json", str(p)])
            _check_survives(proc, (cmd, i, proc.stderr[-800:]))
