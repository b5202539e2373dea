"""Rust files read as their crate's API, as rustdoc reads it: one document per public
function, method, struct, enum, variant, field, trait, trait item, type alias, constant,
static and exported macro that has a doc comment (`///` or `/** */` over it, attributes
between them allowed), and one per module doc (`//!` or `/*! */` at a module's top, `///`
over `pub mod x;`). The uri is `rust:<crate>::<module path>::<Name>`
(`rust:anyhow::Error::context` for a method), the text the form the question templates read
for Python's docstrings: `name(params)` over the doc, `:returns:` with the return type, a
constant's value, a field's type.

The files are scanned, never compiled: comments (nested block comments too), strings, raw
strings (`r#"..."#`), byte strings and character literals are told apart from code and from
lifetimes, so a brace in a string ends no block. A crate's name is its Cargo.toml's
`[package] name` where the source has one (the manifests handed in), else the folder above
`src/` (its version cut: `clap-4.0.32` -> `clap`); the module path follows the file
(`src/lib.rs` the crate, `src/a/b.rs` and `src/a/b/mod.rs` `a::b`, `src/bin/x.rs` the
binary `x`). Public means `pub` (not `pub(crate)`), a public trait's items and a trait
impl's methods public too; `#[doc(hidden)]` and `#[cfg(test)]` items are not. Tests
(`tests/`, `benches/`), examples, build scripts, vendored and generated files give no
document and are counted, and so is a file with nothing documented. Re-exports (`pub use`)
are not followed: an item is named by the module that defines it.
"""

from __future__ import annotations

import re
import textwrap
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import tomllib

from jupiter.collect.codescan import blank, blanked, closing
from jupiter.collect.result import (
    CollectResult,
    SourceFile,
    api_document,
    by_manifest,
    renamed,
)
from jupiter.collect.result import count as _count
from jupiter.records import Document

SUFFIXES = (".rs",)
URI_PREFIX = "rust:"
MANIFEST = "Cargo.toml"
# reasons a Rust file gave no document, as the collect stage counts them
RUST_TEST = "rust_test"
RUST_EXAMPLE = "rust_example"
RUST_BUILD = "rust_build_script"
RUST_VENDORED = "rust_vendored"
RUST_GENERATED = "rust_generated"
RUST_NO_API = "rust_no_api"
_AS_TEXT = (
    "Rust files read as their crate's API (doc comments of public items): tests, examples, "
    "build scripts, vendored and generated code and files with nothing documented give "
    "none; the source's rust: text reads them as text"
)
FIXES = {
    k: _AS_TEXT
    for k in (RUST_TEST, RUST_EXAMPLE, RUST_BUILD, RUST_VENDORED, RUST_GENERATED, RUST_NO_API)
}
_GENERATED = re.compile(r"^//.*(?:@generated|automatically generated|DO NOT EDIT)", re.M | re.I)
_ITEM = re.compile(
    r"(?P<vis>pub(?:\s*\([^)]*\))?\s+)?"
    r"(?P<quals>(?:(?:default|const|async|unsafe|extern(?:\s*\"[^\"]*\")?)\s+)*)"
    r"(?P<kw>fn|struct|enum|union|trait|impl|type|const|static|mod|use|extern\s+crate"
    r"|macro_rules!)(?![\w!])"
)
_EXTERN_BLOCK = re.compile(r"(?:unsafe\s+)?extern(?:\s*\"[^\"]*\")?\s*\{")
_MOD_DECL = re.compile(r"^[ \t]*(?P<vis>pub(?:\s*\([^)]*\))?\s+)?mod\s+(?P<name>\w+)\s*;", re.M)
_PUB_USE = re.compile(r"\bpub\s+use\s+([^;]+);")
_PUB_TYPE = re.compile(r"\bpub\s+(?:struct|enum|union|trait|type)\s+(\w+)")
_MUT = re.compile(r"\s*mut\b")
_IDENT = re.compile(r"\s*(?:r#)?(?P<name>[A-Za-z_]\w*)")
SELF_PARAM = re.compile(r"^(?:&\s*(?:'\w+\s+)?)?(?:mut\s+)?self(?:\s*:.*)?$", re.S)
_MAX_VALUE = 80  # characters of a constant's value or an alias's definition shown
# rustdoc Markdown: hidden lines of an example, intra-doc and badge links, reference targets
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*(?P<info>[\w,\- ]*)\s*$")
_HIDDEN = re.compile(r"^\s*#(?:\s|$)")
_BADGE = re.compile(r"\[!\[[^\]]*\]\]\([^)]*\)|!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\](?:\[[^\]]*\])?")
# [text](target), [text][ref], and an intra-doc shortcut [`Name`]; other brackets stay
_LINK = re.compile(r"\[(?P<text>[^\]\[]+)\](?:\([^)\s]*\)|\[[^\]]*\])|\[(?P<code>`[^`\]]+`)\]")
_REF_TARGET = re.compile(r"^\s*\[[^\]]+\]:\s*\S+\s*$")
_HTML_BREAK = re.compile(r"^\s*<br\s*/?>\s*$", re.I)


