"""DocBook sources (`.xml`, `.sgml`, `.dbk`, `.docbook`; DocBook 4.x and 5.x) read as the
documents their built manual shows, as Markdown: a document per reference entry (a man
page: `systemd.service(5)`, PostgreSQL's `CREATE TABLE`) and, in a book, per chapter
section. PostgreSQL's manual, systemd's and many GNU/Linux projects' man pages, GNOME's
and FreeBSD's documentation are written so.

Read as plain text, a DocBook file gave the question templates its tags, its entity
references and, for a book split into entity-included files, a driver file of nothing but
declarations. Here a source's DocBook files are assembled the way an XML toolchain does,
with nothing fetched and nothing read from outside the given texts (no XML parser ever
runs DTD or external-entity processing), then walked as a tree:

1. Entities. A DOCTYPE's internal subset is scanned declaration by declaration (comments,
   processing instructions, `<!ELEMENT>` / `<!ATTLIST>` / `<!NOTATION>` skipped,
   `<![INCLUDE[ ... ]]>` read and `<![IGNORE[ ... ]]>` not, a keyword that is a parameter
   entity taken from its value): `<!ENTITY name "value">` is an internal general entity,
   `<!ENTITY name SYSTEM "file.sgml">` (or `PUBLIC "id" "file.sgml"`) an external one whose
   text is that file's, resolved relative to the declaring file's folder, then to the
   root, among the given texts (a URL, an absolute path or one that leaves the source is
   not followed; a file that is not there leaves the entity undefined); `<!ENTITY % name
   ...>` a parameter entity, and a `%name;` reference reads that file's (or value's)
   declarations in turn, relative to its own folder (PostgreSQL's postgres.sgml reads
   filelist.sgml, which reads ref/allfiles.sgml so). The first declaration of a name wins,
   as in XML; unparsed (`NDATA`) entities are ignored. `&name;` references are then
   expanded textually and recursively (an entity's expansion is kept and reused), outside
   comments and CDATA sections: the five XML ones and character references are left for
   the parser; an entity in its own expansion (a cycle), or more than 40 deep, is left as
   its name; an HTML / ISO name (`&mdash;`, `&nbsp;`, `&hellip;`) becomes its character;
   an unknown one is kept as the text `&name;` (so a missing version.sgml shows
   `&version;`), and a `&` that starts no reference as `&`. An external entity's text
   loses its XML declaration (and a DOCTYPE, whose declarations are read first). An
   expansion that would make more than 50 million characters (at one level, 400 million in
   all) or substitute more than a million references (a "billion laughs") stops: that
   file gives nothing.
2. XML. The DOCTYPE and the XML declaration are removed, the `xi:` / `xlink:` prefixes
   bound on the root when the file uses them without declaring them, and the text parsed
   by `xml.etree.ElementTree`; a file that does not parse (an SGML-only file among them)
   gives nothing. Comments and processing instructions go with the parse; namespaces are
   dropped from element and attribute names (`xml:id` is `id`, `xlink:href` `href`), so
   DocBook 4 and 5 read alike; profiling attributes (`condition`, `os`, `arch`) are
   ignored: every variant is kept.
3. XInclude. `<xi:include href="f.xml"/>` is replaced by that file's root element, and
   with `xpointer="id"` (or `xpointer(id('id'))`, `element(id)`, a `[@id='id']` test) by
   its element with that id (the file assembled on its own, its own includes done;
   `xpointer(/a/*)` its root's children); `parse="text"` by the file's text; the href is
   resolved relative to the including file, then to the folders of the files its entities
   read. A target that is not there, has no such id or includes itself back gives its
   `xi:fallback`'s content, else nothing.

A file read by entity, or included whole by XInclude, is in the included set (read
there, not alone), with the declaration files the parameter entities read. A file another
one XIncludes only pieces of stays a main file when it gives documents of its own (a man
page another man page takes a section of; postgres.sgml, which the stand-alone INSTALL
article takes chapters of), and is included otherwise (systemd's standard-options.xml).
Every other DocBook file (`is_docbook`) that parses is a main file; a declared file no
main file ends up reading is read on its own, and a main file gives its documents.

Documents, each `(id, title, Markdown)` with `# title` as its first line and the
sections inside it `##`, `###`, ... by depth (`######` at most):

- A `refentry` is one document: its `id`, its title `refentrytitle(manvolnum)` when the
  page is a file of its own with a volume (`systemd.service(5)`), else (a page in a book,
  as the HTML shows it) the refentrytitle, else the first refname (`CREATE TABLE`); its
  first line the refnames joined by ", " and ` — ` the refpurpose (`CREATE TABLE — define
  a new table`); the `refsynopsisdiv` a `## Synopsis` section (its own title if it has
  one) whose `synopsis`, `cmdsynopsis` and `funcsynopsis` are code lines in one fenced
  block; each `refsect1` / `refsect2` / `refsection` a heading with its title.
- A `set`, `book` or `part` gives its intro (a `partintro`, text outside its children)
  as a document with its own id and title, then a document per `chapter`, `appendix`,
  `preface`, `article`, `glossary`, `bibliography`, `colophon`, `dedication`; a
  `reference` its intro the same way and each `refentry` as above. Meta data (`info`,
  `bookinfo`, titles) and generated lists (`toc`, `index`) give nothing.
- A chapter-like element with `sect1`s or `section`s (an article's appendices too) gives
  its text before them as a document when there is any beyond its title, then each of
  them as a document (its id, its title); deeper sections (`sect2`..`sect5`, nested
  `section`, `simplesect`, `refsect*`, `glossdiv`, `bibliodiv`, `qandadiv`) are
  headings; a `refentry` inside any of them is a document of its own, after the one it is
  in. A main file whose root is a chapter, article or section is its own book by the same
  rules; one whose root is none of these (a bare `variablelist`) gives no document.
- A document that holds nothing but its heading is none.

Blocks: `para`, `simpara` paragraphs (whitespace collapsed; a list or code inside one
splits it); `formalpara` its `**Title.**` first; `programlisting`, `screen`,
`literallayout`, `synopsis` and `address` fenced code, text kept as written but dedented,
leading and trailing blank lines gone (the `language` attribute the fence's language, none
otherwise); `cmdsynopsis` a line `cmd [opt] {req} [a | b] [x...]` (an `sbr` a new line)
and `funcsynopsis` lines `type name(params);`, fenced; `itemizedlist` `- ` items,
`orderedlist`, `procedure` (steps), `calloutlist` `1. ` items (from `startingnumber`),
nested ones indented under their item, a list tight when every item is one line;
`simplelist` a `- ` list, or with `type="inline"` its members joined by ", " in the text;
`variablelist` what manpage-style option lists and Texinfo's `@table` give: `- ` then the
`term`s (each its inline Markdown: `` `-c command` ``) joined by ", ", then `: ` and the
listitem's first paragraph (`- `-c command`, `--command=command`: Specifies ...`), its
other blocks indented under it; `glossentry` the same with its glossterm (`glosssee`
"See X."); `note`, `tip`, `warning`, `caution`, `important` their first paragraph
starting "Note: " ("Tip: ", ...; a title of its own `**Title**` after it); `example`,
`informalexample`, `sidebar`, `figure` their title as a bold line, then their content;
`table`, `informaltable` (per `tgroup`, also HTML `tr`/`td` tables) a Markdown table
through `latex.markdown_table` (the first `thead` row the header, else the first row; a
cell's blocks joined into one line, code blocks as code spans, `|` escaped; spans
ignored), its title a bold line before it; `segmentedlist` a table of its `segtitle`s
and segments; `mediaobject` only its alt text and caption; `blockquote` `> ` lines (its
attribution `> — who`); `qandaset` each question a bold line, then its answer;
`biblioentry` a `- ` line of its parts; `bridgehead` a heading. `footnote`s are numbered
`[^1]` where they stand and their text appended at the end of the document
(`[^1]: text`); `footnoteref` repeats the number. `indexterm`, `remark`, `comment`,
`anchor`, callout marks (`co`) are dropped; an unknown element keeps its content, inline
in a paragraph.

Inline: `command`, `option`, `literal`, `filename`, `varname`, `envar`, `function`,
`parameter`, `type`, `structname`, `structfield`, `constant`, `classname`, `methodname`,
`userinput`, `computeroutput`, `systemitem`, `keycap`, `sgmltag`, `tag`, `token`,
`symbol`, `returnvalue`, `errorname`, `errorcode`, `errortype`, `property`, `prompt`,
`markup`, `code`, `uri`, `database` and their kin are code spans (as written: a function
gets no `()`; adjacent spans stay apart), with any markup inside read as its text (a
`replaceable` too); `replaceable` elsewhere `*x*`; `emphasis`, `firstterm`, `glossterm`,
`citetitle`, `foreignphrase` `*x*`, `emphasis role="bold"` / `strong` `**x**`; `quote` “x”; `ulink url=`
and `link xlink:href=` `[text](url)` (the url alone when there is no text); `link
linkend=` its text, else, like `xref linkend=`, the linked element's title across the
assembled file (its `xreflabel` first; a `refentry` its title; a `varlistentry` its first
term; an unresolved one its linkend; `endterm` that element's text); `citerefentry`
`` `name(vol)` ``; `optional` `[x]`; `keycombo` its keys joined by "+", `menuchoice` by
" → "; `inlinemediaobject` its alt text; `application`, `acronym`, `abbrev`,
`productname`, `superscript`, `subscript`, `phrase` and the rest their text. Titles are
plain text. Zero-width spaces and soft hyphens are removed.

`documents(text)` reads one file on its own (its includes not there), for tests and tools.
"""

