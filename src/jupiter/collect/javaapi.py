"""Java files read as their package's API, as javadoc reads it: one document per public (or
protected) class, interface, enum, record and annotation type, and per public or protected
method, constructor, field and enum constant, that has a javadoc comment (`/** */` right
over its declaration, annotations between them allowed), and one per package from its
`package-info.java`. The uri is `java:<package>.<Type>[.<member>]`
(`java:java.util.ArrayList.add`, a nested type's members named through it:
`java:java.util.Map.Entry.getKey`; a constructor `<Type>.<Type>`), the text the form the
question templates read for Python's docstrings: `name(params)` over the description,
the block tags as `:param x:`, `:returns:` and `:raises X:` fields, a field's type and a
constant's value. Overloads are one document: the first documented one's signature heads
it, each further one follows with its own signature line and its own doc.

The files are scanned, never compiled: comments, strings, text blocks and character
literals are told apart from code, so a brace in a string ends no block. Javadoc's HTML and
inline tags become text and Markdown (`{@code x}` and `<code>x</code>` as `` `x` ``, `<pre>`
examples as fenced blocks, lists as items, entities decoded, links as their label or
`Type.member`). Interface members are public without the keyword; package-private and
private items, `@hidden` ones and everything inside a method body (local and anonymous
classes) are left out, and so is an item whose javadoc is only `{@inheritDoc}`. Tests
(`src/test/`, `test/`, `tests/`, `*Test.java`, `*Tests.java`, `*IT.java`) and generated
files (`@Generated`, a "generated ... do not edit" comment at the top) give no document and
are counted, and so is a file with nothing documented (`module-info.java` too). The same
qualified name from two files is one document, the first file's in path order.
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.codescan import Comment, DocIndex, Item, brackets
from jupiter.collect.result import CollectResult, SourceFile, first_documents
from jupiter.records import Document

SUFFIXES = (".java",)
URI_PREFIX = "java:"
# reasons a Java file gave no document, as the collect stage counts them
JAVA_TEST = "java_test"
JAVA_GENERATED = "java_generated"
JAVA_NO_API = "java_no_api"
_AS_TEXT = (
    "Java files read as their package's API (javadoc comments of public and protected "
    "items): tests, generated code and files with nothing documented give none; the "
    "source's java: text reads them as text"
)
FIXES = {JAVA_TEST: _AS_TEXT, JAVA_GENERATED: _AS_TEXT, JAVA_NO_API: _AS_TEXT}
_TEST_NAME = re.compile(r"(?:Tests?|[a-z0-9]IT)\.java$")
_GENERATED_NOTE = re.compile(
    r"\bgenerated\b.{0,120}?\bdo\s+not\s+(?:edit|modify)\b"
    r"|\bdo\s+not\s+(?:edit|modify)\b.{0,120}?\bgenerated\b",
    re.I | re.S,
)
_GENERATED_ANNOTATION = re.compile(
    r"@\s*(?:javax\s*\.\s*annotation\s*\.\s*(?:processing\s*\.\s*)?)?Generated\b"
)
_MAX_VALUE = 80  # characters of a constant's value (an annotation element's default) shown

JavaFile = SourceFile  # its files, as the source hands them over
# the items of a declaration, then where it ends
_Walk = Generator["_Item", None, int]


_Comment = Comment


def is_java(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    """A test's source: under src/test/, a test/ or tests/ folder, or named like a test."""
    folders = rel.parts[:-1]
    return "test" in folders or "tests" in folders or bool(_TEST_NAME.search(rel.name))


