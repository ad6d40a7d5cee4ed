"""The `VkResult` table of error_codes.json: the vk.xml reader (gen_vulkan_codes.vulkan_table) on a registry
written here, the shipped table against Vulkan-Headers' registry/vk.xml when TE_VK_XML names one (the table was read
from KhronosGroup/Vulkan-Headers at commit f9973cd97e6f3584707e7ef1c425e336f1b92a5b), and explain's reading of
Vulkan's codes in the forms programs print them: the name, a vk* call's number, Vulkan-Hpp's names."""

from __future__ import annotations

import json
import os

import gen_vulkan_codes as gv
import pytest

from torch_envcheck.explain import diagnose, extract
from torch_envcheck.knowledge import error_codes

with open(error_codes.FILE, encoding="utf-8") as _fh:
    SHIPPED = json.load(_fh)["tables"]["VkResult"]

_REGISTRY = """<?xml version="1.0" encoding="UTF-8"?>
<registry>
  <enums name="VkResult" type="enum" comment="API result codes">
    <enum value="0" name="VK_SUCCESS" comment="Command completed successfully" />
    <enum value="-2" name="VK_ERROR_OUT_OF_DEVICE_MEMORY" comment="A device memory allocation has failed" />
    <enum value="-4" name="VK_ERROR_DEVICE_LOST" comment="The logical device has been lost. See &lt;&lt;lost&gt;&gt;" />
    <enum value="-9" name="VK_ERROR_INCOMPATIBLE_DRIVER" comment="Unable to find a Vulkan driver" />
  </enums>
  <feature api="vulkan" name="VK_VERSION_1_1" number="1.1">
    <require>
      <enum extends="VkResult" extnumber="70" offset="0" dir="-" name="VK_ERROR_OUT_OF_POOL_MEMORY" />
    </require>
  </feature>
  <extensions>
    <extension name="VK_KHR_surface" number="1">
      <require>
        <enum offset="0" dir="-" extends="VkResult" name="VK_ERROR_SURFACE_LOST_KHR" />
      </require>
    </extension>
    <extension name="VK_KHR_video_queue" number="24">
      <require>
        <enum offset="3" dir="-" extends="VkResult" name="VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR" />
        <enum extends="VkResult" name="VK_ERROR_OUT_OF_POOL_MEMORY_KHR" alias="VK_ERROR_OUT_OF_POOL_MEMORY" />
      </require>
    </extension>
  </extensions>
</registry>
"""


def test_the_registry_reader_computes_extension_values_and_skips_aliases(tmp_path):
    p = tmp_path / "vk.xml"
    p.write_text(_REGISTRY, encoding="utf-8")
    table, why = gv.vulkan_table(str(p), "abc")
    assert why is None
    rows = {c["name"]: c for c in table["codes"]}
    # the registry's rule: 1000000000 + (extension number - 1) * 1000 + offset, negative with dir="-"
    assert rows["VK_ERROR_OUT_OF_POOL_MEMORY"]["value"] == -1000069000
    assert rows["VK_ERROR_SURFACE_LOST_KHR"]["value"] == -1000000000
    assert rows["VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR"]["value"] == -1000023003
    assert "VK_ERROR_OUT_OF_POOL_MEMORY_KHR" not in rows
    assert rows["VK_ERROR_DEVICE_LOST"]["description"] == "The logical device has been lost"
    assert rows["VK_ERROR_INCOMPATIBLE_DRIVER"]["layer"] == "driver" and rows["VK_SUCCESS"]["layer"] == "none"
    assert rows["VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR"]["layer"] == "arch"
    assert rows["VK_ERROR_OUT_OF_DEVICE_MEMORY"]["layer"] == "not-environment"
    assert rows["VK_ERROR_SURFACE_LOST_KHR"]["message"] == "ErrorSurfaceLostKHR"
    assert table["source"]["url"].endswith("/blob/abc/registry/vk.xml")
    bad = tmp_path / "bad.xml"
    bad.write_text("<registry>", encoding="utf-8")
    assert gv.vulkan_table(str(bad), "abc")[0] is None


def test_the_shipped_table_holds_the_core_codes_by_their_registry_values():
    rows = {c["name"]: c for c in SHIPPED["codes"]}
    assert rows["VK_ERROR_INCOMPATIBLE_DRIVER"]["value"] == -9 and rows["VK_ERROR_DEVICE_LOST"]["value"] == -4
    assert rows["VK_ERROR_OUT_OF_DEVICE_MEMORY"]["message"] == "ErrorOutOfDeviceMemory"
    assert SHIPPED["source"]["commit"] == "f9973cd97e6f3584707e7ef1c425e336f1b92a5b"


@pytest.mark.skipif(not os.environ.get("TE_VK_XML"), reason="TE_VK_XML names no vk.xml (Vulkan-Headers' registry)")
def test_the_shipped_table_is_what_the_registry_says():
    table, why = gv.vulkan_table(os.environ["TE_VK_XML"], SHIPPED["source"]["commit"])
    assert why is None and table["codes"] == SHIPPED["codes"]


@pytest.mark.parametrize("text", [
    "vkCreateInstance failed -9",
    "Check failed: (__e == VK_SUCCESS) is false: Vulkan Error, code=-9: VK_ERROR_INCOMPATIBLE_DRIVER",
    "terminate called after throwing an instance of 'vk::IncompatibleDriverError'\n  what():  vk::createInstance: "
    "ErrorIncompatibleDriver",
])
def test_vulkans_codes_in_the_forms_programs_print(text):
    codes = [c["name"] for c in extract.entities(text).codes]
    assert codes == ["VK_ERROR_INCOMPATIBLE_DRIVER"], codes
    r = diagnose.diagnose(text)
    assert r["layer"] == "driver" and "vulkaninfo" in r["fix"] and "mesa-vulkan-drivers" in r["fix"]


def test_vulkan_advice_by_layer_and_place():
    oom = diagnose.diagnose("ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory")
    assert oom["layer"] == "not-environment" and oom["environment_problem"] is False
    wsl = diagnose.diagnose("/usr/lib/wsl/lib/libdxcore.so\nvkCreateInstance failed -9")
    assert "d3d12" in wsl["fix"]
    feat = diagnose.diagnose("vkCreateDevice failed -8")
    assert feat["layer"] == "arch"
    # VK_INCOMPLETE (5) is a status, not a failure: no Vulkan code is read from it
    assert [c for c in extract.entities("vkEnumeratePhysicalDevices failed 5").codes if c["family"] == "VkResult"] == []
