"""A page mkdocstrings built: each documented Python object a document named and written as
the Python source reader does, the source listings and labels left out; a web site's pages
the same."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_page, collect_tree
from builtpages import MKDOCSTRINGS
from jupiter.collect import mkdocstrings
from jupiter.collect.local import html_text
from jupiter.records import Document


def test_a_pages_mkdocstrings_objects_are_documents(tmp_path: Path) -> None:
    page, docs = collect_page(tmp_path, "site/api/index.html", MKDOCSTRINGS, ["*.html"])
    assert list(docs) == [
        "python:spool",
        "python:spool.MAX_TURNS",
        "python:spool.Spool",
        "python:spool.Spool.full",
        "python:spool.Spool.unwind",
        "python:spool.wind",
    ]
    assert docs["python:spool"].text == "Spools of thread, wound and unwound."
    assert docs["python:spool.MAX_TURNS"].text == (
        "spool.MAX_TURNS\n\nThe most turns a spool holds.\n\nValue: `64`"
    )
    # a class: its __init__'s signature and parameters, its attributes; no bases, no source
    assert docs["python:spool.Spool"].text == (
        "spool.Spool(size=10)\n\nA spool that holds thread.\n\n:ivar turns: The turns it holds."
        "\n\n:param size: How many turns fit."
    )
    unwind = docs["python:spool.Spool.unwind"]
    assert unwind.text == (
        "spool.Spool.unwind(turns)\n\nTake turns off the spool.\n\n"
        "Note: Unwinding an empty spool does nothing.\n\n"
        ":param turns: How many to take off.\n:returns: The thread taken off."
    )
    assert unwind.meta["kind"] == "method" and docs["python:spool.Spool.full"].meta["kind"] == (
        "property"
    )
    assert docs["python:spool.wind"].text == (
        "spool.wind(spool, turns, *, tight=False)\n\nWind thread onto a spool.\n\n"
        ":raises ValueError: When `turns` is negative.\n\nExamples:\n\n```\n>>> wind(Spool(), 3)"
        "\n3\n```"
    )
    asked = ask(unwind)
    assert asked["what_does"] == "Take turns off the spool."
    assert asked["returns"] == "The thread taken off."
    # the page keeps what is no object, without the navigation
    assert page.text == "# API\n\nThe whole API."
    assert all("class Spool:" not in d.text and "33" not in d.text for d in docs.values())


def test_python_text_reads_the_page_whole_and_other_pages_are_left_alone(tmp_path: Path) -> None:
    docs, _ = collect_tree(tmp_path, {"api.html": MKDOCSTRINGS}, ["*.html"], python="text")
    assert list(docs) == [str(tmp_path / "project" / "api.html")]
    doc = Document("local", "/a.html", "a", "Text.", {})
    plain = "<html><body><h2 id='x'>x</h2><p>Text.</p></body></html>"
    assert mkdocstrings.split_built(doc, plain, lambda h: html_text(h)[0]) == [doc]
