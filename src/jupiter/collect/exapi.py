"""Elixir files read as their project's API, as ExDoc (HexDocs) reads it: one document per
module with a `@moduledoc`, per public function and macro with a `@doc`, per callback with a
`@doc` over its `@callback` (or `@macrocallback`), and per type with a `@typedoc` over its
`@type` or `@opaque`. Elixir keeps its docs in module attributes, not comments, and they are
Markdown already: the text is kept as written (a heredoc's content dedented by its closing
delimiter's indentation, as Elixir does, its escapes read; an `~S` heredoc's raw), but for
an indented code block, which is fenced as ```` ```elixir ```` (ExDoc highlights it so), an
`iex>` example too.

The uri is ExDoc's own notation: `elixir:Enum` for a module, `elixir:Enum.map/2` for a
function, macro or callback (name and arity: one name with two arities is two documents, as
ExDoc lists them; a function with default arguments is one, at its highest arity, its text
saying the lower ones it may be called with), `elixir:Enumerable.t/0` for a type; a
callback or a type named like a function of its module by ExDoc's reference to it
(`elixir:c:Access.fetch/2` beside the function `elixir:Access.fetch/2`); a `@doc` over a
`defstruct` the struct's, `elixir:URI.__struct__/0` (ExDoc's `%URI{}`). Nested modules'
names are relative (`defmodule C` inside `A.B` is `A.B.C`, `defmodule B.C` inside `A` is
`A.B.C`). The text is the form the question templates read for Python's docstrings:
`Module.name(args)` (the first clause's arguments as written, a pattern shown by the name
bound to it: `%{} = map` as `map`; an operator's as `Kernel.+(left, right)`; a callback's
and a type's from its spec's head) over the doc, then what ExDoc shows beside it: `Macro.`,
`Callback.`, the defaults' lower arities, a `defdelegate`'s target, `Spec:` lines (every
`@spec` of the function's arities, written as ExDoc writes types: `t()`, `String.t()`), a
type's definition, `Deprecated:` (`@deprecated`, `@doc deprecated:`) and `Since:` (`@doc
since:`); a module's doc its struct's `Fields:` (`defstruct`, `defexception`). Elixir's docs
describe arguments in prose and `## Options` lists, so no `:param` field is made of them.

The files are scanned, never run: comments, strings and charlists with their `#{...}`
interpolation, heredocs, sigils with any delimiter (`~r/.../`, `~w(...)`, `~S\"\"\"`), char
literals (`?#` is no comment) and atoms (`:do`, `:"end"`, `:{}`) are told apart from code, so
a `do`, `end` or `def` in any of them changes nothing; `do ... end` and `fn ... end` blocks
are matched (a `, do:` one-liner opens none), and only what stands in a module's body (or
an `if` there) is read, not what a function body or a `quote` defines. Private functions
(`defp`, `defmacrop`, `defguardp`), `@doc false` items, and modules with `@moduledoc false`
with everything in them (the modules nested in them too), protocol implementations (`defimpl`, which ExDoc leaves out) too,
are not the API; a `@doc` that some other statement (a macro defining functions) takes
documents nothing here. Tests (under `test/`, `tests/`, `*_test.ex`; `.exs` scripts are no
source here) give no document and are counted, and so is a file with nothing documented.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.codescan import closing
from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

SUFFIXES = (".ex",)
URI_PREFIX = "elixir:"
# reasons an Elixir file gave no document, as the collect stage counts them
ELIXIR_TEST = "elixir_test"
ELIXIR_NO_API = "elixir_no_api"
_AS_TEXT = (
    "Elixir files read as their API (the @moduledoc, @doc and @typedoc of public modules, "
    "functions, macros, callbacks and types): tests and files with nothing documented give "
    "none; the source's elixir: text reads them as text"
)
FIXES = {ELIXIR_TEST: _AS_TEXT, ELIXIR_NO_API: _AS_TEXT}
_TEST_FOLDERS = frozenset({"test", "tests"})
_TEST_NAME = re.compile(r"_test\.ex$")

ElixirFile = SourceFile  # its files, as the source hands them over


def is_elixir(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return bool(_TEST_FOLDERS & set(rel.parts[:-1])) or bool(_TEST_NAME.search(rel.name))


def api_documents(
    files: list[ElixirFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented public API the files define, sorted by uri; a file that
    gives none is counted in `rejects`."""

    def read(f: ElixirFile) -> list[Document] | str:
        if is_test(f.rel):
            return ELIXIR_TEST
        return list(file_documents(f, source))

    return first_documents(files, rejects, read, ELIXIR_NO_API)


# ----------------------------------------------------------------------------- scanning
@dataclass
class _Literal:
    """A string, charlist, heredoc, sigil or quoted atom: where its content stands, and how
    its value is read from it."""

    start: int
    end: int
    content: tuple[int, int]
    escapes: bool  # its backslash escapes are read (not in an uppercase sigil)
    indent: int = -1  # a heredoc's: its closing delimiter's indentation
    holes: list[tuple[int, int]] = field(default_factory=list)  # its interpolations' spans


_SPECIAL = re.compile(r"[#\"'~?:{}]")
_SIGIL = re.compile(r"~(?P<name>[a-z]|[A-Z][A-Z0-9]*)(?P<d>\"\"\"|'''|[/|\"'(\[{<])")
_HEREDOC_OPEN = re.compile(r"[ \t]*\r?\n")
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_ATOM = re.compile(
    r":(?:[A-Za-z_][\w@]*[?!]?|<<>>|%\{\}|\{\}|%|\.\.//|\.\.\.|\.\.|\|\|\||&&&|<<<|>>>"
    r"|<<~|~>>|<~>|\^\^\^|~~~|===|!==|\|>|<>|\+\+|--|==|!=|=~|<=|>=|&&|\|\||\*\*|<-|->"
    r"|\\\\|<~|~>|[<>+\-*/=!^&|@.])"
)
_MAX_NESTING = 40  # interpolation inside interpolation: deeper is read as text


