"""Swift files read as their library's API, as DocC and Xcode's Quick Help show it: one
document per documented public (or open) class, struct, enum, enum case, protocol,
protocol requirement, actor, function, initializer, subscript, property (`var`, `let`),
typealias, associated type and macro, the doc comment right over its declaration (a run
of `///` lines on adjacent lines, or a `/** */` block; attributes, modifiers and plain
comments between them allowed).

Names. The uri is `swift:<Module>.<Type>.<member>` as DocC names the symbol: a function,
initializer, subscript, macro and an enum case with associated values by its selector
(`swift:ArgumentParser.ParsableCommand.main(_:)`, `...helpMessage(for:includeHidden:
columns:)`, `init(from:)`, `subscript(_:)`, `==(_:_:)`; a subscript's parameter has no
argument label unless it writes one), a nested type through its outer ones
(`swift:M.Outer.Inner.member`), a member of an extension through the type it extends; a
type the module does not declare by its name as written (`extension Array` in module `M`:
`swift:M.Array.foo`, the text says it extends a type from elsewhere; Swift's own types
are not told apart from others'). Overloads: the first, in path order and then in file
order, keeps the plain selector; a later one is named by its parameter types, as DocC's
links disambiguate: the one type no earlier overload has at its place, the others `_`
(`swift:M.Deque.init(_:)-(Int)`, `...insert(_:at:)-(some Collection<Element>,_)`; a
generic parameter by what it conforms to, attributes and ownership left out), else all
of them; one with the same types under other generic constraints by its place (`-2`);
one with the same types and constraints (the same declaration in another `#if` branch)
is dropped. The module: a target of the
package's `Package.swift` (handed over with the files: `.target(name:path:)`, by default
the folder `Sources/<name>`), else the folder under `Sources/`
(`Sources/ArgumentParser/Parsable Types/ParsableCommand.swift` -> `ArgumentParser`), else
`top`.

Access, as the compiler has it: `public` and `open` declarations are API; a public
protocol's requirements and a public enum's cases are public without the keyword, so are
the members of a `public extension`; anything else (`internal`, `package`, `private`,
`fileprivate`, no modifier) is not, nor is anything inside a type that is not API
(an extension of an internal type of the module included). Declarations marked `@_spi`,
`@_documentation(visibility: ...)` (but `public`) or `@available(*, unavailable)`, and
names (of the item or of a type it is in) that start with `_` are hidden, as DocC hides
them. `@available(..., deprecated, message:, renamed:)` is said: `Deprecated: message`
(`Deprecated (macOS 12.0): ...` for one platform's, `Renamed to ...`).

Text: the declaration as written on one line (attributes that matter to a caller kept:
`@propertyWrapper`, `@resultBuilder`, `@dynamicMemberLookup`, `@objc`, `@preconcurrency`,
`@freestanding` ... and those named in upper case, a property wrapper's, a global
actor's, a result builder's: `@MainActor`, `@Option(...)`; `@inlinable`,
`@discardableResult`, `@frozen` and underscored ones dropped), its body cut
(a computed property or subscript shown `{ get }` or `{ get set }` by its accessors, a
stored property's short initializer kept), whitespace collapsed; a blank line; then the
doc comment as Markdown, in DocC's order: the abstract (the first paragraph), a
`Parameters:` list (from `- Parameter x:` and `- Parameters:` callouts), `Returns:`,
`Throws:`, then the discussion with the other callouts (`- Note:`, `- Important:`,
`- Warning:`, `- Precondition:`, `- Complexity:`, `- SeeAlso:` ...) as labelled
paragraphs where they stand. DocC symbol links ``` ``Type/method(_:)`` ``` become
`` `Type.method(_:)` `` (a disambiguating suffix dropped), `<doc:Article>` links the
article's name, code blocks (indented or fenced) fenced as ```swift. A member of an
extension with a `where` clause says "Available when ..." (requirements that only
suppress, `T: ~Copyable`, left out). A type's document lists its conformances when
extensions add some (`Conforms to:`, those that start with `_` left out; the declared
ones are on its declaration line too) and its documented members with their first sentences (`Members:`, at most 100,
those of its extensions in the module too). An undocumented declaration gets no document
(its documented members still do).

The files are scanned, never compiled: comments (block comments nest), strings with their
escapes and `\\(...)` interpolations, multi-line `\"\"\"` strings, raw strings `#"..."#`
(any number of `#`), regex literals `#/.../#` and backquoted names are told apart from
code, so a brace in a string ends no block; `#if`/`#elseif`/`#else`/`#endif` lines are no
code, so all branches are read and the first declaration of a name wins. Tests (under a
`Tests/` folder or a test target's, `*Tests.swift`) give no document and are counted, and
so is a file with nothing documented and one that does not scan (an unclosed comment,
string or bracket). DocC catalogs (`*.docc`) are Markdown, read by the Markdown reader;
their symbol extension pages are not merged here.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

from jupiter.collect.codescan import Comment, DocIndex, balanced, brackets, comment_end
from jupiter.collect.result import CollectResult, SourceFile, api_document
from jupiter.collect.result import count as _count
from jupiter.records import Document

SUFFIXES = (".swift",)
URI_PREFIX = "swift:"
MANIFEST = "Package.swift"
# reasons a Swift file gave no document, as the collect stage counts them
SWIFT_TEST = "swift_test"
SWIFT_NO_API = "swift_no_api"
SWIFT_UNSCANNABLE = "swift_unscannable"
_AS_TEXT = (
    "Swift files read as their library's API (doc comments of public and open "
    "declarations): tests and files with nothing documented give none; the source's "
    "swift: text reads them as text"
)
FIXES = {
    SWIFT_TEST: _AS_TEXT,
    SWIFT_NO_API: _AS_TEXT,
    SWIFT_UNSCANNABLE: (
        "a Swift file with an unclosed comment, string or bracket is not read as API: "
        "fix the file, or set the source's swift: text to read it as text"
    ),
}
MAX_MEMBERS = 100  # members a type's document lists
_MAX_VALUE = 60  # characters of a stored property's initializer shown

SwiftFile = SourceFile  # its files, as the source hands them over

_TEST_FOLDERS = frozenset({"Tests", "tests"})
_MANIFEST_NAME = re.compile(r"^Package(?:@swift-[\d.]+)?\.swift$")


def is_swift(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    """A test's source: under a `Tests/` folder, or named `*Tests.swift`."""
    return any(p in _TEST_FOLDERS for p in rel.parts[:-1]) or rel.name.endswith("Tests.swift")


# ----------------------------------------------------------------------------- scanning
_LEXEME = re.compile(
    r"//|/\*|#*\"|#+/|`"
    r"|^[ \t]*#(?:if|elseif|else|endif|sourceLocation|warning|error)\b",
    re.M,
)
_IN_CODE = re.compile(r"[()]|//|/\*|#*\"")


@dataclass
class Scanned:
    """A scanned file: the code (comments, literals and directive lines blanked, a
    backquoted name's inside made `_`), the text with only its comments and directive
    lines blanked, its comments (adjacent `///` lines one), and whether it scanned whole
    (every comment, string and bracket closed)."""

    code: str
    bare: str
    comments: list[Comment]
    whole: bool


