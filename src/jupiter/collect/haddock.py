"""A Haddock module page's API, each item a document of its own, as collect/hsapi.py reads
the `.hs` files the page was built from: a Haskell package's documentation as most users
meet it is its Haddock site (hackage.haskell.org/package/<p>/docs/, Debian's libghc-*-doc
packages), and read as a page its navigation, synopsis, every item and every instance ran
together as one text.

A page is Haddock's when its head loads Haddock's script (`haddock-bundle.min.js`, before
2.19 `haddock-util.js`), names Haddock as its generator, or its footer says "Produced by
Haddock". A module page is one with a `<div id="interface">`; its module is its header's
caption (`<p class="caption">Data.Aeson</p>`), else its title, else its file name
(`Data-Aeson.html`). The package's contents page (its module list) and the name indexes
(`doc-index*.html`) give no document and are counted HADDOCK_CONTENTS; any other page of
Haddock's (one of the old frame or table layouts, with no interface) is left to the page
reader ([doc]).

The module's description (`<div id="description">`) becomes `haskell:<Module>`, its text
the module's name over the description, as hsapi writes a module header (the header's
metadata table, `<div id="module-header">`, is dropped; Haddock shows no `Description:`
field on the page, so the site's text lacks the line hsapi puts first). Each item, a
`<div class="top">` of the interface, is a declaration (`<p class="src">`, its links and
keywords flattened, the "Source" and "#" links and the fixity dropped, whitespace
collapsed) over its documentation (`<div class="doc">`); section headings, the chunks of
prose between items and the synopsis are no items. Named `haskell:<Module>.<name>` after
the name its `class="def"` anchor shows, an operator bare (`haskell:Data.Aeson..:`), its
first line is hsapi's:

- a function `name :: Type` (an operator in parentheses, `(.:) :: ...`); one whose
  arguments are documented one by one (`<div class="subs arguments">`, a row per argument:
  `:: A`, `-> B`, a context's row followed by one opening `=>`) has its type joined from
  the rows, and under its documentation an `Argument <n> (<type>): <doc>` line per
  documented argument, counted after the context, a leading `forall` left out of its type
  and the type parenthesised unless it is already, then `:returns: <doc>` for a documented
  result (after a blank line when argument lines stand before it);
- a type `data T a`, `newtype T a`, `type family F a`, `data family D a` (its context and a
  GADT's or closed family's `where` left out) or a synonym as shown (`type Object = KeyMap
  Value`); a class `class ToJSON a` (its context, functional dependencies and `where` left
  out);
- a constructor as shown (`Object !Object`, `a :| [a]`, a GADT's `Lit :: Int -> Expr Int`,
  `{-# UNPACK #-}`, an existential's `forall` and context left out), a record's just its
  name; a record field `name :: Type` (its strictness mark left out; `a, b :: Int` one
  document per name); a class method as a function. Each of these is a document of its
  own named under the module, as hsapi names them (`haskell:Data.Aeson.Object`), its
  kind "constructor", "field", "method"; its type's or class's document does not list
  them (hsapi's does not).

Instances (`<div class="subs instances">`), default signatures (`subs default`), the
minimal complete definition, associated types and pattern synonyms are not documents:
hsapi documents none of them. An item (a constructor, a field, a method) with no
documentation and no documented argument gives no document, hsapi's rule; so does a
module page with nothing documented (counted HADDOCK_UNDOCUMENTED).

The documentation becomes Markdown as hsapi turns Haddock's markup into it: paragraphs
with their line breaks (each line's indentation dropped), `<code>` as code spans (an
identifier's link inside it flattened), a link to a module (its text a module name) or to
any page not on the web as a code span of its text, a web link (http, https) as
`[text](href)`, `<em>` as `*text*` and `<strong>` as `**text**`, code blocks fenced as
```` ```haskell ````, a `>>>` example (`<pre class="screen">`) fenced as it reads, prompt,
input and result, each its own fence (Haddock writes one per example whether or not a
blank line parted them in the source, where hsapi fences a run; parted ones are the
commoner), lists as `* item` and `1. item` lines (an item's
further lines indented two spaces), headings as Haddock writes them (`== Examples`),
MathJax as its TeX; a deprecation or other warning (`<div class="warning">`) becomes its
line (`Deprecated: Use camelTo2 for better results`) after the argument lines, and
`Since: x` (`<p><em>Since: x</em></p>`, Haddock's rendering of `@since`) the last line, as
hsapi writes `@since` (hsapi drops a DEPRECATED pragma, so only the site's text has the
warning). Each document's meta is hsapi's (kind, qualname, language "haskell", the
signature: a function's type after `::`) with `described`, the page's uri as `origin` and
`page`, and the item's anchor (`v:encode`, `t:Value`).
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import PurePosixPath

from jupiter.collect.result import CollectResult, SourceFile, api_document, count
from jupiter.records import Document

URI_PREFIX = "haskell:"
HADDOCK_CONTENTS = "haddock_contents"
HADDOCK_UNDOCUMENTED = "haddock_undocumented"
FIXES = {
    HADDOCK_CONTENTS: (
        "a Haddock package's contents page and name indexes only list its modules and names "
        "(the module pages are read); the source's haskell: text reads the pages as text"
    ),
    HADDOCK_UNDOCUMENTED: (
        "a Haddock module page with no module description and no documented item gives no "
        "document; the source's haskell: text reads the pages as text"
    ),
}

_MARK = re.compile(
    r"haddock-bundle\.min\.js|haddock-util\.js|<meta\s+name=\"generator\"\s+content=\"Haddock",
    re.I,
)
_FOOTER = re.compile(r"Produced\s+by\s+(?:<a\b[^>]*>\s*)?Haddock", re.I)
_INTERFACE = re.compile(r'<div id="interface">')
_CONTENTS = re.compile(r'<div id="(?:module-list|alphabet|index)"')
_HEADER = re.compile(r'<div id="module-header">')
_CAPTION = re.compile(r'<p class="caption">(.*?)</p>', re.S)
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_DESCRIPTION = re.compile(r'<div id="description">')
_TOP = re.compile(r'<div class="top">')
_OPEN = re.compile(r"<([a-zA-Z][\w-]*)((?:\s[^>]*)?)>")
_CLASS = re.compile(r'\bclass="([^"]*)"')
_DEF = re.compile(r'<a id="([^"]*)" class="def">(.*?)</a>', re.S)
# what a declaration shows that is no part of it: the source and self links, the fixity
_NOT_DECL = re.compile(
    r'<a href="[^"]*" class="(?:link|selflink)">.*?</a>|<span class="(?:fixity|rightedge)">'
    r".*?</span>",
    re.S,
)
_TAG = re.compile(r"<[^>]+>")
_PRAGMA = re.compile(r"\{-#.*?#-\}")
_UNICODE = str.maketrans({"∷": "::", "→": "->", "⇒": "=>", "∀": "forall", "★": "*"})
_KEYWORD = re.compile(
    r"^(data family|data instance|newtype instance|type family|type instance|data|newtype"
    r"|type|class|pattern)\s"
)
_FORALL = re.compile(r"^\s*forall\b[^.]*\.\s*")
_SINCE = re.compile(
    r'<p(?: class="since")?>\s*(?:<em>)?\s*Since:\s*([^<]*?)\s*(?:</em>)?\s*</p>\s*$', re.S
)
_WARNING = re.compile(r'^\s*<div class="warning">')
_MODULE_NAME = re.compile(r"[A-Z][\w']*(?:\.[A-Z][\w']*)*")
_VOID = frozenset({"br", "img", "hr", "meta", "link", "input", "col", "wbr"})
_BLOCK = frozenset(
    {"p", "pre", "ul", "ol", "dl", "table", "div", "details", "summary"}
    | {"h1", "h2", "h3", "h4", "h5", "h6"}
)
_TYPE_KINDS = {
    "data": "type",
    "newtype": "type",
    "type": "type",
    "type family": "type",
    "data family": "type",
    "class": "class",
}
_SYMBOL = "!#$%&*+./<=>?@\\^|-~:"


# ----------------------------------------------------------------------------- page shape
def is_haddock(html: str) -> bool:
    """Whether `html` is a page Haddock wrote: its script or generator in the head, or its
    "Produced by Haddock" footer."""
    return _MARK.search(html[:8000]) is not None or _FOOTER.search(html[-4000:]) is not None


def _end(html: str, start: int, tag: str) -> int:
    """The index after the `tag` element opening at `start`, nested ones counted (searched
    in place: the pages run to megabytes of instances, a slice per element would copy
    them); len(html) when it is not closed."""
    depth = 0
    for m in re.compile(rf"<{tag}\b|</{tag}\s*>").finditer(html, start):
        depth += -1 if m.group(0).startswith("</") else 1
        if depth == 0:
            return m.end()
    return len(html)


def _inside(html: str, start: int, tag: str) -> str:
    """The HTML inside the `tag` element opening at `start`."""
    end = _end(html, start, tag)
    return html[html.find(">", start) + 1 : max(start, end - len(f"</{tag}>"))]


@dataclass
class _Element:
    tag: str
    classes: str
    start: int  # its opening tag
    inner: int  # after its opening tag
    end: int  # after its closing tag

    def body(self, html: str) -> str:
        return html[self.inner : max(self.inner, self.end - len(f"</{self.tag}>"))]


def _children(html: str, start: int, stop: int) -> Iterator[_Element]:
    """The elements directly inside html[start:stop] (text between them skipped)."""
    at = start
    while (m := _OPEN.search(html, at, stop)) is not None:
        tag = m.group(1).lower()
        c = _CLASS.search(m.group(2))
        classes = c.group(1) if c is not None else ""
        if tag in _VOID or m.group(2).endswith("/"):
            end = m.end()
        else:
            end = min(_end(html, m.start(), tag), stop)
        yield _Element(tag, classes, m.start(), m.end(), end)
        at = max(end, m.end())


def _flat(fragment: str) -> str:
    """A declaration's text: its links and keywords flattened, the source and self links,
    the fixity and pragmas dropped, whitespace collapsed."""
    text = htmllib.unescape(_TAG.sub("", _NOT_DECL.sub("", fragment))).replace("\xa0", " ")
    return " ".join(_PRAGMA.sub("", text.translate(_UNICODE)).split())


def _module_name(html: str, uri: str) -> str:
    """The page's module: its header's caption, else its title, else its file's name."""
    header = _HEADER.search(html)
    shown = []
    if header is not None:
        caption = _CAPTION.search(html, header.end(), _end(html, header.start(), "div"))
        shown.append(caption.group(1) if caption is not None else "")
    title = _TITLE.search(html)
    shown.append(title.group(1) if title is not None else "")
    for said in shown:
        name = _flat(said)
        if _MODULE_NAME.fullmatch(name):
            return name
    stem = PurePosixPath(uri.split("#")[0].split("?")[0]).stem
    return stem.replace("-", ".")


