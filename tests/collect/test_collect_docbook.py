"""DocBook read as the documents its built manual shows: entity-included chapters
(internal, external and parameter entities), XInclude with xpointers, man pages
(refentries) with their options, sect1 splitting, tables, lists, admonitions, inline
markup, cross references; and the limits: entity cycles, a billion laughs, files that do
not parse or are no DocBook."""

from __future__ import annotations

import time
from pathlib import Path

from jupiter.collect.docbook import (
    INCLUDED,
    INCLUDED_FIX,
    SUFFIXES,
    batch,
    documents,
    is_docbook,
    takes,
)

DB45 = '<!DOCTYPE {root} PUBLIC "-//OASIS//DTD DocBook XML V4.5//EN" "docbookx.dtd"'


def body(inner: str) -> str:
    """The Markdown of a chapter holding `inner`, its heading line dropped."""
    docs = documents(f'<chapter id="c"><title>C</title>{inner}</chapter>')
    assert len(docs) == 1 and docs[0][:2] == ("c", "C")
    assert docs[0][2].startswith("# C")
    return docs[0][2].removeprefix("# C").strip()


def test_the_public_shape() -> None:
    assert SUFFIXES == (".xml", ".sgml", ".dbk", ".docbook")
    assert takes("doc/postgres.sgml") and takes("man/ls.XML") and takes("a.dbk")
    assert not takes("a.html") and not takes("x.ent")
    assert INCLUDED == "docbook_included" and "included" in INCLUDED_FIX


def test_is_docbook() -> None:
    assert is_docbook('<?xml version="1.0"?>\n' + DB45.format(root="book") + "><book/>")
    assert is_docbook("<!-- doc/src/sgml/indices.sgml -->\n\n<chapter id='indexes'>")
    assert is_docbook('<article xmlns="http://docbook.org/ns/docbook" version="5.0">')
    assert is_docbook("<!DOCTYPE refentry [ <!ENTITY x 'y'> ]>\n<refentry/>")
    assert is_docbook("<db:sect2 xmlns:db='http://docbook.org/ns/docbook'>")
    assert not is_docbook('<?xml version="1.0"?>\n<project><modelVersion/></project>')
    assert not is_docbook("<!DOCTYPE html>\n<html><body/></html>")
    assert not is_docbook("<!-- filelist -->\n<!ENTITY intro SYSTEM 'intro.sgml'>")
    assert not is_docbook("plain text")


