"""Lua files read as their module's API, as LDoc and lua-language-server (LuaCATS
annotations) show it: one document per documented function, method, field, table and
class of a module, and one for the module itself when its file has a header doc.

A doc comment is a run of line comments on adjacent lines whose first line starts with
`---` (LDoc and LuaCATS: the lines after it `--` or `---`; a line of dashes alone is a
separator and dropped), or an LDoc block `--[[-- ... ]]`. It documents the declaration
that starts on the line right after it (a blank line between: it documents nothing,
unless it names its item itself with LDoc's `@function`, `@name`, `@field`, `@table`,
`@type`, or is a LuaCATS `---@class`). The header doc is the first doc with `@module`,
`@classmod`, `@submodule` or `@script` (an LDoc `@class module` with its `@name` too), else
the file's first doc when it documents no item (it stands alone, or over the module
table, a `require` or a `module(...)` call); Neovim's `@brief` block is one too.

The module's name: the header's `@module name` (`@classmod`, `@submodule`), else an old
`module("name", ...)` call, else the file's path: `lua/vim/lsp/util.lua` -> `vim.lsp.util`
(what stands above the last `lua/` folder dropped with it, and a leading `src/` or `lib/`,
and Lua version folders such as `5.4/`), `pl/tablex.lua` -> `pl.tablex`, an `init.lua`
names its folder (`luassert/init.lua` -> `luassert`). The module table is the local the
file returns (`local M = {}` ... `return M`, `return setmetatable(M, mt)`; a returned
constructor `return { ... }` too), an LDoc header's `@alias M`, else the first global table
the file assigns into; a global table named like the module's last part is it too, one
named like its first part (`vim` in `vim/lsp/util.lua`), and any in a LuaCATS `---@meta`
file, is named as is. Its functions `function M.foo(a, b)`, methods `function M:bar(x)`,
`M.baz = function(x) ... end`, nested tables' `M.sub.fn`, fields `M.limit = 10`, and the
entries of table constructors assigned to them, are its API; a local function or table is
private, unless the module table takes it (`M.name = local_fn`, `return { name = fn }`)
or its doc says `@export`; so is a name that starts with `_` (not a metamethod's:
`__eq`, `__tostring` are documented operators), unless a doc names it itself. Global
functions `function foo()` count under the module's name; another global table's
functions under its own (`function string.trim(s)`: `lua:string.trim`).

A table declared a class (`---@class Name` over it, LDoc's `@type Name`, or a local table
made a metatable: `T.__index = T`, `setmetatable(o, T)`) names its members through the
class: `lua:<module>.<Class>:<name>` (a LuaCATS class with a dotted name, `---@class
vim.lsp.Client`, by that name as is); the module table's own are the module's
(`lua:pl.List:append` in the `@classmod pl.List`). The uri is `lua:` and that qualified
name: `lua:pl.tablex.deepcompare`, a method's `lua:pl.List:append`.

The text opens with the signature as shown: `pl.tablex.deepcompare(t1, t2, ignore_mt,
eps)` for a function (the parameters as declared; a function named by its doc alone
takes its `@param` names), `pl.List:append(i)` for a method, `name = value` for a field
with a short value (`name` alone otherwise), the qualified name for a module, table or
class. The doc follows as Markdown: the description, then `:param name: (type) text`
lines (LDoc's `@param`, `@tparam` and its type aliases `@string`, `@int`, `@tab` ...,
`[opt]` and `[opt=x]`, and a tag LDoc does not know on a declared parameter: a project's
own alias, `@array2d t` is `(array2d)`; LuaCATS's `---@param name? type text`; a method's
`self` is not listed), one `:returns:` line (its
`@return`, `@treturn`, `---@return type name text` joined by "; "), `Raises: ...`, a class's
or table's `Fields:` list (`@field`, `@tfield`, `---@field name type text`; a `@table`
constructor's entries with a trailing comment), `@usage` and indented or `<pre>` examples
as ```` ```lua ```` blocks, `See also: x`, `Deprecated.`, `Since: x`. LDoc's `@{name}`
becomes a code span (`@{ref|label}` its label); HTML tags such as `<code>`, `<br>`,
`<a href>` and entities are read. `@local`, `---@private`, `---@package`,
`---@protected` and `@nodoc` items give no document; `@section` docs document nothing;
`@within`, `---@diagnostic`, `---@alias`, `---@overload`, `---@generic`, `---@cast`,
`---@meta` and a lone `---@type` are dropped.

The files are scanned, never run: comments (`--` to the line's end, long comments
`--[[ ]]`, `--[==[ ]==]`) and strings (`'...'`, `"..."` with their escapes, long strings
`[[...]]`, `[==[...]==]`) are told apart from code, and `function`/`do`/`if`/`repeat`
blocks matched with their `end`/`until`, so nothing inside a function's body is API.
Tests (under `spec/`, `test/`, `tests/`; `*_spec.lua`, `*_test.lua`, `test_*.lua`) give no
document and are counted, and so is a file with nothing documented.
"""

from __future__ import annotations

import html
import re
import textwrap
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.codescan import blank
from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

SUFFIXES = (".lua",)
URI_PREFIX = "lua:"
# reasons a Lua file gave no document, as the collect stage counts them
LUA_TEST = "lua_test"
LUA_NO_API = "lua_no_api"
_AS_TEXT = (
    "Lua files read as their module's API (the LDoc and LuaCATS doc comments of its "
    "functions, methods, fields, tables and classes): tests and files with nothing "
    "documented give none; the source's lua: text reads them as text"
)
FIXES = {LUA_TEST: _AS_TEXT, LUA_NO_API: _AS_TEXT}
_TEST_FOLDERS = frozenset({"spec", "test", "tests"})
_TEST_NAME = re.compile(r"(?:_spec|_test)\.lua$|^test_.*\.lua$", re.I)
_VERSION_FOLDER = re.compile(r"\d+\.\d+")
_MAX_VALUE = 80  # characters of a field's value shown

LuaFile = SourceFile  # its files, as the source hands them over


