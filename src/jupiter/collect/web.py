"""The `web` source: documentation sites crawled breadth-first, politely and resumably.

Start URLs are fetched first, then the links they hold, hop by hop up to `depth`, on the
allowed hosts only; robots.txt is obeyed and each host gets at least `delay` seconds
between requests. The main text of each page is extracted with trafilatura, so menus,
sidebars and footers stay out of the corpus. Every response is cached on disk by URL, so a
killed crawl, re-run, fetches nothing it already has.
"""

from __future__ import annotations

import fnmatch
import hashlib
import http.client
import json
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import Message
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit
from urllib.robotparser import RobotFileParser

import trafilatura
import yaml

from jupiter import atomic
from jupiter.collect import languages, openapi, sphinxobj
from jupiter.collect.local import built_page, meta_charset, page_readers
from jupiter.collect.result import CollectResult, SourceFile
from jupiter.config import WebSource
from jupiter.errors import JupiterError
from jupiter.records import Document

SOURCE = "web"
SCHEMES = ("http", "https")
HTML_TYPES = {"text/html", "application/xhtml+xml"}
# an API's spec served as such (read with `openapi: api`, collect/openapi.py)
SPEC_TYPES = {
    "application/json",
    "application/yaml",
    "application/x-yaml",
    "text/yaml",
    "text/x-yaml",
    "application/vnd.oai.openapi",
    "application/vnd.oai.openapi+json",
}
# Pages above this are not documentation worth keeping; reading them would only cost memory.
MAX_BODY = 10 * 1024 * 1024
MAX_REDIRECTS = 5
REDIRECTS = {301, 302, 303, 307, 308}


@dataclass(frozen=True)
class Response:
    """One HTTP response as cached: the body is kept only for HTML pages."""

    url: str
    status: int
    content_type: str  # media type, lower case, without parameters
    charset: str  # from the Content-Type header; "" when none was given
    location: str  # the redirect target, resolved; "" when not a redirect
    fetched_at: str  # ISO 8601, UTC
    body: bytes = b""
    too_large: bool = False


def collect_web(
    src: WebSource, cache_dir: Path, on_page: Callable[[str], None] | None = None
) -> CollectResult:
    """Crawl `src` into documents (one per page with main text, in crawl order; a built
    Sphinx page's object descriptions each one more, collect/sphinxobj.py).

    Start URLs are always fetched; `include`/`exclude` (globs on the URL path) decide which
    discovered links are followed. `on_page(url)` is called for each page kept.
    """
    starts = [_start_url(u) for u in src.urls]
    hosts = {h.lower() for h in src.allow} if src.allow else {_host(u) for u in starts}
    for url in starts:
        if _host(url) not in hosts:
            raise JupiterError(
                f"web start URL {url} is outside the allowed hosts ({', '.join(sorted(hosts))}):"
                f" add {_host(url)} to allow, or remove the URL"
            )
    client = WebClient(src, cache_dir)
    result = CollectResult()
    kept: set[str] = set()
    seen = set(starts)
    queue: deque[tuple[str, int, str]] = deque((u, 0, u) for u in dict.fromkeys(starts))
    while queue and len(kept) < src.max_pages:  # pages: a page's descriptions are not pages
        url, depth, start = queue.popleft()
        page = client.get_page(url, hosts, result)
        if page is None:
            continue
        final, html, resp = page
        if final in kept:
            result.reject("duplicate", url)
            continue
        if resp.content_type in SPEC_TYPES:  # an API's spec: its operations and schemas
            got = _spec_documents(final, html, resp)
            if got is None:
                result.reject("not_html", final)
                continue
            kept.add(final)
            result.documents.extend(got)
            if on_page is not None:
                on_page(final)
            continue
        if depth < src.depth:
            for link in extract_links(html, final):
                if link in seen:
                    continue
                seen.add(link)
                if _host(link) not in hosts:
                    result.reject("off_site", link)
                elif not _path_matches(link, src.include, src.exclude):
                    result.reject("excluded", link)
                else:
                    queue.append((link, depth + 1, start))
        doc = _document(final, html, resp, depth, start)
        if doc is None:
            result.reject("no_main_text", final)
            continue
        kept.add(final)
        # a built Sphinx page's object descriptions, a javadoc page's members, a rustdoc
        # page's items, each its own
        result.documents.extend(built_page(doc, html, page_readers(src), _main_text, result))
        if on_page is not None:
            on_page(final)
    result.documents = sphinxobj.unique(result.documents, result)
    return result


