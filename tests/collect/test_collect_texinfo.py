"""Texinfo read as the Markdown of the manual it makes, one document per node: nodes,
titles and headings; comments, conditionals, flags and macros; the dropped commands;
code, quotes, lists, tables, multitables, floats and definitions; inline formatting,
cross references and characters; a source's files with their includes (in a subfolder,
settings from version.texi, in a cycle); and malformed or random text, which must never
raise."""

from __future__ import annotations

import random
from pathlib import Path

from apitree import write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.local import collect_local
from jupiter.collect.texinfo import (
    INCLUDED,
    INCLUDED_FIX,
    SUFFIXES,
    batch,
    includes,
    resolve,
    takes,
    to_nodes,
)
from jupiter.config import DomainConfig


def md(body: str) -> str:
    """The Markdown of one node holding `body` (its heading line dropped)."""
    nodes = to_nodes(f"@node Top\n@top T\n\n@node N\n@chapter C\n{body}\n")
    found = [m for name, _, m in nodes if name == "N"]
    if not found:
        return ""
    assert found[0].startswith("# C")
    return found[0].removeprefix("# C").strip()


def test_the_public_shape() -> None:
    assert SUFFIXES == (".texi", ".texinfo", ".txi")
    assert takes("doc/sed.texi") and takes("a.TEXINFO") and takes("b.txi")
    assert not takes("sed.info") and not takes("a.tex")
    assert INCLUDED == "texinfo_included" and "@include" in INCLUDED_FIX
    assert resolve("../v.texi", "doc/ch") == "doc/v.texi" and resolve("../../x", "d") is None
    assert resolve("http://x/y.texi", "") is None and resolve("@value{dir}/a.texi", "") is None
    text = "@include version.texi\n@c @include no.texi\n  @include ch/one.texi @c why\n"
    assert includes(text) == ["version.texi", "ch/one.texi"]


MANUAL = """\\input texinfo   @c -*-texinfo-*-
@setfilename spool.info
@settitle The Spool Manual
@titlepage
@title Spool
@end titlepage
@contents
Text before the first node is no document.

@node Top
@top Spool

Spool keeps a queue of jobs.

@menu
* Starting::   How to start.
@end menu

@node Starting, Options, Top, Top
@chapter Starting @command{spool}

Run it.

@node Options
@section Options and @var{args}

Two.

@heading A heading inside

Text under it.

@node Deeper
@subsection Deeper
Three.

@node Deepest
@subsubsection Deepest
Four.

@node Appendix
@appendix Extra
Five.

@node Menu Only
@unnumbered Menu Only

@menu
* Starting::
@end menu

@node Loose Node
No sectioning command here.

@node Index
@unnumbered Index
@printindex cp

@bye
Text after the end.
"""


def test_nodes_titles_and_headings() -> None:
    nodes = to_nodes(MANUAL)
    assert [(name, title) for name, title, _ in nodes] == [
        ("Top", "The Spool Manual"),
        ("Starting", "Starting spool"),
        ("Options", "Options and ARGS"),
        ("Deeper", "Deeper"),
        ("Deepest", "Deepest"),
        ("Appendix", "Extra"),
        ("Loose Node", "Loose Node"),
    ]
    text = {name: markdown for name, _, markdown in nodes}
    assert text["Top"] == "# Spool\n\nSpool keeps a queue of jobs."
    assert text["Starting"] == "# Starting `spool`\n\nRun it."
    assert text["Options"] == "## Options and ARGS\n\nTwo.\n\n## A heading inside\n\nText under it."
    assert text["Deeper"] == "### Deeper\n\nThree."
    assert text["Deepest"] == "#### Deepest\n\nFour."
    assert text["Appendix"] == "# Extra\n\nFive."
    assert text["Loose Node"] == "# Loose Node\n\nNo sectioning command here."
    everything = "".join(text.values())
    assert "before the first node" not in everything and "after the end" not in everything


def test_the_top_title_falls_back_to_top_and_a_file_without_nodes_is_one_document() -> None:
    assert to_nodes("@node Top\n@top The Top\n\nHello.\n")[0][:2] == ("Top", "The Top")
    assert to_nodes("@chapter Alone\nJust text.\n") == [("Top", "Alone", "# Alone\n\nJust text.")]
    assert to_nodes("@settitle Set\nJust text.\n") == [("Top", "Set", "# Set\n\nJust text.")]
    assert to_nodes("@set VERSION 1.0\n@set UPDATED 1 May 2020\n") == []
    assert to_nodes("") == [] and to_nodes("@c only a comment\n") == []


