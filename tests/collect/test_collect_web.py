"""The web source against a real HTTP server on 127.0.0.1 serving a small doc site."""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from builtpages import BUILT, DOXYGEN, GIDOCGEN, GTKDOC, JAVADOC, MKDOCSTRINGS, RUSTDOC, TYPEDOC
from jupiter.collect.web import collect_web, extract_links, normalise
from jupiter.config import WebSource
from jupiter.errors import JupiterError

NAV = '<nav><a href="/">Home</a> <a href="/guide/install.html">Install</a> Site menu</nav>'
FOOTER = "<footer>Copyright 2024 Widget Corp. All rights reserved.</footer>"


def page(title: str, body: str, links: str = "", nav: str = NAV) -> str:
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{nav}"
        f"<main><h1>{title}</h1>{body}{links}</main>{FOOTER}</body></html>"
    )


PARA = {
    "index": "<p>Widgets are small reusable parts that every application can share.</p>",
    "install": "<p>To install a widget, run the installer and choose a folder for it.</p>"
    "<p>Widgets need Python 3.10 or newer on every platform.</p>",
    "usage": "<p>Call spin with a speed in turns per second to start the widget.</p>",
    "deep": "<p>Advanced widgets can be chained so that one drives the next.</p>",
    "deeper": "<p>Chains longer than eight widgets lose torque at every link.</p>",
    "secret": "<p>This private page must never be fetched by the crawler.</p>",
}

SITE: dict[str, bytes | str] = {
    "robots.txt": "User-agent: *\nDisallow: /private/\n",
    "index.html": page(
        "Widget docs",
        PARA["index"],
        '<ul><li><a href="guide/install.html">Install</a></li>'
        '<li><a href="/guide/usage.html#top">Usage</a></li>'
        '<li><a href="/private/secret.html">Secret</a></li>'
        '<li><a href="http://other.example/page.html">Elsewhere</a></li>'
        '<li><a href="/img/logo.png">Logo</a></li>'
        '<li><a href="/missing.html">Gone</a></li>'
        '<li><a href="mailto:team@example.org">Mail</a></li>'
        '<li><a href="#">Top</a></li></ul>',
    ),
    "guide/install.html": page(
        "Installing widgets", PARA["install"], '<a href="advanced/deep.html">Deep</a>'
    ),
    "guide/usage.html": page(
        "Using widgets", PARA["usage"], '<a href="install.html#requirements">Reqs</a>'
    ),
    "guide/advanced/deep.html": page(
        "Chaining widgets", PARA["deep"], '<a href="deeper.html">Deeper</a>'
    ),
    "guide/advanced/deeper.html": page("Long chains", PARA["deeper"]),
    "private/secret.html": page("Secret", PARA["secret"]),
    "img/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64),
}


@dataclass
class Server:
    base: str
    root: Path
    log: list[tuple[str, str, float]] = field(default_factory=list)  # path, UA, monotonic

    @property
    def paths(self) -> list[str]:
        return [p for p, _, _ in self.log]

    def url(self, path: str = "/") -> str:
        return self.base + path


def write_site(root: Path, files: dict[str, bytes | str]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


class Handler(SimpleHTTPRequestHandler):
    """Serves files; /slow stalls, /boom fails, /old redirects; every request is logged."""

    server_log: list[tuple[str, str, float]]

    def do_GET(self) -> None:
        self.server_log.append((self.path, self.headers.get("User-Agent", ""), time.monotonic()))
        if self.path == "/slow.html":
            time.sleep(1.0)  # the client has given up by now: nothing to answer
        elif self.path == "/boom.html":
            self.send_error(500)
        elif self.path.startswith("/old"):
            target = {"/old.html": "/guide/install.html", "/old-away.html": "http://x.test/"}
            self.send_response(301)
            self.send_header("Location", target[self.path])
            self.end_headers()
        else:
            super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(root: Path) -> Iterator[Server]:
    log: list[tuple[str, str, float]] = []
    handler = type("LoggedHandler", (Handler,), {"server_log": log})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=root))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}", root, log)
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Server]:
    write_site(tmp_path / "site", SITE)
    yield from serve(tmp_path / "site")


