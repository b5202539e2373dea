"""An R package's documentation (`man/*.Rd`, the Rd files every package ships, roxygen2
writes them from `#'` comments) read as its API, as R's help shows it: every function in
a file's `\\usage` a document `r:<package>::<name>` (`r:stringr::str_detect`), in the form
the question templates read for Python's docstrings: `name(args)` over the title and the
description, the `\\arguments` items as `:param x:` lines (a function gets the ones its
own arguments name), `\\value` as `:returns:`, details, sections and notes as text, "See
also:" and the examples last. A file documenting several functions (stringr's case.Rd:
`str_to_upper`, `str_to_lower`, ...) gives one document each, sharing the text; an S3
method's usage (`\\method{print}{data.frame}(x, ...)`) is `print.data.frame`, a replacement
function's (`str_sub(string) <- value`) `str_sub<-`, an operator's (`lhs \\%>\\% rhs`)
`%>%`. A dataset's file (`\\docType{data}`) is its name's document with its format and
source, a package's overview (`\\docType{package}`) the package's (`r:stringr`), any other
topic its name's.

Read, never run: Rd's markup (`\\code{}`, `\\link[pkg]{}`, `\\emph{}`, `\\itemize{}`,
`\\describe{}`, `\\tabular{}`, `\\eqn{}{}`, `\\if{html}{}`, `\\dontrun{}`, comments and
escapes) becomes the Markdown a reader sees; `\\Sexpr`, `\\figure`, html-only output,
`\\dontshow` and `\\testonly` code are left out. The package is the `Package:` of the
DESCRIPTION file over the Rd file, else the folder above `man/`. A file that names nothing
or says nothing is counted with its fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from jupiter.collect.result import CollectResult, SourceFile, api_document, by_manifest
from jupiter.collect.result import count as _count
from jupiter.records import Document

SUFFIXES = (".rd",)
URI_PREFIX = "r:"
MANIFEST = "DESCRIPTION"
R_NO_DOC = "r_no_doc"
FIXES = {
    R_NO_DOC: (
        "R documentation files (.Rd) read as their package's API: a file with no name or "
        "nothing said gives none; the source's r: text reads them as text"
    )
}
_MAX_EXAMPLE_LINES = 40


def is_rd(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def package_name(description: str) -> str:
    """The `Package:` field of a DESCRIPTION file; "" when it has none."""
    m = re.search(r"^Package:\s*([\w.]+)\s*$", description, re.M)
    return m.group(1) if m else ""


# ------------------------------------------------------------------------------ parsing
@dataclass
class Macro:
    name: str
    args: list[list[Any]] = field(default_factory=list)  # strings and macros
    option: str = ""  # the [..] argument: \link[pkg]{x}, \Sexpr[...]{}


def _uncomment(text: str) -> str:
    """Rd without its comments (`%` to the line's end; `\\%` is a percent sign)."""
    out = []
    for line in text.splitlines():
        i = 0
        while True:
            j = line.find("%", i)
            if j < 0:
                break
            k = j - 1
            slashes = 0
            while k >= 0 and line[k] == "\\":
                slashes += 1
                k -= 1
            if slashes % 2 == 0:
                line = line[:j]
                break
            i = j + 1
        out.append(line)
    return "\n".join(out)


def parse(text: str) -> list:
    """Rd text as a list of strings and macros, each macro with the brace groups right after
    it (`\\item{a}{b}`, `\\href{url}{text}`) and an optional `[..]` argument."""
    nodes, _ = _parse(_uncomment(text), 0, top=True)
    return nodes


def _parse(s: str, i: int, top: bool = False) -> tuple[list, int]:
    out: list = []
    buf: list[str] = []

    def flush() -> None:
        if buf:
            out.append("".join(buf))
            buf.clear()

    n = len(s)
    while i < n:
        ch = s[i]
        if ch == "\\" and i + 1 < n:
            nxt = s[i + 1]
            if nxt in "\\{}%":
                buf.append(nxt)
                i += 2
                continue
            m = re.match(r"[A-Za-z]+\d*", s[i + 1 :])
            if m is None:
                buf.append(nxt)
                i += 2
                continue
            flush()
            macro = Macro(m.group(0))
            i += 1 + m.end()
            if i < n and s[i] == "[":
                close = _matching(s, i, "[", "]")
                macro.option = s[i + 1 : close]
                i = close + 1
            while i < n and s[i] == "{":
                arg, i = _parse(s, i + 1)
                macro.args.append(arg)
            out.append(macro)
            continue
        if ch == "{":
            flush()
            inner_nodes, i = _parse(s, i + 1)
            out.extend(inner_nodes)
            continue
        if ch == "}" and not top:
            flush()
            return out, i + 1
        buf.append(ch)
        i += 1
    flush()
    return out, i


def _matching(s: str, i: int, open_: str, close: str) -> int:
    depth = 0
    for k in range(i, len(s)):
        if s[k] == open_:
            depth += 1
        elif s[k] == close:
            depth -= 1
            if depth == 0:
                return k
    return len(s) - 1


# ---------------------------------------------------------------------------- rendering
_CODE = {"code", "samp", "kbd", "env", "option", "command", "file", "var", "verb", "preformatted"}
_PLAIN = {"pkg", "acronym", "abbr", "dfn", "cite", "special", "url", "email", "linkS4class"}
_DROP = {"Sexpr", "figure", "out", "testonly", "dontshow", "keyword", "concept", "encoding"}


def text(nodes: list, code: bool = False) -> str:
    """The Markdown a reader of the rendered help sees for `nodes`."""
    out: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
            continue
        out.append(_macro(node, code))
    return "".join(out)


def _arg(m: Macro, k: int, code: bool = False) -> str:
    return text(m.args[k], code) if len(m.args) > k else ""


def _macro(m: Macro, code: bool) -> str:
    name = m.name
    if name in _DROP:
        return ""
    if name in ("R",):
        return "R"
    if name in ("dots", "ldots"):
        return "..."
    if name == "cr":
        return "\n"
    if name == "tab":
        return " | "
    if name in _CODE:
        inner = _arg(m, 0, True)
        return inner if code else f"`{' '.join(inner.split())}`" if inner.strip() else ""
    if name in ("emph", "strong", "bold"):
        inner = _arg(m, 0, code)
        return f"*{inner}*" if name == "emph" else f"**{inner}**"
    if name == "sQuote":
        return f"‘{_arg(m, 0, code)}’"
    if name == "dQuote":
        return f"“{_arg(m, 0, code)}”"
    if name in ("link", "linkS4class") or name in _PLAIN:
        return _arg(m, 0, code)
    if name == "href":
        return _arg(m, 1, code) or _arg(m, 0, code)
    if name in ("eqn", "deqn"):
        shown = _arg(m, 1, code) if len(m.args) > 1 else _arg(m, 0, code)
        return f"`{shown.strip()}`" if not code else shown
    if name == "enc":
        return _arg(m, 0, code)
    if name == "if":
        fmt = _arg(m, 0, True)
        return _arg(m, 1, code) if "text" in fmt or "example" in fmt else ""
    if name == "ifelse":
        fmt = _arg(m, 0, True)
        return _arg(m, 1, code) if "text" in fmt else _arg(m, 2, code)
    if name == "method" or name == "S3method":
        return f"{_arg(m, 0, True)}.{_arg(m, 1, True)}"
    if name == "S4method":
        return f"{_arg(m, 0, True)}"
    if name in ("dontrun", "donttest", "dontdiff"):
        return _arg(m, 0, True)
    if name in ("itemize", "enumerate"):
        return _list(m.args[0] if m.args else [], name == "enumerate")
    if name == "describe":
        return _describe(m.args[0] if m.args else [])
    if name == "tabular":  # a row a list item, its cells apart
        rows = [" ".join(r.split()).strip(" |") for r in _arg(m, 1, code).split("\n")]
        return "\n\n" + "\n".join(f"- {r}" for r in rows if r) + "\n\n"
    if name == "item":  # outside a list: an argument-like entry
        if len(m.args) >= 2:
            return f"\n- {_arg(m, 0, code).strip()}: {_arg(m, 1, code).strip()}\n"
        return "\n- "
    if name in ("section", "subsection"):
        return f"\n\n{_arg(m, 0, code).strip()}:\n\n{_arg(m, 1, code).strip()}\n\n"
    return "".join(text(a, code) for a in m.args)


def _list(nodes: list, numbered: bool) -> str:
    items: list[list] = []
    for node in nodes:
        if isinstance(node, Macro) and node.name == "item" and not node.args:
            items.append([])
        elif items:
            items[-1].append(node)
    lines = []
    for k, item in enumerate(items, 1):
        said = " ".join(text(item).split())
        if said:
            lines.append(f"{k}. {said}" if numbered else f"- {said}")
    return "\n\n" + "\n".join(lines) + "\n\n"


def _describe(nodes: list) -> str:
    lines = []
    for node in nodes:
        if isinstance(node, Macro) and node.name == "item" and len(node.args) >= 2:
            term = " ".join(text(node.args[0]).split())
            said = " ".join(text(node.args[1]).split())
            lines.append(f"- {term}: {said}")
    return "\n\n" + "\n".join(lines) + "\n\n"


def _paragraphs(s: str) -> str:
    """Rendered text with its paragraphs kept and each one's lines joined (code fences and
    list items kept as they are)."""
    out = []
    for para in re.split(r"\n[ \t]*\n", s):
        lines = [ln.strip() for ln in para.strip().splitlines()]
        if not any(lines):
            continue
        if any(ln.startswith(("- ", "1. ", "```")) or re.match(r"\d+\. ", ln) for ln in lines):
            out.append("\n".join(ln for ln in lines if ln))
        else:
            out.append(" ".join(ln for ln in lines if ln))
    return "\n\n".join(out)


# ------------------------------------------------------------------------------ reading
@dataclass
class Call:
    name: str  # as R knows it: str_detect, print.data.frame, str_sub<-, %>%
    shown: str  # as the help page shows it: str_detect(string, pattern, negate = FALSE)
    args: list[str]
    kind: str = "function"


def _calls(usage: str) -> list[Call]:
    """The functions a `\\usage` section shows, in order."""
    out: list[Call] = []
    for expr in _expressions(usage):
        expr = " ".join(expr.split())
        op = re.fullmatch(r"(\S+)\s+(%[^%\s]+%)\s+(\S+)", expr)
        if op is not None:
            out.append(Call(op.group(2), expr, [op.group(1), op.group(3)], "operator"))
            continue
        m = re.match(r"^([A-Za-z.][\w.]*)\s*\(", expr)
        if m is None:
            continue
        close = _matching(expr, m.end() - 1, "(", ")")
        inside = expr[m.end() : close]
        args = _split_args(inside)
        rest = expr[close + 1 :].strip()
        name = m.group(1)
        if rest.startswith("<-"):
            out.append(Call(f"{name}<-", expr, [*args, rest[2:].strip()], "replacement"))
        elif not rest:
            out.append(Call(name, f"{name}({', '.join(args)})", args))
    return out


def _expressions(usage: str) -> list[str]:
    """A usage section's top-level expressions (a call may span lines)."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for line in usage.splitlines():
        line = re.sub(r"^\s*#.*$", "", line)
        if not line.strip() and depth == 0:
            if cur:
                out.append(" ".join(cur))
                cur = []
            continue
        cur.append(line.strip())
        depth += line.count("(") - line.count(")")
        if depth <= 0:
            out.append(" ".join(cur))
            cur, depth = [], 0
    if cur:
        out.append(" ".join(cur))
    return [e for e in out if e.strip()]


def _split_args(inside: str) -> list[str]:
    out, depth, start, quote = [], 0, 0, ""
    for k, ch in enumerate(inside):
        if quote:
            if ch == quote and inside[k - 1] != "\\":
                quote = ""
            continue
        if ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(inside[start:k].strip())
            start = k + 1
    out.append(inside[start:].strip())
    return [a for a in out if a]


def _walk(nodes: list) -> list[Macro]:
    """Every macro in `nodes`, nested ones too."""
    out = []
    for node in nodes:
        if isinstance(node, Macro):
            out.append(node)
            for arg in node.args:
                out += _walk(arg)
    return out


def _arg_name(arg: str) -> str:
    return arg.split("=", 1)[0].strip()


def _sections(nodes: list) -> dict[str, list]:
    """The top-level sections of an Rd file by name (`\\alias` and `\\section` as lists)."""
    out: dict[str, list] = {}
    for node in nodes:
        if not isinstance(node, Macro):
            continue
        if node.name in ("alias", "section", "keyword", "concept"):
            out.setdefault(node.name, []).append(node)
        elif node.name not in out:
            out[node.name] = node.args[0] if node.args else []
    return out


def _arguments(nodes: list) -> list[tuple[list[str], str]]:
    """The `\\arguments` items: (names, description)."""
    out = []
    for node in nodes:
        if isinstance(node, Macro) and node.name == "item" and len(node.args) >= 2:
            names = [n.strip() for n in text(node.args[0], True).split(",") if n.strip()]
            said = _paragraphs(text(node.args[1]))
            if names and said:
                out.append((names, " ".join(said.split("\n\n")) if "\n- " not in said else said))
    return out


def rd_documents(
    f: SourceFile, package: str, source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """The documents of one Rd file (`package` its package's name, "" when unknown)."""
    sections = _sections(parse(f.text))
    name = " ".join(text(sections.get("name", [])).split())
    title = " ".join(text(sections.get("title", [])).split())
    description = _paragraphs(text(sections.get("description", [])))
    if not name or not (title or description):
        _count(rejects, R_NO_DOC, f.where)
        return []
    doc_type = text(sections.get("docType", [])).strip()
    details = _paragraphs(text(sections.get("details", [])))
    extra = [_paragraphs(_macro(s, False)) for s in sections.get("section", [])]
    value = _paragraphs(text(sections.get("value", [])))
    note = _paragraphs(text(sections.get("note", [])))
    fmt = _paragraphs(text(sections.get("format", [])))
    origin = _paragraphs(text(sections.get("source", [])))
    seealso = " ".join(text(sections.get("seealso", [])).split())
    usage = text(sections.get("usage", []), code=True)
    examples = text(sections.get("examples", []), code=True).strip("\n")
    example_lines = [ln.rstrip() for ln in examples.splitlines()]
    while example_lines and not example_lines[-1].strip():
        example_lines.pop()
    example_block = ""
    if any(ln.strip() for ln in example_lines):
        lines = example_lines[:_MAX_EXAMPLE_LINES]
        example_block = "Examples:\n\n```r\n" + "\n".join(lines) + "\n```"
    arguments = _arguments(sections.get("arguments", []))
    summary = title if not title or title.endswith((".", "?", "!")) else f"{title}."
    prose = [summary, description, details, *extra]
    calls = _calls(usage)
    s3 = {  # print.reel -> (print, ., reel): \method{print}{reel}(x, ...) in the usage
        f"{g}.{c}": (g, ".", c)
        for m in _walk(sections.get("usage", []))
        if m.name in ("method", "S3method") and len(m.args) >= 2
        for g, c in [(text(m.args[0], True).strip(), text(m.args[1], True).strip())]
    }

    def qualified(n: str) -> str:
        return f"{package}::{n}" if package else n

    def make(qual: str, kind: str, first: str, params: list[str], with_examples: bool) -> Document:
        fields = list(params)
        if value:
            fields.append(f":returns: {value}" if "\n" not in value else f":returns:\n\n{value}")
        blocks = [first, *prose, "\n".join(fields)]
        if fmt:
            blocks.append(f"Format: {fmt}")
        if origin:
            blocks.append(f"Source: {origin}")
        if note:
            blocks.append(f"Note: {note}")
        if seealso:
            blocks.append(f"See also: {seealso}")
        if with_examples and example_block:
            blocks.append(example_block)
        body = "\n\n".join(b for b in blocks if b)
        return api_document(
            source,
            URI_PREFIX,
            f,
            qual,
            body,
            kind,
            first if "(" in first else "",
            1,
            language="r",
            package=package,
            described=True,
        )

    if doc_type == "package" or (name.endswith("-package") and not calls):
        qual = package or name.removesuffix("-package")
        return [make(qual, "package", qual, [], False)]
    functions: dict[str, list[Call]] = {}
    for call in calls:
        functions.setdefault(call.name, []).append(call)
    if doc_type == "data" or not functions:
        return [
            make(
                qualified(name),
                "data" if doc_type == "data" else "topic",
                qualified(name),
                [],
                True,
            )
        ]
    out = []
    for k, (fname, overloads) in enumerate(functions.items()):
        own = {_arg_name(a) for c in overloads for a in c.args}
        params = [
            f":param {n}: {said}"
            for names, said in arguments
            for n in names
            if n in own or (n == "..." and "..." in own)
        ]
        first = overloads[0].shown
        also = [c.shown for c in overloads[1:]]
        kind = overloads[0].kind
        body_first = first
        if also:
            body_first += "\n\nAlso: " + "; ".join(f"`{a}`" for a in also)
        if fname == name or k == 0:
            with_examples = fname == name or name not in functions
        else:
            with_examples = False
        if fname in s3:
            kind = "method"
            generic, _, cls = s3[fname]
            body_first += f"\n\nS3 method of `{generic}` for class `{cls}`."
        out.append(make(qualified(fname), kind, body_first, params, with_examples))
    return out


def read(
    files: list[SourceFile], source: str, rejects: CollectResult | None, top: str
) -> list[Document]:
    """The documents of a source's Rd files, the DESCRIPTION files among them naming their
    packages (collect/apis.py)."""
    packages, rd = by_manifest(files, MANIFEST, package_name)
    out: list[Document] = []
    for f in sorted(rd, key=lambda x: str(x.rel)):
        package = ""
        for d in f.rel.parents:
            if d in packages:
                package = packages[d]
                break
        if not package and f.rel.parent.name == "man" and f.rel.parent.parent.name:
            package = re.sub(r"[-_]\d[\w.+-]*$", "", f.rel.parent.parent.name)  # stringr-1.5.0
        if not package and f.rel.parent.name == "man" and top:
            package = re.sub(r"[-_]\d[\w.+-]*$", "", top)
        out += rd_documents(f, package, source, rejects)
    return out
