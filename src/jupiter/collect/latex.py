"""LaTeX sources (`.tex`) read as the Markdown a reader of their PDF would see: papers,
theses, manuals and beamer slides kept as LaTeX in a project's repository.

Read as plain text, a `.tex` file gave the question templates its markup: `\\section{...}`,
`\\begin{itemize}`, `\\textbf{...}`, `%` comments, preambles of `\\usepackage` lines and
tables of `&` cells. Here the source is scanned the way TeX reads it (not by a pile of
global patterns): characters become tokens (control words, braces, math, verbatim text),
`%` comments, `\\iffalse ... \\fi` and `comment` environments go, spaces after a control
word are skipped, a blank line ends a paragraph, `\\input`, `\\include` and `\\subfile`
are read in place (relative to the including file's folder, then to the main file's; a
cycle, or more than 8 levels deep, is not followed), and commands take their arguments by
brace and bracket matching. The preamble (before `\\begin{document}`) gives only the title,
the author and the definitions: `\\newcommand` / `\\def` macros (with arguments,
`#1`..`#9`, and an optional first one) are expanded where used, in math too, at most 10
levels deep so a macro that calls itself ends; `\\newtheorem` names theorem-like
environments; `\\newenvironment` wraps its content. Without a `\\begin{document}` (a
chapter file) the whole file is text. The title is `\\title`'s, else hyperref's
`pdftitle`, else the first heading's.

Then each construct becomes its Markdown: sectioning commands headings (`\\chapter` and
`\\part` `#` with `\\section` `##` below them in a document with chapters, else `\\section`
`#`; `\\paragraph` a heading too), beamer frames a heading one level below their section
(overlays `<2->` and `\\pause` gone, every `\\only` shown), `\\maketitle` the title as
`# Title`, the abstract `## Abstract`; itemize, enumerate and description lists `- `,
`1. ` and `- **term**: ` items (2 spaces deeper per level); verbatim, lstlisting and
minted environments fenced code (the `language=` option or minted's argument the fence's
language), `\\verb` and `\\lstinline` code spans; inline math `$...$` as written, display
math and the equation/align family `$$` blocks (labels gone); tabulars Markdown tables, a
float its caption as `Figure: ...`/`Table: ...` after its content; theorems
`**Theorem.** text`, proofs `*Proof.* text`, quotes `> ` lines; `\\emph` and `{\\em ..}`
`*x*`, `\\textbf` `**x**`, `\\texttt` `` `x` ``, `\\url{u}` `<u>`, `\\href{u}{t}`
`t (<u>)`, a footnote ` (text)` right after its word; accents, dashes, quotes and escaped
specials their characters. A `\\ref` to a section gives its title in quotes
(`Section~\\ref{sec:intro}`: `Section "Introduction"`), to a figure or table "the figure" /
"the table" (the word before it replaced), else nothing; citations go (`\\citet` its
key), and bibliographies; layout commands go with their arguments, and an unknown command
keeps its one braced argument's text. A file that another file of the source inputs is
read there, not on its own.
"""

from __future__ import annotations

import functools
import re
import textwrap
import unicodedata
from collections.abc import Callable

from jupiter.collect import asciidoc
from jupiter.collect.markdown import as_text

SUFFIXES = (".tex", ".ltx")
INCLUDED = "latex_included"
INCLUDED_FIX = "a LaTeX file another one inputs is read where it is input, not on its own"
MAX_INCLUDE_DEPTH = 8
MAX_MACRO_DEPTH = 10
MAX_EXPANSIONS = 20000  # macro uses expanded in one file, at most
MAX_EXPANDED = 500_000  # tokens those expansions make, at most
MAX_NESTING = 40  # environments or arguments in one another: deeper ones read flat

# (an input's target as written, the including file's folder) -> (its text, its folder)
Reader = Callable[[str, str], tuple[str, str] | None]


def takes(name: str) -> bool:
    """Whether a file name says LaTeX."""
    return name.lower().endswith(SUFFIXES)


def resolve(target: str, folder: str) -> str | None:
    """An input's target as a path relative to the source's root (`/`-separated), from
    `folder`; None for a URL, an absolute path, a macro argument or one that leaves the
    source (AsciiDoc's rule, asciidoc.resolve, once a macro's `#`/`\\` are ruled out)."""
    target = target.strip().strip('"')
    if not target or re.search(r"[{}#\\]", target):
        return None
    return asciidoc.resolve(target, folder) or None


def _find(target: str, folder: str, names: dict[str, str]) -> str | None:
    """The file of `names` an input's target means: relative to `folder`, then to the
    root; `.tex` added to a name that is not there as written."""
    return asciidoc.find_included(target, folder, names, ".tex", resolved=resolve)


def includes(text: str) -> list[str]:
    """The targets of a file's `\\input`, `\\include` and `\\subfile` commands, as written
    (not those in comments or verbatim text)."""
    targets: list[str] = []
    _Lexer(None, "", targets).lex(text, "", ())
    return targets


def batch(texts: dict[str, str]) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """Of a source's .tex files ({path relative to its root: text}), the documents
    ({path: (title, Markdown)}) and the paths another file inputs (read there, not on
    their own). A file that gives no text is no document."""
    tex = {p: t for p, t in texts.items() if takes(p)}
    static: set[str] = set()
    for p, t in tex.items():
        for target in includes(t):
            got = _find(target, asciidoc.folder_of(p), tex)
            if got is not None and got != p:
                static.add(got)
    path_of = {(asciidoc.folder_of(p), t): p for p, t in tex.items()}

    def read(target: str, folder: str) -> tuple[str, str] | None:
        got = _find(target, folder, tex)
        return None if got is None else (tex[got], asciidoc.folder_of(got))

    out: dict[str, tuple[str, str]] = {}
    reached: set[str] = set()  # read in place by a document
    converted: set[str] = set()
    # the files no other one inputs first; then any file of a cycle that none of those
    # reached (a inputs b inputs a): the first of it read on its own
    order = sorted(p for p in tex if p not in static) + sorted(static)
    for p in order:
        if p in reached or p in converted:
            continue
        title, markdown, inputs = _convert(tex[p], read, asciidoc.folder_of(p))
        converted.add(p)
        reached |= {path_of[i] for i in inputs if i in path_of} - {p}
        if markdown:
            out[p] = (title, markdown)
    for p in list(out):
        if p in reached:
            del out[p]
    included = (static | reached) - (converted - reached)
    return out, included


def to_markdown(text: str, read: Reader | None = None, folder: str = "") -> tuple[str, str]:
    """(title, Markdown) of one LaTeX file in `folder`; `read(target, folder)` gives the
    text and folder of a file it inputs (None: none)."""
    title, markdown, _ = _convert(text, read, folder)
    return title, markdown


def _convert(text: str, read: Reader | None, folder: str) -> tuple[str, str, list[tuple[str, str]]]:
    lexer = _Lexer(read, folder)
    toks = lexer.lex(text, folder, ((folder, text),))
    title, markdown = _Render().document(toks)
    return title, markdown, lexer.inputs


# ----------------------------------------------------------------------------- tokens
class _Tok:
    """One token: kind "cmd" (value: the name), "text", "sp", "par", "bg", "eg", "char"
    (& ~ ^ _ #), "param" (#1), "math"/"dmath" (value: the math as written), "verb"
    (inline code), "code" (a verbatim block; extra: its options), "url", "href" (value:
    the address). raw: the source it came from; depth: macro expansions it came out of."""

    __slots__ = ("kind", "value", "raw", "depth", "extra")

    def __init__(
        self, kind: str, value: str, raw: str = "", depth: int = 0, extra: str = ""
    ) -> None:
        self.kind = kind
        self.value = value
        self.raw = raw
        self.depth = depth
        self.extra = extra

    def again(self, depth: int) -> _Tok:
        return _Tok(self.kind, self.value, self.raw, depth, self.extra)


_TEXT_RUN = re.compile(r"[^\\{}$&#^_~%\[\]\s]+")
_WORD = re.compile(r"[A-Za-z]+")
_WORD_AT = re.compile(r"[A-Za-z@]+")
_SPACES = re.compile(r"[ \t\f\v]*")
_ENV_NAME = re.compile(r"[ \t]*\{([^{}\\\n]*)\}")
_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n")
_CONDITIONAL = re.compile(r"\\(if[A-Za-z@]*|fi|else)(?![A-Za-z@])")
_NOT_CONDITIONALS = {"ifthenelse", "ifdefempty", "ifstrequal", "ifcsdef", "ifdef", "ifundef"}
_VERBATIM_ENVS = {
    "verbatim", "verbatim*", "Verbatim", "Verbatim*", "BVerbatim", "LVerbatim", "lstlisting",
    "minted", "alltt", "verbatimtab", "code", "spverbatim", "comment*",
}  # fmt: skip
_MATH_ENVS = {
    "equation", "equation*", "align", "align*", "alignat", "alignat*", "flalign", "flalign*",
    "gather", "gather*", "multline", "multline*", "eqnarray", "eqnarray*", "displaymath",
    "math", "dmath", "dmath*",
}  # fmt: skip
_SKIPPED_ENVS = {"comment", "filecontents", "filecontents*"}
_INPUTS = {"input", "include", "subfile", "subfileinclude", "import", "subimport", "inputfrom"}


def _balanced(text: str, i: int) -> tuple[str, int] | None:
    """The text of the braced group opening at text[i] (a `{`) and the index past it;
    None when it does not close on the same paragraph."""
    depth = 0
    j = i
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : j], j + 1
        elif c == "\n" and _BLANK_LINE.match(text, j):
            return None
        j += 1
    return None


def _bracketed(text: str, i: int) -> tuple[str, int] | None:
    """The text of the `[...]` opening at text[i] (braces nest, brackets do not)."""
    depth = 0
    j = i + 1
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "]" and depth <= 0:
            return text[i + 1 : j], j + 1
        elif c == "\n" and _BLANK_LINE.match(text, j):
            return None
        j += 1
    return None


def _scan_math(text: str, i: int, closer: str) -> tuple[str, int] | None:
    """The math from text[i] up to `closer` (its comments gone) and the index past the
    closer; None when a blank line or the end comes first (then it is no math)."""
    parts: list[str] = []
    start = j = i
    n = len(text)
    while j < n:
        if text.startswith(closer, j):
            parts.append(text[start:j])
            return "".join(parts), j + len(closer)
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "%":
            parts.append(text[start:j])
            nl = text.find("\n", j)
            j = n if nl < 0 else nl + 1
            start = j
            continue
        if c == "\n" and _BLANK_LINE.match(text, j):
            return None
        j += 1
    return None


def _strip_comments(text: str) -> str:
    """Text without its `%` comments (a `\\%` kept)."""
    return re.sub(r"(?<!\\)((?:\\\\)*)%[^\n]*\n?", r"\1", text)


def _body_only(toks: list[_Tok]) -> list[_Tok]:
    """An input file's tokens; of one with a document environment (a subfile), its body."""
    begin = _begin_document(toks)
    if begin is None:
        return toks
    body = toks[begin[1] :]
    for k in range(len(body) - 3):
        t = body[k]
        if t.kind == "cmd" and t.value == "end" and body[k + 2].value == "document":
            return body[:k]
    return body


