"""A package index as an attacker would write one: links to local files from an http page (also
through `<base href>`), an https page pointing at plain http, a server that drips one byte every
half second, and HTML crafted to make a parser's time grow faster than the page."""

from __future__ import annotations

import html.parser
import socket
import threading
import time

import pytest

from torch_envcheck.knowledge_update import index as ix

WHEEL = "torch-2.99.0-cp312-cp312-manylinux_2_28_x86_64.whl"


class _Canned:
    """A fetcher answering every GET with one page, as if served from `url`."""

    def __init__(self, url: str, body: str, ctype: str = "text/html"):
        self.url, self.body, self.ctype = url, body.encode(), ctype

    def get(self, url, accept=None, byte_range=None, limit=None):
        return ix.Response(self.url, 200, self.ctype, self.body)


@pytest.mark.parametrize("page,link,refused", [
    ("http://idx.example/simple/torch/", "file:///etc/" + WHEEL, "file: link on an http: page"),
    ("https://idx.example/simple/torch/", "file:///etc/" + WHEEL, "file: link on an https: page"),
    ("https://idx.example/simple/torch/", "http://idx.example/f/" + WHEEL, "http: link on an https: page"),
    ("https://idx.example/simple/torch/", "ftp://idx.example/f/" + WHEEL, "ftp: link"),
    ("https://idx.example/simple/torch/", "https://files.example/f/" + WHEEL, None),
    ("http://idx.example/simple/torch/", "https://files.example/f/" + WHEEL, None),
    ("file:///srv/simple/torch/index.html", "file:///srv/f/" + WHEEL, None),
])
def test_links_keep_the_pages_scheme_policy(page, link, refused):
    why = ix.links_ok(page, link)
    assert (why is None) if refused is None else (refused in why)
    html_page = f"<a href='{link}'>{WHEEL}</a>"
    if refused is None:
        listing = ix.read_simple(_Canned(page, html_page), "http://idx.example/simple", "torch")
        assert [f.url for f in listing.files] == [link] and listing.refused is None
    else:
        with pytest.raises(ix.IndexReadError, match="scheme policy"):
            ix.read_simple(_Canned(page, html_page), "http://idx.example/simple", "torch")


def test_base_href_cannot_turn_links_into_local_files_or_plain_http():
    page = f"<base href='file:///home/'><a href='{WHEEL}'>{WHEEL}</a>"
    with pytest.raises(ix.IndexReadError, match="file: link on an http: page"):
        ix.read_simple(_Canned("http://idx.example/simple/torch/", page), "http://idx.example/simple", "torch")
    page = f"<base href='http://idx.example/'><a href='{WHEEL}'>{WHEEL}</a>"
    with pytest.raises(ix.IndexReadError, match="http: link on an https: page"):
        ix.read_simple(_Canned("https://idx.example/simple/torch/", page), "https://idx.example/simple", "torch")
    # one good link and one planted: the good one is kept, the other named
    page = (f"<a href='https://f.example/{WHEEL}'>{WHEEL}</a>"
            f"<a href='file:///etc/torch-2.99.0-cp311-cp311-manylinux_2_28_x86_64.whl'>x</a>")
    listing = ix.read_simple(_Canned("https://idx.example/simple/torch/", page), "https://idx.example/simple", "torch")
    assert len(listing.files) == 1 and "1 x a file: link" in listing.refused


def test_pep691_and_json_api_links_keep_the_policy_too():
    import json
    doc = {"meta": {"api-version": "1.1"}, "name": "torch",
           "files": [{"filename": WHEEL, "url": "file:///etc/" + WHEEL, "hashes": {}}]}
    with pytest.raises(ix.IndexReadError, match="file: link"):
        ix.read_simple(_Canned("https://idx.example/simple/torch/", json.dumps(doc), ix.SIMPLE_JSON),
                       "https://idx.example/simple", "torch")
    api = {"info": {}, "releases": {"2.99.0": [{"filename": WHEEL, "url": "http://f.example/" + WHEEL,
                                                "packagetype": "bdist_wheel"}]}}
    listing = ix.read_json_api(_Canned("https://pypi.example/pypi/torch/json", json.dumps(api), "application/json"),
                               "https://pypi.example/pypi", "torch")
    assert listing.files == [] and "http: link on an https: page" in listing.refused


# ------------------------------------------------------------------ deadlines inside the reads

class _Drip:
    """A server on 127.0.0.1 that answers each connection by sending its bytes one at a time, one
    every `gap` seconds (headers first when `body_only`), and stops within `life` seconds."""

    def __init__(self, payload: bytes, gap: float = 0.5, life: float = 15.0):
        self.payload, self.gap, self.life = payload, gap, life
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self):
        end = time.monotonic() + self.life
        while not self.stop.is_set() and time.monotonic() < end:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._drip, args=(conn, end), daemon=True).start()

    def _drip(self, conn, end):
        with conn:
            try:
                conn.recv(65536)
                for b in self.payload:
                    if self.stop.is_set() or time.monotonic() > end:
                        return
                    conn.sendall(bytes([b]))
                    time.sleep(self.gap)
            except OSError:
                pass

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.sock.close()
        self.thread.join(5)


BODY = b"<a href='x'>" + b"A" * 1000 + b"</a>"
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(BODY)


