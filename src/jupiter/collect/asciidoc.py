"""AsciiDoc read as the Markdown it renders to: Git's manual (its `.txt` sources), Spring's
and most Asciidoctor projects' guides.

Read as plain text, an AsciiDoc page gave the question templates its markup: `----` listing
delimiters, `linkgit:git-add[1]` macros, attribute lines, `include::` and `ifdef::`
directives, and labeled lists (`--all::` over its description) that no template knew. Here
the source is evaluated the way Asciidoctor does before it renders: attribute entries set
(`:git-commit: 1`) and substituted (`{attr}`), `ifdef`/`ifndef`/`endif` kept or dropped by
them, `include::` read in place (relative to the including file, through the source's own
reader), comments dropped; then each block becomes its Markdown: titles headings, listing
and literal blocks fenced (`[source,java]` the fence's language), `[verse]` paragraphs
fenced, quote blocks quoted, labeled lists `- \\`term\\`: description` items (several terms
over one description joined), admonitions `Note: ...`, tables rows of cells, and the inline
macros and quotes their text (`linkgit:git-add[1]` -> git-add(1), `link:url[text]` ->
text, `'emphasis'` -> emphasis). A file that another file of the source includes is read
there, not on its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

SUFFIXES = (".adoc", ".asciidoc", ".asc")
INCLUDED = "asciidoc_included"
INCLUDED_FIX = "an AsciiDoc file another one includes is read where it is included, not on its own"
MAX_INCLUDE_DEPTH = 8
# what marks a .txt file as AsciiDoc: constructs no other plain-text or Markdown file has
_MARKERS = {
    "macro": re.compile(r"\b(?:linkgit|link|xref|mailto|kbd|footnote|image):[^\s\[]*\[", re.M),
    "xref": re.compile(r"<<[\w:.-]+(?:,[^>\n]*)?>>"),
    "directive": re.compile(
        r"^(?:include|ifdef|ifndef|ifeval|endif)::[^\[\n]*\[[^\]\n]*\]\s*$", re.M
    ),
    "block": re.compile(
        r"^\[(?:verse|source|listing|literal|quote|NOTE|TIP|WARNING|IMPORTANT|CAUTION|"
        r"horizontal|caption|subs|cols|options)\b[^\]\n]*\]\s*$",
        re.M,
    ),
    "title": re.compile(r"\A(?:\s*//[^\n]*\n)*\s*=\s+\S[^\n]*\n|^={2,5}\s+\S[^\n]*$", re.M),
    "labeled": re.compile(r"^[^\s:][^\n]{0,60}(?<!:):{2,3}\s*$", re.M),
}
_ATTRIBUTE = re.compile(r"^:(?P<unset>!)?(?P<name>[\w][\w-]*)(?P<unset2>!)?:(?:\s+(?P<value>.*))?$")
_CONDITION = re.compile(
    r"^(?P<kind>ifdef|ifndef|ifeval|endif)::(?P<names>[^\[]*)\[(?P<text>.*)\]\s*$"
)
_INCLUDE = re.compile(r"^include::(?P<target>[^\[]+)\[(?P<opts>[^\]]*)\]\s*$")
_INCLUDE_LINE = re.compile(r"^include::([^\[\n]+)\[[^\]\n]*\]\s*$", re.M)
_REFERENCE = re.compile(r"\{([\w][\w-]*)\}")
_BUILTIN = {
    "nbsp": " ", "sp": " ", "empty": "", "amp": "&", "lt": "<", "gt": ">", "plus": "+",
    "apos": "'", "quot": '"', "startsb": "[", "endsb": "]", "vbar": "|", "caret": "^",
    "asterisk": "*", "tilde": "~", "backslash": "\\", "backtick": "`", "two-colons": "::",
    "two-semicolons": ";;", "zwsp": "", "wj": "", "deg": "°", "ldquo": "“", "rdquo": "”",
    "lsquo": "‘", "rsquo": "’", "brvbar": "¦", "cpp": "C++",
}  # fmt: skip
_TWO_LINE_TITLE = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
_DELIMITERS = {"----": "listing", "....": "literal", "____": "quote", "====": "example",
               "****": "sidebar", "--": "open", "|===": "table", "++++": "pass",
               "////": "comment"}  # fmt: skip
_LABEL = re.compile(r"^(?P<term>\S.*?)(?P<mark>:{2,4}|;;)(?:\s+(?P<rest>\S.*))?$")
_LIST = re.compile(r"^(?P<mark>\*{1,5}|-|\.{1,5}|\d+\.)\s+(?P<text>\S.*)$")
_ADMONITION = re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):\s+(.*)$")
_BLOCK_TITLE = re.compile(r"^\.(?P<title>[^\s.].*)$")
_INLINE = [
    (re.compile(r"\blinkgit:([\w.-]+)\[(\d\w*)\]"), r"\1(\2)"),
    (re.compile(r"\b(?:link|mailto):([^\s\[]+)\[\]"), r"\1"),
    (re.compile(r"\b(?:link|mailto|xref):[^\s\[]+\[([^\]]*)\]"), r"\1"),
    (re.compile(r"\b((?:https?|ftp)://[^\s\[]+)\[\]"), r"\1"),
    (re.compile(r"\b(?:https?|ftp)://[^\s\[]+\[([^\]]+)\]"), r"\1"),
    (re.compile(r"<<[\w:.#/-]+,\s*([^>]+)>>"), r"\1"),
    (re.compile(r"<<([\w:.#/-]+)>>"), r"\1"),
    (re.compile(r"\b(?:kbd|btn|menu|pass):\[([^\]]*)\]"), r"\1"),
    (re.compile(r"\bfootnote:[\w-]*\[([^\]]*)\]"), r" (\1)"),
    (re.compile(r"\bimage::?[^\s\[]+\[([^\]]*)\]"), r"\1"),
    (re.compile(r"\[\[[^\]]*\]\]|\[#[\w-]+\]|\(\(\([^)]*\)\)\)"), ""),
    (re.compile(r"``(.+?)''"), r"“\1”"),
    (re.compile(r"(?<![\w`'])'(?=\S)([^'\n]*?\S)'(?![\w'])"), r"\1"),
    (re.compile(r"(?<![\w`+])\+(?=\S)([^+\n]*?\S)\+(?![\w+])"), r"`\1`"),
    (re.compile(r"(?<![\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])"), r"**\1**"),
    (re.compile(r"(?<![\w_])_(?=\S)([^_\n]*?\S)_(?![\w_])"), r"*\1*"),
    (re.compile(r"\s\+$"), ""),
]


def takes(name: str) -> bool:
    """Whether a file name says AsciiDoc (a .txt file may be AsciiDoc too: is_asciidoc)."""
    return name.lower().endswith(SUFFIXES)


def is_asciidoc(name: str, text: str) -> bool:
    """An AsciiDoc file by its name, or a .txt file whose text has two or more kinds of
    AsciiDoc's own constructs (macros, directives, block attributes, `=` titles, labeled
    lists: three or more of those to count)."""
    if takes(name):
        return True
    if not name.lower().endswith(".txt"):
        return False
    kinds = 0
    for kind, pattern in _MARKERS.items():
        found = pattern.findall(text)
        kinds += len(found) >= (3 if kind == "labeled" else 1)
    return kinds >= 2


def includes(text: str) -> list[str]:
    """The targets of a file's `include::` lines, as written."""
    return [m.group(1).strip() for m in _INCLUDE_LINE.finditer(text)]


