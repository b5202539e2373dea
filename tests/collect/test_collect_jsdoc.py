"""A JSDoc site's pages: each class, module and documented member a document named and
written as the JavaScript source reader does; source pages counted as the generator's."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_tree
from builtpages import JSDOC
from jupiter.collect import jsdocsite
from jupiter.collect.local import html_text
from jupiter.records import Document


def test_a_jsdoc_sites_members_are_documents(tmp_path: Path) -> None:
    docs, rejects = collect_tree(tmp_path, JSDOC, ["*.html"])
    api = {u: d for u, d in docs.items() if u.startswith("javascript:")}
    assert sorted(api) == [
        "javascript:Spool",
        "javascript:Spool.unwind",
        "javascript:spool",
        "javascript:wind",
    ]
    assert dict(rejects.rejects) == {"jsdoc_generated": 1}  # the source file's page
    wind = api["javascript:wind"]
    assert wind.text == (
        "wind(turns, tight)\n\nWind thread onto a spool.\n\n:param turns: How many turns to add."
        "\n:param tight: Press each turn.\n:returns: The turns after winding.\n"
        ":raises RangeError: When turns is negative.\n\nExample:\n\n```\nwind(3); // 3\n```"
    )
    assert ask(wind)["returns"] == "The turns after winding."
    assert api["javascript:Spool"].text == (
        "Spool(size)\n\nA spool that holds thread.\n\nMake an empty spool.\n\n"
        ":param size: How many turns fit."
    )
    assert api["javascript:Spool.unwind"].text == (
        "Spool.unwind(turns)\n\nTake turns off the spool.\n\nDeprecated: Use unwindAll.\n\n"
        ":param turns: How many to take off."
    )
    assert api["javascript:spool"].text == "Spools of thread."
    # the home page: its README, not the navigation or the footer
    home = docs[str(tmp_path / "project" / "out" / "index.html")]
    assert home.text == "# Spool\n\nWind thread." and home.title == "Home"


def test_a_page_that_is_no_jsdoc_page_is_read_as_before() -> None:
    doc = Document("local", "/a.html", "a", "Text.", {})
    plain = '<html><body><h1 class="page-title">Class: X</h1><p>Text.</p></body></html>'
    assert jsdocsite.split_built(doc, plain, lambda h: html_text(h)[0]) == [doc]
