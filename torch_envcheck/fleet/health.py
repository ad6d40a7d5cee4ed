"""A rank's GPU health, as NVML and the kernel log report it: facts only, judged by fleet/rules.

NVML (nvidia-ml-py, optional): ECC error counts (volatile: since the driver loaded; aggregate:
lifetime), retired pages and whether a retirement waits for a reset, row remapping (A100 and
newer), the clock event reasons now active, the PCIe link against the device's maximum, and how
many NVLinks are up.  Each query that the device does not support is left out, never guessed.

Xid events: the driver logs each as `NVRM: Xid (PCI:0000:3b:00): 79, ...` to the kernel log.
/dev/kmsg is read without blocking (O_NONBLOCK: every record there, then EAGAIN), bounded in
records and bytes; reading it needs CAP_SYSLOG where kernel.dmesg_restrict is set, so an
unreadable log is recorded as such.
"""

from __future__ import annotations

import errno
import os
import re

MAX_KMSG_RECORDS = 20000
MAX_KMSG_BYTES = 8 << 20
MAX_XIDS = 64
NVLINK_MAX_LINKS = 18   # NVML_NVLINK_MAX_LINKS in nvml.h
# "NVRM: Xid (PCI:0000:2b:00): 79, ..." (older drivers: "NVRM: Xid (0000:01:00): 3, ...")
_XID_RE = re.compile(r"NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.\d)?\): (\d{1,4})\b")
# the clock event reasons that mean the hardware, not a setting or idleness, holds the clocks down
# (nvmlClocksEventReason* in nvml.h; GpuIdle, SyncBoost and the clock settings are left out)
REASONS = ("HwSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown", "SwThermalSlowdown", "SwPowerCap")


def norm_bus_id(bus: str | None) -> str | None:
    """'00000000:3B:00.0' and '0000:3b:00' -> '0000:3b:00' (domain:bus:device), the form Xid lines use."""
    if not isinstance(bus, str):
        return None
    m = re.match(r"^([0-9A-Fa-f]{1,8}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})", bus.strip())
    if not m:
        return None
    return f"{int(m.group(1), 16):04x}:{m.group(2).lower()}:{m.group(3).lower()}"


def xids_from_kmsg(path: str = "/dev/kmsg") -> tuple[list[dict] | None, str]:
    """([{pci, xid}], 'kmsg') from the kernel log, or (None, why it could not be read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    found: list[dict] = []
    total = 0
    try:
        for _ in range(MAX_KMSG_RECORDS):
            try:
                rec = os.read(fd, 8192)  # /dev/kmsg hands out one record per read
            except OSError as exc:
                if exc.errno == errno.EAGAIN:
                    break
                if exc.errno == errno.EPIPE:  # the ring buffer overwrote records we had not read: go on
                    continue
                return (found or None), f"unreadable: {exc.strerror or exc}"
            if not rec:
                break
            total += len(rec)
            for m in _XID_RE.finditer(rec.decode("utf-8", "replace")):
                if len(found) < MAX_XIDS:
                    found.append({"pci": norm_bus_id(m.group(1)), "xid": int(m.group(2))})
            if total > MAX_KMSG_BYTES:
                break
    finally:
        os.close(fd)
    return found, "kmsg"


def _query(fn, *args):
    """An NVML query's value, or None where the device does not support it (or NVML fails)."""
    try:
        return fn(*args)
    except Exception:  # noqa: BLE001  (NVMLError_NotSupported and kin: the fact is absent)
        return None


