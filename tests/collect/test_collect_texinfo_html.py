"""The HTML texi2any (makeinfo) and texi2html make of a Texinfo manual: a definition
(`@deffn`, `@deftypefun`, ...) read as the Texinfo reader writes it, so docparse finds its
name; the page's Next/Previous/Up bar left out."""

from __future__ import annotations

from jupiter.collect.local import html_text
from jupiter.synth.docparse import parse

TEXI2ANY = (
    "<!DOCTYPE html><html><!-- Created by GNU Texinfo 7.0.2, https://www.gnu.org/software/"
    "texinfo/ --><head><title>MPI formats (Libspool)</title></head><body>"
    '<div class="header"><p>Next: <a href="a.html" accesskey="n" rel="next">Calculations</a>, '
    'Up: <a href="b.html" rel="up">MPI</a> [<a href="index.html">Contents</a>]</p></div><hr>'
    '<h3 class="section">12.3 MPI formats</h3><p>The functions that convert.</p>'
    '<dl class="def"><dt id="index-spool_005fscan"><span class="category">Function: </span>'
    "<span><em>spool_error_t</em> <strong>spool_scan</strong> <em>(spool_t&nbsp;*<var>r</var>"
    "<!-- /@w -->, size_t&nbsp;<var>len</var>)</em><a href='#index-spool_005fscan' "
    "class='copiable-anchor'> &para;</a></span></dt>"
    '<dt id="index-spool_005fscan_005fall"><span class="category">Function: </span><span>'
    "<em>spool_error_t</em> <strong>spool_scan_all</strong> <em>(spool_t&nbsp;*<var>r</var>)"
    "</em></span></dt>"
    "<dd><p>Convert the external form in <var>r</var> into a new number.</p>"
    "<dl compact><dt><code>SPOOL_FMT_STD</code></dt><dd><p>Two's complement.</p></dd></dl>"
    "</dd></dl>"
    '<dl class="def"><dt id="index-dbstop"><span class="category">: </span><span><em></em> '
    "<strong>dbstop</strong> <em><var>func</var></em></span></dt>"
    '<dt id="index-dbstop-1"><span class="category">: </span><span><em><var>rline</var> =</em>'
    " <strong>dbstop</strong> <em>&hellip;</em></span></dt>"
    "<dd><p>Set breakpoints for the built-in debugger.</p></dd></dl>"
    '<dl class="def"><dt id="index-tm"><span class="category">Data Type: </span><span>'
    "<strong>struct tm</strong></span></dt><dd><p>A broken-down calendar time.</p></dd></dl>"
    "<dl compact><dt><code>SPOOL_A</code></dt><dt><code>SPOOL_B</code></dt></dl>"
    '<dl class="def"><dt id="index-sf"><span class="category">Special Form: </span><span>'
    "<strong>spool-let</strong> <em>bindings body&hellip;</em></span></dt>"
    "<dd><p>Binds each of the bindings, then runs the body.</p></dd></dl>"
    "</body></html>"
)


def test_texi2any_definitions_read_as_the_texinfo_reader_writes_them() -> None:
    text, title = html_text(TEXI2ANY)
    assert title == "MPI formats (Libspool)"
    assert "Next:" not in text and "Contents" not in text and "¶" not in text
    assert text == (
        "### 12.3 MPI formats\n\nThe functions that convert.\n\n"
        "**Function:** `spool_error_t` **`spool_scan`** `(spool_t *r, size_t len)`\n"
        "**Function:** `spool_error_t` **`spool_scan_all`** `(spool_t *r)`\n\n"
        "Convert the external form in r into a new number.\n\n"
        "`SPOOL_FMT_STD`\n  Two's complement.\n\n"
        "**`dbstop`** `func`\n`rline =` **`dbstop`** `…`\n\n"
        "Set breakpoints for the built-in debugger.\n\n"
        "**Data Type:** **`struct tm`**\n\nA broken-down calendar time.\n\n"
        "`SPOOL_A`\n`SPOOL_B`\n\n"
        "**Special Form:** `spool-let bindings body…`\n\n"
        "Binds each of the bindings, then runs the body."
    )
    defs = [(b.term, b.text) for b in parse(text).blocks if b.kind == "definition"]
    assert defs == [
        ("spool_scan", "Convert the external form in r into a new number."),
        ("SPOOL_FMT_STD", "Two's complement."),
        ("dbstop", "Set breakpoints for the built-in debugger."),
        ("struct tm", "A broken-down calendar time."),
        ("spool-let", "Binds each of the bindings, then runs the body."),
    ]


