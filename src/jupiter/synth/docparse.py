"""The structure of documentation text, for question templates that need no LLM.

Reads Markdown, reStructuredText, manual pages rendered to text, plain text, and the text
the collector makes of HTML pages (Markdown-like). A chunk becomes blocks: headings, prose
paragraphs, code, and definitions (command-line options, keywords, glossary terms,
parameters, return values). Every block keeps its span in the chunk text, so an answer
taken from it can be traced to the characters it quotes.

Only markup is removed from the answers (roles, emphasis, link targets, line-wrap
hyphens): `clean(chunk.text[start:end])` of a block is its text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal

from jupiter.synth.parse import strip_numbering, unwrap

BlockKind = Literal["heading", "prose", "code", "definition"]
DefKind = Literal["option", "keyword", "term", "param", "returns"]


@dataclass(frozen=True)
class Block:
    kind: BlockKind
    start: int  # span in the chunk text
    end: int
    text: str  # cleaned; for a definition, its body
    section: str = ""  # the heading this block is under ("" before the first one)
    term: str = ""  # definitions: the term as shown ("-a, --all", "ALL", "path")
    def_kind: DefKind | None = None
    indent: int = 0
    # an option's program, where a `.. program::` directive names it ("cmake --build")
    owner: str = ""
    item: bool = False  # prose: an item of a list (its bullet or number not in `text`)


@dataclass
class Parsed:
    blocks: list[Block] = field(default_factory=list)
    subject: str = ""  # what the document is about: a command, a page's name
    man: bool = False  # laid out as a manual page (its subsections name no API)
    # where a `.. program::` directive names the program its options belong to, and the name
    programs: list[tuple[int, str]] = field(default_factory=list)
    # where a command's synopsis owns the lines indented under it: (start, end, its
    # indent, the command); a chunk that starts inside one goes on with it
    owned: list[tuple[int, int, int, str]] = field(default_factory=list)


# ----------------------------------------------------------------------------- cleaning
_ROLE = re.compile(r":(?P<role>[A-Za-z][\w:.+-]*):`([^`]*?)`")
_MYST_ROLE = re.compile(r"\{(?P<role>[A-Za-z][\w:.+-]*)\}`([^`]*?)`")  # MyST: {doc}`init`
# roles Sphinx renders as words, not code: :pep:`518` is "PEP 518", :rfc:`2616` "RFC 2616"
_NUMBERED_ROLES = {"pep": "PEP", "rfc": "RFC"}
_ROLE_TARGET = re.compile(r"^[~!]?(.*?)\s*<[^<>]*>$")
_LITERAL = re.compile(r"``(.+?)``")
# `text <url>`_ ; the text starts with no space, so the closing backtick of one code span and
# the opening one of the next ("`value` with ... `_#value`") are not taken for a link
_RST_LINK = re.compile(r"`(?=\S)([^`<]+?)(?:\s*<[^<>`]*>)?`__?(?![\w`])")
_MD_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EM = re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")
_TAG = re.compile(
    r"</?(?:a|b|i|u|s|em|strong|code|span|div|p|br|sup|sub|kbd|img|hr|small|tt|del|ins|abbr|"
    r"var|samp|cite|mark|font|center|details|summary|picture|source)(?:\s[^<>]*)?/?>|<!--.*?-->",
    re.S,
)
# an RST substitution ("|version|"), not a choice of values ("<no|summary|yes|full>")
_SUBST = re.compile(r"(?<![\w|])\|(\w[\w -]*)\|(?![\w|])")


def _role(m: re.Match[str]) -> str:
    inner = m.group(2)
    t = _ROLE_TARGET.match(inner)
    if t is not None and t.group(1):
        inner = t.group(1)
    elif m.group("role").lower() in _NUMBERED_ROLES and re.fullmatch(r"\d+(?:#\S*)?", inner):
        number = inner.partition("#")[0]
        return f"{_NUMBERED_ROLES[m.group('role').lower()]} {number}"
    inner = inner.lstrip("~!")
    return f"`{inner}`" if inner else ""


def _bold(m: re.Match[str]) -> str:
    """Bold's text; a Python dunder name ("__next__", "__init__") stays as it is."""
    if m.group(1) == "__" and re.fullmatch(r"[a-z][a-z0-9_]*", m.group(2)):
        return m.group(0)
    return m.group(2)


