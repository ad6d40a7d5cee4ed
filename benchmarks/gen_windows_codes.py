"""Maintainers' helper of gen_error_tables.py (not shipped): the `windows` table of error_codes.json, read from the
Windows SDK's message-compiler headers winerror.h (Win32 error codes) and ntstatus.h (NTSTATUS), with the few notes
that say what a code means for torch users merged on top.

The SDK's headers are not on a Linux machine: the maintainer gives a folder that holds them (--windows-include),
e.g. a checkout of https://github.com/tpn/winsdk-10 at Include/10.0.10240.0/shared, and the commit it was read at.
Without it the shipped table is kept as it is.

Both headers are written by mc.exe: each code is a comment block

    //
    // MessageId: ERROR_MOD_NOT_FOUND
    //
    // MessageText:
    //
    // The specified module could not be found.
    //
    #define ERROR_MOD_NOT_FOUND              126L

(ntstatus.h: `#define STATUS_DLL_NOT_FOUND ((NTSTATUS)0xC0000135L)`), optionally with a SymbolicName line that
names the #define when it differs from the MessageId."""

from __future__ import annotations

import os
import re

REPO = "https://github.com/tpn/winsdk-10"
SDK_DIR = "Include/10.0.10240.0/shared"
HEADERS = ("winerror.h", "ntstatus.h")

# What is shipped (the full headers hold ~6100 + ~2400 codes, most of them of Windows' own services, and make the
# table several MB): every Win32 code below 16000 that winerror.h declares as a plain number (the HRESULTs above it
# are COM's), and the NTSTATUS codes of the loader / memory / file / DLL ranges an import or a crash reports:
# errors 0xC0000000-0xC00002FF and warnings 0x80000000-0x800000FF, plus every code NOTES speaks of.  The rule is
# repeated in the table's `about`.
WIN32_MAX = 16000
NTSTATUS_RANGES = ((0xC0000000, 0xC00002FF), (0x80000000, 0x800000FF))
RULE = ("Win32 error codes 0-15999 (winerror.h's plain numbers; the HRESULTs above are left out) and the NTSTATUS "
        "codes 0xC0000000-0xC00002FF (errors) and 0x80000000-0x800000FF (warnings) of ntstatus.h: the loader, memory, "
        "file and DLL codes an import or a crash reports, plus the codes with a note (STATUS_STACK_BUFFER_OVERRUN). Every "
        "code of those ranges the headers declare is here.")

_WIN32_DOC = "https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499-"
_WIN32_DOC_1000 = "https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--1000-1299-"
_LOAD_LIBRARY = "https://learn.microsoft.com/en-us/windows/win32/api/libloaderapi/nf-libloaderapi-loadlibraryexw"
_DLL_SEARCH = "https://learn.microsoft.com/en-us/windows/win32/dlls/dynamic-link-library-search-order"
_PAGE_FILE = "https://docs.microsoft.com/en-us/windows/client-management/introduction-page-file"
_NTSTATUS_DOC = ("https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/"
                 "596a1078-e883-4972-9bbc-49e60bebca55")
_LONG_PATHS = "https://learn.microsoft.com/en-us/windows/win32/fileio/maximum-file-path-limitation"

# The hand-made part: the layer explain gives a code, and what it means when torch (or a DLL it loads) reports it.
# Every other code gets DEFAULT_LAYER, the layer explain already gave a WinError it could not name.
DEFAULT_LAYER = "windows-runtime"
NOTES = {
    "ERROR_SUCCESS": ("none", None, None),
    "ERROR_FILE_NOT_FOUND": ("env", "A file the call names is missing (or a tool a build runs is not on PATH).",
                             _WIN32_DOC),
    "ERROR_PATH_NOT_FOUND": ("env", "A folder of the path is missing.", _WIN32_DOC),
    "ERROR_ACCESS_DENIED": ("env", "The file is locked by another process or the user may not write there.",
                            _WIN32_DOC),
    "ERROR_MOD_NOT_FOUND": ("windows-runtime", "LoadLibrary could not find the DLL named or one of the DLLs it depends "
                            "on (often the Visual C++ runtime or a CUDA DLL): the message names the first DLL, not the "
                            "missing dependency.", _LOAD_LIBRARY),
    "ERROR_PROC_NOT_FOUND": ("windows-runtime", "A DLL was loaded but lacks a function another DLL imports: a DLL of "
                             "another version, found earlier in the search order, shadows the right one.",
                             _DLL_SEARCH),
    "ERROR_BAD_EXE_FORMAT": ("windows-runtime", "A DLL of the other bitness (32-bit in a 64-bit Python) or a damaged "
                             "file.", _WIN32_DOC),
    "ERROR_FILENAME_EXCED_RANGE": ("env", "A path longer than MAX_PATH (260) while long paths are not enabled.",
                                   _LONG_PATHS),
    "ERROR_DLL_INIT_FAILED": ("windows-runtime", "A DLL's DllMain failed (c10.dll, torch_cpu.dll): usually a missing "
                              "or old Visual C++ runtime, or a dependency that failed in turn.", _WIN32_DOC_1000),
    "ERROR_COMMITMENT_LIMIT": ("windows-runtime", "Windows' paging file is too small for the memory the DLLs commit "
                               "(torch's CUDA DLLs commit GBs; every DataLoader worker maps them again).", _PAGE_FILE),
    "STATUS_ACCESS_VIOLATION": ("not-environment", "A crash of the program or a library (a bad pointer), not of the "
                                "installation.", _NTSTATUS_DOC),
    "STATUS_ILLEGAL_INSTRUCTION": ("env", "The CPU lacks an instruction the binary uses (AVX / AVX2 builds on an old "
                                   "CPU).", _NTSTATUS_DOC),
    "STATUS_INVALID_IMAGE_FORMAT": ("windows-runtime", "A DLL of the other bitness or a damaged DLL.", _NTSTATUS_DOC),
    "STATUS_STACK_OVERFLOW": ("not-environment", "Deep recursion in the program.", _NTSTATUS_DOC),
    "STATUS_DLL_NOT_FOUND": ("windows-runtime", "The process could not start: a DLL it imports (or one of theirs) is "
                             "missing.", _NTSTATUS_DOC),
    "STATUS_ORDINAL_NOT_FOUND": ("windows-runtime", "A DLL of another version shadows the right one.", _NTSTATUS_DOC),
    "STATUS_ENTRYPOINT_NOT_FOUND": ("windows-runtime", "A DLL of another version shadows the right one (its "
                                    "procedure is missing).", _NTSTATUS_DOC),
    "STATUS_DLL_INIT_FAILED": ("windows-runtime", "A DLL's initialisation failed; the process stops.", _NTSTATUS_DOC),
    "STATUS_STACK_BUFFER_OVERRUN": ("not-environment", "A fail-fast crash of the program (/GS check or abort()).",
                                    _NTSTATUS_DOC),
}

