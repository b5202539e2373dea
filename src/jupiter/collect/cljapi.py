"""Clojure source files (`.clj`, `.cljc`, `.cljs`) read as their namespaces' API, the way
Clojure's own `doc` and cljdoc/codox show it: one document per public var with a
docstring, and one for the namespace when its `ns` form has a docstring.

The files are read, never evaluated, by a reader of Clojure's syntax that builds a light
tree of the top-level forms (lists, vectors, maps, sets `#{}` and anonymous fns `#()`, their
atoms, each with where it starts): strings with their escapes, regexes `#"..."` (a `\\"`
inside is theirs), character literals (`\\a`, `\\(`, `\\)`, `\\"`, `\\;`, `\\newline`,
`\\space`, `\\u00e9`, `\\o101`), comments `;` to the line's end (and a `#!` line), `#_`
dropping the next form, metadata `^{...}`, `^:private`, `^String` (and the old `#^`) put on
the form after it, quote `'`, syntax quote `` ` ``, unquote `~`, `~@`, deref `@`, `#'var`,
`#=`, tagged literals `#inst "..."`, symbolic values `##Inf` and namespaced maps `#:a{...}`.
Reader conditionals `#?(:clj a :cljs b)` read as the branch the file's platform takes (in
a `.clj` or `.cljc` file the first of `:clj` and `:default`, in a `.cljs` file of `:cljs`
and `:default`; none: nothing), and `#?@(...)` splices that branch's forms into the form
around it. Unclosed forms end with the file; a closing bracket closes the innermost form
it matches (and those left open inside it), one that matches none is dropped, so any text
reads without an error.

The namespace is the `(ns name "doc"? attr-map? references...)` form's name; its doc the
`:doc` of the name's metadata (`^{:doc "..."}`), the docstring and the attr-map merged in
that order (a later one wins), and it gives a document `clojure:<ns>` (kind "namespace", its text the name and the doc). An
`(in-ns 'name)` names the namespace of the forms after it (clojure.core's `core_print.clj`);
a file with neither is named by its path (`src/my/lib_util.clj` -> `my.lib-util`). A
namespace marked `^:no-doc` (or `{:no-doc true}`) gives no document at all, as codox hides it.

Its vars are the top-level `defn`, `defn-`, `defmacro`, `defmulti`, `def`, `defonce`,
`defprotocol`, `defrecord`, `deftype` and `definterface` forms (`clojure.core/defn` too),
also those inside a top-level `do` or `when` (and a reader conditional's chosen branch);
a `(comment ...)` form is skipped whole. A var is private, and gives no document, when
defined with `defn-` or when its metadata (`^:private`, `^{:private true}`, the
attr-map's `:private true`) says so, or `:no-doc` (`^:no-doc`, `{:no-doc true}`). Its
metadata is the name's, then the docstring, then the attr-map (a later one wins a key),
as `defn` merges them. The docstring is `:doc` in that metadata:
- `(defn name "doc" attr-map? [params] body)`, multi-arity `(defn name "doc" ([x] ...)
  ([x y] ...))`, and `defmacro` and `defmulti` alike: the string right after the name;
- `(def name "doc" value)`: only when a value follows (`(def x "a string")` is a var whose
  value is a string and has no doc); `defonce` alike;
- `(defprotocol P "doc" opts? (method [this] [this x] "doc") ...)`: the protocol's a
  document (kind "protocol"), and each method's with a docstring its own document
  `clojure:<ns>/<method>` (kind "function", private when the protocol is);
- `defrecord`, `deftype`, `definterface`: a document only when the name's metadata has
  `:doc` (kind "record", "type", "type"); a record's or type's fields are its arglist.
clojure.core's own ways of documenting are read too: `(add-doc-and-meta *out* "doc"
{:added "1.0"})` documents a var (kind "var"), and `(. (var defn) (setMacro))` makes the
var a macro.

Kinds: "function" (`defn`, a `def` whose value is `(fn ...)` or whose metadata gives
`:arglists`: `(def ^{:arglists '([& items])} list ...)`), "macro" (`defmacro`, a var
whose metadata says `:macro true` or that is made a macro), "multimethod", "var" (other
`def`s), "protocol", "record", "type", "namespace". The qualified name is `<ns>/<name>`
and the uri `clojure:` and that name: `clojure:clojure.core/map`,
`clojure:clojure.string/join`. Of a name defined twice in a file (clojure.core defines
`let`, `fn`, `loop` bare first and with their docs later), the first definition that has
a docstring is the document.

Arglists: `:arglists '([x] [x & more])` in the metadata wins (clojure.core's early
`def`s say theirs so); else the params vector of each arity (a `def`'s `(fn ...)` value's
arities too; a macro's leading `&form &env` dropped); a `defmulti` has none unless its
metadata gives them (its dispatch fn is no arglist). An arglist is shown as written
(destructuring `[{:keys [a b]} & opts]` as is, whitespace and commas collapsed, comments
dropped) but without metadata: `[^String s]` -> `[s]`, as `doc` prints them.

The text: one signature line per arity as `doc` shows the call, `(map f)`, `(map f coll)`,
`(map f c1 c2 c3 & colls)` (a var, protocol or namespace without arglists: its bare
name), a blank line, then the docstring as Markdown: its first line as is, the lines after
it dedented together (Clojure indents them by two spaces), paragraphs and backquoted names
kept, a block indented 4 or more spaces past the paragraph over it, after a blank line
or a line ending `:`, fenced as ```` ```clojure ```` (and dedented; more indented lines
right in a paragraph, a wrapped list item's, stay text), fences already there kept; then, when present, the
metadata lines `Since: 1.0` (`:added`), `Deprecated: 1.2` (`:deprecated`; `Deprecated.`
when it is just true) and a multimethod's `Dispatch: <its dispatch fn as written>` (when
under 80 characters). The signature the document records is its first signature line
("" for one without arglists).

Tests (under `test/` or `tests/` folders that are not part of the namespace's own path,
`*_test.clj`, `*_test.cljc`, `*_test.cljs`, `test_*.clj`, or a namespace ending `-test`)
give no document and are counted, and so is a file with no documented public var.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

SUFFIXES = (".clj", ".cljc", ".cljs")
URI_PREFIX = "clojure:"
# reasons a Clojure file gave no document, as the collect stage counts them
CLOJURE_TEST = "clojure_test"
CLOJURE_NO_API = "clojure_no_api"
_AS_TEXT = (
    "Clojure files read as their namespaces' API (the docstrings of their public vars "
    "and namespaces): tests and files with no documented public var give none; the "
    "source's clojure: text reads them as text"
)
FIXES = {CLOJURE_TEST: _AS_TEXT, CLOJURE_NO_API: _AS_TEXT}
_TEST_FOLDERS = frozenset({"test", "tests"})
_TEST_NAME = re.compile(r"_test\.clj[cs]?$|^test_.*\.clj[cs]?$", re.I)
_MAX_DISPATCH = 80  # characters of a multimethod's dispatch fn shown
_MAX_DEPTH = 100  # forms deep a form is shown

ClojureFile = SourceFile  # its files, as the source hands them over


def is_clojure(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath, ns: str = "") -> bool:
    """Whether a file is a test: by its name, under a `test/` or `tests/` folder, or its
    namespace ending `-test`. Given the namespace, the folders that spell it are its own
    (`clojure/test/junit.clj` is the namespace `clojure.test.junit`, no test)."""
    if _TEST_NAME.search(rel.name) or ns.endswith("-test"):
        return True
    folders = rel.parts[:-1]
    spelled = [p.replace("-", "_") for p in ns.split(".")[:-1]] if ns else []
    if spelled and list(folders[len(folders) - len(spelled) :]) == spelled:
        folders = folders[: len(folders) - len(spelled)]
    return bool(_TEST_FOLDERS & set(folders))


def api_documents(
    files: list[ClojureFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the documented public vars and namespaces the files define, sorted by
    uri; a file that gives none is counted in `rejects`. `top` (the source's folder name)
    is not needed: a Clojure file names its namespace itself."""

    def read(f: ClojureFile) -> list[Document] | str:
        if _TEST_NAME.search(f.rel.name):
            return CLOJURE_TEST
        g = _read_file(f)
        if is_test(f.rel, g.ns_name):
            return CLOJURE_TEST
        return list(_documents(g, source))

    return first_documents(files, rejects, read, CLOJURE_NO_API)


