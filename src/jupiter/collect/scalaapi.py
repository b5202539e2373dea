"""Scala files read as their package's API, as Scaladoc reads it: one document per public (or
protected) class, trait, object, package object, def, val, var, type member, secondary
constructor and (Scala 3) enum case that has a Scaladoc comment (`/** */` right over its
declaration, annotations and modifiers between them allowed), and one per primary
constructor `val` (a case class's parameters are ones) its class's `@param` tag
documents. The uri is `scala:<package>.<Type>[.<member>]` (`scala:scala.collection.Seq.map`;
a nested type's members named through it; a package object `scala:<package>.p`, its
members `scala:<package>.p.member`, as Scaladoc names them; a secondary constructor
`def this` `<Type>.<Type>`; an Enumeration's `val A, B = Value` one document per name).
Packages are read from chained clauses (`package a` / `package b` is `a.b`) and nested
blocks (`package a { ... }`). A class and its companion object share their name, as in
Scaladoc: the object's members are `scala:a.Foo.member`, and the object, where
documented, is its class's document's second section (its own document where the class
has none); generic parameters are no part of a name (`List[A]` is `...List`).

The text is the form the question templates read for Python's docstrings: `name(params)`
over the description (a def's parameter lists all shown as written, the implicit one
too: `foldLeft(z: B)(op: (B, A) => B)`; a class's: its primary constructor's, without
`val` and modifiers, none where the constructor is private; a val, a type, an object or
a def without parameter lists: the bare name), then the block tags as `:param x:`,
`:returns:` (the declared type where no `@return` says it, but `Unit`) and `:raises X:`
fields, `@tparam` as `Type parameter A:`, `@constructor`, `@usecase`, `@example`
(fenced), `@note`, `@since` and `@see` lines, a val's type and a constant's value (a
literal, or a `final val`'s short one), `@throws(classOf[X])` annotations no tag
describes. `@deprecated`, the tag and the annotation, is `Deprecated: msg (since
2.11.0)`; `@migration` a note, `(Changed in version 2.8.0) msg`, as Scaladoc says it;
`@author`, `@version`, `@define`, `@group...`, `@todo` and tags Scaladoc does not know are
left out. A field's text is its paragraph (one after it is the description's again);
`@note`, `@example`, `@usecase` and the rest run to the next tag, as in Scaladoc.
Overloads are one document: the first documented one heads it, each further one follows
with its own signature line and its own doc.

Scaladoc's wiki syntax becomes Markdown: `{{{ code }}}` a fenced Scala block, `'''bold'''`
and `''italic''` Markdown's, `` `code` `` kept (wiki markup inside it read as plain
text), links `[[scala.collection.Seq]]` the name in code (`` `Seq` ``; a member's
through its type: `` `Seq.map` ``), `[[target some text]]` the text, a web link a Markdown
one, `^sup^`, `,,sub,,` and `__underline__` plain, `=== Heading ===` a heading line, lists
kept; `@inheritdoc` is dropped, the text around it kept. Macros (`$coll`, defined by
`@define` on a class and inherited by its members' comments) are left as written, not
expanded; a description of macros alone says nothing and documents nothing.

The files are scanned, never compiled: comments (block comments nest), strings, triple-
quoted strings, interpolated ones of both kinds (`s"..${expr}.."`, `f"..."`, `raw"..."`,
their `$$` escapes, and the braces, strings and comments inside a `${ }` hole), character
literals (`'a'`, `'\\n'`, `'"'`) told apart from symbols (`'sym`), and backquoted names
are told apart from code, so a brace in a string ends no block; a backslash escapes the
next character in any one-line string, an interpolated one's too (as Scala 3 reads it).
No semicolon is needed: a declaration ends at its body, or at the line that does not
carry it on (one ending in `,`, `:`, `=>`, `with`..., or a next line opening with
`extends`, `with`, `{`, `=`, `:`; a parameter list may start on the next line); a body
without braces, Scala 3's (`object A:`, or `def f =` over lines indented deeper), is the
lines indented deeper than its declaration. Scala's default visibility is public:
`private` and `private[x]` items, `protected` (and `protected[x]`) members of an object
or a final class, members of types that are not public, and everything inside a def's
body, a val's initializer and an anonymous class are left out. Tests (under `test/` or `tests/`, `src/test/` among them; `*Test.scala`,
`*Tests.scala`, `*Spec.scala`, `*Suite.scala`) and generated files (under an sbt build's
`target/` or a `src_managed/` folder, a "generated ... do not edit" comment at the top)
give no document and are counted, and so is a file with nothing documented. The same
qualified name from two files is one document, the first file's in path order. Not read:
Scala 3's `given`s and extension blocks, XML literals.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import ClassVar

from jupiter.collect.codescan import blanked
from jupiter.collect.ktapi import (
    _Comment,
    _comment_end,
    _Item,
    _join,
    _line,
    _line_end,
    _tick,
)
from jupiter.collect.ktapi import _File as _KotlinFile
from jupiter.collect.result import CollectResult, SourceFile, first_documents
from jupiter.records import Document

SUFFIXES = (".scala",)
URI_PREFIX = "scala:"
# reasons a Scala file gave no document, as the collect stage counts them
SCALA_TEST = "scala_test"
SCALA_GENERATED = "scala_generated"
SCALA_NO_API = "scala_no_api"
_AS_TEXT = (
    "Scala files read as their package's API (Scaladoc comments of public and protected "
    "items): tests, generated code and files with nothing documented give none; the "
    "source's scala: text reads them as text"
)
FIXES = {SCALA_TEST: _AS_TEXT, SCALA_GENERATED: _AS_TEXT, SCALA_NO_API: _AS_TEXT}
_TEST_NAME = re.compile(r"(?:Tests?|Spec|Suite)\.scala$")
_TEST_FOLDERS = frozenset({"test", "tests"})
_GENERATED_NOTE = re.compile(
    r"\bgenerated\b.{0,120}?\bdo\s+not\s+(?:edit|modify)\b"
    r"|\bdo\s+not\s+(?:edit|modify)\b.{0,120}?\bgenerated\b",
    re.I | re.S,
)
_MAX_VALUE = 80  # characters of a constant's value shown
_MAX_NESTING = 100  # interpolated strings in strings, types in types: deeper is not read

ScalaFile = SourceFile  # its files, as the source hands them over
# the items of a declaration, then where it ends
_Walk = Generator["_Item", None, int]


def is_scala(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    """A test's source: under a test/ or tests/ folder (sbt's `src/test/`), or named like
    a test (`*Test.scala`, `*Spec.scala`, `*Suite.scala`)."""
    if any(p in _TEST_FOLDERS for p in rel.parts[:-1]):
        return True
    return bool(_TEST_NAME.search(rel.name))


def api_documents(
    files: list[ScalaFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented public API the files declare, sorted by uri; a file
    that gives none is counted in `rejects`."""

    def read(f: ScalaFile) -> list[Document] | str:
        if is_test(f.rel):
            return SCALA_TEST
        scanned = scan(f.text)
        if generated(f.rel, scanned):
            return SCALA_GENERATED
        return list(file_documents(f, source, scanned))

    return first_documents(files, rejects, read, SCALA_NO_API)