def resolve(target: str, folder: str) -> str | None:
    """An include's target as a path relative to the source's root (`/`-separated), from
    the including file's `folder`; None for a URL, an absolute path or one that leaves the
    source (`../../etc/passwd`)."""
    if "://" in target or target.startswith("/") or "{" in target:
        return None
    parts: list[str] = [p for p in folder.split("/") if p and p != "."]
    for p in target.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(p)
    return "/".join(parts)


def folder_of(path: str) -> str:
    """The folder of a path relative to the source's root (`doc/a.tex` -> `doc`)."""
    return path.rsplit("/", 1)[0] if "/" in path else ""


def find_included(
    target: str,
    folder: str,
    names: Collection[str],
    suffix: str = "",
    bases: tuple[str, ...] = (),
    resolved: Callable[[str, str], str | None] = resolve,
) -> str | None:
    """The file of `names` an include's target means (LaTeX's `\\input`, Texinfo's
    `@include`, DocBook's entities and XIncludes): `resolved` (this module's rule, or a
    format's that rules out its markup first) from the including file's `folder`, then
    from each of `bases`, then from the root; as written, then with `suffix` added."""
    for base in (folder, *bases, ""):
        got = resolved(target, base)
        if not got:
            continue
        for name in (got, got + suffix) if suffix else (got,):
            if name in names:
                return name
    return None