BOOK = (
    "<!-- the driver -->\n"
    + DB45.format(root="book")
    + """
[
<!ENTITY % version SYSTEM "version.sgml">
%version;
<!ENTITY % filelist SYSTEM "filelist.sgml">
%filelist;
<!ENTITY product "Spool">
<!ENTITY full "&product; &version;">
<!-- a comment with a ] in it -->
]>
<book id="spool">
 <title>&full; Documentation</title>
 <bookinfo><corpauthor>Us</corpauthor></bookinfo>
 <part id="guide">
  <title>Guide</title>
  <partintro><para>Read &product; first&mdash;really&hellip;</para></partintro>
  &intro;
  &indexes;
 </part>
 <reference id="cmds"><title>Commands</title>
  <partintro><para>The commands.</para></partintro>
  &spoolRef;
 </reference>
</book>
"""
)
FILES = {
    "doc/postgres.sgml": BOOK,
    "doc/version.sgml": '<!ENTITY version "15.18">\n<!ENTITY majorversion "15">\n',
    "doc/filelist.sgml": (
        "<!-- files -->\n<!ENTITY intro SYSTEM 'intro.sgml'>\n"
        '<!ENTITY indexes SYSTEM "indices.sgml">\n'
        '<!ENTITY % allfiles SYSTEM "ref/allfiles.sgml">\n%allfiles;\n'
    ),
    "doc/ref/allfiles.sgml": '<!ENTITY spoolRef SYSTEM "spool.sgml">\n',
    "doc/intro.sgml": (
        '<?xml version="1.0"?>\n<chapter id="intro"><title>Introduction</title>'
        "<para>&product; &version; keeps jobs. See <xref linkend='indexes-types'/>.</para>"
        "</chapter>"
    ),
    "doc/indices.sgml": """<!-- indices.sgml -->
<chapter id="indexes">
 <title>Indexes</title>
 <indexterm><primary>index</primary></indexterm>
 <para>Indexes make <command>spool</command> fast.</para>
 <sect1 id="indexes-intro">
  <title>Introduction</title>
  <para>Make one with <xref linkend="spool-ref"/>.</para>
  <sect2 id="indexes-deeper"><title>Deeper</title><para>Two.</para>
   <sect3><title>Deepest</title><para>Three.</para></sect3>
  </sect2>
 </sect1>
 <sect1 id="indexes-types">
  <title>Index Types</title>
  <para>B-tree, &unknownthing; and hash.</para>
 </sect1>
 <sect1 id="indexes-empty"><title>Only a Title</title></sect1>
</chapter>
""",
    "doc/ref/spool.sgml": """<refentry id="spool-ref">
 <refmeta><refentrytitle>spool</refentrytitle><manvolnum>1</manvolnum></refmeta>
 <refnamediv><refname>spool</refname><refpurpose>queue jobs</refpurpose></refnamediv>
 <refsynopsisdiv>
  <cmdsynopsis><command>spool</command>
   <arg rep="repeat"><replaceable>option</replaceable></arg>
   <arg choice="opt"><replaceable>queue</replaceable>
    <arg choice="opt"><replaceable>job</replaceable></arg></arg>
  </cmdsynopsis>
 </refsynopsisdiv>
 <refsect1><title>Options</title>
  <variablelist>
   <varlistentry>
    <term><option>-c <replaceable>command</replaceable></option></term>
    <term><option>--command=<replaceable>command</replaceable></option></term>
    <listitem><para>Run <replaceable>command</replaceable>.</para>
     <para>A second paragraph.</para></listitem>
   </varlistentry>
   <varlistentry><term><option>--user</option></term>
    <listitem><para>Run as the user.</para></listitem></varlistentry>
  </variablelist>
 </refsect1>
</refentry>
""",
    "doc/README.xml": "<notes><note>no DocBook</note></notes>",
}


def test_a_book_of_entity_included_files() -> None:
    out, included = batch(FILES)
    assert list(out) == ["doc/postgres.sgml"]
    assert included == {
        "doc/version.sgml",
        "doc/filelist.sgml",
        "doc/ref/allfiles.sgml",
        "doc/intro.sgml",
        "doc/indices.sgml",
        "doc/ref/spool.sgml",
    }
    docs = out["doc/postgres.sgml"]
    assert [(i, t) for i, t, _ in docs] == [
        ("guide", "Guide"),
        ("intro", "Introduction"),
        ("indexes", "Indexes"),
        ("indexes-intro", "Introduction"),
        ("indexes-types", "Index Types"),
        ("cmds", "Commands"),
        ("spool-ref", "spool"),
    ]
    md = {i: m for i, _, m in docs}
    assert md["guide"] == "# Guide\n\nRead Spool first—really…"
    # internal, external (version.sgml through a parameter entity) and nested entities
    assert md["intro"] == ("# Introduction\n\nSpool 15.18 keeps jobs. See Index Types.")
    assert md["indexes"] == "# Indexes\n\nIndexes make `spool` fast."
    assert md["indexes-intro"] == (
        "# Introduction\n\nMake one with spool.\n\n## Deeper\n\nTwo.\n\n### Deepest\n\nThree."
    )
    assert md["indexes-types"] == "# Index Types\n\nB-tree, &unknownthing; and hash."
    assert md["cmds"] == "# Commands\n\nThe commands."
    assert md["spool-ref"] == (
        "# spool\n\nspool — queue jobs\n\n## Synopsis\n\n"
        "```\nspool [option...] [queue [job]]\n```\n\n"
        "## Options\n\n"
        "- `-c command`, `--command=command`: Run *command*.\n\n"
        "  A second paragraph.\n\n"
        "- `--user`: Run as the user."
    )


