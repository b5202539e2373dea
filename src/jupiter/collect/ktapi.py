"""Kotlin files read as their package's API, as Dokka reads KDoc: one document per public
(or protected) class, interface, object, companion object, enum entry, typealias, function,
property and secondary constructor that has a KDoc comment (`/** */` right over its
declaration, annotations and modifiers between them allowed), and one per primary
constructor property its own KDoc or its class's `@property` (else `@param`) tag documents.
The uri is `kotlin:<package>.<Type>[.<member>]` (`kotlin:kotlinx.coroutines.Job.cancel`; a
nested type's members named through it, a companion's through it too, as Dokka names them:
`kotlin:a.Outer.Companion.create`; an extension by its own name at its level, its receiver
said in its text: `kotlin:kotlinx.coroutines.launch`; a secondary constructor
`<Type>.<Type>`), the text the form the question templates read for Python's docstrings:
`name(params)` over the description (a class's: its primary constructor's parameters as
Dokka shows them, without `val` and modifiers), the block tags as `:param x:`, `:returns:`
and `:raises X:` fields (the declared return type where no `@return` says it), a type
parameter's `@param` as `Type parameter T:`, `@Throws` exceptions no tag describes, a
property's type, a constant's value, `@Deprecated`'s message. Overloads, and a factory
function named like its type, are one document: the first documented one heads it, each
further one follows with its own signature line and its own doc.

The files are scanned, never compiled: comments (block comments nest), strings and raw
strings with their `${...}` templates, character literals and backquoted names are told
apart from code, so a brace in a string ends no block; and no semicolon is needed: a
declaration ends at its body, or at the line that does not carry it on. KDoc is Markdown
already and stays so: links `[Foo]` and `[text][Foo]` become `` `Foo` `` and text, entities
their characters, a code fence without a language is Kotlin's; a block tag's text is its
paragraph (one after it is the description's again). Kotlin's default visibility is
public; `private` and `internal` items, members of types that are not public, `protected`
members of a final class, `@suppress`ed items (Dokka's hide) with their members,
`DeprecationLevel.HIDDEN` ones and everything inside a function body, an initializer or an
accessor are left out. Tests (`test/`, `tests/`, a source set under `src/` named `...Test`:
`src/jvmTest/`, `src/androidTest/`; `*Test.kt`, `*Tests.kt`) and generated files (under
`build/generated/`, a "generated ... do not edit" comment at the top) give no document and
are counted, and so is a file with nothing documented. The same qualified name from two
files is one document, the first file's in path order (a multiplatform project's `common/`
`expect` before its platforms' `actual`).
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import ClassVar

from jupiter.collect.codescan import Comment, DocIndex, Item, blanked, brackets
from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

SUFFIXES = (".kt",)
URI_PREFIX = "kotlin:"
# reasons a Kotlin file gave no document, as the collect stage counts them
KOTLIN_TEST = "kotlin_test"
KOTLIN_GENERATED = "kotlin_generated"
KOTLIN_NO_API = "kotlin_no_api"
_AS_TEXT = (
    "Kotlin files read as their package's API (KDoc comments of public and protected "
    "items): tests, generated code and files with nothing documented give none; the "
    "source's kotlin: text reads them as text"
)
FIXES = {KOTLIN_TEST: _AS_TEXT, KOTLIN_GENERATED: _AS_TEXT, KOTLIN_NO_API: _AS_TEXT}
_TEST_NAME = re.compile(r"Tests?\.kt$")
_TEST_FOLDERS = frozenset({"test", "tests", "androidTest"})
_GENERATED_NOTE = re.compile(
    r"\bgenerated\b.{0,120}?\bdo\s+not\s+(?:edit|modify)\b"
    r"|\bdo\s+not\s+(?:edit|modify)\b.{0,120}?\bgenerated\b",
    re.I | re.S,
)
_MAX_VALUE = 80  # characters of a constant's value shown
_MAX_GENERICS = 2000  # characters a declaration's generics may run over

KotlinFile = SourceFile  # its files, as the source hands them over
# the items of a declaration, then where it ends
_Walk = Generator["_Item", None, int]


_Comment = Comment


def is_kotlin(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    """A test's source: under a test/ or tests/ folder, a multiplatform test source set
    (`src/commonTest/`, `src/jvmTest/`, `src/androidTest/`), or named like a test."""
    folders = rel.parts[:-1]
    if any(p in _TEST_FOLDERS for p in folders):
        return True
    if any(
        folders[k] == "src" and folders[k + 1].endswith("Test") for k in range(len(folders) - 1)
    ):
        return True
    return bool(_TEST_NAME.search(rel.name))


def api_documents(
    files: list[KotlinFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented public API the files declare, sorted by uri; a file
    that gives none is counted in `rejects`."""

    def read(f: KotlinFile) -> list[Document] | str:
        if is_test(f.rel):
            return KOTLIN_TEST
        scanned = scan(f.text)
        if generated(f.rel, scanned):
            return KOTLIN_GENERATED
        return list(file_documents(f, source, scanned))

    return first_documents(files, rejects, read, KOTLIN_NO_API)


_FIRST_DECLARATION = re.compile(r"[{]|\b(?:class|interface|object|fun|val|var|typealias)\b")


def generated(rel: PurePosixPath, scanned: tuple[str, str, list[_Comment]]) -> bool:
    """A generated file: under a build folder's generated/, or a "generated ... do not
    edit" comment (not a KDoc) before its first declaration."""
    folders = rel.parts[:-1]
    if any(folders[k : k + 2] == ("build", "generated") for k in range(len(folders) - 1)):
        return True
    code, _, comments = scanned
    m = _FIRST_DECLARATION.search(code)
    top = len(code) if m is None else m.start()
    return any(_GENERATED_NOTE.search(c.text) for c in comments if c.start < top and not c.doc)


