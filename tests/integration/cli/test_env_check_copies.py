"""env_check.py ships alone, so it carries small copies of torch_envcheck's terminal escaping, capped
output buffer and bounded child runner: each copy must behave like the package's.  And the script
itself, with a TensorFlow that floods its output, leaves a process holding the pipe, or prints
terminal escapes, stays bounded in time and memory and prints nothing raw."""

from __future__ import annotations

import os
import random
import runpy
import subprocess
import sys
import textwrap
import time

import pytest

from torch_envcheck._util import escape, proc
from torch_envcheck._util.capped import CappedBuffer
from torch_envcheck.commands import init as init_cli

PY = sys.executable


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    path = tmp_path_factory.mktemp("tpl") / "env_check.py"
    path.write_text(init_cli.template_text())
    return runpy.run_path(str(path), run_name="env_check")


NASTY = ["plain", "a\x1b[31mred\x1b[0m", "bell\x07 nul\x00 del\x7f c1\x85\x9b", "bidi \u202e\u2066x\u2069",
         "line\nbreak\r\nand\rcr\ttab", "sep\u2028para\u2029bom\ufeff", "surrogate \udcff", "", None, 12.5,
         "".join(chr(c) for c in range(0, 0x200))]


@pytest.mark.parametrize("text", NASTY, ids=range(len(NASTY)))
@pytest.mark.parametrize("multiline", [False, True])
def test_the_escaping_copy_is_the_packages(copy, text, multiline):
    assert copy["terminal"](text, multiline) == escape.terminal(text, multiline)


def test_the_capped_buffer_copy_is_the_packages(copy):
    rnd = random.Random(7)
    for head, tail in ((0, 0), (5, 0), (0, 7), (16, 16), (100, 3)):
        a, b = copy["CappedBuffer"](head, tail), CappedBuffer(head, tail)
        for _ in range(200):
            data = bytes(rnd.randrange(256) for _ in range(rnd.choice((0, 1, 3, 9, 40))))
            a.write(data)
            b.write(data)
            assert a.value() == b.value() and a.value(mark=False) == b.value(mark=False)


PROGRAMS = {
    "exit 3 with output": ("import sys; print('out'); sys.stderr.write('err\\n'); sys.exit(3)", 30),
    "a flood of 8 MiB": ("import sys; sys.stdout.write('x' * (8 << 20)); print('END')", 60),
    "too slow": ("import time; time.sleep(30)", 1.5),
    "a background process keeps the pipe": (
        "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']); print('bye')",
        30),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_child_runner_copy_behaves_like_the_packages(copy, name):
    code, timeout = PROGRAMS[name]
    t0 = time.monotonic()
    rc, out, err, timed_out = copy["run_capped"]([PY, "-c", code], timeout, 64 << 10, 64 << 10)
    took = time.monotonic() - t0
    res = proc.run_capped([PY, "-c", code], timeout, stdout_cap=(64 << 10, 64 << 10),
                          stderr_cap=(64 << 10, 64 << 10))
    assert (rc, timed_out) == (res.returncode, res.timed_out)
    assert out == res.stdout and err.rstrip(b"\n") == res.stderr.rstrip(b"\n")
    assert len(out) <= (128 << 10) + 100
    assert took < timeout + 6  # a leftover holding the pipe is not waited for


def _fake_tf(root, body: str) -> str:
    pkg = os.path.join(root, "fake", "tensorflow")
    os.makedirs(pkg, exist_ok=True)
    with open(os.path.join(pkg, "__init__.py"), "w") as fh:
        fh.write(textwrap.dedent(body))
    # torch's import is slow and not what these tests are about: a torch that is "not installed"
    os.makedirs(os.path.join(root, "fake", "torch"), exist_ok=True)
    with open(os.path.join(root, "fake", "torch", "__init__.py"), "w") as fh:
        fh.write("raise ImportError('no torch in this test')\n")
    return os.path.join(root, "fake")


def _script(tmp_path, fake: str, timeout: float = 120):
    path = tmp_path / "env_check.py"
    path.write_text(init_cli.template_text())
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ENV_CHECK_REQUIRE_GPU")}
    env["PYTHONPATH"] = fake
    t0 = time.monotonic()
    p = subprocess.run([PY, str(path), "--skip-timing", "--skip-doctor"], capture_output=True, timeout=timeout,
                       env=env, cwd=str(tmp_path))
    return p, time.monotonic() - t0


def test_env_check_prints_tensorflows_strings_escaped(tmp_path):
    fake = _fake_tf(str(tmp_path), """
        __version__ = "9.9\\x1b]0;pwned\\x07\\x1b[2J"
        class _C:
            def list_physical_devices(self, kind):
                return []
        config = _C()
        class _S:
            def get_build_info(self):
                return {"is_cuda_build": "True", "cuda_version": "12\\x1b[31m", "cudnn_version": "9"}
        sysconfig = _S()
        def device(name):
            raise RuntimeError("no device \\x1b[5mblink")
    """)
    p, _took = _script(tmp_path, fake)
    assert b"\x1b" not in p.stdout + p.stderr and b"\x07" not in p.stdout
    assert b"9.9\\x1b]0;pwned\\x07" in p.stdout


def test_env_check_is_bounded_by_a_tensorflow_that_floods_and_leaves_a_process_behind(tmp_path):
    fake = _fake_tf(str(tmp_path), """
        import os, subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # holds the pipes
        os.write(2, b"noise\\n" * (4 << 20))  # 24 MiB on stderr
        raise ImportError("broken tensorflow")
    """)
    p, took = _script(tmp_path, fake)
    assert p.returncode == 1 and b"cannot be imported: ImportError: broken tensorflow" in p.stdout, p.stdout[-2000:]
    assert len(p.stdout) + len(p.stderr) < (1 << 20)
    assert took < 50  # not the 60 s of the process it left behind