def clean(text: str) -> str:
    """Text without markup, on one line: what an answer quoting `text` says."""
    text = unwrap(text)
    text = _ROLE.sub(_role, text)
    text = _MYST_ROLE.sub(_role, text)
    text = text.replace("`\\ ", "`")  # rst's escaped space after markup ("`Exception`\ s")
    text = _LITERAL.sub(r"`\1`", text)
    text = _RST_LINK.sub(r"\1", text)
    text = _MD_IMAGE.sub("", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _BOLD.sub(_bold, text)
    text = _EM.sub(r"\1", text)
    text = _TAG.sub("", text)
    text = _SUBST.sub(r"\1", text)
    text = text.replace("\u2010", "-").replace("\u2212", "-")
    out = " ".join(text.split())
    return out[:-1] if out.endswith("::") else out


# ----------------------------------------------------------------------------- lines
@dataclass(frozen=True)
class _Line:
    text: str
    start: int
    indent: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    @property
    def first(self) -> int:
        """Where its text begins past its indentation (a tab is one character here, eight
        columns in `indent`)."""
        return self.start + len(self.text) - len(self.text.lstrip())

    @property
    def blank(self) -> bool:
        return not self.text.strip()

    @property
    def body(self) -> str:
        return self.text.strip()


def _lines(text: str) -> list[_Line]:
    out: list[_Line] = []
    pos = 0
    for raw in text.split("\n"):
        expanded = raw.expandtabs(8)
        indent = len(expanded) - len(expanded.lstrip(" ")) if raw.strip() else 0
        out.append(_Line(raw, pos, indent))
        pos += len(raw) + 1
    return out


_FENCE = re.compile(r"^\s*(```|~~~)")
# a manual page's file name (collect/manpage.py): not a version's ("release-1.2", "3.1")
_MAN_PAGE_NAME = re.compile(r"^[\w.+-]*[A-Za-z_+-]\.[1-9][a-z]*(?:\.gz)?$")
# (indented by at most three spaces: a tab is four, and a line indented by one is code)
_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_UNDER = re.compile(r"^\s{0,3}([=\-~^\"'`#*+.:_])\1{2,}\s*$")
_DIRECTIVE = re.compile(r"^\s*\.\.\s+([\w:-]+)::(.*)$")
_RST_COMMENT = re.compile(r"^\s*\.\.(\s|$)")
_CODE_DIRECTIVES = {
    "code-block",
    "code",
    "sourcecode",
    "highlight",
    "literalinclude",
    "parsed-literal",
}
# a label in words over a list ("Args:", "Keyword arguments:"), not a line of code
# ("if __name__ == '__main__':")
_LABEL = re.compile(r"[A-Za-z][\w .,'/()-]{0,60}:")
# a MyST Markdown directive's fence ("```{note}"), and the MyST directives that hold code
_MYST_FENCE = re.compile(r"^\s*(?:```+|~~~+)\s*\{([\w:-]+)\}")
# a MyST target on a line of its own ("(compatibility-requirements)="): a label, no text
_MYST_TARGET = re.compile(r"^\s*\([\w.:-]+\)=\s*$")
_MYST_CODE = {"doctest", "testcode", "testoutput", "jupyter-execute", "ipython", "code-cell"}
# a directive's option line (":caption: prompt.py", autodoc's ":members:")
_DIRECTIVE_OPTION = re.compile(r"^:[\w-]+:(?:\s|$)")
# the first line of code in a directive of a project's own ("@click.command()", "def f():",
# "invoke(cli, ['--help'])")
_CODE_START = re.compile(
    r"^(?:@\w|(?:async )?def \w|class \w|import \w|from \S+ import |>>>|\$ |[\w.]+\(.*\)$)"
)
# directives whose content is text: never taken for code, however it reads
_TEXT_DIRECTIVES = {
    "note",
    "warning",
    "tip",
    "hint",
    "important",
    "attention",
    "caution",
    "danger",
    "error",
    "admonition",
    "seealso",
    "topic",
    "sidebar",
    "rubric",
    "epigraph",
    "tab",
    "tabs",
}
# Sphinx's descriptions of a named thing that is no API object (collect/sphinxobj.py reads
# those): read as a definition of that kind
_DESCRIBED: dict[str, DefKind] = {
    "option": "option",
    "cmdoption": "option",
    "envvar": "keyword",
    "confval": "keyword",
    "describe": "keyword",
    "object": "keyword",
    "variable": "keyword",
    "genex": "keyword",
}
# directives whose indented content is not prose the reader sees as such
_SKIPPED_DIRECTIVES = {
    "toctree",
    "contents",
    "image",
    "figure",
    "include",
    "only",
    "raw",
    "index",
    "cmake-module",
    "productionlist",
    "list-table",
    "csv-table",
    "table",
    "math",
    "graphviz",
    "autosummary",
}
_MAN_HEADING = re.compile(r"^[A-Z][A-Z0-9 ,/&()'-]{1,40}$")
_MAN_PAGE_HEADER = re.compile(r"^\S+\(\w+\)\s{2,}.*\S+\(\w+\)\s*$")
# a list item: a bullet, or an enumerator as reST writes them ("1.", "a)", "(iv)", "G.");
# a letter with a period must be followed by a capital, so "e. g." stays text (a roman
# numeral from "ii." on need not be)
_BULLET = re.compile(
    r"^(\s*)([-*+\u2022]|\d{1,3}[.)]|\((?:\d{1,3}|[a-zA-Z]|[ivx]{1,5})\)|(?:[a-zA-Z]|[ivx]{2,5})\)"
    r"|[a-zA-Z]\.(?=\s+[A-Z(\"'])|[ivx]{2,5}\.)\s+(?=\S)"
)
_FIELD = re.compile(
    r"^\s*:(param|parameter|arg|argument|key|keyword|returns?|return|rtype|raises?|var|ivar|"
    r"cvar|type)(?:\s+([^:]+?))?:\s*(.*)$"
)
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_PIPE = re.compile(r"(?<!\\)\|")  # a cell's edge; `\|` is a pipe in a cell (GFM)
_TABLE_SEP = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
# "-a, --all", "--block-size=SIZE", "-o FILE", "+x": an option as written in its list
_OPTION = re.compile(
    r"^[-+]{1,2}[A-Za-z0-9?#@][\w.?#@-]*(?:[= ][\[<{]?[\w.|-]+[\]>}]?|\[=?[\w.|-]+\])?"
    r"(?:,\s*[-+]{1,2}[A-Za-z0-9?#@][\w.?#@-]*(?:[= ][\[<{]?[\w.|-]+[\]>}]?|\[=?[\w.|-]+\])?)*$"
)
_OPTION_SAME_LINE = re.compile(
    r"^(\s*)([-+]{1,2}[A-Za-z0-9?#@][^\s]*(?:,? [^\s]+){0,3}?)\s{2,}(\S.*)$"
)
# what follows a name that is not its description but the rest of a sentence about it and
# others: "`malloc`/`new`/`new[]`: the returned ...", "`A` and `B`. These mark ..."
_NOT_A_DESCRIPTION = re.compile(r"^(?:[/.;(]|(?:and|or|nor)\s)")
# a name in code and, with no separator, its sentence going on ("`parse_object()` has been
# hardened ...", a release note's item): the name is the sentence's subject, not a term
# ("`x` is ..." defines it, and stays one)
_SENTENCE_GOES_ON = re.compile(
    r"^[`*\s]\s(?:would|will|has|have|had|was|were|does|do|did|can|could|should|may|"
    r"might|must|now|no\s+longer|learned|learnt|used|gave|got|failed|became|becomes?|"
    r"makes?|made|takes?|took|allows?|lets?|gained|lost)\b"
)
# an option's default as its list shows it after the option: "--time-stamp=<yes|no> [default: no]"
_OPTION_DEFAULT = re.compile(r"\s*[\[(]default:?[^\])]*[\])]\s*$", re.I)
# "num_headers    The number of ...": a name, two or more spaces, its description
_NAME_SAME_LINE = re.compile(r"^(\s*)(\S+)\s{2,}(\S.*)$")
# an option and its one-letter alias after it in parentheses ("--dry-run (-n)")
_OPTION_ALIAS = re.compile(r"(.+?)\s+\((-[A-Za-z0-9?])\)")
# a tag and its text one space apart (a man page's tag that fits its indent)
_TAG_FITS = re.compile(r"^(\s*)(\S+) (\S.*)$")
_IDENT = re.compile(r"^[A-Za-z_][\w.:<>\[\]-]*(?:\(\))?$")
# Google-style docstring sections (Napoleon's), and one entry of a section of parameters:
# "name (type): text" or "name:" over its indented text
_GOOGLE_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|"
    r"Attributes|Returns|Return|Yields|Yield|Raises)\s*:\s*$"
)
_GOOGLE_RETURNS = {"returns", "return", "yields", "yield"}
_GOOGLE_ENTRY = re.compile(r"^\s*(\*{0,2}[A-Za-z_][\w.]*)\s*(?:\([^)]*\))?\s*:(?:\s+(\S.*))?\s*$")
_NUMPY_PARAM = re.compile(r"^([A-Za-z_*][\w*]*)\s+:\s+\S")
_INLINE_DEF = re.compile(
    r"^(?:\*\*(?P<b>[^*]{1,60})\*\*|`(?P<c>[^`]{1,60})`(?:,\s*`[^`]{1,60}`)*)\s*"
    r"(?:\{[^}]*\}\s*)?"
    # a key and the command it runs, as Texinfo's and Org's tables of keys write them:
    # "`C-x g` (`magit-status`): text" is the command's definition
    r"(?:\(`(?P<cmd>[^`]{1,80})`\)(?=:)\s*)?"
    r"(?:[:,\u2014\u2013]|\s-)?\s*(?P<d>\S.*)$"
)
# the line a Texinfo `@deffn`/`@defopt` (or Org's `- Command: x ::`) becomes, the category
# bold, the name in code: "**User Option:** `magit-bisect-show-graph`"; a name after its
# type or result, or with no category, is a bold span of its own ("**Function:** `size_t`
# **`strlen`** `(const char *S)`", Octave's "`RLINE =` **`dbstop`** `…`"); MIT Scheme's
# categories are lower case ("**standard procedure:** `string-map proc string`")
_CATEGORY_HEAD = re.compile(
    r"^(?:\*\*(?P<cat>[A-Za-z][\w -]{1,30}):\*\*\s+)?"
    r"(?:`(?P<name>[^`\s]{1,80})(?:\s[^`]*)?`"
    r"|(?:`[^`]{1,160}`\s+)?\*\*`(?P<bold>[^`\s][^`]{0,79})`\*\*(?:\s+`[^`]*`)?)\s*$"
)


# a stated default alone, as a paragraph of its own ("Default: False")
_DEFAULT_LINE = re.compile(r"Default(?: value)?:\s*\S[^\n]{0,60}")


LABEL_REPEATS = 3  # a plain term defined this often in one text is a label ("Step: ...")


