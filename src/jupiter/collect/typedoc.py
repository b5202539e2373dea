"""A TypeDoc page's declarations, each a document of its own, as collect/jsapi.py reads
them from the source: TypeScript libraries publish their API as a TypeDoc site, and read as
a page a method was a heading over its signature cut into symbols, its parameters a list
and its return type a heading ("Returns string[]"), with every member a base class gives
it repeated under "Inherited from".

A page is TypeDoc's when its title block (`<div class="tsd-page-title">`) holds an `<h1>`
naming a kind (Class, Interface, Function, Variable, Enumeration, Type Alias, Namespace);
the declaration becomes `javascript:<Name>`, each documented member
`javascript:<Name>.<member>`, written as jsapi writes them: `Name.member(params)` from the
signature over its comment, "Deprecated:" and other block tags as labelled lines, the
parameters as `:param x:`, the return as `:returns:`, examples fenced last; overloads one
document, each signature with its own text; a constructor's signature and parameters are
the class's. A member inherited from a base with a page of its own is the base's and left
out (one from a base the site does not document is documented here only), so is another
package's, and so is the rest of the page
(the index restating the members' names, "Defined in" lines); a declaration documented
nowhere gives no document (counted with its fix). A project's or module's page
is its README's text, without the lists of its declarations and the site's furniture.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from jupiter.collect.htmlparts import cut, element_end, inner, plain
from jupiter.collect.result import CollectResult, SourceFile, api_document, count
from jupiter.records import Document

URI_PREFIX = "javascript:"
UNDOCUMENTED = "typedoc_undocumented"
FIXES = {
    UNDOCUMENTED: (
        "a TypeDoc page whose declaration and members have no comment gives no document (its "
        "signature alone is no text to learn from); the source's javascript: text reads such "
        "pages whole"
    )
}
_TITLE = re.compile(r'<div class="tsd-page-title">.*?<h1>(.*?)</h1>', re.S)
_KINDS = {
    "class": "class",
    "interface": "interface",
    "function": "function",
    "variable": "attribute",
    "enumeration": "enum",
    "type alias": "type",
    "namespace": "module",
}
_TOP_COMMENT = re.compile(r'<section class="tsd-panel tsd-comment">')
_SIGNATURES = re.compile(r'<ul class="tsd-signatures">')
_MEMBER = re.compile(r'<section class="tsd-panel tsd-member([^"]*)">')
_GROUP = re.compile(r'<h2 class="tsd-anchor-link" id="[^"]*">(.*?)</h2>', re.S)
_H3 = re.compile(r'<h3 class="tsd-anchor-link" id="([^"]+)">(.*?)</h3>', re.S)
_SIG = re.compile(r'<div class="tsd-signature[^"]*"[^>]*>(.*?)</div>', re.S)
_COMMENT = re.compile(r'<div class="tsd-comment tsd-typography">')
_PARAMS = re.compile(r'<ul class="tsd-parameter-list">')
_RETURNS = re.compile(r'<h4 class="tsd-returns-title">.*?</h4>\s*(?:<p>(.*?)</p>)?', re.S)
_TAG_BLOCK = re.compile(r'<div class="tsd-tag-([\w-]+)">\s*<h4[^>]*>(.*?)</h4>(.*?)</div>', re.S)
_LI = re.compile(r"<li\b[^>]*>")
_ANCHOR_ICON = re.compile(r'<a href="#[^"]*" aria-label="Permalink"[^>]*>.*?</a>', re.S)
_SVG = re.compile(r"<svg\b.*?</svg>", re.S)
_SOURCES = re.compile(r'<aside class="tsd-sources">.*?</aside>', re.S)
_COPY = re.compile(r"<button[^>]*>Copy</button>")
_DECLARATION = re.compile(r'<div class="tsd-type-declaration">')
_DECLARED_ITEM = re.compile(r'<li class="tsd-parameter">')
_DECLARED_NAME = re.compile(
    r'<h5>.*?<span class="tsd-kind-(?:property|method)">([^<]+)</span>', re.S
)
# "Inherited from <a href=...>Base</a>": the base has a page of its own (a base the site
# does not document is named without a link, and its members are documented here only)
_INHERITED_LINK = re.compile(r"<p>Inherited from <a href=")
_TSD_TAG = re.compile(r'<code class="tsd-tag">.*?</code>', re.S)
_CONTENT = re.compile(r'<div class="col-content">')
_BREADCRUMB = re.compile(r'<ul class="tsd-breadcrumb"')
_INDEX = re.compile(r'<section class="tsd-panel-group tsd-index-group">')
_SUMMARIES = re.compile(r'<details class="tsd-panel-group tsd-member-group[^"]*"')


def _clean(html: str, sources: bool = True) -> str:
    """`html` without TypeDoc's icons, permalinks and copy buttons (and, with `sources`, its
    "Defined in" and "Inherited from" asides)."""
    html = _COPY.sub("", _SVG.sub("", _ANCHOR_ICON.sub("", html)))
    return _SOURCES.sub("", html) if sources else html


def _params(signature: str) -> str:
    """`(spool: Spool, turns: number)` of a signature's text, or ""."""
    open_at = signature.find("(")
    if open_at < 0:
        return ""
    depth = 0
    for k in range(open_at, len(signature)):
        depth += {"(": 1, ")": -1}.get(signature[k], 0)
        if depth == 0:
            return signature[open_at : k + 1]
    return ""