class _Scanner:
    """Elixir source with its comments and literals blanked (same length; a literal's first
    character kept, the rest, its line breaks too, made spaces, so a heredoc ends no
    statement; a comment's line break kept), and its literals by where they start."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.out = list(text)
        self.literals: dict[int, _Literal] = {}
        self.nesting = 0

    def run(self) -> str:
        i = 0
        while i < self.n:
            i = self._code(i, False) + 1  # past a stray `}` at the top level
        return "".join(self.out)

    def _blank(self, i: int, j: int) -> None:
        for k in range(i, min(j, self.n)):
            self.out[k] = " "

    def _code(self, i: int, nested: bool) -> int:
        """Past code from `i`: the end of the text, or (nested, inside `#{}`) the `}` that
        closes it."""
        text, n = self.text, self.n
        depth = 0
        while True:
            m = _SPECIAL.search(text, i)
            if m is None:
                return n
            i = m.start()
            c = text[i]
            if c == "#":
                j = text.find("\n", i)
                j = n if j < 0 else j
                self._blank(i, j)
                i = j
            elif c == "{":
                depth += 1
                i += 1
            elif c == "}":
                if nested and depth == 0:
                    return i
                depth = max(depth - 1, 0)
                i += 1
            elif c in "\"'":
                i = self._quoted(i, i, c, True, False)
            elif c == "~":
                i = self._sigil(i)
            elif c == "?":
                i = self._char(i)
            else:
                i = self._colon(i)

    def _quoted(self, start: int, i: int, q: str, escapes: bool, sigil: bool) -> int:
        """Past the string, charlist or heredoc (a sigil's or a quoted atom's, from `start`)
        whose delimiter stands at `i`; recorded and blanked."""
        text = self.text
        if text.startswith(q * 3, i):
            m = _HEREDOC_OPEN.match(text, i + 3)
            if m is not None:
                return self._heredoc(start, m.end(), q * 3, escapes, escapes)
        close = _PAIRS.get(q, q)
        holes: list[tuple[int, int]] = []
        content_end, end = self._until(i + 1, close, escapes, holes)
        if sigil:
            end = _past_modifiers(text, end)
        self._record(_Literal(start, end, (i + 1, content_end), escapes, holes=holes))
        return end

    def _record(self, lit: _Literal) -> None:
        self.literals[lit.start] = lit
        self._blank(lit.start + 1, lit.end)

    def _until(
        self, j: int, close: str, interp: bool, holes: list[tuple[int, int]]
    ) -> tuple[int, int]:
        """(where the content ends, past the closing delimiter) of a literal whose content
        starts at `j`, its interpolations added to `holes`; the text's end when none closes
        it."""
        text, n = self.text, self.n
        pattern = _stops(close, interp and self.nesting < _MAX_NESTING)
        k = j
        while True:
            m = pattern.search(text, k)
            if m is None:
                return n, n
            k = m.start()
            c = text[k]
            if c == "\\":
                k += 2
            elif c == "#":
                if text.startswith("#{", k):
                    k = self._hole(k, holes)
                else:
                    k += 1
            else:
                return k, k + 1

    def _hole(self, k: int, holes: list[tuple[int, int]]) -> int:
        """Past the interpolation `#{...}` at `k`, added to `holes`."""
        self.nesting += 1
        end = min(self._code(k + 2, True) + 1, self.n)
        self.nesting -= 1
        holes.append((k, end))
        return end

    def _heredoc(self, start: int, j: int, close: str, interp: bool, escapes: bool) -> int:
        """Past the heredoc whose content starts at `j` (the line after its opening): its
        closing delimiter the first thing on a line."""
        text, n = self.text, self.n
        ending = _closing_line(close)
        stops = _stops("\n", interp and self.nesting < _MAX_NESTING, escapes)
        holes: list[tuple[int, int]] = []
        k = j
        while k < n:
            m = ending.match(text, k)
            if m is not None:
                indent = len(m.group(1))
                self._record(_Literal(start, m.end(), (j, k), escapes, indent, holes))
                return m.end()
            p = k
            while True:
                s = stops.search(text, p)
                if s is None:
                    k = n
                    break
                p = s.start()
                c = text[p]
                if c == "\n":
                    k = p + 1
                    break
                if c == "\\" and text.startswith(("\n", "\r\n"), p + 1):
                    k = text.index("\n", p) + 1  # a line continued: the next may close it
                    break
                if c == "\\":
                    p += 2
                elif text.startswith("#{", p):
                    p = self._hole(p, holes)
                else:
                    p += 1
        self._record(_Literal(start, n, (j, n), escapes, 0, holes))
        return n

    def _sigil(self, i: int) -> int:
        """Past the sigil at `i` (`~r/x/i`, `~w(a b)a`, `~S\"\"\"`), its modifiers too; an
        uppercase one's content raw, without interpolation or escapes."""
        m = _SIGIL.match(self.text, i)
        if m is None:
            return i + 1
        lower = m.group("name").islower()
        d = m.group("d")
        if len(d) == 3:
            h = _HEREDOC_OPEN.match(self.text, m.end())
            if h is not None:
                end = _past_modifiers(self.text, self._heredoc(i, h.end(), d, lower, lower))
                self.literals[i].end = end
                return end
        return self._quoted(i, m.start("d"), d[0], lower, True)

    def _char(self, i: int) -> int:
        """A char literal (`?a`, `?\\n`, `?#`), unless the `?` ends a name (`empty?`)."""
        text = self.text
        if i and _word(text[i - 1]):
            return i + 1
        end = min(i + (3 if text[i + 1 : i + 2] == "\\" else 2), self.n)
        self._blank(i + 1, end)
        return end

    def _colon(self, i: int) -> int:
        """An atom (`:do`, `:"end"`, `:{}`): its name blanked; a keyword's colon (`do:`)
        and `::` are code."""
        text = self.text
        if text.startswith("::", i):
            return i + 2
        prev = text[i - 1] if i else ""
        if prev and (_word(prev) or prev in "\"'?!"):
            return i + 1
        nxt = text[i + 1 : i + 2]
        if nxt in ('"', "'"):
            return self._quoted(i, i + 1, nxt, True, False)
        m = _ATOM.match(text, i)
        if m is None:
            return i + 1
        self._blank(i + 1, m.end())
        return m.end()


