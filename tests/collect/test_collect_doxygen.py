"""A Doxygen site's pages, each member a document named and written as the C and C++ header
reader does; a reference page documenting nothing counted; the main page read whole without
its navigation; a web site's pages the same."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_tree
from builtpages import DOXYGEN, doxygen_page
from jupiter.collect import doxygen
from jupiter.collect.local import html_text
from jupiter.records import Document


def _site(tmp_path: Path, **extra: object) -> tuple[dict[str, Document], dict[str, int]]:
    docs, rejects = collect_tree(tmp_path, DOXYGEN, ["*.html"], **extra)
    return docs, dict(rejects.rejects)


def test_a_doxygen_sites_members_are_documents(tmp_path: Path) -> None:
    docs, rejects = _site(tmp_path)
    api = sorted(u for u in docs if u.startswith("c:"))
    assert api == [
        "c:SPOOL_INIT",
        "c:SPOOL_MAX_TURNS",
        "c:SPOOL_TIGHT",
        "c:reel::Reel",
        "c:reel::Reel::size",
        "c:reel::Reel::wind",
        "c:spool_close",
        "c:spool_mode_t",
        "c:spool_open",
        "c:spool_options",
        "c:spool_options::turns",
        "c:spool_turns",
    ]
    # the file list and the source listing are the generator's; bare.h documents nothing
    assert rejects == {"doxygen_generated": 2, "doxygen_undocumented": 1}
    spool_open = docs["c:spool_open"]
    assert spool_open.text == (
        "spool_open(spool **out, const char *name)\n\nOpen a spool by name.\n\n"
        "The spool is created when missing.\n\n:param out: where the spool is written\n"
        ":param name: its name, not `NULL`\n:returns: 0 or an error code\nNote: Not thread safe."
    )
    assert spool_open.meta["kind"] == "function" and spool_open.meta["language"] == "c"
    asked = ask(spool_open)
    assert asked["what_does"] == "Open a spool by name."
    assert asked["returns"] == "0 or an error code"
    assert asked["arguments"].startswith("`spool_open` takes 2 arguments: spool **out, const")
    # the return type where no section says it (a macro in it left out), none for void
    assert docs["c:spool_turns"].text == (
        "spool_turns()\n\nHow many turns there are.\n\n:returns: `size_t`"
    )
    assert docs["c:spool_close"].text == "spool_close(spool *s)\n\nClose a spool."
    assert docs["c:SPOOL_MAX_TURNS"].text.endswith("The most turns a spool holds.\n\nValue: `64`")
    # a long macro's value, which Doxygen shows in its documentation, is its value line; a
    # macro with nothing but its value (SPOOL_FIELDS) is undocumented
    assert docs["c:SPOOL_INIT"].text == (
        "SPOOL_INIT\n\nOptions a spool starts with.\n\nValue: `{ 1, 2 }`"
    )
    assert docs["c:SPOOL_TIGHT"].text == "SPOOL_TIGHT\n\nEach turn pressed to the last."
    assert docs["c:spool_mode_t"].text == "spool_mode_t\n\nHow a spool winds."
    assert docs["c:spool_options::turns"].text.endswith("Type: `unsigned int`")
    # a group's description is its page's; the main page is read without the navigation
    pages = {d.title: d.text for u, d in docs.items() if not u.startswith("c:")}
    assert pages == {
        "Spool routines": "Routines that open and wind spools.",
        "Main Page": "Spool winds thread onto reels.",
    }


def test_cpp_members_are_named_through_their_class_and_overloads_are_one() -> None:
    page = DOXYGEN["html/classreel_1_1Reel.html"]
    doc = Document("local", "/classreel_1_1Reel.html", "Reel", "", {})
    docs = {d.uri: d for d in doxygen.split_built(doc, page, lambda h: html_text(h)[0])}
    assert list(docs) == ["c:reel::Reel", "c:reel::Reel::wind", "c:reel::Reel::size"]
    assert docs["c:reel::Reel"].text == "reel::Reel\n\nA reel that holds thread."
    assert docs["c:reel::Reel::wind"].text == (
        "reel::Reel::wind(int turns)\n\nWinds `turns` turns.\n\n"
        "reel::Reel::wind(int turns, double tension)\n\nWinds at a tension."
    )
    assert docs["c:reel::Reel::size"].text == (
        "reel::Reel::size()\n\nThe thread on the reel.\n\n"
        ":raises std::logic_error: when the reel is broken\n\nQualifiers: `const`.\n\n"
        ":returns: `size_t`"
    )
    assert docs["c:reel::Reel::size"].meta["kind"] == "method"


def test_c_text_reads_the_pages_whole_and_other_pages_are_left_alone(tmp_path: Path) -> None:
    docs, _ = _site(tmp_path, c="text")
    assert not any(u.startswith("c:") for u in docs) and len(docs) == 5
    doc = Document("local", "/a.html", "a", "Text.", {})
    plain = "<html><head><title>p: x File Reference</title></head><body>Text.</body></html>"
    assert doxygen.split_built(doc, plain, lambda h: html_text(h)[0]) == [doc]
    empty = doxygen_page("Main Page", "")
    assert doxygen.split_built(doc, empty, lambda h: html_text(h)[0]) == []
