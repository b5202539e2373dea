"""Markdown as the site generators that publish it read it: Jekyll's, Hugo's, MkDocs',
Docusaurus' and Astro's pages open with front matter (YAML between `---` lines, TOML
between `+++`) that is the page's settings, not its text, and whose `title` is the page's
title; MDX pages (`.mdx`, Docusaurus) import components and wrap text in them; admonitions
have each generator's own fence (`:::note`, `!!! note`, GitHub's `> [!NOTE]`); templating
(`{{< ref >}}`, `{% include %}`) and HTML comments are directives, not prose.

Read as they were, these reached training as text ("sidebar_position: 3", "import Tabs from
'@theme/Tabs';") and in answers (":::note The folder must be writable. :::"). Here the
front matter gives the title (and a `description`, which is prose, opens the text), and
the rest of the markup becomes the plain Markdown the question templates read. Code fences
are left as they are.
"""

from __future__ import annotations

import re
from typing import Any

import tomllib
import yaml

SUFFIXES = (".md", ".markdown", ".mdx", ".rmd", ".qmd")
# R Markdown and Quarto documents run their code chunks (```{r label, echo=FALSE}): a chunk
# is code in its language
KNITR_SUFFIXES = (".rmd", ".qmd")
_KNITR_CHUNK = re.compile(r"^(\s*)(```+)\s*\{\s*([A-Za-z][\w+-]*)\b[^}]*\}\s*$", re.M)
_FRONT = re.compile(
    r"\A\ufeff?(?:(---)[ \t]*\n(.*?)\n---|(\+\+\+)[ \t]*\n(.*?)\n\+\+\+)[ \t]*(?:\n|\Z)", re.S
)
_FENCE = re.compile(r"^\s*(```+|~~~+)")
_IMPORT = re.compile(
    r"^(?:import\s.+?\sfrom\s+['\"].+?['\"];?|import\s+['\"].+?['\"];?|export\s+(?:const|default|function)\b.*)\s*$"
)
# a line that is a JSX component's tag and nothing else: <Tabs>, </TabItem>, <Note type="x" />
# (indented four spaces, a line of an indented code block: kept)
_JSX_LINE = re.compile(r"^ {0,3}</?[A-Z][\w.]*(?:\s+[^<>]*?)?/?>\s*$")
# a MyST colon fence's opening (`:::{note}`, `::::{py:function} f(x)`): no Docusaurus one
_MYST_COLON = re.compile(r"^(\s*)(:{3,})(\{[\w:-]+\}.*)$")
_DOCUSAURUS = re.compile(r"^\s*:::\s*(\w+)?(?:\[(.*?)\]|\s+(.*))?\s*$")
_MKDOCS = re.compile(r"^(?:!!!|\?\?\?\+?)\s+(\w+)(?:\s+\"(.*?)\")?\s*$")
_GITHUB = re.compile(r"^(\s*>\s*)\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*$", re.I)
_SHORTCODE = re.compile(r"\{\{[<%].*?[%>]\}\}|\{%-?.*?-?%\}")
_COMMENT = re.compile(r"<!--.*?-->", re.S)


# a line Markdown would read as a heading
_HEADING_MARK = re.compile(r"#{1,6}(?:\s|$)")


def as_text(line: str) -> str:
    """A line of text as Markdown writes it: one that opens as a heading would ("# For ARM",
    a shell comment in a plain-text README) escaped, `\\# For ARM`."""
    return "\\" + line if _HEADING_MARK.match(line) else line