def _word(c: str) -> bool:
    return c.isalnum() or c == "_" or c > "\x7f"


def _past_modifiers(text: str, i: int) -> int:
    """Past a sigil's modifiers (`~r/x/iu`, `~w(a b)a`) that start at `i`."""
    while i < len(text) and text[i].isascii() and text[i].isalnum():
        i += 1
    return i


_STOPS: dict[tuple[str, bool, bool], re.Pattern[str]] = {}


def _stops(close: str, interp: bool, escapes: bool = True) -> re.Pattern[str]:
    """What a literal's scan stops at: an escape (in a one-line literal, an uppercase
    sigil's too: its closing delimiter escaped), its closing delimiter, an interpolation."""
    key = (close, interp, escapes)
    if key not in _STOPS:
        chars = ("\\\\" if escapes else "") + re.escape(close) + ("#" if interp else "")
        _STOPS[key] = re.compile(f"[{chars}]")
    return _STOPS[key]


_CLOSINGS: dict[str, re.Pattern[str]] = {}


def _closing_line(close: str) -> re.Pattern[str]:
    if close not in _CLOSINGS:
        _CLOSINGS[close] = re.compile(rf"([ \t]*){re.escape(close)}")
    return _CLOSINGS[close]


def scan(text: str) -> tuple[str, dict[int, _Literal]]:
    """(the code with comments and literals blanked, same length; the literals)."""
    s = _Scanner(text)
    code = s.run()
    return code, s.literals


_ESCAPE = re.compile(
    r"\\(x\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{1,2}|u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|\r?\n|.)",
    re.S,
)
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "s": " ", "e": "\x1b", "a": "\a", "b": "\b"}
_ESCAPED |= {"f": "\f", "v": "\v", "d": "\x7f", "0": "\0"}


def _unescape(m: re.Match[str]) -> str:
    e = m.group(1)
    if e[0] in "xu" and len(e) > 1:
        code = int(e[1:].strip("{}"), 16)
        return chr(code) if code < 0x110000 and not 0xD800 <= code < 0xE000 else ""
    if e[0] in "\r\n":
        return ""  # a line continued
    return _ESCAPED.get(e, e)


def literal_value(text: str, lit: _Literal) -> str:
    """A literal's value: a heredoc's lines dedented by its closing delimiter's indentation,
    the escapes read (not an uppercase sigil's), an interpolation as written (it is code:
    no escape in it is read, no line of it dedented)."""
    a, b = lit.content
    pieces: list[str] = []
    holes = [h for h in lit.holes if a <= h[0] and h[1] <= b]
    for k, (h0, h1) in enumerate(holes):
        pieces += [text[a:h0], f"\0{k}\0"]
        a = max(a, h1)
    raw = "".join([*pieces, text[a:b]])
    if lit.indent > 0:
        raw = "".join(_dedent(line, lit.indent) for line in raw.splitlines(keepends=True))
    if lit.escapes:
        raw = _ESCAPE.sub(_unescape, raw)
    if holes:
        raw = re.sub(r"\0(\d+)\0", lambda m: text[slice(*holes[int(m.group(1))])], raw)
    return raw


def _dedent(line: str, indent: int) -> str:
    k = 0
    while k < min(indent, len(line)) and line[k] in " \t":
        k += 1
    return line[k:]


# ----------------------------------------------------------------------------- doc text
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,3}[.)])([ \t]+)(?=\S)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def doc_text(doc: str) -> str:
    """A doc's Markdown as the templates read it: an indented code block (ExDoc's, an
    `iex>` example's too) fenced as Elixir, inside a list item at its content's margin;
    fenced blocks, lists and the rest as written."""
    lines = [x.rstrip() for x in doc.expandtabs(4).split("\n")]
    out: list[str] = []
    fence = ""
    margin = 0  # the content margin of the list item the text is in (0: none)
    blank = True
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if fence:
            out.append(line)
            if re.fullmatch(f"{re.escape(fence[0])}{{{len(fence)},}}", line.strip()):
                fence = ""
            i += 1
            continue
        if not line:
            out.append("")
            blank = True
            i += 1
            continue
        ind = _indent(line)
        f = _FENCE.match(line)
        if f is not None and ind < margin + 4:
            fence = f.group(1)
            out.append(line)
            blank = False
            i += 1
            continue
        if blank and ind >= margin + 4:
            j = i
            while j < n and (not lines[j] or _indent(lines[j]) >= margin + 4):
                j += 1
            while not lines[j - 1]:
                j -= 1
            pad = " " * margin
            body = [pad + x[margin + 4 :] if x else "" for x in lines[i:j]]
            out += [f"{pad}```elixir", *body, f"{pad}```"]
            i, blank = j, False
            continue
        item = _LIST_ITEM.match(line)
        if item is not None:
            margin = len(item.group(0))
        elif blank and ind < margin:
            margin = 0  # a paragraph at the margin ends the list
        out.append(line)
        blank = False
        i += 1
    text = "\n".join(out).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)