def test_comments_ignore_and_paragraphs() -> None:
    assert md("One @c a comment\n@comment another\ntwo\n\n\n\nThree   four.") == (
        "One two\n\nThree four."
    )
    assert (
        md("A\n@ignore\nhidden @code{x}\n@ignore\nnested\n@end ignore\nstill\n@end ignore\nB")
        == "A B"
    )
    assert md("@code{@@c} is no comment, nor @samp{@@comment}.") == (
        "`@c` is no comment, nor `@comment`."
    )


def test_output_format_conditionals() -> None:
    body = (
        "@ifinfo\nInfo.\n@end ifinfo\n@ifnottex\nNot TeX.\n@end ifnottex\n"
        "@iftex\nTeX.\n@end iftex\n@ifhtml\nHTML.\n@end ifhtml\n@ifnothtml\nNot HTML.\n"
        "@end ifnothtml\n@ifnotinfo\nNot info.\n@end ifnotinfo\n@ifplaintext\nPlain.\n"
        "@end ifplaintext\n@tex\n$x^2$\n@end tex\n@html\n<b>x</b>\n@end html\n"
        "@ifdocbook\nDocBook.\n@end ifdocbook\n@iflatex\nLaTeX.\n@end iflatex\n"
    )
    assert md(body) == "Info. Not TeX. Not HTML. Plain."


def test_flags_values_and_ifset() -> None:
    body = (
        "@set NAME Spool\n@set EMPTY\n@value{NAME} @value{EMPTY}x @value{UNSET}y.\n\n"
        "@ifset NAME\nset\n@ifclear EMPTY\nnot shown\n@end ifclear\n@end ifset\n"
        "@ifclear NAME\ncleared\n@end ifclear\n@clear NAME\n"
        "@ifset NAME\nnot shown either\n@end ifset\n@ifclear NAME\nnow cleared\n@end ifclear\n"
        "\n@set COMMAND @command{spool}\nRun @value{COMMAND}. Literal @@value@{NAME@}."
    )
    assert md(body) == "Spool x y.\n\nset now cleared\n\nRun `spool`. Literal @value{NAME}."


def test_macros_aliases_and_enclosures() -> None:
    body = (
        "@macro pair {first, second}\n(\\first\\ and \\second\\)\n@end macro\n"
        "@macro shout {word}\n@strong{\\word\\}\n@end macro\n"
        "@macro note\n@emph{Note:}\n@end macro\n"
        "@macro path {p}\n\\\\\\p\\\\\\\n@end macro\n"
        "@pair{a, b\\, c} @shout{loud} @note{} @note\n\n"
        "@shout rest of the line\n\n"
        "@pair{spread,\nover lines}\n\n"
        "@path{x}\n\n"
        "@alias cmd = command\n@cmd{ls} lists.\n\n"
        "@definfoenclose phoo,//,\\\\\n@phoo{bar}\n\n"
        "@unmacro note\n@note{} gone."
    )
    assert md(body) == (
        "(a and b, c) **loud** *Note:* *Note:*\n\n**rest of the line**\n\n"
        "(spread and over lines)\n\n\\x\\\n\n`ls` lists.\n\n//bar\\\\\n\ngone."
    )


def test_a_self_referential_macro_ends() -> None:
    assert md("@macro loop\nx@loop{}\n@end macro\n@loop{}") == "x" * 10
    # one that doubles at each level stops too, well within its budget
    got = md("@macro two\n@two{}@two{}\n@end macro\nA @two{} B")
    assert got == "A B"


def test_line_macros_command_conditionals_and_long_definition_lines() -> None:
    body = (
        "@linemacro pair {a, b}\n(\\a\\|\\b\\)\n@end linemacro\n"
        "@pair one {two words} three\n\n"
        # makeinfo sets txicommandconditionals and knows @codequotebacktick: no fallback
        "@ifclear txicommandconditionals\n@macro codequotebacktick\n@end macro\n@end ifclear\n"
        "@ifset txicommandconditionals\n@ifcommandnotdefined codequotebacktick\n"
        "@macro codequotebacktick\n@end macro\n@end ifcommandnotdefined\n@end ifset\n"
        "@ifcommanddefined frobnicate\nNo.\n@end ifcommanddefined\n"
        "@codequotebacktick on\nText.\n\n"
        "@deftypefn {Library Function} int open (const char *@var{path}, @\n"
        "    int @var{flags})\nOpens.\n@end deftypefn"
    )
    assert md(body) == (
        "(one|two words three)\n\nText.\n\n"
        "**Library Function:** `int` **`open`** `(const char *PATH, int FLAGS)`\n\nOpens."
    )


