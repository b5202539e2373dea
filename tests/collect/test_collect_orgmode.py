"""Org-mode read as the Markdown of the document its exporter makes: headings and what
they drop, keywords, drawers, blocks, lists, description lists and the Texinfo-flavoured
definitions, tables, inline markup, links, footnotes, macros and entities; a long file
split into its sections with their parts and titles; a source's files with their
#+INCLUDEs; and malformed or random text, which must never raise."""

from __future__ import annotations

import random
from pathlib import Path

from jupiter.collect.orgmode import (
    INCLUDED,
    INCLUDED_FIX,
    SUFFIXES,
    batch,
    documents,
    includes,
    takes,
    to_markdown,
)


def md(text: str) -> str:
    """The Markdown of a short file."""
    return to_markdown(text)[1]


def body(text: str) -> str:
    """The Markdown of `text` under a heading `* S` (that heading line dropped)."""
    got = md(f"* S\n{text}\n")
    assert got.startswith("# S")
    return got.removeprefix("# S").strip()


# ----------------------------------------------------------------------------- the shape
def test_the_public_shape() -> None:
    assert SUFFIXES == (".org",)
    assert INCLUDED == "orgmode_included"
    assert "INCLUDE" in INCLUDED_FIX
    assert takes("manual.org") and takes("README.ORG")
    assert not takes("org.txt") and not takes("x.organ")
    assert takes("magit.org.gz"[:-3])  # a caller strips .gz (local.format_name)


def test_includes_lists_include_and_setupfile_targets() -> None:
    text = '#+INCLUDE: "a.org::*H" :minlevel 2\n#+setupfile: setup.org\n#+include: b.el src elisp\n'
    assert includes(text) == ["a.org", "setup.org", "b.el"]


def test_a_short_file_is_one_document_titled_by_its_title() -> None:
    assert documents("#+TITLE: The Manual\n\nIntro.\n\n* One\nText.\n") == [
        ("", "The Manual", "# The Manual\n\nIntro.\n\n# One\n\nText.")
    ]


def test_without_a_title_the_only_top_level_heading_titles_it() -> None:
    assert documents("* Tool\nIt works.\n** Use\nRun it.\n") == [
        ("", "Tool", "# Tool\n\nIt works.\n\n## Use\n\nRun it.")
    ]
    assert documents("Some text.\n* A\nx\n* B\ny\n")[0][1] == ""  # the caller's file name


def test_an_empty_file_gives_nothing() -> None:
    assert documents("") == []
    assert documents("#+TITLE: T\n#+OPTIONS: toc:nil\n# a comment\n") == []


# ----------------------------------------------------------------------------- headings
def test_heading_levels_are_relative_to_the_highest() -> None:
    assert md("** A\nx\n*** B\ny\n** C\nz\n") == "# A\n\nx\n\n## B\n\ny\n\n# C\n\nz"
    assert md("* 1\n** 2\n*** 3\n**** 4\n***** 5\n****** 6\n******* 7\n").split("\n\n") == [
        "# 1", "## 2", "### 3", "#### 4", "##### 5", "###### 6", "###### 7",
    ]  # fmt: skip


def test_heading_keywords_priorities_cookies_and_tags_go() -> None:
    got = md("* TODO [#A] Write docs [1/3] :work:urgent:\nx\n* DONE Ship [50%]\ny\n")
    assert got == "# Write docs\n\nx\n\n# Ship\n\ny"
    assert md("#+TODO: WAIT | CANCELLED\n* WAIT Review\nx\n").startswith("# Review")


def test_comment_noexport_archive_and_copying_subtrees_are_dropped() -> None:
    text = (
        "* A\nkept\n* COMMENT B\ngone\n** under B\ngone\n* C :noexport:\ngone\n"
        "* D :ARCHIVE:\ngone\n* E\n:PROPERTIES:\n:COPYING: t\n:END:\nlicense\n* F\nkept too\n"
    )
    assert md(text) == "# A\n\nkept\n\n# F\n\nkept too"
    assert md("#+EXCLUDE_TAGS: secret\n* A :secret:\nx\n* B :noexport:\ny\n") == "# B\n\ny"


def test_planning_lines_and_property_drawers_go() -> None:
    text = (
        "SCHEDULED: <2024-01-01 Mon> DEADLINE: <2024-02-01 Thu>\n:PROPERTIES:\n:ID: x\n:END:\nText."
    )
    assert body(text) == "Text."