def namespace_of(rel: PurePosixPath) -> str:
    """The namespace a file's path spells, for a file that names none:
    `src/my/lib_util.clj` -> `my.lib-util`. Leading layout folders (`src/`, `test/`,
    `main/`, `clj/`, `cljs/`, `cljc/`, and the `clojure/` of Maven's `src/main/clojure/`)
    are dropped; `_` in a name reads as `-`."""
    parts = list(rel.parts)
    if not parts:
        return "user"
    stem = parts[-1].rsplit(".", 1)[0]
    folders = parts[:-1]
    layout = {"src", "test", "tests", "main", "clj", "cljs", "cljc"}
    while folders and folders[0] in layout:
        dropped = folders.pop(0)
        if dropped == "main" and folders[:1] == ["clojure"]:  # src/main/clojure/<ns path>
            folders.pop(0)
    return ".".join(p.replace("_", "-") for p in [*folders, stem])


# ----------------------------------------------------------------------------- reading
@dataclass(eq=False)
class Form:
    """A form read: a collection (`kind` its opening bracket: `(`, `[`, `{`, `#{`, `#(`)
    with its `items`; an atom (`sym`, `kw`, `str`, `num`, `char`, `regex`, `symbolic`)
    with its `text` as written; or a prefix's form (`'`, `` ` ``, `~`, `~@`, `@`, `#'`,
    `#=`, a tagged literal `#tag`, a namespaced map `#:`) with the one form it takes in
    `items` and its prefix as `text`. `meta`: the metadata forms put on it, inner first."""

    kind: str
    text: str
    start: int
    items: list[Form] = field(default_factory=list)
    meta: list[Form] = field(default_factory=list)


