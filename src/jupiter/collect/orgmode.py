"""Org-mode files (`.org`) read as the document a reader of the exported manual sees, as
Markdown: the Org manual, Magit's, Transient's, Org-roam's, the Modus themes', Doom Emacs's
module READMEs, which their projects write in Org and export to Texinfo and HTML.

Read as plain text, an Org file gave the question templates its markup: `#+begin_src`
lines, `:PROPERTIES:` drawers, `[[link][description]]` syntax, `=verbatim=` and `~code~`
around every other word and `- term ::` lists no template knew. Here the file is read the
way Org's exporter reads it, in three passes:

1. Lines. `#+INCLUDE:` lines are replaced by the file they name (relative to the including
   file's folder, then to the source's root, within the source only; a URL, an absolute
   path or one that leaves the source is not followed; a cycle, more than 8 levels or more
   than 4 million characters of included text in all is not followed): an Org file's
   lines in place (`::*Heading` or `::#custom-id` its subtree only, `:minlevel N` its
   headings shifted so the first is at level N), with a block kind (`src LANG`,
   `example`, `export FMT`, any other) wrapped in that block; `:lines "A-B"` keeps lines A
   to B, B excluded, as in Org. `#+SETUPFILE:` is read for its settings only. The settings are collected, on
   lines outside blocks: `#+TITLE` (the main file's lines, joined), `#+SUBTITLE`,
   `#+AUTHOR`, `#+EMAIL`, `#+DATE`, `#+MACRO` definitions, `#+TODO` / `#+SEQ_TODO` /
   `#+TYP_TODO` keywords, `#+EXCLUDE_TAGS` and `#+OPTIONS`' `d:` (drawers).
2. Sections. A heading (`*` .. at the start of a line, then a space) starts a section up
   to the next heading, as in Org, where a heading also ends an open block. The heading's
   TODO keyword, priority cookie (`[#A]`), statistics cookies (`[2/5]`, `[40%]`) and tags
   go; a `COMMENT` heading, one tagged `:noexport:` (or an `#+EXCLUDE_TAGS` tag) or
   `:ARCHIVE:`, and one whose properties say `:COPYING: t` (the license text Texinfo's
   `@copying` shows on the title page only) are dropped with their subtrees. Its
   planning line and property drawer go, the drawer's `:CUSTOM_ID:` naming the section. A
   heading `Footnotes` (Org's footnote section) is no section: its definitions are
   collected, its other text joins the section before it. Levels are made relative to the
   file's highest heading: that level is `#`, the next `##`, down to `######`.
3. Blocks, section by section, into Markdown:
   - `#+begin_src LANG` fenced code with LANG the fence's language (switches such as `-n`
     and header arguments such as `:results` dropped; `:exports none` drops the block,
     `:exports results` its code), `#+begin_example` and runs of `: ` fixed-width lines
     fenced code too; code is dedented and Org's `,*` / `,#+` escapes undone;
   - `#+begin_quote` `> ` quoted; `#+begin_center` and `#+begin_verse` plain (a verse keeps
     its lines); `#+begin_comment` dropped; `#+begin_export markdown` (`md`) its text as
     written, any other export block dropped; `#+begin_note`, `tip`, `warning`, `caution`,
     `important`, `hint`, `danger`, `attention` their first paragraph starting `Note: `
     (`Tip: `, ...) as DocBook's admonitions; `#+begin_defun`, `defvar`, `defopt`,
     `defmac`, `defspec`, `deffn` with `#+attr_texinfo: :options NAME ARGS` a definition
     line as Texinfo's (below); any other block its content;
   - lists: `-`, `+` and (indented) `*` items `- `, `1.` / `1)` items numbered from the
     first (or a `[@N]` counter), nested lists under their item, checkboxes (`[ ]`, `[X]`,
     `[-]`) kept as text; description items `- term :: text` the way Texinfo's `@table`
     reads (texinfo.list_item): `- term: text`, its other blocks indented under it, an
     empty item over the next joined to it (`- `a`, `b`: text`, Texinfo's `@itemx`); the
     Texinfo-flavoured items Org's Texinfo exporter turns into definitions read as the
     Texinfo reader reads those: `- Command: magit-status ::`, `- Function: NAME ARGS ::`,
     `- Macro:`, `- Special Form:`, `- User Option:`, `- Variable:` (in any case) a line
     `**Command:** `magit-status`` (several in a row over one description, one line each)
     and then the description's blocks; `- Key: C-x g (magit-status) ::` a table item
     `` - `C-x g` (`magit-status`): text ``;
   - tables a Markdown table (latex.markdown_table), rows in order: the first row the
     header, as Org's exporter makes the row over the first rule line (`|---+---|`) and
     as Texinfo's `@multitable` without `@headitem` and DocBook's tables read a table
     without one (a table without a rule gets its first row for header; the other rows
     of a header of several stay rows); rule lines, width cookie rows (`<10>`) and
     `#+TBLFM` dropped; table.el tables (`+---+`) fenced as written;
   - paragraphs their lines, inline markup converted; `-----` a rule (`---`); a
     `#+CAPTION:` its text as a line where it stands; `#+begin_export markdown` and
     `#+md:` lines as written; drawers dropped with `PROPERTIES` and `LOGBOOK` as the
     exporter does (`#+OPTIONS: d:nil` drops all, `d:t` keeps all, `d:("A")` only those,
     `d:(not "A")` all but those), the text of the others kept (Magit's `:PREAMBLE:`);
     comment lines (`# ...`), planning and `CLOCK:` lines, `#+RESULTS:` and all other
     keyword lines (`#+OPTIONS`, `#+STARTUP`, `#+NAME`, `#+attr_*`, `#+TBLFM`, `#+INDEX`,
     `#+cindex`, `#+texinfo:` ...) dropped.

Inline objects, in one scan (nothing inside a code span or a LaTeX fragment is read as
markup): emphasis by Org's rules, a marker opening after the start of a line, a space or
one of `-('"{` before a non-space character, closing after a non-space character before
the end of a line, a space or one of `-.,;:!?'")}\\[`, over at most two lines (so
`a/b/c` and `1*2*3` stay text): `*bold*` `**bold**`, `/italic/` `*italic*`, `_underline_`
its text, `+strike+` `~~strike~~`, `=verbatim=` and `~code~` code spans, as `src_LANG{x}`;
links `[[url][text]]` `[text](url)`, `[[url]]` `<url>` (http, https, ftp, mailto, doi),
an image link without a description (a badge) nothing, an internal one (`[[*Heading]]`,
`[[#custom-id]]`, `[[target]]`, `id:`, `file:`, `info:`, `man:`) its description, else
the heading it names (the section with that CUSTOM_ID), else its target's text; a link
that names a symbol or a key (`kbd:`, `var:`, `fn:`, `face:`, `help:`, `elisp:`, Doom
Emacs's `doom-package:` ...) without a description a code span of it (`kbd:` with one, of
its description); Emacs's quotes `` `symbol' `` a code span;
`<<<radio>>>` its text, a `<<target>>` nothing (an anchor, unseen in the export);
footnotes `[fn:label]` (and inline `[fn:: text]`, `[fn:label: text]`) `[^N]`, numbered
in each document in the order they are referenced, their definitions (wherever written)
appended at the document's end as `[^N]: text`; macros `{{{kbd(C-c C-c)}}}` a code span,
(`{{{key(x)}}}` too), `{{{title}}}`, `{{{author}}}`, `{{{date}}}`, `{{{email}}}`,
`{{{subtitle}}}`,
`{{{keyword(NAME)}}}`, `{{{input-file}}}` and `{{{n}}}` what Org gives, others expanded
from their `#+MACRO:` definition (`$1`.. substituted, then read as Org; an `(eval ...)`
one its arguments, as it cannot run) else their arguments; export snippets
`@@md:x@@` x, Texinfo's `@@texinfo:@code{@@x@@texinfo:}@@` (and `@kbd`, `@file`, `@samp`,
`@var`, ...) a code span of x, others nothing; entities (`\\alpha`, `\\rarr`, the HTML
names and Org's own) their characters (`\\nbsp` a space), `\\-` nothing, `\\\\` at a line's end a line
break; LaTeX fragments (`$x$`, `\\(..\\)`, `\\[..\\]`, an unknown `\\command`) as written;
`--` and `...` as written (Org's special strings would turn `--all` into a dash).

A short file is one document: its `#+TITLE` its title and `# title` its first line (a file
without one whose text before its first heading is empty and that has one top-level
heading is titled by that heading; any other, "": the caller's file name). A file whose
Markdown is over SPLIT_SIZE characters is split at its top-level headings, and a
top-level section that is still over SPLIT_SIZE at its second-level ones (the section's
text before them a document of its own): each document `(part, title, Markdown)`, its
part the section's `:CUSTOM_ID:`, else a slug of its heading (lower case, runs of other
characters than letters and digits `-`; `-2`, `-3` added to one already given in the
file), its title the heading path (`Chapter > Section`), its Markdown starting with its
heading; the text before the first heading (with `# title` when there is a title) is the
part "" titled by the title. A part with nothing but its heading (an index, a heading
whose subsections are documents of their own) is none. Callers name a document
`path#part`, or `path` for the part "" (as DocBook's documents).

`batch` reads a source's files together: a file another Org file `#+INCLUDE`s or names as
its `#+SETUPFILE` is read there, not on its own; in a cycle of includes, the first file
by path is read and the others in it; a file an include chain reaches only past the
eighth level is read on its own.
"""

