"""explain's thirty-eighth round, from test38's misses (the Python interpreter under the stack): standard-library
modules removed by Python 3.12 and 3.13 (PEP 632, PEP 594), Debian's separate distutils before 3.12, and an interpreter
built without the C library a module needs. The texts are written for these tests from CPython's messages and the
PEPs, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.explain.layer_rules.interpreter import REMOVED
from explain_answers import fix_of as _fix


def test_the_removed_modules_carry_their_release():
    assert REMOVED["distutils"] == "3.12" and REMOVED["audioop"] == "3.13" and "os" not in REMOVED


def test_distutils_on_python_3_12_is_setuptools():
    r = diagnose.diagnose("  File \"/home/u/.venv/lib/python3.12/site-packages/mypkg/setup_helpers.py\", line 3, in "
                          "<module>\n    from distutils.version import LooseVersion\nModuleNotFoundError: No module "
                          "named 'distutils'")
    assert r["signature"] == "stdlib-module-removed" and r["layer"] == "toolchain", r
    assert "pip install setuptools" in _fix(r), _fix(r)


def test_distutils_missing_on_python_3_10_is_debians_split_package():
    r = diagnose.diagnose("  File \"/usr/lib/python3.10/site-packages/x.py\", line 1\nModuleNotFoundError: No module "
                          "named 'distutils.util'")
    assert r["signature"] == "distutils-package-missing" and "python3-distutils" in _fix(r), r


def test_a_dead_battery_on_3_13_names_the_backports():
    r = diagnose.diagnose("Python 3.13.1\n  File \"/opt/venv/lib/python3.13/site-packages/audioread/rawread.py\", line 16"
                          "\nModuleNotFoundError: No module named 'aifc'")
    assert r["signature"] == "stdlib-module-removed" and "3.13" in r["title"] and "standard-aifc" in _fix(r), r


@pytest.mark.parametrize("mod, deb", [("_lzma", "liblzma-dev"), ("_ctypes", "libffi-dev"), ("_bz2", "libbz2-dev")])
def test_an_interpreter_without_a_c_module_is_rebuilt(mod, deb):
    r = diagnose.diagnose(f"  File \"/home/u/.pyenv/versions/3.11.9/lib/python3.11/lzma.py\", line 27\n"
                          f"ModuleNotFoundError: No module named '{mod}'")
    assert r["signature"] == "interpreter-without-module" and r["layer"] == "env", r
    assert deb in _fix(r) and "pyenv install --force" in _fix(r), _fix(r)


def test_an_ordinary_missing_module_is_not_the_interpreter():
    r = diagnose.diagnose("ModuleNotFoundError: No module named 'transformers'")
    assert r is None or r["signature"] not in ("stdlib-module-removed", "interpreter-without-module"), r
