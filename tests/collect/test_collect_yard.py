"""A YARD site's pages: each module, class, constant, attribute and public method a
document named and written as the Ruby source reader does; YARD's lists, its index and the
sentences it writes for undocumented methods left out."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_tree
from builtpages import YARD
from jupiter.collect import yardsite
from jupiter.collect.local import html_text
from jupiter.records import Document


def test_a_yard_sites_methods_are_documents(tmp_path: Path) -> None:
    docs, rejects = collect_tree(tmp_path, YARD, ["*.html"])
    assert sorted(docs) == [
        "ruby:Spool",
        "ruby:Spool::MAX_TURNS",
        "ruby:Spool::Reel",
        "ruby:Spool::Reel#turns",
        "ruby:Spool::Reel#wind",
        "ruby:Spool::Reel.from_spec",
    ]
    # the class and method lists are the generator's; the alphabetic index gives nothing;
    # an undocumented constructor (YARD's "Returns a new instance of Reel.") and a
    # protected method give no document
    assert dict(rejects.rejects) == {"yard_generated": 2}
    wind = docs["ruby:Spool::Reel#wind"]
    assert wind.text == (
        "Spool::Reel#wind(turns, tight: false)\n\nWind thread onto the reel.\n\n"
        ":param turns: (`Integer`) how many turns to add\n:returns: the turns after winding\n"
        ":raises ArgumentError: when turns is negative\n\n```ruby\nReel.new.wind(3) #=> 3\n```"
    )
    assert wind.meta["kind"] == "method" and wind.meta["language"] == "ruby"
    assert ask(wind)["returns"] == "the turns after winding"
    assert docs["ruby:Spool::Reel#turns"].text == (
        "Spool::Reel#turns\n\nThe turns it holds now.\n\nType: `Integer`\n\nRead-only attribute."
    )
    assert docs["ruby:Spool::Reel.from_spec"].text == (
        "Spool::Reel.from_spec(spec)\n\nMake a reel from a spec.\n\nDeprecated: Use #initialize."
    )
    assert docs["ruby:Spool::Reel"].text == "Spool::Reel\n\nA reel that holds thread."
    assert docs["ruby:Spool::MAX_TURNS"].text == (
        "Spool::MAX_TURNS\n\nThe most turns a spool holds.\n\nValue: `64`"
    )


def test_a_page_that_is_no_yard_page_is_read_as_before(tmp_path: Path) -> None:
    doc = Document("local", "/a.html", "a", "Text.", {})
    plain = "<html><body><h1>Class: Reel</h1><p>Text.</p></body></html>"
    assert yardsite.split_built(doc, plain, lambda h: html_text(h)[0]) == [doc]
    as_text, _ = collect_tree(tmp_path, YARD, ["*.html"], ruby="text")
    assert not any(u.startswith("ruby:") for u in as_text)