def _begin_document(toks: list[_Tok]) -> tuple[int, int] | None:
    for k in range(len(toks) - 3):
        t = toks[k]
        if (
            t.kind == "cmd"
            and t.value == "begin"
            and toks[k + 1].kind == "bg"
            and toks[k + 2].kind == "text"
            and toks[k + 2].value == "document"
            and toks[k + 3].kind == "eg"
        ):
            return k, k + 4
    return None


class _Lexer:
    """Text to tokens, the way TeX reads it: comments gone, blank lines paragraph breaks,
    spaces after a control word skipped, verbatim text and math kept as written, inputs
    read in place."""

    def __init__(self, read: Reader | None, main: str, targets: list[str] | None = None) -> None:
        self.read = read
        self.main = main
        self.targets = targets
        self.inputs: list[tuple[str, str]] = []  # (folder, text) of each file read in place
        self.at_letter = False

    def lex(self, text: str, folder: str, stack: tuple[tuple[str, str], ...]) -> list[_Tok]:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        text = re.sub(r"[\x00-\x04]", "", text)
        out: list[_Tok] = []
        n = len(text)
        i = 0
        line_content = False  # the current line has had something other than spaces

        def space(par: bool, raw: str) -> None:
            if out and out[-1].kind in ("sp", "par"):
                last = out[-1]
                out[-1] = _Tok("par" if par or last.kind == "par" else "sp", " ", last.raw + raw)
                return
            out.append(_Tok("par" if par else "sp", " ", raw))

        while i < n:
            c = text[i]
            if c == "\\":
                i, line_content = self.control(text, i, folder, stack, out, line_content)
            elif c == "\n":
                space(not line_content, "\n")
                line_content = False
                i += 1
            elif c in " \t\f\v":
                j = _SPACES.match(text, i).end()  # type: ignore[union-attr]
                if line_content:
                    space(False, text[i:j])
                i = j
            elif c == "%":
                nl = text.find("\n", i)
                i = n if nl < 0 else nl + 1
                line_content = False
            elif c == "{":
                out.append(_Tok("bg", "{", "{"))
                i += 1
                line_content = True
            elif c == "}":
                out.append(_Tok("eg", "}", "}"))
                i += 1
                line_content = True
            elif c == "$":
                line_content = True
                if text.startswith("$$", i):
                    got = _scan_math(text, i + 2, "$$")
                    kind = "dmath"
                else:
                    got = _scan_math(text, i + 1, "$")
                    kind = "math"
                if got is None:
                    out.append(_Tok("text", "$", "$"))
                    i += 1
                else:
                    out.append(_Tok(kind, got[0], text[i : got[1]]))
                    i = got[1]
            elif c == "#":
                line_content = True
                nxt = text[i + 1 : i + 2]
                if nxt.isdigit() or nxt == "#":
                    out.append(_Tok("param", nxt, text[i : i + 2]))
                    i += 2
                else:
                    out.append(_Tok("char", "#", "#"))
                    i += 1
            elif c in "&~^_":
                out.append(_Tok("char", c, c))
                i += 1
                line_content = True
            elif c in "[]":
                out.append(_Tok("text", c, c))
                i += 1
                line_content = True
            else:
                m = _TEXT_RUN.match(text, i)
                j = m.end() if m is not None else i + 1
                out.append(_Tok("text", text[i:j], text[i:j]))
                i = j
                line_content = True
        return out

    def control(
        self,
        text: str,
        i: int,
        folder: str,
        stack: tuple[tuple[str, str], ...],
        out: list[_Tok],
        line_content: bool,
    ) -> tuple[int, bool]:
        """The control sequence at text[i]: its token(s) appended; the index past it and
        whether its line has content."""
        n = len(text)
        if i + 1 >= n:  # a lone backslash at the end
            return n, line_content
        m = (_WORD_AT if self.at_letter else _WORD).match(text, i + 1)
        if m is None:
            c = text[i + 1]
            if c == "\n":  # a control space
                out.append(_Tok("cmd", " ", text[i : i + 2]))
                return i + 2, False
            if c in "([":
                got = _scan_math(text, i + 2, "\\)" if c == "(" else "\\]")
                if got is not None:
                    out.append(_Tok("math" if c == "(" else "dmath", got[0], text[i : got[1]]))
                    return got[1], True
            out.append(_Tok("cmd", c, text[i : i + 2]))
            return i + 2, True
        name = m.group()
        j = m.end()
        k = _SPACES.match(text, j).end()  # type: ignore[union-attr]
        newline = k < n and text[k] == "\n"
        after = k + 1 if newline else k
        if name in ("verb", "lstinline", "mintinline", "mint", "inlinecode", "url", "path"):
            end = self.verbatim(name, text, j, out)
            if end is not None:
                return end, True
        elif name == "nolinkurl" or name == "href":
            g = _balanced(text, k) if k < n and text[k] == "{" else None
            if g is not None:
                out.append(_Tok("url" if name == "nolinkurl" else "href", g[0], text[i : g[1]]))
                if name == "nolinkurl":
                    out[-1].extra = "plain"
                return g[1], True
        elif name == "begin":
            e = _ENV_NAME.match(text, j)
            if e is not None:
                env = e.group(1).strip()
                if env in _VERBATIM_ENVS:
                    return self.verbatim_env(env, text, i, e.end(), out), True
                if env in _MATH_ENVS or env in _SKIPPED_ENVS:
                    end = text.find("\\end{" + env + "}", e.end())
                    if end < 0:
                        blank = _BLANK_LINE.search(text, e.end())
                        end = stop = blank.start() if blank is not None else n
                    else:
                        stop = end + len(env) + 6
                    if env in _MATH_ENVS:
                        body = _strip_comments(text[e.end() : end])
                        out.append(_Tok("dmath", body, text[i:stop]))
                    return stop, True
        elif name == "iffalse":
            return self.skip_false(text, j), line_content
        elif name == "makeatletter":
            self.at_letter = True
            return after, not newline and line_content
        elif name == "makeatother":
            self.at_letter = False
            return after, not newline and line_content
        elif name in _INPUTS:
            past = self.input(name, text, k, folder, stack, out)
            if past is not None:
                return past, True
        out.append(_Tok("cmd", name, text[i:after]))
        return after, not newline

    def verbatim(self, name: str, text: str, j: int, out: list[_Tok]) -> int | None:
        """`\\verb|x|`, `\\lstinline[opts]{x}`, `\\mintinline{lang}|x|`, `\\url{x}`: a verb
        (or url) token; the index past it, None when it is not one."""
        n = len(text)
        start = j
        if name == "verb" and j < n and text[j] == "*":
            j += 1
        if name != "verb":
            j = _SPACES.match(text, j).end()  # type: ignore[union-attr]
        opts = ""
        if name in ("lstinline", "mintinline", "mint", "inlinecode") and j < n and text[j] == "[":
            b = _bracketed(text, j)
            if b is None:
                return None
            opts, j = b
        if name in ("mintinline", "mint"):
            g = _balanced(text, j) if j < n and text[j] == "{" else None
            if g is None:
                return None
            opts = "language=" + g[0] + ("," + opts if opts else "")
            j = g[1]
        if j >= n:
            return None
        delim = text[j]
        if delim == "{":
            g = _balanced(text, j)
            if g is None:
                return None
            content, end = g
        elif name in ("url", "nolinkurl", "inlinecode") or delim.isalpha() or delim.isspace():
            return None
        else:
            close = text.find(delim, j + 1)
            nl = text.find("\n", j + 1)
            if close < 0 or 0 <= nl < close:  # unterminated: to the end of the line
                stop = n if nl < 0 else nl
                content, end = text[j + 1 : stop], stop
            else:
                content, end = text[j + 1 : close], close + 1
        raw = text[start - len(name) - 1 : end]
        if name == "mint":
            out.append(_Tok("code", content, raw, 0, opts))
        elif name == "url" or name == "path":
            out.append(_Tok("url" if name == "url" else "verb", content, raw))
        else:
            out.append(_Tok("verb", content, raw, 0, opts))
        return end

    def verbatim_env(self, env: str, text: str, i: int, j: int, out: list[_Tok]) -> int:
        """A verbatim-like environment from its `\\begin` at text[i] (name ending at j): a
        code token of its content; the index past its `\\end`."""
        n = len(text)
        opts = ""
        k = _SPACES.match(text, j).end()  # type: ignore[union-attr]
        if env != "alltt" and k < n and text[k] == "[":
            b = _bracketed(text, k)
            if b is not None:
                opts, j = b
                k = _SPACES.match(text, j).end()  # type: ignore[union-attr]
        if env == "minted" and k < n and text[k] == "{":
            g = _balanced(text, k)
            if g is not None:
                opts = "language=" + g[0] + ("," + opts if opts else "")
                j = g[1]
        if env == "verbatimtab" and opts:
            opts = ""
        end_mark = "\\end{" + env + "}"
        end = text.find(end_mark, j)
        stop = n if end < 0 else end + len(end_mark)
        if end < 0:
            end = n
        content = text[j:end]
        nl = content.find("\n")
        if nl >= 0 and not content[:nl].strip():
            content = content[nl + 1 :]
        elif nl < 0 and not content.strip():
            content = ""
        if env.startswith("comment"):
            return stop
        out.append(_Tok("code", content, text[i:stop], 0, opts))
        return stop

    def skip_false(self, text: str, j: int) -> int:
        """Past the `\\fi` (or to the `\\else`) that ends an `\\iffalse` from text[j]."""
        depth = 0
        for m in _CONDITIONAL.finditer(text, j):
            word = m.group(1)
            if word == "fi":
                if depth == 0:
                    return m.end()
                depth -= 1
            elif word == "else":
                if depth == 0:
                    return m.end()
            elif word not in _NOT_CONDITIONALS:
                depth += 1
        return len(text)

    def input(
        self,
        name: str,
        text: str,
        k: int,
        folder: str,
        stack: tuple[tuple[str, str], ...],
        out: list[_Tok],
    ) -> int | None:
        """An input command whose argument starts at text[k]: the file's tokens in place;
        the index past the command, None when it has no argument to read."""
        n = len(text)
        if k < n and text[k] == "{":
            g = _balanced(text, k)
            if g is None:
                return None
            target, end = g[0].strip(), g[1]
            if name in ("import", "subimport", "inputfrom"):
                k2 = _SPACES.match(text, end).end()  # type: ignore[union-attr]
                g2 = _balanced(text, k2) if k2 < n and text[k2] == "{" else None
                if g2 is None:
                    return None
                target = target.rstrip("/") + "/" + g2[0].strip()
                end = g2[1]
        elif name == "input":
            m = re.compile(r"[^\s{}\\%]+").match(text, k)
            if m is None:
                return None
            target, end = m.group(), m.end()
        else:
            return None
        if self.targets is not None:
            self.targets.append(target)
        got: tuple[str, str] | None = None
        if self.read is not None and len(stack) <= MAX_INCLUDE_DEPTH:
            got = self.read(target, folder)
            if got is None and folder != self.main:
                got = self.read(target, self.main)
        if got is None or (got[1], got[0]) in stack:
            return end
        self.inputs.append((got[1], got[0]))
        saved = self.at_letter
        toks = _body_only(self.lex(got[0], got[1], stack + ((got[1], got[0]),)))
        self.at_letter = saved
        if name == "include":
            out.append(_Tok("par", " ", ""))
        out.extend(toks)
        out.append(_Tok("par" if name == "include" else "sp", " ", ""))
        return end


