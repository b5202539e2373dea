"""MediaWiki markup (wikitext): `*.mediawiki` and `*.wiki` files (Bitcoin's BIPs, a repo's
wiki pages) and a wiki's XML export (Special:Export, a dump: a page a document), read as the
Markdown the page renders to, so the question generator sees its structure.

Blocks: `== Heading ==` headings; `*` and `#` lists (nested by their count), `;term` with
`:text` a term line over its indented text (a definition for docparse), a `:` line alone an
indented paragraph's text; a line that starts with a space, `<pre>`, `<source lang=x>` and
`<syntaxhighlight lang=x>` fenced code; `{| ... |}` tables a Markdown pipe table (`!` cells
its header, a cell's attributes before its `|` dropped); `----` rules dropped. Inline:
`'''bold'''`, `''italic''`, `[[Page|text]]` and `[[Page]]` their text (a category, file or
image link none), `[https://x text]` its text, `<code>`/`<tt>` code spans, `<br>` a line
break, other HTML tags their text, `x<sup>2</sup>` `x^2`, entities their characters,
`<nowiki>` its text as written. No text: comments, templates (`{{...}}`, nested), `<ref>`
footnotes and `<references/>`, magic words (`__TOC__`), `<gallery>`, `<math>` kept as code.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

from jupiter.collect.texinfo import code_span

SUFFIXES = (".mediawiki", ".wiki")
MAX_NESTING = 40  # templates and tables nested deeper are read flat
BAD_EXPORT = "bad_wiki_export"
FIXES = {BAD_EXPORT: "a MediaWiki XML export that does not parse: export it again"}

_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)
_REF = re.compile(r"<ref\b[^>/]*/>|<ref\b[^>]*>.*?</ref>|<references\b[^>]*/?>", re.S | re.I)
_MAGIC = re.compile(r"__[A-Z]+__")
_DROP_BLOCKS = re.compile(r"<(gallery|noinclude|timeline)\b[^>]*>.*?</\1>", re.S | re.I)
_CODE_BLOCK = re.compile(
    r"<(pre|source|syntaxhighlight)\b([^>]*)>(.*?)</\1>", re.S | re.I
)  # fmt: skip
_LANG = re.compile(r"""lang\s*=\s*["']?([\w+#-]+)""", re.I)
_NOWIKI = re.compile(r"<nowiki>(.*?)</nowiki>", re.S | re.I)
_HEADING = re.compile(r"^(={1,6})\s*(.+?)\s*\1\s*$")
_LIST = re.compile(r"^([*#;:]+)\s*(.*)$")
_RULE = re.compile(r"^-{4,}\s*$")
_INTERNAL = re.compile(r"\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]")
_EXTERNAL = re.compile(r"\[(?:https?|ftp|mailto|irc|news)[^\s\]]*(?:\s+([^\]]*))?\]")
_TAG_CODE = re.compile(r"<(code|tt|kbd|samp|math)\b[^>]*>(.*?)</\1>", re.S | re.I)
_SUP = re.compile(r"(?<=\w)<sup>(.*?)</sup>", re.S | re.I)
_BR = re.compile(r"<br\s*/?>", re.I)
_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")
_NO_LINK = ("category:", "file:", "image:", "media:")


