"""A Doxygen page's members, each a document of its own, as collect/capi.py reads them from
the headers: many C and C++ libraries publish their API as a Doxygen site, and read as a
page its members were rows of tables ("Parameters: blob pointer to the looked up blob")
under a heading that is the bare name ("git_blob_lookup()"), the prototype cut into table
cells, each member twice (its summary row and its details).

A page is Doxygen's when its `<meta name="generator">` says so. Each member's details (a
`memitem`: the prototype, then the documentation) becomes `c:<name>`, named as the header
reader names it (a C function `c:git_blob_lookup`, a struct's field
`c:git_blob_filter_options::flags`, a C++ member through its class and namespaces, template
arguments left out), its text capi's form: `name(params)` over the documentation, the
parameter and return sections as `:param x:` and `:returns:` lines, exceptions as
`:raises X:`, notes, warnings, "see also", "since" and deprecation as labelled lines; the
return type where no return section says it, a macro's value, a field's or variable's
type, a typedef's definition; an enumeration's values each a document of their own;
overloads one document. A class's, struct's, union's or namespace's detailed description is
its document (`c:<name>`), a file's is the header's (`c:<file name>`), a group's (module's)
the page's. Members without documentation are none; the rest of the page (the summary
tables restating each member's brief, include and inheritance graphs) is left out, and a
reference page documenting nothing gives no document (counted with its fix). A page that is
no reference (the main page, a related page) is read whole, its contents without the
navigation.
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Callable
from pathlib import PurePosixPath

from jupiter.collect.htmlparts import element_end, inner, plain
from jupiter.collect.result import CollectResult, SourceFile, api_document, count
from jupiter.records import Document

URI_PREFIX = "c:"
UNDOCUMENTED = "doxygen_undocumented"
FIXES = {
    UNDOCUMENTED: (
        "a Doxygen reference page whose members have no documentation gives no document (its "
        "tables only list declarations); the source's c: text reads such pages whole"
    )
}
_MAX_VALUE = 80
_GENERATOR = re.compile(r'<meta\s+name="generator"\s+content="Doxygen')
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_COMPOUND = re.compile(
    r"^(?P<name>.+?)\s+(?P<kind>Struct|Class|Union|Interface|Namespace|File|Protocol|Category"
    r"|Exception)(?:\s+Template)?\s+Reference$"
)
_DETAILS = re.compile(
    r'<a name="details" id="details"></a>\s*<h2 class="groupheader">[^<]*</h2>\s*'
    r'<div class="textblock">'
    r'|<h2 class="groupheader">\s*(?:<a[^>]*>\s*</a>\s*)?Detailed Description\s*</h2>\s*'
    r'<div class="textblock">'
)
_MEMTITLE = re.compile(r'<h2 class="memtitle">(.*?)</h2>', re.S)
_SHOWN_VALUE = re.compile(r'\s*<b>Value:</b>\s*<div class="fragment">')
_CONTENTS = re.compile(r'<div class="contents">')
_HEADER_TITLE = re.compile(r'<div class="title">(.*?)</div>', re.S)
_PERMALINK = re.compile(r'<span class="permalink">.*?</span>', re.S)
_GROUPHEADER = re.compile(r'<h2 class="groupheader">(.*?)</h2>', re.S)
_MEMITEM = re.compile(r'<div class="memitem">')
_MEMPROTO = re.compile(r'<div class="memproto">')
_MEMDOC = re.compile(r'<div class="memdoc">')
_MEMNAME = re.compile(r'<td class="memname">(.*?)</td>', re.S)
_ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
_PARAMTYPE = re.compile(r'<td class="paramtype">(.*?)</td>', re.S)
_PARAMNAME = re.compile(r'<td class="paramname">(.*?)</td>', re.S)
_CELL = re.compile(r"<td[^>]*>(.*?)</td>", re.S)
_TEMPLATE = re.compile(r'<div class="(?:memtemplate|compoundTemplParams)">(.*?)</div>', re.S)
_FIELDTABLE = re.compile(r'<table class="fieldtable">')
_FIELD_ROW = re.compile(
    r'<td class="fieldname">(.*?)</td>\s*<td class="fielddoc">(.*?)</td>\s*</tr>', re.S
)
_DL = re.compile(r'<dl class="(?P<cls>[\w ]+)">\s*<dt>(?P<dt>.*?)</dt>(?P<dd>.*?)</dl>', re.S)
_PARAM_ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
# a name cell's qualified name at its end: `constexpr auto basic_string_view< Char >::size`
_NAME_AT_END = re.compile(
    r"(?P<scope>(?:[~\w]+(?:\s*<[^<>]*(?:<[^<>]*>[^<>]*)*>)?\s*::\s*)*)"
    r"(?P<name>~?[A-Za-z_]\w*|operator\S+)\s*$"
)
_MACROS = re.compile(r"\b[A-Z][A-Z0-9_]{2,}\b\s*")
_STORAGE = re.compile(r"\b(?:static|inline|extern|virtual|explicit|constexpr|consteval|friend)\b")
# a section's label as capi writes Doxygen's command
_LABELS = {
    "note": "Note:",
    "warning": "Warning:",
    "attention": "Attention:",
    "see": "See also:",
    "since": "Since:",
    "deprecated": "Deprecated:",
    "pre": "Precondition:",
    "post": "Postcondition:",
    "remark": "Note:",
}
# a details section's heading -> the kind of what it documents
_KINDS = (
    ("macro", "macro"),
    ("typedef", "typedef"),
    ("enumeration", "enum"),
    ("constructor", "constructor"),
    ("function", "function"),
    ("variable", "variable"),
    ("field", "field"),
    ("data", "field"),
    ("property", "field"),
)


def is_doxygen(html: str) -> bool:
    """Whether `html` is a page Doxygen wrote."""
    return _GENERATOR.search(html[:4000]) is not None


def _untemplated(name: str) -> str:
    """`fmt::basic_string_view< Char >::size` -> `fmt::basic_string_view::size`."""
    while True:
        cut = re.sub(r"\s*<[^<>]*>", "", name)
        if cut == name:
            return re.sub(r"\s*::\s*", "::", cut).strip()
        name = cut


def _join_param(typ: str, name: str) -> str:
    """`git_blob **` and `blob` -> `git_blob **blob` (the header's spacing)."""
    typ, name = typ.strip(), name.strip().rstrip(",").strip()
    if not name:
        return typ
    return f"{typ}{name}" if typ.endswith(("*", "&")) else f"{typ} {name}".strip()


def _sections(doc: str, to_text: Callable[[str], str]) -> str:
    """A member's documentation as capi writes it: prose as text, each parameter, return,
    exception and note section as `:param x:`, `:returns:`, `:raises X:`, `Note:` lines."""
    parts: list[str] = []
    fields: list[str] = []
    at = 0
    for m in _DL.finditer(doc):
        prose = to_text(doc[at : m.start()]).strip()
        if prose:
            if fields:
                parts.append("\n".join(fields))
                fields = []
            parts.append(prose)
        at = m.end()
        cls = m.group("cls").split()
        dd = re.sub(r"^\s*<dd>|</dd>\s*$", "", m.group("dd").strip())
        if "params" in cls or "tparams" in cls or "exception" in cls or "retval" in cls:
            for row in _PARAM_ROW.findall(dd):
                cells = [c for c in _CELL.findall(row)]
                if len(cells) < 2:
                    continue
                name, said = plain(cells[-2]), " ".join(to_text(cells[-1]).split())
                if "params" in cls:
                    fields.append(f":param {name}: {said}")
                elif "tparams" in cls:
                    fields.append(f"Template parameter {name}: {said}")
                elif "exception" in cls:
                    fields.append(f":raises {name}: {said}")
                else:
                    fields.append(f"Returns `{name}`: {said}")
            continue
        said = " ".join(to_text(dd).split())
        if not said:
            continue
        if "return" in cls:
            fields.append(f":returns: {said}")
        else:
            key = next((k for k in _LABELS if k in cls), "")
            label = _LABELS.get(key) or f"{plain(m.group('dt')).rstrip(':')}:"
            fields.append(f"{label} {said}")
    rest = to_text(doc[at:]).strip()
    if fields:
        parts.append("\n".join(fields))
    if rest:
        parts.append(rest)
    return "\n\n".join(parts)


def _kind(heading: str) -> str:
    low = heading.lower()
    return next((kind for word, kind in _KINDS if word in low), "")


def _proto(proto: str) -> tuple[str, list[str], str]:
    """(the name cell's text, the parameters, the text after the closing parenthesis) of a
    member's prototype table."""
    memname = _MEMNAME.search(proto)
    head = plain(memname.group(1)) if memname is not None else ""
    params: list[str] = []
    tail = ""
    for row in _ROW.findall(proto):
        types, names = _PARAMTYPE.findall(row), _PARAMNAME.findall(row)
        if types or names:
            typ = plain(types[0]) if types else ""
            name = plain(names[0]) if names else ""
            if typ or name:
                params.append(_join_param(typ, name))
        cells = [plain(c) for c in _CELL.findall(row)]
        closing = [c for c in cells if c.startswith(")")]
        if closing:
            tail = closing[-1][1:].strip()
    if len(params) == 1 and params[0] == "void":
        params = []
    return head, params, tail


def split_built(
    doc: Document,
    html: str,
    to_text: Callable[[str], str],
    rejects: CollectResult | None = None,
) -> list[Document]:
    """A Doxygen page's documents (`doc` its text as a whole): its compound's description,
    then one per documented member name; [] for a reference page that documents nothing
    (counted UNDOCUMENTED in `rejects`); [doc] when the page is not Doxygen's or is no
    reference page (the main page, a related page)."""
    if not is_doxygen(html):
        return [doc]
    title_m = _TITLE.search(html)
    title = htmllib.unescape(title_m.group(1)).strip() if title_m is not None else ""
    title = title.split(": ", 1)[1] if ": " in title else title  # "project: page"
    compound = _COMPOUND.match(" ".join(title.split()))
    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))

    def make(qual: str, kind: str, text: str) -> Document:
        return api_document(
            doc.source, URI_PREFIX, f, qual, text, kind, "", 1, language="c", described=True
        )

    out: list[Document] = []
    owner = ""
    details = _DETAILS.search(html)
    about = ""
    if details is not None:
        block_at = details.end() - len('<div class="textblock">')
        block = _TEMPLATE.sub("", inner(html, block_at, "div"))
        about = _sections(block, to_text)
    if compound is not None:
        kind = compound.group("kind").lower()
        name = _untemplated(compound.group("name"))
        if kind == "file":
            name = PurePosixPath(name).name
            kind = "header"
        else:
            owner = name
        if about:
            out.append(make(name, kind, about if kind == "header" else f"{name}\n\n{about}"))
    elif about:
        out.append(Document(doc.source, doc.uri, title or doc.title, about, doc.meta))
    merged: dict[str, tuple[str, list[str]]] = {}
    headings = [(m.start(), plain(m.group(1))) for m in _GROUPHEADER.finditer(html)]
    for m in _MEMTITLE.finditer(html):
        item = _MEMITEM.search(html, m.end())
        if item is None:
            continue
        end = element_end(html, item.start(), "div")
        body = html[item.start() : end]
        proto_m, doc_m = _MEMPROTO.search(body), _MEMDOC.search(body)
        if proto_m is None or doc_m is None:
            continue
        heading = next((h for at, h in reversed(headings) if at < m.start()), "")
        kind = _kind(heading)
        memdoc = inner(body, doc_m.start(), "div")
        enumerators = []
        table = _FIELDTABLE.search(memdoc)
        if table is not None:
            rows = inner(memdoc, table.start(), "table")
            enumerators = _FIELD_ROW.findall(rows)
            memdoc = memdoc[: table.start()] + memdoc[element_end(memdoc, table.start(), "table") :]
        value = ""
        shown_value = _SHOWN_VALUE.match(memdoc)  # a long macro's value, shown in its doc
        if shown_value is not None:
            frag_at = shown_value.end() - len('<div class="fragment">')
            code = re.findall(r'<div class="line">(.*?)</div>', inner(memdoc, frag_at, "div"))
            value = " ".join(plain(x).rstrip("\\").strip() for x in code).strip()
            memdoc = memdoc[element_end(memdoc, frag_at, "div") :]
        text = _sections(memdoc, to_text)
        head, params, tail = _proto(inner(body, proto_m.start(), "div"))
        title_html = _PERMALINK.sub("", m.group(1))  # "◆ git_blob_lookup() [1/2]"
        member = re.sub(r"\s*\[\d+/\d+\]$", "", plain(title_html)).removesuffix("()").strip()
        text = re.sub(rf"^{re.escape(member)}\(\)\s*:\s*", "", text)  # zstd's "f() : does"
        qual, rest = _qualified(head, member, owner, kind)
        if not qual:
            continue
        scope = qual.rpartition("::")[0]
        for name_html, said_html in enumerators:
            said = _sections(said_html, to_text)
            name = plain(name_html)
            if said and re.fullmatch(r"[A-Za-z_]\w*", name):
                enum_qual = f"{scope}::{name}" if scope else name
                merged.setdefault(enum_qual, ("enumerator", []))[1].append(f"{enum_qual}\n\n{said}")
        if not text:
            continue
        lines: list[str] = []
        shown = qual
        if kind in ("function", "constructor") or (params and kind != "macro"):
            kind = kind or "function"
            if owner and kind == "function":
                kind = "method"
            shown = f"{qual}({', '.join(params)})"
            quals, _, returns = tail.partition("->")  # `) const -> size_t`
            returns = returns.strip() or _STORAGE.sub("", rest).strip()
            returns = _MACROS.sub("", returns).strip() or returns  # `FMT_CONSTEXPR20 void`
            if returns == "auto":
                returns = ""
            lines += [
                f"Qualifiers: `{quals.strip()}`." if quals.strip() else "",
                f":returns: `{returns}`"
                if returns and returns != "void" and ":returns:" not in text
                else "",
            ]
        elif kind == "macro":
            value = rest or " ".join(value.split())
            if params:
                shown = f"{qual}({', '.join(params)})"
            lines.append(
                f"Value: `{value}`" if value and len(value) <= _MAX_VALUE and not params else ""
            )
        elif kind == "typedef":
            definition = rest
            lines.append(
                f"Definition: `{definition}`"
                if definition and len(definition) <= 2 * _MAX_VALUE
                else ""
            )
        elif kind in ("variable", "field"):
            typ = _STORAGE.sub("", rest).strip()
            lines.append(f"Type: `{typ}`" if typ and len(typ) <= 2 * _MAX_VALUE else "")
        more = "\n\n".join(x for x in lines if x)
        entry = f"{shown}\n\n{text}" + (f"\n\n{more}" if more else "")
        merged.setdefault(qual, (kind or "member", []))[1].append(entry)
    for qual, (kind, texts) in merged.items():
        out.append(make(qual, kind, "\n\n".join(texts)))
    if out:
        return out
    contents = _CONTENTS.search(html)
    text = to_text(inner(html, contents.start(), "div")).strip() if contents else ""
    if compound is not None or headings or not text:  # a page that documents nothing
        count(rejects, UNDOCUMENTED, doc.uri)
        return []
    # another page (the main page, a related page): its contents, not the navigation
    page_title = _HEADER_TITLE.search(html)
    name = plain(page_title.group(1)) if page_title is not None else title
    return [Document(doc.source, doc.uri, name or doc.title, text, doc.meta)]


