"""A gi-docgen site's pages, each symbol a document named and written as the C readers name
them (C symbols, GObject's notation for signals and properties); the sidebar, the member
lists of a class page and the ownership notes never read; undocumented symbols and the
namespace's index counted; a chapter of prose read as its main section."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_tree
from builtpages import GIDOCGEN
from jupiter.collect import gidocgen
from jupiter.collect.local import html_text
from jupiter.records import Document


def test_a_gidocgen_sites_symbols_are_documents(tmp_path: Path) -> None:
    docs, rejects = collect_tree(tmp_path, GIDOCGEN, ["*.html"])
    assert sorted(u for u in docs if u.startswith("c:")) == [
        "c:SPOOL_MAX_TURNS",
        "c:SPOOL_MODE_LOOSE",
        "c:SPOOL_MODE_TIGHT",
        "c:SpoolMode",
        "c:SpoolOptions",
        "c:SpoolOptions::turns",
        "c:SpoolReel",
        "c:SpoolReel::full",
        "c:SpoolReel:turns",
        "c:SpoolReelFunc",
        "c:spool_reel_wind",
    ]
    # the class hierarchy is the generator's page, the index lists symbols, KEY_a has no
    # description
    assert dict(rejects.rejects) == {
        "gidocgen_generated": 1,
        "gidocgen_contents": 1,
        "gidocgen_undocumented": 1,
    }
    wind = docs["c:spool_reel_wind"]
    assert wind.text == (
        "spool_reel_wind(SpoolReel *reel, guint turns, GCancellable *cancellable)\n\n"
        "Winds `turns` turns.\n\n:param turns: How many turns\n:param cancellable: A "
        "cancellable. The argument can be `NULL`.\n:returns: `TRUE` when wound. The return "
        "value can be `NULL`.\n\nAvailable since: 1.2"
    )
    assert wind.meta["kind"] == "function" and wind.meta["language"] == "c"
    asked = ask(wind)
    assert asked["what_does"] == "Winds `turns` turns."
    assert asked["arguments"].endswith(
        "- turns: How many turns\n- cancellable: A cancellable. The argument can be `NULL`."
    )
    # a class's description and declaration, not its member lists
    assert docs["c:SpoolReel"].text == (
        "SpoolReel\n\nA `SpoolReel` holds thread.\n\nDeclaration: `final class Spool.Reel : "
        "GObject.Object { /* No available fields */ }`"
    )
    assert docs["c:SpoolReel:turns"].text == (
        "SpoolReel:turns\n\nTurns on the reel.\n\nType: `guint`\nFlags: readable.\n"
        "Getter method: `spool_reel_get_turns()`"
    )
    assert docs["c:SpoolReel::full"].text == (
        "SpoolReel::full\n\nEmitted when the reel is full.\n\nHandler: `void full (SpoolReel "
        "*self, guint turns, gpointer user_data)`"
    )
    assert docs["c:SPOOL_MODE_TIGHT"].text == (
        "SPOOL_MODE_TIGHT\n\nTightly.\n\nValue: `1`\n\nA value of `enum SpoolMode`."
    )
    assert docs["c:SpoolMode"].text.endswith("Values: `SPOOL_MODE_LOOSE`, `SPOOL_MODE_TIGHT`.")
    # a struct named by its declaration; a member with no description is listed, no document
    assert docs["c:SpoolOptions"].text.endswith("Members: `turns`, `tight`.")
    assert docs["c:SpoolOptions::turns"].text == "SpoolOptions::turns\n\nHow many turns."
    assert docs["c:SpoolReelFunc"].text == "SpoolReelFunc(SpoolReel *reel)\n\nCalled on each reel."
    assert docs["c:SPOOL_MAX_TURNS"].text.endswith("Value: `64`")
    pages = [d for u, d in docs.items() if not u.startswith("c:")]
    assert [d.title for d in pages] == ["Building Spool"]
    assert pages[0].text.endswith("Build Spool with Meson; it needs GLib 2.76.")
    for d in docs.values():
        assert "sidebar entry" not in d.text and "member summary text" not in d.text
        assert "owned by" not in d.text and "gi-docgen" not in d.text


def test_gidocgen_pages_read_as_text_with_c_text(tmp_path: Path) -> None:
    docs, rejects = collect_tree(tmp_path, GIDOCGEN, ["*.html"], c="text")
    assert not any(u.startswith("c:") for u in docs)
    assert "gidocgen_undocumented" not in dict(rejects.rejects)


def test_a_page_gidocgen_did_not_write_is_left_to_the_other_readers() -> None:
    doc = Document("local", "/method.Reel.wind.html", "x", "text", {})
    page = '<html><body><section id="main"><p>text</p></section></body></html>'
    assert gidocgen.split_built(doc, page, lambda h: html_text(h)[0]) == [doc]
