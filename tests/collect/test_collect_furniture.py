"""A built site's furniture: page controls, tables of contents, navigation bars, and what
its template repeats on every page (collect/furniture.py, local.HtmlText)."""

from __future__ import annotations

from pathlib import Path

from jupiter.collect import furniture
from jupiter.collect.local import collect_local, html_text
from jupiter.collect.result import CollectResult
from jupiter.config import DomainConfig
from jupiter.records import Document
from jupiter.synth.docparse import parse


def _config(tmp_path: Path, path: Path) -> DomainConfig:
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "local", "path": str(path)}]}
    )
    cfg.base_dir = tmp_path
    return cfg


def test_page_controls_and_its_contents_list_are_not_text() -> None:
    html = """<html><body>
<a href="javascript:void(0)" onclick="menu()">Menu</a>
<a onclick="toggle_toc()">Table Of Contents</a>
<ul><li><a href="#overview">1. Overview</a></li><li><a href="#limits">2. Limits</a></li></ul>
<div class="toc"><p>Table of Contents</p><dl><dt><a href="book.html#a">1.1 Setup</a></dt></dl></div>
<div class="navheader">Prev Up Next</div>
<h1 id="overview"><a href="#overview">1. Overview</a></h1>
<p><b>select-stmt:</b> <button onclick="show()">hide</button></p>
<select name="s"><option>Search Documentation</option></select>
<p>A query reads rows; see <a href="#limits">the limits</a> below.</p>
<h4>isOk(This) -&gt; <a href="javascript:erlhref('erts','erlang.html#type-boolean');">boolean()</a></h4>
<dl><dt><a href="#opt-x">-x</a></dt><dd>Extracts the archive.</dd></dl>
<p><a href="other.html">Another page</a></p>
<div class="navfooter">Prev Up Next</div>
</body></html>"""
    text, _ = html_text(html)
    assert text == (
        "# 1. Overview\n\n"
        "select-stmt:\n\n"
        "A query reads rows; see the limits below.\n\n"
        "#### isOk(This) -> boolean()\n\n"
        "-x\n  Extracts the archive.\n\n"
        "Another page"
    )


def _site(root: Path, pages: int) -> None:
    nav = (
        '<div class="menu"><ul><li><a href="index.html">Home</a></li>'
        '<li><a href="download.html">Download</a></li></ul></div>'
        "<p>Small. Fast. Reliable.</p>"
    )
    foot = "<p>Last updated 2024-05-31</p>"
    root.mkdir(parents=True, exist_ok=True)
    for i in range(pages):
        body = (
            f"<h1>Topic {i}</h1><h2>Options</h2>"
            f"<p>Topic {i} explains feature number {i} of the tool.</p>"
            "<dl><dt>-h</dt><dd>Shows the help.</dd></dl>"
            "<pre>tool --help\n\nUsage: tool</pre>"
        )
        (root / f"topic{i}.html").write_text(f"<html><body>{nav}{body}{foot}</body></html>")
    (root / "menu.html").write_text(f"<html><body>{nav}{foot}</body></html>")


def test_a_sites_template_goes_from_each_page(tmp_path: Path) -> None:
    _site(tmp_path / "site", 12)
    rejects = CollectResult()
    cfg = _config(tmp_path, tmp_path / "site")
    docs = collect_local(cfg.sources[0], cfg, rejects)
    by_name = {Path(d.uri).name: d for d in docs}
    assert sorted(by_name) == sorted(f"topic{i}.html" for i in range(12))
    assert rejects.rejects[furniture.FURNITURE_ONLY] == 1  # the page of menus only
    assert by_name["topic3.html"].text == (
        "# Topic 3\n\n## Options\n\n"
        "Topic 3 explains feature number 3 of the tool.\n\n"
        "-h\n  Shows the help.\n\n"
        "```\ntool --help\n\nUsage: tool\n```"
    )


def test_a_small_site_is_left_as_it_is(tmp_path: Path) -> None:
    _site(tmp_path / "site", 5)
    cfg = _config(tmp_path, tmp_path / "site")
    docs = collect_local(cfg.sources[0], cfg)
    assert len(docs) == 6
    assert all("Small. Fast. Reliable." in d.text for d in docs)