def _no_labels(blocks: list[Block]) -> list[Block]:
    """The blocks less the definitions of a plain term (no option, name or code) that the
    text defines LABEL_REPEATS times or more: a label of a list's entries ("Step: ...",
    "Expected: ..."), not a term."""
    seen = Counter(b.term for b in blocks if b.kind == "definition" and b.def_kind == "term")
    labels = {t for t, n in seen.items() if n >= LABEL_REPEATS}
    if not labels:
        return blocks
    return [b for b in blocks if not (b.kind == "definition" and b.term in labels)]


def _category_head(line: str) -> str:
    """The name a definition's line (_CATEGORY_HEAD) defines; "" for any other line."""
    m = _CATEGORY_HEAD.match(line)
    if m is None or not (m.group("cat") or m.group("bold")):
        return ""
    return m.group("bold") or m.group("name")


_PLAIN_DEF = re.compile(
    r"^(?P<t>[A-Za-z][\w .'/()-]{0,48}?)\s*(?::|\u2014|\u2013| - )\s+(?P<d>\S.*)$"
)
# a list item that only gives a type, the way API references annotate their parameters,
# properties and results (Node.js, JSDoc): "`options` {Object}", "Returns: {Promise}",
# "{boolean}", "`encoding` {string|null} Default: `null`", "`chunk`: {Buffer|TypedArray}"
_TYPE_ONLY = re.compile(
    r"^(?:(?:Returns?|Type|Value):?\s*)?(?:`[^`]{1,60}`:?\s*)?\{[^{}]{1,80}\}\s*"
    r"(?:Default:?\s*\S{1,40}\s*)?$"
)
# labels that read like terms in a list but name no concept ("* Type: {boolean} ...")
_GENERIC_TERMS = frozenset(
    """type default returns return extends stability note example examples value values
    usage see also since added deprecated warning important tip case""".split()
)
# a table column that says what its row's first cell is
_DESCRIPTION_HEADS = frozenset(
    """description meaning purpose effect explanation details definition summary notes
    note comment comments""".split()
)
GENERIC_SECTIONS = frozenset(
    """name synopsis description options option overview introduction usage examples example
    notes note see also environment files exit status bugs author authors copyright
    reporting history return value return values errors diagnostics conforming to
    standards availability summary details arguments parameters returns contents
    """.split()
)


def _is_underline(line: _Line, title: _Line) -> bool:
    return (
        _UNDER.match(line.text) is not None
        # "```" under "});": code, not a title; a run of tildes as long as the line of
        # words over it is that line's underline (reST, a NEWS file), not a fence
        and (_FENCE.match(line.text) is None or _tilde_underline(title.text, line.text))
        and not title.blank
        and title.indent <= 3
        and len(line.body) >= max(3, 0.6 * len(title.body))
        and not _UNDER.match(title.text)
    )


# a term defined in prose, as licenses, standards and policies define theirs: '"License"
# shall mean ...', '1.1. ''Contributor'' means ...', 'A "Modified Version" of the Document
# means ...', '"The Program" refers to ...'
_QUOTED_DEF = re.compile(
    r"^(?:\d+(?:\.\d+)*\.?\s+)?(?:(?:An?|The)\s+)?(?:\"|\u201c|''|`` ?)"
    r"(?P<t>[^\"\u201c\u201d'`\n]{2,60}?)(?:\"|\u201d|''| ?'')"
    r"(?:\s+of\s+the\s+\w+)?\s+(?:shall\s+mean|means|shall\s+refer\s+to|refers\s+to|"
    r"is\s+defined\s+as)\s+(?P<d>\S)"
)


def _tilde_underline(title: str, line: str) -> bool:
    """`line`, under `title`, is a run of tildes at least as long as a title of words: an
    underline, though a Markdown reader would take it for a fence."""
    t, words = line.strip(), title.strip()
    return (
        len(t) >= 3
        and set(t) == {"~"}
        and len(t) >= len(words) > 0
        and _FENCE.match(title) is None
        and _UNDER.match(title) is None
        and not words.endswith(":")
    )


def _fence(lines: list[_Line], k: int) -> bool:
    """Line `k` opens or closes a fenced code block (not a title's tilde underline)."""
    return _FENCE.match(lines[k].text) is not None and not (
        k and _tilde_underline(lines[k - 1].text, lines[k].text)
    )


def _wrapped(prev: _Line, line: _Line) -> bool:
    """`line` continues the sentence `prev` broke off: prev is long prose with no end
    punctuation, and line is no fence."""
    body = prev.body.rstrip()
    return len(body) >= 50 and body[-1:] not in ".:;!?" and not _FENCE.match(line.text)


def _looks_like_code(lines: list[_Line]) -> bool:
    text = "\n".join(ln.body for ln in lines)
    first = lines[0].body
    if len(lines) == 1 and first.endswith(":") and re.match(r"^[A-Z][\w ,.'-]*:$", first):
        return False  # "On POSIX:", a label introducing what follows
    if first.startswith(
        ("$ ", "# ", ">>>", "% ", "#include", "import ", "from ", "def ", "const ", "| ", "&& ")
    ):
        return True
    if re.search(r"[;{}]\s*$", text, re.M) and len(
        re.findall(r"[;{}()=<>\[\]]", text)
    ) > 0.04 * len(text):
        return True
    symbols = len(re.findall(r"[(){}\[\];=<>$|\\]", text))
    return symbols > 0.08 * max(1, len(text)) or re.search(r"\b[a-z]{2,}\b", text) is None


_TWO_COLUMNS = re.compile(r"\S {3,}\S")  # a table row's cells, not one term


# a command's synopsis: its name, then its options and arguments in brackets
_SYNOPSIS = re.compile(r"([A-Za-z_][\w.:+-]*)(?:\s+(?:\[|-|<|\{|\w+\s*\.\.\.|\w+\s*\[)|\s*$)")
_VERSIONS = re.compile(r"(?:v?\d+(?:\.\d+)+(?:[-.]?\w+)?[,;\s]*)+", re.I)


def _opaque(term: str) -> bool:
    """A term that is a number, a hash or versions (SQLite's requirement ids, "R-00311-
    09993-...", a UUID, a commit, "v17.2.0, v16.14.0"): no name a reader asks about,
    whatever its text says. An option (`-m68881`, a CPU's number in its name) is a name."""
    if term.startswith(("-", "+")):
        return False
    if _VERSIONS.fullmatch(term):  # a history table's "v17.2.0, v16.14.0"
        return True
    first = term.split(maxsplit=1)[0] if term.strip() else ""
    if (
        re.fullmatch(r"[0-9a-f]{7,40}", first)
        and re.search(r"\d", first)
        and re.search(r"[a-f]", first)
    ):
        return True  # a commit, as `git log --oneline` lists it: "b11628b more: move ..."
    alnum = [c for c in term if c.isalnum()]
    return len(alnum) >= 12 and sum(c.isdigit() for c in alnum) >= 0.6 * len(alnum)


def _term_like(line: _Line) -> bool:
    s = line.body
    if (
        len(s) > 80
        or len(s.split()) > 12
        or s.endswith((".", ",", ";", "\\"))  # "\\": a shell line continued below
        or _BULLET.match(line.text)
        or _TWO_COLUMNS.search(s)
    ):
        return False
    return not s.startswith((">>>", "..", "|", "```", "$ "))


# a manual page's "name - what it is" line: a name of up to six words (no sentence)
_NAME_DASH = re.compile(r"([\w.:/+-]+(?: [\w.:/+-]+){0,5}) [-\u2010\u2013\u2014] (\S.*)")
_NAME_LINE = re.compile(r"[\w.+:/-]+(?: [\w.+:/-]+)*")
# a manual page's sections of one paragraph each, wrapped at a hanging indent: no terms
_MAN_HEAD_SECTIONS = frozenset({"name", "synopsis"})
_VERSION_NAME = re.compile(r"v?\d+(?:\.\d+)+")
_SITE_SUFFIX = re.compile(
    r"\s+\((?=[^()]*(?:\bAPI\b|[Dd]ocumentation|\bManual\b|\bReference\b|\bPlatform\b|\bJDK\b"
    r"|\bSE\b|Programming Language|\d+\.\d+))[^()]*\)\s*$"
)