RustFile = SourceFile  # its files, as the source hands them over


@dataclass
class _Comment:
    start: int
    end: int
    kind: str  # "outer" (/// or /** */), "inner" (//! or /*! */) or "plain"
    text: str  # without its marks
    block: bool = False  # a /* */ comment


def is_rust(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def manifest_name(text: str) -> str | None:
    """The crate a Cargo.toml names ([package] name), None for a workspace or bad TOML."""
    try:
        got = tomllib.loads(text).get("package", {}).get("name")
    except (tomllib.TOMLDecodeError, AttributeError):
        return None
    return got if isinstance(got, str) and got else None


def _crate_root(rel: PurePosixPath, manifests: dict[PurePosixPath, str]) -> PurePosixPath | None:
    """The folder of the crate holding `rel`: the nearest folder over it with a manifest,
    else the folder over its last `src/`; None when neither."""
    for d in rel.parents:
        if d in manifests:
            return d
    parts = rel.parts[:-1]
    if "src" in parts:
        k = len(parts) - 1 - parts[::-1].index("src")
        return PurePosixPath(*parts[:k]) if k else PurePosixPath(".")
    return None


def _crate_name(root: PurePosixPath | None, manifests: dict[PurePosixPath, str], top: str) -> str:
    if root is not None and root in manifests:
        name = manifests[root]
    elif root is not None and root.name:
        name = re.sub(r"-v?\d+(?:\.\d+)*(?:[-+][\w.]+)?$", "", root.name)
    else:
        name = top or "crate"
    return re.sub(r"\W", "_", name.replace("-", "_")) or "crate"


def module_of(
    rel: PurePosixPath, manifests: dict[PurePosixPath, str], top: str = ""
) -> tuple[str, list[str]] | str:
    """(crate, module path) of a file, or the reason it gives no document (a test, an
    example, a build script)."""
    root = _crate_root(rel, manifests)
    inside = rel.relative_to(root) if root is not None else rel
    parts = list(inside.parts)
    if parts[0] in ("tests", "benches"):
        return RUST_TEST
    if parts[0] == "examples":
        return RUST_EXAMPLE
    if parts == ["build.rs"]:
        return RUST_BUILD
    crate = _crate_name(root, manifests, top)
    if parts[0] == "src":
        parts = parts[1:]
        if parts and parts[0] == "bin":  # a binary: its own crate, named by its file or folder
            crate = re.sub(r"\W", "_", PurePosixPath(parts[1]).stem) if len(parts) > 1 else crate
            return crate, [p for p in _module_parts(parts[2:]) if p != "main"]
    return crate, _module_parts(parts)


def _module_parts(parts: list[str]) -> list[str]:
    if not parts:
        return []
    *dirs, last = parts
    stem = PurePosixPath(last).stem
    if stem in ("lib", "main", "mod") or (not dirs and stem == "lib"):
        return dirs if stem == "mod" or dirs else []
    return [*dirs, stem]


def read(
    files: list[RustFile], source: str, rejects: CollectResult | None, top: str
) -> list[Document]:
    """The documents of a source's Rust files, the Cargo.toml files among them naming their
    crates (collect/apis.py)."""
    manifests, code = by_manifest(files, MANIFEST, manifest_name)
    return api_documents(code, source, rejects, manifests, top)


def api_documents(
    files: list[RustFile],
    source: str,
    rejects: CollectResult | None = None,
    manifests: dict[PurePosixPath, str] | None = None,
    top: str = "",
) -> list[Document]:
    """Documents for the documented public API the files define, sorted by uri; a file that
    gives none is counted in `rejects`. `manifests` maps a folder (relative, like the files'
    paths) to the crate its Cargo.toml names; `top` names a crate found nowhere else."""
    manifests = manifests or {}
    read: list[tuple[RustFile, str, list[str], tuple[str, list[_Comment]]]] = []
    public: dict[tuple[str, tuple[str, ...], str], bool] = {}  # `mod x;` declarations
    exported: dict[str, set[str]] = {}  # by crate: the names its `pub use` trees hold
    globs: dict[str, set[str]] = {}  # by crate: the modules a `pub use x::*` opens
    for f in sorted(files, key=lambda f: f.rel):
        if "vendor" in f.rel.parts[:-1]:
            _count(rejects, RUST_VENDORED, f.where)
            continue
        where = module_of(f.rel, manifests, top)
        if isinstance(where, str):
            _count(rejects, where, f.where)
            continue
        if _GENERATED.search(f.text[:2000]):
            _count(rejects, RUST_GENERATED, f.where)
            continue
        crate, modules = where
        scanned = scan(f.text)
        for m in _MOD_DECL.finditer(scanned[0]):
            vis = "".join((m.group("vis") or "").split())
            public[(crate, tuple(modules), m.group("name"))] = vis == "pub"
        for m in _PUB_USE.finditer(scanned[0]):
            tree = re.sub(r"\bas\s+\w+", "", m.group(1))
            exported.setdefault(crate, set()).update(re.findall(r"\w+", tree))
            globs.setdefault(crate, set()).update(re.findall(r"(\w+)\s*::\s*\*", tree))
        read.append((f, crate, modules, scanned))
    for _, crate, modules, scanned in read:  # a public module's types: their impls elsewhere
        if all(public.get((crate, tuple(modules[:k]), m), True) for k, m in enumerate(modules)):
            exported.setdefault(crate, set()).update(_PUB_TYPE.findall(scanned[0]))
    # a private module's items are public where a `pub use` names them or opens one of its
    # private modules with `*`, or the type they belong to is public in a public module (by
    # name: paths are not resolved), and are named as its
    # parent's are, as `mod x; pub use x::*;` shows them; where two files' items would then
    # share a name (regex's bytes and str `Regex`), each keeps its full path
    found: list[tuple[RustFile, list[Document]]] = []
    owners: dict[str, set[str]] = {}
    for f, crate, modules, scanned in read:
        keep = [public.get((crate, tuple(modules[:k]), m), True) for k, m in enumerate(modules)]
        shown = [m for m, ok in zip(modules, keep, strict=True) if ok]
        got = list(file_documents(f, source, crate, modules, scanned, all(keep)))
        old, new = "::".join([crate, *modules]), "::".join([crate, *shown])
        if old != new:
            hidden = {m for m, ok in zip(modules, keep, strict=True) if not ok}
            opened = bool(hidden & globs.get(crate, set()))
            names = exported.get(crate, set())
            got = [
                _renamed(d, old, new)
                for d in got
                if opened
                or d.meta["kind"] == "macro"
                or d.meta["qualname"][len(old) + 2 :].split("::")[0] in names
            ]
        found.append((f, got))
        for d in found[-1][1]:
            owners.setdefault(d.uri, set()).add(f.where)
    docs: dict[str, Document] = {}
    for f, got in found:
        for doc in got:
            if len(owners[doc.uri]) > 1 and doc.meta["qualname"] != doc.meta["defined_as"]:
                doc = _renamed(doc, doc.meta["qualname"], doc.meta["defined_as"])
            if doc.uri in docs and doc.meta.get("kind") == "module" == docs[doc.uri].meta["kind"]:
                first = docs[doc.uri]  # `///` over `pub mod x;` and `//!` in x.rs: one module
                docs[doc.uri] = Document(
                    first.source, first.uri, first.title, f"{first.text}\n\n{doc.text}", first.meta
                )
            else:
                docs.setdefault(doc.uri, doc)
        if not got:
            _count(rejects, RUST_NO_API, f.where)
    return [docs[uri] for uri in sorted(docs)]


def _renamed(doc: Document, old: str, new: str) -> Document:
    """`doc` named with `new` in place of the `old` start of its path (collect/result.py);
    its full name stays in meta `defined_as`."""
    return renamed(doc, URI_PREFIX, old, new, "::")


# ----------------------------------------------------------------------------- scanning
def scan(text: str) -> tuple[str, list[_Comment]]:
    """(the code with comments and literals blanked, same length; the comments)."""
    out = list(text)
    comments: list[_Comment] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            kind = (
                "outer"
                if text.startswith("///", i) and not text.startswith("////", i)
                else "inner"
                if text.startswith("//!", i)
                else "plain"
            )
            body = text[i + 3 : j] if kind != "plain" else text[i + 2 : j]
            comments.append(_Comment(i, j, kind, body))
            blank(out, i, j)
            i = j
        elif text.startswith("/*", i):
            j, depth = i + 2, 1
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            body = text[i + 2 : j - 2] if not depth else text[i + 2 : j]
            doc = text.startswith("/**", i) and not text.startswith(("/***", "/**/"), i)
            kind = "outer" if doc else "inner" if text.startswith("/*!", i) else "plain"
            comments.append(_Comment(i, j, kind, body[1:] if kind != "plain" else body, True))
            blank(out, i, j)
            i = j
        elif c in "rb" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.compile(r"b?r(#*)\"").match(text, i)
            if m is not None:  # a raw string: no escapes, closed by a quote and its hashes
                close = '"' + m.group(1)
                j = text.find(close, m.end())
                j = n if j < 0 else j
                blank(out, m.end(), j)
                i = j + len(close)
            elif text.startswith(("b'", 'b"'), i):
                i += 1  # a byte literal: read as the literal after it
            else:
                i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(out, i + 1, min(j, n))
            i = j + 1
        elif c == "'":
            if text.startswith("\\", i + 1):  # '\n', '\'', '\u{1F600}'
                j = text.find("'", i + 3)
                j = n if j < 0 or j - i > 12 else j
                blank(out, i + 1, j)
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":  # 'x'
                blank(out, i + 1, i + 2)
                i += 3
            else:  # a lifetime or a label: 'a, 'static
                i += 1
        else:
            i += 1
    return "".join(out), comments


def split_commas(text: str) -> list[str]:
    """`text` split at its commas outside brackets (angle brackets counted), each part
    stripped, empty ones left out."""
    parts: list[str] = []
    depth, last = 0, 0
    for k, ch in enumerate(text):
        if ch in "([{<" and not (
            ch == "<" and text[k - 1 : k] == " " and text[k + 1 : k + 2] == "="
        ):
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and k and text[k - 1] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[last:k])
            last = k + 1
    parts.append(text[last:])
    return [" ".join(p.split()) for p in parts if p.strip()]


