"""A rustdoc page's items, each a document of its own, as collect/rustapi.py reads them from
the source: a crate's API as most users meet it is its rustdoc site (docs.rs, `cargo doc`'s
`target/doc`), and read as a page its methods were sections headed by their whole
signature ("pub fn get(&self) -> Option<&T>"), between "Source" links, with the standard
library's documentation of every trait the type implements (`From`, `Into`, `Any`, ...)
copied under each type.

A page is rustdoc's when its `<meta name="generator">` says so; its `<body class="rustdoc
struct">` says what it documents, its title names it ("OnceCell in once_cell::sync -
Rust"). Each item becomes `rust:<path>::<Name>` (a macro `rust:<crate>::<name>!`), its text
the form rustapi writes: `path::Name(params)` over its documentation for a function, the
qualifiers, type parameters, where clause and `:returns:` lines after; a struct's, enum's,
trait's, type's and constant's own lines (type parameters, definition, type, value); a
module's page its documentation alone. The members the page documents are documents too:
inherent methods and associated items, a trait's required and provided items, fields,
variants (a struct variant's fields as one line), and a trait implementation's method with
documentation of its own (an inherited one, which rustdoc shows cut short with "Read
more", is the trait's, not the type's). Deprecation and availability notes are lines of
the item's text. Blanket and auto trait implementations, implementors, methods reached
through `Deref` and an alias's aliased type are other items' documentation and are left
out, and so is the rest of the page (the declaration, item lists restating each item's
summary). A page documenting nothing is no document (counted with its fix); a page of
another kind (a primitive's, a keyword's) is read as a page.
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Callable
from pathlib import PurePosixPath

from jupiter.collect.htmlparts import element_end, inner
from jupiter.collect.result import CollectResult, SourceFile, api_document, count
from jupiter.collect.rustapi import _MAX_VALUE, SELF_PARAM, _top_eq, split_commas
from jupiter.records import Document

URI_PREFIX = "rust:"
UNDOCUMENTED = "rustdoc_undocumented"
FIXES = {
    UNDOCUMENTED: (
        "a rustdoc page whose item and members have no documentation gives no document "
        "(its declaration and trait lists are no text to learn from); the source's "
        "rust: text reads such pages whole"
    )
}
_GENERATOR = re.compile(r'<meta\s+name="generator"\s+content="rustdoc"')
_BODY = re.compile(r'<body\s+class="rustdoc\s+([\w-]+)')
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
# rustdoc's page kinds, as rustapi names the items they document
KINDS = {
    "struct": "struct",
    "enum": "enum",
    "union": "union",
    "trait": "trait",
    "traitalias": "trait",
    "fn": "function",
    "macro": "macro",
    "derive": "macro",
    "attr": "macro",
    "type": "type",
    "constant": "constant",
    "static": "static",
    "mod": "module",
}
_MAIN = re.compile(r'<section id="main-content"|<main\b')
_DECL = re.compile(r'<pre class="rust[^"]*"[^>]*>(.*?)</pre>', re.S)
_TOP_DOC = re.compile(r'<details class="(?:rustdoc-)?toggle top-doc"')
_DOCBLOCK = re.compile(r"""<div class=["']docblock\b[^"']*["']>""")
# what follows these headings is other items' documentation
_NOT_OWN = re.compile(
    r'<h2 id="(?:synthetic-implementations|blanket-implementations|foreign-impls|implementors'
    r'|deref-methods[^"]*|aliased-type|dyn-compatibility|object-safety)"'
)
_TRAIT_IMPLS = re.compile(r'<h2 id="trait-implementations"')
_MEMBER = re.compile(
    r'<(section|h3|h4|span|div)\b[^>]*\bid="(method|tymethod|structfield|variant'
    r'|associatedconstant|associatedtype)\.([A-Za-z_]\w*)(?:-\d+)?"[^>]*>'
)
_CODE_HEADER = re.compile(r'<(h3|h4)[^>]*class="code-header"[^>]*>', re.S)
_CODE = re.compile(r"<code>(.*?)</code>", re.S)
_ITEM_INFO = re.compile(r'\s*(?:</summary>\s*)?<(span|div) class="item-info">')
_SUMMARY_END = re.compile(r"\s*(?:</summary>\s*)?")
_STAB = re.compile(r'<div class="stab [^"]*">(.*?)</div>', re.S)
_SUB_VARIANT = re.compile(r'\s*<div class="sub-variant" id="variant\.[\w.]+">')
_READ_MORE = re.compile(r">\s*Read more\s*</a>\s*(?:</p>\s*)?$")
_DOC_ANCHOR = re.compile(r'<a class="doc-anchor"[^>]*>§</a>')
# hover notes, no text: an example's "ⓘ" (not tested, should panic, an edition; before
# 1.7x in a div), a return type's notable traits
_TOOLTIP = re.compile(
    r'<a[^>]*class="tooltip"[^>]*>.*?</a>|<div class=["\']information["\']><div[^>]*>.*?</div>'
    r"</div>",
    re.S,
)
_NOTABLE = re.compile(r'<span class="notable-traits">')
# rustdoc's typographic quotes, the source's plain ones again
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_EMOJI = re.compile(r'<span class="emoji">.*?</span>', re.S)
_TAG = re.compile(r"<[^>]+>")
_FN = re.compile(
    r"^(?P<quals>(?:(?:pub(?:\s*\([^)]*\))?|default|const|async|unsafe|safe"
    r'|extern(?:\s*"[^"]*")?)\s+)*)fn\s+(?P<name>[A-Za-z_]\w*)\s*'
)
_DECL_KW = re.compile(
    r"^(?:pub(?:\s*\([^)]*\))?\s+)?(?:unsafe\s+)?(?:struct|enum|union|trait|type|const|static"
    r"(?:\s+mut)?)\s+(?P<name>[A-Za-z_]\w*)\s*"
)
_MEMBER_KINDS = {
    "method": "method",
    "tymethod": "method",
    "structfield": "field",
    "variant": "variant",
    "associatedconstant": "constant",
    "associatedtype": "type",
}


def is_rustdoc(html: str) -> bool:
    """Whether `html` is a page rustdoc wrote."""
    return _GENERATOR.search(html[:4000]) is not None


def _plain(fragment: str) -> str:
    """A fragment's text, tags gone, entities decoded, space collapsed, attribute lines
    (`#[non_exhaustive]`) left out."""
    text = htmllib.unescape(_TAG.sub(_tag_space, _clean(fragment))).replace("\xa0", " ")
    lines = [line for line in text.splitlines() if not line.strip().startswith("#[")]
    return " ".join(" ".join(lines).split())


def _clean(fragment: str) -> str:
    """`fragment` without rustdoc's marks: heading anchors, hover notes."""
    fragment = _TOOLTIP.sub("", _DOC_ANCHOR.sub("", fragment))
    while (m := _NOTABLE.search(fragment)) is not None:
        fragment = fragment[: m.start()] + fragment[element_end(fragment, m.start(), "span") :]
    return fragment