@lru_cache(maxsize=64)
def _string_stop(hashes: int, multi: bool) -> re.Pattern[str]:
    """What a string's scan stops at: an escape, its closing delimiter, a line's end."""
    close = ('"""' if multi else '"') + "#" * hashes
    escape = "\\" + "#" * hashes
    return re.compile(re.escape(escape) + "|" + re.escape(close) + ("" if multi else "|\n"))


def scan(text: str) -> Scanned:
    """`text` scanned (see `Scanned`); both texts as long as `text`, lines where they were."""
    comments: list[Comment] = []
    said: list[tuple[int, int]] = []  # comments, directive lines: blanked in both
    inside: list[tuple[int, int]] = []  # literals: blanked in the code only
    ticks: list[tuple[int, int]] = []  # backquoted names' insides
    whole = True
    i = 0
    if text.startswith("#!"):
        i = _line_end(text, 0)
        said.append((0, i))
    while (m := _LEXEME.search(text, i)) is not None:
        s, tok = m.start(), m.group()
        if tok == "//":
            e = _line_end(text, s)
            doc = text.startswith("///", s) and not text.startswith("////", s)
            comments.append(Comment(s, e, doc, text[s + (3 if doc else 2) : e]))
            said.append((s, e))
        elif tok == "/*":
            e, stop, closed = comment_end(text, s)
            whole = whole and closed
            doc = text.startswith("/**", s) and not text.startswith(("/**/", "/***"), s)
            body = text[s + (3 if doc else 2) : max(stop, s + 2)]
            comments.append(Comment(s, e, doc, _star_margin(body) if doc else body))
            said.append((s, e))
        elif tok == "`":
            close = text.find("`", s + 1)
            nl = text.find("\n", s + 1)
            if close < 0 or (0 <= nl < close):
                e = s + 1  # a stray backquote
            else:
                e = close + 1
                ticks.append((s + 1, close))
        elif tok.endswith('"'):
            e, closed = _string_end(text, s, len(tok) - 1)
            whole = whole and closed
            inside.append((s, e))
        elif tok.endswith("/"):
            hashes = len(tok) - 1
            k = text.find("/" + "#" * hashes, s + len(tok))
            whole = whole and k >= 0
            e = len(text) if k < 0 else k + 1 + hashes
            inside.append((s, e))
        else:  # a compiler directive's line: all branches are read
            e = _line_end(text, s)
            said.append((m.start(), e))
        i = max(e, s + 1)
    code = _blanked(text, [*said, *inside, *ticks], {t[0] for t in ticks})
    whole = whole and balanced(code)
    return Scanned(code, _blanked(text, said), _joined(text, comments), whole)


_NOT_NEWLINE = re.compile(r"[^\n]")


def _blanked(text: str, spans: list[tuple[int, int]], names: set[int] | None = None) -> str:
    """`text` with each span made spaces (its line breaks kept), or `_`s for a span that
    starts at one of `names` (a backquoted name's inside)."""
    out: list[str] = []
    last = 0
    for i, j in sorted(spans):
        i = max(i, last)
        if j <= i:
            continue
        out.append(text[last:i])
        out.append("_" * (j - i) if names and i in names else _NOT_NEWLINE.sub(" ", text[i:j]))
        last = j
    out.append(text[last:])
    return "".join(out)


def _line_end(text: str, i: int) -> int:
    e = text.find("\n", i)
    return len(text) if e < 0 else e


def _string_end(text: str, s: int, hashes: int) -> tuple[int, bool]:
    """(past the string at s opened by `hashes` `#`s, whether it closes): a plain string
    ends at its quote or, unclosed, at the line's end; a multi-line one at its `\"\"\"`;
    both skip their escapes and their `\\(...)` interpolations, whose code may hold
    strings of its own."""
    q = s + hashes
    multi = text.startswith('"""', q)
    i = q + (3 if multi else 1)
    stop = _string_stop(hashes, multi)
    while (m := stop.search(text, i)) is not None:
        tok = m.group()
        if tok == "\n":
            return m.start(), False
        if tok[0] == '"':
            return m.end(), True
        k = m.end()
        if text.startswith("(", k):
            i, closed = _interpolation_end(text, k + 1)
            if not closed:
                return len(text), False
        else:
            i = k + 1
    return len(text), False


def _interpolation_end(text: str, i: int) -> tuple[int, bool]:
    """(past the `)` closing an interpolation, i past its `(`; whether one does)."""
    depth = 1
    while (m := _IN_CODE.search(text, i)) is not None:
        tok, s = m.group(), m.start()
        if tok == "(":
            depth += 1
            i = m.end()
        elif tok == ")":
            depth -= 1
            if depth == 0:
                return m.end(), True
            i = m.end()
        elif tok == "//":
            i = _line_end(text, s)
        elif tok == "/*":
            i = comment_end(text, s)[0]
        else:
            e, closed = _string_end(text, s, len(tok) - 1)
            if not closed:
                return len(text), False
            i = max(e, s + 1)
    return len(text), False


_MARGIN = re.compile(r"^[ \t]*\*(?!\*)[ \t]?")


def _star_margin(body: str) -> str:
    """A `/** */` comment's text, its lines' leading `*` margin off (when every line after
    the first has one)."""
    lines = body.split("\n")
    rest = [x for x in lines[1:] if x.strip()]
    if rest and all(_MARGIN.match(x) for x in rest):
        lines = [lines[0], *(_MARGIN.sub("", x, count=1) for x in lines[1:])]
    return "\n".join(lines)


def _joined(text: str, comments: list[Comment]) -> list[Comment]:
    """The comments, each run of `///` lines on adjacent lines one doc comment."""
    out: list[Comment] = []
    run = False
    for c in comments:
        line_doc = c.doc and text.startswith("///", c.start)
        if (
            line_doc
            and run
            and text.count("\n", out[-1].end, c.start) == 1
            and not text[out[-1].end : c.start].strip()
        ):
            prev = out[-1]
            out[-1] = Comment(prev.start, c.end, True, f"{prev.text}\n{c.text}")
        else:
            out.append(Comment(c.start, c.end, c.doc, c.text))
        run = line_doc
    return out


# ----------------------------------------------------------------------------- DocC
# DocC's callouts: the label a `- Name:` item shows as
_ASIDES = {
    "attention": "Attention",
    "author": "Author",
    "authors": "Authors",
    "bug": "Bug",
    "complexity": "Complexity",
    "copyright": "Copyright",
    "date": "Date",
    "experiment": "Experiment",
    "important": "Important",
    "invariant": "Invariant",
    "mutatingvariant": "Mutating variant",
    "nonmutatingvariant": "Non-mutating variant",
    "note": "Note",
    "postcondition": "Postcondition",
    "precondition": "Precondition",
    "remark": "Remark",
    "requires": "Requires",
    "seealso": "See also",
    "since": "Since",
    "tip": "Tip",
    "todo": "To do",
    "version": "Version",
    "warning": "Warning",
}
_CALLOUT = re.compile(r"[-*+][ \t]+([A-Za-z][\w \t`-]*?)[ \t]*:(.*)$")
_ITEM = re.compile(r"([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_PARAM_ITEM = re.compile(r"[-*+][ \t]+(`?[^\s:`]+`?)[ \t]*:(.*)$")
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})(.*)$")
_SPAN = re.compile(
    r"(?P<sym>``(?P<name>[^`\s](?:[^`]*[^`\s])?)``)|(?P<code>(`+)[^`]*?\4)|<doc:(?P<doc>[^>\s]+)>"
)
_SUFFIX = re.compile(r"(?<=[\w)\]?!=<>])-(?:swift\.[\w.]+|[0-9a-z]{3,6}|\(.*\)|>.*)$")
_SENTENCE = re.compile(r"(?<=[.!?])[\s]+(?=[A-Z`\[(*_\"])")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|resp)\.)$", re.I)


