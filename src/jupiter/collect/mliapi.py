r"""OCaml interface files (`.mli`) read as their modules' API, as odoc shows it: one
document per documented value, type, exception, module, module type, class and method,
and one for the module itself when its file opens with a doc of its own.

The module's name is the file's stem capitalised (`list.mli` -> `List`, `lwt_io.mli` ->
`Lwt_io`, `stdLabels.mli` -> `StdLabels`), with no package before it; a member's
qualified name goes through the modules and module types that hold it (`Map.Make`,
`Map.S.add`, `Hashtbl.S.find`), a class's methods after a `#` (`Oo.c#name`), an operator
in its parentheses without spaces (`List.(@)` for `val ( @ )`). The uri is `ocaml:` and
that name, its title the name.

A doc comment is `(** ... *)`: not `(***` (a line of stars), not a plain `(* *)`; `(**)` is
an empty doc (it takes an attachment and gives no text, as the standard library uses it
to keep a type's doc off its last constructor). A doc documents the item that ends right
before it (on the item's last line or the line after, no blank line between: odoc's
choice when it could also be the next item's), else the item that starts right after it
with no blank line between. A doc that documents nothing stands alone; the file's first
doc, before any item, when it documents no item (or only an `open`/`include`), is the
module's own document (kind "module", uri `ocaml:List`); a nested module or module type
without a doc takes the first such doc of its `sig`. A doc that opens with a heading
(`{1 ...}` to `{6 ...}`) is a section's and documents no item. `(**/**)` toggles hiding
within its signature: the items between two give no document (nor do a hidden module's
members).

Items: `val name : type` (kind "function" when its type has an arrow at the top level,
else "value"), `external name : type = "prim"` (the same, its primitives dropped from the
signature), `type` and the `and` after it (kind "type"), `exception` ("exception"),
`module M : sig ... end`, `module M : S`, functors and aliases ("module"; the members of
its `sig` through it), `module type S = sig ... end` ("module type"), `class` and `class
type` ("class"; its `object`'s `method`s kind "method", `val`s kind "value"); `include`,
`open`, `constraint`, `inherit`, floating attributes give nothing. A `.ml` file is read
only when no `.mli` of its module (same folder, same stem) is among the files, and the
same way, with `let` counting as a `val` (its signature `let name args` as written up to
its `=`, kind "function" when it has arguments or is a `fun`/`function`) and `module M =
struct ... end` read through; a `let` inside an expression (after an operator, `in`,
`then` ...) is none.

The signature (the text's first line and the `signature` meta) is the declaration as
written, whitespace collapsed, attributes (`[@@ocaml.deprecated ...]`, `[@inline]`)
removed, a nested `sig ... end` / `object ... end` shown as `sig ... end`; a chain's `and`
shown as the chain's keyword (`type`, `let`, `module`, `class`). A variant or record type
longer than 100 characters shows its head only (`type t = | ...`, `type t = { ... }`).
Its constructors and fields with a doc of their own (the doc right after one, or
right before one with no blank line between) are listed after the type's doc as
`Constructors:` / `Fields:` lines "- `Some of 'a`: text" (every one, the undocumented bare,
when the signature shows the head only); they are no documents of their own. The last
constructor takes the first doc after the type when that doc is on its line or, in a
type written on several lines, the next.

The text is the signature, a blank line and the doc as Markdown: `[code]` (brackets
inside balanced) a code span, `{[ ... ]}` and `{@ocaml[ ... ]}` (any `{@lang[`) a fenced
```` ```ocaml ```` block (`{@lang[`: that language), `{v ... v}` a fenced block, `{b x}`
`**x**`, `{i x}` / `{e x}` / `{em x}` `*x*`, a reference `{!M.name}` (`{!val:M.name}`,
`{!module-M}`: its kind dropped) a code span, `{{!ref} text}` its text, `{{:url} text}`
`[text](url)`, `{:url}` the url, `{ul {- a} {- b}}` / `{ol ...}` (and `{li ...}` items)
Markdown lists, `{1 H}` ... `{6 H}` `#` headings, `{%html: ...%}` dropped, `\{` `\}` `\[`
`\]` `\@` unescaped; the comment's common indentation removed, its lines and paragraphs
kept. Then, in this order: `Deprecated: text` (`@deprecated`, or the item's
`[@@ocaml.deprecated "msg"]` / `[@@deprecated]` attribute; `Deprecated.` with no text),
the `Constructors:`/`Fields:` list, `:param x: text` lines and a `:returns: text` line,
`Raises: `Exn` text` lines (one per `@raise`), `See also: ...` lines (`@see <url>`,
`'file'`, `"doc"`), `Before v: text` lines, `Since: v`. A tag's text runs to the next
tag or the comment's end, its lines joined; `@author`, `@version`, `@canonical`,
`@inline`, `@open`, `@closed`, `@hidden` are dropped. A module's text is its doc only.

The files are scanned, never compiled: nested comments, strings (`"..."` with escapes,
`{|...|}`, `{id|...|id}`) and char literals (`'"'`, told from type variables `'a` and
names such as `x'`) are told apart from code, also inside comments as OCaml's lexer does,
and `sig`/`struct`/`object`/`begin` ... `end` and brackets matched to find where each item
ends and which module holds it. Undocumented items give no document; a module with
documented members but no doc of its own gives none either. Of a name documented twice in
a file, the first. Tests (under `test/`, `tests/`; `test_*.ml(i)`, `*_test.ml(i)`,
`*_tests.ml(i)`) give no document and are counted, and so is a file with nothing
documented.
"""

from __future__ import annotations

import re
import textwrap
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.codescan import blank
from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