# ----------------------------------------------------------------------------- doc markup
@dataclass
class _Node:
    tag: str
    attrs: dict[str, str]
    children: list[_Node | str] = field(default_factory=list)

    def has(self, cls: str) -> bool:
        return cls in self.attrs.get("class", "").split()


class _Tree(HTMLParser):
    """An HTML fragment as a tree of _Nodes (a stray closing tag ignored, one left open
    closed at the end)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = _Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(_Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for k in range(len(self.stack) - 1, 0, -1):
            if self.stack[k].tag == tag:
                del self.stack[k:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data.replace("\xa0", " "))


def _tree(fragment: str) -> _Node:
    t = _Tree()
    t.feed(fragment)
    t.close()
    return t.root


def _text(node: _Node | str) -> str:
    """A node's characters, as they stand (a code block's, a code span's)."""
    if isinstance(node, str):
        return node
    if node.tag == "br":
        return "\n"
    return "".join(_text(c) for c in node.children)


def _is_module_link(href: str, text: str) -> bool:
    """Whether a link is Haddock's to a module's page (`Data-Aeson-TH.html`, on any host)."""
    page = href.split("#")[0].rsplit("/", 1)[-1]
    return bool(_MODULE_NAME.fullmatch(text)) and page == text.replace(".", "-") + ".html"