# ----------------------------------------------------------------------------- doc text
def doc_text(comments: list[_Comment], extra: list[tuple[int, str]] | None = None) -> str:
    """The Markdown of a run of doc comments (and `#[doc = "..."]` attributes, by position),
    its common indentation taken off, rustdoc's hidden example lines and link targets left
    out, links read as their text."""
    pieces: list[tuple[int, str]] = []
    for c in comments:
        body = c.text
        if c.block:  # a block comment: its " * " margins off
            lines = body.strip("\n").splitlines()
            if all(not x.strip() or x.lstrip().startswith("*") for x in lines[1:] or lines):
                lines = [re.sub(r"^\s*\*?", "", x) for x in lines]
            body = "\n".join(lines)
        pieces.append((c.start, body))
    pieces += extra or []
    raw = textwrap.dedent("\n".join(text for _, text in sorted(pieces)))
    return clean_markdown(raw)


def clean_markdown(raw: str) -> str:
    lines: list[str] = []
    fence = ""  # the open fence's marks, when inside an example
    rust_code = False
    for line in raw.splitlines():
        m = _FENCE.match(line)
        if m is not None:
            if not fence:
                fence = m.group(1)
                info = {w.strip() for w in m.group("info").split(",") if w.strip()}
                rust_code = not info or bool(
                    info & {"rust", "no_run", "should_panic", "ignore", "compile_fail"}
                    or all(w.startswith(("edition", "E0")) for w in info)
                )
                lines.append(line.rstrip() if not rust_code else f"{m.group(1)}rust")
                continue
            if line.strip().startswith(fence) and not m.group("info").strip():
                fence, rust_code = "", False
                lines.append(line.rstrip())
                continue
        if fence:
            if rust_code and _HIDDEN.match(line):
                continue
            lines.append(line.rstrip().replace("##", "#", 1) if rust_code else line.rstrip())
            continue
        if _REF_TARGET.match(line) or _HTML_BREAK.match(line):
            continue
        line = _BADGE.sub("", line)
        line = _LINK.sub(lambda m: m.group("text") or m.group("code"), line)
        lines.append(line.rstrip())
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return text.strip("\n")