def test_a_man_page_file_of_its_own() -> None:
    page = FILES["doc/ref/spool.sgml"].replace(
        "<refentry", DB45.format(root="refentry") + ">\n<refentry", 1
    )
    out, included = batch({"man/spool.xml": page})
    assert included == set()
    [(key, title, md)] = out["man/spool.xml"]
    assert (key, title) == ("spool-ref", "spool(1)")  # a page on its own: name(vol)
    assert md.startswith("# spool(1)\n\nspool — queue jobs\n\n## Synopsis\n\n```\nspool [")


def test_a_declared_file_nobody_reads_is_its_own_main() -> None:
    files = {
        "main.xml": '<!DOCTYPE book [ <!ENTITY a SYSTEM "a.xml"> <!ENTITY b SYSTEM "b.xml"> ]>'
        "<book><title>B</title>&a;</book>",
        "a.xml": "<chapter id='a'><title>A</title><para>one</para></chapter>",
        "b.xml": "<chapter id='b'><title>Bee</title><para>two</para></chapter>",
    }
    out, included = batch(files)
    assert out == {
        "main.xml": [("a", "A", "# A\n\none")],
        "b.xml": [("b", "Bee", "# Bee\n\ntwo")],
    }
    assert included == {"a.xml"}


SYSTEMD_OPTIONS = """<?xml version="1.0"?>
<!DOCTYPE variablelist PUBLIC "-//OASIS//DTD DocBook XML V4.5//EN" "x.dtd">
<variablelist>
  <varlistentry id='help'><term><option>-h</option></term><term><option>--help</option></term>
    <listitem><para>Print a short help text and exit.</para></listitem></varlistentry>
  <varlistentry id='version'><term><option>--version</option></term>
    <listitem><para>Print a short version string and exit.</para></listitem></varlistentry>
</variablelist>
"""
SYSTEMD_PAGE = """<?xml version='1.0'?>
<!DOCTYPE refentry PUBLIC "-//OASIS//DTD DocBook XML V4.5//EN" "x.dtd" [
<!ENTITY % entities SYSTEM "custom-entities.ent" >
%entities;
]>
<refentry id="busctl" xmlns:xi="http://www.w3.org/2001/XInclude">
  <refentryinfo><title>busctl</title></refentryinfo>
  <refmeta><refentrytitle>busctl</refentrytitle><manvolnum>1</manvolnum></refmeta>
  <refnamediv><refname>busctl</refname><refpurpose>Introspect the bus</refpurpose></refnamediv>
  <refsynopsisdiv>
    <cmdsynopsis><command>busctl</command>
      <arg choice="opt" rep="repeat">OPTIONS</arg>
      <group choice="req"><arg>list</arg><arg>status</arg></group>
    </cmdsynopsis>
  </refsynopsisdiv>
  <refsect1><title>Options</title>
    <para>Lives in <filename>&bindir;/busctl</filename>.</para>
    <variablelist>
      <xi:include href="standard-options.xml" xpointer="help" />
      <xi:include href="standard-options.xml" xpointer="xpointer(id('version'))" />
    </variablelist>
  </refsect1>
  <refsect1><title>Example</title>
    <programlisting language="c"><xi:include href="example.c" parse="text" /></programlisting>
    <xi:include href="missing.xml" xpointer="x"><xi:fallback><para>Fell back.</para></xi:fallback></xi:include>
  </refsect1>
</refentry>
"""


def test_xinclude_with_xpointers() -> None:
    files = {
        "man/busctl.xml": SYSTEMD_PAGE,
        "man/standard-options.xml": SYSTEMD_OPTIONS,
        "man/custom-entities.ent": '<!ENTITY bindir "/usr/bin">\n',
        "man/example.c": "\n    int main(void) {\n        return 0;\n    }\n",
    }
    out, included = batch(files)
    assert list(out) == ["man/busctl.xml"]
    assert included == {"man/standard-options.xml", "man/custom-entities.ent", "man/example.c"}
    [(key, title, md)] = out["man/busctl.xml"]
    assert (key, title) == ("busctl", "busctl(1)")
    assert md == (
        "# busctl(1)\n\nbusctl — Introspect the bus\n\n"
        "## Synopsis\n\n```\nbusctl [OPTIONS...] {list | status}\n```\n\n"
        "## Options\n\nLives in `/usr/bin/busctl`.\n\n"
        "- `-h`, `--help`: Print a short help text and exit.\n"
        "- `--version`: Print a short version string and exit.\n\n"
        "## Example\n\n```c\nint main(void) {\n    return 0;\n}\n```\n\nFell back."
    )