def _inline(nodes: list[_Node | str]) -> str:
    out: list[str] = []
    for n in nodes:
        if isinstance(n, str):
            out.append(n)
        elif n.tag == "code":
            said = _text(n)
            out.append(f"`{said}`" if said.strip() else said)
        elif n.tag == "a":
            said = _inline(n.children)
            href = n.attrs.get("href", "")
            if not href or not said.strip():
                out.append(said)
            elif href.startswith(("http://", "https://")) and not _is_module_link(href, said):
                out.append(f"[{said}]({href})")
            else:
                out.append(f"`{_text(n)}`")
        elif n.tag == "em":
            said = _inline(n.children)
            out.append(f"*{said}*" if said.strip() else said)
        elif n.tag in ("strong", "b"):
            said = _inline(n.children)
            out.append(f"**{said}**" if said.strip() else said)
        elif n.tag == "img":
            out.append(n.attrs.get("title") or n.attrs.get("alt") or n.attrs.get("src", ""))
        elif n.tag == "br":
            out.append("\n")
        else:
            out.append(_inline(n.children))
    return "".join(out)


def _lines(text: str) -> str:
    """A paragraph's lines, each without the indentation the comment gave it."""
    return "\n".join(s for line in text.split("\n") if (s := line.strip()))


def _fence(code: str) -> str:
    return f"```haskell\n{code.strip(chr(10))}\n```"


