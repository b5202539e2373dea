"""Vim help files (`doc/*.txt` of Vim, Neovim and every plugin) read as `:help` shows them:
each tagged entry a document named by its tag, the rest of the file a page in Markdown.

A help file is plain text with a few conventions (`:help help-writing`): its first line is
`*name.txt*` and a short description, its last a modeline (`vim:tw=78:ts=8:ft=help:norl:`);
a line of `=` (or `-`) starts a section, whose first line is its heading (`1. Deleting text
*deleting*`); `*tag*` marks a place `:help tag` jumps to, `|tag|` links one; a line ending
in ` >` (or `>vim`, `>lua`) opens an example, indented, that a line starting with `<` (or
the next line at column 0) closes; a line ending in ` ~` is a column heading. An entry, the
way commands, options, functions and mappings are documented, is a tag line whose syntax
stands at column 0 with its description indented below (or after a tab on the same line):

    :[range]d[elete] [x]    Delete [range] lines (default: current line) [into
                            register x].
    'tabstop' 'ts'          number  (default 8)
                            local to buffer
            Number of spaces that a <Tab> in the file counts for.

Read as text, a file was one document whose chunks mixed a dozen entries (a question about
`'tabstop'` was answered by its neighbour's description, `*ts*` and `|links|` in every
answer). Now each entry is a document `vim:<tag>`: the tag its syntax spells out in full
(`:delete` over `:d`, `'tabstop'` over `'ts'`), else its first; its text the syntax lines,
then the description dedented: examples fenced as ```` ```vim ````, `|tag|` as a code span,
tags dropped, an option's type, default and scope as a sentence ("Type: number (default 8),
local to buffer."). Lines at column 0 with several tags (`:map`, `:nm[ap]`, ...) before one
description are one entry. What is not an entry (a section's prose, a user-manual chapter)
stays in the file's page document, its section headings as `##`, tagged title lines and
column headings as `###`, with the same inline rules, so nothing is taught twice.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from jupiter.collect.result import SourceFile, api_document
from jupiter.records import Document

URI_PREFIX = "vim:"
SUFFIXES = (".txt",)
LANGUAGE = "vim"

# the first line: `*usr_03.txt*  For Vim version 9.0.` (`*fugitive.txt*  A Git wrapper`)
_HEADER = re.compile(r"^\*[^*\s]+\.txt\*(?:\s|$)")
# the modeline at the end; its ft=help says the format when the first line does not
_MODELINE = re.compile(r"^\s*vim?:.*\b(?:ft|filetype)=help\b.*$")
_ANY_MODELINE = re.compile(r"^\s*(?:vim?|ex):\s*(?:set?\s+)?[\w=:\s,.-]*:?\s*$")
# a tag: `*name*`, whitespace (or the line's edge) on both sides
_TAG = re.compile(r"(?:(?<=\s)|^)\*([^\s*|\"]+)\*(?=\s|$)")
# a link: `|name|`, no space inside
_LINK = re.compile(r"\|([^\s|\"*]+)\|")
_RULE = re.compile(r"^(?:={20,}|-{20,})\s*$")
# an example's opening: the line ends in `>` or `>lang` after a space (or is `>` alone)
_OPEN = re.compile(r"(?:^|\s)>(\w*)\s*$")
_COLUMN_HEADING = re.compile(r"\s~\s*$|^~$")
_ERROR_TAG = re.compile(r"^E\d+$")
_OPTION = re.compile(r"^'[\w-]+'")
_SCOPE = re.compile(
    r"^(?:global|local to (?:buffer|window|tab page)|global or local to (?:buffer|window)"
    r"|\{(?:not|only)\b[^}]*\}?)"
)
# where a syntax line's description begins: prose, "or", links alone
_STOP = re.compile(r"^(?:[A-Z][a-z]|or$|(?:\|[^|\s]+\|\s*)+$|\()")
_BANNER = re.compile(r"^\s*[A-Z][A-Z0-9 -]* (?:REFERENCE|USER) MANUAL\b")
_LINKS_ONLY = re.compile(r"^(?:\|[^|\s]+\|\s*)+$")
_NUMBERED = re.compile(r"^\d+(?:\.\d+)*\.?\s+[A-Za-z]")
_CAPITALS = re.compile(r"^[A-Z][A-Z0-9 ,&/'()-]*[A-Z]$")
# three words of prose in a row: a sentence, not syntax (`{lhs} {rhs}`, `[, {msg}]`)
_WORDS = re.compile(r"(?<![\w{\[<'-])[a-z]{2,}[,;]?\s+[a-z]{2,}[,;]?\s+[a-z]{2,}(?![\w}\]>(-])")
_ARG_LINE = re.compile(r"^(\{[\w-]+\})\s{2,}")
_META = re.compile(r"^(?:Type|Default|Scope)s?:\s")
_FOLD = re.compile(r"\s*(?:\{\{\{|\}\}\})\d*")
_FUNCTION = re.compile(r"^[\w.#:]+\(.*\)\s*$")
_TAB = 8


def takes(name: str) -> bool:
    """A file name a help file may have: `*.txt`."""
    return name.lower().endswith(SUFFIXES)


def is_help(text: str) -> bool:
    """Whether `text` is a Vim help file: its first line `*name.txt*`, or its modeline
    `ft=help` among its last lines."""
    first = next((line for line in text.splitlines()[:3] if line.strip()), "")
    if _HEADER.match(first):
        return True
    return any(_MODELINE.match(line) for line in text.splitlines()[-5:])


@dataclass
class _Entry:
    heads: list[str] = field(default_factory=list)  # its syntax lines, as written
    tags: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # its description, as written
    line: int = 0


def _width(s: str) -> int:
    return len(s.expandtabs(_TAB)) - len(s.expandtabs(_TAB).lstrip())


def _tags(line: str) -> list[str]:
    return _TAG.findall(line)


def _without_tags(line: str) -> str:
    return _TAG.sub("", line).rstrip()


def _split_head(line: str) -> tuple[str, str]:
    """A column-0 line's syntax and what follows it: the parts between tabs (or runs of
    spaces) up to one that reads as prose (a capital and a lower-case letter), "or", or
    links alone (`|mapmode-n|`); an option's name(s) alone, its type and default after."""
    parts = [p.strip() for p in re.split(r"\t+|\s{3,}", _without_tags(line)) if p.strip()]
    if not parts:
        return "", ""
    if _OPTION.match(parts[0]):
        names = [w for w in parts[0].split() if _OPTION.match(w)]
        if len(names) == len(parts[0].split()):
            rest = parts[1:]
            while rest and all(_OPTION.match(w) for w in rest[0].split()):
                names += rest.pop(0).split()
            return " ".join(names), " ".join(rest)
    k = 1
    while k < len(parts) and not _STOP.match(parts[k]) and not _WORDS.search(parts[k]):
        if parts[k].endswith(".") and " " in parts[k]:  # `[count] words backward.`
            break
        k += 1
    return " ".join(parts[:k]), " ".join(parts[k:])


