"""Reading package indexes: PyPI's JSON API, simple indexes in PEP 691 JSON and PEP 503
HTML (PyPI, download.pytorch.org per CUDA tag, any mirror or `--index-url`), `file://` index
folders, and the core metadata of a wheel without downloading it: the PEP 658 `<file>.metadata`
where the index offers one (checked against its hash), else the wheel's `*.dist-info/METADATA`
read with HTTP range requests (the zip's central directory and that one member: about a megabyte
of a 500 MB wheel).

An index is input from a stranger.  Everything here is bounded: one timeout per request and a
deadline per response, a byte cap per response and per run, at most MAX_REDIRECTS redirects and
never one from https to http or to another scheme, no compressed transfer encodings (urllib asks
for none), a content-type check before a body is parsed, HTML parsed with html.parser (never
regular expressions over HTML), at most MAX_LINKS links per page.  A file name must be a valid
wheel name (packaging.utils) whose version packaging accepts, and a local version label must be a
known index tag (cu132, cpu, rocm6.4, xpu); anything else is skipped and counted, never printed
raw.  Every failure is an IndexReadError with one line naming the URL and what was wrong.

urllib only (no requests); packaging for versions, wheel names, requirements and markers.
"""

from __future__ import annotations

import dataclasses
import email.parser
import email.policy
import hashlib
import html.parser
import json
import os
import re
import stat
import struct
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib

MAX_RESPONSE = 8 << 20
MAX_RUN = 160 << 20
MAX_METADATA = 2 << 20
TIMEOUT = 20.0
DEADLINE = 90.0
MAX_REDIRECTS = 5
MAX_LINKS = 100_000
MAX_NAME = 255

SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
SIMPLE_HTML = "application/vnd.pypi.simple.v1+html"
ACCEPT_SIMPLE = f"{SIMPLE_JSON}, {SIMPLE_HTML};q=0.2, text/html;q=0.01"
LOCAL_TAG = re.compile(r"cu\d{2,4}|cpu|rocm\d{1,2}(\.\d{1,2}){0,2}|xpu")
USER_AGENT = "torch-envcheck-knowledge (+https://github.com/; urllib)"