def api_documents(
    files: list[JavaFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented public API the files define, sorted by uri; a file
    that gives none is counted in `rejects`."""

    def read(f: JavaFile) -> list[Document] | str:
        if is_test(f.rel):
            return JAVA_TEST
        scanned = scan(f.text)
        if generated(scanned):
            return JAVA_GENERATED
        if f.rel.name == "module-info.java":
            return []
        return list(file_documents(f, source, scanned))

    return first_documents(files, rejects, read, JAVA_NO_API)


def generated(scanned: tuple[str, str, list[_Comment]]) -> bool:
    """A generated file: a `@Generated` annotation over its first type, or a "generated ...
    do not edit" comment (not a javadoc) before it."""
    code, _, comments = scanned
    top = code.find("{")
    top = len(code) if top < 0 else top
    if _GENERATED_ANNOTATION.search(code, 0, top):
        return True
    return any(_GENERATED_NOTE.search(c.text) for c in comments if c.start < top and not c.doc)


# ----------------------------------------------------------------------------- scanning
_LEXEME = re.compile(r"/[/*]|[\"']")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"?')
_TEXT_BLOCK = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*(?:""")?', re.S)
_CHAR = re.compile(r"'(?:[^'\\\n]|\\.)*'?")
_NONSPACE = re.compile(r"\S")


def scan(text: str) -> tuple[str, str, list[_Comment]]:
    """(the code with comments and literals blanked; the text with only its comments
    blanked; the comments), both texts as long as `text`, lines where they were."""
    code: list[str] = []
    bare: list[str] = []
    comments: list[_Comment] = []
    i = last = 0
    n = len(text)
    while (m := _LEXEME.search(text, i)) is not None:
        s = m.start()
        tok = m.group()
        if tok == "//":
            e = text.find("\n", s)
            e = n if e < 0 else e
            comments.append(_Comment(s, e, False, text[s + 2 : e]))
            a = b = s  # blanked in both
        elif tok == "/*":
            close = text.find("*/", s + 2)
            e = n if close < 0 else close + 2
            stop = n if close < 0 else close
            doc = text.startswith("/**", s) and close != s + 2 and not text.startswith("/***", s)
            comments.append(_Comment(s, e, doc, text[s + (3 if doc else 2) : stop]))
            a = b = s
        else:
            lit = (
                _TEXT_BLOCK.match(text, s)
                if text.startswith('"""', s)
                else (_STRING if tok == '"' else _CHAR).match(text, s)
            )
            e = lit.end() if lit is not None else s + 1
            a, b = s + 1, e  # the literal's inside blanked in the code only
        code.append(text[last:a])
        code.append(_blank(text[a:e]))
        bare.append(text[last:b])
        bare.append(_blank(text[b:e]))
        last = i = max(e, s + 1)
    code.append(text[last:])
    bare.append(text[last:])
    return "".join(code), "".join(bare), comments


def _blank(text: str) -> str:
    """Spaces as long as `text`, its newlines kept."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(line) for line in text.split("\n"))


def _angle_end(s: str, k: int) -> int:
    """Past the `>` closing the `<` at k (generics), or len(s)."""
    depth = 0
    for j in range(k, len(s)):
        if s[j] == "<":
            depth += 1
        elif s[j] == ">":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(s)


def _split_top(code: str, bare: str, angles: bool) -> list[str]:
    """`bare` split at the commas that stand outside brackets in `code` (the same text
    with its literals blanked); `angles` counts generics' angle brackets too."""
    opens, closes = ("([{<", ")]}>") if angles else ("([{", ")]}")
    parts: list[str] = []
    depth, last = 0, 0
    for k, ch in enumerate(code):
        if ch in opens:
            depth += 1
        elif ch in closes:
            depth -= 1
        elif ch == "," and depth <= 0:
            parts.append(bare[last:k])
            last = k + 1
    parts.append(bare[last:])
    return [p for p in parts if p.strip()]


# ----------------------------------------------------------------------------- javadoc
@dataclass
class Javadoc:
    """A javadoc comment read: its description and block tags, as text."""

    description: str = ""
    params: list[tuple[str, str]] = field(default_factory=list)
    returns: str = ""
    throws: list[tuple[str, str]] = field(default_factory=list)
    deprecated: str | None = None
    notes: list[str] = field(default_factory=list)  # "API Note: ...", as paragraphs
    since: list[str] = field(default_factory=list)
    see: list[str] = field(default_factory=list)
    hidden: bool = False

    def documented(self) -> bool:
        """Whether it says anything about the item (not only `{@inheritDoc}`, `@since`)."""
        return bool(
            self.description
            or any(d for _, d in self.params)
            or self.returns
            or any(d for _, d in self.throws)
            or self.deprecated is not None
            or self.notes
        )


_MARGIN = re.compile(r"[ \t]*\*+")
_BLOCK_TAG = re.compile(r"[ \t]*@([A-Za-z][\w.-]*)")
_NESTING = re.compile(r"\{@|[{}]|<\s*(/?)\s*pre\b", re.I)
_NOTES = {
    "apiNote": "API Note",
    "implSpec": "Implementation Requirements",
    "implNote": "Implementation Note",
}
_DROPPED = {"author", "version", "serial", "serialData", "serialField", "revised"}


def javadoc(body: str, value: str = "") -> Javadoc:
    """A javadoc comment's text (without its `/**` and `*/`) read: `value` is what
    `{@value}` stands for (a constant's value)."""
    lines = []
    for line in body.split("\n"):
        m = _MARGIN.match(line)
        lines.append(line[m.end() :] if m is not None else line)
    main: list[str] = []
    tags: list[tuple[str, list[str]]] = []
    into = main
    depth, pre = 0, False
    for line in lines:
        rest = line
        if depth == 0 and not pre and (m := _BLOCK_TAG.match(line)) is not None:
            tags.append((m.group(1), []))
            into = tags[-1][1]
            rest = line[m.end() :]
        into.append(rest)
        for t in _NESTING.finditer(rest):
            tok = t.group()
            if tok == "{@":
                depth += 1
            elif tok == "{":
                depth += depth > 0
            elif tok == "}":
                depth -= depth > 0
            elif depth == 0:
                pre = not t.group(1)
    doc = Javadoc()
    returned: list[str] = []
    doc.description = markdown("\n".join(main), value, returned)
    for name, text_lines in tags:
        _block_tag(doc, name, "\n".join(text_lines), value)
    if not doc.returns and returned:
        doc.returns = returned[0]
    return doc


def _block_tag(doc: Javadoc, name: str, text: str, value: str) -> None:
    if name == "param":
        m = re.match(r"\s*(<[^>]*>|\S+)(.*)$", text, re.S)
        if m is not None:
            doc.params.append((m.group(1), _line(markdown(m.group(2), value))))
    elif name in ("return", "returns"):
        doc.returns = doc.returns or _line(markdown(text, value))
    elif name in ("throws", "exception"):
        m = re.match(r"\s*(\S+)(.*)$", text, re.S)
        if m is not None:
            doc.throws.append((m.group(1), _line(markdown(m.group(2), value))))
    elif name == "deprecated":
        doc.deprecated = _line(markdown(text, value))
    elif name in _NOTES:
        note = markdown(text, value)
        if note:
            sep = "\n\n" if note.startswith("```") else " "
            doc.notes.append(f"{_NOTES[name]}:{sep}{note}")
    elif name == "since":
        if since := _line(markdown(text, value)):
            doc.since.append(since)
    elif name == "see":
        if see := _see(text, value):
            doc.see.append(see)
    elif name in ("jls", "jvms"):
        doc.see.append(f"{name.upper()} {_line(markdown(text, value))}".strip())
    elif name == "spec":  # @spec url title
        title = _line(text).partition(" ")[2]
        if title:
            doc.see.append(title)
    elif name == "hidden":
        doc.hidden = True
    # @author, @version, @serial*, and tags javadoc does not know: left out


def _see(text: str, value: str) -> str:
    t = text.strip()
    if t.startswith('"'):
        return t.strip('"').strip()
    if t.startswith("<"):
        return _line(markdown(t, value))
    ref, label = _split_ref(t)
    if label:
        return _line(markdown(label, value))
    return _tick(_ref_name(ref)) if ref else ""


def _line(text: str) -> str:
    return " ".join(text.split())


def _tidy(code: str) -> str:
    """A type or parameter on one line, its array brackets closed up: `String[] a`."""
    return _ARRAY.sub("[]", _line(code)).replace(" ...", "...")


def _tick(code: str) -> str:
    return f"`` {code} ``" if "`" in code else f"`{code}`"


def _split_ref(text: str) -> tuple[str, str]:
    """A link's reference (`Foo#bar(int, long)`: spaces inside its parentheses) and label."""
    t = text.strip()
    depth = 0
    for k, ch in enumerate(t):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch.isspace() and depth <= 0:
            return t[:k], t[k:].strip()
    return t, ""


def _ref_name(ref: str) -> str:
    """`Foo#bar(int)` as `Foo.bar(int)`, `#bar` as `bar`."""
    ref = " ".join(ref.split()).replace("( ", "(").replace(" )", ")")
    return ref.removeprefix("#").replace("#", ".")


# HTML javadoc comments use; other names in angle brackets are text (`List<String>`)
_HTML = frozenset(
    "a abbr acronym address article aside b big blockquote body br caption center cite code "
    "col colgroup dd del details dfn div dl dt em figcaption figure font footer h1 h2 h3 h4 "
    "h5 h6 header hr html i img ins kbd li main mark nav nobr ol p pre q s samp section small "
    "span strike strong sub summary sup table tbody td tfoot th thead tr tt u ul var wbr".split()
)
_BREAKS = frozenset(
    "p div blockquote hr center section article header footer main nav figure figcaption "
    "address details summary body html aside caption table thead tbody tfoot".split()
)
_CODE_TAGS = frozenset({"code", "tt", "var", "samp", "kbd"})
_MARKUP = re.compile(r"\{@|<!--|<\s*/?\s*[A-Za-z][A-Za-z0-9]*(?=[\s/>])[^<>]*>")
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][A-Za-z0-9]*)")
_BRACES = re.compile(r"[{}]")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.I)
_ARRAY = re.compile(r"\s*\[\s*\]")
_INLINE_NAME = re.compile(r"[A-Za-z][\w.-]*")
_SNIPPET_MARKUP = re.compile(r"\s*//\s*@(?:highlight|link|replace|start|end)\b.*$")