from __future__ import annotations

import html.entities
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

from jupiter.collect import asciidoc
from jupiter.collect.latex import markdown_table
from jupiter.collect.texinfo import list_item

SUFFIXES = (".org",)
INCLUDED = "orgmode_included"
INCLUDED_FIX = "an Org file another one #+INCLUDEs is read where it is included, not on its own"
MAX_INCLUDE_DEPTH = 8
MAX_INCLUDED_CHARS = 4_000_000  # characters the includes of one file may add, in all
SPLIT_SIZE = 24_000  # Markdown characters past which a file is split into sections
MAX_SPLIT_LEVEL = 2  # headings at which a file is split: top-level, then second-level
MAX_DEPTH = 40  # blocks and lists nested deeper are read flat
MAX_MACRO_DEPTH = 10

# (an include's target as written, the including file's folder) -> (its text, its folder)
Reader = Callable[[str, str], tuple[str, str] | None]
# (part: CUSTOM_ID or heading slug, "" for the whole file or its text before the first
# heading; title; Markdown)
Part = tuple[str, str, str]


def takes(name: str) -> bool:
    """Whether a file name says Org (`.org`; a caller strips a `.gz` first)."""
    return name.lower().endswith(SUFFIXES)


_INCLUDE_LINE = re.compile(r"^[ \t]*#\+(?:include|setupfile):[ \t]*(.*?)[ \t]*$", re.M | re.I)


def _target(arg: str) -> tuple[str, str]:
    """An include's file and the rest of its line (`"a.org::*H" :minlevel 2`)."""
    arg = arg.strip()
    if arg.startswith('"'):
        end = arg.find('"', 1)
        if end > 0:
            return arg[1:end], arg[end + 1 :]
    if arg.startswith("<") and ">" in arg:
        return arg[1 : arg.index(">")], arg[arg.index(">") + 1 :]
    first, _, rest = arg.partition(" ")
    return first, rest


def includes(text: str) -> list[str]:
    """The files a file's `#+INCLUDE:` and `#+SETUPFILE:` lines name, as written (without
    a `::` search option)."""
    out = []
    for m in _INCLUDE_LINE.finditer(text):
        name = _target(m.group(1))[0].split("::", 1)[0]
        if name:
            out.append(name)
    return out


def _find(target: str, folder: str, names: dict[str, str]) -> str | None:
    if target.startswith("file:"):
        target = target[5:]
    return asciidoc.find_included(target, folder, names)


def batch(texts: dict[str, str]) -> tuple[dict[str, list[Part]], set[str]]:
    """Of a source's files ({path relative to its root: text}), the Org documents ({path
    of each Org file no other one includes: its parts, in document order; [] when it gives
    nothing}) and the Org files another one includes (read there, not on their own).
    Files of other kinds among `texts` can be included (`#+INCLUDE: "x.el" src
    emacs-lisp`), and are never main files here."""
    org = {p for p in texts if takes(p)}
    static: set[str] = set()
    for p in org:
        for target in includes(texts[p]):
            got = _find(target, asciidoc.folder_of(p), texts)
            if got is not None and got != p and got in org:
                static.add(got)
    out: dict[str, list[Part]] = {}
    reached: set[str] = set()  # read in place by a main file
    # the files no other one includes first; then a file of a cycle none of those reached
    # (a includes b includes a): the first of it read on its own
    for p in sorted(org - static) + sorted(static):
        if p in reached:
            continue
        seen: set[str] = set()

        def read(target: str, folder: str, seen: set[str] = seen) -> tuple[str, str] | None:
            got = _find(target, folder, texts)
            if got is None:
                return None
            seen.add(got)
            return texts[got], asciidoc.folder_of(got)

        out[p] = documents(texts[p], read, asciidoc.folder_of(p), p.rsplit("/", 1)[-1])
        reached |= seen - {p}
    for p in list(out):
        if p in reached:
            del out[p]
    return out, ((static | reached) & org) - set(out)


def documents(
    text: str,
    read: Reader | None = None,
    folder: str = "",
    name: str = "",
    split_size: int = SPLIT_SIZE,
) -> list[Part]:
    """One Org file's documents (module docstring): [("", title, Markdown)] for a short
    one, its sections' for a long one. `read(target, folder)` gives the text and folder
    of a file it includes (None: none); `name` the file's name (`{{{input-file}}}`)."""
    doc = _parse(text, read, folder, name)
    whole = doc.render_all()
    if len(whole) <= split_size or not doc.sections:
        body = doc.finish(whole)
        return [("", doc.title, body)] if _has_content(body) else []
    return doc.split(split_size)


def to_markdown(text: str, read: Reader | None = None, folder: str = "") -> tuple[str, str]:
    """One Org file as one document, however long: (title, Markdown)."""
    doc = _parse(text, read, folder, "")
    return doc.title, doc.finish(doc.render_all())


# ----------------------------------------------------------------------------- pass 1: lines
_KEYWORD = re.compile(r"^[ \t]*#\+([^\s:\[]+)(?:\[[^\]\n]*\])?:(?:[ \t]+(.*?))?[ \t]*$")
_BEGIN = re.compile(r"^[ \t]*#\+begin_(\S+)(.*)$", re.I)
_DYNAMIC = re.compile(r"^[ \t]*#\+begin:(?:\s|$)", re.I)
_HEADING = re.compile(r"^(\*+)[ \t]+(.*?)[ \t]*$|^(\*+)$")


@dataclass
class _Settings:
    title: list[str] = field(default_factory=list)
    keywords: dict[str, str] = field(default_factory=dict)
    macros: dict[str, str] = field(default_factory=dict)
    todo: set[str] = field(default_factory=lambda: {"TODO", "DONE"})
    exclude: set[str] = field(default_factory=lambda: {"noexport"})
    drawers: tuple[bool, set[str]] = (False, {"LOGBOOK"})  # (only these, else all but these)


