"""Texinfo sources (`.texi`, `.texinfo`, `.txi`) read as the Markdown of the manual they
make, one document per node: the manuals GNU projects keep in their repositories
(doc/sed.texi, doc/grep.texi) before `makeinfo` turns them into info files.

Read as plain text, a `.texi` file gave the question templates its markup: `@cindex`
lines, `@node` and `@menu` blocks, `@code{...}` and `@var{...}` around every other word,
`@table @code` lists of `@item` lines and `@c` comments. Here the source is read the way
makeinfo reads it, in three passes (scanners, not a pile of global patterns):

1. Lines, as the preprocessor sees them: `@c` / `@comment` comments and
   `@ignore ... @end ignore` go; `@include` files are read in place (relative to the
   including file's folder, then to the root; a cycle, or more than 8 levels deep, is not
   followed); `@set` / `@clear` flags are kept, `@value{NAME}` substituted and
   `@ifset` / `@ifclear` evaluated by them (flags an included version.texi sets count);
   the output-format conditionals keep what an info reader sees (`@ifinfo`, `@ifnottex`,
   `@ifnothtml`, ...) and drop the rest with the raw `@tex` / `@html` blocks; `@macro`s
   (with `\\arg\\` parameters, called with braces or, with one parameter, on the rest of
   the line) are expanded where used, at most 10 levels deep so one that calls itself
   ends (`@linemacro`s too, called at the start of a line); `@alias` and
   `@definfoenclose` are kept for the next passes; `@bye` ends the text. A conditional
   or macro definition that never ends drops its own line only.
2. A tree: block commands (`@example`, `@table`, `@quotation`, `@deffn`, ...) up to their
   `@end`, the line commands that mean something (`@node`, sectioning, `@item`, `@center`)
   and text lines. An `@end` that closes nothing is ignored, a block left open ends at the
   next `@node` or chapter, blocks more than 40 deep are read flat, and the line commands
   that only lay out, index or configure (`@cindex`, `@setfilename`, an unknown one) go
   with their line (the text after a `@noindent` stays).
3. Markdown, node by node. Each `@node` is a document named by the node line's first
   argument; the text before the first node (title page, copying) is none, except that
   `@settitle` gives the manual's title, which is the `Top` node's title (else `@top`'s);
   another node's title is its sectioning command's argument, else its name. Sectioning
   commands are headings (`@chapter`, `@unnumbered`, `@appendix`, `@top` `#`, the
   `@section` family `##`, down to `####`; `@heading` and its family too; `@raisesections` /
   `@lowersections` applied); a node without one starts with its name as a `#` heading, and
   a node that gives nothing but its heading (a menu, an index) is no document. A file
   without any node is one document.

Blocks: `@example`, `@smallexample`, `@lisp`, `@format`, `@verbatim` and their kin are
fenced code, dedented (`@example sh` gives the fence's language; @-commands inside still
read, but in `@verbatim`); `@display` and the `@quotation` family `> ` quoted lines
(`@quotation Note` starts `**Note:**`); `@itemize` `- ` items and `@enumerate` `1.` ones
from its start (`a.` ones from a letter); `@table @code` (and `@ftable`, `@vtable`) `- ` items of the `@item` /
`@itemx` terms, formatted by the table's command and joined by ", ", then `: ` and the
description (more blocks indented under it); `@multitable` a Markdown table (without
`@headitem`, its first row the header; with code in a cell, a list of rows); `@float` its
content then `Type: caption`; definitions (`@deffn`, `@defun`, `@deftypefn`, ... and
their `x` lines) a line `**Category:** `name args`` each, then the body (a name after
its type, or under no category, its own bold span: `**Function:** `int` **`open`** `(...)``;
texinfo.def_head, which the HTML reader uses for texi2any's pages too).

Inline: `@code`, `@samp`, `@command`, `@option`, `@env`, `@file`, `@kbd`, `@key`, `@t`,
`@verb` code spans (no markup inside them); `@var{x}` upper case, in code too, as the info
reader shows it; `@emph`, `@i`, `@dfn`, `@cite` `*x*`, `@strong`, `@b` `**x**`; `@sc` upper
case; `@url` / `@uref` `<u>` or `text (<u>)`; `@xref{Node}` `See "Node"` (`@pxref` `see`,
`@ref` the quoted name alone; with a manual, ` in *The Manual*`); `@footnote{x}` ` (x)`
right after its word; `@acronym{X, expansion}` `X (expansion)`; the glyph commands
(`@dots{}`, `@result{}`, `@copyright{}`, ...), accents (`@'e`, `@,{c}`, `@ss{}`) and escapes
(`@@`, `@{`, `@}`) their characters; `---` / `--` dashes and ``` `` ``` / `''` quotes outside
code. An unknown `@cmd{x}` keeps x; an unknown block keeps its content. A file that
another file of the source `@include`s is read there, not on its own.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from collections.abc import Callable, Collection

from jupiter.collect import asciidoc
from jupiter.collect.latex import markdown_table

SUFFIXES = (".texi", ".texinfo", ".txi")
INCLUDED = "texinfo_included"
INCLUDED_FIX = "a Texinfo file another one @includes is read where it is included, not on its own"
MAX_INCLUDE_DEPTH = 8
MAX_MACRO_DEPTH = 10
MAX_EXPANSIONS = 20000  # macro uses expanded in one manual, at most
MAX_EXPANDED = 2_000_000  # characters those expansions make, at most
MAX_NESTING = 40  # brace groups or blocks in one another: deeper ones read flat
MAX_ARG_LINES = 200  # lines a macro call's braced argument may run over

# (an include's target as written, the including file's folder) -> (its text, its folder)
Reader = Callable[[str, str], tuple[str, str] | None]
# (node name, title, Markdown)
Node = tuple[str, str, str]


def takes(name: str) -> bool:
    """Whether a file name says Texinfo."""
    return name.lower().endswith(SUFFIXES)


def resolve(target: str, folder: str) -> str | None:
    """An include's target as a path relative to the source's root (`/`-separated), from
    `folder`; None for a URL, an absolute path, one with markup left in it or one that
    leaves the source (AsciiDoc's rule, asciidoc.resolve, once markup is ruled out)."""
    target = target.strip().strip('"')
    if not target or re.search(r"[{}@\\]", target):
        return None
    return asciidoc.resolve(target, folder) or None


def _find(target: str, folder: str, names: dict[str, str]) -> str | None:
    """The file of `names` an include's target means: relative to `folder`, then to the
    root; `.texi` added to a name that is not there as written."""
    return asciidoc.find_included(target, folder, names, ".texi", resolved=resolve)


_INCLUDE_LINE = re.compile(
    r"^[ \t]*@include[ \t]+(\S[^\n]*?)[ \t]*(?:@c(?:omment)?\b[^\n]*)?$", re.M
)


def includes(text: str) -> list[str]:
    """The targets of a file's `@include` lines, as written."""
    return [m.group(1) for m in _INCLUDE_LINE.finditer(text)]


def batch(texts: dict[str, str]) -> tuple[dict[str, list[Node]], set[str]]:
    """Of a source's Texinfo files ({path relative to its root: text}), the manuals
    ({main path: [(node name, title, Markdown), ...] in document order}) and the paths
    another file `@include`s (read there, not on their own). A file that gives no node
    (one of settings only, like version.texi) is no manual."""
    texi = {p: t for p, t in texts.items() if takes(p)}
    static: set[str] = set()
    for p, t in texi.items():
        for target in includes(t):
            got = _find(target, asciidoc.folder_of(p), texi)
            if got is not None and got != p:
                static.add(got)

    out: dict[str, list[Node]] = {}
    reached: set[str] = set()  # read in place by a manual
    converted: set[str] = set()
    # the files no other one includes first; then any file of a cycle that none of those
    # reached (a includes b includes a): the first of it read on its own
    order = sorted(p for p in texi if p not in static) + sorted(static)
    for p in order:
        if p in reached or p in converted:
            continue
        seen: set[str] = set()

        def read(target: str, folder: str, seen: set[str] = seen) -> tuple[str, str] | None:
            got = _find(target, folder, texi)
            if got is None:
                return None
            seen.add(got)
            return texi[got], asciidoc.folder_of(got)

        nodes = to_nodes(texi[p], read, asciidoc.folder_of(p))
        converted.add(p)
        reached |= seen - {p}
        if nodes:
            out[p] = nodes
    for p in list(out):
        if p in reached:
            del out[p]
    included = (static | reached) - (converted - reached)
    return out, included


def to_nodes(text: str, read: Reader | None = None, folder: str = "") -> list[Node]:
    """The nodes of one main Texinfo file in `folder`, in document order: (node name,
    title, Markdown); `read(target, folder)` gives the text and folder of a file it
    includes (None: none)."""
    pre = _Pre(read)
    lines = pre.run(text, folder)
    tree, settitle = _parse(lines, pre.aliases)
    render = _Render(pre.flags, pre.aliases, pre.encloses)
    return render.nodes(tree, settitle)


# ----------------------------------------------------------------------------- commands
# output-format conditionals: the content of these is what an info reader sees
_KEPT_CONDITIONALS = {
    "ifinfo", "ifnottex", "ifplaintext", "ifnothtml", "ifnotxml", "ifnotdocbook",
    "ifnotlatex",
}  # fmt: skip
# ... and of these it is not; nor of the raw blocks for other formats
_DROPPED_BLOCKS = {
    "iftex", "ifhtml", "ifxml", "ifdocbook", "iflatex", "ifnotinfo", "ifnotplaintext",
    "tex", "html", "xml", "docbook", "latex", "ignore",
}  # fmt: skip
_CONDITIONALS = _KEPT_CONDITIONALS | _DROPPED_BLOCKS | {
    "ifset", "ifclear", "ifcommanddefined", "ifcommandnotdefined",
}  # fmt: skip
_CODE_BLOCKS = {
    "example", "smallexample", "lisp", "smalllisp", "format", "smallformat", "verbatim",
    "displaymath",
}  # fmt: skip
_QUOTE_BLOCKS = {
    "display", "smalldisplay", "quotation", "smallquotation", "cartouche",
}  # fmt: skip
_LIST_BLOCKS = {"itemize", "enumerate"}
_TABLE_BLOCKS = {"table", "ftable", "vtable"}
_HIDDEN_BLOCKS = {
    "titlepage", "copying", "menu", "detailmenu", "direntry", "documentdescription",
    "macro", "rmacro", "linemacro", "ignore", "nodedescriptionblock",
}  # fmt: skip
_PLAIN_BLOCKS = {
    "group", "flushleft", "flushright", "raggedright", "indentedblock", "smallindentedblock",
}  # fmt: skip
# definitions: (fixed category, how many leading arguments name it, the word joining them)
_DEFS: dict[str, tuple[str, int, str]] = {
    "deffn": ("", 1, ""), "defun": ("Function", 0, ""), "defmac": ("Macro", 0, ""),
    "defspec": ("Special Form", 0, ""), "defvar": ("Variable", 0, ""),
    "defopt": ("User Option", 0, ""), "defvr": ("", 1, ""), "deftypefn": ("", 1, ""),
    "deftypefun": ("Function", 0, ""), "deftypevr": ("", 1, ""),
    "deftypevar": ("Variable", 0, ""), "deftp": ("", 1, ""), "defop": ("", 2, "on"),
    "deftypeop": ("", 2, "on"), "defmethod": ("Method", 1, "on"),
    "deftypemethod": ("Method", 1, "on"), "defcv": ("", 2, "of"), "deftypecv": ("", 2, "of"),
    "defivar": ("Instance Variable", 1, "of"), "deftypeivar": ("Instance Variable", 1, "of"),
    "defline": ("", 1, ""), "deftypeline": ("", 1, ""),
}  # fmt: skip
_DEF_CONTINUATIONS = {name + "x": name for name in _DEFS}
_BLOCKS = (
    _CODE_BLOCKS | _QUOTE_BLOCKS | _LIST_BLOCKS | _TABLE_BLOCKS | _HIDDEN_BLOCKS
    | _PLAIN_BLOCKS | {"multitable", "float"} | set(_DEFS)
)  # fmt: skip
# sectioning commands: their heading level; those of _HEADINGS are no node's structure
_SECTIONS = {
    "top": 1, "part": 1, "chapter": 1, "unnumbered": 1, "appendix": 1, "centerchap": 1,
    "section": 2, "unnumberedsec": 2, "appendixsec": 2, "appendixsection": 2,
    "subsection": 3, "unnumberedsubsec": 3, "appendixsubsec": 3,
    "subsubsection": 4, "unnumberedsubsubsec": 4, "appendixsubsubsec": 4,
}  # fmt: skip
_HEADINGS = {
    "majorheading": 1, "chapheading": 1, "heading": 2, "subheading": 3, "subsubheading": 4,
}  # fmt: skip
_LINE_COMMANDS = (
    {"node", "item", "itemx", "headitem", "tab", "center", "exdent", "sp", "page",
     "raisesections", "lowersections", "settitle"}
    | set(_SECTIONS) | set(_HEADINGS) | set(_DEF_CONTINUATIONS)
)  # fmt: skip
# line commands that lay out, index or configure: they go with their line
_LAYOUT = {
    "setfilename", "dircategory", "documentencoding", "documentlanguage", "syncodeindex",
    "synindex", "defindex", "defcodeindex", "paragraphindent", "firstparagraphindent",
    "exampleindent", "finalout", "setchapternewpage", "headings", "need", "vskip",
    "noindent", "indent", "refill", "contents", "shortcontents", "summarycontents",
    "insertcopying", "printindex", "listoffloats", "title", "subtitle", "author",
    "shorttitlepage", "codequoteundirected", "codequotebacktick", "frenchspacing",
    "smallbook", "afourpaper", "afivepaper", "afourlatex", "afourwide", "pagesizes",
    "allowcodebreaks", "kbdinputstyle", "deftypefnnewline", "xrefautomaticsectiontitle",
    "urefbreakstyle", "clickstyle", "fonttextsize", "footnotestyle", "evenheading",
    "evenfooting", "oddheading", "oddfooting", "everyheading", "everyfooting",
    "setcontentsaftertitlepage", "setshortcontentsaftertitlepage", "novalidate",
    "validatemenus", "documentdescription", "cropmarks", "microtype", "oddheadingmarks",
    "evenheadingmarks", "everyheadingmarks", "headitemfont", "bye", "include", "set",
    "clear", "alias", "definfoenclose", "unmacro", "verbatiminclude", "errormsg",
    "shortcaption", "nodedescription", "dbltitle",
}  # fmt: skip
_CODE_SPANS = {"code", "samp", "command", "option", "env", "file", "kbd", "key", "t", "verb"}
_EMPHASIS = {"emph", "i", "dfn", "cite", "slanted"}
_STRONG = {"strong", "b"}
_PLAIN = {
    "r", "sansserif", "asis", "w", "titlefont", "math", "dmn", "clicksequence", "sub", "sup",
    "headitemfont", "indicateurl", "sc", "var",
}  # fmt: skip
_HIDDEN_INLINE = {
    "anchor", "hyphenation", "sortas", "seeentry", "seealso", "shortcaption", "today",
    "value", "errormsg", "inlineraw",
}  # fmt: skip
_SYMBOLS = {
    "dots": "...", "enddots": "....", "minus": "-", "result": "⇒", "expansion": "↦",
    "print": "-|", "error": "error→", "equiv": "≡", "point": "∗", "bullet": "•",
    "copyright": "©", "registeredsymbol": "®", "TeX": "TeX", "LaTeX": "LaTeX", "today": "",
    "ss": "ß", "l": "ł", "L": "Ł", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ",
    "OE": "Œ", "aa": "å", "AA": "Å", "dh": "ð", "DH": "Ð", "th": "þ", "TH": "Þ",
    "exclamdown": "¡", "questiondown": "¿", "pounds": "£", "euro": "€", "textdegree": "°",
    "ordf": "ª", "ordm": "º", "quotedblleft": "“", "quotedblright": "”", "quoteleft": "‘",
    "quoteright": "’", "quotedblbase": "„", "quotesinglbase": "‚", "guillemetleft": "«",
    "guillemetright": "»", "guillemotleft": "«", "guillemotright": "»",
    "guilsinglleft": "‹", "guilsinglright": "›", "comma": ",", "atchar": "@",
    "lbracechar": "{", "rbracechar": "}", "backslashchar": "\\", "hashchar": "#",
    "tie": " ", "arrow": "→", "geq": "≥", "leq": "≤", "click": "→", "thinspace": " ",
    "ampchar": "&", "caret": "^",
}  # fmt: skip
_ACCENT_MARKS = {
    "'": "\u0301", '"': "\u0308", "`": "\u0300", "^": "\u0302", "~": "\u0303",
    "=": "\u0304", ",": "\u0327",
}  # fmt: skip
_ACCENT_NAMES = {
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "dotaccent": "\u0307",
    "ringaccent": "\u030a", "tieaccent": "\u0361", "ubaraccent": "\u0331",
    "udotaccent": "\u0323", "ogonek": "\u0328",
}  # fmt: skip
_OTHER_INLINE = {
    "acronym", "abbr", "url", "uref", "email", "xref", "pxref", "ref", "inforef", "footnote",
    "image", "caption", "U", "dotless", "inlinefmt", "inlinefmtifelse", "inlineifset",
    "inlineifclear", "tab", "item",
}  # fmt: skip
_INLINE = (
    _CODE_SPANS | _EMPHASIS | _STRONG | _PLAIN | _HIDDEN_INLINE | set(_SYMBOLS)
    | set(_ACCENT_NAMES) | _OTHER_INLINE
)  # fmt: skip
_KNOWN = (
    _BLOCKS | _CONDITIONALS | _LINE_COMMANDS | _LAYOUT | _INLINE
    | {"c", "comment", "end", "macro", "rmacro", "linemacro", "ignore", "bye", "value"}
)  # fmt: skip


# ----------------------------------------------------------------------------- preprocessing
_MACROS = {"macro", "rmacro", "linemacro"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x0c\x0e-\x1f]")
_LINE_CMD = re.compile(r"[ \t]*@([A-Za-z][\w-]*)")
_NAME = re.compile(r"[A-Za-z][\w-]*")
_ALNUM = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_VALUE = re.compile(r"@(?:(@)|value\{[ \t]*([^{}\s]*)[ \t]*\})")
_END = re.compile(r"[ \t]*@end[ \t]+([A-Za-z][\w-]*)")


def _lines(text: str) -> list[str]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text).split("\n")


