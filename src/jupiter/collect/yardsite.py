"""A page YARD built (rubydoc.info, `yardoc`'s `doc/`), each documented method, attribute
and constant a document of its own, as collect/rubyapi.py reads them from the source: read
as a page, a method was its summary line and then its details with "⇒ Integer", a
parameter list of types and dashes, and the method's source with its line numbers.

A page is YARD's when its footer links yardoc.org and its `<h1>` names a class, module or
exception ("Class: Rack::Request"); the owner's Overview is `ruby:<Owner>`, each constant
`ruby:<Owner>::<NAME>`, each method `ruby:<Owner>#<name>` (instance) or
`ruby:<Owner>.<name>` (class), written as rubyapi writes them: `Owner#name(params)` over
the discussion, the parameters as `:param x:` (the type in brackets as rubyapi shows it),
`:returns:`, `:raises X:`, "Deprecated:" and examples fenced; an attribute's type line. The
method summaries restating each first sentence, the source listings, protected and private
methods and the sentences YARD writes for what has no documentation ("Returns a new
instance of Middleware.", "This method returns an undefined value.") are left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from jupiter.collect.htmlparts import code, element_end, inner, plain
from jupiter.collect.result import SourceFile, api_document
from jupiter.records import Document

URI_PREFIX = "ruby:"
_FOOTER = re.compile(r'<div id="footer">.*?yardoc\.org', re.S)
_TITLE = re.compile(r"<h1>\s*(Class|Module|Exception):\s*(.*?)\s*</h1>", re.S)
_ALPHA_INDEX = re.compile(r'<h1 class="alphaindex">Alphabetic Index</h1>')
_OVERVIEW = re.compile(r"<h2>Overview</h2>\s*<div class=\"docstring\">")
_CONSTANT = re.compile(r'<dt id="([A-Za-z_]\w*)-constant"[^>]*>(.*?)</dt>\s*<dd>', re.S)
_ATTR_DETAILS = re.compile(r'<div id="(?:instance|class)_attr_details" class="attr_details">')
_METHOD = re.compile(
    r'<h3 class="signature[^"]*" id="([^"]+)-(instance|class)_method">(.*?)</h3>', re.S
)
_DOCSTRING = re.compile(r'<div class="docstring">')
_DISCUSSION = re.compile(r'<div class="discussion">')
_TAGS = re.compile(r'<div class="tags">')
_DEPRECATED = re.compile(r'<div class="note deprecated">\s*<strong>Deprecated\.</strong>')
_LIST = re.compile(r'<p class="tag_title">(.*?)</p>\s*<ul class="(\w+)">(.*?)</ul>', re.S)
_ITEM = re.compile(r"<li>(.*?)</li>", re.S)
_NAME = re.compile(r"<span class='name'>(.*?)</span>", re.S)
_TYPE = re.compile(r"<span class='type'>\((.*?)\)</span>", re.S)
_SAID = re.compile(r"<div class='inline'>(.*?)</div>", re.S)
_EXAMPLE = re.compile(r'<pre class="example code"><code>(.*?)</code></pre>', re.S)
# what YARD says of an undocumented constructor, void method or attribute
_GENERATED = re.compile(
    r"(?:Returns a new instance of \S+\.|This method returns an undefined value\.|Returns the "
    r"value of attribute \S+\.|Sets the attribute \S+)"
)
_VOID = re.compile(r'<p class="note returns_void">.*?</p>', re.S)
_HIDDEN = re.compile(r'<span class="extras">\((?:protected|private)\)</span>')
_EXTRAS = re.compile(r'<span class="extras">.*?</span>', re.S)


def _discussion(block: str, to_text: Callable[[str], str]) -> tuple[str, str]:
    """(the discussion's text, its deprecation note's) of a docstring block; "" for the
    sentences YARD writes itself where an author wrote none."""
    disc = _DISCUSSION.search(block)
    if disc is None:
        return "", ""
    body = inner(block, disc.start(), "div")
    note = _DEPRECATED.search(body)
    deprecated = ""
    if note is not None:
        start = note.start()
        end = element_end(body, start, "div")
        deprecated = " ".join(to_text(body[note.end() : end - len("</div>")]).split())
        body = body[:start] + body[end:]
    text = to_text(_VOID.sub("", body)).strip()
    return ("" if _GENERATED.fullmatch(text) else text), deprecated


def _tags(block: str, to_text: Callable[[str], str]) -> tuple[list[str], list[str]]:
    """(field lines, examples) of a docstring's tags."""
    fields: list[str] = []
    for _title, kind, items in _LIST.findall(block):
        for item in _ITEM.findall(items):
            name, typ, said = _NAME.search(item), _TYPE.search(item), _SAID.search(item)
            text = " ".join(to_text(said.group(1)).split()) if said else ""
            shown = f"(`{plain(typ.group(1))}`) " if typ and kind == "param" else ""
            if kind in ("param", "option") and name is not None and text:
                fields.append(f":param {plain(name.group(1))}: {shown}{text}")
            elif kind == "return" and text and not _GENERATED.fullmatch(text):
                fields.append(f":returns: {text}")
            elif kind == "raise" and typ is not None:
                fields.append(f":raises {plain(typ.group(1))}: {text}".rstrip(": "))
    examples = [f"```ruby\n{code(x)}\n```" for x in _EXAMPLE.findall(block)]
    return fields, examples