class _Lines:
    """The preprocessor: includes read in place, settings collected."""

    def __init__(self, read: Reader | None) -> None:
        self.read = read
        self.settings = _Settings()
        self.included = 0
        self.out: list[str] = []

    def run(self, text: str, folder: str) -> list[str]:
        self.expand(text, folder, 0, (hash(text),))
        return self.out

    def expand(self, text: str, folder: str, depth: int, stack: tuple[int, ...]) -> None:
        block = ""  # the name of the block the line is in, lower case
        for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            if block:
                if re.match(rf"^[ \t]*#\+end_{re.escape(block)}[ \t]*$", line, re.I):
                    block = ""
                elif _HEADING.match(line):
                    block = ""  # a heading ends an open block, as in Org
                self.out.append(line)
                continue
            b = _BEGIN.match(line)
            if b is not None:
                block = b.group(1).lower()
                self.out.append(line)
                continue
            k = _KEYWORD.match(line)
            if k is None:
                self.out.append(line)
                continue
            key, value = k.group(1).lower(), (k.group(2) or "").strip()
            if key == "include":
                self.include(value, folder, depth, stack)
                continue
            if key == "setupfile":
                self.setup(value, folder, depth, stack)
                continue
            self.setting(key, value, depth)
            self.out.append(line)

    def setting(self, key: str, value: str, depth: int) -> None:
        s = self.settings
        if key == "title":
            if depth == 0 and value:
                s.title.append(value)
        elif key == "macro":
            name, _, body = value.partition(" ")
            if name:
                s.macros[name.lower()] = body.strip()
        elif key in ("todo", "seq_todo", "typ_todo"):
            for word in value.split():
                word = re.sub(r"\(.*\)$", "", word)
                if word and word != "|":
                    s.todo.add(word)
        elif key == "exclude_tags":
            s.exclude = set(value.split())
        elif key == "options":
            for m in re.finditer(r"(?:^|\s)d:(\([^)]*\)|\S+)", value):
                s.drawers = _drawer_option(m.group(1))
        elif key in ("subtitle", "author", "email", "date", "language"):
            s.keywords.setdefault(key, value)
        elif value:
            s.keywords.setdefault(key, value)

    def fetch(self, target: str, folder: str, stack: tuple[int, ...]) -> tuple[str, str] | None:
        """The text and folder of the file an include names; None when there is none, or
        when it is one of the files including it (a cycle) or too much is included."""
        if self.read is None or not target:
            return None
        got = self.read(target, folder)
        if got is None or hash(got[0]) in stack:
            return None
        if self.included + len(got[0]) > MAX_INCLUDED_CHARS:
            return None
        self.included += len(got[0])
        return got

    def setup(self, value: str, folder: str, depth: int, stack: tuple[int, ...]) -> None:
        target = _target(value)[0].split("::", 1)[0]
        if depth >= MAX_INCLUDE_DEPTH:
            return
        got = self.fetch(target, folder, stack)
        if got is None:
            return
        keep = self.out
        self.out = []
        self.expand(got[0], got[1], depth + 1, (*stack, hash(got[0])))
        self.out = keep  # its settings only

    def include(self, value: str, folder: str, depth: int, stack: tuple[int, ...]) -> None:
        target, rest = _target(value)
        name, _, search = target.partition("::")
        if depth >= MAX_INCLUDE_DEPTH:
            return
        got = self.fetch(name, folder, stack)
        if got is None:
            return
        text, sub = got
        lines = text.replace("\r\n", "\n").split("\n")
        span = re.search(r':lines\s+"(\d*)-(\d*)"', rest)
        if span is not None:
            a = int(span.group(1)) - 1 if span.group(1) else 0
            b = int(span.group(2)) - 1 if span.group(2) else len(lines)
            lines = lines[max(a, 0) : max(b, 0)]
        words = re.sub(r":\S+\s+(\"[^\"]*\"|\S+)", " ", rest).split()
        kind = words[0].lower() if words else ""
        if kind:  # a block of the file's text
            arg = " ".join(words[1:])
            body = [("," + x if re.match(r"^[ \t]*(\*|#\+)", x) else x) for x in lines]
            while body and not body[-1].strip():
                body.pop()
            self.out.append(f"#+begin_{kind} {arg}".rstrip())
            self.out.extend(body)
            self.out.append(f"#+end_{kind}")
            return
        if search:
            lines = _subtree(lines, search)
        minlevel = re.search(r":minlevel\s+(\d+)", rest)
        if minlevel is not None:
            lines = _shifted(lines, int(minlevel.group(1)))
        self.expand("\n".join(lines), sub, depth + 1, (*stack, hash(text)))


def _drawer_option(value: str) -> tuple[bool, set[str]]:
    """`#+OPTIONS: d:...`: (only these drawers, else all but these)."""
    names = set(re.findall(r'"([^"]*)"', value))
    if value == "nil":
        return True, set()
    if value == "t":
        return False, set()
    if value.startswith("(not"):
        return False, names
    return True, names


def _subtree(lines: list[str], search: str) -> list[str]:
    """The lines of the subtree an include's `::*Heading` or `::#custom-id` names (all of
    them when it names none)."""
    want_id = search[1:] if search.startswith("#") else None
    want = search.lstrip("*").strip().lower() if want_id is None else None
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m is None or not m.group(1):
            continue
        level = len(m.group(1))
        hit = False
        if want is not None:
            hit = _heading_text(m.group(2), set()).lower() == want
        else:
            j = i + 1
            while j < len(lines) and j < i + 40 and not _HEADING.match(lines[j]):
                p = re.match(r"^[ \t]*:CUSTOM_ID:[ \t]*(\S+)", lines[j], re.I)
                if p is not None and p.group(1) == want_id:
                    hit = True
                    break
                j += 1
        if hit:
            end = i + 1
            while end < len(lines):
                h = _HEADING.match(lines[end])
                if h is not None and len(h.group(1) or h.group(3)) <= level:
                    break
                end += 1
            return lines[i:end]
    return lines


def _shifted(lines: list[str], minlevel: int) -> list[str]:
    """Headings shifted so the highest is at `minlevel`."""
    levels = [len(m.group(1) or m.group(3)) for x in lines if (m := _HEADING.match(x))]
    if not levels:
        return lines
    delta = minlevel - min(levels)
    out = []
    for x in lines:
        m = _HEADING.match(x)
        if m is not None:
            stars = m.group(1) or m.group(3)
            x = "*" * max(1, len(stars) + delta) + x[len(stars) :]
        out.append(x)
    return out


# ----------------------------------------------------------------------------- pass 2: sections
_PRIORITY = re.compile(r"^\[#[A-Za-z0-9]\][ \t]*")
_TAGS = re.compile(r"[ \t]+(:(?:[\w@#%]+:)+)[ \t]*$")
_COOKIE = re.compile(r"[ \t]*\[\d*(?:/\d*|%)\]")
_PLANNING = re.compile(r"^[ \t]*(?:SCHEDULED|DEADLINE|CLOSED):")
_DRAWER = re.compile(r"^[ \t]*:([\w-]+):[ \t]*$")
_END = re.compile(r"^[ \t]*:END:[ \t]*$", re.I)
_PROPERTY = re.compile(r"^[ \t]*:([^\s:]+?)\+?:(?:[ \t]+(.*?))?[ \t]*$")


def _heading_text(raw: str, todo: set[str]) -> str:
    """A heading's title without its TODO keyword, priority, COMMENT, cookies and tags."""
    text = " " + raw
    t = _TAGS.search(text)
    if t is not None:
        text = text[: t.start()]
    text = text.strip()
    first, _, rest = text.partition(" ")
    if first in todo:
        text = rest.strip()
    text = _PRIORITY.sub("", text)
    if text == "COMMENT" or text.startswith("COMMENT "):
        text = text[7:].strip()
    return _COOKIE.sub("", text).strip()


@dataclass
class _Section:
    level: int
    raw: str  # its title as written, its keyword, priority, cookies and tags gone
    custom_id: str
    body: list[str]
    blocks: list[str] = field(default_factory=list)
    title: str = ""  # Markdown
    plain: str = ""  # without markup
    children: list[_Section] = field(default_factory=list)