@pytest.mark.parametrize("what,payload,fast_head", [("body", BODY, True), ("headers", HEAD + BODY, False)])
def test_a_server_dripping_bytes_is_cut_off_at_the_deadline(what, payload, fast_head):
    server = _HeadThenDrip(payload) if fast_head else _Drip(payload)
    with server:
        f = ix.Fetcher(timeout=5.0, deadline=2.0)
        t0 = time.monotonic()
        with pytest.raises(ix.IndexReadError, match="did not finish within 2 s"):
            f.get(server.url + "/simple/torch/")
        took = time.monotonic() - t0
    assert took < 3.0, f"{what}: read for {took:.1f} s past a 2 s deadline"


class _HeadThenDrip(_Drip):
    def _drip(self, conn, end):
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(HEAD)
                for b in self.payload:
                    if self.stop.is_set() or time.monotonic() > end:
                        return
                    conn.sendall(bytes([b]))
                    time.sleep(self.gap)
            except OSError:
                pass


def test_the_runs_time_budget_bounds_every_request_together():
    f = ix.Fetcher(timeout=5.0, deadline=10.0, budget=0.0)
    with pytest.raises(ix.IndexReadError, match="time budget"):
        f.get("http://127.0.0.1:9/simple/torch/")


# ------------------------------------------------------------------ a linear HTML scanner

ADVERSARIAL = {
    # the inputs that make html.parser (before CPython's fix) or a backtracking regex quadratic
    "unclosed tags": "<a " * (1 << 18),
    "unterminated attribute": "<a href='" + "x" * (1 << 20),
    "comment openers": "<!--" * (1 << 18),
    "lone brackets": "<" * (1 << 20),
    "bogus markup": "<!" * (1 << 19),
    "char refs": "&#" * (1 << 19),
    "attributes": "<a " + "b=c " * (1 << 18),
    "close tags": "</" * (1 << 19),
    "tag soup": "<a href=x>a</a><" * (1 << 16),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_the_html_scanner_is_linear_on_crafted_pages(name):
    text = ADVERSARIAL[name]
    t0 = time.process_time()
    links, _base, _cut = ix.scan_html(text)
    took = time.process_time() - t0
    # this process's CPU time, so that other processes on a loaded machine do not count: a generous
    # bound for 1 MiB; a quadratic scan takes minutes
    assert took < 2.0 * max(1, len(text) / (1 << 20)), f"{name}: {took:.2f} s of CPU"
    assert len(links) <= ix.MAX_LINKS


def test_the_scanner_reads_what_a_pep503_page_says():
    page = ("<!DOCTYPE html><html><head><base href='https://f.example/root/'><!-- <a href='no'>no</a> -->"
            "</head><body><h1>Links for torch</h1>\n"
            "<a href=\"a/torch-2.15.0-cp312-cp312-win_amd64.whl#sha256=00ff\" data-requires-python=\"&gt;=3.10\" "
            "data-dist-info-metadata=\"sha256=ab\" data-yanked>torch-2.15.0-cp312-cp312-win_amd64.whl</a><br/>\n"
            "<A HREF=b/torch-2.15.0-cp313-cp313-win_amd64.whl>torch&#45;2.15.0-cp313-cp313-win_amd64.whl</A>\n"
            "</body></html>")
    links, base, cut = ix.scan_html(page)
    assert base == "https://f.example/root/" and not cut
    assert [a["href"] for a in links] == ["a/torch-2.15.0-cp312-cp312-win_amd64.whl#sha256=00ff",
                                          "b/torch-2.15.0-cp313-cp313-win_amd64.whl"]
    assert links[0]["data-requires-python"] == ">=3.10" and "data-yanked" in links[0]
    assert links[0]["data-dist-info-metadata"] == "sha256=ab"
    assert [a["_text"] for a in links] == ["torch-2.15.0-cp312-cp312-win_amd64.whl",
                                           "torch-2.15.0-cp313-cp313-win_amd64.whl"]
    # the same anchors html.parser finds (the standard library's reading of the same page)
    seen = []

    class P(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "a":
                seen.append(dict(attrs)["href"])
    P().feed(page)
    assert seen == [a["href"] for a in links]


# ------------------------------------------------------------------ a truncated wheel

def _wheel_bytes() -> bytes:
    import io
    import os
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(50):
            z.writestr(f"torch/part{i}.py", os.urandom(32).hex())
        z.writestr("torch-2.99.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.99.0\n"
                   + "Requires-Dist: nvidia-cudnn-cu13==9.99.0.1\n" * 200)
    return buf.getvalue()


@pytest.mark.parametrize("cut", ["header-at-the-end", "directory", "end-record"])
def test_a_truncated_wheel_is_one_clear_error(tmp_path, cut):
    import struct
    data = bytearray(_wheel_bytes())
    eocd = data.rfind(b"PK\x05\x06")
    if cut == "header-at-the-end":  # the member's header starts 10 bytes before the end of the file
        name = b"torch-2.99.0.dist-info/METADATA"
        entry = data.rfind(b"PK\x01\x02", 0, data.rfind(name))
        data[entry + 42:entry + 46] = struct.pack("<I", len(data))
        data += b"PK\x03\x04" + b"\0" * 6
    elif cut == "directory":
        data = data[:eocd - 30] + data[eocd:]
    else:
        data = data[:eocd + 10]
    path = tmp_path / WHEEL
    path.write_bytes(bytes(data))
    f = ix._file("torch", WHEEL, path.as_uri())
    with pytest.raises(ix.IndexReadError) as exc:
        ix.read_wheel_range(ix.Fetcher(), f)
    assert "\n" not in str(exc.value) and WHEEL in str(exc.value)