# ----------------------------------------------------------------------------- items
@dataclass
class _Scope:
    path: list[str]  # crate and module path
    owner: str = ""  # the type or trait whose items these are
    public: bool = False  # items public without `pub` (a public trait's, a trait impl's)
    is_module: bool = True  # a module's body (inner docs document it)


@dataclass
class _File:
    source: str
    f: RustFile
    code: str
    comments: list[_Comment]
    starts: list[int] = field(default_factory=list)  # comment starts, sorted
    uncommented: str = ""  # the source with its comments blanked (literals kept)

    def __post_init__(self) -> None:
        self.starts = [c.start for c in self.comments]
        self.uncommented = blanked(self.f.text, [(c.start, c.end) for c in self.comments])

    def between(self, a: int, b: int, kind: str) -> list[_Comment]:
        """The comments of `kind` that start between a and b."""
        k = bisect_left(self.starts, a)
        out = []
        while k < len(self.comments) and self.comments[k].start < b:
            if self.comments[k].kind == kind:
                out.append(self.comments[k])
            k += 1
        return out

    def line(self, at: int) -> int:
        return self.f.text.count("\n", 0, at) + 1

    def bare(self, a: int, b: int) -> str:
        """The source between a and b with its comments blanked (literals kept)."""
        return self.uncommented[a:b]

    def document(
        self,
        qual: str,
        kind: str,
        head: str,
        signature: str,
        doc: str,
        at: int,
        extra: list[str] | None = None,
    ) -> Document:
        text = doc if kind == "module" else f"{head}\n\n{doc}"
        more = "\n\n".join(x for x in extra or [] if x)
        if more:
            text += f"\n\n{more}"
        # defined_as: its full path, where qualname leaves a private module's name out
        return api_document(
            self.source, URI_PREFIX, self.f, qual, text, kind, signature, self.line(at),
            defined_as=qual,
        )  # fmt: skip


