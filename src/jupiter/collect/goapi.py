"""Go files read as their package's API, as `go doc` reads it: one document per exported
function, method, type, struct field, interface method, constant and variable that has a
doc comment (the `//` lines right over its declaration, or a spec's comment inside a
`const (...)` group or after it on its line), and one per package doc comment ("// Package
cobra is ..."). The uri is `go:<package>.<Name>` (`go:cobra.Command.Execute` for a
method), the text the form the question templates read for Python's docstrings:
`name(params)` over the comment, `:returns:` with the result types, a constant's value.

The files are scanned, never compiled: comments, interpreted and raw strings and runes are
told apart from code, so a brace in a string ends no block. Exported means an upper-case
first letter, a method's receiver type exported too. Tests (`*_test.go`, `testdata/`),
vendored code (`vendor/`) and generated files ("// Code generated ... DO NOT EDIT.") give no
document and are counted, and so is a file with nothing documented. The same name twice
(build-tagged variants of one function) is one document, the first file's in path order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from jupiter.collect.codescan import blank, blanked, closing
from jupiter.collect.result import CollectResult, SourceFile, api_document, renamed
from jupiter.collect.result import count as _count
from jupiter.records import Document

SUFFIXES = (".go",)
URI_PREFIX = "go:"
# reasons a Go file gave no document, as the collect stage counts them
GO_TEST = "go_test"
GO_VENDORED = "go_vendored"
GO_GENERATED = "go_generated"
GO_NO_API = "go_no_api"
_AS_TEXT = (
    "Go files read as their package's API (doc comments of exported names): tests, "
    "vendored and generated code and files with nothing documented give none; the "
    "source's go: text reads them as text"
)
FIXES = {GO_TEST: _AS_TEXT, GO_VENDORED: _AS_TEXT, GO_GENERATED: _AS_TEXT, GO_NO_API: _AS_TEXT}
_GENERATED = re.compile(r"^// Code generated .* DO NOT EDIT\.$", re.M)
_DECL = re.compile(r"(func|type|const|var|package)\b")  # matched at a line's start
_FUNC = re.compile(
    r"func\s*(?:\((?P<recv>[^()]*)\)\s*)?(?P<name>\w+)\s*(?P<tparams>\[[^\]]*\])?\s*\("
)
_SPEC = re.compile(r"^(?P<names>\w+(?:\s*,\s*\w+)*)\b\s*(?P<rest>.*)$", re.S)
_TYPE_SPEC = re.compile(
    r"^(?P<name>\w+)\s*(?P<tparams>\[[^\]]*\])?\s*(?P<eq>=)?\s*(?P<rest>.*)$", re.S
)
# comment lines for tools, not readers: //go:generate, //nolint, //lint:ignore
_DIRECTIVE = re.compile(r"^//(?:go:|nolint|lint:|export |line )")
_MAX_VALUE = 80  # characters of a constant's value shown


GoFile = SourceFile  # its files, as the source hands them over


@dataclass
class _Comment:
    start: int
    end: int
    text: str  # without its marks
    line: int  # the line it ends on
    own_line: bool  # nothing but space before it on its line


def is_go(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return rel.name.endswith("_test.go") or "testdata" in rel.parts[:-1]


def api_documents(
    files: list[GoFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented exported API the files define, sorted by uri; a file
    that gives none is counted in `rejects`."""
    found: list[tuple[GoFile, list[Document]]] = []
    for f in sorted(files, key=lambda f: f.rel):
        if "vendor" in f.rel.parts[:-1]:
            _count(rejects, GO_VENDORED, f.where)
            continue
        if is_test(f.rel):
            _count(rejects, GO_TEST, f.where)
            continue
        head = f.text.split("\npackage ", 1)[0]
        if _GENERATED.search(head):
            _count(rejects, GO_GENERATED, f.where)
            continue
        got = list(file_documents(f, source))
        if not got:
            _count(rejects, GO_NO_API, f.where)
        found.append((f, got))
    # packages of one name in two folders (internal/util, pkg/util) are named by their
    # folders, as their import paths tell them apart
    folders: dict[str, set[PurePosixPath]] = {}
    for f, got in found:
        for doc in got:
            folders.setdefault(doc.meta["qualname"].split(".")[0], set()).add(f.rel.parent)
    docs: dict[str, Document] = {}
    for f, got in found:
        for doc in got:
            pkg = doc.meta["qualname"].split(".")[0]
            if len(folders[pkg]) > 1 and f.rel.parent.name:
                folder = f.rel.parent.as_posix()
                doc = renamed(
                    doc,
                    URI_PREFIX,
                    pkg,
                    folder if f.rel.parent.name == pkg else f"{folder}/{pkg}",
                    ".",
                )
            docs.setdefault(doc.uri, doc)
    return [docs[uri] for uri in sorted(docs)]