SUFFIXES = (".mli",)
URI_PREFIX = "ocaml:"
# reasons an OCaml file gave no document, as the collect stage counts them
OCAML_TEST = "ocaml_test"
OCAML_NO_API = "ocaml_no_api"
_AS_TEXT = (
    "OCaml interface files read as their modules' API (the odoc comments of their values, "
    "types, exceptions, modules and classes): tests and files with nothing documented give "
    "none; the source's ocaml: text reads them as text"
)
FIXES = {OCAML_TEST: _AS_TEXT, OCAML_NO_API: _AS_TEXT}
_TEST_FOLDERS = frozenset({"test", "tests"})
_TEST_NAME = re.compile(r"(?:_tests?\.mli?$)|^test_.*\.mli?$", re.I)
_MAX_SIGNATURE = 100  # characters of a variant or record type shown whole


def is_ocaml(name: str) -> bool:
    return name.lower().endswith((".mli", ".ml"))


def is_test(rel: PurePosixPath) -> bool:
    return bool(_TEST_FOLDERS & set(rel.parts[:-1])) or bool(_TEST_NAME.search(rel.name))


def module_name(rel: PurePosixPath) -> str:
    """The module a file defines: its stem capitalised (`lwt_io.mli` -> `Lwt_io`)."""
    stem = rel.name.split(".", 1)[0]
    return stem[:1].upper() + stem[1:]


def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the documented API of the files' modules, sorted by uri; a file that
    gives none is counted in `rejects`. A `.ml` with its `.mli` among the files is left
    out, uncounted: the interface is its module's API. `top` is unused (no package
    prefix names an OCaml module)."""
    interfaces = {f.rel for f in files if f.rel.suffix.lower() == ".mli"}
    kept = [
        f
        for f in files
        if not (f.rel.suffix.lower() == ".ml" and f.rel.with_suffix(".mli") in interfaces)
    ]

    def read(f: SourceFile) -> list[Document] | str:
        if is_test(f.rel):
            return OCAML_TEST
        return list(file_documents(f, source))

    return first_documents(kept, rejects, read, OCAML_NO_API)


# ----------------------------------------------------------------------------- scanning
@dataclass
class _Comment:
    start: int
    end: int
    doc: bool  # `(** *)`, `(**)` included
    stop: bool  # `(**/**)`
    body: str  # a doc's text between its marks


_LEXEME = re.compile(r"\(\*|\"|'|\{[a-z_]*\|")
_IN_COMMENT = re.compile(r"\(\*|\*\)|\"|'|\{[a-z_]*\|")
_CHAR = re.compile(r"'(?:[^\\'\n]|\\(?:[\\'\"ntbr ]|[0-9]{3}|x[0-9a-fA-F]{2}|o[0-7]{3}))'")
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_']")


class _Scanner:
    """OCaml source with its comments blanked (`bare`), and its literals made `"` and
    spaces too (`code`): same length, line breaks kept."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.code = list(text)
        self.bare = list(text)
        self.comments: list[_Comment] = []

    def run(self) -> None:
        text = self.text
        i = 0
        while i < self.n:
            m = _LEXEME.search(text, i)
            if m is None:
                break
            i = m.start()
            tok = m.group()
            if tok == "(*":
                end = self._comment_end(i + 2)
                self._add_comment(i, end)
                blank(self.code, i, end)
                blank(self.bare, i, end)
                i = end
            elif tok == '"':
                i = self._literal(i, self._string_end(i + 1))
            elif tok == "'":
                c = _CHAR.match(text, i)
                if c is None or (i and _IDENT_CHAR.match(text, i - 1)):
                    i += 1  # a type variable, or a name's prime
                else:
                    i = self._literal(i, c.end())
            else:
                i = self._literal(i, self._quoted_end(i + len(tok), tok[1:-1]))

    def _literal(self, i: int, end: int) -> int:
        """A literal in `code` as `"` and spaces, so the code's tokens see one string."""
        blank(self.code, i, end)
        self.code[i] = '"'
        if end - 1 > i:
            self.code[end - 1] = '"'
        return end

    def _string_end(self, j: int) -> int:
        text, n = self.text, self.n
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
            elif c == '"':
                return j + 1
            else:
                j += 1
        return n

    def _quoted_end(self, j: int, label: str) -> int:
        k = self.text.find(f"|{label}}}", j)
        return self.n if k < 0 else k + len(label) + 2

    def _comment_end(self, j: int) -> int:
        """Past the `*)` closing a comment opened before `j`: comments nest, and strings
        and char literals inside are skipped, as OCaml's lexer does."""
        text = self.text
        depth = 1
        while True:
            m = _IN_COMMENT.search(text, j)
            if m is None:
                return self.n
            tok, j = m.group(), m.start()
            if tok == "(*":
                depth += 1
                j += 2
            elif tok == "*)":
                depth -= 1
                j += 2
                if depth == 0:
                    return j
            elif tok == '"':
                j = self._string_end(j + 1)
            elif tok == "'":
                c = _CHAR.match(text, j)
                j = c.end() if c is not None else j + 1
            else:
                j = self._quoted_end(j + len(tok), tok[1:-1])

    def _add_comment(self, i: int, end: int) -> None:
        raw = self.text[i:end]
        stop = raw == "(**/**)"
        doc = raw == "(**)" or (raw.startswith("(**") and not raw.startswith("(***"))
        body = raw[3:-2] if doc and len(raw) >= 5 else ""
        self.comments.append(_Comment(i, end, doc and not stop, stop, body))


@dataclass
class _Token:
    kind: str  # id, tv (type variable), str, num, attr, open, close, op
    text: str
    start: int
    end: int