def test_a_file_included_by_pieces_that_is_a_document_stays_main() -> None:
    other = (
        '<refentry id="a" xmlns:xi="http://www.w3.org/2001/XInclude"><refnamediv><refname>a'
        "</refname><refpurpose>A</refpurpose></refnamediv><refsect1><title>See</title>"
        '<xi:include href="b.xml" xpointer="bsect"/></refsect1></refentry>'
    )
    page = (
        '<refentry id="b"><refnamediv><refname>b</refname><refpurpose>B</refpurpose>'
        '</refnamediv><refsect1><title>T</title><para id="bsect">Shared.</para></refsect1>'
        "</refentry>"
    )
    out, included = batch({"a.xml": other, "b.xml": page})
    assert sorted(out) == ["a.xml", "b.xml"] and included == set()
    assert out["a.xml"][0][2] == "# a\n\na — A\n\n## See\n\nShared."


def test_docbook5_namespaces_and_article_splitting() -> None:
    text = """<?xml version="1.0" encoding="UTF-8"?>
<article xmlns="http://docbook.org/ns/docbook" xmlns:xlink="http://www.w3.org/1999/xlink"
 version="5.0" xml:id="art">
 <info><title>Art</title></info>
 <para>Lead, see <link xlink:href="https://example.org/x">the site</link>
  and <link xlink:href="https://example.org/y"/>.</para>
 <section xml:id="s1"><info><title>First</title></info>
  <para>One, then <link linkend="s2"/>.</para>
  <section><title>Inner</title><simplesect><title>Simple</title><para>In.</para></simplesect>
  </section>
 </section>
 <section xml:id="s2"><title>Second</title><para>Two.</para></section>
</article>"""
    assert documents(text) == [
        (
            "art",
            "Art",
            "# Art\n\nLead, see [the site](https://example.org/x) and https://example.org/y.",
        ),
        ("s1", "First", "# First\n\nOne, then Second.\n\n## Inner\n\n### Simple\n\nIn."),
        ("s2", "Second", "# Second\n\nTwo."),
    ]


def test_lists() -> None:
    inner = """
<itemizedlist><listitem><para>one</para></listitem>
 <listitem><para>two</para>
  <orderedlist><listitem><para>a</para></listitem><listitem><para>b</para></listitem>
  </orderedlist></listitem></itemizedlist>
<orderedlist startingnumber="3"><listitem><simpara>three</simpara></listitem></orderedlist>
<para>Inline: <simplelist type="inline"><member>x</member><member>y</member></simplelist>.</para>
<simplelist><member>m1</member><member>m2</member></simplelist>
<procedure><title>Steps</title><step><para>Do.</para></step>
 <step><para>Then.</para><substeps><step><para>Sub.</para></step></substeps></step></procedure>
"""
    assert body(inner) == (
        "- one\n\n- two\n\n  1. a\n  2. b\n\n"
        "3. three\n\n"
        "Inline: x, y.\n\n"
        "- m1\n- m2\n\n"
        "**Steps**\n\n1. Do.\n\n2. Then.\n\n   1. Sub."
    )