def _spec_documents(url: str, text: str, resp: Response) -> list[Document] | None:
    """An OpenAPI or Swagger spec's documents (collect/openapi.py); None when the body is
    no spec."""
    name = urlsplit(url).path.rsplit("/", 1)[-1] or "openapi.json"
    if not openapi.is_spec_file(name):
        name += ".json" if "json" in resp.content_type else ".yaml"
    try:
        data = openapi.load(text, name)
    except (ValueError, yaml.YAMLError):
        return None
    if not openapi.is_spec(data):
        return None
    meta = {"fetched_at": resp.fetched_at, "status": resp.status, "content_type": resp.content_type}
    f = SourceFile(PurePosixPath(name), url, text, meta)
    return openapi.spec_documents(f, data, SOURCE)


def _main_text(html: str, url: str | None = None) -> str:
    """The page's main text as trafilatura extracts it ("" when it finds none)."""
    text = trafilatura.extract(
        html, url=url, include_comments=False, include_tables=True, favor_recall=True
    )
    return (text or "").strip()


def _document(url: str, html: str, resp: Response, depth: int, start: str) -> Document | None:
    text = _main_text(html, url)
    if not text or not text.strip():
        return None
    meta = trafilatura.extract_metadata(html, default_url=url)
    title = (meta.title if meta is not None else None) or _page_title(html) or url
    info = {
        "fetched_at": resp.fetched_at,
        "status": resp.status,
        "content_type": resp.content_type,
        "depth": depth,
        "start_url": start,
    }
    lang = languages.page_language(html)
    if lang:
        info["lang"] = lang  # the page's own language (collect/languages.py)
    return Document(SOURCE, url, title, text.strip(), info)


