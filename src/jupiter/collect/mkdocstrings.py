"""A page mkdocstrings built (MkDocs' API reference plugin, the Python handler), each
documented object a document of its own, as collect/pyapi.py reads it from the source:
many Python libraries publish their API this way, and read as a page an object was a
heading holding its signature, its parameters a table ("Name Type Description Default"),
and its source code, line numbers first, folded under each object.

An object is mkdocstrings' `<div class="doc doc-object doc-function">` (module, class,
function, attribute); its name is its heading's anchor, the dotted path
(`python:httpx.Client.get`); its text the form the question templates read: the signature
line over the docstring, the sections as fields (`:param x:`, `:returns:`, `:raises X:`,
`:ivar x:` for attributes, examples fenced, notes as "Note: ..."); a module's document is
its docstring alone; a class's `__init__` parameters are the class's. The source code, the
labels (property, classmethod) and the base classes are left out; names starting with `_`
are private, as the source reader has them. The page keeps what is not an object.
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Callable
from pathlib import PurePosixPath

from jupiter.collect.htmlparts import cut, element_end, plain
from jupiter.collect.result import SourceFile, api_document
from jupiter.records import Document

URI_PREFIX = "python:"
_OBJECT = re.compile(r'<div class="doc doc-object doc-(module|class|function|attribute)">')
_HEADING = re.compile(r'<(h[1-6]) id="([^"]+)" class="doc doc-heading">')
_MODULE_ANCHOR = re.compile(r'<a id="([^"]+)"></a>\s*<div class="doc doc-contents')
_CONTENTS = re.compile(r'<div class="doc doc-contents[^"]*">')
_CHILDREN = re.compile(r'<div class="doc doc-children">')
_SOURCE = re.compile(r'<details class="mkdocstrings-source">')
_BASES = re.compile(r'<p class="doc doc-class-bases">.*?</p>', re.S)
_LABELS = re.compile(r'<span class="doc doc-labels">(.*?)</span>', re.S)
_SECTION = re.compile(r'<p>\s*<span class="doc-section-title">([^<]*?):?</span>\s*</p>', re.S)
_ROW = re.compile(r'<tr class="doc-section-item">(.*?)</tr>', re.S)
_CELL = re.compile(r"<td>(.*?)</td>", re.S)
_LIST_ITEM = re.compile(r"<li\b[^>]*>(.*?)</li>", re.S)
_ADMONITION = re.compile(
    r'<details class="([\w-]+)"[^>]*>\s*<summary>(.*?)</summary>(.*?)</details>'
    r'|<div class="admonition ([\w-]+)">\s*<p class="admonition-title">(.*?)</p>(.*?)</div>',
    re.S,
)


def is_mkdocstrings(html: str) -> bool:
    """Whether `html` holds objects mkdocstrings rendered."""
    return _OBJECT.search(html) is not None


_TH = re.compile(r"<th\b[^>]*>(.*?)</th>", re.S)
_DESCRIPTION = re.compile(r'<div class="doc-md-description">(.*?)</div>', re.S)
_NAME_CODE = re.compile(r"<code>(.*?)</code>", re.S)


def _entries(body: str) -> list[tuple[str, str]]:
    """(name or type, description HTML) of each entry of a section's table or list."""
    out: list[tuple[str, str]] = []
    heads = [plain(h).lower() for h in _TH.findall(body)]
    rows = _ROW.findall(body)
    if rows:
        desc_at = heads.index("description") if "description" in heads else -1
        for row in rows:
            cells = _CELL.findall(row)
            if not cells:
                continue
            said = cells[desc_at] if -len(cells) <= desc_at < len(cells) else cells[-1]
            out.append((plain(cells[0]), said))
        return out
    for item in _LIST_ITEM.findall(body):  # the list style: "name (type) – description"
        name = _NAME_CODE.search(item)
        said = _DESCRIPTION.search(item)
        out.append((plain(name.group(1)) if name else "", said.group(1) if said else item))
    return out


def _fields(title: str, body: str, to_text: Callable[[str], str]) -> list[str]:
    """A docstring section (its title, its table or list) as field lines."""
    key = title.strip().lower()
    out: list[str] = []
    for name, said_html in _entries(body):
        said = " ".join(to_text(said_html).split())
        if key in ("parameters", "other parameters", "keyword arguments", "receives"):
            out.append(f":param {name}: {said}" if name else "")
        elif key == "attributes":
            out.append(f":ivar {name}: {said}" if name else "")
        elif key in ("returns", "yields"):
            out.append(f":returns: {said}" if said else "")
        elif key in ("raises", "warns"):
            out.append(f":raises {name}: {said}" if name else "")
    return [x for x in out if x]