@dataclass
class DocComment:
    """A doc comment read as DocC reads it: the abstract, the discussion (Markdown, the
    other callouts in it as labelled paragraphs), the parameters, returns and throws."""

    abstract: str = ""
    discussion: str = ""
    params: list[tuple[str, str]] = field(default_factory=list)
    returns: str = ""
    throws: str = ""

    def said(self) -> bool:
        """Whether it says anything."""
        return bool(self.abstract or self.discussion or self.params or self.returns or self.throws)

    def summary(self) -> str:
        """Its first sentence: the abstract's, else the discussion's first paragraph's
        (not code)."""
        text = self.abstract
        if not text:
            para = self.discussion.split("\n\n")[0]
            text = "" if para.startswith("```") else re.sub(r"^[-*+]\s+", "", para)
        return first_sentence(text)

    def markdown(self) -> str:
        params = "\n".join(f"- `{n}`: {d}" if d else f"- `{n}`" for n, d in self.params)
        return _join(
            [
                self.abstract,
                f"Parameters:\n{params}" if params else "",
                f"Returns: {self.returns}" if self.returns else "",
                f"Throws: {self.throws}" if self.throws else "",
                self.discussion,
            ]
        )


def doc_comment(raw: str) -> DocComment:
    """A doc comment's text (without its `///` or `/** */` marks) read."""
    lines = textwrap.dedent("\n".join(x.rstrip() for x in raw.split("\n"))).split("\n")
    out = DocComment()
    flow: list[str] = []  # the lines that stay: abstract and discussion
    fence = ""
    k = 0
    while k < len(lines):
        line = lines[k]
        f = _FENCE.match(line)
        if fence:
            if f is not None and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence):
                fence = ""
            flow.append(line)
            k += 1
            continue
        if f is not None:
            fence = f.group(1)
            flow.append(line)
            k += 1
            continue
        c = _CALLOUT.match(line)
        label = _label(c.group(1)) if c is not None else ""
        if c is None or not label:
            flow.append(line)
            k += 1
            continue
        item, k = _item_lines(lines, k)
        first = c.group(2).strip()
        if label == "parameters":
            out.params.extend(_param_list(item))
        elif label.startswith("parameter "):
            out.params.append((label[10:].strip("`"), _callout_text([first, *item])))
        elif label == "returns":
            out.returns = _callout_text([first, *item])
        elif label == "throws":
            out.throws = _callout_text([first, *item])
        else:
            flow.extend(["", f"{_ASIDES[label]}: {_callout_text([first, *item])}", ""])
    body = _markdown(flow)
    abstract, _, rest = body.partition("\n\n")
    if abstract.lstrip().startswith(("```", "#", "- ", "* ", "|", ">")):
        abstract, rest = "", body  # no abstract paragraph: all is discussion
    out.abstract = abstract.strip()
    out.discussion = rest.strip()
    return out


def _label(said: str) -> str:
    """A callout's label as this reader keys it ("note", "parameter x"), or ""."""
    words = said.split()
    key = "".join(words).replace("-", "").lower()
    if key in _ASIDES or key in ("parameters", "returns", "throws"):
        return key
    if len(words) == 2 and words[0].lower() in ("parameter", "parameters"):
        return f"parameter {words[1].strip('`')}"
    return ""


def _item_lines(lines: list[str], k: int) -> tuple[list[str], int]:
    """The continuation lines of the list item on line k (indented, or a paragraph's
    lazy lines), and the line after it."""
    out: list[str] = []
    j = k + 1
    blank = False
    while j < len(lines):
        line = lines[j]
        if not line.strip():
            blank = True
            out.append("")
            j += 1
            continue
        indented = line[:1] in (" ", "\t")
        if not indented and (blank or _ITEM.match(line) or _FENCE.match(line)):
            break
        blank = False
        out.append(line)
        j += 1
    while out and not out[-1].strip():
        out.pop()
    return out, j


def _param_list(item: list[str]) -> list[tuple[str, str]]:
    """`- Parameters:`'s nested `- name: text` items."""
    lines = textwrap.dedent("\n".join(item)).split("\n")
    out: list[tuple[str, str]] = []
    k = 0
    while k < len(lines):
        m = _PARAM_ITEM.match(lines[k])
        if m is None:
            k += 1
            continue
        more, k = _item_lines(lines, k)
        out.append((m.group(1).strip("`"), _callout_text([m.group(2).strip(), *more])))
    return out


def _callout_text(lines: list[str]) -> str:
    """A callout's text: one line when it is one paragraph of prose, else Markdown."""
    first, rest = lines[0], textwrap.dedent("\n".join(lines[1:])).split("\n")
    text = _markdown([first, *rest]) if len(lines) > 1 else _markdown([first])
    if "\n\n" in text or "```" in text:
        return text
    return " ".join(text.split())


def _markdown(lines: list[str]) -> str:
    """Doc comment lines as Markdown: DocC's symbol links as code, `<doc:>` links as the
    article's name, indented code blocks fenced, fences without a language Swift's, runs
    of blank lines one."""
    out: list[str] = []
    fence = ""
    code: list[str] = []
    content = -1  # the content column of the list the lines are in, -1 when none
    blank = True
    for line in [*lines, ""]:
        if code:
            if not line.strip() or _indent(line) >= 4:
                code.append(line)
                continue
            _flush_code(out, code)
            code = []
        f = _FENCE.match(line)
        if fence:
            if f is not None and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence):
                fence = ""
            out.append(line)
            continue
        if f is not None:
            fence = f.group(1)
            out.append(line.rstrip() + ("" if f.group(2).strip() else "swift"))
            blank = False
            continue
        if not line.strip():
            out.append("")
            blank = True
            continue
        n = _indent(line)
        item = _ITEM.match(line)
        if content >= 0 and blank and n < content and item is None:
            content = -1  # a paragraph after a list ends it
        if item is not None and not (content < 0 and n >= 4 and blank):
            content = item.end()
        elif blank and n >= 4 and (content < 0 or n >= content + 4):
            code = [line]
            continue
        out.append(_SPAN.sub(_link, line.rstrip()))
        blank = False
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _flush_code(out: list[str], code: list[str]) -> None:
    while code and not code[-1].strip():
        code.pop()
    body = textwrap.dedent("\n".join(code))
    if out and out[-1].strip():
        out.append("")
    out.extend(["```swift", body, "```", ""])


def _link(m: re.Match[str]) -> str:
    if m.group("name") is not None:
        parts = [_SUFFIX.sub("", p) for p in m.group("name").split("/")]
        return f"`{'.'.join(p for p in parts if p)}`"
    if m.group("doc") is not None:
        name = m.group("doc").split("#")[0].rstrip("/")
        return name.rsplit("/", 1)[-1] or m.group("doc")
    return m.group()