def _qualified(head: str, member: str, owner: str, kind: str) -> tuple[str, str]:
    """(the member's qualified name, the rest of its name cell: a return or field type, a
    macro's value, a typedef's definition) from the prototype's name cell."""
    head = head.strip()
    if kind == "macro" or head.startswith("#define"):
        m = re.match(r"#define\s+(\w+)\s*(.*)$", head)
        return (m.group(1), m.group(2).strip()) if m is not None else ("", "")
    if head.startswith("typedef "):
        body = head.removeprefix("typedef").strip()
        m = _NAME_AT_END.search(body)
        if m is None or m.group("name") != member:
            return "", ""
        scope = _untemplated(m.group("scope")).rstrip(":") or owner
        return (f"{scope}::{member}" if scope else member), body[: m.start()].strip()
    alias = re.match(r"using\s+(.*?)\s*=\s*(.*)$", head)
    if alias is not None:
        name = _untemplated(alias.group(1))
        if "::" not in name and owner:
            name = f"{owner}::{name}"
        return name, alias.group(2).strip()
    if head.startswith(("enum ", "enum class ", "enum struct ")):
        name = _untemplated(re.sub(r"^enum\s+(?:class\s+|struct\s+)?", "", head).split(":")[0])
        if "::" not in name and owner:
            name = f"{owner}::{name}"
        return name, ""
    head = re.sub(r"\s*=\s*.*$", "", head) if kind in ("variable", "field") else head
    m = _NAME_AT_END.search(head)
    if m is None or _untemplated(m.group("name")) != member.split("::")[-1].strip():
        return "", ""
    scope = _untemplated(m.group("scope")).rstrip(":")
    name = f"{scope}::{m.group('name')}" if scope else m.group("name")
    if not scope and owner:
        name = f"{owner}::{name}"
    return name, head[: m.start()].strip()