class IndexReadError(Exception):
    """An index answer that cannot be used; str() is one line naming the URL and the problem."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def _show(text, limit: int = 160) -> str:
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    s = terminal(text)
    return s if len(s) <= limit else s[:limit] + "..."


# ---------------------------------------------------------------- fetching

@dataclasses.dataclass
class Response:
    url: str
    status: int
    content_type: str
    body: bytes


class _Redirects(urllib.request.HTTPRedirectHandler):
    max_redirections = MAX_REDIRECTS
    max_repeats = 1  # the same URL twice is a loop

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        old = urllib.parse.urlsplit(req.full_url).scheme.lower()
        new = urllib.parse.urlsplit(urllib.parse.urljoin(req.full_url, newurl)).scheme.lower()
        if new not in ("http", "https"):
            raise IndexReadError(f"{_show(req.full_url)} redirects to a {_show(new or '?', 20)}: URL (refused)")
        if old == "https" and new == "http":
            raise IndexReadError(f"{_show(req.full_url)} redirects from https to http (refused)")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class Fetcher:
    """GETs with the bounds above.  `used` counts the bytes read this run; `urls` the URLs read."""

    def __init__(self, timeout: float = TIMEOUT, max_response: int = MAX_RESPONSE, max_run: int = MAX_RUN,
                 deadline: float = DEADLINE):
        self.timeout, self.max_response, self.max_run, self.deadline = timeout, max_response, max_run, deadline
        self.used = 0
        self.urls: list[str] = []
        self._opener = urllib.request.build_opener(_Redirects())

    def _take(self, n: int, url: str) -> None:
        self.used += n
        if self.used > self.max_run:
            raise IndexReadError(f"reading {_show(url)} would pass this run's limit of {self.max_run >> 20} MiB "
                                 "from the indexes (stopped)")

    def get(self, url: str, accept: str | None = None, byte_range: tuple[int, int | None] | None = None,
            limit: int | None = None) -> Response:
        limit = min(limit or self.max_response, self.max_response)
        parts = urllib.parse.urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme == "file":
            return self._get_file(url, limit, byte_range)
        if scheme not in ("http", "https"):
            raise IndexReadError(f"{_show(url)} is not an http://, https:// or file:// URL")
        headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
        if accept:
            headers["Accept"] = accept
        if byte_range is not None:
            lo, hi = byte_range
            headers["Range"] = f"bytes={lo}-{'' if hi is None else hi}" if lo >= 0 else f"bytes={lo}"
        req = urllib.request.Request(url, headers=headers)
        start = time.monotonic()
        try:
            resp = self._opener.open(req, timeout=self.timeout)
        except IndexReadError:
            raise
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                raise IndexReadError(f"{_show(url)}: redirect refused: a loop, more than {MAX_REDIRECTS}, or to "
                                     f"another scheme (HTTP {exc.code}: {_show(exc.reason, 120)})", exc.code) from None
            raise IndexReadError(f"{_show(url)}: HTTP {exc.code} {_show(exc.reason, 60)}", exc.code) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, IndexReadError):
                raise reason from None
            raise IndexReadError(f"{_show(url)}: {_show(reason, 120)}") from None
        with resp:
            ctype = (resp.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
            enc = (resp.headers.get("Content-Encoding") or "identity").strip().lower()
            if enc not in ("identity", ""):
                raise IndexReadError(f"{_show(url)}: answered with Content-Encoding {_show(enc, 30)}, which was not asked for")
            declared = resp.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > limit:
                raise IndexReadError(f"{_show(url)}: the answer is {int(declared) >> 20} MiB, more than the "
                                     f"{limit >> 20} MiB allowed (not read)")
            chunks, got = [], 0
            while True:
                if time.monotonic() - start > self.deadline:
                    raise IndexReadError(f"{_show(url)}: the answer did not finish within {self.deadline:.0f} s")
                try:
                    chunk = resp.read(min(65536, limit + 1 - got))
                except (OSError, ValueError) as exc:  # a socket timeout mid-body, a reset
                    raise IndexReadError(f"{_show(url)}: reading the answer failed ({_show(exc, 80)})") from None
                if not chunk:
                    break
                got += len(chunk)
                self._take(len(chunk), url)
                if got > limit:
                    raise IndexReadError(f"{_show(url)}: the answer is larger than {limit >> 20} MiB (stopped reading)")
                chunks.append(chunk)
            final = resp.geturl()
            status = resp.status
        self.urls.append(url)
        return Response(final, status, ctype, b"".join(chunks))

    def _get_file(self, url: str, limit: int, byte_range) -> Response:
        path = urllib.request.url2pathname(urllib.parse.urlsplit(url).path)
        try:
            st = os.stat(path)
        except OSError as exc:
            raise IndexReadError(f"{_show(url)}: {_show(exc.strerror or exc, 80)}", 404) from None
        if stat.S_ISDIR(st.st_mode):
            # a file:// simple index is a folder tree: <root>/<project>/index.json (PEP 691) or index.html
            for name in ("index.json", "index.html"):
                if os.path.isfile(os.path.join(path, name)):
                    return self._get_file(urllib.parse.urljoin(url.rstrip("/") + "/", name), limit, byte_range)
            raise IndexReadError(f"{_show(url)}: a folder without index.json or index.html", 404)
        if not stat.S_ISREG(st.st_mode):
            raise IndexReadError(f"{_show(url)}: not a regular file")
        lo, hi = (0, None) if byte_range is None else byte_range
        if lo < 0:
            lo = max(0, st.st_size + lo)
        size = (st.st_size if hi is None else min(st.st_size, hi + 1)) - lo
        if size > limit:
            raise IndexReadError(f"{_show(url)}: the file is larger than {limit >> 20} MiB (not read)")
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
            with os.fdopen(fd, "rb") as fh:
                fh.seek(lo)
                data = fh.read(max(0, size))
        except OSError as exc:
            raise IndexReadError(f"{_show(url)}: {_show(exc.strerror or exc, 80)}") from None
        self._take(len(data), url)
        self.urls.append(url)
        name = os.path.basename(path).lower()
        ctype = (SIMPLE_JSON if name == "index.json" else
                 "application/json" if name.endswith(".json") or name == "json" else
                 "text/html" if name.endswith((".html", ".htm")) else "application/octet-stream")
        return Response(url, 206 if byte_range else 200, ctype, data)


# ---------------------------------------------------------------- what an index lists

PLATFORMS = ("linux_x86_64", "linux_aarch64", "win_amd64", "macos_arm64", "macos_x86_64")


@dataclasses.dataclass
class IndexFile:
    filename: str
    url: str
    project: str
    version: str            # the public version: '2.15.0'
    local: str | None       # the index tag of a local label: 'cu132'
    pythons: tuple          # CPython minors with wheels: ('3.12',)
    platforms: tuple        # PLATFORMS entries
    hashes: dict
    requires_python: str | None
    metadata: object        # PEP 658/714: True, {'sha256': ...}, or None
    yanked: bool
    size: int | None = None


def _platform(tag_platform: str) -> str | None:
    p = tag_platform.lower()
    if p.startswith(("manylinux", "musllinux", "linux")):
        return "linux_aarch64" if p.endswith(("aarch64", "arm64")) else "linux_x86_64" if p.endswith("x86_64") else None
    if p in ("win_amd64",):
        return "win_amd64"
    if p.startswith("macosx"):
        return "macos_arm64" if p.endswith(("arm64", "universal2")) else "macos_x86_64" if p.endswith("x86_64") else None
    return None


PRE = ()  # parse_filename's answer for a valid pre-release or dev wheel: ignored, not counted as invalid


def parse_filename(filename: str, project: str) -> tuple | None:
    """(version, local tag, pythons, platforms) of a wheel of `project`; PRE for a pre-release; None
    when the name is not a valid wheel name of that project (or has an unknown local label)."""
    from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename  # noqa: PLC0415
    if not isinstance(filename, str) or len(filename) > MAX_NAME or not filename.endswith(".whl"):
        return None
    if not re.fullmatch(r"[A-Za-z0-9._+!-]+", filename):
        return None
    try:
        name, version, _build, tags = parse_wheel_filename(filename)
    except (InvalidWheelFilename, ValueError):
        return None
    if name != canonicalize_name(project):
        return None
    if version.is_prerelease or version.is_devrelease:
        return PRE
    local = version.local
    if local is not None and not LOCAL_TAG.fullmatch(local):
        return None
    pythons, plats = set(), set()
    for t in tags:
        m = re.fullmatch(r"cp(\d)(\d{1,2})", t.interpreter)
        if m:
            pythons.add(f"{m.group(1)}.{m.group(2)}")
        p = _platform(t.platform)
        if p:
            plats.add(p)
    return version.public, local, tuple(sorted(pythons, key=_mm)), tuple(sorted(plats))


def _mm(v: str):
    return tuple(int(x) for x in v.split("."))


def _file(project: str, filename, url, hashes=None, requires_python=None, metadata=None, yanked=False, size=None):
    parsed = parse_filename(filename, project)
    if parsed is PRE:
        return PRE
    if parsed is None or not isinstance(url, str) or len(url) > 4000:
        return None
    version, local, pythons, plats = parsed
    hashes = {k: v for k, v in (hashes or {}).items()
              if isinstance(k, str) and isinstance(v, str) and re.fullmatch(r"[0-9a-f]{32,128}", v)}
    if requires_python is not None and (not isinstance(requires_python, str) or len(requires_python) > 200):
        requires_python = None
    if isinstance(metadata, dict):
        metadata = {k: v for k, v in metadata.items()
                    if isinstance(k, str) and isinstance(v, str) and re.fullmatch(r"[0-9a-f]{32,128}", v)} or True
    elif metadata is not True:
        metadata = None
    return IndexFile(filename, url, project, version, local, pythons, plats, hashes, requires_python, metadata,
                     bool(yanked), size if isinstance(size, int) and not isinstance(size, bool) else None)


@dataclasses.dataclass
class Listing:
    """The wheels an index lists for a project, and what was skipped."""
    url: str
    files: list
    skipped: int = 0
    info: dict | None = None   # the JSON API's 'info' (its version's requires_dist / requires_python)
    kind: str = ""             # 'json-api', 'pep691', 'pep503'


def _json(resp: Response, what: str):
    try:
        return json.loads(resp.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise IndexReadError(f"{_show(resp.url)}: the {what} is not valid JSON") from None


def read_json_api(fetcher: Fetcher, base: str, project: str) -> Listing:
    """PyPI's JSON API: <base>/<project>/json (https://docs.pypi.org/api/json/)."""
    url = base.rstrip("/") + "/" + urllib.parse.quote(project) + "/json"
    resp = fetcher.get(url, accept="application/json")
    if resp.content_type not in ("application/json", ""):
        raise IndexReadError(f"{_show(url)}: expected JSON, got {_show(resp.content_type, 60)}")
    doc = _json(resp, "JSON API answer")
    if not isinstance(doc, dict) or not isinstance(doc.get("releases"), dict):
        raise IndexReadError(f"{_show(url)}: not a PyPI JSON API answer (no 'releases')")
    files, skipped = [], 0
    for entries in list(doc["releases"].values())[:20000]:
        for e in entries if isinstance(entries, list) else []:
            if not isinstance(e, dict) or e.get("packagetype", "bdist_wheel") != "bdist_wheel":
                continue
            meta = e.get("core-metadata", e.get("data-dist-info-metadata"))
            f = _file(project, e.get("filename"), urllib.parse.urljoin(resp.url, str(e.get("url", ""))),
                      e.get("digests"), e.get("requires_python"), meta, e.get("yanked") is True, e.get("size"))
            if f is None:
                skipped += 1
            elif f is not PRE and len(files) < MAX_LINKS:
                files.append(f)
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    clean = {"version": info.get("version") if isinstance(info.get("version"), str) else None,
             "requires_python": info.get("requires_python") if isinstance(info.get("requires_python"), str) else None,
             "requires_dist": [r for r in info.get("requires_dist") or [] if isinstance(r, str)][:500]
             if isinstance(info.get("requires_dist"), list) else None}
    return Listing(url, files, skipped, clean, "json-api")


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[dict] = []
        self.base: str | None = None
        self._a: dict | None = None
        self.too_many = False

    def handle_starttag(self, tag, attrs):
        if tag == "base" and self.base is None:
            self.base = dict(attrs).get("href")
        elif tag == "a":
            if len(self.links) >= MAX_LINKS:
                self.too_many = True
                return
            self._a = {k: (v if v is None or len(v) <= 4000 else None) for k, v in attrs[:20]}
            self._a["_text"] = ""
            self.links.append(self._a)

    def handle_data(self, data):
        if self._a is not None and len(self._a["_text"]) < MAX_NAME + 1:
            self._a["_text"] += data[:MAX_NAME + 1]

    def handle_endtag(self, tag):
        if tag == "a":
            self._a = None


