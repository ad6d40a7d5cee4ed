"""explain's fifty-fifth round, from test56's misses (native Windows): curly quotes straightened before reading, torch's
"Error loading ... or one of its dependencies" without its WinError code, the Microsoft Store's python alias and its
protected folder, [WinError 2] during an extension's build, and a pinned torch older than every release pip offers for
the Python. The texts are written for these tests from the programs' messages, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose, match
from explain_answers import fix_of as _fix


def test_curly_quotes_are_straightened_and_nothing_else_moves():
    assert match.clean("No module named \u2018torch\u2019 in \u201cC:\\x\u201d") == "No module named 'torch' in \"C:\\x\""
    assert match.clean("plain 'text' stays") == "plain 'text' stays"


@pytest.mark.parametrize("text, sig", [
    ('Error loading "C:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
     "windows-dll-dependency-missing"),
    ('Error loading \u201cC:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\u201d or one of its dependencies.',
     "windows-dll-dependency-missing"),
    # a pasting typo in the message's first word, which the catalogue's sentence does not read
    ('Erro loading \u201cC:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\u201d or one of its dependencies.',
     "torch-dll-load-failed"),
])
def test_torchs_dll_message_without_its_code(text, sig):
    r = diagnose.diagnose(text)
    assert r["signature"] == sig and r["layer"] == "windows-runtime"
    assert "Visual C++ Redistributable" in _fix(r)


def test_the_store_alias_answering_for_python():
    r = diagnose.diagnose("PS C:\\proj> python -m venv venv\nPython was not found; run without arguments to install from "
                          "the Microsoft Store, or disable this shortcut from Settings > Manage App Execution Aliases.")
    assert r["signature"] == "store-python-alias" and r["layer"] == "env"
    assert "Add python.exe to PATH" in _fix(r) and "App execution aliases" in _fix(r)


def test_pip_refused_in_the_store_pythons_folder():
    r = diagnose.diagnose("ERROR: Could not install packages due to an OSError: [WinError 5] Access is denied: "
                          "'C:\\\\Program Files\\\\WindowsApps\\\\PythonSoftwareFoundation.Python.3.12_3.12.2032.0_x64__"
                          "qbz5n2kfra8p0\\\\Lib\\\\site-packages\\\\x.dll'")
    assert r["signature"] == "store-python-protected-folder" and r["layer"] == "env"
    assert "python -m venv .venv" in _fix(r) and "3.12" in r["title"]


def test_winerror_2_while_building_an_extension():
    r = diagnose.diagnose("running build_ext\nerror: [WinError 2] The system cannot find the file specified")
    assert r["signature"] == "windows-build-tool-not-started" and r["layer"] == "toolchain"
    assert "where cl" in _fix(r) and "ninja" in _fix(r)


def test_winerror_2_outside_a_build_is_not_read_as_one():
    r = diagnose.diagnose("FileNotFoundError: [WinError 2] The system cannot find the file specified: 'data\\\\train.csv'")
    assert r is None or r["signature"] != "windows-build-tool-not-started"


def test_a_pin_older_than_every_release_offered_names_the_python():
    r = diagnose.diagnose("Python 3.11.8 (tags/v3.11.8:db85d51, Feb  6 2024) [MSC v.1937 64 bit (AMD64)]\n"
                          "ERROR: Could not find a version that satisfies the requirement torch==1.12.1 (from "
                          "versions: 2.0.0, 2.0.1, 2.1.0, 2.2.1)\nERROR: No matching distribution found for torch==1.12.1")
    assert r["signature"] == "torch-version-not-offered"
    assert "Python 3.10 or older" in _fix(r) and "torch>=2.0.0" in _fix(r)


def test_a_pin_newer_than_what_is_offered_does_not_blame_the_python():
    r = diagnose.diagnose("ERROR: Could not find a version that satisfies the requirement torch==2.9.0 (from versions: "
                          "2.0.0, 2.0.1, 2.1.0)\nERROR: No matching distribution found for torch==2.9.0")
    assert r is None or "or older" not in _fix(r)
