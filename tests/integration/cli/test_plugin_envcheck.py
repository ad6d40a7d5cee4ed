"""The `envcheck` pytest plugin: a header and JUnit XML properties with --envcheck, nothing without."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import torch_envcheck
from torch_envcheck import pytest_plugin
from torch_envcheck.commands.selftest import _plugin_autoloaded

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torch_envcheck.__file__)))

PROJECT_TEST = """\
import sys

def test_plugin_imported_no_torch():
    # With --envcheck the header imported torch; without it nothing may have.
    assert ("torch" in sys.modules) == ("--envcheck" in sys.argv)
"""


def _pytest(tmp_path, *args):
    """Run pytest on a one-test project, with our plugin loaded as an installed package would load it."""
    (tmp_path / "test_project.py").write_text(PROJECT_TEST)
    plugin = [] if _plugin_autoloaded() else ["-p", "torch_envcheck.pytest_plugin"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (PKG_PARENT, os.environ.get("PYTHONPATH")) if p))
    # `python -c` so that sys.argv inside the test is the pytest command line
    cmd = [sys.executable, "-c", "import sys, pytest; sys.exit(pytest.main(sys.argv[1:]))", "-p", "no:cacheprovider",
           *plugin, *args]
    p = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def test_importing_the_plugin_is_cheap():
    code = "import sys, torch_envcheck.pytest_plugin; sys.exit(1 if 'torch' in sys.modules else 0)"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (PKG_PARENT, os.environ.get("PYTHONPATH")) if p))
    assert subprocess.run([sys.executable, "-c", code], env=env, timeout=120).returncode == 0


def test_header_with_envcheck(tmp_path):
    torch = pytest.importorskip("torch")
    rc, out = _pytest(tmp_path, "--envcheck")
    assert rc == 0, out
    lines = [line for line in out.splitlines() if line.startswith("envcheck: ")]
    assert len(lines) == 2, out
    assert f"torch {torch.__version__}" in lines[0]
    assert f"CUDA build {torch.version.cuda or 'none (CPU-only torch)'}" in lines[0]
    assert "CUDA runtime" in lines[0] and "cuDNN" in lines[0]
    if torch.version.cuda and sys.platform.startswith("linux"):
        # read from the libcudart torch loaded, without a driver
        assert re.search(r"CUDA runtime \d+\.\d+,", lines[0]), lines[0]
    assert "NVIDIA driver" in lines[1] and "GPUs:" in lines[1]
    if torch.cuda.is_available():
        assert torch.cuda.get_device_name(0) in lines[1]
    else:
        assert "GPUs: no GPU (" in lines[1]
    # The header comes before the tests run.
    assert out.index("envcheck: ") < out.index("test_project.py")


def test_nothing_without_envcheck(tmp_path):
    rc, out = _pytest(tmp_path, "--junitxml=out.xml")
    assert rc == 0, out  # the project's test checks that torch was not imported
    assert "envcheck:" not in out
    root = ET.parse(tmp_path / "out.xml").getroot()
    assert not [p for p in root.iter("property") if p.get("name", "").startswith("envcheck.")]


def test_junit_xml_properties(tmp_path):
    torch = pytest.importorskip("torch")
    rc, out = _pytest(tmp_path, "--envcheck", "--junitxml=out.xml")
    assert rc == 0, out
    root = ET.parse(tmp_path / "out.xml").getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.find("properties").iter("property")}
    assert props["envcheck.torch"] == torch.__version__
    assert props["envcheck.cuda_build"] == (torch.version.cuda or "none (CPU-only torch)")
    for key in ("envcheck.python", "envcheck.cudnn", "envcheck.driver", "envcheck.driver_cuda",
                "envcheck.cuda_runtime", "envcheck.gpus"):
        assert props.get(key), (key, props)


def test_facts_without_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now fails
    facts = pytest_plugin.environment_facts()
    assert facts["torch"].startswith("not importable (ImportError") or \
        facts["torch"].startswith("not importable (ModuleNotFoundError")
    lines = pytest_plugin.header_lines(facts)
    assert len(lines) == 1 and "torch not importable" in lines[0]


def test_version_decoding():
    assert pytest_plugin._cuda_version(13000) == "13.0"
    assert pytest_plugin._cuda_version(12040) == "12.4"
    assert pytest_plugin._cuda_version(0) is None
    assert pytest_plugin._cudnn_version(92400) == "9.24.0"   # cuDNN 9: major*10000 + minor*100 + patch
    assert pytest_plugin._cudnn_version(8907) == "8.9.7"     # cuDNN 8: major*1000 + minor*100 + patch
    assert pytest_plugin._cudnn_version(None) is None


def test_the_header_escapes_torchs_strings():
    facts = {"python": "3.12.1 (CPython)", "platform": "Linux x86_64", "torch": "2.99.0\x1b]0;pwned\x07",
             "cuda_build": "13.0\x1b[2J", "cudnn": "9.1\r\n", "driver": "580\x9b31m", "driver_cuda": "13.0",
             "cuda_runtime": "13.0", "gpus": "cuda:0 \u202eevil GPU"}
    text = "\n".join(pytest_plugin.header_lines(facts))
    assert not any(c in text for c in "\x1b\x07\r\x9b\u202e") and text.count("\n") == 1
    assert "2.99.0\\x1b]0;pwned\\x07" in text
    broken = {"python": "3.12", "torch": "not importable (ImportError: \x1b[31mred)"}
    assert "\x1b" not in "".join(pytest_plugin.header_lines(broken))


@pytest.mark.parametrize("raw,gib", [("nan", 8.0), ("inf", 8.0), ("-inf", 8.0), ("-2", 8.0), ("0", 8.0),
                                     ("1e9", 8.0), ("two", 8.0), ("", 8.0), ("0.5", 0.5), ("16", 16.0)])
def test_the_gpu_self_tests_allocation_cap_takes_only_a_positive_finite_size(monkeypatch, raw, gib):
    from torch_envcheck.selftest import test_cuda
    monkeypatch.setenv(test_cuda.ENV_ALLOC_CAP, raw)
    assert test_cuda._alloc_cap_bytes() == int(gib * 2**30)