# ----------------------------------------------------------------------------- keywords, drawers
def test_settings_and_index_keywords_are_dropped() -> None:
    text = (
        "#+SUBTITLE: s\n#+AUTHOR: a\n#+date: d\n#+OPTIONS: toc:nil\n#+STARTUP: overview\n"
        "#+LANGUAGE: en\n#+TEXINFO_DIR_CATEGORY: Emacs\n#+EXPORT_FILE_NAME: x\n#+LINK: gh https://x\n"
        "#+attr_html: :width 100\n#+NAME: n\n#+INDEX: i\n#+cindex: c\n#+kindex: k\n#+vindex: v\n"
        "#+findex: f\n#+texinfo: @noindent\n#+html: <br>\n#+PROPERTY: header-args :eval never\n"
        "Text."
    )
    assert body(text) == "Text."


def test_a_caption_is_kept_as_a_line() -> None:
    assert body("#+CAPTION: Sizes of *things*\n| a |\n") == "Sizes of **things**\n\n| a |\n| --- |"


def test_drawers_other_than_properties_and_logbook_keep_their_text() -> None:
    text = ":LOGBOOK:\nCLOCK: [2024-01-01]\n:END:\n:PREAMBLE:\nShown.\n:END:\nAfter."
    assert body(text) == "Shown.\n\nAfter."
    assert body("#+OPTIONS: d:nil\n:NOTES:\nhidden\n:END:\nx") == "x"
    assert body('#+OPTIONS: d:("KEEP")\n:KEEP:\na\n:END:\n:OTHER:\nb\n:END:') == "a"
    assert body("#+OPTIONS: d:t\n:LOGBOOK:\nlog\n:END:") == "log"


def test_comment_lines_go_but_not_hashes_in_text() -> None:
    assert body("# a comment\nText #1 here.\n  # indented comment\n#") == "Text #1 here."


# ----------------------------------------------------------------------------- blocks
def test_src_blocks_are_fenced_with_their_language() -> None:
    text = "#+begin_src emacs-lisp -n :results silent\n  (setq x 1)\n    (y)\n#+end_src"
    assert body(text) == "```emacs-lisp\n(setq x 1)\n  (y)\n```"
    assert body("#+BEGIN_SRC sh\nls\n#+END_SRC") == "```sh\nls\n```"
    assert body("#+begin_src\nplain\n#+end_src") == "```\nplain\n```"


def test_src_block_escapes_exports_and_backticks() -> None:
    assert body("#+begin_src org\n,* not a heading\n,#+title: x\n#+end_src") == (
        "```org\n* not a heading\n#+title: x\n```"
    )
    assert body("#+begin_src sh :exports none\nsecret\n#+end_src\nx") == "x"
    assert body("#+begin_src md\n```\n#+end_src") == "````md\n```\n````"


def test_example_blocks_and_fixed_width_lines_are_fenced() -> None:
    assert body("#+begin_example -n\n$ make\nok\n#+end_example") == "```\n$ make\nok\n```"
    assert body("Run:\n: $ make\n:   ok\n:\n: done") == "Run:\n\n```\n$ make\n  ok\n\ndone\n```"
    assert body("#+RESULTS:\n: 42") == "```\n42\n```"


def test_quote_center_and_verse_blocks() -> None:
    assert body("#+begin_quote\nTo be\n/or not/.\n\nSecond.\n#+end_quote") == (
        "> To be\n> *or not*.\n>\n> Second."
    )
    assert body("#+begin_center\nMiddle\n#+end_center") == "Middle"
    assert body("#+begin_verse\nRoses\n   are red\n\nViolets\n#+end_verse") == (
        "Roses\nare red\n\nViolets"
    )


def test_comment_and_export_blocks() -> None:
    text = (
        "#+begin_comment\nhidden\n#+end_comment\n#+begin_export html\n<b>x</b>\n#+end_export\n"
        "#+begin_export markdown\n**raw**\n#+end_export\n#+begin_export md\n_also_\n#+end_export"
    )
    assert body(text) == "**raw**\n\n_also_"
    assert body("#+md: **line**\n#+latex: \\newpage\nx") == "**line**\n\nx"


