"""PDF documents of the local source: real PDF files (tests/support/pdfs.py writes them,
pypdf encrypts one) read through pypdf's text layer and made into paragraphs again."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from jupiter.collect import CollectResult, collect
from jupiter.collect.local import collect_local
from jupiter.collect.pdf import NO_TEXT, PdfProblem, clean_pages, read_pdf, reflow
from jupiter.config import DomainConfig
from pdfs import pdf_bytes, write_encrypted_pdf, write_pdf

WRAPPED = [
    "The spin command turns the widget at the speed given with --speed and",
    "stops when the input ends; a speed above the widget's rated limit is refused",
    "with exit status 3. Long words are split at the line's end: frobni-",
    "cation, for one.",
    "Example:",
    "spin --speed 4 input.txt",
    "x = spin(4)",
]


def manual_pages(n: int) -> list[list[str]]:
    """n pages as a book prints them: a running title, a heading, prose wrapped at the
    page's width, a short code line, and the page number at the foot."""
    return [
        [
            "The Widget Manual",
            f"Section {chr(65 + i)}: part {i + 1}",
            *WRAPPED,
            f"Part {chr(65 + i)} ends here.",
            str(i + 1),
        ]
        for i in range(n)
    ]


def domain(tmp_path: Path, **source: object) -> DomainConfig:
    cfg = DomainConfig.model_validate(
        {
            "name": "t",
            "sources": [{"type": "local", "path": "corpus", **source}],
            "chunking": {"heldout_fraction": 0.0},
        }
    )
    cfg.base_dir = tmp_path
    return cfg


def test_reflow_joins_wrapped_prose_and_keeps_short_lines() -> None:
    got = reflow(WRAPPED).split("\n")
    assert got == [
        "The spin command turns the widget at the speed given with --speed and stops when "
        "the input ends; a speed above the widget's rated limit is refused with exit status "
        "3. Long words are split at the line's end: frobnication, for one.",
        "Example:",
        "spin --speed 4 input.txt",  # after a short line ending in ':': its own line
        "x = spin(4)",  # the line above is short (code): not a wrapped sentence
    ]


def test_running_headers_footers_and_page_numbers_are_dropped() -> None:
    pages = ["\n".join(p) for p in manual_pages(4)]
    text = clean_pages(pages)
    assert "The Widget Manual" not in text  # the running title, at the top of every page
    assert [p.split("\n")[0] for p in text.split("\n\n")] == [
        "Section A: part 1",  # each page's own heading stays (another letter a page)
        "Section B: part 2",
        "Section C: part 3",
        "Section D: part 4",
    ]
    assert all(not p.rstrip().split("\n")[-1].isdigit() for p in text.split("\n\n"))
    # one page has no neighbours to tell a running line from the text: its number goes
    one = clean_pages(["\n".join(manual_pages(1)[0])])
    assert one.startswith("The Widget Manual\nSection A") and not one.endswith("\n1")


def test_a_sentence_running_on_to_the_next_page_is_joined() -> None:
    pages = [
        "Head\nThe widget spins until the input",
        "ends, then stops.\nNext para-",
        "graph here.",
        "New page.",
    ]
    assert clean_pages(pages) == (
        "Head\nThe widget spins until the input ends, then stops.\nNext paragraph here.\n\nNew page."
    )


def test_a_running_head_that_changes_with_the_chapter_is_dropped() -> None:
    """A book's head names the chapter and alternates with the page number between left
    and right pages: the pages around each one tell it, not a share of the whole file."""
    pages = [["1 Introduction", "Widgets spin.", "More on spinning."]]
    pages += [["Chapter 1: Introduction 2", f"Spinning fact {c}.", "Another line."] for c in "ab"]
    pages += [["4", "2 Reference", "spin(speed) turns it."]]
    pages += [["Chapter 2: Reference 5", f"Reference fact {c}.", "Another line."] for c in "ab"]
    text = clean_pages(["\n".join(p) for p in pages])
    assert "Chapter" not in text and "\n4\n" not in f"\n{text}\n"
    assert text.split("\n\n")[3] == "2 Reference\nspin(speed) turns it."
    # a line alike at the foot of the pages around it reads as a running footer, text or not
    assert "Another line." not in text


def test_a_pdf_reads_as_its_text_with_its_title(tmp_path: Path) -> None:
    got = read_pdf(pdf_bytes(manual_pages(3), title="The Widget Manual"))
    assert got.title == "The Widget Manual" and got.pages == 3
    assert got.text.count("frobnication") == 3 and "frobni-" not in got.text
    assert got.text.split("\n\n")[1].startswith("Section B: part 2\nThe spin command turns")
    with pytest.raises(PdfProblem) as e:
        read_pdf(pdf_bytes([[], []]))  # pages without a text layer: a scan's
    assert e.value.reason == NO_TEXT


def test_local_source_reads_pdfs_and_counts_what_it_cannot(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    write_pdf(corpus / "manual.pdf", manual_pages(3), title="The Widget Manual")
    (corpus / "notes.pdf.gz").write_bytes(gzip.compress(pdf_bytes([["Gzipped notes here."]])))
    write_pdf(corpus / "scan.pdf", [[], []])
    write_encrypted_pdf(corpus / "locked.pdf", [["Secret text."]], password="pw")
    # an owner password alone (printing restricted, say): it opens with none, and reads
    write_encrypted_pdf(corpus / "restricted.pdf", [["Open text, restricted."]], password="")
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog")
    (corpus / "fake.pdf").write_bytes(b"GIF89a not a pdf at all")
    cfg = domain(tmp_path, include=["*.pdf", "*.pdf.gz"])
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    by = {Path(d.uri).name: d for d in docs}
    assert sorted(by) == ["manual.pdf", "notes.pdf.gz", "restricted.pdf"]
    assert by["manual.pdf"].title == "The Widget Manual"
    assert by["manual.pdf"].meta == {"kind": "file", "suffix": ".pdf", "pages": 3}
    assert (
        by["notes.pdf.gz"].text == "Gzipped notes here."
        and by["notes.pdf.gz"].title == "notes.pdf.gz"
    )
    assert by["restricted.pdf"].text == "Open text, restricted."
    assert rejects.rejects == {"pdf_no_text": 1, "pdf_encrypted": 1, "pdf_unreadable": 2}
    assert rejects.samples["pdf_encrypted"] == [str((corpus / "locked.pdf").resolve())]


def test_a_folder_of_scans_is_an_empty_corpus_that_says_why(tmp_path: Path) -> None:
    from jupiter.errors import JupiterError

    (tmp_path / "corpus").mkdir()
    write_pdf(tmp_path / "corpus" / "scan.pdf", [[]])
    with pytest.raises(JupiterError, match=r"empty corpus.*1 pdf_no_text"):
        collect(domain(tmp_path), cache_dir=tmp_path / "cache", rejects=CollectResult())


def test_page_numbers_at_an_edge_go_and_words_that_look_like_them_stay() -> None:
    from jupiter.collect.pdf import running_lines

    pages = [["xiv", "Preface text."], ["Body text.", "Page 3 of 40"], ["Use it like this:", "dd"]]
    assert running_lines(pages) == [{0}, {1}, set()]
