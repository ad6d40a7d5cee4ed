"""explain's sixth round: mechanisms read from the structure of an error (a path's length against Windows' limit, ...),
each tested on texts written here from the documented format of the message, never copied from the corpus.  The
oracle is what the format means (a path of 260 characters or more is past MAX_PATH), written before the code ran."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose


@pytest.mark.parametrize("msg", [
    "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: '{p}'",
    "FileNotFoundError: [Errno 2] No such file or directory: '{p}'",
    "OSError: [WinError 3] The system cannot find the path specified: '{p}'",
])
def test_a_file_past_max_path_is_windows_long_paths_not_a_missing_file(msg):
    path = "C:\\\\Users\\\\me\\\\AppData\\\\Local\\\\Temp\\\\" + "\\\\".join(["a_rather_long_folder_name"] * 12) + "\\\\x.h"
    assert len(path.replace("\\\\", "\\")) >= 260
    r = diagnose.diagnose(msg.format(p=path))
    assert r["layer"] == "windows-runtime" and r["environment_problem"], r
    assert "LongPathsEnabled" in r["fix"] and "shorter path" in r["fix"]


def test_winerror_206_is_the_path_limit_whatever_the_length_shown():
    r = diagnose.diagnose("ERROR: Could not install packages due to an OSError: [WinError 206] The filename or "
                          "extension is too long: 'C:\\\\envs\\\\x\\\\Lib\\\\site-packages\\\\pkg-1.0.dist-info\\\\licenses'")
    assert r["layer"] == "windows-runtime" and "LongPathsEnabled" in r["fix"]


def test_a_short_missing_path_is_not_called_a_long_path():
    # 259 characters and below fit in MAX_PATH with its terminating NUL: a missing file, whatever else it is
    path = "C:\\\\data\\\\" + "d" * 60 + "\\\\model.bin"
    r = diagnose.diagnose(f"FileNotFoundError: [Errno 2] No such file or directory: '{path}'")
    assert "LongPathsEnabled" not in (r.get("fix") or "") and r["layer"] != "windows-runtime"