def inline(text: str) -> str:
    """A line of help text as Markdown: links as code spans, tags and a column heading's
    `~` dropped."""
    text = _LINK.sub(lambda m: f"`{m.group(1)}`", _FOLD.sub("", _without_tags(text)))
    return _COLUMN_HEADING.sub("", text).rstrip()


def render(lines: list[str], headings: bool = True) -> str:
    """Help text as Markdown: examples fenced (their indentation dedented), the rest dedented
    and made inline; column headings as `###`."""
    out: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        if prose:
            out.extend(textwrap.dedent("\n".join(s.expandtabs(_TAB) for s in prose)).split("\n"))
            prose.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        opened = _OPEN.search(line)
        if opened is not None and not _COLUMN_HEADING.search(line):
            before = line[: opened.start()].rstrip()
            if before.strip():
                prose.append(inline(before))
            flush()
            lang = opened.group(1) or LANGUAGE
            block, j = [], i + 1
            while j < len(lines):
                nxt = lines[j]
                if _closes(nxt):
                    break
                block.append(nxt.expandtabs(_TAB))
                j += 1
            code = textwrap.dedent("\n".join(block)).strip("\n")
            if code.strip():
                out.extend(["", f"```{lang}", code, "```", ""])
            if j < len(lines) and lines[j].startswith("<"):
                rest = lines[j][1:].strip()  # the text after an example's end
                lines = [*lines[:j], rest] + lines[j + 1 :] if rest else lines
                i = j if rest.strip() else j + 1
            else:
                i = j
            continue
        if headings and _COLUMN_HEADING.search(line) and line.strip() != "~" and not _width(line):
            flush()
            heading = inline(line).strip()
            out.extend(["", f"### {heading}", ""] if heading else [])
        elif not headings and _COLUMN_HEADING.search(line) and line.strip() != "~":
            # an entry's labelled block (`Parameters: ~`): the label, then its lines dedented,
            # an argument's `{name}  text` as `{name}: text`
            flush()
            label, j = inline(line).strip(), i + 1
            block = []
            while j < len(lines) and lines[j].strip() and _width(lines[j]) > _width(line):
                block.append(lines[j].expandtabs(_TAB))
                j += 1
            items = textwrap.dedent("\n".join(block)).split("\n") if block else []
            out.extend(["", label, *[_ARG_LINE.sub(r"\1: ", inline(x)) for x in items], ""])
            i = j
            continue
        else:
            prose.append(inline(line))
        i += 1
    flush()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(s.rstrip() for s in out)).strip("\n")