def test_admonition_blocks_start_with_their_label() -> None:
    assert body("#+begin_note\nBe careful.\n#+end_note") == "Note: Be careful."
    assert body("#+begin_warning\n- a\n#+end_warning") == "Warning:\n\n- a"
    assert body("#+begin_tip\n/Use/ it.\n#+end_tip") == "Tip: *Use* it."


def test_other_special_blocks_keep_their_content() -> None:
    assert body("#+begin_sidebar\nAside.\n#+end_sidebar") == "Aside."
    assert body("#+begin_defun\nDoes it.\n#+end_defun") == "Does it."
    text = "#+attr_texinfo: :options org-babel-load-file file &optional compile\n#+begin_defun\nLoads it.\n#+end_defun"
    assert body(text) == "**Function:** `org-babel-load-file file &optional compile`\n\nLoads it."
    text = "#+attr_texinfo: :options Command org-agenda\n#+begin_deffn\nShows it.\n#+end_deffn"
    assert body(text) == "**Command:** `org-agenda`\n\nShows it."


def test_an_unterminated_block_is_text() -> None:
    assert body("#+begin_src python\nx = 1") == "x = 1"
    assert body("#+begin_quote\nq\n* T\n#+end_quote") == "q\n\n# T"  # a heading ends it


def test_horizontal_rules() -> None:
    assert body("a\n-----\nb\n----------") == "a\n\n---\n\nb\n\n---"


# ----------------------------------------------------------------------------- lists
def test_unordered_lists_and_nesting() -> None:
    assert body("- one\n+ two\n  * nested\n  * more\n- three\n  wrapped") == (
        "- one\n- two\n  - nested\n  - more\n- three\n  wrapped"
    )


def test_ordered_lists_number_from_their_start() -> None:
    assert body("1. a\n2) b\n5. c") == "1. a\n2. b\n3. c"
    assert body("3. a\n4. b") == "3. a\n4. b"
    assert body("1. a\n2. [@7] b\n3. c") == "1. a\n7. b\n8. c"


def test_checkboxes_are_kept_as_text() -> None:
    assert body("- [ ] todo\n- [X] done\n- [-] partly") == "- [ ] todo\n- [X] done\n- [-] partly"


def test_a_list_ends_at_two_blank_lines_or_an_outdented_line() -> None:
    assert body("- a\n\n\n  after") == "- a\n\nafter"
    assert body("- a\nnot in it") == "- a\n\nnot in it"
    assert body("- a\n\n  still a\n- b") == "- a\n\n  still a\n\n- b"


def test_blocks_inside_list_items() -> None:
    assert body("- Run:\n  #+begin_src sh\n  make\n  #+end_src\n- Done") == (
        "- Run:\n\n  ```sh\n  make\n  ```\n\n- Done"
    )


def test_description_lists_are_term_lines() -> None:
    assert body("- =--all= :: Show all.\n- ~-v~ :: Be verbose.\n  Very.") == (
        "- `--all`: Show all.\n- `-v`: Be verbose.\n  Very."
    )
    assert body("- Main themes :: Light and dark.") == "- Main themes: Light and dark."


def test_description_items_without_text_join_the_next() -> None:
    assert body("- =-n= ::\n- =--dry-run= :: Do nothing.") == "- `-n`, `--dry-run`: Do nothing."
    assert body("- =-x= ::") == "- `-x`"


def test_description_item_with_blocks_only() -> None:
    assert body("- term ::\n  #+begin_src sh\n  ls\n  #+end_src") == (
        "- term:\n\n  ```sh\n  ls\n  ```"
    )


def test_texinfo_definition_items_read_as_the_texinfo_reader_reads_deffn() -> None:
    text = (
        "- Command: magit-status ::\n\n  Show the status.\n\n  More.\n"
        "- User Option: magit-display-buffer-function ::\n  The function.\n"
        "- Function: magit-git-insert &rest args ::\n"
        "- Function: magit-git-string &rest args ::\n  Run git.\n"
        "- Variable: magit-this-process :: The process.\n"
        "- Macro: magit-with-toplevel &rest body :: Run BODY.\n"
        "- Special Form: when-let ::  Bind."
    )
    assert body(text) == (
        "**Command:** `magit-status`\n\nShow the status.\n\nMore.\n\n"
        "**User Option:** `magit-display-buffer-function`\n\nThe function.\n\n"
        "**Function:** `magit-git-insert &rest args`\n"
        "**Function:** `magit-git-string &rest args`\n\nRun git.\n\n"
        "**Variable:** `magit-this-process`\n\nThe process.\n\n"
        "**Macro:** `magit-with-toplevel &rest body`\n\nRun BODY.\n\n"
        "**Special Form:** `when-let`\n\nBind."
    )


