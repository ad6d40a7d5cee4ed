"""Terminal safety, encodings: with stdout in cp1252 (a redirected stdout on Windows) or ASCII
(`LC_ALL=C` with Python's UTF-8 mode and locale coercion off), `--markdown` and the terminal report
come out whole, with the ASCII marks ([ok] [!] [x], + x - ->) the terminal renderer falls back to;
never an encoding error, an internal error or the JSON fallback.  (fleet --markdown:
test_fleet_hostile.py.)"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from doctor_support import REPO
from paths import SNAP_DIR

SNAPS = ("h100_cu130_healthy.json", "rtx5090_cu121.json", "windows_cpu_wheel_rtx4070.json")
NARROW = {"cp1252": {"PYTHONIOENCODING": "cp1252"}, "ascii": {"PYTHONIOENCODING": "ascii"},
          "LC_ALL=C": {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}}


def _run(args, extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LC_ALL", "LANG", "PYTHONUTF8")}
    env.update(extra, PYTHONPATH=REPO, NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "torch_envcheck", *args], env=env, cwd=REPO, capture_output=True,
                          timeout=120)


@pytest.mark.parametrize("kind", list(NARROW))
@pytest.mark.parametrize("snap", SNAPS)
@pytest.mark.parametrize("fmt", ["--markdown", None])
def test_reports_on_a_narrow_stdout(kind, snap, fmt):
    args = ["--from-json", os.path.join(SNAP_DIR, snap)] + ([fmt] if fmt else [])
    r = _run(args, NARROW[kind])
    assert r.returncode in (0, 1), r.stderr
    err = r.stderr.decode("ascii", "replace")
    assert "internal error" not in err and "could not be rendered" not in err, err
    text = r.stdout.decode("ascii")  # nothing but ASCII on these streams
    if fmt == "--markdown":
        assert text.startswith("### torch-envcheck") and any(m in text for m in ("[ok]", "[!]", "[x]"))
        assert not text.lstrip().startswith("{")  # not the JSON fallback
    else:
        assert "torch-envcheck" in text


def test_the_utf8_stdout_keeps_the_symbols():
    r = _run(["--from-json", os.path.join(SNAP_DIR, SNAPS[0]), "--markdown"], {"PYTHONIOENCODING": "utf-8"})
    assert r.returncode in (0, 1) and ("✅" in r.stdout.decode("utf-8") or "⚠️" in r.stdout.decode("utf-8"))


def test_textout_fallback_table():
    from torch_envcheck._util import textout

    assert textout.for_encoding("✅ ok ⚠️ warn ❌ bad → x — y", "ascii") == "[ok] ok [!] warn [x] bad -> x -- y"
    assert textout.for_encoding("中 é", "ascii") == "\\u4e2d \\xe9"
    assert textout.for_encoding("é ✅", "cp1252") == "é [ok]"  # cp1252 has é: kept