_DELIM = r"""[^\s,;"()\[\]{}\\^`~@]"""  # a character a symbol may hold
_TOKEN = re.compile(
    rf"""
    (?P<ws>[\s,]+)
    |(?P<comment>;[^\n]*|\#![^\n]*)
    |(?P<str>"[^"\\]*(?:\\.[^"\\]*)*"?)
    |(?P<regex>\#"[^"\\]*(?:\\.[^"\\]*)*"?)
    |(?P<char>\\(?:u[0-9a-fA-F]{{4}}|o[0-7]{{1,3}}|newline|space|tab|backspace|formfeed
        |return|.)?)
    |(?P<open>[(\[{{]|\#\{{|\#\(|\#\?@\(|\#\?\()
    |(?P<close>[)\]}}])
    |(?P<prefix>\#?\^|'|`|~@|~|@|\#'|\#_|\#=|\#::?{_DELIM}*)
    |(?P<symbolic>\#\#{_DELIM}*)
    |(?P<tag>\#[^\s,;"()\[\]{{}}\\^`~@\#'_=?!:]{_DELIM}*)
    |(?P<atom>{_DELIM}+)
    |(?P<other>.)
    """,
    re.X | re.S,
)
_CLOSE = {"(": ")", "[": "]", "{": "}", "#{": "}", "#(": ")"}
_NUMBER = re.compile(r"[+-]?\d")


@dataclass
class _Pending:
    """A prefix waiting for its form: `^` first takes the metadata form (`meta`), then the
    form it goes on; `#_` drops its form; the others wrap theirs."""

    op: str
    start: int
    meta: Form | None = None


@dataclass
class _Frame:
    form: Form | None  # the open collection; None: the file's top level
    cond: str = ""  # "#?(" or "#?@(": a reader conditional's
    items: list[Form] = field(default_factory=list)
    pending: list[_Pending] = field(default_factory=list)


