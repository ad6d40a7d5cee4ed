"""The Windows loader's error messages in the languages users paste them in: FormatMessage's text for the few codes
a failing DLL load reports (after "DLL load failed:", "[WinError N]", "Error loading ..."), so a localized message
decodes to its code like the English one in error_codes.json's windows table.

Each rendering is the message as Windows prints it in that language, attested in a public thread (the URL beside
it); matching ignores case, trailing punctuation and the %1 placeholder's filling."""

from __future__ import annotations

import re

# (code name, localized message, a public thread where Windows printed it)
LOCALIZED = (
    ("ERROR_FILE_NOT_FOUND", "系统找不到指定的文件", "https://github.com/Tramac/awesome-semantic-segmentation-pytorch/issues/167"),
    ("ERROR_ACCESS_DENIED", "拒绝访问", "https://github.com/chengzeyi/Comfy-WaveSpeed/issues/22"),
    ("ERROR_MOD_NOT_FOUND", "找不到指定的模块", "https://github.com/chn-lee-yumi/MaterialSearch/issues/105"),
    ("ERROR_MOD_NOT_FOUND", "Не найден указанный модуль", "https://github.com/Yonisen/WarThunder_Map_Marker_Finder/issues/42"),
    ("ERROR_MOD_NOT_FOUND", "No se puede encontrar el módulo especificado", "https://github.com/AIZOOTech/FaceMaskDetection/issues/72"),
    ("ERROR_MOD_NOT_FOUND", "Le module spécifié est introuvable", "https://github.com/huggingface/diffusers/issues/5247"),
    ("ERROR_MOD_NOT_FOUND", "Não foi possível encontrar o módulo especificado", "https://github.com/vladmandic/sdnext/issues/3375"),
    ("ERROR_MOD_NOT_FOUND", "지정된 모듈을 찾을 수 없습니다", "https://github.com/abus-aikorea/voice-pro/issues/57"),
    ("ERROR_PROC_NOT_FOUND", "找不到指定的程序", "https://github.com/erprogs/CViT/issues/16"),
    ("ERROR_PROC_NOT_FOUND", "La procédure spécifiée est introuvable", "https://github.com/bmaltais/kohya_ss/issues/486"),
    ("ERROR_INVALID_ORDINAL", "操作系统无法运行 %1", "https://github.com/pytorch/pytorch/issues/31324"),
    ("ERROR_INVALID_ORDINAL", "O sistema operacional não pode executar %1", "https://github.com/pytorch/pytorch/issues/36868"),
    ("ERROR_DLL_INIT_FAILED", "动态链接库(DLL)初始化例程失败", "https://github.com/666ghj/BettaFish/issues/430"),
    ("ERROR_COMMITMENT_LIMIT", "页面文件太小，无法完成操作", "https://github.com/yassouali/pytorch-segmentation/issues/118"),
)

# the codes a DLL load reports; their English messages come from error_codes.json's windows table
LOADER_CODES = ("ERROR_FILE_NOT_FOUND", "ERROR_ACCESS_DENIED", "ERROR_NOT_ENOUGH_MEMORY", "ERROR_OUTOFMEMORY",
                "ERROR_MOD_NOT_FOUND", "ERROR_PROC_NOT_FOUND", "ERROR_INVALID_ORDINAL", "ERROR_BAD_EXE_FORMAT",
                "ERROR_DLL_INIT_FAILED", "ERROR_COMMITMENT_LIMIT", "ERROR_EXE_MACHINE_TYPE_MISMATCH")


def _key(message: str) -> str:
    """A message reduced for comparison: lower case, %1 and what filled it removed, no trailing punctuation or space."""
    m = re.sub(r"%1\S*|\s+", " ", message.lower())
    return re.sub(r"[\s.。!！*]+$", "", m).strip()


def loader_code_for(message: str, english: dict) -> tuple[str, str | None] | None:
    """The loader code whose message `message` starts with: (code name, the thread attesting a localized rendering, or
    None for the English one).  `english`: {code name: its English message} from the windows table.  None when it is
    none of them."""
    got = _key(message)
    if len(got) < 4:
        return None
    for name, text in english.items():
        k = _key(text)
        if k and (got == k or got.startswith(k) or (len(got) >= 24 and k.startswith(got))):
            return name, None
        if text.startswith("%1") and len(k) >= 12 and got.endswith(k):
            return name, None  # "%1 is not a valid Win32 application." with the file filled in
    for name, text, url in LOCALIZED:
        k = _key(text)
        if got.startswith(k) or k.startswith(got) and len(got) >= 4:
            return name, url
    return None
