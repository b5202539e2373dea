"""Haskell files read as their package's API, as Haddock reads it: one document per module
with a header doc, and one per exported function, type, constructor, record field, class
and class method that has a Haddock comment. A `-- |` comment (its following `--` lines
too) or a `{-| -}` block right over a declaration documents it; a `-- ^` comment after a
constructor, a field, a method or a function's argument documents that.

The uri is `haskell:<Module>.<name>` (`haskell:Data.Aeson.decode`, `haskell:Data.Aeson.<|>`
for an operator): Haskell's record fields and class methods are top-level names of their
module, and constructors share the namespace of values, so all are named by the module, as
Haddock links them. The text is the form the question templates read: the signature as
Haddock shows it on one line (`foldr :: (a -> b -> b) -> b -> [a] -> b`, `data Maybe a`,
`class Functor f`, a constructor as written: `Just a`, a field `name :: Type`), then the doc
turned to Markdown, then one `:param <n> (<type>): text` line per argument a `-- ^` comment
documents (arguments have no names in a type: they are named by their position and
type), `:returns: text` for a documented result, and `Since: x` from `@since x`. A module's
text is its name over its header's doc: its `Description:` field its first line, the other
metadata fields (`Module:`, `Copyright:`, `License:`, `Maintainer:`, ...) dropped.

Haddock's markup becomes Markdown: 'identifier' and "Module.Name" links, @code@ to code
spans, /emphasis/ and __bold__, `>>>` examples with their results and `>` bird-track blocks
fenced as ```` ```haskell ````, `<url label>` to its label, lists kept, `\\@`-style escapes
read; named chunks (`-- $name`) and section headings (`-- * Heading`) document nothing.

The files are scanned, never compiled: line comments (`--`, but not an operator such as
`-->` or `|--`), nested block comments, pragmas, strings with their escapes and character
literals (told apart from a promoted constructor `'Just` and a name's prime `foldl'`) are
told apart from code, and CPP lines (`#if`) are skipped, both branches read. Declarations
are the lines that start at column 0 (Haskell's layout of a module's body). With an export
list, only what it names is the API (`T(..)` its constructors, fields and methods too; a
`module X` re-export is not followed); without one, every top-level name is. Tests (under
`test/`, `tests/`, `testsuite/`; `*Spec.hs`, `*Test.hs`, `*Tests.hs`) give no document and
are counted, and so is a file with nothing documented.
"""

from __future__ import annotations

import re
import textwrap
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.codescan import blank, closing
from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

SUFFIXES = (".hs",)
URI_PREFIX = "haskell:"
# reasons a Haskell file gave no document, as the collect stage counts them
HASKELL_TEST = "haskell_test"
HASKELL_NO_API = "haskell_no_api"
_AS_TEXT = (
    "Haskell files read as their module's API (the Haddock comments of exported "
    "functions, types, constructors, fields and classes): tests and files with nothing "
    "documented give none; the source's haskell: text reads them as text"
)
FIXES = {HASKELL_TEST: _AS_TEXT, HASKELL_NO_API: _AS_TEXT}
_TEST_FOLDERS = frozenset({"test", "tests", "testsuite"})
_TEST_NAME = re.compile(r"(?:Spec|Tests?)\.hs$")

HaskellFile = SourceFile  # its files, as the source hands them over