class _Stream:
    """Tokens read one at a time; expansions pushed in front."""

    __slots__ = ("frames",)

    def __init__(self, toks: list[_Tok]) -> None:
        self.frames: list[list[_Tok]] = [toks[::-1]]

    def next(self) -> _Tok | None:
        frames = self.frames
        while frames:
            top = frames[-1]
            if top:
                return top.pop()
            frames.pop()
        return None

    def peek(self) -> _Tok | None:
        frames = self.frames
        while frames:
            top = frames[-1]
            if top:
                return top[-1]
            frames.pop()
        return None

    def push(self, toks: list[_Tok]) -> None:
        if toks:
            self.frames.append(toks[::-1])


# ----------------------------------------------------------------------------- tables
_SYMBOLS = {
    "%": "%", "&": "&", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", " ": " ", ",": " ",
    ";": " ", ":": " ", "!": "", "@": "", "/": "", "-": "", "\t": " ", "|": "|",
    "ldots": "...", "dots": "...", "textellipsis": "...", "cdots": "...",
    "LaTeX": "LaTeX", "LaTeXe": "LaTeX2e", "TeX": "TeX", "BibTeX": "BibTeX", "XeTeX": "XeTeX",
    "XeLaTeX": "XeLaTeX", "LuaTeX": "LuaTeX", "LuaLaTeX": "LuaLaTeX", "pdfTeX": "pdfTeX",
    "pdfLaTeX": "pdfLaTeX", "ConTeXt": "ConTeXt", "AmSTeX": "AmSTeX",
    "textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^", "textunderscore": "_",
    "textbar": "|", "textless": "<", "textgreater": ">", "textbullet": "•",
    "textperiodcentered": "·", "textendash": "–", "textemdash": "—", "textquoteleft": "'",
    "textquoteright": "'", "textquotedblleft": '"', "textquotedblright": '"',
    "textquotesingle": "'", "textquotedbl": '"', "lq": "'", "rq": "'",
    "guillemotleft": "«", "guillemotright": "»", "copyright": "©", "textcopyright": "©",
    "textregistered": "®", "texttrademark": "™", "pounds": "£", "textsterling": "£",
    "euro": "€", "texteuro": "€", "EUR": "€", "textdollar": "$", "S": "§", "P": "¶",
    "textsection": "§", "textparagraph": "¶", "dag": "†", "ddag": "‡", "textdagger": "†",
    "textdaggerdbl": "‡", "textdegree": "°", "degree": "°", "checkmark": "✓", "ss": "ß",
    "SS": "SS", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å",
    "AA": "Å", "l": "ł", "L": "Ł", "i": "i", "j": "j", "quad": " ", "qquad": " ",
    "enskip": " ", "enspace": " ", "thinspace": " ", "negthinspace": "", "space": " ",
    "nobreakspace": " ", "hfill": " ", "hfil": " ", "hss": "", "dotfill": " ",
    "hrulefill": " ", "slash": "/", "textslash": "/", "textasteriskcentered": "*",
    "textbraceleft": "{", "textbraceright": "}", "textpm": "±", "texttimes": "×",
    "textdiv": "÷", "textmu": "µ", "textonehalf": "½", "textvisiblespace": "␣",
    "textexclamdown": "¡", "textquestiondown": "¿", "textcent": "¢", "textyen": "¥",
    "textasciigrave": "`", "vdots": "⋮", "textminus": "−", "textrightarrow": "→", "textleftarrow": "←",
    "arraybackslash": "", "today": "", "thepage": "", "xspace": "",
}  # fmt: skip
# accents: the combining character each puts on the letter after it
_ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
    "r": "\u030a", "d": "\u0323", "b": "\u0331", "t": "\u0361",
}  # fmt: skip
_DINGS = {"51": "✓", "52": "✔", "54": "✖", "55": "✗", "56": "✘", "72": "★", "108": "●",
          "110": "■", "115": "▲", "117": "◆", "220": "➜", "221": "➝", "224": "➠"}  # fmt: skip
_LONE_ACCENT = {"~": "~", "^": "^", "'": "'", "`": "'", '"': '"', "=": "="}
# commands whose arguments are dropped, and how they are read: s a star, o an optional
# [..], m a mandatory argument, g an optional braced group, < a beamer overlay, d a TeX
# dimension, ( a (..) trim; K a mandatory argument, O an optional one, G an optional group
# whose text is kept (several kept ones joined by a space)
_ARGS = {
    "vspace": "sm", "hspace": "sm", "vskip": "d", "hskip": "d", "kern": "d", "mskip": "d",
    "vglue": "d", "hglue": "d", "setlength": "mm", "addtolength": "mm", "settowidth": "mm",
    "settoheight": "mm", "settodepth": "mm", "setcounter": "mm", "addtocounter": "mm",
    "stepcounter": "m", "refstepcounter": "m", "newcounter": "mo", "newlength": "m",
    "newsavebox": "m", "usepackage": "omo", "RequirePackage": "omo", "documentclass": "omo",
    "pagestyle": "m", "thispagestyle": "m", "pagenumbering": "m", "addcontentsline": "mmm",
    "addtocontents": "mm", "index": "m", "glossary": "m", "nomenclature": "omm",
    "graphicspath": "m", "theoremstyle": "m", "bibliographystyle": "m", "bibliography": "m",
    "addbibresource": "om", "printbibliography": "o", "includegraphics": "s<om",
    "includepdf": "om", "lstset": "m", "lstdefinelanguage": "omom", "lstdefinestyle": "mm",
    "lstinputlisting": "om", "inputminted": "omm", "verbatiminput": "m",
    "definecolor": "ommm", "colorlet": "mm", "color": "om", "pagecolor": "om",
    "usetikzlibrary": "m", "tikzset": "m", "pgfplotsset": "m", "usepgfplotslibrary": "m",
    "usetheme": "om", "usecolortheme": "om", "usefonttheme": "om", "useinnertheme": "om",
    "useoutertheme": "om", "setbeamercolor": "smm", "setbeamerfont": "smm",
    "setbeamertemplate": "mog", "setbeamersize": "m", "setbeamercovered": "m",
    "usebeamercolor": "om", "usebeamerfont": "sm", "usebeamertemplate": "sm", "logo": "m",
    "titlegraphic": "m", "institute": "om", "author": "om", "date": "om", "thanks": "m",
    "subtitle": "om", "keywords": "m", "note": "<om", "newcites": "mm", "fancyhead": "om",
    "fancyfoot": "om", "fancyhf": "m", "lhead": "om", "chead": "om", "rhead": "om",
    "lfoot": "om", "cfoot": "om", "rfoot": "om", "fancypagestyle": "mm", "geometry": "m",
    "newgeometry": "m", "captionsetup": "om", "setlist": "om", "hyphenation": "m",
    "selectlanguage": "m", "cline": "m", "cmidrule": "o(m", "toprule": "o", "midrule": "o",
    "bottomrule": "o", "addlinespace": "o", "hhline": "m", "rowcolor": "om", "cellcolor": "om",
    "arrayrulecolor": "om", "rowcolors": "smmm", "specialrule": "mmm", "footnotemark": "o",
    "pause": "o", "rule": "omm", "phantom": "m", "hphantom": "m", "vphantom": "m",
    "marginpar": "om", "todo": "om", "newif": "m", "printindex": "o", "printglossaries": "o",
    "bibitem": "om", "linespread": "m", "enlargethispage": "sm", "includeonly": "m",
    "input": "m", "include": "m", "subfile": "m", "NewDocumentCommand": "mmm",
    "RenewDocumentCommand": "mmm", "DeclareDocumentCommand": "mmm",
    "ProvideDocumentCommand": "mmm", "NewDocumentEnvironment": "mmmm",
    "RenewDocumentEnvironment": "mmmm", "DeclareOption": "smm", "ProcessOptions": "s",
    "PassOptionsToPackage": "mm", "ExecuteOptions": "m", "AtBeginDocument": "m",
    "AtEndDocument": "m", "AtBeginSection": "om", "AtBeginSubsection": "om",
    "AtBeginEnvironment": "mm", "patchcmd": "mmmmm", "apptocmd": "mmmm", "pretocmd": "mmmm",
    "titleformat": "smommmo", "titlespacing": "smmmmo", "setmainfont": "om",
    "setsansfont": "om", "setmonofont": "om", "newfontfamily": "mom", "sisetup": "m",
    "fontsize": "mm", "usefont": "mmmm", "fontfamily": "m", "fontseries": "m",
    "fontshape": "m", "lstnewenvironment": "mommm", "newcolumntype": "mom",
    "column": "om", "usebox": "m", "sbox": "mm", "savebox": "mooom", "ding": "m",
    "raisebox": "mooK", "hypersetup": "m", "sethlcolor": "m", "ContinuedFloat": "",
    "bibliographyweblink": "m", "bibliographystyleweblink": "m", "label": "m",
    "includesvg": "om", "input@path": "m", "widthof": "m", "heightof": "m",
    "textcolor": "omK", "colorbox": "omK", "fcolorbox": "ommK", "resizebox": "smmK",
    "scalebox": "moK", "rotatebox": "omK", "reflectbox": "K", "parbox": "ooomK",
    "makebox": "ooK", "framebox": "ooK", "fbox": "K", "mbox": "K", "hbox": "K", "text": "K",
    "textrm": "K", "textsf": "K", "textup": "K", "textmd": "K", "textnormal": "K",
    "textsc": "K", "underline": "K", "uline": "K", "sout": "K", "st": "K", "hl": "K",
    "hyperref": "oK", "hyperlink": "mK", "hypertarget": "mK", "texorpdfstring": "Km",
    "foreignlanguage": "omK", "only": "<K", "uncover": "<K", "visible": "<K",
    "invisible": "<K", "onslide": "<G", "alt": "<Km", "structure": "<K",
    "textsuperscript": "K", "textsubscript": "K", "MakeUppercase": "K", "MakeLowercase": "K",
    "uppercase": "K", "lowercase": "K", "centerline": "K", "leftline": "K", "rightline": "K",
    "gls": "oK", "Gls": "oK", "glspl": "oK", "Glspl": "oK", "acrshort": "oK",
    "acrlong": "oK", "acrfull": "oK", "ac": "sK", "acs": "sK", "acl": "sK", "acf": "sK",
    "acp": "sK", "si": "oK", "num": "oK", "SI": "oKK", "qty": "oKK", "unit": "OK",
    "nicefrac": "oKK", "multicolumn": "mmK", "multirow": "momoK", "subfloat": "oK",
    "email": "K", "protect": "", "ifthenelse": "mKm", "boxed": "K", "vbox": "K", "vtop": "K",
}  # fmt: skip
_STYLES = {
    "emph": "*", "textit": "*", "textsl": "*", "alert": "*", "textbf": "**", "texttt": "`",
    "code": "`", "inlinecode": "`", "path": "`", "enquote": '"',
}  # fmt: skip
_DECLARATIONS = {
    "em": "*", "it": "*", "itshape": "*", "sl": "*", "slshape": "*", "bf": "**",
    "bfseries": "**", "tt": "`", "ttfamily": "`",
}  # fmt: skip
_SECTIONS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph",
             "subparagraph")  # fmt: skip