def markdown(text: str, value: str = "", returned: list[str] | None = None) -> str:
    """Javadoc's HTML and inline tags as text and Markdown: paragraphs, `- ` items, fenced
    ```java examples, `code`; `{@return x}` read as "Returns x." and listed in `returned`."""
    w = _Writer(value, returned if returned is not None else [])
    _feed(text, w)
    return w.result()


def _feed(text: str, w: _Writer) -> None:
    pos = 0
    while (m := _MARKUP.search(text, pos)) is not None:
        w.text(text[pos : m.start()])
        tok = m.group()
        if tok == "{@":
            close = _brace_end(text, m.start())
            if close < 0:  # unclosed: text
                w.text(tok)
                pos = m.end()
                continue
            inner = text[m.end() : close]
            nm = _INLINE_NAME.match(inner)
            name = nm.group() if nm is not None else ""
            content = inner[len(name) :]
            if content[:1] in (" ", "\t"):  # a newline stays: an example's first line
                content = content[1:]
            _inline(name, content, w)
            pos = close + 1
        elif tok == "<!--":
            end = text.find("-->", m.end())
            pos = len(text) if end < 0 else end + 3
        elif _HIDDEN_STYLE.search(tok) and (t := _TAG.match(tok)) and not t.group(1):
            shut = re.compile(rf"<\s*/\s*{t.group(2)}\s*>", re.I).search(text, m.end())
            pos = len(text) if shut is None else shut.end()  # not shown: left out
        elif w.tag(tok):
            pos = m.end()
        else:  # not HTML (`Map<K,V>`): its `<` is text, the rest read on
            w.text("<")
            pos = m.start() + 1
    w.text(text[pos:])


