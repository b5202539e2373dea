"""PHP files read as their API, as phpDocumentor reads it: one document per class,
interface, trait and enum, and per public or protected method, constant, property and
enum case, and per namespaced function, that has a docblock (`/** */` right over it,
attributes such as `#[\\ReturnTypeWillChange]` between them allowed). The uri is
`php:<Namespace>\\<Class>::<member>` (`php:Monolog\\Logger::pushHandler`), the text the form
the question templates read for Python's docstrings: `name(params)` over the docblock's
description, its tags as `:param x:`, `:returns:` and `:raises X:` fields (the declared
return type where no `@return` says it), a constant's value, a property's type.

The files are scanned, never run: comments (`//`, `#`, `/* */`), strings, heredocs and
nowdocs, and the HTML outside `<?php ... ?>` are told apart from code, so a brace in a
string ends no block. Private members, `@internal` items, method bodies and anonymous
classes are left out; static-analysis tags (`@phpstan-*`, `@psalm-*`) and `@author`,
`@license` lines are no text. Tests (`tests/`, `*Test.php`) and files with nothing documented
are counted. The same name from two files is one document, the first file's in path order.
"""

from __future__ import annotations

import html
import re
import textwrap
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.codescan import blank, blanked, closing
from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

SUFFIXES = (".php",)
URI_PREFIX = "php:"
PHP_TEST = "php_test"
PHP_NO_API = "php_no_api"
_AS_TEXT = (
    "PHP files read as their API (docblocks of public items): tests and files with nothing "
    "documented give none; the source's php: text reads them as text"
)
FIXES = {PHP_TEST: _AS_TEXT, PHP_NO_API: _AS_TEXT}
_MAX_VALUE = 80
_HEREDOC = re.compile(r"<<<[ \t]*(['\"]?)([A-Za-z_]\w*)\1[ \t]*\n")
_NAMESPACE = re.compile(r"\bnamespace\s+([\w\\]+)\s*([;{])")
_TYPE = re.compile(
    r"(?P<mods>(?:(?:abstract|final|readonly)\s+)*)(?P<kw>class|interface|trait|enum)\s+"
    r"(?P<name>[A-Za-z_]\w*)"
)
_MEMBER_MODS = re.compile(
    r"((?:(?:public|protected|private|static|abstract|final|readonly|var)\s+)*)"
)
_FUNCTION = re.compile(r"function\s+&?\s*(?P<name>[A-Za-z_]\w*)\s*\(")
_CONST = re.compile(r"const\s+(?:[\w\\?|]+\s+)?(?P<name>[A-Za-z_]\w*)\s*=")
_CASE = re.compile(r"case\s+(?P<name>[A-Za-z_]\w*)\s*(?:=\s*(?P<value>[^;]+))?;")
_PROPERTY = re.compile(
    r"(?P<type>[?\w\\|&]+\s+)?\$(?P<name>[A-Za-z_]\w*)\s*(?:=\s*(?P<value>[^;]*))?;"
)
_TAG = re.compile(r"^@(?P<tag>[\w-]+)\s*(?P<rest>.*)$")
_DROPPED = {
    "author", "copyright", "license", "package", "subpackage", "category", "version",
    "filesource", "codeCoverageIgnore", "inheritdoc", "inheritDoc", "method", "property",
    "property-read", "property-write", "mixin", "final", "immutable", "readonly",
}  # fmt: skip
_INLINE = re.compile(r"\{@(?:link|see)\s+([^\s}]+)(?:\s+([^}]*))?\}|\{@inheritDoc\}", re.I)


PhpFile = SourceFile  # its files, as the source hands them over


@dataclass
class _Comment:
    start: int
    end: int
    text: str
    doc: bool  # a docblock (/** */)