def subject_of(title: str) -> str:
    """The document's subject from its title: a file name loses its extensions and man
    section ("ls.1.txt" -> "ls", "add_custom_target.rst" -> "add_custom_target"), a GNU
    info node its " invocation" ("ls invocation" -> "ls"), a generated page its site's name
    ("StringUtils (Apache Commons Lang 3.12.0 API)" -> "StringUtils")."""
    name = re.split(r"\s+[|\u2014\u2013]\s+|\s+-\s+", strip_numbering(title.strip()), maxsplit=1)[0]
    # a chapter's name and its subtitle: "Memcheck: a memory error detector" -> "Memcheck"
    name = re.sub(r"^([^:\s][^:]{0,40}?):\s+(?:an?|the)\s+\S.*$", r"\1", name, flags=re.I)
    name = re.sub(r"^(\S+) invocation$", r"\1", name)  # a GNU manual's node: "ls invocation"
    # a generated site's name after the page's, in parentheses: "StringUtils (Apache Commons
    # Lang 3.12.0 API)", "Ownership (The Rust Programming Language)"
    name = _SITE_SUFFIX.sub("", name) or name
    if re.search(r"\.(md|markdown|rst|txt|html?|ipynb|gz|\d[a-z]{0,5})$", name, re.I):
        name = PurePosixPath(name).name
        rendered = False  # a file extension came off: "gcc-12.1.gz" is gcc-12's page
        while m := re.search(r"\.(md|markdown|rst|txt|html?|ipynb|gz|\d[a-z]{0,5})$", name, re.I):
            if re.fullmatch(r"[\d.]+\.\d+", name):
                break  # a version's page ("3.14.rst": CMake's release notes), not ls.1
            if m.group(1)[0].isdigit() and name[m.start() - 1].isdigit() and not rendered:
                break  # a bare name's version ("GFDL-1.3", "Apache-2.0"), not a man section
            rendered = rendered or not m.group(1)[0].isdigit()
            name = name[: m.start()]
    return name


