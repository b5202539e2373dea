"""Word-processor documents and e-books read as the Markdown they amount to: a `.docx`
(Word, and what LibreOffice or pandoc write) and an `.odt` (OpenDocument) become their
headings, paragraphs, lists, tables and code blocks; an `.epub` becomes one document per
chapter, in its reading order, each chapter's XHTML read as any HTML page is.

Read as they were, these zip files were binary to the local source and skipped. All three
are zip archives of XML, read with the standard library (no office suite): Word's
`word/document.xml` (a paragraph's style names a heading, `Heading2`, a list, a code
block; a run's style, code), OpenDocument's `content.xml` (`text:h` with its outline level,
`text:list`, `table:table`), and an e-book's package file (its spine orders the chapters,
its `dc:title` names the book). A file that is no such archive, or is encrypted (an e-book
with DRM), is counted with the reason.
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from collections.abc import Callable, Iterable
from xml.etree import ElementTree as ET

from jupiter.collect.result import CollectResult, count

DOCX, ODT, EPUB = ".docx", ".odt", ".epub"
SUFFIXES = (DOCX, ODT, EPUB)
BAD_ARCHIVE = "bad_office_file"
ENCRYPTED = "encrypted_ebook"
FIXES = {
    BAD_ARCHIVE: "the file is not the zip archive its name says (.docx, .odt, .epub): "
    "save it again from its application, or export it to PDF or HTML",
    ENCRYPTED: "the e-book is encrypted (DRM): only an e-book without DRM can be read",
}
MAX_XML = 64 << 20  # bytes of one archive member read at most
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_OPF = "{http://www.idpf.org/2007/opf}"
_CODE_STYLES = re.compile(r"source|code|verbatim|preformat|listing|console|monospace", re.I)
_HEADING = re.compile(r"^(?:heading|titre|überschrift|überschrift)\s*(\d)$|^title$", re.I)


def is_office(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def _archive(data: bytes) -> zipfile.ZipFile | None:
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError):
        return None


def _xml(z: zipfile.ZipFile, name: str) -> ET.Element | None:
    try:
        info = z.getinfo(name)
        if info.file_size > MAX_XML:
            return None
        return ET.fromstring(z.read(name))
    except (KeyError, ET.ParseError, zipfile.BadZipFile, OSError, RuntimeError):
        return None


def documents_or_reject(
    data: bytes | None,
    name: str,
    where: str,
    html: Callable[[str], tuple[str, str]],
    rejects: CollectResult | None = None,
) -> list[tuple[str, str, str]]:
    """The (part, title, Markdown) documents of an office file or e-book (`part` "" for a
    word-processor file, a chapter's path in an e-book); [] and a count in `rejects` when it
    cannot be read. `html` reads a chapter's XHTML (collect/local.html_text)."""
    z = _archive(data) if data is not None else None
    if z is None:
        count(rejects, BAD_ARCHIVE, where)
        return []
    with z:
        suffix = name.lower()
        if suffix.endswith(EPUB):
            return _epub(z, where, html, rejects)
        got = _docx(z) if suffix.endswith(DOCX) else _odt(z)
    if got is None:
        count(rejects, BAD_ARCHIVE, where)
        return []
    title, text = got
    return [("", title, text)] if text.strip() else []


# ----------------------------------------------------------------------------- Word
def _docx(z: zipfile.ZipFile) -> tuple[str, str] | None:
    root = _xml(z, "word/document.xml")
    if root is None:
        return None
    styles = _docx_styles(z)
    body = root.find(f"{_W}body")
    if body is None:
        return None
    out: list[str] = []
    code: list[str] = []
    for el in body:
        if el.tag == f"{_W}p":
            style = _docx_style(el, styles)
            text = _docx_runs(el, styles)
            if _CODE_STYLES.search(style):
                code.append(_docx_runs(el, styles, plain=True))
                continue
            _flush(out, code)
            if not text.strip():
                continue
            level = _heading_level(style)
            if level:
                out += [f"{'#' * level} {text.strip()}", ""]
            elif el.find(f"{_W}pPr/{_W}numPr") is not None or "list" in style.lower():
                out.append(f"- {text.strip()}")
            else:
                out += [text.strip(), ""]
        elif el.tag == f"{_W}tbl":
            _flush(out, code)
            _table(
                out,
                (
                    [
                        " ".join(_docx_runs(p, styles).strip() for p in tc.iter(f"{_W}p"))
                        for tc in row.iter(f"{_W}tc")
                    ]
                    for row in el.iter(f"{_W}tr")
                ),
            )
    _flush(out, code)
    return _core_title(z), _tidy(out)


def _docx_styles(z: zipfile.ZipFile) -> dict[str, str]:
    """Style id -> its name ("Heading2" -> "heading 2"; a localized id keeps its English
    name here)."""
    root = _xml(z, "word/styles.xml")
    out: dict[str, str] = {}
    if root is None:
        return out
    for s in root.iter(f"{_W}style"):
        sid = s.get(f"{_W}styleId") or ""
        name = s.find(f"{_W}name")
        out[sid] = (name.get(f"{_W}val") if name is not None else None) or sid
    return out


def _docx_style(p: ET.Element, styles: dict[str, str]) -> str:
    el = p.find(f"{_W}pPr/{_W}pStyle")
    sid = el.get(f"{_W}val", "") if el is not None else ""
    return styles.get(sid, sid)


def _docx_runs(p: ET.Element, styles: dict[str, str], plain: bool = False) -> str:
    parts: list[str] = []
    for r in p.iter(f"{_W}r"):
        style = r.find(f"{_W}rPr/{_W}rStyle")
        mono = style is not None and _CODE_STYLES.search(styles.get(style.get(f"{_W}val", ""), ""))
        text = ""
        for t in r:
            if t.tag == f"{_W}t":
                text += t.text or ""
            elif t.tag == f"{_W}tab":
                text += "\t"
            elif t.tag in (f"{_W}br", f"{_W}cr"):
                text += "\n"
        parts.append(f"`{text}`" if mono and text.strip() and not plain else text)
    return "".join(parts)


def _core_title(z: zipfile.ZipFile) -> str:
    root = _xml(z, "docProps/core.xml")
    el = root.find(f"{_DC}title") if root is not None else None
    return (el.text or "").strip() if el is not None else ""


def _heading_level(style: str) -> int:
    m = _HEADING.match(style.strip())
    if m is None:
        return 0
    return int(m.group(1)) if m.group(1) else 1


# ----------------------------------------------------------------------------- OpenDocument
def _odt(z: zipfile.ZipFile) -> tuple[str, str] | None:
    root = _xml(z, "content.xml")
    if root is None:
        return None
    body = root.find(f"{_OFFICE}body/{_OFFICE}text")
    if body is None:
        return None
    # an automatic style ("P1") stands for its parent ("Preformatted Text")
    parents = {
        s.get(f"{_STYLE}name", ""): s.get(f"{_STYLE}parent-style-name", "")
        for s in root.iter(f"{_STYLE}style")
    }
    out: list[str] = []
    code: list[str] = []
    _odt_blocks(body, out, code, parents)
    _flush(out, code)
    meta = _xml(z, "meta.xml")
    title = meta.find(f".//{_DC}title") if meta is not None else None
    return ((title.text or "").strip() if title is not None else ""), _tidy(out)


def _odt_blocks(
    el: ET.Element, out: list[str], code: list[str], parents: dict[str, str], depth: int = 0
) -> None:
    for child in el:
        tag = child.tag
        if tag == f"{_TEXT}h":
            _flush(out, code)
            level = int(child.get(f"{_TEXT}outline-level", "1") or 1)
            out += [f"{'#' * min(level, 6)} {_odt_text(child, parents).strip()}", ""]
        elif tag == f"{_TEXT}p":
            style = child.get(f"{_TEXT}style-name", "")
            style = parents.get(style) or style
            if _CODE_STYLES.search(style):
                code.append(_odt_text(child, parents, code=True))
                continue
            text = _odt_text(child, parents)
            _flush(out, code)
            if text.strip() and style == "Title":
                out += [f"# {text.strip()}", ""]
            elif text.strip():
                out += [text.strip(), ""] if depth == 0 else [text.strip()]
        elif tag == f"{_TEXT}list":
            _flush(out, code)
            for item in child.iter(f"{_TEXT}list-item"):
                text = " ".join(_odt_text(p, parents).strip() for p in item.findall(f"{_TEXT}p"))
                if text.strip():
                    out.append(f"- {text.strip()}")
            out.append("")
        elif tag == f"{_TABLE}table":
            _flush(out, code)
            _table(
                out,
                (
                    [
                        " ".join(_odt_text(p, parents).strip() for p in cell.iter(f"{_TEXT}p"))
                        for cell in row.iter(f"{_TABLE}table-cell")
                    ]
                    for row in child.iter(f"{_TABLE}table-row")
                ),
            )
        elif tag == f"{_TEXT}section":
            _odt_blocks(child, out, code, parents, depth)


def _odt_text(el: ET.Element, parents: dict[str, str] | None = None, code: bool = False) -> str:
    """A paragraph's text; a span in a code style (pandoc's "Source Text") as `code`,
    unless the paragraph is code itself."""
    parts = [el.text or ""]
    for child in el:
        if child.tag == f"{_TEXT}s":
            parts.append(" " * int(child.get(f"{_TEXT}c", "1") or 1))
        elif child.tag == f"{_TEXT}tab":
            parts.append("\t")
        elif child.tag == f"{_TEXT}line-break":
            parts.append("\n")
        else:
            inner = _odt_text(child, parents, code)
            style = child.get(f"{_TEXT}style-name", "")
            style = (parents or {}).get(style) or style
            mono = child.tag == f"{_TEXT}span" and _CODE_STYLES.search(style) and not code
            parts.append(f"`{inner}`" if mono and inner.strip() else inner)
        parts.append(child.tail or "")
    return "".join(parts)


# ----------------------------------------------------------------------------- e-books
def _epub(
    z: zipfile.ZipFile,
    where: str,
    html: Callable[[str], tuple[str, str]],
    rejects: CollectResult | None,
) -> list[tuple[str, str, str]]:
    if "META-INF/encryption.xml" in z.namelist():
        enc = _xml(z, "META-INF/encryption.xml")
        # fonts obfuscated by the publisher are no DRM: encrypted chapters are
        if enc is not None and any(
            not (r.get("URI") or "").lower().endswith((".otf", ".ttf", ".woff", ".woff2"))
            for r in enc.iter()
            if r.tag.endswith("CipherReference")
        ):
            count(rejects, ENCRYPTED, where)
            return []
    container = _xml(z, "META-INF/container.xml")
    rootfile = None
    if container is not None:
        rootfile = next(
            (r.get("full-path") for r in container.iter() if r.tag.endswith("rootfile")), None
        )
    opf = _xml(z, rootfile) if rootfile else None
    if opf is None or rootfile is None:
        count(rejects, BAD_ARCHIVE, where)
        return []
    base = posixpath.dirname(rootfile)
    book = opf.find(f".//{_DC}title")
    book_title = (book.text or "").strip() if book is not None else ""
    items = {
        i.get("id"): i.get("href")
        for i in opf.iter(f"{_OPF}item")
        if "html" in (i.get("media-type") or "")
    }
    out: list[tuple[str, str, str]] = []
    for ref in opf.iter(f"{_OPF}itemref"):
        if ref.get("linear") == "no":
            continue  # front matter a reader skips (covers, notes)
        href = items.get(ref.get("idref"))
        if not href:
            continue
        path = posixpath.normpath(posixpath.join(base, href.split("#")[0]))
        try:
            raw = z.read(path).decode("utf-8", "replace")
        except (KeyError, OSError, zipfile.BadZipFile, RuntimeError):
            continue
        text, title = html(raw)
        if len(text.split()) < 20:  # a cover, a title page, a table of contents' stub
            continue
        if not title.strip() or re.search(r"\.x?html?$", title.strip(), re.I):
            heading = re.search(r"^#{1,3} (.+)$", text, re.M)  # its first heading names it
            title = heading.group(1) if heading else ""
        shown = title.strip() or book_title
        if book_title and title.strip() and title.strip() != book_title:
            shown = f"{title.strip()} — {book_title}"
        out.append((path, shown, text))
    return out


def _table(out: list[str], rows: Iterable[list[str]]) -> None:
    """A table's rows as "a | b" lines (a row with no text left out), a blank line after."""
    for row in rows:
        cells = [c.strip() for c in row]
        if any(cells):
            out.append(" | ".join(cells))
    out.append("")


def _flush(out: list[str], code: list[str]) -> None:
    if code:
        out += ["```", *code, "```", ""]
        code.clear()


def _tidy(lines: list[str]) -> str:
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"