def test_code_blocks_and_synopses() -> None:
    inner = """<para>Run:
<programlisting>
    SELECT 1;
      -- indented
</programlisting>
and see <screen language="console"><prompt>$</prompt> <userinput>ls</userinput></screen></para>
<synopsis>int <function>f</function>(<replaceable>x</replaceable>)</synopsis>
<funcsynopsis><funcsynopsisinfo>#include &lt;a.h&gt;</funcsynopsisinfo>
 <funcprototype><funcdef>int <function>sd_x</function></funcdef>
  <paramdef>const char *<parameter>p</parameter></paramdef><varargs/></funcprototype>
 <funcprototype><funcdef>void <function>sd_y</function></funcdef><void/></funcprototype>
</funcsynopsis>
<programlisting><![CDATA[a < b && c]]></programlisting>
<literallayout>has ``` inside</literallayout>"""
    assert body(inner) == (
        "Run:\n\n```\nSELECT 1;\n  -- indented\n```\n\nand see\n\n```console\n$ ls\n```\n\n"
        "```\nint f(x)\n```\n\n"
        "```\n#include <a.h>\nint sd_x(const char *p, ...);\nvoid sd_y(void);\n```\n\n"
        "```\na < b && c\n```\n\n"
        "````\nhas ``` inside\n````"
    )


def test_tables() -> None:
    inner = """<table id="t1"><title>Numeric Types</title>
<tgroup cols="3"><colspec colname="c1"/><spanspec spanname="s" namest="c1" nameend="c2"/>
<thead><row><entry>Name</entry><entry>Size</entry><entry>Range</entry></row></thead>
<tbody>
 <row><entry><type>smallint</type></entry><entry>2 bytes</entry><entry>a | b</entry></row>
 <row><entry spanname="s"><para>two</para><para>paras</para></entry><entry>x</entry></row>
</tbody></tgroup></table>
<informaltable><tgroup cols="2"><tbody>
 <row><entry>k</entry><entry>v</entry></row>
 <row><entry>code</entry><entry><programlisting>a
b</programlisting></entry></row>
</tbody></tgroup></informaltable>
<segmentedlist><segtitle>Key</segtitle><segtitle>Value</segtitle>
 <seglistitem><seg>A</seg><seg>1</seg></seglistitem></segmentedlist>"""
    assert body(inner) == (
        "**Numeric Types**\n\n"
        "| Name | Size | Range |\n| --- | --- | --- |\n"
        "| `smallint` | 2 bytes | a \\| b |\n| two paras | x |  |\n\n"
        "| k | v |\n| --- | --- |\n| code | `a b` |\n\n"
        "| Key | Value |\n| --- | --- |\n| A | 1 |"
    )


def test_admonitions_examples_quotes_and_figures() -> None:
    inner = """<note><para>Mind the gap.</para><para>Twice.</para></note>
<warning><title>Danger zone</title><para>Hot.</para></warning>
<tip><programlisting>x</programlisting></tip>
<example><title>A Query</title><programlisting>SELECT 2;</programlisting></example>
<formalpara><title>Why</title><para>Because.</para></formalpara>
<blockquote><attribution>Knuth</attribution><para>Premature.</para></blockquote>
<figure><title>The Plan</title><mediaobject><imageobject><imagedata fileref="p.svg"/>
 </imageobject><textobject><phrase>boxes and arrows</phrase></textobject></mediaobject></figure>
<qandaset><qandaentry><question><para>Why?</para></question>
 <answer><para>So.</para></answer></qandaentry></qandaset>
<remark>todo</remark><comment>hidden</comment>"""
    assert body(inner) == (
        "Note: Mind the gap.\n\nTwice.\n\n"
        "Warning: **Danger zone** Hot.\n\n"
        "Tip:\n\n```\nx\n```\n\n"
        "**A Query**\n\n```\nSELECT 2;\n```\n\n"
        "**Why.** Because.\n\n"
        "> Premature.\n>\n> — Knuth\n\n"
        "**The Plan**\n\nboxes and arrows\n\n"
        "**Why?**\n\nSo."
    )


