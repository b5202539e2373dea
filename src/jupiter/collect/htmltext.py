"""An HTML page's visible text, Markdown-shaped (HtmlText): one paragraph per block
element, headings as `#` lines, list items as `- ` lines, <pre> as fenced code, tables as
Markdown pipe tables, a definition list's <dd> indented under its <dt>; a site's furniture
(menus, sidebars, Prev/Up/Next bars, page controls) left out."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from jupiter.collect.markdown import as_text
from jupiter.collect.texinfo import def_head

# Content of these elements is never visible text, or is a page's controls ("Copy",
# "hide"/"show" on a diagram, a search box's choices), not its text.
HIDDEN = {"script", "style", "nav", "noscript", "template", "svg", "head", "button", "select"}
BLOCKS = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "aside",
    "li",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "table",
    "tr",
    "blockquote",
    "pre",
    "figure",
    "figcaption",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "form",
    "details",
    "summary",
}


HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}  # fmt: skip
# a site's furniture, by the role a generator gives it (Sphinx, MkDocs, Read the Docs, Node's
# API pages) or its class: menus, search boxes, page footers, sidebars, "¶" permalinks,
# DocBook's Prev/Up/Next bars, a page's table of contents (DocBook's, Doxygen's)
HIDDEN_ROLES = {"navigation", "search", "banner", "contentinfo", "complementary"}
HIDDEN_CLASSES = {
    "headerlink",
    "sphinxsidebar",
    "footer",
    "related",
    "toc-drawer",
    "md-sidebar",
    "navheader",
    "navfooter",
    "nav",
    "toc",
    "nav-panel",
    "navigation",  # LaTeX2HTML's Next/Up/Previous panel
    "ChildLinks",  # LaTeX2HTML's list of a node's subsections
}
# the page's own text, where the page marks it: <main>, role="main"
_MAIN = re.compile(r"<main[\s>]|\srole\s*=\s*[\"']?main\b", re.I)
# the comment texi2any (makeinfo) and texi2html leave at a page's top
_TEXINFO_MADE = re.compile(r"GNU Texinfo|texi2any|makeinfo|texi2html", re.I)
# the comments LaTeX2HTML puts around a node's navigation panel and its list of subsections
_LATEX2HTML_REGIONS = ("Navigation Panel", "Table of Child-Links")
# LaTeX2HTML's page reference, its number an image: "see set xlabel (p. [*])"
_PAGE_REF = re.compile(r"\s*\(p\.\s*\)")
# texi2any 6's category as plain text before the definition's name: "Function: "
_PLAIN_CATEGORY = re.compile(r"^([A-Z][\w -]{0,30}):\s+(.*)$", re.S)


def html_text(html: str) -> tuple[str, str]:
    """(text, title) of an HTML page (HtmlText): only its main element's text when it marks
    one (<main>, role="main"), so a site's navigation does not repeat in every page."""
    page = HtmlText(main_only=_MAIN.search(html) is not None)
    page.feed(html)
    page.close()
    return page.text(), page.title


_TABLE_TAGS = {"table", "tr", "td", "th"}