# ----------------------------------------------------------------------------- parse
class _Parser:
    def __init__(
        self,
        text: str,
        title: str,
        head: bool = True,
        section: str = "",
        in_code: bool = False,
        program: str = "",
        owners: tuple[tuple[int, str], ...] = (),
        subject: str = "",
    ) -> None:
        self.text = text
        self.program = program
        self.programs: list[tuple[int, str]] = []
        # the commands whose synopsis heads the lines being read, with its indent: the
        # options indented under `read [-ers] [-a aname] ...` are read's
        self.owners: list[tuple[int, str]] = list(owners)
        self.owned: list[tuple[int, int, int, str]] = []
        self.owned_from: list[int] = [0] * len(self.owners)  # where each in force began
        self.lines = _lines(text)
        if in_code:  # cut inside a fenced block: what follows its closing fence
            fence = next((k for k in range(len(self.lines)) if _fence(self.lines, k)), None)
            self.first = len(self.lines) if fence is None else fence + 1
        elif head or (self.lines and _fence(self.lines, 0)):
            self.first = 0  # a chunk cut where a code block opens reads it as code
        else:
            self.first = _first_whole_line(self.lines)
        self.blocks: list[Block] = []
        self.section = section
        self.subject = subject or subject_of(title)
        self.head = head
        # a page rendered from its roff source keeps its file's name (ls.1.gz, perl.3pm):
        # man's layout throughout, whatever share of a chunk's lines is indented
        self.man = _MAN_PAGE_NAME.search(PurePosixPath(title).name) is not None or self._man_like()
        suffix = PurePosixPath(title).suffix.lower()
        # a reST or Markdown source: its code is marked, no synopsis of a manual's
        self.source = suffix in (".md", ".markdown", ".rst", ".rdoc", ".mediawiki", ".wiki")
        self.markup = self.source or self._has_markup()
        if not head and not in_code and self.markup and not self.man:
            self.first = _past_indented(self.lines, self.first)

    def _man_like(self) -> bool:
        nonblank = [ln for ln in self.lines if not ln.blank]
        if len(nonblank) < 4:
            return False
        indented = sum(ln.indent >= 3 for ln in nonblank)
        heads = sum(ln.indent == 0 and _MAN_HEADING.match(ln.body) is not None for ln in nonblank)
        return indented >= 0.6 * len(nonblank) and (heads > 0 or indented >= 0.9 * len(nonblank))

    def _has_markup(self) -> bool:
        return any(
            _ATX.match(ln.text) or _FENCE.match(ln.text) or _DIRECTIVE.match(ln.text)
            for ln in self.lines
        )

    # ------------------------------------------------------------------ helpers
    def add(self, kind: BlockKind, lines: list[_Line], **kw: object) -> None:
        lines = [ln for ln in lines if not ln.blank] or lines
        start, end = lines[0].first, lines[-1].end
        start = min(start, end)
        text = str(kw.pop("text", None) or clean(self.text[start:end]))
        if not text:
            return
        self.blocks.append(
            Block(kind, start, end, text, self.section, indent=lines[0].indent, **kw)  # type: ignore[arg-type]
        )

    def heading(self, title: str, line: _Line, span_end: int) -> None:
        h = strip_numbering(clean(title).strip("*_ ")).rstrip(":").strip()
        if self.man and line.indent == 0 and h.upper() == h and h.lower() != h:
            h = h.title() if h.lower() in GENERIC_SECTIONS else h
        # an SCCS identification line ("@(#)README 5.1 (Berkeley) 5/22/90") heads nothing
        if 2 <= len(h) <= 100 and re.search(r"[^\W_]", h) and not h.startswith("@(#)"):
            self.section = h
            self.blocks.append(Block("heading", line.first, span_end, h, h))

    def block_end(self, i: int, indent: int) -> int:
        """Index past the lines indented more than `indent` from i on (blank lines inside)."""
        n = len(self.lines)
        j = i
        last = i
        while j < n:
            ln = self.lines[j]
            if ln.blank:
                j += 1
                continue
            if ln.indent <= indent:
                break
            j += 1
            last = j
        return last

    # ------------------------------------------------------------------ main loop
    def parse(self) -> Parsed:
        lines = self.lines
        n = len(lines)
        i = self.first
        prev_prose_colon = False  # the last prose paragraph introduced a literal block
        while i < n:
            ln = lines[i]
            nxt = lines[i + 1] if i + 1 < n else None
            if ln.blank:
                i += 1
                continue
            while self.owners and self.owners[-1][0] >= ln.indent:
                self._disown(ln.start)
            # an rst literal block: everything indented under a paragraph ending in "::",
            # blank lines inside it included, is one block of code
            last = self.blocks[-1] if self.blocks else None
            if (
                prev_prose_colon
                and last is not None
                and self.text[last.start : last.end].rstrip().endswith("::")
                and ln.indent > last.indent
            ):
                end = self.block_end(i, last.indent)
                self.add("code", lines[i:end], text=self.text[ln.start : lines[end - 1].end])
                i, prev_prose_colon = end, False
                continue
            if not self.source and (past := self._synopsis(i)) is not None:
                i, prev_prose_colon = past, False
                continue
            # fenced code
            if _fence(lines, i):
                j = i + 1
                while j < n and not _fence(lines, j):
                    j += 1
                myst = _MYST_FENCE.match(ln.text)  # a MyST directive: ```{note}, ```{include}
                name = myst.group(1).split(":")[-1] if myst else ""
                if myst and name not in _CODE_DIRECTIVES | _MYST_CODE:
                    inner = [x for x in lines[i + 1 : j] if not _DIRECTIVE_OPTION.match(x.body)]
                    if name in _TEXT_DIRECTIVES and any(not x.blank for x in inner):
                        self.add("prose", inner)  # an admonition's text
                    i, prev_prose_colon = j + 1, False  # includes, toctrees, raw rst: skipped
                    continue
                self.add(
                    "code",
                    lines[i : min(j + 1, n)],
                    text=self.text[ln.start : lines[min(j, n - 1)].end],
                )
                i, prev_prose_colon = j + 1, False
                continue
            # HTML comments (Node's YAML history blocks), possibly over many lines
            if ln.body.startswith("<!--"):
                j = i
                while j < n and "-->" not in lines[j].text:
                    j += 1
                i = j + 1
                continue
            # rst directives and comments
            d = _DIRECTIVE.match(ln.text)
            if d is not None and d.group(1) in ("program", "std:program"):
                self.program = program_name(d.group(2))  # the options below are its
                self.programs.append((ln.start, self.program))
                i += 1
                continue
            body_at = self._described(d, i) if d is not None else None
            if body_at is not None:
                i, prev_prose_colon = body_at, False  # its text read on as the page's too
                continue
            if d is not None:
                name = d.group(1).split(":")[-1]
                end = self.block_end(i + 1, ln.indent)
                body = lines[i + 1 : end]
                while body and (body[0].blank or _DIRECTIVE_OPTION.match(body[0].body)):
                    body = body[1:]  # the directive's options (":caption: prompt.py")
                filled = [b for b in body if not b.blank]
                # a project's own code directive (Click's `click:example`, `doctest`,
                # `jupyter-execute`): an unknown directive whose content reads as code
                if name in _CODE_DIRECTIVES or (
                    filled
                    and name not in _TEXT_DIRECTIVES
                    and not name.startswith(("version", "deprecated"))
                    and (_CODE_START.match(filled[0].body) or _looks_like_code(filled))
                ):
                    if filled:
                        self.add("code", body, text=self.text[body[0].start : body[-1].end])
                    i = end
                elif (
                    name in _SKIPPED_DIRECTIVES
                    or name.startswith(("version", "deprecated"))
                    and not d.group(2).strip()
                ):
                    i = end
                else:  # admonitions, versionadded: the content reads as text
                    i += 1
                    while i < end and _DIRECTIVE_OPTION.match(lines[i].body):
                        i += 1  # autodoc's ":members:" and the like
                prev_prose_colon = False
                continue
            if _RST_COMMENT.match(ln.text):
                i = self.block_end(i + 1, ln.indent)
                continue
            if _MYST_TARGET.match(ln.text):
                i += 1
                continue
            # headings
            m = _ATX.match(ln.text)
            if m is not None and not self.man:
                self.heading(m.group(2), ln, ln.end)
                i += 1
                continue
            if (
                _UNDER.match(ln.text)
                and nxt is not None
                and i + 2 < n
                and _UNDER.match(lines[i + 2].text)
            ):
                self.heading(nxt.body, nxt, lines[i + 2].end)  # overlined title
                i += 3
                continue
            if nxt is not None and _is_underline(nxt, ln):
                self.heading(ln.body, ln, nxt.end)
                i += 2
                continue
            if self.man and ln.indent == 0:
                if _MAN_PAGE_HEADER.match(ln.body):
                    i += 1
                    continue
                if _MAN_HEADING.match(ln.body):
                    self.heading(ln.body, ln, ln.end)
                    i += 1
                    continue
            if (
                self.man
                and 1 <= ln.indent <= 4
                and len(ln.body) <= 60
                and not ln.body.endswith((".", ","))
                and nxt is not None
                and (nxt.blank or nxt.indent > ln.indent)
                and not _OPTION.match(ln.body.split("  ")[0])
            ):
                self.heading(ln.body, ln, ln.end)  # a man page's subsection (.SS)
                i += 1
                continue
            # a Google-style docstring section ("Args:" over "name (type): text" entries)
            g = _GOOGLE_SECTION.match(ln.text)
            if g is not None:
                end = self.block_end(i + 1, ln.indent)
                if end > i + 1:
                    self._google_section(g.group(1).lower(), lines[i + 1 : end], ln.indent)
                    i = end
                    continue
            # field lists (":param x: ...", ":returns: ...")
            f = _FIELD.match(ln.text)
            if f is not None:
                end = self.block_end(i + 1, ln.indent)
                kind, name, first = f.group(1), (f.group(2) or "").split()[-1:] or [""], f.group(3)
                body_lines = lines[i:end]
                body_start = (
                    ln.start + ln.text.index(first)
                    if first
                    else (body_lines[1].start if len(body_lines) > 1 else ln.end)
                )
                body_end = body_lines[-1].end if end > i else ln.end
                if kind in ("param", "parameter", "arg", "argument", "key", "keyword") and name[0]:
                    self._definition(name[0], "param", body_start, body_end, ln.indent)
                elif kind in ("returns", "return"):
                    self._definition("return value", "returns", body_start, body_end, ln.indent)
                i = max(end, i + 1)
                continue
            # Markdown tables: | term | description |
            if _TABLE_ROW.match(ln.text):
                j = i
                while j < n and _TABLE_ROW.match(lines[j].text):
                    j += 1
                self._table(lines[i:j])
                i = j
                continue
            # list items: "- `term`: description" or a plain item
            b = _BULLET.match(ln.text)
            if b is not None:
                # its lines: those indented under it, and (a plain-text license's hanging
                # indent, CommonMark's lazy continuation) one at any indent that goes on
                # with a sentence wrapped mid-way (a long line, no end punctuation)
                j = i + 1
                while (
                    j < n
                    and not lines[j].blank
                    and not _BULLET.match(lines[j].text)
                    and (lines[j].indent > ln.indent or _wrapped(lines[j - 1], lines[j]))
                ):
                    j += 1
                self._item(lines[i:j], len(b.group(0)))
                i = j
                continue
            # an option and its description on one line ("-c     with -lt: sort by ...")
            o = _OPTION_SAME_LINE.match(ln.text)
            if o is not None and _OPTION.match(o.group(2).rstrip(",")):
                col = len(ln.text) - len(o.group(3))
                j = i + 1
                while (
                    j < n and not lines[j].blank and lines[j].indent >= min(col - 1, ln.indent + 4)
                ):
                    j += 1
                self._definition(o.group(2), "option", ln.start + col, lines[j - 1].end, ln.indent)
                i = j
                continue
            # a name and its description on one line, in a table of names ("num_headers
            # The number of ...", curl's --write-out variables): a continuation line sits
            # at the description's column, or a one-line entry names an identifier
            k = _NAME_SAME_LINE.match(ln.text)
            if k is not None and _IDENT.match(k.group(2)) and k.group(2)[-1] not in ".:":
                col = len(ln.text) - len(k.group(3))
                j = i + 1
                while j < n and not lines[j].blank and lines[j].indent == col:
                    j += 1
                ident = "_" in k.group(2) or "." in k.group(2) or k.group(2).isupper()
                if j > i + 1 or (ident and k.group(3)[0].isupper() and (nxt is None or nxt.blank)):
                    self._definition(
                        k.group(2), "keyword", ln.start + col, lines[j - 1].end, ln.indent
                    )
                    i = j
                    continue
            # a man page's tag short enough to fit its indent, its text on the same line after
            # one space and on at that column below (groff's .TP: bash's "extglob If set,
            # the extended pattern ..." over "        above under Pathname Expansion")
            t = _TAG_FITS.match(ln.text) if self.man and nxt is not None else None
            if (
                t is not None
                and nxt is not None
                and not nxt.blank
                and nxt.indent == len(t.group(1)) + len(t.group(2)) + 1
                and (_IDENT.match(t.group(2)) or _OPTION.match(t.group(2)))
                # no sentence's first word ("The following names are recognised:")
                and not (t.group(2)[0].isupper() and t.group(2)[1:].islower())
                # its text a sentence wrapped at the margin, not a tag's own words ("--dest
                # DEST", "bridge vlan - VLAN filter list" over their text below)
                and len(ln.text.rstrip()) >= 60
                # nor a synopsis wrapped under its command ("devlink sb port pool show [",
                # gcloud's "(BACKUP : --domain=DOMAIN)" at a hanging indent its name fits)
                and not re.search(r"[\[{|]", t.group(3)[:40])
                and self.section.lower() not in _MAN_HEAD_SECTIONS
            ):
                end = self.block_end(i + 1, ln.indent)
                tag: DefKind = "option" if _OPTION.match(t.group(2)) else "keyword"
                at = ln.start + len(t.group(1)) + len(t.group(2)) + 1
                self._definition(t.group(2), tag, at, lines[end - 1].end, ln.indent)
                i = end
                continue
            # a man page's option over a blank line and its description, indented deeper
            # (groff's tagged paragraphs with their spacing: GNU sed's, make's options)
            if self.man and nxt is not None and nxt.blank and _OPTION.match(ln.body.rstrip(",")):
                at = i + 2
                if at < n and not lines[at].blank and lines[at].indent > ln.indent:
                    end = self.block_end(at, ln.indent)
                    self._term(ln, lines[at:end])
                    i = end
                    continue
            # a term line over its indented description (rst definition lists, man options);
            # not a manual page's NAME or SYNOPSIS wrapped at groff's hanging indent
            if (
                nxt is not None
                and not nxt.blank
                and nxt.indent > ln.indent
                and _term_like(ln)
                and not (self.man and self.section.lower() in _MAN_HEAD_SECTIONS)
            ):
                end = self.block_end(i + 1, ln.indent)
                body = [x for x in lines[i + 1 : end] if not x.blank]
                if _LABEL.fullmatch(ln.body) and not _OPTION.match(ln.body.rstrip(":")):
                    # a label over a list ("Options:", "Args:"): its lines parse on their own
                    self.section = clean(ln.body).rstrip(":") or self.section
                    i += 1
                    continue
                if body and (_OPTION.match(ln.body.rstrip(",")) or not _looks_like_code(body[:3])):
                    self._term(ln, lines[i + 1 : end])
                    i = end
                    continue
            # a paragraph: lines up to a blank line or a line at a smaller indent
            j = i + 1
            while (
                j < n
                and not lines[j].blank
                and (
                    lines[j].indent >= ln.indent - 1
                    or (not self.markup and _wrapped(lines[j - 1], lines[j]))
                )  # plain text: a first line indented more than the rest ("  “The Program”")
                and not (
                    _FENCE.match(lines[j].text)
                    or _BULLET.match(lines[j].text)
                    or (j + 1 < n and _is_underline(lines[j + 1], lines[j]))
                )
            ):
                if lines[j].indent > ln.indent + 1 and _term_like(lines[j - 1]) and j > i + 1:
                    if _OPTION.match(lines[j - 1].body.rstrip(",")):
                        j -= 1  # an option over its description, no more the paragraph's
                    break
                j += 1
            para = lines[i:j]
            indented_more = (
                bool(self.blocks)
                and self.blocks[-1].kind == "prose"
                and ln.indent > self.blocks[-1].indent
            )
            q = _QUOTED_DEF.match(self.text[ln.first : para[-1].end])
            after = self._category(para, j) if all(_category_head(x.body) for x in para) else None
            if after is not None:  # "**Command:** `magit-status`" over its paragraph
                i, prev_prose_colon = after, False
                continue
            if (
                (prev_prose_colon and indented_more)
                or _looks_like_code(para)
                or (self.markup and not self.man and ln.indent >= 4 and indented_more)
            ):
                self.add("code", para, text=self.text[para[0].start : para[-1].end])
                prev_prose_colon = False
            elif q is not None:  # '"License" shall mean ...': a term and its definition
                at = ln.first + q.start("d")
                self._definition(q.group("t"), "term", at, para[-1].end, ln.indent)
                prev_prose_colon = False
            else:
                self.add("prose", para)
                prev_prose_colon = para[-1].text.rstrip().endswith(":")
            i = j
        while self.owners:
            self._disown(len(self.text))
        return Parsed(_no_labels(self.blocks), self._subject(), self.man, self.programs, self.owned)

    # ------------------------------------------------------------------ definitions
    def _category(self, heads: list[_Line], j: int) -> int | None:
        """A Texinfo-style definition, "**Command:** `magit-status`" (and the names stacked
        under it, `@deffnx`'s) over the paragraph that describes it, as the Texinfo and Org
        readers write `@deffn`, `@defopt` and `- Command: x ::`: a definition of its first
        name, the paragraph its description. Where the text after that paragraph begins;
        None when no paragraph follows at its indent."""
        lines, n = self.lines, len(self.lines)
        while j < n and lines[j].blank:
            j += 1
        if j >= n or lines[j].indent < heads[0].indent or _category_head(lines[j].body):
            return None
        if _FENCE.match(lines[j].text) or lines[j].text.lstrip().startswith("#"):
            return None
        end = self._paragraph_end(j)
        if _DEFAULT_LINE.fullmatch(self.text[lines[j].first : lines[end - 1].end]):
            # Mailutils' "Default: False" over the variable's text: the text with it
            k = end
            while k < n and lines[k].blank:
                k += 1
            if k < n and lines[k].indent >= heads[0].indent and not _category_head(lines[k].body):
                end = self._paragraph_end(k)
        self._definition(
            _category_head(heads[0].body),
            "keyword",
            lines[j].first,
            lines[end - 1].end,
            heads[0].indent,
        )
        return end

    def _paragraph_end(self, j: int) -> int:
        """The line after the paragraph that starts at line j."""
        while j < len(self.lines) and not self.lines[j].blank:
            j += 1
        return j

    def _described(self, d: re.Match[str], i: int) -> int | None:
        """A Sphinx description of a command-line option, an environment variable, a
        setting or any named thing (`.. option:: -S <path>`, `.. envvar:: HOME`,
        `.. confval:: html_theme`, `.. describe:: name`, CMake's `.. variable::`,
        `.. genex::`) read as a definition list's entry: its signatures the term, its text
        the description. Where its text begins (read on as the page's, with the lists and
        examples it holds); None (nothing read) for any other directive."""
        domain, _, name = d.group(1).rpartition(":")
        kind = _DESCRIBED.get(name)
        if kind is None or domain not in ("", "std", "rst", "cmake") or not d.group(2).strip():
            return None
        lines, head = self.lines, self.lines[i]
        end = self.block_end(i + 1, head.indent)
        terms, j = [d.group(2).strip()], i + 1
        while j < end and not lines[j].blank and not _DIRECTIVE_OPTION.match(lines[j].body):
            terms.append(lines[j].body)  # further signatures, one a line
            j += 1
        while j < end and (lines[j].blank or _DIRECTIVE_OPTION.match(lines[j].body)):
            j += 1
        filled = [x for x in lines[j:end] if not x.blank]
        if filled:
            owner = self.program if kind == "option" else ""
            self._definition(
                ", ".join(terms), kind, filled[0].first, filled[-1].end, head.indent, owner
            )
        return j

    def _definition(
        self, term: str, kind: DefKind, start: int, end: int, indent: int, owner: str = ""
    ) -> None:
        """A definition whose description is text[start:end]: its first prose paragraphs
        (directives such as versionadded, and code, left out) make the answer."""
        spans: list[tuple[int, int]] = []  # the kept paragraphs, stripped, in the text
        pos = start
        for part in re.split(r"(\n[ \t]*\n)", self.text[start:end]):
            a, pos = pos, pos + len(part)
            s = part.strip()
            if not s:  # a separator, or blank lines
                continue
            # a description's leading type, `(string) the name` (phpDocumentor's, LDoc's), is
            # no code in it
            bare = re.sub(r"^\((?:`[^`]*`|[^()`]*)\)\s+(?=\S)", "", s)
            if s.startswith(("..", "```", ">>>", "$ ")) or _looks_like_code(_lines(bare)):
                if spans:
                    break
                continue
            a += len(part) - len(part.lstrip())
            spans.append((a, a + len(s)))
            if sum(y - x for x, y in spans) > 500:
                break
        if not spans:
            return
        a, b = spans[0][0], spans[-1][1]
        text = clean(self.text[a:b])
        owner = owner or (self.owners[-1][1] if self.owners else "")
        shown = clean(term).strip("`*: ")
        if shown and text and not _opaque(shown):
            block = Block("definition", a, b, text, self.section, shown, kind, indent, owner)
            self.blocks.append(block)

    def _google_section(self, name: str, body: list[_Line], indent: int) -> None:
        """The entries of a Google-style section: a parameter's or attribute's description,
        or what a function returns; a Raises section's exceptions are left out."""
        filled = [ln for ln in body if not ln.blank]
        if name in _GOOGLE_RETURNS:
            self._definition(
                "return value",
                "returns",
                filled[0].first,
                filled[-1].end,
                indent,
            )
            return
        if name == "raises":
            return
        kind: DefKind = "keyword" if name == "attributes" else "param"
        at = filled[0].indent
        starts = [k for k, ln in enumerate(body) if ln.indent == at and not ln.blank]
        for a, b in zip(starts, [*starts[1:], len(body)], strict=True):
            m = _GOOGLE_ENTRY.match(body[a].text)
            if m is None:
                continue
            rest = [ln for ln in body[a + 1 : b] if not ln.blank]
            if m.group(2):
                start = body[a].start + m.start(2)
            elif rest:
                start = rest[0].first
            else:
                continue
            end = rest[-1].end if rest else body[a].end
            self._definition(m.group(1).lstrip("*"), kind, start, end, indent)

    def _synopsis(self, i: int) -> int | None:
        """A command's synopsis over its description, indented deeper (a shell's builtin in
        its manual: `read [-ers] [-a aname] [-d delim] ... [-p` / `prompt] [name ...]`):
        the lines past it, the command the owner of the options read in its description
        (a code block, the synopsis); None for any other line."""
        lines, ln = self.lines, self.lines[i]
        m = _SYNOPSIS.match(ln.body)
        if m is None or "[" not in ln.body or _OPTION.match(ln.body):
            return None
        j = i + 1
        while j < len(lines) and not lines[j].blank and lines[j].indent == ln.indent:
            if not re.search(r"[\[\]]", lines[j].body):
                return None  # a paragraph that goes on, no synopsis
            j += 1
        if j >= len(lines) or lines[j].blank or lines[j].indent <= ln.indent:
            return None
        self.add("code", lines[i:j], text=self.text[ln.start : lines[j - 1].end])
        self._own(ln, m.group(1))
        return j

    def _own(self, head: _Line, command: str) -> None:
        self.owners.append((head.indent, command))
        self.owned_from.append(head.start)

    def _disown(self, at: int) -> None:
        indent, command = self.owners.pop()
        self.owned.append((self.owned_from.pop(), at, indent, command))

    def _term(self, head: _Line, body: list[_Line]) -> None:
        raw = head.body
        dash = _NAME_DASH.match(raw) if self.man else None
        if (
            dash is not None
            and not _OPTION.match(dash.group(1))
            # its words a description ("expr - expr" is bc's subtraction), its name no
            # sentence ("Traversing the filesystem just once - for 2 different actions")
            and len(dash.group(2).split()) >= 3
            and re.search(r"[a-z]", dash.group(2)) is not None  # "INTERNALS — CONE MODE": a heading
            and not {"the", "a", "an", "of", "to", "for", "and", "or"} & set(dash.group(1).split())
        ):
            # "subgroup mpls - Statistics for MPLS traffic seen on the netde-" over "vice.":
            # a name and its description wrapped at the tag's indent (iproute2, devlink)
            at = head.first + dash.start(2)
            self._definition(clean(dash.group(1)), "term", at, body[-1].end, head.indent)
            return
        shown = clean(raw).strip()
        alias = _OPTION_ALIAS.fullmatch(shown.replace("`", ""))
        if alias is not None and _OPTION.match(alias.group(1)):
            shown = f"{alias.group(1)}, {alias.group(2)}"  # rake's "`--all` (-A)"
        np = _NUMPY_PARAM.match(shown)
        option = _OPTION_DEFAULT.sub("", shown.strip("` ")).strip()
        if _OPTION.match(shown.rstrip(",")):
            kind: DefKind = "option"
        elif option != shown.strip("` ") and _OPTION.match(option):
            kind, shown = "option", option  # "`--log-fd=<number> [default: 2, stderr]`"
        elif np is not None:
            kind, shown = "param", np.group(1)
        elif (
            re.fullmatch(r"`[^`]+`", shown)
            or _IDENT.match(shown)
            and ("_" in shown or shown.isupper() or "." in shown or shown.islower())
        ):
            kind = "keyword"
        elif re.search(r"[()\[\]{}=<>]", shown) or shown.lower() in _GENERIC_TERMS:
            return  # a signature or a label over an indented block, not a term
        elif strip_numbering(shown) != shown:
            return  # a numbered section over its subsections: a table of contents
        else:
            kind = "term"
        first = next(x for x in body if not x.blank)
        self._definition(shown, kind, first.first, body[-1].end, head.indent)

    def _item(self, lines: list[_Line], bullet: int) -> None:
        first = lines[0]
        content = first.text[bullet:]
        if _TYPE_ONLY.match(clean(self.text[first.start + bullet : lines[-1].end])):
            return  # "* `options` {Object}", "* Returns: {string}": a type, no statement
        m = _INLINE_DEF.match(content)
        term = ""
        if (
            m is not None
            and not _NOT_A_DESCRIPTION.match(m.group("d"))
            and not _SENTENCE_GOES_ON.match(content[m.start("d") - 2 :])
        ):
            term = m.group("cmd") or m.group("b") or m.group("c") or ""
            desc = m.group("d")
        else:
            p = _PLAIN_DEF.match(content)
            if (
                p is not None
                and len(p.group("t").split()) <= 5
                and not content.startswith(("Returns", "Return"))
            ):
                term, desc = p.group("t"), p.group("d")
        if content.startswith(("Returns:", "Returns ", "Return:")):
            rest = re.sub(r"^Returns?:?\s*(\{[^}]*\}\s*)?", "", content)
            if len(rest.split()) >= 3:
                start = first.start + first.text.index(rest)
                self._definition("return value", "returns", start, lines[-1].end, first.indent)
                return
        if term.lower() in _GENERIC_TERMS and not (m is not None and m.group("c")):
            term = ""  # a label ("**Type**: ..."), unless it is a name in code ("`value`")
        if (
            term
            and len(desc.split()) >= 3
            and (len(term.split()) <= 4 or m is not None and m.group("c"))
        ):
            start = first.start + bullet + content.index(desc)
            kind: DefKind
            t = clean(term).strip("`")
            if _OPTION.match(t):
                kind = "option"
            elif self.section.lower() in ("parameters", "arguments", "args", "params") or (
                m is not None and m.group("c") and "{" in content[: content.index(desc)]
            ):
                kind = "param"
            elif m is not None and m.group("c"):
                kind = "keyword"
            else:
                kind = "term"
            self._definition(term, kind, start, lines[-1].end, first.indent)
            return
        text = clean(self.text[first.start + bullet : lines[-1].end])
        self.add("prose", lines, text=text, item=True)

    def _table(self, rows: list[_Line]) -> None:
        cells = [[c.strip() for c in _PIPE.split(r.body.strip().strip("|"))] for r in rows]
        if len(cells) < 3 or not _TABLE_SEP.match(rows[1].text) or len(cells[0]) < 2:
            return
        # which column describes the first: one headed like a description, else the second
        # of a two-column table; in any other table ("Use-case | Class | Methods") a cell
        # is not what its row's first cell is
        heads = [clean(h).strip("`*").lower() for h in cells[0]]
        col = next((k for k, h in enumerate(heads) if k and h in _DESCRIPTION_HEADS), None)
        if col is None and len(heads) == 2:
            col = 1
        if col is None:
            return
        for r, c in zip(rows[2:], cells[2:], strict=True):
            if len(c) != len(heads) or not c[0] or len(c[col].split()) < 3:
                continue
            t = clean(c[0]).strip("`")
            # a number or a hash; a label and its value ("Description: | ...", "Default:")
            if _opaque(t) or t.endswith(":") or t.lower() in _GENERIC_TERMS:
                continue
            kind: DefKind = (
                "option" if _OPTION.match(t) else "keyword" if _IDENT.match(t) else "term"
            )
            # the cell's place in the row: past the separators of the cells before it
            a = r.start + _cell_offset(r.text, col, c[col])
            text = clean(c[col]).replace("\\|", "|")
            self.blocks.append(Block("definition", a, a + len(c[col]), text, self.section, t, kind))

    def _subject(self) -> str:
        """A man page's NAME line names its command; a page named by a version ("3.15.rst")
        its first heading that holds it ("CMake 3.15 Release Notes"); otherwise the
        title's."""
        if self.head and _VERSION_NAME.fullmatch(self.subject):
            first = next((b for b in self.blocks if b.kind == "heading"), None)
            if first is not None and self.subject in first.text and len(first.text) <= 60:
                return first.text
        for i, blk in enumerate(self.blocks):
            if blk.kind == "heading" and blk.text.lower() == "name" and i + 1 < len(self.blocks):
                name = re.split(
                    r"\s+(?:--|[-\u2010\u2013\u2014])\s+", self.blocks[i + 1].text, maxsplit=1
                )[0]
                name = name.split(",")[0].strip()
                # a command's name ("gcloud access-approval settings delete"), not a
                # placeholder the build left ("@@PACKAGE"); the file's spelling when the
                # two differ in case only ("AS - the portable GNU assembler" in as.1)
                if 0 < len(name) <= 80 and _NAME_LINE.fullmatch(name):
                    return self.subject if name.lower() == self.subject.lower() else name
        return self.subject


