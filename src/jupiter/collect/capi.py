"""C and C++ headers read as their library's API, as Doxygen reads them: one document per
function, class, struct, union, enum, enumerator, field, method, typedef, alias, variable
and macro that has a doc comment (`/** */`, `/*! */`, `///` or `//!` over it, or `/**< */`,
`///<` after it on its line), and one per header whose `@file` block says what it holds.
The uri is `c:<name>` (`c:git_repository_open`; C++ names through their namespaces and
classes, `c:CLI::App::add_option`), the text the form the question templates read for
Python's docstrings: `name(params)` over the doc, Doxygen's commands made plain text
(`@param x` a `:param x:` line, `@return` `:returns:`, `@code` a fenced block), the return
type where no `@return` says it, an enumerator's or macro's value, a field's type.

A header with no Doxygen comment at all (sqlite3.h, many C libraries) is read the way its
authors wrote it: a plain block comment right over a declaration documents it.

The files are scanned, never compiled or preprocessed: comments, strings and character
literals are told apart from code, preprocessor lines (`#if`, `#include`) set aside, and a
line holding only an upper-case macro (`GIT_BEGIN_DECL`, `FMT_BEGIN_NAMESPACE`) skipped, so
a brace in a string or a macro ends no block. Private and protected class members, and
namespaces named `detail`, `internal`, `impl` or none, are not the API. Files with
nothing documented are counted, and so are headers under a test folder.
"""

from __future__ import annotations

import html
import re
import textwrap
from bisect import bisect_left
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.codescan import blank, blanked, closing
from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++")
URI_PREFIX = "c:"
C_TEST = "c_test"
C_NO_API = "c_no_api"
_AS_TEXT = (
    "C and C++ headers read as their API (Doxygen comments, or a plain comment over each "
    "declaration): tests and headers with nothing documented give none; the source's c: "
    "text reads them as text"
)
FIXES = {C_TEST: _AS_TEXT, C_NO_API: _AS_TEXT}
_PRIVATE_NAMESPACES = {"detail", "details", "internal", "impl", "priv", "_detail"}
_KEYWORDS = {
    "if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "noexcept",
    "throw", "alignas", "static_assert", "__attribute__", "__declspec", "requires", "typeof",
    "__typeof__", "defined", "operator",
}  # fmt: skip
# words before a declaration's name that say how it is stored, not its type
_STORAGE = re.compile(
    r"\b(?:static|inline|extern|virtual|explicit|constexpr|consteval|friend|register|"
    r"__inline|__forceinline|thread_local|mutable)\b|\[\[[^\]]*\]\]"
)
_MACRO = re.compile(r"\b[A-Z][A-Z0-9_]{2,}\b")
_MACRO_LINE = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]\s*(?:\([^()\n]*\))?[ \t]*(?=\n|$)")
_BEGIN_NAMESPACE = re.compile(r"([A-Z][A-Z0-9]*)_BEGIN_NAMESPACE|BEGIN_([A-Z][A-Z0-9]*)_NAMESPACE")
_END_NAMESPACE = re.compile(r"[A-Z][A-Z0-9]*_END_NAMESPACE|END_[A-Z][A-Z0-9]*_NAMESPACE")
_ACCESS = re.compile(r"(public|protected|private)\s*:(?!:)")
_TEMPLATE = re.compile(r"template\s*<")
_TYPE_HEAD = re.compile(
    r"(?:typedef\s+)?(?P<kw>class|struct|union|enum(?:\s+(?:class|struct))?)\b"
    r"(?:\s*(?:\[\[[^\]]*\]\]|__attribute__\s*\(\([^)]*\)\)|alignas\s*\([^)]*\)|[A-Z][A-Z0-9_]+))*"
    r"\s*(?P<name>[A-Za-z_]\w*(?:::\w+)*)?"
)
_NAMESPACE = re.compile(r"(?:inline\s+)?namespace\b\s*(?P<name>[\w:]*)")
_DEFINE = re.compile(r"#\s*define\s+(?P<name>\w+)(?P<params>\([^)]*\))?[ \t]*(?P<value>.*)")
# Doxygen's structural blocks: a file's or group's, not an item's doc
_STRUCTURE = re.compile(r"^\s*[@\\](?:file|defgroup|addtogroup|name|page|mainpage|\{|\})\b", re.M)
_GROUP_ONLY = re.compile(r"^\s*(?:[@\\](?:\{|\}|name\b.*|ingroup\b.*))?\s*$")
_MAX_VALUE = 80
# an upper-case macro before more words of a declaration (`ZSTDLIB_API size_t`), not a type
# of its own (`CRTP *`, `FILE *`)
_DECORATOR = re.compile(r"\b[A-Z][A-Z0-9_]{2,}\b(?=\s+[A-Za-z_])")
_ASSIGN = re.compile(r"(?<![=!<>+\-*/%&|^])=(?!=)")


