"""Protocol Buffers (`.proto`) files read as their API, as protoc-gen-doc and buf's docs show
it: one document per documented message, field, oneof, enum, enum value, service, rpc
method and extension, and one for a package whose file opens with a header comment.

The uri is `proto:<package>.<name>`, the full name protoc gives (`proto:google.api.HttpRule`,
a nested one `proto:google.api.Outer.Inner`, a field `proto:google.api.HttpRule.selector`,
a method `proto:google.longrunning.Operations.GetOperation`); a file without a `package`
statement names its items bare. An enum's values are named under their enum
(`proto:google.rpc.Code.OK`), as protoc-gen-doc lists them (protobuf itself scopes them as
the enum's siblings); the fields of a `oneof` are the message's, the oneof a name of its
own; an extension is named by its scope, not by the message it extends.

What documents a declaration are protoc's comment rules: its leading comment (the comment,
or run of `//` lines, right over it with no blank line between; a comment a blank line
parts from it is detached and documents nothing), else its trailing comment (on the line
where it ends, after its `;`, or after the `{` that opens a message, enum, service or
oneof; `//` lines under that at the same column carry it on). A block comment's `*`
decoration at its lines' start is dropped, the lines dedented, and the text kept as the
Markdown it is written in: paragraphs, lists, indented and fenced code as written; the
internal `(-- ... --)` notes Google's API docs hide are dropped, and a reference link
`[HttpRule][google.api.HttpRule]` reads as its label. A file's header is the leading
comment of its `syntax` (`edition`) or `package` statement: the package's document, once
per package; a license there (`Copyright`, `Licensed under`, an SPDX line), or over the
file's first declaration, documents nothing.

A document's text opens with the declaration as protoc-gen-doc shows it, on one line with
its types as written and its options dropped (`repeated HttpRule rules = 1;`, `map<string,
string> labels = 3;`, `OK = 0;`, `rpc GetOperation(GetOperationRequest) returns
(Operation);`, `message Http`, `enum Code`, `service Operations`, `oneof pattern`), then
the doc; `Deprecated.` when its options say `deprecated = true`; an extension's `Extends:`
line; and a message's `Fields:`, an enum's `Values:`, a service's `Methods:` list, one line
per member, documented or not, with its doc's first sentence, so what a message holds is
answerable from its own document.

The files are scanned, never compiled: `//` and `/* */` comments, and strings in single
or double quotes with their escapes, are told apart from code, so a `//` or a brace in a
string is none. A malformed file (unbalanced braces, an unterminated comment or string)
gives what can be read. Tests (under `test/`, `tests/`, `testdata/`, `testing/`;
`*_test.proto`, `unittest*.proto`, `test_*.proto`) give no document and are counted, and
so is a file with nothing documented.
"""

from __future__ import annotations

import re
import textwrap
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

SUFFIXES = (".proto",)
URI_PREFIX = "proto:"
# reasons a .proto file gave no document, as the collect stage counts them
PROTO_TEST = "proto_test"
PROTO_NO_API = "proto_no_api"
_AS_TEXT = (
    "Protocol Buffers files read as their API (the comments on messages, fields, enums, "
    "services and methods): tests and files with nothing documented give none; the "
    "source's proto: text reads them as text"
)
# a template a build fills in (`onnx.in.proto`, `package {PACKAGE_NAME};`) beside its output
PROTO_TEMPLATE = "proto_template"
FIXES = {
    PROTO_TEST: _AS_TEXT,
    PROTO_NO_API: _AS_TEXT,
    PROTO_TEMPLATE: "a build's template (x.in.proto) beside the file it makes (x.proto): the "
    "file it makes is read",
}
_TEST_FOLDERS = frozenset({"test", "tests", "testdata", "testing"})
_TEST_NAME = re.compile(r"(?:_test\.proto|unittest.*\.proto|^test_.*\.proto)$", re.I)

ProtoFile = SourceFile  # its files, as the source hands them over