def test_inline_markup_and_cross_references() -> None:
    inner = """<sect1 id="s"><title>The <literal>x</literal> Setting</title>
<para>Use <command>ls</command> <option>-l</option><literal>x</literal>,
 <replaceable>file</replaceable>, <emphasis>very</emphasis>,
 <emphasis role="bold">bold</emphasis>, <quote>quoted</quote>,
 <function>f</function>, <acronym>SQL</acronym>, <productname>Pg</productname>,
 <citerefentry><refentrytitle>ls</refentrytitle><manvolnum>1</manvolnum></citerefentry>,
 <ulink url="https://x.org">X</ulink>, <xref linkend="guc-x"/>, <xref linkend="s"/>,
 <xref linkend="ent"/>, <xref linkend="nowhere"/>, <link linkend="s">here</link>,
 <keycombo><keycap>Ctrl</keycap><keycap>C</keycap></keycombo>,
 H<subscript>2</subscript>O<indexterm><primary>x</primary></indexterm>.<footnote>
 <para>A note.</para></footnote></para>
<variablelist><varlistentry id="guc-x" xreflabel="x_setting"><term><varname>x_setting</varname>
 (<type>integer</type>)</term><listitem><para>Sets x.</para></listitem></varlistentry>
 <varlistentry id="ent"><term>Plain term</term><listitem><para>Defined.</para></listitem>
 </varlistentry></variablelist>
</sect1>"""
    docs = documents(f'<chapter id="c"><title>C</title>{inner}</chapter>')
    assert docs == [
        (
            "s",
            "The x Setting",
            "# The x Setting\n\n"
            "Use `ls` `-l``x`, *file*, *very*, **bold**, “quoted”, `f`, SQL, Pg, `ls(1)`, "
            "[X](https://x.org), x_setting, The x Setting, Plain term, nowhere, here, "
            "`Ctrl`+`C`, H2O.[^1]\n\n"
            "- `x_setting` (`integer`): Sets x.\n- Plain term: Defined.\n\n"
            "[^1]: A note.",
        )
    ]


def test_entity_cycles_and_a_billion_laughs_are_capped() -> None:
    cycle = (
        '<!DOCTYPE chapter [ <!ENTITY a "x&b;"> <!ENTITY b "y&a;"> '
        '<!ENTITY % p SYSTEM "p.ent"> %p; ]>'
        "<chapter id='c'><title>T</title><para>&a; &self;</para></chapter>"
    )
    files = {
        "c.xml": cycle,
        "p.ent": '<!ENTITY self SYSTEM "c.xml"> <!ENTITY % p SYSTEM "p.ent"> %p;',
    }
    out, _ = batch(files)
    assert out["c.xml"] == [("c", "T", "# T\n\nxy&a; &self;")]

    lol = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{k} "{f"&lol{k - 1};" * 10}">' for k in range(1, 10)
    ]
    bomb = f"<!DOCTYPE chapter [ {' '.join(lol)} ]><chapter><title>B</title><para>&lol9;</para></chapter>"
    start = time.monotonic()
    assert batch({"bomb.xml": bomb}) == ({}, set())
    assert time.monotonic() - start < 5

    empty = ['<!ENTITY e0 "">'] + [f'<!ENTITY e{k} "{f"&e{k - 1};" * 20}">' for k in range(1, 30)]
    quiet = f"<!DOCTYPE chapter [ {' '.join(empty)} ]><chapter><title>Q</title><para>x&e29;</para></chapter>"
    assert documents(quiet) == [("", "Q", "# Q\n\nx")]


def test_files_that_do_not_parse_or_are_no_docbook_give_nothing() -> None:
    files = {
        "bad.xml": "<chapter><title>Broken</para></chapter>",
        "sgml.sgml": "<!DOCTYPE book PUBLIC '-//OASIS//DTD DocBook V4.1//EN'>\n<book><para>open",
        "pom.xml": "<project><name>x</name></project>",
        "svg.xml": '<svg xmlns="http://www.w3.org/2000/svg"><text>hi</text></svg>',
        "only.xml": "<!DOCTYPE variablelist PUBLIC '-//OASIS//DTD DocBook XML V4.5//EN' 'x'>"
        "<variablelist/>",
        "ok.xml": "<chapter id='ok'><title>Fine</title><para>Yes.</para></chapter>",
    }
    out, included = batch(files)
    assert out == {"ok.xml": [("ok", "Fine", "# Fine\n\nYes.")]}
    assert included == set()


