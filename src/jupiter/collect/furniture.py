"""A site's furniture: the text its template repeats on every page.

A folder of built HTML pages whose generator marks no main element (SQLite's site, texi2any's
and DocBook's manuals, many a hand-made site) repeats its menu, tagline, navigation bar and
"Last updated" line on each page; read page by page, each becomes part of every document,
and questions are asked about "Home", "Purchase" and "[ << ] [ >> ]". Boilerplate removal
by repetition across a site's pages (as web-scale pipelines drop lines repeated across a
crawl): a paragraph found, the same, on at least `MIN_SHARE` of a source's HTML pages, and
on at least `MIN_PAGES` of them, is the template's, and goes from every page. Headings,
code and definitions stay (an `-h` every tool's page documents is the tool's, not the
site's); a site of fewer than `MIN_SITE` pages is left as it is (too few to tell a
template from a topic).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from jupiter.collect.result import CollectResult, count
from jupiter.records import Document

MIN_SITE = 10  # HTML pages in a source before its furniture is looked for
MIN_SHARE = 0.3  # of the source's pages a paragraph is on, to be the template's
MIN_PAGES = 5
FURNITURE_ONLY = "site_furniture_only"  # a page that held nothing else (a menu, an index)
FURNITURE_ONLY_FIX = "a page of the site's menus and navigation only: nothing to read"


def _pieces(text: str) -> list[tuple[str, bool]]:
    """The text's paragraphs ("\\n\\n"-separated, so joining them gives the text back), each
    with whether it may be furniture: not inside a code fence, not code, not a heading, not
    a definition (a line indented under its term)."""
    out: list[tuple[str, bool]] = []
    fenced = False
    for piece in text.split("\n\n"):
        fences = sum(1 for ln in piece.split("\n") if ln.lstrip().startswith("```"))
        plain = (
            not fenced
            and not fences
            and not piece.lstrip().startswith("#")
            and not any(ln.startswith((" ", "\t")) for ln in piece.split("\n")[1:])
            and bool(piece.strip())
        )
        out.append((piece, plain))
        fenced ^= fences % 2 == 1
    return out


def strip_furniture(
    docs: Sequence[Document],
    is_page: Callable[[Document], bool],
    rejects: CollectResult | None = None,
) -> list[Document]:
    """`docs` with the furniture of the pages `is_page` picks out taken from them (see the
    module's note); a page left with nothing is dropped, counted FURNITURE_ONLY. The other
    documents, and every page of a source with fewer than MIN_SITE pages, stay as they are."""
    pages = [i for i, d in enumerate(docs) if is_page(d)]
    if len(pages) < MIN_SITE:
        return list(docs)
    split = {i: _pieces(docs[i].text) for i in pages}
    seen: Counter[str] = Counter()
    for i in pages:
        seen.update({p.strip() for p, plain in split[i] if plain})
    floor = max(MIN_PAGES, math.ceil(MIN_SHARE * len(pages)))
    furniture = {p for p, n in seen.items() if n >= floor}
    if not furniture:
        return list(docs)
    out: list[Document] = []
    for i, doc in enumerate(docs):
        if i not in split:
            out.append(doc)
            continue
        kept = [p for p, plain in split[i] if not (plain and p.strip() in furniture)]
        text = "\n\n".join(kept).strip()
        if not text:
            count(rejects, FURNITURE_ONLY, doc.uri)
        elif len(kept) == len(split[i]):
            out.append(doc)
        else:
            out.append(replace(doc, text=text))
    return out
