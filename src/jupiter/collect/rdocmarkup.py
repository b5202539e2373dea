"""RDoc markup (`*.rdoc`: a Ruby project's README.rdoc and doc/ guides, Ruby's own), read as
the Markdown it renders to, so the question generator sees its structure.

Blocks, as RDoc's markup reference defines them, each found at the block's margin (the
indentation of its first line): `=` to `======` headings; text indented farther than the
margin a verbatim (code) block, fenced; `>>>` over indented text a block quote (`> `
lines); `---` a rule (dropped); bullet (`*`, `-`), numbered (`1.`) and lettered (`a.`)
items as Markdown items; labeled items (`[label] text`, `label:: text`) as a term line with
its description indented two spaces under it (how docparse reads a definition list);
directives (`:title:`, `:main:`, `:category:`, `:include:`, `:stopdoc:` ... `:startdoc:`)
are no text, `:title:` the document's title. Inline: `<tt>`/`<code>` and `+word+` code
spans, `<b>`/`*word*` bold, `<em>`/`<i>`/`_word_` emphasis, `{text}[url]` and `word[url]`
links their text (`rdoc-ref:`, `link:`, http and mailto targets), a backslash before markup
that escapes it dropped.
"""

from __future__ import annotations

import re

from jupiter.collect.texinfo import code_span

SUFFIX = ".rdoc"
MAX_DEPTH = 24  # nested lists read deeper than this are read as paragraphs

_HEADING = re.compile(r"^(={1,6})\s*(.*?)\s*$")
_RULE = re.compile(r"^-{3,}\s*$")
_DIRECTIVE = re.compile(r"^:([a-z_-]+):(?:\s+(.*))?$")
_BULLET = re.compile(r"^([*-])\s+(\S.*)$")
_NUMBERED = re.compile(r"^(\d+)\.\s+(\S.*)$")
_LETTERED = re.compile(r"^([A-Za-z])\.\s+(\S.*)$")
_BRACKET = re.compile(r"^\[([^\]]+)\](?:\s+(\S.*))?$")
_NOTE = re.compile(r"^(\S.*?)\s*::(?:\s+(\S.*))?$")
# inline markup
_TT = re.compile(r"<(tt|code)>(.*?)</\1>", re.S)
_BOLD = re.compile(r"<(b|strong)>(.*?)</\1>", re.S)
_EM = re.compile(r"<(em|i)>(.*?)</\1>", re.S)
_TARGET = (
    r"(?:https?|ftp|mailto|rdoc-ref|link|irc|www):[^\]\s]+|[^\]\s]+\.(?:html|rdoc|md)"
    r"|#[^\]\s]+"  # a place on the page: {Header Converters}[#class-CSV-label-Header]
)
_BRACED_LINK = re.compile(r"\{([^{}]+)\}\[(?:" + _TARGET + r")\]")
_WORD_LINK = re.compile(r"([\w.:#-]+)\[(?:" + _TARGET + r")\]")
_BARE_REF = re.compile(r"\brdoc-ref:([\w:#.@+-]+)")
_WORD_CODE = re.compile(r"(?<![\w+\\])\+([\w.:#/\[\]?!=<>-]+?)\+(?![\w+])")
_WORD_BOLD = re.compile(r"(?<![\w*\\])\*([\w.:#/-]+?)\*(?![\w*])")
_WORD_EM = re.compile(r"(?<![\w\\])_([A-Za-z0-9][\w.:#/-]*?)_(?![A-Za-z0-9])")
# a backslash before markup, or before a name it keeps from becoming a link ("\\String")
_ESCAPED = re.compile(r"\\([+*_<{\[:#\\]|(?=[A-Z]))")


def takes(name: str) -> bool:
    return name.lower().endswith(SUFFIX)


def read(text: str) -> tuple[str, str]:
    """(title, Markdown) of an RDoc file: the title its `:title:` directive names, else its
    first heading's text ("" for none)."""
    lines = _visible(text.expandtabs(8).split("\n"))
    title = ""
    kept: list[str] = []
    for line in lines:
        d = _DIRECTIVE.match(line.strip())
        if d is not None and len(line) - len(line.lstrip()) == 0:
            if d.group(1) == "title" and d.group(2):
                title = _plain(d.group(2))
            continue
        kept.append(line)
    blocks = _blocks(kept, 0, 0)
    if not title:
        first = next((b for b in blocks if b.startswith("#")), "")
        title = first.lstrip("#").strip()
    return title, "\n\n".join(blocks)


def _visible(lines: list[str]) -> list[str]:
    """The lines outside `:stopdoc:` ... `:startdoc:` (and RDoc's `--` ... `++` lines)."""
    out: list[str] = []
    hidden = False
    for line in lines:
        word = line.strip()
        if word in (":stopdoc:", "--"):
            hidden = True
        elif word in (":startdoc:", "++"):
            hidden = False
        elif not hidden:
            out.append(line.rstrip())
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _item(line: str) -> tuple[str, str, str] | None:
    """(kind, marker, text) of a list item's first line (its margin stripped): kind "-",
    "1", "a" or "label"."""
    body = line.lstrip(" ")
    if m := _BULLET.match(body):
        return "-", m.group(1), m.group(2)
    if m := _NUMBERED.match(body):
        return "1", m.group(1), m.group(2)
    if m := _LETTERED.match(body):
        return "a", m.group(1), m.group(2)
    if m := _BRACKET.match(body):
        return "label", m.group(1), m.group(2) or ""
    if (m := _NOTE.match(body)) and len(m.group(1)) <= 80:
        return "label", m.group(1), m.group(2) or ""
    return None