def _brace_end(text: str, i: int) -> int:
    """The `}` closing the `{` at i, braces balanced; -1 when unclosed."""
    depth = 0
    for m in _BRACES.finditer(text, i):
        depth += 1 if m.group() == "{" else -1
        if depth == 0:
            return m.start()
    return -1


def _inline(name: str, content: str, w: _Writer) -> None:
    if name == "code":
        w.code(content)
    elif name == "literal":
        w.raw(content)
    elif name in ("link", "linkplain"):
        ref, label = _split_ref(content)
        if label:
            _feed(label, w)
        elif ref:
            w.code(_ref_name(ref))
    elif name == "value":
        ref = content.strip()
        if ref or w.value:
            w.code(_ref_name(ref) if ref else w.value)
    elif name in ("inheritDoc", "docRoot"):
        return
    elif name == "index":
        m = re.match(r'\s*"([^"]*)"|\s*(\S+)', content)
        if m is not None:
            w.text(m.group(1) or m.group(2) or "")
    elif name == "systemProperty":
        w.code(content.strip())
    elif name == "return":
        said = _line(markdown(content, w.value)).rstrip(".")
        if said:
            w.returned.append(said)
            w.raw(f"Returns {said}.")
    elif name == "snippet":
        _, colon, body = content.partition(":")
        if colon and body.strip():
            lines = [_SNIPPET_MARKUP.sub("", x) for x in body.split("\n")]
            w.start_pre()
            w.raw("\n".join(lines))
            w.end_pre()
    else:  # {@summary x} and tags javadoc does not know: their text
        _feed(content, w)


class _Writer:
    """Markdown built from javadoc's pieces: blocks (paragraphs, list items, table rows,
    code), the current one's inline text gathered until a break."""

    def __init__(self, value: str, returned: list[str]) -> None:
        self.value = value
        self.returned = returned
        self.blocks: list[tuple[str, str]] = []  # (kind: para, item or code; text)
        self.cur: list[str] = []
        self.kind, self.prefix = "para", ""
        self.pre: list[str] | None = None  # inside <pre>: its text
        self.spans: list[int] = []  # where the open <code> spans start in cur
        self.lists = 0

    def text(self, s: str) -> None:
        if s:
            self.raw(html.unescape(s))

    def raw(self, s: str) -> None:
        if s:
            (self.pre if self.pre is not None else self.cur).append(s)

    def code(self, s: str) -> None:
        if self.pre is not None or self.spans:
            self.raw(s)
        elif s.strip():
            self.cur.append(_tick(_line(s)))

    def flush(self) -> None:
        self.spans = []
        text = "".join(self.cur).replace("\xa0", " ")
        lines = [x for x in (_line(part) for part in text.split("\x00")) if x]
        if lines:
            indent = "\n" + " " * len(self.prefix) if self.kind == "item" else "\n"
            self.blocks.append((self.kind, self.prefix + indent.join(lines)))
        self.cur = []
        self.kind, self.prefix = ("item", "  " * self.lists) if self.lists else ("para", "")

    def start_pre(self) -> None:
        self.flush()
        self.pre = []

    def end_pre(self) -> None:
        if self.pre is None:
            return
        lines = "".join(self.pre).replace("\xa0", " ").split("\n")
        self.pre = None
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        if (
            lines
            and not lines[0][:1].isspace()
            and all(x[:1] == " " for x in lines[1:] if x.strip())
        ):
            lines = [lines[0]] + [x[1:] for x in lines[1:]]  # the margin's space after `*`
        if lines:
            code = textwrap.dedent("\n".join(x.rstrip() for x in lines))
            self.blocks.append(("code", f"```java\n{code}\n```"))

    def tag(self, tok: str) -> bool:
        """Act on an HTML tag; False when it is none (`<T>`, `List<String>`)."""
        m = _TAG.match(tok)
        if m is None:
            return False
        closing, raw_name = bool(m.group(1)), m.group(2)
        name = raw_name.lower()
        if name not in _HTML or (
            len(raw_name) == 1
            and raw_name not in "BIP"
            and raw_name.isupper()
            and not closing
            and re.fullmatch(r"<\s*[A-Z]\s*>", tok) is not None
        ):
            return False  # a type parameter: `List<E>`
        if name == "pre":
            (self.end_pre if closing else self.start_pre)()
        elif self.pre is not None:
            pass  # markup inside an example: its text kept
        elif name in _CODE_TAGS:
            if not closing:
                self.spans.append(len(self.cur))
            elif self.spans:
                at = self.spans.pop()
                if not self.spans:
                    inner = _line("".join(self.cur[at:]))
                    del self.cur[at:]
                    if inner:
                        self.cur.append(_tick(inner))
        elif name in ("ul", "ol", "dl"):
            self.flush()
            self.lists = max(0, self.lists + (-1 if closing else 1))
            self.kind, self.prefix = ("item", "  " * self.lists) if self.lists else ("para", "")
        elif name in ("li", "dt", "dd"):
            self.flush()
            if not closing:
                self.kind = "item"
                depth = max(0, self.lists - 1)
                self.prefix = "  " * (depth + 1) if name == "dd" else "  " * depth + "- "
        elif name == "tr":
            self.flush()
            if not closing:
                self.kind, self.prefix = "item", ""
        elif name in ("td", "th"):
            if not closing and "".join(self.cur).strip():
                self.cur.append(" | ")
        elif re.fullmatch(r"h[1-6]", name):
            self.flush()
            if not closing:
                self.kind, self.prefix = "para", "#" * max(1, int(name[1]) - 1) + " "
        elif name in _BREAKS:
            self.flush()
        elif name == "br":
            self.cur.append("\x00")
        return True  # inline markup (<b>, <i>, <a>, ...): its text kept

    def result(self) -> str:
        self.end_pre()
        self.flush()
        out: list[str] = []
        prev = ""
        for kind, text in self.blocks:
            if out:
                out.append("\n" if kind == prev == "item" else "\n\n")
            out.append(text)
            prev = kind
        return "".join(out).strip()