# ----------------------------------------------------------------------------- types
_TYPE_TOKEN = re.compile(
    r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|:\"(?:\\.|[^\"\\])*\"|::"
    r"|(?P<open>[(\[{])|(?P<close>[)\]}])"
    r"|(?P<name>(?<![\w.@])(?:(?:[A-Z]\w*|:[a-z_]\w*)\.)+[a-z_]\w*[?!]?"
    r"|(?<![\w.@:])[a-z_]\w*[?!]?)"
    r"|:[\w@]+[?!]?"
)
_ANNOTATION = re.compile(r"\s*::")
_NOT_TYPES = frozenset("true false nil when and or not in var".split())  # var: `when x: var`


def type_text(spec: str, module: str, variables: frozenset[str] = frozenset()) -> str:
    """A spec or a type's definition as ExDoc writes it: one line, a type named without its
    parentheses given them (`t` `t()`, `String.t` `String.t()`), `__MODULE__` the module's
    name; a variable (`name :: type`, a `when` clause's, a type's parameter), a keyword's
    key and an atom as they are. At the top level `name ::` is the spec's head or its last
    argument's type (`integer + integer :: integer`), inside brackets an argument's name."""
    s = re.sub(r"\b__MODULE__\b", module, " ".join(spec.split()))
    when = re.search(r"\swhen\s(.*)$", s)
    if when is not None:
        variables |= frozenset(re.findall(r"(?<![\w:])([a-z_]\w*):(?!:)", when.group(1)))
    out: list[str] = []
    last = depth = 0
    for m in _TYPE_TOKEN.finditer(s):
        depth += (m.group("open") is not None) - (m.group("close") is not None)
        name = m.group("name")
        if name is None:
            continue
        end = m.end()
        if s.startswith("(", end) or (s.startswith(":", end) and not s.startswith("::", end)):
            continue
        if depth > 0 and _ANNOTATION.match(s, end):
            continue  # `name :: type`: the name of an argument
        if name in _NOT_TYPES or name in variables or name.startswith("_"):
            continue
        out += [s[last : m.end()], "()"]
        last = m.end()
    return "".join([*out, s[last:]])


# ----------------------------------------------------------------------------- heads
_NAME = re.compile(r"[a-z_][\w]*[?!]?")
_PAREN_OP = re.compile(r"\([ \t]*([^\w\s()]+)[ \t]*\)")
_PREFIX_OP = re.compile(r"(?:~~~|not(?=[\s(])|[!^@+\-])")
_BINARY_OP = re.compile(
    r"[ \t]*(?P<op>\|\|\||&&&|<<<|>>>|<<~|~>>|<~>|\^\^\^|<\|>|===|!==|\.\.|::|<>|\+\+|--"
    r"|==|!=|=~|<=|>=|&&|\|\||\|>|\*\*|<-|\\\\|~>|<~|[<>+\-*/=|]"
    r"|(?:not[ \t]+in|in|and|or)(?![\w?!]))[ \t]*(?=[\w(\[{%<\"':?])"
)
_HEAD_END = re.compile(r"[ \t]+(?:when|do)(?![\w?!:])|[ \t]*(?:,|::|\n|;|$)")
_ARGS_END = re.compile(r"[ \t]+(?:when|do)(?![\w?!:])|,[ \t]*do:|[ \t]*(?:::|\n|;|$)")


@dataclass
class _Head:
    name: str
    args: list[str]  # each as written (its whitespace too)
    codes: list[str]  # each with its literals blanked, aligned with it
    end: int

    @property
    def written(self) -> list[str]:
        return [" ".join(a.split()) for a in self.args]


_ARG_MARK = re.compile(r"<<|>>|[()\[\]{},]")
_KEYWORD = re.compile(r"\s*[a-z_]\w*[?!]?:(?!:)")


def _split_args(
    code: str, text: str, a: int, b: int, keywords: bool = True
) -> tuple[list[str], list[str]]:
    """The comma-separated arguments between `a` and `b` (as written, and as code); a
    trailing keyword list (`x, key: 1, other: 2`) one argument, as Elixir reads it (unless
    not `keywords`)."""
    args: list[str] = []
    codes: list[str] = []
    depth, start = 0, a
    for m in [*_ARG_MARK.finditer(code, a, b), None]:  # None: the end, at `b`
        c, k = (m.group(0), m.start()) if m is not None else (",", b)
        if c in ("(", "[", "{", "<<"):
            depth += 1
        elif c in (")", "]", "}", ">>"):
            depth -= 1
        elif depth <= 0 or m is None:
            piece = code[start:k]
            if piece.strip() and keywords and codes and _KEYWORD.match(codes[-1]):
                codes[-1] += "," + piece
                args[-1] += "," + text[start:k]
            elif piece.strip():
                codes.append(piece)
                args.append(text[start:k])
            start = k + 1
    return args, codes


def _operand_end(code: str, j: int) -> int:
    """Past the operand at `j` of an operator's head (`value`, `{:!, _, [v]}`, `""`)."""
    n = len(code)
    if j < n and code[j] in "([{":
        return closing(code, j)
    if j < n and code[j] == "%":
        k = j + 1
        while k < n and (_word(code[k]) or code[k] == "."):
            k += 1
        return closing(code, k) if code[k : k + 1] == "{" else k
    if j < n and code[j] in "\"'?:":
        k = j + 1
        while k < n and code[k] == " ":
            k += 1
        return k
    m = re.compile(r"[\w?!.]+").match(code, j)
    return m.end() if m else j