def _uncomment(line: str) -> tuple[str, bool]:
    """A line without its `@c` / `@comment` comment, and whether it had one."""
    n = len(line)
    i = line.find("@")
    while 0 <= i < n - 1:
        c = line[i + 1]
        if not c.isalpha():
            i = line.find("@", i + 2)
            continue
        m = _ALNUM.match(line, i + 1)
        end = m.end() if m is not None else i + 2
        name = line[i + 1 : end]
        if name in ("c", "comment"):
            return line[:i], True
        if name == "verb" and end < n - 1 and line[end] == "{":
            close = line.find(line[end + 1] + "}", end + 2)
            end = n if close < 0 else close + 2
        i = line.find("@", end)
    return line, False


def _group_end(s: str, j: int) -> int:
    """The index past the `}` closing the brace group opening at s[j] (`@`-escapes and
    `@verb{|...|}` read through); -1 when it never closes."""
    depth = 0
    k = j
    n = len(s)
    while k < n:
        c = s[k]
        if c == "@":
            if s.startswith("verb{", k + 1) and k + 6 < n:
                close = s.find(s[k + 6] + "}", k + 7)
                if close < 0:
                    return -1
                k = close + 2
                continue
            k += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return -1


def _balanced(s: str, j: int) -> tuple[str, int]:
    """The text of the brace group opening at s[j] and the index past it; a group that
    never closes runs to the end."""
    end = _group_end(s, j)
    return (s[j + 1 : end - 1], end) if end >= 0 else (s[j + 1 :], len(s))