def first_sentence(text: str) -> str:
    """The first sentence of a paragraph, on one line."""
    text = " ".join(text.split())
    for m in _SENTENCE.finditer(text):
        if not _ABBREVIATION.search(text[: m.start()]):
            return text[: m.start()]
    return text


def _join(parts: list[str]) -> str:
    return "\n\n".join(p for p in parts if p)


# ----------------------------------------------------------------------------- walking
_MODIFIERS = frozenset(
    "public open internal private fileprivate package static final override mutating "
    "nonmutating convenience required dynamic lazy weak unowned optional indirect "
    "nonisolated isolated prefix postfix infix distributed consuming borrowing "
    "__consuming __owned __shared".split()
)
_ACCESS = frozenset("public open internal private fileprivate package".split())
_KEYWORDS = frozenset(
    "class struct enum protocol actor extension func init deinit subscript var let "
    "typealias associatedtype case operator precedencegroup macro import".split()
)
_STARTERS = _KEYWORDS | _MODIFIERS
_WORD = re.compile(r"[A-Za-z_]\w*")
_NAME = re.compile(r"`[^`\n]*`|[A-Za-z_]\w*")
_OPERATOR = re.compile(r"[-/=+!*%<>&|^~?]+|\.[-/=+!*%<>&|^~?.]+")
_NONSPACE = re.compile(r"\S")
_WHERE = re.compile(r"\bwhere\b")
_SHOWN_ATTRIBUTES = frozenset(
    "MainActor globalActor propertyWrapper resultBuilder dynamicMemberLookup "
    "dynamicCallable objc objcMembers nonobjc preconcurrency warn_unqualified_access "
    "Sendable main freestanding attached".split()
)
_ACCESSOR_SETS = frozenset("set _modify modify mutate unsafeMutableAddress willSet didSet".split())
_ACCESSORS = _ACCESSOR_SETS | frozenset("get _read read borrow unsafeAddress".split())
_ATTRIBUTE = re.compile(r"@[A-Za-z_][\w.]*")
_SCOPED = re.compile(r"\(\s*(set|safe|unsafe|unowned)\s*\)")
_STRING = r'"((?:[^"\\]|\\.)*)"'


@dataclass
class _Prefix:
    """A declaration's attributes and modifiers: where it starts, where they end."""

    at: int
    end: int
    attributes: list[str] = field(default_factory=list)
    modifiers: list[str] = field(default_factory=list)


@dataclass
class _Scope:
    """Where declarations stand: the names of the types around them, the kind of scope,
    whether they can be API at all, whether its members are public without the keyword
    (a public protocol's, a `public extension`'s; an enum's cases: `cases`), an
    extension's `where` clause."""

    path: tuple[str, ...] = ()
    kind: str = "file"
    visible: bool = True
    inherit: bool = False
    cases: bool = False
    where: str = ""


@dataclass
class _Decl:
    """A declaration found: its scope's path, name (a selector for what takes arguments),
    kind, declaration line, doc, whether its own access makes it API."""

    path: tuple[str, ...]
    name: str
    kind: str
    head: str
    doc: DocComment
    api: bool
    line: int
    types: tuple[str, ...] = ()  # its parameters' types, for overloads
    constraints: str = ""  # its generic parameters and where clauses, for overloads
    notes: list[str] = field(default_factory=list)
    where: str = ""
    conforms: list[str] = field(default_factory=list)


class _File(DocIndex):
    """A scanned file as the walker reads it; the declarations, types and conformances
    it finds."""

    def __init__(self, text: str, scanned: Scanned) -> None:
        self.code = scanned.code
        self.bare = scanned.bare
        self.docs = [c for c in scanned.comments if c.doc]
        self.starts = [c.start for c in self.docs]
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.match = brackets(self.code)
        self.decls: list[_Decl] = []
        self.types: dict[tuple[str, ...], bool] = {}  # declared types: API or not
        self.conforms: list[tuple[tuple[str, ...], list[str]]] = []  # by extensions

    def said(self, a: int, b: int) -> str:
        return _flat(self.bare[a:b])

    def word(self, k: int, end: int) -> re.Match[str] | None:
        m = _WORD.match(self.code, k, end)
        return m if m is not None and (k == 0 or not _is_name_char(self.code[k - 1])) else None

    def name(self, k: int, end: int) -> tuple[str, int] | None:
        """The name at k (a backquoted one without its quotes) and where it ends."""
        m = _NAME.match(self.code, k, end)
        if m is None:
            return None
        return self.bare[m.start() : m.end()].strip("`"), m.end()

    def doc(self, region: int, at: int) -> DocComment | None:
        c = self.doc_before(region, at)
        if c is None:
            return None
        doc = doc_comment(c.text)
        return doc if doc.said() else None


def _is_name_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_$`."


def _flat(text: str) -> str:
    """A declaration's text on one line: whitespace collapsed, none inside brackets' ends
    (a generic's `<`, `>` too)."""
    text = " ".join(text.split())
    text = re.sub(r"([(\[])\s+", r"\1", text)
    text = re.sub(r",?\s*([)\]])", r"\1", text)
    if "< " not in text and " >" not in text:
        return text
    out = list(text)
    opened: list[int] = []
    for k, ch in enumerate(text):
        if ch == "<" and k and (text[k - 1].isalnum() or text[k - 1] in "_`"):
            opened.append(k)
        elif ch == ">" and opened and text[k - 1] != "-":
            start = opened.pop()
            j = start + 1
            while j < k and out[j] == " ":
                out[j] = ""
                j += 1
            j = k - 1
            while j > start and out[j] in (" ", ","):
                out[j] = ""
                j -= 1
    return "".join(out)


def _walk(g: _File, start: int, end: int, scope: _Scope) -> None:
    code = g.code
    j = region = start
    while True:
        j = g.skip(j, end)
        if j >= end:
            return
        ch = code[j]
        if ch in ";)]}":
            j = region = j + 1
            continue
        if ch in "([{":
            j = region = g.close(j, end)
            continue
        p = _prefix(g, j, end)
        kw = g.word(g.skip(p.end, end), end)
        word = kw.group() if kw is not None else ""
        stop = -1
        if word in _KEYWORDS and (word not in ("actor", "macro") or _named(g, kw, end)):
            stop = _declaration(g, p, word, kw.end() if kw else p.end, region, end, scope)
        if stop < 0:
            stop = _statement_end(g, p.end if p.end > j else j, end)
        j = region = max(stop, j + 1)


def _named(g: _File, kw: re.Match[str] | None, end: int) -> bool:
    """Whether a contextual keyword (`actor`, `macro`) is followed by a name."""
    if kw is None:
        return False
    k = g.skip(kw.end(), end)
    return k < end and g.code[k] != "\n" and _NAME.match(g.code, k, end) is not None