def is_proto(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return bool(_TEST_FOLDERS & set(rel.parts[:-1])) or bool(_TEST_NAME.search(rel.name))


def api_documents(
    files: list[ProtoFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented declarations the files define, sorted by uri; a file
    that gives none is counted in `rejects`."""

    have = {f.rel for f in files}

    def read(f: ProtoFile) -> list[Document] | str:
        if is_test(f.rel):
            return PROTO_TEST
        made = f.rel.with_name(f.rel.name.removesuffix(".in.proto") + ".proto")
        if f.rel.name.endswith(".in.proto") and made in have:
            return PROTO_TEMPLATE
        return list(file_documents(f, source))

    return first_documents(files, rejects, read, PROTO_NO_API)


# ----------------------------------------------------------------------------- scanning
@dataclass
class Token:
    """A piece of code: a word (a name, a dotted name, a number), a string literal as
    written, or one symbol; where it stands."""

    text: str
    start: int
    end: int
    line: int  # the line it ends on, from 1
    string: bool = False


@dataclass
class Comment:
    """A comment: where it stands, its lines, its column, whether it is a `/* */` block and
    whether code stands before it on its line; its text without the comment's syntax."""

    start: int
    end: int
    line: int
    end_line: int
    column: int
    block: bool
    after_code: bool
    text: str


_LEXEME = re.compile(
    r"""(?P<space>\s+)
    |(?P<line>//[^\n]*)
    |(?P<block>/\*.*?(?:\*/|\Z))
    |(?P<string>"(?:[^"\\\n]|\\[^\n]?)*"?|'(?:[^'\\\n]|\\[^\n]?)*'?)
    |(?P<word>[A-Za-z0-9_.]+)
    |(?P<symbol>.)""",
    re.S | re.X,
)


def scan(text: str) -> tuple[list[Token], list[Comment]]:
    """The file's code tokens and its comments, in the order they stand."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    tokens: list[Token] = []
    comments: list[Comment] = []
    last_code_line = 0
    for m in _LEXEME.finditer(text):
        kind = m.lastgroup
        if kind == "space":
            continue
        start, end = m.span()
        line = bisect_right(newlines, start - 1) + 1
        end_line = bisect_right(newlines, end - 1) + 1
        if kind in ("line", "block"):
            column = start - (newlines[line - 2] + 1 if line > 1 else 0)
            body = m.group()[2:]
            if kind == "block" and body.endswith("*/"):
                body = body[:-2]
            comments.append(
                Comment(
                    start,
                    end,
                    line,
                    end_line,
                    column,
                    kind == "block",
                    last_code_line == line,
                    body,
                )
            )
            continue
        tokens.append(Token(m.group(), start, end, end_line, kind == "string"))
        last_code_line = end_line
    return tokens, comments


# ----------------------------------------------------------------------------- comments
_LICENSE = re.compile(
    r"\bcopyright\b|\blicensed\s+under\b|spdx-license-identifier|all\s+rights\s+reserved"
    r"|permission\s+is\s+hereby\s+granted|you\s+may\s+not\s+use\s+this\s+file"
    r"|\bgnu\s+(?:lesser\s+)?general\s+public\b",
    re.I,
)
_INTERNAL = re.compile(r"\(--.*?--\)", re.S)
_REFERENCE = re.compile(r"\[([^\[\]]+)\]\[(?:[A-Za-z_][\w.]*)?\]")
_DECORATION = re.compile(r"^[ \t]*\*(?!/)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _strip_one_space(line: str) -> str:
    return line[1:] if line.startswith(" ") else line


def _lines(c: Comment) -> list[str]:
    """A comment's lines without its syntax: a block's `*` decoration (when every line
    after its first has it) and its lines' shared indentation dropped."""
    if not c.block:
        return [_strip_one_space(c.text.lstrip("/"))]
    body = c.text.lstrip("*")
    lines = body.split("\n")
    first, rest = lines[0].strip(), lines[1:]
    solid = [x for x in rest if x.strip()]
    if solid and all(_DECORATION.match(x) for x in solid):
        rest = [_strip_one_space(_DECORATION.sub("", x)) if x.strip() else "" for x in rest]
    rest = textwrap.dedent("\n".join(rest)).split("\n") if rest else []
    return [first, *rest]


def _labels(prose: str) -> str:
    """Reference links (`[Http][google.api.Http]`) read as their labels, but not in a code
    span (`[A-Z][a]`)."""

    def label(m: re.Match[str]) -> str:
        return m.group() if prose.count("`", 0, m.start()) % 2 else m.group(1)

    return _REFERENCE.sub(label, prose)


def doc_text(comments: list[Comment]) -> str:
    """The Markdown a run of comments holds: their lines dedented, internal `(-- --)`
    notes dropped, reference links read as their labels, code kept as written."""
    lines: list[str] = []
    for c in comments:
        lines.extend(_lines(c))
    text = textwrap.dedent("\n".join(x.rstrip() for x in lines))
    text = _INTERNAL.sub("", text)
    # runs of prose and of code (fenced; indented after a blank line), in turn
    runs: list[tuple[bool, list[str]]] = []
    fence = ""
    for line in text.split("\n"):
        m = _FENCE.match(line)
        was_code = bool(runs) and runs[-1][0]
        after_blank = not runs or not runs[-1][1][-1].strip()
        if m is not None:
            fence = "" if fence == m.group(1) else (fence or m.group(1))
            code = True
        else:
            indented = line.startswith(("    ", "\t"))
            code = (
                bool(fence)
                or (indented and (was_code or after_blank))
                or (was_code and not line.strip())
            )
        if runs and runs[-1][0] == code:
            runs[-1][1].append(line)
        else:
            runs.append((code, [line]))
    out = ["\n".join(lines) if code else _labels("\n".join(lines)) for code, lines in runs]
    text = "\n".join(x.rstrip() for x in "\n".join(out).split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|esp|Inc|Ltd|No|Dr|Mr|Ms)|\.\.)$"
)


def first_sentence(doc: str) -> str:
    """The first sentence of a doc's first paragraph, on one line ("" when it opens with
    code)."""
    paragraph = re.split(r"\n[ \t]*\n", doc.strip("\n"), maxsplit=1)[0]
    if not paragraph or paragraph.startswith(("    ", "\t", "```", "~~~")):
        return ""
    flat = " ".join(paragraph.split())
    for m in re.finditer(r"[.!?](?=\s|$)", flat):
        head = flat[: m.start()]
        if _ABBREVIATION.search(head):
            continue
        nxt = flat[m.end() :].lstrip()
        if nxt[:1].islower():
            continue
        return flat[: m.end()]
    return flat


# ----------------------------------------------------------------------------- reading
@dataclass
class _Decl:
    """A declaration read: its full name, kind, head line, doc and where it stands; a
    member's type as written (for its owner's list) and the members it lists."""

    name: str
    qual: str
    kind: str
    head: str
    doc: str
    at: int  # its first token's start
    type: str = ""
    deprecated: bool = False
    extends: str = ""
    members: list[_Decl] = field(default_factory=list)
    listed: str = ""  # how its owner's list names it (an rpc: `Get(A) returns (B)`)


_WORD = re.compile(r"\.?[A-Za-z_][\w.]*")
_LABELS = frozenset({"optional", "required", "repeated"})
_OPENS = {"(": ")", "[": "]", "{": "}", "<": ">"}


class _File:
    """A scanned file walked: its package, header and declarations, in the order they
    stand (a message before its members)."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.tokens, self.comments = scan(self.text)
        self.n = len(self.tokens)
        self.comment_starts = [c.start for c in self.comments]
        self.newlines = [m.start() for m in re.finditer("\n", self.text)]
        self.package = ""
        self.package_at = 0
        self.header = ""
        self.decls: list[_Decl] = []

    # -- tokens
    def word(self, k: int) -> str:
        return self.tokens[k].text if k < self.n and not self.tokens[k].string else ""

    def is_name(self, k: int) -> bool:
        return bool(_WORD.fullmatch(self.word(k)))

    def flat(self, a: int, b: int) -> str:
        """Tokens a to b on one line as written: one space where space or a comment
        stood between two."""
        out: list[str] = []
        for k in range(a, min(b, self.n)):
            t = self.tokens[k]
            if out and t.start > self.tokens[k - 1].end:
                out.append(" ")
            out.append(t.text)
        return "".join(out)

    def closing(self, k: int) -> int:
        """The index of the bracket closing the one at k; `n` when none does. Braces count
        only braces; a `(`, `[` or `<` stops at a `;` or a stray `}`, and skips the braces
        (an option's aggregate value) inside it."""
        opened = self.word_or_symbol(k)
        close = _OPENS.get(opened, "")
        depth = 0
        j = k
        while j < self.n:
            t = self.word_or_symbol(j)
            if t == opened:
                depth += 1
            elif t == close:
                depth -= 1
                if depth == 0:
                    return j
            elif opened != "{" and t == "{":
                j = self.closing(j)
            elif opened != "{" and t in (";", "}"):
                return self.n
            j += 1
        return self.n

    def word_or_symbol(self, k: int) -> str:
        t = self.tokens[k]
        return "" if t.string else t.text

    def end(self, k: int) -> int:
        """The index of what ends the statement at k: its `;`, the `{` opening its block,
        the `}` closing the scope around it; `n` at the file's end. An option's braces
        (inside its `[ ]`) end nothing."""
        depth = 0
        j = k
        while j < self.n:
            t = self.word_or_symbol(j)
            if t in ("(", "["):
                depth += 1
            elif t in (")", "]"):
                depth = max(0, depth - 1)
            elif t == "{" and depth:
                j = self.closing(j)
            elif t in (";", "{", "}"):
                return j
            j += 1
        return self.n

    def past(self, k: int) -> int:
        """Past the statement at k: its `;`, its block's `}`; at the `}` closing the scope
        (not past it), but always past k."""
        e = self.end(k)
        w = self.word(e) if e < self.n else ""
        if w == "{":
            e = self.closing(e) + 1
        elif w == ";":
            e += 1
        return min(max(e, k + 1), self.n)

    def line(self, at: int) -> int:
        return bisect_right(self.newlines, at - 1) + 1

    # -- comments
    def _between(self, a: int, b: int) -> list[Comment]:
        i = bisect_left(self.comment_starts, a)
        j = bisect_left(self.comment_starts, b)
        return self.comments[i:j]

    @staticmethod
    def _carried(cs: list[Comment]) -> int:
        """How many of the comments cs opens with make one trailing comment: the first,
        and the `//` lines under it, each alone on the next line at its column."""
        if not cs:
            return 0
        first = cs[0]
        k = 1
        if first.block:
            return k
        while (
            k < len(cs)
            and not cs[k].block
            and not cs[k].after_code
            and cs[k].line == cs[k - 1].end_line + 1
            and cs[k].column == first.column
        ):
            k += 1
        return k

    def leading(self, k: int) -> str:
        """The doc over the token at k: the comment block right over it, no blank line
        between, not a trailing comment of the token before; not a license over the
        file's header."""
        if k >= self.n:
            return ""
        tok = self.tokens[k]
        prev_end = self.tokens[k - 1].end if k else 0
        cs = self._between(prev_end, tok.start)
        if k and cs and cs[0].line == self.tokens[k - 1].line:
            cs = cs[self._carried(cs) :]
        cs = [c for c in cs if not c.after_code]
        if not cs:
            return ""
        block = [cs[-1]]
        for c in reversed(cs[:-1]):
            top = block[0]
            if c.block or top.block or c.end_line + 1 != top.line:
                break
            block.insert(0, c)
        tok_line = self.line(tok.start)
        if tok_line - block[-1].end_line > 1:
            return ""
        text = doc_text(block)
        # a license over the file's first statement, its `syntax` or `package`, is no doc
        header = k == 0 or self.word(k) in ("syntax", "edition", "package")
        return "" if header and _LICENSE.search(text) else text

    def trailing(self, k: int) -> str:
        """The doc after the token at k (a `;`, a `{`) on its line."""
        if k >= self.n:
            return ""
        tok = self.tokens[k]
        nxt = self.tokens[k + 1].start if k + 1 < self.n else len(self.text)
        cs = self._between(tok.end, nxt)
        if not cs or cs[0].line != tok.line:
            return ""
        return doc_text(cs[: self._carried(cs)])

    def doc(self, first: int, end: int) -> str:
        return self.leading(first) or self.trailing(end)

    # -- walking
    def walk(self) -> None:
        k = 0
        while k < self.n:
            w = self.word(k)
            if w in ("syntax", "edition"):
                if not self.header and not self.decls:
                    self.header = self.leading(k)
                k = self.past(k)
            elif w == "package":
                if not self.package:
                    words = [self.word(j) for j in range(k + 1, self.end(k))]
                    self.package = "".join(words).strip(".")
                    self.package_at = self.tokens[k].start
                    self.header = self.header or self.leading(k)
                k = self.past(k)
            elif w == "message":
                k = self.message(k, self.package)
            elif w == "enum":
                k = self.enum(k, self.package)
            elif w == "service":
                k = self.service(k, self.package)
            elif w == "extend":
                k = self.extend(k, self.package)
            elif w in (";", "}"):
                k += 1
            else:
                k = self.past(k)

    @staticmethod
    def _qual(scope: str, name: str) -> str:
        return f"{scope}.{name}" if scope else name

    def _block(self, k: int) -> tuple[str, int, int] | None:
        """`kw Name {`: (the name, the index of `{`, of its `}`); None when not so."""
        if not self.is_name(k + 1) or self.word(k + 2) != "{":
            return None
        return self.word(k + 1), k + 2, self.closing(k + 2)

    def _deprecated_option(self, a: int, b: int) -> bool:
        """Whether a body (tokens a to b) says `option deprecated = true;` at its level."""
        k = a
        while k < b:
            w = self.word(k)
            if w == "option" and self.flat(k + 1, k + 4).replace(" ", "") == "deprecated=true":
                return True
            k = self.closing(k) + 1 if w == "{" else k + 1
        return False

    def _options_at(self, a: int, b: int) -> tuple[int, bool]:
        """Where a field's or value's `[options]` open between a and b (b when none), and
        whether they say `deprecated = true`."""
        for j in range(a, b):
            if self.word(j) == "[":
                options = self.flat(j + 1, min(self.closing(j), b)).replace(" ", "")
                return j, bool(re.search(r"(?:^|,)deprecated=true(?:,|$)", options))
        return b, False

    def _add(self, d: _Decl, owner: _Decl | None = None) -> _Decl:
        if owner is not None:
            owner.members.append(d)
        self.decls.append(d)
        return d

    def _opened(self, k: int, scope: str, kind: str) -> tuple[_Decl, int, int] | None:
        """The block declaration at k (`message Cart {`): its record, added, and where its
        braces stand; a message's, enum's or service's `option deprecated` read."""
        got = self._block(k)
        if got is None:
            return None
        name, open_at, close_at = got
        qual = self._qual(scope, name)
        d = self._add(_Decl(name, qual, kind, f"{kind} {name}", self.doc(k, open_at), self.at(k)))
        if kind != "oneof":
            d.deprecated = self._deprecated_option(open_at + 1, close_at)
        return d, open_at, close_at

    def message(self, k: int, scope: str) -> int:
        got = self._opened(k, scope, "message")
        if got is None:
            return self.past(k)
        m, open_at, close_at = got
        self.body(open_at + 1, close_at, m.qual, m)
        return close_at + 1

    def body(self, a: int, b: int, scope: str, owner: _Decl, in_oneof: bool = False) -> None:
        """A message's (a oneof's, a group's) body, tokens a to b: its fields, nested
        messages and enums, oneofs and extensions."""
        k = a
        while k < b:
            w = self.word(k)
            if w == "message" and not in_oneof:
                k = self.message(k, scope)
            elif w == "enum" and not in_oneof:
                k = self.enum(k, scope)
            elif w == "extend" and not in_oneof:
                k = self.extend(k, scope)
            elif w == "oneof" and not in_oneof:
                k = self.oneof(k, scope, owner)
            elif w in ("option", "reserved", "extensions"):
                k = self.past(k)
            elif w in (";", "}"):
                k += 1
            else:
                k = self.field(k, scope, owner, b)

    def oneof(self, k: int, scope: str, owner: _Decl) -> int:
        got = self._opened(k, scope, "oneof")
        if got is None:
            return self.past(k)
        _, open_at, close_at = got
        self.body(open_at + 1, close_at, scope, owner, in_oneof=True)
        return close_at + 1

    def _last(self, e: int) -> int:
        """The token a statement ending at e ends with: its `;`, else the one before."""
        return e if self.word(e) == ";" else e - 1

    def field(self, k: int, scope: str, owner: _Decl | None, limit: int, extends: str = "") -> int:
        """A field at k (`[label] type name = N [options];`, `map<K, V> name = N;`, a
        group) read, up to `limit`; past it."""
        start = k
        if self.word(k) in _LABELS:
            k += 1
        if self.word(k) == "group":
            return self.group(start, k, scope, owner, extends)
        if self.word(k) == "map" and self.word(k + 1) == "<":
            close = self.closing(k + 1)
            if close >= limit:
                return min(self.past(start), limit)
            k = close + 1
        elif self.is_name(k):
            k += 1
        if not self.is_name(k) or self.word(k + 1) != "=" or k == start:
            return min(self.past(start), limit)
        name_at = k
        e = min(self.end(name_at), limit)
        if self.word(e) == "{":
            return min(self.past(start), limit)
        stop, deprecated = self._options_at(name_at + 2, e)
        name = self.word(name_at)
        d = _Decl(
            name,
            self._qual(scope, name),
            "extension" if extends else "field",
            self.flat(start, stop) + ";",
            self.doc(start, self._last(e)),
            self.at(start),
            type=self.flat(start, name_at),
            deprecated=deprecated,
            extends=extends,
        )
        self._add(d, owner)
        return e + 1 if self.word(e) == ";" else max(e, start + 1)

    def group(self, start: int, k: int, scope: str, owner: _Decl | None, extends: str) -> int:
        """`[label] group Name = N { ... }`: a field named `name` of the nested message
        `Name` the body declares."""
        if not self.is_name(k + 1) or self.word(k + 2) != "=":
            return self.past(start)
        e = self.end(k)
        if self.word(e) != "{":
            return self.past(start)
        close_at = self.closing(e)
        type_name = self.word(k + 1)
        stop, deprecated = self._options_at(k + 3, e)
        name = type_name.lower()
        d = _Decl(
            name,
            self._qual(scope, name),
            "extension" if extends else "field",
            self.flat(start, stop) + ";",
            self.doc(start, e),
            self.at(start),
            type=f"{self.flat(start, k)} {type_name}".strip(),
            deprecated=deprecated,
            extends=extends,
        )
        self._add(d, owner)
        qual = self._qual(scope, type_name)
        inner = _Decl(type_name, qual, "message", f"message {type_name}", "", self.at(start))
        self.body(e + 1, close_at, qual, inner)
        return close_at + 1

    def enum(self, k: int, scope: str) -> int:
        got = self._opened(k, scope, "enum")
        if got is None:
            return self.past(k)
        e, open_at, close_at = got
        j = open_at + 1
        while j < close_at:
            w = self.word(j)
            if w in (";", "}"):
                j += 1
            elif w not in ("option", "reserved") and self.is_name(j) and self.word(j + 1) == "=":
                end = min(self.end(j), close_at)
                stop, deprecated = self._options_at(j + 2, end)
                value = _Decl(
                    w,
                    f"{e.qual}.{w}",
                    "value",
                    self.flat(j, stop) + ";",
                    self.doc(j, self._last(end)),
                    self.at(j),
                    deprecated=deprecated,
                )
                self._add(value, e)
                j = end + 1 if self.word(end) == ";" else max(end, j + 1)
            else:
                j = min(self.past(j), close_at)
        return close_at + 1

    def service(self, k: int, scope: str) -> int:
        got = self._opened(k, scope, "service")
        if got is None:
            return self.past(k)
        s, open_at, close_at = got
        j = open_at + 1
        while j < close_at:
            if self.word(j) == "rpc":
                j = self.rpc(j, s.qual, s, close_at)
            elif self.word(j) in (";", "}"):
                j += 1
            else:
                j = min(self.past(j), close_at)
        return close_at + 1

    def _rpc_type(self, k: int, limit: int) -> tuple[str, int] | None:
        """`( [stream] Type )` at k: (its text as listed, the index past its `)`)."""
        if self.word(k) != "(":
            return None
        close = self.closing(k)
        if close >= limit:
            return None
        words = [self.word(j) for j in range(k + 1, close)]
        if not 1 <= len(words) <= 2 or not all(_WORD.fullmatch(w) for w in words):
            return None
        if len(words) == 2 and words[0] != "stream":
            return None
        return " ".join(words), close + 1

    def rpc(self, k: int, scope: str, owner: _Decl, limit: int) -> int:
        """`rpc Name(Request) returns (Response);`, or with a block of options, read;
        past it."""
        name = self.word(k + 1)
        req = self._rpc_type(k + 2, limit) if self.is_name(k + 1) else None
        resp = self._rpc_type(req[1] + 1, limit) if req and self.word(req[1]) == "returns" else None
        if req is None or resp is None:
            return min(self.past(k), limit)
        stop = resp[1]
        deprecated = False
        doc = self.leading(k) or self.trailing(stop if self.word(stop) == ";" else stop - 1)
        if self.word(stop) == "{":
            close = min(self.closing(stop), limit)
            deprecated = self._deprecated_option(stop + 1, close)
            if not doc and close < self.n and self.tokens[close].line == self.tokens[stop].line:
                semi = close + 1 if self.word(close + 1) == ";" else close
                doc = self.trailing(semi)
            end = close + 1
        else:
            end = stop + 1 if self.word(stop) == ";" else stop
        d = _Decl(
            name,
            self._qual(scope, name),
            "rpc",
            self.flat(k, stop) + ";",
            doc,
            self.at(k),
            deprecated=deprecated,
            listed=f"{name}({req[0]}) returns ({resp[0]})",
        )
        self._add(d, owner)
        return min(max(end, k + 1), limit)

    def extend(self, k: int, scope: str) -> int:
        """`extend Type { fields }`: its fields are extensions named in `scope`."""
        e = self.end(k)
        if self.word(e) != "{" or e == k + 1:
            return self.past(k)
        extendee = self.flat(k + 1, e).replace(" ", "")
        close_at = self.closing(e)
        j = e + 1
        while j < close_at:
            if self.word(j) in (";", "}"):
                j += 1
            elif self.word(j) == "option":
                j = self.past(j)
            else:
                j = self.field(j, scope, None, close_at, extends=extendee)
        return close_at + 1

    def at(self, k: int) -> int:
        return self.tokens[k].start if k < self.n else len(self.text)


# ----------------------------------------------------------------------------- documents
def _listing(d: _Decl) -> list[str]:
    """A message's, enum's or service's list of its members."""
    if not d.members:
        return []
    title = {"message": "Fields:", "enum": "Values:", "service": "Methods:"}[d.kind]
    lines = [title]
    for m in d.members:
        if d.kind == "message":
            line = f"- {m.name} ({m.type})"
        elif d.kind == "enum":
            line = f"- {m.name}"
        else:
            line = f"- {m.listed}"
        sentence = first_sentence(m.doc)
        lines.append(f"{line}: {sentence}" if sentence else line)
    return ["\n".join(lines)]


def _text(d: _Decl) -> str:
    parts = [d.head, d.doc]
    if d.deprecated:
        parts.append("Deprecated.")
    if d.extends:
        parts.append(f"Extends: {d.extends}")
    if d.kind in ("message", "enum", "service"):
        parts += _listing(d)
    return "\n\n".join(p for p in parts if p)


def _signature(d: _Decl) -> str:
    return d.head if d.kind in ("field", "value", "rpc", "extension") else ""


def file_documents(f: ProtoFile, source: str) -> Iterator[Document]:
    """The documents of one file, in the order its declarations stand; of a name declared
    twice, the first."""
    g = _File(f.text)
    g.walk()

    def document(qual: str, text: str, kind: str, signature: str, at: int) -> Document:
        return api_document(
            source, URI_PREFIX, f, qual, text, kind, signature, g.line(at), language="proto"
        )

    seen: set[str] = set()
    if g.package and g.header:
        seen.add(g.package)
        text = f"package {g.package}\n\n{g.header}"
        yield document(g.package, text, "package", "", g.package_at)
    for d in g.decls:
        if d.qual in seen:
            continue
        seen.add(d.qual)
        if d.doc:
            yield document(d.qual, _text(d), d.kind, _signature(d), d.at)
