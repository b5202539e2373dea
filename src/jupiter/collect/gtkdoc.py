"""A GTK-Doc page's symbols, each a document of its own, named as collect/capi.py and
collect/doxygen.py name a C library's: GLib, GObject, GIO, GTK 3, GStreamer, cairo and
many more C libraries publish their API as a GTK-Doc site, and read as a page a symbol was
a heading ("g_hash_table_insert ()") over the prototype cut across lines, a table of
parameter rows with annotation acronyms ("[out][array][element-type guint8]") and a code
example's line numbers as a column of digits, each symbol twice (its summary row and its
details).

A page is GTK-Doc's when its `<meta name="generator">` says so. A reference page (a
`refentry`) gives: its description, as the class's document where the page is a class's
(`c:GBinding`: the page's one-line purpose over the description) or else the page's own
(titled "Hash Tables"); each function, function-like macro and callback type as
`c:<name>`, `name(params)` over its documentation with the parameters as `:param x:`,
the return section as `:returns:` (the return type where none is written), "Since:" and
deprecation as lines; each struct, union, enum, typedef, constant macro and variable as
`c:<name>`, its definition or value as a line, a struct's or union's documented members
as `c:<type>::<member>` and an enum's values as `c:<VALUE>` (as the header reader names
them); each signal as `c:<Class>::<signal>` and property as `c:<Class>:<property>` (GObject's
own notation; child and style properties too), with the handler's prototype, the
property's type, flags and default. The summary tables, object hierarchy, includes and
introspection annotations are left out. A book or part page that only lists chapters gives
no document (counted with its fix); any other page (a chapter of prose) is read without the
navigation.
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Callable
from pathlib import PurePosixPath

from jupiter.collect.htmlparts import code, element_end, inner, plain
from jupiter.collect.result import CollectResult, SourceFile, api_document, count
from jupiter.records import Document

URI_PREFIX = "c:"
CONTENTS = "gtkdoc_contents"
FIXES = {
    CONTENTS: (
        "a GTK-Doc book or part page only lists its chapters (the pages it links are read); "
        "the source's c: text reads such pages whole"
    )
}
_GENERATOR = re.compile(r'<meta\s+name="generator"\s+content="GTK-Doc')
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_REFENTRY = re.compile(r'<div class="refentry">')
_REFNAME = re.compile(
    r'<div class="refnamediv">.*?<span class="refentrytitle">(.*?)</span>.*?<p>(.*?)</p>', re.S
)
_REFSECT1 = re.compile(r'<div class="refsect1">\s*<a name="[^"]*?\.(?P<part>[\w-]+)"></a>')
_REFSECT2 = re.compile(r'<div class="refsect2">\s*<a name="(?P<anchor>[^"]*)"></a>\s*<h3>')
_REFSECT3 = re.compile(r'<div class="refsect3">\s*<a name="[^"]*?\.(?P<part>[\w-]+)"></a>')
_H = re.compile(r"<h(\d)>(.*?)</h\1>", re.S)
_LISTING = re.compile(r'<pre class="programlisting">(.*?)</pre>', re.S)
_WARNING = re.compile(r'<div class="warning">')
_SINCE = re.compile(r'<p class="since">(.*?)</p>', re.S)
# introspection annotations ("[out][transfer full]"), for bindings, not for a reader
_ANNOTATION = re.compile(r'<span class="annotation">.*?</span>(?=\s*</td>|\s*</p>)', re.S)
_LINE_NUMBERS = re.compile(r'<td class="listing_lines"[^>]*>.*?</td>', re.S)
_ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
_CELL = re.compile(r'<td class="(?P<what>\w+?)_(?P<col>name|description)">(?P<html>.*?)</td>', re.S)
_NAVIGATION = (
    re.compile(r'<table class="navigation"'),
    re.compile(r'<div class="footer"'),
    re.compile(r'<div class="toc"'),
)
# a refsect1's anchor suffix -> what its refsect2s document
_DETAILS = {
    "functions_details": "function",
    "other_details": "type",
    "signal-details": "signal",
    "property-details": "property",
    "child-property-details": "child property",
    "style-property-details": "style property",
}
_QUOTED = re.compile(r"^The\s+[“\"](?P<name>[\w-]+)[”\"]\s+(?P<what>[\w ]+)$")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_DEFINE = re.compile(r"^#define\s+(?P<name>\w+)(?P<params>\([^)]*\))?\s*(?P<value>.*)$", re.S)
_MAX_VALUE = 80
_MAX_NAMES = 16
# below this many characters of text besides the title, a page without a reference is a
# book's or part's table of contents
_CONTENTS_CHARS = 200


def is_gtkdoc(html: str) -> bool:
    """Whether `html` is a page GTK-Doc wrote."""
    return _GENERATOR.search(html[:4000]) is not None


def _cut_all(html: str, opening: re.Pattern[str], tag: str) -> tuple[str, list[str]]:
    """`html` without the `tag` elements `opening` finds, and those elements' insides."""
    found: list[str] = []
    while (m := opening.search(html)) is not None:
        end = element_end(html, m.start(), tag)
        found.append(inner(html, m.start(), tag))
        html = html[: m.start()] + html[end:]
    return html, found


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _rows(table_html: str, to_text: Callable[[str], str]) -> list[tuple[str, str, str]]:
    """A Parameters/Members table's rows: (kind of row, the name cell's text, the
    description's text); the annotations column left out."""
    out = []
    for row in _ROW.findall(table_html):
        cells = {m.group("col"): m for m in _CELL.finditer(row)}
        if "name" not in cells:
            continue
        name = plain(cells["name"].group("html")).rstrip(";").strip()
        said = (
            _one_line(to_text(cells["description"].group("html"))) if "description" in cells else ""
        )
        out.append((cells["name"].group("what"), name, said))
    return out