_SECTION_ALIASES = {"addchap": "chapter", "addsec": "section", "addpart": "part",
                    "minisec": "paragraph"}  # fmt: skip
_BREAKS = {"newpage", "clearpage", "cleardoublepage", "pagebreak", "bigskip", "medskip",
           "smallskip", "par", "endgraf", "eject", "vfill", "supereject"}  # fmt: skip
_LISTS = {
    "itemize": "itemize", "enumerate": "enumerate", "description": "description",
    "compactitem": "itemize", "compactenum": "enumerate", "compactdesc": "description",
    "asparaitem": "itemize", "asparaenum": "enumerate", "inparaitem": "itemize",
    "inparaenum": "enumerate", "itemize*": "itemize", "enumerate*": "enumerate",
    "description*": "description", "list": "itemize", "dinglist": "itemize",
    "checklist": "itemize", "outline": "itemize",
}  # fmt: skip
_FLOATS = {
    "figure": "figure", "figure*": "figure", "table": "table", "table*": "table",
    "wrapfigure": "figure", "wraptable": "table", "sidewaysfigure": "figure",
    "sidewaystable": "table", "SCfigure": "figure", "SCtable": "table", "subfigure": "figure",
    "subtable": "table", "algorithm": "algorithm", "algorithm*": "algorithm",
    "listing": "listing", "marginfigure": "figure", "margintable": "table",
}  # fmt: skip
_TABULARS = {"tabular", "tabular*", "tabularx", "tabulary", "longtable", "longtable*", "array",
             "xtabular", "supertabular", "NiceTabular", "tblr", "longtblr"}  # fmt: skip
_DROPPED_ENVS = {"tikzpicture", "pgfpicture", "picture", "thebibliography", "axis", "tikzcd",
                 "circuitikz", "pspicture", "forest", "dot2tex", "overpic", "titlepage*"}  # fmt: skip
_THEOREMS = {
    "theorem": "Theorem", "lemma": "Lemma", "corollary": "Corollary",
    "proposition": "Proposition", "definition": "Definition", "example": "Example",
    "remark": "Remark", "note": "Note", "proof": "Proof", "claim": "Claim",
    "conjecture": "Conjecture", "fact": "Fact", "observation": "Observation",
    "exercise": "Exercise", "problem": "Problem", "solution": "Solution",
    "assumption": "Assumption", "notation": "Notation", "hypothesis": "Hypothesis",
}  # fmt: skip
_BLOCKS = {"block", "alertblock", "exampleblock"}
_QUOTES = {"quote", "quotation", "verse"}
_ENV_ARGS = {
    "figure": "o", "figure*": "o", "table": "o", "table*": "o", "wrapfigure": "omom",
    "wraptable": "omom", "subfigure": "om", "subtable": "om", "minipage": "ooom",
    "multicols": "mo", "multicols*": "mo", "adjustbox": "m", "column": "om", "columns": "o",
    "tabular": "om", "tabular*": "mom", "tabularx": "mm", "tabulary": "mm", "longtable": "om",
    "longtable*": "om", "array": "om", "xtabular": "om", "supertabular": "om",
    "NiceTabular": "om", "tblr": "om", "longtblr": "oom", "tcolorbox": "o", "mdframed": "o",
    "spacing": "m", "otherlanguage": "m", "otherlanguage*": "m", "list": "mm",
    "algorithm": "o", "algorithm*": "o", "listing": "o", "lrbox": "m", "indentgrammar": "m",
    "dinglist": "m", "overprint": "o", "onlyenv": "<", "uncoverenv": "<", "visibleenv": "<",
    "actionenv": "<", "beamercolorbox": "om", "marginfigure": "o", "margintable": "o",
    "SCfigure": "oo", "SCtable": "oo", "sidewaysfigure": "o", "sidewaystable": "o",
}  # fmt: skip
# where a font declaration's reach ends (short of its group's end)
_DECLARATION_STOPS = {"end", "begin", "item", "par", *_SECTIONS, "frametitle", "caption"}
# commands a definition may not change: the converter reads them itself
_PREAMBLE = {
    "newcommand", "renewcommand", "providecommand", "DeclareRobustCommand", "def", "gdef",
    "edef", "xdef", "let", "DeclareMathOperator", "newtheorem", "newenvironment",
    "renewenvironment", "title", "hypersetup", "usepackage", "newif",
}  # fmt: skip
_WORD_KINDS = {
    "figure": "figure", "fig.": "figure", "figures": "figure", "figs.": "figure",
    "table": "table", "tab.": "table", "tables": "table", "section": "section",
    "sec.": "section", "sect.": "section", "sections": "section", "chapter": "section",
    "chap.": "section", "ch.": "section", "chapters": "section", "appendix": "section",
    "app.": "section", "equation": "equation", "eq.": "equation", "eqn.": "equation",
    "listing": "listing", "lst.": "listing", "algorithm": "algorithm", "alg.": "algorithm",
    "page": "page", "p.": "page", "pp.": "page", "line": "line", "secs.": "section",
    "eqs.": "equation", "eqns.": "equation", "tabs.": "table", "chaps.": "section",
    "chs.": "section", "apps.": "section", "lsts.": "listing", "algs.": "algorithm",
    "appendices": "section",
}  # fmt: skip
_REF = re.compile(
    r"(?:(?P<word>(?<![\w.])(?i:figures?|figs?\.|tables?|tabs?\.|sections?|secs?\.|sects?\.|"
    r"chapters?|chaps?\.|chs?\.|appendix|appendices|apps?\.|equations?|eqns?\.|eqs?\.|"
    r"listings?|lsts?\.|algorithms?|algs?\.|pages?|pp?\.|lines?)) )?"
    r"(?P<refs>\x01[^\x01]*\x01(?:(?:,? and |, |,? or | ?– ?| to )\x01[^\x01]*\x01)*)"
)
_REF_KEY = re.compile(r"\x01(\x04?)([^\x01]*)\x01")
_PROTECTED = re.compile(r"\x02(\d+)\x03")
_LABEL_IN_MATH = re.compile(r"\\label\s*\{([^{}]*)\}")


def _collapse(text: str) -> str:
    """A paragraph's text: runs of spaces one space, line breaks kept (one at a time)."""
    text = re.sub(r"[ \t\f\v]+", " ", text)
    text = re.sub(r" ?\n[ \n]*", "\n", text)
    return text.strip(" \n")


def _code_span(text: str) -> str:
    text = text.replace("\n", " ")
    if not text.strip():
        return text
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _wrap(inner: str, mark: str) -> str:
    """Inline text in emphasis or code marks, its outer spaces left outside."""
    inner = re.sub(r"[ \t]+", " ", inner)
    core = inner.strip(" \n")
    if not core:
        return " " if inner else ""
    lead = " " if inner[0] in " \n" else ""
    trail = " " if inner[-1] in " \n" else ""
    lines = [x.strip() for x in core.split("\n")]
    if mark == "`":
        shown = [_code_span(x) if x else "" for x in lines]
    else:
        shown = [f"{mark}{x}{mark}" if x else "" for x in lines]
    return lead + "\n".join(shown) + trail


def _keyvals(opts: str) -> dict[str, str]:
    """`key=value` options (a listing's) split at top-level commas."""
    out: dict[str, str] = {}
    depth = 0
    start = 0
    parts: list[str] = []
    for k, c in enumerate(opts):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth <= 0:
            parts.append(opts[start:k])
            start = k + 1
    parts.append(opts[start:])
    for part in parts:
        key, _, value = part.partition("=")
        value = value.strip()
        if value.startswith("{") and value.endswith("}"):
            value = value[1:-1]
        out[key.strip().lower()] = value.strip()
    return out


def _drop_markers(text: str) -> str:
    """Text with the places of dropped citations and references (\\x00) gone, and the
    spaces and empty parentheses they leave."""
    if "\x00" not in text:
        return text
    text = re.sub(r" ?\( *(?:\x00 *)+\)", "", text)
    text = re.sub(r"[ ]*(?:\x00[ ]*)+(?=[.,;:!?)\]]|\n|$)", "", text)
    text = re.sub(r"(?<=[ (\n])(?:\x00[ ]*)+", "", text)
    text = re.sub(r"^(?:\x00[ ]*)+", "", text)
    return text.replace("\x00", "")


class _Macro:
    __slots__ = ("nargs", "default", "body", "overlay")

    def __init__(
        self, nargs: int, default: list[_Tok] | None, body: list[_Tok], overlay: bool = False
    ) -> None:
        self.nargs = nargs
        self.default = default
        self.body = body
        self.overlay = overlay  # beamer's \newcommand<>: an overlay before the arguments


class _Frame:
    """An open list (kind itemize/enumerate/description) or quote."""

    __slots__ = ("kind", "count", "pending")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.count = 0
        self.pending: str | None = None  # the marker of an item whose first block is due


_PARAM = re.compile(r"#(\d)")


def _substitute(body: list[_Tok], args: list[list[_Tok]], depth: int) -> list[_Tok]:
    out: list[_Tok] = []
    raws: list[str] | None = None
    for b in body:
        if b.kind == "param":
            if b.value.isdigit() and 0 < int(b.value) <= len(args):
                out.extend(args[int(b.value) - 1])
            elif b.value == "#":
                out.append(_Tok("char", "#", "#", depth))
        elif b.kind in ("math", "dmath", "verb", "code", "url", "href") and "#" in b.value:
            if raws is None:
                raws = ["".join(x.raw for x in a) for a in args]
            nth = functools.partial(_nth, raws)
            out.append(
                _Tok(b.kind, _PARAM.sub(nth, b.value), _PARAM.sub(nth, b.raw), depth, b.extra)
            )
        else:
            out.append(b.again(depth))
    return out


def _nth(raws: list[str], m: re.Match[str]) -> str:
    k = int(m.group(1))
    return raws[k - 1] if 0 < k <= len(raws) else ""


def _end_tokens(name: str) -> list[_Tok]:
    return [
        _Tok("cmd", "end", "\\end"),
        _Tok("bg", "{", "{"),
        _Tok("text", name, name),
        _Tok("eg", "}", "}"),
    ]


def markdown_table(rows: list[list[str]]) -> list[str]:
    """Rows of cells as a Markdown table, the first row its header; empty rows left out."""
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        return []
    width = max(len(r) for r in rows)
    lines: list[str] = []
    for k, row in enumerate(rows):
        cells = row + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if k == 0:
            lines.append("|" + "|".join([" --- "] * width) + "|")
    return lines