# ----------------------------------------------------------------------------- scanning
_LEXEME = re.compile(r"/[/*]|[\"'`]")
_NESTING = re.compile(r"/\*|\*/")
_IN_STRING = re.compile(r"\\[^\n]|\$\{|\"|\n")
_IN_RAW_STRING = re.compile(r"\$\{|\"{3,}")
_IN_TEMPLATE = re.compile(r"[{}\"'`]|/[/*]")
_CHAR = re.compile(r"'(?:[^'\\\n]|\\.)*'?")
_BACKQUOTED = re.compile(r"`[^`\n]*`?")
_NONSPACE = re.compile(r"\S")


def scan(text: str) -> tuple[str, str, list[_Comment]]:
    """(the code with comments and literals blanked; the text with only its comments
    blanked; the comments), both texts as long as `text`, lines where they were. A
    backquoted name's inside is blanked in the code, its backquotes kept."""
    comments: list[_Comment] = []
    said: list[tuple[int, int]] = []  # comments: blanked in both
    inside: list[tuple[int, int]] = []  # literals' insides: blanked in the code only
    i = 0
    if text.startswith("#!"):  # a script's shebang line
        i = _line_end(text, 0)
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
        else:
            e = _literal_end(text, s)
            closed = tok == "`" and e > s + 1 and text[e - 1] == "`"
            inside.append((s + 1, e - 1 if closed else e))
        i = max(e, s + 1)
    return blanked(text, said + inside), blanked(text, said), comments


def _line_end(text: str, i: int) -> int:
    e = text.find("\n", i)
    return len(text) if e < 0 else e


def _comment_end(text: str, s: int) -> tuple[int, int]:
    """(past the `*/` closing the block comment at s, where its text stops): Kotlin's block
    comments nest; an unclosed one runs to the end."""
    depth = 0
    for m in _NESTING.finditer(text, s):
        depth += 1 if m.group() == "/*" else -1
        if depth == 0:
            return m.end(), m.start()
    return len(text), len(text)


def _literal_end(text: str, s: int) -> int:
    """Past the string, raw string, character or backquoted name at s (more than s)."""
    ch = text[s]
    if ch == '"':
        return _string_end(text, s)
    m = (_CHAR if ch == "'" else _BACKQUOTED).match(text, s)
    return max(m.end() if m is not None else s + 1, s + 1)


def _string_end(text: str, s: int) -> int:
    """Past the string at s: a raw `\"\"\"` one ends at its last run of three quotes or more,
    a plain one at its quote or, unclosed, at the line's end; both skip their `${...}`
    templates, whose code may hold braces and strings of its own."""
    raw = text.startswith('"""', s)
    i = s + (3 if raw else 1)
    inner = _IN_RAW_STRING if raw else _IN_STRING
    while (m := inner.search(text, i)) is not None:
        tok = m.group()
        if tok == "${":
            i = _template_end(text, m.end())
            continue
        if tok == "\n":
            return m.start()
        if tok[0] == '"':
            return m.end()
        i = m.end()  # an escape
    return len(text)


def _template_end(text: str, i: int) -> int:
    """Past the `}` closing a string template's `${` (i past it)."""
    depth = 1
    while (m := _IN_TEMPLATE.search(text, i)) is not None:
        tok, s = m.group(), m.start()
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth == 0:
                return m.end()
        elif tok == "//":
            i = _line_end(text, s)
            continue
        elif tok == "/*":
            i = _comment_end(text, s)[0]
            continue
        else:
            i = _literal_end(text, s)
            continue
        i = m.end()
    return len(text)


# ----------------------------------------------------------------------------- KDoc
@dataclass
class KDoc:
    """A KDoc comment read: its description (Markdown) and block tags, as text."""

    description: str = ""
    params: list[tuple[str, str]] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)  # @property name: text
    returns: str = ""
    throws: list[tuple[str, str]] = field(default_factory=list)
    receiver: str = ""
    constructor: str = ""
    deprecated: str | None = None
    since: list[str] = field(default_factory=list)
    see: list[str] = field(default_factory=list)
    samples: list[str] = field(default_factory=list)
    suppressed: bool = False

    def documented(self) -> bool:
        """Whether it says anything about the item (not only `@since` or `@see`)."""
        return bool(
            self.description
            or any(d for _, d in self.params)
            or any(self.properties.values())
            or self.returns
            or any(d for _, d in self.throws)
            or self.receiver
            or self.constructor
            or self.deprecated is not None
        )


# the margin's star(s): `**bold**` on a line without one is no margin
_MARGIN = re.compile(r"[ \t]*\*+(?=\s|$)|[ \t]*\*(?!\*)")
_TAG_LINE = re.compile(r"\s*@([A-Za-z]\w*)")
_FENCE = re.compile(r"\s*(`{3,}|~{3,})(.*)$")
_SUBJECT = re.compile(r"\s*(\[[^\]\n]*\]|\S+)(.*)$", re.S)
# a code span (kept), a link with its own text, a link that is a name
_LINK = re.compile(
    r"(?P<code>(?P<tick>`+)[^`\n]*(?P=tick))"
    r"|(?<![!\\])\[(?P<label>[^\[\]\n]+)\]\[(?P<ref>[^\[\]\n]+)\]"
    r"|(?<![!\\\]])\[(?P<name>(?:`[^`\n]+`|[^\W\d]\w*)(?:\.(?:`[^`\n]+`|[^\W\d]\w*))*(?:\(\))?)\]"
    r"(?![(\[]|:\s*(?:<|[a-z]+://))"  # not `[text](url)`, `[a][b]` nor `[a]: url`
    r"|(?P<entity>&(?:[A-Za-z]+|#[0-9]+|#x[0-9A-Fa-f]+);)"
)


