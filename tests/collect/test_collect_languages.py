"""A manual built in several languages: the pages in the domain's (collect/languages.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupiter.collect.languages import OTHER_LANGUAGE, page_language
from jupiter.collect.local import collect_local
from jupiter.collect.result import CollectResult
from jupiter.config import DomainConfig

PAGES = {
    "en": ("Directives", "The Listen directive binds the server to an address and a port."),
    "fr": ("Directives", "La directive Listen attache le serveur à une adresse et un port."),
    "pt-br": ("Diretivas", "A diretiva Listen liga o servidor a um endereço e uma porta."),
}


def _manual(root: Path, langs: list[str]) -> None:
    for lang in langs:
        title, text = PAGES[lang]
        folder = root / lang
        folder.mkdir(parents=True)
        (folder / "listen.html").write_text(
            f'<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml" lang="{lang}" '
            f'xml:lang="{lang}"><head><title>{title}</title></head><body><h1>{title}</h1>'
            f"<p>{text}</p></body></html>",
            encoding="utf-8",
        )
    (root / "notes.md").write_text("# Notes\n\nRead the manual first.\n", encoding="utf-8")


def _collect(tmp_path: Path, root: Path, language: str | None) -> tuple[list[str], CollectResult]:
    raw: dict[str, object] = {"name": "t", "sources": [{"type": "local", "path": str(root)}]}
    if language is not None:
        raw["language"] = language
    cfg = DomainConfig.model_validate(raw)
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)
    return sorted(Path(d.uri).relative_to(root).as_posix() for d in docs), rejects


@pytest.mark.parametrize(
    ("language", "kept"),
    [(None, "en/listen.html"), ("fr", "fr/listen.html"), ("pt_BR", "pt-br/listen.html")],
)
def test_the_domain_s_language_is_read_of_a_manual_built_in_several(
    tmp_path: Path, language: str | None, kept: str
) -> None:
    root = tmp_path / "manual"
    _manual(root, ["en", "fr", "pt-br"])
    uris, rejects = _collect(tmp_path, root, language)
    assert uris == sorted([kept, "notes.md"])  # a page that declares no language stays
    assert rejects.rejects == {OTHER_LANGUAGE: 2}


def test_a_manual_in_one_language_or_none_of_the_domain_s_is_read_whole(tmp_path: Path) -> None:
    one = tmp_path / "one"
    _manual(one, ["fr"])
    uris, rejects = _collect(tmp_path, one, None)
    assert uris == ["fr/listen.html", "notes.md"] and not rejects.rejects
    two = tmp_path / "two"
    _manual(two, ["fr", "pt-br"])
    uris, rejects = _collect(tmp_path, two, "de")  # neither is the domain's: both read
    assert uris == ["fr/listen.html", "notes.md", "pt-br/listen.html"] and not rejects.rejects


def test_page_language() -> None:
    assert page_language('<html lang="pt-BR"><body>') == "pt"
    assert page_language("<HTML XML:LANG='ko'>") == "ko"
    assert page_language("<html><body lang='fr'>") == ""  # the <html> element's only
    assert page_language('<html data-lang="fr">') == ""
    assert page_language("<p>no html element</p>") == ""


def test_a_page_s_bar_of_links_to_its_translations_is_no_text() -> None:
    from jupiter.collect.local import html_text

    page = (
        '<html lang="en"><body><h1>mod_ssl</h1><div class="toplang"><p><span>Available '
        'Languages: </span><a href="../en/ssl.html">&nbsp;en&nbsp;</a> | <a href="../fr/ssl.html"'
        ' hreflang="fr">&nbsp;fr&nbsp;</a> | <a href="../pt-br/ssl.html">&nbsp;pt-br&nbsp;</a>'
        '</p></div><p>Strong cryptography.</p><p>Available Languages: <a href="x.html">en</a></p>'
        # not a bar: codes that are no languages, text among them, no links
        '<p>Flags: <a href="rw.html">rw</a> | <a href="ro.html">ro</a></p>'
        '<p>Mode: <a href="a.html">en</a> | <a href="b.html">fr</a> chosen by the client</p>'
        "<p>Pass en | fr to the tool.</p></body></html>"
    )
    assert html_text(page)[0] == (
        "# mod_ssl\n\nStrong cryptography.\n\nFlags: rw | ro\n\n"
        "Mode: en | fr chosen by the client\n\nPass en | fr to the tool."
    )


def test_a_repository_and_a_crawled_site_in_several_languages(tmp_path: Path) -> None:
    """The git and web sources leave the other languages' pages out too (the web source
    crawls a real server on 127.0.0.1)."""
    import functools
    import subprocess
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from jupiter.collect import _collect_source
    from jupiter.collect.git import collect_git

    root = tmp_path / "site"
    _manual(root, ["en", "fr", "pt-br"])
    links = "".join(f'<a href="{lang}/listen.html">{lang}</a> ' for lang in PAGES)
    (root / "index.html").write_text(
        f'<html lang="en"><head><title>Manual</title></head><body><h1>Manual</h1><p>The '
        f"manual of the server, in three languages, each page linked below.</p>{links}</body>"
        "</html>",
        encoding="utf-8",
    )
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", "-C", str(root)]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "manual"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "git", "url": "site", "include": ["*.html"]}]}
    )
    cfg.base_dir = tmp_path
    got = collect_git(cfg.sources[0], cfg, tmp_path / "cache")  # type: ignore[arg-type]
    assert sorted(d.meta["path"] for d in got.documents) == ["en/listen.html", "index.html"]
    assert got.rejects == {OTHER_LANGUAGE: 2}

    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(root))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}/"
        web = DomainConfig.model_validate(
            {"name": "t", "sources": [{"type": "web", "urls": [base], "delay": 0.0}]}
        )
        web.base_dir = tmp_path
        rejects = CollectResult()
        docs = _collect_source(web.sources[0], web, tmp_path / "webcache", rejects)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert sorted(d.uri for d in docs) == [base, base + "en/listen.html"]
    assert rejects.rejects == {OTHER_LANGUAGE: 2}


def test_of_a_page_s_copies_the_one_in_its_own_language_s_folder_is_kept() -> None:
    from jupiter.collect.duplicates import DUPLICATE, drop_duplicates
    from jupiter.records import Document

    text = "# mod_buffer\n\nBuffers the request and the response in memory."
    meta = {"kind": "file", "suffix": ".html", "lang": "en"}
    docs = [
        Document("local", f"/m/{lang}/mod/mod_buffer.html", "b", text, dict(meta))
        for lang in ("da", "de", "en", "fr")
    ]
    rejects = CollectResult()
    assert [d.uri for d in drop_duplicates(docs, rejects)] == ["/m/en/mod/mod_buffer.html"]
    assert rejects.rejects == {DUPLICATE: 3}
    # no folder named for it: the first copy, as before
    plain = [Document("local", f"/m/{k}.html", "b", text, dict(meta)) for k in ("b", "a")]
    assert [d.uri for d in drop_duplicates(plain)] == ["/m/b.html"]