def test_random_and_malformed_input_never_raises() -> None:
    for text in [
        "",
        "<",
        "<!DOCTYPE",
        "<!DOCTYPE book [",
        "<!DOCTYPE book [ <!ENTITY a SYSTEM '../../etc/passwd'> ]><book>&a;</book>",
        "<!DOCTYPE book [ <![IGNORE[ <!ENTITY a 'x'> ]]> ]><book><chapter><para>&a;</para></chapter></book>",
        "<chapter>" + "<para>" * 2000 + "deep" + "</para>" * 2000 + "</chapter>",
        "<chapter>" + "<emphasis>" * 900 + "deep" + "</emphasis>" * 900 + "</chapter>",
        "<refentry><refsynopsisdiv><cmdsynopsis><group/><arg/></cmdsynopsis></refsynopsisdiv></refentry>",
        "<book><xi:include href='book.xml'/></book>",
        "<chapter><para>a & b &#x41; &lt;x&gt;</para></chapter>",
    ]:
        batch({"book.xml": text})
    assert documents("<chapter><para>a & b &#x41; &lt;x&gt;</para></chapter>") == [
        ("", "Chapter", "# Chapter\n\na & b A <x>")
    ]
    [(_, _, md)] = documents(
        "<!DOCTYPE book [ <![IGNORE[ <!ENTITY a 'x'> ]]> ]><chapter><para>&a;</para></chapter>"
    )
    assert md == "# Chapter\n\n&a;"


def test_a_projects_man_folder_of_docbook_is_read_by_init_and_asked_its_options(
    tmp_path: Path,
) -> None:
    """systemd-style man pages kept as DocBook XML in man/: `jupiter init --source` adds
    *.xml, each page is a document, the shared options file is read where it is included,
    and each option is asked as an option of its page."""
    import random

    from apitree import write_tree
    from jupiter.collect import CollectResult
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry
    from jupiter.records import Chunk
    from jupiter.synth.questions import make_questions

    page_xml = (
        '<?xml version="1.0"?>\n<!DOCTYPE refentry PUBLIC "-//OASIS//DTD DocBook XML V4.5//EN"'
        ' "http://www.oasis-open.org/docbook/xml/4.5/docbookx.dtd">\n<refentry id="frobctl">'
        "<refmeta><refentrytitle>frobctl</refentrytitle><manvolnum>1</manvolnum></refmeta>"
        "<refnamediv><refname>frobctl</refname><refpurpose>Control the frob daemon</refpurpose>"
        "</refnamediv><refsect1><title>Options</title><variablelist><varlistentry><term>"
        "<option>--user</option></term><listitem><para>Talk to the frob daemon of the calling "
        "user, not the system's one.</para></listitem></varlistentry>"
        '<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="standard-options.xml" '
        'xpointer="help"/></variablelist></refsect1></refentry>\n'
    )
    options = (
        '<?xml version="1.0"?>\n<variablelist><varlistentry id="help"><term><option>-h'
        "</option></term><listitem><para>Print a short help text and exit.</para></listitem>"
        "</varlistentry></variablelist>\n"
    )
    write_tree(
        tmp_path / "frob",
        {"man/frobctl.xml": page_xml, "man/standard-options.xml": options, "README.md": "# frob\n"},
    )
    entry = source_entry(str(tmp_path / "frob"))
    assert "*.xml" in entry["include"]  # type: ignore[operator]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, rejects)}  # type: ignore[arg-type]
    (uri,) = [u for u in docs if u.endswith("#frobctl")]
    assert docs[uri].title == "frobctl(1)" and docs[uri].meta["format"] == "docbook"
    assert rejects.rejects.get("docbook_included") == 1
    d = docs[uri]
    chunk = Chunk(d.id, d.source, d.uri, d.title, 0, len(d.text), d.text)
    asked = {q.question: q.answer for q in make_questions(chunk, ["define"], 6, random.Random(0))}
    assert asked == {
        "Explain the `--user` option of `frobctl(1)`.": (
            "Talk to the frob daemon of the calling user, not the system's one."
        ),
        "Explain the `-h` option of `frobctl(1)`.": "Print a short help text and exit.",
    }