CFile = SourceFile  # its files, as the source hands them over


@dataclass
class _Comment:
    start: int
    end: int
    text: str  # without its marks
    doc: bool  # a Doxygen comment
    trailing: bool  # a member's doc after it ("/**<", "///<")
    block: bool  # a /* */ comment


def is_header(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_test(rel: PurePosixPath) -> bool:
    return any(p in ("test", "tests", "testing", "unittest") for p in rel.parts[:-1])


def api_documents(
    files: list[CFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the documented API the headers declare, sorted by uri; a file that
    gives none is counted in `rejects`. A name documented twice (a header included under
    two names) is one document, the first file's in path order."""

    def read(f: CFile) -> list[Document] | str:
        return C_TEST if is_test(f.rel) else list(file_documents(f, source))

    return first_documents(files, rejects, read, C_NO_API)


# ----------------------------------------------------------------------------- scanning
def scan(text: str) -> tuple[str, list[_Comment], list[tuple[int, int]]]:
    """(the code with comments, literals and preprocessor lines blanked, same length; the
    comments; the preprocessor lines as (start, end))."""
    out = list(text)
    comments: list[_Comment] = []
    directives: list[tuple[int, int]] = []
    i, n = 0, len(text)
    line_start = True  # only space since the line began
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c == "#":
            j = i
            while True:  # a directive runs on over lines ending in a backslash
                e = text.find("\n", j)
                e = n if e < 0 else e
                if text[j:e].rstrip().endswith("\\") and e < n:
                    j = e + 1
                    continue
                break
            # a comment on its line ends it: read as a comment (`#define X 1 /**< doc */`)
            mark = re.compile(r"/[*/]").search(text, i, e)
            e = mark.start() if mark is not None else e
            directives.append((i, e))
            blank(out, i, e)
            i = e
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            body = text[i + 2 : j]
            doc = body.startswith(("/", "!")) and not body.startswith("//")
            trailing = doc and body[1:2] == "<"
            comments.append(
                _Comment(i, j, body[1 + trailing :] if doc else body, doc, trailing, False)
            )
            blank(out, i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            body = text[i + 2 : j - 2]
            doc = (body.startswith("*") and not body.startswith(("**", "*/")) and body != "*") or (
                body.startswith("!")
            )
            trailing = doc and body[1:2] == "<"
            comments.append(
                _Comment(i, j, body[1 + trailing :] if doc else body, doc, trailing, True)
            )
            blank(out, i, j)
            i = j
        elif c in "\"'":
            if c == '"' and i and text[i - 1] == "R" and (m := re.match(r'"([^(\s]*)\(', text[i:])):
                close = f'){m.group(1)}"'  # a C++ raw string R"x(...)x"
                j = text.find(close, i + m.end())
                j = n if j < 0 else j + len(close) - 1
            else:
                j = i + 1
                while j < n and text[j] != c and text[j] != "\n":
                    j += 2 if text[j] == "\\" else 1
            blank(out, i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out), comments, directives


# ----------------------------------------------------------------------------- doc text
_INLINE = [
    (re.compile(r"[@\\](?:p|c|a|e|em|b)\s+([^\s,.;:)]+)"), r"`\1`"),
    (re.compile(r"[@\\]ref\s+(\S+?)(?=[\s,.;:)]|$)"), r"`\1`"),
    (re.compile(r"</?(?:b|i|em|strong|tt|code|br|p|ul|ol|li|pre)\s*/?>", re.I), ""),
]
_COMMANDS = {
    "param": ":param", "tparam": "Template parameter", "return": ":returns:",
    "returns": ":returns:", "result": ":returns:", "retval": "Returns", "throws": ":raises",
    "throw": ":raises", "exception": ":raises", "note": "Note:", "warning": "Warning:",
    "attention": "Attention:", "deprecated": "Deprecated:", "since": "Since:", "see": "See also:",
    "sa": "See also:", "pre": "Precondition:", "post": "Postcondition:", "remark": "Note:",
    "remarks": "Note:", "details": "", "brief": "", "short": "", "par": "",
}  # fmt: skip
_DROPPED = {
    "author", "authors", "date", "copyright", "version", "ingroup", "file", "defgroup",
    "addtogroup", "name", "{", "}", "internal", "endinternal", "cond", "endcond", "fn",
    "struct", "typedef", "def", "var", "enum", "class", "headerfile", "hideinitializer",
}  # fmt: skip
_COMMAND = re.compile(
    r"^(?P<indent>\s*)[@\\](?P<cmd>[a-zA-Z]+|\{|\})(?:\[[^\]]*\])?\s*(?P<rest>.*)$"
)


def doc_text(comments: list[_Comment], name: str = "") -> str:
    """The plain text of a run of doc comments: margins off, Doxygen commands as the
    templates read them (`@param x d` -> `:param x: d`, `@return d` -> `:returns: d`,
    `@code`/`\\rst` blocks fenced or kept), a leading "name() :" line (zstd's) dropped."""
    parts: list[str] = []
    for c in comments:
        body = c.text
        if c.block:
            lines = body.strip("\n").splitlines()
            if all(not x.strip() or re.match(r"\s*\*", x) for x in lines[1:]):
                lines = [re.sub(r"^\s*\*+ ?", "", x) for x in lines]
            body = "\n".join(lines).rstrip(" *")
        parts.append(body)
    raw = textwrap.dedent("\n".join(parts).strip("\n"))
    if name:
        short = re.escape(name.rsplit("::", 1)[-1])
        # a first line naming the item ("ZSTD_compress() :", "CHECK") says nothing more
        raw = re.sub(rf"^\s*{short}\s*(?:\(\s*\)\s*)?(?::\s*|\n|$)", "", raw, count=1)
    return _commands(raw)


def _commands(raw: str) -> str:
    out: list[str] = []
    fence = ""  # inside @code ... @endcode (or \verbatim)
    for line in raw.splitlines():
        m = _COMMAND.match(line)
        cmd = m.group("cmd").lower() if m else ""
        if fence:
            if cmd in ("endcode", "endverbatim"):
                out.append("```")
                fence = ""
            else:
                out.append(line.rstrip())
            continue
        if m is None:
            out.append(_inline(line).rstrip())
            continue
        rest = _inline(m.group("rest")).strip()
        if cmd in ("code", "verbatim"):
            lang = re.match(r"\{\.?(\w+)\}", m.group("rest").strip())
            out.append(f"```{lang.group(1) if lang else ''}")
            fence = cmd
        elif cmd in ("rst", "endrst", "htmlonly", "endhtmlonly"):
            continue
        elif cmd in _DROPPED:
            continue
        elif cmd in ("param", "tparam"):
            words = rest.split(None, 1)
            if words:
                key = ":param" if cmd == "param" else "Template parameter"
                out.append(
                    f"{key} {words[0].rstrip(',')}: {words[1] if len(words) > 1 else ''}".rstrip()
                )
        elif cmd in ("throws", "throw", "exception"):
            words = rest.split(None, 1)
            if words:
                out.append(f":raises {words[0]}: {words[1] if len(words) > 1 else ''}".rstrip())
        elif cmd == "retval":
            words = rest.split(None, 1)
            if words:
                out.append(f"- `{words[0]}`: {words[1] if len(words) > 1 else ''}".rstrip())
        elif cmd in _COMMANDS:
            word = _COMMANDS[cmd]
            rest = rest.lstrip(":").strip()
            out.append(f"{word} {rest}".strip() if word else rest)
        else:
            out.append(_inline(line).rstrip())
    if fence:
        out.append("```")
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out))
    return html.unescape(text).strip("\n")


def _inline(line: str) -> str:
    for pattern, repl in _INLINE:
        line = pattern.sub(repl, line)
    return line


# ----------------------------------------------------------------------------- items
@dataclass
class _Scope:
    path: list[str]  # namespaces and classes
    kind: str = "namespace"  # namespace, class, struct, union
    access: str = "public"


@dataclass
class _File:
    source: str
    f: CFile
    code: str
    comments: list[_Comment]
    directives: list[tuple[int, int]]
    doxygen: bool  # the file has Doxygen comments (else plain ones over a declaration count)
    starts: list[int] = field(default_factory=list)
    bare: str = ""  # the source with comments and directives blanked, literals kept
    used: set[int] = field(default_factory=set)  # trailing comments taken by an item

    def __post_init__(self) -> None:
        self.starts = [c.start for c in self.comments]
        spans = [(c.start, c.end) for c in self.comments] + self.directives
        self.bare = blanked(self.f.text, spans)

    def line(self, at: int) -> int:
        return self.f.text.count("\n", 0, at) + 1

    def leading(self, a: int, b: int, name: str = "", adjacent: bool = False) -> str:
        """The doc of what starts at `b`: the last doc comment (or run of `///` lines)
        between a and b, not a file's or group's block; in a header without Doxygen
        comments, a plain block comment that ends on the line over it."""
        k = bisect_left(self.starts, a)
        found: list[_Comment] = []
        while k < len(self.comments) and self.comments[k].start < b:
            c = self.comments[k]
            if c.start not in self.used and not c.trailing and (c.doc or not self.doxygen):
                if (
                    found
                    and _gap(self.f.text, found[-1].end, c.start)
                    and not (not found[-1].block and not c.block)
                ):
                    found = []
                elif found and _gap(self.f.text, found[-1].end, c.start, 2):
                    found = []
                found.append(c)
            else:
                found = []
            k += 1
        if not found or (adjacent and self.f.text[found[-1].end : b].strip()):
            return ""
        if not self.doxygen:  # plain comments: one block on its own lines, right over it
            last = found[-1]
            line_start = self.f.text.rfind("\n", 0, last.start) + 1
            if (
                not last.block
                or self.f.text[line_start : last.start].strip()  # it trails the line's code
                or _gap(self.f.text, last.end, b)
                or _banner(last.text)
                or _label(last.text)
            ):
                return ""
            found = [last]
        text = doc_text(found, name)
        if _STRUCTURE.search("\n".join(c.text for c in found)) or _GROUP_ONLY.fullmatch(text):
            return ""
        return text

    def trailing(self, at: int, end: int) -> str:
        """A member's doc after it on the line where it ends (`/**< ... */`, `///< ...`; in a
        header without Doxygen comments, the plain comment there: `int x; /* what x is */`)."""
        k = bisect_left(self.starts, end)
        line_end = self.f.text.find("\n", end)
        line_end = len(self.f.text) if line_end < 0 else line_end
        if k < len(self.comments):
            c = self.comments[k]
            plain = not self.doxygen and not c.doc and not _banner(c.text)
            if (c.trailing or plain) and c.start <= line_end:
                self.used.add(c.start)
                return doc_text([c])
        return ""

    def document(
        self, qual: str, kind: str, head: str, signature: str, doc: str, at: int, extra: list[str]
    ) -> Document:
        text = doc if kind == "header" else f"{head}\n\n{doc}"
        more = "\n\n".join(x for x in extra if x)
        if more:
            text += f"\n\n{more}"
        line = self.line(at)
        return api_document(self.source, URI_PREFIX, self.f, qual, text, kind, signature, line)


def _gap(text: str, a: int, b: int, lines: int = 2) -> bool:
    """Whether a blank line (two line breaks with only space between) lies between a and b;
    with lines=2 for two comments, the same."""
    return bool(re.search(r"\n[ \t]*\n", text[a:b])) if lines else False


def _label(text: str) -> bool:
    """A plain comment that names a group of declarations ("Version 3.12.0 and later",
    "Flags"): a few words and no sentence, not the doc of the one under it."""
    words = text.replace("*", " ").split()
    return len(words) <= 6 and not re.search(r"[.!?](?:\s|$)", text.strip())


def _banner(text: str) -> bool:
    """A license or a section banner, not a declaration's doc."""
    low = text.lower()
    return (
        "copyright" in low
        or "license" in low
        or bool(re.fullmatch(r"[\s*=\-#/]*", text))
        or bool(re.match(r"\s*[*=\-]{5,}", text))
    )


def file_documents(f: CFile, source: str) -> Iterator[Document]:
    """The documents of one header, in the order its declarations stand."""
    code, comments, directives = scan(f.text)
    g = _File(source, f, code, comments, directives, any(c.doc for c in comments))
    yield from _header_doc(g)
    items = sorted([*_walk(g, 0, len(code), _Scope([])), *_defines(g)], key=lambda d: d[0])
    for _, doc in items:
        yield doc


def _header_doc(g: _File) -> Iterator[Document]:
    """A header's `@file` block (its @brief and text), as the header's document."""
    for c in g.comments:
        if c.doc and re.search(r"[@\\]file\b", c.text):
            text = doc_text([c])
            if text.strip():
                name = str(g.f.rel)
                yield g.document(name, "header", "", "", text, c.start, [])
            return


def _defines(g: _File) -> Iterator[tuple[int, Document]]:
    """Documented object- and function-like macros (`#define NAME value`)."""
    prev = 0
    for a, b in g.directives:
        m = _DEFINE.match(g.bare[a:b].replace("\\\n", " ")) or _DEFINE.match(
            g.f.text[a:b].replace("\\\n", " ")
        )
        if m is None:
            prev = b
            continue
        name = m.group("name")
        doc = g.leading(prev, a, name, adjacent=True) or g.trailing(a, b)
        prev = b
        if not doc or name.startswith("_") or name.endswith(("_H", "_H_", "_H__", "_HPP")):
            continue
        written = _DEFINE.match(" ".join(g.f.text[a:b].replace("\\\n", " ").split()))
        shown = " ".join((written.group("value") if written else "").split())
        params = m.group("params") or ""
        extra = [f"Value: `{shown}`" if shown and len(shown) <= _MAX_VALUE and not params else ""]
        head = f"{name}{params}" if params else name
        yield a, g.document(name, "macro", head, params, doc, a, extra)


def _skip_space(code: str, j: int, end: int) -> int:
    while j < end and code[j].isspace():
        j += 1
    return j


def _statement_end(code: str, j: int, end: int) -> tuple[int, str]:
    """(position, char) of the `;` or `{` that ends or opens the statement at `j`, outside
    brackets; (end, "") when neither comes."""
    k = j
    while k < end:
        ch = code[k]
        if ch in "([":
            k = closing(code, k)
            continue
        if ch in ";{":
            return k, ch
        if ch == "}":
            return k, ""
        k += 1
    return end, ""


def _walk(g: _File, start: int, end: int, scope: _Scope) -> Iterator[tuple[int, Document]]:
    code = g.code
    j = _skip_space(code, start, end)
    region = start
    while j < end:
        ch = code[j]
        if ch == ";":
            region = j + 1
            j = _skip_space(code, j + 1, end)
            continue
        if ch == "}":  # a stray close (an #ifdef'd open brace): past it
            region = j + 1
            j = _skip_space(code, j + 1, end)
            continue
        access = _ACCESS.match(code, j)
        if access is not None:
            scope.access = access.group(1)
            region = access.end()
            j = _skip_space(code, access.end(), end)
            continue
        macro = _MACRO_LINE.match(code, j)
        if macro is not None:  # GIT_BEGIN_DECL, FMT_BEGIN_NAMESPACE: a line of its own
            opens = _BEGIN_NAMESPACE.fullmatch(macro.group(0).strip())
            if opens is not None:  # its namespace, by the macro's name (`fmt`)
                scope = _Scope(
                    [*scope.path, (opens.group(1) or opens.group(2)).lower()],
                    scope.kind,
                    scope.access,
                )
            elif _END_NAMESPACE.fullmatch(macro.group(0).strip()) and scope.path:
                scope = _Scope(scope.path[:-1], scope.kind, scope.access)
            j = _skip_space(code, macro.end(), end)
            continue
        stop, kind = _statement_end(code, j, end)
        if kind == "{":
            item_end = yield from _braced(g, j, stop, end, region, scope)
        else:
            item_end = stop + 1 if kind == ";" else max(stop, j + 1)
            yield from _declaration(g, j, stop, region, scope)
        region = item_end
        j = _skip_space(code, item_end, end)


def _strip_template(head: str) -> tuple[str, str]:
    """(the template parameter list, the head without it) of a declaration's head."""
    m = _TEMPLATE.match(head)
    if m is None:
        return "", head
    close = closing(head, m.end() - 1, "<>()")
    return " ".join(head[m.end() - 1 : close].split()), head[close:].lstrip()


def _braced(
    g: _File, j: int, brace: int, end: int, region: int, scope: _Scope
) -> Generator[tuple[int, Document], None, int]:
    """A statement that opens a brace at `brace`: a namespace, an extern "C" block, a class,
    struct, union or enum, a function's body or a braced initializer. Returns past it."""
    code = g.code
    close = min(closing(code, brace), end)
    head = " ".join(code[j:brace].split())
    tail_stop, _ = _statement_end(code, close, end)  # declarators after a type's body
    after = close
    ns = _NAMESPACE.match(head)
    if ns is not None:
        name = ns.group("name")
        hidden = not name or name.split("::")[-1] in _PRIVATE_NAMESPACES
        if not hidden and scope.access == "public":
            path = [*scope.path, *[p for p in name.split("::") if p]]
            yield from _walk(g, brace + 1, close - 1, _Scope(path))
        return close
    if re.fullmatch(r'extern\s*"\s*"', head) or head.startswith('extern " "'):
        yield from _walk(g, brace + 1, close - 1, scope)
        return close
    template, bare_head = _strip_template(head)
    typ = _TYPE_HEAD.match(bare_head)
    if typ is not None and "(" not in bare_head.split("{")[0][: typ.end()]:
        kw = typ.group("kw").split()[0]
        name = typ.group("name") or ""
        declarators = " ".join(code[close:tail_stop].split())
        if bare_head.startswith("typedef") and declarators:
            name = re.split(r"[\s,*]+", declarators.strip(" *"))[0] or name
        after = tail_stop + 1 if code[tail_stop : tail_stop + 1] == ";" else close
        if not name or scope.access != "public":
            return after
        qual = "::".join([*scope.path, name])
        doc = g.leading(region, j, name)
        extra = [f"Template parameters: `{template}`." if template else ""]
        if doc:
            yield j, g.document(qual, kw, qual, "", doc, j, extra)
        if kw == "enum":
            yield from _enumerators(g, qual, brace + 1, close - 1, "class" in typ.group("kw"))
        else:
            inner = _Scope([*scope.path, name], kw, "private" if kw == "class" else "public")
            yield from _walk(g, brace + 1, close - 1, inner)
        return after
    # a braced initializer (`int x{0};`, `T y = {..};`): a declaration that ends at its ";"
    paren = _top_paren(bare_head)
    if paren < 0 or _assigns(bare_head[:paren]):
        stop, _ = _statement_end(code, close, end)
        yield from _declaration(g, j, stop, region, scope)
        return stop + 1
    # a function's definition: its head is the declaration, its body skipped
    yield from _declaration(g, j, brace, region, scope)
    nxt = _skip_space(code, close, end)
    return nxt + 1 if code[nxt : nxt + 1] == ";" else close


def _top_paren(head: str) -> int:
    """The first `(` of `head` outside angle brackets, or -1."""
    depth = 0
    for k, ch in enumerate(head):
        if ch == "<" and head[k + 1 : k + 2] != "<" and head[k - 1 : k] != "<":
            depth += 1
        elif ch == ">" and depth and head[k - 1 : k] != "-":
            depth -= 1
        elif ch == "(" and depth == 0:
            return k
    return -1


def _declaration(
    g: _File, j: int, stop: int, region: int, scope: _Scope
) -> Iterator[tuple[int, Document]]:
    """A declaration ending at `stop` (its `;`, or a function body's `{`): a function, a
    variable or field, a typedef or an alias."""
    if scope.access != "public":
        g.trailing(j, stop)  # a private member's trailing doc is no one else's
        return
    head = " ".join(g.bare[j:stop].split())
    if not head or head.startswith(("friend ", "using namespace", "static_assert", "return ")):
        return
    template, head = _strip_template(head)
    if re.match(r"(?:class|struct|union|enum)\s+[\w:]+\s*$", head):  # a forward declaration
        return
    alias = re.match(r"using\s+(?P<name>\w+)\s*=\s*(?P<type>.+)$", head)
    callback = re.search(r"\(\s*(?:\w+\s+)?[*&^]\s*(?P<name>\w+)\s*\)\s*\(", head)
    doc_for = ""
    if alias is not None:
        name, kind = alias.group("name"), "type"
        extra = [
            f"Definition: `{alias.group('type')}`" if len(alias.group("type")) <= _MAX_VALUE else ""
        ]
        signature, shown = "", ""
    elif head.startswith("typedef"):
        name = callback.group("name") if callback else re.findall(r"\w+", head)[-1]
        kind = "typedef"
        body = head.removeprefix("typedef").strip()
        extra = [f"Definition: `{body}`" if len(body) <= _MAX_VALUE * 2 else ""]
        signature, shown = "", ""
    elif callback is not None and "=" not in head[: callback.start()]:
        name, kind = callback.group("name"), "variable"
        extra = [f"Type: `{head}`" if len(head) <= _MAX_VALUE * 2 else ""]
        signature, shown = "", ""
    else:
        got = _function(head)
        if got is not None:
            name, params, returns, tail = got
            kind = "method" if scope.kind != "namespace" else "function"
            if scope.kind != "namespace" and name in (scope.path[-1], f"~{scope.path[-1]}"):
                kind = "constructor" if not name.startswith("~") else "destructor"
            shown = "" if params.strip() == "void" else params
            signature = f"({shown})"
            extra = [
                f"Template parameters: `{template}`." if template else "",
                f"Qualifiers: `{tail}`." if tail else "",
                f":returns: `{returns}`" if returns and returns != "void" else "",
            ]
            doc_for = "returns"
        else:
            braced = re.fullmatch(r"(?P<decl>[^{]*?)\s*\{(?P<value>.*)\}", head)
            if braced is not None:  # `std::string dir_{}`: a braced initializer
                head = braced.group("decl") + (
                    f" = {braced.group('value').strip()}" if braced.group("value").strip() else ""
                )
            var = re.match(
                r"(?P<type>.*?)(?P<name>[A-Za-z_]\w*)\s*(?P<array>\[[^\]]*\])*\s*(?::\s*\d+)?\s*(?:=\s*(?P<value>.*))?$",
                head,
            )
            if var is None or not var.group("type").strip():
                return
            name = var.group("name")
            kind = "field" if scope.kind != "namespace" else "variable"
            typ = _STORAGE.sub("", var.group("type")).strip() + (var.group("array") or "")
            value = (var.group("value") or "").strip()
            extra = [
                f"Type: `{' '.join(typ.split())}`" if typ else "",
                f"Value: `{value}`" if value and len(value) <= _MAX_VALUE else "",
            ]
            signature, shown = "", ""
    if name in _KEYWORDS or not name:
        return
    doc = g.leading(region, j, name) or g.trailing(j, stop)
    if not doc:
        return
    if doc_for == "returns" and ":returns:" in doc:
        extra = [x for x in extra if not x.startswith(":returns:")]
    qual = "::".join([*scope.path, name])
    head_line = (
        f"{qual}({shown})" if kind in ("function", "method", "constructor", "destructor") else qual
    )
    yield j, g.document(qual, kind, head_line, signature, doc, j, extra)


def _function(head: str) -> tuple[str, str, str, str] | None:
    """(name, parameters, return type, qualifiers after the parameters) of a function's
    declaration head, or None when it declares no function. The name is the first word
    before a top-level parenthesis that is no upper-case macro (`GIT_EXTERN(int)`) and no
    keyword; an operator keeps its symbol (`operator==`)."""
    k = 0
    while True:
        paren = _top_paren(head[k:])
        if paren < 0:
            return None
        paren += k
        before = head[:paren].rstrip()
        op = re.search(r"operator\s*(?:\(\)|[^\w\s(]+|\s+\w[\w\s:*&<>]*)$", before)
        word = re.search(r"(~?[A-Za-z_]\w*)$", before)
        close = closing(head, paren, "()[]")
        if op is not None:
            symbol = " ".join(op.group(0)[8:].split())
            name = f"operator{symbol}" if not symbol[:1].isalpha() else f"operator {symbol}"
            at = op.start()
        elif (
            word is not None
            and word.group(1) not in _KEYWORDS
            and not _MACRO.fullmatch(word.group(1))
        ):
            name, at = word.group(1), word.start()
        else:
            if word is not None and word.group(1) in (
                "decltype",
                "noexcept",
                "__attribute__",
                "alignas",
            ):
                return None if _assigns(head[:paren]) else _after(head, close)
            k = close
            if _assigns(head[:paren]):
                return None
            continue
        if _assigns(head[:at]):
            return None  # `int x = f(1)`: a variable
        params = head[paren + 1 : close - 1]
        if _arguments_given(params):
            return None  # `const Range Positive(0.0, "POSITIVE")`: a variable, constructed
        # the qualified name's own scope (`Foo::bar`) is part of the name
        scoped = re.search(r"((?:\w+::)+)$", head[:at])
        if scoped is not None:
            at -= len(scoped.group(1))
        params = " ".join(head[paren + 1 : close - 1].split())
        returns = _return_type(head[:at])
        tail = " ".join(head[close:].split())
        arrow = re.match(r"(?P<q>.*?)->\s*(?P<t>.+)$", tail)
        if arrow is not None:
            tail, returns = arrow.group("q").strip(), arrow.group("t").strip()
        tail = re.sub(r"\s*=\s*0\s*$", " = 0", tail).strip()
        return name, params, returns, tail


def _arguments_given(params: str) -> bool:
    """Whether a parenthesised list holds a constructor's arguments, not parameters: a
    literal that is no default value, or nothing but numbers."""
    parts = [p.strip() for p in re.split(r",(?![^(<]*[)>])", params) if p.strip()]
    if any(re.search(r"[\"']", p) and "=" not in p for p in parts):
        return True
    return bool(parts) and all(re.fullmatch(r"[-+]?[\d.]+[uUlLfF]*", p) for p in parts)


def _assigns(text: str) -> bool:
    """Whether `text` holds an assignment's `=` (not `==`, `<=`, an `operator=`)."""
    return bool(_ASSIGN.search(re.sub(r"operator\s*\S+", "", text)))


def _after(head: str, close: int) -> tuple[str, str, str, str] | None:
    """A function whose head goes on after a `decltype(...)` or an attribute's list."""
    got = _function(head[close:])
    return got


def _return_type(before: str) -> str:
    """The return type in a declaration's words before its name: storage words and
    attributes out, a macro's own parenthesised type kept (`GIT_EXTERN(int)` -> int)."""
    text = re.sub(r"\b[A-Z][A-Z0-9_]{2,}\s*\(([^()]*)\)", r"\1", before)
    text = _DECORATOR.sub("", text)
    text = _STORAGE.sub("", text)
    text = re.sub(r"__attribute__\s*\(\(.*?\)\)|__declspec\s*\([^)]*\)", "", text)
    return " ".join(text.split()).strip()


def _enumerators(
    g: _File, owner: str, start: int, end: int, scoped: bool
) -> Iterator[tuple[int, Document]]:
    """An enum's documented enumerators: named through the enum for `enum class`, in the
    enclosing scope for a plain enum (as C and C++ name them)."""
    code = g.code
    parent = owner if scoped else owner.rpartition("::")[0]
    k, region = _skip_space(code, start, end), start
    while k < end:
        e = k
        while e < end and code[e] != ",":
            if code[e] in "([{":
                e = min(closing(code, e), end)
                continue
            e += 1
        entry = " ".join(g.bare[k:e].split())
        m = re.match(r"(?P<name>[A-Za-z_]\w*)\s*(?:=\s*(?P<value>.+))?$", entry)
        # the doc over it, or after it on its line (past the comma: `A = 1, /**< doc */`)
        doc = g.leading(region, k) or g.trailing(k, min(e + 1, end) if e < end else e)
        if m is not None and doc:
            qual = f"{parent}::{m.group('name')}" if parent else m.group("name")
            value = (m.group("value") or "").strip()
            extra = [f"Value: `{value}`" if value and len(value) <= _MAX_VALUE else ""]
            yield k, g.document(qual, "enumerator", qual, "", doc, k, extra)
        region = e + 1
        k = _skip_space(code, e + 1, end)