def _expanded(head: str) -> str:
    """A syntax line with its optional parts read in full: `:[range]d[elete] [x]` ->
    `:delete [x]`, `["x]dd` -> `dd` (a register, a count, a range dropped)."""
    s = re.sub(r"^:(?:\[[^\]]*\])+", ":", head)  # an Ex command's range or count first
    s = re.sub(r'\[(?:"x|range|count|N|cnt|\d+|\+\+opt|\+cmd)\]', "", s)
    return re.sub(r"(\w)\[(\w+)\]", r"\1\2", s)


def _name(entry: _Entry) -> str:
    """The entry's name: the Ex command a syntax line spells out in full (`:delete` for
    `:[range]d[elete]`, tagged `:d`), else the longest of its tags its first syntax line
    spells out, else its first tag that is not an error number (`E470`)."""
    tags = [t for t in entry.tags if not _ERROR_TAG.match(t)] or entry.tags
    for head in entry.heads:  # an Ex command spelled out: `:delete`
        word = re.match(r"^:[A-Za-z]+!?", _expanded(_split_head(head)[0]))
        if word and any(word.group().startswith(t) for t in tags if t.startswith(":")):
            return word.group()
    shown = _expanded(_split_head(entry.heads[0])[0]) if entry.heads else ""
    spelled = [
        t for t in tags if re.search(rf"(?:^|[\s\"'(\[]){re.escape(t)}(?=$|[\s(\[{{!])", shown)
    ]
    if spelled:
        return max(spelled, key=len)
    return tags[0]


def _kind(name: str) -> str:
    if name.startswith(":"):
        return "command"
    if _OPTION.match(name):
        return "option"
    if name.endswith("()"):
        return "function"
    return "entry"


def _entry_text(entry: _Entry) -> tuple[str, str]:
    """(text, signature) of an entry's document."""
    syntax: list[str] = []
    after: list[str] = []
    links: list[str] = []
    for h in entry.heads:
        s, rest = _split_head(h)
        s = re.sub(r"\s+or$", "", s).strip()
        if s and s != "or":
            syntax.append(s)
        if rest and _LINKS_ONLY.match(rest):
            links += _LINK.findall(rest)
        elif rest and rest != "or":
            after.append(rest)
    lines = list(entry.lines)
    lead: list[str] = []  # an option's "Type: ..." sentence
    if syntax and _OPTION.match(syntax[0]):  # type and default, then the scope lines
        facts = [" ".join(a.split()) for a in after]
        while lines and (not lines[0].strip() or _SCOPE.match(lines[0].strip())):
            said = lines.pop(0).strip()
            while said.startswith("{") and "}" not in said and lines:  # over two lines
                said += " " + lines.pop(0).strip()
            if said:
                facts.append(" ".join(inline(said).split()))
        if facts:
            lead = [f"Type: {', '.join(facts)}."]
        after = []
    # the description a head line began after its syntax, then the indented lines; a
    # variant's syntax at column 0 among them (`:[range]d[elete] [x] {count}`) a paragraph
    # of its own, its syntax in a code span before its description
    cuts = [
        k
        for k, line in enumerate(lines)
        if line.strip() and not _width(line) and not line.startswith("<")
    ]
    parts = [render([*after, *_dedent_lines(lines[: cuts[0] if cuts else len(lines)])], False)]
    for n, k in enumerate(cuts):
        variant, said = _split_head(lines[k])
        end = cuts[n + 1] if n + 1 < len(cuts) else len(lines)
        told = render(
            [said, *_dedent_lines(lines[k + 1 : end])]
            if said
            else _dedent_lines(lines[k + 1 : end]),
            False,
        )
        parts.append(f"`{variant}`: {told}" if variant else told)
    body = "\n\n".join(p for p in parts if p.strip())
    see = "See also: " + ", ".join(f"`{x}`" for x in dict.fromkeys(links)) + "." if links else ""
    # an option's type, default and scope after its description's first paragraph
    paras = [p for p in body.split("\n\n") if p.strip()]
    if not lead and len(paras) > 1 and all(_META.match(x) for x in paras[0].split("\n")):
        lead = [paras.pop(0)]  # a plugin option's `Type: String` / `Default: 0` lines
    paras[1:1] = lead
    text = "\n\n".join(p for p in ["\n".join(syntax), *paras, see] if p.strip())
    signature = syntax[0] if syntax and _FUNCTION.match(syntax[0]) else ""
    return text, signature