def split_built(doc: Document, html: str, to_text: Callable[[str], str]) -> list[Document]:
    """A YARD page's documents (`doc` the page read whole): the owner's, its constants' and
    methods'; [] for the alphabetic index; [doc] when the page is no YARD class or module
    page (a README, a file's page)."""
    title = _TITLE.search(html)
    if _FOOTER.search(html) is None:
        return [doc]
    if title is None:  # the alphabetic index YARD writes as index.html without a README
        return [] if _ALPHA_INDEX.search(html) else [doc]
    owner = (plain(title.group(2)).split() or [""])[0]  # "YARD::Parser::Base Abstract"
    if not re.fullmatch(r"[A-Z]\w*(?:::[A-Z]\w*)*", owner):
        return [doc]
    kind = "module" if title.group(1) == "Module" else "class"
    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))
    out: list[Document] = []

    def make(qual: str, k: str, text: str, sig: str = "") -> Document:
        meta = {"language": "ruby", "described": True}
        return api_document(doc.source, URI_PREFIX, f, qual, text, k, sig, 1, **meta)

    overview = _OVERVIEW.search(html)
    if overview is not None:
        block_at = overview.end() - len('<div class="docstring">')
        about, deprecated = _discussion(inner(html, block_at, "div"), to_text)
        tags_at = _TAGS.search(html, element_end(html, block_at, "div"))
        fields, examples = (
            _tags(inner(html, tags_at.start(), "div"), to_text) if tags_at else ([], [])
        )
        lines = [f"Deprecated: {deprecated}" if deprecated else ""]
        text = "\n\n".join(x for x in [about, *lines, "\n".join(fields), *examples] if x)
        if text:
            out.append(make(owner, kind, f"{owner}\n\n{text}"))
    for m in _CONSTANT.finditer(html):
        name, dt = m.group(1), m.group(2)
        dd = inner(html, m.end() - len("<dd>"), "dd")
        block = _DOCSTRING.search(dt)
        about = _discussion(inner(dt, block.start(), "div"), to_text)[0] if block else ""
        value = plain(dd)
        if about:
            value_line = f"Value: `{value}`" if value and len(value) <= 80 else ""
            text = "\n\n".join(x for x in [f"{owner}::{name}", about, value_line] if x)
            out.append(make(f"{owner}::{name}", "constant", text))
    attrs = [(a.start(), element_end(html, a.start(), "div")) for a in _ATTR_DETAILS.finditer(html)]
    for m in _METHOD.finditer(html):
        scope = m.group(2)
        if _HIDDEN.search(m.group(3)):  # protected, private: not the API, as rubyapi has it
            continue
        shown = plain(_EXTRAS.sub("", m.group(3)))
        name = re.sub(r"^[#.]", "", shown.split("⇒")[0].strip())
        mname = re.match(r"[A-Za-z_]\w*[?!=]?|\[\]=?|[<=>+\-*/%~!^&|]+", name)
        if mname is None:
            continue
        params = name[mname.end() :].strip()
        sep = "#" if scope == "instance" else "."
        qual = f"{owner}{sep}{mname.group(0)}"
        after = html[m.end() :]
        block = _DOCSTRING.match(after.lstrip())
        if block is None:
            continue
        start = len(after) - len(after.lstrip())
        end = element_end(after, start, "div")
        about, deprecated = _discussion(after[start:end], to_text)
        tags_at = _TAGS.match(after[end:].lstrip())
        t_start = end + len(after[end:]) - len(after[end:].lstrip())
        fields, examples = _tags(inner(after, t_start, "div"), to_text) if tags_at else ([], [])
        returns = shown.split("⇒", 1)[1].strip() if "⇒" in shown else ""
        lines = [f"Deprecated: {deprecated}" if deprecated else ""]
        attribute = any(a <= m.start() < b for a, b in attrs)
        if attribute:  # as rubyapi writes one: its type, read-only or write-only
            lines.append(f"Type: `{returns}`" if returns and returns != "Object" else "")
            if "(readonly)" in m.group(3):
                lines.append("Read-only attribute.")
            elif "(writeonly)" in m.group(3):
                lines.append("Write-only attribute.")
            fields = [x for x in fields if not x.startswith(":returns:")]
        text = "\n\n".join(x for x in [about, *lines, "\n".join(fields), *examples] if x)
        if not text:
            continue
        k = "constructor" if mname.group(0) == "initialize" else "method"
        k = "class_method" if scope == "class" else "attribute" if attribute else k
        out.append(make(qual, k, f"{qual}{params}\n\n{text}", params))
    return out or [doc]