def test_texi2html_and_texi2any_6_definitions() -> None:
    """texi2html's `<u>Category:</u>` and texi2any 6's plain "Category: " before the name."""
    old = (
        "<html><!-- Created on July, 26 2020 by texi2html 1.78a --><body>"
        "<dl><dt><u>Function:</u> void <b>xerror</b><i> (int&nbsp;<var>severity</var>)</i>"
        '<a name="IDX872"></a></dt><dd><p>Signals a problem.</p></dd></dl>'
        "<dl><dt><u>Data Type:</u> <b>struct</b><i> po_handler</i></dt><dd><p>Holds the two "
        "callbacks.</p></dd></dl>"
        "<dl><dt><b>Glossary</b></dt><dd><p>Plain terms stay a list.</p></dd></dl></body></html>"
    )
    text, _ = html_text(old)
    assert text == (
        "**Function:** `void` **`xerror`** `(int severity)`\n\nSignals a problem.\n\n"
        "**Data Type:** **`struct po_handler`**\n\nHolds the two callbacks.\n\n"
        "Glossary\n  Plain terms stay a list."
    )
    six = (
        '<html><body><dl class="def"><dt id="index-open">Library Function: <em>int</em> '
        "<strong>open</strong> <em>(const char *<var>path</var>)</em></dt><dd><p>Opens it."
        "</p></dd></dl></body></html>"
    )
    text, _ = html_text(six)
    assert text == "**Library Function:** `int` **`open`** `(const char *path)`\n\nOpens it."
    assert [b.term for b in parse(text).blocks if b.kind == "definition"] == ["open"]


def test_a_header_div_is_text_on_pages_no_texinfo_tool_made() -> None:
    page = '<html><body><div class="header"><p>Release notes for 2.0</p></div></body></html>'
    assert html_text(page)[0] == "Release notes for 2.0"


def test_a_latex2html_node_without_its_navigation_and_page_references() -> None:
    """LaTeX2HTML's panel (in its comments, and its class), its list of a node's
    subsections, and "(p. [*])" page references whose number is an image."""
    page = (
        "<HTML><!--Converted with LaTeX2HTML 2022.2 (Released July 1, 2022) --><HEAD><TITLE>"
        "Rlabel</TITLE></HEAD><BODY><!--Navigation Panel--><A HREF='n2.html'><IMG ALT='next' "
        "SRC='next.png'></A><B> Next:</B> <A HREF='n2.html'>Rmargin</A> <B> Up:</B> <A "
        "HREF='n1.html'>Set-show</A><BR><!--End of Navigation Panel--><H2>Rlabel</H2>This "
        "command places a label above the r axis. See set xlabel (p.&nbsp;<A HREF='n9.html'>"
        "<IMG ALT='[*]' SRC='crossref.png'></A>) for more.<BR><HR><!--Table of Child-Links-->"
        "<A ID='CHILD_LINKS'><STRONG>Subsections</STRONG></A><UL CLASS='ChildLinks'><LI><A "
        "HREF='n3.html'>Rlabel examples</A></UL><!--End of Table of Child-Links--><BR><HR>"
        '<DIV CLASS="navigation"><B> Next:</B> <A HREF="n2.html">Rmargin</A></DIV>'
        "<P>Kept (p. 3 of the guide).</P></BODY></HTML>"
    )
    assert html_text(page)[0] == (
        "## Rlabel\n\nThis command places a label above the r axis. See set xlabel for more.\n\n"
        "Kept (p. 3 of the guide)."
    )
