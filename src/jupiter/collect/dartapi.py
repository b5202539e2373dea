"""Dart files read as their package's API, as `dart doc` (dartdoc) shows it: one document
per documented public library, class, mixin, enum, enum value, extension, extension type,
typedef, top-level function, variable and constant, and per documented public member of
those (constructor, method, operator, field, getter and setter: a getter and its setter one
property). Documented means a doc comment over the declaration, annotations between them
allowed, read as the analyzer reads it: every `///` line between the declaration and the
one before it (blank lines and `//` comments between them or not), or the last `/** */`.

Libraries and privacy follow dartdoc. A package is the folder of a `pubspec.yaml` handed in
with the files (MANIFEST: its `name:` names it), else the folder above `lib/` (the source's
folder, `top`, when `lib/` stands at its root); a file under no `lib/` is a library of its
own. Its public libraries are its files under `lib/` but not under `lib/src/`; a file under
`lib/src/` is implementation, API only as far as a public library `export`s it, followed
through the files' exports (relative and `package:` URIs of the package itself; a
conditional export's `dart.library.io` branch, else its default; `show` and `hide` applied
in turn; cycles end). `part` files belong to their library (`part of 'uri'` or `part of
name`). A declaration is named by its canonical library, chosen among the public libraries
that export it as dartdoc scores them: one whose doc says `{@canonicalFor lib.Name}`, not a
deprecated one, the library named like the package, the one whose name shares most with
the declaring file's path, then the first by name (`binarySearch` of collection's
`lib/src/algorithms.dart`, exported by `collection.dart` and `algorithms.dart`, is
`collection`'s). Names starting with `_` are private, and so are unnamed extensions and a
private class's members; `@internal` and `@nodoc` items are left out with their members; a
`@visibleForTesting` member too, and a top-level `@visibleForTesting` declaration unless an
export `show`s it by name (package:platform's `testing.dart`: its members then stay); a
`@protected` member is marked so, and a `@Deprecated('msg')` or `@deprecated` item (a
library too) says "Deprecated: msg".

The uri is `dart:<package>[/<library>].<Name>[.<member>]`, the library its path under
`lib/` without `.dart`, written only when it is not the package's name: `dart:http.get`
(a function of package http's `lib/http.dart`), `dart:http.Client.send`,
`dart:http/retry.RetryClient`; a constructor `<Class>.<name>` (`dart:shelf.Response.ok`),
the unnamed one (`Client(...)`, `Client.new(...)`) `<Class>.<Class>`
(`dart:http.Client.Client`), as dartdoc names their pages; an operator `operator==`; an
enum value `<Enum>.<value>`; a library `dart:http`, `dart:http/retry`. The text is the
declaration as written (annotations and comments out, the body, an initializer list, a
redirection, `async` and a non-constant's initializer cut, whitespace normalized,
trailing commas out; a class's modifiers, `extends`, `with`, `implements` kept; a getter
and its setter a line each; a constant's value when short; a library shown as its
`import`, an enum value as `<Enum>.<value>(args)`), a blank line, then the doc comment as
Markdown: references `[Name]`, `[Class.member]`, `[join()]` as `` `Name` `` (a link's
definition `[x]: url` and a link `[text](url)` kept), `{@template}` blocks kept in place
and `{@macro}` replaced by the template of that name defined anywhere in the package's
files, other `{@...}` directives (`{@tool}`, `{@youtube}`, `{@animation}`) and
`@docImport` lines dropped, code blocks fenced (```` ```dart ```` where none says a
language, an indented block too); then its notes (deprecated, protected). A type's and a
library's documents end with their documented members' (declarations') first sentences
("Members:", at most 100). An undocumented class's documented members still get theirs;
an inherited member is not repeated.

The files are scanned, never compiled: comments (block comments nest), strings (single,
double, triple quoted, raw, with `$name` and `${...}` interpolations whose code may hold
braces, comments and strings) and brackets are told apart, so a brace in a string ends no
block. Tests (`test/`, `integration_test/`, `test_driver/`, `*_test.dart` outside `lib/`),
generated files (`*.g.dart`, `*.freezed.dart`, `*.mocks.dart`, a "generated ... do not
edit" line in the comments a file opens with), files outside a package's `lib/` (`bin/`,
`example/`, `tool/`, a package under `example/`), a file whose strings, comments or
brackets do not close, and a file that gives nothing documented (a `lib/src/` file nothing
exports) give no document and are counted.
"""

from __future__ import annotations

import posixpath
import re
import textwrap
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.codescan import Comment, DocIndex, balanced, blanked, brackets, comment_end
from jupiter.collect.result import CollectResult, SourceFile, api_document, count
from jupiter.records import Document

SUFFIXES = (".dart",)
URI_PREFIX = "dart:"
MANIFEST = "pubspec.yaml"
# reasons a Dart file gave no document, as the collect stage counts them
DART_TEST = "dart_test"
DART_GENERATED = "dart_generated"
DART_NOT_LIBRARY = "dart_not_library"  # outside a package's lib/: bin/, example/, tool/
DART_UNSCANNABLE = "dart_unscannable"  # a string, comment or bracket that does not close
DART_NO_API = "dart_no_api"
_AS_TEXT = (
    "Dart files read as their package's API (doc comments of the public libraries' "
    "declarations, as dartdoc shows them): tests, generated code, files outside lib/, "
    "files that do not scan and files with nothing documented give none; the source's "
    "dart: text reads them as text"
)
FIXES = {
    k: _AS_TEXT
    for k in (DART_TEST, DART_GENERATED, DART_NOT_LIBRARY, DART_UNSCANNABLE, DART_NO_API)
}
_TEST_FOLDERS = frozenset({"test", "integration_test", "test_driver"})
_OUTSIDE = frozenset({"example", "examples"})  # a package in one of these is no API
_GENERATED_NAMES = (".g.dart", ".freezed.dart", ".mocks.dart")
_GENERATED_NOTE = re.compile(
    r"\bgenerated\b.{0,120}?\bdo\s+not\s+(?:edit|modify)\b"
    r"|\bdo\s+not\s+(?:edit|modify)\b.{0,120}?\bgenerated\b",
    re.I,
)
# the conditions a conditional export or import meets where dartdoc runs (the VM)
_TRUE_CONDITIONS = frozenset(
    f"dart.library.{x}"
    for x in "io ffi isolate core async collection convert math typed_data developer".split()
)
_MAX_VALUE = 80  # characters of a constant's value shown
_MAX_MEMBERS = 100  # members a type's document lists
_MAX_SENTENCE = 200  # characters of a member's first sentence listed
_MAX_MACRO_DEPTH = 5

DartFile = SourceFile  # its files, as the source hands them over