def _described(block: str, to_text: Callable[[str], str]) -> tuple[str, list[str], list[str]]:
    """(comment text, field and tag lines, examples) of one signature's or member's
    description."""
    parts: list[str] = []
    fields: list[str] = []
    examples: list[str] = []
    comment = _COMMENT.search(block)
    tags_at = block.find('<div class="tsd-tag-')
    if comment is not None and (tags_at < 0 or comment.start() < tags_at):
        held = inner(block, comment.start(), "div")
        lead = held.split('<div class="tsd-tag-', 1)[0]
        said = to_text(lead).strip()
        if said:
            parts.append(said)
    plist = _PARAMS.search(block)
    if plist is not None:
        items = inner(block, plist.start(), "ul")
        for li in _LI.finditer(items):
            end = element_end(items, li.start(), "li")
            item = items[li.start() : end]
            name = re.search(r'<span class="tsd-kind-parameter">(.*?)</span>', item, re.S)
            desc = _COMMENT.search(item)
            if name is None or desc is None:
                continue
            said = " ".join(to_text(inner(item, desc.start(), "div")).split())
            if said:
                fields.append(f":param {plain(name.group(1))}: {said}")
    returns = _RETURNS.search(block)
    if returns is not None and returns.group(1):
        said = " ".join(to_text(returns.group(1)).split())
        if said:
            fields.append(f":returns: {said}")
    for tag, title, body in _TAG_BLOCK.findall(block):
        label = plain(title) or tag.capitalize()
        if tag == "example":
            shown = to_text(body).strip()
            if shown:
                examples.append(f"{label}:\n\n{shown}")
            continue
        said = plain(body) if "<pre" in body else " ".join(to_text(body).split())
        if said:
            fields.append(f":raises: {said}" if tag == "throws" else f"{label}: {said}")
    lines = [x for x in fields if not x.startswith((":param", ":returns", ":raises"))]
    fields = [x for x in fields if x.startswith((":param", ":returns", ":raises"))]
    return "\n\n".join([*parts, *lines]), fields, examples


def _text(comment: str, fields: list[str], examples: list[str]) -> str:
    return "\n\n".join(x for x in [comment, "\n".join(fields), *examples] if x)


def _signatures(
    block: str, name: str, to_text: Callable[[str], str], call: bool = True
) -> tuple[list[str], str]:
    """(each signature's `name(params)` with its text, the first signature's params) of a
    `<ul class="tsd-signatures">` element; an accessor's (`call` False) named bare."""
    out: list[str] = []
    first = ""
    for li in _LI.finditer(block):
        end = element_end(block, li.start(), "li")
        item = block[li.start() : end]
        sig = _SIG.search(item)
        if sig is None:
            continue
        params = _params(plain(sig.group(1)))
        first = first or params
        comment, fields, examples = _described(item[sig.end() :], to_text)
        text = _text(comment, fields, examples)
        if text:
            out.append(f"{name}{params if call else ''}\n\n{text}")
    return out, first