from __future__ import annotations

import copy
import html.entities
import re
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from jupiter.collect import asciidoc
from jupiter.collect.latex import markdown_table
from jupiter.collect.texinfo import list_item

SUFFIXES = (".xml", ".sgml", ".dbk", ".docbook")
INCLUDED = "docbook_included"
INCLUDED_FIX = (
    "a DocBook file another one includes (an external entity or an XInclude) is read where "
    "it is included, not on its own"
)
MAX_EXPANDED = 50_000_000  # characters one expansion may make
MAX_PRODUCED = 8 * MAX_EXPANDED  # characters all the expansions of one file may make
MAX_EXPANSIONS = 1_000_000  # entity references substituted in one file
MAX_DEPTH = 40  # entities (or parameter entities) read inside one another
MAX_DECLARATIONS = 200_000  # entity declarations one file may make
MAX_NESTING = 100  # elements in one another rendered as such; deeper ones read as text

# (id or "", title, Markdown)
Node = tuple[str, str, str]

_ROOTS = frozenset(
    """set book part article chapter appendix preface reference refentry section sect1
    sect2 sect3 sect4 sect5 glossary bibliography partintro""".split()
)
_DOCBOOK_NS = "http://docbook.org/ns/docbook"
_XI_NS = ("http://www.w3.org/2001/XInclude", "http://www.w3.org/2003/XInclude")
_PREFIXES = {"xi": _XI_NS[0], "xlink": "http://www.w3.org/1999/xlink"}
_PREDEFINED = frozenset({"lt", "gt", "amp", "quot", "apos"})
_HTML = html.entities.html5


def takes(name: str) -> bool:
    """Whether a file name says DocBook (or XML that may be)."""
    return name.lower().endswith(SUFFIXES)


# ----------------------------------------------------------------------------- prolog
_PROLOG = re.compile(r"\A\ufeff?(?:\s+|<\?.*?\?>|<!--.*?-->)*", re.S)
_XML_DECL = re.compile(r"\A\ufeff?\s*<\?xml\b.*?\?>", re.S)
_START_TAG = re.compile(r"<([A-Za-z_][\w.:-]*)([^<>]*)>")
_DOCTYPE_NAME = re.compile(r"<!DOCTYPE\s+([\w.:-]+)", re.I)


@dataclass
class _Doctype:
    start: int  # where `<!DOCTYPE` starts
    end: int  # after its closing `>`
    subset: str  # the internal subset, "" without one
    external: str  # the text between the name and the subset (PUBLIC / SYSTEM ids)


def _skip_section(text: str, i: int) -> int:
    """The end of the conditional section `<![ ... ]]>` opening at `i` (nested ones in it)."""
    depth = 0
    n = len(text)
    while i < n:
        if text.startswith("<![", i):
            depth += 1
            i += 3
        elif text.startswith("]]>", i):
            depth -= 1
            i += 3
            if depth == 0:
                return i
        else:
            i += 1
    return n


def _doctype(text: str) -> _Doctype | None:
    """The DOCTYPE in the file's prolog, if there is one."""
    pos = _PROLOG.match(text)
    start = pos.end() if pos is not None else 0
    if text[start : start + 9].upper() != "<!DOCTYPE":
        return None
    i = start + 9
    n = len(text)
    while i < n and text[i] not in "[>":
        if text[i] in "\"'":
            close = text.find(text[i], i + 1)
            if close < 0:
                return None
            i = close
        i += 1
    external = text[start + 9 : i]
    if i >= n:
        return None
    if text[i] == ">":
        return _Doctype(start, i + 1, "", external)
    sub = i + 1
    i = sub
    while i < n:  # the subset ends at the first `]` outside comments and sections
        if text.startswith("<!--", i):
            close = text.find("-->", i + 4)
            i = n if close < 0 else close + 3
        elif text.startswith("<![", i):
            i = _skip_section(text, i)
        elif text[i] in "\"'" and text.rfind("<!", sub, i) > text.rfind(">", sub, i):
            close = text.find(text[i], i + 1)  # a quoted string inside a declaration
            i = n if close < 0 else close + 1
        elif text[i] == "]":
            break
        else:
            i += 1
    close = text.find(">", i)
    if i >= n or close < 0:
        return None
    return _Doctype(start, close + 1, text[sub:i], external)


def is_docbook(text: str) -> bool:
    """Whether an XML text is DocBook: a DOCTYPE that names DocBook (or a DocBook root), the
    DocBook 5 namespace on the root, or a root element (after the prolog and comments) that
    is one of DocBook's; a PostgreSQL chapter file (no prolog, a `<chapter>` root) is."""
    pos = _PROLOG.match(text)
    start = pos.end() if pos is not None else 0
    if text[start : start + 9].upper() == "<!DOCTYPE":
        head = text[start : start + 1000]
        decl = head.split("[", 1)[0].split(">", 1)[0]
        if "docbook" in decl.lower():
            return True
        name = _DOCTYPE_NAME.match(head)
        return name is not None and name.group(1).split(":")[-1] in _ROOTS
    tag = _START_TAG.match(text, start)
    if tag is None:
        return False
    if _DOCBOOK_NS in tag.group(2):
        return True
    return tag.group(1).split(":")[-1] in _ROOTS


