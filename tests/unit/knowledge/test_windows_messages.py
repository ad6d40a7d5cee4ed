"""The Windows loader's messages in other languages decode to the code the English table gives them."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.knowledge import error_codes, windows_messages as wm


def _english() -> dict:
    return {n: c.message for n in wm.LOADER_CODES if (c := error_codes.by_name(n)) is not None and c.message}


@pytest.mark.parametrize("name, text, url", wm.LOCALIZED)
def test_each_localized_rendering_is_a_windows_code_attested_in_public(name, text, url):
    code = error_codes.by_name(name)
    assert code is not None and code.family == "windows", name
    assert re.match(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+$", url), url
    assert wm.loader_code_for(text + "。", _english()) == (name, url)


def test_every_loader_code_has_its_english_message_in_the_table():
    english = _english()
    assert set(english) == set(wm.LOADER_CODES)
    for name, message in english.items():
        assert wm.loader_code_for(message, english) == (name, None)


@pytest.mark.parametrize("text", ["", "ok", "Something else entirely happened here", "模块"])
def test_other_text_is_no_loader_code(text):
    assert wm.loader_code_for(text, _english()) is None


def test_the_placeholder_filled_in_still_matches():
    english = _english()
    assert wm.loader_code_for("C:\\x\\c10.dll is not a valid Win32 application.", english)[0] == "ERROR_BAD_EXE_FORMAT"
    assert wm.loader_code_for("The operating system cannot run C:\\x\\c10.dll.", english)[0] == "ERROR_INVALID_ORDINAL"