def test_strip_furniture_leaves_other_documents_and_shares_below_the_floor() -> None:
    pages = [
        Document(
            "local",
            f"/s/p{i}.html",
            f"p{i}",
            f"nav bar\n\npage {i}\n\n" + ("rare" if i < 3 else "x"),
            {"suffix": ".html"},
        )
        for i in range(10)
    ]
    notes = Document("local", "/s/notes.md", "notes", "nav bar\n\nnotes", {"suffix": ".md"})
    out = furniture.strip_furniture([*pages, notes], lambda d: d.meta["suffix"] == ".html")
    assert [d.text for d in out[:3]] == [f"page {i}\n\nrare" for i in range(3)]
    assert out[3].text == "page 3"  # "x" is on 7 of 10 pages: the template's too
    assert out[-1] is notes


def test_an_opaque_id_is_no_term() -> None:
    text = (
        "R-00311-09993-39149-44899-64441-18371-52816-22132\n"
        "  The usable field is true when the right-hand side can be evaluated.\n\n"
        "SQLITE_BUSY\n"
        "  The database file could not be written because another connection holds it.\n"
    )
    terms = [b.term for b in parse(text, "Requirements").blocks if b.kind == "definition"]
    assert terms == ["SQLITE_BUSY"]


def test_a_table_of_terms_is_a_pipe_table_and_its_rows_definitions() -> None:
    html = """<html><body><p>The substitutions:</p>
<table><tr><td><b>Format</b></td><td width="30"></td><td><b>Meaning</b></td></tr>
<tr><td>%d</td><td></td><td>day of the month, 01 to 31</td></tr>
<tr><td>%s</td><td></td><td>seconds since 1970-01-01 | the epoch</td></tr></table>
<table><tr><td>%H</td><td>hour of the day, 00 to 24</td></tr>
<tr><td>%M</td><td><p>minute of the hour,</p><pre>00 to 59</pre></td></tr></table>
<table><tr><td class="icon">Note</td><td><p>A layout table keeps its blocks.</p></td></tr></table>
<dl><dt>-f</dt><dd>Formats:<table><tr><th>a</th><th>b</th></tr><tr><td>x</td><td>y</td></tr></table></dd></dl>
</body></html>"""
    text, _ = html_text(html)
    assert text == (
        "The substitutions:\n\n"
        "| Format | Meaning |\n| --- | --- |\n"
        "| %d | day of the month, 01 to 31 |\n"
        "| %s | seconds since 1970-01-01 \\| the epoch |\n\n"
        "|  |  |\n| --- | --- |\n"
        "| %H | hour of the day, 00 to 24 |\n"
        "| %M | minute of the hour, `00 to 59` |\n\n"
        "Note\n\nA layout table keeps its blocks.\n\n"
        "-f\n  Formats:\n  | a | b |\n  | --- | --- |\n  | x | y |"
    )
    terms = {b.term: b.text for b in parse(text, "Formats").blocks if b.kind == "definition"}
    assert terms["%d"] == "day of the month, 01 to 31"
    assert terms["%s"] == "seconds since 1970-01-01 | the epoch"
    assert terms["%H"] == "hour of the day, 00 to 24"


def test_a_short_page_copied_into_another_folder_is_read_once() -> None:
    from jupiter.collect.duplicates import drop_duplicates

    short = "# mod_buffer\n\nBuffers the request and the response in memory."
    docs = [
        Document("local", "/m/da/mod_buffer.html", "b", short, {"kind": "file"}),
        Document(
            "local", "/m/de/mod_buffer.html", "b", short.replace(" in", "\n in"), {"kind": "file"}
        ),
        Document(
            "local",
            "/m/de/mod_cache.html",
            "c",
            "# mod_cache\n\nCaches responses.",
            {"kind": "file"},
        ),
        # two API objects documented alike are no copies of a file
        Document("python", "python:a.f", "a.f", "Deprecated alias.", {}),
        Document("python", "python:a.g", "a.g", "Deprecated alias.", {}),
    ]
    rejects = CollectResult()
    kept = drop_duplicates(docs, rejects)
    assert [d.uri for d in kept] == [
        "/m/da/mod_buffer.html",
        "/m/de/mod_cache.html",
        "python:a.f",
        "python:a.g",
    ]
    assert rejects.rejects == {"duplicate_document": 1}