def _balanced_end(s: str, j: int) -> bool:
    """Whether the brace group opening at s[j] closes in `s`."""
    return _group_end(s, j) >= 0


def _split_args(s: str) -> list[str]:
    """A braced argument's comma-separated parts (commas inside braces or escaped with
    `@` or `\\` are no separators)."""
    parts: list[str] = []
    depth = 0
    start = 0
    k = 0
    n = len(s)
    while k < n:
        c = s[k]
        if c in "@\\":
            k += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth <= 0:
            parts.append(s[start:k])
            start = k + 1
        k += 1
    parts.append(s[start:])
    return parts


class _Source:
    """Lines being read: a file, or what a macro call expanded to."""

    __slots__ = ("lines", "i", "folder", "chain", "depth")

    def __init__(
        self, lines: list[str], folder: str, chain: tuple[tuple[str, str], ...], depth: int
    ) -> None:
        self.lines = lines
        self.i = 0
        self.folder = folder
        self.chain = chain  # (folder, text) of the files it is in, outermost first
        self.depth = depth  # macro expansions it came out of


class _Macro:
    """A `@macro`'s parameters and body; a `@linemacro` takes its arguments from the rest
    of its line, separated by spaces (a braced group one of them, the last the rest)."""

    __slots__ = ("params", "body", "line")

    def __init__(self, params: list[str], body: str, line: bool = False) -> None:
        self.params = params
        self.body = body
        self.line = line