def test_definition_categories_are_read_in_any_case() -> None:
    assert body("- user option: foo ::\n  Bar.") == "**User Option:** `foo`\n\nBar."
    assert body("- Function foo :: no colon, no definition") == (
        "- Function foo: no colon, no definition"
    )


def test_key_items_read_as_texinfo_table_items() -> None:
    text = (
        "- Key: C-x g (magit-status) ::\n  Show it.\n- Key: M-x magit-init ::\n  Init.\n"
        "#+attr_texinfo: :compact t\n- Key: C-g (transient-quit-seq) ::\n"
        "- Key: C-g (transient-quit-one) ::\n  Quit."
    )
    assert body(text) == (
        "- `C-x g` (`magit-status`): Show it.\n- `M-x magit-init`: Init.\n\n"
        "- `C-g` (`transient-quit-seq`), `C-g` (`transient-quit-one`): Quit."
    )


def test_a_definition_between_plain_items_splits_the_list() -> None:
    assert body("- a :: x\n- Command: foo ::\n  Does.\n- b :: y") == (
        "- a: x\n\n**Command:** `foo`\n\nDoes.\n\n- b: y"
    )


# ----------------------------------------------------------------------------- tables
def test_tables_take_their_header_from_the_first_rule() -> None:
    text = (
        "| Key | Command |\n|-----+---------|\n| =w= | ~copy~ |\n| a\\vert{}b | x |\n#+TBLFM: $2=$1"
    )
    assert body(text) == "| Key | Command |\n| --- | --- |\n| `w` | `copy` |\n| a\\|b | x |"


def test_a_table_without_a_rule_has_its_first_row_for_header() -> None:
    assert body("| 1 | 2 |\n| 3 | 4 |\n|---+---|\n| 5 |") == (
        "| 1 | 2 |\n| --- | --- |\n| 3 | 4 |\n| 5 |  |"
    )
    assert body("| 1 | 2 |\n| 3 | 4 |") == "| 1 | 2 |\n| --- | --- |\n| 3 | 4 |"
    assert body("| <5> | <l> |\n| a | b |") == "| a | b |\n| --- | --- |"


def test_table_el_tables_are_kept_as_written() -> None:
    assert body("+---+---+\n| a | b |\n+---+---+") == "```\n+---+---+\n| a | b |\n+---+---+\n```"


# ----------------------------------------------------------------------------- inline
def test_emphasis_markers() -> None:
    assert body("*bold* /italic/ _under_ +strike+ =verb= ~code~") == (
        "**bold** *italic* under ~~strike~~ `verb` `code`"
    )


def test_emphasis_follows_orgs_rules() -> None:
    assert body("a/b/c and 1*2*3 and snake_case_name") == "a/b/c and 1*2*3 and snake_case_name"
    assert body("x * not bold* and *not bold *") == "x * not bold* and *not bold *"
    assert body('(/it/), "*b*" -=v=- {~c~}') == '(*it*), "**b**" -`v`- {`c`}'
    assert body("*over\ntwo lines*") == "**over\ntwo lines**"
    assert body("*not\nover\nthree*") == "*not\nover\nthree*"
    assert body("=a*b*c= ~/usr/bin/~") == "`a*b*c` `/usr/bin/`"
    assert body("*bold with =code*= inside*") == "**bold with `code*` inside**"


def test_links() -> None:
    assert body("[[https://magit.vc][Magit]] and [[https://x.org/a]]") == (
        "[Magit](https://magit.vc) and <https://x.org/a>"
    )
    assert body("[[mailto:a@b.c][mail]] [[doi:10.1/x]]") == (
        "[mail](mailto:a@b.c) <https://doi.org/10.1/x>"
    )
    assert body("[[https://x.org][*bold* text]]") == "[**bold** text](https://x.org)"
    assert body("<https://x.org/y> and https://z.org/a_b_c/.") == (
        "<https://x.org/y> and https://z.org/a_b_c/."
    )


