"""The `windows` table of error_codes.json: the mc.exe-header parser (gen_windows_codes.parse_mc) on a header written
here, the shipped table against the Windows SDK's winerror.h / ntstatus.h when TE_WINDOWS_SDK_INCLUDE names a folder
holding them, and explain's decoding of the loader codes by the symbolic names those headers declare (read in
tpn/winsdk-10, Include/10.0.10240.0/shared, commit 9b69fd26ac0c7d0b83d378dba01080e93349c2ed)."""

from __future__ import annotations

import json
import os

import gen_windows_codes as gw
import pytest

from torch_envcheck.explain import extract
from torch_envcheck.knowledge import error_codes

with open(error_codes.FILE, encoding="utf-8") as _fh:
    SHIPPED = json.load(_fh)["tables"]["windows"]

_HEADER = """\
//
//  Values are 32 bit values laid out as follows:
//
#define FACILITY_NULL                    0

//
// MessageId: ERROR_ONE
//
// MessageText:
//
// First line of the text.
// Second line.
//
#define ERROR_ONE                        1L

//
// MessageId: ERROR_TWO
//
// MessageText:
//
// Two.
//
#define ERROR_TWO                        42L    // dderror

//
// MessageId: 0x8004D100L (No symbolic name defined)
//
// MessageText:
//
// A block with no #define: dropped.
//


//
// MessageId: STATUS_THING
//
// MessageText:
//
// {Thing} %hs went wrong.
//
#define STATUS_THING                     ((NTSTATUS)0xC0000135L)    // winnt

//
// MessageId: E_WRAPPED
//
// SymbolicName: E_RENAMED
//
// MessageText:
//
// Renamed.
//
#define E_RENAMED                        _HRESULT_TYPEDEF_(0x80004005L)

//
// MessageId: ERROR_NO_TEXT
//
#define ERROR_NO_TEXT                    7L

//
// MessageId: ERROR_ELSEWHERE
//
// MessageText:
//
// Its define is another name's.
//
#define ERROR_SOMETHING_ELSE             9L
"""


def test_parse_mc_reads_every_block_of_a_header_written_here():
    rows = gw.parse_mc(_HEADER.replace("\n", "\r\n"))  # the SDK's headers have CRLF line ends
    assert [(r["name"], r["value"]) for r in rows] == [("ERROR_ONE", 1), ("ERROR_TWO", 42),
                                                       ("STATUS_THING", 0xC0000135), ("E_RENAMED", 0x80004005),
                                                       ("ERROR_NO_TEXT", 7)]
    assert rows[0]["message"] == "First line of the text. Second line."
    assert rows[1]["message"] == "Two."
    assert rows[2]["message"] == "{Thing} %hs went wrong."
    assert rows[3]["message"] == "Renamed."
    assert rows[4]["message"] is None


def test_windows_table_keeps_the_stated_ranges_and_merges_the_notes(tmp_path):
    (tmp_path / "winerror.h").write_text(_HEADER + "".join(
        f"//\n// MessageId: {n}\n//\n// MessageText:\n//\n// Text of {n}.\n//\n#define {n} {v}L\n\n"
        for n, v in (("ERROR_BIG", 16000), ("ERROR_MOD_NOT_FOUND", 126))), encoding="utf-8")
    (tmp_path / "ntstatus.h").write_text("".join(
        f"//\n// MessageId: {n}\n//\n// MessageText:\n//\n// Text of {n}.\n//\n#define {n} ((NTSTATUS){v}L)\n\n"
        for n, v in (("STATUS_IN", "0xC00002FF"), ("STATUS_OUT", "0xC0000300"), ("STATUS_WARN", "0x80000005"),
                     ("STATUS_SUCCESS_LIKE", "0x00000001"))), encoding="utf-8")
    table, why = gw.windows_table(str(tmp_path), "0" * 40)
    # the headers written here lack most noted codes: the generator refuses rather than ship a table without them
    assert table is None and "STATUS_DLL_NOT_FOUND" in why
    saved = gw.NOTES
    try:
        gw.NOTES = {"ERROR_MOD_NOT_FOUND": saved["ERROR_MOD_NOT_FOUND"]}
        table, why = gw.windows_table(str(tmp_path), "0" * 40)
    finally:
        gw.NOTES = saved
    assert why is None
    rows = {c["name"]: c for c in table["codes"]}
    # winerror.h's codes of 16000 and above (ERROR_BIG, the HRESULT E_RENAMED, STATUS_THING) and ntstatus.h's outside
    # the ranges (STATUS_OUT, a success code) are left out
    assert set(rows) == {"ERROR_ONE", "ERROR_TWO", "ERROR_NO_TEXT", "ERROR_MOD_NOT_FOUND", "STATUS_IN", "STATUS_WARN"}
    assert [c["value"] for c in table["codes"]] == [1, 7, 42, 126, 0x80000005, 0xC00002FF]
    assert rows["ERROR_MOD_NOT_FOUND"]["layer"] == "windows-runtime" and rows["ERROR_MOD_NOT_FOUND"]["note"]
    assert rows["ERROR_MOD_NOT_FOUND"]["note_source"].startswith("https://learn.microsoft.com/")
    assert rows["ERROR_ONE"]["layer"] == gw.DEFAULT_LAYER and "note" not in rows["ERROR_ONE"]
    assert rows["ERROR_ONE"]["description"] == "First line of the text."
    assert rows["STATUS_IN"]["url"].endswith("/ntstatus.h") and "url" not in rows["ERROR_ONE"]
    assert table["source"]["commit"] == "0" * 40