def is_haskell(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return bool(_TEST_FOLDERS & set(rel.parts[:-1])) or bool(_TEST_NAME.search(rel.name))


def api_documents(
    files: list[HaskellFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented exported API the files define, sorted by uri; a file
    that gives none is counted in `rejects`."""

    def read(f: HaskellFile) -> list[Document] | str:
        if is_test(f.rel):
            return HASKELL_TEST
        return list(file_documents(f, source))

    return first_documents(files, rejects, read, HASKELL_NO_API)


# ----------------------------------------------------------------------------- scanning
@dataclass
class Comment:
    """A comment (a run of line comments on adjacent lines, or a block): where it stands,
    its Haddock marker (`|`, `^`, `$`, `*`, or "" for a plain one) and its text without
    the comment's syntax and the marker."""

    start: int
    end: int
    marker: str
    text: str
    line_comment: bool = True


_SYMBOL = "!#$%&*+./<=>?@\\^|-~:"
_SPECIAL = re.compile(r"--|\{-|\"|'|^#", re.M)
_CHAR = re.compile(r"'(?:\\(?:[^'\s]{1,10}|')|[^'\\\n])'")
_MARKER = re.compile(r"[ \t]*([|^$*])")
_CPP = re.compile(r"#[ \t]*[a-z]")


def _is_line_comment(text: str, i: int) -> bool:
    """Whether the dashes at `i` open a line comment: `--`, `---`, not an operator
    (`-->`, `|--`)."""
    if i and text[i - 1] in _SYMBOL:
        return False
    j = i
    while j < len(text) and text[j] == "-":
        j += 1
    return j >= len(text) or text[j] not in _SYMBOL


def _word(c: str) -> bool:
    return c.isalnum() or c in "_'" or c > "\x7f"


class _Scanner:
    """Haskell source with its comments, pragmas, literals and CPP lines blanked (same
    length, line breaks kept; a literal's quotes kept), and its comments."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.out = list(text)
        self.comments: list[Comment] = []

    def run(self) -> str:
        text, n = self.text, self.n
        i = 0
        while i < n:
            m = _SPECIAL.search(text, i)
            if m is None:
                break
            i = m.start()
            tok = m.group()
            if tok == "--":
                i = self._line_comment(i) if _is_line_comment(text, i) else i + 2
            elif tok == "{-":
                i = self._block(i)
            elif tok == '"':
                i = self._string(i)
            elif tok == "'":
                i = self._char(i)
            else:  # `#` at a line's start: a CPP line (with its `\` continuations)
                i = self._cpp(i)
        return "".join(self.out)

    def _line_end(self, i: int) -> int:
        j = self.text.find("\n", i)
        return self.n if j < 0 else j

    def _line_comment(self, i: int) -> int:
        end = self._line_end(i)
        j = i
        while j < end and self.text[j] == "-":
            j += 1
        self._add(i, end, self.text[j:end], alone=self._alone(i))
        blank(self.out, i, end)
        return end

    def _alone(self, i: int) -> bool:
        """Whether only indentation stands before `i` on its line."""
        start = self.text.rfind("\n", 0, i) + 1
        return not self.text[start:i].strip()

    def _add(self, start: int, end: int, body: str, alone: bool, block: bool = False) -> None:
        """A comment recorded: a line comment alone on the line after a doc's (a named
        chunk's) last line carries it on, unless it opens a doc of its own (`|`, `^`)."""
        m = _MARKER.match(body)
        marker = m.group(1) if m else ""
        last = self.comments[-1] if self.comments else None
        if (
            not block
            and alone
            and marker not in ("|", "^")
            and last is not None
            and last.marker in ("|", "^", "$")
            and last.line_comment
            and self.text.count("\n", last.end, start) == 1
            and not self.text[last.end : start].strip()
        ):
            last.text += "\n" + body
            last.end = end
            return
        if m is not None:
            body = body[m.end() :]
        self.comments.append(Comment(start, end, marker, body, not block))

    def _block(self, i: int) -> int:
        """Past the (nested) block comment or pragma at `i`."""
        text, n = self.text, self.n
        depth = 0
        j = i
        while j < n:
            if text.startswith("{-", j):
                depth += 1
                j += 2
            elif text.startswith("-}", j):
                depth -= 1
                j += 2
                if depth == 0:
                    break
            else:
                j += 1
        end = min(j, n)
        if not text.startswith("{-#", i):
            inner = text[i + 2 : end - 2 if text.startswith("-}", end - 2) else end]
            self._add(i, end, inner, alone=True, block=True)
        blank(self.out, i, end)
        return end

    def _string(self, i: int) -> int:
        text, n = self.text, self.n
        j = i + 1
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
            elif c == '"':
                blank(self.out, i + 1, j)
                return j + 1
            elif c == "\n":
                break
            else:
                j += 1
        end = min(j, n)
        blank(self.out, i + 1, end)
        return end

    def _char(self, i: int) -> int:
        """A character literal (`'a'`, `'\\''`), unless the quote is a name's prime
        (`foldl'`) or a promotion (`'Just`, `'[]`)."""
        if i and _word(self.text[i - 1]):
            return i + 1
        m = _CHAR.match(self.text, i)
        if m is None:
            return i + 1
        blank(self.out, i + 1, m.end() - 1)
        return m.end()

    def _cpp(self, i: int) -> int:
        if not _CPP.match(self.text, i):
            return i + 1
        end = self._line_end(i)
        while end < self.n and self.text[end - 1 : end] == "\\":
            end = self._line_end(end + 1)
        blank(self.out, i, end)
        return end


def scan(text: str) -> tuple[str, list[Comment]]:
    """(the code with comments, pragmas, literals and CPP lines blanked; the comments)."""
    s = _Scanner(text)
    code = s.run()
    return code, s.comments


def _comment_text(c: Comment) -> str:
    """A comment's text dedented: a line comment's lines lose the one space after `--`, a
    block's the indentation its lines share."""
    lines = c.text.split("\n")
    if c.text and lines[0][:1] == " ":
        lines[0] = lines[0][1:]
    first, rest = lines[0], "\n".join(lines[1:])
    return (first + "\n" + textwrap.dedent(rest)).strip("\n") if rest else first.strip()


# ----------------------------------------------------------------------------- markup
_METADATA = re.compile(
    r"^\s*(Module|Description|Copyright|License|Licence|Maintainer|Stability|Portability"
    r"|SPDX-License-Identifier)\s*:\s*(.*)$",
    re.I,
)
_SINCE = re.compile(r"^\s*@since\s+(\S+)\s*$", re.M)
_CODE_AT = re.compile(r"(?<![\\\w])@([^@\n]+?)(?<!\\)@")
_EMPHASIS = re.compile(r"(?<![\\\w/:<])/([^/\s](?:[^/\n]*?[^/\s\\])?)/(?![\w/])")
_BOLD = re.compile(r"__([^_\n](?:[^\n]*?[^_\n])?)__")
_IDENT = re.compile(
    r"(?<![\w\\])['`]([A-Za-z_][\w.]*'*|[A-Za-z_.]*[!#$%&*+/<=>?@^|~:\\.-]+)['`]"
    r"(?:(?!\w)|(?=s\b))"  # a possessive after it too: 'Chunk's
)
_MODULE_LINK = re.compile(r'"([A-Z][\w]*(?:\.[A-Z][\w]*)*(?:#[^"\s]*)?)"')
_URL = re.compile(r"<((?:https?|ftp|file|mailto):[^\s>]+)(?:\s+([^>]+))?>")
_PICTURE = re.compile(r"<<([^\s>]+)(?:\s+([^>]+))?>>")
_ESCAPE = re.compile(r"\\([@/'\"`<>*_\\$#-])")
_NUMBERED = re.compile(r"^(\s*)\((\d+)\)\s+")


def _inline(line: str) -> str:
    line = _PICTURE.sub(lambda m: m.group(2) or m.group(1), line)
    line = _URL.sub(lambda m: m.group(2) or m.group(1), line)
    line = _CODE_AT.sub(lambda m: "`" + _IDENT.sub(r"\1", m.group(1)) + "`", line)
    parts = re.split(r"(`[^`\n]*`)", line)
    for k in range(0, len(parts), 2):
        p = parts[k]
        p = _IDENT.sub(lambda m: f"`{m.group(1)}`", p)
        p = _MODULE_LINK.sub(lambda m: f"`{m.group(1)}`", p)
        p = _BOLD.sub(r"**\1**", p)
        p = _EMPHASIS.sub(r"*\1*", p)
        parts[k] = p
    line = "".join(parts)
    line = _NUMBERED.sub(r"\1\2. ", line)
    return _ESCAPE.sub(r"\1", line)


def doc_text(text: str) -> tuple[str, str]:
    """(Haddock markup as Markdown, its `@since` version)."""
    since = ""
    m = _SINCE.search(text)
    if m is not None:
        since = m.group(1)
        text = _SINCE.sub("", text)
    out: list[str] = []
    fence = ""  # "example", "bird", "at": the block now fenced
    for line in text.split("\n"):
        s = line.strip()
        if fence == "at":
            if s == "@":
                out.append("```")
                fence = ""
            else:
                out.append(_ESCAPE.sub(r"\1", _IDENT.sub(r"\1", line)))
            continue
        if fence == "example" and s and not s.startswith(">>>"):
            out.append(line)  # the example's result
            continue
        if fence == "bird" and s.startswith(">") and not s.startswith(">>>"):
            out.append(s[2:] if s.startswith("> ") else s[1:])
            continue
        if fence and (not s or s.startswith(">>>") != (fence == "example")):
            out.append("```")
            fence = ""
        if s.startswith(">>>"):
            if not fence:
                out.append("```haskell")
                fence = "example"
            out.append(s)
        elif s.startswith(">") and (not out or not out[-1].strip() or fence):
            out.append("```haskell")
            fence = "bird"
            out.append(s[2:] if s.startswith("> ") else s[1:])
        elif s == "@":
            out.append("```haskell")
            fence = "at"
        else:
            out.append(_inline(line))
    if fence:
        out.append("```")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip(), since


def _header_text(text: str) -> str:
    """A module header's doc: its `Description:` first, the other metadata fields (and
    their continuation lines) dropped."""
    description = ""
    kept: list[str] = []
    in_field = False
    for line in text.split("\n"):
        m = _METADATA.match(line)
        if m is not None:
            in_field = True
            if m.group(1).lower() == "description":
                description = m.group(2).strip()
            continue
        if in_field and line[:1] in (" ", "\t") and line.strip():
            continue  # a field's continuation line
        in_field = False
        kept.append(line)
    return (description + "\n\n" + "\n".join(kept)).strip()


# ----------------------------------------------------------------------------- reading
_MODULE = re.compile(r"module\s+([A-Z][\w']*(?:\.[A-Z][\w']*)*)")
_NAME = re.compile(r"\(\s*([^\s()]+)\s*\)|([a-zA-Z_][\w']*)")
_KEYWORD_DECL = re.compile(
    r"(data\s+family|data\s+instance|newtype\s+instance|type\s+family|type\s+instance"
    r"|data|newtype|type|class|instance|import|infix[lr]?|deriving|pattern|default"
    r"|foreign|module)\b"
)
_DERIVING = re.compile(r"\bderiving\b")
_CONTEXT = re.compile(r"^.*?=>\s*", re.S)
_FORALL = re.compile(r"^\s*forall\b[^.]*\.\s*")
_SPACES = re.compile(r"\s+")
_DOC_LINE = re.compile(r"\S")


@dataclass
class _Exports:
    names: set[str] = field(default_factory=set)
    whole: set[str] = field(default_factory=set)  # `T(..)`: with all its parts
    everything: bool = True  # no export list


@dataclass
class _Item:
    name: str
    kind: str
    head: str
    doc: str
    at: int
    owner: str = ""  # a constructor's, field's or method's type or class
    params: list[str] = field(default_factory=list)


class _File:
    def __init__(self, f: HaskellFile, source: str) -> None:
        self.f = f
        self.source = source
        self.text = f.text
        self.code, self.comments = scan(f.text)
        self.lines = [0] + [m.end() for m in re.finditer("\n", f.text)]
        self.before: dict[int, Comment] = {}  # `|` docs by where the code after them starts
        self.after: list[Comment] = []
        for c in self.comments:
            if c.marker == "|":
                nxt = _DOC_LINE.search(self.code, c.end)
                if nxt is not None:
                    self.before.setdefault(nxt.start(), c)
            elif c.marker == "^":
                self.after.append(c)
        self.after_starts = [c.start for c in self.after]
        self.module = "Main"
        self.header = ""
        self.module_at = 0
        self.exports = _Exports()
        self.items: list[_Item] = []

    def line(self, at: int) -> int:
        return bisect_right(self.lines, at)

    def doc_before(self, at: int) -> str:
        c = self.before.get(at)
        return _comment_text(c) if c is not None else ""

    def docs_after(self, a: int, b: int) -> list[Comment]:
        """The `^` docs standing between positions a and b."""
        k = bisect_right(self.after_starts, a)
        got: list[Comment] = []
        while k < len(self.after) and self.after[k].start < b:
            got.append(self.after[k])
            k += 1
        return got

    def doc_after(self, a: int, b: int) -> str:
        return "\n\n".join(_comment_text(c) for c in self.docs_after(a, b))

    def flat(self, a: int, b: int) -> str:
        """The code between a and b on one line, its literals given back."""
        return _SPACES.sub(" ", _restored(self.text, self.code, a, b)).strip()


def _restored(text: str, code: str, a: int, b: int) -> str:
    """Code with its literals as written but its comments blanked: where the code kept
    a quote, the text's literal is taken back."""
    out: list[str] = []
    i = a
    while i < b:
        c = code[i]
        if c in "\"'" and text[i] == c:
            j = i + 1
            while j < b and code[j] == " " and text[j] != "\n":
                j += 1
            if j < b and code[j] == c:
                out.append(text[i : j + 1])
                i = j + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _top_declarations(code: str) -> list[tuple[int, int]]:
    """The spans of the declarations that start at column 0."""
    starts = [m.start() for m in re.finditer(r"^\S", code, re.M)]
    return [(s, starts[k + 1] if k + 1 < len(starts) else len(code)) for k, s in enumerate(starts)]


def _split_top(code: str, a: int, b: int, sep: str) -> list[tuple[int, int]]:
    """The stretches of code[a:b] between the `sep` characters outside brackets."""
    parts: list[tuple[int, int]] = []
    depth = 0
    start = a
    for i in range(a, b):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c == sep and _lone_symbol(code, i):
            parts.append((start, i))
            start = i + 1
    parts.append((start, b))
    return parts


def _lone_symbol(code: str, i: int) -> bool:
    """Whether the symbol at `i` is an operator by itself (`|`, not `||` or `<|>`)."""
    before = code[i - 1] if i else " "
    after = code[i + 1] if i + 1 < len(code) else " "
    return code[i] == "," or (before not in _SYMBOL and after not in _SYMBOL)


def _arrows(code: str, a: int, b: int) -> list[int]:
    """Where the `->` outside brackets stand in code[a:b]."""
    got: list[int] = []
    depth = 0
    i = a
    while i < b:
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif (
            depth == 0
            and code.startswith("->", i)
            and (i == 0 or code[i - 1] not in _SYMBOL)
            and (i + 2 >= len(code) or code[i + 2] not in _SYMBOL)
        ):
            got.append(i)
            i += 1
        i += 1
    return got


def _find_top(code: str, a: int, b: int, token: str) -> int:
    """Where `token` (`::`, `=`, `=>`) stands outside brackets in code[a:b], as an operator
    of its own; -1 when it does not."""
    depth = 0
    for i in range(a, b):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and code.startswith(token, i):
            end = i + len(token)
            if (i == 0 or code[i - 1] not in _SYMBOL) and (
                end >= len(code) or code[end] not in _SYMBOL
            ):
                return i
    return -1


def _names(code: str, a: int, b: int) -> list[str]:
    """The names of `a, (<|>), b` before a `::`."""
    names: list[str] = []
    for x, y in _split_top(code, a, b, ","):
        m = _NAME.fullmatch(code[x:y].strip())
        if m is None:
            return []
        names.append(m.group(1) or m.group(2))
    return names


def _exports(code: str, i: int) -> tuple[_Exports, int]:
    """The export list opening at `i` (a `(`), and where it ends."""
    end = closing(code, i)
    ex = _Exports(everything=False)
    for a, b in _split_top(code, i + 1, end - 1, ","):
        entry = _SPACES.sub(" ", code[a:b]).strip()
        if not entry or entry.startswith("module "):
            continue
        entry = re.sub(r"^(?:pattern|type)\s+", "", entry)
        m = re.match(r"(\([^)]*\)|[\w'.]+)\s*(?:\((.*)\))?$", entry, re.S)
        if m is None:
            continue
        name = m.group(1).strip("() ").split(".")[-1] if "(" not in m.group(1) else ""
        name = name or m.group(1).strip("() ")
        ex.names.add(name)
        parts = m.group(2)
        if parts is not None:
            for p in parts.split(","):
                p = p.strip().strip("() ")
                if p == "..":
                    ex.whole.add(name)
                elif p:
                    ex.names.add(p)
    return ex, end


def _walk(g: _File) -> None:
    code = g.code
    for a, b in _top_declarations(code):
        kw = _KEYWORD_DECL.match(code, a)
        word = kw.group(1).split()[0] if kw else ""
        if word == "module" and kw is not None:
            _module(g, a, b)
        elif word in ("data", "newtype") and kw is not None and " " not in kw.group(1):
            _data(g, a, kw.end(), b, word)
        elif word == "type" and kw is not None:
            _type(g, a, kw.end(), b, kw.group(1))
        elif word == "data" and kw is not None and kw.group(1).endswith("family"):
            _type(g, a, kw.end(), b, "data family")
        elif word == "class":
            _class(g, a, b)
        elif not word:
            _binding(g, a, b, "")


def _module(g: _File, a: int, b: int) -> None:
    m = _MODULE.match(g.code, a)
    if m is None:
        return
    g.module, g.module_at = m.group(1), a
    c = g.before.get(a)
    g.header = _comment_text(c) if c is not None else ""
    k = m.end()
    while k < len(g.code) and g.code[k].isspace():
        k += 1
    if g.code[k : k + 1] == "(":
        g.exports, _ = _exports(g.code, k)


def _binding(g: _File, a: int, b: int, owner: str) -> None:
    """A type signature (`f, g :: T`) documented by a `|` over it and `^` on its
    arguments; or a documented equation with no signature."""
    code = g.code
    doc = g.doc_before(a)
    sig = _find_top(code, a, b, "::")
    eq = _find_top(code, a, b, "=")
    if sig < 0 or (0 <= eq < sig):
        if doc:
            m = _NAME.match(code, a)
            if m is not None and not (m.group(2) or "").startswith(("_",)):
                name = m.group(1) or m.group(2)
                g.items.append(_Item(name, "function", name, doc, a, owner))
        return
    names = _names(code, a, sig)
    if not names:
        return
    type_at = sig + 2
    shown = g.flat(type_at, b)
    params, result = _arguments(g, type_at, b)
    # arguments have no names in a type: each by its place and type, a line of its own
    lines = [f"Argument {k} {t}: {d}" for k, t, d in params]
    if result:  # a field of its own paragraph: the argument lines are no field list
        lines += ["", f":returns: {result}"] if lines else [f":returns: {result}"]
    if not doc and not lines:
        return
    for name in names:
        head = f"{_shown_name(name)} :: {shown}"
        item = _Item(name, "method" if owner else "function", head, doc, a, owner, lines)
        g.items.append(item)


def _shown_name(name: str) -> str:
    return name if re.match(r"[\w']", name) else f"({name})"


def _arguments(g: _File, a: int, b: int) -> tuple[list[tuple[int, str, str]], str]:
    """The `^` docs on a signature's arguments: (position, type, doc) each, and the
    result's doc."""
    code = g.code
    start = a
    ctx = _find_top(code, a, b, "=>")
    if ctx >= 0:
        start = ctx + 2
    arrows = _arrows(code, start, b)
    bounds = [start, *[x + 2 for x in arrows], b]
    pieces = [(bounds[k], (arrows + [b])[k]) for k in range(len(bounds) - 1)]
    got: list[tuple[int, str, str]] = []
    result = ""
    for c in g.docs_after(a, b):
        k = sum(1 for x in arrows if x < c.start)
        text = " ".join(doc_text(_comment_text(c))[0].split())
        if k < len(pieces) - 1:
            t = _FORALL.sub("", g.flat(*pieces[k]))
            wrapped = t.startswith("(") and closing(t, 0) == len(t)
            got.append((k + 1, t if wrapped else f"({t})", text))
        else:
            result = text
    return got, result


def _decl_head(g: _File, a: int, b: int) -> str:
    """A declaration's head without its context: `data Maybe a`."""
    text = g.flat(a, b)
    m = re.match(r"(\S+(?:\s+(?:family|instance))?)\s+(.*)", text, re.S)
    if m is None:
        return text
    rest = m.group(2)
    if "=>" in rest:
        rest = rest.split("=>", 1)[1].strip()
    return f"{m.group(1)} {rest}".strip()


def _type(g: _File, a: int, after: int, b: int, kw: str) -> None:
    doc = g.doc_before(a)
    where = re.search(r"\bwhere\b", g.code[a:b])
    end = a + where.start() if where else b
    name = _head_name(g.code, after, end)
    if not doc or not name:
        return
    head = g.flat(a, end) if kw == "type" else _decl_head(g, a, end)
    g.items.append(_Item(name, "type", head, doc, a))


def _head_name(code: str, a: int, b: int) -> str:
    """The name a declaration's head declares: past its context, the first name in capitals
    or the operator in parentheses (or between its arguments)."""
    head = code[a:b]
    arrow = _find_top(code, a, b, "=>")
    eq = _find_top(code, a, b, "=")
    if arrow >= 0 and (eq < 0 or arrow < eq):
        head = code[arrow + 2 : b]
    m = re.search(r"\(\s*([^\s()\w]+)\s*\)|\b([A-Z][\w']*)|\s([:!#$%&*+./<=>?@^|~-]+)\s", head)
    if m is None:
        return ""
    return m.group(1) or m.group(2) or m.group(3)


def _data(g: _File, a: int, after: int, b: int, kw: str) -> None:
    """A data or newtype declaration: the type, its constructors and record fields."""
    code = g.code
    where = re.search(r"\bwhere\b", code[after:b])
    eq = _find_top(code, after, after + where.start() if where else b, "=")
    head_end = eq if eq >= 0 else (after + where.start() if where else b)
    name = _head_name(code, after, head_end)
    if not name:
        return
    doc = g.doc_before(a)
    if doc:
        g.items.append(_Item(name, "type", _decl_head(g, a, head_end), doc, a))
    if eq >= 0:
        deriving = _DERIVING.search(code, eq, b)
        end = deriving.start() if deriving else b
        _constructors(g, name, eq + 1, end)
    elif where is not None:
        _body(g, after + where.end(), b, name, "constructor")


def _constructors(g: _File, owner: str, a: int, b: int) -> None:
    code = g.code
    parts = _split_top(code, a, b, "|")
    for x, y in parts:
        m = _DOC_LINE.search(code, x, y)
        if m is None:
            continue
        start = m.start()
        doc = g.doc_before(start)
        body = code[start:y]
        body_start = start
        ctx = _find_top(code, start, y, "=>")
        if ctx >= 0:
            body_start = ctx + 2
        f = _FORALL.match(code, body_start)
        if f is not None:
            body_start = f.end()
        brace = code.find("{", body_start, y)
        name_m = re.compile(r"\s*(?:\(\s*([^\s()]+)\s*\)|([A-Z][\w']*))").match(code, body_start)
        if brace >= 0 and name_m is not None:
            name = name_m.group(1) or name_m.group(2)
            close = closing(code, brace)
            head = g.flat(body_start, brace).strip()
            doc = "\n\n".join(d for d in (doc, g.doc_after(close, y)) if d)
            _fields(g, owner, brace + 1, close - 1)
        else:
            infix = re.search(r"\s(:[!#$%&*+./<=>?@^|~:-]*)\s", body)
            if name_m is not None and (infix is None or name_m.group(2)):
                name = name_m.group(1) or name_m.group(2)
            elif infix is not None:
                name = infix.group(1)
            else:
                continue
            head = g.flat(body_start, y)
            after = g.doc_after(start, y)
            doc = "\n\n".join(d for d in (doc, after) if d)
        if doc:
            g.items.append(_Item(name, "constructor", head, doc, start, owner))


def _fields(g: _File, owner: str, a: int, b: int) -> None:
    code = g.code
    for x, y in _split_top(code, a, b, ","):
        m = _DOC_LINE.search(code, x, y)
        if m is None:
            continue
        start = m.start()
        sig = _find_top(code, start, y, "::")
        if sig < 0:
            continue
        names = _names(code, start, sig)
        doc = "\n\n".join(d for d in (g.doc_before(start), g.doc_after(sig, y)) if d)
        if not doc:
            continue
        shown = g.flat(sig + 2, y).removeprefix("!").strip()
        for name in names:
            head = f"{_shown_name(name)} :: {shown}"
            g.items.append(_Item(name, "field", head, doc, start, owner))


def _class(g: _File, a: int, b: int) -> None:
    code = g.code
    where = re.search(r"\bwhere\b", code[a:b])
    end = a + where.start() if where else b
    name = _head_name(code, a + len("class"), end)
    if not name:
        return
    fundeps = _find_top(code, a, end, "|")
    head = _decl_head(g, a, fundeps if fundeps >= 0 else end)
    doc = g.doc_before(a)
    if doc:
        g.items.append(_Item(name, "class", head, doc, a))
    if where is not None:
        _body(g, a + where.end(), b, name, "method")


def _body(g: _File, a: int, b: int, owner: str, kind: str) -> None:
    """A class's (a GADT's) body: its declarations at the column of the first."""
    code = g.code
    m = _DOC_LINE.search(code, a, b)
    if m is None:
        return
    col = m.start() - (code.rfind("\n", 0, m.start()) + 1)
    starts = [
        s.start() + col
        for s in re.finditer(rf"^[ \t]{{{col}}}(?=\S)", code[:b], re.M)
        if s.start() + col >= m.start()
    ]
    for k, s in enumerate(starts):
        e = starts[k + 1] if k + 1 < len(starts) else b
        if _KEYWORD_DECL.match(code, s):
            continue
        before = len(g.items)
        _binding(g, s, e, owner)
        for item in g.items[before:]:
            if kind == "constructor":
                item.kind = kind


# ----------------------------------------------------------------------------- documents
def _exported(g: _File, item: _Item) -> bool:
    ex = g.exports
    if ex.everything or item.name in ex.names:
        return True
    return bool(item.owner) and item.owner in ex.whole


def _document(g: _File, qual: str, text: str, kind: str, signature: str, at: int) -> Document:
    return api_document(
        g.source, URI_PREFIX, g.f, qual, text, kind, signature, g.line(at), language="haskell"
    )


def _join(parts: list[str]) -> str:
    return "\n\n".join(p for p in parts if p)


def file_documents(f: HaskellFile, source: str) -> Iterator[Document]:
    """The documents of one file, in the order its items stand; of a name documented twice,
    the first."""
    g = _File(f, source)
    _walk(g)
    seen: set[str] = set()
    if g.header:
        body, since = doc_text(_header_text(g.header))
        if body:
            seen.add(g.module)
            text = _join([g.module, body, f"Since: {since}" if since else ""])
            yield _document(g, g.module, text, "module", "", g.module_at)
    for item in g.items:
        qual = f"{g.module}.{item.name}"
        if qual in seen or not _exported(g, item):
            continue
        body, since = doc_text(item.doc)
        if not body and not item.params:
            continue
        seen.add(qual)
        text = _join([item.head, body, "\n".join(item.params), f"Since: {since}" if since else ""])
        signature = item.head.split(" :: ", 1)[1] if " :: " in item.head else ""
        yield _document(g, qual, text, item.kind, signature, item.at)