def is_dart(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    """A test's source: under test/, integration_test/ or test_driver/, or `*_test.dart`,
    outside a package's lib/ (a library there is one, whatever its name:
    `lib/src/isolate_test.dart` of a package of conformance tests)."""
    folders = rel.parts[:-1]
    if "lib" in folders:
        above = folders[: len(folders) - 1 - folders[::-1].index("lib")]
        return any(p in _TEST_FOLDERS for p in above)
    return rel.name.endswith("_test.dart") or any(p in _TEST_FOLDERS for p in folders)


def is_generated(rel: PurePosixPath, text: str = "") -> bool:
    """A generated file: `*.g.dart`, `*.freezed.dart`, `*.mocks.dart`, or a "generated ...
    do not edit" line among the comments the file opens with."""
    if rel.name.endswith(_GENERATED_NAMES):
        return True
    for line in text[:4000].split("\n"):
        s = line.strip()
        if s and not s.startswith(("//", "/*", "*")):
            return False
        if _GENERATED_NOTE.search(s):
            return True
    return False


def manifest_name(text: str) -> str | None:
    """The package a pubspec.yaml names (its top-level `name:`)."""
    m = re.search(r"^name[ \t]*:[ \t]*['\"]?([A-Za-z_]\w*)", text, re.M)
    return m.group(1) if m is not None else None


# ----------------------------------------------------------------------------- scanning
_TOP = re.compile(r"//|/\*|(?<![\w$])r['\"]|['\"]")
_IN_INTERPOLATION = re.compile(r"[{}]|//|/\*|(?<![\w$])r['\"]|['\"]")
_IN_STRING: dict[tuple[str, bool], re.Pattern[str]] = {}
for _q in ("'", '"', "'''", '"""'):
    _end = re.escape(_q) + ("" if len(_q) == 3 else r"|\n")
    _IN_STRING[(_q, False)] = re.compile(r"\\[\s\S]|\$\{|" + _end)
    _IN_STRING[(_q, True)] = re.compile(_end)


@dataclass
class Scan:
    """A file scanned: `code` with comments and literals' insides blanked, `bare` with only
    comments blanked, `flat` the code with literals' insides marked (no space in them),
    all as long as the text; its comments (a run of `///` lines one), and whether every
    string, comment and bracket closes."""

    code: str
    bare: str
    flat: str
    comments: list[Comment]
    ok: bool


def scan(text: str) -> Scan:
    """A Dart file's text scanned (see Scan)."""
    comments: list[Comment] = []
    said: list[tuple[int, int]] = []  # comments: blanked in both
    inside: list[tuple[int, int]] = []  # literals' insides: blanked in the code only
    ok = True
    i = 0
    while (m := _TOP.search(text, i)) is not None:
        s, tok = m.start(), m.group()
        if tok == "//":
            e = _line_end(text, s)
            doc = text.startswith("///", s) and not text.startswith("////", s)
            _add_line_comment(comments, text, s, e, doc)
            said.append((s, e))
        elif tok == "/*":
            e, stop, closed = comment_end(text, s)
            ok = ok and closed
            doc = text.startswith("/**", s) and not text.startswith(("/**/", "/***"), s)
            body = text[s + (3 if doc else 2) : max(stop, s + 2)]
            comments.append(Comment(s, e, doc, _block_doc(body) if doc else body))
            said.append((s, e))
        else:
            opener = _opener(text, s)
            e, closed = _literal_end(text, s)
            ok = ok and closed
            close = e - len(opener.lstrip("r")) if closed else e
            inside.append((s + len(opener), max(close, s + len(opener))))
        i = max(e, s + 1)
    code = blanked(text, said + inside)
    flat = list(code)
    for a, b in inside:
        flat[a:b] = "\x01" * (b - a)
    return Scan(code, blanked(text, said), "".join(flat), comments, ok and balanced(code))


def _line_end(text: str, i: int) -> int:
    e = text.find("\n", i)
    return len(text) if e < 0 else e


def _add_line_comment(comments: list[Comment], text: str, s: int, e: int, doc: bool) -> None:
    """A `//` comment added; a `///` line right under another joins its run."""
    line = text[s + (3 if doc else 2) : e].rstrip()
    if doc:
        line = line[1:] if line.startswith(" ") else line
        last = comments[-1] if comments else None
        if last is not None and last.doc and last.text is not None:
            gap = text[last.end : s]
            if not gap.strip() and gap.count("\n") == 1 and text.startswith("///", last.start):
                last.end = e
                last.text += "\n" + line
                return
    comments.append(Comment(s, e, doc, line))


def _block_doc(body: str) -> str:
    """A `/** */` comment's text without its margin of stars."""
    lines = body.split("\n")
    out = [lines[0].strip()]
    rest = lines[1:]
    if rest and all(re.match(r"\s*\*", x) or not x.strip() for x in rest):
        rest = [re.sub(r"^\s*\*(?!\*) ?", "", x) for x in rest]
    else:
        rest = textwrap.dedent("\n".join(rest)).split("\n") if rest else []
    return "\n".join(x.rstrip() for x in out + rest).strip("\n")


def _opener(text: str, s: int) -> str:
    """The opening of the string at s: `r`, then one quote or three."""
    raw = text[s] == "r"
    k = s + (1 if raw else 0)
    q = text[k]
    return ("r" if raw else "") + (q * 3 if text.startswith(q * 3, k) else q)


def _literal_end(text: str, s: int) -> tuple[int, bool]:
    """(past the string at s, whether it closes). Interpolations `${...}` are code that
    may hold braces, comments and strings of their own: a stack of strings and
    interpolations is walked, never recursion. A one-line string ends, unclosed, at its
    line's end."""
    closed = True
    stack: list[tuple[str, bool] | list[int]] = []  # a string's (quote, raw); [depth]
    i = s
    opening = True  # a string opens at i
    while True:
        if opening:
            opener = _opener(text, i)
            stack.append((opener.lstrip("r"), opener.startswith("r")))
            i += len(opener)
            opening = False
        top = stack[-1]
        if isinstance(top, list):  # in an interpolation
            k = _in_interpolation(text, i, stack)
            if k < 0:
                return len(text), False
            i = k
            opening = stack[-1] is top  # still in it: a string opens at k
            continue
        m = _IN_STRING[top].search(text, i)
        if m is None:
            return len(text), False
        tok = m.group()
        if tok == "${":
            stack.append([1])
            i = m.end()
        elif tok[0] == "\\":
            i = m.end()
        else:
            stack.pop()
            closed = closed and tok != "\n"
            i = m.start() if tok == "\n" else m.end()
            if not stack:
                return i, closed


def _in_interpolation(text: str, i: int, stack: list[tuple[str, bool] | list[int]]) -> int:
    """Walks the interpolation on top of the stack from i: returns where a string in it
    opens (the stack's top still the interpolation), or past its closing brace (popped,
    the string it is in on top); -1 when the text ends first."""
    top = stack[-1]
    assert isinstance(top, list)
    while (m := _IN_INTERPOLATION.search(text, i)) is not None:
        tok = m.group()
        if tok == "{":
            top[0] += 1
        elif tok == "}":
            top[0] -= 1
            if top[0] == 0:
                stack.pop()
                return m.end()
        elif tok == "//":
            i = _line_end(text, m.start())
            continue
        elif tok == "/*":
            i = comment_end(text, m.start())[0]
            continue
        else:
            return m.start()
        i = m.end()
    return -1


# ----------------------------------------------------------------------------- Markdown
_FENCE = re.compile(r"\s*(`{3,}|~{3,})(.*)$")
_TEMPLATE = re.compile(r"\{@template\s+([^\s}]+)\s*\}(.*?)\{@endtemplate\s*\}", re.S)
_TEMPLATE_MARK = re.compile(r"\{@template\s+[^}]*\}|\{@endtemplate\s*\}")
_MACRO = re.compile(r"\{@macro\s+([^\s}]+)\s*\}")
_INJECTED = re.compile(r"\{@inject-html\}.*?\{@end-inject-html\}", re.S)
_DIRECTIVE = re.compile(r"\{@[A-Za-z][\w-]*(?:\s[^}\n]*)?\}")
_DOC_IMPORT = re.compile(r"\s*@docImport\s")
_CANONICAL_FOR = re.compile(r"\{@canonicalFor\s+([\w$.]+)\s*\}")
_NODOC = re.compile(r"(?:\{@nodoc\}|(?<![\w`])@nodoc\b)")
_LIST_ITEM = re.compile(r"\s{0,3}(?:[-*+]|\d+[.)])\s")
# a code span (kept), a link with its own target, a reference to a name
_REFERENCE = re.compile(
    r"(?P<code>(?P<tick>`+)[^`\n]*(?P=tick))"
    r"|(?<![\\!\]])\[(?:new\s+)?(?P<name>[A-Za-z_$][\w$]*(?:<[\w$<>, ?]*>)?"
    r"(?:\.(?:[A-Za-z_$][\w$]*|operator\s*[^\]\s]+))*(?:\(\))?)\](?![\[(])"
    r"|(?<![\\!\]])\[(?P<text>[^\[\]\n]+)\]\((?P<target>[A-Za-z_$][\w$.]*)\)"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\[(\"'*_])")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")


def templates_of(doc: str) -> dict[str, str]:
    """The `{@template name}...{@endtemplate}` blocks a doc comment defines."""
    return {m.group(1): m.group(2).strip("\n") for m in _TEMPLATE.finditer(doc)}


def markdown(doc: str, templates: dict[str, str] | None = None) -> str:
    """A doc comment's text as the document shows it: macros replaced by their templates,
    template marks and other directives out, references as code, code blocks fenced
    (Dart's where no language is said), runs of blank lines one."""
    text = _expand(doc, templates or {}, 0)
    text = _INJECTED.sub("", text)
    out: list[str] = []
    fence = ""
    lines = text.split("\n")
    prev_blank, in_list = True, False
    k = 0
    while k < len(lines):
        line = lines[k].rstrip()
        k += 1
        f = _FENCE.match(line)
        if fence:
            if f is not None and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence):
                fence = "" if not f.group(2).strip() else fence
            out.append(line)
            continue
        if f is not None:
            fence = f.group(1)
            out.append(line + ("" if f.group(2).strip() else "dart"))
            prev_blank = False
            continue
        if line.startswith("    ") and prev_blank and not in_list:  # an indented code block
            block = [line]
            while k < len(lines) and (lines[k].startswith("    ") or not lines[k].strip()):
                block.append(lines[k].rstrip())
                k += 1
            while block and not block[-1].strip():
                block.pop()
                k -= 1
            out += ["```dart", *textwrap.dedent("\n".join(block)).split("\n"), "```"]
            continue
        if not line.strip():
            prev_blank = True
            out.append("")
            continue
        if _LIST_ITEM.match(line):
            in_list = True
        elif prev_blank and not line.startswith(" "):
            in_list = False
        prev_blank = False
        if _DOC_IMPORT.match(line):
            continue
        line = _DIRECTIVE.sub("", line)
        if line.strip() or not lines[k - 1].strip():
            out.append(_REFERENCE.sub(_reference, line).rstrip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


def _expand(doc: str, templates: dict[str, str], depth: int) -> str:
    """Macros replaced by their templates (an unknown one by nothing), template marks out."""

    def macro(m: re.Match[str]) -> str:
        body = templates.get(m.group(1), "")
        return _expand(body, templates, depth + 1) if depth < _MAX_MACRO_DEPTH else body

    return _TEMPLATE_MARK.sub("", _MACRO.sub(macro, doc))


def _reference(m: re.Match[str]) -> str:
    if m.group("code") is not None:
        return m.group()
    if m.group("text") is not None:  # `[NaN](double.nan)`: a link to a name, its text
        return m.group("text")
    line = m.string
    if not line[: m.start()].strip() and line[m.end() :].startswith(":"):
        return m.group()  # `[name]: url`, a link's definition
    return f"`{m.group('name')}`"


def first_sentence(md: str) -> str:
    """The first sentence of a Markdown text's first paragraph, on one line."""
    para: list[str] = []
    for line in md.split("\n"):
        s = line.strip()
        if not s or s.startswith(("```", "~~~")):
            if para:
                break
            if s:
                return ""  # it opens with code
            continue
        para.append(s.lstrip("#").strip())
    text = " ".join(para)
    for m in _SENTENCE_END.finditer(text):
        if not text[: m.start()].lower().endswith(_ABBREVIATIONS):
            text = text[: m.start()]
            break
    return text if len(text) <= _MAX_SENTENCE else text[: _MAX_SENTENCE - 1].rstrip() + "…"


# ----------------------------------------------------------------------------- items
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_TOKEN = re.compile(r"\s*([A-Za-z_$][\w$]*|=>|==|\S)")
_ANNOTATION = re.compile(r"@\s*([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)")
_MODIFIERS = frozenset(
    "abstract base interface final sealed external static const late covariant factory "
    "var augment".split()
)
_OPERATOR = re.compile(r"operator\s*(\[\]=?|~/|>>>|>>|<<|<=|>=|==|[-+*/%&|^~<>])\s*$")
_CALL_NAME = re.compile(r"(?:([A-Za-z_$][\w$]*)\s*\.\s*)?([A-Za-z_$][\w$]*)\s*$")
_ACCESSOR = re.compile(r"\b(get|set)\s+$")
_STATEMENT = re.compile(r"[;(\[{}]")
_BODY_STOP = re.compile(r"=>|[{};=(\[]")
_AFTER_MODIFIER = re.compile(r"\s*(?:\*|=>|\{)")
_BODY_MODIFIER = re.compile(r"(?:async|sync)\b\s*\*?")
_STRING = re.compile(r"r?('''|\"\"\"|'|\")((?:\\.|(?!\1).)*)\1", re.S)
_DECLARATOR = re.compile(r",\s*([A-Za-z_$][\w$]*)\s*(?=[=,;])")
_SHOWN_SPACE = re.compile(
    r"(?P<cut>\s*,\s*(?=[)\]}])|(?<=[(\[{])\s+|\s+(?=[)\]},]))|(?P<space>\s+)"
)
_INTERNAL = frozenset({"internal", "meta.internal"})
_FOR_TESTING = frozenset({"visibleForTesting", "meta.visibleForTesting"})
_TYPE_KINDS = {
    "class": "class",
    "mixin": "mixin",
    "enum": "enum",
    "extension": "extension",
    "extension type": "extension type",
}


@dataclass
class _Entry:
    """A public declaration read: its name within its library (`Client.send`), kind,
    declaration as shown, signature, doc comment (raw), notes (deprecated, protected),
    where it stands, its members (a type's), and how a list of members names it."""

    name: str
    kind: str
    head: str
    signature: str
    doc: str
    notes: list[str]
    line: int
    f: SourceFile
    short: str
    members: list[_Entry] = field(default_factory=list)
    testing: bool = False  # a top-level `@visibleForTesting` one


@dataclass
class _Owner:
    name: str = ""  # the type's name ("" at a file's top level)
    kind: str = "library"
    testing: bool = False  # a `@visibleForTesting` type: its members are for tests too


@dataclass
class _Prefix:
    annotations: list[tuple[str, str]]  # (name, as written)
    mods: list[str]
    at: int  # where its first modifier or keyword stands
    end: int  # past the modifiers


@dataclass
class _Export:
    uri: str
    combinators: list[tuple[str, set[str]]]  # ("show" | "hide", names), in order


@dataclass
class _File(DocIndex):
    """A scanned file, its doc comments indexed, and what its top level says."""

    f: SourceFile
    s: Scan
    code: str = ""
    docs: list[Comment] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    newlines: list[int] = field(default_factory=list)
    match: dict[int, int] = field(default_factory=dict)
    entries: list[_Entry] = field(default_factory=list)
    library_doc: str | None = None
    library_notes: list[str] = field(default_factory=list)
    library_name: str = ""  # `library a.b;`'s name
    part_of: str | None = None  # `part of`'s URI or library name
    parts: list[str] = field(default_factory=list)
    exports: list[_Export] = field(default_factory=list)
    # the properties read so far, by (id of the list they are in, name)
    properties: dict[tuple[int, str], _Entry] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.code = self.s.code
        self.docs = [c for c in self.s.comments if c.doc]
        self.starts = [c.start for c in self.docs]
        self.newlines = [m.start() for m in re.finditer("\n", self.f.text)]
        self.match = brackets(self.code)

    def doc_text(self, a: int, b: int) -> str:
        """The doc comment of a declaration whose comments stand between a and b, as the
        analyzer reads it: the last `/** */` when it is the last doc comment, else every
        `///` line after it, blank lines and `//` comments between them or not."""
        k = bisect_left(self.starts, b)
        first = bisect_left(self.starts, a, 0, k)
        lines: list[str] = []
        block = False  # the lines are a `/** */` comment's
        for c in self.docs[first:k]:
            if not self.f.text.startswith("///", c.start):
                lines, block = [c.text], True
                continue
            if block:
                lines, block = [], False
            lines.append(c.text)
        return "\n".join(lines)

    def shown(self, a: int, b: int) -> str:
        """The source between a and b as a declaration shows it: comments and annotations
        out, whitespace one space (none inside brackets), trailing commas out; literals
        as written."""
        spans: list[tuple[int, int]] = []
        k = a
        while (i := self.code.find("@", k, b)) >= 0:
            e = _annotation_end(self, i, b)
            spans.append((i, e))
            k = max(e, i + 1)
        bare, flat = [], []
        last = a
        for s, e in [*spans, (b, b)]:
            bare.append(self.s.bare[last:s])
            flat.append(self.s.flat[last:s])
            last = e
        text, marks = "".join(bare), "".join(flat)
        out: list[str] = []
        last = 0
        for m in _SHOWN_SPACE.finditer(marks):
            out.append(text[last : m.start()])
            out.append(" " if m.group("space") is not None else "")
            last = m.end()
        out.append(text[last:])
        shown = "".join(out).strip()
        return re.sub(r"\s+", " ", shown) if "\n" in shown else shown


def _annotation_end(g: _File, i: int, end: int) -> int:
    """Past the annotation at i (`@a.b`, `@A<T>(...)`; arguments only right after it)."""
    m = _ANNOTATION.match(g.code, i, end)
    if m is None:
        return i + 1
    e = m.end()
    if g.code[e : e + 1] == "<":
        e = _angle_end(g.code, e, end)
    if g.code[e : e + 1] == "(":
        e = g.close(e, end)
    return e


def _angle_end(code: str, k: int, end: int) -> int:
    """Past the `>` closing the `<` at k (an arrow's `=>` closes none); where a `;`, `{` or
    `}` stands first, there; at most end."""
    depth = 0
    j = k
    while j < end:
        ch = code[j]
        if ch == "<":
            depth += 1
        elif ch == ">" and code[j - 1] != "=":
            depth -= 1
            if depth == 0:
                return j + 1
        elif ch in ";{}":
            return j
        j += 1
    return end


def _prefix(g: _File, j: int, end: int) -> _Prefix:
    code = g.code
    annotations: list[tuple[str, str]] = []
    k = j
    while k < end and code[k] == "@":
        m = _ANNOTATION.match(code, k, end)
        if m is None:
            break
        e = _annotation_end(g, k, end)
        annotations.append(("".join(m.group(1).split()), g.s.bare[k:e]))
        k = g.skip(e, end)
    at = k
    mods: list[str] = []
    while (m := _IDENT.match(code, k, end)) is not None:
        word = m.group()
        nxt = g.skip(m.end(), end)
        following = _IDENT.match(code, nxt, end)
        if following is None:
            break
        if word in _MODIFIERS or (word == "mixin" and following.group() == "class"):
            mods.append(word)
            k = nxt
            continue
        break
    return _Prefix(annotations, mods, at, k)


def _statement_end(g: _File, k: int, end: int) -> int:
    """Past the `;` ending the statement at k (brackets skipped); at a stray `}`, there."""
    code = g.code
    while (m := _STATEMENT.search(code, k, end)) is not None:
        ch = m.group()
        if ch == ";":
            return m.end()
        if ch == "}":
            return m.start()
        k = max(g.close(m.start(), end), m.start() + 1)
    return end


def _body_end(g: _File, k: int, end: int) -> int:
    """Past the body of a function whose parameters close at k: its block, its `=> expr;`,
    its `;`, a redirection's `= Other;`; its `async`, `async*`, `sync*` and an initializer
    list (`: super(x), _a = a`) before it skipped."""
    code = g.code
    j = g.skip(k, end)
    if (m := _BODY_MODIFIER.match(code, j, end)) is not None:
        j = g.skip(m.end(), end)
    initializers = code[j : j + 1] == ":"
    if initializers:
        j += 1
    while (m := _BODY_STOP.search(code, j, end)) is not None:
        tok, s = m.group(), m.start()
        if tok == "{":
            return g.close(s, end)
        if tok == "=>" or (tok == "=" and not initializers):
            return _statement_end(g, m.end(), end)
        if tok == ";":
            return m.end()
        if tok == "}":
            return s
        j = max(g.close(s, end), s + 1) if tok in "([" else m.end()
    return end


def _notes(annotations: list[tuple[str, str]]) -> list[str]:
    """`Deprecated: msg` from `@Deprecated('msg')` or `@deprecated`; `Protected` from
    `@protected`."""
    notes: list[str] = []
    for name, written in annotations:
        if name in ("Deprecated", "deprecated", "meta.Deprecated"):
            message = "".join(_unescape(m.group(2)) for m in _STRING.finditer(written))
            message = markdown(" ".join(message.split()))
            notes.append(f"Deprecated: {message}" if message else "Deprecated.")
        elif name in ("protected", "meta.protected"):
            notes.append("Protected: for use by subclasses only.")
    return notes


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def _hidden(p: _Prefix, doc: str, top: bool = False) -> bool:
    """Whether an item is left out: `@internal`, `@nodoc`, or `@visibleForTesting` unless
    `top` (a top-level one is left out where no export `show`s it by name: _namespace; a
    member of a type `@visibleForTesting` itself is not)."""
    names = {n for n, _ in p.annotations}
    if names & _INTERNAL or _NODOC.search(doc):
        return True
    return not top and bool(names & _FOR_TESTING)


def _for_testing(p: _Prefix) -> bool:
    return any(n in _FOR_TESTING for n, _ in p.annotations)


def _walk(g: _File, start: int, end: int, owner: _Owner, out: list[_Entry]) -> None:
    """The public declarations between start and end (a file, a type's body), added to
    `out`; a getter and its setter one entry."""
    code = g.code
    j = region = start
    while True:
        j = g.skip(j, end)
        if j >= end:
            return
        if code[j] in ";,)]}":
            j = region = j + 1
            continue
        if code[j] in "{[":  # a stray block
            j = region = max(g.close(j, end), j + 1)
            continue
        p = _prefix(g, j, end)
        w = _IDENT.match(code, p.end, end)
        word = w.group() if w is not None else ""
        doc = g.doc_text(region, p.at)
        new_j = -1
        if owner.kind == "library" and word in ("library", "import", "export", "part"):
            new_j = _directive(g, p, word, doc, end)
        elif word in ("class", "mixin", "enum", "extension"):
            new_j = _type(g, p, word, doc, end, out)
        elif word == "typedef" and owner.kind == "library":
            new_j = _typedef(g, p, doc, end, out)
        elif w is not None or code[p.end : p.end + 1] == "(":
            new_j = _member(g, p, doc, end, owner, out)
        if new_j < 0:
            new_j = _statement_end(g, p.end, end)
        j = region = max(new_j, j + 1)


def _directive(g: _File, p: _Prefix, word: str, doc: str, end: int) -> int:
    stop = _statement_end(g, p.end, end)
    said = g.s.bare[p.end + len(word) : stop].rstrip(";")
    if word == "library":
        g.library_doc = doc or g.library_doc
        g.library_notes = _notes(p.annotations)
        g.library_name = "".join(said.split())
        return stop
    uris = [m.group(2) for m in _STRING.finditer(said)]
    if word == "part":
        m = re.match(r"\s*of\b(.*)", said, re.S)
        if m is not None:
            named = "".join(m.group(1).split())
            g.part_of = uris[0] if uris else named
        elif uris:
            g.parts.append(uris[0])
    elif word == "export" and uris:
        uri = uris[0]
        for cond in re.finditer(
            r"\bif\s*\(\s*([\w.]+)\s*(?:==\s*r?(['\"])(.*?)\2\s*)?\)\s*r?(['\"])(.*?)\4", said
        ):
            if cond.group(1) in _TRUE_CONDITIONS and cond.group(3) in (None, "true"):
                uri = cond.group(5)
                break
        tail = _STRING.sub(" ", said)
        combinators = [
            (m.group(1), set(_IDENT.findall(m.group(2))))
            for m in re.finditer(r"\b(show|hide)\b(.*?)(?=\b(?:show|hide)\b|$)", tail, re.S)
        ]
        g.exports.append(_Export(uri, combinators))
    return stop


def _type(g: _File, p: _Prefix, word: str, doc: str, end: int, out: list[_Entry]) -> int:
    """A class, mixin, enum, extension or extension type, and its members; returns where
    it ends."""
    code = g.code
    kw = _IDENT.match(code, p.end, end)
    assert kw is not None
    k = g.skip(kw.end(), end)
    kind = word
    if word == "extension" and (t := _IDENT.match(code, k, end)) and t.group() == "type":
        after = _IDENT.match(code, g.skip(t.end(), end), end)
        if after is not None and after.group() != "on":
            kind = "extension type"
            k = g.skip(t.end(), end)
    if kind == "extension type" and (m := _IDENT.match(code, k, end)) and m.group() == "const":
        k = g.skip(m.end(), end)
    nm = _IDENT.match(code, k, end)
    name = nm.group() if nm is not None and not (word == "extension" and nm.group() == "on") else ""
    brace = -1
    stop = k
    while stop < end:
        ch = code[stop]
        if ch in "([":
            stop = max(g.close(stop, end), stop + 1)
            continue
        if ch == "<":
            stop = _angle_end(code, stop, end)
            continue
        if ch == "{":
            brace = stop
            break
        if ch in ";}":
            break
        stop += 1
    body_end = g.close(brace, end) if brace >= 0 else min(stop + 1, end)
    if not name or name.startswith("_") or _hidden(p, doc, top=True):
        return body_end
    head = g.shown(p.at, stop)
    entry = _entry(g, p, name, _TYPE_KINDS[kind], head, head, doc, name, True)
    out.append(entry)
    if brace >= 0:
        owner = _Owner(name, kind, entry.testing)
        inner = brace + 1
        if kind == "enum":
            inner = _enum_values(g, brace + 1, body_end - 1, owner, entry.members)
        _walk(g, inner, body_end - 1, owner, entry.members)
    return body_end


def _enum_values(g: _File, start: int, end: int, owner: _Owner, out: list[_Entry]) -> int:
    """An enum's values, each with its doc; returns where its other members start."""
    code = g.code
    j = region = start
    while True:
        j = g.skip(j, end)
        if j >= end:
            return end
        if code[j] == ";":
            return j + 1
        if code[j] == ",":
            j = region = j + 1
            continue
        p = _prefix(g, j, end)
        m = _IDENT.match(code, p.end, end)
        if m is None or p.mods:
            return j
        k = g.skip(m.end(), end)
        if code[k : k + 1] == "<":
            k = g.skip(_angle_end(code, k, end), end)
        if code[k : k + 1] == "." and (n := _IDENT.match(code, g.skip(k + 1, end), end)):
            k = g.skip(n.end(), end)
        if code[k : k + 1] == "(":
            k = g.skip(g.close(k, end), end)
        if k < end and code[k] not in ",;":
            return j  # not a value: the members start here
        doc = g.doc_text(region, p.at)
        value = m.group()
        if not value.startswith("_") and not _hidden(p, doc, owner.testing):
            head = f"{owner.name}.{g.shown(p.at, k)}"
            out.append(_entry(g, p, f"{owner.name}.{value}", "enum value", head, head, doc, value))
        if k >= end:
            return end
        if code[k] == ";":
            return k + 1
        j = region = k + 1


def _typedef(g: _File, p: _Prefix, doc: str, end: int, out: list[_Entry]) -> int:
    code = g.code
    kw = _IDENT.match(code, p.end, end)
    assert kw is not None
    stop = _statement_end(g, kw.end(), end)
    m = re.match(r"\s*([A-Za-z_$][\w$]*)\s*[<=]", code[kw.end() : stop])
    name = m.group(1) if m is not None else ""
    if m is None:  # `typedef bool Test<T>(T value);`
        paren = code.find("(", kw.end(), stop)
        head = code[kw.end() : paren] if paren >= 0 else ""
        head = re.sub(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>\s*$", "", head)
        n = _CALL_NAME.search(head)
        name = n.group(2) if n is not None else ""
    if not name or name.startswith("_") or _hidden(p, doc, top=True):
        return stop
    head = g.shown(p.at, stop).rstrip(";").rstrip()
    out.append(_entry(g, p, name, "typedef", head, head, doc, name, True))
    return stop


def _member(g: _File, p: _Prefix, doc: str, end: int, owner: _Owner, out: list[_Entry]) -> int:
    """A function, method, constructor, operator, getter, setter, field or variable;
    returns where it ends (-1 when none stands at p)."""
    code = g.code
    k = p.end
    angle = 0
    prev, prev_ident = "", ""
    while (m := _TOKEN.match(code, k, end)) is not None:
        tok, s = m.group(1), m.start(1)
        k = m.end()
        if angle:
            if tok == "<":
                angle += 1
            elif tok == ">":
                angle -= 1
                prev = ">" if angle == 0 else prev
            elif tok in "([{":
                k = max(g.close(s, end), k)
            elif tok in ";}":
                return -1
            continue
        if tok[0].isalpha() or tok[0] in "_$":
            if tok == "operator" and (paren := code.find("(", k, end)) >= 0:
                if _OPERATOR.match(code, s, paren):
                    return _callable(g, p, doc, end, owner, out, paren)
            if tok in ("get", "set") and _IDENT.match(code, g.skip(k, end), end):
                continue
            if tok in ("async", "sync") and prev == "ident" and _AFTER_MODIFIER.match(code, k):
                continue  # `get x async => ...`
            prev, prev_ident = "ident", tok
            continue
        if tok == "<":
            angle = 1
        elif tok == "(":
            if prev in ("ident", ">") and prev_ident != "Function":
                return _callable(g, p, doc, end, owner, out, s)
            k = max(g.close(s, end), k)
            prev = ")"
        elif tok == "[":
            k = max(g.close(s, end), k)
            prev = "]"
        elif tok in ("{", "=>", ";", "=", ","):
            if prev != "ident":
                return -1
            return _variable(g, p, doc, end, owner, out, s, tok)
        elif tok == "}":
            return -1
        else:
            prev = tok
    return -1


def _callable(
    g: _File, p: _Prefix, doc: str, end: int, owner: _Owner, out: list[_Entry], paren: int
) -> int:
    code = g.code
    close = g.close(paren, end)
    after = _body_end(g, close, end)
    head_code = code[p.end : paren]
    op = _OPERATOR.search(head_code)
    accessor = ""
    if op is not None:
        name = f"operator{op.group(1)}"
        kind = "operator"
    else:
        bare_head = re.sub(r"<[^<>]*(?:<[^<>]*(?:<[^<>]*>[^<>]*)*>[^<>]*)*>\s*$", "", head_code)
        n = _CALL_NAME.search(bare_head)
        if n is None:
            return after
        first, name = n.group(1), n.group(2)
        acc = _ACCESSOR.search(bare_head[: n.start()]) if first is None else None
        accessor = acc.group(1) if acc is not None else ""
        in_type = owner.kind in ("class", "enum", "extension type")
        if in_type and (first == owner.name or (first is None and name == owner.name)):
            kind = "constructor"
            if name in (owner.name, "new"):
                name = owner.name
        elif first is not None:
            return after  # `a.b(` where no constructor can stand
        elif accessor:
            kind = "property"
        else:
            kind = "function" if owner.kind == "library" else "method"
    if name.startswith("_") or (kind == "constructor" and owner.name.startswith("_")):
        return after
    top = owner.kind == "library"
    if _hidden(p, doc, top or owner.testing):
        return after
    head = g.shown(p.at, close)
    signature = g.shown(paren, close) if kind != "property" else head
    if kind == "constructor":
        qual = f"{owner.name}.{name}"
        short = f"{owner.name}()" if name == owner.name else f"{owner.name}.{name}()"
    else:
        qual = f"{owner.name}.{name}" if owner.name else name
        short = name if kind == "property" else f"{name}()"
        if kind == "operator":
            short = f"operator {name[len('operator') :]}"
    _add(g, out, _entry(g, p, qual, kind, head, signature, doc, short, top))
    return after


def _variable(
    g: _File, p: _Prefix, doc: str, end: int, owner: _Owner, out: list[_Entry], s: int, tok: str
) -> int:
    """A getter (`get x {` or `=> ...;`, abstract `get x;`), a field or a variable (its
    declarators); `s` is where `tok` (what follows its name) stands."""
    code = g.code
    top = owner.kind == "library"
    head_code = code[p.end : s]
    getter = re.search(r"\bget\s+([A-Za-z_$][\w$]*)\s*(?:(?:async|sync)\s*\*?\s*)?$", head_code)
    if tok == "{":
        after = g.close(s, end)
        if getter is None:
            return after
    elif tok == "=>":
        after = _statement_end(g, s + 2, end)
    else:
        after = -1
    if getter is not None:
        if after < 0:
            after = _statement_end(g, s, end)
        name = getter.group(1)
        if name.startswith("_") or _hidden(p, doc, top or owner.testing):
            return after
        head = g.shown(p.at, p.end + getter.end(1))
        qual = f"{owner.name}.{name}" if owner.name else name
        _add(g, out, _entry(g, p, qual, "property", head, head, doc, name, top))
        return after
    if tok in ("{", "=>"):
        return after
    # a field or variable: declarators `a = 1, b;` up to the `;`
    stop = _statement_end(g, s, end)
    last = _IDENT.findall(head_code)
    if not last:
        return stop
    first = last[-1]
    name_at = p.end + head_code.rfind(first)
    declared = [(first, name_at, s)]
    k = s
    while k < stop and code[k] != ";":
        if code[k] in "([{":
            k = max(g.close(k, stop), k + 1)
            continue
        if code[k] == ",":
            m = _DECLARATOR.match(code, k, stop)
            if m is not None:
                value_end = _declarator_end(g, m.end(), stop)
                declared.append((m.group(1), m.start(1), value_end))
                k = value_end
                continue
        k += 1
    first_end = declared[1][1] if len(declared) > 1 else stop
    ends = [first_end, *[d[2] for d in declared[1:]]]
    constant = "const" in p.mods
    hidden = _hidden(p, doc, top or owner.testing)
    type_shown = g.shown(p.at, name_at)
    for (name, at, _), value_end in zip(declared, ends, strict=True):
        if name.startswith("_") or hidden or name in _MODIFIERS:
            continue
        head = f"{type_shown} {name}".strip()
        eq = code.find("=", at, value_end)
        if constant and eq >= 0:
            value = g.shown(eq + 1, value_end).rstrip(";,").strip()
            if value and len(value) <= _MAX_VALUE:
                head += f" = {value}"
        qual = f"{owner.name}.{name}" if owner.name else name
        kind = "constant" if constant else "property"
        _add(g, out, _entry(g, p, qual, kind, head, head, doc, name, top))
    return stop


def _declarator_end(g: _File, k: int, stop: int) -> int:
    """Where the declarator whose name ends at k ends: at the `,` before the next one, or
    the statement's `;`."""
    code = g.code
    while k < stop:
        ch = code[k]
        if ch in "([{":
            k = max(g.close(k, stop), k + 1)
            continue
        if ch == ";" or (ch == "," and _DECLARATOR.match(code, k, stop)):
            return k
        k += 1
    return stop


def _entry(
    g: _File,
    p: _Prefix,
    qual: str,
    kind: str,
    head: str,
    signature: str,
    doc: str,
    short: str,
    top: bool = False,
) -> _Entry:
    notes = _notes(p.annotations)
    entry = _Entry(qual, kind, head, signature, doc, notes, g.line(p.at), g.f, short)
    entry.testing = top and _for_testing(p)
    return entry


def _add(g: _File, out: list[_Entry], entry: _Entry) -> None:
    """An entry added; a property whose name is there already (a getter's setter) joins
    that one: its declaration a line more, its doc when it says something else."""
    if entry.kind == "property":
        other = g.properties.get((id(out), entry.name))
        if other is not None:
            other.head += "\n" + entry.head
            if entry.doc and entry.doc != other.doc:
                other.doc = f"{other.doc}\n\n{entry.doc}" if other.doc else entry.doc
            other.notes += [n for n in entry.notes if n not in other.notes]
            return
        g.properties[(id(out), entry.name)] = entry
    out.append(entry)


# ----------------------------------------------------------------------------- packages
@dataclass
class _Unit:
    """A library: its file, its package, its path in the package (`lib/src/client.dart`),
    the files of its parts, and its export namespace once worked out."""

    g: _File
    package: _Package
    path: PurePosixPath
    parts: list[_File] = field(default_factory=list)
    names: dict[str, tuple[_Entry, bool]] | None = None

    @property
    def public(self) -> bool:
        parts = self.path.parts
        if self.package.root is None:
            return True  # a loose file: a library of its own
        return len(parts) < 3 or parts[1] != "src"

    @property
    def library(self) -> str:
        """Its name as dartdoc shows it: its path under lib/ without `.dart` (a loose
        file's: its name)."""
        if self.package.root is None:
            return self.path.stem
        return "/".join(self.path.parts[1:]).removesuffix(".dart")

    def entries(self) -> list[_Entry]:
        return [e for g in (self.g, *self.parts) for e in g.entries]


@dataclass
class _Package:
    name: str
    root: PurePosixPath | None  # None: loose files
    units: dict[PurePosixPath, _Unit] = field(default_factory=dict)
    templates: dict[str, str] = field(default_factory=dict)


def _package_of(
    rel: PurePosixPath, manifests: dict[PurePosixPath, str], top: str
) -> tuple[PurePosixPath | None, str]:
    """(the package root over a file, its name): the deeper of the nearest folder with a
    pubspec.yaml and the folder above the last lib/; None for a file under neither."""
    found = next((d for d in rel.parents if d in manifests), None)
    parts = rel.parts[:-1]
    above_lib = None
    if "lib" in parts:
        k = len(parts) - 1 - parts[::-1].index("lib")
        above_lib = PurePosixPath(*parts[:k]) if k else PurePosixPath(".")
    root = found
    if above_lib is not None and (found is None or len(above_lib.parts) > len(found.parts)):
        root = above_lib
    if root is None:
        return None, top or "package"
    if root in manifests:
        return root, manifests[root]
    name = root.name if root.parts and root.name != "." else top
    return root, re.sub(r"\W", "_", name or "package")


def api_documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None, top: str = ""
) -> list[Document]:
    """Documents for the documented public API of the Dart packages among the files (their
    pubspec.yaml files with them), sorted by uri; a file that gives none is counted in
    `rejects`. `top`, the source's folder name, names a package found nowhere else."""
    manifests: dict[PurePosixPath, str] = {}
    dart: list[SourceFile] = []
    for f in files:
        if f.rel.name == MANIFEST:
            if (name := manifest_name(f.text)) is not None:
                manifests[f.rel.parent] = name
        else:
            dart.append(f)
    packages: dict[PurePosixPath | None, _Package] = {}
    read: list[tuple[_File, _Package, PurePosixPath]] = []
    for f in sorted(dart, key=lambda f: f.rel):
        if is_test(f.rel):
            count(rejects, DART_TEST, f.where)
            continue
        if is_generated(f.rel, f.text):
            count(rejects, DART_GENERATED, f.where)
            continue
        root, name = _package_of(f.rel, manifests, top)
        inside = f.rel.relative_to(root) if root is not None else f.rel
        if root is not None and (
            inside.parts[0] != "lib" or any(p in _OUTSIDE for p in root.parts)
        ):
            count(rejects, DART_NOT_LIBRARY, f.where)
            continue
        s = scan(f.text)
        if not s.ok:
            count(rejects, DART_UNSCANNABLE, f.where)
            continue
        g = _File(f, s)
        _walk(g, 0, len(s.code), _Owner(), g.entries)
        package = packages.setdefault(root, _Package(name, root))
        for c in g.docs:
            for key, body in templates_of(c.text).items():
                package.templates.setdefault(key, body)
        read.append((g, package, inside))
    made: dict[str, int] = {}
    docs: dict[str, Document] = {}
    for package in packages.values():
        for doc in _package_documents(package, read, source):
            if doc.uri not in docs:
                docs[doc.uri] = doc
                made[doc.meta["origin"]] = made.get(doc.meta["origin"], 0) + 1
    for g, _, _ in read:
        if not made.get(g.f.where):
            count(rejects, DART_NO_API, g.f.where)
    return [docs[uri] for uri in sorted(docs)]


def _package_documents(
    package: _Package, read: list[tuple[_File, _Package, PurePosixPath]], source: str
) -> list[Document]:
    mine = [(g, path) for g, p, path in read if p is package]
    by_path = {path: g for g, path in mine}
    named = {g.library_name: path for g, path in mine if g.library_name and g.part_of is None}
    owner_of: dict[PurePosixPath, PurePosixPath] = {}  # a part's path -> its library's
    for g, path in mine:
        for uri in g.parts:
            if (target := _resolve(path, uri, package)) is not None and target in by_path:
                owner_of.setdefault(target, path)
    for g, path in mine:
        if g.part_of is not None and path not in owner_of:
            target = named.get(g.part_of) or _resolve(path, g.part_of, package)
            if target is not None and target in by_path and by_path[target].part_of is None:
                owner_of[path] = target
    for g, path in mine:
        if path not in owner_of:
            package.units[path] = _Unit(g, package, path)
    for path, library in owner_of.items():
        if library in package.units:
            package.units[library].parts.append(by_path[path])
        else:
            package.units[path] = _Unit(by_path[path], package, path)
    # each exported declaration: the public libraries whose namespace holds it
    holders: dict[int, tuple[_Entry, list[_Unit]]] = {}
    for unit in sorted(package.units.values(), key=lambda u: u.library):
        if not unit.public:
            continue
        for entry, api in _namespace(unit).values():
            if api:
                holders.setdefault(id(entry), (entry, []))[1].append(unit)
    docs: list[Document] = []
    listed: dict[int, list[tuple[str, str]]] = {}  # a library's declarations, listed
    for entry, units in holders.values():
        lib = min(units, key=lambda u: (-_score(u, entry), u.library))
        base = _qualified_library(package, lib)
        got, sentence = _entry_documents(entry, base, package, source)
        docs += got
        if sentence is not None:
            listed.setdefault(id(lib), []).append((entry.short, sentence))
    for unit in package.units.values():
        if unit.public and unit.g.library_doc:
            text = markdown(unit.g.library_doc, package.templates)
            if not text:
                continue
            line = f"import 'package:{package.name}/{unit.library}.dart';"
            body = _join([text, "\n".join(unit.g.library_notes), _listing(listed.get(id(unit)))])
            docs.append(
                api_document(
                    source,
                    URI_PREFIX,
                    unit.g.f,
                    _qualified_library(package, unit),
                    f"{line}\n\n{body}",
                    "library",
                    line,
                    1,
                    language="dart",
                    package=package.name,
                    library=unit.library,
                )
            )
    return docs


def _resolve(path: PurePosixPath, uri: str, package: _Package) -> PurePosixPath | None:
    """A URI a file names (relative, or `package:` of its own package) as a path in its
    package; None for another package's or the SDK's."""
    if uri.startswith("package:"):
        name, _, rest = uri[len("package:") :].partition("/")
        return PurePosixPath("lib", rest) if name == package.name and rest else None
    if ":" in uri:
        return None
    joined = posixpath.normpath(posixpath.join(str(path.parent), uri))
    return None if joined.startswith("..") else PurePosixPath(joined)


def _namespace(unit: _Unit) -> dict[str, tuple[_Entry, bool]]:
    """The names a library exports, each with its declaration and whether it is API
    there: its own public declarations and those of the libraries it exports, each
    filtered by its `show` and `hide`; a `@visibleForTesting` one is API only where an
    export `show`s it by name. Export cycles end."""
    if unit.names is not None:
        return unit.names
    unit.names = {}
    names: dict[str, tuple[_Entry, bool]] = {}
    for e in unit.entries():
        names.setdefault(e.name, (e, not e.testing))
    for ex in unit.g.exports:
        target = _resolve(unit.path, ex.uri, unit.package)
        other = unit.package.units.get(target) if target is not None else None
        if other is None:
            continue
        got = dict(_namespace(other))
        for how, listed in ex.combinators:
            got = {k: v for k, v in got.items() if (k in listed) == (how == "show")}
            if how == "show":
                got = {k: (e, True) for k, (e, _) in got.items()}
        for k, v in got.items():
            names.setdefault(k, v)
    unit.names = names
    return names


def _score(lib: _Unit, entry: _Entry) -> float:
    """How well a library fits as the canonical one of a declaration it exports, as
    dartdoc scores it: a `{@canonicalFor}` naming it, not deprecated, its name the
    package's, its name's pieces among those of the declaring file's location
    (`package:http/src/client.dart;Client`), a longer name a little."""
    pieces = {p for p in re.split(r"[./]", lib.library) if p}
    package = lib.package.name
    root = lib.package.root
    path = entry.f.rel.relative_to(root) if root is not None else entry.f.rel
    within = path.parts[1:] if root is not None else path.parts
    location = {package, "dart", entry.name.split(".")[0]}
    location |= {p for part in within for p in part.split(".") if p}
    score = 1.0 if package in pieces else 0.0
    doc = lib.g.library_doc or ""
    if any(m.group(1).rsplit(".", 1)[-1] == entry.name for m in _CANONICAL_FOR.finditer(doc)):
        score += 5.0
    if any(n.startswith("Deprecated") for n in lib.g.library_notes):
        score -= 1.0
    score += 0.01 * len(pieces)
    score += len(pieces & location) / len(location)
    score += 0.001 * sum(
        1 for piece in location for bit in piece.split("_") for n in pieces if bit.startswith(n)
    )
    return score


def _qualified_library(package: _Package, unit: _Unit) -> str:
    lib = unit.library
    return package.name if lib == package.name else f"{package.name}/{lib}"


def _entry_documents(
    entry: _Entry, base: str, package: _Package, source: str
) -> tuple[list[Document], str | None]:
    """The documents of a declaration and its members, the type's listing its members'
    first sentences; and its own first sentence (None when it has no document)."""
    docs: list[Document] = []
    listed: list[tuple[str, str]] = []
    for member in entry.members:
        got = _document(member, base, package, source, [])
        if got is not None:
            docs.append(got[0])
            listed.append((member.short, first_sentence(got[1])))
    own = _document(entry, base, package, source, listed)
    if own is None:
        return docs, None
    return [*docs, own[0]], first_sentence(own[1])


def _document(
    e: _Entry, base: str, package: _Package, source: str, listed: list[tuple[str, str]]
) -> tuple[Document, str] | None:
    """An entry's document and its doc as Markdown; None when it says nothing."""
    if not e.doc.strip():
        return None
    text = markdown(e.doc, package.templates)
    if not text:
        return None
    body = _join([text, "\n".join(e.notes), _listing(listed)])
    library = base.partition("/")[2] or package.name
    doc = api_document(
        source,
        URI_PREFIX,
        e.f,
        f"{base}.{e.name}",
        f"{e.head}\n\n{body}",
        e.kind,
        e.signature,
        e.line,
        language="dart",
        package=package.name,
        library=library,
    )
    return doc, text


def _listing(listed: list[tuple[str, str]] | None) -> str:
    if not listed:
        return ""
    lines = [f"- `{short}`: {s}" if s else f"- `{short}`" for short, s in listed[:_MAX_MEMBERS]]
    if len(listed) > _MAX_MEMBERS:
        lines.append(f"- … and {len(listed) - _MAX_MEMBERS} more")
    return "Members:\n" + "\n".join(lines)


def _join(parts: list[str]) -> str:
    return "\n\n".join(p for p in parts if p)
