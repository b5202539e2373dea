"""A javadoc page's members, each a document named as the Java reader names it, from a
folder and a web site; a page without member details is read as before."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_page, collect_tree
from builtpages import JAVADOC
from jupiter.collect import javadoc
from jupiter.collect.local import html_text
from jupiter.records import Document


def test_a_javadoc_pages_members_are_documents(tmp_path: Path) -> None:
    page, docs = collect_page(tmp_path, "api/org/spool/text/Strings.html", JAVADOC, ["*.html"])
    assert list(docs) == [
        "java:org.spool.text.Strings",
        "java:org.spool.text.Strings.EMPTY",
        "java:org.spool.text.Strings.abbreviate",
    ]
    assert docs["java:org.spool.text.Strings"].text == (
        "Strings\n\nOperations on `String` that are `null` safe."
    )
    abbreviate = docs["java:org.spool.text.Strings.abbreviate"]
    assert abbreviate.text == (
        "Strings.abbreviate(String str, int maxWidth)\n\n"
        "Abbreviates a String using ellipses.\n\nNever longer than `maxWidth`.\n\n"
        ":param str: the String to check, may be null\n"
        ":param maxWidth: maximum length of result String\n"
        ":returns: abbreviated String, `null` if null String input\n"
        ":raises IllegalArgumentException: if the width is too small\n\n"
        "Strings.abbreviate(String str, int offset, int maxWidth)\n\n"
        "Abbreviates from an offset."
    )
    assert abbreviate.meta["signature"] == "(String str, int maxWidth)"
    assert abbreviate.meta["kind"] == "method" and abbreviate.meta["language"] == "java"
    asked = ask(abbreviate)
    assert asked["what_does"] == "Abbreviates a String using ellipses."
    assert asked["arguments"].startswith(
        "`org.spool.text.Strings.abbreviate` takes 2 arguments: String str, int maxWidth."
    )
    assert asked["returns"] == "abbreviated String, `null` if null String input"
    # the page keeps its summary, not the details; its navigation as before (main only)
    assert "Method Summary" in page.text and "Abbreviates a String using" not in page.text
    assert "Overview | Package" not in page.text
    as_text, _ = collect_tree(tmp_path / "b", {"Strings.html": JAVADOC}, ["*.html"], java="text")
    assert len(as_text) == 1


def test_a_page_that_is_no_javadoc_class_page_is_read_as_before() -> None:
    doc = Document("local", "/a.html", "a", "Text.", {})
    plain = "<html><body><p>Text.</p></body></html>"
    assert javadoc.split_built(doc, plain, lambda h: html_text(h)[0]) == [doc]
    no_title = JAVADOC.replace('class="title"', 'class="heading"')
    assert javadoc.split_built(doc, no_title, lambda h: html_text(h)[0]) == [doc]
