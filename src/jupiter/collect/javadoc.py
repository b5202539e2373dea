"""A javadoc page's members, each a document of its own, as collect/javaapi.py reads them
from the source: a built javadoc site (JDK 9 and later: `<section class="detail"
id="abbreviate(java.lang.String,int)">`) is how most Java libraries publish their API, and
read as a page its members were sections under the bare method name, their parameters and
returns in a "Parameters:" list no question named.

Each member section becomes `java:<package>.<Type>.<member>` (the page's title names the
type, its sub-title the package), its text the form javaapi writes: `Type.member(params)`
over the description, the notes as `:param x:`, `:returns:` and `:raises X:` fields;
overloads one document, each further one with its own signature line and text. The type's
own description is `java:<package>.<Type>`. The page keeps the rest (its summary tables).
A page with no member section is left as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from jupiter.collect.htmlparts import plain
from jupiter.collect.result import SourceFile, api_document
from jupiter.records import Document

URI_PREFIX = "java:"
# a member's details: JDK 17's section, or JDK 8-16's anchor over a list item (its end the
# next member's anchor or the end of the details)
_DETAIL = re.compile(r'<section class="detail" id="([^"]*)">(.*?)</section>', re.S)
_OLD_DETAIL = re.compile(
    r'<a (?:id|name)="([^"]+)">\s*(?:<!--\s*-->\s*)?</a>\s*<ul class="blockList(?:Last)?">\s*'
    r'<li class="blockList">\s*(?=<h4>)'
)
_DETAILS_END = re.compile(r"<!-- =+ END OF CLASS DATA =+ -->|</main>|<footer")
_CLASS_DESCRIPTION = re.compile(
    r'<section class="class-description" id="class-description">(.*?)</section>'
    r'|<div class="description">(.*?)</div>\s*<div class="summary">',
    re.S,
)
_TITLE = re.compile(
    r'<h[12][^>]*class="title"[^>]*>\s*(?:Class|Interface|Enum(?: Class)?|Record(?: Class)?|'
    r"Annotation (?:Interface|Type))\s+(.*?)</h[12]>",
    re.S,
)
_PACKAGE = re.compile(
    r'<div class="(?:sub-title|subTitle)">(?:<span class="(?:package-label-in-type|'
    r'packageLabelInType)">Package</span>)?(?:&nbsp;|\s)*(.*?)</div>',
    re.S,
)
_NAME = re.compile(r"<h[34]>(.*?)</h[34]>", re.S)
_SIGNATURE = re.compile(r'<div class="member-signature">(.*?)</div>|<pre[^>]*>(.*?)</pre>', re.S)
_NOTES = re.compile(r'<dl(?: class="notes")?>\s*(<dt>.*?)</dl>', re.S)
_NOTE = re.compile(r"<dt>(.*?)</dt>|<dd>(.*?)</dd>", re.S)
_BLOCK = '<div class="block">'


def _block(section: str) -> str:
    """The HTML inside a section's first `<div class="block">`, its nested divs kept."""
    start = section.find(_BLOCK)
    if start < 0:
        return ""
    depth = 0
    for m in re.finditer(r"<div\b|</div>", section[start:]):
        depth += 1 if m.group(0) == "<div" else -1
        if depth == 0:
            return section[start + len(_BLOCK) : start + m.start()]
    return section[start + len(_BLOCK) :]


def _fields(section: str, to_text: Callable[[str], str]) -> list[str]:
    """A member's notes as docstring fields: `:param x: ...`, `:returns: ...`,
    `:raises X: ...`; other notes (Since:, See Also:) left out."""
    m = _NOTES.search(section)
    if m is None:
        return []
    fields: list[str] = []
    label = ""
    for dt, dd in _NOTE.findall(m.group(1)):
        if dt:
            label = plain(dt).rstrip(":").lower()
            continue
        said = " ".join(to_text(dd).split())
        name, sep, rest = said.partition(" - ")
        if label in ("parameters", "type parameters") and sep:
            fields.append(f":param {name.strip('`<> ')}: {rest}")
        elif label == "returns" and said:
            fields.append(f":returns: {said}")
        elif label == "throws" and sep:
            fields.append(f":raises {name.strip('` ')}: {rest}")
    return fields


def _details(html: str) -> list[tuple[int, int, str]]:
    """(start, end, HTML) of each member's details, in page order."""
    found = [(m.start(), m.end(), m.group(2)) for m in _DETAIL.finditer(html)]
    if found:
        return found
    starts = list(_OLD_DETAIL.finditer(html))
    if not starts:
        return []
    stop = _DETAILS_END.search(html, starts[-1].end())
    last = stop.start() if stop is not None else len(html)
    ends = [m.start() for m in starts[1:]] + [last]
    return [(m.start(), end, html[m.end() : end]) for m, end in zip(starts, ends, strict=True)]


def split_built(doc: Document, html: str, to_text: Callable[[str], str]) -> list[Document]:
    """A javadoc page's documents (`doc` its text as a whole): the page without its member
    details, the type's description, then one document per member name; [doc] when the
    page has no member section or names no type."""
    title, package = _TITLE.search(html), _PACKAGE.search(html)
    details = _details(html)
    if title is None or not details:
        return [doc]
    owner = re.sub(r"<.*", "", plain(title.group(1))).strip()  # `Pair<L,R>`: Pair
    pkg = plain(package.group(1)) if package is not None else ""
    qual_type = f"{pkg}.{owner}" if pkg else owner
    page = html
    for a, b, _ in reversed(details):
        page = page[:a] + page[b:]
    out: list[Document] = []
    text = to_text(page)
    if text.strip():
        out.append(Document(doc.source, doc.uri, doc.title, text, doc.meta))
    parts: dict[str, tuple[str, str, list[str]]] = {}  # name -> (kind, signature, texts)
    described = _CLASS_DESCRIPTION.search(html)
    about = to_text(_block(described.group(0))).strip() if described is not None else ""
    if about:
        parts[""] = ("type", "", [f"{owner}\n\n{about}"])
    for _, _, section in details:
        name_m, sig_m = _NAME.search(section), _SIGNATURE.search(section)
        name = plain(name_m.group(1)) if name_m is not None else ""
        if not re.fullmatch(r"[A-Za-z_$][\w$]*", name):
            continue
        sig = plain(sig_m.group(1) or sig_m.group(2)) if sig_m is not None else ""
        sig = sig.replace("\u200b", "")
        params = re.search(r"\((.*)\)", sig)
        head = f"{owner}.{name}({params.group(1)})" if params else f"{owner}.{name}"
        body = to_text(_block(section)).strip()
        fields = _fields(section, to_text)
        if not body and not fields:
            continue
        signature = f"({params.group(1)})" if params else ""
        got = parts.setdefault(name, ("method" if params else "field", signature, []))
        got[2].append("\n\n".join(x for x in [head, body, "\n".join(fields)] if x))
    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))
    for name, (kind, signature, texts) in parts.items():
        qual = f"{qual_type}.{name}" if name else qual_type
        out.append(
            api_document(
                doc.source,
                URI_PREFIX,
                f,
                qual,
                "\n\n".join(texts),
                kind,
                signature,
                1,
                language="java",
                described=True,
            )
        )
    return out