# ----------------------------------------------------------------------------- items
_MODIFIERS = frozenset(
    "public protected private static final abstract default synchronized native transient "
    "volatile strictfp sealed non-sealed".split()
)
_WORD = re.compile(r"non-sealed\b|[A-Za-z_$][\w$]*")
_ANNOTATION = re.compile(r"@\s*(?!interface\b)([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)")
_TYPE_DECL = re.compile(
    r"(?P<kw>class|interface|@\s*interface|enum|record)\s+(?P<name>[A-Za-z_$][\w$]*)"
)
_HEAD_END = re.compile(r"[(=;{]")
_BODY_OR_END = re.compile(r"[({;\[]")
_PACKAGE = re.compile(r"\bpackage\s+([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*;")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_NAME_PART = re.compile(r"\s*(?:@[\w$.]+\s*)*[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*\s*")
_DIMS = re.compile(r"\[\s*\]")
_DECLARATOR_START = re.compile(r"\s*[A-Za-z_$][\w$]*\s*(?:\[\s*\]\s*)*(?:=|$)")
_DECLARATOR = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*((?:\[\s*\]\s*)*)(?:=(.*))?$", re.S)
_PARAM_NOISE = re.compile(r"@\s*[\w$.]+(?:\s*\([^)]*\))?|\bfinal\b")
_DEPRECATED = re.compile(r"(?:java\s*\.\s*lang\s*\.\s*)?Deprecated$")


@dataclass
class _Owner:
    qual: str  # the package, or the type's qualified name
    name: str = ""  # the type's simple name ("" for a file's top level)
    kind: str = "file"  # file, class, interface, enum, record or annotation
    components: str = ""  # a record's, as its compact constructor takes them

    def visible(self, mods: list[str]) -> bool:
        if self.kind == "file":
            return "public" in mods
        if self.kind in ("interface", "annotation"):
            return "private" not in mods
        return "public" in mods or "protected" in mods


_Item = Item


@dataclass
class _Prefix:
    annotations: list[str]
    mods: list[str]
    at: int  # where its first modifier or keyword stands
    end: int  # past it


@dataclass
class _File(DocIndex):
    f: JavaFile
    source: str
    code: str
    bare: str
    comments: list[_Comment]
    docs: list[_Comment] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # the javadoc comments' starts
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

    def document(self, item: _Item, more: list[_Item]) -> Document:
        text = f"{item.head}\n\n{item.body}" if item.head else item.body
        for other in more:  # overloads: each with its own signature line and doc
            text += f"\n\n{other.head}\n\n{other.body}"
        meta = {
            **self.f.meta,
            "kind": item.kind,
            "qualname": item.qual,
            "signature": item.signature,
            "origin": self.f.where,
            "line": self.line(item.at),
        }
        return Document(self.source, f"{URI_PREFIX}{item.qual}", item.qual, text.strip(), meta)


