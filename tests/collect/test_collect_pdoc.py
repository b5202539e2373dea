"""A module's page pdoc built: each documented object a document named and written as the
Python source reader does; source listings, private names and Python's own docstrings left
out."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_tree
from builtpages import PDOC
from jupiter.collect import pdocsite
from jupiter.collect.local import html_text
from jupiter.records import Document


def test_a_pdoc_pages_objects_are_documents(tmp_path: Path) -> None:
    docs, _ = collect_tree(tmp_path, {"docs/spool.html": PDOC}, ["*.html"])
    assert list(docs) == [
        "python:spool",
        "python:spool.MAX_TURNS",
        "python:spool.wind",
        "python:spool.Spool",
        "python:spool.Spool.unwind",
    ]
    assert docs["python:spool"].text == "Spools of thread."
    assert docs["python:spool.MAX_TURNS"].text == (
        "spool.MAX_TURNS\n\nThe most turns a spool holds.\n\nValue: `64`"
    )
    wind = docs["python:spool.wind"]
    assert wind.text == (
        "spool.wind(turns, *, tight=False)\n\nWind thread onto a spool.\n\n"
        ":param turns: How many turns to add.\n:param tight: Press each turn.\n"
        ":returns: The turns after winding.\n\nExamples:\n\n```\n>>> wind(3)\n3\n```"
    )
    assert ask(wind)["what_does"] == "Wind thread onto a spool."
    # a class: its __init__'s signature and parameters; a method without self
    assert docs["python:spool.Spool"].text == (
        "spool.Spool(size=10)\n\nA spool that holds thread.\n\n:ivar turns: The turns it "
        "holds.\n\n:param size: How many turns fit."
    )
    assert docs["python:spool.Spool.unwind"].text == (
        "spool.Spool.unwind(turns)\n\nTake turns off the spool."
    )
    assert docs["python:spool.Spool.unwind"].meta["kind"] == "method"
    assert all("nav entry" not in d.text and "def source" not in d.text for d in docs.values())


def test_a_page_that_is_no_pdoc_page_is_read_as_before() -> None:
    doc = Document("local", "/a.html", "a", "Text.", {})
    plain = '<html><body><section id="x"><div class="docstring">Text.</div></section></body></html>'
    assert pdocsite.split_built(doc, plain, lambda h: html_text(h)[0]) == [doc]