def _prototype(listing: str, name: str) -> tuple[str, list[str]]:
    """(return type, parameters) of function, callback or function-like macro `name` as the
    page's prototype shows it (`gsize\ng_base64_encode_step (const guchar *in, ...)`,
    `gboolean\n(*GHRFunc) (gpointer key, ...)`, `#define G_OBJECT(object) ...`)."""
    text = _one_line(code(listing))
    define = _DEFINE.match(text)
    if define is not None:
        params = (define.group("params") or "").strip("()")
        return "", [p.strip() for p in params.split(",") if p.strip()]
    m = re.search(rf"(?:\(\s*\*\s*{re.escape(name)}\s*\)|\b{re.escape(name)})\s*\(", text)
    if m is None:
        return "", []
    ret = text[: m.start()].removeprefix("typedef").strip()
    inside = text[m.end() :]
    depth, end = 1, len(inside)
    for k, ch in enumerate(inside):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            end = k
            break
    params = _split_params(inside[:end])
    return ret, [] if params == ["void"] else params


def _split_params(text: str) -> list[str]:
    """A parameter list split at its top-level commas (a function-pointer parameter's own
    list kept whole)."""
    out, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(text[start:k].strip())
            start = k + 1
    out.append(text[start:].strip())
    return [p for p in out if p]


def _body(
    section: str, to_text: Callable[[str], str]
) -> tuple[str, list[str], list[tuple[str, str, str]], str, str]:
    """A refsect2's parts: (its first code listing, its labelled lines (deprecation,
    since), its table rows (parameters, members), its prose, its return section)."""
    listing_m = _LISTING.search(section)
    listing = listing_m.group(1) if listing_m is not None else ""
    if listing_m is not None:
        section = section[: listing_m.start()] + section[listing_m.end() :]
    section = _ANNOTATION.sub("", _LINE_NUMBERS.sub("", section))
    lines: list[str] = []
    section, warnings = _cut_all(section, _WARNING, "div")
    for w in warnings:
        said = _one_line(to_text(w))
        if said:
            lines.append(said if "deprecated" not in said.lower() else f"Deprecated: {said}")
    for since in _SINCE.finditer(section):
        lines.append(_one_line(plain(since.group(1))))
    section = _SINCE.sub("", section)
    rows: list[tuple[str, str, str]] = []
    returns = ""
    while (m := _REFSECT3.search(section)) is not None:
        end = element_end(section, m.start(), "div")
        part = section[m.start() : end]
        section = section[: m.start()] + section[end:]
        if m.group("part") == "returns":
            returns = _one_line(to_text(_H.sub("", part, count=1)))
        elif m.group("part") in ("parameters", "members"):
            rows += _rows(part, to_text)
        else:  # a subsection of its own (an example, a note)
            text = to_text(part).strip()
            if text:
                section += f"<p>{htmllib.escape(text)}</p>"
    prose = to_text(section).strip()
    return listing, lines, rows, prose, returns