def test_internal_links_give_their_text() -> None:
    text = "* A\n:PROPERTIES:\n:CUSTOM_ID: sec-a\n:END:\nSee [[#sec-a]], [[#sec-a][that]], [[*A]], [[target]], [[#unknown]]."
    assert md(text) == "# A\n\nSee A, that, A, target, unknown."
    assert body(
        "[[info:emacs#Dired]], [[info:magit]], [[man:git-log]], [[file:x.org::*Use it]]"
    ) == ("Dired, magit, git-log, Use it")
    assert body("[[file:guide.org][the guide]] [[./doc/b.org]]") == "the guide b.org"


def test_links_naming_symbols_and_keys_are_code_spans() -> None:
    assert body("[[kbd:][SPC h d h]] [[var:doom-theme]] [[doom-package:vertico]] [[fn:f][F]]") == (
        "`SPC h d h` `doom-theme` `vertico` F"
    )


def test_image_links_and_badges_give_nothing() -> None:
    assert body(
        "A [[file:shot.png]] B [[https://ci/x][https://ci/badge.svg]] C [[./a.jpg][Fig]]"
    ) == ("A  B  C Fig")


def test_targets_and_radio_targets() -> None:
    assert body("<<anchor>>Text with <<<radio word>>> in it.") == "Text with radio word in it."
    assert body("x << y >> z") == "x << y >> z"


def test_footnotes_are_numbered_and_collected_at_the_end() -> None:
    text = "* A\nFirst[fn:z] and second[fn:1], again[fn:z], inline[fn:: An /inline/ note].\n\n[fn:1] One.\n\n[fn:z] Zed.\n"
    assert md(text) == (
        "# A\n\nFirst[^1] and second[^2], again[^1], inline[^3].\n\n"
        "[^1]: Zed.\n[^2]: One.\n[^3]: An *inline* note"
    )


def test_the_footnotes_section_is_no_section() -> None:
    text = "* A\nText[fn:1].\n* Footnotes\n[fn:1] The note.\n"
    assert md(text) == "# A\n\nText[^1].\n\n[^1]: The note."


def test_macros() -> None:
    text = (
        '#+TITLE: Doc\n#+AUTHOR: Ann\n#+MACRO: version 2.$1\n#+MACRO: year (eval (format-time-string "%Y"))\n'
        "#+MACRO: file @@texinfo:@file{@@$1@@texinfo:}@@\n"
        "{{{kbd(C-c C-c)}}} {{{kbd(C-c \\, x)}}} {{{version(4)}}} [{{{year}}}] {{{file(a.el)}}} "
        "{{{title}}} by {{{author}}} {{{unknown(a, b)}}} {{{n}}}{{{n}}} {{{input-file}}}"
    )
    assert documents(text, name="doc.org")[0][2] == (
        "# Doc\n\n`C-c C-c` `C-c , x` 2.4 [] `a.el` Doc by Ann a, b 12 doc.org"
    )


def test_entities_line_breaks_and_latex() -> None:
    assert body("\\alpha \\rarr \\nbsp{}x \\vert \\copy a\\-b") == "α → \u00a0x | © ab".replace(
        "\u00a0", " "
    )
    assert body("line one\\\\\nline two") == "line one\nline two"
    assert body("$a_1 + b_2$ and \\(x*y*z\\) and \\[ _u_ \\] \\frac{1}{2}") == (
        "$a_1 + b_2$ and \\(x*y*z\\) and \\[ _u_ \\] \\frac{1}{2}"
    )


def test_export_snippets_and_inline_source() -> None:
    assert body("a@@html:<br>@@b @@md:*m*@@ src_sh{ls -l} src_python[:exports code]{x=1}") == (
        "ab *m* `ls -l` `x=1`"
    )
    assert body("@@texinfo:@code{@@x@@texinfo:}@@") == "`x`"


def test_emacs_quotes_are_code_spans() -> None:
    assert body("Use `magit-status' or `(require 'x)` here.") == (
        "Use `magit-status` or `(require 'x)` here."
    )


# ----------------------------------------------------------------------------- splitting
_LONG = (
    "#+TITLE: Big Manual\n\nPreface text.\n\n"
    "* Introduction\nWhat it is.\n"
    "* Usage\n:PROPERTIES:\n:CUSTOM_ID: use\n:END:\nHow to use it.\n"
    "** Options\n" + "Option text. " * 10 + "\n"
    "** Commands [2/2]\nCommand text.\n*** Deep\nDeeper.\n"
    "* Reference\n** Options\nMore options.\n"
    "* Index\n:PROPERTIES:\n:INDEX: cp\n:END:\n"
)