def source(server: Server, **kw: object) -> WebSource:
    opts: dict[str, object] = {"type": "web", "urls": [server.url("/")], "delay": 0.0}
    return WebSource.model_validate(opts | kw)


def test_crawl_keeps_the_expected_pages_and_counts_every_reject(
    site: Server, tmp_path: Path
) -> None:
    seen: list[str] = []
    res = collect_web(source(site, depth=2), tmp_path / "cache", on_page=seen.append)
    expected = ["/", "/guide/install.html", "/guide/usage.html", "/guide/advanced/deep.html"]
    assert [d.uri for d in res.documents] == [site.url(p) for p in expected]
    assert seen == [site.url(p) for p in expected]
    assert res.rejects == {"robots_disallowed": 1, "off_site": 1, "not_html": 1, "http_404": 1}
    assert res.samples["robots_disallowed"] == [site.url("/private/secret.html")]
    assert res.samples["off_site"] == ["http://other.example/page.html"]

    install = res.documents[1]
    assert install.source == "web" and install.title == "Installing widgets"
    assert "run the installer and choose a folder" in install.text
    assert "Python 3.10 or newer" in install.text
    assert "Site menu" not in install.text and "Copyright" not in install.text
    assert install.meta["status"] == 200 and install.meta["content_type"] == "text/html"
    assert install.meta["depth"] == 1 and install.meta["start_url"] == site.url("/")
    assert res.documents[3].meta["depth"] == 2
    assert "T" in install.meta["fetched_at"]

    # The server saw robots.txt once, each page once (fragments dropped), nothing private.
    assert site.paths.count("/robots.txt") == 1
    assert not any(p.startswith("/private/") for p in site.paths)
    assert "/guide/advanced/deeper.html" not in site.paths  # 3 hops: beyond depth 2
    assert sorted(site.paths) == sorted(
        ["/robots.txt", *expected, "/img/logo.png", "/missing.html"]
    )
    assert {ua for _, ua, _ in site.log} == {WebSource.model_fields["user_agent"].default}


def test_depth_and_max_pages_limits(site: Server, tmp_path: Path) -> None:
    deep = collect_web(source(site, depth=3), tmp_path / "c1")
    assert deep.documents[-1].uri == site.url("/guide/advanced/deeper.html")
    assert "lose torque" in deep.documents[-1].text
    assert deep.documents[-1].meta["depth"] == 3
    assert len(deep.documents) == 5

    top = collect_web(source(site, depth=0), tmp_path / "c2")
    assert [d.uri for d in top.documents] == [site.url("/")]

    two = collect_web(source(site, max_pages=2), tmp_path / "c3")
    assert [d.uri for d in two.documents] == [site.url("/"), site.url("/guide/install.html")]


def test_user_agent_header_is_sent(site: Server, tmp_path: Path) -> None:
    collect_web(source(site, user_agent="DocsTestBot/9.9", depth=0), tmp_path / "cache")
    assert [ua for _, ua, _ in site.log] == ["DocsTestBot/9.9", "DocsTestBot/9.9"]


def test_rerun_reads_the_cache_and_makes_no_request(site: Server, tmp_path: Path) -> None:
    first = collect_web(source(site), tmp_path / "cache")
    requests = len(site.log)
    again = collect_web(source(site), tmp_path / "cache")
    assert len(site.log) == requests
    assert again.documents == first.documents and again.rejects == first.rejects
    assert not list((tmp_path / "cache").rglob(".tmp-*"))
    assert not list((tmp_path / "cache").rglob("*.pkl"))


def test_interrupted_crawl_resumes_without_refetching(site: Server, tmp_path: Path) -> None:
    collect_web(source(site, max_pages=2), tmp_path / "cache")  # as if killed after 2 pages
    before = list(site.paths)
    full = collect_web(source(site), tmp_path / "cache")
    new = site.paths[len(before) :]
    assert len(full.documents) == 4
    assert not set(new) & set(before)  # robots.txt, / and install.html came from the cache
    assert "/guide/usage.html" in new