def _docstring(contents: str, to_text: Callable[[str], str]) -> str:
    """An object's docstring as text: prose as the page shows it, each section's entries as
    fields, examples fenced, admonitions as "Note: ..." lines."""
    contents = cut(cut(contents, _CHILDREN, "div"), _SOURCE, "details")
    contents = _BASES.sub("", contents)

    def admonition(m: re.Match[str]) -> str:
        title = plain(m.group(2) or m.group(5) or "")
        inner = m.group(3) if m.group(3) is not None else m.group(6)
        said = " ".join(to_text(inner).split())
        return f"<p>{htmllib.escape(title)}: {htmllib.escape(said)}</p>" if said else ""

    contents = _ADMONITION.sub(admonition, contents)
    parts: list[str] = []
    fields: list[str] = []
    examples: list[str] = []
    sections = list(_SECTION.finditer(contents))
    ends = [m.start() for m in sections[1:]] + [len(contents)] if sections else []
    lead = contents[: sections[0].start()] if sections else contents
    prose = to_text(lead).strip()
    if prose:
        parts.append(prose)
    for m, end in zip(sections, ends, strict=True):
        title, body = m.group(1).strip(), contents[m.end() : end]
        if title.lower() in ("examples", "example"):
            shown = to_text(body).strip()
            if shown:
                examples.append(f"Examples:\n\n{shown}")
            continue
        got = _fields(title, body, to_text)
        if got:
            fields += got
        else:  # a section of prose ("Warning:", a custom one)
            said = to_text(body).strip()
            if said:
                parts.append(f"{title}: {said}")
    if fields:
        parts.append("\n".join(fields))
    return "\n\n".join(parts + examples)


def split_built(
    doc: Document,
    html: str,
    to_text: Callable[[str], str],
    page_text: Callable[[str], str] | None = None,
) -> list[Document]:
    """A page's mkdocstrings objects, each a document (`doc` the page read whole), after
    the page without them (its text made by `page_text`, default `to_text`) when anything
    is left; [doc] when it holds none."""
    objects = list(_OBJECT.finditer(html))
    if not objects:
        return [doc]
    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))
    found: dict[str, tuple[str, str, str]] = {}  # name -> (kind, head, text)
    spans: list[tuple[int, int]] = []
    for m in objects:
        end = element_end(html, m.start(), "div")
        if not spans or m.start() >= spans[-1][1]:  # not inside one already cut out
            spans.append((m.start(), end))
        body = html[m.start() : end]
        contents = _CONTENTS.search(body)
        if contents is None:
            continue
        kind = m.group(1)
        heading = _HEADING.search(body, 0, contents.start())
        if heading is not None:
            name = htmllib.unescape(heading.group(2))
            h_end = body.find(f"</{heading.group(1)}>", heading.end())
            head_html = body[heading.end() : h_end]
            labels = _LABELS.search(head_html)
            shown = plain(_LABELS.sub("", head_html))
            if labels is not None and "property" in plain(labels.group(1)).split():
                kind = "property"
        else:
            anchor = _MODULE_ANCHOR.search(body)
            if anchor is None:
                continue
            name, shown = htmllib.unescape(anchor.group(1)), ""
        if not re.fullmatch(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*", name):
            continue
        text = _docstring(body[contents.start() :], to_text)
        last = name.rsplit(".", 1)[-1]
        owner = name.rsplit(".", 1)[0]
        if last == "__init__" and kind == "function" and owner in found:
            # the class is made by calling it: its signature and parameters are the class's
            o_kind, o_head, o_text = found[owner]
            sig = re.search(r"\(.*\)", shown)
            params = "\n".join(x for x in text.splitlines() if x.startswith(":param "))
            o_text = f"{o_text}\n\n{params}" if params else o_text
            found[owner] = (o_kind, f"{owner}{sig.group(0)}" if sig else o_head, o_text)
            continue
        if last.startswith("_") or not text or name in found:
            continue
        head = ""
        if kind == "function" and found.get(owner, ("",))[0] == "class":
            kind = "method"
        if kind in ("function", "method", "class"):
            sig = re.search(r"\(.*\)", shown)
            head = f"{name}{sig.group(0) if sig else '()' if kind == 'function' else ''}"
        else:  # an attribute, a property
            value = shown.partition("=")[2].strip() if "=" in shown else ""
            head = name
            if value and len(value) <= 80:
                text = f"{text}\n\nValue: `{value}`"
        found[name] = (kind, head, text)
    out: list[Document] = []
    page = html
    for a, b in reversed(spans):
        page = page[:a] + page[b:]
    rest = (page_text or to_text)(page).strip()
    if rest:
        out.append(Document(doc.source, doc.uri, doc.title, rest, doc.meta))
    for name, (kind, head, text) in found.items():
        body = text if kind == "module" else f"{head}\n\n{text}"
        meta = {"language": "python", "described": True}
        out.append(api_document(doc.source, URI_PREFIX, f, name, body, kind, "", 1, **meta))
    return out
