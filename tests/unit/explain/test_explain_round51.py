"""explain's fifty-first round, from test52's misses (saving and loading models): safetensors' header errors and
torch.hub's pre-1.6 zip refusal in the model-file table, a pickled model whose project module is not importable,
torch.save's write refused by the OS, and torch's shared-memory file that cannot grow. The texts are written for these
tests from the libraries' messages, not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import serialization
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get) install\b|\breinstall\b")
_LOAD = ('Traceback (most recent call last):\n  File "infer.py", line 4, in <module>\n    m = torch.load("ckpt.pth")\n'
         '  File "/venv/lib/python3.10/site-packages/torch/serialization.py", line 1025, in load\n'
         '    return _load(opened_zipfile, map_location, pickle_module, **pickle_load_args)\n'
         '  File "/venv/lib/python3.10/site-packages/torch/serialization.py", line 1446, in _load\n'
         '    result = unpickler.load()\n')


@pytest.mark.parametrize("message", ["HeaderTooLarge", "header too large", "MetadataIncompleteBuffer"])
def test_safetensors_header_errors_are_the_file(message):
    r = diagnose.diagnose("safetensors_rust.SafetensorError: Error while deserializing header: " + message)
    assert r["signature"] == "torch-file-not-a-torch-archive" and r["environment_problem"] is False
    assert "git lfs pull" in _fix(r) and not _INSTALL.search(_fix(r))


def test_the_pre_1_6_hub_loader_refusing_a_zip_checkpoint():
    r = diagnose.diagnose("    ckpt = model_zoo.load_url(url)\nRuntimeError: Only one file(not dir) is allowed in the zipfile")
    assert r["signature"] == "torch-file-written-by-newer-torch" and r["layer"] == "torch-build"
    assert "1.6" in _fix(r)
    assert serialization.reading("Only one file(not dir) is allowed in the zipfile")["kind"] == "reader-older"


@pytest.mark.parametrize("tail, module", [
    ("ModuleNotFoundError: No module named 'models'", "models"),
    ("ModuleNotFoundError: No module named 'networks.classifiers'", "networks.classifiers"),
    ("AttributeError: Can't get attribute 'Net' on <module '__main__' from 'serve.py'>", "__main__"),
])
def test_a_pickled_models_project_module(tail, module):
    r = diagnose.diagnose(_LOAD + tail)
    assert r["signature"] == "pickled-model-module-missing" and r["layer"] == "not-environment", r
    assert f"import {module}" in _fix(r) and "state_dict" in _fix(r) and not _INSTALL.search(_fix(r))


@pytest.mark.parametrize("tail", ["ModuleNotFoundError: No module named 'numpy._core'",
                                  "ModuleNotFoundError: No module named 'sklearn'"])
def test_a_librarys_module_is_not_the_programs_path(tail):
    r = diagnose.diagnose(_LOAD + tail)
    assert r is None or r["signature"] != "pickled-model-module-missing"


def test_a_missing_module_outside_torch_load_is_not_this_rule():
    r = diagnose.diagnose("  File \"app.py\", line 1, in <module>\n    import models\nModuleNotFoundError: No module named 'models'")
    assert r is None or r["signature"] != "pickled-model-module-missing"


@pytest.mark.parametrize("error", ["RuntimeError: write(): fd 29 failed with Input/output error",
                                   "RuntimeError: [enforce fail at inline_container.cc:595] . PytorchStreamWriter failed "
                                   "writing file data/12: file write failed"])
def test_torch_save_refused_by_the_os_is_the_storage(error):
    r = diagnose.diagnose('    torch.save(model.state_dict(), "best.pt")\n  File "/venv/lib/python3.10/site-packages/torch/'
                          'serialization.py", line 628, in save\n    _save(obj, opened_zipfile)\n' + error)
    assert r["signature"] == "torch-save-write-failed" and r["environment_problem"] is False
    assert "df -h" in _fix(r) and not _INSTALL.search(_fix(r))


def test_torchs_shared_memory_file_that_cannot_grow():
    r = diagnose.diagnose("RuntimeError: unable to write to file </torch_5845_4138295531>")
    assert r["signature"] == "shared-memory-too-small" and r["layer"] == "container"


def test_another_programs_unable_to_write_is_not_shared_memory():
    r = diagnose.diagnose("Error: unable to write to file </home/me/out.txt>")
    assert r is None or r["signature"] != "shared-memory-too-small"