def _blocks(nodes: list[_Node | str]) -> list[str]:
    """Block-level Markdown of a doc's nodes; inline runs between blocks are paragraphs."""
    out: list[str] = []
    run: list[_Node | str] = []

    def flush_run() -> None:
        said = _lines(_inline(run))
        if said:
            out.append(said)
        run.clear()

    for n in nodes:
        if isinstance(n, str) or n.tag not in _BLOCK:
            run.append(n)
            continue
        flush_run()
        out.extend(_block(n))
    flush_run()
    return [b for b in out if b.strip()]


def _block(n: _Node) -> list[str]:
    if n.tag == "p":
        said = _lines(_inline(n.children))
        return [said] if said else []
    if n.tag == "pre":  # a code block; an example's prompt, input and result as they read
        code = _text(n)
        return [_fence(code)] if code.strip() else []
    if n.tag in ("ul", "ol"):
        items = [c for c in n.children if isinstance(c, _Node) and c.tag == "li"]
        lines: list[str] = []
        for k, li in enumerate(items, 1):
            mark = f"{k}. " if n.tag == "ol" else "* "
            body = "\n\n".join(_blocks(li.children)).split("\n")
            lines.append(mark + body[0])
            lines.extend(f"  {x}" if x else "" for x in body[1:])
        return ["\n".join(lines)] if lines else []
    if n.tag == "dl":
        terms: list[str] = []
        for c in n.children:
            if isinstance(c, _Node) and c.tag == "dt":
                terms.append(f"[{_lines(_inline(c.children))}]")
            elif isinstance(c, _Node) and c.tag == "dd" and terms:
                terms[-1] += ": " + " ".join(_lines(_inline(c.children)).split("\n"))
        return ["\n".join(terms)] if terms else []
    if n.tag == "summary":
        return []  # a collapsible section's "Expand"
    if n.tag.startswith("h") and n.tag[1:].isdigit():
        said = " ".join(_inline(n.children).split())
        if said and n.has("subheading"):
            said = f"**{said}**"  # Haddock collapses a heading written all bold
        return [f"{'=' * int(n.tag[1:])} {said}"] if said else []
    if n.tag == "table":
        rows = [
            "| " + " | ".join(" ".join(_inline(c.children).split()) for c in _cells(r)) + " |"
            for r in _walk(n)
            if r.tag == "tr"
        ]
        return ["\n".join(rows)] if rows else []
    return _blocks(n.children)  # a div


def _cells(row: _Node) -> list[_Node]:
    return [c for c in row.children if isinstance(c, _Node) and c.tag in ("td", "th")]


def _walk(n: _Node) -> Iterator[_Node]:
    for c in n.children:
        if isinstance(c, _Node):
            yield c
            yield from _walk(c)


def markdown(fragment: str) -> str:
    """A Haddock doc fragment's Markdown."""
    return "\n\n".join(_blocks(_tree(fragment).children)).strip()