def _add(frame: _Frame, form: Form) -> None:
    """A finished form put into its frame, through the prefixes waiting for it (the
    innermost first: `'^:x y` is the quote of `y` with `:x` on it)."""
    while frame.pending:
        p = frame.pending[-1]
        if p.op in ("^", "#^"):
            if p.meta is None:
                p.meta = form
                return
            frame.pending.pop()
            form.meta.append(p.meta)
            continue
        frame.pending.pop()
        if p.op == "#_":
            return
        form = Form(p.op[:2] if p.op.startswith("#:") else p.op, p.op, p.start, [form])
        if p.op.startswith("#") and p.op not in ("#'", "#=") and not p.op.startswith("#:"):
            form.kind = "#tag"
    frame.items.append(form)


def _branch(items: list[Form], platform: str) -> Form | None:
    """The form a reader conditional's `(:feature form ...)` pairs read as."""
    for k in range(0, len(items) - 1, 2):
        key = items[k]
        if key.kind == "kw" and key.text in (platform, ":default"):
            return items[k + 1]
    return None


def _close(stack: list[_Frame], platform: str) -> None:
    frame = stack.pop()
    parent = stack[-1]
    if frame.cond:
        chosen = _branch(frame.items, platform)
        if chosen is None:
            return
        if frame.cond == "#?@(":
            for x in chosen.items if chosen.kind in _CLOSE else [chosen]:
                _add(parent, x)
            return
        _add(parent, chosen)
        return
    assert frame.form is not None
    frame.form.items = frame.items
    _add(parent, frame.form)


def _close_to(stack: list[_Frame], tok: str, platform: str) -> None:
    """A closing bracket closes the innermost open form it matches and those still open
    inside it (`(a [b)`: the `[` with the `(`); one that matches none is dropped."""
    for k in range(len(stack) - 1, 0, -1):
        form = stack[k].form
        if (_CLOSE[form.kind] if form is not None else ")") == tok:
            while len(stack) > k:
                _close(stack, platform)
            return


def read_forms(text: str, platform: str = ":clj") -> list[Form]:
    """The top-level forms of Clojure source, read (never evaluated) for `platform`
    (`:clj` or `:cljs`): see the module's doc for what it reads."""
    stack = [_Frame(None)]
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("ws", "comment", "other"):
            continue
        tok = m.group()
        at = m.start()
        top = stack[-1]
        if kind == "open":
            if tok in ("#?(", "#?@("):
                stack.append(_Frame(None, tok))
            else:
                stack.append(_Frame(Form(tok, tok, at)))
        elif kind == "close":
            _close_to(stack, tok, platform)
        elif kind == "prefix":
            top.pending.append(_Pending(tok, at))
        elif kind == "atom":
            sort = "kw" if tok[0] == ":" else "num" if _NUMBER.match(tok) else "sym"
            _add(top, Form(sort, tok, at))
        elif kind == "tag":
            top.pending.append(_Pending(tok, at))
        else:  # str, regex, char, symbolic
            _add(top, Form(kind or "", tok, at))
    while len(stack) > 1:  # unclosed at the file's end: closed there
        _close(stack, platform)
    return stack[0].items


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[0-7]{1,3}|.)", re.S)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}


def string_value(form: Form) -> str:
    """A string literal's value: its escapes read."""
    body = form.text[1:-1] if len(form.text) > 1 and form.text.endswith('"') else form.text[1:]

    def one(m: re.Match[str]) -> str:
        e = m.group(1)
        if len(e) == 5 and e[0] == "u":
            return chr(int(e[1:], 16))
        if e[0].isdigit():
            return chr(int(e, 8))
        return _ESCAPES.get(e, e)

    return _ESCAPE.sub(one, body) if "\\" in body else body


