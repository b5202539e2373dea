"""PDF files as documents: the text layer, page by page (pypdf), made into prose again.

A PDF holds positioned glyphs, not paragraphs. What pypdf gives back a page at a time is
lines cut where the page's width ran out, words split at hyphens, and the running header,
footer and page number on every page. This module puts the prose back together:

- lines that repeat at the top or bottom of the pages around them (a running title,
  "Page 3 of 40", a chapter's name with the page number) and bare page numbers at a
  page's edge are dropped;
- a word split over two lines ("frobni-" / "cates") is joined;
- a line that ran out of width and goes on in lower case is joined to the next, so a
  paragraph is one line again; short lines (headings, list items, code) keep their own;
- pages are separated by a blank line, but a sentence that runs on to the next page is
  joined.

A PDF without a text layer (a scan) has nothing to read: it is rejected with the fix (OCR
it first), as are an encrypted PDF that opens with no password and a damaged file.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass

from jupiter.collect.result import CollectResult

PDF_MAGIC = b"%PDF-"  # within the first 1024 bytes (the header may sit past junk)
PDF_SUFFIX = ".pdf"
ENCRYPTED = "pdf_encrypted"  # needs a password: decrypt it (qpdf --decrypt) first
NO_TEXT = "pdf_no_text"  # no text layer, a scan: OCR it first (ocrmypdf)
UNREADABLE = "pdf_unreadable"  # damaged or not a PDF after all
# what the collect stage prints beside each reason: the fix
FIXES = {
    ENCRYPTED: "password-protected: decrypt it first, e.g. qpdf --decrypt",
    NO_TEXT: "no text layer, a scan: OCR it first, e.g. ocrmypdf",
    UNREADABLE: "damaged, or not a PDF",
}

EDGE_LINES = 2  # lines at the top and at the bottom of a page where running lines sit
NEIGHBOURS = 2  # pages either side where a running line repeats (left and right pages)
# "12", "Page 3 of 40", "3/40", a front-matter "xiv" (a well-formed roman numeral only:
# "dd" or "mid" alone on a line is text)
ROMAN = r"(?=[ivxlcdm])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
PAGE_NUMBER = re.compile(rf"^(?:page\s+)?(?:\d+|{ROMAN})(?:\s*(?:of|/)\s*\d+)?$", re.I)
HYPHENATED = re.compile(r"[^\W\d_]-$")  # "frobni-": a letter, then the hyphen, at line end
CONTINUES = re.compile(r"^[^\W\d_A-Z]")  # the next line starts with a lower-case letter
DIGITS = re.compile(r"\d+")
WRAP_SHARE = 0.6  # of the page's longest line: a line this long ran out of width


class PdfProblem(Exception):
    """Why a PDF gives no document: `reason` is one of ENCRYPTED, NO_TEXT, UNREADABLE."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class PdfText:
    text: str
    title: str  # the file's /Title, "" when it has none
    pages: int


