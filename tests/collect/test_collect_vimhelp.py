"""Vim help files read as `:help` shows them: each tagged entry (a command, an option, a
function, a mapping) a document `vim:<tag>`, the rest of the file a page in Markdown; from a
folder and a git repository; `vim: text` reads them as text as before."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_tree, fuzzed, write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import vimhelp
from jupiter.records import Document

# a help file in Vim's layout, written for these tests (a plugin's: its own commands)
HELP = """*frob.txt*\tFor Vim version 9.0.  Last change: 2026 Dec 01


\t\t  FROB REFERENCE MANUAL    by A. Tester


Frobbing text                                           *frob* *frobbing*

This file describes the commands that frob text.  See |frob-options| for
the options.

1. Commands\t\t|frob-commands|
2. Options\t\t|frob-options|

==============================================================================
1. Commands\t\t\t\t\t\t*frob-commands*

\t\t\t\t\t\t\t*:fr* *:frob* *E9001*
:[range]fr[ob] [x]\tFrob [range] lines (default: current line) [into
\t\t\tregister x].  See |frob-details|.

:[range]fr[ob] [x] {count}
\t\t\tFrob {count} lines, starting with [range].

The frob commands can be undone with |u|.

\t\t\t\t\t\t\t*:FrobAll*
:FrobAll {pattern}\tFrob every line that matches {pattern}.
\t\t\tExample: >
\t\t\t\t:FrobAll /^x/
<\t\t\tThis frobs the lines that start with x.

:fmap\t{lhs} {rhs}\t\t|mapmode-n|\t\t*:fmap*
:fm[ap]!\t{lhs} {rhs}\t\t|mapmode-i|\t\t*:fmap!*
\t\t\tMap {lhs} to {rhs} while frobbing.