def shown(form: Form, depth: int = 0) -> str:
    """A form as written, on one line: whitespace, commas and comments collapsed, its
    metadata (type hints) dropped; nested past 100 forms deep, `...`."""
    if depth > _MAX_DEPTH:  # a recursion this deep is no arglist: not worth a stack overflow
        return "..."
    if form.kind in _CLOSE:
        inner = " ".join(shown(x, depth + 1) for x in form.items)
        return form.kind + inner + _CLOSE[form.kind]
    if form.kind == "#tag":
        return f"{form.text} {shown(form.items[0], depth + 1)}" if form.items else form.text
    if form.items:  # a prefix's form
        return form.text + shown(form.items[0], depth + 1)
    return " ".join(form.text.split()) if form.kind == "str" else form.text


# ----------------------------------------------------------------------------- metadata
_TRUE = Form("sym", "true", 0)


def _pairs(form: Form) -> dict[str, Form]:
    """A map's keyword keys and their values."""
    out: dict[str, Form] = {}
    items = form.items
    for k in range(0, len(items) - 1, 2):
        if items[k].kind == "kw":
            out[items[k].text] = items[k + 1]
    return out


def _meta(form: Form) -> dict[str, Form]:
    """The metadata on a form: `^{...}` maps, `^:flag` as true, `^Type` as `:tag`."""
    out: dict[str, Form] = {}
    for m in form.meta:
        if m.kind == "{":
            out.update(_pairs(m))
        elif m.kind == "kw":
            out[m.text] = _TRUE
        elif m.kind in ("sym", "str"):
            out[":tag"] = m
    return out


def _truthy(form: Form | None) -> bool:
    return form is not None and not (form.kind == "sym" and form.text in ("false", "nil"))


def _hidden(meta: dict[str, Form]) -> bool:
    return _truthy(meta.get(":private")) or _truthy(meta.get(":no-doc"))


def _text_of(form: Form | None) -> str:
    """A metadata value as text: a string's value, else the form as written."""
    if form is None:
        return ""
    return string_value(form) if form.kind == "str" else shown(form)


def _quoted(form: Form) -> Form:
    """The form a quote holds: `'x` and `(quote x)` -> x."""
    if form.kind == "'" and form.items:
        return form.items[0]
    if form.kind == "(" and len(form.items) == 2 and form.items[0].text == "quote":
        return form.items[1]
    return form


def _arglists_meta(meta: dict[str, Form]) -> list[Form] | None:
    """The vectors of an `:arglists '([x] [x y])` in metadata; None when it has none."""
    value = meta.get(":arglists")
    if value is None:
        return None
    lists = _quoted(value)
    if lists.kind not in ("(", "["):
        return None
    return [x for x in lists.items if x.kind == "["]


def _arities(forms: list[Form]) -> list[Form]:
    """The params vectors of a fn's arities: `[x] body` or `([x] body) ([x y] body)`."""
    if forms and forms[0].kind == "[":
        return [forms[0]]
    return [x.items[0] for x in forms if x.kind == "(" and x.items and x.items[0].kind == "["]


# ----------------------------------------------------------------------------- vars
@dataclass
class _Var:
    name: str
    kind: str
    meta: dict[str, Form]
    arglists: list[Form] | None
    start: int
    dispatch: str = ""
    private: bool = False

    @property
    def doc(self) -> str:
        d = self.meta.get(":doc")
        return string_value(d).strip() if d is not None and d.kind == "str" else ""


_DEF_HEADS = frozenset(
    {
        "defn", "defn-", "defmacro", "defmulti", "def", "defonce", "defprotocol",
        "defrecord", "deftype", "definterface",
    }
)  # fmt: skip
_FN_HEADS = frozenset({"fn", "fn*"})
_CORE = ("clojure.core/", "cljs.core/")


def _head(form: Form) -> str:
    """The symbol a list opens with (`clojure.core/defn` read as `defn`); "" if none."""
    if form.kind != "(" or not form.items or form.items[0].kind != "sym":
        return ""
    name = form.items[0].text
    for core in _CORE:
        if name.startswith(core):
            return name[len(core) :]
    return name