def _prefix(g: _File, j: int, end: int) -> _Prefix:
    code = g.code
    p = _Prefix(j, j)
    k = j
    while k < end:
        if code[k] == "@":
            m = _ATTRIBUTE.match(code, k, end)
            if m is None:
                break
            e = m.end()
            if code[e : e + 1] == "(":
                e = g.close(e, end)
            p.attributes.append(g.said(k, e))
            k = p.end = e
        else:
            m = g.word(k, end)
            if m is None:
                break
            w = m.group()
            e = m.end()
            if w == "class":
                n = g.word(g.skip(e, end), end)
                if n is None or n.group() not in _STARTERS:
                    break
            elif w not in _MODIFIERS:
                break
            if code[e : e + 1] == "(":
                inner = _SCOPED.match(code, e, end)
                if inner is not None:
                    e = inner.end()
            p.modifiers.append(g.said(k, e))
            k = p.end = e
        k = g.skip(k, end)
    return p


def _statement_end(g: _File, k: int, end: int, stops: str = "") -> int:
    return _until(g, k, end, stops)[0]


def _until(g: _File, k: int, end: int, stops: str = "", angles: bool = False) -> tuple[int, str]:
    """Where the declaration or statement going on at k stops: at the first of `stops`
    (`{`, `=`, `,`) outside brackets (and, `angles`, a type's generics), at a `;`, at the
    `}` closing its scope, or at a line's end when the next line starts a declaration; a
    `{` not in `stops` (a closure) is passed over. (where, what: the character, "\\n" or
    "" at `end`.)"""
    code = g.code
    depth = 0
    while k < end:
        ch = code[k]
        if ch in "([" or (ch == "{" and "{" not in stops):
            k = g.close(k, end)
            continue
        if ch == "{" or ch == ";" or ch == "}":
            return k, ch
        if angles:
            if ch == "<":
                depth += 1
            elif ch == ">" and code[k - 1] != "-":
                depth = max(0, depth - 1)
        if ch == "=" and "=" in stops and depth == 0:
            if code[k + 1 : k + 2] != "=" and code[k - 1] not in "=!<>+-*/%&|^~.":
                return k, "="
        elif ch == "," and "," in stops and depth == 0:
            return k, ","
        elif ch == "\n":
            n = g.skip(k, end)
            if n >= end or code[n] in "@}" or _starts_declaration(g, n, end):
                return k, "\n"
        k += 1
    return end, ""


def _starts_declaration(g: _File, n: int, end: int) -> bool:
    m = g.word(n, end)
    if m is None or m.group() not in _STARTERS:
        return False
    after = g.code[m.end() : m.end() + 1]
    return after in (" ", "\t", "\n", "(", "<", "?", "!", "") or m.group() == "init"


def _declaration(
    g: _File, p: _Prefix, kw: str, k: int, region: int, end: int, scope: _Scope
) -> int:
    """The declaration whose keyword is `kw` (k past it) read; where it ends, -1 when it
    is none."""
    if kw in ("class", "struct", "enum", "protocol", "actor", "extension"):
        return _type(g, p, kw, k, region, end, scope)
    if kw in ("func", "init", "subscript", "macro"):
        return _callable(g, p, kw, k, region, end, scope)
    if kw in ("var", "let"):
        return _property(g, p, kw, k, region, end, scope)
    if kw in ("typealias", "associatedtype"):
        return _alias(g, p, kw, k, region, end, scope)
    if kw == "case":
        return _cases(g, p, k, region, end, scope)
    if kw in ("deinit", "precedencegroup"):
        stop, tok = _until(g, k, end, "{")
        return g.close(stop, end) if tok == "{" else stop
    return _statement_end(g, k, end)


def _access(g: _File, p: _Prefix, scope: _Scope, case: bool = False) -> bool:
    """Whether a declaration is API by its own access, its attributes and its scope."""
    if not scope.visible or _hidden(p.attributes):
        return False
    mods = set(p.modifiers)
    if "public" in mods or "open" in mods:
        return True
    if mods & _ACCESS:
        return False
    return scope.cases if case else scope.inherit


def _hidden(attributes: list[str]) -> bool:
    for a in attributes:
        if a.startswith("@_spi") or (
            a.startswith("@_documentation")
            and not re.search(r"visibility\s*:\s*(?:public|open)\b", a)
        ):
            return True
        if a.startswith("@available") and _unavailable(a):
            return True
    return False


def _available_args(attribute: str) -> list[str]:
    inner = attribute[attribute.find("(") + 1 : attribute.rfind(")")]
    return [x.strip() for x in _split_top(inner)]


def _unavailable(attribute: str) -> bool:
    args = _available_args(attribute)
    return bool(args) and args[0] == "*" and "unavailable" in args[1:]


def _notes(attributes: list[str]) -> list[str]:
    """What `@available(..., deprecated ...)` says: `Deprecated: message`."""
    out: list[str] = []
    for a in attributes:
        if not a.startswith("@available("):
            continue
        args = _available_args(a)
        if not any(x == "deprecated" or x.startswith("deprecated:") for x in args[1:]):
            continue
        platform = args[0] if args else "*"
        when = next((x[11:].strip() for x in args if x.startswith("deprecated:")), "")
        label = (
            "Deprecated"
            if platform == "*"
            else f"Deprecated ({platform} {when})".replace(" )", ")")
        )
        message = re.search(r"\bmessage\s*:\s*" + _STRING, a)
        renamed = re.search(r"\brenamed\s*:\s*" + _STRING, a)
        said = _unescape(message.group(1)) if message is not None else ""
        if renamed is not None:
            said = f"{said} Renamed to `{_unescape(renamed.group(1))}`.".strip()
        out.append(f"{label}: {said}" if said else f"{label}.")
    return out


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def _shown_prefix(p: _Prefix) -> str:
    """The attributes a caller cares about (those of `_SHOWN_ATTRIBUTES`, and a property
    wrapper's, a global actor's or a result builder's, named in upper case) and the
    modifiers, as a declaration shows them."""
    kept = [a for a in p.attributes if a[1:].split("(")[0] in _SHOWN_ATTRIBUTES or a[1:2].isupper()]
    return " ".join([*kept, *p.modifiers])


def _head(p: _Prefix, rest: str) -> str:
    return _flat(f"{_shown_prefix(p)} {rest}")


def _split_top(text: str, angles: bool = False) -> list[str]:
    """`text` split at its commas outside brackets (and, `angles`, generics)."""
    out: list[str] = []
    depth = angle = last = 0
    for k, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif angles and ch == "<":
            angle += 1
        elif angles and ch == ">" and text[k - 1 : k] != "-":
            angle = max(0, angle - 1)
        elif ch == "," and depth == 0 and angle == 0:
            out.append(text[last:k])
            last = k + 1
    out.append(text[last:])
    return [x for x in out if x.strip()]


def _angle_end(g: _File, k: int, end: int) -> int:
    """Past the `>` closing the generics at k; -1 when a `{` or `;` comes first."""
    depth = 0
    code = g.code
    while k < end:
        ch = code[k]
        if ch in "([":
            k = g.close(k, end)
            continue
        if ch in "{};":
            return -1
        if ch == "<":
            depth += 1
        elif ch == ">" and code[k - 1] != "-":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return -1


