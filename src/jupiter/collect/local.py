"""The `local` source: text files from a file or folder on this machine.

Markdown, reStructuredText, plain text and source code are kept as they are, but Python
files are read as their API (collect/pyapi.py) unless the source says `python: text`; HTML
is reduced to its visible text with the standard library's parser; a PDF to its text layer,
made into paragraphs again (collect/pdf.py); a GNU info manual (what `info` reads,
/usr/share/info) becomes one document per node. Gzip-compressed files
(`ls.1.gz`, `coreutils.info.gz`, `notes.md.gz`) are read through, the format taken from the
name without its `.gz`.
"""

from __future__ import annotations

import fnmatch
import gzip
import io
import os
import re
from collections.abc import Callable, Collection
from pathlib import Path, PurePosixPath
from typing import TypeVar

from jupiter.collect import (
    ansibledoc,
    apis,
    asciidoc,
    docbook,
    doxygen,
    furniture,
    gidocgen,
    gtkdoc,
    haddock,
    javadoc,
    jsdocsite,
    languages,
    latex,
    manpage,
    markdown,
    mkdocstrings,
    notebook,
    office,
    orgmode,
    pdocsite,
    pod,
    pyscript,
    rdocmarkup,
    rustdoc,
    sites,
    sphinxobj,
    texinfo,
    typedoc,
    vimhelp,
    wikitext,
    yardsite,
)
from jupiter.collect.htmltext import html_text
from jupiter.collect.pdf import PDF_SUFFIX, pdf_or_reject
from jupiter.collect.pyapi import PyFile, api_documents, is_python
from jupiter.collect.result import CollectResult, SourceFile, count
from jupiter.config import DomainConfig, LocalSource
from jupiter.errors import JupiterError
from jupiter.records import Document