def batch(texts: dict[str, str]) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """Of a source's candidate files ({path relative to its root: text}), the AsciiDoc
    documents ({path: (title, Markdown)}) and the paths another AsciiDoc file includes
    (read there, not on their own). Includes are read from `texts` only."""
    adoc = {p for p, t in texts.items() if is_asciidoc(p.rsplit("/", 1)[-1], t)}
    included: set[str] = set()
    for p in adoc:
        folder = p.rsplit("/", 1)[0] if "/" in p else ""
        for target in includes(texts[p]):
            got = resolve(target, folder)
            if got is not None and got in texts and got != p:
                included.add(got)

    def read(target: str, folder: str) -> tuple[str, str] | None:
        got = resolve(target, folder)
        if got is None or got not in texts:
            return None
        return texts[got], got.rsplit("/", 1)[0] if "/" in got else ""

    out: dict[str, tuple[str, str]] = {}
    for p in sorted(adoc - included):
        out[p] = to_markdown(texts[p], read, p.rsplit("/", 1)[0] if "/" in p else "")
    return out, included


# ----------------------------------------------------------------------------- preprocessing
# (an include's target as written, the including file's folder) -> (its text, its folder)
Reader = Callable[[str, str], tuple[str, str] | None]


def preprocess(
    text: str, read: Reader, folder: str = "", attributes: dict[str, str] | None = None
) -> list[str]:
    """The lines of `text` as Asciidoctor reads them before it parses blocks: attribute
    entries applied and substituted, conditionals evaluated, includes read in place
    (`read(target, folder)` gives an included file's text and folder, relative to the
    including file's `folder`; None when there is none), comments gone."""
    attrs = dict(attributes or {})
    out: list[str] = []
    _expand(text, read, folder, attrs, out, 0)
    return out


def _expand(
    text: str, read: Reader, folder: str, attrs: dict[str, str], out: list[str], depth: int
) -> None:
    skipping: list[bool] = []  # one entry per open conditional: whether it drops its lines
    comment = False
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        if line.strip() == "////":
            comment = not comment
            continue
        if comment:
            continue
        cond = _CONDITION.match(line)
        if cond is not None:
            kind = cond.group("kind")
            if kind == "endif":
                if skipping:
                    skipping.pop()
                continue
            keep = _condition(kind, cond.group("names"), attrs)
            if cond.group("text"):  # the one-line form: ifdef::a[text]
                if keep and not any(skipping):
                    out.append(_substitute(cond.group("text"), attrs))
                continue
            skipping.append(not keep)
            continue
        if any(skipping):
            continue
        if line.startswith("//") and not line.startswith("///"):
            continue
        attr = _ATTRIBUTE.match(line)
        if attr is not None:
            name = attr.group("name")
            if attr.group("unset") or attr.group("unset2"):
                attrs.pop(name, None)
            else:
                attrs[name] = _substitute(attr.group("value") or "", attrs)
            continue
        inc = _INCLUDE.match(line)
        if inc is not None:
            target = _substitute(inc.group("target").strip(), attrs)
            got = read(target, folder) if depth < MAX_INCLUDE_DEPTH else None
            if got is not None:
                _expand(got[0], read, got[1], attrs, out, depth + 1)
            continue
        out.append(_substitute(line, attrs))


def _condition(kind: str, names: str, attrs: dict[str, str]) -> bool:
    if kind == "ifeval":
        return True  # an expression: not evaluated, its lines kept
    if "+" in names:
        found = all(n.strip() in attrs for n in names.split("+") if n.strip())
    else:
        found = any(n.strip() in attrs for n in names.split(",") if n.strip())
    return found if kind == "ifdef" else not found