# ----------------------------------------------------------------------------- rendering
class _Render:
    """Tokens to Markdown blocks."""

    def __init__(self) -> None:
        self.macros: dict[str, _Macro] = {}
        self.envs: dict[str, tuple[_Macro, list[_Tok]]] = {}  # \newenvironment: begin, end
        self.aliases: dict[str, str] = {}
        self.theorems: dict[str, str] = {}
        self.expansions = 0
        self.expanded = 0
        self.out: list[str] = []
        self.buf: list[str] = []
        self.frames: list[_Frame] = []
        self.env: list[str] = []
        self.inline = 0  # inside a capture (an argument read as inline text)
        self.code = 0  # inside code text: no dashes or quotes made
        self.kept: list[str] = []  # protected text: code spans, math
        self.labels: dict[str, tuple[str, str]] = {}
        self.captions: list[list[str]] = []
        self.float_names = {"figure": "Figure", "table": "Table", "listing": "Listing",
                            "algorithm": "Algorithm"}  # fmt: skip
        self.title = ""
        self.pdftitle = ""
        self.first_heading = ""
        self.chapters = False
        self.section_kind = ""
        self.section_titles: dict[str, str] = {}
        self.after_heading: str | None = None
        self.last_lists: list[_Frame] = []  # the lists the last block was in
        self.last_quote: _Frame | None = None
        self.tabbing = False
        self.boxes: dict[str, list[_Tok]] = {}  # \sbox, lrbox: saved for a \usebox

    # -- the document
    def document(self, toks: list[_Tok]) -> tuple[str, str]:
        begin = _begin_document(toks)
        body = toks if begin is None else toks[begin[1] :]
        self.chapters = any(t.kind == "cmd" and t.value in ("chapter", "addchap") for t in body)
        if begin is not None:
            self.preamble(_Stream(toks[: begin[0]]))
            self.env.append("document")
            self.run(_Stream(body), "document")
        else:
            self.run(_Stream(toks), None)
        self.par()
        markdown = self.finish("\n".join(self.out))
        markdown = re.sub(r"\n{3,}", "\n\n", markdown).strip()
        title = self.finish(self.title or self.pdftitle or self.first_heading)
        title = re.sub(r"(\*{1,2}|`+)(\S(?:.*?\S)?)\1", r"\2", title.replace("\n", " "))
        return title.strip(), markdown

    def preamble(self, s: _Stream) -> None:
        while True:
            t = s.next()
            if t is None:
                return
            if t.kind == "cmd" and t.value in _PREAMBLE:
                self.command(t, s)

    def finish(self, text: str) -> str:
        """References resolved, dropped places cleaned, protected text put back."""
        if "\x01" in text:
            text = _REF.sub(self.reference, text)
        text = _drop_markers(text)
        for _ in range(4):
            if "\x02" not in text:
                break
            text = _PROTECTED.sub(lambda m: self.kept[int(m.group(1))], text)
        return text

    def reference(self, m: re.Match[str]) -> str:
        """References (one, or several in a row: "Figures 1 and 2") as text: a section's
        title in quotes, "the figure" for a figure, nothing for what has no name."""
        word = m.group("word") or ""
        found = _REF_KEY.findall(m.group("refs"))
        if any(page for page, _ in found):
            return "\x00"
        labels = [self.labels.get(key) for _, key in found]
        if all(x is not None and x[0] == "section" and x[1] for x in labels):
            titles = [f'"{x[1]}"' for x in labels if x is not None]
            quoted = (
                titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]
            )
            return f"{word} {quoted}" if word else quoted
        kind = next(
            (x[0] for x in labels if x is not None and x[0] not in ("section", "other")), ""
        )
        said = _WORD_KINDS.get(word.lower()) or _WORD_KINDS.get(word.lower()[:-1], "")
        if not kind and said not in ("", "section", "page", "line"):
            kind = said
        if not kind:
            return f"{word} \x00" if word else "\x00"
        plural = len(found) > 1 or (word.lower().endswith(("s", "es")) and not word.endswith("."))
        noun = f"the {kind}s" if plural else f"the {kind}"
        tail = m.string[max(0, m.start() - 40) : m.start()].rstrip(" ")
        at_start = (not tail and m.start() <= 40) or re.search(
            r"(?:[.!?]|(?:^|\n)[ \t>]*(?:[-*]|\d+\.|#+)?)$", tail
        )
        return noun[0].upper() + noun[1:] if at_start else noun

    # -- reading arguments
    def skip_spaces(self, s: _Stream) -> list[_Tok]:
        skipped: list[_Tok] = []
        while True:
            t = s.peek()
            if t is None or t.kind != "sp":
                return skipped
            skipped.append(s.next())  # type: ignore[arg-type]

    def arg(self, s: _Stream) -> list[_Tok] | None:
        """A mandatory argument: a braced group's tokens, or the one token next."""
        skipped = self.skip_spaces(s)
        t = s.peek()
        if t is None or t.kind in ("par", "eg"):
            s.push(skipped)
            return None
        s.next()
        if t.kind == "bg":
            return self.group(s)
        if t.kind == "text" and len(t.value) > 1:
            s.push([_Tok("text", t.value[1:], t.value[1:], t.depth)])
            return [_Tok("text", t.value[0], t.value[0], t.depth)]
        return [t]

    def group(self, s: _Stream) -> list[_Tok]:
        """The tokens up to the `}` that closes a group just opened (it is read too); of
        one that never closes, those up to its first paragraph break (the rest left)."""
        out: list[_Tok] = []
        depth = 0
        while True:
            t = s.next()
            if t is None:
                cut = next((k for k, x in enumerate(out) if x.kind == "par"), len(out))
                s.push(out[cut:])
                return out[:cut]
            if t.kind == "bg":
                depth += 1
            elif t.kind == "eg":
                if depth == 0:
                    return out
                depth -= 1
            out.append(t)

    def opt(self, s: _Stream) -> list[_Tok] | None:
        """An optional `[...]` argument's tokens; None when there is none."""
        skipped = self.skip_spaces(s)
        peeked = s.peek()
        if peeked is None or peeked.kind != "text" or peeked.value != "[":
            s.push(skipped)
            return None
        s.next()
        out: list[_Tok] = []
        depth = 0
        while True:
            t = s.next()
            if t is None or t.kind == "par":  # not closed: no optional argument after all
                s.push([*skipped, peeked, *out, *([t] if t is not None else [])])
                return None
            if t.kind == "bg":
                depth += 1
            elif t.kind == "eg":
                depth -= 1
            elif t.kind == "text" and t.value == "]" and depth <= 0:
                return out
            out.append(t)

    def star(self, s: _Stream) -> bool:
        t = s.peek()
        if t is not None and t.kind == "text" and t.value.startswith("*"):
            s.next()
            if len(t.value) > 1:
                s.push([_Tok("text", t.value[1:], t.value[1:], t.depth)])
            return True
        return False

    def overlay(self, s: _Stream) -> None:
        """A beamer overlay specification (`<2->`) read and dropped."""
        t = s.peek()
        if t is None or t.kind != "text" or not t.value.startswith("<"):
            return
        m = re.match(r"<[^<>]*>", t.value)
        if m is None:
            return
        s.next()
        if m.end() < len(t.value):
            rest = t.value[m.end() :]
            s.push([_Tok("text", rest, rest, t.depth)])

    def dimension(self, s: _Stream) -> None:
        """A TeX dimension after \\vskip and the like, read and dropped."""
        self.skip_spaces(s)
        t = s.peek()
        if t is None:
            return
        if t.kind == "cmd":
            s.next()
            return
        if t.kind != "text":
            return
        m = re.match(r"=?\s*-?[\d.,]*\d[\d.,]*\s*(?:(?:true)?(?:pt|em|ex|mm|cm|in|bp|pc|sp|dd|cc|mu))?",
                     t.value)  # fmt: skip
        if m is None:
            return
        s.next()
        if m.end() < len(t.value):
            rest = t.value[m.end() :]
            s.push([_Tok("text", rest, rest, t.depth)])
        elif not re.search(r"[a-z]$", m.group()):
            nxt = s.peek()
            if nxt is not None and nxt.kind == "cmd":
                s.next()

    def parens(self, s: _Stream) -> None:
        t = s.peek()
        if t is not None and t.kind == "text" and t.value.startswith("(") and ")" in t.value:
            s.next()
            rest = t.value[t.value.index(")") + 1 :]
            if rest:
                s.push([_Tok("text", rest, rest, t.depth)])

    def apply(self, spec: str, s: _Stream) -> None:
        """A command's arguments read as `spec` says (see _ARGS); the kept ones rendered."""
        kept: list[list[_Tok]] = []
        for ch in spec:
            if ch == "s":
                self.star(s)
            elif ch in "oO":
                o = self.opt(s)
                if ch == "O" and o:
                    kept.append(o)
            elif ch in "mK":
                a = self.arg(s)
                if ch == "K" and a:
                    kept.append(a)
            elif ch in "gG":
                t = s.peek()
                if t is not None and t.kind == "bg":
                    s.next()
                    g = self.group(s)
                    if ch == "G" and g:
                        kept.append(g)
            elif ch == "<":
                self.overlay(s)
            elif ch == "d":
                self.dimension(s)
            elif ch == "(":
                self.parens(s)
        nxt = s.peek()
        if (
            kept
            and "<" in spec
            and nxt is not None
            and (nxt.kind == "cmd" or nxt.value[:1].isalnum())
        ):
            kept[-1] = [*kept[-1], _Tok("sp", " ", " ")]  # one of a slide's alternatives
        if kept:
            joined: list[_Tok] = []
            for k, part in enumerate(kept):
                if k:
                    joined.append(_Tok("sp", " ", " "))
                joined.extend(part)
            s.push(joined)

    def key(self, toks: list[_Tok] | None) -> str:
        return "".join(t.raw for t in toks or []).strip()

    def name_arg(self, s: _Stream) -> str:
        return self.key(self.arg(s))

    # -- output
    def protect(self, text: str) -> str:
        self.kept.append(text)
        return f"\x02{len(self.kept) - 1}\x03"

    def unprotect(self, text: str) -> str:
        for _ in range(4):
            if "\x02" not in text:
                break
            text = _PROTECTED.sub(lambda m: self.kept[int(m.group(1))], text)
        return text

    def capture(self, toks: list[_Tok] | None) -> str:
        """Tokens rendered as inline text (blocks in them run into it)."""
        if not toks:
            return ""
        if self.inline >= MAX_NESTING:
            return "".join(t.value for t in toks if t.kind == "text")
        saved = self.buf
        self.buf = []
        self.inline += 1
        try:
            self.run(_Stream(list(toks)), None)
        finally:
            text = "".join(self.buf)
            self.buf = saved
            self.inline -= 1
        return text

    def line(self, toks: list[_Tok] | None) -> str:
        """Tokens rendered as one line of text."""
        return _collapse(self.capture(toks)).replace("\n", " ").strip()

    def par(self) -> None:
        """The paragraph so far, ended."""
        if self.inline:
            if self.buf and self.buf[-1] != " ":
                self.buf.append(" ")
            return
        if not self.buf:
            return
        text = _collapse("".join(self.buf))
        self.buf = []
        if text.strip(" \n\x00"):
            lines = text.split("\n")
            self.emit([as_text(x) for x in lines])

    def paragraph(self, text: str) -> None:
        if self.inline:
            self.buf.append(f" {text} ")
            return
        self.par()
        self.emit([text])

    def emit(self, lines: list[str], heading: str | None = None) -> None:
        """A block's lines, indented for the lists and quoted for the quotes it is in."""
        if self.inline:
            self.buf.append(" " + " ".join(x.strip() for x in lines) + " ")
            return
        lists = [f for f in self.frames if f.kind != "quote"]
        innermost = lists[-1] if lists else None
        first = rest = ""
        lead: list[str] = []
        starts_item = False
        quote: _Frame | None = None
        for f in self.frames:
            if f.kind == "quote":
                first += "> "
                rest += "> "
                quote = f
            elif f.pending is not None and f is not innermost:
                lead.append(rest + f.pending.rstrip())
                f.pending = None
                starts_item = True
                first += "  "
                rest += "  "
            elif f.pending is not None:
                first += f.pending
                rest += "  "
                f.pending = None
                starts_item = True
            else:
                first += "  "
                rest += "  "
        shared = any(f in self.last_lists for f in lists)
        if self.out and not (starts_item and shared):
            self.out.append(rest.rstrip() if quote is not None and quote is self.last_quote else "")
        self.out.extend(lead)
        for k, text in enumerate(lines):
            prefix = first if k == 0 else rest
            self.out.append((prefix + text) if text else prefix.rstrip())
        self.last_lists = lists
        self.last_quote = quote
        self.after_heading = heading

    def heading(self, level: int, text: str) -> None:
        self.par()
        text = text.strip()
        if not text:
            return
        if self.inline:
            self.buf.append(f" {text} ")
            return
        self.emit([f"{'#' * max(1, min(level, 6))} {text}"], heading=text)

    def level(self, kind: str) -> int:
        order = {"part": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4,
                 "paragraph": 5, "subparagraph": 6}  # fmt: skip
        got = order.get(kind, 2)
        if not self.chapters and kind not in ("part", "chapter"):
            got -= 1
        return got

    def text(self, value: str) -> None:
        if not self.code and ("-" in value or "`" in value or "'" in value):
            value = value.replace("---", "—").replace("--", "–")
            value = value.replace("``", '"').replace("''", '"').replace("`", "'")
        self.buf.append(value)

    # -- the main loop
    def run(self, s: _Stream, stop: str | None) -> None:
        """Render tokens up to the `\\end{stop}` (or the end)."""
        while True:
            t = s.next()
            if t is None:
                return
            k = t.kind
            if k == "text":
                self.text(t.value)
            elif k == "sp":
                self.buf.append(" ")
            elif k == "cmd":
                if t.value == "end":
                    name = self.name_arg(s)
                    if name == stop:
                        return
                    user = self.envs.get(name)
                    if user is not None and t.depth < MAX_MACRO_DEPTH:
                        s.push([x.again(t.depth + 1) for x in user[1]])
                        continue
                    if name in self.env:  # it closes an environment this one is in
                        s.push(_end_tokens(name))
                        return
                    continue
                self.command(t, s)
            elif k == "par":
                self.par()
            elif k in ("bg", "eg"):
                continue
            elif k == "math":
                content = " ".join(self.math_text(t.value).split())
                if content:
                    self.buf.append(self.protect(f"${content}$"))
            elif k == "dmath":
                self.display_math(t.value)
            elif k == "verb":
                self.buf.append(self.protect(t.value if self.code else _code_span(t.value)))
            elif k == "code":
                self.code_block(t)
            elif k == "url":
                url = t.value.strip()
                plain = self.code or t.extra == "plain"
                self.buf.append(self.protect(url if plain else f"<{url}>"))
            elif k == "href":
                shown = self.line(self.arg(s))
                url = t.value.strip()
                if not shown or shown == url or shown == url.removeprefix("mailto:"):
                    self.buf.append(self.protect(f"<{url}>"))
                else:
                    self.buf.append(shown + " " + self.protect(f"(<{url}>)"))
            elif k == "char":
                if t.value in "~&":
                    self.buf.append(" ")
                else:
                    self.buf.append(t.value)
            elif k == "param":
                self.buf.append("#" + t.value)

    def command(self, t: _Tok, s: _Stream) -> None:
        name = self.aliases.get(t.value, t.value)
        m = self.macros.get(name)
        if m is not None:
            if t.depth < MAX_MACRO_DEPTH and self.expansions < MAX_EXPANSIONS:
                self.expand(t, m, s)
            return
        handler = _HANDLERS.get(name)
        if handler is not None:
            handler(self, t, s)
            return
        if self.tabbing and name in ("=", ">", "<", "+", "-", "'", "`", "kill"):
            if name == "kill":
                text = "".join(self.buf)
                self.buf = [text[: text.rfind("\n") + 1]] if "\n" in text else []
            elif name in "=>":
                self.buf.append(" ")
            return
        accent = _ACCENTS.get(name)
        if accent is not None:
            self.accent(name, accent, s)
            return
        symbol = _SYMBOLS.get(name)
        if symbol is not None:
            if name == "xspace":
                nxt = s.peek()
                if nxt is not None and nxt.kind in ("text", "cmd", "bg", "math", "verb"):
                    if not (nxt.kind == "text" and nxt.value[:1] in ".,;:!?)]'-/"):
                        self.buf.append(" ")
                return
            self.buf.append(symbol)
            return
        spec = _ARGS.get(name)
        if spec is not None:
            self.apply(spec, s)
            return
        style = _STYLES.get(name)
        if style is not None:
            self.overlay(s)
            self.styled(style, self.arg(s))
            return
        declared = _DECLARATIONS.get(name)
        if declared is not None:
            chunk: list[_Tok] = []
            for x in [*self.declared(s), None]:
                if x is None or x.kind == "par":
                    self.styled(declared, chunk)
                    chunk = []
                    if x is not None:
                        self.par()
                else:
                    chunk.append(x)
            return
        if name.startswith(("cite", "Cite", "nocite", "bibliography", "printbib")):
            self.star(s)
            self.opt(s)
            self.opt(s)
            self.arg(s)
            if name.startswith(("cite", "Cite")):
                self.buf.append("\x00")
            return
        if not name[:1].isalpha():
            return
        # an unknown command: an option dropped, its one braced argument's text kept
        nxt = s.peek()
        if nxt is not None and nxt.kind == "text" and nxt.value == "[":
            self.opt(s)
            nxt = s.peek()
        if nxt is not None and nxt.kind == "bg":
            s.next()
            s.push(self.group(s))

    def expand(self, t: _Tok, m: _Macro, s: _Stream) -> None:
        self.expansions += 1
        if m.overlay:
            self.overlay(s)
        args: list[list[_Tok]] = []
        for k in range(m.nargs):
            if k == 0 and m.default is not None:
                o = self.opt(s)
                args.append(o if o is not None else m.default)
            else:
                a = self.arg(s)
                args.append(a if a is not None else [])
        body = _substitute(m.body, args, t.depth + 1)
        self.expanded += len(body)
        if self.expanded > MAX_EXPANDED:
            self.expansions = MAX_EXPANSIONS  # no more
            return
        s.push(body)

    def math_text(self, raw: str) -> str:
        """Math as written, the user's macros in it expanded."""
        if not self.macros or "\\" not in raw:
            return raw
        if not any(("\\" + name) in raw for name in self.macros):
            return raw
        s = _Stream(_Lexer(None, "").lex(raw, "", ()))
        out: list[str] = []
        while True:
            t = s.next()
            if t is None:
                break
            if t.kind == "cmd" and t.value in self.macros:
                if t.depth < MAX_MACRO_DEPTH and self.expansions < MAX_EXPANSIONS:
                    if t.raw[-1:].isspace():  # the space that ended its name, kept
                        s.push([_Tok("sp", " ", " ")])
                    self.expand(t, self.macros[t.value], s)
                continue
            out.append(t.raw)
        return "".join(out)

    def display_math(self, raw: str) -> None:
        content = self.math_text(raw)
        for key in _LABEL_IN_MATH.findall(content):
            self.labels[key.strip()] = ("equation", "")
        content = _LABEL_IN_MATH.sub("", content)
        content = re.sub(r"\\(?:nonumber|notag)(?![A-Za-z])", "", content)
        lines = [x.rstrip() for x in textwrap.dedent(content.strip("\n")).split("\n")]
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        if not lines:
            return
        if self.inline:
            self.buf.append(self.protect("$$" + " ".join(x.strip() for x in lines) + "$$"))
            return
        self.par()
        self.emit(["$$", *lines, "$$"])

    def code_block(self, t: _Tok) -> None:
        opts = _keyvals(t.extra) if t.extra else {}
        lang = re.sub(r"\[[^\]]*\]", "", opts.get("language", "")).strip().lower()
        content = t.value
        escape = opts.get("escapechar", "").lstrip("\\")
        if len(escape) == 1 and content.count(escape) >= 2:  # LaTeX between two of them
            parts = content.split(escape)
            for k in range(1, len(parts) - 1, 2):
                parts[k] = self.unprotect(self.line(_Lexer(None, "").lex(parts[k], "", ())))
            content = "".join(parts)
        lines = [x.rstrip() for x in content.split("\n")]
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        label = opts.get("label", "")
        if label:
            self.labels[label] = ("listing", "")
        if lines:
            if self.inline:
                self.buf.append(self.protect(_code_span(" ".join(x.strip() for x in lines))))
            else:
                self.par()
                longest = max((len(m) for m in re.findall(r"`{3,}", t.value)), default=2)
                fence = "`" * (longest + 1)
                self.emit([fence + lang, *lines, fence])
        caption = opts.get("caption", "")
        if caption:
            text = self.line(_Lexer(None, "").lex(caption, "", ()))
            if text:
                self.paragraph(f"{self.float_names['listing']}: {text}")

    def styled(self, mark: str, toks: list[_Tok] | None) -> None:
        """Tokens as inline text in `mark`s (inside code text, as they are)."""
        inside = self.code > 0
        if mark == "`":
            self.code += 1
        try:
            inner = self.capture(toks)
        finally:
            if mark == "`":
                self.code -= 1
        self.buf.append(inner if inside else _wrap(inner, mark))

    def declared(self, s: _Stream) -> list[_Tok]:
        """The tokens a font declaration reaches: to its group's end or a block (its
        paragraphs each styled)."""
        out: list[_Tok] = []
        depth = 0
        while True:
            t = s.peek()
            if t is None:
                return out
            if t.kind == "eg":
                if depth == 0:
                    return out
                depth -= 1
            elif t.kind == "bg":
                depth += 1
            elif depth == 0 and (
                t.kind in ("code", "dmath") or (t.kind == "cmd" and t.value in _DECLARATION_STOPS)
            ):
                return out
            out.append(s.next())  # type: ignore[arg-type]

    def accent(self, name: str, mark: str, s: _Stream) -> None:
        base = self.capture(self.arg(s)).strip()
        if not base:
            self.buf.append(_LONE_ACCENT.get(name, ""))
            return
        self.buf.append(unicodedata.normalize("NFC", base[0] + mark) + base[1:])

    def inside(self, s: _Stream, name: str) -> None:
        self.env.append(name)
        try:
            self.run(s, name)
        finally:
            self.env.pop()

    def collect_env(self, s: _Stream, name: str) -> list[_Tok]:
        """The tokens up to the `\\end{name}` that closes an environment (read too); the
        user's macros in them expanded."""
        out: list[_Tok] = []
        depth = 0
        while True:
            t = s.next()
            if t is None:
                return out
            if t.kind == "cmd" and t.value in ("begin", "end"):
                inner = self.arg(s) or []
                env = self.key(inner)
                user = self.envs.get(env) if env != name else None
                if user is not None and t.depth < MAX_MACRO_DEPTH:  # the user's: its code
                    if t.value == "end":
                        s.push([x.again(t.depth + 1) for x in user[1]])
                    elif self.expansions < MAX_EXPANSIONS:
                        self.expand(t, user[0], s)
                    continue
                if env == name:
                    if t.value == "end":
                        if depth == 0:
                            return out
                        depth -= 1
                    else:
                        depth += 1
                out.extend([t, _Tok("bg", "{", "{"), *inner, _Tok("eg", "}", "}")])
                continue
            m = self.macros.get(t.value) if t.kind == "cmd" else None
            if m is not None and t.depth < MAX_MACRO_DEPTH and self.expansions < MAX_EXPANSIONS:
                self.expand(t, m, s)
                continue
            out.append(t)

    # -- commands
    def h_section(self, t: _Tok, s: _Stream) -> None:
        kind = _SECTION_ALIASES.get(t.value, t.value)
        self.star(s)
        self.opt(s)
        text = self.line(self.arg(s))
        self.par()
        if not text:
            return
        if not self.first_heading:
            self.first_heading = text
        self.section_kind = kind
        self.section_titles[kind] = text
        self.heading(self.level(kind), text)

    def h_frametitle(self, t: _Tok, s: _Stream) -> None:
        self.overlay(s)
        self.opt(s)
        text = self.line(self.arg(s))
        if t.value == "framesubtitle":
            if text:
                self.paragraph(f"*{text}*")
            return
        self.heading(self.frame_level(), text)

    def frame_level(self) -> int:
        return self.level(self.section_kind) + 1 if self.section_kind else 1

    def h_secname(self, t: _Tok, s: _Stream) -> None:
        kind = {"secname": "section", "insertsection": "section", "subsecname": "subsection",
                "insertsubsection": "subsection", "subsubsecname": "subsubsection",
                "insertsubsubsection": "subsubsection"}[t.value]  # fmt: skip
        self.buf.append(self.section_titles.get(kind, ""))

    def h_title(self, t: _Tok, s: _Stream) -> None:
        self.opt(s)
        self.title = self.line(self.arg(s))

    def h_maketitle(self, t: _Tok, s: _Stream) -> None:
        if self.title:
            self.heading(1, self.title)

    def h_break(self, t: _Tok, s: _Stream) -> None:
        if t.value == "pagebreak":
            self.opt(s)
        self.par()

    def h_newline(self, t: _Tok, s: _Stream) -> None:
        if t.value == "\\":
            self.star(s)
            nxt = s.peek()
            if nxt is not None and nxt.kind == "text" and nxt.value == "[":
                self.opt(s)
        elif t.value == "linebreak":
            self.opt(s)
        self.buf.append("\n")

    def h_footnote(self, t: _Tok, s: _Stream) -> None:
        self.opt(s)
        text = self.line(self.arg(s))
        if text:
            self.buf.append(f" ({text})")

    def h_label(self, t: _Tok, s: _Stream) -> None:
        key = self.name_arg(s)
        if not key:
            return
        for env in reversed(self.env):
            kind = _FLOATS.get(env)
            if kind is not None:
                self.labels[key] = (self.float_names.get(kind, kind).lower(), "")
                return
            title = self.theorems.get(env) or _THEOREMS.get(env.rstrip("*"))
            if title is not None:
                self.labels[key] = (title.lower(), "")
                return
            if env in _LISTS or env in _TABULARS:
                break
        if self.after_heading is not None and not "".join(self.buf).strip():
            self.labels[key] = ("section", self.after_heading)
        else:
            self.labels.setdefault(key, ("other", ""))

    def h_ref(self, t: _Tok, s: _Stream) -> None:
        self.star(s)
        keys = [k.strip() for k in self.name_arg(s).split(",") if k.strip()]
        page = "\x04" if t.value in ("pageref", "vpageref") else ""
        self.buf.append(" and ".join(f"\x01{page}{k}\x01" for k in keys))

    def h_citet(self, t: _Tok, s: _Stream) -> None:
        self.star(s)
        self.opt(s)
        self.opt(s)
        keys = [k.strip() for k in self.name_arg(s).split(",") if k.strip()]
        self.buf.append(", ".join(keys) if keys else "\x00")

    def h_caption(self, t: _Tok, s: _Stream) -> None:
        self.star(s)
        self.opt(s)
        text = self.line(self.arg(s))
        if not text:
            return
        if self.captions:
            self.captions[-1].append(text)
        else:
            self.paragraph(text)

    def h_captionof(self, t: _Tok, s: _Stream) -> None:
        self.star(s)
        kind = self.name_arg(s)
        self.opt(s)
        text = self.line(self.arg(s))
        if text:
            name = self.float_names.get(kind, kind.capitalize())
            self.paragraph(f"{name}: {text}")

    def h_subfigure(self, t: _Tok, s: _Stream) -> None:
        caption = self.opt(s)
        body = self.arg(s)
        if body:
            s.push(body)
        text = self.line(caption)
        if text and self.captions:
            self.captions[-1].append(text)

    def h_url(self, t: _Tok, s: _Stream) -> None:  # a \url whose argument the lexer left
        url = self.key(self.arg(s))
        if url:
            self.buf.append(self.protect(f"<{url}>"))

    def h_ensuremath(self, t: _Tok, s: _Stream) -> None:
        raw = self.key(self.arg(s))
        if raw:
            self.buf.append(self.protect(f"${' '.join(self.math_text(raw).split())}$"))

    def h_item(self, t: _Tok, s: _Stream) -> None:
        self.overlay(s)
        label = self.opt(s)
        self.overlay(s)
        self.par()
        frame = next((f for f in reversed(self.frames) if f.kind != "quote"), None)
        text = self.line(label) if label is not None else None
        if frame is None:
            self.buf.append(f"- {text} " if text else "- ")
            return
        frame.count += 1
        frame.pending = f"{frame.count}. " if frame.kind == "enumerate" else "- "
        if text:
            self.buf.append(f"**{text}**: " if frame.kind == "description" else f"{text} ")

    def h_begin(self, t: _Tok, s: _Stream) -> None:
        name = self.name_arg(s)
        if not name or name == "document" or len(self.env) >= MAX_NESTING:
            return
        user = self.envs.get(name)
        if user is not None and t.depth < MAX_MACRO_DEPTH and self.expansions < MAX_EXPANSIONS:
            self.expand(t, user[0], s)
            return
        self.overlay(s)
        if name in _LISTS:
            self.list_env(s, name)
        elif name in _TABULARS:
            self.tabular(s, name)
        elif name in _FLOATS:
            self.float_env(s, name)
        elif name in _DROPPED_ENVS:
            self.collect_env(s, name)
        elif name in self.theorems or name.rstrip("*") in _THEOREMS:
            title = self.theorems.get(name) or _THEOREMS[name.rstrip("*")]
            self.theorem(s, name, title)
        elif name in _QUOTES:
            self.par()
            self.frames.append(_Frame("quote"))
            try:
                self.inside(s, name)
                self.par()
            finally:
                self.frames.pop()
        elif name == "abstract":
            self.par()
            self.heading(2, "Abstract")
            self.inside(s, name)
            self.par()
        elif name == "frame":
            self.frame(s, name)
        elif name in _BLOCKS:
            self.overlay(s)
            title = self.line(self.arg(s))
            self.par()
            if title:
                self.buf.append(f"**{title}{'' if title[-1] in '.:!?' else '.'}** ")
            self.inside(s, name)
            self.par()
        elif name == "lrbox":  # a box saved for a \usebox
            box = self.name_arg(s)
            self.boxes[box] = self.collect_env(s, name)
        elif name == "tabbing":
            self.par()
            saved, self.tabbing = self.tabbing, True
            try:
                self.inside(s, name)
            finally:
                self.tabbing = saved
            self.par()
        else:  # content only, a block of its own (center, minipage, an unknown one)
            self.apply(_ENV_ARGS.get(name, ""), s)
            self.par()
            self.inside(s, name)
            self.par()

    def list_env(self, s: _Stream, name: str) -> None:
        self.opt(s)
        if name == "list":
            self.apply("mm", s)
        elif name == "dinglist":
            self.arg(s)
        self.par()
        frame = _Frame(_LISTS[name])
        self.frames.append(frame)
        try:
            self.inside(s, name)
            self.par()
        finally:
            self.frames.remove(frame)

    def theorem(self, s: _Stream, name: str, title: str) -> None:
        note = self.line(self.opt(s))
        self.par()
        if name.rstrip("*") == "proof":
            self.buf.append(f"*{note or title}.* ")
        else:
            self.buf.append(f"**{title} ({note}).** " if note else f"**{title}.** ")
        self.inside(s, name)
        self.par()

    def frame(self, s: _Stream, name: str) -> None:
        self.overlay(s)
        self.opt(s)
        self.overlay(s)
        self.par()
        skipped = self.skip_spaces(s)
        nxt = s.peek()
        if nxt is not None and nxt.kind == "bg":
            title = self.line(self.arg(s))
            nxt = s.peek()
            if nxt is not None and nxt.kind == "bg":
                self.arg(s)
            self.heading(self.frame_level(), title)
        else:
            s.push(skipped)
        self.inside(s, name)
        self.par()

    def float_env(self, s: _Stream, name: str) -> None:
        self.apply(_ENV_ARGS.get(name, ""), s)
        kind = _FLOATS[name]
        self.par()
        saved = dict(self.float_names)
        self.captions.append([])
        try:
            self.inside(s, name)
            self.par()
        finally:
            captions = self.captions.pop()
        label = self.float_names.get(kind, kind.capitalize())
        self.float_names = saved
        for text in captions:
            self.paragraph(f"{label}: {text}")

    def tabular(self, s: _Stream, name: str) -> None:
        self.apply(_ENV_ARGS.get(name, "om"), s)
        toks = self.collect_env(s, name)
        own_float = name.startswith("longtable")
        if own_float:
            self.captions.append([])
        try:
            rows = self.rows(toks)
        finally:
            captions = self.captions.pop() if own_float else []
        lines = markdown_table(rows)
        self.par()
        if lines:
            if self.inline:
                self.buf.append(" " + " ".join(" ".join(r) for r in rows) + " ")
            else:
                self.emit(lines)
        for text in captions:
            self.paragraph(f"{self.float_names['table']}: {text}")

    def rows(self, toks: list[_Tok]) -> list[list[str]]:
        """A tabular's rows of cell texts: rows split at `\\\\`, cells at `&`."""
        rows: list[list[str]] = []
        row: list[str] = []
        cell: list[_Tok] = []
        depth = 0
        envs = 0
        k = 0
        n = len(toks)
        while k < n:
            t = toks[k]
            k += 1
            if t.kind == "bg":
                depth += 1
            elif t.kind == "eg":
                depth -= 1
            elif t.kind == "cmd" and t.value == "begin":
                envs += 1
            elif t.kind == "cmd" and t.value == "end":
                envs -= 1
            elif depth == 0 and envs <= 0:
                if t.kind == "char" and t.value == "&":
                    row.extend(self.cell(cell))
                    cell = []
                    continue
                if t.kind == "cmd" and t.value in ("\\", "tabularnewline", "cr", "crcr"):
                    row.extend(self.cell(cell))
                    rows.append(row)
                    row, cell = [], []
                    while k < n and toks[k].kind == "sp":
                        k += 1
                    if k < n and toks[k].kind == "text" and toks[k].value.startswith("*"):
                        k += 1
                    if k < n and toks[k].kind == "text" and toks[k].value == "[":
                        while k < n and not (toks[k].kind == "text" and toks[k].value == "]"):
                            k += 1
                        k += 1
                    continue
            cell.append(t)
        if row or any(x.kind not in ("sp", "par") for x in cell):
            row.extend(self.cell(cell))
            rows.append(row)
        return rows

    def cell(self, toks: list[_Tok]) -> list[str]:
        span = 1
        first = next((x for x in toks if x.kind not in ("sp", "par")), None)
        if first is not None and first.kind == "cmd" and first.value == "multicolumn":
            k = toks.index(first) + 1
            while k < len(toks) and toks[k].kind == "sp":
                k += 1
            if k + 1 < len(toks) and toks[k].kind == "bg" and toks[k + 1].value.isdigit():
                span = max(1, min(int(toks[k + 1].value), 50))
            elif k < len(toks) and toks[k].kind == "text" and toks[k].value[:1].isdigit():
                span = int(toks[k].value[0])
        text = self.unprotect(self.line(toks)).replace("|", "\\|")
        return [text] + [""] * (span - 1)

    # -- definitions
    def h_newcommand(self, t: _Tok, s: _Stream) -> None:
        self.star(s)
        nxt = s.peek()
        overlay = nxt is not None and nxt.kind == "text" and nxt.value.startswith("<>")
        self.overlay(s)  # beamer's \newcommand<>
        self.star(s)
        target = self.arg(s) or []
        name = next((x.value for x in target if x.kind == "cmd"), "")
        count = self.key(self.opt(s))
        default = self.opt(s)
        body = self.arg(s) or []
        if not name:
            return
        if name in ("figurename", "tablename", "listingname", "lstlistingname"):
            kind = {"figurename": "figure", "tablename": "table"}.get(name, "listing")
            text = self.line(body)
            if text:
                self.float_names[kind] = text
            return
        if t.value == "providecommand" and name in self.macros:
            return
        if self._native(name):
            return
        nargs = int(count) if count.isdigit() else 0
        self.macros[name] = _Macro(min(nargs, 9), default, body, overlay)

    def _native(self, name: str) -> bool:
        """Whether a command is one the converter reads itself (a definition may not
        change it: sectioning, lists, references, formatting)."""
        return name in _HANDLERS or name in _STYLES or name in _DECLARATIONS

    def h_def(self, t: _Tok, s: _Stream) -> None:
        target = s.next()
        if target is None or target.kind != "cmd":
            return
        params: list[_Tok] = []
        while True:
            nxt = s.peek()
            if nxt is None or nxt.kind in ("bg", "par"):
                break
            params.append(s.next())  # type: ignore[arg-type]
        body = self.arg(s) or []
        simple = all(p.kind == "param" for p in params) and [p.value for p in params] == [
            str(k + 1) for k in range(len(params))
        ]
        if not simple or self._native(target.value):
            return
        self.macros[target.value] = _Macro(len(params), None, body)

    def h_let(self, t: _Tok, s: _Stream) -> None:
        target = s.next()
        nxt = s.peek()
        if nxt is not None and nxt.kind == "text" and nxt.value.startswith("="):
            s.next()
            if len(nxt.value) > 1:
                s.push([_Tok("text", nxt.value[1:], nxt.value[1:], nxt.depth)])
        self.skip_spaces(s)
        source = s.next()
        if target is None or source is None or target.kind != "cmd" or self._native(target.value):
            return
        if source.kind == "cmd":
            if source.value in self.macros:
                self.macros[target.value] = self.macros[source.value]
            else:
                self.aliases[target.value] = source.value
        else:
            self.macros[target.value] = _Macro(0, None, [source])

    def h_operator(self, t: _Tok, s: _Stream) -> None:
        self.star(s)
        target = self.arg(s) or []
        body = self.arg(s) or []
        name = next((x.value for x in target if x.kind == "cmd"), "")
        if name and not self._native(name):
            raw = "\\operatorname{" + "".join(x.raw for x in body) + "}"
            self.macros[name] = _Macro(0, None, _Lexer(None, "").lex(raw, "", ()))

    def h_newtheorem(self, t: _Tok, s: _Stream) -> None:
        self.star(s)
        name = self.name_arg(s)
        self.opt(s)
        title = self.line(self.arg(s))
        self.opt(s)
        if name and title:
            self.theorems[name] = title

    def h_newenvironment(self, t: _Tok, s: _Stream) -> None:
        self.star(s)
        name = self.name_arg(s)
        count = self.key(self.opt(s))
        default = self.opt(s)
        begin = self.arg(s) or []
        end = self.arg(s) or []
        native = (
            name in _LISTS or name in _TABULARS or name in _FLOATS or name in _THEOREMS
            or name in _QUOTES or name in _BLOCKS or name in ("abstract", "frame", "document")
        )  # fmt: skip
        if not name or native:
            return
        nargs = int(count) if count.isdigit() else 0
        self.envs[name] = (_Macro(min(nargs, 9), default, begin), end)

    def h_hypersetup(self, t: _Tok, s: _Stream) -> None:
        raw = ""
        if t.value == "usepackage":
            raw = self.key(self.opt(s))
            self.arg(s)
            self.opt(s)
        else:
            raw = self.key(self.arg(s))
        m = re.search(r"pdftitle\s*=\s*(?:\{([^{}]*)\}|([^,}]*))", raw)
        if m is not None and not self.pdftitle:
            value = (m.group(1) if m.group(1) is not None else m.group(2) or "").strip()
            if value:
                self.pdftitle = self.line(_Lexer(None, "").lex(value, "", ()))

    def h_ding(self, t: _Tok, s: _Stream) -> None:  # pifont's symbols: the common ones
        code = self.key(self.arg(s))
        self.buf.append(_DINGS.get(code, ""))

    def h_box(self, t: _Tok, s: _Stream) -> None:  # \vbox to 0pt{...}: its content
        skipped = self.skip_spaces(s)
        nxt = s.peek()
        if nxt is not None and nxt.kind == "text" and nxt.value in ("to", "spread"):
            s.next()
            self.dimension(s)
        else:
            s.push(skipped)
        self.apply("K", s)

    def h_savebox(self, t: _Tok, s: _Stream) -> None:
        box = self.name_arg(s)
        if t.value == "savebox":
            self.opt(s)
            self.opt(s)
        self.boxes[box] = self.arg(s) or []

    def h_usebox(self, t: _Tok, s: _Stream) -> None:
        saved = self.boxes.get(self.name_arg(s))
        if saved and t.depth < MAX_MACRO_DEPTH:
            s.push([x.again(t.depth + 1) for x in saved])

    def h_alt(self, t: _Tok, s: _Stream) -> None:
        if "grammar" in self.env or "indentgrammar" in self.env:  # the syntax package's
            self.buf.append(" | ")
        else:  # beamer's \alt<2>{shown}{else}
            self.apply(_ARGS["alt"], s)

    def h_drop_token(self, t: _Tok, s: _Stream) -> None:  # \newif\iffoo
        s.next()


