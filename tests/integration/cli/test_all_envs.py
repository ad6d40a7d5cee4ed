"""`torch-envcheck --all-envs` / `--env`: every conda env (from `conda env list --json`, else conda's
own files) and the venvs named, each diagnosed by its own interpreter, in one table above the
per-env reports (terminal, JSON, Markdown).  The envs are real-format conda prefixes and venvs
(tests/support/conda_prefixes.py) with interpreters that start, and one whose python cannot."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import conda_prefixes as CP
from torch_envcheck.doctor.probes import environments as E
from torch_envcheck.doctor.render import envs_table


def test_python_layout_of_each_platform():
    assert E.python_in("C:\\Users\\u\\miniconda3\\envs\\tf-gpu", "conda", "Windows") == \
        "C:\\Users\\u\\miniconda3\\envs\\tf-gpu\\python.exe"
    assert E.python_in("C:\\Users\\u\\venvs\\pt", "venv", "Windows") == "C:\\Users\\u\\venvs\\pt\\Scripts\\python.exe"
    assert E.python_in("/home/u/miniconda3/envs/tf-gpu/", "conda", "Linux") == "/home/u/miniconda3/envs/tf-gpu/bin/python"
    assert E.python_in("/home/u/venvs/pt", "venv", "Darwin") == "/home/u/venvs/pt/bin/python"


def _prefix_only(path):
    """A folder with conda-meta/ and no interpreter (a half-removed env, or Windows' layout here)."""
    os.makedirs(os.path.join(path, "conda-meta"), exist_ok=True)
    return path


def test_discovery_asks_conda_first(tmp_path):
    root = _prefix_only(str(tmp_path / "miniconda3"))
    os.makedirs(os.path.join(root, "condabin"))
    tf = _prefix_only(str(tmp_path / "miniconda3" / "envs" / "tf-gpu"))
    not_conda = str(tmp_path / "plain")
    os.makedirs(not_conda)
    CP.fake_conda(str(tmp_path / "bin"), [root, tf, not_conda, tf])
    found = E.discover(env={"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path)}, timeout=10)
    assert found["source"] == "conda env list"
    assert [(e["name"], e["prefix"]) for e in found["envs"]] == [("base", root), ("tf-gpu", tf)]
    # no interpreter in these prefixes: listed, with the reason (the runner turns it into TE193)
    assert all(e["python"] is None and "no interpreter" in e["error"] for e in found["envs"])
    win = E.discover(env={"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path)}, timeout=10, system="Windows")
    assert win["envs"][1]["python_expected"].endswith("tf-gpu\\python.exe")


def test_discovery_without_conda_reads_its_files(tmp_path):
    home = tmp_path / "home"
    (home / ".conda").mkdir(parents=True)
    listed = _prefix_only(str(tmp_path / "elsewhere" / "pt-gpu"))
    (home / ".conda" / "environments.txt").write_text(listed + "\n" + str(tmp_path / "gone") + "\n")
    extra = tmp_path / "more-envs"
    _prefix_only(str(extra / "tf-gpu"))
    (home / ".condarc").write_text(f"channels:\n  - conda-forge\nenvs_dirs:\n  - {extra}\n")
    found = E.discover(env={"PATH": str(tmp_path / "nobin"), "HOME": str(home)}, timeout=5)
    assert found["source"] == "envs_dirs / environments.txt"
    assert sorted(e["name"] for e in found["envs"]) == ["pt-gpu", "tf-gpu"]


def test_env_argument_forms(tmp_path):
    venv = str(tmp_path / "v")
    py = CP.make_venv(venv)
    assert E.resolve(venv, [])["kind"] == "venv" and E.resolve(venv, [])["python"] == py
    assert E.resolve(py, [])["prefix"] == venv
    assert E.resolve("no-such-env", [])["error"]
    known = [{"name": "tf-gpu", "prefix": "/x/envs/tf-gpu", "kind": "conda", "python": None, "source": "conda env list"}]
    assert E.resolve("tf-gpu", known)["prefix"] == "/x/envs/tf-gpu"


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    """A machine with three conda envs (TensorFlow only; nothing; a python that cannot start) and a
    venv, as conda lists them."""
    root = tmp_path_factory.mktemp("machine")
    envs = root / "miniconda3" / "envs"
    tf = str(envs / "tf-gpu")
    CP.conda_prefix(tf, [CP.record("cudatoolkit", "11.2.2", "h7d7167e_10", spec="cudatoolkit=11.2"),
                         CP.record("cudnn", "8.1.0.77", "h90431f1_0", depends=["cudatoolkit 11.*"], spec="cudnn=8.1.0")],
                    cmd="conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0")
    CP.pip_dist(tf, "tensorflow", "2.6.0", requires=["numpy (~=1.19.2)", "keras (~=2.6)"])
    CP.pip_dist(tf, "keras", "2.6.0")
    empty = str(envs / "empty")
    CP.conda_prefix(empty, [])
    broken = str(envs / "broken")
    py = CP.conda_prefix(broken, [])
    os.remove(py)
    with open(py, "w") as fh:  # an interpreter that exits at once, as a python whose DLLs are gone does
        fh.write("#!/bin/sh\necho 'error while loading shared libraries: libpython3.11.so.1.0' >&2\nexit 127\n")
    os.chmod(py, 0o755)
    venv = str(root / "venvs" / "plain")
    CP.make_venv(venv)
    bin_dir = str(root / "bin")
    CP.fake_conda(bin_dir, [tf, empty, broken])
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), HOME=str(root))
    env.pop("CONDA_EXE", None)
    cmd = [sys.executable, "-m", "torch_envcheck", "--all-envs", "--env", venv, "--no-tensorflow", "--timeout", "5",
           "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    return {"proc": proc, "out": json.loads(proc.stdout), "tf": tf, "empty": empty, "broken": broken, "venv": venv}


def test_one_table_every_env(machine):
    out = machine["out"]
    assert out["schema"] == envs_table.SCHEMA and out["source"] == "conda env list"
    rows = {r["env"]: r for r in out["table"]}
    assert list(rows) == ["tf-gpu", "empty", "broken", "plain"]
    assert rows["tf-gpu"]["frameworks"] == "tensorflow 2.6.0"
    assert rows["plain"]["kind"] == "venv" and rows["plain"]["frameworks"] == "none"
    assert rows["broken"]["verdict"] == "could not diagnose"
    assert machine["proc"].returncode == out["exit_code"] == 1


def test_each_env_ran_in_its_own_interpreter(machine):
    by = {item["env"]["name"]: item for item in machine["out"]["reports"]}
    for name, key in (("tf-gpu", "tf"), ("empty", "empty")):
        snap = by[name]["report"]["snapshot"]
        assert snap["platform"]["python"]["prefix"] == machine[key]
        assert snap["platform"]["python"]["conda_env"] == name
        assert snap["conda"]["prefix"] == machine[key]
    assert by["plain"]["report"]["snapshot"]["platform"]["python"]["prefix"] == machine["venv"]
    # this interpreter's torch never leaks into the envs: none of them has one
    assert all(by[n]["report"]["snapshot"]["torch"]["importable"] is False for n in ("tf-gpu", "empty", "plain"))


def test_an_env_is_judged_for_the_frameworks_it_holds(machine):
    by = {item["env"]["name"]: item["report"] for item in machine["out"]["reports"]}
    f201 = {n: next(f for f in by[n]["findings"] if f["code"] == "TE201") for n in ("tf-gpu", "empty")}
    assert f201["tf-gpu"]["severity"] == "ok" and f201["tf-gpu"]["fix"] is None
    assert f201["empty"]["severity"] == "failure"  # no framework at all: torch, the tool's default, is asked
    assert not any(f["code"] == "TE780" for f in by["tf-gpu"]["findings"])  # the extension is not judged there


def test_an_env_whose_python_cannot_start_is_a_finding(machine):
    rep = next(i["report"] for i in machine["out"]["reports"] if i["env"]["name"] == "broken")
    (f,) = rep["findings"]
    assert f["code"] == "TE193" and f["severity"] == "failure"
    assert "libpython3.11" in f["message"]


def test_terminal_and_markdown_put_the_table_first(machine):
    import io

    from torch_envcheck.doctor.report import Report
    out = dict(machine["out"], reports=[dict(item, report=Report.from_dict(item["report"]))
                                        for item in machine["out"]["reports"]])
    buf = io.StringIO()
    envs_table.print_terminal(out, stream=buf)
    text = buf.getvalue()
    table_at = text.index("env ")
    assert table_at < text.index("=== conda env tf-gpu")
    for name in ("tf-gpu", "empty", "broken", "plain"):
        assert f"\n{name} (" in text
    md = envs_table.to_markdown(out)
    assert md.index("| Env | Frameworks | Verdict | First fix |") < md.index("## conda env tf-gpu")
    assert "could not diagnose" in md


def test_each_env_is_bounded_in_time(tmp_path):
    """An interpreter that never answers (a hung python, a network drive) costs its limit, then is a
    finding; the other envs go on."""
    import argparse
    import time

    from torch_envcheck.commands import all_envs
    prefix = tmp_path / "hung"
    py = CP.conda_prefix(str(prefix), [])
    os.remove(py)
    with open(py, "w") as fh:
        fh.write("#!/bin/sh\nsleep 30\n")
    os.chmod(py, 0o755)
    env = E.resolve(str(prefix), [])
    t0 = time.monotonic()
    rep = all_envs.diagnose_env(env, argparse.Namespace(timeout=None, no_tensorflow=True, framework=None, shell=None), 1.0)
    assert time.monotonic() - t0 < 10
    (f,) = rep["findings"]
    assert f["code"] == "TE193" and "did not finish within 1 s" in f["message"]
