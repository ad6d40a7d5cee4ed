"""Maintainers' helper of gen_error_tables.py (not shipped): the `VkResult` table of error_codes.json, read from the
Vulkan registry, registry/vk.xml of https://github.com/KhronosGroup/Vulkan-Headers, which declares every Vulkan
enumeration with its comment: the core result codes in <enums name="VkResult">, and those extensions add in
<enum extends="VkResult"> (value 1000000000 + (extension number - 1) * 1000 + offset, negative with dir="-"; an
alias="..." names another code and is left out).

vk.xml is not on a machine without the Vulkan SDK: the maintainer gives its path (--vk-xml) and the commit of
Vulkan-Headers it was read at (--vk-commit).  Without it the shipped table is kept as it is.

The layer of each code is classified here, the one hand-made part (LAYERS below, then by the words of its name).
`message` is what Vulkan-Hpp prints for the code (vk::to_string(vk::Result), its exceptions' what()): the name
without VK_, in CamelCase ("ErrorIncompatibleDriver"), as Vulkan-Hpp's generator derives it
(https://github.com/KhronosGroup/Vulkan-Hpp, VulkanHppGenerator.cpp: generateEnumValueName)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

REPO = "https://github.com/KhronosGroup/Vulkan-Headers"
PATH = "registry/vk.xml"

# The layer explain gives a result code: the driver (no Vulkan driver, a lost device, a failed initialisation, an
# extension the driver lacks), the GPU's features and formats (arch), the loader's layers named in the environment
# (env); every other negative code is the program's (memory, objects, surfaces, its arguments); positive codes are
# statuses ("none").
LAYERS = {"VK_ERROR_INITIALIZATION_FAILED": "driver", "VK_ERROR_DEVICE_LOST": "driver",
          "VK_ERROR_INCOMPATIBLE_DRIVER": "driver", "VK_ERROR_EXTENSION_NOT_PRESENT": "driver",
          "VK_ERROR_UNKNOWN": "driver", "VK_ERROR_LAYER_NOT_PRESENT": "env",
          "VK_ERROR_FEATURE_NOT_PRESENT": "arch", "VK_ERROR_FORMAT_NOT_SUPPORTED": "arch"}
_BY_WORDS = ((re.compile(r"_NOT_SUPPORTED(?:_[A-Z]{2,8})?$"), "arch"), (re.compile(r"_NOT_PERMITTED(?:_[A-Z]{2,8})?$"), "env"))


def layer_of(name: str, value: int) -> str:
    if value >= 0:
        return "none"
    if name in LAYERS:
        return LAYERS[name]
    for pattern, layer in _BY_WORDS:
        if pattern.search(name):
            return layer
    return "not-environment"


def hpp_name(name: str) -> str:
    """Vulkan-Hpp's name of a result code: VK_ERROR_OUT_OF_DEVICE_MEMORY -> ErrorOutOfDeviceMemory (the vendor
    suffix stays in capitals: VK_ERROR_SURFACE_LOST_KHR -> ErrorSurfaceLostKHR)."""
    parts = name[3:].split("_")
    out = []
    for i, p in enumerate(parts):
        vendor = i == len(parts) - 1 and i > 0 and p in ("KHR", "EXT", "NV", "AMD", "INTEL", "QCOM", "ARM", "NVX")
        out.append(p if vendor else p.capitalize())
    return "".join(out)


def _value(e: ET.Element, ext_number: int | None) -> int | None:
    if e.get("value") is not None:
        return int(e.get("value"), 0)
    if e.get("offset") is None:
        return None
    num = int(e.get("extnumber") or ext_number or 0)
    v = 1000000000 + (num - 1) * 1000 + int(e.get("offset"))
    return -v if e.get("dir") == "-" else v


def vulkan_table(vk_xml: str, commit: str) -> tuple:
    """(table, None), or (None, why) when vk_xml cannot be read."""
    try:
        root = ET.parse(vk_xml).getroot()
    except (OSError, ET.ParseError) as exc:
        return None, f"{vk_xml}: {exc}"
    rows = {}
    core = root.find("enums[@name='VkResult']")
    if core is None:
        return None, f"{vk_xml}: no <enums name=\"VkResult\">"
    for e in core.findall("enum"):
        rows[e.get("name")] = {"name": e.get("name"), "value": int(e.get("value"), 0),
                               "description": (e.get("comment") or "").split(". See")[0].strip() or None}
    # extension codes: inside <extension number="N"> (or a <feature> that promoted them, with extnumber)
    for parent in list(root.iter("extension")) + list(root.iter("feature")):
        number = int(parent.get("number")) if parent.tag == "extension" and parent.get("number") else None
        for e in parent.iter("enum"):
            if e.get("extends") != "VkResult" or e.get("alias") or e.get("name") in rows:
                continue
            v = _value(e, number)
            if v is None:
                continue
            rows[e.get("name")] = {"name": e.get("name"), "value": v,
                                   "description": (e.get("comment") or "").strip() or None}
    codes = []
    for r in sorted(rows.values(), key=lambda r: (r["value"] < 0, abs(r["value"]))):
        r["layer"] = layer_of(r["name"], r["value"])
        r["message"] = hpp_name(r["name"])
        codes.append(r)
    url = f"{REPO}/blob/{commit}/{PATH}"
    return {"enum": "VkResult", "library": "Vulkan", "header": "vk.xml",
            "source": {"repository": REPO, "path": PATH, "commit": commit, "url": url}, "codes": codes}, None