def test_shipped_table_is_the_sdk_headers_generated():
    include = os.environ.get("TE_WINDOWS_SDK_INCLUDE")
    if not include:
        pytest.skip("TE_WINDOWS_SDK_INCLUDE unset: a folder holding the Windows SDK's winerror.h and ntstatus.h "
                    "(tpn/winsdk-10, Include/10.0.10240.0/shared) is needed to regenerate the windows table")
    fresh, why = gw.windows_table(include, SHIPPED["source"]["commit"])
    assert why is None, why
    assert fresh == SHIPPED


def test_shipped_table_cites_the_headers_and_notes_their_sources():
    src = SHIPPED["source"]
    assert src["repository"] == gw.REPO and len(src["commit"]) == 40
    assert src["path"] == "Include/10.0.10240.0/shared/winerror.h, Include/10.0.10240.0/shared/ntstatus.h"
    assert "0xC0000000-0xC00002FF" in SHIPPED["about"]
    noted = [c for c in SHIPPED["codes"] if "note" in c]
    assert {c["name"] for c in noted} == set(gw.NOTES) - {"ERROR_SUCCESS"}
    assert all(c["note_source"].startswith(("https://learn.microsoft.com/", "https://docs.microsoft.com/"))
               for c in noted)
    # the stated rule: every Win32 code is below 16000, every NTSTATUS one in the ranges or noted
    for c in SHIPPED["codes"]:
        v = c["value"]
        assert v < gw.WIN32_MAX or any(lo <= v <= hi for lo, hi in gw.NTSTATUS_RANGES) or c["name"] in gw.NOTES


# (text, the symbolic name winerror.h / ntstatus.h declare for the code in it)
LOADER = [
    ("OSError: [WinError 126] The specified module could not be found.", "ERROR_MOD_NOT_FOUND", 126),
    ("OSError: [WinError 127] The specified procedure could not be found.", "ERROR_PROC_NOT_FOUND", 127),
    ("ImportError: DLL load failed while importing _C: [WinError 193] %1 is not a valid Win32 application.",
     "ERROR_BAD_EXE_FORMAT", 193),
    ("OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed.", "ERROR_DLL_INIT_FAILED",
     1114),
    ("OSError: [WinError 1455] The paging file is too small for this operation to complete.",
     "ERROR_COMMITMENT_LIMIT", 1455),
    ("Process finished with exit code -1073741515 (0xC0000135)", "STATUS_DLL_NOT_FOUND", 0xC0000135),
    ("Process finished with exit code -1073741511 (0xC0000139)", "STATUS_ENTRYPOINT_NOT_FOUND", 0xC0000139),
    ("error: process didn't exit successfully (exit code: 0xc000007b)", "STATUS_INVALID_IMAGE_FORMAT", 0xC000007B),
    # codes the former hand table did not know, now named
    ("PermissionError: [WinError 32] The process cannot access the file", "ERROR_SHARING_VIOLATION", 32),
    ("OSError: [WinError 1224] The requested operation cannot be performed on a file with a user-mapped section open",
     "ERROR_USER_MAPPED_FILE", 1224),
    ("Process finished with exit code -1073741801 (0xC0000017)", "STATUS_NO_MEMORY", 0xC0000017),
]


@pytest.mark.parametrize("text,name,value", LOADER, ids=[n for _t, n, _v in LOADER])
def test_explain_decodes_the_loader_codes_by_their_header_names(text, name, value):
    assert error_codes.by_value("windows", value).name == name
    codes = [(c["family"], c["name"], c["value"]) for c in extract.entities(text).codes]
    assert ("windows", name, value) in codes