def file_documents(
    f: RustFile,
    source: str,
    crate: str,
    modules: list[str],
    scanned: tuple[str, list[_Comment]] | None = None,
    public: bool = True,
) -> Iterator[Document]:
    """The documents of one file, in the order its items stand (`scanned` its scan when
    done already; `public` False for a private module's file, whose own doc is left out)."""
    code, comments = scanned or scan(f.text)
    g = _File(source, f, code, comments)
    yield from _walk(g, 0, len(code), _Scope([crate, *modules], is_module=public))


def _skip_space(code: str, j: int, end: int) -> int:
    while j < end and code[j].isspace():
        j += 1
    return j


def _walk(g: _File, start: int, end: int, scope: _Scope) -> Iterator[Document]:
    """The documents of the items between start and end (a file, a module's, a trait's or
    an impl's body)."""
    code = g.code
    j = _skip_space(code, start, end)
    if scope.is_module:  # inner docs at the body's top document the module
        inner = [c for c in g.between(start, end, "inner") if _depth_zero(code, start, c.start)]
        doc = doc_text(inner)
        if doc:
            yield g.document("::".join(scope.path), "module", "", "", doc, start)
    region = start  # where the comments and attributes of the next item may begin
    attrs: list[str] = []
    while j < end:
        ch = code[j]
        if ch == "#":
            open_at = code.find("[", j, end)
            if open_at < 0:
                break
            close = closing(code, open_at)
            attrs.append(" ".join(g.f.text[j:close].split()))
            j = _skip_space(code, close, end)
            continue
        if ch in ";,":
            region, attrs = j + 1, []
            j = _skip_space(code, j + 1, end)
            continue
        m = _ITEM.match(code, j, end)
        block = _EXTERN_BLOCK.match(code, j, end) if m is None else None
        item_end = _item_end(code, m.end() if m else j, end, m.group("kw") if m else "")
        if block is not None:  # extern "C" { ... }: its items, named in this module
            yield from _walk(g, block.end(), item_end - 1, _Scope(scope.path, is_module=False))
        if m is not None and not _hidden(attrs):
            docs = g.between(region, j, "outer")
            extra = _doc_attrs(attrs, g, region, j)
            doc = doc_text(docs, extra)
            yield from _item(g, m, j, item_end, doc, attrs, scope)
        region, attrs = item_end, []  # comments blank to space: the region starts at the end
        j = _skip_space(code, item_end, end)