def test_inline_conditionals_and_verbatim_includes() -> None:
    def read(target: str, folder: str) -> tuple[str, str] | None:
        return ("raw @code{x} {\n", "") if target == "snippet.txt" else None

    text = (
        "@node N\n@set FAST\n@inlineifset{FAST, fast} @inlineifclear{FAST, slow} "
        "@inlinefmt{info, info text} @inlinefmt{html, <b>html</b>} "
        "@inlinefmtifelse{tex, TeX, not TeX} @inlineraw{html, <i>raw</i>}\n\n"
        "@verbatiminclude snippet.txt\n"
    )
    assert to_nodes(text, read)[0][2] == (
        "# N\n\nfast info text not TeX\n\n```\nraw @code{x} {\n```"
    )


def test_commands_that_go_with_their_lines() -> None:
    body = (
        "@cindex concept\n@findex fn\n@opindex --opt\n@vindex V\nKept @anchor{here}text.\n"
        "@kindex C-x\nsame paragraph.\n@noindent Text after noindent.\n\n@printindex cp\n"
        "@menu\n* Node::  desc\n@end menu\n@direntry\n* Spool: (spool).\n@end direntry\n"
        "@copying\nLicense.\n@end copying\n@insertcopying\n@contents\n@sp 2\n@page\n"
        "@setchapternewpage off\n@syncodeindex fn cp\n@codequoteundirected on\n"
        "@documentencoding UTF-8\n@exampleindent 0\n@unknowncommand with its line\n"
        "@image{figs/arch, 5in, , The architecture} @image{figs/plain}\n"
    )
    assert md(body) == ("Kept text. same paragraph. Text after noindent.\n\nThe architecture")


def test_code_blocks() -> None:
    body = (
        "@example\n    spool add @var{job} @dots{}\n      @{ nested @}  @@home\n"
        "    spool list --all @result{} 3\n@end example\n\n"
        "@example sh\n$ spool run\n@end example\n\n"
        '@lisp\n(spool-add "x")\n@end lisp\n\n'
        "@verbatim\n@code{kept} as { written }\n@end verbatim\n\n"
        "@smallexample\n@group\nline one\n\nline two\n@end group\n@end smallexample\n\n"
        "@format\n``quoted'' -- stays\n@end format\n\n"
        "@example\nsh ```fence```\n@end example\n\n@example\n\n@end example"
    )
    assert md(body) == (
        "```\nspool add JOB ...\n  { nested }  @home\nspool list --all ⇒ 3\n```\n\n"
        "```sh\n$ spool run\n```\n\n"
        '```lisp\n(spool-add "x")\n```\n\n'
        "```\n@code{kept} as { written }\n```\n\n"
        "```\nline one\n\nline two\n```\n\n"
        "```\n``quoted'' -- stays\n```\n\n"
        "````\nsh ```fence```\n````"
    )


def test_quotes_and_displays() -> None:
    body = (
        "@quotation Note\nKeep it\nshort.\n\nSecond.\n@end quotation\n\n"
        "@quotation\nPlain quote.\n@end quotation\n\n"
        "@display\nline one\nline @emph{two}\n@end display\n\n"
        "@cartouche\n@example\nboxed\n@end example\n@end cartouche"
    )
    assert md(body) == (
        "> **Note:** Keep it short.\n>\n> Second.\n\n> Plain quote.\n\n"
        "> line one\n> line *two*\n\n> ```\n> boxed\n> ```"
    )


def test_lists() -> None:
    body = (
        "@itemize @bullet\n@item First\nitem.\n@item Second\n@end itemize\n\n"
        "@itemize @minus\n@item\nOne.\n\nTwo paragraphs.\n@item\nNested:\n@enumerate 3\n"
        "@item three\n@item four\n@end enumerate\n@end itemize\n\n"
        "@enumerate a\n@item\nalpha\n@item beta\n@end enumerate\n\n"
        "@enumerate\n@item one\n@end enumerate"
    )
    assert md(body) == (
        "- First item.\n- Second\n\n"
        "- One.\n\n  Two paragraphs.\n\n- Nested:\n\n  3. three\n  4. four\n\n"
        "a. alpha\nb. beta\n\n1. one"
    )


