"""A TypeDoc site's pages, each declaration and member a document named and written as the
JavaScript and TypeScript source reader does; inherited members of documented bases and
other packages' members left out; a web site's pages the same."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_tree
from builtpages import TYPEDOC
from jupiter.collect import typedoc
from jupiter.collect.local import html_text
from jupiter.records import Document


def test_a_typedoc_sites_declarations_are_documents(tmp_path: Path) -> None:
    docs, rejects = collect_tree(tmp_path, TYPEDOC, ["*.html"])
    api = {u: d for u, d in docs.items() if u.startswith("javascript:")}
    assert sorted(api) == [
        "javascript:Options",
        "javascript:Options.label",
        "javascript:Spool",
        "javascript:Spool.tag",
        "javascript:Spool.turns",
        "javascript:Spool.unwind",
        "javascript:wind",
    ]
    # the hierarchy page is the generator's; an alias documented nowhere gives nothing
    assert dict(rejects.rejects) == {"typedoc_generated": 1, "typedoc_undocumented": 1}
    wind = api["javascript:wind"]
    assert wind.text == (
        "wind(turns: number, tight?: boolean)\n\nWind thread onto a spool.\n\n"
        ":param turns: How many turns to add.\n:returns: The turns after winding.\n"
        ":raises: When `turns` is negative.\n\nExample:\n\n```\nwind(3); // 3\n```"
    )
    assert wind.meta["kind"] == "function" and wind.meta["language"] == "javascript"
    asked = ask(wind)
    assert asked["what_does"] == "Wind thread onto a spool."
    assert asked["returns"] == "The turns after winding."
    # a class: its constructor's signature and text; overloads one document; a member of
    # a base the site has no page for is documented here, one of a documented base is not
    assert api["javascript:Spool"].text == (
        "Spool(size?: number)\n\nA spool that holds thread.\n\nMake an empty spool.\n\n"
        ":param size: How many turns fit."
    )
    assert api["javascript:Spool.unwind"].text == (
        "Spool.unwind(turns: number)\n\nTake turns off the spool.\n\nDeprecated: Use unwindAll."
        "\n\n:param turns: How many to take off.\n\nSpool.unwind(turns: string)\n\n"
        "Take turns off, given as text."
    )
    assert api["javascript:Spool.turns"].text == "Spool.turns\n\nThe turns it holds now."
    assert api["javascript:Spool.tag"].text == "Spool.tag\n\nFrom a base with no page."
    # an alias's object type: its members; the alias's own text is not theirs
    assert api["javascript:Options"].text == "Options\n\nOptions of a spool."
    assert api["javascript:Options.label"].text == "Options.label\n\nThe spool's label."
    # the project's page: its README without the lists of declarations and the furniture
    index = docs[str(tmp_path / "project" / "docs" / "index.html")]
    assert index.text == "# spool\n\n## Spool\n\nWind thread onto spools."


def test_javascript_text_reads_the_pages_whole_and_other_pages_are_left_alone(
    tmp_path: Path,
) -> None:
    docs, _ = collect_tree(tmp_path, TYPEDOC, ["*.html"], javascript="text")
    assert not any(u.startswith("javascript:") for u in docs) and len(docs) == 5
    doc = Document("local", "/a.html", "a", "Text.", {})
    plain = "<html><body><h1>Class Spool</h1><p>Text.</p></body></html>"
    assert typedoc.split_built(doc, plain, lambda h: html_text(h)[0]) == [doc]
