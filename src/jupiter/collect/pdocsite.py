"""A page pdoc built (a Python module's API page), each documented object a document of its
own, as collect/pyapi.py reads it from the source: read as a page, an object was its
signature run together with "View Source", its whole source listing with line numbers, and
its docstring's sections as headings ("Arguments:") over lists.

A page is pdoc's when it holds `<main class="pdoc">`; its module is the page's
`<h1 class="modulename">`; each `<section id="wind">` or `<div id="Spool.unwind"
class="classattr">` with a docstring becomes `python:<module>.<id>`, its text the
signature line (`spool.wind(spool, turns, *, tight=False)` from pdoc's signature, the
annotations left out as the source reader leaves them out of the call line) over the
docstring, its Arguments, Returns, Raises and Attributes sections as `:param x:`,
`:returns:`, `:raises X:` and `:ivar x:` fields, examples fenced after them; a class takes
its `__init__`'s signature; the module's docstring is the module's document. Source
listings, `_private` names and the docstrings Python writes itself (a namedtuple field's
"Alias for field number 2", an attribute getter's) are left out; the page's navigation and
search are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from jupiter.collect.htmlparts import cut, element_end, inner, plain
from jupiter.collect.result import SourceFile, api_document
from jupiter.records import Document

URI_PREFIX = "python:"
_MAIN = re.compile(r'<main class="pdoc">')
_MODULE = re.compile(r'<h1 class="modulename">(.*?)</h1>', re.S)
_MODULE_INFO = re.compile(r'<section class="module-info">')
_OBJECT = re.compile(r'<section id="([^"]+)">|<div id="([^"]+)" class="classattr">')
_ATTR = re.compile(r'<div class="attr (function|class|variable|property)">')
_DOCSTRING = re.compile(r'<div class="docstring">')
# docstrings Python writes itself, shown by pdoc for a namedtuple's fields and the
# attribute getters a class makes: no one's documentation
_GENERATED = re.compile(
    r"(?:Alias for field number \d+|attrgetter\(|itemgetter\(|Return a callable object that "
    r"fetches the given (?:attribute|item))"
)
_VALUE = re.compile(r'<span class="default_value">(.*?)</span>', re.S)
_LABEL = re.compile(r'<label class="view-source-button".*?</label>', re.S)
_SECTION = re.compile(r"<h6[^>]*>(.*?):?</h6>", re.S)
_ITEM = re.compile(r"<li>\s*<strong>(.*?):?</strong>(.*?)</li>", re.S)
_PARAM = re.compile(r'<span class="param">')
_SIGNATURE = re.compile(r'<span class="signature')


def _signature(attr: str) -> str:
    """`(spool, turns, *, tight=False)` from pdoc's signature: each parameter's name and
    default, no annotation, no `self`."""
    params = []
    for m in _PARAM.finditer(attr):
        text = plain(inner(attr, m.start(), "span")).rstrip(", ")
        name, eq, default = text.partition("=")
        name = name.split(":", 1)[0].strip()
        if name and name not in ("self", "cls"):
            params.append(f"{name}={default.strip()}" if eq else name)
    return f"({', '.join(params)})" if _SIGNATURE.search(attr) else ""


def _docstring(block: str, to_text: Callable[[str], str]) -> str:
    """A docstring's text: its prose, its sections as fields, examples fenced last."""
    heads = list(_SECTION.finditer(block))
    parts = [to_text(block[: heads[0].start()] if heads else block).strip()]
    fields: list[str] = []
    examples: list[str] = []
    ends = [h.start() for h in heads[1:]] + [len(block)] if heads else []
    for m, end in zip(heads, ends, strict=True):
        title = plain(m.group(1)).rstrip(":").lower()
        body = block[m.end() : end]
        items = [
            (plain(n).rstrip(":"), " ".join(to_text(d).split()).lstrip(": ").strip())
            for n, d in _ITEM.findall(body)
        ]
        if title in ("arguments", "args", "parameters", "keyword arguments", "other parameters"):
            fields += [f":param {n}: {d}" for n, d in items if n and d]
        elif title == "attributes":
            fields += [f":ivar {n}: {d}" for n, d in items if n and d]
        elif title in ("raises", "warns"):
            fields += [f":raises {n}: {d}" for n, d in items if n and d]
        elif title in ("returns", "yields"):
            said = " ".join(to_text(body).split())
            if said:
                fields.append(f":returns: {said}")
        elif title in ("examples", "example"):
            shown = to_text(body).strip()
            if shown:
                examples.append(f"Examples:\n\n{shown}")
        else:
            said = to_text(body).strip()
            if said:
                parts.append(f"{plain(m.group(1)).rstrip(':')}: {said}")
    return "\n\n".join(x for x in [*parts, "\n".join(fields), *examples] if x)


def split_built(doc: Document, html: str, to_text: Callable[[str], str]) -> list[Document]:
    """A pdoc page's documents (`doc` the page read whole): the module's and one per
    documented object; [doc] when the page is not pdoc's."""
    main_at, module_m = _MAIN.search(html), _MODULE.search(html)
    if main_at is None or module_m is None:
        return [doc]
    module = plain(module_m.group(1))
    if not re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", module):
        return [doc]
    main = html[main_at.start() : element_end(html, main_at.start(), "main")]
    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))
    found: dict[str, tuple[str, str, str]] = {}  # name -> (kind, head, text)
    info = _MODULE_INFO.search(main)
    if info is not None:
        section = main[info.start() : element_end(main, info.start(), "section")]
        block = _DOCSTRING.search(section)
        if block is not None:
            text = _docstring(inner(section, block.start(), "div"), to_text)
            if text:
                found[module] = ("module", "", text)
    for m in _OBJECT.finditer(main):
        ident = m.group(1) or m.group(2)
        tag = "section" if m.group(1) else "div"
        whole = main[m.start() : element_end(main, m.start(), tag)]
        whole = (
            cut(whole, re.compile(r'<div id="[^"]+" class="classattr">'), "div")
            if tag == "section"
            else whole
        )
        attr = _ATTR.search(whole)
        block = _DOCSTRING.search(whole)
        if attr is None or not re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", ident):
            continue
        kind = attr.group(1)
        name = f"{module}.{ident}"
        owner, last = name.rsplit(".", 1)
        signature = _signature(_LABEL.sub("", inner(whole, attr.start(), "div")))
        text = _docstring(inner(whole, block.start(), "div"), to_text) if block else ""
        if last == "__init__" and owner in found:  # the class is made by calling it
            o_kind, _, o_text = found[owner]
            params = "\n".join(x for x in text.splitlines() if x.startswith(":param "))
            found[owner] = (o_kind, f"{owner}{signature}", f"{o_text}\n\n{params}".strip())
            continue
        if last.startswith("_") or not text or name in found or _GENERATED.match(text):
            continue
        if kind == "function" and found.get(owner, ("",))[0] == "class":
            kind = "method"
        head = f"{name}{signature}" if kind in ("function", "method", "class") else name
        value = _VALUE.search(whole)
        if kind == "variable" and value is not None and len(plain(value.group(1))) <= 80:
            text = f"{text}\n\nValue: `{plain(value.group(1))}`"
        found[name] = (kind, head, text)
    out: list[Document] = []
    for name, (kind, head, text) in found.items():
        body = text if kind == "module" else f"{head}\n\n{text}"
        meta = {"language": "python", "described": True}
        out.append(api_document(doc.source, URI_PREFIX, f, name, body, kind, "", 1, **meta))
    return out or [doc]
