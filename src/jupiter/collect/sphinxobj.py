"""Sphinx's object descriptions in a page, each a document of its own, named as Sphinx
names it: `.. function:: dumps(obj, *, skipkeys=False)` under `.. module:: json` is
`python:json.dumps`, a `.. method::` inside a `.. class::` its class's, a
`.. c:function:: PyObject* PyList_New(Py_ssize_t len)` `c:PyList_New`, a `.. js:function::`
`javascript:` (the Python, C, C++ and JavaScript domains: how the Python library reference,
Django's, NumPy's C API and many projects' own pages document an API by hand). Read as its
text, a page gave the description to whatever section it stood in ("Explain Basic Usage."
answered by json.dump's) and no question named the object. Read from reStructuredText,
from MyST Markdown's directive fences, and from a built page's `<dl class="py function">`.

The page keeps everything else (its prose, examples, the other directives) with the
descriptions taken out, so no fact is taught twice in the same words. A description's
document opens with `name(args)` like a docstring's (collect/docstrings.py, pyapi.py): the
first signature, a name's others in a line below (signatures of other names, as ast's
`List(elts, ctx)` and `Tuple(elts, ctx)`, each a document with the same text); `:type:`
and `:value:` options as lines; its content dedented, nested descriptions (a class's
methods) taken out into their own. What is quoted (a literal block after "::", a code
directive's content, a comment, a code fence) is never read for descriptions: Sphinx's own
documentation shows them in code blocks.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import PurePosixPath

from jupiter.collect.result import CollectResult, SourceFile, api_document, count
from jupiter.records import Document

# pages whose object descriptions are read as documents of their own: reStructuredText, and
# text files, which Sphinx projects use for it too (Django's docs are *.txt); a page without
# a description is left as it was
RST_SUFFIXES = (".rst", ".rest", ".txt")
# Markdown pages, whose descriptions are MyST's directive fences
MYST_SUFFIXES = (".md", ".markdown")
# a second description of a name another page (or the same) already describes
AGAIN = "sphinx_object_again"
FIXES = {AGAIN: "a name described twice: the first description (in path order) is kept"}

# the directives that describe an object, by domain (Sphinx's own and CPython's additions)
OBJECTS = {
    "py": {
        "function", "method", "classmethod", "staticmethod", "class", "exception",
        "attribute", "property", "data", "decorator", "decoratormethod", "type",
        "coroutinefunction", "coroutinemethod", "abstractmethod", "awaitablefunction",
        "awaitablemethod",
    },
    "c": {"function", "macro", "member", "var", "type", "struct", "union", "enum", "enumerator"},
    "cpp": {
        "function", "class", "struct", "member", "var", "type", "enum", "enum-class",
        "enum-struct", "enumerator", "union", "concept",
    },
    "js": {"function", "method", "class", "data", "attribute"},
}  # fmt: skip
# the descriptions whose content describes members: they name what is nested in them
_OWNERS = {"class", "exception", "struct", "union", "enum", "enum-class", "enum-struct"}
_CALLABLE = {
    "function", "method", "classmethod", "staticmethod", "class", "exception", "decorator",
    "decoratormethod", "coroutinefunction", "coroutinemethod", "abstractmethod",
    "awaitablefunction", "awaitablemethod", "macro",
}  # fmt: skip
URI_PREFIXES = {"py": "python:", "c": "c:", "cpp": "c:", "js": "javascript:"}
LANGUAGES = {"py": "python", "c": "c", "cpp": "c", "js": "javascript"}

_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\.[ \t]+(?P<name>[\w:-]+)::(?P<arg>.*)$")
_COMMENT = re.compile(r"^[ \t]*\.\.(?:[ \t]|$)")
_OPTION = re.compile(r"^[ \t]*:(?P<key>[\w-]+):(?P<value>.*)$")
# directives whose content is quoted, never read for descriptions
_QUOTED = {
    "code-block", "code", "sourcecode", "literalinclude", "parsed-literal", "highlight",
    "doctest", "testcode", "testoutput", "testsetup", "testcleanup", "productionlist", "raw",
    "math", "ipython", "jupyter-execute", "literal",
}  # fmt: skip
_PY_NAME = re.compile(
    r"\s*(?:async\s+|await\s+)?(?P<prefix>(?:[A-Za-z_]\w*\.)*)(?P<name>[A-Za-z_]\w*)"
)


@dataclass
class _Context:
    module: str = ""  # py:module / py:currentmodule
    js_module: str = ""
    domain: str = "py"  # default-domain
    owner: str = ""  # the enclosing description's full name (a class's methods)
    namespace: str = ""  # cpp:namespace (C++ names are qualified with it)


@dataclass
class Description:
    """One object description: its domain and kind, its full name (Sphinx's: a class's
    member under the class, the module apart), the module, the signatures' text (without
    the name), the first one's parameters, lines said below its content and where it
    stands."""

    domain: str
    kind: str
    name: str  # full name within the module: "dumps", "JSONDecoder.decode", "PyList_New"
    module: str
    head: str  # the first line of its document: "dumps(obj, *, skipkeys=False)"
    signature: str  # "(obj, *, skipkeys=False)" where it takes arguments
    extra: list[str] = field(default_factory=list)  # "Type: `int`", ":returns: `PyObject*`"
    content: str = ""
    line: int = 0

    @property
    def qualified(self) -> str:
        if self.module:
            return f"{self.module}.{self.name}"
        return self.name


def is_rst(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in RST_SUFFIXES


def is_html(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in (".html", ".htm")


def is_myst(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in MYST_SUFFIXES


def split(doc: Document) -> list[Document]:
    """The page's documents: the page without its object descriptions (when anything is
    left of it), then one document per description with content, in page order. A
    Markdown page's descriptions are MyST's fences (```` ```{py:function} f(x) ````)."""
    lines = doc.text.split("\n")
    scan = _scan_myst if is_myst(doc.uri) else _scan
    kept, found = scan(lines, 0, len(lines), _Context())
    if not found:
        return [doc]
    page = re.sub(r"\n{3,}", "\n\n", "\n".join(lines[i] for i in kept))
    return _documents(doc, page, found)


def split_built(
    doc: Document,
    html: str,
    to_text: Callable[[str], str],
    page_text: Callable[[str], str] | None = None,
) -> list[Document]:
    """A built Sphinx page's documents (`doc` its text as a whole, `html` its HTML): the
    page without its object descriptions (made text by `page_text`, default `to_text`),
    then one document per description, named by its anchor (`id="json.dumps"`, the name
    Sphinx gave it); [doc] when it has none."""
    got = split_html(html, to_text)
    if got is None:
        return [doc]
    page, described = got
    found: list[Description] = []
    for domain, kind, ident, sig, content, owner in described:
        if not content.strip():
            continue
        # a description without an anchor (`:no-index:`) nested in one with: under it
        if not ident and owner and domain in ("py", "js"):
            m = _PY_NAME.match(_ANNOTATIONS.sub("", sig))
            ident = f"{owner}.{m.group('name')}" if m else ""
        if domain in ("py", "js"):
            named = _py_named(kind, _ANNOTATIONS.sub("", sig), _Context(), {})
        else:
            named = _c_named(
                domain, kind, re.sub(r"^(?:type|macro|var|member)\s+", "", sig), _Context()
            )
        if named is None:
            continue
        full, head, signature, extra = named
        if ident and domain in ("py", "js"):
            head, full = head.replace(full, ident, 1), ident
        elif ident.startswith("c.") and domain == "c":
            head, full = head.replace(full, ident[2:], 1), ident[2:]
        found.append(Description(domain, kind, full, "", head, signature, extra, content, 0))
    return _documents(doc, (page_text or to_text)(page), found)


def _documents(doc: Document, page: str, found: list[Description]) -> list[Document]:
    out: list[Document] = []
    if page.strip():
        out.append(Document(doc.source, doc.uri, doc.title, page, doc.meta))
    f = SourceFile(PurePosixPath(doc.uri), doc.uri, doc.text, dict(doc.meta))
    for d in found:
        text = f"{d.head}\n\n{d.content}"
        if d.extra:
            text += "\n\n" + "\n\n".join(d.extra)
        more = {
            "qualname": d.name,
            "module": d.module,
            "language": LANGUAGES[d.domain],
            "described": True,
        }
        out.append(
            api_document(
                doc.source,
                URI_PREFIXES[d.domain],
                f,
                d.qualified,
                text,
                d.kind,
                d.signature,
                d.line + 1,
                **more,
            )
        )
    return out


def unique(docs: Iterable[Document], rejects: CollectResult | None) -> list[Document]:
    """`docs` with a description read from a page (meta `described`: Sphinx's, a javadoc
    page's member) whose uri an earlier one has left out (counted AGAIN)."""
    seen: set[str] = set()
    out = []
    for doc in docs:
        if doc.meta.get("described"):
            if doc.uri in seen:
                count(rejects, AGAIN, f"{doc.meta.get('origin', '')}:{doc.meta.get('line', 0)}")
                continue
            seen.add(doc.uri)
        out.append(doc)
    return out


# ------------------------------------------------------------------------------- scanning
def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _block_end(lines: list[str], i: int, hi: int, indent: int) -> int:
    """Past the lines from `i` indented deeper than `indent` (blank lines inside kept, the
    trailing ones left out)."""
    end = j = i
    while j < hi:
        if lines[j].strip():
            if _indent(lines[j]) <= indent:
                break
            end = j + 1
        j += 1
    return end


def _object(name: str, ctx: _Context) -> tuple[str, str] | None:
    """(domain, kind) when the directive `name` describes an object."""
    domain, _, kind = name.rpartition(":")
    domain = domain or ctx.domain
    if domain in OBJECTS and kind in OBJECTS[domain]:
        return domain, kind
    return None


def _scan(lines: list[str], lo: int, hi: int, ctx: _Context) -> tuple[list[int], list[Description]]:
    """(the indices of the lines a page keeps, the descriptions) of lines[lo:hi]."""
    kept: list[int] = []
    found: list[Description] = []
    i = lo
    while i < hi:
        line = lines[i]
        d = _DIRECTIVE.match(line)
        if d is None:
            if _COMMENT.match(line):  # a comment, however many lines: nothing in it read
                end = max(i + 1, _block_end(lines, i + 1, hi, _indent(line)))
                kept.extend(range(i, end))
                i = end
                continue
            kept.append(i)
            if line.rstrip().endswith("::") and line.strip() != "::" or line.strip() == "::":
                end = _block_end(lines, i + 1, hi, _indent(line))  # a literal block
                kept.extend(range(i + 1, end))
                i = max(end, i + 1)
                continue
            i += 1
            continue
        name, arg, indent = d.group("name"), d.group("arg").strip(), _indent(line)
        end = max(i + 1, _block_end(lines, i + 1, hi, indent))
        bare = name.rpartition(":")[2]
        if bare in ("module", "currentmodule") and name.partition(":")[0] in ("py", bare):
            ctx.module = "" if arg == "None" else arg
        elif name == "js:module":
            ctx.js_module = "" if arg == "None" else arg
        elif name == "default-domain":
            ctx.domain = arg or "py"
        elif name in ("cpp:namespace", "cpp:namespace-push"):
            top = "" if arg in ("", "0", "nullptr") else arg
            ctx.namespace = f"{ctx.namespace}::{top}" if bare.endswith("push") and top else top
        what = _object(name, ctx)
        if what is None:
            kept.extend(range(i, end))
            if bare not in _QUOTED:
                # a note, an `only`: what it holds is read (its lines stay where they are)
                inner_kept, inner = _scan(lines, i + 1, end, ctx)
                if inner:
                    keep = set(inner_kept)
                    kept = [k for k in kept if k <= i or k >= end or k in keep]
                    found.extend(inner)
            i = end
            continue
        got = _describe(lines, i, end, what, arg, ctx)
        if got is None and indent == 0 and _under_heading(lines, lo, i):
            # a description with no text of its own right under a heading (Django writes
            # its reference so): the section's text, up to the next heading or
            # description, is what it says
            stop = _section_end(lines, end, hi, ctx)
            got = _describe(lines, i, stop, what, arg, ctx, section=(end, stop))
            end = stop if got else end
        _place(got, kept, found, i, end)
        i = end
    return kept, found


def _place(
    got: list[Description] | None, kept: list[int], found: list[Description], i: int, end: int
) -> None:
    """A description's lines: its documents' (`got`), or the page's when it gave none."""
    if got is None:
        kept.extend(range(i, end))
    else:
        found.extend(got)


_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")


def _heading_at(lines: list[str], k: int) -> bool:
    """lines[k] is a section title's underline (the title over it)."""
    return (
        k > 0
        and bool(_UNDERLINE.match(lines[k]))
        and bool(lines[k - 1].strip())
        and not _UNDERLINE.match(lines[k - 1])
    )


def _under_heading(lines: list[str], lo: int, i: int) -> bool:
    """Only blank lines stand between lines[i] and a section title over it."""
    k = i - 1
    while k >= lo and not lines[k].strip():
        k -= 1
    return k >= lo and _heading_at(lines, k)


def _section_end(lines: list[str], i: int, hi: int, ctx: _Context) -> int:
    """Where the section's text from lines[i] ends: the next title, a description at the
    margin, or `hi`."""
    for k in range(i, hi):
        if k + 1 < hi and _heading_at(lines, k + 1):
            return k
        d = _DIRECTIVE.match(lines[k])
        if d is not None and not _indent(lines[k]) and _object(d.group("name"), ctx):
            return k
    return hi


_MYST_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
_MYST_DIRECTIVE = re.compile(r"^\{(?P<name>[\w:-]+)\}\s*(?P<arg>.*)$")


def _fence_end(lines: list[str], i: int, hi: int, fence: str) -> int:
    """The line that closes the fence opened at lines[i] (`fence` its marks); `hi` when
    none does."""
    close = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
    return next((j for j in range(i + 1, hi) if close.match(lines[j])), hi)


def _scan_myst(
    lines: list[str], lo: int, hi: int, ctx: _Context
) -> tuple[list[int], list[Description]]:
    """_scan for a MyST Markdown page: directives are fences (```` ```{py:function} f(x) ````,
    options as `:key: value` lines right under the opening), an `{eval-rst}` fence's content
    reStructuredText; a code fence is quoted."""
    kept: list[int] = []
    found: list[Description] = []
    i = lo
    while i < hi:
        m = _MYST_OPEN.match(lines[i])
        if m is None:
            kept.append(i)
            i += 1
            continue
        inner_end = _fence_end(lines, i, hi, m.group("fence"))
        end = min(inner_end + 1, hi)
        d = _MYST_DIRECTIVE.match(m.group("info").strip())
        if d is None:  # code: quoted
            kept.extend(range(i, end))
            i = end
            continue
        name, arg = d.group("name"), d.group("arg").strip()
        bare = name.rpartition(":")[2]
        if bare in ("module", "currentmodule") and name.partition(":")[0] in ("py", bare):
            ctx.module = "" if arg == "None" else arg
        what = _object(name, ctx)
        if what is None:
            if name == "eval-rst":
                inner_kept, inner = _scan(lines, i + 1, inner_end, ctx)
            elif bare in _QUOTED:
                inner_kept, inner = list(range(i + 1, inner_end)), []
            else:  # a note, a tab: what it holds is read
                inner_kept, inner = _scan_myst(lines, i + 1, inner_end, ctx)
            kept.extend([i, *inner_kept, *range(inner_end, end)])
            found.extend(inner)
            i = end
            continue
        got = _describe(lines, i, inner_end, what, arg, ctx, myst=True)
        _place(got, kept, found, i, end)
        i = end
    return kept, found


def _describe(
    lines: list[str],
    i: int,
    end: int,
    what: tuple[str, str],
    arg: str,
    ctx: _Context,
    myst: bool = False,
    section: tuple[int, int] | None = None,
) -> list[Description] | None:
    """The description at lines[i:end] and those nested in it; None when it says nothing
    (a signature with no content stays in the page as it was). `myst`: a MyST fence's
    (one signature; its content Markdown, nested descriptions fences)."""
    domain, kind = what
    sigs = [arg] if arg else []
    j = i + 1
    while not myst and j < end and lines[j].strip() and not _OPTION.match(lines[j]):
        sigs.append(lines[j].strip())  # further signatures, one a line
        j += 1
    sigs = _joined(sigs)
    options: dict[str, str] = {}
    while j < end and _OPTION.match(lines[j]):
        m = _OPTION.match(lines[j])
        assert m is not None
        options[m.group("key")] = m.group("value").strip()
        j += 1
    named = [(sig, got) for sig in sigs if (got := _named(domain, kind, sig, ctx, options))]
    if not named:
        return None
    full = named[0][1][0]
    inner_ctx = _Context(ctx.module, ctx.js_module, ctx.domain, ctx.owner, ctx.namespace)
    if "module" in options and domain == "py":
        inner_ctx.module = options["module"]
    if kind in _OWNERS:
        inner_ctx.owner = full
    if myst:
        kept, nested = _scan_myst(lines, j, end, inner_ctx)
        content = re.sub(r"\n{3,}", "\n\n", "\n".join(lines[k] for k in kept)).strip("\n")
    else:
        a, b = section or (j, end)  # a section's text: the lines after the directive
        kept, nested = _scan(lines, a, b, inner_ctx)
        content = _render(_dedent_lines([lines[k] for k in kept]).split("\n")).strip("\n")
    module = inner_ctx.module if domain == "py" else ctx.js_module if domain == "js" else ""
    out: list[Description] = []
    if content.strip():
        # one description per name its signatures give (ast's `List(elts, ctx)` and
        # `Tuple(elts, ctx)` share a text); a name's further signatures said below its own
        firsts: dict[str, tuple[str, str, list[str]]] = {}
        others: dict[str, list[str]] = {}
        for sig, (name, head, signature, extra) in named:
            if name in firsts:
                others[name].append(sig)
            else:
                firsts[name], others[name] = (head, signature, extra), []
        for name, (head, signature, extra) in firsts.items():
            also = [f"Also: {', '.join(f'`{x}`' for x in others[name])}."] if others[name] else []
            out.append(
                Description(
                    domain, kind, name, module, head, signature, [*extra, *also], content, i
                )
            )
    return out + nested if out or nested else None


# how Sphinx words a version directive ("Added in version 3.2.")
_VERSIONS = {
    "versionadded": "Added in version {v}",
    "versionchanged": "Changed in version {v}",
    "deprecated": "Deprecated since version {v}",
}
# admonitions, said as "Note: ..."
_ADMONITIONS = {
    "note": "Note", "warning": "Warning", "tip": "Tip", "hint": "Hint", "important":
    "Important", "caution": "Caution", "attention": "Attention", "danger": "Danger",
    "seealso": "See also", "impl-detail": "CPython implementation detail",
}  # fmt: skip
# directives a description's text leaves out (an index entry, CPython's audit events)
_DROPPED = {"index", "audit-event", "toctree", "raw", "image", "figure", "sectionauthor",
            "moduleauthor", "tabularcolumns", "highlight"}  # fmt: skip
_FIELD = re.compile(r"^:[\w][\w .*,\[\]|-]*:(?:\s|$)")


def _render(lines: list[str]) -> str:
    """A description's content as its text reads on the built page: a version directive in
    Sphinx's words ("Added in version 3.2.", "Deprecated since version 3.3: ..."), a note
    as "Note: ...", `.. availability::` as "Availability: ..."; a code directive's content
    an indented block; index entries and audit events left out. Its field list (":param
    x:", ":returns:") goes last, and version notes written over the whole text after it,
    so the text opens with what the object is."""
    out: list[str] = []
    late: list[str] = []  # version notes over the whole text, said after it
    fields: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        d = _DIRECTIVE.match(line) if not _indent(line) else None
        if d is None:
            if _COMMENT.match(line) and not _indent(line):  # a comment, a link target
                i = max(i + 1, _block_end(lines, i + 1, n, 0))
                continue
            if _FIELD.match(line) and not _indent(line):
                end = max(i + 1, _block_end(lines, i + 1, n, 0))
                fields.extend([*lines[i:end], ""])
                i = end
                continue
            out.append(line)
            i += 1
            continue
        name, arg = d.group("name").rpartition(":")[2], d.group("arg").strip()
        end = max(i + 1, _block_end(lines, i + 1, n, 0))
        inner = lines[i + 1 : end]
        while inner and (not inner[0].strip() or _OPTION.match(inner[0])):
            inner = inner[1:]
        said = " ".join(_dedent_lines(inner).split()) if inner else ""
        i = end
        if name in _VERSIONS or name == "deprecated-removed":
            v = arg.split()
            if name == "deprecated-removed" and len(v) >= 2:
                lead = f"Deprecated since version {v[0]}, will be removed in version {v[1]}"
                said = " ".join([*v[2:], said]).strip()
            elif v:
                lead = _VERSIONS.get(name, _VERSIONS["deprecated"]).format(v=v[0])
                said = " ".join([*v[1:], said]).strip()
            else:
                continue
            note = [f"{lead}: {said}" if said else f"{lead}.", ""]
            # a note over the whole description (before its first words) goes after them:
            # the text opens with what the object is
            (out if any(x.strip() for x in out) else late).extend(note)
        elif name in _ADMONITIONS or name == "admonition":
            label = _ADMONITIONS.get(name, arg)
            text = _dedent_lines(inner).strip("\n")
            if name != "admonition" and arg:
                text = f"{arg}\n{text}".strip()
            if text:
                out.extend([f"{label}: {text}", ""])
        elif name == "availability":
            out.extend([f"Availability: {arg or said}", ""])
        elif name in _DROPPED:
            continue
        elif name in _QUOTED:
            if inner:
                code = _dedent_lines(inner).split("\n")
                out.extend(["", *(f"    {x}" if x.strip() else "" for x in code), ""])
        elif inner:  # `only` and the like: what they hold is text
            out.extend([*_dedent_lines(inner).split("\n"), ""])
    text = "\n".join([*out, "", *late]).strip("\n")
    if fields:
        text += "\n\n" + "\n".join(fields).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)


def _dedent_lines(lines: list[str]) -> str:
    """The lines joined, their common indentation gone (blank lines emptied)."""
    return textwrap.dedent("\n".join(lines))


def _joined(sigs: list[str]) -> list[str]:
    """Signature lines, a line ending in a backslash joined to the next."""
    out: list[str] = []
    carry = ""
    for s in sigs:
        if s.endswith("\\"):
            carry += s[:-1] + " "
            continue
        out.append((carry + s).strip())
        carry = ""
    if carry.strip():
        out.append(carry.strip())
    return [s for s in out if s]


def _paren_end(s: str, i: int) -> int:
    """Past the parenthesis that closes the one at s[i], quotes skipped; -1 when none."""
    depth, quote = 0, ""
    k = i
    while k < len(s):
        ch = s[k]
        if quote:
            if ch == "\\":
                k += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return -1


def _named(
    domain: str, kind: str, sig: str, ctx: _Context, options: dict[str, str]
) -> tuple[str, str, str, list[str]] | None:
    """(full name, the document's first line, the signature, extra lines) of a signature."""
    if domain in ("py", "js"):
        return _py_named(kind, sig, ctx, options)
    return _c_named(domain, kind, sig, ctx)


def _py_named(
    kind: str, sig: str, ctx: _Context, options: dict[str, str]
) -> tuple[str, str, str, list[str]] | None:
    m = _PY_NAME.match(sig)
    if m is None:
        return None
    prefix, name = m.group("prefix"), m.group("name")
    rest = sig[m.end() :].strip()
    signature, after = "", rest
    if rest.startswith("["):  # type parameters (PEP 695): `first[T](items)`
        close = _paren_end(rest, 0)
        after = rest[close:].strip() if close > 0 else rest
    if after.startswith("("):
        close = _paren_end(after, 0)
        if close > 0:
            signature = after[:close]
            tail = after[close:].strip()
            if tail.startswith("->"):
                signature += f" -> {tail[2:].strip()}"
    owner = ctx.owner
    if owner:
        if prefix and (prefix.rstrip(".") == owner or prefix.startswith(f"{owner}.")):
            full = prefix + name
        else:
            full = f"{owner}.{prefix}{name}"
    else:
        full = prefix + name
    extra = []
    if options.get("type"):
        extra.append(f"Type: `{options['type']}`")
    if options.get("value"):
        extra.append(f"Value: `{options['value']}`")
    elif kind in ("data", "attribute", "property") and rest.startswith((":", "=")):
        typ, eq, value = (
            rest.lstrip(":").partition("=") if rest.startswith(":") else ("", "=", rest[1:])
        )
        if typ.strip():
            extra.append(f"Type: `{typ.strip()}`")
        if eq and value.strip():
            extra.append(f"Value: `{value.strip()}`")
    if " -> " in signature:
        signature, returns = signature.split(" -> ", 1)
        extra.append(f":returns: `{returns}`")
    head = f"{full}{signature}"
    if kind not in _CALLABLE and not signature:
        head = full
    return full, head, signature, extra


def _c_named(
    domain: str, kind: str, sig: str, ctx: _Context
) -> tuple[str, str, str, list[str]] | None:
    from jupiter.collect.capi import _function  # the C reader's declaration parser

    sep = "::" if domain == "cpp" else "."

    def qualified(name: str) -> str:  # under its owner, else in its namespace (C++)
        if ctx.owner and sep not in name:
            return f"{ctx.owner}{sep}{name}"
        if sep in name and domain != "cpp":
            return name
        return f"{ctx.namespace}::{name}" if domain == "cpp" and ctx.namespace else name

    sig = " ".join(sig.split())
    extra: list[str] = []
    if kind in ("function", "macro") and "(" in sig:
        got = _function(sig) if kind == "function" else None
        if got is not None:
            name, params, returns, _ = got
            scope = re.search(rf"((?:[A-Za-z_]\w*::)+){re.escape(name)}\s*\(", sig)
            name = f"{scope.group(1)}{name}" if scope else name  # `void other::f()`
            shown = "" if params.strip() == "void" else params
            if returns and returns != "void":
                extra.append(f":returns: `{returns}`")
        else:
            m = re.match(r"\s*([A-Za-z_][\w:]*)\s*\((.*)\)\s*$", sig)
            if m is None:
                return None
            name, shown = m.group(1), m.group(2)
        full = qualified(name)
        return full, f"{full}({shown})", f"({shown})", extra
    words = re.findall(r"[A-Za-z_][\w.:]*", re.sub(r"\[[^\]]*\]|=.*$", "", sig))
    words = [w for w in words if w not in ("struct", "union", "enum", "class", "const")]
    if not words:
        return None
    name = words[-1]
    typ = sig[: sig.rfind(name)].strip() if kind in ("member", "var") else ""
    if typ:
        extra.append(f"Type: `{typ}`")
    full = qualified(name)
    return full, full, "", extra


# --------------------------------------------------------------------------- built pages
# a built page's description: <dl class="py function"><dt id="json.dumps">...</dt><dd>...
_HTML_MARK = re.compile(r"<dl\s+class=\"(?:py|c|cpp|js)\s", re.I)
# what Sphinx writes before a signature's name ("class ", "async ", "static ")
_ANNOTATIONS = re.compile(
    r"^(?:(?:abstract|abstractmethod|async|await|awaitable|class|classmethod|coroutine|"
    r"decorator|exception|final|static|staticmethod|property|method|function|data|"
    r"attribute|type)\s+)+"
)
_PERMALINK = re.compile(r"[¶#]\s*$|\[source\]\s*$")


@dataclass
class _Found:
    domain: str
    kind: str
    start: int
    end: int = -1
    parent: int = -1
    dts: list[tuple[str, int, int]] = field(default_factory=list)  # (id, start, end)
    dd: tuple[int, int] = (-1, -1)


class _Locator(HTMLParser):
    """Where a built page's object descriptions (dl elements of a domain's object type),
    their signatures (dt) and contents (dd) stand in its HTML, nested ones with their
    parent's index."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.html = html
        self.starts = [0]
        for m in re.finditer("\n", html):
            self.starts.append(m.end())
        self.found: list[_Found] = []
        self.stack: list[tuple[str, int]] = []  # (dl/dt/dd, the object's index or -1)

    def _at(self) -> int:
        line, col = self.getpos()
        return self.starts[line - 1] + col

    def _owner(self) -> int:
        return next((k for tag, k in reversed(self.stack) if tag == "dl" and k >= 0), -1)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("dl", "dt", "dd"):
            return
        at = self._at()
        top = self.stack[-1] if self.stack else ("", -1)
        if tag == "dl":
            classes = (dict(attrs).get("class") or "").split()
            what = _object(f"{classes[0]}:{classes[1]}", _Context()) if len(classes) > 1 else None
            k = -1
            if what is not None:
                k = len(self.found)
                self.found.append(_Found(what[0], what[1], at, parent=self._owner()))
            self.stack.append(("dl", k))
            return
        k = top[1] if top[0] == "dl" else -1
        if k >= 0:
            inner = at + len(self.get_starttag_text() or "")
            if tag == "dt":
                self.found[k].dts.append((dict(attrs).get("id") or "", inner, -1))
            elif self.found[k].dd[0] < 0:
                self.found[k].dd = (inner, -1)
        self.stack.append((tag, k))

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("dl", "dt", "dd") or not any(t == tag for t, _ in self.stack):
            return
        at = self._at()
        while self.stack:
            t, k = self.stack.pop()
            if k >= 0 and t != "dl":
                f = self.found[k]
                if t == "dt" and f.dts and f.dts[-1][2] < 0:
                    f.dts[-1] = (f.dts[-1][0], f.dts[-1][1], at)
                elif t == "dd" and f.dd[1] < 0:
                    f.dd = (f.dd[0], at)
            if t == "dl" and k >= 0:
                self.found[k].end = self.html.find(">", at) + 1 or len(self.html)
            if t == tag:
                return


def split_html(
    html: str, to_text: Callable[[str], str]
) -> tuple[str, list[tuple[str, str, str, str, str, str]]] | None:
    """(the page without its object descriptions, each description's (domain, kind, id,
    signature text, content text, the id of the description it is nested in)) of a built
    Sphinx page, its HTML made text by `to_text`; None when it has no description."""
    if not _HTML_MARK.search(html):
        return None
    loc = _Locator(html)
    loc.feed(html)
    loc.close()
    found = [f for f in loc.found if f.end > 0 and f.dts and f.dd[1] >= 0]
    if not found:
        return None
    ok = {id(f) for f in found}

    def without(a: int, b: int, inside: list[_Found]) -> str:
        out, pos = [], a
        for f in sorted(inside, key=lambda f: f.start):
            if f.start >= pos and f.end <= b:
                out.append(html[pos : f.start])
                pos = f.end
        return "".join(out) + html[pos:b]

    index = {k: f for k, f in enumerate(loc.found)}
    children: dict[int, list[_Found]] = {}
    for f in found:
        children.setdefault(f.parent, []).append(f)
    top = [f for f in found if f.parent < 0 or id(index[f.parent]) not in ok]
    page = without(0, len(html), top)
    out = []
    for k, f in index.items():
        if id(f) not in ok:
            continue
        content = to_text(without(f.dd[0], f.dd[1], children.get(k, [])))
        parent = index.get(f.parent)
        owner = parent.dts[0][0] if parent is not None and parent.dts else ""
        for ident, a, b in f.dts:
            sig = " ".join(_PERMALINK.sub("", to_text(html[a:b])).split())
            out.append((f.domain, f.kind, ident, sig, content, owner))
    return page, out