def test_tables_of_terms() -> None:
    body = (
        "@table @code\n@item -n\n@itemx --quiet\n@opindex -n\nNo output.\n\n"
        "@item -e @var{script}\nAdd @var{script}.\n\nA second paragraph.\n"
        "@item --bare\n@end table\n\n"
        "@table @asis\n@item @code{x} and y\nAs is.\n@end table\n\n"
        "@vtable @env\n@item HOME\n@example\necho $HOME\n@end example\n@end vtable\n\n"
        "@ftable @samp\n@item p\nPrint.\n@end ftable"
    )
    assert md(body) == (
        "- `-n`, `--quiet`: No output.\n\n"
        "- `-e SCRIPT`: Add SCRIPT.\n\n  A second paragraph.\n\n- `--bare`\n\n"
        "- `x` and y: As is.\n\n"
        "- `HOME`:\n\n  ```\n  echo $HOME\n  ```\n\n"
        "- `p`: Print."
    )


def test_multitables() -> None:
    body = (
        "@multitable @columnfractions .3 .7\n@headitem Key @tab Meaning\n"
        "@item @code{a|b} @tab Either\n@item w\n@tab Workers\n@end multitable\n\n"
        "@multitable {xx} {yy}\n@item one @tab two\n@item three @tab four\n@end multitable\n\n"
        "@multitable @columnfractions .5 .5\n@headitem Pattern @tab Example\n"
        "@item plus\n@tab\n@example\na+b\n@end example\n@end multitable"
    )
    assert md(body) == (
        "| Key | Meaning |\n| --- | --- |\n| `a\\|b` | Either |\n| w | Workers |\n\n"
        "| one | two |\n| --- | --- |\n| three | four |\n\n"
        "- Pattern: plus\n\n  Example:\n\n  ```\n  a+b\n  ```"
    )


def test_floats() -> None:
    body = (
        "@float Table,tab:sizes\nSizes here.\n@caption{The @emph{sizes}.}\n@end float\n\n"
        "@float\nNo type.\n@caption{Untyped}\n@end float\n\n@float Figure\nNo caption.\n@end float"
    )
    assert md(body) == (
        "Sizes here.\n\nTable: The *sizes*.\n\nNo type.\n\nFigure: Untyped\n\nNo caption."
    )


def test_definitions() -> None:
    body = (
        "@deffn Command spool-add job @var{n}\n@deffnx {Interactive Command} spool-push job\n"
        "Adds a job.\n\nMore.\n@end deffn\n\n"
        "@defun spool-run &optional when\nRuns.\n@end defun\n\n"
        "@deftypefn {Library Function} int spool_open (const char *@var{path})\nOpens.\n"
        "@end deftypefn\n\n"
        "@defopt spool-dir\nWhere.\n@end defopt\n\n"
        "@defop Operation queue push item\nPushes.\n@end defop\n\n"
        "@deftypevar int spool_count\n@end deftypevar"
    )
    assert md(body) == (
        "**Command:** `spool-add job N`\n**Interactive Command:** `spool-push job`\n\n"
        "Adds a job.\n\nMore.\n\n"
        "**Function:** `spool-run &optional when`\n\nRuns.\n\n"
        "**Library Function:** `int` **`spool_open`** `(const char *PATH)`\n\nOpens.\n\n"
        "**User Option:** `spool-dir`\n\nWhere.\n\n"
        "**Operation on queue:** `push item`\n\nPushes.\n\n"
        "**Variable:** `int` **`spool_count`**"
    )


def test_inline_formatting() -> None:
    body = (
        "@code{a} @samp{b} @command{c} @option{-d} @env{E} @file{f.txt} @kbd{C-x} @key{RET} "
        "@t{t} @verb{|@x{}|} @code{sed -n @var{script}} @var{file} @emph{e} @i{i} @dfn{d} "
        "@cite{Book} @strong{s} @b{b} @sc{small} @r{roman} @w{no break} @emph{@emph{once}} "
        "@code{a`b} @code{`} @code{} @emph{} @acronym{GNU} @abbr{FSF, Free Software Foundation} "
        "@math{x^2} @samp{@code{inner}}"
    )
    assert md(body) == (
        "`a` `b` `c` `-d` `E` `f.txt` `C-x` `RET` `t` `@x{}` `sed -n SCRIPT` FILE *e* *i* *d* "
        "*Book* **s** **b** SMALL roman no break *once* ``a`b`` `` ` `` GNU "
        "FSF (Free Software Foundation) x^2 `inner`"
    )