def _take_doc(rest: list[Form], meta: dict[str, Form], need_more: bool) -> list[Form]:
    """`"doc"? attr-map?` after a name read into `meta` (the attr-map wins, as `defn`
    merges it last); the forms after them. `need_more`: a doc only when a form follows."""
    if rest and rest[0].kind == "str" and (len(rest) > 1 or not need_more):
        meta[":doc"] = rest[0]
        rest = rest[1:]
    if rest and rest[0].kind == "{" and (len(rest) > 1 or not need_more):
        meta.update(_pairs(rest[0]))
        rest = rest[1:]
    return rest


def _fn_value(value: Form | None) -> list[Form] | None:
    """The arities of a `(fn name? ...)` value; None when the value is no fn."""
    if value is None or _head(value) not in _FN_HEADS:
        return None
    rest = value.items[1:]
    if rest and rest[0].kind == "sym":
        rest = rest[1:]
    return _arities(rest)


def _without_env(arities: list[Form]) -> list[Form]:
    """A macro fn's params vectors without the `&form &env` the compiler passes."""
    out = []
    for v in arities:
        names = [x.text for x in v.items[:2]]
        out.append(Form("[", "[", v.start, v.items[2:]) if names == ["&form", "&env"] else v)
    return out


def _def_vars(form: Form, head: str) -> list[_Var]:
    """The vars a def form defines (a protocol's methods with it)."""
    items = form.items
    if len(items) < 2 or items[1].kind != "sym":
        return []
    name = items[1]
    meta = _meta(name)
    private = head == "defn-" or _hidden(meta)
    arglists: list[Form] | None = None
    kind = "var"
    dispatch = ""
    if head in ("defn", "defn-", "defmacro"):
        rest = _take_doc(items[2:], meta, need_more=False)
        arglists = _arities(rest)
        kind = "macro" if head == "defmacro" else "function"
    elif head == "defmulti":
        rest = _take_doc(items[2:], meta, need_more=True)
        kind = "multimethod"
        dispatch = shown(rest[0]) if rest else ""
    elif head in ("def", "defonce"):
        if len(items) == 4 and items[2].kind == "str":
            meta[":doc"] = items[2]
        fn = _fn_value(items[3] if len(items) == 4 else items[2] if len(items) == 3 else None)
        if fn is not None:
            kind, arglists = "function", fn
    elif head == "defprotocol":
        return _protocol(form, meta)
    elif head in ("defrecord", "deftype"):
        kind = head[3:] if head == "defrecord" else "type"
        arglists = [items[2]] if len(items) > 2 and items[2].kind == "[" else None
    else:  # definterface
        kind = "type"
    if _truthy(meta.get(":macro")):
        kind = "macro"
        arglists = _without_env(arglists) if arglists else arglists
    private = private or _hidden(meta)
    given = _arglists_meta(meta)
    if given is not None and kind == "var":  # `(def ^{:arglists ...} list (...))`: called
        kind = "function"
    arglists = given if given is not None else arglists
    return [_Var(name.text, kind, meta, arglists, form.start, dispatch, private)]


def _protocol(form: Form, meta: dict[str, Form]) -> list[_Var]:
    """A protocol and its methods `(method [this] [this x] "doc"?)`."""
    items = form.items
    rest = items[2:]
    if rest and rest[0].kind == "str":
        meta[":doc"] = rest[0]
        rest = rest[1:]
    private = _hidden(meta)
    out = [_Var(items[1].text, "protocol", meta, _arglists_meta(meta), form.start, "", private)]
    for sig in rest:
        if sig.kind != "(" or not sig.items or sig.items[0].kind != "sym":
            continue  # an option (`:extend-via-metadata true`)
        m_meta = _meta(sig.items[0])
        if sig.items[-1].kind == "str" and len(sig.items) > 1:
            m_meta[":doc"] = sig.items[-1]
        vectors = [x for x in sig.items[1:] if x.kind == "["]
        given = _arglists_meta(m_meta)
        hidden = private or _hidden(m_meta)
        arglists = given if given is not None else vectors
        out.append(_Var(sig.items[0].text, "function", m_meta, arglists, sig.start, "", hidden))
    return out


