"""A manual built in several languages: the pages in the domain's.

A folder of built HTML documentation may hold the same manual in many languages (Apache
httpd's in eleven: `manual/fr/`, `manual/ja/`, ...). Read whole, every language's pages
become documents: questions are asked in French and Korean about an English-speaking
domain, the retriever returns passages the student cannot use, and the language filter
drops the pairs only after they were written. A page says its language on its `<html
lang="fr">` element; when a source's pages say two languages or more and one of them is
the domain's (`language:` in its YAML, "en" by default), the pages in the others are left
out, counted `other_language`. A source in one language, or in none that is the domain's,
is read whole: a site that declares only "fr" in a domain left at "en" is the user's
French manual, not a translation to skip.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from jupiter.collect.result import CollectResult, count
from jupiter.records import Document

OTHER_LANGUAGE = "other_language"
OTHER_LANGUAGE_FIX = (
    "a page in another language of a manual built in several: set the domain's `language` "
    "(en, fr, ja, ...) to read that one's pages instead"
)
# the <html> element's lang (or xml:lang), its primary subtag: "pt-br" -> "pt"
_HTML_LANG = re.compile(
    r"<html\b[^>]*?\s(?:xml:)?lang\s*=\s*[\"']?([A-Za-z]{2,3})(?![A-Za-z])", re.IGNORECASE
)


def page_language(html: str) -> str:
    """The language an HTML page declares on its <html> element (ISO 639 primary subtag,
    lower case), "" for none."""
    found = _HTML_LANG.search(html[:8192])
    return found.group(1).lower() if found else ""


def keep_language(
    docs: Sequence[Document], language: str, rejects: CollectResult | None = None
) -> list[Document]:
    """`docs` less the pages in other languages than `language`, when they declare two or
    more (meta "lang", set by the HTML reader) and `language` is one of them; documents
    that declare none stay."""
    want = language.strip().lower().replace("_", "-").split("-")[0]
    said = {d.meta.get("lang") for d in docs if d.meta.get("lang")}
    if len(said) < 2 or want not in said:
        return list(docs)
    kept = []
    for doc in docs:
        lang = doc.meta.get("lang")
        if lang and lang != want:
            count(rejects, OTHER_LANGUAGE, doc.uri)
        else:
            kept.append(doc)
    return kept
