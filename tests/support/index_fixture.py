"""Package indexes the tests build from the recorded PyPI answers (tests/fixtures/indexes, SOURCES.md)
for the knowledge readers: a file:// folder tree and an http.server on 127.0.0.1.

    recorded_tree(root)      the recorded answers as they were served, laid out as a file:// index:
                             <root>/pypi/<project>/json (PyPI's JSON API; its relative file URLs
                             resolve to <root>/packages/packages/...), <root>/simple-json/<project>/
                             index.json (PEP 691), <root>/simple-html/<project>/index.html (PEP 503),
                             and the recorded .metadata files next to the wheels they describe
    test_index(root)         the same plus MADE-UP releases for `knowledge update` to learn: torch
                             2.16.0 (PyPI: CUDA 13.4 pins; a PyTorch index with 2.16.0+cu134 and
                             2.15.0/2.16.0+cu126) and TensorFlow 2.22.0; made-up versions are
                             marked as such in the metadata they carry (Summary line)
    IndexServer(tree)        serves a tree on 127.0.0.1 (port 0, a daemon thread) with PEP 691 / PEP
                             503 content negotiation, plus hostile routes (garbage, a 100 MB body
                             streamed, a slow answer, a redirect loop, a wrong content type,
                             names with ANSI escapes)

The index answers keep their recorded bytes; only file URLs are pointed at the test tree and the
metadata hashes of the files whose .metadata is served are filled in (PyPI did not give them for
torch).
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import re
import shutil
import threading
import time
import urllib.parse

from paths import TESTS

FIXTURES = os.path.join(TESTS, "fixtures", "indexes")
FILES_HOST = "https://files.pythonhosted.org/packages/"


def _read(name: str) -> bytes:
    with open(os.path.join(FIXTURES, name), "rb") as fh:
        return fh.read()


def _write(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


def metadata_files() -> dict:
    """wheel file name -> its recorded core metadata bytes."""
    return {n[:-len(".metadata")]: _read(n) for n in os.listdir(FIXTURES) if n.endswith(".whl.metadata")}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _json_api(project: str, root: str, meta: dict, extra_files=()) -> bytes:
    doc = json.loads(_read(f"pypi-json-{project}.json"))
    for files in doc["releases"].values():
        for f in files:
            if f["filename"] in meta:
                f["core-metadata"] = {"sha256": _sha(meta[f["filename"]])}
                rel = urllib.parse.urlsplit(f["url"]).path  # ../../packages/packages/<hash>/<file>
                _write(os.path.normpath(os.path.join(root, "pypi", project, rel.lstrip("/"))) + ".metadata",
                       meta[f["filename"]])
    for f in extra_files:
        doc["releases"].setdefault(f["version"], []).append(
            {"filename": f["filename"], "url": f"../../packages/packages/made-up/{f['filename']}",
             "requires_python": f["requires_python"], "yanked": False, "packagetype": "bdist_wheel",
             "digests": {"sha256": "0" * 64}, "core-metadata": {"sha256": _sha(f["metadata"])}})
        _write(os.path.join(root, "packages", "packages", "made-up", f["filename"] + ".metadata"), f["metadata"])
    return json.dumps(doc).encode()


def _simple_json(project: str, files_base: str, meta: dict, extra_files=()) -> bytes:
    doc = json.loads(_read(f"pypi-simple-{project}.json"))
    for f in doc["files"]:
        f["url"] = f["url"].replace(FILES_HOST, files_base)
        if f["filename"] in meta:
            f["core-metadata"] = {"sha256": _sha(meta[f["filename"]])}
    for f in extra_files:
        doc["files"].append({"filename": f["filename"], "url": files_base + "made-up/" + f["filename"],
                             "hashes": {"sha256": "0" * 64}, "requires-python": f["requires_python"],
                             "core-metadata": {"sha256": _sha(f["metadata"])}, "yanked": False})
    return json.dumps(doc).encode()


def _simple_html(project: str, files_base: str, meta: dict, extra_files=()) -> bytes:
    text = _read(f"pypi-simple-{project}.html").decode()
    text = text.replace(FILES_HOST, files_base)
    for name, data in meta.items():
        text = text.replace(f'>{name}</a>', f' data-core-metadata="sha256={_sha(data)}">{name}</a>')
    lines = [f'<a href="{files_base}made-up/{f["filename"]}#sha256={"0" * 64}" '
             f'data-requires-python="{f["requires_python"].replace(">", "&gt;")}" '
             f'data-dist-info-metadata="sha256={_sha(f["metadata"])}">{f["filename"]}</a><br/>' for f in extra_files]
    return text.replace("</body>", "\n".join(lines) + "\n</body>").encode()


def _place_metadata(files_dir: str, meta: dict, project: str) -> None:
    doc = json.loads(_read(f"pypi-simple-{project}.json"))
    for f in doc["files"]:
        if f["filename"] in meta:
            rel = f["url"][len(FILES_HOST):]
            _write(os.path.join(files_dir, rel) + ".metadata", meta[f["filename"]])


def recorded_tree(root: str, extra: dict | None = None) -> dict:
    """The recorded answers as a file:// index under `root`; returns the URLs to give the commands."""
    meta = metadata_files()
    extra = extra or {}
    files_base = "file://" + os.path.join(root, "files") + "/"
    for project in ("torch", "tensorflow"):
        pm = {k: v for k, v in meta.items() if k.startswith(project + "-")}
        more = extra.get(project, ())
        _write(os.path.join(root, "pypi", project, "json"), _json_api(project, root, pm, more))
        _write(os.path.join(root, "simple-json", project, "index.json"), _simple_json(project, files_base, pm, more))
        _write(os.path.join(root, "simple-html", project, "index.html"), _simple_html(project, files_base, pm, more))
        _place_metadata(os.path.join(root, "files"), pm, project)
        for f in more:
            _write(os.path.join(root, "files", "made-up", f["filename"] + ".metadata"), f["metadata"])
    for tag, files in extra.get("pytorch", {}).items():
        links = [f'<a href="{files_base}made-up/{f["filename"].replace("+", "%2B")}" '
                 f'data-dist-info-metadata="sha256={_sha(f["metadata"])}">{f["filename"]}</a><br/>' for f in files]
        _write(os.path.join(root, "whl", tag, "torch", "index.html"),
               ("<!DOCTYPE html><html><body><h1>Links for torch</h1>\n" + "\n".join(links) + "\n</body></html>").encode())
        for f in files:
            _write(os.path.join(root, "files", "made-up", f["filename"] + ".metadata"), f["metadata"])
    return {"root": root, "pypi_json": "file://" + os.path.join(root, "pypi"),
            "simple_json": "file://" + os.path.join(root, "simple-json"),
            "simple_html": "file://" + os.path.join(root, "simple-html"),
            "mirror": "file://" + os.path.join(root, "whl")}