_FIRST_DECLARATION = re.compile(r"[{]|\b(?:class|trait|object|def|val|var|type|enum)\b")


def generated(rel: PurePosixPath, scanned: tuple[str, str, list[_Comment]]) -> bool:
    """A generated file: under an sbt build's `target/` (not a package of that name
    under `src/`) or a `src_managed/` folder, or a "generated ... do not edit" comment
    (not a Scaladoc) before its first declaration."""
    folders = rel.parts[:-1]
    src = folders.index("src") if "src" in folders else len(folders)
    if "src_managed" in folders or "target" in folders[:src]:
        return True
    code, _, comments = scanned
    m = _FIRST_DECLARATION.search(code)
    top = len(code) if m is None else m.start()
    return any(_GENERATED_NOTE.search(c.text) for c in comments if c.start < top and not c.doc)


# ----------------------------------------------------------------------------- scanning
_LEXEME = re.compile(r"/[/*]|[\"'`]")
_IN_STRING = re.compile(r"\\[^\n]|\"|\n")
_IN_INTERPOLATED = re.compile(r"\\[^\n]|\$[$\"{]|\"|\n")
_IN_TRIPLE = re.compile(r"\"{3,}")
_IN_INTERPOLATED_TRIPLE = re.compile(r"\$[$\"{]|\"{3,}")
_IN_SPLICE = re.compile(r"[{}\"'`]|/[/*]")
# a character literal: one character or an escape between quotes (`'''` is none)
_CHAR = re.compile(r"'(?:\\(?:u+[0-9A-Fa-f]{4}|[0-7]{1,3}|[^\n])|[^\\\n'])'")
_SYMBOL = re.compile(r"'(?:[^\W\d]|\$)[\w$]*")
_BACKQUOTED = re.compile(r"`[^`\n]*`?")
_INTERPOLATOR_END = re.compile(r"[\w$]")
_NONSPACE = re.compile(r"\S")


def scan(text: str) -> tuple[str, str, list[_Comment]]:
    """(the code with comments and literals blanked; the text with only its comments
    blanked; the comments), both texts as long as `text`, lines where they were. A
    literal's opening quote stays in the code; a backquoted name's inside is blanked,
    its backquotes kept; a symbol (`'sym`) is code."""
    comments: list[_Comment] = []
    said: list[tuple[int, int]] = []  # comments: blanked in both
    inside: list[tuple[int, int]] = []  # literals' insides: blanked in the code only
    i = 0
    if text.startswith("#!"):  # a script's header, `#!` to a line `!#`
        stop = text.find("\n!#")
        i = _line_end(text, stop + 1) if stop >= 0 else _line_end(text, 0)
        said.append((0, i))
    while (m := _LEXEME.search(text, i)) is not None:
        s = m.start()
        tok = m.group()
        if tok == "//":
            e = _line_end(text, s)
            comments.append(_Comment(s, e, False, text[s + 2 : e]))
            said.append((s, e))
        elif tok == "/*":
            e, stop = _comment_end(text, s)
            doc = text.startswith("/**", s) and not text.startswith(("/**/", "/***"), s)
            comments.append(_Comment(s, e, doc, text[s + (3 if doc else 2) : max(stop, s + 2)]))
            said.append((s, e))
        elif tok == "'":
            c = _CHAR.match(text, s)
            if c is None:  # a symbol, or a quote of Scala 3's (`'{ ... }`): code
                sym = _SYMBOL.match(text, s)
                e = sym.end() if sym is not None else s + 1
            else:
                e = c.end()
                inside.append((s + 1, e))
        else:
            e = _literal_end(text, s)
            closed = tok == "`" and e > s + 1 and text[e - 1] == "`"
            inside.append((s + 1, e - 1 if closed else e))
        i = max(e, s + 1)
    return blanked(text, said + inside), blanked(text, said), comments


def _literal_end(text: str, s: int, depth: int = 0) -> int:
    """Past the string, character or backquoted name at s (more than s); `depth` the
    interpolated strings it stands in."""
    ch = text[s]
    if ch == '"':
        return _string_end(text, s, depth)
    if ch == "'":
        c = _CHAR.match(text, s)
        return c.end() if c is not None else s + 1
    m = _BACKQUOTED.match(text, s)
    return max(m.end() if m is not None else s + 1, s + 1)


def _string_end(text: str, s: int, depth: int = 0) -> int:
    """Past the string at s: a triple-quoted one ends at its first run of three quotes
    or more, a one-line one at its quote or, unclosed, at the line's end. An interpolated
    one (a name right before its quote: `s"..."`) skips its `$$` escapes and its `${...}`
    holes, whose code may hold braces and strings of its own (nested past _MAX_NESTING
    strings, one runs to the end: stray text, read without recursing deeper)."""
    interpolated = s > 0 and _INTERPOLATOR_END.match(text, s - 1) is not None
    triple = text.startswith('"""', s)
    i = s + (3 if triple else 1)
    if triple:
        inner = _IN_INTERPOLATED_TRIPLE if interpolated else _IN_TRIPLE
    else:
        inner = _IN_INTERPOLATED if interpolated else _IN_STRING
    while (m := inner.search(text, i)) is not None:
        tok = m.group()
        if tok == "${":
            if depth >= _MAX_NESTING:
                return len(text)
            i = _splice_end(text, m.end(), depth + 1)
            continue
        if tok == "\n":
            return m.start()
        if tok[0] == '"':
            return m.end()
        i = m.end()  # an escape: `\x`, `$$`, `$"`
    return len(text)


def _splice_end(text: str, i: int, depth: int) -> int:
    """Past the `}` closing an interpolated string's `${` (i past it), `depth` the
    strings it stands in."""
    braces = 1
    while (m := _IN_SPLICE.search(text, i)) is not None:
        tok, s = m.group(), m.start()
        if tok == "{":
            braces += 1
        elif tok == "}":
            braces -= 1
            if braces == 0:
                return m.end()
        elif tok == "//":
            i = _line_end(text, s)
            continue
        elif tok == "/*":
            i = _comment_end(text, s)[0]
            continue
        elif tok == "'" and _CHAR.match(text, s) is None:
            sym = _SYMBOL.match(text, s)
            i = sym.end() if sym is not None else s + 1
            continue
        else:
            i = _literal_end(text, s, depth)
            continue
        i = m.end()
    return len(text)


# ----------------------------------------------------------------------------- Scaladoc
@dataclass
class Scaladoc:
    """A Scaladoc comment read: its description (Markdown) and block tags, as text."""

    description: str = ""
    params: list[tuple[str, str]] = field(default_factory=list)
    tparams: list[tuple[str, str]] = field(default_factory=list)
    returns: str = ""
    throws: list[tuple[str, str]] = field(default_factory=list)
    constructor: str = ""
    deprecated: str | None = None
    since: list[str] = field(default_factory=list)
    see: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    usecases: list[str] = field(default_factory=list)

    def documented(self) -> bool:
        """Whether it says anything about the item (not only `@since`, `@see`, `@define`,
        `@inheritdoc` or a description of macros alone: `$factoryInfo`)."""
        return bool(
            _MACRO.sub("", self.description).strip()
            or any(d for _, d in self.params)
            or any(d for _, d in self.tparams)
            or self.returns
            or any(d for _, d in self.throws)
            or self.constructor
            or self.deprecated is not None
            or self.notes
            or self.examples
            or self.usecases
        )


