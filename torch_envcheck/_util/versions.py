"""The one version parser, and the few version encodings of the CUDA stack, each decoded once.

    version_tuple('580.65.06') -> (580, 65, 6)     the release numbers: packaging's Version where it
                                                   parses, else the leading dotted number
    major_minor('2.14.1+cu130') -> (2, 14)         major('12.4') -> 12
    release_key('2.14.1+cu130') -> '2.14'          public('2.14.1+cu130') -> '2.14.1'
    local_tag('2.14.1+cu130') -> 'cu130'
    cuda_from_tag('cu130') -> '13.0'               tag_from_cuda('13.0') -> 'cu130'
    cuda_from_int(12040) -> '12.4'                 CUDA's integer (cudaRuntimeGetVersion, NVML)
    cudnn_tuple(92400) -> (9, 24, 0)               cuDNN's integer (torch.backends.cudnn.version())
    satisfies('3.12.1', '>=3.10,<3.13') -> True    a PEP 440 specifier

Every function takes what a snapshot or a table may hold (None, a bool, junk) and answers None
for what it cannot read, never a guess.  `packaging` is a declared dependency, but the doctor must
still run where it is missing (a broken environment, a source checkout on PYTHONPATH): then the
leading dotted number is taken, as for any string packaging rejects (a driver's
'535.104.05-1ubuntu').  Pure Python; imports nothing of the package.
"""

from __future__ import annotations

import functools
import re

_LEADING = re.compile(r"(\d+(?:\.\d+)*)")


def version_tuple(text) -> tuple[int, ...] | None:
    """'580.65.06' -> (580, 65, 6); '2.14.1+cu130' -> (2, 14, 1); '2.15.0.dev20260101' -> (2, 15, 0);
    '535.104.05-1ubuntu' -> (535, 104, 5); junk, None or a bool -> None."""
    if text is None or isinstance(text, bool):
        return None
    return _parse(str(text).strip()[:64])


@functools.lru_cache(maxsize=None)
def _packaging():
    """packaging's version and specifiers modules, imported on the first parse (a report that
    compares no version never loads it), or None where packaging is missing."""
    try:
        import packaging.specifiers
        import packaging.version
    except ImportError:  # pragma: no cover - packaging is a dependency; the fallbacks cover its absence
        return None
    return packaging


# The rules parse the same few strings (the tables' CUDA versions, the snapshot's) hundreds of times
# per report; bounded, so a report full of distinct strings cannot grow it.
@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> tuple[int, ...] | None:
    pk = _packaging()
    if pk is not None:
        try:
            return tuple(pk.version.Version(text).release)
        except pk.version.InvalidVersion:
            pass
    m = _LEADING.match(text)
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def major_minor(text) -> tuple[int, int] | None:
    """(major, minor); a version with one number has minor 0 ('12' -> (12, 0))."""
    # a text, the common case asked again and again by the rules, is kept (bounded, like _parse)
    return _major_minor_kept(text) if type(text) is str else _major_minor(text)


def _major_minor(text) -> tuple[int, int] | None:
    t = version_tuple(text)
    return (t[0], t[1] if len(t) > 1 else 0) if t else None


_major_minor_kept = functools.lru_cache(maxsize=4096)(_major_minor)


def major(text) -> int | None:
    t = version_tuple(text)
    return t[0] if t else None


def release_key(version) -> str | None:
    """'2.14.1+cu130' -> '2.14' (the release a version belongs to)."""
    mm = major_minor(version)
    return f"{mm[0]}.{mm[1]}" if mm else None


def public(version) -> str | None:
    """The version without its local label: '2.14.1+cu130' -> '2.14.1'."""
    return str(version).split("+", 1)[0] if version is not None and not isinstance(version, bool) else None


def local_tag(version) -> str | None:
    """The local version label of a wheel: '0.29.1+cu130' -> 'cu130'; no label -> None."""
    if not version or "+" not in str(version):
        return None
    return str(version).split("+", 1)[1].strip().lower() or None


# The local labels download.pytorch.org's indexes publish (/whl/cu130, /whl/cpu, /whl/rocm6.4, /whl/xpu).
# Anything else after the '+' is a build's own label: NVIDIA's JetPack wheels ('2.5.0a0+872d972e41.nv24.08'),
# a source build ('0.20.0a0+afc54f7', '2.14.0a0+git1a2b3c4'), a distribution's patch level.
_INDEX_LABEL = re.compile(r"cu\d{2,3}|cpu|rocm\d+(?:\.\d+)*|xpu")


def local_label(version) -> str | None:
    """The local version label as packaging reads it (normalised: lower case, '-' and '_' as '.'):
    '2.14.1+cu130' -> 'cu130', '0.20.0a0+afc54f7' -> 'afc54f7'; None without one, or for a string
    that is not a version at all."""
    if version is None or isinstance(version, bool) or "+" not in str(version):
        return None
    text = str(version).strip()[:64]
    pk = _packaging()
    if pk is not None:
        try:
            return pk.version.Version(text).local
        except pk.version.InvalidVersion:
            return None
    return local_tag(text)