def test_links_footnotes_and_cross_references() -> None:
    body = (
        "@url{https://a.example/} @uref{https://b.example/, the site} "
        "@uref{https://c.example/, , Shown} @email{me@@example.org} "
        "@email{me@@example.org, Me}\n\n"
        "Text@footnote{A note\nover lines.} ends.\n\n"
        "@xref{Options}. @xref{Options, , The Options}. See @ref{Options, entry}. "
        "Here (@pxref{Top}). @xref{Files,,, coreutils, The Coreutils Manual}. "
        "@pxref{Node,,, emacs}."
    )
    assert md(body) == (
        "<https://a.example/> the site (<https://b.example/>) Shown (<https://c.example/>) "
        "me@example.org Me (me@example.org)\n\n"
        "Text (A note over lines.) ends.\n\n"
        'See "Options". See "The Options". See "entry". Here (see "Top"). '
        'See "Files" in *The Coreutils Manual*. see "Node" in *emacs*.'
    )


def test_characters_dashes_and_quotes() -> None:
    body = (
        "@@ @{ @} @'e @\"o @~n @^a @`a @,{c} @'{E} @u{a} @v{c} @H{o} @dotless{i} @ss{} @l{} "
        "@o{} @ae{} @AE{} @oe{} @aa{} @exclamdown{} @questiondown{} @pounds{} @euro{}\n\n"
        "@dots{} @enddots{} @minus{} @result{} @expansion{} @print{} @error{} @equiv{} @point{} "
        "@bullet{} @copyright{} @registeredsymbol{} @TeX{} @LaTeX{} @today{}x @U{00E9} @tie{}.\n\n"
        "a---b a--b ``q'' @code{--x ``y''} Mr.@: A@. B@? C@! line@*break hy@-phen a@/b at@ space"
    )
    assert md(body) == (
        "@ { } é ö ñ â à ç É ă č ő ı ß ł ø æ Æ œ å ¡ ¿ £ €\n\n"
        "... .... - ⇒ ↦ -| error→ ≡ ∗ • © ® TeX LaTeX x é .\n\n"
        "a—b a–b \"q\" `--x ``y''` Mr. A. B? C! line\nbreak hyphen ab at space"
    )


def test_unknown_commands_and_blocks() -> None:
    body = (
        "@frobnicate{kept text} and @frob.\n\n@newblock\nBlock content.\n@end newblock\n\n"
        "@flushleft\nLeft.\n@end flushleft\n@center Centered @emph{title}\n@exdent Out."
    )
    assert md(body) == "kept text and .\n\nBlock content.\n\nLeft.\n\nCentered *title*\n\nOut."


def test_raise_and_lower_sections() -> None:
    text = (
        "@node Top\n@top T\n@node A\n@chapter A\nx\n@lowersections\n@node B\n@chapter B\ny\n"
        "@raisesections\n@node C\n@section C\nz\n"
    )
    assert [m.split("\n")[0] for _, _, m in to_nodes(text)] == ["# A", "## B", "## C"]