def head(code: str, text: str, i: int, spec: bool = False) -> _Head | None:
    """The name and arguments of a definition's head (`name(args)`, `name`, `name args`,
    `unquote(:name)(args)`, an operator's `left + right`, `!value`, `first..last//step`)
    or (`spec`) of a spec's, which `::` ends."""
    n = len(code)
    while i < n and code[i] in " \t":
        i += 1
    if code.startswith("unquote(", i):
        close = closing(code, i + 7)
        inner = text[i + 8 : close - 1].strip()
        m = re.fullmatch(r":(?:\"(.+)\"|'(.+)'|(.+))", inner, re.S)
        if m is None:
            return None
        name = next(g for g in m.groups() if g is not None)
        if code[close : close + 1] == "(":
            end = closing(code, close)
            args, codes = _split_args(code, text, close + 1, end - 1)
            return _Head(name, args, codes, end)
        return _Head(name, [], [], close)
    paren = _PAREN_OP.match(code, i)
    if paren is not None:  # `defmacro (..)`
        return _Head(paren.group(1), [], [], paren.end())
    op = _PREFIX_OP.match(code, i)
    if op is not None and not code.startswith(("not in", "+(", "-("), i):
        j = op.end()
        while j < n and code[j] in " \t":
            j += 1
        end = _operand_end(code, j)
        if end == j:
            return None
        return _Head(op.group(0), [text[j:end]], [code[j:end]], end)
    m = _NAME.match(code, i)
    if m is None:
        return None
    name, k = m.group(0), m.end()
    if code[k : k + 1] == "(":
        end = closing(code, k)
        args, codes = _split_args(code, text, k + 1, end - 1)
        return _Head(name, args, codes, end)
    b = _BINARY_OP.match(code, k)
    if b is not None and not (spec and b.group("op") == "::"):
        op_name = " ".join(b.group("op").split())
        j = b.end()
        end = _operand_end(code, j)
        args = [name, text[j:end]]
        codes = [name, code[j:end]]
        if op_name == ".." and code.startswith("//", end):
            third = _operand_end(code, end + 2)
            args.append(text[end + 2 : third])
            codes.append(code[end + 2 : third])
            op_name, end = "..//", third
        return _Head(op_name, args, codes, end)
    e = _HEAD_END.match(code, k)
    if e is not None:
        return _Head(name, [], [], k)
    stop = _ARGS_END.search(code, k)
    end = stop.start() if stop else n
    args, codes = _split_args(code, text, k, end)
    return _Head(name, args, codes, end)


def _shown(arg: str, code: str) -> str:
    """An argument as the signature shows it, on one line: a default kept (`opts \\\\ []`),
    a pattern by the name bound to it (`%{} = map`: `map`), a variable without its leading
    underscore (`_opts`: `opts`)."""
    default = _top_level(code, r"\\\\")
    if default >= 0:
        left = _shown(arg[:default], code[:default])
        return f"{left} \\\\ {' '.join(arg[default + 2 :].split())}"
    eq = _top_level(code, r"(?<![=!<>~|&])=(?![=~>])")
    written = " ".join(arg.split())
    if eq >= 0:
        left, right = arg[:eq].strip(), arg[eq + 1 :].strip()
        for side in (right, left):
            if re.fullmatch(r"_?[a-z_]\w*[?!]?", side):
                return _shown(side, side)
        return written
    if re.fullmatch(r"_[a-z]\w*[?!]?", written):
        return written[1:]
    return written


def _top_level(code: str, pattern: str) -> int:
    """Where `pattern` first matches in `code` outside brackets (-1: nowhere)."""
    depth = 0
    for m in re.finditer(rf"[()\[\]{{}}]|{pattern}", code):
        c = m.group(0)
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            return m.start()
    return -1


def _callback_arg(arg: str, k: int) -> str:
    """A callback's argument as ExDoc names it from its spec: `name :: type` by its name, a
    type by its name (`key`), a literal by its kind, anything else `argN`."""
    m = re.match(r"([a-z_]\w*)\s*::", arg)
    if m is not None:
        return m.group(1)
    m = re.fullmatch(r"([a-z_]\w*)(?:\(.*\))?", arg, re.S)
    if m is not None:
        return m.group(1)
    for start, kind in (("%{", "map"), ("{", "tuple"), ("[", "list"), ("<<", "binary")):
        if arg.startswith(start):
            return kind
    if arg.startswith("(") and "->" in arg:
        return "function"
    if re.match(r":\w", arg):
        return "atom"
    if re.match(r"-?\d", arg):
        return "integer"
    return f"arg{k}"


# ----------------------------------------------------------------------------- walking
_TOKEN = re.compile(
    r"(?<![\w.:@&?!])(?P<kw>defmodule|defprotocol|defimpl|defmacrop?|defguardp?|defdelegate"
    r"|defp?|defstruct|defexception|do|fn|end)(?![\w?!]|:(?!:))"
    r"|(?<![\w@.])@(?P<attr>[a-z_]\w*)"
)
_MODULE_NAME = re.compile(
    r"[ \t]+(?P<name>(?:[A-Z]\w*|__MODULE__)(?:[ \t]*\.[ \t]*[A-Z]\w*)*)(?![\w.])"
)
_DO = re.compile(r"(?<![\w.:@])do(?![\w?!:])")
_PRIVATE = frozenset({"defp", "defmacrop", "defguardp"})
_DEFS = frozenset({"def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate"})
_MACROS = frozenset({"defmacro", "defguard"})
# a line that a statement goes on after: it ends with an operator, a comma, an open bracket
_CARRIED = re.compile(
    r"(?:,|\(|\[|\{|\w:|::|->|\||=|=>|\\\\|\+\+|<>|\|>|\+|-|\*|/|\band|\bor|\bwhen|\bin)\s*$"
)
_CARRIES = re.compile(r"\s*(?:\||::|->|=>|\.[^.]|\+\+|<>|\band\b|\bor\b|\bwhen\b)")
_FALSE = re.compile(r"false(?![\w?!:])")
_MAX_STATEMENT = 20000  # characters a statement's open brackets may run over