_Handler = Callable[[_Render, _Tok, _Stream], None]
_HANDLERS: dict[str, _Handler] = {
    **{name: _Render.h_section for name in _SECTIONS},
    **{name: _Render.h_section for name in _SECTION_ALIASES},
    **{name: _Render.h_break for name in _BREAKS},
    **{name: _Render.h_ref for name in ("ref", "autoref", "cref", "Cref", "vref", "Vref",
                                        "pageref", "vpageref", "eqref", "nameref",
                                        "Autoref", "cpageref", "subref")},
    **{name: _Render.h_citet for name in ("citet", "Citet", "citeauthor", "Citeauthor",
                                          "citet*", "textcite", "Textcite")},
    **{name: _Render.h_secname for name in ("secname", "subsecname", "subsubsecname",
                                            "insertsection", "insertsubsection",
                                            "insertsubsubsection")},
    "frametitle": _Render.h_frametitle,
    "framesubtitle": _Render.h_frametitle,
    "title": _Render.h_title,
    "maketitle": _Render.h_maketitle,
    "titlepage": _Render.h_maketitle,
    "\\": _Render.h_newline,
    "newline": _Render.h_newline,
    "linebreak": _Render.h_newline,
    "footnote": _Render.h_footnote,
    "footnotetext": _Render.h_footnote,
    "label": _Render.h_label,
    "caption": _Render.h_caption,
    "captionof": _Render.h_captionof,
    "subfigure": _Render.h_subfigure,
    "subcaptionbox": _Render.h_subfigure,
    "url": _Render.h_url,
    "ensuremath": _Render.h_ensuremath,
    "item": _Render.h_item,
    "begin": _Render.h_begin,
    "newcommand": _Render.h_newcommand,
    "renewcommand": _Render.h_newcommand,
    "providecommand": _Render.h_newcommand,
    "DeclareRobustCommand": _Render.h_newcommand,
    "def": _Render.h_def,
    "gdef": _Render.h_def,
    "edef": _Render.h_def,
    "xdef": _Render.h_def,
    "let": _Render.h_let,
    "DeclareMathOperator": _Render.h_operator,
    "newtheorem": _Render.h_newtheorem,
    "newenvironment": _Render.h_newenvironment,
    "renewenvironment": _Render.h_newenvironment,
    "hypersetup": _Render.h_hypersetup,
    "usepackage": _Render.h_hypersetup,
    "newif": _Render.h_drop_token,
    "alt": _Render.h_alt,
    "ding": _Render.h_ding,
    "hbox": _Render.h_box,
    "vbox": _Render.h_box,
    "vtop": _Render.h_box,
    "sbox": _Render.h_savebox,
    "savebox": _Render.h_savebox,
    "usebox": _Render.h_usebox,
}  # fmt: skip