def test_malformed_input_does_not_raise() -> None:
    for text in [
        "@node N\n@example\nno end",
        "@node N\n@code{unclosed brace\n\nnext",
        "@node N\n@end example\n@end table\nText.",
        "@node N\ntrailing @",
        "@node N\n@",
        "@node N\n@table @code\n@itemx only\n",
        "@node N\n@multitable\n@tab x\n",
        "@node N\n@macro m {a\nbody\n",
        "@node N\n@m{",
        "@node N\n@ifset X\nnever closed",
        "@node N\n@xref{}",
        "@node N\n@verb{|open",
        "@node N\n@'",
        "@node N\n}}} @{ {{",
        "@node N\n@deffn\n@end deffn",
        "@node N\n@enumerate zz\n@item x\n@end enumerate",
        "@node\n@chapter\n",
        "@node N\n" + "@code{" * 500 + "x" + "}" * 500,
        "@node N\n" + "@quotation\n" * 500 + "deep",
        "@node N\n" + "@table @code\n@item x\n" * 500,
    ]:
        to_nodes(text)
    assert to_nodes("@node N\n@example\nno end") == [("N", "N", "# N\n\n```\nno end\n```")]
    assert to_nodes("@node N\n@code{unclosed brace\n\nnext")[0][2] == (
        "# N\n\n`unclosed brace`\n\nnext"
    )
    assert to_nodes("@node N\n@end example\n@end table\nText.")[0][2] == "# N\n\nText."
    assert to_nodes("@node N\ntrailing @")[0][2] == "# N\n\ntrailing"
    # a conditional that never ends drops its own line only, not the rest of the manual
    assert to_nodes("@node N\n@ifset X\nnever closed\n@node M\nShown.") == [
        ("N", "N", "# N\n\nnever closed"),
        ("M", "M", "# M\n\nShown."),
    ]
    # an example left open ends at the next node
    got = to_nodes("@node A\n@example\ncode\n@node B\nText.")
    assert got == [("A", "A", "# A\n\n```\ncode\n```"), ("B", "B", "# B\n\nText.")]
    assert "x" in to_nodes("@node N\n" + "@code{" * 500 + "x" + "}" * 500)[0][2]
    # blocks nested past 40 deep are read flat: their text stays
    assert to_nodes("@node N\n" + "@quotation\n" * 500 + "deep")[0][2].endswith("> deep")


def test_random_pieces_never_raise() -> None:
    pieces = [
        "@node A\n", "@node Top\n", "@chapter C\n", "@section S\n", "@example\n",
        "@end example\n", "@end ", "@table @code\n", "@end table\n", "@item x\n", "@itemx y\n",
        "@itemize @bullet\n", "@end itemize\n", "@enumerate a\n", "@end enumerate\n",
        "@multitable @columnfractions .5 .5\n", "@headitem h @tab i\n", "@tab",
        "@end multitable\n", "@code{", "}", "{", "@", "@@", "@{", "@}", "@var{", "@xref{", ",",
        "@footnote{", "@macro m {a}\n\\a\\ @m{x}\n@end macro\n", "@m{", "@m ",
        "@macro r\n@r{}@r{}\n@end macro\n", "@r{}", "@set F v\n", "@ifset F\n", "@ifclear F\n",
        "@end ifset\n", "@end ifclear\n", "@value{F}", "@ignore\n", "@end ignore\n",
        "@iftex\n", "@end iftex\n", "@verbatim\n", "@end verbatim\n", "@deffn Command foo bar\n",
        "@deffnx {User Option} baz\n", "@end deffn\n", "@quotation Note\n", "@end quotation\n",
        "@float Figure\n", "@caption{", "@end float\n", "@verb{|", "|}", "@'", "@,{", "@*",
        "\n", "\n\n", " ", "text", "--", "``", "''", "@c comment\n", "@include x.texi\n",
        "@bye", "@u", "@U{", "@dots", "@alias a = code\n", "@a{", "@definfoenclose e,<,>\n",
        "@e{", "@uref{", "@email{", "@image{", "@acronym{", "@raisesections\n",
        "@lowersections\n", "@heading H\n", "@display\n", "@end display\n", "@noindent",
        "@cindex x\n", "@menu\n", "@end menu\n", "@tab ", "\t",
    ]  # fmt: skip
    rng = random.Random(0)

    def read(target: str, folder: str) -> tuple[str, str] | None:
        return ("@include x.texi\n@node Inc\ntext @code{y}\n", "") if target == "x.texi" else None

    made = 0
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 60)))
        for name, title, markdown in to_nodes(text, read):
            assert isinstance(name, str) and isinstance(title, str) and markdown
            assert "\x02" not in markdown and "\x03" not in markdown
            made += 1
    assert made > 1000


MAIN = """\\input texinfo
@setfilename spool.info
@include version.texi
@settitle Spool @value{VERSION}
@include macros.texi

@node Top
@top Spool

This is version @value{VERSION}, updated @value{UPDATED}.
@ifset BETA
A beta.
@end ifset
@ifclear BETA
Not a beta.
@end ifclear

@include chapters/one.texi
@include chapters/two.texi
@bye
"""