SOURCE = "local"
HTML_SUFFIXES = {".html", ".htm"}
GZIP_MAGIC = b"\x1f\x8b"
MAX_GUNZIPPED = 256 << 20  # bytes a compressed file may expand to: past it, not read
# a GNU info file, or one part of a split manual (find.info-1)
INFO_NAME = re.compile(r"\.info(-\d+)?$")
INFO_COOKIE = re.compile(rb"\x00\x08\[[^\x00]*\x00\x08\]")
# Never walked, like hidden folders (.git, .venv): they hold copies and tooling, not docs.
SKIPPED_DIRS = {"__pycache__", "node_modules"}
# files under a local source's folder that no include glob matches, counted so the collect
# stage can say what it left unread (README, AUTHORS, a .ps manual) and how to read it
NOT_INCLUDED = "not_included"
NOT_INCLUDED_FIX = "no include glob matches them: add one to the source's include to read them"
# Share of control characters above which decoded bytes are taken for binary data.
MAX_CONTROL_FRACTION = 0.05
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def collect_local(
    src: LocalSource, cfg: DomainConfig, rejects: CollectResult | None = None
) -> list[Document]:
    """One document per matching, decodable, non-empty file, in sorted path order. A link
    to a file or folder outside the source's folder is refused (counted `symlink_outside`
    in `rejects`) unless the source says follow_symlinks: true. A PDF with no text to read
    (encrypted, a scan, damaged) is counted in `rejects` under its reason."""
    root = cfg.resolve(src.path)
    if not root.exists():
        i = _source_index(src, cfg)
        raise JupiterError(
            f"source path not found: {root} (fix sources[{i}].path in the domain YAML)"
        )
    root = root.resolve()  # the files are found under its real path: name them from it
    docs: list[Document] = []
    # the files left unread are named only under the default globs: a YAML that lists its
    # own include chose what to leave out
    unread = rejects if "include" not in src.model_fields_set else None
    found = matching_files(root, src.include, src.exclude, src.follow_symlinks, rejects, unread)
    code: list[PyFile] = []  # read as their API, together: a package names its modules' objects
    plugins: list[SourceFile] = []  # Ansible's modules and plugins, their fragments
    readers = apis.active(src)  # other languages' API readers (JavaScript, SQL, Go, Rust)
    batches = apis.Batches(readers)
    built = sites.Sites(root)  # a built documentation site's own generated pages
    top = root.name if root.is_dir() else ""
    adoc, included = _asciidoc(root, found)  # AsciiDoc as Markdown, included files read there
    tex, inputs = _batched(root, found, latex.takes, latex.batch)  # LaTeX as Markdown, too
    manuals, texi_inputs = _batched(root, found, texinfo.takes, texinfo.batch)  # Texinfo's nodes
    # DocBook's parts (a man page, a chapter's section), a long Org file's sections
    parted = {fmt: _batched(root, found, m.takes, m.batch) for fmt, m in PARTED.items()}
    galaxy = root / ansibledoc.GALAXY  # names a collection's plugins, whatever the globs say
    more = [galaxy] if src.ansible == "api" and galaxy.is_file() and galaxy not in found else []
    for path in [*found, *_companions(root, found, readers), *more]:
        generated = built.generated(path)
        if generated is None and root.is_dir() and sites.is_snapshot(path.relative_to(root)):
            generated = sites.SNAPSHOT
        if generated is not None:
            count(rejects, generated, str(path))
            continue
        if path in included:
            count(rejects, asciidoc.INCLUDED, str(path))
            continue
        if path in inputs:
            count(rejects, latex.INCLUDED, str(path))
            continue
        if path in texi_inputs:
            count(rejects, texinfo.INCLUDED, str(path))
            continue
        if (parts := _parts(path, parted, rejects)) is not None:
            docs.extend(parts)
            continue
        if path in manuals:  # a Texinfo manual: a document per node, as its info file
            suffix = Path(format_name(path)).suffix
            for node, heading, body in manuals[path]:
                meta = {"kind": "file", "suffix": suffix, "format": "texinfo", "node": node}
                docs.append(Document(SOURCE, f"{path}#{node}", heading or node, body, meta))
            continue
        if path in tex:
            title, rendered = tex[path]
            if rendered.strip():
                meta = {"kind": "file", "suffix": Path(format_name(path)).suffix, "format": "latex"}
                docs.append(Document(SOURCE, str(path), title or path.name, rendered, meta))
            continue
        if path in adoc:
            title, rendered = adoc[path]
            if rendered.strip():
                meta = {
                    "kind": "file",
                    "suffix": Path(format_name(path)).suffix,
                    "format": "asciidoc",
                }
                docs.append(Document(SOURCE, str(path), title or path.name, rendered, meta))
            continue
        py = src.python == "api" and is_python(format_name(path))
        rel = PurePosixPath(
            (path.relative_to(root) if path != root else Path(path.name)).as_posix()
        )
        reader = apis.reader_for(readers, str(rel.parent / format_name(path)))  # by its path
        ansible = src.ansible == "api" and ansibledoc.candidate(format_name(path))
        if py or reader is not None or ansible:
            text = decode(data) if (data := read_bytes(path)) is not None else None
            # a plugin is named by its whole path (`.../ansible_collections/<ns>/<coll>/...`)
            if ansible and text is not None and ansibledoc.takes(path.as_posix(), text):
                plugins.append(SourceFile(PurePosixPath(path.as_posix()), str(path), text))
                continue
        if py or reader is not None:
            if text is not None:
                if py and pyscript.is_script(rel.as_posix(), text):  # a tutorial, a gallery's
                    title, page = pyscript.render(text)  # example: the page it renders to
                    meta = {"kind": "file", "suffix": ".py", "format": "script"}
                    docs.append(Document(SOURCE, str(path), title or path.name, page, meta))
                elif py:
                    code.append(PyFile(rel, str(path), text))
                elif reader is not None:
                    batches.add(reader, SourceFile(rel, str(path), text))
            continue
        if src.perl == "api" and pod.is_pod_file(format_name(path)):  # its POD, as perldoc
            text = decode(data) if (data := read_bytes(path)) is not None else None
            got = pod.document_or_reject(text, path.name, str(path), rejects) if text else None
            if got is not None:
                meta = {"kind": "file", "suffix": Path(format_name(path)).suffix, "format": "pod"}
                docs.append(Document(SOURCE, str(path), got[0] or path.name, got[1], meta))
            continue
        read = read_documents(path, rejects)
        name = format_name(path)
        if (sphinxobj.is_rst(name) or sphinxobj.is_myst(name)) and any(
            sites.is_source_redirect(d.text) for d in read
        ):
            count(rejects, sites.REDIRECT, str(path))  # "This page has moved"
            continue
        if src.vim == "api" and vimhelp.takes(name) and any(vimhelp.is_help(d.text) for d in read):
            read = [part for doc in read for part in vimhelp.split(doc)]  # `:help`'s entries
        elif src.sphinx == "api" and (sphinxobj.is_rst(name) or sphinxobj.is_myst(name)):
            read = [part for doc in read for part in sphinxobj.split(doc)]
        elif sphinxobj.is_html(name) and read:
            html = decode_page(read_bytes(path) or b"") or ""
            read = built_page(read[0], html, page_readers(src), rejects=rejects)
        docs.extend(read)
        if src.max_documents and len(docs) >= src.max_documents:
            return _unique(docs, cfg.language, rejects)[: src.max_documents]
    docs.extend(api_documents(code, SOURCE, rejects, top))
    docs.extend(batches.documents(SOURCE, rejects, top))
    docs.extend(ansibledoc.documents(plugins, SOURCE, rejects))
    docs = _unique(docs, cfg.language, rejects)
    return docs[: src.max_documents] if src.max_documents else docs