_MARGIN = re.compile(r"[ \t]*\*")
# tags whose text is a field's: their paragraph only
_ONE_PARAGRAPH = frozenset(
    "param tparam return returns throws exception since see deprecated constructor".split()
)
_TAG_LINE = re.compile(r"\s*@([A-Za-z]\w*)")
_CODE_MARK = re.compile(r"\{\{\{|\}\}\}")
_CODE_BLOCK = re.compile(r"\{\{\{(.*?)(?:\}\}\}|\Z)", re.S)
_HEADING = re.compile(r"\s*(=+)\s*(.*?)\s*=+\s*$")
_INHERITDOC = re.compile(r"@inheritdoc\b[ \t]?")
_SUBJECT = re.compile(r"\s*(\[\[[^\]\n]*\]\]|`[^`\n]*`|\S+)(.*)$", re.S)
# a code span (kept), bold, italic, underline, superscript, subscript, a link
_SPAN = r"(?:(?!\n[ \t]*\n).)+?"  # within a paragraph
_INLINE = re.compile(
    r"(?P<code>`[^`\n]*`)"
    rf"|'''(?P<bold>{_SPAN})'''"
    rf"|''(?P<italic>{_SPAN})''"
    rf"|__(?P<under>{_SPAN})__"
    r"|\^(?P<sup>[^\^\n]+?)\^"
    rf"|,,(?P<sub>{_SPAN}),,"
    r"|\[\[(?P<link>(?:(?!\n[ \t]*\n)(?:[^\[\]]|\[[^\[\]]*\]))+?)\]\]",
    re.S,
)
_IN_CODE = re.compile(r"'''(.+?)'''|''(.+?)''|,,(.+?),,")
_FENCED = re.compile(r"(```scala\n.*?\n```)", re.S)
_MACRO = re.compile(r"\$(?:\{\w+\}|\w+)")
_DASH = re.compile(r"\s*[-\u2013\u2014]\s+")
_URL = re.compile(r"[a-z][a-z0-9+.-]*://|mailto:", re.I)
_SEGMENT = re.compile(r"(?<!\\)[.#]")


def scaladoc(body: str) -> Scaladoc:
    """A Scaladoc comment's text (without its `/**` and `*/`) read: its description up to
    the first block tag, each tag's text up to the next (not within a `{{{ }}}` block),
    but a field's (`@param`, `@return`...), which is its paragraph: one after it is the
    description's again; `@inheritdoc` dropped, its line's text kept where it stands."""
    lines = []
    for line in body.split("\n"):
        m = _MARGIN.match(line)
        lines.append(line[m.end() :] if m is not None else line)
    lines[0] = lines[0].strip()
    sections: list[tuple[str, list[str]]] = [("", [])]
    in_code = False
    into = sections[0][1]
    for line in lines:
        t = None if in_code else _TAG_LINE.match(line)
        if t is not None and t.group(1) != "inheritdoc":
            sections.append((t.group(1), [line[t.end() :]]))
            into = sections[-1][1]
        else:
            if not in_code and not line.strip() and sections[-1][0] in _ONE_PARAGRAPH:
                into = sections[0][1]
            into.append(line)
        in_code = _in_code(line, in_code)
    main = sections[0][1]
    head = main.pop(0) if main and main[0] is lines[0] else ""  # the line after `/**`
    main = [head, *textwrap.dedent("\n".join(main)).split("\n")]  # apart from the tags'
    doc = Scaladoc(description=wiki("\n".join(main)))
    for name, text_lines in sections[1:]:
        _block_tag(doc, name, "\n".join(text_lines))
    return doc


def _in_code(line: str, in_code: bool) -> bool:
    """Whether a `{{{ }}}` block is open past the line (one was at its start)."""
    for m in _CODE_MARK.finditer(line):
        in_code = m.group() == "{{{"
    return in_code


def _block_tag(doc: Scaladoc, name: str, text: str) -> None:
    subject, rest = _subject(text)
    if (dash := _DASH.match(rest)) is not None:  # `@param x - what it is`
        rest = rest[dash.end() :]
    if name == "param" and subject:
        doc.params.append((subject, _field_text(rest)))
    elif name == "tparam" and subject:
        doc.tparams.append((subject, _field_text(rest)))
    elif name in ("return", "returns"):
        doc.returns = doc.returns or _field_text(text)
    elif name in ("throws", "exception") and subject:
        doc.throws.append((subject, _field_text(rest)))
    elif name == "deprecated":
        doc.deprecated = _field_text(text)
    elif name == "since":
        if since := _field_text(text):
            doc.since.append(since)
    elif name == "see":
        if see := _field_text(text):
            doc.see.append(see)
    elif name == "note":
        if note := _field_text(text):
            doc.notes.append(note)
    elif name == "example":
        if example := _example(text):
            doc.examples.append(example)
    elif name == "constructor":
        doc.constructor = _field_text(text)
    elif name == "usecase":
        if usecase := _usecase(text):
            doc.usecases.append(usecase)
    # @author, @version, @define, @group..., @todo and tags Scaladoc does not know: out


def _subject(text: str) -> tuple[str, str]:
    """A tag's subject (`x`, `` `x` ``, `[[x]]`: the name) and the text after it."""
    m = _SUBJECT.match(text)
    if m is None:
        return "", ""
    name = m.group(1)
    if name.startswith("[["):
        name = name[2:-2].split()[0] if name[2:-2].split() else ""
    return name.strip("`"), m.group(2)


def _field_text(text: str) -> str:
    """A tag's text as a field shows it: on one line, but for a code block in it (the
    text around it a line of its own)."""
    parts = _FENCED.split(wiki(text))
    return "\n\n".join(x if x.startswith("```") else _line(x) for x in parts if x.strip())


def _example(text: str) -> str:
    """An `@example`'s text: its code fenced as Scala (all of it where it has no
    `{{{ }}}` block)."""
    if "{{{" in text:
        return wiki(text)
    code = textwrap.dedent(text.strip("\n")).strip()
    return f"```scala\n{code}\n```" if code else ""


def _usecase(text: str) -> str:
    """A `@usecase`'s simplified signature, then its own text (`@inheritdoc` out)."""
    first, _, rest = text.strip().partition("\n")
    if not first.strip():
        return ""
    said = wiki(textwrap.dedent(rest))
    return _join([f"Use case: {_tick(_line(first))}", said])


def wiki(text: str) -> str:
    """Scaladoc's wiki syntax as Markdown: `{{{ }}}` blocks fenced as Scala, headings,
    inline markup and links converted (not in code), lists kept, runs of blank lines one."""
    out: list[str] = []
    last = 0
    for m in _CODE_BLOCK.finditer(text):
        out.append(_wiki_text(text[last : m.start()], bool(out)))
        code = m.group(1).split("\n")
        while code and not code[0].strip():
            code.pop(0)
        while code and not code[-1].strip():
            code.pop()
        said = textwrap.dedent("\n".join(x.rstrip() for x in code))
        out.append(f"\n\n```scala\n{said}\n```\n\n")
        last = m.end()
    out.append(_wiki_text(text[last:], bool(out)))
    joined = "\n".join(x.rstrip() for x in "".join(out).split("\n"))
    return re.sub(r"\n{3,}", "\n\n", joined).strip("\n")