def _cell_offset(row: str, col: int, cell: str) -> int:
    """Where cell number `col` (its stripped text `cell`) starts in a table row."""
    pos = row.index("|") + 1 if row.lstrip().startswith("|") else 0
    for _ in range(col):
        pos = _PIPE.search(row, pos).end()  # type: ignore[union-attr]
    return row.index(cell, pos)


def _first_whole_line(lines: list[_Line]) -> int:
    """A chunk that does not start its document starts mid-paragraph (chunks overlap by
    words): its first lines, up to a blank line not far in, are the tail of a paragraph
    the previous chunk holds; without a blank line nearby, only the first line is skipped."""
    for i, ln in enumerate(lines[:12]):
        if ln.blank:
            return i
    return 1


def _past_indented(lines: list[_Line], first: int) -> int:
    """Past the rest of an indented block that the previous chunk opened (an rst literal
    block or a directive's code cut by the chunk boundary), which would read as prose or
    terms: from `first`, the indented lines up to the next line at the margin."""
    n = len(lines)
    j = first
    while j < n and (lines[j].blank or lines[j].indent >= 3):
        j += 1
    return j if j < n and any(not ln.blank for ln in lines[first:j]) else first


def parse(
    text: str,
    title: str = "",
    head: bool = True,
    section: str = "",
    in_code: bool = False,
    program: str = "",
    owners: tuple[tuple[int, str], ...] = (),
    subject: str = "",
) -> Parsed:
    """The blocks of a chunk of documentation, in order. `head`: the chunk starts its
    document (otherwise it starts inside a paragraph); `section`: the heading in force where
    it starts (a chunk cut inside a section: the blocks before its own first heading);
    `in_code`: it starts inside a fenced code block (read from past its closing fence);
    `program`: the program a `.. program::` directive before it named; `owners`: the
    commands whose synopses the lines it starts in are indented under, with their indent;
    `subject`: its document's subject as the document's first chunk read it (a manual
    page's NAME line), in place of the title's."""
    return _Parser(text, title, head, section, in_code, program, owners, subject).parse()


