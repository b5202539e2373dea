"""Small PDF files for the tests, written byte by byte: a page a list of text lines in
Helvetica, an optional /Title, an optional page that carries no text (a scan's page)."""

from __future__ import annotations

from pathlib import Path


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def pdf_bytes(pages: list[list[str]], title: str | None = None) -> bytes:
    """A valid PDF 1.4: one page per list of lines (an empty list: a page with no text)."""
    objects: list[bytes] = []
    n_pages = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n_pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, lines in enumerate(pages):
        content_ref = 5 + 2 * i
        objects.append(
            (
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                f"/Resources << /Font << /F1 3 0 R >> >> /Contents {content_ref} 0 R >>"
            ).encode()
        )
        ops = "".join(f"({_escape(line)}) Tj T* " for line in lines)
        stream = f"BT /F1 11 Tf 14 TL 72 740 Td {ops}ET".encode() if lines else b""
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    info = None
    if title is not None:
        objects.append(f"<< /Title ({_escape(title)}) >>".encode())
        info = len(objects)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R" + (f" /Info {info} 0 R" if info else "")
    out += f"trailer\n{trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def write_pdf(path: Path, pages: list[list[str]], title: str | None = None) -> Path:
    path.write_bytes(pdf_bytes(pages, title))
    return path


def write_encrypted_pdf(path: Path, pages: list[list[str]], password: str) -> Path:
    """The same PDF, encrypted with a user password (pypdf writes it)."""
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(pdf_bytes(pages))).pages:
        writer.add_page(page)
    writer.encrypt(password)
    with path.open("wb") as f:
        writer.write(f)
    return path
