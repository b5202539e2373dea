"""Pieces of a generated HTML page that the built-site readers (collect/doxygen.py,
mkdocstrings.py, rustdoc.py, typedoc.py, javadoc.py) take apart alike: an element's extent
with its nested namesakes counted, its inside, a fragment's plain text or code."""

from __future__ import annotations

import html as htmllib
import re

_TAG = re.compile(r"<[^>]+>")


def plain(fragment: str) -> str:
    """A fragment's text: tags gone, entities decoded, space collapsed."""
    return " ".join(htmllib.unescape(_TAG.sub("", fragment)).replace("\xa0", " ").split())


def code(fragment: str) -> str:
    """Code as a page shows it: tags gone, entities decoded, its lines kept."""
    return htmllib.unescape(_TAG.sub("", fragment)).strip("\n")


def element_end(html: str, start: int, tag: str) -> int:
    """The index after the `tag` element opening at `start`, nested ones counted;
    len(html) when it is not closed."""
    depth = 0
    for m in re.finditer(rf"<{tag}\b|</{tag}>", html[start:]):
        depth += 1 if m.group(0) != f"</{tag}>" else -1
        if depth == 0:
            return start + m.end()
    return len(html)


def inner(html: str, start: int, tag: str) -> str:
    """The HTML inside the `tag` element opening at `start`."""
    end = element_end(html, start, tag)
    return html[html.find(">", start) + 1 : end - len(f"</{tag}>")]


def cut(html: str, opening: re.Pattern[str], tag: str) -> str:
    """`html` without the `tag` elements `opening` finds (each with what it holds)."""
    while (m := opening.search(html)) is not None:
        html = html[: m.start()] + html[element_end(html, m.start(), tag) :]
    return html