def file_documents(
    f: JavaFile, source: str, scanned: tuple[str, str, list[_Comment]] | None = None
) -> Iterator[Document]:
    """The documents of one file, in the order its items stand (`scanned` its scan when
    done already); a method's overloads are one document, where the first stands."""
    code, bare, comments = scanned or scan(f.text)
    g = _File(f, source, code, bare, comments)
    pm = _PACKAGE.search(code)
    package = "".join(pm.group(1).split()) if pm is not None else ""
    if f.rel.name == "package-info.java":
        if pm is not None and (c := g.doc_before(0, pm.start())) is not None:
            doc = javadoc(c.text)
            if doc.documented() and not doc.hidden:
                body = _join([doc.description, *doc.notes, *_closing(doc)])
                yield g.document(_Item(package, "package", "", "", body, pm.start()), [])
        return
    items = list(_members(g, 0, len(code), _Owner(package)))
    groups: dict[str, list[_Item]] = {}
    for item in items:
        groups.setdefault(item.qual, []).append(item)
    for group in groups.values():
        first = group[0]
        same = [x for x in group[1:] if x.kind == first.kind]
        yield g.document(first, same if first.kind in ("method", "constructor") else [])


def _join(parts: list[str]) -> str:
    return "\n\n".join(p for p in parts if p)


def _prefix(g: _File, j: int, end: int) -> _Prefix:
    """The annotations and modifiers at j."""
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
            k = g.skip(m.end(), end)
            stop = g.close(k, end) if code[k : k + 1] == "(" else m.end()
            annotations.append(g.said(j, stop))
            j = stop
            continue
        w = _WORD.match(code, j, end)
        if w is None or w.group() not in _MODIFIERS:
            break
        at = j if at < 0 else at
        mods.append(w.group())
        j = w.end()
    return _Prefix(annotations, mods, j if at < 0 else at, j)


def _members(g: _File, start: int, end: int, owner: _Owner) -> Iterator[_Item]:
    """The documented visible items between start and end (a file, a type's body)."""
    code = g.code
    j, region = start, start
    if owner.kind == "enum":
        j = yield from _enum_constants(g, start, end, owner)
        region = j
    while True:
        j = g.skip(j, end)
        if j >= end:
            return
        ch = code[j]
        if ch == ";":
            j = region = j + 1
            continue
        if ch == "{":  # an initializer block
            j = region = max(g.close(j, end), j + 1)
            continue
        if not (ch == "@" or ch == "<" or ch == "_" or ch == "$" or ch.isalpha()):
            j = region = j + 1  # stray text
            continue
        p = _prefix(g, j, end)
        k = p.end
        w = _WORD.match(code, k, end)
        if (
            owner.kind == "file"
            and w is not None
            and w.group() in ("package", "import", "module", "open")
        ):
            semi = code.find(";", k, end)
            brace = code.find("{", k, end)
            if w.group() in ("module", "open") and brace >= 0 and (semi < 0 or brace < semi):
                j = region = max(g.close(brace, end), k + 1)
            else:
                j = region = end if semi < 0 else semi + 1
            continue
        t = _TYPE_DECL.match(code, k, end)
        if t is not None and (t.group("kw") != "record" or _record_header(code, t.end(), end)):
            new_j = yield from _type(g, p, t, region, end, owner)
        else:
            new_j = yield from _member(g, p, region, end, owner)
        j = region = max(new_j, j + 1)


def _record_header(code: str, j: int, end: int) -> bool:
    k = j
    while k < end and code[k].isspace():
        k += 1
    return code[k : k + 1] in ("(", "<")


def _type(g: _File, p: _Prefix, t: re.Match[str], region: int, end: int, owner: _Owner) -> _Walk:
    """A class, interface, enum, record or annotation type, and its members; returns
    where it ends."""
    code = g.code
    kw = "".join(t.group("kw").split())
    name = t.group("name")
    k = t.end()
    brace = -1
    while (m := _BODY_OR_END.search(code, k, end)) is not None:
        if m.group() == "{":
            brace = m.start()
            break
        if m.group() == ";":
            return m.end()
        k = g.close(m.start(), end)
    if brace < 0:
        return end
    close = g.close(brace, end)
    qual = f"{owner.qual}.{name}" if owner.qual else name
    kind = {"@interface": "annotation"}.get(kw, kw)
    if not owner.visible(p.mods):
        return close
    header = g.bare[t.end() : brace]
    components = ""
    if kind == "record":
        h = code[t.end() : brace]
        hk = h.find("(")
        if hk >= 0:
            hc = g.close(t.end() + hk, brace) - t.end()
            components = _params(h[hk + 1 : hc - 1], header[hk + 1 : hc - 1])
    c = g.doc_before(region, p.at)
    if c is not None:
        doc = javadoc(c.text)
        if doc.documented() and not doc.hidden:
            said = _line(header)
            decl = " ".join([*p.mods, kw, name]) + (
                said if said.startswith(("<", "(")) else f" {said}" if said else ""
            )
            head = f"{qual}({components})" if kind == "record" else qual
            body = _join(
                [
                    doc.description,
                    _deprecation(doc, p.annotations),
                    *doc.notes,
                    _fields(doc, ""),
                    f"Declaration: `{decl}`",
                    *_closing(doc),
                ]
            )
            sig = f"({components})" if kind == "record" else ""
            yield _Item(qual, kind, head, sig, body, p.at)
    inner = _Owner(qual, name, kind, components)
    yield from _members(g, brace + 1, max(brace + 1, close - 1), inner)
    return close


