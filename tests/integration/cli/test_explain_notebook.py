"""The Jupyter extension in a real kernel (nbclient + ipykernel): `%load_ext torch_envcheck` adds the
explanation under an environment error and leaves other exceptions exactly as IPython shows them;
`%envcheck` returns the doctor's report as text/html.  Plus the HTML's escaping, in-process."""

from __future__ import annotations

import json
from html import escape
import os

import pytest
from _explain_helpers import PKG_PARENT, snapshot

from torch_envcheck import doctor, notebook
from torch_envcheck.facts.snapshot import load

DRIVER = 'raise RuntimeError("The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver")'


def _execute(cells: list, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbformat (pip install .[test])")
    nbclient = pytest.importorskip("nbclient", reason="the notebook test needs nbclient (pip install .[test])")
    pytest.importorskip("ipykernel", reason="the notebook test needs ipykernel (pip install .[test])")
    # The kernel is a child of this process: it must import this checkout's torch_envcheck, and
    # neither the user's IPython profile nor Jupyter's runtime folder may play a part.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (PKG_PARENT, os.environ.get("PYTHONPATH")) if p))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbclient.NotebookClient(nb, timeout=60, startup_timeout=60, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    return [c.outputs for c in nb.cells]


def _errors(outputs) -> list:
    return [(o["ename"], o["evalue"], o["traceback"]) for o in outputs if o["output_type"] == "error"]


def test_extension_in_a_real_kernel(tmp_path, monkeypatch):
    report_file = snapshot("old_driver_535_cu130.json")
    common = [DRIVER, 'raise ValueError("x must be positive")', 'import torch_envcheck, sys; print(torch_envcheck.__file__)']
    with_ext = _execute(["%load_ext torch_envcheck", *common, f"%envcheck --from-json {report_file}"], tmp_path, monkeypatch)
    # The same cells without the extension ("pass" keeps the execution counts, which tracebacks show, aligned)
    without = _execute(["pass", *common], tmp_path, monkeypatch)

    # this checkout's package was imported in the kernel
    assert os.path.dirname(os.path.dirname(with_ext[3][0]["text"].strip())) == PKG_PARENT

    # the environment error: IPython's own traceback first, unchanged, then the explanation
    driver = with_ext[1]
    assert driver[0]["output_type"] == "error" and _errors(driver) == _errors(without[1])
    shown = [o for o in driver if o["output_type"] == "display_data"]
    assert len(shown) == 1 and driver.index(shown[0]) > 0
    assert "driver-too-old" in shown[0]["data"]["text/plain"] and "CUDA up to 11.4" in shown[0]["data"]["text/plain"]
    assert "driver-too-old" in shown[0]["data"]["text/html"] and "%envcheck" in shown[0]["data"]["text/html"]

    # an ordinary exception: exactly what IPython shows without the extension, nothing added
    assert with_ext[2] == without[2] and [o["output_type"] for o in with_ext[2]] == ["error"]

    # %envcheck: the doctor's report as HTML
    result = [o for o in with_ext[4] if o["output_type"] == "execute_result"]
    assert len(result) == 1 and "text/html" in result[0]["data"]
    expected = doctor.report(load(report_file))
    te302 = next(f for f in expected["findings"] if f["code"] == "TE302")
    html = result[0]["data"]["text/html"]
    assert "TE302" in html and escape(te302["message"]) in html


def test_report_html_escapes_every_value(tmp_path):
    data = json.loads(open(snapshot("old_driver_535_cu130.json"), encoding="utf-8").read())
    evil = "<script>alert(1)</script>\"'&"
    for gpu in (data.get("driver") or {}).get("gpus") or []:
        gpu["name"] = evil
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(data))
    html = notebook.report_html(doctor.report(load(str(path))))
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_explanation_only_for_environment_errors():
    assert notebook.explanation_for(RuntimeError("The NVIDIA driver on your system is too old (found version 11040)"))
    assert notebook.explanation_for(ValueError("x must be positive")) is None
    # a known error that is not an environment problem stays IPython's alone
    assert notebook.explanation_for(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")) is None


def test_the_cause_chain_is_read():
    try:
        try:
            raise OSError("libcudnn.so.9: cannot open shared object file: No such file or directory")
        except OSError as inner:
            raise RuntimeError("could not load the model") from inner
    except RuntimeError as outer:
        assert notebook.explanation_for(outer)["signature"] == "cudnn-library-missing"


def test_handler_shows_the_traceback_first_and_survives_a_broken_exception(monkeypatch):
    calls = []

    class Shell:
        def showtraceback(self, exc_tuple=None, tb_offset=None, running_compiled_code=False):
            calls.append(("traceback", exc_tuple[0], running_compiled_code))

    monkeypatch.setattr(notebook, "_display", lambda result: calls.append(("explanation", result["signature"])))
    exc = RuntimeError("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU")
    assert notebook._handler(Shell(), RuntimeError, exc, None) is None
    assert calls == [("traceback", RuntimeError, True), ("explanation", "no-nvidia-driver")]

    class Broken(RuntimeError):
        def __str__(self):
            raise ValueError("broken __str__")

    calls.clear()
    notebook._handler(Shell(), Broken, Broken(), None)
    assert calls == [("traceback", Broken, True)]


def test_import_torch_envcheck_stays_light():
    import subprocess
    import sys

    from _explain_helpers import child_env
    code = ("import sys, torch_envcheck; assert callable(torch_envcheck.load_ipython_extension); "
            "heavy = [m for m in ('torch', 'IPython', 'torch_envcheck.notebook', 'torch_envcheck.explain') if m in sys.modules]; "
            "sys.exit(repr(heavy) if heavy else 0)")
    p = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr


def test_envcheck_magic_in_process(capsys):
    rep = notebook.envcheck(f"--from-json {snapshot('old_driver_535_cu130.json')}")
    assert "TE302" in repr(rep) and "TE302" in rep._repr_html_()
    for bad in ("--bogus", "--timeout nope", f"--from-json {snapshot('no-such.json')}", "--json", "-v --from-json x"):
        assert notebook.envcheck(bad) is None
        out = capsys.readouterr().out
        assert out.startswith("%envcheck: ") and len(out.strip().splitlines()) == 1, out