def is_php(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return any(p.lower() in ("test", "tests") for p in rel.parts[:-1]) or rel.name.endswith(
        "Test.php"
    )


def api_documents(
    files: list[PhpFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented public API the files declare, sorted by uri; a file
    that gives none is counted in `rejects`."""

    def read(f: PhpFile) -> list[Document] | str:
        return PHP_TEST if is_test(f.rel) else list(file_documents(f, source))

    return first_documents(files, rejects, read, PHP_NO_API)


# ----------------------------------------------------------------------------- scanning
def scan(text: str) -> tuple[str, list[_Comment]]:
    """(the code with comments, strings, heredocs and inline HTML blanked, same length;
    the comments)."""
    out = list(text)
    comments: list[_Comment] = []
    n = len(text)
    start = text.find("<?php")
    if start < 0:  # no PHP at all: a template's HTML, or text
        blank(out, 0, n)
        return "".join(out), comments
    blank(out, 0, start + 5)
    i = start + 5
    while i < n:
        c = text[i]
        if text.startswith("?>", i):  # back to HTML until the next <?php
            j = text.find("<?php", i + 2)
            j = n if j < 0 else j + 5
            blank(out, i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            doc = text.startswith("/**", i) and not text.startswith(("/***", "/**/"), i)
            comments.append(_Comment(i, j, text[i + 3 if doc else i + 2 : max(j - 2, i)], doc))
            blank(out, i, j)
            i = j
        elif text.startswith("//", i) or (c == "#" and not text.startswith("#[", i)):
            j = text.find("\n", i)
            j = n if j < 0 else j
            end = text.find("?>", i, j)  # a line comment ends before ?>
            j = end if end >= 0 else j
            comments.append(_Comment(i, j, text[i:j], False))
            blank(out, i, j)
            i = j
        elif text.startswith("<<<", i) and (m := _HEREDOC.match(text, i)) is not None:
            close = re.compile(rf"^[ \t]*{m.group(2)}\b", re.M)
            e = close.search(text, m.end())
            j = n if e is None else e.start()
            blank(out, m.end(), j)
            i = j if e is None else e.end()
        elif c in "'\"":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            blank(out, i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out), comments


# ----------------------------------------------------------------------------- docblocks
def docblock(body: str) -> tuple[str, dict[str, list[str]]]:
    """(the description as Markdown, the tags by name: each occurrence's text) of a
    docblock's body (its `/**` and `*/` off)."""
    lines = body.strip("\n").splitlines()
    lines = [re.sub(r"^\s*\*(?: |$)", "", x) if re.match(r"\s*\*", x) else x for x in lines]
    text = textwrap.dedent("\n".join(lines)).strip("\n")
    desc: list[str] = []
    tags: dict[str, list[str]] = {}
    current: list[str] | None = None
    fence = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fence = not fence
        m = _TAG.match(line.strip()) if not fence else None
        if m is not None:
            current = tags.setdefault(m.group("tag"), [])
            current.append(m.group("rest").strip())
            continue
        if current is not None and line.strip():
            current[-1] = f"{current[-1]} {line.strip()}".strip()
            continue
        if current is not None:
            current = None
            continue
        desc.append(line.rstrip())
    return _inline("\n".join(desc)).strip("\n"), tags


def _inline(text: str) -> str:
    def link(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return ""
        return m.group(2).strip() if m.group(2) else f"`{m.group(1)}`"

    text = _INLINE.sub(link, text)
    # an example between <pre> tags: a fenced block, its lines as written
    text = re.sub(r"<pre>\s*\n?(.*?)\n?\s*</pre>", r"```php\n\1\n```", text, flags=re.S | re.I)
    text = re.sub(r"<code>(.*?)</code>", r"`\1`", text, flags=re.S)
    text = re.sub(r"</?(?:p|b|i|em|strong|br|ul|ol|li)\s*/?>", "", text, flags=re.I)
    return html.unescape(text)


def split_type(rest: str) -> tuple[str, str]:
    """(a tag's type, what follows it): the type runs to the first space outside its
    brackets (`array<string, mixed>`, `array{a: int}`); ("", rest) when `rest` starts with
    a variable."""
    rest = rest.strip()
    if rest.startswith(("$", "&$", "...$")):
        return "", rest
    depth = 0
    for k, ch in enumerate(rest):
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        elif ch.isspace() and depth <= 0:
            return rest[:k], rest[k:].strip()
    return rest, ""


def _fields(tags: dict[str, list[str]], returns: str) -> list[str]:
    """The tags as the templates read them, in the order a reader wants them."""
    out: list[str] = []
    for rest in tags.get("param", []):
        typ, after = split_type(rest)
        m = re.match(r"(?:\.\.\.)?&?\$(?P<name>\w+)\s*(?P<desc>.*)$", after)
        if m is not None:
            shown = f" (`{typ}`)" if typ else ""
            out.append(f":param {m.group('name')}:{shown} {_inline(m.group('desc'))}".rstrip())
    said = tags.get("return") or tags.get("returns")
    if said:
        typ, desc = split_type(said[0])
        desc = _inline(desc).strip()
        out.append(f":returns: {desc}" if desc else f":returns: `{typ}`")
    elif returns and returns not in ("void", "never"):
        out.append(f":returns: `{returns}`")
    for rest in tags.get("throws", []) + tags.get("throw", []):
        typ, desc = split_type(rest)
        if typ:
            out.append(f":raises {typ}: {_inline(desc)}".rstrip())
    for tag, label in (("deprecated", "Deprecated:"), ("since", "Since:"), ("see", "See also:"),
                       ("link", "See also:"), ("example", "Example:"), ("template", "Template:")):  # fmt: skip
        for rest in tags.get(tag, []):
            out.append(f"{label} {_inline(rest)}".rstrip())
    return out


# ----------------------------------------------------------------------------- items
@dataclass
class _File:
    source: str
    f: PhpFile
    code: str
    comments: list[_Comment]
    bare: str = ""
    ends: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.bare = blanked(self.f.text, [(c.start, c.end) for c in self.comments])
        self.ends = [c.end for c in self.comments]

    def doc_before(self, at: int) -> _Comment | None:
        """The docblock right over the code at `at`: only space and attributes between."""
        k = bisect_left(self.ends, at + 1) - 1
        while k >= 0:
            c = self.comments[k]
            between = self.code[c.end : at]
            between = re.sub(r"#\[.*?\]\s*", "", between, flags=re.S)  # attributes
            if between.strip():
                return None
            if c.doc:
                return c
            if c.text.lstrip("/# ").strip() and not c.doc:
                k -= 1  # a plain comment between: look over it
                continue
            k -= 1
        return None

    def line(self, at: int) -> int:
        return self.f.text.count("\n", 0, at) + 1

    def document(
        self, qual: str, kind: str, head: str, signature: str, doc: str, at: int, extra: list[str]
    ) -> Document:
        text = f"{head}\n\n{doc}" if doc else head
        more = "\n".join(x for x in extra if x)
        if more:
            text += f"\n\n{more}"
        line = self.line(at)
        return api_document(self.source, URI_PREFIX, self.f, qual, text, kind, signature, line)


def file_documents(f: PhpFile, source: str) -> Iterator[Document]:
    code, comments = scan(f.text)
    g = _File(source, f, code, comments)
    namespaces = [(m.start(), m.group(1)) for m in _NAMESPACE.finditer(code)]

    def namespace_at(at: int) -> str:
        found = ""
        for pos, name in namespaces:
            if pos < at:
                found = name
        return found

    depth_zero = _top_level(code)
    for m in _TYPE.finditer(code):
        if not depth_zero(m.start()) or _after_new(code, m.start()):
            continue
        brace = code.find("{", m.end())
        if brace < 0:
            continue
        ns = namespace_at(m.start())
        qual = f"{ns}\\{m.group('name')}" if ns else m.group("name")
        start = m.start()  # the match begins with its modifiers (final, abstract)
        c = g.doc_before(start)
        if c is not None:
            desc, tags = docblock(c.text)
            if "internal" in tags:
                continue
            if says(desc, tags):
                head = f"{qual}"
                declared = " ".join(g.bare[start:brace].split())
                extra = [f"Declaration: `{declared}`", *_fields(tags, "")]
                yield g.document(qual, m.group("kw"), head, "", desc, start, extra)
        yield from _members(g, qual, m.group("kw"), brace, closing(code, brace))
    # functions at a namespace's top level
    for m in _FUNCTION.finditer(code):
        if not depth_zero(m.start()):
            continue
        ns = namespace_at(m.start())
        qual = f"{ns}\\{m.group('name')}" if ns else m.group("name")
        yield from _function(g, qual, "function", m.start(), m)


def _top_level(code: str) -> Callable[[int], bool]:
    """A test of whether a position stands outside every brace block, a block namespace's
    (`namespace X { ... }`) excepted."""
    block_ns = {m.end() - 1 for m in _NAMESPACE.finditer(code) if m.group(2) == "{"}
    positions: list[int] = []
    top: list[bool] = []  # after each brace: is the position outside all but namespaces
    stack: list[int] = []
    for k, ch in enumerate(code):
        if ch == "{":
            stack.append(k)
        elif ch == "}" and stack:
            stack.pop()
        else:
            continue
        positions.append(k)
        top.append(all(b in block_ns for b in stack))

    def test(at: int) -> bool:
        i = bisect_left(positions, at) - 1
        return top[i] if i >= 0 else True

    return test


def _after_new(code: str, at: int) -> bool:
    """`new class(...) {`: an anonymous class, not a declaration."""
    return bool(re.search(r"\bnew\s+$", code[max(0, at - 20) : at]))


def _members(g: _File, owner: str, kind: str, brace: int, end: int) -> Iterator[Document]:
    """A class's (interface's, trait's, enum's) public and protected members."""
    code = g.code
    k = brace + 1
    while k < end - 1:
        j = k
        while j < end - 1 and code[j].isspace():
            j += 1
        if j >= end - 1:
            break
        if code.startswith("#[", j):  # an attribute over a member
            k = closing(code, j + 1)
            continue
        stop = j
        while stop < end - 1 and code[stop] not in ";{":
            if code[stop] in "([":
                stop = closing(code, stop)
                continue
            stop += 1
        item_end = closing(code, stop) if code[stop : stop + 1] == "{" else stop + 1
        yield from _member(g, owner, kind, j, stop, item_end)
        k = max(item_end, j + 1)


def _member(
    g: _File, owner: str, kind: str, j: int, stop: int, item_end: int
) -> Iterator[Document]:
    code = g.code
    mods_m = _MEMBER_MODS.match(code, j)
    mods = mods_m.group(1).split() if mods_m else []
    rest_at = mods_m.end() if mods_m else j
    if "private" in mods:
        return
    fn = _FUNCTION.match(code, rest_at)
    if fn is not None:
        name = fn.group("name")
        member = "constructor" if name == "__construct" else "method"
        yield from _function(g, f"{owner}::{name}", member, j, fn, mods)
        return
    c = g.doc_before(j)
    if c is None:
        return
    desc, tags = docblock(c.text)
    if "internal" in tags or not says(desc, tags):
        return
    if not desc and tags.get("var"):  # "@var int How many jobs run at once"
        desc = _inline(split_type(tags["var"][0])[1]).strip()
    text = " ".join(g.bare[rest_at : stop + 1].split())
    const = _CONST.match(text)
    case = _CASE.match(text)
    prop = _PROPERTY.match(text)
    if const is not None:
        value = text[const.end() :].rstrip(";").strip()
        extra = [f"Value: `{value}`" if value and len(value) <= _MAX_VALUE else ""]
        qual = f"{owner}::{const.group('name')}"
        yield g.document(qual, "constant", qual, "", desc, j, [*extra, *_fields(tags, "")])
    elif case is not None and kind == "enum":
        value = (case.group("value") or "").strip()
        qual = f"{owner}::{case.group('name')}"
        extra = [f"Value: `{value}`" if value else ""]
        yield g.document(qual, "case", qual, "", desc, j, [*extra, *_fields(tags, "")])
    elif prop is not None and mods:
        typ = (prop.group("type") or "").strip() or " ".join(tags.get("var", [""])[0].split()[:1])
        qual = f"{owner}::${prop.group('name')}"
        value = (prop.group("value") or "").strip()
        extra = [
            f"Type: `{typ}`" if typ else "",
            f"Default: `{value}`" if value and len(value) <= _MAX_VALUE else "",
        ]
        yield g.document(qual, "property", qual, "", desc, j, [*extra, *_fields(tags, "")])


def says(desc: str, tags: dict[str, list[str]]) -> bool:
    """Whether a docblock says something in words: a description, or a tag's own text (a
    parameter's, the return value's, an exception's), not types alone."""
    if desc.strip():
        return True
    for tag in ("param", "return", "returns", "throws", "var", "deprecated"):
        for rest in tags.get(tag, []):
            after = split_type(rest)[1]
            if tag == "param":
                after = re.sub(r"^(?:\.\.\.)?&?\$\w+", "", after)
            if re.search(r"[A-Za-z]{2,}", after) or tag == "deprecated":
                return True
    return False


def _function(
    g: _File, qual: str, kind: str, at: int, fn: re.Match[str], mods: list[str] | None = None
) -> Iterator[Document]:
    code = g.code
    c = g.doc_before(at)
    if c is None:
        return
    desc, tags = docblock(c.text)
    if "internal" in tags or not says(desc, tags):
        return
    open_at = fn.end() - 1
    close = closing(code, open_at)
    params = " ".join(g.bare[open_at + 1 : close - 1].split())
    params = re.sub(r"\s*,\s*$", "", params)
    params = re.sub(r"(?:public|protected|private|readonly)\s+", "", params)  # promoted
    tail = g.bare[close : close + 200]
    ret = re.match(r"\s*:\s*(?P<type>[?\w\\|&()]+(?:\s*\|\s*[?\w\\]+)*)", tail)
    returns = ret.group("type").strip() if ret else ""
    head = f"{qual}({params})"
    modifiers = [m for m in mods or [] if m in ("static", "abstract", "final", "protected")]
    extra = [*_fields(tags, returns), f"Modifiers: `{' '.join(modifiers)}`." if modifiers else ""]
    yield g.document(qual, kind, head, f"({params})", desc, at, extra)
