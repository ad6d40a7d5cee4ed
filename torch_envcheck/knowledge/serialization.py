"""What torch's model-file readers say when they cannot read a file, and what each message means.

A pure table (no I/O).  torch.load, torch.jit.load, torch.hub's loader, LibTorch's torch::jit::load / torch::load and
safetensors each refuse a file in their own words; the words say whether the file was written by a newer torch than the reader (upgrade the reader, or
save the file again with the older torch), was given to the wrong loader (a program change), or is not a torch file at
all (the file).  The file-format version check with numbers is read by explain's own rule.

    reading(text) -> {"kind", "what", "fix", "source", "at"} | None     the last message of the table in `text`

Rows cite the torch source that raises the message, at a release that has it."""

from __future__ import annotations

import re

_RELEASE_1_6 = "https://github.com/pytorch/pytorch/releases/tag/v1.6.0"

# (pattern, kind, what the message means, fix, source); kinds: "reader-older", "wrong-loader", "not-a-file"
_ROWS = (
    (r"is a zip archive \(did you mean to use torch\.jit\.load\(\)\?\)", "reader-older",
     "torch.save writes a zip archive from torch 1.6 on; torch.load of 1.5 and older reads only the legacy format and "
     "stops at a zip file (saying it looks like TorchScript)",
     "Load it with torch 1.6 or newer (pip install --upgrade torch, in its CUDA or CPU build), or save it again where it "
     "was made with torch.save(obj, path, _use_new_zipfile_serialization=False) for the old torch.", _RELEASE_1_6),
    (r"Cannot find field\.?[^\n]{0,80}(?:deserialize|import\.cpp)|INVALID_ARGUMENT:main_module[^\n]{0,120}Cannot find field",
     "reader-older",
     "the TorchScript file's model description holds a field this reader does not know (its JSON parser rejects "
     "unknown fields): a newer torch wrote it than the LibTorch or torch reading it",
     "Read it with a newer LibTorch (or torch), at least the version of the torch that saved the model, or trace/script "
     "and save it again with the torch of the reader's version.",
     "https://github.com/pytorch/pytorch/blob/v1.1.0/torch/csrc/jit/import.cpp"),
    (r"Magic number mismatch in PyTorch file", "reader-older",
     "the 1.0-era reader found no header of its own format: the file is in a later format (a newer torch's zip "
     "archive) or not a torch file at all",
     "Use a newer LibTorch (or torch): the version of the torch that saved the model (pytorch.org's downloads), and "
     "check that the file is the one torch.jit.save wrote.",
     "https://github.com/pytorch/pytorch/blob/v1.0.0/caffe2/serialize/inline_container.h"),
    (r"Unknown (?:type name|builtin op)[^\n]{0,120}|unknown builtin op:?", "reader-older",
     "the TorchScript code in the file uses a type or an operator this reader does not have: the file was written by "
     "a newer torch than the one loading it",
     "Load it with a newer LibTorch (or torch), at least the version of the torch that saved it, or save it again with "
     "the torch of the reader's version.",
     "https://github.com/pytorch/pytorch/blob/v2.5.0/torch/csrc/jit/frontend/script_type_parser.cpp"),
    (r"`?torch::jit::load\(\)`? received a file from `?torch\.save\(\)`?", "wrong-loader",
     "LibTorch's torch::jit::load reads archives written by torch.jit.save; torch.save's pickles (tensors, state_dicts) "
     "are another format",
     "Save what C++ loads with torch.jit.save (a scripted module holding the tensors), or read torch.save's bytes in C++ "
     "with torch::pickle_load; nothing to install.",
     "https://github.com/pytorch/pytorch/blob/v2.5.0/torch/csrc/jit/serialization/import.cpp"),
    (r"open file failed(?:, file path: [^\n]{0,200})?\s{0,3}\(FileAdapter|open file failed, file path:", "not-a-file",
     "the file could not be opened at all: the path names no file from the program's working directory (an IDE runs "
     "the program from its build folder), or it is not readable",
     "Give the model's path as it is from the program's working directory (or an absolute path) and check that it "
     "exists and is readable; nothing to install.",
     "https://github.com/pytorch/pytorch/blob/v2.5.0/caffe2/serialize/file_adapter.cc"),
    (r"Only one file\(not dir\) is allowed in the zipfile", "reader-older",
     "torch.hub's loader before torch 1.6 (load_state_dict_from_url, model_zoo.load_url) takes a zip download for a "
     "zipped legacy checkpoint holding one file; torch.save's own zip format from torch 1.6 on holds several, so the old "
     "loader refuses a checkpoint written by torch 1.6 or newer",
     "Load it with torch 1.6 or newer (pip install --upgrade torch, in its CUDA or CPU build), or with this torch call "
     "torch.load on a copy saved again with torch.save(obj, path, _use_new_zipfile_serialization=False) by a newer torch.",
     "https://github.com/pytorch/pytorch/blob/v1.5.0/torch/hub.py"),
    (r"Error while deserializing header: (?:HeaderTooLarge|header too large|MetadataIncompleteBuffer|"
     r"InvalidHeaderDeserialization|incomplete metadata)", "not-a-file",
     "safetensors read the file's first 8 bytes as its header's length and the header that follows as JSON: a length "
     "over its 100 MB cap, or a header that does not parse, is a file that is not safetensors at all (a Git LFS "
     "pointer, an HTML page saved as the model, a partial download) or, rarely, one written with hundreds of thousands "
     "of tensors",
     "Check the file (its size against the source's, its first bytes: 'version https://git-lfs' is an LFS pointer, "
     "`git lfs pull`; '<!DOCTYPE' a web page) and download it again; a file you wrote yourself with that many tensors "
     "needs fewer, larger tensors or several files. Nothing to install.",
     "https://docs.rs/safetensors/latest/safetensors/tensor/enum.SafeTensorError.html"),
    (r"PytorchStreamReader failed reading zip archive: not a ZIP archive", "not-a-file",
     "the file is not a zip archive at all: not a model saved by torch.save/torch.jit.save from torch 1.6 on (an HTML "
     "page, a Git LFS pointer, a truncated download, another format)",
     "Check the file (its size, `git lfs pull`, download it again, the path the program opens); nothing to install.",
     "https://github.com/pytorch/pytorch/blob/v2.5.0/caffe2/serialize/inline_container.cc"),
)
_COMPILED = tuple((re.compile(p), kind, what, fix, src) for p, kind, what, fix, src in _ROWS)


def reading(text: str) -> dict | None:
    """The table's message last in `text` (the final error), with its meaning; None when none is there."""
    best = None
    for rx, kind, what, fix, src in _COMPILED:
        for m in rx.finditer(text or ""):
            if best is None or m.start() > best["at"]:
                best = {"kind": kind, "what": what, "fix": fix, "source": src, "at": m.start()}
    return best