_TOKEN = re.compile(
    r"(?P<id>[A-Za-z_][A-Za-z0-9_']*)"
    r"|(?P<tv>'[A-Za-z_][A-Za-z0-9_']*)"
    r"|(?P<str>\"[^\"]*\")"
    r"|(?P<num>[0-9][0-9A-Za-z_.']*)"
    r"|(?P<attr>\[@@@|\[@@|\[@|\[%%|\[%)"
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<op>[!$%&*+\-./:<=>?@^|~#;,`\\]+)"
)
_OPENERS = frozenset({"sig", "struct", "object", "begin"})


def _tokens(code: str) -> list[_Token]:
    return [
        _Token(m.lastgroup or "op", m.group(), m.start(), m.end()) for m in _TOKEN.finditer(code)
    ]


def _matches(toks: list[_Token]) -> dict[int, int]:
    """Each opener's index (a bracket, an attribute's `[@`, `sig`/`struct`/`object`/
    `begin`) to its closer's; an unclosed one to the end."""
    out: dict[int, int] = {}
    stack: list[tuple[bool, int]] = []  # (a keyword block, where)
    for k, t in enumerate(toks):
        if t.kind in ("open", "attr"):
            stack.append((False, k))
        elif t.kind == "id" and t.text in _OPENERS:
            stack.append((True, k))
        elif t.kind == "close" or (t.kind == "id" and t.text == "end"):
            word = t.kind == "id"
            # pop to the nearest opener of the same sort: a stray closer closes nothing
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == word:
                    for _, at in stack[depth:]:
                        out[at] = k
                    del stack[depth:]
                    break
    for _, at in stack:
        out[at] = len(toks)
    return out


# ----------------------------------------------------------------------------- doc markup
_TAG = re.compile(r"^@([a-z]+)\b\s*(.*)$")
_KNOWN_TAGS = frozenset(
    {
        "param", "return", "returns", "raise", "raises", "since", "deprecated", "see",
        "before", "author", "version", "canonical", "inline", "open", "closed", "hidden",
    }
)  # fmt: skip
_REF_KIND = re.compile(
    r"(?:(?<=^)|(?<=\.))(?:module-type|class-type|instance-variable|val|value|type|module|"
    r"modtype|class|classtype|exception|extension|field|constructor|const|method|section|"
    r"label|page|modules)[-:]\s*"
)
_HEADING = re.compile(r"\{([0-6])(?::[\w-]+)?\s")
_STYLE = {"b": "**", "i": "*", "e": "*", "em": "*"}
_CODE_LANG = re.compile(r"\{@([\w+-]+)[^\[\]{}]*\[")


@dataclass
class _Doc:
    description: str
    tags: list[tuple[str, str]]  # (name, text after it)


_BULLET_LINE = re.compile(r"\s*[-+]\s")


def _dedent(body: str) -> str:
    """A comment's text: its first line's leading space off, the others dedented by the
    indentation their prose shares (a light list's `-` lines written further left do not
    set it: they lose what indentation they have), blank lines at either end dropped."""
    lines = body.split("\n")
    rest = [x.rstrip().expandtabs() for x in lines[1:]]
    filled = [x for x in rest if x.strip()]
    prose = [x for x in filled if not _BULLET_LINE.match(x)] or filled
    cut = min((len(x) - len(x.lstrip()) for x in prose), default=0)
    kept = [x[min(cut, len(x) - len(x.lstrip())) :] for x in rest]
    return "\n".join([lines[0].strip(), *kept]).strip("\n")


def _parse(body: str) -> _Doc:
    """A doc's description and its tags (a line that opens with a tag odoc knows)."""
    desc: list[str] = []
    tags: list[tuple[str, list[str]]] = []
    depth = 0  # code blocks open: a tag never starts inside one
    for line in _dedent(body).split("\n"):
        s = line.strip()
        m = _TAG.match(s)
        if m is not None and m.group(1) in _KNOWN_TAGS and depth == 0:
            tags.append((m.group(1), [m.group(2)]))
        elif tags:
            tags[-1][1].append(line)
        else:
            desc.append(line)
        opens = s.count("{[") + len(re.findall(r"\{v\s", s)) + len(_CODE_LANG.findall(s))
        depth = max(0, depth + opens - s.count("]}") - s.count("v}"))
    return _Doc("\n".join(desc).strip(), [(n, "\n".join(t).strip()) for n, t in tags])


def _ref(name: str) -> str:
    """A reference's target as shown: its kind prefixes dropped (`val:M.x` -> `M.x`)."""
    return _REF_KIND.sub("", name.strip())


def _span(code: str) -> str:
    code = " ".join(code.split())
    tick = "``" if "`" in code else "`"
    pad = " " if tick == "``" else ""
    return f"{tick}{pad}{code}{pad}{tick}" if code else ""


def _fence(code: str, lang: str) -> str:
    lines = code.split("\n")
    first = lines[0] if lines[0].strip() else ""
    shown = textwrap.dedent("\n".join([*([first] if first else []), *lines[1:]]))
    shown = "\n".join(x.rstrip() for x in shown.split("\n")).strip("\n")
    return f"\n```{lang}\n{shown}\n```\n" if shown.strip() else ""


class _Markup:
    """odoc markup to Markdown, read left to right; each `{...}` element converted with
    what it holds."""

    def __init__(self, s: str) -> None:
        self.s = s
        self.n = len(s)

    def until(self, i: int, close: bool) -> tuple[str, int]:
        """The Markdown of the text from `i` to the `}` that closes this element (`close`)
        or the end; and where reading stopped (past that `}`)."""
        s, n = self.s, self.n
        out: list[str] = []
        while i < n:
            c = s[i]
            if c == "\\" and i + 1 < n and s[i + 1] in "{}[]@\\":
                out.append(s[i + 1])
                i += 2
            elif c == "}" and close:
                return "".join(out), i + 1
            elif c == "[" and self.bracket_end(i) > 0:
                j = self.bracket_end(i)
                out.append(_span(s[i + 1 : j - 1]))
                i = j
            elif c == "{":
                text, i = self.element(i)
                out.append(text)
            else:
                out.append(c)
                i += 1
        return "".join(out), n

    def bracket_end(self, i: int) -> int:
        """Past the `]` closing the `[` at `i`, brackets inside balanced; -1 when none
        does (the `[` is text)."""
        depth = 0
        s = self.s
        j = i
        while j < self.n:
            c = s[j]
            if c == "\\":
                j += 2
                continue
            if c == "[":
                depth += 1
            elif c == "]":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return -1

    def find(self, mark: str, i: int) -> tuple[int, int]:
        k = self.s.find(mark, i)
        return (self.n, self.n) if k < 0 else (k, k + len(mark))

    def element(self, i: int) -> tuple[str, int]:
        s = self.s
        rest = s[i : i + 12]
        if rest.startswith("{["):
            a, b = self.find("]}", i + 2)
            return _fence(s[i + 2 : a], "ocaml"), b
        lang = _CODE_LANG.match(s, i)
        if lang is not None:
            a, b = self.find("]}", lang.end())
            return _fence(s[lang.end() : a], lang.group(1)), b
        if re.match(r"\{v\s", rest):
            a, b = self.find("v}", i + 2)
            return _fence(s[i + 2 : a], ""), b
        if rest.startswith("{%"):
            return "", self.find("%}", i + 2)[1]
        if rest.startswith("{!"):
            a, b = self.find("}", i + 2)
            target = s[i + 2 : a]
            if target.startswith("modules:"):
                return ", ".join(_span(x) for x in target[8:].split()), b
            return _span(_ref(target)), b
        if rest.startswith("{{!") or rest.startswith("{{:"):
            a, b = self.find("}", i + 3)
            target = s[i + 3 : a]
            text, end = self.until(b, True)
            text = " ".join(text.split())
            if rest.startswith("{{:"):
                return (f"[{text}]({target})" if text else target), end
            return text or _span(_ref(target)), end
        if rest.startswith("{:"):
            a, b = self.find("}", i + 2)
            return s[i + 2 : a], b
        m = _HEADING.match(s, i)
        if m is not None:
            text, end = self.until(m.end(), True)
            level = max(1, int(m.group(1)))
            return f"\n\n{'#' * level} {' '.join(text.split())}\n\n", end
        m = re.match(r"\{(ul|ol)\b", s[i:])
        if m is not None:
            return self.listing(i + len(m.group()), m.group(1) == "ol")
        m = re.match(r"\{(b|i|em|e)\s", s[i:])
        if m is not None:
            text, end = self.until(i + len(m.group()), True)
            mark = _STYLE[m.group(1)]
            text = text.strip()
            return (f"{mark}{text}{mark}" if text else ""), end
        m = re.match(r"\{([\^_CLR]|m|math)\s", s[i:])
        if m is not None:  # super/subscripts, alignment, maths: their text
            return self.until(i + len(m.group()), True)
        return "{", i + 1

    def listing(self, i: int, ordered: bool) -> tuple[str, int]:
        """The items of `{ul ...}` / `{ol ...}` (each `{- ...}` or `{li ...}`) as Markdown
        list lines; past the list's `}`."""
        s, n = self.s, self.n
        items: list[str] = []
        while i < n:
            m = re.compile(r"\s*(\{-|\{li\b|\})").match(s, i)
            if m is None:
                # stray text between items: read as an item of its own up to the next one
                k = s.find("{", i)
                i = n if k < 0 else k
                continue
            if m.group(1) == "}":
                i = m.end()
                break
            text, i = self.until(m.end(), True)
            items.append(text.strip())
        out = []
        for k, text in enumerate(items):
            mark = f"{k + 1}." if ordered else "-"
            if "\n```" in text or "\n- " in text or re.search(r"\n\d+\. ", text):
                lines = text.split("\n")
                shown = "\n".join([lines[0], *("  " + x if x else x for x in lines[1:])])
            else:
                shown = " ".join(text.split())
            out.append(f"{mark} {shown}")
        return "\n" + "\n".join(out) + "\n", i


def _markdown(text: str) -> str:
    out, _ = _Markup(text).until(0, False)
    lines = [x.rstrip() for x in out.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _inline(text: str) -> str:
    """A tag's text on one line (its blocks kept when it has any)."""
    md = _markdown(text)
    return md if "```" in md else " ".join(md.split())


def _body(doc: _Doc, deprecated: str | None, listing: str) -> str:
    """The doc after an item's signature line: description, deprecation, its type's
    constructors or fields, params and returns, raises, see-also, before, since."""
    parts = [_markdown(doc.description)]
    said = [t for n, t in doc.tags if n == "deprecated"]
    if deprecated is not None and not said:
        said = [deprecated]
    for t in said:
        t = _inline(t)
        parts.append(f"Deprecated: {t}" if t else "Deprecated.")
    parts.append(listing)
    lines: list[str] = []
    for name, t in doc.tags:
        if name == "param":
            p = t.split(None, 1)
            if p:
                lines.append(f":param {p[0]}: {_inline(p[1]) if len(p) > 1 else ''}".rstrip())
    returns = [_inline(t) for n, t in doc.tags if n in ("return", "returns") and t]
    if returns:
        lines.append(":returns: " + "; ".join(returns))
    parts.append("\n".join(lines))
    raises = []
    for name, t in doc.tags:
        if name in ("raise", "raises") and t:
            p = t.split(None, 1)
            raises.append(f"Raises: `{p[0]}` {_inline(p[1]) if len(p) > 1 else ''}".rstrip())
    parts.append("\n".join(raises))
    parts.append("\n".join(_see(t) for n, t in doc.tags if n == "see" and t))
    before = []
    for name, t in doc.tags:
        if name == "before" and t:
            p = t.split(None, 1)
            before.append(f"Before {p[0]}: {_inline(p[1]) if len(p) > 1 else ''}".rstrip(": "))
    parts.append("\n".join(before))
    since = [" ".join(t.split()) for n, t in doc.tags if n == "since" and t]
    if since:
        parts.append("Since: " + "; ".join(since))
    return "\n\n".join(x for x in parts if x)


_SEE = re.compile(r"^(?:<([^>]*)>|'([^']*)'|\"([^\"]*)\")\s*(.*)$", re.S)


def _see(t: str) -> str:
    """`@see <url> text` -> `See also: <url> text`; a `'file'` a code span; a `"doc"`
    its title."""
    m = _SEE.match(t)
    if m is None:
        return f"See also: {_inline(t)}"
    url, path, title, rest = m.groups()
    target = f"<{url}>" if url is not None else (_span(path) if path is not None else title)
    return f"See also: {target} {_inline(rest)}".rstrip()


# ----------------------------------------------------------------------------- reading
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_NOT_A_LET_AFTER = frozenset(
    {
        "in", "then", "else", "do", "begin", "match", "with", "when", "fun", "function",
        "try", "lazy", "assert", "if", "while", "for", "to", "downto", "of", "let", "and",
        "or", "not", "struct", "object",
    }
)  # fmt: skip
_ITEM_WORDS = frozenset(
    {
        "val", "external", "type", "exception", "module", "class", "include", "open",
        "method", "inherit", "constraint", "initializer", "and",
    }
)  # fmt: skip


@dataclass
class _Raw:
    """One declaration of a signature: its tokens [lo, hi), its keyword (`and` read as
    its chain's), and what the walk attached to it."""

    lo: int
    hi: int
    word: str
    start: int
    end: int
    docs: list[_Comment] = field(default_factory=list)
    inner: list[_Comment] = field(default_factory=list)  # the docs in its span
    last_part_doc: _Comment | None = None  # its last constructor's doc, after it
    hidden: bool = False


@dataclass
class _Part:
    """A constructor or field of a type: its declaration as written, where it stands."""

    text: str
    start: int
    end: int
    doc: _Comment | None = None


@dataclass
class _Item:
    qual: str
    kind: str
    signature: str
    body: str
    at: int


class _File:
    def __init__(self, f: SourceFile, source: str) -> None:
        self.f = f
        self.source = source
        self.text = f.text
        self.ml = f.rel.suffix.lower() == ".ml"
        s = _Scanner(f.text)
        s.run()
        self.code = "".join(s.code)
        self.bare = "".join(s.bare)
        self.toks = _tokens(self.code)
        self.match = _matches(self.toks)
        self.docs = [c for c in s.comments if c.doc or c.stop]
        self.doc_starts = [c.start for c in self.docs]
        self.newlines = [m.start() for m in re.finditer("\n", f.text)]
        self.items: list[_Item] = []

    def line(self, i: int) -> int:
        return bisect_left(self.newlines, i) + 1

    def blank_between(self, a: int, b: int) -> bool:
        return _BLANK_LINE.search(self.text, a, b) is not None

    def docs_in(self, a: int, b: int) -> list[_Comment]:
        return self.docs[bisect_left(self.doc_starts, a) : bisect_left(self.doc_starts, b)]

    def flat(self, a: int, b: int) -> str:
        return " ".join(self.bare[a:b].split())

    # ------------------------------------------------------------------ declarations
    def starts_item(self, k: int, lo: int, lets: int) -> bool:
        """Whether token `k` opens a declaration of the signature or structure being
        read (`lo` its first token; `lets`: `let`s inside the current one still waiting
        for their `in`)."""
        t = self.toks[k]
        if t.kind == "attr":
            return t.text == "[@@@" or t.text == "[%%"
        if t.kind == "op":
            return t.text == ";;"
        if t.kind != "id":
            return False
        word = t.text
        prev = self.toks[k - 1] if k > lo else None
        after = prev.text if prev is not None else ""
        nxt = self.toks[k + 1].text if k + 1 < len(self.toks) else ""
        if word == "let":
            if not self.ml or prev is None or after == ";;":
                return prev is None or after == ";;" or self.ml
            if prev.kind in ("op", "open", "attr") or after in _NOT_A_LET_AFTER:
                return False
            return self.column(t.start) == 0 or prev.kind in ("id", "close", "str", "num")
        if word not in _ITEM_WORDS:
            return False
        if word == "and":
            return lets == 0 and nxt not in ("type", "module")
        if after in ("with", "and", "let", ":", "=", "of", "include", "|", "."):
            return False
        if word == "type" and after in ("module", "class"):
            return False
        return not (word == "module" and after == "type")

    def column(self, i: int) -> int:
        return i - (self.text.rfind("\n", 0, i) + 1)

    def declarations(self, lo: int, hi: int) -> list[_Raw]:
        """The declarations between tokens lo and hi, nested blocks read through."""
        toks = self.toks
        out: list[_Raw] = []
        chain = ""
        k = lo
        while k < hi:
            if not self.starts_item(k, lo, 0):
                k += 1  # code outside any declaration (a stray token)
                continue
            j = k + 1
            lets = 0
            while j < hi:
                t = toks[j]
                if t.kind in ("open", "attr") or (t.kind == "id" and t.text in _OPENERS):
                    if t.kind == "attr" and t.text in ("[@@@", "[%%"):
                        break
                    j = self.match.get(j, hi) + 1
                    continue
                if self.ml and t.kind == "id" and t.text in ("let", "in"):
                    if t.text == "in":
                        lets = max(0, lets - 1)
                    elif not self.starts_item(j, lo, lets):
                        lets += 1
                        j += 1
                        continue
                if self.starts_item(j, lo, lets):
                    break
                if t.kind == "id" and t.text == "end":
                    break  # a stray `end`: the block it closes was not ours
                j += 1
            j = min(j, hi)
            word = toks[k].text
            if word == "and":
                word = chain
            elif word in ("type", "let", "module", "class"):
                chain = word
            last = toks[j - 1]
            out.append(_Raw(k, j, word, toks[k].start, last.end))
            k = j
        return out

    # ------------------------------------------------------------------ attachment
    def attach(self, raws: list[_Raw], a: int, b: int, hidden: bool) -> list[_Comment]:
        """Each doc between chars a and b (outside the declarations) given to the one it
        documents; returns the docs that document none, in order. `(**/**)` toggles
        hiding from where it stands."""
        floating: list[_Comment] = []
        starts = [r.start for r in raws]
        events: list[tuple[int, int, _Raw | _Comment]] = [(r.start, 1, r) for r in raws]
        for d in self.docs_in(a, b):
            k = bisect_right(starts, d.start) - 1
            if k >= 0 and d.start < raws[k].end:
                raws[k].inner.append(d)
            else:
                events.append((d.start, 0, d))
        events.sort(key=lambda e: (e[0], e[1]))
        prev: _Raw | None = None
        pending: _Comment | None = None
        for _, _, e in events:
            if isinstance(e, _Raw):
                if pending is not None and not self.blank_between(pending.end, e.start):
                    e.docs.append(pending)
                elif pending is not None:
                    floating.append(pending)
                pending = None
                e.hidden = hidden
                prev = e
                continue
            if e.stop:
                hidden = not hidden
                if pending is not None:
                    floating.append(pending)
                prev = pending = None
                continue
            if pending is not None:
                floating.append(pending)
                pending = None
            if _section(e):
                prev = None
                floating.append(e)
                continue
            if prev is not None and not self.blank_between(prev.end, e.start):
                if self.takes_last_part(prev, e):
                    prev.last_part_doc = e
                    prev.end = e.end  # a doc after this one may still be the type's
                    continue
                prev.docs.append(e)
                prev = None
                continue
            prev = None
            pending = e
        if pending is not None:
            floating.append(pending)
        return floating

    def takes_last_part(self, r: _Raw, d: _Comment) -> bool:
        """Whether the doc `d` right after the type `r` is its last constructor's: on the
        constructor's line, or (a type on several lines) the next."""
        if r.word != "type" or r.last_part_doc is not None or r.docs and r.docs[-1].start > r.start:
            return False
        toks = self.toks
        last = toks[r.hi - 1]
        if last.kind == "close" and last.text == "}":
            return False
        if not any(t.kind == "op" and t.text == "|" for t in toks[r.lo : r.hi]) and not _variant(
            self, r
        ):
            return False
        same_line = self.line(d.start) == self.line(last.end)
        return same_line or self.line(r.start) != self.line(last.end)

    # ------------------------------------------------------------------ the walk
    def walk(self, lo: int, hi: int, path: list[str], hidden: bool, in_class: str = "") -> str:
        """Read the declarations of a signature (tokens lo to hi) under `path`; returns
        the doc that opens it (its first doc documenting no item, before any)."""
        raws = self.declarations(lo, hi)
        a = self.toks[lo - 1].end if lo > 0 else 0
        b = self.toks[hi].start if hi < len(self.toks) else len(self.text)
        floating = self.attach(raws, a, b, hidden)
        first = raws[0].start if raws else b
        opening = next((d for d in floating if d.start < first), None)
        preamble = opening.body if opening is not None and not _section(opening) else ""
        over = [d for d in raws[0].docs if d.start < raws[0].start] if raws else []
        if not preamble and over and raws[0].word in ("open", "include"):
            preamble = over[0].body  # a file's doc over its first `open`
        for r in raws:
            self.declaration(r, path, in_class)
        return preamble

    def declaration(self, r: _Raw, path: list[str], in_class: str) -> None:
        word = r.word
        if in_class:
            if word in ("val", "method"):
                self.value(r, path, in_class)
        elif word in ("val", "external", "let"):
            self.value(r, path, "")
        elif word == "type":
            self.typedecl(r, path)
        elif word == "exception":
            name = self.name_after(r.lo + 1, r.hi)
            self.add(r, path, name, "exception", self.signature(r), "")
        elif word in ("module", "class"):
            self.module(r, path)

    def name_after(self, k: int, hi: int, skip: frozenset[str] = frozenset()) -> str:
        """The name a declaration gives: the first name at its top level after token
        `k` (words in `skip` passed over), an operator's `( op )` as `(op)`."""
        toks = self.toks
        while k < hi:
            t = toks[k]
            if t.kind == "id" and t.text not in skip:
                return t.text
            if t.text in ("=", ":", ":="):
                return ""
            if t.kind == "open" and t.text == "(":
                end = self.match.get(k, hi)
                inner = "".join(x.text for x in toks[k + 1 : end])
                if (
                    inner
                    and "," not in inner
                    and (not _NAME.fullmatch(inner) or inner in _WORD_OPERATORS)
                ):
                    return f"({inner})"  # an operator: `( @ )`, `( let* )`, `( mod )`
                k = end + 1
                continue
            if t.kind in ("open", "attr"):
                k = self.match.get(k, hi) + 1
                continue
            k += 1
        return ""

    def top_level(self, lo: int, hi: int) -> Iterator[int]:
        """The token indices between lo and hi outside any bracket or block."""
        k = lo
        toks = self.toks
        while k < hi:
            t = toks[k]
            yield k
            if t.kind in ("open", "attr") or (t.kind == "id" and t.text in _OPENERS):
                k = self.match.get(k, hi) + 1
            else:
                k += 1

    def signature(self, r: _Raw, stop: int | None = None) -> str:
        """The declaration as written, from its first token to `stop` (its end), its `and`
        shown as its chain's keyword."""
        hi = r.hi if stop is None else stop
        if self.toks[r.lo].text == "and":
            return f"{r.word} {self.written(r.lo + 1, hi)}".strip()
        return self.written(r.lo, hi)

    def written(self, lo: int, hi: int) -> str:
        """Tokens lo to hi as written: attributes dropped, a `sig`/`object` body as `...`,
        whitespace collapsed."""
        toks, bare = self.toks, self.bare
        if hi <= lo:
            return ""
        pieces: list[str] = []
        a = toks[lo].start
        k = lo
        while k < hi:
            t = toks[k]
            if t.kind == "attr" or (t.kind == "id" and t.text in ("sig", "object")):
                j = self.match.get(k, len(toks))
                if t.kind == "attr":
                    pieces.append(bare[a : t.start])
                else:
                    pieces.append(bare[a : t.end] + " ... end")
                a = toks[j].end if j < len(toks) else len(bare)
                k = j + 1
                continue
            k += 1
        last = toks[min(hi, len(toks)) - 1].end
        if a < last:
            pieces.append(bare[a:last])
        return " ".join(" ".join(pieces).split())

    def deprecated(self, r: _Raw) -> str | None:
        """The message of a `[@@ocaml.deprecated "..."]` (`[@deprecated]`) on the item."""
        toks = self.toks
        for k in range(r.lo, r.hi):
            if toks[k].kind != "attr":
                continue
            j = k + 1  # the attribute's dotted name: `ocaml . deprecated`
            name = ""
            while j < r.hi and (toks[j].kind == "id" or toks[j].text == "."):
                name += toks[j].text
                j += 1
            if name in _DEPRECATED:
                if j < r.hi and toks[j].kind == "str":
                    return " ".join(self.text[toks[j].start + 1 : toks[j].end - 1].split())
                return ""
        return None

    def value(self, r: _Raw, path: list[str], in_class: str) -> None:
        toks = self.toks
        word = r.word
        name = self.name_after(r.lo + 1, r.hi, _VALUE_MODIFIERS)
        if not name or name == "_":
            return
        if word == "let":
            tops = list(self.top_level(r.lo + 1, r.hi))
            eq = next((k for k in tops if toks[k].text in ("=", ":")), r.hi)
            sig = self.signature(r, eq)
            k = r.lo + 1  # the name's token: its arguments follow it up to `=` (or `:`)
            while k < eq and toks[k].text in _VALUE_MODIFIERS:
                k += 1
            if k < eq and toks[k].text == "(":
                k = self.match.get(k, eq)
            args = [j for j in tops if k < j < eq]
            bind = next((j for j in tops if j >= eq and toks[j].text == "="), r.hi)
            fun = bind + 1 < r.hi and toks[bind + 1].text in ("fun", "function")
            kind = "function" if args or fun else "value"
        else:
            stop = r.hi
            if word == "external":
                stop = next(
                    (k for k in self.top_level(r.lo + 1, r.hi) if toks[k].text == "="), r.hi
                )
            sig = self.signature(r, stop)
            colon = next((k for k in self.top_level(r.lo + 1, stop) if toks[k].text == ":"), stop)
            arrow = any(toks[k].text == "->" for k in self.top_level(colon, stop))
            kind = "function" if arrow else "value"
        if in_class:
            kind = "method" if word == "method" else "value"
            qual = ".".join(path) + "#" + name
            self.add(r, [], qual, kind, sig, "")
            return
        self.add(r, path, name, kind, sig, "")

    def typedecl(self, r: _Raw, path: list[str]) -> None:
        toks = self.toks
        name = self.name_after(r.lo + 1, r.hi, frozenset({"nonrec"}))
        if not name:
            return
        eqs = [k for k in self.top_level(r.lo + 1, r.hi) if toks[k].text in ("=", "+=")]
        cons = [k for k in self.top_level(r.lo + 1, r.hi) if toks[k].text == "constraint"]
        end = cons[0] if cons else r.hi
        parts: list[_Part] = []
        label = ""
        head_stop = None
        if eqs and eqs[-1] < end:
            rep = eqs[-1] + 1
            if rep < end and toks[rep].text == "private":
                rep += 1
            if rep < end and toks[rep].text == "{":
                close = self.match.get(rep, end)
                parts = self.fields(rep + 1, min(close, end))
                label, head_stop = "Fields", rep
            elif _variant(self, r, rep, end):
                parts = self.constructors(rep, end)
                label, head_stop = "Constructors", rep
        sig = self.signature(r)
        whole = len(sig) <= _MAX_SIGNATURE
        if not whole and head_stop is not None:
            head = self.signature(r, head_stop)
            sig = f"{head} {{ ... }}" if label == "Fields" else f"{head} | ..."
        # the docs inside the type, each given to its constructor or field
        for d in r.inner:
            _give(self, parts, d)
        if r.last_part_doc is not None and parts:
            parts[-1].doc = r.last_part_doc
        lines = []
        documented = any(d.body.strip() for d in r.docs)
        for p in parts:
            said = _inline(_parse(p.doc.body).description) if p.doc is not None else ""
            if said:
                lines.append(f"- {_span(p.text)}: {said}")
                documented = True
            elif not whole:
                lines.append(f"- {_span(p.text)}")
        # an undocumented type gives no document for its bare constructor list
        listing = f"{label}:\n" + "\n".join(lines) if lines and documented else ""
        self.add(r, path, name, "type", sig, listing)

    def constructors(self, lo: int, hi: int) -> list[_Part]:
        """A variant's constructors: split at its top-level `|`."""
        out: list[_Part] = []
        toks = self.toks
        cut = [k for k in self.top_level(lo, hi) if toks[k].text == "|"]
        bounds = [lo - 1, *cut, hi] if not cut or cut[0] != lo else [*cut, hi]
        for a, b in zip(bounds, bounds[1:], strict=False):
            part = self.part(a + 1, b)
            if part is not None:
                out.append(part)
        return out

    def fields(self, lo: int, hi: int) -> list[_Part]:
        """A record's fields: split at its top-level `;`."""
        toks = self.toks
        cut = [k for k in self.top_level(lo, hi) if toks[k].text == ";"]
        out: list[_Part] = []
        for a, b in zip([lo - 1, *cut], [*cut, hi], strict=False):
            part = self.part(a + 1, b)
            if part is not None:
                out.append(part)
        return out

    def part(self, lo: int, hi: int) -> _Part | None:
        if hi <= lo:
            return None
        return _Part(self.written(lo, hi), self.toks[lo].start, self.toks[hi - 1].end)

    def module(self, r: _Raw, path: list[str]) -> None:
        """A module, module type, class or class type: its members read through it."""
        toks = self.toks
        is_class = r.word == "class"
        k = r.lo + 1
        kind = "class" if is_class else "module"
        if k < r.hi and toks[k].text == "type":
            kind = "class" if is_class else "module type"
            k += 1
        name = self.name_after(k, r.hi, frozenset({"rec", "virtual", "nonrec"}))
        if not name:
            return
        body = next(
            (
                j
                for j in self.top_level(k, r.hi)
                if toks[j].kind == "id" and toks[j].text in ("sig", "struct", "object")
            ),
            None,
        )
        preamble = ""
        inner = [*path, name]
        if body is not None:
            end = self.match.get(body, r.hi)
            member = name if is_class else ""
            if member:
                self.walk(body + 1, end, [*path, name], r.hidden, in_class=member)
            else:
                preamble = self.walk(body + 1, end, inner, r.hidden)
        self.add(r, path, name, kind, self.signature(r), "", preamble)

    def add(
        self, r: _Raw, path: list[str], name: str, kind: str, sig: str, listing: str, alt: str = ""
    ) -> None:
        """An item, when it is not hidden and its doc (or its type's list) says something."""
        if r.hidden or not name:
            return
        said = [d.body for d in r.docs if d.body.strip()]
        doc = _parse("\n\n".join(_dedent(x) for x in said) if said else alt)
        body = _body(doc, self.deprecated(r), listing)
        if not (doc.description or doc.tags or listing):
            return
        qual = ".".join([*path, name])
        self.items.append(_Item(qual, kind, sig, body, r.start))


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")
_WORD_OPERATORS = frozenset({"mod", "land", "lor", "lxor", "lsl", "lsr", "asr", "or", "not"})
_VALUE_MODIFIERS = frozenset({"rec", "mutable", "virtual", "private", "method", "val"})
_DEPRECATED = frozenset({"ocaml.deprecated", "deprecated"})


def _section(d: _Comment) -> bool:
    """Whether a doc opens a section (`{1 Heading}`): it documents no item."""
    return _HEADING.match(d.body.strip() + " ") is not None


def _variant(g: _File, r: _Raw, rep: int | None = None, end: int | None = None) -> bool:
    """Whether a type's representation (from token `rep`) is a variant: it opens with
    `|`, a constructor (a capitalised name not a module's `M.t`), `[]` or `(::)`, or holds
    a top-level `|`."""
    toks = g.toks
    if rep is None:
        eqs = [k for k in g.top_level(r.lo + 1, r.hi) if toks[k].text in ("=", "+=")]
        if not eqs:
            return False
        rep = eqs[-1] + 1
        if rep < r.hi and toks[rep].text == "private":
            rep += 1
    end = r.hi if end is None else end
    if rep >= end:
        return False
    t = toks[rep]
    if t.text in ("|", "..") or any(toks[k].text == "|" for k in g.top_level(rep, end)):
        return t.text != ".."
    nxt = toks[rep + 1].text if rep + 1 < end else ""
    if t.kind == "id" and t.text[:1].isupper():
        return nxt != "."
    return (t.text == "[" and nxt == "]") or (t.text == "(" and nxt == "::")


def _give(g: _File, parts: list[_Part], d: _Comment) -> None:
    """A doc inside a type to the constructor or field right before it (no blank line
    between), else to the one right after it."""
    before = [p for p in parts if p.end <= d.start]
    after = [p for p in parts if p.start >= d.end]
    if before and before[-1].doc is None and not g.blank_between(before[-1].end, d.start):
        before[-1].doc = d
    elif after and after[0].doc is None and not g.blank_between(d.end, after[0].start):
        after[0].doc = d


# ----------------------------------------------------------------------------- documents
def file_documents(f: SourceFile, source: str) -> Iterator[Document]:
    """The documents of one file, its module's first; of a name documented twice, the
    first."""
    g = _File(f, source)
    top = module_name(f.rel)
    preamble = g.walk(0, len(g.toks), [top], False)
    kept: dict[str, _Item] = {}
    if preamble.strip():
        body = _body(_parse(preamble), None, "")
        if body:
            kept[top] = _Item(top, "module", f"module {top}", body, 0)
    for item in g.items:
        kept.setdefault(item.qual, item)
    for item in kept.values():
        text = f"{item.signature}\n\n{item.body}" if item.body else item.signature
        yield api_document(
            source,
            URI_PREFIX,
            f,
            item.qual,
            text,
            item.kind,
            item.signature,
            g.line(item.at),
            language="ocaml",
        )