def _wiki_text(text: str, after_code: bool) -> str:
    """Wiki text outside code as Markdown: headings by their lines, then the inline
    markup (the first line's space dropped right after a code block)."""
    if after_code:
        text = text.lstrip(" \t")
    lines = []
    for line in _INHERITDOC.sub("", text).split("\n"):
        h = _HEADING.match(line)
        if h is not None and h.group(2):  # a paragraph of its own
            lines.append(f"\n{'#' * min(len(h.group(1)), 6)} {h.group(2)}\n")
        else:
            lines.append(line)
    return _inline("\n".join(lines))


def _inline(text: str) -> str:
    return _INLINE.sub(_inline_markup, text)


def _inline_markup(m: re.Match[str]) -> str:
    if m.group("code") is not None:  # Scaladoc's markup in it: `'''true'''`, `x,,1,,`
        return _IN_CODE.sub(r"\g<1>\g<2>\g<3>", m.group())
    if m.group("bold") is not None:
        return f"**{_inline(m.group('bold'))}**"
    if m.group("italic") is not None:
        return f"*{_inline(m.group('italic'))}*"
    if m.group("link") is not None:
        return _link(m.group("link"))
    plain = m.group("under") or m.group("sup") or m.group("sub") or ""
    return _inline(plain)


def _link(inner: str) -> str:
    """A `[[target text]]` link as Markdown: a web link as one, an entity's as its text
    or its name in code."""
    target, _, label = inner.strip().partition(" ")
    label = _line(label)
    if len(label) > 1 and label[0] == label[-1] == '"':
        label = label[1:-1]
    if _URL.match(target):
        return f"[{label}]({target})" if label else target
    return label if label else _tick(_entity_name(target))


def _entity_name(target: str) -> str:
    """A linked entity's name as Scaladoc shows it: a type's simple name, a member's
    through its type (`scala.collection.Seq#map` is `Seq.map`); the marks of a
    companion (`List$`), a type (`List!`), an overload (`(Int)*`) out."""
    cut = min((k for k in (target.find("("), target.find("[")) if k > 0), default=len(target))
    target = target[:cut].rstrip("*")
    parts = [p.strip("$!").replace("\\", "") for p in _SEGMENT.split(target)]
    parts = [p for p in parts if p]
    if not parts:
        return target
    member = "#" in target or (
        len(parts) > 1 and not parts[-1][:1].isupper() and parts[-2][:1].isupper()
    )
    return ".".join(parts[-2:]) if member and len(parts) > 1 else parts[-1]


# ----------------------------------------------------------------------------- items
_OPCHARS = (
    r"!#%&*+\-/:<=>?@\\^|~\u00ac\u00b1\u00d7\u00f7\u2190-\u21ff\u2200-\u22ff"
    r"\u2300-\u23ff\u25a0-\u26ff\u27c0-\u27ff\u2900-\u2aff"
)
_WORD = re.compile(r"(?:[^\W\d]|\$)[\w$]*")
# a backquoted name, a name (an operator after its `_`: `unary_!`, `reverse_:::`), an
# operator
_IDENT = re.compile(rf"`[^`\n]*`|(?:[^\W\d]|\$)(?:[\w$]*_[{_OPCHARS}]+|[\w$]*)|[{_OPCHARS}]+")
_MODIFIERS = frozenset(
    "abstract final sealed implicit lazy override private protected case inline opaque "
    "open transparent infix".split()
)
_ACCESS = frozenset({"private", "protected"})
_PARAM_MODIFIERS = frozenset(
    "val var implicit using override final private protected lazy inline erased".split()
)
_ANNOTATION = re.compile(r"@(?:`[^`\n]*`|(?:[^\W\d]|\$)[\w$]*)(?:\s*\.\s*(?:[^\W\d]|\$)[\w$]*)*")
_QUALIFIED = re.compile(r"(?:`[^`\n]*`|(?:[^\W\d]|\$)[\w$]*)(?:\s*\.\s*(?:`[^`\n]*`|[\w$]+))*")
# where a head ends: brackets (skipped), a body's `{`, an `=` that is no operator's
_EQUALS = rf"(?<![{_OPCHARS}])=(?![{_OPCHARS}])"
_HEAD_STOP = re.compile(rf"[(\[{{;}}\n]|{_EQUALS}")
_EQUALS_SIGN = re.compile(_EQUALS)
_STATEMENT = re.compile(r"[(\[{\n;}]")
_CARRIED_BY = re.compile(r"(?:extends|with|forSome|derives)\b|=>|[:,{=]")
_COLON_END = re.compile(rf"(?<![{_OPCHARS}]):[ \t]*$")
_CARRIES_ON = re.compile(r"(?:[,:.(\[|&]|=>|\b(?:with|extends|forSome|derives))\s*$")
_DEPRECATED = re.compile(r"@(?:scala\s*\.\s*)?deprecated\b")
_MIGRATION = re.compile(r"@(?:scala\s*\.\s*annotation\s*\.\s*)?migration\b")
_THROWS = re.compile(r"@(?:scala\s*\.\s*)?throws\b")
_CLASS_OF = re.compile(r"classOf\s*\[\s*([\w$.]+)")
_TYPE_ARGUMENT = re.compile(r"^@[\w$.\s]*?throws\s*\[\s*([\w$.]+)")
_STRING_LIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_ARG_NAME = re.compile(r"\s*([A-Za-z_]\w*)\s*=(?!=)\s*")
_LITERAL = re.compile(
    r"-?(?:0[xX][0-9A-Fa-f_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)[lLfFdD]?"
    r"|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\[^\n]+)'|true|false|null"
)
_OPERATOR_END = re.compile(rf"[{_OPCHARS}]$")
_SHOWN_NOT = frozenset({"case"})  # modifiers a member's text leaves out


@dataclass
class _Owner:
    qual: str  # the package, or the type's qualified name
    name: str = ""  # the type's simple name ("" for a package)
    kind: str = "file"  # file, package, class, trait, object, package object or enum
    open: bool = False  # a class or trait not final: its protected members are API
    props: dict[str, str] = field(default_factory=dict)  # its Scaladoc's @param texts
    depth: int = 0  # the types and package blocks it stands in

    def visible(self, mods: list[str]) -> bool:
        """Whether members with these modifiers are API: not private (`private[x]`),
        protected only where the type can be extended."""
        access = [x.split("[")[0] for x in mods]
        if "private" in access:
            return False
        return self.open if "protected" in access else True


@dataclass
class _Prefix:
    annotations: list[str]
    mods: list[str]  # `private[x]` one modifier
    at: int  # where its first modifier or keyword stands
    end: int  # past it
    start: int  # where its first annotation stands (`at` where it has none)