# ----------------------------------------------------------------------------- scanning
def scan(text: str) -> tuple[str, list[_Comment]]:
    """(the code with comments, strings and runes blanked, same length; the comments)."""
    out = list(text)
    comments: list[_Comment] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(out, i, j)
            comments.append(_comment(text, i, j, text[i + 2 : j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(out, i, j)
            comments.append(_comment(text, i, j, text[i + 2 : j - 2]))
            i = j
        elif c in "\"'`":
            j = i + 1
            while j < n and text[j] != c:
                if c != "`" and text[j] == "\\":
                    j += 1
                elif c != "`" and text[j] == "\n":
                    break  # an unterminated literal ends at its line
                j += 1
            blank(out, i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out), comments


def _uncommented(text: str, comments: list[_Comment]) -> str:
    """The text with its comments blanked (strings kept): what a signature or a value says."""
    return blanked(text, [(c.start, c.end) for c in comments])


def _comment(text: str, i: int, j: int, body: str) -> _Comment:
    line_start = text.rfind("\n", 0, i) + 1
    return _Comment(i, j, body, text.count("\n", 0, j), not text[line_start:i].strip())


def _doc_over(comments: list[_Comment], text: str, at: int) -> str:
    """The comment group that ends on the line right over position `at` (go doc's rule: no
    blank line between), as text; its tool directives left out."""
    line = text.count("\n", 0, at)
    group: list[_Comment] = []
    want = line - 1
    for c in reversed(comments):
        if c.end > at:
            continue
        if c.line != want or not c.own_line:
            break
        group.insert(0, c)
        want = text.count("\n", 0, c.start) - 1
    lines: list[str] = []
    for c in group:
        raw = text[c.start : c.end]
        if raw.startswith("//"):
            if _DIRECTIVE.match(raw):
                continue
            lines.append(c.text[1:] if c.text.startswith(" ") else c.text)
        else:
            lines += [re.sub(r"^\s*\*?\s?", "", x) for x in c.text.strip("\n").splitlines()]
    return "\n".join(lines).strip("\n").rstrip()


def _trailing(comments: list[_Comment], text: str, at: int) -> str:
    """A line comment after code on the line of position `at` ("Name = 1 // what it is")."""
    line = text.count("\n", 0, at)
    for c in comments:
        if c.start >= at and not c.own_line and text.count("\n", 0, c.start) == line:
            return c.text.strip()
    return ""


# ----------------------------------------------------------------------------- documents
@dataclass
class _File:
    """One file as the readers below see it: the code with literals and comments blanked
    (`code`, for structure), with comments alone blanked (`bare`, what a signature or a
    value says), its comments, and the package its names belong to."""

    source: str
    f: GoFile
    pkg: str
    code: str
    bare: str
    comments: list[_Comment]

    def doc(self, at: int) -> str:
        """The comment documenting what starts at `at`: the group over it."""
        return _doc_over(self.comments, self.f.text, at)

    def own_doc(self, at: int) -> str:
        """A spec's or member's comment: the group over it, else the one after it."""
        return self.doc(at) or _trailing(self.comments, self.f.text, at)

    def line(self, at: int) -> int:
        return self.f.text.count("\n", 0, at) + 1

    def document(
        self, qual: str, kind: str, head: str, signature: str, doc: str, at: int, extra: str = ""
    ) -> Document:
        return _doc(self.source, self.f, qual, kind, head, signature, doc, self.line(at), extra)


def file_documents(f: GoFile, source: str) -> Iterator[Document]:
    """The documents of one file, in the order its declarations stand."""
    code, comments = scan(f.text)
    pkg_m = re.search(r"^package\s+(\w+)", code, re.M)
    if pkg_m is None:
        return
    pkg = pkg_m.group(1)
    if pkg == "main" and f.rel.parent.name:  # a command is known by its folder ("cmd/spoold")
        pkg = f.rel.parent.name
    g = _File(source, f, pkg, code, _uncommented(f.text, comments), comments)
    i = 0
    while i < len(code):
        line_end = code.find("\n", i)
        line_end = len(code) if line_end < 0 else line_end
        m = _DECL.match(code, i)
        if m is None:
            i = line_end + 1
            continue
        keyword = m.group(1)
        end = _decl_end(code, i, line_end)
        doc = g.doc(i)
        if keyword == "package":
            if doc:
                yield _doc(source, f, pkg, "package", pkg, "", doc, g.line(i), module=True)
        elif keyword == "func":
            yield from _func(g, i, end, doc)
        else:
            yield from _specs(g, keyword, i, end, doc)
        i = max(end, line_end + 1)


def _decl_end(code: str, i: int, line_end: int) -> int:
    """Past the declaration at `i`: its brackets closed and its line ended."""
    j = i
    while j < len(code):
        ch = code[j]
        if ch in "([{":
            j = closing(code, j)
            continue
        if ch == "\n":
            return j + 1
        j += 1
    return len(code)


def _entries(code: str, open_at: int, close: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each entry of the block whose bracket opens at `open_at` and closes
    just before `close`: a `const (...)` group's specs, a struct's fields, an interface's
    methods, one a line (an entry's own brackets may span lines)."""
    j = open_at + 1
    while j < close - 1:
        line_end = code.find("\n", j)
        line_end = close - 1 if line_end < 0 or line_end > close - 1 else line_end
        first = code[j:line_end]
        if not first.strip():
            j = line_end + 1
            continue
        at = j + len(first) - len(first.lstrip())
        end = min(_decl_end(code, at, line_end), close - 1)
        yield at, end
        j = max(end, line_end + 1)


def _signature(g: _File, params_at: int, end: int) -> tuple[str, str]:
    """(params, results) of a function or method whose parameter list opens at
    `params_at` and whose signature ends by `end`."""
    after = closing(g.code, params_at)
    params = _expand(" ".join(g.bare[params_at + 1 : after - 1].split()))
    return params, " ".join(g.bare[after:end].split())


def _func(g: _File, i: int, end: int, doc: str) -> Iterator[Document]:
    m = _FUNC.match(g.code, i)
    if m is None or not doc:
        return
    name = m.group("name")
    owner = ""
    if m.group("recv") is not None:
        words = m.group("recv").replace("*", " ").split()
        owner = re.sub(r"\[.*$", "", words[-1]) if words else ""
        if not owner[:1].isupper():
            return
    if not name[:1].isupper():
        return
    params_at = m.end() - 1
    body = g.code.find("{", closing(g.code, params_at), end)
    params, results = _signature(g, params_at, body if body >= 0 else end)
    tparams = m.group("tparams") or ""
    qual = f"{g.pkg}.{owner}.{name}" if owner else f"{g.pkg}.{name}"
    head = f"{qual}({params})"  # the templates read "name(params)"; type parameters below
    extra = "\n\n".join(
        x
        for x in (
            f"Type parameters: `{tparams}`." if tparams else "",
            f":returns: `{results}`" if results else "",
        )
        if x
    )
    kind = "method" if owner else "function"
    yield g.document(qual, kind, head, f"({params})", doc, i, extra)


def _specs(g: _File, keyword: str, i: int, end: int, doc: str) -> Iterator[Document]:
    """The specs of a `type`, `const` or `var` declaration, one or a parenthesised group
    (each spec documented by its own comment, or the group's)."""
    start = i + len(keyword)
    rest = g.code[start:end]
    if rest.lstrip().startswith("("):
        open_at = g.code.index("(", start)
        for at, spec_end in _entries(g.code, open_at, closing(g.code, open_at)):
            yield from _spec(g, keyword, at, spec_end, g.own_doc(at) or doc)
        return
    at = start + len(rest) - len(rest.lstrip())
    yield from _spec(g, keyword, at, end, doc or _trailing(g.comments, g.f.text, at))


def _spec(g: _File, keyword: str, at: int, end: int, doc: str) -> Iterator[Document]:
    if keyword == "type":
        m = _TYPE_SPEC.match(g.code[at:end])
        if m is None or not m.group("name")[:1].isupper():
            return
        qual = f"{g.pkg}.{m.group('name')}"
        body = m.group("rest").lstrip()
        kind = next((k for k in ("struct", "interface") if body.startswith(k)), "type")
        if doc:
            yield g.document(qual, kind, qual, "", doc, at)
        brace = g.code.find("{", at, end)
        if kind != "type" and brace >= 0:
            yield from _members(g, qual, kind, brace, closing(g.code, brace))
        return
    m = _SPEC.match(g.code[at:end])
    if m is None or not doc:
        return
    text = g.bare[at:end]
    eq = text.find("=")
    value = " ".join(text[eq + 1 :].split()) if eq >= 0 else ""
    extra = f"Value: `{value}`" if value and len(value) <= _MAX_VALUE else ""
    kind = "constant" if keyword == "const" else "variable"
    for name in (x.strip() for x in m.group("names").split(",")):
        if name[:1].isupper():
            qual = f"{g.pkg}.{name}"
            yield g.document(qual, kind, qual, "", doc, at, extra)


def _members(g: _File, owner: str, kind: str, brace: int, close: int) -> Iterator[Document]:
    """A struct's exported fields and an interface's methods, each with its comment."""
    for at, end in _entries(g.code, brace, close):
        doc = g.own_doc(at)
        member = g.code[at:end]
        m = re.match(r"(\w+)\s*(\(|\[)?", member)
        if not (doc and m and m.group(1)[:1].isupper()):
            continue
        name = m.group(1)
        qual = f"{owner}.{name}"
        if kind == "interface" and m.group(2) == "(":
            params, results = _signature(g, at + member.index("("), end)
            extra = f":returns: `{results}`" if results else ""
            yield g.document(qual, "method", f"{qual}({params})", f"({params})", doc, at, extra)
        elif kind == "struct":
            typ = " ".join(g.bare[at + len(name) : end].split())
            typ = re.sub(r"\s*`[^`]*`$", "", typ)  # a field's tag
            yield g.document(qual, "field", qual, "", doc, at, f"Type: `{typ}`")


def _expand(params: str) -> str:
    """Go's grouped parameters each with its type ("name, shorthand string" -> "name string,
    shorthand string"), so each reads as a parameter; unnamed ones ("int, string") as they
    are."""
    parts: list[str] = []
    depth, last = 0, 0
    for k, ch in enumerate(params):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(params[last:k].strip())
            last = k + 1
    parts.append(params[last:].strip())
    parts = [p for p in parts if p]
    if not any(re.match(r"\w+\s+\S", p) for p in parts):
        return params
    out: list[str] = []
    typ = ""
    for p in reversed(parts):
        m = re.match(r"(\w+)\s+(\S.*)$", p)
        if m:
            typ = m.group(2)
            out.append(p)
        else:
            out.append(f"{p} {typ}" if typ and re.fullmatch(r"\w+", p) else p)
    return ", ".join(reversed(out))


def _doc(
    source: str,
    f: GoFile,
    qual: str,
    kind: str,
    head: str,
    signature: str,
    doc: str,
    line: int,
    extra: str = "",
    module: bool = False,
) -> Document:
    text = doc if module else f"{head}\n\n{doc}"
    if extra:
        text += f"\n\n{extra}"
    return api_document(source, URI_PREFIX, f, qual, text, kind, signature, line)
