"""The package-index readers against indexes the tests build from the recorded PyPI answers
(a file:// tree and a PEP 503/691 server on 127.0.0.1), and against hostile ones: garbage HTML, a
100 MB body, a slow server, redirect loops, https->http, a wrong content type, names with terminal
escapes, a metadata file whose hash does not match."""

from __future__ import annotations

import io
import os
import zipfile

import pytest

from torch_envcheck.knowledge_update import index as ix
from torch_envcheck.knowledge_update import learn

import index_fixture


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return index_fixture.test_index(str(tmp_path_factory.mktemp("idx")))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("srv"))
    index_fixture.test_index(root)
    _small_wheel(root)
    with index_fixture.IndexServer(root) as srv:
        yield srv


def _small_wheel(root: str) -> str:
    """A real (tiny) wheel zip whose METADATA the range reader must find among other members."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(300):
            z.writestr(f"torch/lib/part{i}.py", os.urandom(64).hex())
        z.writestr("torch-2.16.0.dist-info/METADATA",
                   "Metadata-Version: 2.4\nName: torch\nVersion: 2.16.0\nRequires-Python: >=3.11\n"
                   "Requires-Dist: cuda-toolkit[cudart]==13.4.0; platform_system == \"Linux\"\n"
                   "Requires-Dist: nvidia-cudnn-cu13==9.30.0.7; platform_system == \"Linux\"\n")
        z.writestr("torch-2.16.0.dist-info/RECORD", "")
    path = os.path.join(root, "wheels", "torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(buf.getvalue())
    return path


def F(**kw):
    return ix.Fetcher(**kw)


# ------------------------------------------------------------------ the formats

@pytest.mark.parametrize("kind", ["simple_json", "simple_html"])
def test_file_tree_pep691_and_pep503_agree(tree, kind):
    listing = ix.read_simple(F(), tree[kind], "torch")
    assert listing.kind == ("pep691" if kind == "simple_json" else "pep503")
    names = {f.filename for f in listing.files}
    assert "torch-2.15.0-cp315-cp315-manylinux_2_28_x86_64.whl" in names
    assert "torch-2.16.0-cp312-cp312-win_amd64.whl" in names     # the made-up release
    f = next(f for f in listing.files if f.filename == "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl")
    assert f.version == "2.15.0" and f.local is None and f.pythons == ("3.12",) and f.platforms == ("linux_x86_64",)
    assert len(f.hashes["sha256"]) == 64 and isinstance(f.metadata, dict)
    built = next(f for f in listing.files if f.filename.startswith("torch-2.10.0-3-"))
    assert built.version == "2.10.0"                             # a build tag counts as its version


def test_json_api_relative_urls_and_info(tree):
    listing = ix.read_json_api(F(), tree["pypi_json"], "torch")
    assert listing.kind == "json-api" and listing.info["version"] == "2.15.0"
    f = next(f for f in listing.files if f.filename == "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl")
    assert f.url.startswith("file://" + tree["root"] + "/packages/packages/")
    meta = ix.read_metadata(F(), f, wheel_range=False)
    assert meta.source == "pep658" and meta.requires_python == ">=3.11"
    assert learn.torch_pins(meta.requires_dist, "linux_x86_64", "3.12") == {"tag": "cu132", "cuda": "13.2",
                                                                          "cudnn": "9.26.0.51"}
    assert learn.torch_pins(meta.requires_dist, "win_amd64", "3.12")["tag"] == "cpu"   # the same lines, markers
    assert learn.torch_pins(meta.requires_dist, "macos_arm64", "3.12")["tag"] == "cpu"


def test_server_negotiates_json_first_and_html_when_asked(server):
    listing = ix.read_simple(F(), server.url + "/simple-json", "torch")
    assert listing.kind == "pep691" and len(listing.files) > 300
    html_only = ix.read_simple(F(), server.url + "/simple-html", "torch")
    assert html_only.kind == "pep503" and {f.filename for f in html_only.files} == {f.filename for f in listing.files}
    f = next(f for f in html_only.files if f.filename == "torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl")
    meta = ix.read_metadata(F(), f, wheel_range=False)
    assert meta.version == "2.16.0" and "MADE-UP" not in meta.name
    assert learn.torch_pins(meta.requires_dist, "linux_x86_64")["tag"] == "cu134"


def test_pytorch_index_builds_and_tf_and_cuda(tree):
    listing = ix.read_simple(F(), tree["mirror"] + "/cu134", "torch")
    assert {(f.version, f.local) for f in listing.files} == {("2.16.0", "cu134")}
    tf = ix.read_json_api(F(), tree["pypi_json"], "tensorflow")
    f = next(f for f in tf.files if f.filename == "tensorflow-2.21.0-cp312-cp312-manylinux_2_27_x86_64.whl")
    pins = learn.and_cuda(ix.read_metadata(F(), f, wheel_range=False).requires_dist)
    assert "nvidia-cudnn-cu12<10.0,>=9.3.0.75" in pins and len(pins) == 12


def test_wheel_metadata_by_range_requests(server):
    url = server.url + "/wheels/torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl"
    f = ix._file("torch", "torch-2.16.0-cp312-cp312-manylinux_2_28_x86_64.whl", url)
    fetcher = F()
    meta = ix.read_metadata(fetcher, f)                   # no PEP 658: the range reader
    assert meta.source == "wheel-range" and meta.requires_python == ">=3.11"
    assert learn.torch_pins(meta.requires_dist, "linux_aarch64")["cudnn"] == "9.30.0.7"
    server.httpd.ranges = False                          # a server that ignores Range
    try:
        with pytest.raises(ix.IndexReadError, match="ignored the byte range"):
            ix.read_wheel_range(F(), f)
    finally:
        server.httpd.ranges = True


# ------------------------------------------------------------------ hostile indexes

@pytest.mark.parametrize("route,words", [("/garbage", "lists no wheels"), ("/binary", "not UTF-8")])
def test_garbage_is_one_clear_error(server, route, words):
    with pytest.raises(ix.IndexReadError) as exc:
        ix.read_simple(F(), server.url + route, "torch")
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_a_100_mb_body_is_cut_off(server):
    fetcher = F()
    with pytest.raises(ix.IndexReadError, match="larger than 8 MiB"):
        ix.read_simple(fetcher, server.url + "/huge", "torch")
    assert fetcher.used <= ix.MAX_RESPONSE + 65536
    with pytest.raises(ix.IndexReadError, match="100 MiB"):
        ix.read_simple(F(), server.url + "/declared-huge", "torch")


def test_the_run_cap(server):
    fetcher = F(max_run=200_000)
    with pytest.raises(ix.IndexReadError, match="this run's limit"):
        for _ in range(10):
            ix.read_simple(fetcher, server.url + "/simple-json", "torch")


def test_a_slow_server_times_out(server):
    with pytest.raises(ix.IndexReadError) as exc:
        ix.read_simple(F(timeout=0.5), server.url + "/slow", "torch")
    assert "timed out" in str(exc.value).lower()


@pytest.mark.parametrize("route,words", [("/loop", "infinite loop"), ("/chain/0", "redirect refused"),
                                         ("/to-file", "not allowed")])
def test_redirects_are_bounded(server, route, words):
    with pytest.raises(ix.IndexReadError, match=words):
        ix.read_simple(F(), server.url + route, "torch")


def test_https_to_http_is_refused():
    import urllib.request
    req = urllib.request.Request("https://index.example/simple/torch/")
    with pytest.raises(ix.IndexReadError, match="https to http"):
        ix._Redirects().redirect_request(req, None, 302, "Found", {}, "http://index.example/simple/torch/")


def test_wrong_content_type(server):
    with pytest.raises(ix.IndexReadError, match="expected a simple index page"):
        ix.read_simple(F(), server.url + "/wrongtype", "torch")
    with pytest.raises(ix.IndexReadError, match="expected JSON"):
        ix.read_json_api(F(), server.url + "/wrongtype", "torch")


@pytest.mark.parametrize("route", ["/ansi", "/ansi-json"])
def test_names_with_terminal_escapes_are_skipped_never_printed(server, route):
    with pytest.raises(ix.IndexReadError) as exc:
        ix.read_simple(F(), server.url + route, "torch")
    text = str(exc.value)
    assert "\x1b" not in text and "\x07" not in text


def test_metadata_with_the_wrong_hash_is_refused(server):
    listing = ix.read_simple(F(), server.url + "/badhash", "torch")
    with pytest.raises(ix.IndexReadError, match="sha256 is not the one"):
        ix.read_metadata(F(), listing.files[0], wheel_range=False)


def test_not_a_url():
    with pytest.raises(ix.IndexReadError, match="not an http"):
        F().get("ftp://example.org/simple/")


def test_unreachable_host_is_one_line():
    with pytest.raises(ix.IndexReadError) as exc:
        F(timeout=2).get("http://127.0.0.1:9/simple/torch/")
    assert "\n" not in str(exc.value)


def test_filenames_are_validated():
    ok = ix.parse_filename("torch-2.15.0+cu132-cp312-cp312-manylinux_2_28_x86_64.whl", "torch")
    assert ok == ("2.15.0", "cu132", ("3.12",), ("linux_x86_64",))
    assert ix.parse_filename("torch-2.15.0+evil-cp312-cp312-win_amd64.whl", "torch") is None   # unknown label
    assert ix.parse_filename("torch-2.16.0rc1-cp312-cp312-win_amd64.whl", "torch") is ix.PRE   # ignored, not invalid
    assert ix.parse_filename("torchvision-0.29.0-cp312-cp312-win_amd64.whl", "torch") is None  # another project
    assert ix.parse_filename("torch-2.16.0.tar.gz", "torch") is None
    assert ix.parse_filename("torch-2.16.0-cp312-cp312-win_amd64.whl\n", "torch") is None