def test_politeness_delay_between_requests_to_a_host(tmp_path: Path) -> None:
    files: dict[str, bytes | str] = {
        "index.html": page(
            "Home", PARA["index"], '<a href="a.html">A</a><a href="b.html">B</a>', ""
        ),
        "a.html": page("A", PARA["install"], nav=""),
        "b.html": page("B", PARA["usage"], nav=""),
    }
    write_site(tmp_path / "site", files)
    for server in serve(tmp_path / "site"):
        res = collect_web(source(server, delay=0.3), tmp_path / "cache")
        assert len(res.documents) == 3
        times = [t for _, _, t in server.log]
        assert server.paths == ["/robots.txt", "/", "/a.html", "/b.html"]  # robots.txt: a 404
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert min(gaps) >= 0.3, gaps


def test_robots_crawl_delay_wins_over_a_smaller_delay(tmp_path: Path) -> None:
    files: dict[str, bytes | str] = {
        "robots.txt": "User-agent: *\nCrawl-delay: 1\n",
        "index.html": page("Home", PARA["index"], '<a href="a.html">A</a>', nav=""),
        "a.html": page("A", PARA["install"], nav=""),
    }
    write_site(tmp_path / "site", files)
    for server in serve(tmp_path / "site"):
        res = collect_web(source(server, delay=0.0), tmp_path / "cache")
        assert len(res.documents) == 2
        times = [t for _, _, t in server.log]
        assert server.paths == ["/robots.txt", "/", "/a.html"]
        assert times[2] - times[1] >= 1.0


def test_errors_redirects_and_encodings_are_counted(tmp_path: Path) -> None:
    links = "".join(
        f'<a href="{p}">{p}</a>'
        for p in [
            "slow.html",
            "boom.html",
            "old.html",
            "old-away.html",
            "latin.html",
            "bare.html",
            "meta.html",
        ]
    )
    files: dict[str, bytes | str] = {
        "index.html": page("Home", PARA["index"], links),
        "guide/install.html": page("Installing widgets", PARA["install"]),
        "latin.html": "<html><body><p>caf\u00e9 cr\u00e8me br\u00fbl\u00e9e</p></body></html>".encode(
            "latin-1"
        ),
        "bare.html": "<html><head><title>Empty</title></head><body></body></html>",
        "meta.html": page(  # no charset in the header: the <meta> one decodes it
            "Desserts", "<p>Une cr\u00e8me br\u00fbl\u00e9e, caf\u00e9 et widgets.</p>", nav=""
        )
        .replace("<head>", '<head><meta charset="iso-8859-1">')
        .encode("latin-1"),
    }
    write_site(tmp_path / "site", files)
    for server in serve(tmp_path / "site"):
        src = source(server, timeout=0.3)
        res = collect_web(src, tmp_path / "cache")
        assert [d.uri for d in res.documents] == [
            server.url("/"),
            server.url("/guide/install.html"),
            server.url("/meta.html"),
        ]
        assert "cr\u00e8me br\u00fbl\u00e9e" in res.documents[2].text
        assert res.samples["http_error"] == [server.url("/boom.html")]
        assert res.samples["timeout"] == [server.url("/slow.html")]
        assert res.rejects == {
            "timeout": 1,
            "http_error": 1,
            "off_site": 1,  # the redirect to x.test, never followed
            "bad_encoding": 1,
            "no_main_text": 1,
            "duplicate": 1,  # /old.html lands on install.html, already kept from the nav link
        }
        assert res.samples["off_site"] == ["http://x.test/"]


def test_non_http_start_url_is_refused(tmp_path: Path) -> None:
    src = WebSource(type="web", urls=[f"file://{tmp_path}/index.html"])
    with pytest.raises(JupiterError, match=r"not an http\(s\) URL") as err:
        collect_web(src, tmp_path / "cache")
    assert "\n" not in str(err.value) and "file://" in str(err.value)
    assert "type: local" in str(err.value)


def test_start_url_outside_allow_is_refused(tmp_path: Path) -> None:
    src = WebSource(type="web", urls=["https://docs.example.org/"], allow=["example.com"])
    with pytest.raises(JupiterError, match="outside the allowed hosts") as err:
        collect_web(src, tmp_path / "cache")
    assert "\n" not in str(err.value) and "add docs.example.org to allow" in str(err.value)
    assert not (tmp_path / "cache").exists()