@dataclass
class _Param:
    name: str
    shown: str  # as a signature shows it: annotations, `val` and its modifiers out
    type: str
    mods: list[str]  # a constructor parameter's: `val` or `var` last where it is one
    at: int


@dataclass
class _Params:
    """A parameter list: its parameters, and `implicit` (or `using`) where it is one."""

    params: list[_Param]
    implicit: str = ""

    def shown(self) -> str:
        inner = ", ".join(x.shown for x in self.params)
        return f"({self.implicit} {inner})" if self.implicit else f"({inner})"


class _File(_KotlinFile):
    """A scanned file with its Scaladoc comments indexed (as the Kotlin reader's)."""

    language: ClassVar[str] = "scala"
    prefix: ClassVar[str] = URI_PREFIX


def file_documents(
    f: ScalaFile, source: str, scanned: tuple[str, str, list[_Comment]] | None = None
) -> Iterator[Document]:
    """The documents of one file, in the order its items stand (`scanned` its scan when
    done already); items of one name (overloads, a class and its companion object) are
    one document, where the first stands, a class before its object."""
    code, bare, comments = scanned or scan(f.text)
    g = _File(f, source, code, bare, comments)
    groups: dict[str, list[_Item]] = {}
    for item in _members(g, 0, len(code), _Owner("")):
        groups.setdefault(item.qual, []).append(item)
    for group in groups.values():
        group.sort(key=lambda x: x.kind == "object")
        yield g.document(group[0], group[1:])


def _members(g: _File, start: int, end: int, owner: _Owner) -> Iterator[_Item]:
    """The documented visible items between start and end (a file, a package block, a
    type's body)."""
    code = g.code
    j, region = start, start
    while True:
        j = g.skip(j, end)
        if j >= end:
            return
        if code[j] in ";,)]}":
            j = region = j + 1
            continue
        if code[j] == "{":  # a block: an initializer's, a stray one
            j = region = max(g.close(j, end), j + 1)
            continue
        p = _prefix(g, j, end)
        w = _WORD.match(code, p.end, end)
        word = w.group() if w is not None else ""
        new_j = -1
        if word == "package" and owner.kind in ("file", "package"):
            clause = _package_clause(g, p, end, owner)
            if clause is not None:  # its package holds the rest: chained clauses nest
                owner, j = clause
                region = j
                continue
            new_j = yield from _package(g, p, region, end, owner)
        elif word in ("class", "trait", "object", "enum"):
            new_j = yield from _type(g, p, region, end, owner)
        elif word == "def":
            new_j = yield from _def(g, p, region, end, owner)
        elif word in ("val", "var"):
            new_j = yield from _val(g, p, region, end, owner)
        elif word == "type":
            new_j = yield from _type_member(g, p, region, end, owner)
        elif word == "case" and owner.kind == "enum":
            new_j = yield from _enum_cases(g, p, region, end, owner)
        if new_j < 0:  # no declaration: an import, a statement, a self type
            new_j = _statement_end(g, j, end)
        j = region = max(new_j, j + 1)


def _prefix(g: _File, j: int, end: int) -> _Prefix:
    """The annotations and modifiers at j (`private[x]` one modifier; `case` one before
    `class` or `object` only; a soft modifier of Scala 3's only before another word)."""
    code = g.code
    annotations: list[str] = []
    mods: list[str] = []
    at = -1
    start = g.skip(j, end)
    while True:
        j = g.skip(j, end)
        if j >= end:
            break
        if code[j] == "@":
            m = _ANNOTATION.match(code, j, end)
            if m is None:
                break
            stop = m.end()
            if code[stop : stop + 1] == "[":
                stop = g.close(stop, end)
            while code[stop : stop + 1] == "(":
                stop = g.close(stop, end)
            annotations.append(g.said(j, stop))
            j = stop
            continue
        w = _WORD.match(code, j, end)
        if w is None or w.group() not in _MODIFIERS:
            break
        k = g.skip(w.end(), end)
        mod = w.group()
        if mod in _ACCESS and code[k : k + 1] == "[":
            stop = g.close(k, end)
            mod += "[" + "".join(code[k + 1 : stop - 1].split()) + "]"
            k = g.skip(stop, end)
        after = _WORD.match(code, k, end)
        constructor = mod.split("[")[0] in _ACCESS and code[k : k + 1] == "("
        if after is None and code[k : k + 1] != "@" and not constructor:
            break
        if mod == "case" and (after is None or after.group() not in ("class", "object")):
            break
        at = j if at < 0 else at
        mods.append(mod)
        j = k
    return _Prefix(annotations, mods, j if at < 0 else at, j, start)


def _statement_end(g: _File, j: int, end: int) -> int:
    """Past the line at j, its brackets skipped whole (a block, an argument list)."""
    k = j
    while (m := _STATEMENT.search(g.code, k, end)) is not None:
        s = m.start()
        ch = m.group()
        if ch in "([{":
            k = max(g.close(s, end), s + 1)
        elif ch == "}":
            return s if s > j else s + 1
        else:
            return m.end()
    return end


def _continues(code: str, nl: int, start: int) -> bool:
    """Whether the declaration that starts at `start` goes on past the line break at
    `nl`: its line ends with a comma, a colon, a dot, an arrow, `|`, `&`, `with`,
    `extends`, or the next line opens with `extends`, `with`, `{`, `=`, `:`, `,`, `=>`."""
    line = max(start, code.rfind("\n", start, nl) + 1)
    if _CARRIES_ON.search(code, line, nl) is not None:
        return True
    m = _NONSPACE.search(code, nl)
    return m is not None and _CARRIED_BY.match(code, m.start()) is not None


def _head_end(g: _File, k: int, end: int, template: bool = False) -> tuple[int, str]:
    """Where a declaration's head that goes on at k ends: (the position, `{` for a body,
    `=` for an initializer or a body, `:` for a type's (`template`) body without braces,
    Scala 3's, or "" where the declaration ends there), brackets skipped."""
    code = g.code
    start = k
    while (m := _HEAD_STOP.search(code, k, end)) is not None:
        s = m.start()
        tok = m.group()
        if tok in ("(", "["):
            k = max(g.close(s, end), s + 1)
        elif tok == "\n":
            colon = _COLON_END.search(code, max(start, code.rfind("\n", start, s) + 1), s)
            if template and colon is not None:
                return colon.start(), ":"
            if not _continues(code, s, start):
                return s, ""
            k = s + 1
        elif tok in (";", "}"):
            return s, ""
        else:
            return s, tok
    return end, ""


def _column(code: str, at: int) -> int:
    return at - code.rfind("\n", 0, at) - 1


def _deeper_end(g: _File, j: int, column: int, end: int) -> int:
    """Past the lines from j on that stand deeper than `column` (a body without braces,
    a value's lines), each with its brackets whole (j where none does: the comment
    over the next declaration stays after it)."""
    while (m := _NONSPACE.search(g.code, j, end)) is not None:
        if _column(g.code, m.start()) <= column:
            return j
        j = max(_statement_end(g, m.start(), end), m.start() + 1)
    return end