# ----------------------------------------------------------------------------- entities
_ENTITY_DECL = re.compile(
    r"""<!ENTITY\s+(%\s+)?([^\s"'>%;]+)\s+(?:"([^"]*)"|'([^']*)'|"""
    r"""(?:SYSTEM|PUBLIC\s+(?:"[^"]*"|'[^']*'))\s*(?:"([^"]*)"|'([^']*)'))\s*"""
    r"""(NDATA\s+[^\s>]+\s*)?>""",
    re.I,
)
_OTHER_DECL = re.compile(r"""<!(?:[^>"'\[]|"[^"]*"|'[^']*')*>""")
_PE_REF = re.compile(r"%([^\s;%]+);")
_SECTION_KEY = re.compile(r"<!\[\s*(%[^\s;%]+;|[A-Za-z]+)\s*\[")
_REF = re.compile(
    r"<!\[CDATA\[.*?\]\]>|<!--.*?-->|&(?:#(?:x[0-9A-Fa-f]+|[0-9]+);|(?P<name>[A-Za-z_:][\w.:-]*);)?",
    re.S,
)


@dataclass
class _Entity:
    value: str | None  # an internal entity's text
    path: str | None  # an external entity's file, among the texts


class _TooBig(Exception):
    """An expansion past the limits: the file gives nothing."""


def _find(
    target: str, folder: str, texts: dict[str, str], bases: tuple[str, ...] = ()
) -> str | None:
    """The file of `texts` a system identifier or href means: relative to `folder`, then to
    `bases`, then to the root; None for a URL, an absolute path or one leaving the source."""
    target = target.strip()
    if not target or target.startswith(("#", "file:")):
        return None
    return asciidoc.find_included(target, folder, texts, bases=bases)


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _Assembly:
    """One file's text with its DOCTYPE's entities declared and expanded."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts
        self.general: dict[str, _Entity] = {}
        self.params: dict[str, _Entity] = {}
        self.read: list[str] = []  # the files its entities read, in order
        self.memo: dict[str, str] = {}
        self.expansions = 0
        self.produced = 0
        self.declarations = 0

    def run(self, path: str) -> str:
        """The file's text, DOCTYPE gone and entities expanded (raises _TooBig)."""
        body = self.strip(self.texts[path], asciidoc.folder_of(path))
        return self.expand(body, 0, frozenset({"\0" + path}))

    def strip(self, text: str, folder: str) -> str:
        """A text without its XML declaration and DOCTYPE, that DOCTYPE's subset declared."""
        dt = _doctype(text)
        if dt is not None:
            self.declare(dt.subset, folder, 0, frozenset())
            text = text[: dt.start] + text[dt.end :]
        return _XML_DECL.sub("", text, count=1)

    def note(self, path: str) -> None:
        if path not in self.read:
            self.read.append(path)

    # -- declarations
    def declare(self, text: str, folder: str, depth: int, stack: frozenset[str]) -> None:
        """Read a run of markup declarations (a subset, a declaration file)."""
        i = 0
        n = len(text)
        while i < n:
            c = text[i]
            if c.isspace():
                i += 1
            elif text.startswith("<!--", i):
                close = text.find("-->", i + 4)
                i = n if close < 0 else close + 3
            elif text.startswith("<?", i):
                close = text.find("?>", i + 2)
                i = n if close < 0 else close + 2
            elif c == "%":
                ref = _PE_REF.match(text, i)
                if ref is None:
                    i += 1
                    continue
                self.parameter(ref.group(1), depth, stack)
                i = ref.end()
            elif text.startswith("<![", i):
                end = _skip_section(text, i)
                key = _SECTION_KEY.match(text, i)
                if key is not None and self.keyword(key.group(1)) == "INCLUDE":
                    inner = text[key.end() : max(key.end(), end - 3)]
                    self.declare(inner, folder, depth + 1, stack)
                i = end
            elif (m := _ENTITY_DECL.match(text, i)) is not None:
                self.define(m, folder)
                i = m.end()
            elif (m := _OTHER_DECL.match(text, i)) is not None:
                i = m.end()
            else:
                i += 1

    def keyword(self, key: str) -> str:
        """A conditional section's keyword, a parameter entity's value when it is one."""
        if key.startswith("%"):
            ent = self.params.get(key[1:-1])
            key = ent.value if ent is not None and ent.value is not None else "IGNORE"
        return key.strip().upper()

    def define(self, m: re.Match[str], folder: str) -> None:
        self.declarations += 1
        if self.declarations > MAX_DECLARATIONS or m.group(7):  # too many; unparsed data
            return
        table = self.params if m.group(1) else self.general
        name = m.group(2)
        if name in table:  # the first declaration wins
            return
        value = m.group(3) if m.group(3) is not None else m.group(4)
        if value is not None:
            table[name] = _Entity(value, None)
            return
        system = m.group(5) if m.group(5) is not None else m.group(6) or ""
        path = _find(system, folder, self.texts)
        table[name] = _Entity(None, path)

    def parameter(self, name: str, depth: int, stack: frozenset[str]) -> None:
        """A `%name;` in declarations: its file's (or value's) declarations read in turn."""
        ent = self.params.get(name)
        if ent is None or name in stack or depth >= MAX_DEPTH:
            return
        if ent.path is not None:
            self.note(ent.path)
            text = _XML_DECL.sub("", self.texts[ent.path], count=1)
            self.declare(text, asciidoc.folder_of(ent.path), depth + 1, stack | {name})
        elif ent.value is not None:
            self.declare(ent.value, "", depth + 1, stack | {name})

    # -- references
    def expand(self, text: str, depth: int, stack: frozenset[str]) -> str:
        """`&name;` references expanded, outside comments and CDATA sections."""
        out: list[str] = []
        size = 0
        pos = 0
        for m in _REF.finditer(text):
            piece = self.reference(m, depth, stack)
            if piece is None:
                continue
            out.append(text[pos : m.start()])
            out.append(piece)
            size += m.start() - pos + len(piece)
            self.produced += m.start() - pos + len(piece)
            if size > MAX_EXPANDED or self.produced > MAX_PRODUCED:
                raise _TooBig
            pos = m.end()
        out.append(text[pos:])
        return "".join(out)

    def reference(self, m: re.Match[str], depth: int, stack: frozenset[str]) -> str | None:
        """What one match stands for; None to keep it as it is."""
        token = m.group(0)
        name = m.group("name")
        if token == "&":
            return "&amp;"  # a bare `&` of an SGML-ish source
        if name is None or name in _PREDEFINED:
            return None
        ent = self.general.get(name)
        if ent is not None and (ent.value is not None or ent.path is not None):
            looped = name in stack or (ent.path is not None and "\0" + ent.path in stack)
            if looped or depth >= MAX_DEPTH:  # a cycle, or too deep: left as its name
                return "&amp;" + name + ";"
            return self.entity(name, ent, depth, stack)
        char = _HTML.get(name + ";")
        if char is not None:
            return _xml_escape(char)
        return "&amp;" + name + ";"

    def entity(self, name: str, ent: _Entity, depth: int, stack: frozenset[str]) -> str:
        self.expansions += 1
        if self.expansions > MAX_EXPANSIONS:
            raise _TooBig
        done = self.memo.get(name)
        if done is not None:
            self.produced += len(done)
            return done
        if ent.path is not None:
            self.note(ent.path)
            text = self.strip(self.texts[ent.path], asciidoc.folder_of(ent.path))
        else:
            text = ent.value or ""
        # the entity's name, and its file's path, are not expanded inside it again
        inner = {name, "\0" + ent.path} if ent.path is not None else {name}
        done = self.expand(text, depth + 1, stack | inner)
        self.memo[name] = done
        return done