def _sections(lines: list[str], settings: _Settings) -> tuple[list[str], list[_Section]]:
    """The text before the first heading, and the kept sections in order (flat)."""
    before: list[str] = []
    out: list[_Section] = []
    dropping = 0  # the level of a dropped subtree being skipped, 0 when none
    footnotes = False
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        m = _HEADING.match(line)
        if m is None:
            if not dropping:
                if footnotes and out:
                    out[-1].body.append(line)
                elif footnotes or not out:
                    before.append(line)
                else:
                    out[-1].body.append(line)
            i += 1
            continue
        stars = m.group(1) or m.group(3)
        raw = m.group(2) or ""
        level = len(stars)
        i += 1
        if dropping and level > dropping:
            continue
        dropping = 0
        footnotes = False
        tags = set()
        t = _TAGS.search(" " + raw)
        if t is not None:
            tags = {x for x in t.group(1).split(":") if x}
        words = raw.split()
        k = 1 if words and words[0] in settings.todo else 0
        if k < len(words) and _PRIORITY.match(words[k]):
            k += 1
        comment = k < len(words) and words[k] == "COMMENT"
        # its planning line and property drawer
        props: dict[str, str] = {}
        while i < n and _PLANNING.match(lines[i]):
            i += 1
        if i < n and re.match(r"^[ \t]*:PROPERTIES:[ \t]*$", lines[i], re.I):
            j = i + 1
            while j < n and not _END.match(lines[j]) and not _HEADING.match(lines[j]):
                p = _PROPERTY.match(lines[j])
                if p is not None:
                    props[p.group(1).upper()] = (p.group(2) or "").strip()
                j += 1
            if j < n and _END.match(lines[j]):
                i = j + 1
        if (
            comment
            or tags & (settings.exclude | {"ARCHIVE"})
            or props.get("COPYING", "").lower() not in ("", "nil")
        ):
            dropping = level
            continue
        title = _heading_text(raw, settings.todo)
        if title == "Footnotes" and not props:
            footnotes = True
            continue
        out.append(_Section(level, title, props.get("CUSTOM_ID", ""), []))
    return before, out


# ----------------------------------------------------------------------------- pass 3: blocks
_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?P<bullet>[-+*]|\d+[.)])(?:[ \t]+|$)"
    r"(?:\[@(?P<counter>\d+)\][ \t]*)?(?P<rest>.*)$"
)
_CHECKBOX = re.compile(r"^\[[ Xx-]\](?:[ \t]+|$)")
_TAG_SEP = re.compile(r"^(?P<tag>.*?\S)[ \t]+::(?:[ \t]+|$)(?P<rest>.*)$")
_FOOTNOTE_DEF = re.compile(r"^\[fn:([\w-]+)\](?:[ \t]+|$)(.*)$")
_FIXED = re.compile(r"^[ \t]*:(?: (.*)|)$")
_RULE = re.compile(r"^[ \t]*-{5,}[ \t]*$")
_COMMENT = re.compile(r"^[ \t]*#(?:[ \t].*)?$")
_TABLE = re.compile(r"^[ \t]*\|")
_TABLE_EL = re.compile(r"^[ \t]*\+-[-+]*\+[ \t]*$")
_DEF_TAG = re.compile(
    r"^(Command|Function|Key|Macro|Special Form|User Option|Variable):\s+(\S.*)$", re.I
)
_DEF_BLOCKS = {
    "defun": "Function", "defvar": "Variable", "defopt": "User Option", "defmac": "Macro",
    "defspec": "Special Form", "deffn": "", "defvr": "", "deftp": "",
}  # fmt: skip
_ADMONITIONS = {
    "note", "tip", "warning", "caution", "important", "hint", "danger", "attention",
}  # fmt: skip
_SPECIAL_LINE = re.compile(
    r"^[ \t]*(?:#\+|:[\w-]*:[ \t]*$|: |:$|\||\+-[-+]*\+[ \t]*$|-{5,}[ \t]*$|#(?:[ \t]|$))"
)


def _indent(line: str) -> int:
    col = 0
    for c in line:
        if c == " ":
            col += 1
        elif c == "\t":
            col = col // 8 * 8 + 8
        else:
            break
    return col


def _strip_cols(line: str, cols: int) -> str:
    """`line` without up to `cols` columns of its leading whitespace."""
    col = 0
    k = 0
    while k < len(line) and col < cols and line[k] in " \t":
        col = col + 1 if line[k] == " " else col // 8 * 8 + 8
        k += 1
    return line[k:]


def _dedent(lines: list[str]) -> list[str]:
    lines = [x.expandtabs(8) if x[: len(x) - len(x.lstrip())].count("\t") else x for x in lines]
    text = textwrap.dedent("\n".join(lines))
    out = text.split("\n")
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return out


def _fence(lines: list[str], lang: str = "") -> str:
    runs = {len(r) for x in lines for r in re.findall(r"`{3,}", x)}
    size = 3
    while size in runs:
        size += 1
    fence = "`" * size
    return "\n".join([fence + lang, *lines, fence])


def _span(text: str) -> str:
    """Text as a Markdown code span."""
    text = re.sub(r"[ \t]*\n[ \t]*", " ", text)
    if not text:
        return ""
    runs = {len(r) for r in re.findall(r"`+", text)}
    size = 1
    while size in runs:
        size += 1
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{'`' * size}{pad}{text}{pad}{'`' * size}"


def _is_paragraph(block: str) -> bool:
    return not re.match(r"(```|[-*>|#] |>|\d+\. |\||\*\*[^*\n]+:\*\* `)", block)


def _item(marker: str, blocks: list[str]) -> str:
    """Blocks as one list item (texinfo.list_item), a list right under its first
    paragraph without a blank line between (`- a` over `  - b`)."""
    if len(blocks) > 1 and re.match(r"(?:- |\d+\. )", blocks[1]) and "\n\n" not in blocks[0]:
        blocks = [blocks[0] + "\n" + blocks[1], *blocks[2:]]
    return list_item(marker, blocks)


def _list(items: list[str]) -> str:
    """Items (each already marked) as one list: tight when none holds a blank line."""
    tight = all("\n\n" not in item for item in items)
    return ("\n" if tight else "\n\n").join(items)


def _quoted(blocks: list[str]) -> list[str]:
    text = "\n\n".join(blocks)
    if not text.strip():
        return []
    return ["\n".join(f"> {x}" if x else ">" for x in text.split("\n"))]


def _def_name(text: str) -> str:
    """A definition's name and arguments as written, markup around its words gone."""
    words = [re.sub(r"^([=~])(.+)\1$", r"\2", w) for w in text.split()]
    return " ".join(words)