def _body_end(g: _File, p: _Prefix, k: int, end: int) -> int:
    """Past the body or value that follows a declaration's `=` at k: its first line,
    brackets whole; where it starts on the next line without a brace (`def f =` over
    lines indented deeper: Scala 3's body), the lines deeper than the declaration too."""
    at = g.skip(k + 1, end)
    first = _statement_end(g, at, end)
    if "\n" not in g.code[k:at] or g.code[at : at + 1] == "{":
        return first
    return _deeper_end(g, first, _column(g.code, p.start), end)


def _package_name(g: _File, p: _Prefix, end: int) -> re.Match[str] | None:
    """The package name of a package clause or block at p (None for a package object,
    or a `package` keyword without a name)."""
    kw = _WORD.match(g.code, p.end, end)
    assert kw is not None
    k = g.skip(kw.end(), end)
    return None if _is_package_object(g, p, end) else _QUALIFIED.match(g.code, k, end)


def _is_package_object(g: _File, p: _Prefix, end: int) -> bool:
    kw = _WORD.match(g.code, p.end, end)
    w = _WORD.match(g.code, g.skip(kw.end(), end), end) if kw is not None else None
    return w is not None and w.group() == "object"


def _package_owner(g: _File, nm: re.Match[str], owner: _Owner) -> _Owner:
    name = "".join(g.bare[nm.start() : nm.end()].split()).replace("`", "")
    qual = f"{owner.qual}.{name}" if owner.qual else name
    return _Owner(qual, kind="package", depth=owner.depth + 1)


def _package_clause(g: _File, p: _Prefix, end: int, owner: _Owner) -> tuple[_Owner, int] | None:
    """A package clause at p: (its package, where the clause ends); None where a package
    block or a package object stands there."""
    nm = _package_name(g, p, end)
    if nm is None or g.code[g.skip(nm.end(), end) : g.skip(nm.end(), end) + 1] == "{":
        return None  # a block: `package a {`
    return _package_owner(g, nm, owner), _statement_end(g, nm.end(), end)