_MESSAGE_ID = re.compile(r"^//\s*MessageId:\s*(\w+)\s*$")
_SYMBOLIC = re.compile(r"^//\s*SymbolicName:\s*(\w+)\s*$")
_DEFINE = re.compile(r"^#define\s+(\w+)\s+(.*)$")
# the number inside `126L`, `((NTSTATUS)0xC0000135L)`, `_HRESULT_TYPEDEF_(0x80004005L)`
_NUMBER = re.compile(r"(?<![\w])(0[xX][0-9A-Fa-f]+|\d+)[uUlL]*\)*\s*(?://.*)?$")


def parse_mc(text: str) -> list:
    """Every code of an mc.exe header, in order: {"name", "value", "message"} (message: the MessageText, its lines
    joined by spaces; None where the block has none).  A block whose #define does not follow is dropped."""
    rows, block = [], None
    for raw in text.splitlines():
        line = raw.strip()
        m = _MESSAGE_ID.match(line)
        if m:
            block = {"name": m.group(1), "text": None}
            continue
        if block is None:
            continue
        m = _SYMBOLIC.match(line)
        if m:
            block["name"] = m.group(1)
            continue
        if re.match(r"^//\s*MessageText:\s*$", line):
            block["text"] = []
            continue
        if line.startswith("//"):
            if block["text"] is not None:
                words = line[2:].strip()
                if words:
                    block["text"].append(words)
            continue
        m = _DEFINE.match(line)
        if m:
            if m.group(1) == block["name"]:
                num = _NUMBER.search(m.group(2).strip())
                if num:
                    rows.append({"name": block["name"], "value": int(num.group(1), 0),
                                 "message": " ".join(block["text"]) if block["text"] else None})
            block = None
        elif line:
            block = None  # code between the comment and the #define: not an MC block
    return rows


def _shipped(header: str, value: int) -> bool:
    if header == "winerror.h":
        return 0 <= value < WIN32_MAX
    return any(lo <= value <= hi for lo, hi in NTSTATUS_RANGES)


def windows_table(include_dir: str, commit: str) -> tuple:
    """(table, None), or (None, why) when the headers are not in include_dir."""
    rows, seen = [], set()
    for header in HEADERS:
        path = os.path.join(include_dir, header)
        if not os.path.isfile(path):
            return None, f"{header}: not in --windows-include (the Windows SDK's Include/<version>/shared)"
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        url = f"{REPO}/blob/{commit}/{SDK_DIR}/{header}"
        for r in parse_mc(text):
            if not (_shipped(header, r["value"]) or r["name"] in NOTES) or (r["name"], r["value"]) in seen:
                continue
            seen.add((r["name"], r["value"]))
            layer, note, note_url = NOTES.get(r["name"], (DEFAULT_LAYER, None, None))
            row = {"name": r["name"], "value": r["value"], "layer": layer, "description": _first_sentence(r["message"]),
                   "message": r["message"]}
            if header != HEADERS[0]:
                row["url"] = url
            if note:
                row["note"], row["note_source"] = note, note_url
            rows.append(row)
    missing = set(NOTES) - {r["name"] for r in rows}
    if missing:
        return None, f"the headers lack the noted codes {sorted(missing)}"
    table = {"enum": "windows", "library": "Windows (Win32 error codes and NTSTATUS)", "header": ", ".join(HEADERS),
             "about": RULE,
             "source": {"repository": REPO, "path": ", ".join(f"{SDK_DIR}/{h}" for h in HEADERS), "commit": commit,
                        "url": f"{REPO}/blob/{commit}/{SDK_DIR}/{HEADERS[0]}"},
             "codes": sorted(rows, key=lambda r: r["value"])}
    return table, None


def _first_sentence(text: str | None) -> str | None:
    if not text:
        return None
    m = re.match(r"(.+?[.!?])(?:\s|$)", text)
    return m.group(1) if m else text