def kdoc(body: str) -> KDoc:
    """A KDoc comment's text (without its `/**` and `*/`) read."""
    lines = []
    for line in body.split("\n"):
        m = _MARGIN.match(line)
        lines.append(line[m.end() :] if m is not None else line)
    lines = [lines[0].strip(), *textwrap.dedent("\n".join(lines[1:])).split("\n")]
    main: list[str] = []
    tags: list[tuple[str, list[str]]] = []
    into = main
    fence = ""
    for line in lines:
        f = _FENCE.match(line)
        if fence:
            if f is not None and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence):
                fence = "" if not f.group(2).strip() else fence
        elif f is not None:
            fence = f.group(1)
        elif (t := _TAG_LINE.match(line)) is not None:
            tags.append((t.group(1), [line[t.end() :]]))
            into = tags[-1][1]
            continue
        elif into is not main and not line.strip():
            into = main  # a paragraph after a tag's is the description's again
        into.append(line)
    doc = KDoc(description=markdown("\n".join(main)))
    for name, text_lines in tags:
        _block_tag(doc, name, "\n".join(text_lines))
    return doc


def _block_tag(doc: KDoc, name: str, text: str) -> None:
    subject, rest = _subject(text)
    said = _line(markdown(rest))
    if name == "param" and subject:
        doc.params.append((subject, said))
    elif name == "property" and subject:
        doc.properties[subject] = said
    elif name in ("throws", "exception") and subject:
        doc.throws.append((subject, said))
    elif name in ("return", "returns"):
        doc.returns = doc.returns or _line(markdown(text))
    elif name == "receiver":
        doc.receiver = _line(markdown(text))
    elif name == "constructor":
        doc.constructor = _line(markdown(text))
    elif name == "deprecated":
        doc.deprecated = _line(markdown(text))
    elif name == "since":
        if since := _line(markdown(text)):
            doc.since.append(since)
    elif name == "see" and subject:
        doc.see.append(" ".join(x for x in (_tick(subject), said) if x))
    elif name == "sample" and subject:
        doc.samples.append(_tick(subject))
    elif name == "suppress":
        doc.suppressed = True
    # @author, and tags Dokka does not know: left out


def _subject(text: str) -> tuple[str, str]:
    """A tag's subject (`x`, `[x]`, `` `x` ``: the name) and the text after it."""
    m = _SUBJECT.match(text)
    if m is None:
        return "", ""
    return m.group(1).strip("[]").strip("`"), m.group(2)