def split_built(
    doc: Document,
    html: str,
    to_text: Callable[[str], str],
    rejects: CollectResult | None = None,
) -> list[Document]:
    """A TypeDoc page's documents (`doc` the page read whole): the declaration's and one per
    documented member; [] for a declaration documented nowhere (counted UNDOCUMENTED in
    `rejects`); [doc] when the page is not TypeDoc's."""
    title = _TITLE.search(html)
    if title is None:
        return [doc]
    heading = plain(_TSD_TAG.sub("", title.group(1)))
    kind_word = next((k for k in _KINDS if heading.lower().startswith(f"{k} ")), None)
    if kind_word is None:  # a project's or module's page: its text, not the furniture
        content = _CONTENT.search(html)
        if content is None:
            return [doc]
        body = cut(inner(html, content.start(), "div"), _INDEX, "section")
        body = cut(body, _SUMMARIES, "details")  # lists restating the declarations
        body = cut(body, _BREADCRUMB, "ul")
        text = to_text(_clean(body)).strip()
        return [Document(doc.source, doc.uri, doc.title, text, doc.meta)] if text else []
    name = heading[len(kind_word) :].strip().split("<")[0].strip()
    if not re.fullmatch(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*", name):
        return [doc]
    kind = _KINDS[kind_word]
    page = _clean(html[title.end() :], sources=False)
    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))
    found: dict[str, tuple[str, list[str]]] = {}  # qualified name -> (kind, texts)
    members_at = _MEMBER.search(page)
    head_part = page[: members_at.start()] if members_at is not None else page
    top = _TOP_COMMENT.search(head_part)
    sigs = _SIGNATURES.search(head_part)
    own: list[str] = []
    params = ""
    if sigs is not None and kind == "function":  # a function's page: its signatures
        own, params = _signatures(inner(head_part, sigs.start(), "ul"), name, to_text)
    else:  # the declaration's own comment: not its object type's members'
        declared_at = _DECLARATION.search(head_part)
        own_part = head_part[: declared_at.start()] if declared_at else head_part
        comment, fields, examples = _described(
            own_part[top.start() :] if top else own_part, to_text
        )
        text = _text(comment, fields, examples)
        if text:
            own = [f"{name}\n\n{text}"]
    declared = _DECLARATION.search(head_part)  # an object type's members, on an alias's page
    if declared is not None:
        items = inner(head_part, declared.start(), "div")
        for li in _DECLARED_ITEM.finditer(items):
            item = items[li.start() : element_end(items, li.start(), "li")]
            named = _DECLARED_NAME.search(item)
            comment, fields, examples = _described(item, to_text)
            text = _text(comment, fields, examples)
            if named is not None and text and re.fullmatch(r"[A-Za-z_$][\w$]*", named.group(1)):
                qual = f"{name}.{named.group(1)}"
                found.setdefault(qual, ("property", [f"{qual}\n\n{text}"]))
    groups = [(m.start(), plain(m.group(1)).lower()) for m in _GROUP.finditer(page)]
    for m in _MEMBER.finditer(page):
        end = element_end(page, m.start(), "section")
        member = page[m.start() : end]
        if "tsd-is-external" in m.group(1):  # another package's documentation
            continue
        if "tsd-is-inherited" in m.group(1) and _INHERITED_LINK.search(member):
            continue  # its base's, documented on the base's own page
        h3 = _H3.search(member)
        if h3 is None:
            continue
        mname = plain(_TSD_TAG.sub("", h3.group(2)))
        group = next((g for at, g in reversed(groups) if at < m.start()), "")
        sigs_m = _SIGNATURES.search(member)
        if group.startswith("constructor"):  # the class is made by calling it
            if sigs_m is not None:
                texts, cparams = _signatures(inner(member, sigs_m.start(), "ul"), name, to_text)
                params = params or cparams
                own += [t.split("\n\n", 1)[1] for t in texts if "\n\n" in t]
            continue
        if not re.fullmatch(r"[A-Za-z_$][\w$]*", mname):
            continue
        qual = f"{name}.{mname}"
        if sigs_m is not None:
            accessor = group.startswith("accessor")
            texts, _ = _signatures(inner(member, sigs_m.start(), "ul"), qual, to_text, not accessor)
            mkind = "property" if accessor else "method"
        else:
            comment, fields, examples = _described(member[h3.end() :], to_text)
            text = _text(comment, fields, examples)
            texts = [f"{qual}\n\n{text}"] if text else []
            mkind = "property" if kind == "interface" else "attribute"
        if texts:
            found.setdefault(qual, (mkind, texts))
    out: list[Document] = []
    if own:
        head = f"{name}{params}" if params and kind in ("class", "function") else name
        first, *rest = own
        if kind == "function":
            body = "\n\n".join(own)
        else:
            body = "\n\n".join([first.replace(f"{name}\n\n", f"{head}\n\n", 1), *rest])
        out.append(_make(doc, f, name, kind, body, params))
    for qual, (mkind, texts) in found.items():
        out.append(_make(doc, f, qual, mkind, "\n\n".join(texts), ""))
    if not out:  # a declaration documented nowhere: its signature alone
        count(rejects, UNDOCUMENTED, doc.uri)
    return out


def _make(doc: Document, f: SourceFile, qual: str, kind: str, text: str, sig: str) -> Document:
    meta = {"language": "javascript", "described": True}
    return api_document(doc.source, URI_PREFIX, f, qual, text, kind, sig, 1, **meta)