@dataclass
class _Doc:
    body: str = ""
    since: str = ""
    warning: str = ""


def _doc(fragment: str) -> _Doc:
    """A `<div class="doc">`'s inside: its text, its `Since:` and its warning apart."""
    got = _Doc()
    m = _WARNING.match(fragment)
    if m is not None:
        start = m.end() - len('<div class="warning">')
        end = _end(fragment, start, "div")
        got.warning = " ".join(markdown(fragment[start:end]).split())
        fragment = fragment[end:]
    s = _SINCE.search(fragment)
    if s is not None:
        got.since = htmllib.unescape(s.group(1)).strip()
        fragment = fragment[: s.start()]
    got.body = markdown(fragment)
    return got


# ----------------------------------------------------------------------------- declarations
def _top_level(text: str, token: str) -> int:
    """Where `token` (`::`, `=>`, `|`) stands outside brackets in `text`, as an operator of
    its own; -1 when it does not."""
    depth = 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(token, i):
            end = i + len(token)
            if (i == 0 or text[i - 1] not in _SYMBOL) and (
                end >= len(text) or text[end] not in _SYMBOL
            ):
                return i
    return -1


def _without_context(text: str) -> str:
    """`text` from after its top-level context (`Show a => T a` -> `T a`)."""
    at = _top_level(text, "=>")
    return text[at + 2 :].strip() if at >= 0 else text


def _wrapped(text: str) -> bool:
    """Whether `text` is one parenthesised whole (`(a -> b)`, not `(a) -> (b)`)."""
    if not text.startswith("("):
        return False
    depth = 0
    for i, c in enumerate(text):
        depth += 1 if c == "(" else -1 if c == ")" else 0
        if depth == 0:
            return i == len(text) - 1
    return False


def _bare(name: str) -> str:
    """A name as the uri has it: an operator without its parentheses."""
    name = name.strip()
    if name.startswith("(") and name.endswith(")") and len(name) > 2:
        return name[1:-1].strip()
    return name


def _shown(name: str) -> str:
    return name if re.match(r"[\w']", name) else f"({name})"


def _type_head(keyword: str, decl: str) -> str:
    """A type's or class's first line: a synonym as shown; a data type's, newtype's,
    family's or class's without its context, dependencies and `where`."""
    where = re.search(r"\swhere$|\swhere\s", f"{decl} ")
    if where is not None:
        decl = decl[: where.start()].strip()
    if keyword == "type":
        return decl
    rest = decl[len(keyword) :].strip()
    if keyword == "class":
        bar = _top_level(rest, "|")
        rest = rest[:bar].strip() if bar >= 0 else rest
    return f"{keyword} {_without_context(rest)}".strip()


def _constructor_head(decl: str) -> str:
    """A constructor as hsapi shows it: without an existential's `forall` and context."""
    decl = _FORALL.sub("", decl)
    ctx = _top_level(decl, "=>")
    colons = _top_level(decl, "::")
    if ctx >= 0 and (colons < 0 or ctx < colons):
        decl = decl[ctx + 2 :].strip()
    return _FORALL.sub("", decl)


@dataclass
class _Arguments:
    type: str = ""  # the signature's type, joined from the rows
    lines: list[str] = field(default_factory=list)


def _arguments(html: str, table: _Element) -> _Arguments:
    """A `subs arguments` table: the type its rows make, and hsapi's lines for the
    documented ones."""
    rows: list[tuple[str, str]] = []
    for m in re.finditer(r"<tr>(.*?)</tr>", table.body(html), re.S):
        cells = re.findall(r'<td class="(src|doc[^"]*)">(.*?)</td>', m.group(1), re.S)
        src = next((_flat(c) for k, c in cells if k == "src"), "")
        said = next((c for k, c in cells if k == "doc"), "")
        rows.append((src, " ".join(markdown(said).split()) if said else ""))
    got = _Arguments()
    got.type = " ".join(s for s, _ in rows).removeprefix("::").strip()
    pieces: list[tuple[str, str]] = []
    for k, (src, said) in enumerate(rows):
        nxt = rows[k + 1][0] if k + 1 < len(rows) else ""
        if nxt.startswith("=>"):
            continue  # a context
        t = re.sub(r"^(?:::|=>|->)\s*", "", src)
        t = _FORALL.sub("", t).strip()
        if not t:
            continue  # a `forall a.` row of its own
        pieces.append((t, said))
    result = ""
    for k, (t, said) in enumerate(pieces, 1):
        if not said:
            continue
        if k == len(pieces):
            result = said
        else:
            got.lines.append(f"Argument {k} {t if _wrapped(t) else f'({t})'}: {said}")
    if result:
        got.lines += ["", f":returns: {result}"] if got.lines else [f":returns: {result}"]
    return got