@dataclass
class _Doc:
    """What a run of `@doc` (or `@moduledoc`, `@typedoc`) attributes says of its item."""

    text: str | None = None
    hidden: bool = False
    since: str = ""
    deprecated: str = ""


@dataclass
class _Module:
    path: tuple[str, ...]
    parent: _Module | None
    kind: str = "module"
    at: int = 0
    doc: _Doc = field(default_factory=_Doc)
    hidden: bool = False  # @moduledoc false, a protocol implementation
    fields: list[str] = field(default_factory=list)
    pending: _Doc = field(default_factory=_Doc)  # the @doc waiting for its function
    pending_type: _Doc = field(default_factory=_Doc)
    last: int = 0  # where the last attribute ended (what stands between takes the @doc)
    specs: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    optional: set[tuple[str, int]] = field(default_factory=set)

    @property
    def name(self) -> str:
        return ".".join(self.path)

    @property
    def left_out(self) -> bool:
        return self.hidden or (self.parent is not None and self.parent.left_out)


@dataclass
class _Item:
    module: _Module
    kind: str  # function, macro, callback, macrocallback, type, opaque, struct
    name: str
    args: list[str]
    doc: _Doc
    at: int
    defaults: int = 0
    lines: list[str] = field(default_factory=list)  # what ExDoc shows beside the doc
    spec: str = ""  # a callback's or type's own


@dataclass
class _Frame:
    kind: str  # top, module, cond (an `if` in a module's body), opaque (a body, a block)
    module: _Module | None = None


class _File:
    def __init__(self, f: ElixirFile, source: str) -> None:
        self.f = f
        self.source = source
        self.text = f.text
        self.code, self.literals = scan(f.text)
        self.lines = [0] + [m.end() for m in re.finditer("\n", f.text)]
        self.modules: list[_Module] = []
        self.items: list[_Item] = []

    def line(self, at: int) -> int:
        """The 1-based line of a position."""
        return bisect_right(self.lines, at)

    def statement_end(self, i: int) -> int:
        """Where the statement going on at `i` ends: a line break outside brackets that no
        operator, comma or leading `|` carries over, a `;`, or a bracket closing one opened
        before it."""
        code, n = self.code, len(self.code)
        depth = 0
        k = i
        while k < n:
            c = code[k]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth < 0:
                    return k
            elif depth > 0 and k - i > _MAX_STATEMENT:
                e = code.find("\n", i)
                return n if e < 0 else e
            elif c == ";" and depth == 0:
                return k
            elif c == "\n" and depth == 0:
                if _CARRIED.search(code, max(i, k - 200), k) or _CARRIES.match(code, k + 1):
                    k += 1
                    continue
                return k
            k += 1
        return n

    def value(self, i: int, end: int) -> _Doc:
        """What an attribute's value at `i` (up to `end`) says as a doc: its text (a string,
        a heredoc, a sigil's; the first of a `<>` concatenation), `false`, or a keyword
        list's `since:` and `deprecated:`."""
        doc = _Doc()
        code = self.code
        while i < end and code[i] in " \t(":
            i += 1
        lit = self.literals.get(i)
        if lit is not None:
            doc.text = literal_value(self.text, lit)
            return doc
        if _FALSE.match(code, i):
            doc.hidden = True
            return doc
        for m in re.finditer(r"(?<![\w:])([a-z_]\w*):[ \t]*", code[i:end]):
            at = i + m.end()
            lit = self.literals.get(at)
            said = literal_value(self.text, lit) if lit is not None else ""
            if m.group(1) == "since":
                doc.since = said
            elif m.group(1) == "deprecated":
                doc.deprecated = said
        return doc


def _merge(doc: _Doc, more: _Doc) -> None:
    if more.text is not None:
        doc.text = more.text
    doc.hidden = doc.hidden or more.hidden
    doc.since = more.since or doc.since
    doc.deprecated = more.deprecated or doc.deprecated


def _statement_start(code: str, i: int) -> bool:
    """Whether nothing but indentation (or a `;`, or a one-line block's `do`) stands before
    `i` on its line."""
    k = i - 1
    while k >= 0 and code[k] in " \t":
        k -= 1
    if k < 0 or code[k] in "\n;":
        return True
    return code[k - 1 : k + 1] == "do" and (k < 2 or not _word(code[k - 2]))


def _line_word(code: str, i: int) -> str:
    """The first word of the line `i` stands on (looked for in the 500 characters before
    it: a long line reads in linear time)."""
    start = code.rfind("\n", max(0, i - 500), i) + 1 or max(0, i - 500)
    m = re.compile(r"[ \t]*(\w+)").match(code, start, i)
    return m.group(1) if m else ""