def _unique(docs: list[Document], language: str, rejects: CollectResult | None) -> list[Document]:
    """The documents, each once (sphinxobj.unique), in the domain's `language` where a
    manual is built in several (collect/languages.py), the site's furniture taken from its
    built pages (collect/furniture.py): each an HTML file read whole."""
    docs = languages.keep_language(docs, language, rejects)
    docs = furniture.strip_furniture(docs, _whole_page, rejects)
    return sphinxobj.unique(docs, rejects)


def _whole_page(doc: Document) -> bool:
    return doc.meta.get("suffix") in HTML_SUFFIXES and "#" not in doc.uri


def _asciidoc(root: Path, found: list[Path]) -> tuple[dict[Path, tuple[str, str]], set[Path]]:
    """The AsciiDoc files among `found` ({path: (title, Markdown)}, collect/asciidoc.py),
    and the files one of them includes (read there, not on their own)."""
    return _batched(root, found, lambda n: asciidoc.takes(n) or n.endswith(".txt"), asciidoc.batch)


_Read = TypeVar("_Read")  # what a format's batch reader makes of one file


def _batched(
    root: Path,
    found: list[Path],
    takes: Callable[[str], bool],
    batch: Callable[[dict[str, str]], tuple[dict[str, _Read], set[str]]],
) -> tuple[dict[Path, _Read], set[Path]]:
    """The files among `found` a format that includes files reads together (AsciiDoc,
    LaTeX, Texinfo: `batch`, of the names `takes`): {path: what it read, (title, Markdown)
    or a manual's nodes}, and the files one of them includes (read there, not alone)."""
    texts: dict[str, str] = {}
    paths: dict[str, Path] = {}
    base = root if root.is_dir() else root.parent
    for path in found:
        name = format_name(path)
        if not takes(name):
            continue
        data = read_bytes(path)
        text = decode(data) if data is not None else None
        if text is not None:
            rel = path.relative_to(base).as_posix()
            texts[rel], paths[rel] = text, path
    if not texts:
        return {}, set()
    docs, included = batch(texts)
    return {paths[rel]: got for rel, got in docs.items()}, {paths[rel] for rel in included}