def program_name(name: str) -> str:
    """A `.. program::` directive's name as a user types it: CMake names its modes
    `cmake--build`, `cmake-E` and `cmake-E_tar` for their cross-references; they are
    `cmake --build`, `cmake -E` and `cmake -E tar` (a program named with a hyphen,
    `cmake-gui`, stays)."""
    name = " ".join(name.split())
    m = re.fullmatch(r"(\w[\w.]*)(--\w[\w-]*|-[A-Z])(?:_(\w+))?", name)
    return " ".join(x for x in m.groups() if x) if m is not None else name


def fence_lines(text: str, whole_first_line: bool) -> list[int]:
    """Where the lines that open or close a fenced code block start in `text`; its first
    line only when `whole_first_line` (a chunk cut inside a line starts with a part of it)."""
    lines = _lines(text)
    first = 0 if whole_first_line else 1
    return [lines[k].start for k in range(first, len(lines)) if _fence(lines, k)]


def starts_in_code(text: str, whole_first_line: bool) -> bool:
    """Whether `text`, a chunk whose document's text before it is unknown, starts inside
    a fenced code block: the reading of its fence lines (`fence_lines`) that puts text
    outside the blocks and code inside, rather than the other way round (`_line_reading`
    of each line); outside when the two read alike."""
    cuts = [0, *fence_lines(text, whole_first_line), len(text)]
    lean = 0.0  # > 0: starts outside
    for k in range(len(cuts) - 1):
        lines = text[cuts[k] : cuts[k + 1]].splitlines()[1 if k else 0 :]
        readings = [_line_reading(ln) for ln in lines if ln.strip()]
        if readings:
            mean = sum(readings) / len(readings)
            lean += mean if k % 2 == 0 else -mean
    return lean < 0


