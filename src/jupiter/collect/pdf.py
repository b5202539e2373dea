"""PDF files as documents: the text layer, page by page (pypdf), made into prose again.

A PDF holds positioned glyphs, not paragraphs. What pypdf gives back a page at a time is
lines cut where the page's width ran out, words split at hyphens, and the running header,
footer and page number on every page. This module puts the prose back together:

- lines that repeat at the top or bottom of most pages (a running title, "Page 3 of 40",
  a chapter name with its number) and bare page numbers at a page's edge are dropped;
- a word split over two lines ("frobni-" / "cates") is joined;
- a line that ran out of width and goes on in lower case is joined to the next, so a
  paragraph is one line again; short lines (headings, list items, code) keep their own;
- pages are separated by a blank line.

A PDF without a text layer (a scan) has nothing to read: it is rejected with the fix (OCR
it first), as are an encrypted PDF that opens with no password and a damaged file.
"""

from __future__ import annotations

import io
import logging
import re
from collections import Counter
from dataclasses import dataclass

PDF_MAGIC = b"%PDF-"
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
MIN_PAGES_FOR_RUNNING = 3  # fewer pages: no line can be told to repeat
RUNNING_SHARE = 0.5  # of the pages: a line at this many pages' edges is a header/footer
PAGE_NUMBER = re.compile(r"^(?:page\s+)?(?:\d+|[ivxlcdm]+)(?:\s*(?:of|/)\s*\d+)?$", re.I)
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
    except PdfProblem:
        raise
    # a damaged file fails anywhere in pypdf's parser, with its own errors or Python's
    except (PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
        raise PdfProblem(UNREADABLE) from err
    except (RecursionError, NotImplementedError, OSError) as err:
        raise PdfProblem(UNREADABLE) from err
    finally:
        quiet.setLevel(level)
    text = clean_pages(pages)
    if not text.strip():
        raise PdfProblem(NO_TEXT)
    return PdfText(text, title, len(pages))


def _key(line: str) -> str:
    """A line as it repeats across pages: case and numbers aside ("Page 3" ~ "Page 4")."""
    return DIGITS.sub("#", " ".join(line.lower().split()))


def _edges(lines: list[str]) -> list[int]:
    """The indices of a page's first and last EDGE_LINES lines."""
    n = len(lines)
    return sorted({*range(min(EDGE_LINES, n)), *range(max(n - EDGE_LINES, 0), n)})


def running_lines(pages: list[list[str]]) -> set[str]:
    """The keys of lines found at the edges of at least RUNNING_SHARE of the pages."""
    if len(pages) < MIN_PAGES_FOR_RUNNING:
        return set()
    seen: Counter[str] = Counter()
    for lines in pages:
        seen.update({_key(lines[i]) for i in _edges(lines)})
    need = max(2, RUNNING_SHARE * len(pages))
    return {k for k, n in seen.items() if n >= need}


def strip_edges(lines: list[str], running: set[str]) -> list[str]:
    """The page's lines less its running header/footer lines and edge page numbers."""
    drop = {
        i for i in _edges(lines) if _key(lines[i]) in running or PAGE_NUMBER.match(lines[i].strip())
    }
    return [line for i, line in enumerate(lines) if i not in drop]


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
    between pages."""
    split = [[line.strip() for line in page.splitlines() if line.strip()] for page in pages]
    running = running_lines(split)
    texts = [reflow(strip_edges(lines, running)) for lines in split]
    return "\n\n".join(t for t in texts if t)


__all__ = ["ENCRYPTED", "FIXES", "NO_TEXT", "PDF_MAGIC", "UNREADABLE", "PdfProblem", "read_pdf"]