def _depth_zero(code: str, start: int, at: int) -> bool:
    """Whether `at` is outside any bracket opened after `start` (a body's own level)."""
    depth = 0
    for ch in code[start:at]:
        depth += ch in "([{"
        depth -= ch in ")]}"
    return depth <= 0


def _hidden(attrs: list[str]) -> bool:
    joined = " ".join(attrs)
    return bool(re.search(r"doc\s*\(\s*hidden|cfg\s*\(\s*test\s*\)", joined))


def _doc_attrs(attrs: list[str], g: _File, a: int, b: int) -> list[tuple[int, str]]:
    """`#[doc = "..."]` attributes over an item, as (position, text)."""
    out: list[tuple[int, str]] = []
    if not any("doc" in x for x in attrs):
        return out
    for m in re.finditer(r"#\[\s*doc\s*=\s*\"((?:[^\"\\]|\\.)*)\"\s*\]", g.f.text[a:b]):
        out.append((a + m.start(), m.group(1).replace('\\"', '"').replace("\\n", "\n")))
    return out


def _item_end(code: str, j: int, end: int, kw: str) -> int:
    """Past the item whose header ends at `j`: its body's closing brace, or its `;`."""
    braces = kw in ("fn", "struct", "enum", "union", "trait", "impl", "mod", "", "macro_rules!")
    k = j
    while k < end:
        ch = code[k]
        if ch in "([":
            if kw == "macro_rules!":
                close = closing(code, k)
                semi = _skip_space(code, close, end)
                return semi + 1 if code[semi : semi + 1] == ";" else close
            k = closing(code, k)
            continue
        if ch == "{":
            close = closing(code, k)
            if braces:
                return close
            k = close
            continue
        if ch == ";":
            return k + 1
        k += 1
    return end


def _item(
    g: _File, m: re.Match[str], at: int, end: int, doc: str, attrs: list[str], scope: _Scope
) -> Iterator[Document]:
    code = g.code
    kw = m.group("kw")
    vis = "".join((m.group("vis") or "").split())
    public = vis == "pub" or scope.public
    after = m.end()
    quals = " ".join(m.group("quals").split())
    if kw == "impl":
        yield from _impl(g, after, end, scope)
        return
    if kw == "use" or kw.startswith("extern"):
        return
    if kw == "static" and (mut := _MUT.match(code, after)) is not None:
        after = mut.end()
    name_m = _IDENT.match(code, after)
    if name_m is None:
        return
    name = name_m.group("name")
    if kw == "macro_rules!":
        if doc and any("macro_export" in a for a in attrs):
            qual = f"{scope.path[0]}::{name}!"
            yield g.document(qual, "macro", qual, "", doc, at)
        return
    prefix = [*scope.path, scope.owner] if scope.owner else scope.path
    qual = "::".join([*prefix, name])
    if kw == "mod":  # a private module's items are named as its parent's (api_documents)
        brace = code.find("{", name_m.end(), end)
        if doc and public:
            yield g.document(qual, "module", "", "", doc, at)
        if brace >= 0:
            inner = _Scope([*scope.path, name]) if public else _Scope(scope.path, is_module=False)
            yield from _walk(g, brace + 1, end - 1, inner)
        return
    if not public:
        return
    if kw == "fn":
        yield from _fn(g, qual, name_m.end(), end, doc, at, quals, bool(scope.owner))
    elif kw in ("struct", "union", "enum"):
        if doc:
            yield g.document(qual, kw, qual, "", doc, at, [_generics_line(g, name_m.end())])
        brace = _body_brace(code, name_m.end(), end)
        if brace >= 0:
            yield from _members(g, qual, kw, brace + 1, end - 1)
    elif kw == "trait":
        if doc:
            yield g.document(qual, "trait", qual, "", doc, at, [_generics_line(g, name_m.end())])
        brace = _body_brace(code, name_m.end(), end)
        if brace >= 0:
            yield from _walk(g, brace + 1, end - 1, _Scope(scope.path, name, True, False))
    elif kw in ("type", "const", "static") and doc and name != "_":
        yield from _value(g, kw, qual, name_m.end(), end, doc, at)