class _Pre:
    """Source lines to the lines makeinfo parses: comments, conditionals, flags, includes
    and macros done."""

    def __init__(self, read: Reader | None) -> None:
        self.read = read
        self.flags: dict[str, str] = {"txicommandconditionals": ""}
        self.macros: dict[str, _Macro] = {}
        self.aliases: dict[str, str] = {}
        self.encloses: dict[str, tuple[str, str]] = {}
        self.stack: list[_Source] = []
        self.out: list[str] = []
        self.expansions = 0
        self.expanded = 0
        self.verbatim = False

    def run(self, text: str, folder: str) -> list[str]:
        self.stack.append(_Source(_lines(text), folder, ((folder, text),), 0))
        while True:
            got = self.pull()
            if got is None:
                break
            self.line(*got)
        return self.out

    def pull(self) -> tuple[str, _Source] | None:
        while self.stack:
            src = self.stack[-1]
            if src.i < len(src.lines):
                src.i += 1
                return src.lines[src.i - 1], src
            self.stack.pop()
        return None

    def line(self, raw: str, src: _Source) -> None:
        if self.verbatim:
            self.out.append(raw)
            m = _END.match(raw)
            self.verbatim = m is None or m.group(1) != "verbatim"
            return
        if raw.startswith("\\input") and "texinfo" in raw:
            return
        text, commented = _uncomment(raw)
        if commented and not text.strip():
            return  # a comment line is no blank line: it does not end a paragraph
        m = _LINE_CMD.match(text)
        name = rest = ""
        if m is not None and m.group(1) not in self.macros and _ALNUM.fullmatch(m.group(1)):
            name, rest = m.group(1), text[m.end() :]
        words = rest.split()
        if name in _DROPPED_BLOCKS:
            self.skip(name, src)
        elif name in _KEPT_CONDITIONALS:
            pass
        elif name in ("ifset", "ifclear"):
            found = bool(words) and words[0] in self.flags
            if found != (name == "ifset"):
                self.skip(name, src)
        elif name in ("ifcommanddefined", "ifcommandnotdefined"):
            cmd = words[0] if words else ""
            known = cmd in _KNOWN or cmd in self.macros or cmd in self.aliases
            if known != (name == "ifcommanddefined"):
                self.skip(name, src)
        elif name == "end" and words and words[0] in _CONDITIONALS:
            pass  # the end of a kept conditional
        elif name == "set":
            words = self.values(rest).strip().split(None, 1)
            if words:
                self.flags[words[0]] = words[1] if len(words) > 1 else ""
        elif name == "clear":
            for word in words[:1]:
                self.flags.pop(word, None)
        elif name in _MACROS:
            self.define(name, rest, src)
        elif name == "unmacro":
            for word in words[:1]:
                self.macros.pop(word, None)
        elif name == "alias":
            got = re.match(r"\s*([\w-]+)\s*=\s*([\w-]+)", rest)
            if got is not None and got.group(1) != got.group(2):
                self.aliases[got.group(1)] = got.group(2)
        elif name == "definfoenclose":
            parts = [p.strip() for p in rest.split(",")]
            if len(parts) >= 3 and parts[0]:
                self.encloses[parts[0]] = (parts[1], parts[2])
        elif name == "include":
            self.include(self.values(rest).strip(), src)
        elif name == "verbatiminclude":
            got_file = self.fetch(self.values(rest).strip(), src)
            if got_file is not None:
                self.out.extend(["@verbatim", *_lines(got_file[0]), "@end verbatim"])
        elif name == "bye":
            self.stack.clear()
        elif name == "verbatim":
            self.out.append(text)
            self.verbatim = True
        else:
            text = self.values(text)
            expanded = self.expand(text, src)
            if expanded is None:
                self.out.append(text)
            else:
                self.stack.append(
                    _Source(expanded.split("\n"), src.folder, src.chain, src.depth + 1)
                )

    def skip(self, name: str, src: _Source) -> None:
        """Past the `@end` of a block whose lines are not read (in this source only; one
        that never ends there drops its first line only)."""
        _block(src, frozenset({name}))

    def define(self, kind: str, rest: str, src: _Source) -> None:
        m = re.match(r"\s*([A-Za-z][\w-]*)\s*(?:\{([^}]*)\}?)?", rest)
        body = _block(src, _MACROS)
        if body is None or m is None:  # no end: no macro, and its lines are text
            return
        params = [p.strip() for p in (m.group(2) or "").split(",") if p.strip()]
        self.macros[m.group(1)] = _Macro(params, "\n".join(body), kind == "linemacro")

    def values(self, text: str) -> str:
        if "@value" not in text:
            return text

        def one(m: re.Match[str]) -> str:
            return m.group(0) if m.group(1) else self.flags.get(m.group(2), "")

        return _VALUE.sub(one, text)

    def fetch(self, target: str, src: _Source) -> tuple[str, str] | None:
        if self.read is None or len(src.chain) > MAX_INCLUDE_DEPTH or not target:
            return None
        got = self.read(target, src.folder)
        if got is None or (got[1], got[0]) in src.chain:
            return None
        return got

    def include(self, target: str, src: _Source) -> None:
        got = self.fetch(target, src)
        if got is not None:
            chain = (*src.chain, (got[1], got[0]))
            self.stack.append(_Source(_lines(got[0]), got[1], chain, 0))

    def expand(self, text: str, src: _Source) -> str | None:
        """The line with its macro calls expanded (the text they make, to be read again),
        or None when it calls none. A call's braced argument may go on over the next
        lines."""
        if not self.macros or "@" not in text:
            return None
        out: list[str] = []
        last = 0
        i = 0
        called = False
        while True:
            k = text.find("@", i)
            if k < 0 or k + 1 >= len(text):
                break
            if not text[k + 1].isalpha():
                i = k + 2
                continue
            m = _NAME.match(text, k + 1)
            name = m.group(0) if m is not None else ""
            if name not in self.macros:
                short = _ALNUM.match(text, k + 1)
                name = short.group(0) if short is not None else ""
                if name not in self.macros:
                    i = k + 1 + max(1, len(name))
                    if name == "verb" and text[i : i + 1] == "{" and i + 1 < len(text):
                        close = text.find(text[i + 1] + "}", i + 2)
                        i = len(text) if close < 0 else close + 2
                    continue
            macro = self.macros[name]
            j = k + 1 + len(name)
            if macro.line:
                if text[:k].strip():
                    i = j  # a line macro is called at the start of a line only
                    continue
                words = _def_tokens(text[j:])
                count = len(macro.params)
                if count and len(words) > count:
                    words = words[: count - 1] + [" ".join(words[count - 1 :])]
                args, end = words, len(text)
            elif j < len(text) and text[j] == "{":
                pulled = 0
                while not _balanced_end(text, j) and pulled < MAX_ARG_LINES:
                    more = self.pull()
                    if more is None:
                        break
                    text += "\n" + more[0]
                    pulled += 1
                inner, end = _balanced(text, j)
                args = _split_args(inner) if len(macro.params) > 1 else [inner]
            elif len(macro.params) == 1:
                args, end = [text[j:]], len(text)
            else:
                args, end = [], j
            out.append(text[last:k])
            called = True
            budget = self.expansions < MAX_EXPANSIONS and self.expanded < MAX_EXPANDED
            if src.depth < MAX_MACRO_DEPTH and budget:
                body = _substitute(macro, args)
                self.expansions += 1
                self.expanded += len(body)
                out.append(body)
            last = i = end
        if not called:
            return None
        out.append(text[last:])
        return "".join(out)


def _substitute(macro: _Macro, args: list[str]) -> str:
    """A macro's body with its parameters (`\\name\\`) replaced by the call's arguments."""
    values: dict[str, str] = {}
    for k, param in enumerate(macro.params):
        arg = args[k] if k < len(args) else ""
        values[param] = re.sub(r"\\([\\,{}])", r"\1", arg.strip())
    body = macro.body
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        k = body.find("\\", i)
        if k < 0:
            out.append(body[i:])
            break
        out.append(body[i:k])
        close = body.find("\\", k + 1)
        key = body[k + 1 : close] if close >= 0 else None
        if key is not None and key in values:
            out.append(values[key])
            i = close + 1
        elif key == "":
            out.append("\\")
            i = close + 1
        else:
            out.append("\\")
            i = k + 1
    return "".join(out)


# ----------------------------------------------------------------------------- tree
class _Text:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Cmd:
    __slots__ = ("name", "arg")

    def __init__(self, name: str, arg: str) -> None:
        self.name = name
        self.arg = arg


class _Block:
    __slots__ = ("name", "arg", "body")

    def __init__(self, name: str, arg: str) -> None:
        self.name = name
        self.arg = arg
        self.body: list[_Item] = []


_Item = _Text | _Cmd | _Block
_CMD_AT_START = re.compile(r"[ \t]*@([A-Za-z][A-Za-z0-9]*)")


def _joined_definitions(lines: list[str]) -> list[str]:
    """The lines with each definition line that ends in a lone `@` joined to the next."""
    out: list[str] = []
    for line in lines:
        if out:
            last = out[-1].rstrip()
            trailing = len(last) - len(last.rstrip("@"))
            m = _CMD_AT_START.match(last)
            if (
                trailing % 2
                and m is not None
                and (m.group(1) in _DEFS or m.group(1) in _DEF_CONTINUATIONS)
            ):
                out[-1] = last[:-1] + " " + line.strip()
                continue
        out.append(line)
    return out