class _Blocks:
    """Org's lines to Markdown blocks."""

    def __init__(self, doc: _Doc) -> None:
        self.doc = doc
        self.pending_options = ""  # an #+attr_texinfo's :options for the next block

    def render(self, lines: list[str], depth: int = 0) -> list[str]:
        blocks: list[str] = []
        para: list[str] = []
        i = 0
        n = len(lines)

        def flush() -> None:
            if para:
                text = self.doc.inline("\n".join(x.strip() for x in para)).strip()
                if text:
                    blocks.append(text)
                para.clear()

        while i < n:
            line = lines[i]
            stripped = line.strip()
            if not stripped:
                flush()
                i += 1
                continue
            if (
                para
                and not _SPECIAL_LINE.match(line)
                and not self.starts_item(line)
                and not _FOOTNOTE_DEF.match(line)
            ):
                if not _PLANNING.match(line) and not re.match(r"^[ \t]*CLOCK:", line):
                    para.append(line)
                i += 1
                continue
            flush()
            got = self.element(lines, i, depth)
            if got is None:  # a paragraph line
                if not _PLANNING.match(line) and not re.match(r"^[ \t]*CLOCK:", line):
                    para.append(line)
                i += 1
                continue
            i, made = got
            blocks.extend(made)
        flush()
        return blocks

    def starts_item(self, line: str) -> bool:
        """Whether a line is a list item (a `* ` at a section's first column is its
        heading, read before: here it is an item of a list nested in another)."""
        return _ITEM.match(line) is not None

    def element(self, lines: list[str], i: int, depth: int) -> tuple[int, list[str]] | None:
        """The element starting at line i: (the line after it, its blocks); None for a
        paragraph line."""
        line = lines[i]
        if _BEGIN.match(line) or _DYNAMIC.match(line):
            return self.block(lines, i, depth)
        k = _KEYWORD.match(line)
        if k is not None:
            return i + 1, self.keyword(k.group(1).lower(), (k.group(2) or "").strip())
        if re.match(r"^[ \t]*#\+", line):
            return i + 1, []  # an orphan #+end_..., a keyword without a colon
        if _COMMENT.match(line):
            return i + 1, []
        d = _DRAWER.match(line)
        if d is not None:
            end = i + 1
            while end < len(lines) and not _END.match(lines[end]):
                end += 1
            if end < len(lines):
                return end + 1, self.drawer(d.group(1), lines[i + 1 : end], depth)
            if d.group(1).upper() == "END":
                return i + 1, []
        if _FIXED.match(line):
            end = i
            body = []
            while end < len(lines) and (f := _FIXED.match(lines[end])) is not None:
                body.append(f.group(1) or "")
                end += 1
            self.pending_options = ""
            return end, [_fence(_dedent(body) or [""])] if any(x.strip() for x in body) else []
        if _RULE.match(line):
            return i + 1, ["---"]
        if _TABLE_EL.match(line):
            end = i
            while end < len(lines) and re.match(r"^[ \t]*[|+]", lines[end]):
                end += 1
            return end, [_fence(_dedent(lines[i:end]))]
        if _TABLE.match(line):
            end = i
            while end < len(lines) and _TABLE.match(lines[end]):
                end += 1
            return end, self.table(lines[i:end])
        f = _FOOTNOTE_DEF.match(line)
        if f is not None:
            return self.footnote(lines, i, f.group(1), f.group(2), depth)
        if self.starts_item(line):
            return self.plain_list(lines, i, depth)
        return None

    # -- keywords and drawers
    def keyword(self, key: str, value: str) -> list[str]:
        if key in ("md", "markdown"):
            return [value] if value else []
        if key == "caption":
            text = self.doc.inline(value).strip()
            return [text] if text else []
        if key.startswith("attr_texinfo"):
            o = re.search(r":options\s+(.*?)(?:\s+:\w+|$)", value)
            self.pending_options = o.group(1).strip() if o is not None else ""
            return []
        return []

    def drawer(self, name: str, body: list[str], depth: int) -> list[str]:
        upper = name.upper()
        if upper in ("PROPERTIES", "END"):
            return []
        only, names = self.doc.settings.drawers
        kept = (upper in {x.upper() for x in names}) if only else upper not in names
        if not kept or depth >= MAX_DEPTH:
            return []
        return self.render(body, depth + 1)

    # -- blocks
    def block(self, lines: list[str], i: int, depth: int) -> tuple[int, list[str]]:
        b = _BEGIN.match(lines[i])
        if b is None:  # a dynamic block: its content
            end = i + 1
            while end < len(lines) and not re.match(r"^[ \t]*#\+end:?[ \t]*$", lines[end], re.I):
                end += 1
            if end >= len(lines):
                return i + 1, []
            inner = self.render(lines[i + 1 : end], depth + 1) if depth < MAX_DEPTH else []
            return end + 1, inner
        name, args = b.group(1).lower(), b.group(2).strip()
        end_re = re.compile(rf"^[ \t]*#\+end_{re.escape(name)}[ \t]*$", re.I)
        end = i + 1
        while end < len(lines) and not end_re.match(lines[end]):
            end += 1
        if end >= len(lines):
            return i + 1, []  # never closed: not a block, its line dropped
        body = lines[i + 1 : end]
        options, self.pending_options = self.pending_options, ""
        return end + 1, self.block_body(name, args, body, options, depth)

    def block_body(
        self, name: str, args: str, body: list[str], options: str, depth: int
    ) -> list[str]:
        if name in ("src", "example"):
            words = args.split()
            lang = words[0] if name == "src" and words and words[0][0] not in "-:" else ""
            exports = re.search(r":exports\s+(\w+)", args)
            if exports is not None and exports.group(1).lower() in ("none", "results"):
                return []
            code = [re.sub(r"^([ \t]*),(?=\*|,\*|#\+|,#\+)", r"\1", x) for x in body]
            return [_fence(_dedent(code) or [""], lang)]
        if name == "export":
            fmt = args.split()[0].lower() if args.split() else ""
            return ["\n".join(_dedent(body))] if fmt in ("md", "markdown") and body else []
        if name == "comment":
            return []
        if depth >= MAX_DEPTH:
            text = self.doc.inline("\n".join(x.strip() for x in body if x.strip()))
            return [text] if text.strip() else []
        if name == "verse":
            return self.verse(body)
        inner = self.render(body, depth + 1)
        if name == "quote":
            return _quoted(inner)
        if name in _ADMONITIONS:
            label = name.capitalize()
            if inner and _is_paragraph(inner[0]):
                inner[0] = f"{label}: {inner[0]}"
            else:
                inner.insert(0, f"{label}:")
            return inner
        if name in _DEF_BLOCKS and options:
            category = _DEF_BLOCKS[name]
            if not category:
                category, _, options = options.partition(" ")
            head = self.doc.def_line(category, options)
            return [head, *inner] if head else inner
        return inner

    def verse(self, body: list[str]) -> list[str]:
        out: list[str] = []
        stanza: list[str] = []
        for x in [*body, ""]:
            if x.strip():
                stanza.append(self.doc.inline(x.strip()).strip())
            elif stanza:
                out.append("\n".join(stanza))
                stanza = []
        return out

    # -- tables
    def table(self, rows: list[str]) -> list[str]:
        """A Markdown table: its first row the header (the row over its first rule line,
        in a table that has one), rule lines and width cookie rows dropped."""
        cells: list[list[str]] = []
        for row in rows:
            s = row.strip()
            if re.match(r"^\|-", s):
                continue
            inner = s[1:]
            if inner.endswith("|"):
                inner = inner[:-1]
            parts = [c.strip() for c in inner.split("|")]
            if all(re.fullmatch(r"<[lrc]?\d*>|", c) for c in parts) and any(parts):
                continue  # a width cookie row
            cells.append([self.doc.inline(c).replace("|", "\\|") for c in parts])
        return ["\n".join(markdown_table(cells))] if cells else []

    # -- footnotes
    def footnote(
        self, lines: list[str], i: int, label: str, first: str, depth: int
    ) -> tuple[int, list[str]]:
        body = [first]
        j = i + 1
        blank = 0
        while j < len(lines):
            x = lines[j]
            if _FOOTNOTE_DEF.match(x):
                break
            if not x.strip():
                blank += 1
                if blank >= 2:
                    break
            else:
                blank = 0
            body.append(x)
            j += 1
        blocks = self.render(body, depth + 1) if depth < MAX_DEPTH else []
        self.doc.define_footnote(label, blocks)
        return j, []

    # -- lists
    def plain_list(self, lines: list[str], i: int, depth: int) -> tuple[int, list[str]]:
        first = _ITEM.match(lines[i])
        assert first is not None
        col = _indent(first.group("indent"))
        ordered = first.group("bullet")[0].isdigit()
        items: list[tuple[re.Match[str], list[str]]] = []
        j = i
        n = len(lines)
        while j < n:
            m = _ITEM.match(lines[j])
            if (
                m is None
                or _indent(m.group("indent")) != col
                or m.group("bullet")[0].isdigit() != ordered
            ):
                break
            content = col + len(m.group(0)) - len(m.group("rest")) - len(m.group("indent"))
            body: list[str] = []
            k = j + 1
            while k < n:
                x = lines[k]
                if not x.strip():
                    if k + 1 < n and not lines[k + 1].strip():
                        break  # two blank lines end the list
                    body.append("")
                    k += 1
                    continue
                if _indent(x) <= col:
                    break
                body.append(_strip_cols(x, content) if _indent(x) >= content else x.strip())
                k += 1
            while body and not body[-1].strip():
                body.pop()
            items.append((m, body))
            j = k
        return j, self.list_blocks(items, ordered, depth)

    def list_blocks(
        self, items: list[tuple[re.Match[str], list[str]]], ordered: bool, depth: int
    ) -> list[str]:
        out: list[str] = []
        run: list[str] = []  # the Markdown items of the list being made
        number = 1
        terms: list[str] = []  # description terms waiting for their description
        heads: list[str] = []  # definition lines waiting for their description

        def close() -> None:
            if run:
                out.append(_list(run))
                run.clear()

        for k, (m, body) in enumerate(items):
            if k == 0:
                number = int(m.group("counter") or (m.group("bullet")[:-1] if ordered else 1))
            elif m.group("counter"):
                number = int(m.group("counter"))
            rest = m.group("rest")
            check = _CHECKBOX.match(rest)
            box = ""
            if check is not None:
                box = check.group(0).strip().replace("x", "X") + " "
                rest = rest[check.end() :]
            tagged = None if ordered else _TAG_SEP.match(rest)
            if tagged is None:
                terms, heads = self.flush_terms(terms, heads, out, run, close)
                lines = [rest, *body]
                blocks = self.render(lines, depth + 1) if depth < MAX_DEPTH else []
                if box:
                    blocks = (
                        [box.strip()] + blocks if not blocks else [box + blocks[0], *blocks[1:]]
                    )
                marker = f"{number}. " if ordered else "- "
                number += 1
                if blocks:
                    run.append(_item(marker, blocks))
                continue
            tag, text = tagged.group("tag").strip(), tagged.group("rest")
            lines = [text, *body] if text.strip() else body
            blocks = self.render(lines, depth + 1) if depth < MAX_DEPTH else []
            d = _DEF_TAG.match(tag)
            category = d.group(1).title() if d is not None else ""
            if d is not None and category != "Key":
                if terms:
                    terms, heads = self.flush_terms(terms, heads, out, run, close)
                heads.append(self.doc.def_line(category, _def_name(d.group(2))))
                if blocks:
                    close()
                    out.append("\n".join(heads))
                    out.extend(blocks)
                    heads = []
                continue
            if heads:
                terms, heads = self.flush_terms(terms, heads, out, run, close)
            if d is not None:
                term = self.key_term(d.group(2))
            else:
                term = self.doc.inline(box + tag).strip().replace("\n", " ")
            terms.append(term)
            if blocks:
                shown = ", ".join(t for t in terms if t)
                if _is_paragraph(blocks[0]):
                    blocks[0] = f"{shown}: {blocks[0]}" if shown else blocks[0]
                elif shown:
                    blocks.insert(0, shown + ":")
                run.append(_item("- ", blocks))
                terms = []
        self.flush_terms(terms, heads, out, run, close)
        close()
        return out

    def flush_terms(
        self,
        terms: list[str],
        heads: list[str],
        out: list[str],
        run: list[str],
        close: Callable[[], None],
    ) -> tuple[list[str], list[str]]:
        """Description terms or definition lines left without a description, as they are."""
        shown = ", ".join(t for t in terms if t)
        if shown:
            run.append("- " + shown)
        if heads:
            close()
            out.append("\n".join(heads))
        return [], []

    def key_term(self, text: str) -> str:
        """`C-x g (magit-status)` as Texinfo's `@kbd{C-x g} (@code{magit-status})` reads."""
        m = re.match(r"^(.*?)[ \t]+\(([^()\s]+)\)$", text.strip())
        if m is not None:
            return f"{_span(_def_name(m.group(1)))} ({_span(_def_name(m.group(2)))})"
        return _span(_def_name(text))