def _walk(g: _File) -> None:
    code = g.code
    stack = [_Frame("top")]
    pos = 0
    while True:
        m = _TOKEN.search(code, pos)
        if m is None:
            return
        at, pos = m.start(), m.end()
        top = stack[-1]
        mod = top.module if top.kind in ("module", "cond") else None
        kw = m.group("kw")
        if kw == "end":
            if len(stack) > 1:
                stack.pop()
        elif kw == "fn":
            stack.append(_Frame("opaque"))
        elif kw == "do":
            # an `if` in a module's body (or around a module) is no obstacle: both branches
            # are read, as ExDoc reads what compiled
            cond = top.kind != "opaque" and _line_word(code, at) in ("if", "unless")
            if cond and mod is None:
                stack.append(_Frame("top"))
            else:
                stack.append(_Frame("cond", mod) if cond else _Frame("opaque"))
        elif kw in ("defmodule", "defprotocol", "defimpl"):
            if mod is not None or top.kind == "top":
                pos = _module(g, stack, mod, kw, at, pos)
        elif mod is None or not _statement_start(code, at):
            continue
        elif kw is None:
            pos = _attribute(g, mod, m.group("attr"), at, pos)
        elif kw in _DEFS:
            pos = _definition(g, mod, kw, at, pos)
        else:  # defstruct, defexception
            pos = _struct(g, mod, kw, at, pos)


def _module(
    g: _File, stack: list[_Frame], outer: _Module | None, kw: str, at: int, pos: int
) -> int:
    """A module (a protocol, an implementation) opening at `at`: its frame, when a `do`
    block follows its name. Returns where the walk goes on."""
    code = g.code
    m = _MODULE_NAME.match(code, pos)
    written = re.sub(r"\s", "", m.group("name")) if m else ""
    parts = tuple(p for p in written.split(".") if p)
    if parts[:1] == ("Elixir",):
        path = parts[1:]
    elif parts[:1] == ("__MODULE__",):
        path = (*(outer.path if outer else ()), *parts[1:])
    else:
        path = (*(outer.path if outer else ()), *parts)
    after = m.end() if m else pos
    line_end = code.find("\n", after)
    line_end = len(code) if line_end < 0 else line_end
    do = _DO.search(code, after, line_end)
    if do is None:
        return after
    module = _Module(path, outer, "protocol" if kw == "defprotocol" else "module", at)
    module.hidden = kw == "defimpl" or not parts  # (`defmodule unquote(name)`: unknown)
    module.last = do.end()
    g.modules.append(module)
    stack.append(_Frame("module", module))
    return do.end()


def _attribute(g: _File, mod: _Module, name: str, at: int, pos: int) -> int:
    end = g.statement_end(pos)
    if g.code[mod.last : at].strip():
        mod.pending, mod.pending_type = _Doc(), _Doc()  # another statement took them
    mod.last = end
    if name == "moduledoc":
        said = g.value(pos, end)
        _merge(mod.doc, said)
        mod.hidden = mod.hidden or said.hidden
    elif name == "doc":
        _merge(mod.pending, g.value(pos, end))
    elif name == "typedoc":
        _merge(mod.pending_type, g.value(pos, end))
    elif name == "deprecated":
        said = g.value(pos, end)
        mod.pending.deprecated = " ".join((said.text or "").split())
    elif name == "spec":
        h = head(g.code, g.text, pos, spec=True)
        if h is not None:
            spec = type_text(g.text[pos:end], mod.name)
            mod.specs.setdefault((h.name, len(h.args)), []).append(spec)
    elif name in ("callback", "macrocallback"):
        doc, mod.pending = mod.pending, _Doc()
        h = head(g.code, g.text, pos, spec=True)
        if h is not None and doc.text and not doc.hidden:
            args = [_callback_arg(a, k) for k, a in enumerate(h.written, 1)]
            item = _Item(mod, name, h.name, args, doc, at)
            item.spec = type_text(g.text[pos:end], mod.name)
            g.items.append(item)
    elif name in ("type", "opaque", "typep"):
        doc, mod.pending_type = mod.pending_type, _Doc()
        h = head(g.code, g.text, pos, spec=True)
        if h is not None and name != "typep" and doc.text and not doc.hidden:
            item = _Item(mod, name if name == "opaque" else "type", h.name, h.written, doc, at)
            params = frozenset(a for a in h.written if re.fullmatch(r"[a-z_]\w*", a))
            item.spec = type_text(g.text[pos:end], mod.name, params)
            g.items.append(item)
    elif name == "optional_callbacks":
        for k in re.finditer(r"([a-z_]\w*[?!]?):\s*(\d+)", g.text[pos:end]):
            mod.optional.add((k.group(1), int(k.group(2))))
    return end


def _definition(g: _File, mod: _Module, kw: str, at: int, pos: int) -> int:
    """A function, macro or guard clause (or a `defdelegate`) at `at`: its document when a
    `@doc` stands right over it. Returns where the walk goes on (its body's `do` next)."""
    doc = mod.pending if not g.code[mod.last : at].strip() else _Doc()
    mod.pending, mod.pending_type = _Doc(), _Doc()
    h = head(g.code, g.text, pos)
    mod.last = h.end if h is not None else pos
    if h is None:
        return pos
    if kw in _PRIVATE or doc.hidden or not doc.text or not doc.text.strip():
        return h.end
    args = [_shown(a, c) for a, c in zip(h.args, h.codes, strict=True)]
    defaults = sum(1 for a in args if " \\\\ " in a)
    kind = "macro" if kw in _MACROS else "function"
    item = _Item(mod, kind, h.name, args, doc, at, defaults)
    if kw == "defdelegate":
        end = g.statement_end(h.end)
        rest = g.text[h.end : end]
        to = re.search(r"\bto:\s*([\w.:]+)", rest)
        as_ = re.search(r"\bas:\s*:?(\w+[?!]?)", rest)
        if to is not None:
            target = as_.group(1) if as_ else h.name
            item.lines.append(f"Delegates to `{to.group(1)}.{target}/{len(args)}`.")
    g.items.append(item)
    return h.end