def _type(g: _File, p: _Prefix, kw: str, k: int, region: int, end: int, scope: _Scope) -> int:
    """A class, struct, enum, protocol, actor or extension, and its members; where it
    ends."""
    code = g.code
    kw_at = k - len(kw)
    k = g.skip(k, end)
    path: list[str] = []
    while True:
        named = g.name(k, end)
        if named is None:
            return -1 if not path else k
        path.append(named[0])
        k = named[1]
        if code[k : k + 1] == "<" and (e := _angle_end(g, k, end)) > 0:
            k = e
        if kw == "extension" and code[k : k + 1] == "." and g.name(k + 1, end) is not None:
            k += 1
            continue
        break
    stop, tok = _until(g, k, end, "{")
    where_m = _WHERE.search(code, k, stop)
    inherited = g.said(k, where_m.start() if where_m is not None else stop)
    conforms = []
    if inherited.startswith(":"):
        for x in _split_top(inherited[1:], angles=True):
            said = re.sub(r"@\w+\s*", "", x).strip()
            if said and not said.startswith("~"):
                conforms.append(said)
    where = g.said(where_m.end(), stop) if where_m is not None else ""
    body_end = g.close(stop, end) if tok == "{" else stop
    if kw == "extension":
        mods = set(p.modifiers)
        closed = bool(mods & (_ACCESS - {"public", "open"})) or _hidden(p.attributes)
        full = (*scope.path, *path)
        if conforms:
            cond = requirements(where)
            g.conforms.append((full, [f"{c} (when {cond})" if cond else c for c in conforms]))
        inner = _Scope(
            full, "extension", scope.visible and not closed, "public" in mods, where=where
        )
    else:
        name = path[0]
        full = (*scope.path, name)
        api = _access(g, p, scope) and not name.startswith("_")
        g.types[full] = g.types.get(full, False) or api
        doc = g.doc(region, p.at)
        if doc is not None:
            head = _head(p, g.bare[kw_at:stop])
            g.decls.append(
                _Decl(
                    scope.path, name, kw, head, doc, api, g.line(p.at),
                    notes=_notes(p.attributes), where=scope.where, conforms=conforms,
                )
            )  # fmt: skip
        inner = _Scope(full, kw, api, api and kw == "protocol", api and kw == "enum")
    if tok == "{":
        _walk(g, stop + 1, body_end - 1, inner)
    return body_end


def _params(g: _File, a: int, b: int) -> list[tuple[str, str, str]]:
    """A parameter list's parameters: (the first name, the second name or "", type) each
    (`_` and "" for a bare type: an enum case's associated value)."""
    out: list[tuple[str, str, str]] = []
    code = g.code
    last = a
    depth = angle = 0
    spans: list[tuple[int, int]] = []
    typed = True
    for k in range(a, b):
        ch = code[k]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and typed and ch == "<":
            angle += 1
        elif depth == 0 and typed and ch == ">" and code[k - 1] != "-":
            angle = max(0, angle - 1)
        elif depth == 0 and ch == "=" and angle == 0 and code[k + 1 : k + 2] != "=":
            typed = False
        elif ch == "," and depth == 0 and (angle == 0 or not typed):
            spans.append((last, k))
            last, typed, angle = k + 1, True, 0
    spans.append((last, b))
    for s, e in spans:
        part = code[s:e]
        if not part.strip():
            continue
        colon = _top_colon(part)
        names = part[:colon] if colon >= 0 else part
        words = [g.bare[s + m.start() : s + m.end()].strip("`") for m in _NAME.finditer(names)]
        words = [w for w in words if w not in ("inout", "borrowing", "consuming")]
        typ = ""
        if colon >= 0:
            t = g.bare[s + colon + 1 : e]
            eq = _top_eq(code[s + colon + 1 : e])
            typ = _flat(t[:eq] if eq >= 0 else t)
        if colon < 0:
            out.append(("_", "", _flat(g.bare[s:e])))
        elif not words:
            out.append(("_", "", typ))
        else:
            out.append((words[0], words[1] if len(words) > 1 else "", typ))
    return out


def _top_colon(part: str) -> int:
    depth = 0
    for k, ch in enumerate(part):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == ":" and depth == 0:
            return k
    return -1


def _top_eq(part: str) -> int:
    depth = 0
    for k, ch in enumerate(part):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "=" and depth == 0 and part[k + 1 : k + 2] != "=":
            if k == 0 or part[k - 1] not in "=!<>":
                return k
    return -1


def _accessors(g: _File, a: int, b: int) -> set[str]:
    """The accessor keywords that stand right inside a body (a to b, its braces)."""
    out: set[str] = set()
    k = a + 1
    code = g.code
    while k < b - 1:
        ch = code[k]
        if ch in "([{":
            k = g.close(k, b)
            continue
        m = g.word(k, b)
        if m is not None:
            if m.group() in _ACCESSORS:
                out.add(m.group())
            k = m.end()
            continue
        k += 1
    return out


def _accessor_text(g: _File, a: int, b: int, var: bool) -> str:
    said = _accessors(g, a, b)
    if not said:
        return "{ get }"
    if var and said & _ACCESSOR_SETS:
        return "{ get set }"
    return "{ get }"


def _callable(g: _File, p: _Prefix, kw: str, k: int, region: int, end: int, scope: _Scope) -> int:
    """A function, initializer, subscript or macro."""
    code = g.code
    kw_at = k - len(kw)
    name = kw
    if kw == "init":
        if code[k : k + 1] in ("?", "!"):
            k += 1
    elif kw in ("func", "macro"):
        j = g.skip(k, end)
        named = g.name(j, end)
        if named is not None:
            name, k = named
        else:
            op = _OPERATOR.match(code, j, end)
            if op is None:
                return -1
            name, k = op.group(), op.end()
    j = g.skip(k, end)
    generics = ""
    if code[j : j + 1] == "<":
        e = _angle_end(g, j, end)
        if e < 0:
            return -1
        generics = g.said(j + 1, e - 1)
        j = g.skip(e, end)
    if code[j : j + 1] != "(":
        return _statement_end(g, j, end)
    close = g.close(j, end)
    stop, tok = _until(g, close, end, "{=" if kw == "macro" else "{")
    after = g.close(stop, end) if tok == "{" else stop
    if tok == "=":
        after = _statement_end(g, stop + 1, end)
    doc = g.doc(region, p.at)
    if doc is None:
        return after
    api = _access(g, p, scope) and not name.startswith("_")
    params = _params(g, j + 1, max(j + 1, close - 1))
    if kw == "subscript":  # a subscript's parameter has a label only when it writes one
        labels = [lab if loc else "_" for lab, loc, _ in params]
    elif not (name[0].isalpha() or name[0] == "_"):  # an operator's take no labels
        labels = ["_" for _ in params]
    else:
        labels = [lab for lab, _, _ in params]
    selector = f"{name}({''.join(f'{x}:' for x in labels)})"
    rest = g.bare[kw_at:stop]
    if kw == "subscript" and tok == "{":
        rest = f"{rest} {_accessor_text(g, stop, after, True)}"
    kind = "func" if kw == "func" else kw
    where_m = _WHERE.search(code, close, stop)
    where = g.said(where_m.end(), stop) if where_m is not None else ""
    g.decls.append(
        _Decl(
            scope.path, selector, kind, _head(p, rest), doc, api, g.line(p.at),
            types=_overload_types([t for _, _, t in params], generics, where),
            constraints=f"<{generics}> {where} {scope.where}",
            notes=_notes(p.attributes), where=scope.where,
        )
    )  # fmt: skip
    return after