def read_pdf(data: bytes) -> PdfText:
    """The PDF's text, cleaned (module docstring); PdfProblem when there is none to read."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    if PDF_MAGIC not in data[:1024]:
        raise PdfProblem(UNREADABLE)

    quiet = logging.getLogger("pypdf")  # its warnings on a damaged file: the reason says it
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):  # an owner password only: reads
            raise PdfProblem(ENCRYPTED)
        pages = [page.extract_text() or "" for page in reader.pages]
        meta = reader.metadata
        title = str(meta.title or "").strip() if meta is not None else ""
    # a damaged file fails anywhere in pypdf's parser, with its own errors or Python's
    except (
        PyPdfError,
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        AttributeError,
        RecursionError,
        NotImplementedError,
        OSError,
    ) as err:
        raise PdfProblem(UNREADABLE) from err
    finally:
        quiet.setLevel(level)
    text = clean_pages(pages)
    if not text.strip():
        raise PdfProblem(NO_TEXT)
    return PdfText(text, title, len(pages))


def pdf_or_reject(data: bytes | None, where: str, rejects: CollectResult | None) -> PdfText | None:
    """read_pdf for a collector: None when the file has no text to read (or could not be
    read: `data` None), counted in `rejects` under its reason."""
    try:
        if data is None:
            raise PdfProblem(UNREADABLE)
        return read_pdf(data)
    except PdfProblem as err:
        if rejects is not None:
            rejects.reject(err.reason, where)
        return None


def _key(line: str) -> str:
    """A line as it repeats across pages: case and numbers aside ("Page 3" ~ "Page 4")."""
    return DIGITS.sub("#", " ".join(line.lower().split()))


def _edges(lines: list[str]) -> tuple[range, range]:
    """The indices of a page's first and of its last EDGE_LINES lines."""
    n = len(lines)
    return range(min(EDGE_LINES, n)), range(max(n - EDGE_LINES, 0), n)


def running_lines(pages: list[list[str]]) -> list[set[int]]:
    """Each page's running header and footer lines, by index: a line at a page's top (or
    bottom) found, numbers aside, at the top (bottom) of a page at most NEIGHBOURS pages
    away. A book's running head changes with the chapter ("Chapter 4: Functions 13") and
    alternates between left and right pages, so it is the neighbours that tell, not a
    share of the whole file; a page number is dropped at an edge on its own."""
    keys = []
    for lines in pages:
        top, bottom = _edges(lines)
        keys.append(({_key(lines[i]) for i in top}, {_key(lines[i]) for i in bottom}))
    out: list[set[int]] = []
    for p, lines in enumerate(pages):
        around = range(max(p - NEIGHBOURS, 0), min(p + NEIGHBOURS + 1, len(pages)))
        near = [keys[q] for q in around if q != p]
        drop = set()
        for side, indices in enumerate(_edges(lines)):
            for i in indices:
                key = _key(lines[i])
                if PAGE_NUMBER.match(lines[i].strip()) or any(key in k[side] for k in near):
                    drop.add(i)
        out.append(drop)
    return out


def reflow(lines: list[str]) -> str:
    """A page's lines with split words and wrapped sentences joined again. A line is taken
    to wrap when it fills most of the page's width (WRAP_SHARE of its longest line) and the
    next starts in lower case: a short line (code, a list, a heading) is a break the
    author made."""
    if not lines:
        return ""
    full = max(len(line) for line in lines)
    out: list[str] = []
    prev_len = 0
    for line in lines:
        wraps = bool(out) and prev_len >= WRAP_SHARE * full and CONTINUES.match(line)
        if wraps and HYPHENATED.search(out[-1]):
            out[-1] = out[-1][:-1] + line
        elif wraps and not out[-1].endswith(":"):
            out[-1] = f"{out[-1]} {line}"
        else:
            out.append(line)
        prev_len = len(line)
    return "\n".join(out)


def clean_pages(pages: list[str]) -> str:
    """The pages' text as a document: running lines out, paragraphs joined, a blank line
    between pages, except where a sentence runs on to the next page (it starts in lower
    case): there the two halves are joined as a wrapped line is."""
    split = [[line.strip() for line in page.splitlines() if line.strip()] for page in pages]
    out = ""
    for lines, drop in zip(split, running_lines(split), strict=True):
        text = reflow([line for i, line in enumerate(lines) if i not in drop])
        if not text:
            continue
        if out and CONTINUES.match(text):
            out = out[:-1] + text if HYPHENATED.search(out) else f"{out} {text}"
        else:
            out = f"{out}\n\n{text}" if out else text
    return out


__all__ = [
    "ENCRYPTED",
    "FIXES",
    "NO_TEXT",
    "PDF_SUFFIX",
    "UNREADABLE",
    "PdfProblem",
    "pdf_or_reject",
    "read_pdf",
]