def takes(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_export(head: str) -> bool:
    """Whether an XML file's start is a MediaWiki export's."""
    return "<mediawiki" in head[:4096] and "mediawiki.org/xml/export" in head[:4096]


def export_pages(text: str) -> list[tuple[str, str]] | None:
    """(title, wikitext) of each article page of a MediaWiki XML export (the main namespace,
    its latest revision); None when the file does not parse (or declares entities)."""
    if "<!ENTITY" in text[:65536]:
        return None
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        return None
    pages: list[tuple[str, str]] = []
    for page in root.iter():
        if not page.tag.endswith("}page") and page.tag != "page":
            continue
        fields = {c.tag.rsplit("}", 1)[-1]: c for c in page}
        title = (fields["title"].text or "") if "title" in fields else ""
        ns = (fields["ns"].text or "0") if "ns" in fields else "0"
        if ns.strip() != "0" or "redirect" in fields:
            continue
        texts = [t for r in page if r.tag.endswith("revision") for t in r if t.tag.endswith("text")]
        if title and texts and texts[-1].text:
            pages.append((title, texts[-1].text))
    return pages


def read(text: str) -> tuple[str, str]:
    """(title, Markdown) of a page's wikitext: the title its `= Title =` heading gives, or a
    preamble's `Title:` line (a BIP's), "" for none (a page's title is then its name: the
    file's, the export's `<title>`)."""
    blocks = _blocks(_clean(text))
    first = next((b for b in blocks if b.startswith("# ")), "")
    title = first[2:].strip()
    if not title and blocks and blocks[0].startswith("```"):  # a BIP's preamble: "Title: x"
        said = re.search(r"^\s*Title:\s*(\S.*)$", blocks[0], re.M)
        title = said.group(1).strip() if said else ""
    return title, "\n\n".join(blocks)


def _templates(text: str) -> str:
    """The text without its templates (`{{...}}`, nested)."""
    out: list[str] = []
    depth = 0
    i = 0
    n = len(text)
    while i < n:
        if text.startswith("{{", i):
            depth += 1
            i += 2
        elif depth and text.startswith("}}", i):
            depth -= 1
            i += 2
        else:
            if not depth:
                out.append(text[i])
            i += 1
    return "".join(out)


def _clean(text: str) -> str:
    text = text.replace("\r\n", "\n")
    text = _COMMENT.sub("", text)
    text = _DROP_BLOCKS.sub("", text)
    text = _REF.sub("", text)
    text = _MAGIC.sub("", text)
    return text


def _blocks(text: str) -> list[str]:
    # code blocks and nowiki first, kept aside from the markup rules
    kept: list[str] = []

    def aside(block: str) -> str:
        kept.append(block)
        return f"\x00{len(kept) - 1}\x00"

    def code(m: re.Match[str]) -> str:
        lang = _LANG.search(m.group(2))
        body = html.unescape(m.group(3)).strip("\n")
        fence = "```"
        while fence in body:
            fence += "`"
        return "\n\n" + aside(f"{fence}{lang.group(1) if lang else ''}\n{body}\n{fence}") + "\n\n"

    text = _CODE_BLOCK.sub(code, text)
    text = _NOWIKI.sub(lambda m: aside(m.group(1)), text)
    text = _templates(text)
    out: list[str] = []
    lines = text.split("\n")
    i, n = 0, len(lines)
    para: list[str] = []

    def flush() -> None:
        if para:
            got = _inline(" ".join(x.strip() for x in para)).strip()
            if got:
                out.append(got)
            para.clear()

    while i < n:
        line = lines[i]
        body = line.strip()
        if not body:
            flush()
            i += 1
            continue
        if re.fullmatch(r"\x00\d+\x00", body):  # a code block set aside
            flush()
            out.append(body)
            i += 1
            continue
        if h := _HEADING.match(body):
            flush()
            out.append("#" * len(h.group(1)) + " " + _inline(h.group(2)))
            i += 1
            continue
        if _RULE.match(body):
            flush()
            i += 1
            continue
        if body.startswith("{|"):
            flush()
            i = _table(lines, i, out)
            continue
        if line.startswith(" "):  # preformatted: the lines that start with a space
            flush()
            j = i
            while j < n and lines[j].startswith(" ") and lines[j].strip():
                j += 1
            code_text = "\n".join(x[1:] for x in lines[i:j])
            out.append(f"```\n{html.unescape(code_text)}\n```")
            i = j
            continue
        if _LIST.match(line):
            flush()
            i = _list(lines, i, out)
            continue
        para.append(line)
        i += 1
    flush()
    restored = "\n\n".join(out)
    restored = re.sub("\x00(\\d+)\x00", lambda m: kept[int(m.group(1))], restored)
    return [b for b in restored.split("\n\n") if b.strip()] if restored else []


def _list(lines: list[str], i: int, out: list[str]) -> int:
    """The list that starts at lines[i] into `out` (one block); the line after it."""
    rows: list[str] = []
    n = len(lines)
    while i < n and (m := _LIST.match(lines[i])):
        marks, text = m.group(1), m.group(2)
        if marks.startswith(";"):  # ";term : text" or ";term" over ":text" lines
            term, _, rest = text.partition(" : ")
            if not rest and ":" in text and not re.search(r"https?:", text):
                term, _, rest = text.partition(":")
            rows.append(_inline(term.strip()))
            if rest.strip():
                rows.append("  " + _inline(rest.strip()))
            i += 1
            while i < n and (d := _LIST.match(lines[i])) and d.group(1).startswith(":"):
                rows.append("  " * len(d.group(1)) + _inline(d.group(2).strip()))
                i += 1
            continue
        depth = len(marks) - 1
        last = marks[-1]
        if last == ":":  # indentation: the text, indented under what it continues
            rows.append("  " * len(marks) + _inline(text.strip()))
        else:
            bullet = "- " if last == "*" else "1. "
            rows.append("  " * depth + bullet + _inline(text.strip()))
        i += 1
    out.append("\n".join(r for r in rows if r.strip()))
    return i


def _table(lines: list[str], i: int, out: list[str]) -> int:
    """The table that starts at lines[i] ("{|") into `out`; the line after its "|}"."""
    rows: list[list[str]] = []
    heads: list[bool] = []
    depth = 0
    n = len(lines)
    j = i
    while j < n:
        body = lines[j].strip()
        j += 1
        if body.startswith("{|"):
            depth += 1  # an inner table's rows are the outer cell's: not read
            continue
        if body.startswith("|}"):
            depth -= 1
            if depth <= 0:
                break
            continue
        if depth > 1 or body.startswith("|+"):
            continue
        if body.startswith("|-"):
            rows.append([])
            heads.append(False)
            continue
        if body.startswith(("|", "!")):
            if not rows:
                rows.append([])
                heads.append(False)
            head = body.startswith("!")
            sep = "!!" if head else "||"
            for cell in body[1:].split(sep):
                if head and "||" in cell:
                    parts = cell.split("||")
                else:
                    parts = [cell]
                for part in parts:
                    rows[-1].append(_cell(part))
            heads[-1] = heads[-1] or head
        elif rows and rows[-1]:  # a cell's text on more lines
            rows[-1][-1] = (rows[-1][-1] + " " + _inline(body)).strip()
    rows_kept = [(r, h) for r, h in zip(rows, heads, strict=True) if any(r)]
    if not rows_kept:
        return j
    width = max(len(r) for r, _ in rows_kept)
    if width > 1 and len(rows_kept[0][0]) == 1 and len(rows_kept) > 1:
        out.append(rows_kept.pop(0)[0][0])  # a title row across the table: its caption
    table = [[c.replace("|", "\\|") for c in r] + [""] * (width - len(r)) for r, _ in rows_kept]
    if not rows_kept[0][1]:
        table.insert(0, [""] * width)
    lines_out = ["| " + " | ".join(r) + " |" for r in table]
    lines_out.insert(1, "| " + " | ".join(["---"] * width) + " |")
    out.append("\n".join(lines_out))
    return j


def _cell(part: str) -> str:
    """A cell's text: its attributes (`style="..." | text`) dropped."""
    if "|" in part and not part.strip().startswith("[["):
        attrs, _, text = part.partition("|")
        if "=" in attrs and "[[" not in attrs:
            part = text
    return _inline(part.strip())


def _inline(text: str) -> str:
    spans: list[str] = []

    def aside(code: str) -> str:
        spans.append(code_span(html.unescape(code)))
        return f"\x01{len(spans) - 1}\x01"

    text = _TAG_CODE.sub(lambda m: aside(m.group(2)), text)
    text = _INTERNAL.sub(_internal, text)
    text = _EXTERNAL.sub(lambda m: (m.group(1) or "").strip(), text)
    text = _SUP.sub(r"^\1", text)
    text = _BR.sub("\n", text)
    text = _TAG.sub("", text)
    text = re.sub(r"'''''(.+?)'''''", r"***\1***", text)
    text = re.sub(r"'''(.+?)'''", r"**\1**", text)
    text = re.sub(r"''(.+?)''", r"*\1*", text)
    text = html.unescape(text)
    return re.sub("\x01(\\d+)\x01", lambda m: spans[int(m.group(1))], text)


def _internal(m: re.Match[str]) -> str:
    target, shown = m.group(1).strip(), m.group(2)
    if target.lower().startswith(_NO_LINK):
        return ""
    return (shown if shown is not None else target.split("#")[-1] or target).strip()