def _tag_space(m: re.Match[str]) -> str:
    """A block element's tag as a space (a where clause's `<div>`), any other as nothing."""
    return " " if re.match(r"</?(?:div|br|p)\b", m.group(0)) else ""


def _close(text: str, k: int, open_: str, close: str) -> int:
    """The index after the bracket closing the one at `k` (`->` and `=>` are no brackets)."""
    depth = 0
    for j in range(k, len(text)):
        ch = text[j]
        if ch == open_:
            depth += 1
        elif ch == close and not (close == ">" and text[j - 1 : j] in ("-", "=")):
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def _generics(text: str, k: int) -> tuple[str, int]:
    """(`<...>`, the index after it) when `text` has generics at `k`, else ("", k)."""
    if text[k : k + 1] != "<":
        return "", k
    end = _close(text, k, "<", ">")
    return text[k:end], end


def fn_lines(qual: str, signature: str) -> tuple[str, str, list[str]] | None:
    """(head `qual(params)`, `(params)`, the lines after the doc) of a function signature as
    rustdoc shows it ("pub const fn new<E>(error: E) -> Self where E: Send"), the way
    rustapi writes them; None when it is no function's."""
    m = _FN.match(signature)
    if m is None:
        return None
    quals = " ".join(w for w in m.group("quals").split() if not w.startswith("pub"))
    generics, k = _generics(signature, m.end())
    k = len(signature) - len(signature[k:].lstrip())
    if signature[k : k + 1] != "(":
        return None
    end = _close(signature, k, "(", ")")
    params = [re.sub(r"^mut\s+", "", p) for p in split_commas(signature[k + 1 : end - 1])]
    params = [p for p in params if not SELF_PARAM.match(p)]
    tail, where = signature[end:].strip(), ""
    wm = re.search(r"\bwhere\b", tail)
    if wm is not None:
        tail, where = tail[: wm.start()].strip(), tail[wm.end() :].strip().rstrip(",")
    tail = tail.rstrip(";").strip()
    returns = tail.removeprefix("->").strip() if tail.startswith("->") else ""
    shown = f"({', '.join(params)})"
    lines = [
        f"Qualifiers: `{quals}`." if quals else "",
        f"Type parameters: `{generics}`." if generics else "",
        f"Where: `{where}`." if where else "",
        f":returns: `{returns}`" if returns else "",
    ]
    return f"{qual}{shown}", shown, lines