def _parse(lines: list[str], aliases: dict[str, str]) -> tuple[_Block, str | None]:
    """The lines' tree of blocks, line commands and text, and the `@settitle`."""
    ends: set[str] = set()
    for line in lines:
        m = _END.match(line)
        if m is not None:
            ends.add(aliases.get(m.group(1), m.group(1)))
    root = _Block("", "")
    stack = [root]
    settitle: str | None = None
    for line in _joined_definitions(lines):
        top = stack[-1]
        if top.name == "verbatim":
            m = _END.match(line)
            if m is not None and m.group(1) == "verbatim":
                stack.pop()
            else:
                top.body.append(_Text(line))
            continue
        m = _CMD_AT_START.match(line)
        if m is None:
            top.body.append(_Text(line))
            continue
        name = aliases.get(m.group(1), m.group(1))
        rest = line[m.end() :]
        if rest.startswith("{") or name in _INLINE and name not in _LINE_COMMANDS:
            top.body.append(_Text(line))  # an inline command starts the line
        elif name == "end":
            words = rest.split()
            target = aliases.get(words[0], words[0]) if words else ""
            for k in range(len(stack) - 1, 0, -1):
                if stack[k].name == target:
                    del stack[k:]
                    break
        elif name in _BLOCKS or (name not in _KNOWN and name in ends):
            if len(stack) > MAX_NESTING:
                continue  # blocks too deep in one another: the deeper ones read flat
            block = _Block(name, rest.strip())
            top.body.append(block)
            stack.append(block)
        elif name == "node" or name in _SECTIONS:
            del stack[1:]  # a block left open ends here
            root.body.append(_Cmd(name, rest.strip()))
        elif name == "settitle":
            if settitle is None:
                settitle = rest.strip()
        elif name in _LINE_COMMANDS:
            top.body.append(_Cmd(name, rest.strip()))
        elif name in ("noindent", "indent", "refill"):
            if rest.strip():  # these take no argument: the text after them stays
                top.body.append(_Text(rest))
        # any other line command lays out, indexes or configures: it goes with its line
    return root, settitle


# ----------------------------------------------------------------------------- rendering
_TEXT, _PLAIN_MODE, _SPAN, _CODE = 0, 1, 2, 3  # Markdown text, a title, a code span, code
_BREAK = "\x02"  # a line break kept in a paragraph (in @display)


def _fence(text: str) -> str:
    """The shortest run of backticks that no run in `text` is as long as."""
    runs = {len(r) for r in re.findall(r"`+", text)}
    size = 1
    while size in runs:
        size += 1
    return "`" * size


def code_span(text: str) -> str:
    """Text as a Markdown code span (its line breaks spaces; a fence longer than any run of
    backticks in it; "" for none): the Texinfo reader's, and the RDoc and wikitext readers'."""
    text = re.sub(r"\s*[\n\x02]\s*", " ", text)
    if not text:
        return ""
    fence = _fence(text)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_C_TAGS = frozenset({"struct", "union", "enum", "class"})  # a type named by its tag and name


def def_head(category: str, before: str, name: str, after: str) -> str:
    """A definition's line (`@deffn`, `@deftypefun`; the HTML texi2any makes of one), as
    docparse reads it: "**Command:** `magit-status ARGS`"; where a type or a result comes
    before the name, or no category names it, or the name is more than a word, the name its
    own bold span, so that it is found: "**Function:** `size_t` **`strlen`** `(const char
    *S)`", "**`dbstop`** `FUNC`", "**Data Type:** **`struct tm`**"."""
    before, name, after = before.strip(), name.strip(), after.strip()
    tag, _, rest = after.partition(" ")
    if name in _C_TAGS and re.fullmatch(r"[A-Za-z_]\w*", tag):  # `@deftp {Data Type} struct tm`
        name, after = f"{name} {tag}", rest.strip()
    head = f"**{category}:** " if category else ""
    if not name:
        return (head + code_span(" ".join(x for x in (before, after) if x))).rstrip()
    if category and not before and not any(c.isspace() for c in name):
        return head + code_span(f"{name} {after}".strip())
    parts = [code_span(before), f"**{code_span(name)}**", code_span(after)]
    return head + " ".join(x for x in parts if x)


# a definition's head as makeinfo writes it (" -- Macro: AC_INIT (PACKAGE, VERSION)", its
# arguments wrapped onto lines indented ten; @deffnx's heads stacked under it)
INFO_DEF = re.compile(r"^( +)-- ([A-Za-z][\w '-]{0,40}): (\S.*)$")
INFO_FOOTNOTES = re.compile(r"^ *-{5,} Footnotes -{5,}$")
# categories whose arguments may open with a parenthesis (Lisp's and Scheme's forms): the
# name is their first word; elsewhere the word before the first "(" (a C function's after
# its result type, "char * strdup (const char *S)")
LISP_CATEGORY = re.compile(r"Scheme|Procedure|Syntax|Form|Command|Option|Method", re.I)


def info_definitions(lines: list[str]) -> list[str]:
    """A node's lines with each definition's head written as the Texinfo source and HTML
    readers write one (texinfo.def_head: "**Macro:** `AC_INIT (PACKAGE, VERSION)`"), a
    blank line between the heads and the description, so docparse names the definition by
    its name, not "-- Macro: AC_INIT (...)"."""
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        m = INFO_DEF.match(lines[i])
        if m is None:
            out.append(lines[i])
            i += 1
            continue
        indent, head = m.group(1)[1:], m.group(3)  # its description is indented 4 more
        more = " " * (len(indent) + 9)
        i += 1
        while i < n and lines[i].startswith(more) and lines[i].strip():
            head += " " + lines[i].strip()
            i += 1
        out.append(indent + _info_def_head(m.group(2), head))
        if i < n and lines[i].strip() and INFO_DEF.match(lines[i]) is None:
            out.append("")
    return out


def _info_def_head(category: str, head: str) -> str:
    head = " ".join(head.split())
    paren = None if LISP_CATEGORY.search(category) else re.match(r"^(.*?)([^\s(]+) ?(\(.*)$", head)
    if paren is not None and len(paren.group(1).split()) <= 4:
        return def_head(category, paren.group(1), paren.group(2), paren.group(3))
    name, _, after = head.partition(" ")
    return def_head(category, "", name, after)