# ----------------------------------------------------------------------------- inline
_PRE = frozenset(" \t\n-('\"{")
_POST = frozenset(" \t\n-.,;:!?'\")}\\[")
_MARKS = {"*": ("**", "**"), "/": ("*", "*"), "_": ("", ""), "+": ("~~", "~~")}
_LINK = re.compile(r"\[\[((?:[^\[\]\\]|\\.){1,4000}?)\](?:\[(.{1,4000}?)\])?\]", re.S)
_TARGET = re.compile(r"<<([^<>\n \t]|[^<>\n \t][^<>\n]*[^<>\n \t])>>")
_RADIO = re.compile(r"<<<([^<>\n]+)>>>")
_ANGLE = re.compile(r"<((?:https?|ftp|mailto|file|news|doi):[^<>\n]+)>")
_PLAIN_URL = re.compile(r"(?:https?|ftp)://[^\s<>\[\]()\"']+[^\s<>\[\]()\"'.,;:!?]")
_MACRO = re.compile(r"\{\{\{([A-Za-z][\w-]*)(?:\((.*?)\))?\}\}\}", re.S)
_SNIPPET = re.compile(r"@@([\w-]+):(.*?)@@", re.S)
_TEXI_CODE = re.compile(
    r"@@texinfo:@(code|kbd|key|file|samp|command|option|env|var|t|verb|url)\{@@"
    r"(.*?)@@texinfo:\}@@",
    re.S,
)
_INLINE_SRC = re.compile(r"src_[\w+-]+(?:\[[^\]\n]*\])?\{([^{}\n]*)\}")
_ENTITY = re.compile(r"\\(there4|sup[123]|frac[13][24]|[a-zA-Z]+)(\{\}|(?![a-zA-Z]))")
_MATH = re.compile(
    r"\$\$.+?\$\$|\$[^\s$.,;]\$(?=[\s\-.,;:!?'\")\]}]|$)"
    r"|\$[^\s$.,;]([^$]*?)[^\s$.,\\]\$(?=[\s\-.,;:!?'\")\]}]|$)",
    re.S,
)
_EMACS_QUOTE = re.compile(r"`([^`'\s](?:[^`'\n]{0,80}?[^`'\s])?)'(?![\w'])")
_IMAGE = re.compile(r"\.(?:png|jpe?g|gif|svg|webp|bmp|tiff?|xpm|pbm)$", re.I)
_EXTERNAL = ("http", "https", "ftp", "mailto", "news", "doi")
# link types that name a symbol, a key or a command: its target a code span (Doom Emacs's
# [[var:doom-theme]], [[fn:doom/reload]], [[kbd:][SPC h r r]], [[doom-package:vertico]])
_CODE_LINKS = {
    "kbd", "var", "fn", "face", "cmd", "help", "elisp", "shell", "doom-package", "doom-module",
    "doom-executable",
}  # fmt: skip
_ORG_ENTITIES = {
    "nbsp": " ", "ensp": " ", "emsp": " ", "thinsp": " ", "vert": "|", "vbar": "|",
    "backslash": "\\", "dollar": "$", "slash": "/", "star": "*", "ast": "*", "plus": "+",
    "tilde": "~", "hat": "^", "under": "_", "lbrace": "{", "rbrace": "}", "ldots": "…",
    "dots": "…", "to": "→", "rightarrow": "→", "leftarrow": "←", "gets": "←",
    "Rightarrow": "⇒", "Leftarrow": "⇐", "leftrightarrow": "↔", "leq": "≤", "geq": "≥",
    "neq": "≠", "infty": "∞", "pm": "±", "cdot": "⋅", "colon": ":", "space": " ",
    "smiley": "☺", "textbackslash": "\\", "checkmark": "✓", "ell": "ℓ", "colon-": ":",
    "ddag": "‡", "dag": "†", "vdots": "⋮", "cdots": "⋯", "mid": "∣", "approx": "≈",
    "times": "×", "div": "÷", "deg": "°", "shy": "",
}  # fmt: skip


def _entity(name: str) -> str | None:
    if name in _ORG_ENTITIES:
        return _ORG_ENTITIES[name]
    code = html.entities.name2codepoint.get(name)
    return chr(code) if code is not None else None