class _Table:
    """An HTML table being read: the blocks each cell holds, row by row; `saved` the page's
    blocks to go on with once it ends, `loose` what lies in it outside a cell (a caption)."""

    def __init__(self, saved: list[str]) -> None:
        self.saved = saved
        self.loose: list[str] = []
        self.rows: list[list[list[str]]] = []
        # which cells head their column: a <th>, or a cell whose text is all bold
        self.heads: list[list[bool]] = []
        self.depth = 1  # open <table>s: one inside a cell is read as that cell's text

    def row(self) -> None:
        self.rows.append([])
        self.heads.append([])

    def cell(self) -> list[str]:
        if not self.rows:
            self.row()
        self.rows[-1].append([])
        self.heads[-1].append(True)
        return self.rows[-1][-1]

    def text(self, blocks: list[str], data: str, bold: bool, th: bool) -> None:
        """`data` read into `blocks`: a cell's text that is not bold, in no <th>, makes it
        no heading cell."""
        if data.strip() and not (bold or th) and self.rows and self.rows[-1]:
            if blocks is self.rows[-1][-1]:
                self.heads[-1][-1] = False

    def blocks(self) -> list[str]:
        """The table as blocks: a Markdown pipe table when it has rows of two cells or more
        (a term and its description, a function and its use), its first row the header;
        otherwise (a layout: a note beside its icon, a bar of links, cells of paragraphs or
        code) each cell's blocks as they are. A table whose
        first row is no row of <th> gets an empty header (each row a term and its text)."""
        rows = [[_cell_text(c) for c in r] for r in self.rows]
        kept = [k for k, r in enumerate(rows) if any(r)]
        head = bool(kept) and all(
            h for h, c in zip(self.heads[kept[0]], rows[kept[0]], strict=True) if c
        )
        rows = [rows[k] for k in kept]
        wide = [r for r in rows if sum(1 for c in r if c) >= 2]
        # a cell of paragraphs or a code listing is a page's layout, not a table's cell
        rich = any(
            len(c) >= 3 or any(b.startswith("```") and b.count("\n") > 2 for b in c)
            for r in self.rows
            for c in r
        )
        if len(rows) >= 2 and 2 * len(wide) >= len(rows) and not rich:
            n = max(len(r) for r in rows)
            rows = [[*r, *[""] * (n - len(r))] for r in rows]
            used = [k for k in range(n) if any(r[k] for r in rows)]  # no spacer columns
            rows = [[r[k] for k in used] for r in rows]
            n = len(used)
            if not head:
                rows.insert(0, [""] * n)
            lines = ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
            return ["\n".join([lines[0], "| " + " | ".join(["---"] * n) + " |", *lines[1:]])]
        return [b for r in self.rows for c in r for b in c]


def _cell_text(blocks: list[str]) -> str:
    """A table cell's blocks on one line: code inline, a heading's or an item's mark gone."""
    parts = []
    for b in blocks:
        if b.startswith("```"):
            code = " ".join(b.strip("`").split())
            parts.append(f"`{code}`" if code else "")
        else:
            parts.append(" ".join(re.sub(r"^(?:#+|-) ", "", b).split()))
    return " ".join(p for p in parts if p)


def _control(attrs: dict[str, str | None]) -> bool:
    """An <a> that is a page's control: its href a script that does nothing (its onclick
    does: `javascript:void(0)`), or none (or "#") and an onclick. A script that goes somewhere
    (Erlang's `javascript:erlhref(...)` to a type) is a link: its text is the page's."""
    href = (attrs.get("href") or "").strip().lower()
    return bool(_NO_OP.fullmatch(href)) or (href in ("", "#") and "onclick" in attrs)


_MARKS = {"¶", "§", "#", "🔗"}
# a page's links to its translations: "Available Languages: en | fr | pt-br"
_BAR_LABEL = re.compile(r"^[^\n:|]{1,40}:\s*")
_BAR_CODE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z]{2,4})?")
LANGUAGE_CODES = frozenset(
    """en fr de es it pt ja ko zh ru tr da nl pl sv fi no nb nn cs hu el he ar uk id vi th
    ro bg ca sk sl hr sr et lv lt fa hi ms eu gl is ga cy sq mk bn ta te ur""".split()
)


def _language_bar(block: str) -> bool:
    """A block of two or more language codes (each a link, the caller checks; one under a
    label that says "language"), with a label before them and separators between: a page's
    bar of links to its translations."""
    label = _BAR_LABEL.match(block)
    rest = block[label.end() :] if label else block
    codes = _BAR_CODE.findall(rest)
    # one code is a bar where its label says so ("Available Languages: en")
    least = 1 if label and "language" in label.group().lower() else 2
    if len(codes) < least or _BAR_CODE.sub("", rest).strip(" |/·,\n\xa0"):
        return False
    return all(c.replace("_", "-").split("-")[0].lower() in LANGUAGE_CODES for c in codes)


_NO_OP = re.compile(r"javascript:\s*(?:void\b.*|;?)")