def from_nvml(local_rank: int) -> dict | None:
    """The health facts of this rank's GPU (cuda:LOCAL_RANK among the visible ones), or None when
    nvidia-ml-py or the driver does not answer."""
    try:
        import pynvml  # noqa: PLC0415
        pynvml.nvmlInit()
    except Exception:  # noqa: BLE001
        return None
    try:
        import torch  # noqa: PLC0415
        n = torch.cuda.device_count()
        dev = local_rank % n if n else local_rank
        # NVML numbers every GPU of the host, torch only the visible ones: match by PCI address
        props = _query(torch.cuda.get_device_properties, dev) if n else None
        h = None
        if props is not None and isinstance(getattr(props, "pci_bus_id", None), int):
            address = f"{getattr(props, 'pci_domain_id', 0):08X}:{props.pci_bus_id:02X}:{props.pci_device_id:02X}.0"
            h = _query(pynvml.nvmlDeviceGetHandleByPciBusId, address)
        if h is None:
            h = pynvml.nvmlDeviceGetHandleByIndex(dev)
        out: dict = {"source": "nvml"}
        pci = _query(pynvml.nvmlDeviceGetPciInfo, h)
        bus = getattr(pci, "busId", None)
        out["pci_bus_id"] = norm_bus_id(bus.decode("ascii", "replace") if isinstance(bus, bytes) else bus)
        unc, cor = pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED
        out["ecc_uncorrected_volatile"] = _query(pynvml.nvmlDeviceGetTotalEccErrors, h, unc, pynvml.NVML_VOLATILE_ECC)
        out["ecc_corrected_volatile"] = _query(pynvml.nvmlDeviceGetTotalEccErrors, h, cor, pynvml.NVML_VOLATILE_ECC)
        out["ecc_uncorrected_aggregate"] = _query(pynvml.nvmlDeviceGetTotalEccErrors, h, unc, pynvml.NVML_AGGREGATE_ECC)
        dbe = _query(pynvml.nvmlDeviceGetRetiredPages, h, pynvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)
        sbe = _query(pynvml.nvmlDeviceGetRetiredPages, h, pynvml.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS)
        out["retired_pages_dbe"] = len(dbe) if dbe is not None else None
        out["retired_pages_sbe"] = len(sbe) if sbe is not None else None
        pending = _query(pynvml.nvmlDeviceGetRetiredPagesPendingStatus, h)
        out["retired_pages_pending"] = bool(pending) if pending is not None else None
        remap = _query(pynvml.nvmlDeviceGetRemappedRows, h)
        if remap is not None:
            corr, unc_rows, is_pending, failed = remap
            out.update(remapped_rows_correctable=int(corr), remapped_rows_uncorrectable=int(unc_rows),
                       remapping_pending=bool(is_pending), remapping_failed=bool(failed))
        mask = _query(pynvml.nvmlDeviceGetCurrentClocksEventReasons, h)
        if mask is None:
            mask = _query(pynvml.nvmlDeviceGetCurrentClocksThrottleReasons, h)
        if mask is not None:
            out["clock_event_reasons"] = [r for r in REASONS
                                          if mask & int(getattr(pynvml, f"nvmlClocksEventReason{r}",
                                                                getattr(pynvml, f"nvmlClocksThrottleReason{r}", 0)))]
        out["pcie_gen"] = _query(pynvml.nvmlDeviceGetCurrPcieLinkGeneration, h)
        out["pcie_gen_max"] = _query(pynvml.nvmlDeviceGetMaxPcieLinkGeneration, h)
        out["pcie_width"] = _query(pynvml.nvmlDeviceGetCurrPcieLinkWidth, h)
        out["pcie_width_max"] = _query(pynvml.nvmlDeviceGetMaxPcieLinkWidth, h)
        up = down = 0
        for link in range(NVLINK_MAX_LINKS):
            state = _query(pynvml.nvmlDeviceGetNvLinkState, h, link)
            if state is None:
                break
            up, down = up + (state == 1), down + (state != 1)
        out["nvlink_active"], out["nvlink_inactive"] = (up, down) if up or down else (None, None)
        return out
    except Exception:  # noqa: BLE001
        return None
    finally:
        _query(pynvml.nvmlShutdown)


def collect(local_rank: int) -> dict | None:
    """NVML's facts plus this GPU's Xid events since boot; None without NVML."""
    out = from_nvml(local_rank)
    if out is None:
        return None
    xids, source = xids_from_kmsg()
    out["xid_source"] = source
    if xids is not None:
        mine = out.get("pci_bus_id")
        out["xid"] = [x for x in xids if mine is None or x["pci"] == mine]
    return out


# The shape rank 0 keeps (a rank's payload is a stranger's): declared fields with their types.
FIELDS = {"source": "str", "pci_bus_id": "str", "ecc_uncorrected_volatile": "int", "ecc_corrected_volatile": "int",
          "ecc_uncorrected_aggregate": "int", "retired_pages_dbe": "int", "retired_pages_sbe": "int",
          "retired_pages_pending": "bool", "remapped_rows_correctable": "int", "remapped_rows_uncorrectable": "int",
          "remapping_pending": "bool", "remapping_failed": "bool", "pcie_gen": "int", "pcie_gen_max": "int",
          "pcie_width": "int", "pcie_width_max": "int", "nvlink_active": "int", "nvlink_inactive": "int",
          "xid_source": "str"}


def normalise(raw, typed) -> dict | None:
    if not isinstance(raw, dict):
        return None
    out = {k: typed(raw.get(k), kind) for k, kind in FIELDS.items() if k in raw}
    reasons = raw.get("clock_event_reasons")
    if isinstance(reasons, list):
        out["clock_event_reasons"] = [r for r in reasons if r in REASONS]
    xid = raw.get("xid")
    if isinstance(xid, list):
        out["xid"] = [{"pci": typed(x.get("pci"), "str"), "xid": typed(x.get("xid"), "int")}
                      for x in xid[:MAX_XIDS] if isinstance(x, dict) and typed(x.get("xid"), "int") is not None]
    return out