# ----------------------------------------------------------------------------- XML tree
def _bind_prefixes(text: str) -> str:
    """The `xi:` and `xlink:` prefixes declared on the root when used but not declared there
    (a fragment written for a book that declares them)."""
    pos = _PROLOG.match(text)
    tag = _START_TAG.search(text, pos.end() if pos is not None else 0)
    if tag is None:
        return text
    extra = "".join(
        f' xmlns:{p}="{ns}"'
        for p, ns in _PREFIXES.items()
        if f"{p}:" in text and f"xmlns:{p}" not in tag.group(2)
    )
    if not extra:
        return text
    at = tag.start() + 1 + len(tag.group(1))
    return text[:at] + extra + text[at:]


def _local(root: ET.Element) -> bool:
    """Namespaces dropped from names in place (XInclude's elements `xi:include` /
    `xi:fallback`); whether the tree has an XInclude."""
    has = False
    for el in root.iter():
        tag = el.tag
        if not isinstance(tag, str):
            continue
        if tag.startswith("{"):
            ns, _, name = tag[1:].partition("}")
            if ns in _XI_NS:
                name = "xi:" + name
                has = True
            el.tag = name
        if any(k.startswith("{") for k in el.attrib):
            for key in [k for k in el.attrib if k.startswith("{")]:
                value = el.attrib.pop(key)
                el.attrib.setdefault(key.rsplit("}", 1)[1], value)
    return has


def _xpointer(xp: str) -> tuple[str | None, bool]:
    """The id an xpointer names (None: the whole root) and whether it takes the children."""
    xp = xp.strip()
    children = bool(re.search(r"/(?:\*|node\(\))\)?$", xp))
    for pattern in (
        r"""\bid\(\s*['"]([^'"]+)['"]\s*\)""",
        r"""@(?:xml:)?id\s*=\s*['"]([^'"]+)['"]""",
        r"""^element\(([^/)]+)""",
    ):
        m = re.search(pattern, xp)
        if m is not None:
            return m.group(1), children
    if re.fullmatch(r"[A-Za-z_][\w.-]*", xp):
        return xp, False
    return None, children


def _replace(parent: ET.Element, old: ET.Element, nodes: list[ET.Element | str]) -> None:
    """`old` replaced in `parent` by elements and text, its tail kept after them."""
    at = list(parent).index(old)
    parent.remove(old)
    prev = parent[at - 1] if at > 0 else None

    def text(s: str) -> None:
        if prev is None:
            parent.text = (parent.text or "") + s
        else:
            prev.tail = (prev.tail or "") + s

    for node in nodes:
        if isinstance(node, str):
            text(node)
        else:
            parent.insert(at, node)
            at += 1
            prev = node
    text(old.tail or "")


def _ids(root: ET.Element) -> dict[str, ET.Element]:
    ids: dict[str, ET.Element] = {}
    for el in root.iter():
        key = el.get("id")
        if key and key not in ids:
            ids[key] = el
    return ids