def is_markdown(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def is_knitr(name: str) -> bool:
    return name.lower().endswith(KNITR_SUFFIXES)


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(the page's front matter as a mapping, the text after it); ({}, text) when it has
    none or it is not a mapping."""
    m = _FRONT.match(text)
    if m is None:
        return {}, text
    raw = m.group(2) if m.group(1) else m.group(4)
    try:
        data = yaml.safe_load(raw) if m.group(1) else tomllib.loads(raw)
    except (yaml.YAMLError, tomllib.TOMLDecodeError, ValueError):
        return {}, text
    if not isinstance(data, dict):
        return {}, text
    return data, text[m.end() :]


def read(text: str, knitr: bool = False) -> tuple[str, str]:
    """(the page's title, "" when its front matter names none; the Markdown to read);
    `knitr`: an R Markdown or Quarto document, whose code chunks become code fences."""
    meta, body = front_matter(text)
    if knitr:
        body = _KNITR_CHUNK.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3).lower()}", body)
    title = meta.get("title")
    title = title.strip() if isinstance(title, str) else ""
    body = _clean(body)
    description = meta.get("description") or meta.get("summary")
    if isinstance(description, str) and description.strip():
        shown = " ".join(description.split())
        if shown not in " ".join(body.split()):
            body = f"{shown}\n\n{body.lstrip()}"
    return title, body


# a page's file named for its place, not its subject: a site's "index.md", a "README.md"
_PLACE_NAMES = frozenset(
    "index _index readme home intro introduction overview contents toc main start".split()
)
_ATX = re.compile(r"^(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")


def page_title(name: str, body: str) -> str:
    """The title a page named for its place ("index.md", "README.md") has: its first
    heading, when that is its only level-1 heading ("# Quiver"); "" otherwise, and for a
    page named for its subject (Node's "fs.md" is `fs`, not "File system"; "util.md" is
    `util`, not "Util")."""
    stem = name.rsplit("/", 1)[-1].split(".", 1)[0]
    fence = ""
    first = ""
    level1 = 0
    for line in body.splitlines():
        m = _FENCE.match(line)
        if m is not None:
            mark = m.group(1)
            fence = mark if not fence else ("" if mark[0] == fence[0] else fence)
            continue
        h = None if fence else _ATX.match(line)
        if h is None:
            continue
        if not first:
            first = h.group(2).strip() if len(h.group(1)) == 1 else "-"
        level1 += len(h.group(1)) == 1
    if not first or first == "-" or level1 != 1 or stem.lower() not in _PLACE_NAMES:
        return ""
    return first


def _uncommented(lines: list[str]) -> list[str]:
    """The lines with HTML comments taken out, outside code fences (an HTML example in a
    fence keeps its comments)."""
    out: list[str] = []
    fence, open_comment = "", False
    for line in lines:
        if open_comment:
            end = line.find("-->")
            if end < 0:
                continue
            line, open_comment = line[end + 3 :], False
            if not line.strip():
                continue
        m = _FENCE.match(line)
        if fence or m is not None:
            if m is not None:
                mark = m.group(1)
                fence = (
                    mark
                    if not fence
                    else ("" if mark[0] == fence[0] and len(mark) >= len(fence) else fence)
                )
            out.append(line)
            continue
        line = _COMMENT.sub("", line)
        start = line.find("<!--")
        if start >= 0:
            line, open_comment = line[:start], True
            if not line.strip():
                continue
        elif not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return out


def _clean(text: str) -> str:
    out: list[str] = []
    fence = ""
    mkdocs = False  # inside an indented MkDocs admonition's body
    colons: list[int] = []  # open MyST colon fences (`:::{note}`), by length
    for line in _uncommented(text.split("\n")):
        c = _MYST_COLON.match(line) if not fence else None
        if c is not None:  # a MyST colon fence: written as the backtick fence it means
            colons.append(len(c.group(2)))
            out.append(f"{c.group(1)}{'`' * len(c.group(2))}{c.group(3)}")
            continue
        if colons and not fence and re.fullmatch(r"\s*:{3,}\s*", line):
            if len(line.strip()) >= colons[-1]:
                out.append(line[: len(line) - len(line.lstrip())] + "`" * colons.pop())
                continue
        m = _FENCE.match(line)
        if m is not None:
            mark = m.group(1)
            if not fence:
                fence = mark
            elif mark.startswith(fence[0]) and len(mark) >= len(fence):
                fence = ""
            out.append(line[4:] if mkdocs and line.startswith("    ") else line)
            continue
        if fence:
            out.append(line[4:] if mkdocs and line.startswith("    ") else line)
            continue
        if mkdocs:
            if line.startswith("    ") or not line.strip():
                out.append(line[4:])
                continue
            mkdocs = False
        if _IMPORT.match(line) or _JSX_LINE.match(line):
            continue
        d = _DOCUSAURUS.match(line)
        if d is not None:
            kind, title = d.group(1), d.group(2) or d.group(3)
            if kind:
                out.append(
                    f"{kind.capitalize()}: {title.strip()}" if title else f"{kind.capitalize()}:"
                )
            continue  # a closing ::: says nothing
        k = _MKDOCS.match(line)
        if k is not None:
            out.append(
                f"{k.group(1).capitalize()}: {k.group(2)}"
                if k.group(2)
                else f"{k.group(1).capitalize()}:"
            )
            mkdocs = True
            continue
        g = _GITHUB.match(line)
        if g is not None:
            out.append(f"{g.group(1)}{g.group(2).capitalize()}:")
            continue
        out.append(_SHORTCODE.sub("", line))
    cleaned = re.sub(r"\n{3,}", "\n\n", "\n".join(out))
    return cleaned.strip("\n") + "\n"