["x]zq\t\t\tQuick-frob [count] characters.\t*zq*

Frob table ~
\t\t\t\t\t\t*frob-table*
The frob table says which lines frob.  It cannot be changed.

==============================================================================
2. Options\t\t\t\t\t\t*frob-options*

\t\t\t\t\t\t*'frobwidth'* *'fw'*
'frobwidth' 'fw'\tnumber\t(default 8)
\t\t\tlocal to buffer
\t\t\t{not available when compiled without the |+frob|
\t\t\tfeature}
\tThe number of columns a frob takes.  Also see |:frob|.

\tA second paragraph about 'frobwidth'.

frobcount({expr} [, {max}])\t\t\t\t\t*frobcount()*
\t\tReturn the number of frobs in {expr}, at most {max}.
\t\tThe {max} argument defaults to 100.

 vim:tw=78:ts=8:noet:ft=help:norl:
"""


def _split(text: str = HELP, name: str = "frob.txt") -> dict[str, Document]:
    doc = Document("local", f"/p/doc/{name}", name, text, {"kind": "file", "suffix": ".txt"})
    return {d.uri: d for d in vimhelp.split(doc)}


def test_a_help_file_is_known_by_its_first_line_or_its_modeline() -> None:
    assert vimhelp.is_help(HELP)
    assert vimhelp.is_help("Some text\n\n vim:tw=78:ts=8:ft=help:norl:\n")
    assert not vimhelp.is_help("*emphasis* in a plain text file\nwith no modeline\n")
    assert not vimhelp.is_help("A README.txt\n\nvim: set ts=4:\n")


def test_each_entry_is_a_document_named_by_the_tag_its_syntax_spells() -> None:
    docs = _split()
    entries = sorted(u for u in docs if u.startswith("vim:"))
    assert entries == [
        "vim:'frobwidth'",
        "vim::FrobAll",
        "vim::fmap",
        "vim::frob",
        "vim:frobcount()",
        "vim:zq",
    ]
    frob = docs["vim::frob"]
    assert frob.title == ":frob"
    assert frob.meta["kind"] == "command" and frob.meta["language"] == "vim"
    assert frob.meta["tags"] == [":fr"]  # its other tags, error numbers left out
    assert frob.text == (
        ":[range]fr[ob] [x]\n\n"
        "Frob [range] lines (default: current line) [into\nregister x].  See `frob-details`.\n\n"
        "`:[range]fr[ob] [x] {count}`: Frob {count} lines, starting with [range]."
    )
    assert docs["vim:'frobwidth'"].meta["kind"] == "option"
    assert docs["vim:frobcount()"].meta["kind"] == "function"
    assert docs["vim:frobcount()"].meta["signature"] == "frobcount({expr} [, {max}])"


def test_an_options_type_default_and_scope_follow_its_first_paragraph() -> None:
    text = _split()["vim:'frobwidth'"].text
    assert text == (
        "'frobwidth' 'fw'\n\n"
        "The number of columns a frob takes.  Also see `:frob`.\n\n"
        "Type: number (default 8), local to buffer, {not available when compiled without the"
        " `+frob` feature}.\n\n"
        "A second paragraph about 'frobwidth'."
    )


def test_examples_are_fenced_and_the_text_after_their_end_kept() -> None:
    text = _split()["vim::FrobAll"].text
    assert text == (
        ":FrobAll {pattern}\n\n"
        "Frob every line that matches {pattern}.\nExample:\n\n"
        "```vim\n:FrobAll /^x/\n```\n\n"
        "This frobs the lines that start with x."
    )


def test_syntax_lines_sharing_a_description_are_one_entry_with_their_links_after() -> None:
    docs = _split()
    fmap = docs["vim::fmap"]
    assert fmap.text == (
        ":fmap {lhs} {rhs}\n:fm[ap]! {lhs} {rhs}\n\n"
        "Map {lhs} to {rhs} while frobbing.\n\n"
        "See also: `mapmode-n`, `mapmode-i`."
    )
    assert fmap.meta["tags"] == [":fmap!"]
    # a line of a table with its own description on it is an entry of its own
    assert docs["vim:zq"].text == '["x]zq\n\nQuick-frob [count] characters.'


def test_the_page_keeps_the_rest_with_sections_as_headings_and_no_tags() -> None:
    page = _split()["/p/doc/frob.txt"]
    assert page.meta["format"] == "vimhelp"
    text = page.text
    assert text.startswith("### Frobbing text\n\nThis file describes the commands that frob")
    assert "## Commands\n\nThe frob commands can be undone with `u`." in text
    assert "### Frob table\n\nThe frob table says which lines frob." in text
    assert "## Options" in text
    # the entries are not in it, nor the tags, the banner or the modeline
    for gone in ("Frob [range] lines", "Quick-frob", "*frob-table*", "MANUAL", "vim:tw"):
        assert gone not in text
    # the table of contents is a list, not headings
    assert "1. Commands             `frob-commands`\n2. Options" in text


def test_prose_under_a_tag_stays_in_the_page() -> None:
    text = HELP.replace(
        "Frob table ~\n",
        "\t\t\t\t\t\t*frob-why*\nIf a frob goes wrong, you can undo it with the\nusual"
        " command: >\n\t:undo\n<\nFrob table ~\n",
    )
    docs = _split(text)
    assert "vim:frob-why" not in docs
    assert (
        "If a frob goes wrong, you can undo it with the\nusual command:\n\n```vim\n:undo\n```"
        in (docs["/p/doc/frob.txt"].text)
    )


def test_questions_read_the_syntax_and_a_functions_arguments() -> None:
    docs = _split()
    asked = ask(docs["vim:frobcount()"])
    assert asked["signature"] == "`frobcount({expr} [, {max}])`"
    assert asked["arguments"] == (
        "`frobcount()` takes 2 arguments: {expr}, {max}.\n\n"
        "- {expr}: Return the number of frobs in {expr}, at most {max}.\n"
        "- {max}: The {max} argument defaults to 100."
    )
    assert asked["what_does"] == (
        "Return the number of frobs in {expr}, at most {max}. The {max} argument defaults to 100."
    )
    frob = ask(docs["vim::frob"])
    assert frob["signature"] == "`:[range]fr[ob] [x]`"
    assert "arguments" not in frob  # a command's syntax is no call
    assert frob["what_does"].startswith("Frob [range] lines (default: current line)")
    # an option is asked what it does, not its type
    assert ask(docs["vim:'frobwidth'"])["what_does"] == (
        "The number of columns a frob takes. Also see `:frob`."
    )


def test_a_folder_of_help_files_and_the_text_setting(tmp_path: Path) -> None:
    tree = {"doc/frob.txt": HELP, "notes.txt": "Plain notes, *not* help.\n"}
    docs, _ = collect_tree(tmp_path, tree, ["*.txt"])
    assert "vim::frob" in docs and "vim:'frobwidth'" in docs
    assert docs[str(tmp_path / "project" / "notes.txt")].text == "Plain notes, *not* help.\n"
    as_text, _ = collect_tree(tmp_path / "t", tree, ["*.txt"], vim="text")
    assert not [u for u in as_text if u.startswith("vim:")]
    assert as_text[str(tmp_path / "t" / "project" / "doc" / "frob.txt")].text == HELP


def test_a_git_repository_of_a_plugin(tmp_path: Path) -> None:
    write_tree(tmp_path / "repo", {"doc/frob.txt": HELP, "plugin/frob.vim": '" code\n'})
    commit_all(tmp_path / "repo")
    docs = {d.uri: d for d in collect_repo(tmp_path).documents}
    assert docs["vim::FrobAll"].meta["path"] == "doc/frob.txt"
    assert sum(u.startswith("vim:") for u in docs) == 6


def test_random_help_text_never_breaks_the_reader() -> None:
    pieces = [
        "*frob.txt*\n", "*tag*", " *t2* ", "|link|", ":cmd[and]", "\t", "\n", " >\n", "<",
        "'opt'", "\tnumber\t(default 1)\n", "{arg}", "Text here. ", "=" * 78 + "\n", "~\n",
        "fn({a})", "\n vim:ft=help:\n", "{not available\n", "[count]", "or\n",
    ]  # fmt: skip

    def read(text: str) -> list[Document]:
        return [
            d for d in vimhelp.split(Document("local", "x.txt", "x", text, {})) if d.uri != "x.txt"
        ]

    assert fuzzed(read, pieces, "vim:") > 100


def test_a_tagged_title_loses_its_underline() -> None:
    text = HELP.replace("Frob table ~\n", "Frob table\t\t\t*frob-t*\n----------\n")
    page = _split(text)["/p/doc/frob.txt"].text
    assert "### Frob table\n\nThe frob table says" in page
    assert "----------" not in page


# found on the held-back reading (Neovim's API, ALE's options, a key's table line)
NEOVIM_STYLE = """*api.txt*\tNeovim

nvim_set_current_buf({buffer})                        *nvim_set_current_buf()*
                Sets the current buffer, the one the next commands act on.

                Parameters: ~
                    {buffer}  Buffer handle, or 0 for the
                              current buffer

g:frob_options                                        *g:frob_options*
                                                      *b:frob_options*
  Type: |String|
  Default: `''`

  This variable can be set to pass additional options to frob.

<S-Left>\tor\t\t\t\t\t*<S-Left>* *b*
b\t\t\t[count] words backward.  |exclusive| motion.

\t\t\t\t\t\t\t*frob-example*
Frob the text this way: >
\tlet x = 1
\t\t\t\t\t\t\t*frob-after*
Text after the example.

 vim:tw=78:ts=8:ft=help:norl:
"""


def test_parameter_blocks_plugin_options_and_a_tag_line_ending_an_example() -> None:
    docs = _split(NEOVIM_STYLE, "api.txt")
    buf = docs["vim:nvim_set_current_buf()"]
    assert buf.text == (
        "nvim_set_current_buf({buffer})\n\n"
        "Sets the current buffer, the one the next commands act on.\n\n"
        "Parameters:\n{buffer}: Buffer handle, or 0 for the\n          current buffer"
    )
    assert ask(buf)["arguments"] == (
        "`nvim_set_current_buf()` takes 1 argument: {buffer}.\n\n"
        "- {buffer}: Buffer handle, or 0 for the current buffer"
    )
    opt = docs["vim:g:frob_options"]
    assert opt.meta["tags"] == ["b:frob_options"]
    assert opt.text == (
        "g:frob_options\n\n"
        "This variable can be set to pass additional options to frob.\n\n"
        "Type: `String`\nDefault: `''`"
    )
    assert docs["vim:<S-Left>"].text == (
        "<S-Left>\nb\n\n[count] words backward.  `exclusive` motion."
    )
    page = docs["/p/doc/api.txt"].text
    assert "```vim\nlet x = 1\n```\n\nText after the example." in page


def test_the_next_entrys_tags_stay_with_it() -> None:
    """A table of one-line entries, each under its own tag line (`v:t_bool`, `v:t_dict`):
    the tags over the second belong to it, not to the first (the first swallowed them, and
    the second entry was lost)."""
    text = (
        "*types.txt*\tTypes\n\n"
        "\t\t\t\t\t*v:t_bool* *t_bool-variable*\n"
        "v:t_bool\tValue of |Boolean| type.  Read-only.\n"
        "\t\t\t\t\t*v:t_dict* *t_dict-variable*\n"
        "v:t_dict\tValue of |Dictionary| type.  Read-only.\n"
    )
    docs = _split(text, "types.txt")
    assert docs["vim:v:t_bool"].meta["tags"] == ["t_bool-variable"]
    assert docs["vim:v:t_dict"].text == "v:t_dict\n\nValue of `Dictionary` type.  Read-only."


def test_a_variants_tag_over_a_blank_line_and_the_description() -> None:
    text = NEOVIM_STYLE.replace("*b:frob_options*\n  Type:", "*b:frob_options*\n\n  Type:")
    opt = _split(text, "api.txt")["vim:g:frob_options"]
    assert opt.meta["tags"] == ["b:frob_options"]
    assert opt.text.endswith("Type: `String`\nDefault: `''`")