@dataclass
class _File:
    f: SourceFile
    text: str
    forms: list[Form]
    ns_name: str = ""
    ns_doc: dict[str, Form] = field(default_factory=dict)
    ns_start: int = 0
    hidden: bool = False  # the namespace is `^:no-doc`
    vars: list[tuple[str, _Var]] = field(default_factory=list)  # (namespace, var)
    macros: set[tuple[str, str]] = field(default_factory=set)  # made so by `setMacro`
    newlines: list[int] = field(default_factory=list)

    def line(self, at: int) -> int:
        return bisect_right(self.newlines, at - 1) + 1


def _read_file(f: SourceFile) -> _File:
    text = f.text.replace("\r\n", "\n")
    platform = ":cljs" if f.rel.name.lower().endswith(".cljs") else ":clj"
    g = _File(f, text, read_forms(text, platform))
    g.newlines = [m.start() for m in re.finditer("\n", text)]
    _walk(g, g.forms, [namespace_of(f.rel)])
    return g


def _walk(g: _File, forms: list[Form], ns: list[str]) -> None:
    """The top-level forms read in order; `ns` holds the current namespace's name."""
    for form in forms:
        head = _head(form)
        if not head:
            continue
        if head == "do":
            _walk(g, form.items[1:], ns)
        elif head == "when":
            _walk(g, form.items[2:], ns)
        elif head == "ns":
            _ns_form(g, form, ns)
        elif head == "in-ns" and len(form.items) > 1:
            named = _quoted(form.items[1])
            if named.kind == "sym":
                ns[0] = named.text
        elif head in _DEF_HEADS:
            g.vars += [(ns[0], v) for v in _def_vars(form, head)]
        elif head == "add-doc-and-meta":
            _added_doc(g, form, ns[0])
        elif head == ".":
            _set_macro(g, form, ns[0])


def _ns_form(g: _File, form: Form, ns: list[str]) -> None:
    items = form.items
    if len(items) < 2 or items[1].kind != "sym":
        return
    ns[0] = items[1].text
    meta = _meta(items[1])
    _take_doc(items[2:], meta, need_more=False)
    if not g.ns_name:
        g.ns_name, g.ns_doc, g.ns_start = ns[0], meta, form.start
    g.hidden = g.hidden or _truthy(meta.get(":no-doc"))


def _added_doc(g: _File, form: Form, ns: str) -> None:
    """clojure.core's `(add-doc-and-meta *out* "doc" {:added "1.0"})`."""
    items = form.items
    if len(items) >= 3 and items[1].kind == "sym" and items[2].kind == "str":
        meta = _pairs(items[3]) if len(items) > 3 and items[3].kind == "{" else {}
        meta[":doc"] = items[2]
        g.vars.append((ns, _Var(items[1].text, "var", meta, _arglists_meta(meta), form.start)))


def _set_macro(g: _File, form: Form, ns: str) -> None:
    """`(. (var defn) (setMacro))`: the var is a macro."""
    items = form.items
    if len(items) == 3 and _head(items[1]) == "var" and len(items[1].items) == 2:
        if _head(items[2]) == "setMacro":
            g.macros.add((ns, items[1].items[1].text))


# ----------------------------------------------------------------------------- text
_FENCE = re.compile(r"\s*(```+|~~~+)")
_INDENT = 4  # spaces past the paragraph that make a code block


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _dedent(lines: list[str]) -> list[str]:
    cut = min((_indent(x) for x in lines if x.strip()), default=0)
    return [x[cut:] for x in lines]


# a dynamic var's name in running text (`*out*`, `*print-length*`): a code span, or Markdown
# would read its stars as emphasis
_EARMUFFED = re.compile(r"(?<![`\w*])(\*[A-Za-z][\w.!?+<>=-]*\*)(?![`\w*])")