def _hash_of(text: str | None) -> dict | bool | None:
    """'sha256=<hex>' (PEP 658's attribute value) -> {'sha256': hex}; 'true' -> True."""
    if text is None:
        return None
    m = re.fullmatch(r"(\w{1,20})=([0-9a-fA-F]{32,128})", text.strip())
    if m:
        return {m.group(1).lower(): m.group(2).lower()}
    return True if text.strip().lower() == "true" else None


def read_simple(fetcher: Fetcher, index_url: str, project: str) -> Listing:
    """A simple index's project page, <index>/<project>/: PEP 691 JSON when the index offers it
    (asked for first), else PEP 503 HTML."""
    from packaging.utils import canonicalize_name  # noqa: PLC0415
    url = index_url.rstrip("/") + "/" + canonicalize_name(project) + "/"
    resp = fetcher.get(url, accept=ACCEPT_SIMPLE)
    ct = resp.content_type
    files, skipped = [], 0
    if ct == SIMPLE_JSON:
        doc = _json(resp, "PEP 691 page")
        if not isinstance(doc, dict) or not isinstance(doc.get("files"), list) or not isinstance(doc.get("meta"), dict):
            raise IndexReadError(f"{_show(url)}: not a PEP 691 project page (no 'meta' and 'files')")
        for e in doc["files"][:MAX_LINKS]:
            if not isinstance(e, dict):
                skipped += 1
                continue
            meta = e.get("core-metadata", e.get("dist-info-metadata"))
            f = _file(project, e.get("filename"), urllib.parse.urljoin(resp.url, str(e.get("url", ""))), e.get("hashes"),
                      e.get("requires-python"), meta, bool(e.get("yanked")), e.get("size"))
            if f is None:
                skipped += 1 if str(e.get("filename", "")).endswith(".whl") else 0
            elif f is not PRE:
                files.append(f)
        if not files:
            raise IndexReadError(f"{_show(url)}: the page lists no wheels of {_show(project, 40)}"
                                 + (f" ({skipped} files with invalid names skipped)" if skipped else ""))
        return Listing(url, files, skipped, None, "pep691")
    if ct not in ("text/html", SIMPLE_HTML):
        raise IndexReadError(f"{_show(url)}: expected a simple index page (PEP 691 JSON or PEP 503 HTML), "
                             f"got {_show(ct or 'no content type', 60)}")
    try:
        text = resp.body.decode("utf-8")
    except UnicodeDecodeError:
        raise IndexReadError(f"{_show(url)}: the page is not UTF-8") from None
    parser = _Links()
    try:
        parser.feed(text)
        parser.close()
    except Exception as exc:  # noqa: BLE001  (html.parser is lenient; anything else is garbage)
        raise IndexReadError(f"{_show(url)}: the page cannot be parsed as HTML ({type(exc).__name__})") from None
    base = urllib.parse.urljoin(resp.url, parser.base) if parser.base else resp.url
    anchors = 0
    for a in parser.links:
        href = a.get("href")
        if not href:
            continue
        anchors += 1
        full = urllib.parse.urljoin(base, href)
        fragment = urllib.parse.urlsplit(full).fragment
        hashes = {}
        m = re.fullmatch(r"(\w{1,20})=([0-9a-fA-F]{32,128})", fragment or "")
        if m:
            hashes[m.group(1).lower()] = m.group(2).lower()
        name = (a.get("_text") or "").strip() or urllib.parse.unquote(urllib.parse.urlsplit(full).path.rsplit("/", 1)[-1])
        meta = _hash_of(a.get("data-core-metadata", a.get("data-dist-info-metadata")))
        f = _file(project, name, urllib.parse.urldefrag(full)[0], hashes, a.get("data-requires-python"), meta,
                  "data-yanked" in a)
        if f is None:
            skipped += 1 if name.endswith(".whl") or not name else 0
        elif f is not PRE:
            files.append(f)
    if not files:
        raise IndexReadError(f"{_show(url)}: the page lists no wheels of {_show(project, 40)} "
                             + (f"({skipped} links with invalid names skipped)" if skipped else
                                f"({anchors} links, none to a wheel)"))
    return Listing(url, files, skipped, None, "pep503")