def _blocks(lines: list[str], margin: int, depth: int) -> list[str]:
    """Markdown blocks of `lines`, read at `margin`."""
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        ind = _indent(line)
        body = line.strip()
        if ind > margin:  # verbatim: this line and on while blank or indented farther
            j = i
            while j < n and (not lines[j].strip() or _indent(lines[j]) > margin):
                j += 1
            while not lines[j - 1].strip():
                j -= 1
            out.append(_verbatim(lines[i:j]))
            i = j
            continue
        if h := _HEADING.match(body):
            if h.group(2):
                out.append("#" * len(h.group(1)) + " " + _inline(h.group(2)))
            i += 1
            continue
        if _RULE.match(body):
            i += 1
            continue
        if body == ">>>":  # a block quote: the indented text under it
            j = i + 1
            while j < n and (not lines[j].strip() or _indent(lines[j]) > ind):
                j += 1
            inner = [ln for ln in lines[i + 1 : j]]
            quoted = _blocks(inner, _margin(inner), depth + 1)
            if quoted:
                text = "\n\n".join(quoted)
                out.append("\n".join("> " + x if x else ">" for x in text.split("\n")))
            i = j
            continue
        item = _item(line) if depth < MAX_DEPTH else None
        if item is not None:
            i = _list_item(lines, i, item, out, depth)
            continue
        j = i + 1  # a paragraph: lines at the margin that start no other block
        while j < n and lines[j].strip() and _indent(lines[j]) == margin:
            nxt = lines[j].strip()
            if _HEADING.match(nxt) or nxt == ">>>" or _item(lines[j]) is not None:
                break
            j += 1
        out.append(_inline("\n".join(x.strip() for x in lines[i:j])))
        i = j
    return out


def _margin(lines: list[str]) -> int:
    filled = [_indent(x) for x in lines if x.strip()]
    return min(filled) if filled else 0


def _list_item(
    lines: list[str], i: int, item: tuple[str, str, str], out: list[str], depth: int
) -> int:
    """One list item from lines[i] into `out`; the line after it."""
    kind, marker, text = item
    line = lines[i]
    ind = _indent(line)
    n = len(lines)
    if kind == "label" and not text:  # "[label]" over its text, indented below
        j = i + 1
        while j < n and not lines[j].strip():
            j += 1
        if j >= n or _indent(lines[j]) <= ind:
            out.append(_inline(marker))
            return i + 1
        col = _indent(lines[j])
        body_start = j
        first: list[str] = []
    else:
        col = len(line) - len(text)  # the item's text column
        body_start = i + 1
        first = [text]
    j = body_start
    while j < n:  # its lines: blank, or indented past the item's own margin
        if lines[j].strip() and _indent(lines[j]) <= ind:
            break
        j += 1
    while j > body_start and not lines[j - 1].strip():
        j -= 1
    rest = lines[body_start:j]
    # the item's margin: its text's column, or its lines' where they sit left of it
    margin = min(col, _margin(rest)) if any(x.strip() for x in rest) else col
    body = [" " * margin + x for x in first] + rest
    inner = _blocks(body, margin, depth + 1)
    if kind == "label":
        head = _inline(marker)
        desc = "\n\n".join(inner)
        shown = "\n".join("  " + x if x else "" for x in desc.split("\n"))
        out.append(head + ("\n" + shown if desc else ""))
    else:
        mark = {"-": "- ", "1": f"{marker}. ", "a": f"{marker}. "}[kind]
        text_out = "\n\n".join(inner)
        pad = " " * len(mark)
        rows = text_out.split("\n")
        out.append(mark + rows[0] + "".join("\n" + (pad + x if x else "") for x in rows[1:]))
    return j


def _verbatim(lines: list[str]) -> str:
    cut = _margin(lines)
    code = "\n".join(x[cut:] for x in lines)
    fence = "```"
    while fence in code:
        fence += "`"
    return f"{fence}\n{code}\n{fence}"


def _inline(text: str) -> str:
    """RDoc's inline markup as Markdown's: code spans first, kept aside (their text is
    code, no markup), then links, bold and emphasis."""
    spans: list[str] = []

    def aside(code: str) -> str:
        spans.append(code_span(code))
        return f"\x00{len(spans) - 1}\x00"

    text = _TT.sub(lambda m: aside(m.group(2)), text)
    text = _WORD_CODE.sub(lambda m: aside(m.group(1)), text)
    text = _BRACED_LINK.sub(r"\1", text)
    text = _WORD_LINK.sub(r"\1", text)
    text = _BARE_REF.sub(r"\1", text)
    text = _WORD_BOLD.sub(r"**\1**", text)
    text = _WORD_EM.sub(r"*\1*", text)
    text = _BOLD.sub(r"**\2**", text)
    text = _EM.sub(r"*\2*", text)
    text = _ESCAPED.sub(r"\1", text)
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], text)


def _plain(text: str) -> str:
    return re.sub(r"[`*]", "", _inline(text)).strip()