def markdown(doc: str) -> str:
    """A docstring as Markdown: its first line as is, the lines after it dedented
    together, a block indented 4 or more spaces past its paragraph, after a blank line
    or a line ending `:`, fenced as Clojure."""
    lines = doc.replace("\t", "    ").split("\n")
    lines = [lines[0].strip(), *(x.rstrip() for x in _dedent(lines[1:]))]
    out: list[str] = []
    held: list[str] = []  # a code block's lines
    para = 0  # the paragraph's indentation
    fence = ""

    def close() -> None:
        gap = bool(held) and not held[-1].strip()  # the blank line after it: kept
        while held and not held[-1].strip():
            held.pop()
        out.extend(["```clojure", *_dedent(held), "```", *([""] if gap else [])])
        held.clear()

    for line in lines:
        if fence:
            out.append(line)
            fence = "" if line.strip().startswith(fence) else fence
            continue
        if held:
            if not line.strip() or _indent(line) >= para + _INDENT:
                held.append(line)
                continue
            close()
        m = _FENCE.match(line)
        if m is not None:
            fence = m.group(1)
            out.append(line)
        elif (
            line.strip()
            and _indent(line) >= para + _INDENT
            and out
            and (not out[-1].strip() or out[-1].endswith(":"))
        ):  # as Markdown: no block inside a paragraph (a wrapped list item's lines)
            held.append(line)
        else:
            out.append(_EARMUFFED.sub(r"`\1`", line))
            para = _indent(line) if line.strip() else para
    if held:
        close()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def _signatures(name: str, arglists: list[Form] | None) -> list[str]:
    """`(name a b)` for each arglist; the bare name without any."""
    if not arglists:
        return [name]
    return [f"({' '.join([name, *(shown(x) for x in v.items)])})" for v in arglists]


def _notes(var: _Var) -> list[str]:
    out = []
    added = _text_of(var.meta.get(":added"))
    if added:
        out.append(f"Since: {added}")
    dep = var.meta.get(":deprecated")
    if _truthy(dep):
        said = _text_of(dep)
        out.append("Deprecated." if said == "true" else f"Deprecated: {said}")
    if var.dispatch and len(var.dispatch) < _MAX_DISPATCH:
        out.append(f"Dispatch: {var.dispatch}")
    return out


def _chosen(g: _File) -> list[tuple[str, _Var]]:
    """Each name's first definition with a docstring, public, in file order."""
    kept: dict[tuple[str, str], _Var] = {}
    for ns, var in g.vars:
        key = (ns, var.name)
        if key not in kept and var.doc:
            kept[key] = var
    return [(ns, v) for (ns, _), v in kept.items() if not v.private]


def _documents(g: _File, source: str) -> Iterator[Document]:
    if g.hidden:
        return
    said = g.ns_doc.get(":doc")
    doc = string_value(said).strip() if said is not None and said.kind == "str" else ""
    if g.ns_name and doc:
        ns_var = _Var(g.ns_name, "namespace", g.ns_doc, None, g.ns_start)
        text = "\n\n".join(x for x in [g.ns_name, markdown(doc), "\n".join(_notes(ns_var))] if x)
        yield _document(g, source, g.ns_name, text, "namespace", "", g.ns_start)
    for ns, var in _chosen(g):
        kind = "macro" if (ns, var.name) in g.macros else var.kind
        sigs = _signatures(var.name, var.arglists)
        body = [markdown(var.doc), "\n".join(_notes(var))]
        text = "\n\n".join(x for x in ["\n".join(sigs), *body] if x)
        signature = sigs[0] if var.arglists else ""
        yield _document(g, source, f"{ns}/{var.name}", text, kind, signature, var.start)


def _document(
    g: _File, source: str, qual: str, text: str, kind: str, signature: str, at: int
) -> Document:
    return api_document(
        source, URI_PREFIX, g.f, qual, text, kind, signature, g.line(at), language="clojure"
    )


def file_documents(f: ClojureFile, source: str) -> list[Document]:
    """The documents of one file (tests not told apart), in the order its vars stand."""
    return list(_documents(_read_file(f), source))