def _body_brace(code: str, j: int, end: int) -> int:
    """The `{` opening a struct's, enum's or trait's body (after generics and bounds), or -1
    (a tuple or unit struct)."""
    k = j
    while k < end:
        ch = code[k]
        if ch == "<":
            k = closing(code, k, "<>()[]")
            continue
        if ch in "([":
            if ch == "(":
                return -1
            k = closing(code, k)
            continue
        if ch == "{":
            return k
        if ch == ";":
            return -1
        k += 1
    return -1


def _generics_line(g: _File, j: int) -> str:
    code = g.code
    k = _skip_space(code, j, len(code))
    if code[k : k + 1] != "<":
        return ""
    close = closing(code, k, "<>()[]")
    return f"Type parameters: `{' '.join(g.bare(k, close).split())}`."


def _fn(
    g: _File, qual: str, j: int, end: int, doc: str, at: int, quals: str, member: bool
) -> Iterator[Document]:
    if not doc:
        return
    code = g.code
    k = _skip_space(code, j, end)
    generics = ""
    if code[k : k + 1] == "<":
        close = closing(code, k, "<>()[]")
        generics = " ".join(g.bare(k, close).split())
        k = _skip_space(code, close, end)
    if code[k : k + 1] != "(":
        return
    close = closing(code, k)
    params = [re.sub(r"^mut\s+", "", p) for p in split_commas(g.bare(k + 1, close - 1))]
    params = [p for p in params if not SELF_PARAM.match(p)]
    body = code.find("{", close, end)
    tail = " ".join(g.bare(close, body if body >= 0 else end).split()).rstrip(";").strip()
    where = ""
    wm = re.search(r"\bwhere\b", tail)
    if wm is not None:
        tail, where = tail[: wm.start()].strip(), tail[wm.end() :].strip().rstrip(",")
    returns = tail.removeprefix("->").strip() if tail.startswith("->") else ""
    shown = ", ".join(params)
    extra = [
        f"Qualifiers: `{quals}`." if quals else "",
        f"Type parameters: `{generics}`." if generics else "",
        f"Where: `{where}`." if where else "",
        f":returns: `{returns}`" if returns else "",
    ]
    kind = "method" if member else "function"
    yield g.document(qual, kind, f"{qual}({shown})", f"({shown})", doc, at, extra)


def _value(g: _File, kw: str, qual: str, j: int, end: int, doc: str, at: int) -> Iterator[Document]:
    text = " ".join(g.bare(j, end).split()).rstrip(";").strip()
    typ, value = text, ""
    eq = _top_eq(text)
    if eq >= 0:
        typ, value = text[:eq].strip(), text[eq + 1 :].strip()
    typ = typ.removeprefix("mut ").lstrip(":").strip() if kw != "type" else typ
    extra: list[str] = []
    if kw == "type":
        kind = "type"
        if typ:
            extra.append(f"Type parameters: `{typ}`." if typ.startswith("<") else "")
            if typ.startswith(":"):
                extra.append(f"Bounds: `{typ.lstrip(':').strip()}`.")
        if value and len(value) <= _MAX_VALUE:
            extra.append(f"Definition: `{value}`")
    else:
        kind = "constant" if kw == "const" else "static"
        if typ:
            extra.append(f"Type: `{typ}`")
        if value and len(value) <= _MAX_VALUE:
            extra.append(f"Value: `{value}`")
    yield g.document(qual, kind, qual, "", doc, at, extra)


def _top_eq(text: str) -> int:
    """The `=` of an item's value, outside brackets (not `==`, `<=`, `=>`)."""
    depth = 0
    for k, ch in enumerate(text):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and text[k - 1 : k] in ("-", "=")):
            depth -= 1
        elif ch == "=" and depth == 0 and text[k + 1 : k + 2] not in ("=", ">"):
            if text[k - 1 : k] not in ("<", ">", "!", "="):
                return k
    return -1