_OWNERSHIP = re.compile(
    r"@\w+(?:\([^()]*\))?\s*|\b(?:__owned|__shared|borrowing|consuming|sending)\s+"
)


def _conforming(said: str) -> list[str]:
    """What a constraint (`P & Q<T> & ~Copyable`) conforms to: its suppressions off."""
    return [x.strip() for x in said.split("&") if x.strip() and not x.strip().startswith("~")]


def requirements(where: str) -> str:
    """A where clause without the requirements that only suppress (`T: ~Copyable`)."""
    out = []
    for part in _split_top(where, angles=True):
        name, colon, said = part.partition(":")
        if colon and "==" not in part:
            kept = _conforming(said)
            if kept:
                out.append(f"{name.strip()}: {' & '.join(kept)}")
        elif part.strip():
            out.append(part.strip())
    return ", ".join(out)


def _overload_types(types: list[str], generics: str, where: str) -> tuple[str, ...]:
    """A callable's parameter types as its overloads are told apart by them: attributes
    and ownership off, a generic parameter named by what it conforms to."""
    bound: dict[str, list[str]] = {}
    for part in _split_top(generics, angles=True):
        name, _, said = part.partition(":")
        bound.setdefault(name.strip(), []).extend(_conforming(said))
    for part in _split_top(where, angles=True):
        name, colon, said = part.partition(":")
        if colon and "==" not in part and name.strip() in bound:
            bound[name.strip()].extend(_conforming(said))
    out = []
    for t in types:
        t = _OWNERSHIP.sub("", t).strip()
        inout = t.startswith("inout ")
        bare = t.removeprefix("inout ").strip()
        if bound.get(bare):
            t = ("inout " if inout else "") + " & ".join(bound[bare])
        out.append(t)
    return tuple(out)


def _property(g: _File, p: _Prefix, kw: str, k: int, region: int, end: int, scope: _Scope) -> int:
    """A `var` or `let` (each name of a `let a, b: Int`); where it ends."""
    code = g.code
    doc = g.doc(region, p.at)
    api = _access(g, p, scope)
    first = True
    while True:
        j = g.skip(k, end)
        named = g.name(j, end)
        if named is None:
            return _statement_end(g, j, end)
        name, k = named
        if not first and code[g.skip(k, end) : g.skip(k, end) + 1] not in (":", "=", ","):
            return _statement_end(g, k, end)
        stop, tok = _until(g, k, end, "{=,", angles=True)
        typ = g.said(k, stop)
        shown, after = typ, stop
        if tok == "=":
            after, tok = _until(g, stop + 1, end, ",")
            value = g.said(stop + 1, after)
            multiline = "\n" in g.bare[stop + 1 : after].strip()
            if value and len(value) <= _MAX_VALUE and (not typ or kw == "let"):
                if "{" not in value and not multiline:
                    shown = f"{typ} = {value}"
        elif tok == "{":
            after = g.close(stop, end)
            said = _accessors(g, stop, after)
            if scope.kind == "protocol":
                shown = f"{typ} {g.said(stop, after)}"
            elif not said or said - {"willSet", "didSet"}:
                shown = f"{typ} {_accessor_text(g, stop, after, kw == 'var')}"
            tok = ""
        if doc is not None:
            g.decls.append(
                _Decl(
                    scope.path, name, kw, _head(p, f"{kw} {g.bare[j:k]}{shown}"), doc,
                    api and not name.startswith("_"), g.line(p.at),
                    notes=_notes(p.attributes), where=scope.where,
                )
            )  # fmt: skip
        first = False
        if tok != ",":
            return after
        k = after + 1


def _alias(g: _File, p: _Prefix, kw: str, k: int, region: int, end: int, scope: _Scope) -> int:
    """A `typealias` or an `associatedtype`; where it ends."""
    named = g.name(g.skip(k, end), end)
    stop = _statement_end(g, k, end)
    if named is None:
        return stop
    doc = g.doc(region, p.at)
    if doc is not None:
        api = _access(g, p, scope) and not named[0].startswith("_")
        head = _head(p, g.bare[k - len(kw) : stop])
        g.decls.append(
            _Decl(
                scope.path, named[0], kw, head, doc, api, g.line(p.at),
                notes=_notes(p.attributes), where=scope.where,
            )
        )  # fmt: skip
    return stop


def _cases(g: _File, p: _Prefix, k: int, region: int, end: int, scope: _Scope) -> int:
    """An enum's `case a, b(Int), c = 1`: each element a declaration with the doc over
    the `case`; where it ends."""
    stop = _statement_end(g, k, end)
    doc = g.doc(region, p.at)
    if scope.kind != "enum" or doc is None:
        return stop
    api = _access(g, p, scope, case=True)
    indirect = "indirect " if "indirect" in p.modifiers else ""
    for s, e in _split_spans(g.code[k:stop]):
        a, b = k + s, k + e
        j = g.skip(a, b)
        named = g.name(j, b)
        if named is None:
            continue
        name, n = named
        selector = name
        if g.code[n : n + 1] == "(":
            close = g.close(n, b)
            labels = [lab for lab, _, _ in _params(g, n + 1, max(n + 1, close - 1))]
            selector = f"{name}({''.join(f'{x}:' for x in labels)})"
        g.decls.append(
            _Decl(
                scope.path, selector, "case", _flat(f"{indirect}case {g.bare[j:b]}"), doc,
                api and not name.startswith("_"), g.line(p.at), notes=_notes(p.attributes),
            )
        )  # fmt: skip
    return stop


def _split_spans(text: str) -> list[tuple[int, int]]:
    """The spans of `text` between its commas outside brackets."""
    out: list[tuple[int, int]] = []
    depth = last = 0
    for k, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append((last, k))
            last = k + 1
    out.append((last, len(text)))
    return out


# ----------------------------------------------------------------------------- modules
_TARGET = re.compile(r"\.(target|executableTarget|testTarget|macro|plugin|systemLibrary)\s*\(")
_DEFAULT_ROOTS = ("Sources", "Source", "src", "srcs")


@dataclass
class _Package:
    """A package's targets as its manifest names them: {folder: (module, is a test)}."""

    root: PurePosixPath
    targets: dict[PurePosixPath, tuple[str, bool]] = field(default_factory=dict)


def manifest_targets(text: str) -> list[tuple[str, str, bool]]:
    """A `Package.swift`'s targets: (name, path or "", is a test target) each."""
    s = scan(text)
    match = brackets(s.code)
    out: list[tuple[str, str, bool]] = []
    for m in _TARGET.finditer(s.code):
        open_at = m.end() - 1
        close = match.get(open_at, len(s.code))
        top = _top_args(s.code[open_at + 1 : close - 1], s.bare[open_at + 1 : close - 1])
        name = re.match(r"\s*name\s*:\s*" + _STRING, top.get("name", ""))
        if name is None:
            continue
        path = re.match(r"\s*path\s*:\s*" + _STRING, top.get("path", ""))
        out.append((name.group(1), path.group(1) if path else "", m.group(1) == "testTarget"))
    return out


def _top_args(code: str, bare: str) -> dict[str, str]:
    """A call's labelled arguments at its top level, {label: its text with the label}."""
    out: dict[str, str] = {}
    for s, e in _split_spans(code):
        m = re.match(r"\s*([A-Za-z_]\w*)\s*:", code[s:e])
        if m is not None:
            out.setdefault(m.group(1), bare[s:e])
    return out