def _member(g: _File, p: _Prefix, region: int, end: int, owner: _Owner) -> _Walk:
    """A method, constructor, annotation element or field; returns where it ends."""
    code = g.code
    m = _HEAD_END.search(code, p.end, end)
    if m is None:
        return end
    if m.group() == "(":
        return (yield from _method(g, p, m.start(), region, end, owner))
    if m.group() == "{":
        head = code[p.end : m.start()].strip()
        close = g.close(m.start(), end)
        if owner.kind == "record" and head == owner.name:  # a compact constructor
            yield from _callable(g, p, region, owner, head, "", "", owner.components, "", "")
        return close
    # a field: its declaration runs to the `;` outside brackets
    k = p.end
    semi = end
    while (s := _BODY_OR_END.search(code, k, end)) is not None:
        if s.group() == ";":
            semi = s.start()
            break
        k = g.close(s.start(), end)
    stop = min(semi + 1, end)
    if not owner.visible(p.mods):
        return stop
    c = g.doc_before(region, p.at)
    if c is None or owner.kind == "file":
        return stop
    typ, rest_at = _split_type(g.bare, p.end, semi)
    if not typ:
        return stop
    constant = owner.kind in ("interface", "annotation") or {"static", "final"} <= set(p.mods)
    for said in _declarators(code[rest_at:semi], g.bare[rest_at:semi]):
        d = _DECLARATOR.match(said)
        if d is None:
            continue
        name, dims, init = d.group(1), "".join(d.group(2).split()), _line(d.group(3) or "")
        value = init if constant and init and len(init) <= _MAX_VALUE else ""
        doc = javadoc(c.text, value)
        if not doc.documented() or doc.hidden:
            continue
        qual = f"{owner.qual}.{name}"
        mods = [x for x in p.mods if x != "public"]
        body = _join(
            [
                doc.description,
                _deprecation(doc, p.annotations),
                *doc.notes,
                f"Type: `{typ}{dims}`",
                f"Value: `{value}`" if value else "",
                f"Modifiers: `{' '.join(mods)}`." if mods else "",
                *_closing(doc),
            ]
        )
        yield _Item(qual, "constant" if constant else "field", qual, "", body, p.at)
    return stop


def _split_type(bare: str, a: int, b: int) -> tuple[str, int]:
    """The type a declaration between a and b opens with (`Map<K, V>[]`), and where its
    declarators start; ("", a) when no name follows a type."""
    m = _NAME_PART.match(bare, a, b)
    if m is None:
        return "", a
    k = m.end()
    while k < b:
        ch = bare[k]
        if ch == "<":
            k = a + _angle_end(bare[a:b], k - a)
        elif bare.startswith("...", k):
            k += 3
        elif ch == "." and (n := _NAME_PART.match(bare, k + 1, b)) is not None:
            k = n.end()
        elif ch == "[" and (n := _DIMS.match(bare, k, b)) is not None:
            k = n.end()
        elif ch.isspace():
            k += 1
        else:
            break
    if k >= b or _IDENT.match(bare, k, b) is None:
        return "", a
    return _tidy(bare[a:k]), k


def _declarators(code: str, bare: str) -> list[str]:
    """`a = 1, b[] = {2}, c`: each declarator (a comma inside an initializer's generics,
    `new HashMap<K, V>()`, splits none)."""
    out: list[str] = []
    for part in _split_top(code, bare, False):
        if out and _DECLARATOR_START.match(part) is None:
            out[-1] += "," + part
        else:
            out.append(part)
    return out


def _method(g: _File, p: _Prefix, paren: int, region: int, end: int, owner: _Owner) -> _Walk:
    code = g.code
    close = g.close(paren, end)
    # its end: the body's closing brace, or the `;` (after an element's `default` value)
    k, stop = close, end
    body_at = -1
    while (s := _BODY_OR_END.search(code, k, end)) is not None:
        if s.group() == ";":
            stop = s.end()
            break
        if s.group() == "{" and not re.search(r"\bdefault\b", code[close : s.start()]):
            body_at = s.start()
            stop = g.close(s.start(), end)
            break
        k = g.close(s.start(), end)
    head = _tidy(g.bare[p.end : paren])
    tparams = ""
    if head.startswith("<"):
        e = _angle_end(head, 0)
        tparams, head = head[:e], head[e:].strip()
    nm = re.search(r"([A-Za-z_$][\w$]*)$", head)
    if nm is None or not owner.visible(p.mods) or owner.kind in ("file",):
        return stop
    name, returns = nm.group(1), head[: nm.start()].strip()
    if not returns and (name != owner.name or owner.kind == "enum"):
        return stop
    params = _params(code[paren + 1 : close - 1], g.bare[paren + 1 : close - 1])
    tail_end = body_at if body_at >= 0 else stop - 1
    tail = g.said(close, max(close, tail_end))
    throws, default = "", ""
    dm = re.search(r"\bdefault\b(.*)$", tail, re.S)
    if dm is not None:
        default, tail = dm.group(1).strip(), tail[: dm.start()]
    tm = re.search(r"\bthrows\b(.*)$", tail, re.S)
    if tm is not None:
        throws, tail = tm.group(1).strip(), tail[: tm.start()]
    returns += "".join(tail.split())  # `int foo()[]`, the old way to say `int[] foo()`
    yield from _callable(g, p, region, owner, name, returns, tparams, params, throws, default)
    return stop