def split_built(
    doc: Document,
    html: str,
    to_text: Callable[[str], str],
    rejects: CollectResult | None = None,
) -> list[Document]:
    """A GTK-Doc page's documents (`doc` its text as a whole): its description, then one
    per documented symbol; [] for a book's or part's contents page (counted CONTENTS in
    `rejects`); [doc] when the page is not GTK-Doc's."""
    if not is_gtkdoc(html):
        return [doc]
    title_m = _TITLE.search(html)
    title = plain(title_m.group(1)) if title_m is not None else doc.title
    title = title.rsplit(": ", 1)[0] if ": " in title else title  # "Hash Tables: GLib ..."
    for nav in _NAVIGATION:
        html, _ = _cut_all(html, nav, "table" if "table" in nav.pattern else "div")
    entry = _REFENTRY.search(html)
    if entry is None:
        body = re.search(r"<body[^>]*>", html)
        text = to_text(html[body.end() if body else 0 :]).strip()
        rest = re.sub(rf"^#*\s*{re.escape(title)}\s*", "", text).strip() if title else text
        if len(rest) < _CONTENTS_CHARS:
            count(rejects, CONTENTS, doc.uri)
            return []
        return [Document(doc.source, doc.uri, title, text, doc.meta)]
    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))

    def make(qual: str, kind: str, text: str, signature: str = "") -> Document:
        return api_document(
            doc.source, URI_PREFIX, f, qual, text, kind, signature, 1, language="c", described=True
        )

    name_m = _REFNAME.search(html)
    entry_title = plain(name_m.group(1)) if name_m is not None else title
    purpose = _one_line(plain(name_m.group(2))) if name_m is not None else ""
    sections = {m.group("part"): m.start() for m in _REFSECT1.finditer(html)}
    # a class's page (GBinding), not a module's of one word (Arrays): its hierarchy, or its
    # type among the page's types
    cls = ""
    if _IDENT.fullmatch(entry_title):
        types = inner(html, sections["other_details"], "div") if "other_details" in sections else ""
        heads = {_one_line(plain(h)).removeprefix("struct ") for _, h in _H.findall(types)}
        if "object-hierarchy" in sections or entry_title in heads:
            cls = entry_title
    merged: dict[str, tuple[str, list[str], str]] = {}

    def add(qual: str, kind: str, text: str, signature: str = "") -> None:
        if qual in merged:  # a class's own type under its description
            merged[qual][1].append(text.removeprefix(f"{qual}\n\n"))
        else:
            merged[qual] = (kind, [text], signature)

    description = ""
    if "description" in sections:
        at = sections["description"]
        description = to_text(
            _H.sub("", _LINE_NUMBERS.sub("", inner(html, at, "div")), count=1)
        ).strip()
    about = "\n\n".join(x for x in (purpose, description) if x)
    out: list[Document] = []
    if cls and about:
        add(cls, "class", f"{cls}\n\n{about}")
    elif about:
        out.append(Document(doc.source, doc.uri, entry_title, about, doc.meta))
    for part, what in _DETAILS.items():
        if part not in sections:
            continue
        block = inner(html, sections[part], "div")
        for m in _REFSECT2.finditer(block):
            section = inner(block, m.start(), "div")
            head_m = _H.search(section)
            if head_m is None:
                continue
            heading = _one_line(plain(head_m.group(2)))
            section = section[head_m.end() :]
            listing, lines, rows, prose, returns = _body(section, to_text)
            if returns:
                lines.insert(0, f":returns: {returns}")
            _symbol(m.group("anchor"), heading, what, cls, listing, lines, rows, prose, add)
    for qual, (kind, texts, signature) in merged.items():
        out.append(make(qual, kind, "\n\n".join(texts), signature))
    return out