# formats whose file gives a document per part, and the files one of them includes
PARTED = {"docbook": docbook, "org": orgmode}


# a part's (id, its heading, its Markdown); id "" for the file's own document
_Part = tuple[str, str, str]


def _parts(
    path: Path,
    parted: dict[str, tuple[dict[Path, list[_Part]], set[Path]]],
    rejects: CollectResult | None,
) -> list[Document] | None:
    """A PARTED file's documents (`path#part`, the file's own `path`), none for a file
    another one includes (counted); None for a file of no such format."""
    for fmt, (read, inputs) in parted.items():
        if path in inputs:
            count(rejects, PARTED[fmt].INCLUDED, str(path))
            return []
        if path in read:
            meta = {"kind": "file", "suffix": Path(format_name(path)).suffix, "format": fmt}
            return [
                Document(SOURCE, f"{path}#{part}" if part else str(path), heading or path.name,
                         body, meta)
                for part, heading, body in read[path]
            ]  # fmt: skip
    return None


def _companions(root: Path, found: list[Path], readers: list[apis.ApiReader]) -> list[Path]:
    """The files an API reader reads beside its own whatever the globs (a crate's
    Cargo.toml), in the folders over the files it takes up to `root`, not found already."""
    names = apis.companions(readers)
    if not names or not root.is_dir():
        return []
    have, out = set(found), []
    folders = {
        d
        for p in found
        if (r := apis.reader_for(readers, p.name)) is not None and r.companions
        for d in [p.parent, *p.parent.parents]
        if d == root or d.is_relative_to(root)
    }
    for d in sorted(folders):
        for name in sorted(names):
            p = d / name
            if p not in have and p.is_file():
                out.append(p)
    return out


def matching_files(
    root: Path,
    include: list[str],
    exclude: list[str],
    follow_symlinks: bool = False,
    rejects: CollectResult | None = None,
    unread: CollectResult | None = None,
) -> list[Path]:
    """Files under `root` (or `root` itself) matching an include glob and no exclude glob.

    A glob matches either the file name or the path relative to `root`, so both "*.md"
    and "guide/*.md" work. A symlink whose target lies outside `root` (a file, or a folder
    with matching files) is skipped and counted `symlink_outside`, unless
    `follow_symlinks`: then linked folders are walked too, each real folder once (a link
    loop ends there). Links that stay inside `root` are read either way. Files that no
    include glob matches (and no exclude glob names) are counted `not_included` in `unread`.
    """
    root = root.resolve()
    if root.is_file():
        return [root] if _matches(root.name, root.name, include, exclude) else []
    found = []
    seen: set[Path] = set()  # real folders walked, when links are followed
    for folder, dirs, files in os.walk(root, followlinks=follow_symlinks):
        here = Path(folder)
        if follow_symlinks:
            real = here.resolve()
            if real in seen:
                dirs[:] = []
                continue
            seen.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        if not follow_symlinks:
            for d in dirs:  # os.walk does not enter linked folders: say which lead outside
                if (here / d).is_symlink() and not _inside((here / d).resolve(), root):
                    _refuse(rejects, here / d)
        for name in sorted(files):  # the same samples on every machine
            path = here / name
            rel = path.relative_to(root).as_posix()
            if not path.is_file():
                continue
            if not _matches(name, rel, include, exclude):
                if unread is not None and _matches(name, rel, ["*"], exclude):
                    unread.reject(NOT_INCLUDED, rel)  # said, so a new user sees what is left
                continue
            if not follow_symlinks and not _inside(path.resolve(), root):
                _refuse(rejects, path)  # a link (or a file in a linked folder) leading out
                continue
            found.append(path)
    return sorted(found)


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def _refuse(rejects: CollectResult | None, path: Path) -> None:
    if rejects is not None:
        rejects.reject("symlink_outside", f"{path} -> {path.resolve()}")