def _struct(g: _File, mod: _Module, kw: str, at: int, pos: int) -> int:
    """A `defstruct` (`defexception`): its fields, and a `@doc` over it the struct's, which
    ExDoc shows as `%Module{}`."""
    end = g.statement_end(pos)
    mod.fields = _fields(g, pos, end)
    if kw == "defexception":
        mod.kind = "exception"
    doc = mod.pending if not g.code[mod.last : at].strip() else _Doc()
    if doc.text and doc.text.strip() and not doc.hidden:
        g.items.append(_Item(mod, "struct", "__struct__", [], doc, at))
    mod.pending, mod.pending_type, mod.last = _Doc(), _Doc(), end
    return end


def _fields(g: _File, pos: int, end: int) -> list[str]:
    """A `defstruct`'s (a `defexception`'s) keys: its list's atoms and keywords' keys."""
    code = g.code
    i = pos
    while i < end and code[i] in " \t(":
        i += 1
    if code[i : i + 1] == "[":
        a, b = i + 1, closing(code, i) - 1
    else:
        a, b = i, end
    keys: list[str] = []
    args, _ = _split_args(code, g.text, a, b, keywords=False)
    for arg in args:
        m = re.fullmatch(r"\s*(?::([a-z_]\w*[?!]?)\s*|([a-z_]\w*[?!]?):\s.*)", arg, re.S)
        if m is not None:
            keys.append(m.group(1) or m.group(2))
    return keys


# ----------------------------------------------------------------------------- documents
def _since_lines(doc: _Doc) -> list[str]:
    return [
        f"Deprecated: {doc.deprecated}" if doc.deprecated else "",
        f"Since: {doc.since}" if doc.since else "",
    ]


def _document(g: _File, qual: str, text: str, kind: str, signature: str, at: int) -> Document:
    return api_document(
        g.source,
        URI_PREFIX,
        g.f,
        qual,
        text,
        kind,
        signature,
        g.line(at),
        language="elixir",
    )


def _join(parts: list[str]) -> str:
    return "\n\n".join(p for p in parts if p)


def _module_document(g: _File, mod: _Module) -> Document | None:
    if mod.left_out or not mod.doc.text or not mod.doc.text.strip():
        return None
    fields = ", ".join(f"`{k}`" for k in mod.fields)
    text = _join(
        [
            mod.name,
            doc_text(mod.doc.text),
            f"Fields: {fields}" if fields else "",
            *_since_lines(mod.doc),
        ]
    )
    return _document(g, mod.name, text, mod.kind, "", mod.at)


def _item_document(g: _File, item: _Item, functions: set[str]) -> Document:
    """An item's document; a callback or a type named like a function of its module (which
    keeps the plain name) by ExDoc's `c:` or `t:` reference (`c:Access.fetch/2`)."""
    mod = item.module
    arity = len(item.args)
    qual = f"{mod.name}.{item.name}/{arity}"
    if item.kind not in ("function", "macro", "struct") and qual in functions:
        qual = f"{'t' if item.kind in ('type', 'opaque') else 'c'}:{qual}"
    signature = f"({', '.join(item.args)})"
    head = f"{mod.name}.{item.name}{signature}"
    lines: list[str] = []
    if item.kind == "struct":
        head, signature = f"%{mod.name}{{}}", ""
        fields = ", ".join(f"`{k}`" for k in mod.fields)
        lines.append(f"Fields: {fields}" if fields else "")
    elif item.kind == "macro":
        lines.append("Macro.")
    elif item.kind in ("callback", "macrocallback"):
        optional = "Optional" if (item.name, arity) in mod.optional else ""
        said = "macro callback" if item.kind == "macrocallback" else "callback"
        lines.append(f"{optional} {said}.".strip().capitalize())
    if item.defaults:
        lower = [f"`{item.name}/{k}`" for k in range(arity - item.defaults, arity)]
        lines.append(f"Default arguments: may also be called as {', '.join(lower)}.")
    lines += item.lines
    specs: list[str] = []
    if item.kind in ("type", "opaque"):
        lines.append("Opaque type." if item.kind == "opaque" else f"Definition: `{item.spec}`")
    elif item.spec:
        specs.append(item.spec)
    elif item.kind != "struct":
        for k in range(arity - item.defaults, arity + 1):
            specs += mod.specs.get((item.name, k), [])
    spec_lines = "\n".join(f"Spec: `{s}`" for s in specs)
    text = _join(
        [
            head,
            doc_text(item.doc.text or ""),
            *lines,
            spec_lines,
            *_since_lines(item.doc),
        ]
    )
    return _document(g, qual, text, item.kind, signature, item.at)


def file_documents(f: ElixirFile, source: str) -> Iterator[Document]:
    """The documents of one file, in the order its items stand; of a name documented twice
    (a later clause's `@doc`), the first."""
    g = _File(f, source)
    _walk(g)
    made: list[tuple[int, Document]] = []
    for mod in g.modules:
        doc = _module_document(g, mod)
        if doc is not None:
            made.append((mod.at, doc))
    functions = {
        f"{it.module.name}.{it.name}/{len(it.args)}"
        for it in g.items
        if it.kind in ("function", "macro")
    }
    for item in g.items:
        if not item.module.left_out:
            made.append((item.at, _item_document(g, item, functions)))
    seen: set[str] = set()
    for _, doc in sorted(made, key=lambda x: x[0]):
        if doc.uri not in seen:
            seen.add(doc.uri)
            yield doc