def _package(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A package block, or a package object."""
    if _is_package_object(g, p, end):
        return (yield from _type(g, p, region, end, owner))
    nm = _package_name(g, p, end)
    if nm is None:
        return -1
    b = g.skip(nm.end(), end)
    close = g.close(b, end)
    inner = _package_owner(g, nm, owner)
    if inner.depth <= _MAX_NESTING:
        yield from _members(g, b + 1, max(b + 1, close - 1), inner)
    return close


def _type(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A class, trait, object, package object or (Scala 3) enum, and its members;
    returns where it ends."""
    code = g.code
    kw = _WORD.match(code, p.end, end)
    assert kw is not None
    word, k = kw.group(), kw.end()
    if word == "package":
        obj = _WORD.match(code, g.skip(k, end), end)
        assert obj is not None
        word, k = "package object", obj.end()
    nm = _IDENT.match(code, g.skip(k, end), end)
    if nm is None:
        return -1
    name = g.name(nm)
    k = nm.end()
    tparams = ""
    t = g.skip(k, end)
    if code[t : t + 1] == "[":
        k = g.close(t, end)
        tparams = g.said(t, k)
    ctor = _primary_constructor(g, k, end)
    if ctor is not None and word in ("object", "package object"):
        return -1
    ctor_mods, lists, k = ctor or ([], [], k)
    stop, tok = _head_end(g, k, end, template=True)
    close = stop
    if tok == "{":
        close = g.close(stop, end)
    elif tok == ":":  # Scala 3: the lines deeper than the declaration
        close = _deeper_end(g, stop + 1, _column(code, p.start), end)
    kind = "package" if word == "package object" else word
    qual = f"{owner.qual}.{name}" if owner.qual else name
    if not owner.visible(p.mods):
        return close
    c = g.doc_before(region, p.at)
    doc = scaladoc(c.text) if c is not None else Scaladoc()
    is_open = word in ("class", "trait") and "final" not in p.mods
    inner = _Owner(qual, name, word, is_open, dict(doc.params), owner.depth + 1)
    ctor_shown = ctor is not None and inner.visible(ctor_mods)
    if c is not None and doc.documented():
        supers = g.said(k, stop)
        decl = " ".join([*p.mods, word, name + tparams, *ctor_mods, supers]).strip()
        yield _type_item(doc, p, qual, kind, decl, lists if ctor_shown else None)
    for n, ps in enumerate(lists):  # a case class's first list is its fields
        for x in ps.params:
            yield from _constructor_val(inner, x, "case" in p.mods and n == 0)
    if tok in ("{", ":") and inner.depth <= _MAX_NESTING:
        yield from _members(g, stop + 1, max(stop + 1, close - (tok == "{")), inner)
    return close


def _primary_constructor(g: _File, k: int, end: int) -> tuple[list[str], list[_Params], int] | None:
    """A class's primary constructor at k: (its modifiers, its parameter lists, where it
    ends); None where it has no parameter list."""
    c = g.skip(k, end)
    p = _prefix(g, c, end)
    if g.code[p.end : p.end + 1] != "(":
        return None
    lists, stop = _param_lists(g, p.end, end)
    return p.mods, lists, stop


def _param_lists(g: _File, k: int, end: int) -> tuple[list[_Params], int]:
    """The parameter lists at k (a line break before one allowed), and where they end."""
    lists: list[_Params] = []
    while True:
        c = g.skip(k, end)
        if g.code[c : c + 1] != "(":
            return lists, k
        close = g.close(c, end)
        lists.append(_params(g, c + 1, max(c + 1, close - 1)))
        k = close


def _type_item(
    doc: Scaladoc, p: _Prefix, qual: str, kind: str, decl: str, lists: list[_Params] | None
) -> _Item:
    """A type's item: headed by its primary constructor's parameters (`lists`, None
    where it has none a caller sees)."""
    body = _join(
        [
            doc.description,
            *doc.usecases,
            f"Constructor: {doc.constructor}" if doc.constructor else "",
            _deprecation(doc, p.annotations),
            _fields(doc, ""),
            f"Declaration: {_tick(decl)}",
            *_closing(doc, p.annotations),
        ]
    )
    if lists is None:
        return _Item(qual, kind, qual, "", body, p.at)
    shown = "".join(x.shown() for x in lists)
    return _Item(qual, kind, f"{qual}{shown}", shown, body, p.at)


def _constructor_val(owner: _Owner, x: _Param, case: bool) -> Iterator[_Item]:
    """A primary constructor's public `val` or `var` (a case class's parameter is a
    `val`), documented by its class's `@param` tag."""
    keyword = x.mods[-1] if x.mods and x.mods[-1] in ("val", "var") else ""
    if not (keyword or case) or not owner.visible(x.mods):
        return
    text = owner.props.get(x.name, "")
    if not text:
        return
    qual = f"{owner.qual}.{x.name}"
    mods = [m for m in x.mods if m not in ("val", "var")]
    body = _join([text, f"Type: {_tick(x.type)}" if x.type else "", _modifiers(mods, keyword)])
    yield _Item(qual, "variable" if keyword == "var" else "value", qual, "", body, x.at)


def _params(g: _File, a: int, b: int) -> _Params:
    """A parameter list's parameters (the code between a and b)."""
    out: list[_Param] = []
    implicit = ""
    for s, e in _split_params(g.code[a:b]):
        code, bare = _no_annotations(g, a + s, a + e)
        mods: list[str] = []
        k = _past_space(code, 0)
        while (w := _WORD.match(code, k)) is not None and w.group() in _PARAM_MODIFIERS:
            nxt = _NONSPACE.search(code, w.end())
            if nxt is None or code[nxt.start()] in ":=,":
                break  # a parameter named like a modifier
            mods.append(w.group())
            k = nxt.start()
            if code[k] == "[":  # private[x]
                close = code.find("]", k)
                k = _past_space(code, close + 1 if close > 0 else len(code))
        if not out and mods and mods[0] in ("implicit", "using"):
            implicit = mods[0]
        nm = _IDENT.match(code, k)
        if nm is None:
            continue
        name = bare[nm.start() : nm.end()].strip("`")
        typ, default = _type_and_default(code, bare, nm.end())
        shown = bare[nm.start() : nm.end()]
        shown += f": {typ}" if typ else ""
        shown += f" = {default}" if default else ""
        mods = [x for x in mods if x not in ("implicit", "using")]
        out.append(_Param(name, shown, typ, mods, _past_space(g.code, a + s)))
    return _Params(out, implicit)


def _type_and_default(code: str, bare: str, k: int) -> tuple[str, str]:
    """A parameter's type (after its `:`) and default (after its `=`) from k on."""
    eq = _EQUALS_SIGN.search(code, k)
    colon = code.find(":", k)
    typ = default = ""
    if 0 <= colon and (eq is None or colon < eq.start()):
        typ = _line(bare[colon + 1 : eq.start() if eq is not None else None])
    if eq is not None:
        default = _line(bare[eq.end() :])
    return typ, default


def _split_params(code: str) -> list[tuple[int, int]]:
    """The spans of a parameter list's parameters: split at the commas outside
    brackets."""
    out: list[tuple[int, int]] = []
    depth = last = 0
    for k, ch in enumerate(code):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth <= 0:
            out.append((last, k))
            last = k + 1
    out.append((last, len(code)))
    return [(s, e) for s, e in out if code[s:e].strip()]


def _no_annotations(g: _File, a: int, b: int) -> tuple[str, str]:
    """A parameter's code and text (between a and b) without its annotations
    (`@deprecatedName('x) y: Int`)."""
    code, bare = g.code[a:b], g.bare[a:b]
    spans: list[tuple[int, int]] = []
    k = 0
    while (m := _ANNOTATION.search(code, k)) is not None:
        stop = m.end()
        if code[stop : stop + 1] == "[":
            stop = min(g.close(a + stop, b), b) - a
        while code[stop : stop + 1] == "(":
            stop = min(g.close(a + stop, b), b) - a
        spans.append((m.start(), stop))
        k = max(stop, m.start() + 1)
    for s, e in reversed(spans):
        code, bare = code[:s] + code[e:], bare[:s] + bare[e:]
    return code, bare


def _past_space(text: str, k: int) -> int:
    """Past the space at k in `text`."""
    m = _NONSPACE.search(text, k)
    return len(text) if m is None else m.start()


def _def(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A def, or a secondary constructor (`def this(...)`, named `<Type>.<Type>`);
    returns where it ends, or where its body after `=` starts."""
    code = g.code
    kw = _WORD.match(code, p.end, end)
    assert kw is not None
    nm = _IDENT.match(code, g.skip(kw.end(), end), end)
    if nm is None:
        return -1
    name = g.name(nm)
    k = nm.end()
    tparams = ""
    t = g.skip(k, end)
    if code[t : t + 1] == "[":
        k = g.close(t, end)
        tparams = g.said(t, k)
    lists, k = _param_lists(g, k, end)
    stop, tok = _head_end(g, k, end)
    after = stop
    if tok == "{":  # procedure syntax
        after = g.close(stop, end)
    elif tok == "=":
        after = _body_end(g, p, stop, end)
    constructor = name == "this" and nm.group() == "this"
    if constructor and owner.kind != "class":
        return after
    if not owner.visible(p.mods):
        return after
    c = g.doc_before(region, p.at)
    doc = scaladoc(c.text) if c is not None else Scaladoc()
    if c is None or not doc.documented():
        return after
    returns = "" if constructor else g.said(k, stop).removeprefix(":").strip()
    shown = "".join(x.shown() for x in lists)
    qual = f"{owner.qual}.{owner.name}" if constructor else _member(owner, name)
    body = _join(
        [
            doc.description,
            *doc.usecases,
            _deprecation(doc, p.annotations),
            _fields(doc, returns),
            _throws(doc, p.annotations),
            f"Type parameters: {_tick(tparams)}." if tparams else "",
            _modifiers(p.mods),
            *_closing(doc, p.annotations),
        ]
    )
    kind = "constructor" if constructor else "method" if owner.name else "function"
    yield _Item(qual, kind, f"{qual}{shown}", shown, body, p.at)
    return after


def _member(owner: _Owner, name: str) -> str:
    return f"{owner.qual}.{name}" if owner.qual else name


def _names(g: _File, p: _Prefix, end: int) -> tuple[str, list[str], int]:
    """A declaration's keyword, the comma-separated names after it (`val a, b`,
    `case A, B`) and where they end."""
    code = g.code
    kw = _WORD.match(code, p.end, end)
    assert kw is not None
    names: list[str] = []
    k = kw.end()
    while (nm := _IDENT.match(code, g.skip(k, end), end)) is not None:
        names.append(g.name(nm))
        k = nm.end()
        comma = g.skip(k, end)
        if code[comma : comma + 1] != ",":
            break
        k = comma + 1
    return kw.group(), names, k


def _val(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A val or var (`val a, b = ...`: each name one item); returns where its
    initializer starts (-1 for a pattern: `val (a, b) = ...`)."""
    code = g.code
    word, names, k = _names(g, p, end)
    k = g.skip(k, end)
    if not names or code[k : k + 1] not in (":", "="):
        return -1  # a pattern: `val Some(x) = ...`
    stop, tok = _head_end(g, k, end)
    typ = g.said(k, stop).removeprefix(":").strip()
    value = ""
    after = stop
    if tok == "=":
        at = g.skip(stop + 1, end)  # a value may start on the next line
        value = g.said(at, _statement_end(g, at, end))
        after = _body_end(g, p, stop, end)
    if not owner.visible(p.mods):
        return after
    c = g.doc_before(region, p.at)
    doc = scaladoc(c.text) if c is not None else Scaladoc()
    if c is None or not doc.documented():
        return after
    constant = word == "val" and "lazy" not in p.mods and 0 < len(value) <= _MAX_VALUE
    final = "final" in p.mods and not _CARRIES_ON.search(value) and not _OPERATOR_END.search(value)
    constant = constant and (_LITERAL.fullmatch(value) is not None or final)
    body = _join(
        [
            doc.description,
            _deprecation(doc, p.annotations),
            _fields(doc, ""),
            f"Type: {_tick(typ)}" if typ else "",
            f"Value: {_tick(value)}" if constant else "",
            _modifiers(p.mods, word),
            *_closing(doc, p.annotations),
        ]
    )
    kind = "constant" if constant else "variable" if word == "var" else "value"
    for name in names:
        qual = _member(owner, name)
        yield _Item(qual, kind, qual, "", body, p.at)
    return after


def _type_member(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A type alias or an abstract type (`type T <: Bound`); returns where it ends."""
    code = g.code
    kw = _WORD.match(code, p.end, end)
    assert kw is not None
    nm = _IDENT.match(code, g.skip(kw.end(), end), end)
    if nm is None:
        return -1
    stop, tok = _head_end(g, nm.end(), end)
    while tok in ("=", "{"):  # the alias (it may start on the next line), a refinement
        stop, tok = _head_end(g, g.skip(stop + 1, end) if tok == "=" else g.close(stop, end), end)
    if not owner.visible(p.mods):
        return stop
    c = g.doc_before(region, p.at)
    doc = scaladoc(c.text) if c is not None else Scaladoc()
    if c is None or not doc.documented():
        return stop
    qual = _member(owner, g.name(nm))
    decl = " ".join([*p.mods, "type", g.said(nm.start(), stop)])
    body = _join(
        [
            doc.description,
            _deprecation(doc, p.annotations),
            _fields(doc, ""),
            f"Declaration: {_tick(decl)}",
            *_closing(doc, p.annotations),
        ]
    )
    yield _Item(qual, "type", qual, "", body, p.at)
    return stop


def _enum_cases(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A Scala 3 enum's `case A, B` (each one item) or `case C(x: Int) extends E`."""
    _, names, k = _names(g, p, end)
    lists, k = _param_lists(g, k, end)
    stop, tok = _head_end(g, k, end)
    after = g.close(stop, end) if tok == "{" else stop
    c = g.doc_before(region, p.at)
    doc = scaladoc(c.text) if c is not None else Scaladoc()
    if c is None or not doc.documented():
        return after
    shown = "".join(x.shown() for x in lists)
    body = _join([doc.description, _deprecation(doc, p.annotations), _fields(doc, "")])
    for name in names:
        qual = _member(owner, name)
        yield _Item(qual, "enum_case", f"{qual}{shown}", shown, body, p.at)
    return after


# ----------------------------------------------------------------------------- text
def _fields(doc: Scaladoc, returns: str) -> str:
    """The block tags as docstring fields: `:param x:`, `:returns:` (the declared type
    where no `@return` says it, but `Unit`), `:raises X:`, then the type parameters'
    `@tparam` tags as lines of their own."""
    lines = [f":param {n}: {d}" for n, d in doc.params if d]
    if doc.returns:
        lines.append(f":returns: {doc.returns}")
    elif returns and returns not in ("Unit", "scala.Unit"):
        lines.append(f":returns: {_tick(returns)}")
    lines += [f":raises {x}: {d}".rstrip() for x, d in doc.throws]
    types = [f"Type parameter {n}: {d}" for n, d in doc.tparams if d]
    return _join(["\n".join(lines), "\n".join(types)])


def _throws(doc: Scaladoc, annotations: list[str]) -> str:
    """The exceptions `@throws(classOf[X])` or `@throws[X](...)` declares that no
    `@throws` tag describes."""
    said = {x.rsplit(".", 1)[-1] for x, _ in doc.throws}
    names: list[str] = []
    for a in annotations:
        if _THROWS.match(a) is None:
            continue
        found = [m.group(1) for m in _CLASS_OF.finditer(a)]
        if (t := _TYPE_ARGUMENT.match(a)) is not None:
            found.append(t.group(1))
        names += [x for x in found if x.rsplit(".", 1)[-1] not in said and x not in names]
    return f"Throws: `{', '.join(names)}`." if names else ""


def _modifiers(mods: list[str], keyword: str = "") -> str:
    """The modifiers a caller cares about (`implicit`, `protected`, `override`, `lazy`),
    and a var's `var`: `Modifiers: \\`lazy\\`.`."""
    shown = [x for x in mods if x not in _SHOWN_NOT]
    if keyword == "var":
        shown.append("var")
    return f"Modifiers: `{' '.join(shown)}`." if shown else ""


def _deprecation(doc: Scaladoc, annotations: list[str]) -> str:
    """`Deprecated: <message> (since <version>)` from `@deprecated("message",
    "version")` or the `@deprecated` tag (its text after the annotation's message where
    both say one)."""
    said = next((a for a in annotations if _DEPRECATED.match(a)), None)
    if said is None and doc.deprecated is None:
        return ""
    args = _string_args(said) if said is not None else {}
    tag = doc.deprecated or ""
    message = args.get("message") or tag
    since = f"(since {args['since']})" if args.get("since") else ""
    if not message:
        return f"Deprecated {since}." if since else "Deprecated."
    more = tag if tag and tag != message else ""
    return "Deprecated: " + " ".join(x for x in (message, since, more) if x)


def _migration(annotations: list[str]) -> list[str]:
    """`@migration("message", "2.8.0")` as Scaladoc notes it: `(Changed in version
    2.8.0) message`."""
    out = []
    for a in annotations:
        if _MIGRATION.match(a) is None:
            continue
        args = _string_args(a, ("message", "changedIn"))
        version = f"(Changed in version {args['changedIn']})" if args.get("changedIn") else ""
        if text := " ".join(x for x in (version, args.get("message", "")) if x):
            out.append(text)
    return out


def _string_args(annotation: str, names: tuple[str, str] = ("message", "since")) -> dict[str, str]:
    """An annotation's string arguments by name: the positional ones named by `names` in
    turn, a named one (`since = "2.11.0"`) by its own; a string's pieces (`"a" + "b"`)
    joined."""
    k = annotation.find("(")
    if k < 0:
        return {}
    inner = annotation[k + 1 : annotation.rfind(")") if annotation.endswith(")") else None]
    out: dict[str, str] = {}
    positional = list(names)
    for part in _split_args(inner):
        named = _ARG_NAME.match(part)
        key = named.group(1) if named is not None else positional.pop(0) if positional else ""
        pieces = _STRING_LIT.findall(part[named.end() :] if named is not None else part)
        if key and pieces:
            out[key] = _line("".join(re.sub(r"\\(.)", r"\1", x) for x in pieces))
    return out


def _split_args(inner: str) -> list[str]:
    """An argument list's arguments, split at its commas outside strings and brackets."""
    out: list[str] = []
    depth = last = k = 0
    while k < len(inner):
        ch = inner[k]
        if ch == '"':
            m = _STRING_LIT.match(inner, k)
            k = m.end() if m is not None else len(inner)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth <= 0:
            out.append(inner[last:k])
            last = k + 1
        k += 1
    out.append(inner[last:])
    return [x for x in out if x.strip()]


def _closing(doc: Scaladoc, annotations: list[str]) -> list[str]:
    notes = [*_migration(annotations), *doc.notes]
    return [
        *(f"Example:\n\n{x}" for x in doc.examples),
        *(f"Note: {x}" for x in notes),
        f"Since: {', '.join(doc.since)}" if doc.since else "",
        f"See also: {', '.join(doc.see)}" if doc.see else "",
    ]