def _value_lines(kind: str, rest: str) -> list[str]:
    """A constant's, static's or type's lines from its declaration after the name (`: u8 =
    1`, `<T> = Result<T, Error>`)."""
    rest = rest.rstrip(";").strip()
    if kind == "type":
        generics, k = _generics(rest, 0)
        rest = rest[k:].strip()
        bounds, _, value = rest.partition("=") if rest.startswith(":") else ("", "", rest)
        value = value.strip().removeprefix("=").strip()
        return [
            f"Type parameters: `{generics}`." if generics else "",
            f"Bounds: `{bounds.lstrip(':').strip()}`." if bounds else "",
            f"Definition: `{value}`" if value and len(value) <= _MAX_VALUE else "",
        ]
    typ, value = rest, ""
    eq = _top_eq(rest)
    if eq >= 0:
        typ, value = rest[:eq].strip(), rest[eq + 1 :].strip()
    typ = typ.lstrip(":").strip()
    return [
        f"Type: `{typ}`" if typ else "",
        f"Value: `{value}`" if value and len(value) <= _MAX_VALUE else "",
    ]


def _notes(html: str, at: int, to_text: Callable[[str], str]) -> tuple[list[str], int]:
    """The deprecation and availability notes (rustdoc's item-info) at `at`, each a line,
    and the index after them."""
    m = _ITEM_INFO.match(html, at)
    if m is None:
        return [], at
    start = m.end() - len(f'<{m.group(1)} class="item-info">')
    end = element_end(html, start, m.group(1))
    notes = [_line(to_text(_EMOJI.sub("", s))) for s in _STAB.findall(html[start:end])]
    return [n for n in notes if n], end


def _line(text: str) -> str:
    """`text` on one line, ending with a full stop."""
    text = " ".join(text.split())
    return text if not text or text.endswith((".", "!", "?")) else f"{text}."


def _docblock(html: str, at: int) -> tuple[str, int, bool]:
    """The docblock's HTML right at `at` (a summary's end may come first), the index after
    it, and whether it is another item's documentation cut short (rustdoc writes those
    with `class='docblock'` and a "Read more" link); ("", at, False) when there is none."""
    skip = _SUMMARY_END.match(html, at)
    m = _DOCBLOCK.match(html, skip.end() if skip is not None else at)
    if m is None:
        return "", at, False
    block = inner(html, m.start(), "div")
    short = "'" in m.group(0) or _READ_MORE.search(block) is not None
    return block, element_end(html, m.start(), "div"), short


def _sub_fields(html: str, at: int) -> tuple[str, int]:
    """A struct variant's fields at `at` as one line (`{ code: i32 }`), and the index after
    them; ("", at) when there are none."""
    m = _SUB_VARIANT.match(html, at)
    if m is None:
        return "", at
    start = m.end() - len(m.group(0).lstrip())
    codes = [_plain(c) for c in _CODE.findall(inner(html, start, "div"))]
    return ("{ " + ", ".join(codes) + " }" if codes else ""), element_end(html, start, "div")


def _name(title: str, kind: str) -> tuple[str, str]:
    """(item name, module path) from a page title ("OnceCell in once_cell::sync - Rust";
    an older rustdoc's "once_cell::sync::OnceCell - Rust")."""
    title = re.sub(r"\s+-\s+Rust\s*$", "", " ".join(htmllib.unescape(title).split()))
    if kind == "mod":
        return "", title
    name, sep, path = title.partition(" in ")
    if sep:
        return name.strip(), path.strip()
    path, _, name = title.rpartition("::")
    return name, path