class WebClient:
    """HTTP with a disk cache, robots.txt per host and a per-host politeness clock."""

    def __init__(self, src: WebSource, cache_dir: Path) -> None:
        self.src = src
        self.cache_dir = cache_dir
        self.robots: dict[str, RobotFileParser] = {}
        self.unreachable: set[str] = set()  # origins whose robots.txt got no answer at all
        self.last_request: dict[str, float] = {}  # host -> time.monotonic() of the last one
        # Redirects are followed by hand, so that each hop is checked against the
        # allowlist and robots.txt, cached, and spaced like any other request.
        self.opener = urllib.request.build_opener(_NoRedirect)

    def get_page(
        self, url: str, hosts: set[str], result: CollectResult
    ) -> tuple[str, str, Response] | None:
        """(final URL, decoded HTML, its response), or None with the reason counted."""
        for _ in range(MAX_REDIRECTS + 1):
            if _host(url) not in hosts:
                result.reject("off_site", url)
                return None
            if not self.allowed(url):
                gone = _origin(url) in self.unreachable
                result.reject("unreachable" if gone else "robots_disallowed", url)
                return None
            resp, reason = self.fetch(url)
            if resp is None:
                result.reject(reason, url)
                return None
            if resp.status in REDIRECTS and resp.location:
                url = resp.location
                continue
            reason = _problem(resp, self.src.openapi == "api")
            if reason:
                result.reject(reason, url)
                return None
            html = decode_html(resp.body, resp.charset)
            if html is None:
                result.reject("bad_encoding", url)
                return None
            return url, html, resp
        result.reject("too_many_redirects", url)
        return None

    def allowed(self, url: str) -> bool:
        return self._robots(url).can_fetch(self.src.user_agent, url)

    def _robots(self, url: str) -> RobotFileParser:
        origin = _origin(url)
        if origin in self.robots:
            return self.robots[origin]
        rules = RobotFileParser(origin + "/robots.txt")
        resp, _ = self.fetch(origin + "/robots.txt", any_type=True)
        # RFC 9309 §2.3.1: a missing file (4xx) allows everything; an unreachable one
        # (5xx, no answer) means the site cannot say, so nothing is fetched.
        if resp is None:
            self.unreachable.add(origin)
        if resp is None or resp.status >= 500 or resp.status in (401, 403):
            rules.parse(["User-agent: *", "Disallow: /"])  # 401/403: as robotparser.read()
        elif resp.status >= 300:  # redirects too: robots.txt is read at the origin only
            rules.parse([])
        else:
            rules.parse(resp.body.decode("utf-8", errors="replace").splitlines())
        self.robots[origin] = rules
        return rules

    def fetch(self, url: str, any_type: bool = False) -> tuple[Response | None, str]:
        """The cached response, else one request; (None, reason) when there is no answer.

        The body is kept for HTML only, or for any type with `any_type` (robots.txt).
        """
        cached = read_cache(self.cache_dir, url)
        if cached is not None:
            return cached, ""
        self._wait(url)
        req = urllib.request.Request(url, headers={"User-Agent": self.src.user_agent})
        try:
            with self.opener.open(req, timeout=self.src.timeout) as r:
                resp = _response(url, r.status, r.headers, r.read, any_type)
        except urllib.error.HTTPError as e:
            resp = _response(url, e.code, e.headers, None, any_type)
        except TimeoutError:
            return None, "timeout"
        except urllib.error.URLError as e:
            return None, "timeout" if isinstance(e.reason, TimeoutError) else "http_error"
        except (OSError, ValueError, http.client.HTTPException):  # reset, malformed, cut short
            return None, "http_error"
        finally:
            self.last_request[_host(url)] = time.monotonic()
        write_cache(self.cache_dir, resp)
        return resp, ""

    def _wait(self, url: str) -> None:
        host = _host(url)
        last = self.last_request.get(host)
        if last is None:
            return
        delay = self.src.delay
        rules = self.robots.get(_origin(url))
        if rules is not None:
            crawl_delay = rules.crawl_delay(self.src.user_agent)
            delay = max(delay, float(crawl_delay or 0))
        pause = last + delay - time.monotonic()
        if pause > 0:
            time.sleep(pause)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 3xx surfaces as an HTTPError, handled by WebClient.get_page


def _response(
    url: str,
    status: int,
    headers: Message | None,
    read: Callable[[int], bytes] | None,
    any_type: bool,
) -> Response:
    headers = headers if headers is not None else Message()
    # get_content_type() says text/plain when there is no header; "" lets the body decide
    ctype = headers.get_content_type().lower() if headers.get("Content-Type") else ""
    charset = headers.get_content_charset() or ""
    location = headers.get("Location", "")
    body, too_large = b"", False
    wanted = any_type or ctype in HTML_TYPES or ctype in SPEC_TYPES or not ctype
    if read is not None and status < 300 and wanted:
        body = read(MAX_BODY + 1)
        too_large = len(body) > MAX_BODY
        body = b"" if too_large else body
    return Response(
        url=url,
        status=status,
        content_type=ctype,
        charset=charset,
        location=(_http_url(location, url) or "") if location else "",
        fetched_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        body=body,
        too_large=too_large,
    )


def _problem(resp: Response, specs: bool = False) -> str:
    """Why a final (non-redirect) response is no page (`specs`: an API spec is one); ""
    when it is one."""
    if resp.status == 404:
        return "http_404"
    if resp.status >= 300:
        return "http_error"
    types = HTML_TYPES | SPEC_TYPES if specs else HTML_TYPES
    if resp.content_type and resp.content_type not in types:
        return "not_html"
    if resp.too_large:
        return "too_large"
    return ""