class _Reader:
    """The source's files assembled into trees, each once, with what they read."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts
        self.trees: dict[str, ET.Element | None] = {}
        self.id_maps: dict[str, dict[str, ET.Element]] = {}
        self.building: set[str] = set()
        self.entity_read: set[str] = set()  # files read by another's entities
        self.whole: set[str] = set()  # files XIncluded whole (or as text)
        self.pieces: set[str] = set()  # files XIncluded by id
        self.failed: set[str] = set()  # files that did not parse or expanded too far

    def tree(self, path: str) -> ET.Element | None:
        if path in self.trees:
            return self.trees[path]
        if path in self.building:  # it includes itself back
            return None
        self.building.add(path)
        try:
            root = self.build(path)
        finally:
            self.building.discard(path)
        self.trees[path] = root
        if root is None:
            self.failed.add(path)
        return root

    def ids(self, path: str, root: ET.Element) -> dict[str, ET.Element]:
        if path not in self.id_maps:
            self.id_maps[path] = _ids(root)
        return self.id_maps[path]

    def build(self, path: str) -> ET.Element | None:
        asm = _Assembly(self.texts)
        try:
            text = asm.run(path)
        except _TooBig:
            return None
        read = [p for p in asm.read if p != path]
        self.entity_read.update(read)
        try:
            root = ET.fromstring(_bind_prefixes(text))
        except (ET.ParseError, ValueError):
            return None
        if _local(root):
            bases = tuple(dict.fromkeys(asciidoc.folder_of(p) for p in read))
            self.xinclude(root, path, bases)
        return root

    def xinclude(self, root: ET.Element, path: str, bases: tuple[str, ...]) -> None:
        parents = {c: p for p in root.iter() for c in p}
        for inc in [e for e in root.iter("xi:include")]:
            parent = parents.get(inc)
            if parent is not None:
                _replace(parent, inc, self.included(inc, path, root, bases))

    def included(
        self, inc: ET.Element, path: str, root: ET.Element, bases: tuple[str, ...]
    ) -> list[ET.Element | str]:
        """What one `xi:include` stands for."""
        href = (inc.get("href") or "").strip()
        target = _find(href, asciidoc.folder_of(path), self.texts, bases) if href else path
        if target is None:
            return _fallback(inc)
        if inc.get("parse", "xml").strip() == "text":
            self.whole.add(target)
            return [self.texts[target]]
        src = root if target == path else self.tree(target)
        if src is None:
            return _fallback(inc)
        key, children = _xpointer(inc.get("xpointer") or "")
        if key is not None:
            found = (_ids(root) if target == path else self.ids(target, src)).get(key)
            if found is None:
                return _fallback(inc)
            if target != path:
                self.pieces.add(target)
        else:
            found = src
            if target != path:
                self.whole.add(target)
        picked = list(found) if children else [found]
        out: list[ET.Element | str] = []
        for el in picked:
            dup = copy.deepcopy(el)
            dup.tail = None if not children else dup.tail
            out.append(dup)
        return out


def _fallback(inc: ET.Element) -> list[ET.Element | str]:
    for fb in inc:
        if fb.tag == "xi:fallback":
            return [fb.text or "", *(copy.deepcopy(c) for c in fb)]
    return []


_XINCLUDE_TAG = re.compile(r"<(?:[\w.-]+:)?include\b([^<>]*)>")
_HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _declared(texts: dict[str, str]) -> set[str]:
    """The files some file's DOCTYPE declares as external entities (its declaration files
    too) or XIncludes whole: read as parts unless no main file ends up reading them."""
    out: set[str] = set()
    for path, text in texts.items():
        if "<!DOCTYPE" in text[:20000] or "<!doctype" in text[:20000]:
            dt = _doctype(text)
            if dt is not None and dt.subset:
                asm = _Assembly(texts)
                asm.declare(dt.subset, asciidoc.folder_of(path), 0, frozenset())
                out.update(asm.read)
                out.update(e.path for e in (*asm.general.values(), *asm.params.values()) if e.path)
        if "include" in text:
            for m in _XINCLUDE_TAG.finditer(text):
                attrs = m.group(1)
                href = _HREF.search(attrs)
                if href is None or "xpointer" in attrs:
                    continue
                got = _find(href.group(1) or href.group(2) or "", asciidoc.folder_of(path), texts)
                if got is not None:
                    out.add(got)
    out.discard("")
    return out


# ----------------------------------------------------------------------------- batch
def batch(texts: dict[str, str]) -> tuple[dict[str, list[Node]], set[str]]:
    """Of a source's DocBook files ({path relative to its root: text}), the documents of
    each main file ({main path: [(id or "", title, Markdown), ...] in document order}) and
    the paths another file includes (read there, not alone). A file that is not DocBook, or
    does not parse, or gives no document, is not returned. Entity and XInclude targets
    are read from `texts` only (any file there, `.ent` ones too)."""
    names = {p for p, t in texts.items() if takes(p) and is_docbook(t)}
    declared = _declared(texts)
    reader = _Reader(texts)
    out: dict[str, list[Node]] = {}
    # the files nothing declares first; then a declared one that none of them read
    order = sorted(names - declared) + sorted(names & declared)
    for p in order:
        if p in reader.entity_read or p in reader.whole:
            continue
        root = reader.tree(p)
        if root is None:
            continue
        docs = _Render(root).documents()
        if docs:
            out[p] = docs
    parts = reader.entity_read | reader.whole
    for p in list(out):
        if p in parts:
            del out[p]
    included = parts | (reader.pieces - set(out))
    return out, included


def documents(text: str, path: str = "doc.xml") -> list[Node]:
    """The documents of one DocBook text on its own (its includes not there)."""
    return batch({path: text})[0].get(path, [])


# ----------------------------------------------------------------------------- Markdown
_TEXT, _FLAT = 0, 1  # Markdown running text; plain text (titles, code)

_DIVISIONS = frozenset({"set", "book", "part", "reference"})
_COMPONENTS = frozenset(
    """chapter appendix preface article glossary bibliography colophon dedication
    acknowledgements""".split()
)
_SECTIONS = (
    frozenset(
        """sect1 sect2 sect3 sect4 sect5 section simplesect refsect1 refsect2 refsect3
    refsection refsynopsisdiv glossdiv bibliodiv qandadiv topic""".split()
    )
    | _COMPONENTS
)
_SPLIT = frozenset({"sect1", "section"})
_GENERATED = frozenset({"toc", "lot", "index", "setindex", "indexdiv"})
_DROPPED = frozenset(
    """indexterm remark comment co coref anchor beginpage areaspec area primary secondary
    tertiary see seealso indexentry refmeta refnamediv title titleabbrev subtitle
    attribution alt revhistory""".split()
)
_CODE_INLINE = frozenset(
    """command option literal filename varname envar function parameter type structname
    structfield constant classname methodname userinput computeroutput systemitem keycap
    sgmltag tag token symbol returnvalue errorname errorcode errortype errortext property
    prompt markup code uri database interfacename exceptionname ooclass ooexception
    oointerface keysym mousebutton msgtext accel shortcut""".split()
)
_ITALIC = frozenset({"emphasis", "firstterm", "citetitle", "foreignphrase", "glossterm"})
_CODE_BLOCKS = frozenset({"programlisting", "screen", "literallayout", "synopsis", "address"})
_ADMONITIONS = frozenset({"note", "tip", "warning", "caution", "important", "danger"})
_TITLED = frozenset(
    """example informalexample sidebar figure informalfigure equation informalequation
    screenshot abstract highlights msgset task tasksummary taskprerequisites taskrelated
    partintro programlistingco screenco mediaobjectco legalnotice""".split()
)
_LISTS = frozenset(
    {"itemizedlist", "orderedlist", "procedure", "substeps", "stepalternatives", "calloutlist"}
)
_BLOCKS = (
    frozenset(
        """para simpara formalpara cmdsynopsis funcsynopsis simplelist variablelist
        glosslist glossentry table informaltable segmentedlist mediaobject blockquote
        epigraph qandaset qandaentry biblioentry bibliomixed bibliolist bridgehead
        refentry""".split()
    )
    | _CODE_BLOCKS
    | _ADMONITIONS
    | _TITLED
    | _LISTS
    | _SECTIONS
)
_BIB_TITLES = frozenset({"title", "subtitle", "titleabbrev"})
_INVISIBLE = re.compile("[\u200b\u00ad\ufeff]")
_SBR = "\x01"  # a synopsis break, kept through whitespace collapsing


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", _INVISIBLE.sub("", text)).strip()


def _fence(text: str, least: int = 1) -> str:
    """The shortest run of backticks (at least `least`) longer than any run in `text`."""
    runs = {len(r) for r in re.findall(r"`+", text)}
    size = least
    while size in runs:
        size += 1
    return "`" * size


def _span(text: str) -> str:
    text = _collapse(text)
    if not text:
        return ""
    fence = _fence(text)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _wrap(text: str, mark: str) -> str:
    """Emphasis markers around text, its outer whitespace outside them."""
    m = re.fullmatch(r"(\s*)(.*?)(\s*)", text, re.S)
    if m is None or not m.group(2):
        return text
    return f"{m.group(1)}{mark}{m.group(2)}{mark}{m.group(3)}"


def _code(text: str, lang: str = "") -> list[str]:
    """Text as a fenced block: dedented, leading and trailing blank lines gone."""
    lines = _INVISIBLE.sub("", text).replace("\r\n", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return []
    body = textwrap.dedent("\n".join(lines))
    fence = _fence(body, 3)
    return [f"{fence}{lang.strip()}\n{body}\n{fence}"]


def _is_paragraph(block: str) -> bool:
    return not re.match(r"(```|[-*>|#] |>|\d+\. |\||\[\^)", block)


def _list(items: list[str]) -> list[str]:
    """List items (each marked) as one block; tight when each is one line."""
    if not items:
        return []
    tight = all("\n" not in item for item in items)
    return [("\n" if tight else "\n\n").join(items)]


def _cell(blocks: list[str]) -> str:
    """A table cell's blocks as one line: code blocks as code spans, `|` escaped."""
    parts: list[str] = []
    for b in blocks:
        fenced = re.fullmatch(r"(`{3,})[^\n]*\n(.*)\n\1", b, re.S)
        parts.append(_span(fenced.group(2)) if fenced else _collapse(b))
    return " ".join(p for p in parts if p).replace("|", "\\|")


def _merge_fences(blocks: list[str]) -> list[str]:
    """Adjacent plain fenced blocks (a synopsis's lines) as one."""
    out: list[str] = []
    for b in blocks:
        if out and out[-1].startswith("```\n") and b.startswith("```\n"):
            if out[-1].endswith("\n```") and b.endswith("\n```"):
                out[-1] = out[-1][: -len("\n```")] + "\n" + b[len("```\n") :]
                continue
        out.append(b)
    return out


def _finish(blocks: list[str]) -> str:
    text = "\n\n".join(b for b in blocks if b)
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