def _substitute(line: str, attrs: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in attrs:
            return attrs[name]
        return _BUILTIN.get(name, m.group(0))

    return _REFERENCE.sub(one, line)


# ----------------------------------------------------------------------------- blocks
def to_markdown(
    text: str, read: Reader, folder: str = "", attributes: dict[str, str] | None = None
) -> tuple[str, str]:
    """(title, Markdown) of an AsciiDoc document whose file is in `folder`."""
    lines = preprocess(text, read, folder, attributes)
    return _Renderer(lines).render()


class _Renderer:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.out: list[str] = []
        self.title = ""
        self.style = ""  # the last block attribute line's first word ([source,java]: source)
        self.lang = ""

    def render(self) -> tuple[str, str]:
        self.blocks(0, len(self.lines))
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(self.out)).strip("\n")
        return self.title, text

    def emit(self, *lines: str) -> None:
        self.out.extend(lines)

    def blank(self) -> None:
        if self.out and self.out[-1] != "":
            self.out.append("")

    def blocks(self, i: int, n: int) -> None:
        lines = self.lines
        while i < n:
            line = lines[i]
            stripped = line.strip()
            if not stripped:
                self.blank()
                i += 1
                continue
            # a document or section title: "= Title", "== Section"
            m = re.match(r"^(=+)\s+(\S.*?)\s*=*$", line)
            if m is not None and len(m.group(1)) <= 6:
                self.heading(len(m.group(1)), m.group(2))
                i += 1
                continue
            # a two-line title: the text over a line of one character as long as it
            nxt = lines[i + 1] if i + 1 < n else ""
            if _underline(line, nxt):
                self.heading(_TWO_LINE_TITLE[nxt[0]], stripped)
                i += 2
                continue
            if re.fullmatch(r"\[\[[^\]]*\]\]|\[#[\w-]+\]", stripped):  # an anchor alone
                i += 1
                continue
            if re.fullmatch(r"\[[^\]]*\]", stripped) and not stripped.startswith("[["):
                words = re.split(r"[,\s]", stripped[1:-1], maxsplit=2)
                self.style = words[0].lstrip("%.#") if words else ""
                self.lang = words[1] if self.style == "source" and len(words) > 1 else ""
                i += 1
                continue
            bt = _BLOCK_TITLE.match(stripped)
            if bt is not None and not stripped.startswith(".."):
                self.blank()
                self.emit(f"**{_inline(bt.group('title'))}**", "")
                i += 1
                continue
            kind = _DELIMITERS.get(stripped) or (
                _DELIMITERS.get(stripped[:4])
                if re.fullmatch(r"([-.=*_+/])\1{3,}", stripped)
                else None
            )
            if kind is not None:
                i = self.delimited(i, n, kind, stripped)
                continue
            label = _LABEL.match(stripped)
            if label is not None and not line[:1].isspace() and not _URL_ONLY.match(stripped):
                i = self.labeled(i, n)
                continue
            item = _LIST.match(stripped)
            if item is not None and not line[:1].isspace():
                i = self.list_item(i, n, item)
                continue
            i = self.paragraph(i, n)

    def heading(self, level: int, text: str) -> None:
        text = _inline(text)
        if level == 1 and not self.title:
            self.title = text
        self.blank()
        self.emit(f"{'#' * level} {text}", "")
        self.style = self.lang = ""

    def delimited(self, i: int, n: int, kind: str, mark: str) -> int:
        """A delimited block from line i: its Markdown, and the index past its closing line."""
        j = i + 1
        while j < n and self.lines[j].strip() != mark:
            j += 1
        body = self.lines[i + 1 : j]
        style, lang = self.style, self.lang
        self.style = self.lang = ""
        self.blank()
        if kind in ("listing", "literal") or style in ("source", "listing", "literal"):
            self.emit(f"```{lang}", *body, "```", "")
        elif kind == "quote" or style == "quote":
            self.emit(*[f"> {_inline(x)}".rstrip() for x in body], "")
        elif kind == "table":
            self.emit(*_table(body), "")
        elif kind in ("pass", "comment"):
            pass
        else:  # example, sidebar, open: their content, read as blocks
            if style.upper() in ("NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"):
                self.emit(f"{style.capitalize()}:")
            self.blocks(i + 1, j)
        return j + 1

    def labeled(self, i: int, n: int) -> int:
        """A labeled list entry: one or more `term::` lines over its description (indented,
        on the term's line, or the paragraph right under it; `+` lines join more blocks)."""
        terms: list[str] = []
        rest = ""
        while i < n:
            m = _LABEL.match(self.lines[i].strip())
            if m is None or self.lines[i][:1].isspace():
                break
            terms.append(m.group("term").strip())
            i += 1
            if m.group("rest"):
                rest = m.group("rest")
                break
        desc: list[str] = [rest] if rest else []
        while i < n and not self.lines[i].strip() and not desc:  # a blank line under the term
            i += 1
        while i < n:
            line = self.lines[i]
            if not line.strip():
                break
            if line.strip() == "+":  # a continuation: the next block joins the description
                desc.append("")
                i += 1
                continue
            if not line[:1].isspace() and (_LABEL.match(line.strip()) or _LIST.match(line.strip())):
                break
            desc.append(line.strip())
            i += 1
        shown = ", ".join(t if "`" in t else f"`{t}`" for t in (_inline(t) for t in terms))
        paragraphs = [
            " ".join(_inline(x) for x in p.split("\n") if x) for p in "\n".join(desc).split("\n\n")
        ]
        paragraphs = [p for p in paragraphs if p]
        self.blank()
        self.emit(f"- {shown}: {paragraphs[0]}" if paragraphs else f"- {shown}")
        for p in paragraphs[1:]:
            self.emit("", f"  {p}")
        self.emit("")
        return i

    def list_item(self, i: int, n: int, item: re.Match[str]) -> int:
        mark = item.group("mark")
        depth = len(mark) - 1 if mark[0] in "*." else 0
        bullet = "1." if mark[0] == "." or mark[0].isdigit() else "-"
        text = [item.group("text")]
        i += 1
        while i < n:
            line = self.lines[i]
            s = line.strip()
            if not s or s == "+" or _LIST.match(s) or _LABEL.match(s) or s in _DELIMITERS:
                break
            text.append(s)
            i += 1
        self.emit(f"{'  ' * depth}{bullet} {_inline(' '.join(text))}")
        if i < n and not self.lines[i].strip():
            self.emit("")
        return i

    def paragraph(self, i: int, n: int) -> int:
        lines: list[str] = []
        while i < n:
            line = self.lines[i]
            s = line.strip()
            if not s or (lines and (s in _DELIMITERS or re.fullmatch(r"\[[^\]]*\]", s))):
                break
            lines.append(line)
            i += 1
        style = self.style
        self.style = self.lang = ""
        self.blank()
        literal = style in ("verse", "literal", "listing", "source") or lines[0][:1].isspace()
        if literal:  # an indented paragraph is a literal block in AsciiDoc
            indent = min(len(x) - len(x.lstrip()) for x in lines)
            self.emit("```", *[x[indent:] for x in lines], "```", "")
            return i
        first = _ADMONITION.match(lines[0].strip())
        if first is not None:
            lines[0] = f"{first.group(1).capitalize()}: {first.group(2)}"
        elif style.upper() in ("NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"):
            lines[0] = f"{style.capitalize()}: {lines[0].strip()}"
        self.emit(*[_inline(x.strip()) for x in lines], "")
        return i