# ---------------------------------------------------------------- made-up releases

MADE_UP = "Summary: MADE-UP metadata for torch_envcheck's tests (not a real release)"


def _made_up_metadata(base_file: str, version: str, subs: dict) -> bytes:
    text = _read(base_file).decode()
    text = re.sub(r"^Version: .*$", f"Version: {version}", text, count=1, flags=re.M)
    text = re.sub(r"^Summary: .*$", MADE_UP, text, count=1, flags=re.M)
    for old, new in subs.items():
        text = text.replace(old, new)
    return text.encode()


def made_up_releases() -> dict:
    """torch 2.16.0 (CUDA 13.4 on PyPI's Linux wheels; cu134 and cu126 on the PyTorch index),
    torch 2.15.0+cu126, TensorFlow 2.22.0: all MADE UP for the tests."""
    linux = "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl.metadata"
    subs_134 = {"==13.2.2": "==13.4.0", "nvidia-cudnn-cu13==9.26.0.51": "nvidia-cudnn-cu13==9.30.0.7"}
    meta_216 = _made_up_metadata(linux, "2.16.0", subs_134)
    torch = []
    for py in ("311", "312", "313", "314", "315"):
        for plat in ("manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "win_amd64", "macosx_14_0_arm64"):
            torch.append({"filename": f"torch-2.16.0-cp{py}-cp{py}-{plat}.whl", "version": "2.16.0",
                          "requires_python": ">=3.11", "metadata": meta_216})

    def pt(version, tag, cudnn_pin, cuda_pin):
        m = _made_up_metadata(linux, f"{version}+{tag}", {"nvidia-cudnn-cu13==9.26.0.51": cudnn_pin,
                                                          "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,cusolver,"
                                                          "cusparse,nvjitlink,nvrtc,nvtx]==13.2.2": cuda_pin})
        return [{"filename": f"torch-{version}+{tag}-cp312-cp312-{plat}.whl", "metadata": m}
                for plat in ("manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "win_amd64")]
    cu12 = "nvidia-cuda-runtime-cu12==12.6.77"
    pytorch = {"cu134": pt("2.16.0", "cu134", "nvidia-cudnn-cu13==9.30.0.7", "cuda-toolkit[cudart]==13.4.0"),
               "cu126": pt("2.15.0", "cu126", "nvidia-cudnn-cu12==9.10.2.21", cu12)
               + pt("2.16.0", "cu126", "nvidia-cudnn-cu12==9.10.2.21", cu12)}
    tf_meta = _made_up_metadata("tensorflow-2.21.0-cp312-cp312-manylinux_2_27_x86_64.whl.metadata", "2.22.0",
                                {"Requires-Python: >=3.10": "Requires-Python: >=3.11",
                                 "nvidia-cudnn-cu12<10.0,>=9.3.0.75": "nvidia-cudnn-cu12<10.0,>=9.8.0.87"})
    tf = [{"filename": f"tensorflow-2.22.0-cp{py}-cp{py}-manylinux_2_27_x86_64.whl", "version": "2.22.0",
           "requires_python": ">=3.11", "metadata": tf_meta} for py in ("311", "312", "313", "314")]
    return {"torch": torch, "tensorflow": tf, "pytorch": pytorch}


def test_index(root: str) -> dict:
    return recorded_tree(root, made_up_releases())


# ---------------------------------------------------------------- a local server

class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "te-test-index"

    def log_message(self, *args):  # quiet
        pass

    def _send(self, status: int, ctype: str, body: bytes, extra: dict | None = None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):  # noqa: N802
        root = self.server.tree
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        hostile = self.server.hostile(self, path)
        if hostile:
            return
        local = os.path.normpath(os.path.join(root, path.lstrip("/")))
        if not local.startswith(root):
            return self._send(403, "text/plain", b"no")
        if os.path.isdir(local):
            accept = self.headers.get("Accept", "")
            want_json = "application/vnd.pypi.simple.v1+json" in accept
            for name, ctype in ((("index.json", "application/vnd.pypi.simple.v1+json"), ("index.html", "text/html"))
                                if want_json else (("index.html", "text/html"), ("index.json", "application/vnd.pypi.simple.v1+json"))):
                f = os.path.join(local, name)
                if os.path.isfile(f):
                    with open(f, "rb") as fh:
                        return self._send(200, ctype, fh.read())
            return self._send(404, "text/plain", b"not found")
        if os.path.isfile(local):
            with open(local, "rb") as fh:
                data = fh.read()
            ctype = "application/json" if local.endswith("json") else "application/octet-stream"
            m = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", "") or "")
            if m and (m.group(1) or m.group(2)) and self.server.ranges:  # RFC 9110 byte ranges
                if not m.group(1):  # a suffix: the last N bytes
                    lo, end = max(0, len(data) - int(m.group(2))), len(data) - 1
                else:
                    lo = int(m.group(1))
                    end = min(len(data) - 1, int(m.group(2))) if m.group(2) else len(data) - 1
                return self._send(206, ctype, data[lo:end + 1],
                                  {"Content-Range": f"bytes {lo}-{end}/{len(data)}"})
            return self._send(200, ctype, data)
        return self._send(404, "text/plain", b"not found")


class IndexServer:
    """An index on http://127.0.0.1:<port>/ serving `tree` (as written by recorded_tree/test_index,
    whose file:// URLs inside the answers are rewritten to this server), plus hostile routes."""

    def __init__(self, tree: str):
        self.tree = tree
        self.slow_seconds = 3.0
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # a client that stops reading is expected
        self.httpd.tree = tree
        self.httpd.hostile = self._hostile
        self.httpd.ranges = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._rewrite("file://" + tree, self.url)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def _rewrite(self, old: str, new: str) -> None:
        for dirpath, _dirs, files in os.walk(self.tree):
            for name in files:
                if name in ("json", "index.json", "index.html"):
                    p = os.path.join(dirpath, name)
                    with open(p, encoding="utf-8") as fh:
                        text = fh.read()
                    with open(p, "w", encoding="utf-8") as fh:
                        fh.write(text.replace(old, new))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def _hostile(self, h: _Handler, path: str) -> bool:
        if path.startswith("/garbage/"):
            h._send(200, "text/html", "<html><body><<<a href=>>> not an index <a>text</a><a href='../../'>up</a>"
                                      "</div></table><script>".encode() + bytes(range(1, 9)))
        elif path.startswith("/binary/"):
            h._send(200, "text/html", b"\x00\xff\xfe<a href=x>\x80\x81</a>")
        elif path.startswith("/huge/"):
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.end_headers()
            chunk = b"<a href='x'>" + b"A" * 65524 + b"</a>"
            try:
                for _ in range(100 * 16):  # 100 MB, streamed without a length; the reader must stop early
                    h.wfile.write(chunk)
            except OSError:
                pass
        elif path.startswith("/declared-huge/"):
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.send_header("Content-Length", str(100 << 20))
            h.end_headers()
        elif path.startswith("/slow/"):
            time.sleep(self.slow_seconds)
            h._send(200, "text/html", b"<a href='torch-2.16.0-cp312-cp312-win_amd64.whl'>torch-2.16.0-cp312-cp312-win_amd64.whl</a>")
        elif path.startswith("/loop/"):
            h._send(302, "text/plain", b"", {"Location": path})
        elif path.startswith("/chain/"):
            n = int(re.sub(r"\D", "", path.split("/")[2]) or 0)
            h._send(302, "text/plain", b"", {"Location": f"/chain/{n + 1}/torch/"})
        elif path.startswith("/to-file/"):
            h._send(302, "text/plain", b"", {"Location": "file:///etc/passwd"})
        elif path.startswith("/wrongtype/"):
            h._send(200, "image/png", b"\x89PNG\r\n\x1a\n")
        elif path.startswith("/ansi/"):
            body = ("<a href='/f/torch-2.16.0-cp312-cp312-win_amd64.whl'>torch-2.16.0\x1b[31mEVIL\x1b[0m-cp312-cp312-win_amd64.whl</a>"
                    "<a href='/f/torch-2.16.0%1b%5b2J-cp312-cp312-win_amd64.whl'></a>").encode()
            h._send(200, "text/html", body)
        elif path.startswith("/ansi-json/"):
            doc = {"meta": {"api-version": "1.1"}, "name": "torch",
                   "files": [{"filename": "torch-2.16.0\x1b]0;pwned\x07-cp312-cp312-win_amd64.whl", "url": "/x",
                              "hashes": {}}]}
            h._send(200, "application/vnd.pypi.simple.v1+json", json.dumps(doc).encode())
        elif path.startswith("/badhash/"):
            name = "torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl"
            if path.endswith(".metadata"):
                h._send(200, "application/octet-stream", b"Metadata-Version: 2.1\nName: torch\nVersion: 2.16.0\n")
            else:
                h._send(200, "text/html", f"<a href='/badhash/{name}' data-core-metadata='sha256={'ab' * 32}'>{name}</a>".encode())
        else:
            return False
        return True


def copy_tree(src: str, dst: str) -> str:
    shutil.copytree(src, dst)
    return dst