def _symbol(
    anchor: str,
    heading: str,
    what: str,
    cls: str,
    listing: str,
    lines: list[str],
    rows: list[tuple[str, str, str]],
    prose: str,
    add: Callable[..., None],
) -> None:
    """One refsect2's documents, given to `add(qual, kind, text[, signature])`."""
    params = [(n, s) for w, n, s in rows if w == "parameter"]
    members = [(w, n, s) for w, n, s in rows if w != "parameter"]

    def text_of(first: str, extra: list[str]) -> str:
        fields = [f":param {n}: {s}" for n, s in params if s and n != "..."]
        fields += [f":param ...: {s}" for n, s in params if s and n == "..."]
        returns = [x for x in lines if x.startswith(":returns:")]
        rest = "\n".join(x for x in lines if not x.startswith(":returns:"))
        blocks = [first, prose, "\n".join(fields + returns), "\n".join(extra), rest]
        return "\n\n".join(b for b in blocks if b)

    if what == "function":
        name = heading.removesuffix("()").strip()
        if not _IDENT.fullmatch(name) or not (prose or params):
            return
        ret, args = _prototype(listing, name)
        shown = f"{name}({', '.join(args)})"
        told = any(x.startswith(":returns:") for x in lines)
        extra = [] if told or not ret or ret == "void" else [f":returns: `{ret}`"]
        kind = (
            "macro"
            if listing.lstrip().startswith("#define")
            else ("callback" if "(*" in code(listing) else "function")
        )
        add(name, kind, text_of(shown, extra), shown)
        return
    quoted = _QUOTED.match(heading)
    if what in ("signal", "property", "child property", "style property"):
        if quoted is None:
            return
        name = quoted.group("name")
        owner = cls or anchor.split("--")[0].removesuffix(f"-{name}")
        sep = "::" if what == "signal" else ":"
        qual = f"{owner}{sep}{name}"
        if not prose:
            return
        extra = []
        if what == "signal":
            handler = _one_line(code(listing))
            if handler:
                extra.append(f"Handler: `{handler}`")
        else:
            typ = _one_line(re.sub(r"^\s*[“\"][\w-]+[”\"]", "", code(listing)))
            if typ:
                extra.append(f"Type: `{typ}`")
            if what != "property":
                extra.append(f"A {what} of `{owner}`.")
        # "Owner: GBinding" restates the name
        prose = "\n\n".join(p for p in prose.split("\n\n") if not p.startswith("Owner: "))
        add(qual, what.replace(" ", "_"), text_of(qual, extra))
        return
    # a type, constant macro or variable
    words = heading.split()
    name = words[-1] if words else ""
    if not _IDENT.fullmatch(name):
        return
    kind = words[0] if len(words) > 1 and words[0] in ("struct", "union", "enum") else ""
    definition = _one_line(code(listing))
    extra = []
    define = _DEFINE.match(definition)
    if define is not None:
        kind = "macro"
        value = define.group("value").strip()
        if value and len(value) <= _MAX_VALUE:
            extra.append(f"Value: `{value}`")
    elif not kind and definition.startswith("typedef "):
        kind = "typedef"
        if len(definition) <= 2 * _MAX_VALUE:
            extra.append(f"Definition: `{definition.rstrip(';')}`")
    elif not kind and definition.startswith("extern "):
        kind = "variable"
        typ = definition.removeprefix("extern ").rstrip(";").strip()
        typ = typ[: typ.rfind(name)].strip() if name in typ else typ
        if typ:
            extra.append(f"Type: `{typ}`")
    scope = name
    named = []
    for w, member, said in members:
        field = re.sub(r"\s*\(\)$", "", member)
        mname = _IDENT.findall(field)[-1] if _IDENT.findall(field) else ""
        if not mname:
            continue
        named.append(mname)
        if not said:
            continue
        if w == "enum_member":
            add(mname, "enumerator", f"{mname}\n\n{said}\n\nA value of `enum {name}`.")
        else:
            typ = field[: field.rfind(mname)].strip()
            more = f"\n\nType: `{typ}`" if typ and len(typ) <= _MAX_VALUE else ""
            add(f"{scope}::{mname}", "field", f"{scope}::{mname}\n\n{said}{more}")
    if named and kind in ("struct", "union", "enum"):
        label = "Values" if kind == "enum" else "Members"
        shown = ", ".join(f"`{n}`" for n in named[:_MAX_NAMES])
        extra.append(f"{label}: {shown}" + (", ..." if len(named) > _MAX_NAMES else "") + ".")
    if not prose and not any(s for _, _, s in members):
        return
    if prose or extra:
        add(name, kind or "type", text_of(name, extra))