def _packages(manifests: list[SwiftFile]) -> list[_Package]:
    out: list[_Package] = []
    for f in sorted(manifests, key=lambda f: (f.rel.name != MANIFEST, f.rel)):
        root = f.rel.parent
        pkg = next((x for x in out if x.root == root), None)
        if pkg is None:
            pkg = _Package(root)
            out.append(pkg)
        for name, path, test in manifest_targets(f.text):
            folders = [root / path] if path else [root / r / name for r in _DEFAULT_ROOTS]
            if test and not path:
                folders.append(root / "Tests" / name)
            for folder in folders:
                pkg.targets.setdefault(folder, (name, test))
    return out


def module_of(rel: PurePosixPath, packages: list[_Package], top: str) -> tuple[str, bool]:
    """(the module a file belongs to, whether it is a test target's): its package's target
    whose folder holds it, else the folder under `Sources/`, else `top`."""
    parents = set(rel.parents)
    for pkg in sorted(packages, key=lambda x: -len(x.root.parts)):
        if pkg.root not in parents and pkg.root != PurePosixPath("."):
            continue
        best = max(
            (f for f in pkg.targets if f in parents), key=lambda f: len(f.parts), default=None
        )
        if best is not None:
            return pkg.targets[best]
    parts = rel.parts[:-1]
    for k in range(len(parts) - 1, -1, -1):
        if parts[k] == "Sources" and k + 1 < len(parts):
            return parts[k + 1], False
    return top, False


# ----------------------------------------------------------------------------- documents
@dataclass
class _Read:
    f: SwiftFile
    module: str
    g: _File


def api_documents(
    files: list[SwiftFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the documented public API the files declare, sorted by uri; a file
    that gives none is counted in `rejects`. The `Package.swift` files among them name
    the modules; `top` names a module found nowhere else."""
    manifests = [f for f in files if _MANIFEST_NAME.match(f.rel.name)]
    packages = _packages(manifests)
    read: list[_Read] = []
    for f in sorted(files, key=lambda f: f.rel):
        if _MANIFEST_NAME.match(f.rel.name):
            continue
        module, test = module_of(f.rel, packages, top)
        if test or is_test(f.rel):
            _count(rejects, SWIFT_TEST, f.where)
            continue
        scanned = scan(f.text)
        if not scanned.whole:
            _count(rejects, SWIFT_UNSCANNABLE, f.where)
            continue
        g = _File(f.text, scanned)
        _walk(g, 0, len(g.code), _Scope())
        read.append(_Read(f, module, g))
    types: dict[str, dict[tuple[str, ...], bool]] = {}
    conforms: dict[str, dict[tuple[str, ...], list[str]]] = {}
    for r in read:
        t = types.setdefault(r.module, {})
        for path, api in r.g.types.items():
            t[path] = t.get(path, False) or api
        c = conforms.setdefault(r.module, {})
        for path, names in r.g.conforms:
            have = c.setdefault(path, [])
            have.extend(x for x in names if x not in have)
    kept: dict[str, tuple[_Read, _Decl]] = {}  # a name -> what documents it
    # a plain uri -> the parameter types and constraints of the overloads it names
    by_base: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    gave: set[str] = set()
    for r in read:
        for d in r.g.decls:
            if not _visible(d, types.get(r.module, {})):
                continue
            gave.add(r.f.where)
            qual = ".".join(x for x in (r.module, *d.path, d.name) if x)
            group = by_base.setdefault(qual, [])
            if (d.types, d.constraints) in group:
                continue
            name = qual if not group else qual + _overload_suffix(d.types, group)
            if name in kept:
                name = f"{qual}-{len(group) + 1}"
            group.append((d.types, d.constraints))
            kept[name] = (r, d)
    for r in read:
        if r.f.where not in gave:
            _count(rejects, SWIFT_NO_API, r.f.where)
    members: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]] = {}
    for name, (r, d) in kept.items():
        members.setdefault((r.module, d.path), []).append((name, d.doc.summary()))
    docs: list[Document] = []
    for name, (r, d) in kept.items():
        module_types = types.get(r.module, {})
        docs.append(_document(source, r, d, name, module_types, conforms, members))
    return sorted(docs, key=lambda x: x.uri)


def _overload_suffix(types: tuple[str, ...], earlier: list[tuple[tuple[str, ...], str]]) -> str:
    """What tells an overload from the earlier ones of its selector, as DocC's links do:
    the one parameter type no earlier one has there (`-(_,Int)`), else all of them
    (`-(Int,String)`), else its place among them (`-2`: the same types under other
    generic constraints)."""
    others = [t for t, _ in earlier]
    if types in others:
        return f"-{len(earlier) + 1}"
    for i, t in enumerate(types):
        if all(len(o) != len(types) or o[i] != t for o in others):
            return "-(" + ",".join(t if j == i else "_" for j in range(len(types))) + ")"
    return f"-({','.join(types)})"


def _visible(d: _Decl, types: dict[tuple[str, ...], bool]) -> bool:
    """Whether a declaration is API: its own access, no `_` name on its path, and each
    type of the module it stands in API."""
    if not d.api or any(x.startswith("_") for x in d.path):
        return False
    return all(types.get(d.path[:k], True) for k in range(1, len(d.path) + 1))


def _document(
    source: str,
    r: _Read,
    d: _Decl,
    name: str,
    types: dict[tuple[str, ...], bool],
    conforms: dict[str, dict[tuple[str, ...], list[str]]],
    members: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]],
) -> Document:
    parts = [*d.notes, d.doc.markdown()]
    if requirements(d.where):
        parts.append(f"Available when `{requirements(d.where)}`.")
    if d.path and d.path[:1] not in types:
        parts.append(f"Extends `{'.'.join(d.path)}`, a type declared outside this module.")
    if d.kind in ("class", "struct", "enum", "protocol", "actor"):
        full = (*d.path, d.name)
        added = conforms.get(r.module, {}).get(full, [])
        declared = [x for x in d.conforms if not x.startswith("_")]
        extra = [x for x in added if x.split(" (when")[0] not in d.conforms]
        extra = [x for x in extra if not x.startswith("_")]
        if extra:
            shown = [f"`{x}`" for x in declared] + [_conformance(x) for x in extra]
            parts.append(f"Conforms to: {', '.join(shown)}.")
        listed = members.get((r.module, full), [])
        if listed:
            lines = []
            for member, sentence in listed[:MAX_MEMBERS]:
                short = member.removeprefix(f"{name}.")
                lines.append(f"- `{short}`: {sentence}" if sentence else f"- `{short}`")
            if len(listed) > MAX_MEMBERS:
                lines.append(f"- ... and {len(listed) - MAX_MEMBERS} more")
            parts.append("Members:\n" + "\n".join(lines))
    text = f"{d.head}\n\n{_join(parts)}"
    return api_document(
        source,
        URI_PREFIX,
        r.f,
        name,
        text,
        d.kind,
        d.head,
        d.line,
        language="swift",
        module=r.module,
    )


def _conformance(said: str) -> str:
    name, _, cond = said.partition(" (when ")
    return f"`{name}` (when `{cond.rstrip(')')}`)" if cond else f"`{name}`"