def is_lua(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return bool(_TEST_FOLDERS & set(rel.parts[:-1])) or bool(_TEST_NAME.search(rel.name))


def api_documents(
    files: list[LuaFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the documented API the files' modules define, sorted by uri; a file
    that gives none is counted in `rejects`. `top`, the source's folder name, is the
    package the files' paths are in when the source is that package's folder (Lua files at
    its root, none under a `lua/` folder: `luassert/util.lua` read from `luassert/`)."""
    inside = any(len(f.rel.parts) == 1 for f in files)
    if top and _PACKAGE.fullmatch(top) and inside and not any("lua" in f.rel.parts for f in files):
        files = [SourceFile(PurePosixPath(top) / f.rel, f.where, f.text, f.meta) for f in files]

    def read(f: LuaFile) -> list[Document] | str:
        if is_test(f.rel):
            return LUA_TEST
        return list(file_documents(f, source))

    return first_documents(files, rejects, read, LUA_NO_API)


# a folder name that is a package's (`luassert`), not a layout's (`src`, `lua`, `5.4`)
_PACKAGE = re.compile(
    r"(?!(?:src|lib|lua|share|doc|docs|scripts|plugin|test|tests|spec)$)[A-Za-z_]\w*"
)


def module_name(rel: PurePosixPath) -> str:
    """The name `require` finds a file by: `lua/vim/lsp/util.lua` -> `vim.lsp.util`,
    `luassert/init.lua` -> `luassert`, `share/lua/5.4/pl/tablex.lua` -> `pl.tablex`."""
    parts = list(rel.parts)
    if not parts:
        return "init"
    stem = parts[-1][:-4] if parts[-1].lower().endswith(".lua") else parts[-1]
    folders = parts[:-1]
    if "lua" in folders:
        folders = folders[len(folders) - folders[::-1].index("lua") :]
    elif folders and folders[0] in ("src", "lib"):
        folders = folders[1:]
    folders = [p for p in folders if not _VERSION_FOLDER.fullmatch(p)]
    names = folders if stem == "init" and folders else [*folders, stem]
    return ".".join(names)


# ----------------------------------------------------------------------------- scanning
@dataclass
class _LineComment:
    start: int
    end: int
    line: int
    dashes: int
    body: str  # after the dashes
    alone: bool  # nothing but indentation before it on its line


@dataclass
class _Doc:
    """A doc comment: where it stands, and its lines without their dashes, each with how
    it was written (0: LDoc's `--` or a block's line, 1: `--- @tag`, 2: `---@tag`)."""

    start: int
    end: int
    lines: list[tuple[str, int]]


_LEXEME = re.compile(r"--|[\"']|\[=*\[")
_LONG_OPEN = re.compile(r"\[(=*)\[")


class _Scanner:
    """Lua source with its comments blanked (`bare`), and with its strings' contents too
    (`code`): same length, line breaks kept, a string's quotes or brackets kept."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.code = list(text)
        self.bare = list(text)
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.comments: list[_LineComment] = []
        self.blocks: list[_Doc] = []

    def line(self, i: int) -> int:
        return bisect_left(self.newlines, i)

    def run(self) -> None:
        text = self.text
        i = 0
        while i < self.n:
            m = _LEXEME.search(text, i)
            if m is None:
                break
            i = m.start()
            tok = m.group()
            if tok == "--":
                i = self._comment(i)
            elif tok in ("'", '"'):
                i = self._string(i, tok)
            else:
                i = self._long_string(i, len(tok) - 2)

    def _long_end(self, inner: int, level: int) -> tuple[int, int]:
        """(where a long bracket's contents end, past its close)."""
        close = "]" + "=" * level + "]"
        k = self.text.find(close, inner)
        return (self.n, self.n) if k < 0 else (k, k + len(close))

    def _comment(self, i: int) -> int:
        text = self.text
        m = _LONG_OPEN.match(text, i + 2)
        if m is not None:
            stop, end = self._long_end(m.end(), len(m.group(1)))
            body = text[m.end() : stop]
            lines = _block_lines(body) if body.startswith("--") else []
            if lines:  # LDoc's --[[-- ... ]]
                self.blocks.append(_Doc(i, end, lines))
            blank(self.code, i, end)
            blank(self.bare, i, end)
            return end
        end = text.find("\n", i)
        end = self.n if end < 0 else end
        k = i
        while k < end and text[k] == "-":
            k += 1
        start = text.rfind("\n", 0, i) + 1
        alone = not text[start:i].strip()
        self.comments.append(_LineComment(i, end, self.line(i), k - i, text[k:end], alone))
        blank(self.code, i, end)
        blank(self.bare, i, end)
        return end

    def _string(self, i: int, quote: str) -> int:
        text, n = self.text, self.n
        j = i + 1
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
            elif c == quote:
                blank(self.code, i + 1, j)
                return j + 1
            elif c == "\n":
                break
            else:
                j += 1
        end = min(j, n)
        blank(self.code, i + 1, end)
        return end

    def _long_string(self, i: int, level: int) -> int:
        inner = i + level + 2
        stop, end = self._long_end(inner, level)
        blank(self.code, inner, stop)
        return end


def _block_lines(body: str) -> list[tuple[str, int]]:
    """The lines of an LDoc block doc's text (after its `--[[`): its leading dashes off
    the first, the others dedented together."""
    body = body.rstrip().rstrip("-")  # `--]]`
    lines = body.split("\n")
    first = lines[0].lstrip("-").strip()
    rest = textwrap.dedent("\n".join(lines[1:])).split("\n") if len(lines) > 1 else []
    out = [first, *(x.rstrip() for x in rest)]
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return [(x, 0) for x in out]


def _line_doc(run: list[_LineComment]) -> _Doc | None:
    """A run of line comments as a doc: separators (dashes alone) dropped, each line's one
    space after the dashes off, the lines after the first dedented together."""
    lines: list[tuple[str, int]] = []
    for c in run:
        body = c.body.rstrip()
        if c.dashes >= 4 and not body.strip():
            continue
        text = body[1:] if body.startswith(" ") else body
        style = 0 if c.dashes < 3 else (2 if body.startswith("@") else 1)
        lines.append((text, style))
    if not any(t.strip() for t, _ in lines):
        return None
    rest = [t for t, _ in lines[1:] if t.strip()]
    cut = min((len(t) - len(t.lstrip()) for t in rest), default=0)
    lines = [lines[0]] + [(t[cut:], s) for t, s in lines[1:]]
    return _Doc(run[0].start, run[-1].end, lines)


def _docs(s: _Scanner) -> list[_Doc]:
    """The doc comments: runs of line comments alone on adjacent lines, opened by a
    `---` line (plain `--` lines before it in the run are not the doc's), and the block
    docs."""
    docs = list(s.blocks)
    run: list[_LineComment] = []
    is_doc = False
    for c in s.comments:
        if not c.alone:
            continue
        opens = c.dashes >= 3
        if run and c.line == run[-1].line + 1 and (is_doc or not opens):
            run.append(c)
            continue
        if is_doc and run:
            d = _line_doc(run)
            if d is not None:
                docs.append(d)
        run, is_doc = [c], opens
    if is_doc and run:
        d = _line_doc(run)
        if d is not None:
            docs.append(d)
    return sorted(docs, key=lambda d: d.start)


def scan(text: str) -> tuple[str, list[str]]:
    """(the code with comments and strings' contents blanked; the doc comments' texts)."""
    s = _Scanner(text)
    s.run()
    return "".join(s.code), ["\n".join(t for t, _ in d.lines) for d in _docs(s)]


_BLOCK_WORD = re.compile(r"\b(function|if|do|repeat|end|until)\b")


def _function_spans(code: str) -> list[tuple[int, int]]:
    """Where each function (from its `function` to past its `end`) stands."""
    stack: list[tuple[str, int]] = []
    spans: list[tuple[int, int]] = []
    for m in _BLOCK_WORD.finditer(code):
        word = m.group(1)
        if word in ("end", "until"):
            if stack:
                kind, at = stack.pop()
                if kind == "function":
                    spans.append((at, m.end()))
        else:
            stack.append((word, m.start()))
    spans += [(at, len(code)) for kind, at in stack if kind == "function"]
    return sorted(spans)


def _outermost(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans no other contains, in order (functions nest: the outer holds the inner)."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if not out or a >= out[-1][1]:
            out.append((a, b))
    return out


def _brackets(code: str) -> dict[int, int]:
    """Each bracket's position -> past the one that closes it (unclosed: the code's end)."""
    match: dict[int, int] = {}
    stack: list[int] = []
    pairs = {")": "(", "]": "[", "}": "{"}
    for m in re.finditer(r"[(){}\[\]]", code):
        c = m.group()
        if c in "([{":
            stack.append(m.start())
        elif stack and code[stack[-1]] == pairs[c]:
            match[stack.pop()] = m.end()
    for k in stack:
        match[k] = len(code)
    return match


# ----------------------------------------------------------------------------- doc tags
_TAG = re.compile(r"@([A-Za-z_]\w*)(?:\[([^\]\n]*)\])?(?=\s|$)[ \t]*(.*)$")
# a parameter's type said by the tag: LDoc's aliases of `@tparam <type>`
_TYPE_TAGS = {
    "string": "string",
    "number": "number",
    "int": "int",
    "bool": "boolean",
    "func": "function",
    "tab": "table",
    "thread": "thread",
    "array": "array",
    "userdata": "userdata",
}
_PARAM_TAGS = frozenset({"param", "tparam", "vararg", *_TYPE_TAGS})
_RETURN_TAGS = frozenset({"return", "treturn", "ret", "returns"})
_HIDDEN_TAGS = frozenset({"local", "private", "package", "protected", "nodoc"})
_DROPPED_TAGS = frozenset(
    {
        "within", "author", "copyright", "license", "release", "set", "pragma", "static",
        "fixme", "todo", "include", "lookup", "anchor", "alias", "as", "async", "cast",
        "diagnostic", "generic", "meta", "nodiscard", "operator", "overload", "public",
        "source", "version", "inlinedoc", "export", "constructor", "summary", "lfunction",
    }
)  # fmt: skip
_KNOWN_TAGS = frozenset(
    {
        *_PARAM_TAGS, *_RETURN_TAGS, *_HIDDEN_TAGS, *_DROPPED_TAGS, "raise", "raises",
        "error", "usage", "example", "see", "deprecated", "section", "module", "classmod",
        "submodule", "script", "file", "topic", "function", "name", "class", "type",
        "table", "field", "tfield", "enum", "since", "note", "warning", "brief",
    }
)  # fmt: skip
_KIND_WORDS = frozenset({"function", "field", "table", "module", "script", "lfunction"})
_BUILTIN_TYPES = frozenset(
    {
        "string", "number", "integer", "boolean", "table", "function", "nil", "any",
        "userdata", "thread", "unknown", "self", "lightuserdata", "int", "bool", "float",
    }
)  # fmt: skip


@dataclass
class _Tag:
    name: str
    mods: str  # what its `[...]` says: `opt`, `opt=5`, `type=string`
    lines: list[str]  # the text on its line, then its continuation lines
    style: int  # as its line was written: 0 `-- @tag`, 1 `--- @tag`, 2 `---@tag`

    @property
    def first(self) -> str:
        return self.lines[0].strip()

    @property
    def text(self) -> str:
        return _tag_text(self.lines)


@dataclass
class _Parsed:
    description: list[str] = field(default_factory=list)
    tags: list[_Tag] = field(default_factory=list)

    def get(self, *names: str) -> _Tag | None:
        return next((t for t in self.tags if t.name in names), None)

    def all(self, *names: str) -> list[_Tag]:
        return [t for t in self.tags if t.name in names]

    def has(self, *names: str) -> bool:
        return self.get(*names) is not None

    def value(self, *names: str) -> str:
        """The first word of the first of these tags; "" when none has one."""
        t = self.get(*names)
        return t.first.split()[0] if t is not None and t.first.split() else ""


def _parse(doc: _Doc) -> _Parsed:
    """A doc's lines read: its description, and its tags, each with its continuation
    lines (a tag's text runs to the next tag or a blank line; `@usage`'s to the next tag)."""
    out = _Parsed()
    cur: _Tag | None = None
    for text, style in doc.lines:
        m = _TAG.match(text.strip())
        if m is not None and (
            m.group(1) in _KNOWN_TAGS or cur is None or cur.name not in ("usage", "example")
        ):  # an unknown tag: a project's own alias of `@tparam` (`@array2d t ...`), or none
            cur = _Tag(m.group(1), m.group(2) or "", [m.group(3)], style)
            out.tags.append(cur)
            continue
        if cur is not None and (text.strip() or cur.name in ("usage", "example", "brief")):
            cur.lines.append(text)
            continue
        cur = None
        out.description.append(text)
    for t in out.tags:
        while len(t.lines) > 1 and not t.lines[-1].strip():
            t.lines.pop()
    return out


def _tag_text(lines: list[str]) -> str:
    """A tag's text on one line; its lines kept (the later ones indented) where they are
    a list."""
    first, more = lines[0].strip(), lines[1:]
    if any(_LIST_ITEM.match(x) for x in more):
        shown = textwrap.indent(textwrap.dedent("\n".join(more)), "  ")
        return _inline(first) + "\n" + "\n".join(_inline(x) for x in shown.split("\n"))
    return " ".join(" ".join(_inline(x) for x in [first, *more]).split())


def _read_type(s: str) -> tuple[str, str]:
    """(the type a tag's text opens with, the text after it): brackets, quotes, `a | b`
    and a function type's `): result` read through."""
    s = s.strip()
    n = len(s)
    i = 0
    depth = 0
    while i < n:
        c = s[i]
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth = max(0, depth - 1)
        elif c in "\"'`":
            k = s.find(c, i + 1)
            i = n if k < 0 else k + 1
            continue
        elif c.isspace() and depth == 0:
            j = i
            while j < n and s[j].isspace():
                j += 1
            if s[i - 1] == "|" or (s[i - 1] == ":" and i >= 2 and s[i - 2] == ")"):
                i = j
                continue
            if s[j : j + 1] == "|":
                i = j + 1
                while i < n and s[i].isspace():
                    i += 1
                continue
            break
        i += 1
    return s[:i], s[i:].strip()


def _typelike(t: str, strict: bool) -> bool:
    """Whether a LuaCATS tag's word is a type (`---@param x integer` written with a space,
    `--- @param x the x`, may be LDoc's name and text)."""
    if not t or t.startswith("#"):
        return False
    if strict:
        return True
    base = t.rstrip("?")
    base = base[:-2] if base.endswith("[]") else base
    if base in _BUILTIN_TYPES:
        return True
    if re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+", base):
        return True  # a dotted class: vim.lsp.Client
    return t.startswith("fun(") or re.search(r"[|<>\[\]{}\"']", t) is not None


def _split_word(s: str) -> tuple[str, str]:
    parts = s.strip().split(None, 1)
    if not parts:
        return "", ""
    return parts[0], parts[1] if len(parts) > 1 else ""


_MOD = re.compile(r"""(?:[^,'"]|'[^']*'?|"[^"]*"?)+""")  # `[opt=',']`: one modifier
_PARAM_NAME = re.compile(r"[A-Za-z_][\w.]*\??|\.\.\.")


def _param_line(t: _Tag) -> str:
    """`:param name: (type) text` of a parameter's tag; "" when it names none."""
    mods = [m.group().strip() for m in _MOD.finditer(t.mods) if m.group().strip()]
    optional = any(m == "opt" or m.startswith("opt=") or m == "optchain" for m in mods)
    default = next((m[4:] for m in mods if m.startswith("opt=")), "")
    typ = next((m[5:] for m in mods if m.startswith("type=")), "")
    text = "\n".join(t.lines)
    if t.name == "tparam":
        typ, text = _read_type(text)
    elif t.name in _TYPE_TAGS:
        typ = _TYPE_TAGS[t.name]
    if t.name == "vararg":  # LuaCATS `---@vararg type`
        name, (typ, desc) = "...", _read_type(text)
    else:
        name, desc = _split_word(text)
    if t.style and t.name == "param":  # LuaCATS: name, type, text
        ty, after = _read_type(desc)
        if _typelike(ty, t.style == 2):
            typ, desc = ty, after
    name = name if name == "..." else name.rstrip(".,:")
    if not _PARAM_NAME.fullmatch(name):
        return ""
    if re.fullmatch(r"\([^()]*\)", typ):  # Neovim's `@param s (string) text`: its own parens
        typ = typ[1:-1]
    if name.endswith("?"):
        name, optional = name[:-1], True
    desc = _tag_text(re.sub(r"^#\s*", "", desc).split("\n")) if desc.strip() else ""
    if default:
        desc = f"{desc} Defaults to `{default}`.".strip()
    said = ", ".join(x for x in (typ, "optional" if optional else "") if x)
    head = f":param {name}: ({said})" if said else f":param {name}:"
    return f"{head}{desc}" if desc.startswith("\n") else f"{head} {desc}".rstrip()


def _return_text(t: _Tag) -> str:
    """What a return tag says: `name (type): text`, `(type) text`, or the text."""
    text = "\n".join(t.lines).strip()
    typ, name = "", ""
    if t.name == "treturn":
        typ, text = _read_type(text)
    elif t.style:  # LuaCATS: `---@return type [name] [# text]`
        ty, after = _read_type(text)
        if _typelike(ty, t.style == 2):
            typ, text = ty, after
            while typ.endswith(",") and text:  # `---@return string, integer`
                more, text = _read_type(text)
                typ = f"{typ} {more}"
            m = re.match(r"([A-Za-z_]\w*|\.\.\.)\s*(?:#\s*(.*))?$", text, re.S)
            if m is not None:
                name, text = m.group(1), m.group(2) or ""
    text = re.sub(r"^#\s*", "", text)
    desc = _tag_text(text.split("\n")) if text.strip() else ""
    typ = typ.rstrip(",")
    if name:
        return f"{name} ({typ}): {desc}".rstrip(": ") if typ else f"{name}: {desc}".rstrip(": ")
    if typ:
        return f"({typ}) {desc}" if desc else typ
    return desc


def _field_line(t: _Tag, typed: bool = False) -> str:
    """`- name (type): text` of a field's tag; "" for a private or index field."""
    text = "\n".join(t.lines)
    typ = ""
    if t.name == "tfield":
        typ, text = _read_type(text)
        name, desc = _split_word(text)
    elif t.style or typed:  # LuaCATS: `---@field [scope] name[?] type [# text]`
        m = re.match(r"\s*(?:(public|private|protected|package)\s+)?(\S+)\s*(.*)$", text, re.S)
        if m is None or m.group(1) in ("private", "protected", "package"):
            return ""
        name, (typ, desc) = m.group(2), _read_type(m.group(3))
        if not _typelike(typ, t.style == 2):
            typ, desc = "", m.group(3)
    else:
        name, desc = _split_word(text)
    if not name or name.startswith("["):
        return ""
    optional = name.endswith("?")
    name = name.rstrip("?")
    said = ", ".join(x for x in (typ, "optional" if optional else "") if x)
    desc = _tag_text(re.sub(r"^#\s*", "", desc).split("\n")) if desc.strip() else ""
    head = f"- {name} ({said})" if said else f"- {name}"
    return f"{head}: {desc}" if desc else head


# ----------------------------------------------------------------------------- markup
_LDOC_REF = re.compile(r"@\{([^}|\n]*)(?:\|([^}\n]*))?\}")
_HTML_CODE = re.compile(r"<(code|tt)>(.*?)</\1>", re.I)
_HTML_LINK = re.compile(r"<a\s[^>]*>(.*?)</a>", re.I)
_HTML_BOLD = re.compile(r"<(b|strong)>(.*?)</\1>", re.I)
_HTML_EM = re.compile(r"<(i|em)>(.*?)</\1>", re.I)
_HTML_DROP = re.compile(r"</?(?:br|p|ul|ol|div|span|li|pre|code|tt|a|b|i|em|strong)\b[^>]*>", re.I)
_HTML_ITEM = re.compile(r"^(\s*)<li>\s*", re.I)
_FENCE = re.compile(r"(```+|~~~+)\s*([\w+-]*)")
_PRE = re.compile(r"<pre\b[^>]*>", re.I)
_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")


def _inline(line: str) -> str:
    """A line's LDoc and HTML markup as Markdown: `@{ref}` a code span (`@{ref|label}`
    its label), `<code>`, `<a>`, `<b>`, `<i>` and list items read, other tags dropped,
    entities read; code spans kept as written."""
    line = _LDOC_REF.sub(lambda m: m.group(2).strip() if m.group(2) else f"`{m.group(1)}`", line)
    parts = re.split(r"(`[^`\n]*`)", line)
    for k in range(0, len(parts), 2):
        p = parts[k]
        if "<" in p or "&" in p:
            p = _HTML_CODE.sub(lambda m: f"`{html.unescape(m.group(2))}`", p)
            p = _HTML_LINK.sub(r"\1", p)
            p = _HTML_BOLD.sub(r"**\2**", p)
            p = _HTML_EM.sub(r"*\2*", p)
            p = _HTML_ITEM.sub(r"\1- ", p)
            p = html.unescape(_HTML_DROP.sub("", p))
        parts[k] = p
    return "".join(parts)


def _markdown(lines: list[str]) -> str:
    """A doc's description as Markdown: fences kept (a bare one made Lua's), an indented
    block after a blank line and a `<pre>` block fenced as ```` ```lua ````."""
    out: list[str] = []
    fence = ""  # the open fence's marker, "pre" or "indent"
    held: list[str] = []  # an indented block's lines

    def close_indent() -> None:
        while held and not held[-1].strip():
            held.pop()
        out.extend(["```lua", *textwrap.dedent("\n".join(held)).split("\n"), "```"])
        held.clear()

    for line in lines:
        s = line.strip()
        if fence == "indent":
            if not s or len(line) - len(line.lstrip()) >= 3:
                held.append(line)
                continue
            close_indent()
            out.append("")
            fence = ""
        if fence == "pre":
            before, sep, _ = line.partition("</pre>")
            if before.strip() or not sep:
                out.append(html.unescape(before))
            if sep:
                out.append("```")
                fence = ""
            continue
        if fence:
            out.append(line)
            if s.startswith(fence):
                fence = ""
            continue
        m = _FENCE.match(s)
        if m is not None:
            fence = m.group(1)
            out.append(m.group(1) + (m.group(2) or "lua"))
            continue
        pre = _PRE.match(s)
        if pre is not None:
            rest = s[pre.end() :]
            if "</pre>" in rest:
                out.append(f"`{html.unescape(rest.split('</pre>')[0].strip())}`")
                continue
            out.append("```lua")
            if rest.strip():
                out.append(html.unescape(rest))
            fence = "pre"
            continue
        if (
            len(line) - len(line.lstrip()) >= 3
            and not _LIST_ITEM.match(line)
            and (not out or not out[-1].strip())
        ):  # `--    code`: four spaces after the dashes
            fence = "indent"
            held.append(line)
            continue
        out.append(_inline(line).rstrip())
    if fence == "indent":
        close_indent()
    elif fence:
        out.append("```" if fence == "pre" else fence)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def _usage(t: _Tag) -> str:
    lines = [x for x in t.lines if not _FENCE.fullmatch(x.strip())]
    if lines and not lines[0].strip():
        lines = lines[1:]
    first = lines[:1]
    code = "\n".join(first + textwrap.dedent("\n".join(lines[1:])).split("\n")[: len(lines) - 1])
    code = code.strip("\n")
    return f"```lua\n{code}\n```" if code.strip() else ""


def _body(
    p: _Parsed,
    fields: list[str] | None = None,
    params: bool = True,
    extra: str = "",
    declared: list[str] | None = None,
) -> str:
    """The doc after an item's signature line: description (and `extra`: a class's
    parents, a field's type), deprecation, parameters and returns, raises, fields,
    examples, see-also. A tag LDoc does not know, on a parameter the function `declared`,
    is a project's alias of `@tparam`: its name the type."""
    parts = [_markdown(p.description), extra]
    for t in p.all("note", "warning"):
        parts.append(f"{t.name.capitalize()}: {t.text}")
    brief = p.all("brief")
    if brief:
        parts.append(_markdown([x for t in brief for x in t.lines]))
    dep = p.get("deprecated")
    if dep is not None:
        parts.append(f"Deprecated. {dep.text}".strip())
    lines: list[str] = []
    if params:
        aliased = [
            _Tag("tparam", t.mods, [f"{t.name} {t.lines[0]}", *t.lines[1:]], 0)
            if t.name not in _KNOWN_TAGS
            else t
            for t in p.tags
            if t.name in _PARAM_TAGS
            or t.name not in _KNOWN_TAGS
            and t.first.split()[:1] in [[x] for x in declared or []]
        ]
        lines = [x for x in (_param_line(t) for t in aliased) if x]
        said = [x for x in (_return_text(t) for t in p.all(*_RETURN_TAGS)) if x]
        if said:
            lines.append(":returns: " + "; ".join(said))
    parts.append("\n".join(lines))
    raises = [t.text for t in p.all("raise", "raises", "error") if t.text]
    if raises:
        parts.append("Raises: " + "; ".join(raises))
    if fields:
        parts.append("Fields:\n" + "\n".join(fields))
    parts += [_usage(t) for t in p.all("usage", "example")]
    see = [t.text for t in p.all("see") if t.text]
    if see:
        parts.append("See also: " + ", ".join(see))
    since = p.value("since")
    if since:
        parts.append(f"Since: {since}")
    return "\n\n".join(x for x in parts if x)


# ----------------------------------------------------------------------------- reading
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_NAME_RE = re.compile(_NAME)
_LOCAL_FUNCTION = re.compile(rf"local\s+function\s+({_NAME})\s*\(")
_LOCAL = re.compile(rf"local\s+({_NAME}(?:\s*<\s*\w+\s*>)?(?:\s*,\s*{_NAME}(?:\s*<\s*\w+\s*>)?)*)")
_FUNCTION = re.compile(rf"function\s+({_NAME}(?:\s*\.\s*{_NAME})*)(?:\s*:\s*({_NAME}))?\s*\(")
_FUNCTION_VALUE = re.compile(r"function\s*\(")
_STRING_KEY = re.compile(r"\[\s*([\"'])([^\"'\n]*)\1\s*\]")
_NONSPACE = re.compile(r"\S")
_TOP_LOCAL = re.compile(
    rf"\blocal\s+(?:function\s+({_NAME})|({_NAME}(?:\s*<\s*\w+\s*>)?(?:\s*,\s*{_NAME}(?:\s*<\s*\w+\s*>)?)*))"
)
_RETURN = re.compile(
    rf"\breturn\s*(?:setmetatable\s*\(\s*)?(?:({_NAME})\b(?!\s*[.:(\[{{\"'])|(\{{))"
)
_MODULE_CALL = re.compile(r"\bmodule\s*\(\s*(?:([\"'])([\w.]+)\1|\.\.\.)")
_GLOBAL_ROOT = re.compile(
    rf"^[ \t]*(?:function\s+({_NAME})\s*[.:]|({_NAME})\s*\.\s*{_NAME}[\w. \t]*=(?!=))", re.M
)
_TAKEN = re.compile(rf"^[ \t]*({_NAME}(?:\s*\.\s*{_NAME})+)\s*=\s*({_NAME})\s*;?[ \t]*$", re.M)
_METATABLE = re.compile(
    rf"\b({_NAME})\s*\.\s*__index\s*=\s*\1\b|\bsetmetatable\s*\([^,()]*,\s*({_NAME})\s*\)"
)
_RETURN_WORD = re.compile(r"return\b")
_DOT_NAME = re.compile(rf"\s*({_NAME})")
_ENTRY_KEY = re.compile(rf"({_NAME})\s*=(?!=)")
_STDLIB = frozenset(
    {"_G", "string", "table", "math", "io", "os", "coroutine", "debug", "package", "utf8", "bit"}
)
_OPERATOR_END = re.compile(r"(?:\.\.|[-+*/%^<>=~,]|\band|\bor|\bnot)$")


@dataclass
class _Item:
    qual: str
    kind: str
    head: str
    signature: str
    body: str
    at: int


@dataclass
class _Decl:
    """What the code a doc stands over declares: its kind (`function`, `local function`,
    `local`, `assign`, `entry`, `return`, `other`), its target's path (a method's last
    part after `:`), its parameters, its value's span."""

    kind: str
    path: list[str] = field(default_factory=list)
    method: str = ""
    params: list[str] | None = None
    value: tuple[int, int] | None = None
    at: int = 0


class _File:
    def __init__(self, f: LuaFile, source: str) -> None:
        self.f = f
        self.source = source
        text = f.text.replace("\r\n", "\n")
        s = _Scanner(text)
        s.run()
        self.text = text
        self.code = "".join(s.code)
        self.bare = "".join(s.bare)
        self.newlines = s.newlines
        self.docs = _docs(s)
        self.parsed = [_parse(d) for d in self.docs]
        self.trailing = {c.line: c.body.strip() for c in s.comments if not c.alone}
        self.spans = _outermost(_function_spans(self.code))
        self.span_starts = [a for a, _ in self.spans]
        self.match = _brackets(self.code)
        self.braces = self._enclosing()
        self.module = ""
        self.module_tables: set[str] = set()
        self.returned_brace = -1  # a returned constructor's `{`
        self.has_module_table = False
        self.locals: set[str] = set()
        self.local_functions: dict[str, list[str]] = {}
        self.exports: dict[str, str] = {}
        self.classes: dict[str, str] = {}  # a table's name -> its class's qualified name
        self.global_roots: list[str] = []
        self.meta = False
        self.header = -1  # the header doc's index
        self.items: list[_Item] = []

    # ------------------------------------------------------------------ positions
    def line(self, at: int) -> int:
        return bisect_right(self.newlines, at - 1) + 1

    def in_function(self, at: int) -> bool:
        k = bisect_left(self.span_starts, at) - 1
        return k >= 0 and at < self.spans[k][1]

    def _enclosing(self) -> dict[int, int]:
        """Each doc's end and each `{` -> the `{` it stands in (-1: none)."""
        points = sorted({d.end for d in self.docs})
        out: dict[int, int] = {}
        stack: list[int] = []
        k = 0
        for m in re.finditer(r"[{}]", self.code):
            while k < len(points) and points[k] < m.start():
                out[points[k]] = stack[-1] if stack else -1
                k += 1
            if m.group() == "{":
                out[m.start()] = stack[-1] if stack else -1
                stack.append(m.start())
            elif stack:
                stack.pop()
        for p in points[k:]:
            out[p] = stack[-1] if stack else -1
        return out

    def attached(self, d: _Doc) -> int:
        """Where the code a doc stands right over starts; -1 when a blank line (or
        nothing) follows it."""
        k = self.code.find("\n", d.end)  # the code may start on this line or the next
        k = -1 if k < 0 else self.code.find("\n", k + 1)
        m = _NONSPACE.search(self.code, d.end, len(self.code) if k < 0 else k)
        return -1 if m is None else m.start()

    def flat(self, a: int, b: int) -> str:
        return " ".join(self.bare[a:b].split())

    def params(self, paren: int) -> list[str]:
        close = self.match.get(paren, len(self.code))
        inner = self.code[paren + 1 : max(paren + 1, close - 1)]
        return [" ".join(p.split()) for p in inner.split(",") if p.strip()]

    # ------------------------------------------------------------------ names
    def root(self, name: str) -> str | None:
        """What a table named `name` stands for: the module, a class, a table the module
        takes; None for a private local."""
        if name in self.module_tables:
            return self.module
        if name in self.classes:
            return self.classes[name]
        if name in self.exports:
            return self.exports[name]
        if name in self.locals:
            return None
        mod = self.module.split(".")
        if name == mod[-1]:
            return self.module
        if name == mod[0] or self.meta:
            return name
        if not self.has_module_table and self.global_roots[:1] == [name]:
            return self.module
        return name

    def qual(self, path: list[str], method: str = "") -> str | None:
        """The qualified name of an assignment's or a function's target; None when it is
        private (a local's, a name that starts with `_`)."""
        if not path:
            return None
        if any(_private(p) for p in [*path[1:], method] if p):
            return None
        if len(path) == 1 and not method:
            name = path[0]
            if name in self.locals:
                return self.exports.get(name)
            return None if _private(name) else f"{self.module}.{name}"
        base = self.root(path[0])
        if base is None:
            return None
        q = base + "".join(f".{p}" for p in path[1:])
        return f"{q}:{method}" if method else q

    def named(self, name: str) -> str:
        """The qualified name a doc's own `@function`, `@name`, `@table`, `@type` says:
        relative to the module unless it names the module or a known table."""
        name = name.strip()
        if name == self.module or name.startswith((f"{self.module}.", f"{self.module}:")):
            return name
        path_text, _, method = name.partition(":")
        path = [p for p in path_text.split(".") if p]
        if not path:
            return self.module
        base = None
        head = path[0]
        if head in self.module_tables or head == self.module.split(".")[-1]:
            base = self.module
        elif head in self.classes:
            base = self.classes[head]
        elif head in self.exports:
            base = self.exports[head]
        q = (base or f"{self.module}.{head}") + "".join(f".{p}" for p in path[1:])
        return f"{q}:{method}" if method else q

    def class_qual(self, name: str) -> str:
        """A LuaCATS class's qualified name: a dotted one as is, one named like the
        module's last part the module's, else the module's member."""
        if "." in name:
            return name
        if name == self.module.split(".")[-1]:
            return self.module
        return f"{self.module}.{name}"


def _private(name: str) -> bool:
    """A name that starts with `_` (a metamethod's `__eq`, `__tostring` is public)."""
    return name.startswith("_") and not (name.startswith("__") and len(name) > 2)


# ----------------------------------------------------------------------------- the walk
def _prepare(g: _File) -> None:
    """What the items' names need: the module's name and table, locals, exports,
    classes, global tables, the header doc."""
    code = g.code
    for p in g.parsed:
        if p.has("meta"):
            g.meta = True
    name = ""
    for k, p in enumerate(g.parsed):
        for t in p.all("module", "classmod", "submodule", "script"):
            word = t.first.split()[0] if t.first.split() else ""
            if word[:1] in ("'", '"') or t.style == 2 and t.name == "module":
                continue  # LuaCATS `---@module 'x'`: a require's type
            if g.header < 0 and t.name != "submodule":
                g.header = k
            name = name or word
        if p.value("class") == "module" and p.value("name"):
            name = name or p.value("name")
            g.header = k if g.header < 0 else g.header
    call = _MODULE_CALL.search(g.bare)
    if call is not None and not g.in_function(call.start()):
        g.has_module_table = True
        name = name or (call.group(2) or "")
    g.module = name or module_name(g.f.rel)
    # locals and local functions of the file's top level
    for m in _TOP_LOCAL.finditer(code):
        if g.in_function(m.start()):
            continue
        if m.group(1):
            g.locals.add(m.group(1))
            paren = code.find("(", m.end())
            if paren >= 0:
                g.local_functions[m.group(1)] = g.params(paren)
        else:
            names = [re.sub(r"<.*", "", x).strip() for x in m.group(2).split(",")]
            g.locals.update(names)
            after = _NONSPACE.search(code, m.end())
            if after is not None and code.startswith("=", after.start()):
                v = _NONSPACE.search(code, after.start() + 1)
                if v is not None and _FUNCTION_VALUE.match(code, v.start()):
                    paren = code.find("(", v.start())
                    g.local_functions[names[0]] = g.params(paren)
    # the module table: what the last top-level return gives, an `@alias`
    for m in _RETURN.finditer(code):
        if g.in_function(m.start()):
            continue
        if m.group(1) and m.group(1) not in ("nil", "true", "false", "function"):
            g.module_tables, g.returned_brace = {m.group(1)}, -1
        elif m.group(2):
            g.module_tables, g.returned_brace = set(), m.start(2)
    if g.header >= 0:
        alias = g.parsed[g.header].value("alias")
        if alias:
            g.module_tables.add(alias)
    g.has_module_table = g.has_module_table or bool(g.module_tables) or g.returned_brace >= 0
    for m in _GLOBAL_ROOT.finditer(code):
        root = m.group(1) or m.group(2)
        if (
            root not in g.locals
            and root not in g.global_roots
            and root not in _STDLIB
            and not g.in_function(m.start())
        ):
            g.global_roots.append(root)
    # tables and functions the module takes: `M.name = local`, `return { name = local }`
    for m in _TAKEN.finditer(g.bare):
        path = [x.strip() for x in m.group(1).split(".")]
        if path[0] in g.module_tables and m.group(2) in g.locals and not g.in_function(m.start()):
            g.exports.setdefault(m.group(2), ".".join([g.module, *path[1:]]))
    if g.returned_brace >= 0:
        for key, a, b in _entries(g, g.returned_brace):
            value = g.flat(a, b)
            if _NAME_RE.fullmatch(value) and value in g.locals:
                g.exports.setdefault(value, f"{g.module}.{key}")
    _classes(g)
    for m in _METATABLE.finditer(code):  # `T.__index = T`, `setmetatable(x, T)`: a class
        name = m.group(1) or m.group(2)
        if name in g.locals and name not in g.module_tables and name not in g.exports:
            g.classes.setdefault(name, f"{g.module}.{name}")
    if g.header < 0:
        _first_header(g)


def _classes(g: _File) -> None:
    """The tables declared classes: a LuaCATS `---@class Name` or LDoc `@type Name` over
    them (and any table named like a declared class)."""
    for d, p in zip(g.docs, g.parsed, strict=True):
        cats = _cats_class(p)
        if cats is not None:
            name, qual = cats[0], g.class_qual(cats[0])
        elif _ldoc_type(p):
            name = p.value("type")
            qual = g.named(name)
        else:
            continue
        if "." not in name:
            g.classes.setdefault(name, qual)
        at = g.attached(d)
        if at < 0 or g.braces.get(d.end, -1) >= 0:
            continue
        decl = _declaration(g, at)
        if decl.kind in ("local", "assign") and len(decl.path) == 1:
            if decl.path[0] not in g.module_tables:
                g.classes[decl.path[0]] = qual


def _has_text(p: _Parsed) -> bool:
    return any(x.strip() for x in p.description)


def _ldoc_type(p: _Parsed) -> bool:
    """Whether a doc is LDoc's `@type Name` (a class), not a LuaCATS `---@type T` (a
    value's type): written as LDoc's tag, with a description."""
    t = p.get("type")
    return t is not None and t.style < 2 and bool(p.value("type")) and _has_text(p)


def _cats_class(p: _Parsed) -> tuple[str, list[str]] | None:
    """(name, parents) of a LuaCATS `---@class (exact) Name : Parent`; None for none (an
    LDoc `@class function` is a kind)."""
    t = p.get("class")
    if t is None:
        return None
    m = re.match(r"(?:\(\w+\)\s*)?([A-Za-z_][\w.]*)(?:<[^>]*>)?\s*(?::\s*(.*))?$", t.first)
    if m is None or m.group(1) in _KIND_WORDS:
        return None
    parents = [x.strip() for x in (m.group(2) or "").split(",") if x.strip()]
    return m.group(1), parents


_NAMING_TAGS = ("function", "name", "table", "type", "enum", "section", "field", "tfield")


def _first_header(g: _File) -> None:
    """The header when no tag says it: the first doc with something to say, if it
    documents no item (it stands alone, or over the module table, a `require`, a
    `module(...)` call); else a Neovim `@brief` block."""
    for k, (d, p) in enumerate(zip(g.docs, g.parsed, strict=True)):
        if not _body(p):
            continue  # a lone `---@meta`, `---@diagnostic`
        if (
            p.has(*_NAMING_TAGS, *_HIDDEN_TAGS, *_PARAM_TAGS, *_RETURN_TAGS, "brief")
            or _cats_class(p) is not None
            or p.value("class") in _KIND_WORDS
        ):
            break
        at = g.attached(d)
        if at < 0 or _opens_module(g, at):
            g.header = k
        break
    if g.header < 0:
        g.header = next((k for k, p in enumerate(g.parsed) if p.has("brief")), -1)


def _opens_module(g: _File, at: int) -> bool:
    """Whether the code at `at` makes the module: its table, a `require`, `module(...)`."""
    decl = _declaration(g, at)
    if decl.kind in ("local", "assign") and len(decl.path) >= 1:
        if (decl.kind == "local" or len(decl.path) == 1) and g.root(decl.path[0]) == g.module:
            return True
    end = g.code.find("\n", at)
    line = g.code[at : len(g.code) if end < 0 else end]
    return re.search(r"\brequire\b", line) is not None or _MODULE_CALL.match(g.bare, at) is not None


def _declaration(g: _File, at: int) -> _Decl:
    """What the code at `at` declares."""
    code, bare = g.code, g.bare
    m = _LOCAL_FUNCTION.match(code, at)
    if m is not None:
        return _Decl("local function", [m.group(1)], params=g.params(m.end() - 1), at=at)
    m = _LOCAL.match(code, at)
    if m is not None:
        names = [re.sub(r"<.*", "", x).strip() for x in m.group(1).split(",")]
        value = _value_after(g, m.end())
        return _Decl("local", names, value=value, at=at)
    m = _FUNCTION.match(code, at)
    if m is not None:
        path = [x.strip() for x in m.group(1).split(".")]
        return _Decl("function", path, m.group(2) or "", g.params(m.end() - 1), at=at)
    if _RETURN_WORD.match(code, at):
        return _Decl("return", at=at)
    target = _target(bare, at)
    if target is not None:
        path, end = target
        eq = _NONSPACE.search(code, end)
        if eq is not None and code.startswith("=", eq.start()) and code[eq.start() + 1] != "=":
            return _Decl("assign", path, value=_value_after(g, eq.start()), at=at)
    return _Decl("other", at=at)


def _target(bare: str, at: int) -> tuple[list[str], int] | None:
    """An assignment's target at `at`: its path (`M.a.b`, `M["key"]`) and where it ends."""
    m = _NAME_RE.match(bare, at)
    if m is None:
        return None
    path = [m.group()]
    j = m.end()
    while True:
        k = _NONSPACE.search(bare, j)
        if k is None:
            break
        i = k.start()
        if bare.startswith(".", i) and not bare.startswith("..", i):
            n = _DOT_NAME.match(bare, i + 1)
            if n is None:
                break
            path.append(n.group(1))
            j = n.end()
        elif bare.startswith("[", i):
            s = _STRING_KEY.match(bare, i)
            if s is None:
                break
            path.append(s.group(2))
            j = s.end()
        else:
            break
    return path, j


def _value_after(g: _File, eq: int, stop: str = ";") -> tuple[int, int] | None:
    """The span of the value after the `=` at `eq`: to its line's end (brackets read
    through), or a separator in `stop`."""
    code = g.code
    e = _NONSPACE.search(code, eq)
    if e is None or not code.startswith("=", e.start()) or code.startswith("==", e.start()):
        return None
    m = _NONSPACE.search(code, e.start() + 1)
    if m is None:
        return None
    a = i = m.start()
    n = len(code)
    while i < n:
        c = code[i]
        if c in "([{":
            i = g.match.get(i, n)
            continue
        if c == "\n" or c in stop or c in ")]}":
            break
        i += 1
    return a, i


def _entries(g: _File, brace: int) -> list[tuple[str, int, int]]:
    """The named entries of the table constructor at `brace`: (key, value start, value
    end) each."""
    code = g.code
    end = g.match.get(brace, len(code)) - 1
    out: list[tuple[str, int, int]] = []
    i = brace + 1
    while i < end:
        m = _NONSPACE.search(code, i, end)
        if m is None:
            break
        i = m.start()
        key = ""
        k = _ENTRY_KEY.match(code, i)
        s = _STRING_KEY.match(g.bare, i)
        if k is not None:
            key, i = k.group(1), k.end()
        elif s is not None:
            eq = _NONSPACE.search(code, s.end(), end)
            if eq is not None and code.startswith("=", eq.start()):
                key, i = s.group(2), eq.start() + 1
        a = _NONSPACE.search(code, i, end)
        a_at = a.start() if a is not None else end
        j = a_at
        while j < end and code[j] not in ",;":
            j = g.match.get(j, j + 1) if code[j] in "([{" else j + 1
        if key:
            out.append((key, a_at, min(j, end)))
        i = j + 1
    return out


def _brace_owner(g: _File, brace: int, seen: int = 0) -> str | None:
    """The qualified name of the table the constructor at `brace` builds: the module's
    (`local M = {`, `return {`), a class's, a nested table's (`M.sub = {`, `key = {`);
    None when it is no table of the API."""
    if seen > 20 or brace < 0:
        return None
    if brace == g.returned_brace:
        return g.module
    window = g.bare[max(0, brace - 200) : brace]
    parent = g.braces.get(brace, -1)
    s = re.search(r"\[\s*([\"'])([^\"'\n]*)\1\s*\]\s*=\s*$", window)
    m = re.search(rf"(\blocal\s+)?({_NAME}(?:\s*\.\s*{_NAME})*)\s*=\s*$", window)
    if parent >= 0:
        key = s.group(2) if s is not None else (m.group(2) if m is not None else "")
        if not key or "." in key or _private(key):
            return None
        base = _brace_owner(g, parent, seen + 1)
        return f"{base}.{key}" if base else None
    if m is None or g.in_function(brace):
        return None
    path = [x.strip() for x in m.group(2).split(".")]
    return g.root(path[0]) if len(path) == 1 else g.qual(path)


def _walk(g: _File) -> None:
    for k, (d, p) in enumerate(zip(g.docs, g.parsed, strict=True)):
        if k == g.header or p.has(*_HIDDEN_TAGS) or p.has("section", "submodule"):
            continue
        at = g.attached(d)
        if g.in_function(at if at >= 0 else d.start):
            continue
        where = at if at >= 0 else d.start
        decl = _declaration(g, at) if at >= 0 else _Decl("none", at=d.start)
        brace = g.braces.get(d.end, -1) if at >= 0 else -1
        if brace >= 0 and decl.kind == "assign" and len(decl.path) == 1:
            decl.kind = "entry"
            decl.value = _entry_value(g, decl, brace)
        elif brace >= 0:
            decl = _Decl("none", at=where)
        cats = _cats_class(p)
        kind_word = p.value("class") if cats is None else ""
        if cats is not None:
            _class_item(g, p, decl, brace, cats, where)
        elif p.has("table", "enum") or kind_word == "table":
            _table_item(g, p, decl, brace, where)
        elif _ldoc_type(p):
            name = p.value("type")
            qual = g.classes.get(name, g.named(name))
            _add(g, qual, "class", qual, "", _body(p, _fields(p), params=False), where)
        else:
            _member(g, p, decl, brace, kind_word, where)


def _entry_value(g: _File, decl: _Decl, brace: int) -> tuple[int, int] | None:
    """A constructor entry's value: to the next `,` or `;` (brackets read through)."""
    target = _target(g.bare, decl.at)
    if target is None:
        return None
    eq = _NONSPACE.search(g.code, target[1])
    if eq is None:
        return None
    span = _value_after(g, eq.start(), ",;")
    if span is None:
        return None
    a, b = span
    end = g.match.get(brace, len(g.code)) - 1
    return a, min(b, end)


def _fields(p: _Parsed, typed: bool = False) -> list[str]:
    return [x for x in (_field_line(t, typed) for t in p.all("field", "tfield")) if x]


def _add(g: _File, qual: str, kind: str, head: str, sig: str, body: str, at: int) -> None:
    """An item, when its doc says something."""
    if body:
        g.items.append(_Item(qual, kind, head, sig, body, at))


def _class_item(
    g: _File, p: _Parsed, decl: _Decl, brace: int, cats: tuple[str, list[str]], at: int
) -> None:
    """A LuaCATS class: its `---@field` lines its fields; over the module table, the
    module's."""
    name, parents = cats
    qual = g.class_qual(name)
    if decl.kind in ("local", "assign") and len(decl.path) == 1 and brace < 0:
        if decl.path[0] in g.module_tables:
            qual = g.module
    extends = "Extends " + ", ".join(f"`{x}`" for x in parents) + "." if parents else ""
    _add(g, qual, "class", qual, "", _body(p, _fields(p, typed=True), False, extends), at)


def _table_item(g: _File, p: _Parsed, decl: _Decl, brace: int, at: int) -> None:
    """An LDoc `@table` (`@class table`), a LuaCATS `---@enum`: its fields its `@field`
    tags, else its constructor's entries with a trailing comment (an enum's: all)."""
    name = p.value("table", "enum", "name")
    if name.startswith("("):  # `---@enum (key) Name`
        t = p.get("enum")
        name = t.first.split()[1] if t is not None and len(t.first.split()) > 1 else ""
    qual = _decl_qual(g, decl, brace)
    if name and (qual is None or p.has("table", "name")):
        qual = g.named(name)
    if qual is None:
        return
    fields = _fields(p)
    value = decl.value
    if not fields and value is not None and g.code.startswith("{", value[0]):
        enum = p.has("enum")
        for key, a, b in _entries(g, value[0]):
            said = g.trailing.get(g.line(b) - 1, "") or g.trailing.get(g.line(a) - 1, "")
            said = said.lstrip("-").strip()
            if said or enum:
                fields.append(f"- {key}: {_inline(said)}" if said else f"- {key}")
    _add(g, qual, "table", qual, "", _body(p, fields, params=False), at)


def _decl_qual(g: _File, decl: _Decl, brace: int) -> str | None:
    if decl.kind == "entry":
        owner = _brace_owner(g, brace)
        name = decl.path[0] if decl.path else ""
        return f"{owner}.{name}" if owner and name and not _private(name) else None
    if decl.kind in ("assign", "function"):
        return g.qual(decl.path, decl.method)
    if decl.kind in ("local", "local function") and decl.path:
        name = decl.path[0]
        return g.exports.get(name)
    return None


def _member(g: _File, p: _Parsed, decl: _Decl, brace: int, kind_word: str, at: int) -> None:
    """A function, method or field: named by the code under its doc, or by its doc's own
    `@function`, `@name`, `@field` tag."""
    explicit = p.value("function", "name")
    if not explicit and not p.has("type"):
        tags = p.all("field")
        if len(tags) == 1 and tags[0].style < 2:  # LDoc's `@field name` naming a field
            explicit = p.value("field")
            kind_word = kind_word or "field"
    qual = _decl_qual(g, decl, brace)
    if qual is None and decl.kind in ("local function", "local") and p.has("export"):
        qual = f"{g.module}.{decl.path[0]}"
    if explicit:
        qual = g.named(explicit)
    if qual is None or qual == g.module:
        return
    params = decl.params
    span = decl.value
    value = g.flat(*span) if span is not None else ""
    if params is None and span is not None:
        if _FUNCTION_VALUE.match(g.code, span[0]):
            params = g.params(g.code.find("(", span[0]))
        elif value in g.local_functions:
            params = g.local_functions[value]
    is_field = kind_word == "field"
    wants = kind_word in ("function", "lfunction") or p.has("function")
    if params is None and not is_field:
        if wants or p.has(*_PARAM_TAGS, *_RETURN_TAGS) or ":" in qual.rsplit(".", 1)[-1]:
            params = _doc_params(p)
    if params is not None and not is_field:
        method = ":" in qual.rsplit(".", 1)[-1]
        if method and params[:1] == ["self"]:
            params = params[1:]  # `function(self, x)` named `T:m`: the `self` a call passes
        shown = ", ".join(params)
        body = _body(p, declared=params)
        _add(
            g, qual, "method" if method else "function", f"{qual}({shown})", f"({shown})", body, at
        )
        return
    field_tag = p.get("field") if explicit and explicit == p.value("field") else None
    description = ""
    if field_tag is not None and not _has_text(p) and len(field_tag.text.split()) > 1:
        description = field_tag.text.split(None, 1)[1]  # `@field name text`
    fields = None if field_tag is not None else _fields(p)
    typ = p.get("type")
    body = _body(p, fields, False, description)
    if body and typ is not None and typ.first:  # a LuaCATS `---@type` over a field
        body = _body(p, fields, False, f"{description}\n\nType: `{typ.first}`".strip())
    head = qual
    raw = g.bare[span[0] : span[1]] if span is not None else ""
    if value and "\n" not in raw.strip() and len(value) <= _MAX_VALUE:
        if not _OPERATOR_END.search(value) and not value.startswith("function"):
            head = f"{qual} = {value}"
    kind = "table" if value.startswith("{") else "field"
    _add(g, qual, kind, head, "", body, at)


def _doc_params(p: _Parsed) -> list[str]:
    """A function's parameters as its doc names them."""
    names: list[str] = []
    for t in p.all(*_PARAM_TAGS):
        line = _param_line(t)
        m = re.match(r":param (\S+?)(?: \(|:)", line)
        if m is not None:
            names.append(m.group(1))
    return names


# ----------------------------------------------------------------------------- documents
def _document(g: _File, item: _Item) -> Document:
    text = f"{item.head}\n\n{item.body}" if item.body else item.head
    return api_document(
        g.source,
        URI_PREFIX,
        g.f,
        item.qual,
        text,
        item.kind,
        item.signature,
        g.line(item.at),
        language="lua",
    )


def file_documents(f: LuaFile, source: str) -> Iterator[Document]:
    """The documents of one file, in the order its items stand; of a name documented
    twice, the first (a module's or class's text takes a later one's new paragraphs)."""
    g = _File(f, source)
    _prepare(g)
    if g.header >= 0:
        p = g.parsed[g.header]
        d = g.docs[g.header]
        body = _body(p, _fields(p) or None, params=False)
        if body:
            g.items.append(_Item(g.module, "module", g.module, "", body, d.start))
    _walk(g)
    kept: dict[str, _Item] = {}
    for item in g.items:
        old = kept.get(item.qual)
        if old is None:
            kept[item.qual] = item
        elif old.kind in ("module", "class", "table") and item.kind in ("class", "table"):
            new = [x for x in item.body.split("\n\n") if x not in old.body.split("\n\n")]
            old.body = "\n\n".join([old.body, *new]).strip()
    for item in kept.values():
        yield _document(g, item)