def _callable(
    g: _File,
    p: _Prefix,
    region: int,
    owner: _Owner,
    name: str,
    returns: str,
    tparams: str,
    params: str,
    throws: str,
    default: str,
) -> Iterator[_Item]:
    c = g.doc_before(region, p.at)
    if c is None:
        return
    doc = javadoc(c.text)
    if not doc.documented() or doc.hidden:
        return
    qual = f"{owner.qual}.{name}"
    kind = "constructor" if not returns else "element" if owner.kind == "annotation" else "method"
    raised = {x.rsplit(".", 1)[-1] for x, _ in doc.throws}
    undocumented = [x for x in (t.strip() for t in throws.split(",")) if x]
    undocumented = [x for x in undocumented if x.rsplit(".", 1)[-1] not in raised]
    mods = [x for x in p.mods if x != "public"]
    if owner.kind in ("interface", "annotation"):
        mods = [x for x in mods if x != "abstract"]
    body = _join(
        [
            doc.description,
            _deprecation(doc, p.annotations),
            *doc.notes,
            _fields(doc, returns),
            f"Type parameters: `{tparams}`." if tparams else "",
            f"Throws: `{', '.join(undocumented)}`." if undocumented else "",
            f"Modifiers: `{' '.join(mods)}`." if mods else "",
            f"Default: `{default}`" if default and len(default) <= _MAX_VALUE else "",
            *_closing(doc),
        ]
    )
    yield _Item(qual, kind, f"{qual}({params})", f"({params})", body, p.at)


def _params(code: str, bare: str) -> str:
    """A parameter list as Java writes it, annotations and `final` out: `int index, E e`."""
    out = []
    for part in _split_top(code, bare, True):
        out.append(_tidy(_PARAM_NOISE.sub(" ", part)))
    return ", ".join(x for x in out if x)


def _enum_constants(g: _File, start: int, end: int, owner: _Owner) -> _Walk:
    """An enum's constants, each with its javadoc; returns where its other members start."""
    code = g.code
    j = region = start
    while True:
        j = g.skip(j, end)
        if j >= end or code[j] == "}":
            return end
        if code[j] == ";":
            return j + 1
        p = _prefix(g, j, end)
        m = _IDENT.match(code, p.end, end)
        if m is None or p.mods:
            return j
        k = g.skip(m.end(), end)
        if code[k : k + 1] == "(":
            k = g.skip(g.close(k, end), end)
        if code[k : k + 1] == "{":
            k = g.skip(g.close(k, end), end)
        if k < end and code[k] not in ",;":
            return j  # not a constant: the members start here
        c = g.doc_before(region, p.at)
        if c is not None:
            doc = javadoc(c.text)
            if doc.documented() and not doc.hidden:
                qual = f"{owner.qual}.{m.group()}"
                body = _join(
                    [
                        doc.description,
                        _deprecation(doc, p.annotations),
                        *doc.notes,
                        *_closing(doc),
                    ]
                )
                yield _Item(qual, "enum_constant", qual, "", body, p.at)
        if k >= end:
            return end
        if code[k] == ";":
            return k + 1
        j = region = k + 1


# ----------------------------------------------------------------------------- text
def _fields(doc: Javadoc, returns: str) -> str:
    """The block tags as docstring fields: `:param x:`, `:returns:`, `:raises X:`."""
    lines = [f":param {n}: {d}" for n, d in doc.params if d]
    if doc.returns:
        lines.append(f":returns: {doc.returns}")
    elif returns and returns != "void":
        lines.append(f":returns: `{returns}`")
    lines += [f":raises {x}: {d}".rstrip() for x, d in doc.throws]
    return "\n".join(lines)


def _deprecation(doc: Javadoc, annotations: list[str]) -> str:
    said = [a for a in annotations if _DEPRECATED.match(a.lstrip("@ ").split("(")[0].strip())]
    if doc.deprecated is None and not said:
        return ""
    label = "Deprecated"
    notes = []
    if said:
        since = re.search(r'since\s*=\s*"([^"]*)"', said[0])
        if since:
            notes.append(f"since {since.group(1)}")
        if re.search(r"forRemoval\s*=\s*true", said[0]):
            notes.append("for removal")
    if notes:
        label += f" ({', '.join(notes)})"
    return f"{label}: {doc.deprecated}" if doc.deprecated else f"{label}."


def _closing(doc: Javadoc) -> list[str]:
    return [
        f"Since: {', '.join(doc.since)}" if doc.since else "",
        f"See also: {', '.join(doc.see)}" if doc.see else "",
    ]