def _impl(g: _File, after: int, end: int, scope: _Scope) -> Iterator[Document]:
    """An impl block's items, named by the type they are for."""
    code = g.code
    k = _skip_space(code, after, end)
    if code[k : k + 1] == "<":
        k = closing(code, k, "<>()[]")
    brace = k
    while brace < end and code[brace] != "{":
        if code[brace] == "<":
            brace = closing(code, brace, "<>()[]")
            continue
        brace += 1
    if brace >= end:
        return
    header = " ".join(code[k:brace].split())
    header = re.split(r"\bwhere\b", header)[0].strip()
    trait_impl = False
    fm = re.search(r"\bfor\b", _flatten(header))
    if fm is not None:
        trait_impl, header = True, header[fm.end() :].strip()
    owner = _type_name(header)
    if not owner:
        return
    yield from _walk(g, brace + 1, end - 1, _Scope(scope.path, owner, trait_impl, False))


def _flatten(text: str) -> str:
    """`text` with everything inside angle brackets blanked (same length)."""
    out, depth = [], 0
    for k, ch in enumerate(text):
        if ch == "<":
            depth += 1
        elif ch == ">" and depth and text[k - 1 : k] != "-":
            depth -= 1
            out.append(" ")
            continue
        out.append(" " if depth else ch)
    return "".join(out)


def _type_name(header: str) -> str:
    """The type an impl is for: `Foo` of `&'a mut foo::Foo<T>`, `dyn Trait + Send`."""
    flat = _flatten(header)
    flat = re.sub(r"&\s*(?:'\w+\s*)?(?:mut\s+)?|\bdyn\s+|\bimpl\s+|[*](?:const|mut)\s+", "", flat)
    m = re.match(r"\s*(?:\w+::)*(?P<name>[A-Za-z_]\w*)", flat)
    if m is None or m.group("name") in ("for", "where"):
        return ""
    return m.group("name")


def _members(g: _File, owner: str, kind: str, start: int, end: int) -> Iterator[Document]:
    """A struct's public fields and an enum's variants, each with its doc comment."""
    code = g.code
    k, region, attrs = _skip_space(code, start, end), start, []
    while k < end:
        if code[k] == "#":
            open_at = code.find("[", k, end)
            close = closing(code, open_at) if open_at >= 0 else end
            attrs.append(g.f.text[k:close])
            k = _skip_space(code, close, end)
            continue
        # an entry runs to the next comma outside brackets (a generic's angle brackets
        # too, where one follows a name: `1 << 3` is a shift)
        e = k
        while e < end and code[e] != ",":
            if code[e] in "([{" or (code[e] == "<" and _names_before(code, e)):
                e = min(closing(code, e, "<>()[]{}"), end)
                continue
            e += 1
        entry = " ".join(g.bare(k, e).split())
        doc = doc_text(g.between(region, k, "outer"), _doc_attrs(attrs, g, region, k))
        if doc and not _hidden(attrs):
            got = _member(g, owner, kind, entry, doc, k)
            if got is not None:
                yield got
        region, attrs = e + 1, []
        k = _skip_space(code, e + 1, end)


def _names_before(code: str, at: int) -> bool:
    """Whether the `<` at `at` opens a generic's arguments (`Vec<T>`, `Foo::<T>`)."""
    return at > 0 and (code[at - 1].isalnum() or code[at - 1] in "_:")


def _member(g: _File, owner: str, kind: str, entry: str, doc: str, at: int) -> Document | None:
    if kind == "enum":
        m = re.match(r"(?P<name>[A-Za-z_]\w*)\s*(?P<rest>.*)$", entry, re.S)
        if m is None:
            return None
        rest = m.group("rest").strip()
        extra = []
        if rest.startswith("="):
            extra.append(f"Value: `{rest[1:].strip()}`")
        elif rest:
            extra.append(f"Fields: `{rest}`")
        qual = f"{owner}::{m.group('name')}"
        return g.document(qual, "variant", qual, "", doc, at, extra)
    m = re.match(r"pub\s+(?:r#)?(?P<name>[A-Za-z_]\w*)\s*:\s*(?P<type>.+)$", entry, re.S)
    if m is None:
        return None
    qual = f"{owner}::{m.group('name')}"
    return g.document(qual, "field", qual, "", doc, at, [f"Type: `{m.group('type').strip()}`"])