# ---------------------------------------------------------------- core metadata

@dataclasses.dataclass
class Metadata:
    name: str
    version: str
    requires_python: str | None
    requires_dist: list
    source: str     # 'pep658', 'wheel-range', 'json-api-info'
    url: str


def parse_metadata(data: bytes, url: str, source: str) -> Metadata:
    if len(data) > MAX_METADATA:
        raise IndexReadError(f"{_show(url)}: the metadata is larger than {MAX_METADATA >> 20} MiB")
    try:
        msg = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(data, headersonly=True)
    except Exception:  # noqa: BLE001
        raise IndexReadError(f"{_show(url)}: the metadata cannot be parsed") from None
    name, version = msg.get("Name"), msg.get("Version")
    if not isinstance(name, str) or not isinstance(version, str):
        raise IndexReadError(f"{_show(url)}: the metadata has no Name or Version")
    reqs = [str(r) for r in (msg.get_all("Requires-Dist") or [])[:1000]]
    rp = msg.get("Requires-Python")
    return Metadata(name.strip()[:200], version.strip()[:64], str(rp).strip()[:200] if rp else None, reqs, source, url)


def _check(meta: Metadata, f: IndexFile) -> Metadata:
    from packaging.utils import canonicalize_name  # noqa: PLC0415
    from packaging.version import InvalidVersion, Version  # noqa: PLC0415
    try:
        same = canonicalize_name(meta.name) == canonicalize_name(f.project) and Version(meta.version).public == f.version
    except InvalidVersion:
        same = False
    if not same:
        raise IndexReadError(f"{_show(meta.url)}: the metadata names {_show(meta.name, 40)} {_show(meta.version, 40)}, "
                             f"not the wheel's {f.project} {f.version}")
    return meta