def test_a_long_file_is_one_document_per_top_level_section() -> None:
    got = documents(_LONG, split_size=150)
    assert [(p, t) for p, t, _ in got] == [
        ("", "Big Manual"),
        ("introduction", "Introduction"),
        ("use", "Usage"),
        ("options", "Usage > Options"),
        ("commands", "Usage > Commands"),
        ("reference", "Reference"),
    ]
    parts = {p: m for p, _, m in got}
    assert parts[""] == "# Big Manual\n\nPreface text."
    assert parts["introduction"] == "# Introduction\n\nWhat it is."
    assert parts["use"] == "# Usage\n\nHow to use it."
    assert parts["commands"] == "## Commands\n\nCommand text.\n\n### Deep\n\nDeeper."
    assert parts["reference"] == "# Reference\n\n## Options\n\nMore options."


def test_split_parts_have_unique_names() -> None:
    got = documents(_LONG, split_size=30)
    assert [p for p, _, _ in got] == [
        "", "introduction", "use", "options", "commands", "options-2",
    ]  # fmt: skip
    assert got[-1][1] == "Reference > Options"  # "Reference" holds nothing but its heading


def test_a_short_file_is_not_split() -> None:
    got = documents(_LONG)
    assert len(got) == 1 and got[0][0] == "" and got[0][1] == "Big Manual"


def test_footnotes_follow_the_document_that_cites_them() -> None:
    text = "* A\nx[fn:1]\n* B\ny[fn:2] z[fn:1]\n\n[fn:1] One.\n[fn:2] Two.\n"
    got = documents(text, split_size=10)
    assert [m for _, _, m in got] == [
        "# A\n\nx[^1]\n\n[^1]: One.",
        "# B\n\ny[^1] z[^2]\n\n[^1]: Two.\n[^2]: One.",
    ]


# ----------------------------------------------------------------------------- includes
def _texts(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_includes_are_read_in_place(tmp_path: Path) -> None:
    (tmp_path / "doc").mkdir()
    (tmp_path / "doc" / "main.org").write_text(
        '#+TITLE: Main\n* Top\n#+INCLUDE: "part.org" :minlevel 2\n'
        '#+INCLUDE: "../code/init.el" src emacs-lisp\n#+INCLUDE: "part.org::*Second" :minlevel 3\n'
        '#+include: "lines.txt" example :lines "2-4"\n'  # Org's: lines 2 and 3
    )
    (tmp_path / "doc" / "part.org").write_text("#+TITLE: Ignored\n* First\nOne.\n* Second\nTwo.\n")
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "init.el").write_text("(require 'magit)\n* not a heading\n")
    (tmp_path / "doc" / "lines.txt").write_text("a\nb\nc\nd\n")
    docs, included = batch(_texts(tmp_path))
    assert included == {"doc/part.org"}
    assert list(docs) == ["doc/main.org"]
    assert docs["doc/main.org"] == [
        (
            "",
            "Main",
            "# Main\n\n# Top\n\n## First\n\nOne.\n\n## Second\n\nTwo.\n\n"
            "```emacs-lisp\n(require 'magit)\n* not a heading\n```\n\n"
            "### Second\n\nTwo.\n\n```\nb\nc\n```",
        )
    ]


def test_includes_stay_in_the_source_and_stop_at_cycles(tmp_path: Path) -> None:
    (tmp_path / "a.org").write_text(
        '* A\n#+INCLUDE: "b.org"\n#+INCLUDE: "/etc/passwd"\n#+INCLUDE: "../x.org"\n'
    )
    (tmp_path / "b.org").write_text('* B\n#+INCLUDE: "a.org"\nin b\n')
    docs, included = batch(_texts(tmp_path))
    assert included == {"b.org"}
    assert docs["a.org"][0][2] == "# A\n\n# B\n\nin b"


def test_includes_are_capped_in_depth(tmp_path: Path) -> None:
    for k in range(12):
        (tmp_path / f"f{k}.org").write_text(f'line {k}\n#+INCLUDE: "f{k + 1}.org"\n')
    docs, included = batch(_texts(tmp_path))
    assert docs["f0.org"][0][2] == "\n".join(f"line {k}" for k in range(9))
    # the file past the eighth level is read on its own (with what it includes)
    assert list(docs) == ["f0.org", "f9.org"]
    assert docs["f9.org"][0][2] == "line 9\nline 10\nline 11"
    assert included == {f"f{k}.org" for k in range(1, 12)} - {"f9.org"}