class _Render:
    """One main file's tree as documents."""

    def __init__(self, root: ET.Element) -> None:
        self.root = root
        self.ids = _ids(root)
        self.standalone = root.tag == "refentry"  # a man page file: its title with (vol)
        self.docs: list[Node] = []
        self.notes: list[str] = []  # the footnotes of the document being made
        self.note_ids: dict[str, int] = {}
        self.pending: list[ET.Element] = []  # refentries met inside the document
        self.resolving: set[str] = set()
        self.level = 0

    # -- documents
    def documents(self) -> list[Node]:
        self.walk(self.root)
        return self.docs

    def walk(self, el: ET.Element) -> None:
        tag = el.tag
        if tag == "refentry":
            self.refentry(el)
        elif tag in _DIVISIONS:
            self.division(el)
        elif tag in _COMPONENTS:
            self.component(el)
        elif tag in _SECTIONS or tag in ("partintro", "sect1"):
            self.document(el)

    def division(self, el: ET.Element) -> None:
        """A set, book, part or reference: its intro, then its parts."""
        intro: list[ET.Element] = []
        kids: list[ET.Element] = []
        for c in el:
            if not isinstance(c.tag, str):
                continue
            if c.tag in _DIVISIONS or c.tag in _COMPONENTS or c.tag == "refentry":
                kids.append(c)
            elif c.tag not in _GENERATED and not _is_meta(c.tag):
                intro.append(c)
        self.document(el, intro, text=False)
        for c in kids:
            self.walk(c)

    def component(self, el: ET.Element) -> None:
        """A chapter-like element: split at its sect1s / sections."""
        split = [c for c in el if c.tag in _SPLIT or (el.tag == "article" and c.tag == "appendix")]
        if not split:
            self.document(el)
            return
        chosen = {id(c) for c in split}
        self.document(el, [c for c in el if id(c) not in chosen])
        for s in split:
            self.document(s)

    def document(
        self, el: ET.Element, children: list[ET.Element] | None = None, text: bool = True
    ) -> None:
        title = self.title(el) or _default_title(el)
        self.notes = []
        outer, self.pending = self.pending, []
        kids = list(el) if children is None else children
        body = self.flow(el.text if text else "", kids, 1)
        if body:
            self.add(el.get("id") or "", title, body)
        found, self.pending = self.pending, outer
        for r in found:
            self.refentry(r)

    def add(self, key: str, title: str, body: list[str]) -> None:
        notes = [f"[^{k}]: {n}" for k, n in enumerate(self.notes, 1)]
        self.docs.append((key, title, _finish([f"# {title}", *body, *notes])))
        self.notes = []
        self.note_ids = {}

    def refentry(self, el: ET.Element) -> None:
        title = self.ref_title(el)
        self.notes = []
        outer, self.pending = self.pending, []
        body: list[str] = []
        namediv = _child(el, "refnamediv")
        if namediv is not None:
            names = [self.plain(n) for n in namediv if n.tag in ("refname", "refdescriptor")]
            purpose = _child(namediv, "refpurpose")
            line = ", ".join(n for n in names if n)
            if purpose is not None and self.plain(purpose):
                line = f"{line} — {self.plain(purpose)}" if line else self.plain(purpose)
            if line:
                body.append(line)
        body += self.flow("", [c for c in el if c.tag != "refnamediv"], 1)
        self.add(el.get("id") or "", title, body)
        found, self.pending = self.pending, outer
        for r in found:
            self.refentry(r)

    def ref_title(self, el: ET.Element) -> str:
        meta = _child(el, "refmeta")
        title = ""
        vol = ""
        if meta is not None:
            t = _child(meta, "refentrytitle")
            v = _child(meta, "manvolnum")
            title = self.plain(t) if t is not None else ""
            vol = self.plain(v) if v is not None else ""
        if not title:
            namediv = _child(el, "refnamediv")
            name = _child(namediv, "refname") if namediv is not None else None
            title = self.plain(name) if name is not None else ""
        if title and vol and self.standalone:
            return f"{title}({vol})"
        return title or el.get("id") or "Reference"

    def title(self, el: ET.Element) -> str:
        t = _child(el, "title")
        if t is None:
            for c in el:
                if isinstance(c.tag, str) and _is_meta(c.tag) and c.tag != "title":
                    t = _child(c, "title")
                    if t is not None:
                        break
        return self.plain(t) if t is not None else ""

    def plain(self, el: ET.Element) -> str:
        return _collapse(self.inline(el, _FLAT))

    # -- blocks
    def flow(self, text: str | None, children: list[ET.Element], depth: int) -> list[str]:
        """Mixed content as blocks: text and inline elements paragraphs, blocks theirs."""
        out: list[str] = []
        para: list[str] = [text or ""]

        def flush() -> None:
            s = _collapse("".join(para))
            if s:
                out.append(s)
            para.clear()

        self.level += 1
        try:
            for c in children:
                tag = c.tag
                if not isinstance(tag, str) or _is_meta(tag) or tag in _GENERATED:
                    pass
                elif tag == "refentry":
                    flush()
                    self.pending.append(c)
                elif tag in _BLOCKS and not (tag == "simplelist" and c.get("type") == "inline"):
                    flush()
                    out.extend(self.block(c, depth))
                else:
                    para.append(self.span(c, _TEXT))
                para.append(c.tail or "")
            flush()
        finally:
            self.level -= 1
        return out

    def block(self, c: ET.Element, depth: int) -> list[str]:
        tag = c.tag
        if self.level > MAX_NESTING:  # too deep to render as such: its text
            s = _collapse("".join(c.itertext()))
            return [s] if s else []
        if tag in _SECTIONS:
            return self.section(c, depth)
        if tag in ("para", "simpara"):
            return self.flow(c.text, list(c), depth)
        if tag == "formalpara":
            blocks = self.flow(c.text, list(c), depth)
            title = self.title(c)
            if title:
                lead = f"**{title}{'' if title[-1] in '.:?!' else '.'}**"
                if blocks and _is_paragraph(blocks[0]):
                    blocks[0] = f"{lead} {blocks[0]}"
                else:
                    blocks.insert(0, lead)
            return blocks
        if tag in _CODE_BLOCKS:
            return _code(self.inline(c, _FLAT), c.get("language") or "")
        if tag == "cmdsynopsis":
            return _code(self.cmdsynopsis(c))
        if tag == "funcsynopsis":
            return _code(self.funcsynopsis(c))
        if tag == "itemizedlist":
            return self.bullets(c, depth)
        if tag in _LISTS:
            return self.ordered(c, depth)
        if tag == "simplelist":
            items = [list_item("- ", [s]) for m in c if m.tag == "member" if (s := self.text(m))]
            return _list(items)
        if tag in ("variablelist", "glosslist"):
            return self.definitions(c, depth)
        if tag == "glossentry":
            return _list([self.glossentry(c, depth)])
        if tag in _ADMONITIONS:
            return self.admonition(c, depth)
        if tag in ("table", "informaltable"):
            return self.table(c, depth)
        if tag == "segmentedlist":
            return self.segmented(c)
        if tag == "mediaobject":
            return self.media(c, depth)
        if tag in ("blockquote", "epigraph"):
            return self.quote(c, depth)
        if tag == "qandaset":
            return self.bold_title(c) + self.flow(c.text, list(c), depth)
        if tag == "qandaentry":
            return self.qanda(c, depth)
        if tag in ("biblioentry", "bibliomixed"):
            return self.biblio(c)
        if tag == "bridgehead":
            t = self.plain(c)
            return [f"{'#' * min(depth + 1, 6)} {t}"] if t else []
        # example, sidebar, figure and the other titled containers
        return self.bold_title(c) + self.flow(c.text, list(c), depth)

    def section(self, c: ET.Element, depth: int) -> list[str]:
        level = depth + 1
        title = self.title(c)
        if not title and c.tag == "refsynopsisdiv":
            title = "Synopsis"
        head = [f"{'#' * min(level, 6)} {title}"] if title else []
        body = self.flow(c.text, list(c), level)
        if c.tag == "refsynopsisdiv":
            body = _merge_fences(body)
        return head + body if body else []

    def bold_title(self, c: ET.Element) -> list[str]:
        title = self.title(c)
        return [f"**{title}**"] if title else []

    def text(self, el: ET.Element) -> str:
        """An element's content as one line of Markdown (a list member, a cell)."""
        return _collapse(" ".join(self.flow(el.text, list(el), 6)))

    def items(self, c: ET.Element, depth: int, tags: tuple[str, ...]) -> list[list[str]]:
        return [self.flow(li.text, list(li), depth) for li in c if li.tag in tags]

    def bullets(self, c: ET.Element, depth: int) -> list[str]:
        items = [list_item("- ", b) for b in self.items(c, depth, ("listitem",)) if b]
        return self.bold_title(c) + _list(items)

    def ordered(self, c: ET.Element, depth: int) -> list[str]:
        tags = ("listitem", "step", "callout")
        try:
            n = int(c.get("startingnumber") or 1)
        except ValueError:
            n = 1
        items: list[str] = []
        for li in c:
            if li.tag not in tags:
                continue
            blocks = self.bold_title(li) + self.flow(li.text, list(li), depth)
            if blocks:
                items.append(list_item(f"{n}. ", blocks))
            n += 1
        return self.bold_title(c) + _list(items)

    def definitions(self, c: ET.Element, depth: int) -> list[str]:
        """A variablelist: each entry `- term, term: description` (Texinfo's @table)."""
        items: list[str] = []
        for e in c:
            if e.tag == "varlistentry":
                terms = [_collapse(self.span_content(t)) for t in e if t.tag == "term"]
                li = _child(e, "listitem")
                desc = self.flow(li.text, list(li), depth) if li is not None else []
                item = _definition(", ".join(t for t in terms if t), desc)
            elif e.tag == "glossentry":
                item = self.glossentry(e, depth)
            else:
                continue
            if item:
                items.append(item)
        blocks = self.bold_title(c) + _list(items)
        return blocks

    def glossentry(self, e: ET.Element, depth: int) -> str:
        term = _child(e, "glossterm")
        shown = _collapse(self.span_content(term)) if term is not None else ""
        acronym = _child(e, "acronym")
        acronym = acronym if acronym is not None else _child(e, "abbrev")
        if acronym is not None and self.plain(acronym):
            shown += f" ({self.plain(acronym)})"
        desc: list[str] = []
        for part in e:
            if part.tag == "glossdef":
                kids = [k for k in part if k.tag != "glossseealso"]
                desc += self.flow(part.text, kids, depth)
                also = [self.gloss_ref(k) for k in part if k.tag == "glossseealso"]
                if also:
                    desc.append("See also " + ", ".join(also) + ".")
            elif part.tag == "glosssee":
                desc.append(f"See {self.gloss_ref(part)}.")
        return _definition(shown, desc)

    def gloss_ref(self, el: ET.Element) -> str:
        other = el.get("otherterm")
        return self.plain(el) or (self.target_title(other) if other else "")

    def admonition(self, c: ET.Element, depth: int) -> list[str]:
        lead = c.tag.capitalize() + ":"
        title = self.title(c)
        if title and title.lower() != c.tag:
            lead += f" **{title}**"
        blocks = self.flow(c.text, list(c), depth)
        if blocks and _is_paragraph(blocks[0]):
            blocks[0] = f"{lead} {blocks[0]}"
        else:
            blocks.insert(0, lead)
        return blocks

    def table(self, c: ET.Element, depth: int) -> list[str]:
        out = self.bold_title(c)
        groups = [g for g in c if g.tag == "tgroup"] or [c]
        for g in groups:
            head: list[ET.Element] = []
            rows: list[ET.Element] = []
            for part in g:
                if part.tag == "thead":
                    head += [r for r in part if r.tag in ("row", "tr")]
                elif part.tag in ("tbody", "tfoot"):
                    rows += [r for r in part if r.tag in ("row", "tr")]
                elif part.tag in ("row", "tr"):
                    rows.append(part)
            cells = [
                [
                    _cell(self.flow(e.text, list(e), depth))
                    for e in r
                    if e.tag in ("entry", "entrytbl", "td", "th")
                ]
                for r in head + rows
            ]
            lines = markdown_table(cells)
            if lines:
                out.append("\n".join(lines))
        return out

    def segmented(self, c: ET.Element) -> list[str]:
        head = [self.plain(t).replace("|", "\\|") for t in c if t.tag == "segtitle"]
        rows = [
            [self.text(s).replace("|", "\\|") for s in item if s.tag == "seg"]
            for item in c
            if item.tag == "seglistitem"
        ]
        lines = markdown_table([head, *rows] if head else rows)
        return self.bold_title(c) + (["\n".join(lines)] if lines else [])

    def media(self, c: ET.Element, depth: int) -> list[str]:
        """A media object: its alt text and caption only."""
        out: list[str] = []
        alt = _child(c, "alt")
        if alt is not None and self.plain(alt):
            out.append(self.plain(alt))
        for part in c:
            if part.tag == "textobject":
                out += self.flow(part.text, list(part), depth)
            elif part.tag == "caption":
                out += self.flow(part.text, list(part), depth)
        return out

    def quote(self, c: ET.Element, depth: int) -> list[str]:
        blocks = self.bold_title(c) + self.flow(c.text, list(c), depth)
        who = _child(c, "attribution")
        if who is not None and self.plain(who):
            blocks.append(f"— {self.plain(who)}")
        if not blocks:
            return []
        text = "\n\n".join(blocks)
        return ["\n".join(f"> {line}" if line else ">" for line in text.split("\n"))]

    def qanda(self, c: ET.Element, depth: int) -> list[str]:
        out: list[str] = []
        for part in c:
            if part.tag == "question":
                q = self.text(part)
                if q:
                    out.append(f"**{q}**")
            elif part.tag == "answer":
                out += self.flow(part.text, list(part), depth)
        return out

    def biblio(self, c: ET.Element) -> list[str]:
        if c.tag == "bibliomixed":
            line = _collapse(self.inline(c, _TEXT))
        else:
            line = ", ".join(self.bib_parts(c))
        return [f"- {line}"] if line else []

    def bib_parts(self, c: ET.Element) -> list[str]:
        """A biblioentry's parts, those of its groups (authors, publisher) one by one."""
        out: list[str] = []
        for p in c:
            if not isinstance(p.tag, str) or p.tag in _DROPPED and p.tag not in _BIB_TITLES:
                continue
            if p.tag in ("authorgroup", "biblioset", "publisher", "confgroup"):
                out += self.bib_parts(p)
            elif s := self.plain(p):
                out.append(s)
        return out

    # -- synopses
    def cmdsynopsis(self, c: ET.Element) -> str:
        parts = [c.text or ""]
        for k in c:
            if k.tag == "sbr":
                parts.append(_SBR)
            elif k.tag in ("arg", "group"):
                parts.append(" " + self.arg(k) + " ")
            elif k.tag == "synopfragment":
                parts.append(_SBR + self.arg(k, "plain"))
            elif isinstance(k.tag, str) and k.tag not in _DROPPED:
                parts.append(" " + self.inline(k, _FLAT) + " ")
            parts.append(k.tail or "")
        return _synopsis_lines("".join(parts))

    def arg(self, a: ET.Element, choice: str | None = None) -> str:
        """An `arg` or `group` of a cmdsynopsis as the man page prints it."""
        if a.tag == "group":
            members = [
                self.arg(m, "plain") if m.tag in ("arg", "group") else self.plain(m)
                for m in a
                if isinstance(m.tag, str) and m.tag not in _DROPPED and m.tag != "sbr"
            ]
            inner = " | ".join(m for m in members if m)
        else:
            parts = [a.text or ""]
            for k in a:
                if k.tag in ("arg", "group"):
                    parts.append(self.arg(k))
                elif k.tag == "sbr":
                    parts.append(_SBR)
                elif isinstance(k.tag, str) and k.tag not in _DROPPED:
                    parts.append(self.inline(k, _FLAT))
                parts.append(k.tail or "")
            inner = re.sub(r"[ \t\r\n]+", " ", "".join(parts)).strip()
        rep = "..." if a.get("rep") == "repeat" else ""
        choice = choice or a.get("choice") or "opt"
        if choice == "plain":
            return inner + rep
        if choice == "req":
            return "{" + inner + rep + "}"
        return "[" + inner + rep + "]"

    def funcsynopsis(self, c: ET.Element) -> str:
        lines: list[str] = []
        for k in c:
            if k.tag == "funcsynopsisinfo":
                lines.append(textwrap.dedent(self.inline(k, _FLAT)).strip("\n"))
            elif k.tag == "funcprototype":
                fd = _child(k, "funcdef")
                head = self.plain(fd) if fd is not None else ""
                params: list[str] = []
                for p in k:
                    if p.tag == "void":
                        params.append("void")
                    elif p.tag == "varargs":
                        params.append("...")
                    elif p.tag == "paramdef":
                        params.append(self.plain(p))
                lines.append(f"{head}({', '.join(params)});")
        return "\n".join(lines)

    # -- inline
    def inline(self, el: ET.Element, mode: int) -> str:
        """An element's content: its text, its children's Markdown (or text) and tails."""
        if self.level > MAX_NESTING:
            return "".join(el.itertext())
        self.level += 1
        try:
            parts = [el.text or ""]
            for c in el:
                parts.append(self.span(c, mode))
                parts.append(c.tail or "")
        finally:
            self.level -= 1
        return "".join(parts)

    def span_content(self, el: ET.Element) -> str:
        return self.inline(el, _TEXT)

    def span(self, c: ET.Element, mode: int) -> str:
        """One inline element as Markdown (`_TEXT`) or plain text (`_FLAT`)."""
        tag = c.tag
        if not isinstance(tag, str) or tag in _DROPPED or _is_meta(tag):
            return ""
        text = mode == _TEXT
        if tag == "footnote":
            return self.footnote(c) if text else ""
        if tag == "footnoteref":
            n = self.note_ids.get(c.get("linkend") or "")
            return f"[^{n}]" if text and n else ""
        if tag == "xref":
            end = c.get("endterm")
            if end and end in self.ids:
                return self.plain(self.ids[end])
            return self.target_title(c.get("linkend") or "")
        if tag in ("ulink", "link", "olink"):
            return self.link(c, mode)
        if tag == "citerefentry":
            t = _child(c, "refentrytitle")
            v = _child(c, "manvolnum")
            name = self.plain(t) if t is not None else ""
            if v is not None and self.plain(v):
                name += f"({self.plain(v)})"
            return _span(name) if text else name
        if tag in ("void", "varargs") and not text:
            return "void" if tag == "void" else "..."
        if tag in ("arg", "group"):
            return self.arg(c)
        if tag == "sbr":
            return " "
        if tag in _CODE_INLINE:
            inner = self.inline(c, _FLAT)
            return _span(inner) if text else inner
        inner = self.inline(c, mode)
        if tag == "optional":
            return f"[{inner}]"
        if tag == "funcparams":
            return f"({inner})"
        if tag == "simplelist":
            return ", ".join(s for m in c if m.tag == "member" if (s := self.text(m)))
        if tag == "keycombo":
            return "+".join(s for k in c if (s := self.span(k, mode)))
        if tag == "menuchoice":
            return " → ".join(s for k in c if (s := self.span(k, mode)))
        if tag == "quote":
            return f"“{inner}”"
        if tag == "inlinemediaobject":
            return " ".join(self.media(c, 6))
        if not text:
            return inner
        if tag == "replaceable" or tag in _ITALIC and not _is_bold(c):
            return _wrap(inner, "*")
        if tag in ("emphasis", "strong"):
            return _wrap(inner, "**")
        if tag in _BLOCKS:  # a block where only text may stand (a title, a term)
            return " " + " ".join(self.flow(c.text, list(c), 6)) + " "
        return inner

    def link(self, c: ET.Element, mode: int) -> str:
        inner = _collapse(self.inline(c, mode))
        url = c.get("url") or c.get("href") or ""
        if url and not url.startswith("#"):
            if mode != _TEXT:
                return inner or url
            return f"[{inner}]({url})" if inner else url
        if inner:
            return inner
        end = c.get("endterm")
        if end and end in self.ids:
            return self.plain(self.ids[end])
        return self.target_title(c.get("linkend") or url.lstrip("#"))

    def footnote(self, c: ET.Element) -> str:
        self.notes.append(self.text(c))
        n = len(self.notes)
        if c.get("id"):
            self.note_ids[c.get("id") or ""] = n
        return f"[^{n}]"

    def target_title(self, key: str) -> str:
        """What a cross reference to `key` shows: the element's xreflabel, else its title
        (a refentry's, a varlistentry's first term); an unresolved one its id."""
        el = self.ids.get(key)
        if el is None or key in self.resolving:
            return key
        self.resolving.add(key)
        try:
            label = el.get("xreflabel")
            if label:
                return _collapse(label)
            if el.tag == "refentry":
                return self.ref_title(el)
            if el.tag == "varlistentry":
                term = _child(el, "term")
                return (self.plain(term) if term is not None else "") or key
            if el.tag == "glossentry":
                term = _child(el, "glossterm")
                return (self.plain(term) if term is not None else "") or key
            return self.title(el) or key
        finally:
            self.resolving.discard(key)