def read_pep658(fetcher: Fetcher, f: IndexFile) -> Metadata:
    url = f.url + ".metadata"
    resp = fetcher.get(url, limit=MAX_METADATA)
    if isinstance(f.metadata, dict):
        for algo, want in f.metadata.items():
            if algo in hashlib.algorithms_guaranteed:
                if hashlib.new(algo, resp.body).hexdigest() != want:
                    raise IndexReadError(f"{_show(url)}: its {algo} is not the one the index gives (refused)")
                break
    return _check(parse_metadata(resp.body, url, "pep658"), f)


_EOCD = b"PK\x05\x06"
_EOCD64_LOC = b"PK\x06\x07"
_CDH = b"PK\x01\x02"


def read_wheel_range(fetcher: Fetcher, f: IndexFile, tail: int = 65536) -> Metadata:
    """The wheel's *.dist-info/METADATA by HTTP range requests: the end of the zip (its end of
    central directory record), the central directory, then the one member; every offset checked
    against the sizes seen, the member inflated to at most MAX_METADATA."""
    url = f.url
    end = fetcher.get(url, byte_range=(-tail, None), limit=tail + 1024)
    if end.status != 206 and not url.startswith("file:"):
        raise IndexReadError(f"{_show(url)}: the server ignored the byte range (HTTP {end.status}); "
                             "the wheel's metadata cannot be read without downloading it")
    buf = end.body
    i = buf.rfind(_EOCD)
    if i < 0 or len(buf) - i < 22:
        raise IndexReadError(f"{_show(url)}: no zip end record in its last {tail} bytes: not a wheel")
    _sig, _d, _cd, _n1, count, cd_size, cd_off, _clen = struct.unpack("<IHHHHIIH", buf[i:i + 22])
    total = f.size
    if cd_off == 0xFFFFFFFF or cd_size == 0xFFFFFFFF or count == 0xFFFF:
        j = buf.rfind(_EOCD64_LOC, 0, i)
        if j < 0 or i - j < 20:
            raise IndexReadError(f"{_show(url)}: a zip64 wheel without its locator")
        (off64,) = struct.unpack("<Q", buf[j + 8:j + 16])
        rec = fetcher.get(url, byte_range=(off64, off64 + 55), limit=4096).body
        if rec[:4] != b"PK\x06\x06" or len(rec) < 56:
            raise IndexReadError(f"{_show(url)}: a bad zip64 end record")
        count, cd_size, cd_off = struct.unpack("<QQQ", rec[32:56])
    if cd_size > MAX_RESPONSE or count > 200_000 or (total and cd_off + cd_size > total):
        raise IndexReadError(f"{_show(url)}: an implausible central directory ({cd_size} bytes, {count} entries)")
    cd = fetcher.get(url, byte_range=(cd_off, cd_off + cd_size - 1), limit=cd_size + 1024).body
    pos, hit = 0, None
    while pos + 46 <= len(cd):
        if cd[pos:pos + 4] != _CDH:
            raise IndexReadError(f"{_show(url)}: a corrupt central directory")
        (method, csize, usize, nlen, xlen, klen, lho) = (
            struct.unpack("<H", cd[pos + 10:pos + 12])[0], *struct.unpack("<II", cd[pos + 20:pos + 28]),
            *struct.unpack("<HHH", cd[pos + 28:pos + 34]), struct.unpack("<I", cd[pos + 42:pos + 46])[0])
        name = cd[pos + 46:pos + 46 + nlen].decode("utf-8", "replace")
        if re.fullmatch(r"[^/]+\.dist-info/METADATA", name):
            hit = (method, csize, usize, lho)
            break
        pos += 46 + nlen + xlen + klen
    if hit is None:
        raise IndexReadError(f"{_show(url)}: the wheel has no .dist-info/METADATA")
    method, csize, usize, lho = hit
    if csize > MAX_METADATA or usize > MAX_METADATA or method not in (0, 8):
        raise IndexReadError(f"{_show(url)}: its METADATA member is too large or packed an unknown way")
    blob = fetcher.get(url, byte_range=(lho, lho + 30 + 1024 + csize), limit=csize + 4096).body
    if blob[:4] != b"PK\x03\x04":
        raise IndexReadError(f"{_show(url)}: a corrupt local file header")
    nlen, xlen = struct.unpack("<HH", blob[26:30])
    data = blob[30 + nlen + xlen:30 + nlen + xlen + csize]
    if method == 8:
        d = zlib.decompressobj(-15)
        try:
            data = d.decompress(data, MAX_METADATA + 1)
        except zlib.error:
            raise IndexReadError(f"{_show(url)}: its METADATA does not inflate") from None
        if len(data) > MAX_METADATA or d.unconsumed_tail:
            raise IndexReadError(f"{_show(url)}: its METADATA inflates to more than {MAX_METADATA >> 20} MiB")
    return _check(parse_metadata(data, url + "#METADATA", "wheel-range"), f)


def read_metadata(fetcher: Fetcher, f: IndexFile, wheel_range: bool = True) -> Metadata:
    """A wheel's core metadata: PEP 658 where offered, else (wheel_range) by range requests."""
    errors = []
    if f.metadata:
        try:
            return read_pep658(fetcher, f)
        except IndexReadError as exc:
            if exc.status not in (404, 403, 410):
                raise
            errors.append(str(exc))
    if wheel_range:
        return read_wheel_range(fetcher, f)
    raise IndexReadError(errors[0] if errors else f"{_show(f.url)}: the index offers no metadata for it (PEP 658)")