def decode_html(body: bytes, charset: str) -> str | None:
    """The body as text by its declared charset (header, else <meta>, else UTF-8); None when
    the bytes do not decode, rather than a page of mojibake."""
    declared = charset or meta_charset(body[:2048]) or "utf-8"
    try:
        return body.decode(declared)
    except (UnicodeDecodeError, LookupError):
        return None


# ---------------------------------------------------------------------------- cache
def _cache_paths(cache_dir: Path, url: str) -> tuple[Path, Path]:
    key = hashlib.sha256(url.encode("utf-8")).hexdigest()
    folder = cache_dir / key[:2]
    return folder / f"{key}.json", folder / f"{key}.body"


def read_cache(cache_dir: Path, url: str) -> Response | None:
    """The stored response for `url`, or None when absent or damaged (then re-fetched)."""
    meta_path, body_path = _cache_paths(cache_dir, url)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        body = body_path.read_bytes()
        if meta.pop("body_sha256") != hashlib.sha256(body).hexdigest():
            return None
        return Response(**meta, body=body)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_cache(cache_dir: Path, resp: Response) -> None:
    """Body first, then the meta that vouches for it; each written to a temp file and renamed,
    so a killed run leaves either a whole entry or none."""
    meta_path, body_path = _cache_paths(cache_dir, resp.url)
    meta_path.parent.mkdir(parents=True, exist_ok=True)
    meta = {k: v for k, v in vars(resp).items() if k != "body"}
    meta["body_sha256"] = hashlib.sha256(resp.body).hexdigest()
    atomic.write_bytes(body_path, resp.body)
    atomic.write_bytes(meta_path, json.dumps(meta, sort_keys=True).encode("utf-8"))


# ----------------------------------------------------------------------------- URLs
def normalise(url: str) -> str:
    """Lower-case scheme and host, no default port, no fragment, "/" for an empty path."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    host = f"[{host}]" if ":" in host else host  # IPv6
    port = parts.port if parts.port not in (None, 80 if scheme == "http" else 443) else None
    netloc = f"{host}:{port}" if port else host
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def _http_url(url: str, base: str = "") -> str | None:
    """`url` (resolved against `base`) normalised when it is a well-formed http(s) URL with
    a host, else None."""
    try:
        url = urljoin(base, url.strip()) if base else url.strip()
        parts = urlsplit(url)
        return normalise(url) if parts.scheme.lower() in SCHEMES and parts.hostname else None
    except ValueError:  # a bad port, an unclosed IPv6 bracket
        return None


def _start_url(url: str) -> str:
    start = _http_url(url)
    if start:
        return start
    raise JupiterError(
        f"web start URL {url!r} is not an http(s) URL: use https://… (for files on this"
        f" machine use a source with type: local)"
    )


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _path_matches(url: str, include: list[str], exclude: list[str]) -> bool:
    path = urlsplit(url).path or "/"
    if include and not any(fnmatch.fnmatch(path, g) for g in include):
        return False
    return not any(fnmatch.fnmatch(path, g) for g in exclude)


class LinkParser(HTMLParser):
    """The page's <a href> targets and <title>, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.base = ""
        self.title = ""
        self.in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in ("a", "area") and values.get("href"):
            self.hrefs.append(values["href"] or "")
        elif tag == "base" and values.get("href") and not self.base:
            self.base = values["href"] or ""
        elif tag == "title":
            self.in_title = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title = " ".join((self.title + " " + data).split())


def _parse(html: str) -> LinkParser:
    parser = LinkParser()
    parser.feed(html)
    parser.close()
    return parser


def extract_links(html: str, page_url: str) -> list[str]:
    """Absolute, normalised http(s) links of a page, without duplicates."""
    parser = _parse(html)
    base = (_http_url(parser.base, page_url) or page_url) if parser.base else page_url
    links = (_http_url(href, base) for href in parser.hrefs)
    return list(dict.fromkeys(link for link in links if link))


def _page_title(html: str) -> str:
    return _parse(html).title