# a line of code: what a statement, a block or a call ends with, an operator, a comment
# or a prompt, a declaration's keyword
_CODE_END = re.compile(r"(?:[;{}]|\)|\]|=>)\s*$")
_CODE_MARK = re.compile(
    r"=>|[^=!<>]==?[^=]|\(\);|::|^\s*(?://|/\*|>>>|\$ |#include|import |from \S+ import |"
    r"const |let |var |function |def |class |return |if \(|for \(|await |print\()"
)
# a line of Markdown outside code: a list item, a table row, a quote
_TEXT_MARK = re.compile(r"^\s{0,3}(?:(?:[*+-]|\d+\.)\s+\S|\|.*\|\s*$|> )")


def _line_reading(line: str) -> int:
    """1 for a line that reads as text outside code (a sentence of six words or more,
    nearly all of them words; a list item, a table row), -1 for one that reads as code,
    0 for either."""
    code = _CODE_END.search(line) is not None or _CODE_MARK.search(line) is not None
    words = line.split()
    sentence = len(words) >= 6 and sum(
        w.strip(".,;:()[]{}`'\"!?*_").isalpha() for w in words
    ) >= 0.7 * len(words)
    if _TEXT_MARK.match(line) or (sentence and not line.rstrip().endswith((";", "{"))):
        return 1
    return -1 if code else 0