class HtmlText(HTMLParser):
    """Collects the visible text of a page, Markdown-shaped so its structure survives:
    one paragraph per block element, headings as `#` lines, list items as `- ` lines,
    <pre> as fenced code, inline <code> in backticks, and a definition list's <dd> indented
    under its <dt> (the way reStructuredText writes one). Whitespace is collapsed except
    inside <pre>; entities unescaped."""

    def __init__(self, main_only: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.main_only = main_only  # text counts inside <main> / role="main" only
        # open elements: (tag, furniture, main, a link within the page, its role in a
        # Texinfo definition: "def" a <dl> of them, "flat" the <dd> of one, "cat" the
        # element that holds its category, "name" the one that holds its name)
        self.open: list[tuple[str, bool, bool, bool, str]] = []
        self.furniture = 0  # open elements that are a site's furniture (HIDDEN_ROLES, ...)
        self.main = 0  # open main elements
        self.within = 0  # open links to a place on the page (href="#...")
        # the block's characters inside such a link, and outside one
        self.linked = self.unlinked = 0
        self.anchors = 0  # open links
        self.anchored = 0  # the block's characters inside any link
        self.in_dt = False
        self.last_dt = False  # the last block a term: a term after it is the same entry's
        self.table: _Table | None = None  # the outermost table being read
        self.th = False  # its cell is a <th>
        self.bold = 0  # open <b> and <strong>
        self.blocks: list[str] = []
        self.line: list[str] = []
        self.hidden = 0  # depth inside hidden elements
        self.pre = 0
        self.code = 0  # inline <code> depth (outside <pre>)
        self.prefix = ""  # "# ", "- ": what the block being collected starts with
        self.in_title = False
        self.title = ""
        self.texinfo = False  # a page texi2any or texi2html made
        self.latex2html = False  # a page LaTeX2HTML made
        self.skipped = 0  # inside a region LaTeX2HTML's comments mark as navigation
        # a Texinfo definition's line being read (<dt>): its category, what comes before
        # its name (a type, a result), its name, and what comes after (its arguments)
        self.head: dict[str, list[str]] | None = None
        self.named = False  # the name of the definition being read is done
        self.defined = False  # the last term read is a definition's: its <dd> is flat

    def handle_comment(self, data: str) -> None:
        said = data.strip()
        if _TEXINFO_MADE.search(said):
            self.texinfo = True
        elif said.startswith("Converted with LaTeX2HTML"):
            self.latex2html = True
        elif said in _LATEX2HTML_REGIONS:
            self.skipped += 1
        elif said.startswith("End of ") and said[7:] in _LATEX2HTML_REGIONS and self.skipped:
            self.skipped -= 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("dt", "dd"):
            self._close_entry()
        if tag not in VOID:
            a = dict(attrs)
            role = (a.get("role") or "").lower()
            classes = set((a.get("class") or "").split())
            furniture = role in HIDDEN_ROLES or bool(classes & HIDDEN_CLASSES)
            # a link that runs a script ("Menu", "► Table Of Contents") is a control
            furniture = furniture or (tag == "a" and _control(a))
            # texi2any's Next/Previous/Up bar
            furniture = furniture or (self.texinfo and tag == "div" and "header" in classes)
            main = tag == "main" or role == "main"
            within = tag == "a" and (a.get("href") or "").startswith("#")
            self.open.append((tag, furniture, main, within, self._role(tag, classes)))
            self.furniture += furniture
            self.anchors += tag == "a"
            self.main += main
            self.within += within
        if tag in _TABLE_TAGS:
            self._table_start(tag)
        elif tag in ("b", "strong"):
            self.bold += 1
        elif tag == "sup" and self.line and self.line[-1][-1:].isalnum():
            self.line.append("^")  # a power: 2<sup>48</sup> is 2^48, no 248
        if tag == "title":
            self.in_title = True
        elif tag == "body":
            self.hidden = 0  # a <head> left open ends here
        elif tag == "br":
            self._break()
        if tag in HIDDEN:
            self.hidden += 1
        if tag in BLOCKS:
            self._flush()
        if tag == "pre":
            self.pre += 1
        elif tag == "code" and not self.pre:
            self.code += 1
            self.line.append("`")
        elif tag in HEADINGS and not self._unseen():
            self.prefix = "#" * int(tag[1]) + " "
        elif tag == "li" and not self._unseen():  # a hidden item's mark is no later text's
            self.prefix = "- "
        elif tag == "dt":
            self.in_dt = True
            inside = next((o for o in reversed(self.open) if o[0] == "dl"), None)
            self.defined = False
            if inside is not None and inside[4] == "def":
                self.head = {"cat": [], "pre": [], "name": [], "args": []}
                self.named = False

    def _role(self, tag: str, classes: set[str]) -> str:
        """An element's role in a Texinfo definition (see self.open)."""
        if tag == "dl" and any(c == "def" or c.startswith("first-def") for c in classes):
            return "def"  # texi2any 6.8 and 7.0 write class="def", 7.1 "first-deffn"
        if tag == "dd" and self.defined:
            return "flat"
        if tag == "u" and self.in_dt and self.head is None and not "".join(self.line).strip():
            # texi2html: <dt><u>Function:</u> void <b>xerror</b><i> (int severity)</i>
            self.head = {"cat": [], "pre": [], "name": [], "args": []}
            self.named = False
            return "cat"
        if self.head is None:
            return ""
        if tag == "span" and "category" in classes:
            return "cat"
        if tag in ("strong", "b") and not self.named and not self._inside("name"):
            return "name"
        return ""

    def _unseen(self) -> bool:
        """Text here is not the page's (hidden, furniture, outside its main element)."""
        return bool(
            self.hidden or self.furniture or self.skipped or (self.main_only and not self.main)
        )

    def _part(self) -> str:
        """Which part of a definition's line the text being read is."""
        if self._inside("cat"):
            return "cat"
        if self._inside("name"):
            return "name"
        return "args" if self.named else "pre"

    def _break(self) -> None:
        """A <br>: a line break, or a space in a definition's line (Maxima's forms)."""
        if self.head is not None:
            self.head[self._part()].append(" ")
        else:
            self.line.append("\n")

    def _inside(self, role: str) -> bool:
        return any(o[4] == role for o in self.open)

    def handle_endtag(self, tag: str) -> None:
        if tag in BLOCKS:
            self._flush()  # the block's text, while it is open (how deep in a list it is)
        if any(o[0] == tag for o in self.open):  # close it, and what it left open
            while self.open:
                t = self._pop()
                if t == tag:
                    break
        if tag == "dl":
            self.last_dt = False  # a list's terms end with it (a <dl> of terms alone)
        if tag in _TABLE_TAGS and self.table is not None:
            self._table_end(tag)
        elif tag in ("b", "strong") and self.bold:
            self.bold -= 1
        if tag == "title":
            self.in_title = False
        if tag in HIDDEN and self.hidden:
            self.hidden -= 1
        if tag == "code" and self.code and not self.pre:
            self.code -= 1
            self.line.append("`")
        if tag in BLOCKS:
            self._flush()
        if tag == "pre" and self.pre:
            self.pre -= 1

    def _pop(self) -> str:
        t, furniture, main, within, role = self.open.pop()
        self.furniture -= furniture
        self.anchors -= t == "a"
        self.main -= main
        self.within -= within
        if role == "name":
            self.named = True
        return t

    def _close_entry(self) -> None:
        """A <dt> or <dd> closes its list's entry left open (`<dt>a<dd>b<dt>c`, as HTML
        allows), its text first: a <dd> inside a <dd> is a nested list's."""
        since = max((k for k, o in enumerate(self.open) if o[0] == "dl"), default=-1)
        entry = next(
            (k for k in range(len(self.open) - 1, since, -1) if self.open[k][0] in ("dt", "dd")),
            None,
        )
        if entry is not None:
            self._flush()
            while len(self.open) > entry:
                self._pop()

    def _dd(self) -> int:
        """The <dd>s open: how deep a block is in nested definition lists (a Texinfo
        definition's text is the page's, under its line, as the Texinfo reader writes it)."""
        return sum(1 for o in self.open if o[0] == "dd" and o[4] != "flat")

    def _table_start(self, tag: str) -> None:
        """A table's cells are read each into its own blocks (_Table), a table inside one
        into that cell's text."""
        t = self.table
        if t is None:
            if tag == "table":
                self._flush()
                self.table = _Table(self.blocks)
                self.blocks = self.table.loose
            return
        if tag == "table":
            t.depth += 1
        elif t.depth > 1:
            self.line.append(" ")  # an inner table's cells: apart, in the outer cell
        elif tag == "tr":
            self._flush()
            t.row()
            self.blocks = t.loose
        elif tag in ("td", "th"):
            self._flush()
            self.blocks = t.cell()
            self.th = tag == "th"

    def _table_end(self, tag: str) -> None:
        t = self.table
        assert t is not None
        if tag == "table":
            t.depth -= 1
            if t.depth == 0:
                self._end_table()
        elif t.depth == 1 and tag in ("tr", "td", "th"):
            self._flush()
            self.blocks = t.loose

    def _end_table(self) -> None:
        """The table done: its blocks where it stands in the page (under a definition's
        term when it is in the description)."""
        t = self.table
        assert t is not None
        self._flush()
        self.table = None
        self.last_dt = False
        self.blocks = t.saved
        for block in [*t.loose, *t.blocks()]:
            self._add(block, "")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self._break()
        elif tag in BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title = " ".join((self.title + " " + data).split())
            return
        if self._unseen():
            return
        if self.within and data.strip() in _MARKS:  # a heading's "¶" permalink
            return
        if self.head is not None:  # a definition's line, read in its parts
            self.head[self._part()].append(data)
            return
        self.line.append(data if self.pre else re.sub(r"\s+", " ", data))
        if self.table is not None:
            self.table.text(self.blocks, data, self.bold > 0, self.th)
        if self.anchors:
            self.anchored += len(data.strip())
        if self.within:
            self.linked += len(data.strip())
        else:
            self.unlinked += len(data.strip())

    def _flush(self) -> None:
        if self.head is not None:
            self.line = [self._definition(self.head), *self.line]
            self.head = None
            self.defined = True
        raw = "".join(self.line)
        self.line = []
        prefix, self.prefix = self.prefix, ""
        # a paragraph or item that is one link to a place on the page: a table of contents'
        # entry (a heading's or a term's own link is its text)
        toc = self.linked and not self.unlinked and not (prefix.startswith("#") or self.in_dt)
        anchored, self.anchored = self.anchored, 0
        self.linked = self.unlinked = 0
        dt, self.in_dt = self.in_dt, False
        if self.pre:
            block = raw.strip("\n")
            if block.strip():
                self.blocks.append(f"```\n{block}\n```")
            return
        # <br> line breaks survive; spaces around them do not; an empty `` pair goes
        block = "\n".join(line.strip() for line in raw.replace("``", "").split("\n")).strip()
        # a line of text that opens with "#" (a shell comment in a plain-text README laid out
        # with <br>s) escaped, so that it is not read as a heading; a heading's own text kept
        lines = block.split("\n")
        block = "\n".join(as_text(ln) if i or not prefix else ln for i, ln in enumerate(lines))
        if self.latex2html:
            block = _PAGE_REF.sub("", block)
        if not block.strip():
            self.prefix = prefix  # <li><p>text</p></li>: the item's text is still to come
            return
        if toc and not self._dd():
            return
        if anchored and _language_bar(block):  # "Available Languages: en | fr | ja"
            return
        if dt and self.last_dt and self.blocks and not self._dd():
            self.blocks[-1] += "\n" + block  # <dt>s over one <dd>: one entry's terms
            return
        self._add(block, prefix)
        self.last_dt = dt

    def _definition(self, head: dict[str, list[str]]) -> str:
        """A Texinfo definition's line as the Texinfo reader writes it (texinfo.def_head):
        "**Function:** `size_t` **`strlen`** `(const char *s)`"."""
        cat, pre, name, args = (" ".join("".join(head[k]).split()) for k in head)
        cat = cat.rstrip(":").strip()
        if not cat and (m := _PLAIN_CATEGORY.match(pre)):  # texi2any 6: "Function: <em>int"
            cat, pre = m.group(1), m.group(2)
        if not name:  # no name marked: the line as it reads
            return " ".join(x for x in (f"**{cat}:**" if cat else "", pre, args) if x)
        return def_head(cat, pre, name, args)

    def _add(self, block: str, prefix: str) -> None:
        if (depth := self._dd()) and self.blocks:
            # under its term, indented, with no blank line between (a definition list; a
            # nested one's terms under the outer description, theirs deeper)
            pad = "  " * depth
            self.blocks[-1] += "\n" + "\n".join(pad + ln for ln in block.split("\n"))
            return
        self.blocks.append(prefix + block)

    def text(self) -> str:
        self._flush()
        while self.table is not None:  # a table never closed ends with the page
            self._end_table()
        return "\n\n".join(self.blocks)