# ----------------------------------------------------------------------------- items
@dataclass
class _Item:
    name: str
    anchor: str
    kind: str
    head: str
    doc: _Doc
    lines: list[str] = field(default_factory=list)


def _defs(fragment: str) -> list[tuple[str, str]]:
    """The (anchor, name) of each name a declaration defines."""
    return [(a, _bare(_flat(t))) for a, t in _DEF.findall(fragment)]


def _signature_item(
    html: str, src: _Element, doc: _Doc, args: _Element | None, kind: str
) -> list[_Item]:
    """A function's or method's items (one per name its declaration defines)."""
    fragment = src.body(html)
    decl = _flat(fragment)
    sig = _top_level(decl, "::")
    typ = decl[sig + 2 :].strip() if sig >= 0 else ""
    lines: list[str] = []
    if args is not None:
        got = _arguments(html, args)
        typ, lines = got.type or typ, got.lines
    return [
        _Item(name, anchor, kind, f"{_shown(name)} :: {typ}" if typ else _shown(name), doc, lines)
        for anchor, name in _defs(fragment)
    ]


def _methods(html: str, subs: _Element) -> list[_Item]:
    """A class's methods: each `<p class="src">` with the doc and arguments after it."""
    out: list[_Item] = []
    src: _Element | None = None
    doc, args = _Doc(), None

    def close() -> None:
        if src is not None:
            out.extend(_signature_item(html, src, doc, args, "method"))

    for c in _children(html, subs.inner, subs.end):
        if c.tag == "p" and c.classes == "src":
            close()
            src, doc, args = c, _Doc(), None
        elif c.tag == "div" and c.classes == "doc":
            doc = _doc(c.body(html))
        elif c.tag == "div" and c.classes == "subs arguments":
            args = c
    close()
    return out


def _constructors(html: str, subs: _Element) -> list[_Item]:
    """A data type's constructors (a row each) and record fields (a fields list under its
    constructor's row)."""
    out: list[_Item] = []
    table = next((c for c in _children(html, subs.inner, subs.end) if c.tag == "table"), None)
    if table is None:
        return out
    for row in _children(html, table.inner, table.end):
        if row.tag != "tr":
            continue
        cells = list(_children(html, row.inner, row.end))
        src = next((c for c in cells if c.tag == "td" and c.classes == "src"), None)
        if src is not None:
            said = next((c for c in cells if c.tag == "td" and c.classes == "doc"), None)
            doc = _doc(said.body(html)) if said is not None else _Doc()
            head = _constructor_head(_flat(src.body(html)))
            out.extend(
                _Item(name, anchor, "constructor", head, doc)
                for anchor, name in _defs(src.body(html))[:1]
            )
        body = html[row.inner : row.end]
        for m in re.finditer(r'<div class="subs fields">', body):
            at = row.inner + m.start()
            out.extend(_fields(html, at, _end(html, at, "div")))
    return out


def _fields(html: str, start: int, end: int) -> list[_Item]:
    out: list[_Item] = []
    for m in re.finditer(r"<li>", html[start:end]):
        li = start + m.start()
        li_end = _end(html, li, "li")
        src = re.search(r'<dfn class="src">(.*?)</dfn>', html[li:li_end], re.S)
        if src is None:
            continue
        decl = _flat(src.group(1))
        sig = _top_level(decl, "::")
        typ = decl[sig + 2 :].strip().removeprefix("!").strip() if sig >= 0 else ""
        said = re.search(r'<div class="doc">', html[li:li_end])
        doc = _doc(_inside(html, li + said.start(), "div")) if said is not None else _Doc()
        for anchor, name in _defs(src.group(1)):
            out.append(_Item(name, anchor, "field", f"{_shown(name)} :: {typ}", doc))
    return out