def _matches(name: str, rel: str, include: list[str], exclude: list[str]) -> bool:
    """A glob matches the name or the relative path, each also without a trailing .gz
    (Debian's /usr/share/doc: "*.txt" reads FAQ.txt.gz, "*.pdf" manual.pdf.gz)."""
    forms = [name, rel]
    if name.lower().endswith(".gz"):
        forms += [name[:-3], rel[:-3]]

    def hit(globs: list[str]) -> bool:
        return any(fnmatch.fnmatch(f, g) for f in forms for g in globs)

    return hit(include) and not hit(exclude)


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, gunzipped when it is gzip data; None when unreadable, a broken
    gzip stream, or one that expands past MAX_GUNZIPPED."""
    try:
        data = path.read_bytes()
    except OSError:  # unreadable (permissions, a vanished file): like a binary file, skipped
        return None
    if not data.startswith(GZIP_MAGIC):
        return data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            out = f.read(MAX_GUNZIPPED + 1)
    except (OSError, EOFError):  # not gzip after all, or cut short
        return None
    return out if len(out) <= MAX_GUNZIPPED else None


def format_name(path: Path) -> str:
    """The file name that says its format: without a trailing .gz."""
    name = path.name.lower()
    return name[:-3] if name.endswith(".gz") else name


def read_documents(path: Path, rejects: CollectResult | None = None) -> list[Document]:
    """The file's documents: one per node of a GNU info file, else read_document's one."""
    if Path(format_name(path)).suffix == PDF_SUFFIX:
        doc = pdf_document(path, rejects)
        return [doc] if doc is not None else []
    if office.is_office(format_name(path)):  # Word, OpenDocument, an e-book's chapters
        return office_documents(path, rejects)
    if Path(format_name(path)).suffix == notebook.SUFFIX:
        doc = notebook_document(path, rejects)
        return [doc] if doc is not None else []
    if manpage.is_page_name(format_name(path)):
        data = read_bytes(path)
        text = decode(data) if data is not None else None
        if data is not None and text is not None and manpage.is_roff(text):
            doc = man_document(path, data, text, rejects)
            return [doc] if doc is not None else []
    if Path(format_name(path)).suffix == ".xml":  # a MediaWiki export: a page a document
        docs = wiki_export_documents(path, rejects)
        if docs is not None:
            return docs
    if INFO_NAME.search(format_name(path)):
        data = read_bytes(path)
        # the index node's "\0\b[index\0\b]" cookie: the only NULs a text info file holds
        text = decode(INFO_COOKIE.sub(b"", data)) if data is not None else None
        return info_documents(path, text) if text is not None else []
    doc = read_document(path)
    return [doc] if doc is not None else []


def as_markdown(name: str, text: str) -> tuple[str, str] | None:
    """(its heading, its Markdown) of a file in a markup read as the Markdown it renders to:
    Markdown itself (front matter, MDX, admonitions), RDoc (collect/rdocmarkup.py),
    MediaWiki (collect/wikitext.py); None for any other file. Local and git sources."""
    if markdown.is_markdown(name):
        return markdown.read(text, markdown.is_knitr(name))
    if rdocmarkup.takes(name):
        return rdocmarkup.read(text)
    if wikitext.takes(name):
        return wikitext.read(text)
    return None


def read_document(path: Path) -> Document | None:
    """The file as a document, or None when it is binary, undecodable or empty."""
    data = read_bytes(path)
    text = decode(data) if data is not None else None
    if text is None:
        return None
    suffix = Path(format_name(path)).suffix
    title = path.name
    lang = ""
    if suffix in HTML_SUFFIXES:
        assert data is not None  # text was decoded from it
        text = decode_page(data) or text
        lang = languages.page_language(text)
        text, title = html_text(text)
        title = title or path.name
    elif (marked := as_markdown(format_name(path), text)) is not None:
        heading, text = marked
        if not heading and markdown.is_markdown(format_name(path)):
            heading = markdown.page_title(path.name, text)  # "index.md": its "# Quiver"
        title = heading or path.name
    if not text.strip():
        return None
    meta = {"kind": "file", "suffix": suffix}
    if suffix in HTML_SUFFIXES and lang:
        meta["lang"] = lang  # the page's own language (collect/languages.py)
    return Document(SOURCE, str(path), title, text, meta)


def built_page(
    doc: Document,
    html: str,
    api: Collection[str],
    page_text: Callable[[str], str] | None = None,
    rejects: CollectResult | None = None,
) -> list[Document]:
    """A built documentation page's documents (`doc` it read whole, `html` its HTML): the
    first reader that knows the page, of those `api` names (the source's settings), makes
    them; [doc] when none does. "sphinx": a Sphinx page's object descriptions
    (collect/sphinxobj.py, the page's own text made by `page_text`, default its visible
    text); "java": a javadoc page's members (javadoc.py); "rust": a rustdoc page's items
    (rustdoc.py); "c": a Doxygen page's members (doxygen.py), a GTK-Doc page's symbols
    (gtkdoc.py) or a gi-docgen page's symbol (gidocgen.py); "python": a page's mkdocstrings
    or pdoc objects (mkdocstrings.py, pdocsite.py); "javascript": a TypeDoc or JSDoc page's
    declarations (typedoc.py, jsdocsite.py); "ruby": a YARD page's objects (yardsite.py);
    "haskell": a Haddock page's items (haddock.py). A
    reader may give none for a page documenting nothing (counted in `rejects`), and a page
    that only redirects gives none (counted)."""
    whole = page_text or (lambda h: html_text(h)[0])
    if sites.is_redirect(html, doc.text):
        count(rejects, sites.REDIRECT, doc.uri)
        return []

    def text(h: str) -> str:
        return html_text(h)[0]

    readers: list[tuple[str, Callable[[], list[Document]]]] = [
        ("sphinx", lambda: sphinxobj.split_built(doc, html, text, whole)),
        ("java", lambda: javadoc.split_built(doc, html, text)),
        ("rust", lambda: rustdoc.split_built(doc, html, text, rejects)),
        ("c", lambda: doxygen.split_built(doc, html, text, rejects)),
        ("c", lambda: gtkdoc.split_built(doc, html, text, rejects)),
        ("c", lambda: gidocgen.split_built(doc, html, text, rejects)),
        ("python", lambda: mkdocstrings.split_built(doc, html, text, whole)),
        ("python", lambda: pdocsite.split_built(doc, html, text)),
        ("javascript", lambda: typedoc.split_built(doc, html, text, rejects)),
        ("javascript", lambda: jsdocsite.split_built(doc, html, text)),
        ("ruby", lambda: yardsite.split_built(doc, html, text)),
        ("haskell", lambda: haddock.split_built(doc, html, text, rejects)),
    ]
    for setting, split in readers:
        if setting in api:
            got = split()
            if got != [doc]:
                return got
    return [doc]


def page_readers(src: object) -> frozenset[str]:
    """The page readers a source's settings turn on (`sphinx`, `java`, `rust`, `c`,
    `python`, `javascript`, `ruby`, `haskell`: api; `vim`, a help file's entries)."""
    names = ("sphinx", "java", "rust", "c", "python", "javascript", "ruby", "haskell", "vim")
    return frozenset(k for k in names if getattr(src, k, "text") == "api")


def wiki_export_documents(
    path: Path, rejects: CollectResult | None = None
) -> list[Document] | None:
    """A MediaWiki XML export's article pages, a document each (`path#Title`), read as the
    Markdown they render to (collect/wikitext.py); None when the file is no export; a
    broken one counted `bad_wiki_export` (no documents)."""
    data = read_bytes(path)
    text = decode(data) if data is not None else None
    if text is None or not wikitext.is_export(text):
        return None
    pages = wikitext.export_pages(text)
    if pages is None:
        count(rejects, wikitext.BAD_EXPORT, str(path))
        return []
    out = []
    for name, page in pages:
        heading, body = wikitext.read(page)
        if body.strip():
            meta = {"kind": "file", "suffix": ".mediawiki", "page": name}
            out.append(Document(SOURCE, f"{path}#{name}", heading or name, body, meta))
    return out


def notebook_document(path: Path, rejects: CollectResult | None = None) -> Document | None:
    """A Jupyter notebook as the Markdown it renders to (collect/notebook.py); None (counted
    `bad_notebook` in `rejects`) when the file is no notebook."""
    data = read_bytes(path)
    got = notebook.notebook_or_reject(
        decode(data) if data is not None else None, str(path), rejects
    )
    if got is None:
        return None
    title, body = got
    if not body.strip():
        return None
    meta = {"kind": "file", "suffix": notebook.SUFFIX}
    return Document(SOURCE, str(path), title or path.name, body, meta)


def office_documents(path: Path, rejects: CollectResult | None = None) -> list[Document]:
    """A word-processor file as one document, an e-book as one per chapter (its uri the
    book's path and the chapter's: `guide.epub#OEBPS/ch02.xhtml`), read as Markdown
    (collect/office.py); [] with a count in `rejects` when it cannot be read."""
    suffix = Path(format_name(path)).suffix
    got = office.documents_or_reject(
        read_bytes(path), format_name(path), str(path), html_text, rejects
    )
    out = []
    for part, title, text in got:
        uri = f"{path}#{part}" if part else str(path)
        meta = {"kind": "file", "suffix": suffix, **({"part": part} if part else {})}
        out.append(Document(SOURCE, uri, title or path.name, text, meta))
    return out


def man_document(
    path: Path, data: bytes, text: str, rejects: CollectResult | None = None
) -> Document | None:
    """A manual page's roff source rendered as `man` prints it (collect/manpage.py); None,
    counted in `rejects` by reason, for a page that points to another (`.so`), or when no
    formatter is on this machine or it cannot render the page."""
    rendered = manpage.page_or_reject(data, text, str(path), rejects)
    if rendered is None:
        return None
    meta = {"kind": "file", "suffix": Path(format_name(path)).suffix, "format": "man"}
    return Document(SOURCE, str(path), path.name, rendered, meta)


def pdf_document(path: Path, rejects: CollectResult | None = None) -> Document | None:
    """A PDF's text layer as a document; None (counted in `rejects` by reason: pdf_encrypted,
    pdf_no_text, pdf_unreadable) when it has none to read."""
    got = pdf_or_reject(read_bytes(path), str(path), rejects)
    if got is None:
        return None
    meta = {"kind": "file", "suffix": PDF_SUFFIX, "pages": got.pages}
    return Document(SOURCE, str(path), got.title or path.name, got.text, meta)


# ----------------------------------------------------------------------------- GNU info
NODE_HEADER = re.compile(r"^File: [^,\n]+,\s+Node: ([^,\n]+)")
MENU_ENTRY = re.compile(r"^\* [^\n]*::")  # "* Node name::", a link outside a menu block
# a cross reference, "*note Node name::" or "*Note Label: (manual)Node.": read as its name
XREF = re.compile(
    r"(?:\b([Ss]ee)\s+)?\*([Nn])ote\s+(?:\([^)\s]*\))?([^:*]{1,80}?)(?:::|:\s+\S[^:*]{0,80}?[.,])"
)


# a numbered heading over its underline ("12.8 ‘unlink’: Remove files" / "=====")
SECTION_NUMBER = re.compile(r"^(?:\d+|[A-Z])(?:\.\d+)* (\S[^\n]*)\n([*=\-.])\2{2,}$", re.M)


# a table item's alias line (texinfo's @itemx) over the next one, each a quoted term alone
ITEMX = re.compile(r"^(‘[^’\n]+’)\n(?=‘[^’\n]+’$)", re.M)


def _unnumbered(m: re.Match[str]) -> str:
    return f"{m.group(1)}\n{m.group(2) * len(m.group(1))}"


def _xref(m: re.Match[str]) -> str:
    see = m.group(1) or ("See" if m.group(2) == "N" else "see")
    return f"{see} {' '.join(m.group(3).split())}"


def info_documents(path: Path, text: str) -> list[Document]:
    """A GNU info file's nodes, each a document titled by its node name (uri path#node).
    Skipped: the preamble, tag and indirect tables, and a node's menu (lines of "* Name::"
    links); an index node (all menu) leaves nothing. A cross reference reads "see Name", a
    heading loses its section number."""
    out: list[Document] = []
    for part in text.split("\x1f")[1:]:
        body = part.lstrip("\n")
        m = NODE_HEADER.match(body)
        if m is None:  # Tag Table, Indirect, Local Variables
            continue
        node = m.group(1).strip()
        lines = body.split("\n")[1:]
        if "* Menu:" in lines:
            lines = lines[: lines.index("* Menu:")]
        kept = "\n".join(
            ln
            for ln in texinfo.info_definitions(lines)
            if not MENU_ENTRY.match(ln) and not texinfo.INFO_FOOTNOTES.match(ln)
        )
        kept = XREF.sub(_xref, kept)
        kept = SECTION_NUMBER.sub(_unnumbered, kept)
        kept = ITEMX.sub(r"\1, ", kept)  # "‘-a’" over "‘--all’": one term, "‘-a’, ‘--all’"
        content = re.sub(r"\n{3,}", "\n\n", kept).strip()
        if len(content.split()) < 5:
            continue
        meta = {"kind": "file", "suffix": ".info", "node": node}
        out.append(Document(SOURCE, f"{path}#{node}", node, content, meta))
    return out


def decode(data: bytes) -> str | None:
    """UTF-8 text, else latin-1; None for binary data (NULs, or many control characters)."""
    if b"\x00" in data:
        return None  # NULs do not occur in text files; they mark binary formats
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # never fails: the control-character test decides
    if len(_CONTROL.findall(text)) > MAX_CONTROL_FRACTION * len(text):
        return None
    return manpage.without_leading_blank_lines(text.replace("\r\n", "\n").replace("\r", "\n"))


# ----------------------------------------------------------------------------- HTML
META_CHARSET = re.compile(rb"""charset=["']?([A-Za-z0-9_-]+)""", re.IGNORECASE)


def meta_charset(head: bytes) -> str:
    """The charset an HTML page's <meta> declares ("" for none)."""
    found = META_CHARSET.search(head)
    return found.group(1).decode("ascii") if found else ""


def decode_page(data: bytes) -> str | None:
    """An HTML file's text by the charset its <meta> declares (Apache's Korean pages are
    EUC-KR, its Japanese ones ISO-2022-JP); by `decode` when it declares none, UTF-8, or
    one the bytes do not decode in."""
    declared = meta_charset(data[:2048]).lower()
    if declared and declared.replace("-", "").replace("_", "") != "utf8" and b"\x00" not in data:
        try:
            return data.decode(declared).replace("\r\n", "\n").replace("\r", "\n")
        except (UnicodeDecodeError, LookupError):
            pass
    return decode(data)


def _source_index(src: LocalSource, cfg: DomainConfig) -> int:
    """Position of `src` in cfg.sources, for error messages that point at the YAML."""
    for i, s in enumerate(cfg.sources):
        if s is src:
            return i
    return next((i for i, s in enumerate(cfg.sources) if s == src), 0)