def split_built(
    doc: Document,
    html: str,
    to_text: Callable[[str], str],
    rejects: CollectResult | None = None,
) -> list[Document]:
    """A rustdoc page's documents (`doc` its text as a whole): the item's and its members',
    [] when it documents nothing (counted UNDOCUMENTED in `rejects`); [doc] when the page
    is not rustdoc's or documents no item of a kind rustapi names."""
    body, title = _BODY.search(html), _TITLE.search(html)
    if not is_rustdoc(html) or body is None or title is None or body.group(1) not in KINDS:
        return [doc]
    page_kind = body.group(1)
    name, path = _name(title.group(1), page_kind)
    if not path or (page_kind != "mod" and not re.fullmatch(r"[A-Za-z_]\w*", name)):
        return [doc]
    kind = KINDS[page_kind]
    macro = page_kind == "macro"
    qual = f"{path}::{name}{'!' if macro else ''}" if name else path
    main_at = _MAIN.search(html)
    main = html[main_at.start() :] if main_at is not None else html

    def text_of(block: str) -> str:
        return to_text(_clean(block)).translate(_QUOTES).strip()

    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))

    def make(q: str, k: str, head: str, signature: str, body_: str, lines: list[str]) -> Document:
        text = body_ if k == "module" else f"{head}\n\n{body_}"
        more = "\n\n".join(x for x in lines if x)
        text = f"{text}\n\n{more}" if more else text
        return api_document(
            doc.source, URI_PREFIX, f, q, text, k, signature, 1, language="rust", described=True
        )

    out: list[Document] = []
    # the item itself: its declaration, notes and documentation
    top = _TOP_DOC.search(main)
    first_member = _MEMBER.search(main)
    limit = first_member.start() if first_member is not None else len(main)
    decl_m = _DECL.search(main, 0, top.start() if top is not None else limit)
    decl = _plain(decl_m.group(1)) if decl_m is not None else ""
    notes, _ = _notes(main, decl_m.end() if decl_m is not None else 0, to_text)
    top_block = _DOCBLOCK.search(
        main, top.start() if top is not None else decl_m.end() if decl_m is not None else 0, limit
    )
    about = inner(main, top_block.start(), "div") if top_block is not None else ""
    about_text = text_of(about) if about else ""
    head, signature, lines = qual, "", list(notes)
    if kind == "function":
        got = fn_lines(qual, decl)
        if got is not None:
            head, signature, more = got
            lines += more
    elif kind in ("struct", "enum", "union", "trait", "type", "constant", "static"):
        dm = _DECL_KW.match(decl)
        rest = decl[dm.end() :] if dm is not None else ""
        if kind in ("type", "constant", "static"):
            lines += _value_lines(kind, rest)
        else:
            generics, _ = _generics(rest, 0)
            lines.append(f"Type parameters: `{generics}`." if generics else "")
    if about_text:
        out.append(make(qual, kind, head, signature, about_text, lines))
    # its members, up to other items' documentation
    stop = _NOT_OWN.search(main)
    region = main[: stop.start()] if stop is not None else main
    impls = _TRAIT_IMPLS.search(region)
    seen: set[str] = set()
    for m in _MEMBER.finditer(region):
        what, member = m.group(2), m.group(3)
        end = element_end(region, m.start(), m.group(1))
        element = region[m.start() : end]
        header_m = _CODE_HEADER.search(element)
        if header_m is not None:
            header = _plain(inner(element, header_m.start(), header_m.group(1)))
        else:
            code_m = _CODE.search(element)
            header = _plain(code_m.group(1)) if code_m is not None else member
        notes, after = _notes(region, end, to_text)
        fields, after = _sub_fields(region, after)  # rustdoc before 1.7x: fields first
        block, after, short = _docblock(region, after)
        in_impl = impls is not None and m.start() > impls.start()
        if not block or (in_impl and (what != "method" or short)):
            continue
        mqual = f"{qual}::{member}"
        if mqual in seen:
            continue
        seen.add(mqual)
        mkind = _MEMBER_KINDS[what]
        mhead, msig, mlines = mqual, "", list(notes)
        if mkind == "method":
            got = fn_lines(mqual, header)
            if got is not None:
                mhead, msig, more = got
                mlines += more
        elif mkind == "field":
            typ = header.partition(":")[2].strip()
            mlines.append(f"Type: `{typ}`" if typ else "")
        elif mkind == "variant":
            fields = fields or _sub_fields(region, after)[0]
            rest = header[len(member) :].strip() if header.startswith(member) else ""
            if rest.startswith("="):  # a discriminant: `Debug = 4`
                mlines.append(f"Value: `{rest[1:].strip()}`")
            elif rest or fields:
                mlines.append(f"Fields: `{rest or fields}`")
        elif mkind in ("constant", "type"):
            dm = _DECL_KW.match(header)
            mlines += _value_lines(mkind, header[dm.end() :] if dm is not None else "")
        out.append(make(mqual, mkind, mhead, msig, text_of(block), mlines))
    if not out and rejects is not None:
        count(rejects, UNDOCUMENTED, doc.uri)
    return out