def test_a_power_keeps_its_caret() -> None:
    text, _ = html_text("<p>At most 2<sup>48</sup> bytes, as the notes<sup>[1]</sup> say.</p>")
    assert text == "At most 2^48 bytes, as the notes^[1] say."


def test_a_text_line_opening_with_a_hash_is_no_heading() -> None:
    """A plain-text README laid out with <br>s (DocBook's literallayout): its shell comments
    stay text; a heading's own "#" and a list item's are left as they are."""
    text, _ = html_text(
        '<h1>Android</h1><div class="literallayout"><p>Build it:<br># For ARM<br>#<br>make<br>'
        "</p></div><h2># define</h2><ul><li># x</li></ul>"
    )
    assert text == "# Android\n\nBuild it:\n\\# For ARM\n\\#\nmake\n\n## # define\n\n- # x"


def test_a_page_is_read_in_the_charset_it_declares(tmp_path: Path) -> None:
    page = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=EUC-KR">'
        '<title>t</title></head><body><h1>설명 <a class="permalink" href="#d">¶</a></h1>'
        "<p>모듈을 추가한다.</p></body></html>"
    )
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "ko.html").write_bytes(page.encode("euc-kr"))
    cfg = _config(tmp_path, tmp_path / "site")
    [doc] = collect_local(cfg.sources[0], cfg)
    assert doc.text == "# 설명\n\n모듈을 추가한다."


def test_a_label_and_its_value_are_no_term() -> None:
    text, _ = html_text(
        "<h2>MinSpareServers Directive</h2><table>"
        "<tr><th>Description:</th><td>Minimum number of idle child server processes</td></tr>"
        "<tr><th>Syntax:</th><td><code>MinSpareServers number</code></td></tr>"
        "<tr><th>Default:</th><td><code>MinSpareServers 5</code></td></tr></table>"
    )
    assert "| Syntax: | `MinSpareServers number` |" in text
    assert [b for b in parse(text, "prefork").blocks if b.kind == "definition"] == []


def test_a_nested_definition_list_keeps_its_depth() -> None:
    html = (
        "<dl><dt>print [ -a ]</dt><dt>[ -v name ]</dt><dd><p>Prints its arguments.</p>"
        "<dl><dt>-a</dt><dd>Columns first.</dd><dt>-v name</dt><dd>Into a parameter.</dd></dl>"
        "<p>More on print.</p></dd><dt>read</dt><dd>Reads a line.</dd></dl>"
        "<dl><dt>x<dd>one<dt>y<dd>two</dl>"  # the end tags HTML lets a page leave out
    )
    text, _ = html_text(html)
    assert text == (
        "print [ -a ]\n[ -v name ]\n  Prints its arguments.\n  -a\n    Columns first.\n"
        "  -v name\n    Into a parameter.\n  More on print.\n\n"
        "read\n  Reads a line.\n\nx\n  one\n\ny\n  two"
    )
    owners = {b.term: b.owner for b in parse(text, "Builtins").blocks if b.kind == "definition"}
    assert owners == {"-a": "print", "-v name": "print", "read": "", "x": "", "y": ""}


def test_random_tag_soup_never_raises() -> None:
    """Pages cut anywhere, tables and lists left open or closed twice: text, no error."""
    import random

    pieces = [
        "<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th>", "<dl>", "</dl>",
        "<dt>", "</dt>", "<dd>", "</dd>", "<p>", "</p>", "<b>", "</b>", "<sup>", "</sup>",
        '<a href="#x">', '<a href="javascript:void(0)">', "</a>", "<pre>", "</pre>",
        "<button>", "</button>", "<li>", "word ", "2", "¶", "| bar |", "\n",
    ]  # fmt: skip
    rng = random.Random(5)
    for _ in range(300):
        html = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        text, _ = html_text(html)
        assert isinstance(text, str)
        assert "<" not in text.replace("<<", "")  # no tag leaks as text