def _squeeze(text: str) -> str:
    """Runs of spaces outside code spans made one."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        k = text.find("`", i)
        if k < 0:
            k = n
        out.append(re.sub(r" {2,}", " ", text[i:k]))
        if k >= n:
            break
        run = re.match(r"`+", text[k:])
        size = len(run.group(0)) if run is not None else 1
        close = re.compile(rf"(?<!`){'`' * size}(?!`)").search(text, k + size)
        end = close.end() if close is not None else k + size
        out.append(text[k:end])
        i = end
    return "".join(out)


def _is_paragraph(block: str) -> bool:
    return not re.match(r"(```|[-*>|#] |>|\d+\. |[a-zA-Z]\. |\|)", block)


def _block(src: _Source, names: Collection[str]) -> list[str] | None:
    """The lines of the block `src` stands in (opened by a line command of `names`) up to
    its matching `@end`, past which `src` is left; None, `src` left where it was, when it
    never ends in this source."""
    depth = 1
    start = src.i
    body: list[str] = []
    while src.i < len(src.lines):
        line = src.lines[src.i]
        src.i += 1
        cmd = _LINE_CMD.match(line)
        if cmd is not None and cmd.group(1) in names:
            depth += 1
        elif cmd is not None and cmd.group(1) == "end":
            end = _END.match(line)
            if end is not None and end.group(1) in names:
                depth -= 1
                if depth == 0:
                    return body
        body.append(line)
    src.i = start
    return None


def list_item(marker: str, blocks: list[str]) -> str:
    """Blocks as one list item: the first line after its marker, the rest under it."""
    pad = " " * len(marker)
    out: list[str] = []
    for k, block in enumerate(blocks):
        if k:
            out.append("")
        for m, line in enumerate(block.split("\n")):
            if k == 0 and m == 0:
                out.append(marker + line)
            else:
                out.append(pad + line if line else "")
    return "\n".join(out)


def _list(items: list[str]) -> str:
    """List items (each already marked) as one block; tight when each is one line."""
    tight = all("\n" not in item for item in items)
    return ("\n" if tight else "\n\n").join(items)


def _finish(text: str) -> str:
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _def_tokens(arg: str) -> list[str]:
    """A definition line's arguments: words, a braced group one of them (braces gone)."""
    out: list[str] = []
    i = 0
    n = len(arg)
    while i < n:
        if arg[i] in " \t":
            i += 1
            continue
        if arg[i] == "{":
            inner, i = _balanced(arg, i)
            out.append(inner.strip())
            continue
        start = i
        depth = 0
        while i < n and (depth > 0 or arg[i] not in " \t"):
            c = arg[i]
            if c == "@":
                i += 2
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            i += 1
        out.append(arg[start:i])
    return out