def _child(el: ET.Element, tag: str) -> ET.Element | None:
    for c in el:
        if c.tag == tag:
            return c
    return None


def _is_meta(tag: str) -> bool:
    """Titles, meta data and other content that is no text of its element."""
    return (
        tag in ("title", "titleabbrev", "subtitle", "refmeta", "info", "attribution")
        or tag.endswith("info")
        and tag != "funcsynopsisinfo"
    )


def _is_bold(el: ET.Element) -> bool:
    return el.tag == "emphasis" and (el.get("role") or "").lower() in ("bold", "strong")


def _default_title(el: ET.Element) -> str:
    return el.get("id") or el.tag.capitalize()


def _definition(shown: str, desc: list[str]) -> str:
    """One entry of a definition list, as Texinfo's @table items are written."""
    if not shown:
        return list_item("- ", desc) if desc else ""
    desc = list(desc)
    if desc and _is_paragraph(desc[0]):
        desc[0] = f"{shown}: {desc[0]}"
    else:
        desc.insert(0, shown + (":" if desc else ""))
    return list_item("- ", desc)


def _synopsis_lines(text: str) -> str:
    """A synopsis's text with its whitespace collapsed, its breaks new lines."""
    lines = [re.sub(r"\s+", " ", line).strip() for line in text.split(_SBR)]
    return "\n".join(line for line in lines if line)