def index_label(version) -> str | None:
    """The download.pytorch.org index a version's local label names ('2.14.1+cu130' -> 'cu130',
    '2.6.0+rocm6.2' -> 'rocm6.2'), else None: a source build's or a vendor's label
    ('0.20.0a0+afc54f7', '2.5.0a0+872d972e41.nv24.08') is not an index."""
    label = local_label(version)
    return label if label and _INDEX_LABEL.fullmatch(label) else None


def is_index_label(label) -> bool:
    """Whether a bare local label ('cu130', 'cpu') is one of the PyTorch index's."""
    return isinstance(label, str) and _INDEX_LABEL.fullmatch(label.strip().lower()) is not None


def fmt_version(t) -> str:
    """(9, 24, 0) -> '9.24.0'; '?' for None."""
    return ".".join(str(x) for x in t) if t else "?"


# ---------------------------------------------------------------- CUDA

def cuda_from_tag(tag) -> str | None:
    """A download.pytorch.org index tag as a CUDA version: 'cu130' -> '13.0', 'cu118' -> '11.8';
    anything else -> None."""
    m = re.fullmatch(r"cu(\d+)(\d)", tag or "") if isinstance(tag, str) else None
    return f"{int(m.group(1))}.{m.group(2)}" if m else None


def tag_from_cuda(cuda) -> str | None:
    """'13.0' -> 'cu130'."""
    mm = major_minor(cuda)
    return f"cu{mm[0]}{mm[1]}" if mm else None


def cuda_from_int(value) -> str | None:
    """CUDA's integer version (1000 * major + 10 * minor, as cudaRuntimeGetVersion, cuDriverGetVersion
    and NVML report it) as text: 12040 -> '12.4', 13000 -> '13.0'; None below 1000 or for a non-int."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1000:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


# ---------------------------------------------------------------- cuDNN

def cudnn_tuple(value) -> tuple[int, int, int] | None:
    """cuDNN's version as torch.backends.cudnn.version() returns it, or as text, as a tuple:
    92400 -> (9, 24, 0), 8907 -> (8, 9, 7), '9.24.0' -> (9, 24, 0), [9, 1] -> (9, 1, 0); None when
    unknown.  cuDNN 9 changed the integer from major*1000+minor*100+patch to major*10000+minor*100+patch."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (list, tuple)) and len(value) >= 2 and all(isinstance(x, int) for x in value):
        return (value[0], value[1], value[2] if len(value) > 2 else 0)
    if isinstance(value, int):
        if value >= 10000:
            return (value // 10000, (value // 100) % 100, value % 100)
        if value >= 1000:
            return (value // 1000, (value // 100) % 10, value % 100)
        return None
    t = version_tuple(value) if isinstance(value, str) else None
    if t and len(t) == 1 and t[0] >= 1000:
        return cudnn_tuple(t[0])
    if t:
        return (t[0], t[1] if len(t) > 1 else 0, t[2] if len(t) > 2 else 0)
    return None


# ---------------------------------------------------------------- specifiers

def satisfies(version, specifier) -> bool | None:
    """Whether `version` meets a PEP 440 specifier ('>=3.10,<3.13'; '' is any); pre-releases count.
    None when either cannot be read.  Without packaging, a subset (>=, >, <=, <, ==, != with release
    numbers, == X.*) is understood."""
    if version is None or isinstance(version, bool) or not isinstance(specifier, str):
        return None
    pk = _packaging()
    if pk is not None:
        try:
            return pk.version.Version(str(version)) in pk.specifiers.SpecifierSet(specifier, prereleases=True)
        except (pk.version.InvalidVersion, pk.specifiers.InvalidSpecifier):
            return None
    return _satisfies_subset(str(version), specifier)


def _satisfies_subset(version: str, spec: str) -> bool | None:
    v = version_tuple(version)
    if v is None:
        return None
    for part in spec.split(","):
        if not part.strip():
            continue
        m = re.fullmatch(r"\s*(>=|<=|==|!=|>|<)\s*([\d.]+?)(\.\*)?\s*", part)
        if not m:
            return None
        op, bound, star = m.group(1), version_tuple(m.group(2)), m.group(3)
        if bound is None:
            return None
        n = len(bound)
        vv = (v + (0,) * n)[:n] if star or op in ("==", "!=") else v
        bb = bound if star or op in ("==", "!=") else bound + (0,) * max(0, len(v) - n)
        vv = vv + (0,) * max(0, len(bb) - len(vv))
        ok = {">=": vv >= bb, "<=": vv <= bb, ">": vv > bb, "<": vv < bb, "==": vv == bb, "!=": vv != bb}[op]
        if not ok:
            return False
    return True
