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