def test_a_source_with_chapters_in_a_subfolder() -> None:
    docs, included = batch(
        {
            "doc/spool.texi": MAIN,
            "doc/version.texi": "@set UPDATED 2 May 2024\n@set VERSION 2.1\n@set BETA\n",
            "doc/macros.texi": "@macro tool\n@command{spool}\n@end macro\n",
            # "part.texi" is found next to the including file, "doc/chapters/two.texi"
            # from the root
            "doc/chapters/one.texi": "@node One\n@chapter One\n@tool{} runs.\n@include part.texi\n",
            "doc/chapters/part.texi": "@ifset BETA\nBeta part.\n@end ifset\n",
            "doc/chapters/two.texi": "@node Two\n@section Two\nSee @ref{One}.\n",
            "solo.texi": "@node Top\n@top Solo\nAlone.\n",
            "settings.texi": "@set ONLY settings\n@clear OTHER\n",
            "notes.txt": "not Texinfo",
        }
    )
    assert sorted(docs) == ["doc/spool.texi", "solo.texi"]
    assert docs["doc/spool.texi"] == [
        (
            "Top",
            "Spool 2.1",
            "# Spool\n\nThis is version 2.1, updated 2 May 2024. A beta.",
        ),
        ("One", "One", "# One\n\n`spool` runs. Beta part."),
        ("Two", "Two", '## Two\n\nSee "One".'),
    ]
    assert docs["solo.texi"] == [("Top", "Solo", "# Solo\n\nAlone.")]
    assert included == {
        "doc/version.texi",
        "doc/macros.texi",
        "doc/chapters/one.texi",
        "doc/chapters/part.texi",
        "doc/chapters/two.texi",
    }


def test_a_cycle_of_includes_is_read_once() -> None:
    docs, included = batch(
        {"a.texi": "@node A\nA text\n@include b.texi\n", "b.texi": "B text\n@include a.texi\n"}
    )
    assert docs == {"a.texi": [("A", "A", "# A\n\nA text B text")]}
    assert included == {"b.texi"}
    # includes are followed 8 levels deep, no deeper
    chain = {f"f{k}.texi": f"L{k}\n@include f{k + 1}.texi\n" for k in range(12)}
    chain["f0.texi"] = "@node Top\n@top Chain\n" + chain["f0.texi"]
    docs, _ = batch(chain)
    assert docs["f0.texi"][0][2] == "# Chain\n\n" + " ".join(f"L{k}" for k in range(9))


FROB_MANUAL = """\\input texinfo
@setfilename frob.info
@include version.texi
@settitle GNU Frob @value{VERSION}

@node Top
@top GNU Frob

This manual documents GNU Frob @value{VERSION}.

@menu
* Invoking::   How to run it.
@end menu

@include invoking.texi
@bye
"""
FROB_INVOKING = """@node Invoking
@chapter Invoking @command{frob}

@table @option
@item -n
@itemx --dry-run
Print what would be frobbed, and frob nothing.
@end table
"""


def test_a_folder_and_a_git_repository_read_texinfo_by_default(tmp_path: Path) -> None:
    tree = {
        "doc/frob.texi": FROB_MANUAL,
        "doc/version.texi": "@set VERSION 2.1\n",
        "doc/invoking.texi": FROB_INVOKING,
    }
    write_tree(tmp_path / "project", tree)
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "local", "path": "project"}]}
    )
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, rejects)}  # type: ignore[arg-type]
    main = str(tmp_path / "project" / "doc" / "frob.texi")
    assert sorted(docs) == [f"{main}#Invoking", f"{main}#Top"]
    invoking = docs[f"{main}#Invoking"]
    assert invoking.title == "Invoking frob" and invoking.meta["node"] == "Invoking"
    assert invoking.meta["format"] == "texinfo"
    assert invoking.text == (
        "# Invoking `frob`\n\n- `-n`, `--dry-run`: Print what would be frobbed, and frob nothing."
    )
    assert docs[f"{main}#Top"].text.endswith("This manual documents GNU Frob 2.1.")
    assert rejects.rejects == {INCLUDED: 2}
    write_tree(tmp_path / "repo", tree)
    commit_all(tmp_path / "repo")
    got = {d.uri.rsplit(":", 1)[-1]: d for d in collect_repo(tmp_path).documents}
    assert sorted(got) == ["doc/frob.texi#Invoking", "doc/frob.texi#Top"]
    assert got["doc/frob.texi#Invoking"].text == invoking.text