class _Render:
    """The tree to Markdown, node by node."""

    def __init__(
        self, flags: dict[str, str], aliases: dict[str, str], encloses: dict[str, tuple[str, str]]
    ) -> None:
        self.flags = flags
        self.aliases = aliases
        self.encloses = encloses
        self.offset = 0  # @raisesections / @lowersections
        self.captions: list[list[str]] = []
        self.emphasis = 0
        self.title = ""

    # -- nodes
    def nodes(self, root: _Block, settitle: str | None) -> list[Node]:
        self.title = self.plain(settitle or "")
        segments: list[tuple[str | None, list[_Item]]] = []
        before: list[_Item] = []
        for item in root.body:
            if isinstance(item, _Cmd) and item.name == "node":
                name = self.plain(_split_args(item.arg)[0])
                segments.append((name, []))
            elif segments:
                segments[-1][1].append(item)
            else:
                before.append(item)
        if not segments:
            segments = [(None, before)]  # a file without nodes is one document
        else:  # the title page and the like are no document; their section shifts count
            for item in before:
                if isinstance(item, _Cmd) and item.name in ("raisesections", "lowersections"):
                    self.offset += 1 if item.name == "lowersections" else -1
        out: list[Node] = []
        for node_name, items in segments:
            node = self.node(node_name, items)
            if node is not None:
                out.append(node)
        return out

    def node(self, name: str | None, items: list[_Item]) -> Node | None:
        first = next(
            (
                i
                for i in items
                if isinstance(i, _Cmd) and (i.name in _SECTIONS or i.name in _HEADINGS)
            ),
            None,
        )
        heading = self.plain(first.arg) if first is not None else ""
        top = name is None or name.lower() == "top"  # a file without nodes is its Top
        name = "Top" if name is None else name or heading or "Node"
        title = ((self.title or heading) if top else heading) or name
        blocks = self.items(items)
        if first is None:
            blocks.insert(0, f"# {title}")
        content = [b for b in blocks if not re.fullmatch(r"#{1,6} [^\n]*", b)]
        if not _finish("\n\n".join(content)):
            return None
        return name, title, _finish("\n\n".join(blocks))

    # -- blocks
    def items(self, items: list[_Item], keep_lines: bool = False) -> list[str]:
        """Items as Markdown blocks: text lines paragraphs, blocks their Markdown."""
        blocks: list[str] = []
        para: list[str] = []

        def flush() -> None:
            if para:
                text = self.paragraph(para, keep_lines)
                if text:
                    blocks.append(text)
                para.clear()

        for item in items:
            if isinstance(item, _Text):
                if item.text.strip():
                    para.append(item.text)
                else:
                    flush()
            elif isinstance(item, _Cmd):
                name = item.name
                if name in _SECTIONS or name in _HEADINGS:
                    flush()
                    self.heading(item, blocks)
                elif name == "raisesections":
                    self.offset -= 1
                elif name == "lowersections":
                    self.offset += 1
                elif name in ("center", "exdent"):
                    flush()
                    text = self.paragraph([item.arg], keep_lines)
                    if text:
                        blocks.append(text)
                elif name in _DEF_CONTINUATIONS:
                    flush()
                    blocks.append(self.def_line(_DEF_CONTINUATIONS[name], item.arg))
                elif name in ("item", "itemx", "headitem", "tab"):
                    if item.arg:  # outside a list: its text
                        para.append(item.arg)
                else:  # @sp, @page, @node
                    flush()
            else:
                flush()
                blocks.extend(self.block(item))
        flush()
        return blocks

    def paragraph(self, lines: list[str], keep_lines: bool = False) -> str:
        joiner = _BREAK if keep_lines else "\n"
        text = self.inline(joiner.join(x.strip() for x in lines), _TEXT)
        text = re.sub(r"[ \t]*[\n\x02][ \t]*", "\n", text)
        return _squeeze(text).strip()

    def heading(self, item: _Cmd, blocks: list[str]) -> None:
        if item.name in _SECTIONS:
            level = _SECTIONS[item.name]
            if item.name != "top":
                level += self.offset
        else:
            level = _HEADINGS[item.name]
        text = self.line(item.arg) or (self.title if item.name == "top" else "")
        if text:
            blocks.append(f"{'#' * max(1, min(level, 6))} {text}")

    def block(self, b: _Block) -> list[str]:
        name = b.name
        if name in _HIDDEN_BLOCKS:
            return []
        if name in _CODE_BLOCKS:
            return self.code(b)
        if name in _QUOTE_BLOCKS:
            return self.quote(b)
        if name in _LIST_BLOCKS:
            return self.list_block(b)
        if name in _TABLE_BLOCKS:
            return self.table(b)
        if name == "multitable":
            return self.multitable(b)
        if name == "float":
            return self.float_block(b)
        if name in _DEFS:
            return self.definition(b)
        return self.items(b.body)  # @group, @flushleft, an unknown block: its content

    def code(self, b: _Block) -> list[str]:
        lines = self.code_lines(b.body)
        raw = "\n".join(lines)
        text = raw if b.name == "verbatim" else self.inline(raw, _CODE)
        text = textwrap.dedent(text)
        text = "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")
        if not text.strip():
            return []
        words = b.arg.split()
        lang = words[0] if words and re.fullmatch(r"[A-Za-z][\w+#.-]*", words[0]) else ""
        if b.name in ("lisp", "smalllisp"):
            lang = "lisp"
        fence = "```"
        while fence in text:
            fence += "`"
        return [f"{fence}{lang}\n{text}\n{fence}"]

    def code_lines(self, items: list[_Item]) -> list[str]:
        out: list[str] = []
        for item in items:
            if isinstance(item, _Text):
                out.append(item.text)
            elif isinstance(item, _Cmd):
                if (
                    item.name in ("center", "exdent", "item", "itemx", "tab")
                    or item.name in _HEADINGS
                ):
                    out.append(item.arg)
            elif item.name not in _HIDDEN_BLOCKS:
                out.extend(self.code_lines(item.body))
        return out

    def quote(self, b: _Block) -> list[str]:
        blocks = self.items(b.body, keep_lines=b.name in ("display", "smalldisplay"))
        label = self.plain(b.arg).rstrip(":").strip() if "quotation" in b.name else ""
        if label:
            if blocks and _is_paragraph(blocks[0]):
                blocks[0] = f"**{label}:** {blocks[0]}"
            else:
                blocks.insert(0, f"**{label}:**")
        if not blocks:
            return []
        text = "\n\n".join(blocks)
        return ["\n".join(f"> {x}" if x else ">" for x in text.split("\n"))]

    def entries(
        self, body: list[_Item]
    ) -> tuple[list[_Item], list[tuple[list[_Cmd], list[_Item]]]]:
        """A list's items: the text before the first @item, and each (its @item and
        @itemx lines, what follows them)."""
        before: list[_Item] = []
        out: list[tuple[list[_Cmd], list[_Item]]] = []
        for item in body:
            if isinstance(item, _Cmd) and item.name in ("item", "itemx", "headitem"):
                empty = not out or not any(
                    not isinstance(x, _Text) or x.text.strip() for x in out[-1][1]
                )
                if item.name == "itemx" and out and empty:
                    out[-1][0].append(item)
                    out[-1][1].clear()
                else:
                    out.append(([item], []))
            elif out:
                out[-1][1].append(item)
            else:
                before.append(item)
        return before, out

    def list_block(self, b: _Block) -> list[str]:
        before, entries = self.entries(b.body)
        blocks = self.items(before)
        start = b.arg.strip().split()[0] if b.arg.strip() else ""
        items: list[str] = []
        for k, (cmds, body) in enumerate(entries):
            first = [_Text(c.arg) for c in cmds if c.arg]
            got = self.items([*first, *body])
            if not got:
                continue
            if b.name == "itemize":
                marker = "- "
            elif start.isdigit():
                marker = f"{int(start[:6]) + k}. "
            elif len(start) == 1 and start.isalpha():
                marker = f"{chr(min(ord(start) + k, ord('z' if start.islower() else 'Z')))}. "
            else:
                marker = f"{k + 1}. "
            items.append(list_item(marker, got))
        if items:
            blocks.append(_list(items))
        return blocks

    def table(self, b: _Block) -> list[str]:
        before, entries = self.entries(b.body)
        blocks = self.items(before)
        words = b.arg.split()
        fmt = words[0][1:] if words and words[0].startswith("@") else ""
        fmt = self.aliases.get(fmt, fmt)
        items: list[str] = []
        for cmds, body in entries:
            terms = [self.term(fmt, c.arg) for c in cmds]
            shown = ", ".join(t for t in terms if t)
            desc = self.items(body)
            if not shown:
                if desc:
                    items.append(list_item("- ", desc))
                continue
            if desc and _is_paragraph(desc[0]):
                desc[0] = f"{shown}: {desc[0]}"
            else:
                desc.insert(0, shown + (":" if desc else ""))
            items.append(list_item("- ", desc))
        if items:
            blocks.append(_list(items))
        return blocks

    def term(self, fmt: str, arg: str) -> str:
        arg = arg.strip()
        if not arg:
            return ""
        if not fmt or fmt in ("asis", "w") or not re.fullmatch(r"[A-Za-z][\w-]*", fmt):
            return self.line(arg)
        return self.line(f"@{fmt}{{{arg}}}")

    def multitable(self, b: _Block) -> list[str]:
        rows: list[tuple[bool, list[list[_Item]]]] = []
        for item in b.body:
            if isinstance(item, _Cmd) and item.name in ("item", "headitem"):
                rows.append((item.name == "headitem", [[]]))
                pieces = self.tabs(item.arg)
            elif not rows:
                continue
            elif isinstance(item, _Cmd) and item.name == "tab":
                rows[-1][1].append([])
                pieces = self.tabs(item.arg)
            elif isinstance(item, _Text):
                pieces = self.tabs(item.text)
            else:
                rows[-1][1][-1].append(item)
                continue
            for k, piece in enumerate(pieces):
                if k:
                    rows[-1][1].append([])
                if piece.strip() or k:
                    rows[-1][1][-1].append(_Text(piece))
        cells = [(head, [self.items(cell) for cell in row]) for head, row in rows]
        if not cells:
            return []
        simple = all(
            len(cell) <= 1 and all("\n" not in x and _is_paragraph(x) for x in cell)
            for _, row in cells
            for cell in row
        )
        heads = [row for head, row in cells if head]
        if simple:

            def flat(row: list[list[str]]) -> list[str]:
                return [(cell[0] if cell else "").replace("|", "\\|") for cell in row]

            ordered = [flat(r) for h, r in cells if h][:1] + [flat(r) for h, r in cells if not h]
            return ["\n".join(markdown_table(ordered))] if ordered else []
        header = (
            [(cell[0] if cell and "\n" not in cell[0] else "") for cell in heads[0]]
            if heads
            else []
        )
        items: list[str] = []
        for head, row in cells:
            if head:
                continue
            blocks: list[str] = []
            for k, cell in enumerate(row):
                label = header[k] if k < len(header) else ""
                got = list(cell)
                if label:
                    if got and _is_paragraph(got[0]):
                        got[0] = f"{label}: {got[0]}"
                    else:
                        got.insert(0, f"{label}:")
                blocks.extend(got)
            if blocks:
                items.append(list_item("- ", blocks))
        return [_list(items)] if items else []

    def tabs(self, text: str) -> list[str]:
        """A multitable line's pieces between its `@tab`s."""
        return re.split(r"(?<!@)@tab\b\s*", text)

    def float_block(self, b: _Block) -> list[str]:
        self.captions.append([])
        try:
            blocks = self.items(b.body)
        finally:
            captions = self.captions.pop()
        kind = self.plain(_split_args(b.arg)[0]) or "Figure"
        for text in captions:
            if text:
                blocks.append(f"{kind}: {text}")
        return blocks

    def definition(self, b: _Block) -> list[str]:
        heads = [self.def_line(b.name, b.arg)]
        body = list(b.body)
        while body:
            first = body[0]
            if isinstance(first, _Cmd) and first.name in _DEF_CONTINUATIONS:
                heads.append(self.def_line(_DEF_CONTINUATIONS[first.name], first.arg))
            elif not (isinstance(first, _Text) and not first.text.strip()):
                break
            body.pop(0)
        return ["\n".join(heads), *self.items(body)]

    def def_line(self, name: str, arg: str) -> str:
        fixed, count, word = _DEFS[name]
        toks = _def_tokens(arg)
        named = [self.plain(t) for t in toks[:count]]
        rest = [self.inline(t, _SPAN).strip() for t in toks[count:]]
        if fixed:
            category = " ".join([fixed, word, *named]) if named else fixed
        elif len(named) == 2:
            category = f"{named[0]} {word} {named[1]}"
        else:
            category = named[0] if named else ""
        if name.startswith("deftype") and len(rest) >= 2:  # its type before its name
            return def_head(category, rest[0], rest[1], " ".join(x for x in rest[2:] if x))
        return def_head(category, "", rest[0] if rest else "", " ".join(x for x in rest[1:] if x))

    # -- inline
    def line(self, text: str) -> str:
        """A one-line argument (a heading, a term) as Markdown text."""
        return self.paragraph([text]).replace("\n", " ")

    def plain(self, text: str) -> str:
        """Text without markup (a title, a node name)."""
        got = self.inline(text, _PLAIN_MODE)
        return re.sub(r"\s+", " ", got).strip()

    def inline(self, s: str, mode: int, depth: int = 0) -> str:
        """Texinfo text as Markdown (mode _TEXT), plain text (a title), a code span's
        text or code's text."""
        out: list[str] = []
        n = len(s)
        i = 0
        start = 0
        while i < n:
            c = s[i]
            if c not in "@{}":
                i += 1
                continue
            out.append(self.literal(s[start:i], mode))
            if c == "{":  # a bare group: its content
                inner, i = _balanced(s, i)
                out.append(
                    self.inline(inner, mode, depth + 1) if depth < MAX_NESTING else _flat(inner)
                )
            elif c == "}":  # a stray brace
                i += 1
            else:
                i = self.command(s, i, mode, depth, out)
            start = i
        out.append(self.literal(s[start:], mode))
        return "".join(out)

    def literal(self, text: str, mode: int) -> str:
        if not text:
            return text
        if mode == _CODE:
            return text
        if mode == _SPAN:
            return re.sub(r"[ \t]*\n[ \t]*", " ", text)
        text = re.sub(r"[ \t\n]+", " ", text)
        text = text.replace("---", "—").replace("--", "–")
        return text.replace("``", '"').replace("''", '"')

    def command(self, s: str, i: int, mode: int, depth: int, out: list[str]) -> int:
        """The command at s[i] (an `@`) appended to out; the index past it."""
        n = len(s)
        if i + 1 >= n:
            return n  # a lone @ at the end
        c = s[i + 1]
        if not c.isalpha():
            j = i + 2
            if c in _ACCENT_MARKS and c != "," or c == "," and s[j : j + 1] == "{":
                if s[j : j + 1] == "{":
                    inner, j = _balanced(s, j)
                    base = self.inline(inner, mode, depth + 1) if depth < MAX_NESTING else inner
                elif j < n and s[j].isalpha():
                    base = s[j]
                    j += 1
                else:
                    out.append(c)
                    return j
                out.append(_accent(base, _ACCENT_MARKS[c]))
                return j
            if c == "*":
                out.append("\n" if mode in (_TEXT, _CODE) else " ")
            elif c in " \t\n\x02":
                out.append(" ")
            elif c in "/-:|":
                pass
            else:  # @@ @{ @} @. @? @! @& @# @\ and the rest: the character
                out.append(c)
            return j
        m = _ALNUM.match(s, i + 1)
        name = m.group(0) if m is not None else c
        j = i + 1 + len(name)
        name = self.aliases.get(name, name)
        arg: str | None = None
        if name == "verb" and s[j : j + 1] == "{" and j + 1 < n:
            close = s.find(s[j + 1] + "}", j + 2)
            arg = s[j + 2 : close] if close >= 0 else s[j + 2 :]
            out.append(code_span(arg) if mode == _TEXT else arg)
            return n if close < 0 else close + 2
        if s[j : j + 1] == "{":
            arg, j = _balanced(s, j)
        elif name in _ACCENT_NAMES and s[j : j + 1] == " " and j + 1 < n:
            arg, j = s[j + 1], j + 2  # @u a
        out.append(self.dispatch(name, arg, mode, depth))
        return j

    def dispatch(self, name: str, arg: str | None, mode: int, depth: int) -> str:
        """One command's Markdown (arg: its braced argument's text as written)."""
        if depth >= MAX_NESTING:
            return _flat(arg or "")
        text = mode == _TEXT

        def sub(t: str, m: int = mode) -> str:
            return self.inline(t, m, depth + 1)

        if name in _SYMBOLS and not arg:
            return _SYMBOLS[name]
        if arg is None:
            return ""  # an unknown command, or one without its argument
        if name in _CODE_SPANS:
            got = sub(arg, _CODE if mode == _CODE else _SPAN)
            return code_span(got) if text else got
        if name in ("var", "sc"):
            return sub(arg).upper()
        if name in _EMPHASIS or name in _STRONG:
            mark = "*" if name in _EMPHASIS else "**"
            self.emphasis += 1
            try:
                got = sub(arg)
            finally:
                self.emphasis -= 1
            core = got.strip()
            if not text or self.emphasis or not core:
                return got
            lead = got[: len(got) - len(got.lstrip())]
            trail = got[len(got.rstrip()) :]
            return f"{lead}{mark}{core}{mark}{trail}"
        if name in _HIDDEN_INLINE:
            return ""
        if name in _ACCENT_NAMES:
            return _accent(sub(arg), _ACCENT_NAMES[name])
        if name == "dotless":
            return {"i": "ı", "j": "ȷ"}.get(arg.strip(), arg.strip())
        if name == "U":
            code = arg.strip()
            if not re.fullmatch(r"[0-9A-Fa-f]{1,6}", code):
                return ""
            value = int(code, 16)
            return "" if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF else chr(value)
        if name in _PLAIN or name in _SYMBOLS:
            return sub(arg)
        args = _split_args(arg)
        if name in ("acronym", "abbr"):
            short = sub(args[0]).strip()
            long = sub(",".join(args[1:])).strip() if len(args) > 1 else ""
            return f"{short} ({long})" if long else short
        if name in ("url", "uref"):
            url = sub(args[0], _SPAN).strip()
            label = sub(
                args[2] if len(args) > 2 and args[2].strip() else ",".join(args[1:2])
            ).strip()
            shown = f"<{url}>" if text and url else url
            return f"{label} ({shown})" if label and shown else label or shown
        if name == "email":
            address = sub(args[0], _SPAN).strip()
            label = sub(args[1]).strip() if len(args) > 1 else ""
            return f"{label} ({address})" if label and address else label or address
        if name in ("xref", "pxref", "ref", "inforef"):
            return self.xref(name, [sub(a).strip() for a in args], text)
        if name == "footnote":
            got = re.sub(r"[\s\x02]+", " ", sub(arg)).strip()
            return f" ({got})" if got else ""
        if name == "image":
            return sub(args[3]).strip() if len(args) > 3 else ""
        if name == "caption":
            got = re.sub(r"[\s\x02]+", " ", sub(arg)).strip()
            if self.captions:
                self.captions[-1].append(got)
                return ""
            return got
        if name in ("inlinefmt", "inlinefmtifelse"):
            fmt = args[0].strip()
            if fmt in ("info", "plaintext"):
                return sub(args[1]) if len(args) > 1 else ""
            return sub(args[2]) if name == "inlinefmtifelse" and len(args) > 2 else ""
        if name in ("inlineifset", "inlineifclear"):
            found = args[0].strip() in self.flags
            keep = found == (name == "inlineifset")
            return sub(",".join(args[1:])) if keep and len(args) > 1 else ""
        if name in self.encloses:
            before, after = self.encloses[name]
            return f"{before}{sub(arg)}{after}"
        if name in ("tab", "item"):
            return " " + sub(arg)
        return sub(arg)  # an unknown command: its argument's text

    def xref(self, name: str, args: list[str], markup: bool) -> str:
        """A cross reference as its words: `See "Node"`, with a manual `in *Manual*`."""
        args = args + [""] * (5 - len(args))
        node, entry, title, infofile, manual = args[:5]
        if name == "inforef":
            node, entry, title, infofile, manual = node, entry, "", title, ""
        label = title or entry or node
        where = manual or infofile
        shown = f'"{label}"' if label else ""
        if where:
            shown = (
                f"{shown} in *{where}*" if markup and "*" not in where else f"{shown} in {where}"
            )
            shown = shown.strip()
        if name == "xref":
            return f"See {shown}" if shown else "See"
        if name in ("pxref", "inforef"):
            return f"see {shown}" if shown else "see"
        return shown


def _accent(base: str, mark: str) -> str:
    if not base:
        return ""
    return unicodedata.normalize("NFC", base[0] + mark) + base[1:]


def _flat(text: str) -> str:
    """Text nested too deep to read: its commands and braces dropped."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "@":
            nxt = text[i + 1 : i + 2]
            if nxt and nxt in "@{}":
                out.append(nxt)
                i += 2
            elif nxt.isalpha():
                m = _ALNUM.match(text, i + 1)
                i = m.end() if m is not None else i + 2
            else:
                i += 2
        elif c in "{}":
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)