def _emphasis_end(s: str, i: int) -> int:
    """Where the emphasis opening at s[i] closes (the closing marker's index); -1 when it
    does not open one by Org's rules."""
    c = s[i]
    n = len(s)
    if i > 0 and s[i - 1] not in _PRE:
        return -1
    if i + 1 >= n or s[i + 1].isspace():
        return -1
    newlines = 0
    j = i + 1
    while j < n:
        ch = s[j]
        if ch == "\n":
            newlines += 1
            if newlines > 1:
                return -1
        elif ch == c and j > i + 1 and not s[j - 1].isspace() and (j + 1 >= n or s[j + 1] in _POST):
            return j
        j += 1
    return -1


def _bracket_end(s: str, i: int) -> int:
    """The index past the `]` closing the `[` at s[i]; -1 when none (on this paragraph)."""
    depth = 0
    for j in range(i, min(len(s), i + 4000)):
        if s[j] == "[":
            depth += 1
        elif s[j] == "]":
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _split_macro_args(text: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    k = 0
    while k < len(text):
        ch = text[k]
        if ch == "\\" and k + 1 < len(text) and text[k + 1] == ",":
            cur.append(",")
            k += 2
            continue
        if ch == ",":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        k += 1
    out.append("".join(cur))
    return [x.strip() for x in out]


_FN_OPEN = "\ue000"
_FN_CLOSE = "\ue001"
_FN_REF = re.compile(f"{_FN_OPEN}([^{_FN_CLOSE}]*){_FN_CLOSE}")


def _slug(text: str) -> str:
    s = re.sub(r"[^\w]+|_+", "-", text.lower()).strip("-")
    return s or "section"


def _has_content(markdown: str) -> bool:
    return any(
        b.strip() and not re.fullmatch(r"#{1,6} [^\n]*", b.strip()) for b in markdown.split("\n\n")
    )


def _finish(text: str) -> str:
    text = "\n".join(line.rstrip() for line in text.replace("\u200b", "").split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


class _Doc:
    """One Org file: its settings, sections, footnotes; inline conversion."""

    def __init__(self, settings: _Settings, name: str) -> None:
        self.settings = settings
        self.name = name
        self.title = ""
        self.title_line = False  # whether the title is the file's #+TITLE (a `# ` line)
        self.preamble: list[str] = []
        self.sections: list[_Section] = []
        self.ids: dict[str, str] = {}  # CUSTOM_ID -> heading (plain)
        self.footnotes: dict[str, list[str]] = {}
        self.anonymous = 0
        self.counter = 0  # {{{n}}}

    # -- inline
    def inline(self, s: str, depth: int = 0, plain: bool = False) -> str:
        out: list[str] = []
        i = 0
        n = len(s)
        while i < n:
            c = s[i]
            got: tuple[str, int] | None = None
            if c == "[":
                got = self.bracket(s, i, depth, plain)
            elif c == "{" and s.startswith("{{{", i):
                got = self.macro_at(s, i, depth, plain)
            elif c == "@" and s.startswith("@@", i):
                got = self.snippet(s, i, plain)
            elif c == "<":
                got = self.angle(s, i, depth, plain)
            elif c == "\\":
                got = self.backslash(s, i)
            elif c == "$":
                m = _MATH.match(s, i)
                if m is not None and (i == 0 or s[i - 1] != "$"):
                    got = (m.group(0), m.end())
            elif c in "*/_+=~":
                got = self.emphasis(s, i, depth, plain)
            elif c == "s" and s.startswith("src_", i) and (i == 0 or not s[i - 1].isalnum()):
                m = _INLINE_SRC.match(s, i)
                if m is not None:
                    got = (m.group(1) if plain else _span(m.group(1)), m.end())
            elif c == "`":
                m = _EMACS_QUOTE.match(s, i)
                if m is not None:  # Emacs's `symbol' quotes: a symbol, as a code span
                    got = (m.group(1) if plain else _span(m.group(1)), m.end())
            elif c in "hf" and (i == 0 or not s[i - 1].isalnum()):
                m = _PLAIN_URL.match(s, i)
                if m is not None:
                    got = (m.group(0), m.end())
            if got is None:
                out.append(c)
                i += 1
            else:
                out.append(got[0])
                i = got[1]
        return "".join(out)

    def emphasis(self, s: str, i: int, depth: int, plain: bool) -> tuple[str, int] | None:
        j = _emphasis_end(s, i)
        if j < 0:
            return None
        c = s[i]
        inner = s[i + 1 : j]
        if c in "=~":
            return (inner if plain else _span(inner)), j + 1
        if depth >= MAX_DEPTH:
            return inner, j + 1
        text = self.inline(inner, depth + 1, plain)
        if plain or not text.strip():
            return text, j + 1
        a, b = _MARKS[c]
        return f"{a}{text}{b}", j + 1

    def bracket(self, s: str, i: int, depth: int, plain: bool) -> tuple[str, int] | None:
        if s.startswith("[[", i):
            m = _LINK.match(s, i)
            if m is None:
                return None
            return self.link(m.group(1), m.group(2), depth, plain), m.end()
        if s.startswith("[fn:", i):
            end = _bracket_end(s, i)
            if end < 0:
                return None
            inner = s[i + 4 : end - 1]
            label, sep, definition = inner.partition(":")
            if not re.fullmatch(r"[\w-]*", label) or (not label and not sep):
                return None
            if sep:
                if not label:
                    self.anonymous += 1
                    label = f"\x00{self.anonymous}"
                para = self.inline(definition.strip(), depth + 1) if depth < MAX_DEPTH else ""
                self.footnotes.setdefault(label, [para] if para else [])
            return ("" if plain else f"{_FN_OPEN}{label}{_FN_CLOSE}"), end
        return None

    def link(self, path: str, desc: str | None, depth: int, plain: bool) -> str:
        path = re.sub(r"\\([\[\]\\])", r"\1", path)
        path = re.sub(r"\s*\n\s*", " ", path).strip()
        shown = ""
        if desc is not None:
            d = desc.strip()
            if _IMAGE.search(d) and re.fullmatch(r"(?:file:|https?://)?\S+", d):
                return ""  # an image as the description: a badge
            shown = self.inline(d, depth + 1, plain) if depth < MAX_DEPTH else d
            shown = re.sub(r"\s*\n\s*", " ", shown)
        scheme = re.match(r"^([A-Za-z][\w+-]*):(.*)$", path, re.S)
        kind = scheme.group(1).lower() if scheme is not None else ""
        rest = scheme.group(2) if scheme is not None else path
        if kind in _EXTERNAL:
            url = f"https://doi.org/{rest}" if kind == "doi" else path
            if not shown and _IMAGE.search(url):
                return ""  # an image, inlined by the exporter
            if plain:
                return shown or url
            return f"[{shown}]({url})" if shown else f"<{url}>"
        if kind in _CODE_LINKS and (rest or shown) and not plain:
            if kind == "kbd" and desc is not None and re.fullmatch(r"[^*/_+=~\[\]`]+", desc):
                return _span(desc.strip())  # Doom Emacs's [[kbd:][SPC h d h]]
            if not shown:
                return _span(rest)
        if shown:
            return shown
        if kind in ("file", "attachment") or (not kind and re.match(r"^(?:\.{0,2}/|~/)", path)):
            target, _, search = rest.partition("::")
            if _IMAGE.search(target) and not search:
                return ""
            if search:
                return self.internal(search)
            return target.rsplit("/", 1)[-1]
        if kind == "info":
            manual, _, node = rest.partition("#")
            return node or manual
        if kind:
            return rest
        return self.internal(path)

    def internal(self, target: str) -> str:
        if target.startswith("*"):
            return self.inline(target[1:].strip(), MAX_DEPTH - 1, plain=True)
        if target.startswith("#"):
            return self.ids.get(target[1:], target[1:])
        if target.startswith("(") and target.endswith(")"):
            return target[1:-1]
        return self.inline(target, MAX_DEPTH - 1, plain=True)

    def macro_at(self, s: str, i: int, depth: int, plain: bool) -> tuple[str, int] | None:
        m = _MACRO.match(s, i)
        if m is None:
            return None
        name = m.group(1).lower()
        args = _split_macro_args(m.group(2)) if m.group(2) is not None else []
        if name in ("kbd", "key"):
            keys = ",".join(args)
            return (keys if plain else _span(keys)), m.end()
        if depth >= MAX_MACRO_DEPTH:
            return ", ".join(args), m.end()
        text = self.expand(name, args)
        return self.inline(text, depth + 1, plain), m.end()

    def expand(self, name: str, args: list[str]) -> str:
        kw = self.settings.keywords
        if name in self.settings.macros:
            body = self.settings.macros[name]
            if body.startswith("(eval"):
                return ", ".join(a for a in args if a)
            return re.sub(
                r"\$(\d)",
                lambda g: args[int(g.group(1)) - 1] if 0 < int(g.group(1)) <= len(args) else "",
                body,
            )
        if name == "title":
            return " ".join(self.settings.title)
        if name in ("author", "email", "date", "subtitle"):
            return kw.get(name, "")
        if name == "keyword":
            return kw.get(args[0].lower(), "") if args else ""
        if name == "input-file":
            return self.name
        if name == "n":
            self.counter += 1
            return str(self.counter)
        if name in ("time", "modification-time", "property", "results"):
            return ""
        return ", ".join(a for a in args if a)

    def snippet(self, s: str, i: int, plain: bool) -> tuple[str, int] | None:
        t = _TEXI_CODE.match(s, i)
        if t is not None:
            inner = re.sub(r"@@[\w-]+:.*?@@", "", t.group(2), flags=re.S)
            return (inner if plain else _span(inner)), t.end()
        m = _SNIPPET.match(s, i)
        if m is None:
            return None
        if m.group(1).lower() in ("md", "markdown"):
            return m.group(2), m.end()
        return "", m.end()

    def angle(self, s: str, i: int, depth: int, plain: bool) -> tuple[str, int] | None:
        m = _RADIO.match(s, i)
        if m is not None:
            return self.inline(m.group(1), depth + 1, plain), m.end()
        m = _TARGET.match(s, i)
        if m is not None:
            return "", m.end()
        m = _ANGLE.match(s, i)
        if m is not None:
            url = re.sub(r"\s+", "", m.group(1))
            return (url if plain else f"<{url}>"), m.end()
        return None

    def backslash(self, s: str, i: int) -> tuple[str, int] | None:
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt == "\\":
            m = re.compile(r"\\\\[ \t]*(?=\n|$)").match(s, i)
            return ("", m.end()) if m is not None else ("\\\\", i + 2)
        if nxt == "-":
            return "", i + 2
        if nxt in "([":
            close = "\\)" if nxt == "(" else "\\]"
            end = s.find(close, i + 2)
            if end >= 0:
                return s[i : end + 2], end + 2
            return None
        if nxt == "_":
            m = re.compile(r"\\_ +").match(s, i)
            if m is not None:
                return " " * (len(m.group(0)) - 2), m.end()
            return None
        m = _ENTITY.match(s, i)
        if m is None:
            return None
        got = _entity(m.group(1))
        if got is None:
            return m.group(0), m.end()  # a LaTeX command, as written
        return got, m.end()

    # -- definitions and footnotes
    def def_line(self, category: str, text: str) -> str:
        """Texinfo's rendering of a definition (`@deffn Command magit-status`)."""
        shown = _span(text.strip())
        return f"**{category}:** {shown}".rstrip() if category else shown

    def define_footnote(self, label: str, blocks: list[str]) -> None:
        self.footnotes.setdefault(label, blocks)

    def finish(self, markdown: str) -> str:
        """A document's Markdown with its footnotes numbered and their definitions at its
        end."""
        order: dict[str, int] = {}

        def number(m: re.Match[str]) -> str:
            label = m.group(1)
            if label not in order:
                order[label] = len(order) + 1
            return f"[^{order[label]}]"

        text = _FN_REF.sub(number, markdown)
        notes: list[str] = []
        k = 0
        while k < len(order):  # a definition may reference another footnote
            label = list(order)[k]
            blocks = self.footnotes.get(label, [])
            body = [_FN_REF.sub(number, b) for b in blocks] or [""]
            notes.append(list_item(f"[^{order[label]}]: ", body).rstrip())
            k += 1
        if notes:
            text = text.rstrip() + "\n\n" + "\n".join(notes)
        return _finish(text)

    # -- documents
    def heading(self, section: _Section, top: int) -> str:
        level = max(1, min(section.level - top + 1, 6))
        return f"{'#' * level} {section.title}".rstrip()

    def render_all(self) -> str:
        parts: list[str] = []
        if self.title_line:
            parts.append(f"# {self.title}")
        parts.extend(self.preamble)
        top = min((s.level for s in self.sections), default=1)
        for s in self.sections:
            parts.append(self.heading(s, top))
            parts.extend(s.blocks)
        return "\n\n".join(parts)

    def split(self, size: int) -> list[Part]:
        """The documents of a long file: the text before its first heading, then each
        top-level section, or, past `size`, its text before its subsections and each of
        them (down to MAX_SPLIT_LEVEL)."""
        top = min((s.level for s in self.sections), default=1)
        used: dict[str, int] = {}
        out: list[Part] = []

        def render(sections: list[_Section]) -> str:
            blocks: list[str] = []
            for s in sections:
                blocks.append(self.heading(s, top))
                blocks.extend(s.blocks)
            return "\n\n".join(blocks)

        def add(section: _Section | None, title: str, markdown: str) -> None:
            part = ""
            if section is not None:
                base = section.custom_id or _slug(section.plain)
                used[base] = used.get(base, 0) + 1
                part = base if used[base] == 1 else f"{base}-{used[base]}"
            body = self.finish(markdown)
            if _has_content(body):
                out.append((part, title, body))

        def parts(group: list[_Section], path: list[str], level: int) -> None:
            head, rest = group[0], group[1:]
            title = " > ".join([*path, head.plain])
            text = render(group)
            if len(text) <= size or not rest or level >= MAX_SPLIT_LEVEL:
                add(head, title, text)
                return
            add(head, title, render([head]))
            for sub in _groups(rest):
                parts(sub, [*path, head.plain], level + 1)

        lead = ([f"# {self.title}"] if self.title_line else []) + self.preamble
        add(None, self.title, "\n\n".join(lead))
        for group in _groups(self.sections):
            parts(group, [], 1)
        return out


def _groups(sections: list[_Section]) -> list[list[_Section]]:
    """Sections (in document order) as the subtrees of the highest level among them."""
    top = min((s.level for s in sections), default=1)
    out: list[list[_Section]] = []
    for s in sections:
        if s.level <= top or not out:
            out.append([s])
        else:
            out[-1].append(s)
    return out


def _parse(text: str, read: Reader | None, folder: str, name: str) -> _Doc:
    pre = _Lines(read)
    lines = pre.run(text, folder)
    settings = pre.settings
    doc = _Doc(settings, name)
    before, sections = _sections(lines, settings)
    for s in sections:
        s.plain = doc.inline(s.raw, plain=True).strip()
        if s.custom_id:
            doc.ids.setdefault(s.custom_id, s.plain)
    doc.title = doc.inline(" ".join(settings.title), plain=True).strip()
    doc.title_line = bool(doc.title)
    render = _Blocks(doc)
    doc.preamble = render.render(before)
    for s in sections:
        s.title = doc.inline(s.raw).strip().replace("\n", " ")
        s.blocks = render.render(s.body)
    if not doc.title and not any(_has_content(b) for b in doc.preamble) and sections:
        tops = [s for s in sections if s.level == min(x.level for x in sections)]
        if len(tops) == 1:
            doc.title = tops[0].plain
    doc.sections = sections
    return doc