def _dedent_lines(lines: list[str]) -> list[str]:
    """Description lines with their common indentation taken off (the example blocks keep
    their own, deeper, for `render` to find)."""
    widths = [_width(s) for s in lines if s.strip() and not s.startswith("<")]
    cut = min(widths) if widths else 0
    return [
        ("<" + s[1:].strip() if s.startswith("<") else s.expandtabs(_TAB)[cut:])
        if s.strip()
        else ""
        for s in lines
    ]


def _sections(lines: list[str]) -> list[tuple[int, int]]:
    """The (start, end) line ranges between section rules."""
    cuts = [i for i, s in enumerate(lines) if _RULE.match(s)]
    bounds = [-1, *cuts, len(lines)]
    return [(bounds[k] + 1, bounds[k + 1]) for k in range(len(bounds) - 1)]


def _closes(line: str) -> bool:
    """Whether `line` ends an example: a `<` or any text at column 0 (Vim's rule), or the
    next entry's tags alone on a line, however indented."""
    return line.startswith("<") or (bool(line.strip()) and not _width(line)) or _is_tag_only(line)


def _in_examples(lines: list[str]) -> list[bool]:
    """Which lines stand inside an example block (never read for tags or entries)."""
    inside = [False] * len(lines)
    open_ = False
    for i, line in enumerate(lines):
        if open_:
            if _closes(line):
                open_ = False
            else:
                inside[i] = True
                continue
        if _OPEN.search(line) and not _COLUMN_HEADING.search(line):
            open_ = True
    return inside


def _variant(lines: list[str], k: int, hi: int) -> bool:
    """Whether the line at column 0 at `k`, inside an entry, is another syntax of it (an
    untagged `:[range]j[oin][!] {count} [flags]` over its own indented description): it
    reads as syntax, not a sentence, and the next line is indented."""
    line = lines[k]
    if _tags(line) or _RULE.match(line) or _OPEN.search(line) or k + 1 >= hi:
        return False
    syntax = _split_head(line)[0]
    nxt = lines[k + 1]
    if not syntax or _STOP.match(syntax) or syntax.rstrip().endswith((".", ":", ",", ";")):
        return False
    return bool(nxt.strip()) and _width(nxt) > 0 and len(syntax.split()) <= 6


def _is_prose(syntax: str) -> bool:
    """A line at column 0 that is a sentence, not syntax: three words of prose in a row, or
    a capitalised word opening three or more (an event's name `BufNewFile` is syntax)."""
    return bool(_WORDS.search(syntax)) or (bool(_STOP.match(syntax)) and len(syntax.split()) >= 3)


def _is_heading(line: str) -> bool:
    """A tagged line at column 0 that titles what follows: numbered (`4.2 Substitute`) or in
    capitals (`INTRODUCTION`)."""
    text = _FOLD.sub("", _without_tags(line)).strip()
    return bool(_NUMBERED.match(text) or _CAPITALS.match(text))


def _is_tag_only(line: str) -> bool:
    return bool(_tags(line)) and not _without_tags(line).strip()


def parse(text: str) -> tuple[list[str], list[_Entry]]:
    """(the page's lines, the entries) of a help file's text: entries taken out of the page,
    section headings made `##` and tagged title lines `###`."""
    lines = text.split("\n")
    if lines and _HEADER.match(lines[0]):
        lines[0] = ""
    while lines and (not lines[-1].strip() or _ANY_MODELINE.match(lines[-1])):
        lines.pop()
    lines = [line for line in lines if not _BANNER.match(line)]
    quoted = _in_examples(lines)
    # an example's closing `<` on the line of the next entry's tags: two lines
    cut = [
        k
        for k, line in enumerate(lines)
        if line.startswith("<") and k and quoted[k - 1] and not quoted[k] and _tags(line)
    ]
    for k in reversed(cut):
        lines[k : k + 1] = ["<", " " + lines[k][1:]]
        quoted[k : k + 1] = [False, False]
    page: list[str] = []
    entries: list[_Entry] = []
    for lo, hi in _sections(lines):
        first = True
        i = lo
        while i < hi:
            line = lines[i]
            if quoted[i]:
                page.append(line)
                i += 1
                continue
            if first and line.strip():
                first = False
                if lo > 0 and _width(line) == 0 and not _OPEN.search(line):
                    heading = re.sub(r"^\d+(?:\.\d+)*\.?\s+", "", inline(line).strip())
                    page.extend(["", f"## {' '.join(heading.split())}", ""])
                    i += 1
                    continue
            if _tags(line):
                got = _entry(lines, quoted, i, hi)
                if got is not None:
                    entry, end = got
                    entries.append(entry)
                    i = end
                    continue
                left = inline(line).strip()
                alone = i == lo or not lines[i - 1].strip()
                if (
                    left
                    and alone
                    and not _LINK.search(line)
                    and not _width(line)
                    and not _OPEN.search(line)
                ):
                    page.extend(["", f"### {' '.join(left.split())}", ""])
                    i += 1
                    if i < hi and re.match(r"^[-=~]{3,}\s*$", lines[i]):  # its underline
                        i += 1
                    continue
            page.append(line)
            i += 1
    return page, entries