def markdown(text: str) -> str:
    """KDoc's Markdown as the text shows it: links as their text or `` `name` ``, HTML
    entities as their characters (not in code), a code fence without a language Kotlin's,
    runs of blank lines one."""
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        f = _FENCE.match(line)
        if fence:
            if f is not None and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence):
                fence = "" if not f.group(2).strip() else fence
            out.append(line.rstrip())
        elif f is not None:
            fence = f.group(1)
            out.append(line.rstrip() + ("" if f.group(2).strip() else "kotlin"))
        else:
            out.append(_LINK.sub(_link, line).rstrip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


def _link(m: re.Match[str]) -> str:
    if m.group("code") is not None:
        return m.group()
    if m.group("label") is not None:
        return m.group("label")
    if m.group("entity") is not None:  # HTML's `&mdash;`, as Markdown shows it
        return html.unescape(m.group())
    return _tick(m.group("name").replace("`", ""))


def _line(text: str) -> str:
    return " ".join(text.split())


def _tick(code: str) -> str:
    return f"`` {code} ``" if "`" in code else f"`{code}`"


# ----------------------------------------------------------------------------- items
_MODIFIERS = frozenset(
    "public protected private internal abstract final open sealed data enum annotation "
    "inner value inline companion override lateinit const suspend tailrec operator infix "
    "external expect actual".split()
)
_SHOWN_NOT = frozenset({"public", "expect", "actual"})  # modifiers the text leaves out
_PARAM_MODIFIERS = frozenset({"vararg", "noinline", "crossinline"})
_WORD = re.compile(r"[^\W\d]\w*")
_IDENT = re.compile(r"`[^`\n]*`|[^\W\d]\w*")
_LAST_IDENT = re.compile(r"(`[^`\n]*`|[^\W\d]\w*)\s*$")
_ANNOTATION = re.compile(
    r"@(?:[^\W\d]\w*\s*:\s*)?(?:\[|[^\W\d]\w*(?:\s*\.\s*[^\W\d]\w*)*)"
)  # @Foo, @a.b.Foo, @get:JvmName, @[A B]
_PACKAGE = re.compile(r"^[ \t]*package[ \t]+([^\n;]*)", re.M)
_HEAD_STOP = re.compile(r"[(\[<{=;}\n]")
_NAME_STOP = re.compile(r"[(\[<{=;}\n:]|\bby\b")
_TYPE_STOP = re.compile(r"[(\[<{=;}\n]|\b(?:by|get|set)\b")
_STATEMENT = re.compile(r"[(\[{\n;}]")
_CARRIED_BY = re.compile(r"(?:where|by)\b")  # a next line that carries a declaration on
_WHERE = re.compile(r"\bwhere\b")
_DEPRECATED = re.compile(r"@(?:kotlin\s*\.\s*)?Deprecated\b")
_THROWS = re.compile(r"@(?:kotlin\s*\.\s*(?:jvm\s*\.\s*)?)?Throws\b")
_CLASS_LITERAL = re.compile(r"([^\W\d][\w.]*)\s*::\s*class\b")
_HIDDEN = re.compile(r"\blevel\s*=\s*(?:DeprecationLevel\s*\.\s*)?HIDDEN\b")
_ERROR = re.compile(r"\blevel\s*=\s*(?:DeprecationLevel\s*\.\s*)?ERROR\b")
_STRING_LIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_REPLACE_WITH = re.compile(r'ReplaceWith\s*\(\s*(?:expression\s*=\s*)?"((?:[^"\\\n]|\\.)*)"')
_MESSAGE = re.compile(r"\bmessage\s*=\s*")
_TYPE_KINDS = {
    "class": "class",
    "interface": "interface",
    "fun interface": "interface",
    "object": "object",
}
# words an enum entry is not: the members after the entries start with them
_KEYWORDS = (
    frozenset("fun val var class interface object constructor init typealias companion".split())
    | _MODIFIERS
)


@dataclass
class _Owner:
    qual: str  # the package, or the type's qualified name
    name: str = ""  # the type's simple name ("" for a file's top level)
    kind: str = "file"  # file, class, interface, object, enum or annotation
    open: bool = False  # open, abstract or sealed: its protected members are API
    props: dict[str, str] = field(default_factory=dict)  # its KDoc's @property texts

    def visible(self, mods: list[str]) -> bool:
        if "private" in mods or "internal" in mods:
            return False
        return self.open if "protected" in mods else True


_Item = Item


@dataclass
class _Prefix:
    annotations: list[str]
    mods: list[str]
    at: int  # where its first modifier or keyword stands
    end: int  # past it


@dataclass
class _Param:
    name: str
    shown: str  # as a signature shows it: annotations, `val` and its modifiers out
    type: str
    mods: list[str]  # a constructor property's: `val` or `var` last
    at: int  # where it stands
    doc: _Comment | None  # its own KDoc (a constructor property's)


@dataclass
class _File(DocIndex):
    """A scanned file with its KDoc comments indexed (the Scala reader's too: its
    `language` and uri `prefix` set)."""

    language: ClassVar[str] = "kotlin"
    prefix: ClassVar[str] = URI_PREFIX
    f: KotlinFile
    source: str
    code: str
    bare: str
    comments: list[_Comment]
    docs: list[_Comment] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # the KDoc comments' starts
    newlines: list[int] = field(default_factory=list)
    match: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.docs = [c for c in self.comments if c.doc]
        self.starts = [c.start for c in self.docs]
        self.newlines = [m.start() for m in re.finditer("\n", self.f.text)]
        self.match = brackets(self.code)

    def said(self, a: int, b: int) -> str:
        """The source between a and b on one line, comments out (literals kept)."""
        return _line(self.bare[a:b])

    def name(self, m: re.Match[str]) -> str:
        """The name an identifier match of the code stands for, backquotes off."""
        return self.bare[m.start() : m.end()].strip("`")

    def document(self, item: _Item, more: list[_Item]) -> Document:
        text = f"{item.head}\n\n{item.body}" if item.body else item.head
        for other in more:  # overloads: each with its own signature line and doc
            text += f"\n\n{other.head}\n\n{other.body}" if other.body else f"\n\n{other.head}"
        return api_document(
            self.source,
            self.prefix,
            self.f,
            item.qual,
            text.strip(),
            item.kind,
            item.signature,
            self.line(item.at),
            language=self.language,
        )


def file_documents(
    f: KotlinFile, source: str, scanned: tuple[str, str, list[_Comment]] | None = None
) -> Iterator[Document]:
    """The documents of one file, in the order its items stand (`scanned` its scan when
    done already); items of one name (overloads) are one document, where the first
    stands."""
    code, bare, comments = scanned or scan(f.text)
    g = _File(f, source, code, bare, comments)
    pm = _PACKAGE.search(code)
    package = ""
    if pm is not None:
        package = "".join(bare[pm.start(1) : pm.end(1)].split()).replace("`", "")
    groups: dict[str, list[_Item]] = {}
    for item in _members(g, 0, len(code), _Owner(package)):
        groups.setdefault(item.qual, []).append(item)
    for group in groups.values():
        yield g.document(group[0], group[1:])


def _members(g: _File, start: int, end: int, owner: _Owner) -> Iterator[_Item]:
    """The documented visible items between start and end (a file, a type's body)."""
    code = g.code
    j, region = start, start
    if owner.kind == "enum":
        j = yield from _entries(g, start, end, owner)
        region = j
    while True:
        j = g.skip(j, end)
        if j >= end:
            return
        if code[j] in ";,)]}":
            j = region = j + 1
            continue
        if code[j] == "{":  # a stray block
            j = region = max(g.close(j, end), j + 1)
            continue
        p = _prefix(g, j, end)
        w = _WORD.match(code, p.end, end)
        word = w.group() if w is not None else ""
        new_j = -1
        if word in ("package", "import") and owner.kind == "file":
            new_j = _statement_end(g, p.end, end)
        elif word in ("class", "interface", "object") or (
            word == "fun" and re.match(r"fun\s+interface\b", code[p.end : p.end + 40])
        ):
            new_j = yield from _type(g, p, region, end, owner)
        elif word == "fun":
            new_j = yield from _function(g, p, region, end, owner)
        elif word in ("val", "var"):
            new_j = yield from _property(g, p, region, end, owner)
        elif word == "typealias":
            new_j = yield from _typealias(g, p, region, end, owner)
        elif word == "constructor" and owner.kind in ("class", "enum", "annotation"):
            new_j = yield from _constructor(g, p, region, end, owner)
        if new_j < 0:  # no declaration: an init block, a getter, an initializer's line
            new_j = _statement_end(g, j, end)
        j = region = max(new_j, j + 1)


def _prefix(g: _File, j: int, end: int) -> _Prefix:
    """The annotations and modifiers at j (a modifier followed on its own line by more of
    the declaration: a word alone on a line is no modifier)."""
    code = g.code
    annotations: list[str] = []
    mods: list[str] = []
    at = -1
    while True:
        j = g.skip(j, end)
        if j >= end:
            break
        if code[j] == "@":
            m = _ANNOTATION.match(code, j, end)
            if m is None:
                break
            stop = m.end()
            if code[stop - 1] == "[":
                stop = g.close(stop - 1, end)
            else:
                k = stop
                while k < end and code[k] in " \t":
                    k += 1
                if code[k : k + 1] == "(":
                    stop = g.close(k, end)
            annotations.append(g.said(j, stop))
            j = stop
            continue
        w = _WORD.match(code, j, end)
        if w is not None and w.group() == "context" and code[w.end() : w.end() + 1] == "(":
            j = g.close(w.end(), end)  # context receivers
            continue
        if w is None or w.group() not in _MODIFIERS:
            break
        n = _NONSPACE.search(code, w.end(), end)
        if n is None or "\n" in code[w.end() : n.start()]:
            break
        at = j if at < 0 else at
        mods.append(w.group())
        j = w.end()
    return _Prefix(annotations, mods, j if at < 0 else at, j)


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


def _angle(g: _File, k: int, end: int) -> int:
    """Past the `>` closing the generics' `<` at k (an arrow's `>` closes none); -1 when
    none does before a brace, `=` or `;` (a comparison), or within _MAX_GENERICS
    characters (stray text, read in linear time)."""
    code = g.code
    depth = 0
    j = k
    end = min(end, k + _MAX_GENERICS)
    while j < end:
        ch = code[j]
        if ch == "<":
            depth += 1
        elif ch == ">" and code[j - 1] != "-":
            depth -= 1
            if depth == 0:
                return j + 1
        elif ch in "([":
            j = max(g.close(j, end), j + 1)
            continue
        elif ch in "{};=)]":
            return -1
        j += 1
    return -1


def _continues(code: str, nl: int, start: int, end: int) -> bool:
    """Whether the declaration that starts at `start` goes on past the line break at
    `nl`: its line ends with a comma, a colon, an arrow or an open generic, or the next
    line opens with `:`, `,`, `{`, `=`, `where` or `by`."""
    k = nl - 1
    while k >= start and code[k] in " \t\r":
        k -= 1
    if k >= start and (code[k] in ",:.<(&|" or code[k - 1 : k + 1] == "->"):
        return True
    m = _NONSPACE.search(code, nl, end)
    if m is None:
        return False
    return code[m.start()] in ":,{=" or _CARRIED_BY.match(code, m.start()) is not None


def _head_end(g: _File, k: int, end: int, stop: re.Pattern[str] = _HEAD_STOP) -> tuple[int, str]:
    """Where a declaration's head that goes on at k ends: (the position, `{` for a body,
    `=` for an initializer or an expression body, a stop word, or "" where the
    declaration ends there), brackets and generics skipped."""
    code = g.code
    start = k
    while (m := stop.search(code, k, end)) is not None:
        s = m.start()
        tok = m.group()
        if tok in ("(", "["):
            k = max(g.close(s, end), s + 1)
        elif tok == "<":
            e = _angle(g, s, end)
            k = e if e > 0 else s + 1
        elif tok == "\n":
            if not _continues(code, s, start, end):
                return s, ""
            k = s + 1
        elif tok in (";", "}"):
            return s, ""
        else:
            return s, tok
    return end, ""


def _type(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A class, interface, object or companion object, and its members; returns where it
    ends (-1: no declaration, an object expression)."""
    code = g.code
    k = p.end
    kw = _WORD.match(code, k, end)
    assert kw is not None
    k = kw.end()
    word = kw.group()
    if word == "fun":  # a fun interface
        iface = _WORD.match(code, g.skip(k, end), end)
        assert iface is not None
        k, word = iface.end(), "fun interface"
    j = g.skip(k, end)
    nm = _IDENT.match(code, j, end)
    companion = "companion" in p.mods and word == "object"
    if nm is None and not companion:
        return -1
    name = g.name(nm) if nm is not None else "Companion"
    k = nm.end() if nm is not None else k
    tparams = ""
    t = g.skip(k, end)
    if code[t : t + 1] == "<" and (e := _angle(g, t, end)) > 0:
        tparams, k = g.said(t, e), e
    ctor_mods, params, k = _primary_constructor(g, k, end)
    if params is not None and word != "class":
        return -1
    stop, tok = _head_end(g, k, end)
    close = g.close(stop, end) if tok == "{" else stop
    kind = next((x for x in p.mods if x in ("enum", "annotation")), _TYPE_KINDS[word])
    qual = f"{owner.qual}.{name}" if owner.qual else name
    if not owner.visible(p.mods) or any(_HIDDEN.search(a) for a in p.annotations):
        return close
    c_doc = g.doc_before(region, p.at)
    doc = kdoc(c_doc.text) if c_doc is not None else KDoc()
    if doc.suppressed:
        return close
    is_open = bool({"open", "abstract", "sealed"} & set(p.mods))
    inner = _Owner(qual, name, kind, is_open, doc.properties)
    ctor_shown = (
        params is not None
        and kind not in ("enum",)
        and inner.visible(ctor_mods or (["protected"] if "sealed" in p.mods else []))
    )
    if c_doc is not None and doc.documented():
        supers = g.said(k, stop)
        mods = [x for x in p.mods if x not in ("expect", "actual")]
        said = [*mods, word, name] if nm is not None else [*mods, word]
        ctor = [*ctor_mods, "constructor"] if ctor_mods else []
        decl = " ".join(said) + tparams + "".join(f" {x}" for x in [*ctor, supers] if x)
        yield _class_item(doc, p, qual, kind, decl, tparams, params if ctor_shown else None)
    for x in params or []:
        yield from _constructor_property(doc, inner, x)
    if tok == "{":
        yield from _members(g, stop + 1, max(stop + 1, close - 1), inner)
    return close


def _primary_constructor(g: _File, k: int, end: int) -> tuple[list[str], list[_Param] | None, int]:
    """A class's primary constructor at k: (its modifiers, its parameters, None where it
    has no parameter list, and where it ends; k where there is none)."""
    c = g.skip(k, end)
    p = _prefix(g, c, end)
    w = _WORD.match(g.code, p.end, end)
    mods: list[str] = []
    if w is not None and w.group() == "constructor":
        mods, c, k = p.mods, g.skip(w.end(), end), w.end()
    if g.code[c : c + 1] != "(":
        return mods, None, k
    close = g.close(c, end)
    return mods, _params(g, c + 1, max(c + 1, close - 1)), close


def _class_item(
    doc: KDoc,
    p: _Prefix,
    qual: str,
    kind: str,
    decl: str,
    tparams: str,
    params: list[_Param] | None,
) -> _Item:
    """A type's item: headed by its primary constructor's parameters (`params`, None
    where it has none a caller sees), each described by its `@param` tag, or else by its
    `@property` tag or its own KDoc."""
    described = {n for n, _ in doc.params}
    more = [
        (x.name, _line(_property_text(doc, x))) for x in params or [] if x.name not in described
    ]
    body = _join(
        [
            doc.description,
            f"Constructor: {doc.constructor}" if doc.constructor else "",
            _deprecation(doc, p.annotations),
            _fields(doc, "", _tparam_names(tparams), more),
            f"Declaration: `{decl}`",
            *_closing(doc),
        ]
    )
    if params is None:
        return _Item(qual, kind, qual, "", body, p.at)
    shown = ", ".join(x.shown for x in params)
    return _Item(qual, kind, f"{qual}({shown})", f"({shown})", body, p.at)


def _property_text(doc: KDoc, x: _Param) -> str:
    """What documents a primary constructor's parameter: its own KDoc's description, else
    its class's `@property` tag, else its `@param` tag ("" where it is `@suppress`ed)."""
    own = kdoc(x.doc.text) if x.doc is not None else KDoc()
    if own.suppressed:
        return ""
    if own.description:
        return own.description
    return doc.properties.get(x.name) or next((d for n, d in doc.params if n == x.name), "")


def _constructor_property(doc: KDoc, owner: _Owner, x: _Param) -> Iterator[_Item]:
    """A primary constructor's public `val` or `var`, documented by its own KDoc or its
    class's `@property` tag (or, where none names it, its `@param` tag)."""
    if not x.mods or x.mods[-1] not in ("val", "var") or not owner.visible(x.mods):
        return
    text = _property_text(doc, x)
    if not text:
        return
    qual = f"{owner.qual}.{x.name}"
    body = _join([text, f"Type: `{x.type}`" if x.type else "", _modifiers(x.mods[:-1], x.mods[-1])])
    yield _Item(qual, "property", qual, "", body, x.at)


def _params(g: _File, a: int, b: int) -> list[_Param]:
    """A parameter list's parameters (the code between a and b)."""
    out: list[_Param] = []
    for s, e in _split_params(g.code[a:b]):
        code, bare = _no_annotations(g.code[a + s : a + e], g.bare[a + s : a + e])
        mods: list[str] = []
        k = _past_space(code, 0)
        while (w := _WORD.match(code, k)) is not None and (
            w.group() in _MODIFIERS or w.group() in _PARAM_MODIFIERS or w.group() in ("val", "var")
        ):
            nxt = _NONSPACE.search(code, w.end())
            if nxt is None or code[nxt.start()] in ":=,":
                break  # a parameter named like a modifier
            mods.append(w.group())
            k = nxt.start()
        nm = _IDENT.match(code, k)
        if nm is None:
            continue
        name = bare[nm.start() : nm.end()].strip("`")
        rest = code[nm.end() :]
        eq = rest.find("=")
        typ = default = ""
        colon = rest.find(":")
        if 0 <= colon and (eq < 0 or colon < eq):
            typ = _line(bare[nm.end() + colon + 1 : nm.end() + eq if eq >= 0 else None])
        if eq >= 0:
            default = _line(bare[nm.end() + eq + 1 :])
        keep = [x for x in mods if x in _PARAM_MODIFIERS]
        shown = " ".join([*keep, bare[nm.start() : nm.end()]])
        shown += f": {typ}" if typ else ""
        shown += f" = {default}" if default else ""
        props = [x for x in mods if x not in _PARAM_MODIFIERS]
        if props and props[-1] not in ("val", "var"):
            props = []
        at = _past_space(g.code, a + s)
        out.append(_Param(name, shown, typ, props, at, g.doc_before(a + s, a + e)))
    return out


def _split_params(code: str) -> list[tuple[int, int]]:
    """The spans of a parameter list's parameters: split at the commas outside brackets
    and, in a type (before a default's `=`), outside generics."""
    out: list[tuple[int, int]] = []
    depth = angles = last = 0
    typed = True
    for k, ch in enumerate(code):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth or not typed:
            if ch == "," and depth <= 0:
                out.append((last, k))
                last, typed, angles = k + 1, True, 0
        elif ch == "<":
            angles += 1
        elif ch == ">" and code[k - 1 : k] != "-":
            angles = max(0, angles - 1)
        elif ch == "=":
            typed = False
        elif ch == "," and angles == 0:
            out.append((last, k))
            last = k + 1
    out.append((last, len(code)))
    return [(s, e) for s, e in out if code[s:e].strip()]


def _no_annotations(code: str, bare: str) -> tuple[str, str]:
    """A parameter's code and text without its annotations (`@BuilderInference`)."""
    spans: list[tuple[int, int]] = []
    k = 0
    while (m := _ANNOTATION.search(code, k)) is not None:
        stop = m.end()
        if code[stop - 1] == "[" or code[stop : stop + 1] == "(":
            open_at = stop - 1 if code[stop - 1] == "[" else stop
            depth = 0
            for j in range(open_at, len(code)):
                depth += 1 if code[j] in "([" else -1 if code[j] in ")]" else 0
                if depth == 0:
                    stop = j + 1
                    break
            else:
                stop = len(code)
        spans.append((m.start(), stop))
        k = max(stop, m.start() + 1)
    for s, e in reversed(spans):
        code, bare = code[:s] + code[e:], bare[:s] + bare[e:]
    return code, bare


def _tparam_names(tparams: str) -> set[str]:
    """The names of `<reified T : Any, in R>`'s type parameters."""
    names = set()
    for part in tparams.strip("<>").split(","):
        words = [w for w in _WORD.findall(re.sub(r"@\S+", " ", part.split(":")[0]))]
        words = [w for w in words if w not in ("reified", "in", "out")]
        if words:
            names.add(words[0])
    return names


def _function(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A function (a member, a top-level one, an extension); returns where it ends, or
    where its expression body starts."""
    code = g.code
    kw = _WORD.match(code, p.end, end)
    assert kw is not None
    k = g.skip(kw.end(), end)
    tparams = ""
    if code[k : k + 1] == "<" and (e := _angle(g, k, end)) > 0:
        tparams, k = g.said(k, e), g.skip(e, end)
    head_at = k
    paren = -1
    while k < end:
        ch = code[k]
        if ch == "<":
            e = _angle(g, k, end)
            if e < 0:
                return -1
            k = e
        elif ch == "(":
            before = code[head_at:k].rstrip()
            if before and (before[-1] == "`" or before[-1].isalnum() or before[-1] == "_"):
                paren = k
                break
            k = max(g.close(k, end), k + 1)  # a receiver's parentheses
        elif ch in "{}=;\n":
            return -1
        else:
            k += 1
    if paren < 0:
        return -1
    head = g.bare[head_at:paren].rstrip()
    nm = _LAST_IDENT.search(head)
    if nm is None:
        return -1
    name = nm.group(1).strip("`")
    receiver = _line(head[: nm.start()]).removesuffix(".").strip()
    close = g.close(paren, end)
    stop, tok = _head_end(g, close, end)
    after = g.close(stop, end) if tok == "{" else stop + 1 if tok == "=" else stop
    if not owner.visible(p.mods) or any(_HIDDEN.search(a) for a in p.annotations):
        return after
    c = g.doc_before(region, p.at)
    if c is None:
        return after
    doc = kdoc(c.text)
    if not doc.documented() or doc.suppressed:
        return after
    tail = g.bare[close:stop]
    wm = _WHERE.search(g.code, close, stop)
    if wm is not None:
        tail = g.bare[close : wm.start()]
    returns = _line(tail).removeprefix(":").strip()
    params = _params(g, paren + 1, max(paren + 1, close - 1))
    shown = ", ".join(x.shown for x in params)
    qual = f"{owner.qual}.{name}" if owner.qual else name
    body = _join(
        [
            doc.description,
            _deprecation(doc, p.annotations),
            _fields(doc, returns, _tparam_names(tparams)),
            f"Receiver: {doc.receiver}" if doc.receiver else "",
            f"Extension on {_tick(receiver)}." if receiver else "",
            f"Type parameters: `{tparams}`." if tparams else "",
            _throws(doc, p.annotations),
            _modifiers(p.mods),
            *_closing(doc),
        ]
    )
    yield _Item(qual, "function", f"{qual}({shown})", f"({shown})", body, p.at)
    return after


def _property(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A property (`val`, `var`, an extension's, a constant); returns where its
    initializer, delegate or accessors start."""
    code = g.code
    kw = _WORD.match(code, p.end, end)
    assert kw is not None
    k = g.skip(kw.end(), end)
    tparams = ""
    if code[k : k + 1] == "<" and (e := _angle(g, k, end)) > 0:
        tparams, k = g.said(k, e), g.skip(e, end)
    if code[k : k + 1] == "(":  # destructuring: no property of an API
        return -1
    stop, tok = _head_end(g, k, end, _NAME_STOP)
    head = g.bare[k:stop].rstrip()
    nm = _LAST_IDENT.search(head)
    if nm is None or not nm.group(1).strip("`"):
        return -1
    name = nm.group(1).strip("`")
    receiver = _line(head[: nm.start()]).removesuffix(".").strip()
    typ = ""
    if tok == ":":
        t_stop, tok = _head_end(g, stop + 1, end, _TYPE_STOP)
        typ = g.said(stop + 1, t_stop)
        stop = t_stop
    value = ""
    if tok == "=":
        at = g.skip(stop + 1, end)  # a value may start on the next line
        value = g.said(at, _statement_end(g, at, end))
    after = stop + (1 if tok == "=" else 0)
    if not owner.visible(p.mods) or any(_HIDDEN.search(a) for a in p.annotations):
        return after
    c = g.doc_before(region, p.at)
    doc = kdoc(c.text) if c is not None else KDoc()
    if c is None and name in owner.props and not receiver:
        doc = KDoc(description=owner.props[name])  # the class's @property tag
    if not doc.documented() or doc.suppressed:
        return after
    constant = "const" in p.mods
    shown_value = value if constant and value and len(value) <= _MAX_VALUE else ""
    qual = f"{owner.qual}.{name}" if owner.qual else name
    body = _join(
        [
            doc.description,
            _deprecation(doc, p.annotations),
            _fields(doc, "", _tparam_names(tparams)),
            f"Receiver: {doc.receiver}" if doc.receiver else "",
            f"Extension on {_tick(receiver)}." if receiver else "",
            f"Type: `{typ}`" if typ else "",
            f"Value: `{shown_value}`" if shown_value else "",
            _modifiers([x for x in p.mods if x != "const"], kw.group()),
            *_closing(doc),
        ]
    )
    yield _Item(qual, "constant" if constant else "property", qual, "", body, p.at)
    return after


def _typealias(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    code = g.code
    kw = _WORD.match(code, p.end, end)
    assert kw is not None
    nm = _IDENT.match(code, g.skip(kw.end(), end), end)
    if nm is None:
        return -1
    stop, tok = _head_end(g, nm.end(), end)
    if tok == "=":
        stop, _ = _head_end(g, stop + 1, end)
    if not owner.visible(p.mods):
        return stop
    c = g.doc_before(region, p.at)
    doc = kdoc(c.text) if c is not None else KDoc()
    if c is None or not doc.documented() or doc.suppressed:
        return stop
    name = g.name(nm)
    qual = f"{owner.qual}.{name}" if owner.qual else name
    mods = [x for x in p.mods if x not in ("expect", "actual")]
    decl = " ".join([*mods, "typealias", g.said(nm.start(), stop)])
    body = _join(
        [
            doc.description,
            _deprecation(doc, p.annotations),
            _fields(doc, "", _tparam_names(g.said(nm.end(), stop).partition("=")[0])),
            f"Declaration: `{decl}`",
            *_closing(doc),
        ]
    )
    yield _Item(qual, "typealias", qual, "", body, p.at)
    return stop


def _constructor(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A secondary constructor, named `<Type>.<Type>` (an enum's are private)."""
    code = g.code
    kw = _WORD.match(code, p.end, end)
    assert kw is not None
    paren = g.skip(kw.end(), end)
    if code[paren : paren + 1] != "(":
        return -1
    close = g.close(paren, end)
    stop, tok = _head_end(g, close, end)
    after = g.close(stop, end) if tok == "{" else stop
    if owner.kind == "enum" or not owner.visible(p.mods):
        return after
    c = g.doc_before(region, p.at)
    doc = kdoc(c.text) if c is not None else KDoc()
    if c is None or not doc.documented() or doc.suppressed:
        return after
    if any(_HIDDEN.search(a) for a in p.annotations):
        return after
    shown = ", ".join(x.shown for x in _params(g, paren + 1, max(paren + 1, close - 1)))
    qual = f"{owner.qual}.{owner.name}"
    body = _join(
        [
            doc.description,
            _deprecation(doc, p.annotations),
            _fields(doc, "", set()),
            _throws(doc, p.annotations),
            _modifiers(p.mods),
            *_closing(doc),
        ]
    )
    yield _Item(qual, "constructor", f"{qual}({shown})", f"({shown})", body, p.at)
    return after


def _entries(g: _File, start: int, end: int, owner: _Owner) -> _Walk:
    """An enum's entries, each with its KDoc; returns where its other members start."""
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
        if m is None or p.mods or m.group() in _KEYWORDS:
            return j
        k = g.skip(m.end(), end)
        if code[k : k + 1] == "(":
            k = g.skip(g.close(k, end), end)
        if code[k : k + 1] == "{":
            k = g.skip(g.close(k, end), end)
        if k < end and code[k] not in ",;":
            return j  # not an entry: the members start here
        c = g.doc_before(region, p.at)
        doc = kdoc(c.text) if c is not None else KDoc()
        if c is not None and doc.documented() and not doc.suppressed:
            qual = f"{owner.qual}.{g.name(m)}"
            body = _join([doc.description, _deprecation(doc, p.annotations), *_closing(doc)])
            yield _Item(qual, "enum_entry", qual, "", body, p.at)
        if k >= end:
            return end
        if code[k] == ";":
            return k + 1
        j = region = k + 1


# ----------------------------------------------------------------------------- text
def _join(parts: list[str]) -> str:
    return "\n\n".join(p for p in parts if p)


def _fields(
    doc: KDoc, returns: str, tparams: set[str], props: list[tuple[str, str]] | None = None
) -> str:
    """The block tags as docstring fields: `:param x:`, `:returns:`, `:raises X:`, then
    the type parameters' `@param` tags as lines of their own."""
    lines = [f":param {n}: {d}" for n, d in [*doc.params, *(props or [])] if d and n not in tparams]
    if doc.returns:
        lines.append(f":returns: {doc.returns}")
    elif returns and returns not in ("Unit", "kotlin.Unit"):
        lines.append(f":returns: {_tick(returns)}")
    lines += [f":raises {x}: {d}".rstrip() for x, d in doc.throws]
    types = [f"Type parameter {n}: {d}" for n, d in doc.params if d and n in tparams]
    return _join(["\n".join(lines), "\n".join(types)])


def _throws(doc: KDoc, annotations: list[str]) -> str:
    """The exceptions `@Throws(X::class)` declares that no `@throws` tag describes, as
    Java's reader says a `throws` clause's."""
    said = {x.rsplit(".", 1)[-1] for x, _ in doc.throws}
    names = [
        m.group(1)
        for a in annotations
        if _THROWS.match(a)
        for m in _CLASS_LITERAL.finditer(a)
        if m.group(1).rsplit(".", 1)[-1] not in said
    ]
    return f"Throws: `{', '.join(names)}`." if names else ""


def _modifiers(mods: list[str], keyword: str = "") -> str:
    """The modifiers a caller cares about (`suspend`, `protected`, `override`), and a
    property's `var`: `Modifiers: \\`lateinit var\\`.`."""
    shown = [x for x in mods if x not in _SHOWN_NOT]
    if keyword == "var":
        shown.append("var")
    return f"Modifiers: `{' '.join(shown)}`." if shown else ""


def _deprecation(doc: KDoc, annotations: list[str]) -> str:
    """`Deprecated: <message>` from `@Deprecated(...)` (its level when an error, what to
    use instead) or the `@deprecated` tag."""
    said = next((a for a in annotations if _DEPRECATED.match(a)), None)
    if said is None and doc.deprecated is None:
        return ""
    message = _message(said) if said is not None else ""
    text = message or doc.deprecated or ""
    label = "Deprecated (error)" if said is not None and _ERROR.search(said) else "Deprecated"
    replace = _REPLACE_WITH.search(said) if said is not None else None
    if replace is not None and replace.group(1).strip():
        said = f"{text}." if text and not text.endswith((".", "!", "?")) else text
        text = f"{said} Replace with {_tick(_unescape(replace.group(1)))}.".strip()
    return f"{label}: {text}" if text else f"{label}."


def _message(annotation: str) -> str:
    """`@Deprecated`'s message: its `message =` argument, or its first one when a string,
    its pieces (`"a" + "b"`) joined."""
    k = annotation.find("(")
    if k < 0:
        return ""
    named = _MESSAGE.search(annotation, k)
    at = named.end() if named is not None else _past_space(annotation, k + 1)
    pieces: list[str] = []
    while (m := _STRING_LIT.match(annotation, at)) is not None:
        pieces.append(_unescape(m.group(1)))
        plus = re.match(r"\s*\+\s*", annotation[m.end() :])
        if plus is None:
            break
        at = m.end() + plus.end()
    return _line("".join(pieces))


def _past_space(text: str, k: int) -> int:
    """Past the space at k in `text`."""
    m = _NONSPACE.search(text, k)
    return len(text) if m is None else m.start()


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def _closing(doc: KDoc) -> list[str]:
    return [
        f"Since: {', '.join(doc.since)}" if doc.since else "",
        f"See also: {', '.join(doc.see)}" if doc.see else "",
        f"Sample: {', '.join(doc.samples)}" if doc.samples else "",
    ]