def test_links_are_resolved_normalised_and_filtered() -> None:
    html = (
        '<base href="/docs/"><a href="a.html#x">a</a><a href="HTTP://Example.COM:80">b</a>'
        '<a href="javascript:void(0)">c</a><a href="https://example.com:443/z?q=1">d</a>'
        '<a href="a.html">dup</a><a href="http://[bad">e</a>'
    )
    assert extract_links(html, "http://example.com/index.html") == [
        "http://example.com/docs/a.html",
        "http://example.com/",
        "https://example.com/z?q=1",
    ]
    assert normalise("http://h:8080/p#f") == "http://h:8080/p"


def test_include_and_exclude_globs_filter_followed_links(site: Server, tmp_path: Path) -> None:
    src = source(site, include=["/guide/*"], exclude=["*/usage.html"], depth=3)
    res = collect_web(src, tmp_path / "cache")
    assert [d.uri for d in res.documents] == [
        site.url(p)
        for p in [
            "/",
            "/guide/install.html",
            "/guide/advanced/deep.html",
            "/guide/advanced/deeper.html",
        ]
    ]
    assert res.rejects["excluded"] == 4  # usage, private, logo, missing
    assert "/guide/usage.html" not in site.paths


def test_a_built_sphinx_pages_descriptions_are_documents(tmp_path: Path) -> None:
    files: dict[str, bytes | str] = {
        "index.html": page(
            "Home",
            PARA["index"],
            '<a href="library/json.html">json</a> <a href="legacy/json.html">old json</a>',
        ),
        "library/json.html": BUILT,
        "legacy/json.html": BUILT.replace("lightweight", "light"),  # the same names again
    }
    write_site(tmp_path / "site", files)
    for server in serve(tmp_path / "site"):
        got = collect_web(source(server, max_pages=3), tmp_path / "cache")
        uris = [d.uri for d in got.documents]
        assert uris == [
            server.url("/"),
            server.url("/library/json.html"),
            "python:json.dumps",
            "python:json.JSONDecoder",
            "python:json.JSONDecoder.decode",
            "python:json.JSONDecoder.strict",
            "c:PyList_New",
            server.url("/legacy/json.html"),
        ]  # three pages, as max_pages says: the descriptions are no pages
        assert got.rejects["sphinx_object_again"] == 5  # the second page's, described again
        page_doc = got.documents[1]
        assert "JSON is a lightweight" in page_doc.text and "Serialize" not in page_doc.text
        assert got.documents[2].text.startswith("json.dumps(obj, *, indent=None)\n\nSerialize")
        whole = collect_web(source(server, sphinx="text"), tmp_path / "cache2")
        assert len(whole.documents) == 3 and "Serialize" in whole.documents[1].text


def test_a_javadoc_pages_members_are_documents(tmp_path: Path) -> None:
    write_site(tmp_path / "site", {"index.html": JAVADOC})
    for server in serve(tmp_path / "site"):
        got = collect_web(source(server), tmp_path / "cache")
        assert [d.uri for d in got.documents] == [
            server.url("/"),
            "java:org.spool.text.Strings",
            "java:org.spool.text.Strings.EMPTY",
            "java:org.spool.text.Strings.abbreviate",
        ]
        whole = collect_web(source(server, java="text"), tmp_path / "cache2")
        assert len(whole.documents) == 1


def test_a_rustdoc_pages_items_are_documents(tmp_path: Path) -> None:
    write_site(tmp_path / "site", {"index.html": RUSTDOC["doc/spool/struct.Rope.html"]})
    for server in serve(tmp_path / "site"):
        got = collect_web(source(server), tmp_path / "cache")
        assert [d.uri for d in got.documents] == [
            "rust:spool::Rope",
            "rust:spool::Rope::len",
            "rust:spool::Rope::new",
            "rust:spool::Rope::splice",
            "rust:spool::Rope::default",
        ]
        whole = collect_web(source(server, rust="text"), tmp_path / "cache2")
        # the page whole (and again under the breadcrumb's index.html)
        assert not any(d.uri.startswith("rust:") for d in whole.documents)
        assert "How many strands" in whole.documents[0].text