def _items(html: str, top: _Element) -> list[_Item]:
    """A `<div class="top">`'s items: its declaration's, then its parts'."""
    children = list(_children(html, top.inner, top.end))
    src = next((c for c in children if c.tag == "p" and c.classes == "src"), None)
    if src is None:
        return []
    doc_el = next((c for c in children if c.tag == "div" and c.classes == "doc"), None)
    doc = _doc(doc_el.body(html)) if doc_el is not None else _Doc()
    args = next((c for c in children if c.classes == "subs arguments"), None)
    decl = _flat(src.body(html))
    kw = _KEYWORD.match(decl)
    keyword = kw.group(1) if kw is not None else ""
    if keyword in ("pattern", "type instance", "data instance", "newtype instance"):
        return []  # hsapi documents no pattern synonyms nor instances
    if not keyword:
        return _signature_item(html, src, doc, args, "function")
    defs = _defs(src.body(html))
    if not defs:
        return []
    anchor, name = defs[0]
    out = [_Item(name, anchor, _TYPE_KINDS[keyword], _type_head(keyword, decl), doc)]
    for c in children:
        if c.classes == "subs constructors":
            out += _constructors(html, c)
        elif c.classes == "subs fields":
            out += _fields(html, c.inner, c.end)
        elif c.classes == "subs methods":
            out += _methods(html, c)
    return out


def _join(parts: list[str]) -> str:
    return "\n\n".join(p for p in parts if p)


def split_built(
    doc: Document,
    html: str,
    to_text: Callable[[str], str],
    rejects: CollectResult | None = None,
) -> list[Document]:
    """A Haddock module page's documents: its description's (`haskell:<Module>`), then each
    documented item's, named and written as hsapi writes them; [] for the contents page
    and the indexes (counted HADDOCK_CONTENTS) and for a module with nothing documented
    (HADDOCK_UNDOCUMENTED); [doc] when the page is not Haddock's or no module page.
    (`to_text` is the page reader's, taken as every built-page reader takes it: Haddock's
    markup is turned to hsapi's Markdown here instead.)"""
    if not is_haddock(html):
        return [doc]
    if _CONTENTS.search(html) is not None:
        count(rejects, HADDOCK_CONTENTS, doc.uri)
        return []
    interface = _INTERFACE.search(html)
    if interface is None:
        return [doc]
    module = _module_name(html, doc.uri)
    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))

    def make(qual: str, text: str, kind: str, signature: str, anchor: str) -> Document:
        return api_document(
            doc.source, URI_PREFIX, f, qual, text, kind, signature, 1,
            language="haskell", described=True, page=doc.uri, anchor=anchor,
        )  # fmt: skip

    out: list[Document] = []
    seen: set[str] = set()
    desc = _DESCRIPTION.search(html, 0, interface.start())
    if desc is not None:
        box = re.compile(r'<div class="doc">').search(html, desc.end(), interface.start())
        if box is not None:
            got = _doc(_inside(html, box.start(), "div"))
            if got.body:
                seen.add(module)
                since = f"Since: {got.since}" if got.since else ""
                out.append(make(module, _join([module, got.body, since]), "module", "", ""))
    end = _end(html, interface.start(), "div")
    at = interface.end()
    while (m := _TOP.search(html, at, end)) is not None:
        top_end = _end(html, m.start(), "div")
        for item in _items(html, _Element("div", "top", m.start(), m.end(), top_end)):
            qual = f"{module}.{item.name}"
            if qual in seen or not (item.doc.body or item.lines):
                continue
            seen.add(qual)
            d = item.doc
            text = _join(
                [
                    item.head,
                    d.body,
                    "\n".join(item.lines),
                    d.warning,
                    f"Since: {d.since}" if d.since else "",
                ]
            )
            signature = item.head.split(" :: ", 1)[1] if " :: " in item.head else ""
            out.append(make(qual, text, item.kind, signature, item.anchor))
        at = top_end
    if not out:
        count(rejects, HADDOCK_UNDOCUMENTED, doc.uri)
    return out