def _entry(lines: list[str], quoted: list[bool], i: int, hi: int) -> tuple[_Entry, int] | None:
    """The entry the tag line at `i` opens, and the line after it; None when it opens none
    (no syntax at column 0, or nothing indented under it)."""
    entry = _Entry(line=i + 1)
    j = i
    while j < hi and _is_tag_only(lines[j]) and not quoted[j]:  # tags stacked over it
        entry.tags += _tags(lines[j])
        j += 1
    # the syntax lines: at column 0, each with its own tags perhaps
    while j < hi and not quoted[j] and lines[j].strip() and _width(lines[j]) == 0:
        if _RULE.match(lines[j]):
            break
        if entry.heads and _is_tag_only(lines[j]):
            break
        if _is_heading(lines[j]) or _is_prose(_split_head(lines[j])[0]):
            break
        entry.heads.append(lines[j])
        entry.tags += _tags(lines[j])
        j += 1
        rest = _split_head(entry.heads[-1])[1]
        if rest and rest != "or" and not _LINKS_ONLY.match(rest):
            break  # a line with its own description: an entry of a table (`unix  Unix ...`)
        # a tag-only line between syntax lines (`*:nore* *:norem*` over `:no[remap]`)
        pure = not _split_head(entry.heads[-1])[1]
        if pure and j < hi and _is_tag_only(lines[j]) and j + 1 < hi and not _width(lines[j + 1]):
            if lines[j + 1].strip() and not _is_tag_only(lines[j + 1]):
                entry.tags += _tags(lines[j])
                j += 1
    if not entry.heads or not entry.tags:
        return None
    # its variants' tags under it (`*b:ale_x*` under `g:ale_x`), when its description, not
    # the next entry's syntax at column 0, follows them
    k = j
    while k < hi and _is_tag_only(lines[k]) and not quoted[k]:
        k += 1
    nxt = next((n for n in range(k, hi) if lines[n].strip()), hi)
    if k > j and nxt < hi and _width(lines[nxt]):
        for line in lines[j:k]:
            entry.tags += _tags(line)
        j = k
    # the description: indented lines and blank lines, up to the next line at column 0
    k = j
    while k < hi:
        line = lines[k]
        ends_example = line.startswith("<") and k > j and quoted[k - 1]
        if line.strip() and not _width(line) and not quoted[k] and not ends_example:
            if not _variant(lines, k, hi):
                break
        if _is_tag_only(line) and not quoted[k]:
            break
        k += 1
    body = lines[j:k]
    while body and not body[-1].strip():
        body.pop()
    same_line = any(_split_head(h)[1] for h in entry.heads)
    if not any(s.strip() for s in body) and not same_line:
        return None
    if not any(s.strip() for s in body) and all(_split_head(h)[0] == "" for h in entry.heads):
        return None
    entry.lines = body
    return entry, k


def split(doc: Document) -> list[Document]:
    """A help file's documents: its page (what is not an entry, when anything is left), then
    one document per entry, in file order; [doc] when it is not a help file."""
    if not is_help(doc.text):
        return [doc]
    page_lines, entries = parse(doc.text)
    page = render(page_lines)
    out: list[Document] = []
    if page.strip():
        out.append(
            Document(doc.source, doc.uri, doc.title, page, {**doc.meta, "format": "vimhelp"})
        )
    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))
    seen: set[str] = set()
    for e in entries:
        name = _name(e)
        text, signature = _entry_text(e)
        if name in seen or not text.strip():
            continue
        seen.add(name)
        others = [t for t in e.tags if t != name and not _ERROR_TAG.match(t)]
        more = {"language": LANGUAGE, "described": True, "tags": others}
        out.append(
            api_document(
                doc.source, URI_PREFIX, f, name, text, _kind(name), signature, e.line, **more
            )
        )
    return out