def test_a_setupfile_gives_its_settings(tmp_path: Path) -> None:
    (tmp_path / "setup.org").write_text("#+MACRO: ver 9.9\n#+TITLE: not mine\nNot text.\n")
    (tmp_path / "main.org").write_text("#+SETUPFILE: setup.org\nVersion {{{ver}}}.\n")
    docs, included = batch(_texts(tmp_path))
    assert included == {"setup.org"}
    assert docs["main.org"] == [("", "", "Version 9.9.")]


def test_a_file_with_nothing_to_read_is_listed_empty() -> None:
    docs, included = batch({"a.org": "#+TITLE: x\n", "notes.txt": "text"})
    assert docs == {"a.org": []} and included == set()


# ----------------------------------------------------------------------------- robustness
def test_random_fragments_never_raise() -> None:
    pieces = [
        "* ", "** H :t:", "#+begin_src sh", "#+end_src", "#+BEGIN_QUOTE", "#+end_example",
        ":PROPERTIES:", ":END:", ":LOGBOOK:", "[[", "]]", "[[a][b", "[fn:", "[fn::x", "]",
        "{{{kbd(", "}}}", "{{{m(a,b)}}}", "=x", "~", "*", "/", "_", "+", "- ", "1. ", "- a ::",
        "- Key: x (y) ::", "- Command: c ::", "| a |", "|---|", "+--+", ": ", "#", "#+INCLUDE: x",
        "#+MACRO: m $1 $2", "\\\\", "\\alpha", "\\(", "$", "<<", ">>", "<<<", "@@html:", "@@",
        "src_x{", "`a'", "\t", "  ", "\n", "\n\n", "text", "#+attr_texinfo: :options x",
        "#+begin_defun", "[fn:1] def", "#+TITLE: T", "#+begin_note", "#+end_note", "-----",
    ]  # fmt: skip
    rng = random.Random(7)
    for _ in range(400):
        text = "".join(
            rng.choice(pieces) + rng.choice(["", " ", "\n"]) for _ in range(rng.randint(1, 60))
        )
        for size in (20, 100_000):
            for part, title, markdown in documents(text, split_size=size):
                assert isinstance(part, str) and isinstance(title, str) and markdown.strip()
    deep = "- a\n" + "".join("  " * k + "- b\n" for k in range(200)) + "#+begin_quote\n" * 100
    assert documents(deep)


def test_a_folder_of_org_files_is_read_by_default_a_long_one_per_section(
    tmp_path: Path,
) -> None:
    """A local source with the default globs reads `.org` files: a short one a document, a
    long one a document per top-level section (`path#id`), an #+INCLUDEd file read where it
    is included and counted, not read alone."""
    from apitree import collect_tree
    from jupiter.config import LocalSource

    section = "Some words about this part of the manual, long enough to count. " * 70
    manual = "#+TITLE: The Tool Manual\n\nWhat the tool is.\n\n" + "".join(
        f"* Part {i}\n:PROPERTIES:\n:CUSTOM_ID: part-{i}\n:END:\n{section}\n\n" for i in range(6)
    )
    notes = '#+TITLE: Notes\n\n- =--all= :: Show every entry.\n\n#+INCLUDE: "shared.org"\n'
    tree = {"manual.org": manual, "notes.org": notes, "shared.org": "Shared words, *bold*.\n"}
    default = LocalSource.model_fields["include"].get_default(call_default_factory=True)
    assert "*.org" in default
    docs, rejects = collect_tree(tmp_path, tree, default)
    root = tmp_path / "project"
    assert sorted(docs) == [
        str(root / "manual.org"),
        *(f"{root / 'manual.org'}#part-{i}" for i in range(6)),
        str(root / "notes.org"),
    ]
    assert docs[f"{root / 'manual.org'}#part-2"].title == "Part 2"
    assert docs[str(root / "notes.org")].text.endswith("Shared words, **bold**.")
    assert "- `--all`: Show every entry." in docs[str(root / "notes.org")].text
    assert rejects.rejects == {"orgmode_included": 1}