def test_a_doxygen_pages_members_are_documents(tmp_path: Path) -> None:
    write_site(tmp_path / "site", {"index.html": DOXYGEN["html/structspool__options.html"]})
    for server in serve(tmp_path / "site"):
        got = collect_web(source(server), tmp_path / "cache")
        assert [d.uri for d in got.documents] == ["c:spool_options", "c:spool_options::turns"]
        assert got.documents[1].text.endswith("How many turns to wind.\n\nType: `unsigned int`")
        whole = collect_web(source(server, c="text"), tmp_path / "cache2")
        assert not any(d.uri.startswith("c:") for d in whole.documents)


def test_gtkdoc_and_gidocgen_pages_symbols_are_documents(tmp_path: Path) -> None:
    # a site as GNOME serves them: a GTK-Doc module page, a gi-docgen method page (its file
    # name says what it documents)
    pages = {
        "index.html": '<a href="spool-Spools.html">Spools</a> <a href="method.Reel.wind.html">w</a>',
        "spool-Spools.html": GTKDOC["html/spool-Spools.html"],
        "method.Reel.wind.html": GIDOCGEN["html/method.Reel.wind.html"],
    }
    write_site(tmp_path / "site", pages)
    for server in serve(tmp_path / "site"):
        got = {d.uri for d in collect_web(source(server), tmp_path / "cache").documents}
        assert {"c:spool_open", "c:SpoolOptions::turns", "c:spool_reel_wind"} <= got
        whole = collect_web(source(server, c="text"), tmp_path / "cache2")
        assert not any(d.uri.startswith("c:") for d in whole.documents)


def test_a_pages_mkdocstrings_objects_are_documents(tmp_path: Path) -> None:
    write_site(tmp_path / "site", {"index.html": MKDOCSTRINGS})
    for server in serve(tmp_path / "site"):
        got = collect_web(source(server), tmp_path / "cache")
        uris = [d.uri for d in got.documents]
        assert uris[0] == server.url("/") and uris[1:] == [
            "python:spool",
            "python:spool.MAX_TURNS",
            "python:spool.Spool",
            "python:spool.Spool.full",
            "python:spool.Spool.unwind",
            "python:spool.wind",
        ]
        whole = collect_web(source(server, python="text"), tmp_path / "cache2")
        assert [d.uri for d in whole.documents] == [server.url("/")]


def test_a_typedoc_pages_declarations_are_documents(tmp_path: Path) -> None:
    write_site(tmp_path / "site", {"index.html": TYPEDOC["docs/classes/Spool.html"]})
    for server in serve(tmp_path / "site"):
        got = collect_web(source(server), tmp_path / "cache")
        assert [d.uri for d in got.documents] == [
            "javascript:Spool",
            "javascript:Spool.turns",
            "javascript:Spool.tag",
            "javascript:Spool.unwind",
        ]
        whole = collect_web(source(server, javascript="text"), tmp_path / "cache2")
        assert not any(d.uri.startswith("javascript:") for d in whole.documents)


def test_an_openapi_spec_served_as_json_is_read_as_its_api(tmp_path: Path) -> None:
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "Spools", "description": "Winds thread."},
        "paths": {
            "/spools": {
                "get": {
                    "operationId": "spools/list",
                    "summary": "List the spools.",
                    "responses": {"200": {"description": "Every spool."}},
                }
            }
        },
    }
    write_site(
        tmp_path / "site",
        {"openapi.json": json.dumps(spec), "data.json": '{"spools": 3}'},
    )
    for server in serve(tmp_path / "site"):
        src = WebSource.model_validate(
            {
                "type": "web",
                "urls": [server.url("/openapi.json"), server.url("/data.json")],
                "delay": 0.0,
            }
        )
        got = collect_web(src, tmp_path / "cache")
        assert [d.uri for d in got.documents] == [
            server.url("/openapi.json"),
            "openapi:spools.list",
        ]
        assert got.documents[1].text == (
            "spools.list()\n\nList the spools.\n\nRequest: `GET /spools`.\n\n"
            ":returns: 200: Every spool."
        )
        assert got.rejects["not_html"] == 1  # JSON that is no spec is no page, as before
        as_text = collect_web(src.model_copy(update={"openapi": "text"}), tmp_path / "cache2")
        assert not as_text.documents and as_text.rejects["not_html"] == 2