_URL_ONLY = re.compile(r"^(?:https?|ftp)://\S+$")


def _underline(line: str, nxt: str) -> bool:
    s = line.strip()
    if not s or not nxt or nxt[0] not in _TWO_LINE_TITLE or line[:1].isspace():
        return False
    if not re.fullmatch(rf"{re.escape(nxt[0])}+", nxt.strip()):
        return False
    return abs(len(nxt.strip()) - len(s)) <= 2 and len(nxt.strip()) >= 2 and not _LIST.match(s)


def _table(body: list[str]) -> list[str]:
    """A table's rows, each a line of its cells joined by " | " (a row may span lines)."""
    rows: list[str] = []
    cells: list[str] = []
    for line in body:
        s = line.strip()
        if not s:
            if cells:
                rows.append(" | ".join(cells))
                cells = []
            continue
        if s.startswith("|"):
            parts = [p.strip() for p in s.split("|")[1:]]
            cells.extend(_inline(p) for p in parts)
        elif cells:
            cells[-1] = f"{cells[-1]} {_inline(s)}".strip()
    if cells:
        rows.append(" | ".join(cells))
    return rows


_CODE_SPAN = re.compile(r"(`+)(?=\S)(.+?)(?<=\S)\1")


def _inline(text: str) -> str:
    """A line's inline macros and quotes as their text; code spans (`...`) left as written."""
    out: list[str] = []
    last = 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_plain(text[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_plain(text[last:]))
    return "".join(out)


def _plain(text: str) -> str:
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text
