"""LaTeX read as the Markdown a reader of its PDF would see: the preamble's title and
macros, sectioning, text and inline formatting, references and citations, math, lists,
verbatim code, floats and tables, theorems and quotes, beamer frames, unknown commands;
a source's files with their inputs (in a subfolder, by either resolution, in a cycle);
and malformed or random text, which must never raise."""

from __future__ import annotations

import random
from pathlib import Path

from apitree import write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.latex import (
    INCLUDED,
    INCLUDED_FIX,
    SUFFIXES,
    batch,
    includes,
    resolve,
    takes,
    to_markdown,
)
from jupiter.collect.local import collect_local
from jupiter.config import DomainConfig


def md(text: str) -> str:
    return to_markdown(text)[1]


def test_the_public_shape() -> None:
    assert SUFFIXES == (".tex", ".ltx")
    assert takes("paper/Main.TEX") and takes("a.ltx") and not takes("a.txt")
    assert INCLUDED == "latex_included" and "input" in INCLUDED_FIX
    assert resolve("../b", "ch") == "b" and resolve("../../x", "ch") is None
    assert resolve("http://x/y", "") is None and resolve("#1", "") is None
    # inputs in comments and verbatim text are not inputs
    text = "\\input{a}\n% \\input{b}\n\\verb|\\input{c}| \\include{d} \\subfile{e/f} \\input g"
    assert includes(text) == ["a", "d", "e/f", "g"]


def test_a_paper_with_a_preamble() -> None:
    title, text = to_markdown(
        "\\documentclass{article}\n\\usepackage{amsmath}\n\\title{A \\emph{Small} Study}\n"
        "\\author{Ann Author}\nPreamble text is not read.\n\\begin{document}\n\\maketitle\n"
        "\\begin{abstract}\nWe study\nthings.\n\\end{abstract}\n\\section{Intro}\nBody.\n"
        "\\end{document}\nAfter the end.\n"
    )
    assert title == "A Small Study"
    assert text == ("# A *Small* Study\n\n## Abstract\n\nWe study things.\n\n# Intro\n\nBody.")
    assert "Ann" not in text and "Preamble" not in text and "After" not in text


def test_the_title_falls_back_to_pdftitle_then_the_first_heading() -> None:
    assert to_markdown("\\section{First}\\section{Second}")[0] == "First"
    assert to_markdown("Just text.")[0] == ""
    doc = "\\hypersetup{pdftitle={The Manual}}\\begin{document}\\chapter*{Abstract}x\\end{document}"
    assert to_markdown(doc)[0] == "The Manual"


def test_sectioning_with_and_without_chapters() -> None:
    with_chapters = md(
        "\\part{P}\\chapter{C}\\section{S}\\subsection{Sub}\\subsubsection{SubSub}"
        "\\paragraph{Para} Lead.\\subparagraph{Subpara}"
    )
    assert with_chapters == (
        "# P\n\n# C\n\n## S\n\n### Sub\n\n#### SubSub\n\n##### Para\n\nLead.\n\n###### Subpara"
    )
    # without chapters sections start at the top; a star and a short title change nothing
    assert md("\\section*[Short]{Long Title}\\subsection{B}\\paragraph{C}") == (
        "# Long Title\n\n## B\n\n#### C"
    )


def test_text_specials_dashes_quotes_and_accents() -> None:
    assert md("a~b, c\\,d e\\@ f\\/g and x\\ y -- z --- w ``q'' `s'") == (
        "a b, c d e fg and x y – z — w \"q\" 's'"
    )
    assert md("\\% \\& \\$ \\# \\_ \\{ \\} \\textbackslash{}n \\ldots{} \\dots") == (
        "% & $ # _ { } \\n ... ..."
    )
    assert md("\\LaTeX{} and \\TeX{} rule") == "LaTeX and TeX rule"
    assert md('caf\\\'e na\\"ive \\~nandu {\\"u}ber \\c{c}a \\v{s} \\`a \\^o') == (
        "café naïve ñandu über ça š à ô"
    )
    # a line break is a new line; lines of the source are joined with spaces
    assert md("one\ntwo \\\\ three\\\\[2pt]four") == "one two\nthree\nfour"
    # no more than one blank line, and the output trimmed
    assert md("\n\n\na\n\n\n\n\nb\n\n") == "a\n\nb"


def test_inline_formatting() -> None:
    assert md(
        "\\emph{a} \\textit{b} {\\em c} {\\it d} \\textbf{e} {\\bf f} \\texttt{g\\_h} {\\tt i}"
    ) == ("*a* *b* *c* *d* **e** **f** `g_h` `i`")
    assert md("\\verb|j k| \\verb+x|y+ \\lstinline|l| \\lstinline{m{n}} \\code{o}") == (
        "`j k` `x|y` `l` `m{n}` `o`"
    )
    assert md(
        "\\underline{p} \\textsc{q} \\textrm{r} \\textsf{s} \\mbox{t} \\hbox{u} \\text{v}"
    ) == ("p q r s t u v")
    # a declaration reaches its group's end; code text keeps its dashes and has no marks
    assert md("{\\bf bold \\em both} plain \\texttt{--opt \\textbf{x}}") == (
        "**bold *both*** plain `--opt x`"
    )


def test_links_and_footnotes() -> None:
    assert md("See \\url{http://a.org/x_y%20z} or \\href{https://b.org}{the site}.") == (
        "See <http://a.org/x_y%20z> or the site (<https://b.org>)."
    )
    assert md("A word\\footnote{A \\emph{note} here.} ends.") == "A word (A *note* here.) ends."


def test_references_and_citations() -> None:
    text = md(
        "\\section{Introduction}\\label{sec:intro}\nSee Section~\\ref{sec:intro} and "
        "\\cref{sec:intro}.\n\\begin{figure}\\caption{Cap}\\label{fig:x}\\end{figure}\n"
        "\\begin{table}\\caption{T}\\label{tab:y}\\end{table}\n"
        "Figure~\\ref{fig:x} shows it, see Table~\\ref{tab:y}; compare Figures~\\ref{fig:x} "
        "and~\\ref{fig:x}. Unknown~\\ref{nope} here, on page~\\pageref{sec:intro}.\n"
        "Cited~\\cite{a,b}. Also \\citep[p.~3]{c}; \\citet{smith} said so.\n"
        "\\bibliographystyle{plain}\\bibliography{refs}\n"
        "\\begin{thebibliography}{9}\\bibitem{a} A book.\\end{thebibliography}"
    )
    assert text == (
        '# Introduction\n\nSee Section "Introduction" and "Introduction".\n\nFigure: Cap\n\n'
        "Table: T\n\nThe figure shows it, see the table; compare the figures. Unknown here, "
        "on. Cited. Also; smith said so."
    )


def test_math_inline_and_display() -> None:
    text = md(
        "Inline $a_1 + \\frac{b}{c}$ and \\(x^2\\) here.\n$$ E = mc^2 $$\n\\[ a \\]\n"
        "\\begin{align*}\n  x &= 1 \\label{eq:x} \\\\\n  y &= 2 % comment\n\\end{align*}\n"
        "\\begin{equation} e \\end{equation}\\begin{equation*} f \\end{equation*}"
        "\\begin{gather} g \\end{gather}\\begin{multline} m \\end{multline}"
        "\\begin{eqnarray} p \\end{eqnarray}\\begin{displaymath} q \\end{displaymath}"
        "\\begin{math} n \\end{math}"
    )
    blocks = text.split("\n\n")
    assert blocks[0] == "Inline $a_1 + \\frac{b}{c}$ and $x^2$ here."
    assert blocks[1:4] == ["$$\nE = mc^2\n$$", "$$\na\n$$", "$$\nx &= 1  \\\\\ny &= 2\n$$"]
    assert blocks[4:] == [f"$$\n{x}\n$$" for x in "efgmpqn"]
    # math is not text: its dashes, quotes and tildes stay
    assert md("$a -- b ~ c''$") == "$a -- b ~ c''$"


def test_user_macros() -> None:
    text = md(
        "\\documentclass{article}\n\\newcommand{\\tool}{Jupiter}\n"
        "\\newcommand{\\pair}[2]{(#1, #2)}\n\\newcommand{\\greet}[1][World]{Hello #1}\n"
        "\\def\\sig{--- Me}\n\\def\\wrap#1{[#1]}\n\\newcommand{\\R}{\\mathbb{R}}\n"
        "\\newcommand{\\norm}[1]{\\lVert #1 \\rVert}\n\\renewcommand{\\emph}[1]{XX#1}\n"
        "\\begin{document}\n\\tool{} is \\pair{a}{b}; \\greet, \\greet[You]. \\sig\\ \\wrap{w} "
        "\\emph{e} $x \\in \\R$, $\\norm{v}$, $\\R x$.\n\\end{document}"
    )
    assert text == (
        "Jupiter is (a, b); Hello World, Hello You. — Me [w] *e* $x \\in \\mathbb{R}$, "
        "$\\lVert v \\rVert$, $\\mathbb{R} x$."
    )
    # definitions in a chapter file (no document environment) are used as well
    assert md("\\newcommand{\\yo}[1]{Yo #1}\\yo{there}") == "Yo there"


def test_a_self_referential_macro_ends() -> None:
    assert md("\\newcommand{\\loop}{x\\loop}\\loop") == "x" * 10
    assert md("\\def\\a{\\a}\\a and \\def\\b#1{\\b{#1}}\\b{y}") == "and y"
    # a macro that doubles itself is cut off, not run for ever
    assert len(md("\\def\\a{\\a\\a\\a\\a\\a\\a\\a\\a\\a\\a}\\a")) == 0


def test_nested_braces_in_arguments() -> None:
    assert md("\\textbf{a {b {c}} d} \\emph{x \\textbf{y} z}") == "**a b c d** *x **y** z*"
    assert md("\\section{A {Nested} \\emph{Title}}") == "# A Nested *Title*"


def test_comments_and_dropped_regions() -> None:
    text = md(
        "% a comment line\nVisible % hidden\ntext, 50\\% done.\n\\iffalse\nHidden\n\\fi\n"
        "\\begin{comment}\nGone\n\\end{comment}\nKept \\verb|% in verb| and\n"
        "\\begin{verbatim}\n% in verbatim\n\\end{verbatim}\n\\iffalse no\\else yes\\fi"
    )
    assert text == (
        "Visible text, 50% done.\n\nKept `% in verb` and\n\n```\n% in verbatim\n```\n\nyes"
    )


def test_lists() -> None:
    text = md(
        "Intro:\n\\begin{itemize}\n\\item One\n\\item Two\n\\begin{itemize}\n\\item Deep\n"
        "\\begin{enumerate}\n\\item Deeper\n\\end{enumerate}\n\\end{itemize}\n\\item Three\n\n"
        "has two paragraphs.\n\\end{itemize}\n\\begin{enumerate}\n\\item A\n\\item B\n"
        "\\end{enumerate}\n\\begin{description}\n\\item[Term] Its text.\n"
        "\\item[\\texttt{-v}] Verbose.\n\\end{description}\nAfter."
    )
    assert text == (
        "Intro:\n\n- One\n- Two\n  - Deep\n    1. Deeper\n- Three\n\n  has two paragraphs."
        "\n\n1. A\n2. B\n\n- **Term**: Its text.\n- **`-v`**: Verbose.\n\nAfter."
    )


def test_code_blocks() -> None:
    text = md(
        "\\begin{verbatim}\n  x = 1 % not a comment\n    y\n\\end{verbatim}\n"
        "\\begin{lstlisting}[language={[Sharp]C}, caption={A \\emph{listing}}]\nint x;\n"
        "\\end{lstlisting}\n\\begin{minted}{Python}\nprint(1)\n\\end{minted}\n"
        "\\begin{Verbatim}[fontsize=\\small]\nV\n\\end{Verbatim}\n"
        "\\begin{alltt}\na \\textbf{b}\n\\end{alltt}\n\\begin{verbatim*}\ns\n\\end{verbatim*}\n"
        "Done. \\lstinputlisting[language=C]{file.c}"
    )
    assert text.split("\n\n") == [
        "```\n  x = 1 % not a comment\n    y\n```",
        "```c\nint x;\n```",
        "Listing: A *listing*",
        "```python\nprint(1)\n```",
        "```\nV\n```",
        "```\na \\textbf{b}\n```",
        "```\ns\n```",
        "Done.",
    ]
    # a fence longer than any in the code
    assert md("\\begin{verbatim}\n```\n\\end{verbatim}") == "````\n```\n````"


def test_floats_and_tables() -> None:
    text = md(
        "\\begin{table}[htb]\n\\centering\n\\caption{Results}\n\\begin{tabular}{|l|c|}\n"
        "\\toprule\nName & Value \\\\ \\midrule\n\\multicolumn{2}{c}{span} \\\\\n"
        "a \\& b & \\verb+x|y+ \\\\ \\cline{1-2}\n\\textbf{bold} & $1$ \\\\[2pt]\n\\hline\n"
        "\\bottomrule\n\\end{tabular}\n\\end{table}\n"
        "\\begin{figure*}[t]\n\\includegraphics[width=\\linewidth]{img.png}\n"
        "\\caption[short]{Long caption.}\n\\end{figure*}\n"
        "\\begin{wrapfigure}{r}{0.5\\textwidth}\\includegraphics{x}\\caption{Wrapped}"
        "\\end{wrapfigure}\nOutside:\n\\begin{tabular}{ll}\n1 & 2 \\\\\n3 & 4\n\\end{tabular}"
    )
    assert text == (
        "| Name | Value |\n| --- | --- |\n| span |  |\n| a & b | `x\\|y` |\n| **bold** | $1$ |"
        "\n\nTable: Results\n\nFigure: Long caption.\n\nFigure: Wrapped\n\nOutside:\n\n"
        "| 1 | 2 |\n| --- | --- |\n| 3 | 4 |"
    )


def test_theorems_and_quotes() -> None:
    text = md(
        "\\newtheorem{thm}{Theorem}[section]\n\\begin{thm}It holds.\\end{thm}\n"
        "\\begin{lemma}[Key]Also.\\end{lemma}\n\\begin{proof}Obvious.\\end{proof}\n"
        "\\begin{proof}[Proof of X]Done.\\end{proof}\n"
        "\\begin{quote}\nFirst line\nof quote.\n\nSecond.\n\\end{quote}\n"
        "\\begin{center}Centered\\end{center}\\begin{minipage}{5cm}Mini\\end{minipage}"
        "\\begin{unknownenv}Kept\\end{unknownenv}"
    )
    assert text == (
        "**Theorem.** It holds.\n\n**Lemma (Key).** Also.\n\n*Proof.* Obvious.\n\n"
        "*Proof of X.* Done.\n\n> First line of quote.\n>\n> Second.\n\nCentered\n\nMini\n\n"
        "Kept"
    )


def test_beamer_frames() -> None:
    title, text = to_markdown(
        "\\documentclass{beamer}\n\\title{Talk}\n\\begin{document}\n"
        "\\begin{frame}\\titlepage\\end{frame}\n\\section{Part A}\n"
        "\\begin{frame}[fragile]{Frame One}\n\\begin{itemize}[<+->]\n\\item<1-> First \\pause\n"
        "\\item<2-> Second\n\\end{itemize}\n\\only<1>{Shown once}\\only<2>{Then this}\n"
        "\\end{frame}\n\\begin{frame}\n\\frametitle{Frame Two}\n"
        "\\uncover<2>{Later} text. \\alt<2>{new}{old}.\n\\end{frame}\n\\end{document}"
    )
    assert title == "Talk"
    assert text == (
        "# Talk\n\n# Part A\n\n## Frame One\n\n- First\n- Second\n\nShown once Then this\n\n"
        "## Frame Two\n\nLater text. new."
    )


def test_unknown_and_layout_commands() -> None:
    text = md(
        "\\foo{kept} \\bar dropped \\baz[opt]{also}\\vspace{1cm}\\hspace*{2em}"
        "\\setlength{\\parindent}{0pt}\\addtolength{\\a}{1pt}\\noindent\\centering"
        "\\usepackage{x}\\pagestyle{empty}\\thispagestyle{plain}\\setcounter{page}{1}"
        "\\addcontentsline{toc}{section}{X}\\index{idx}\\glossary{g}\\hypersetup{colorlinks}"
        "\\graphicspath{{img/}}\\newtheorem{t}{T}\\theoremstyle{plain}\\tableofcontents"
        "\\listoffigures\\documentclass[a4]{book} \\textcolor{red}{Red}\\vskip 2em{} "
        "Text\\kern3pt{} after.\\newpage\\clearpage Next."
    )
    assert text == "kept dropped also Red Text after.\n\nNext."
    # an unknown environment keeps its content
    assert md("\\begin{myenv}inside\\end{myenv}") == "inside"


def test_new_environment_wraps_its_content() -> None:
    text = md(
        "\\newenvironment{warn}[1]{\\textbf{#1:} }{ (end)}\n"
        "\\begin{warn}{Careful}Hot stuff.\\end{warn}"
    )
    assert text == "**Careful:** Hot stuff. (end)"


def test_saved_boxes_escapes_in_listings_and_symbols() -> None:
    # a box is shown where it is used, not where it is filled
    text = md(
        "\\newsavebox{\\note}\\newenvironment{fixme}{\\begin{lrbox}{\\note}}"
        "{\\end{lrbox}\\textbf{FIXME:} \\usebox{\\note}}\n"
        "\\begin{fixme}Write this.\\end{fixme}\n\n\\vbox to 0pt{\\vss boxed}"
        " \\enquote{q} \\ding{51}"
    )
    assert text == '**FIXME:** Write this.\n\nboxed "q" ✓'
    # LaTeX between a listing's escape characters is read
    assert md("\\begin{lstlisting}[escapechar=@]\na\n@\\vdots@\n\\end{lstlisting}") == (
        "```\na\n⋮\n```"
    )
    # a font declaration styles each paragraph of its group; a line that would read as a
    # heading is escaped
    assert md("{\\tt one\\\\ two\n\nthree}\n\n\\# not a heading") == (
        "`one`\n`two`\n\n`three`\n\n\\# not a heading"
    )


def test_malformed_input_does_not_raise() -> None:
    for text in [
        "Unbalanced {brace and \\textbf{bold",
        "\\begin{itemize}\\item unterminated",
        "$x + y",
        "\\[ z",
        "\\verb|open",
        "\\begin{verbatim}\nno end",
        "\\begin{equation} e",
        "trailing \\",
        "}}} \\end{itemize} ]]]",
        "\\section{",
        "\\item[ open",
        "\\begin{tabular}{ll} a & b \\\\",
        "\\newcommand{\\x}[3]{#1#2#3}\\x",
        "\\def\\y",
        "#1 ## & ^ _",
    ]:
        to_markdown(text)
    assert md("trailing \\") == "trailing"
    assert md("\\verb|open") == "`open`"
    assert md("$x + y") == "$x + y"
    assert md("\\begin{itemize}\\item unterminated") == "- unterminated"
    # an option that never closes is no option: the text after it stays
    assert md("\\item[ open\n\nNext") == "- [ open\n\nNext"


def test_deep_nesting_is_read_flat() -> None:
    assert md("\\textbf{" * 500 + "x" + "}" * 500).strip("*") == "x"
    assert "- a" in md("\\begin{itemize}\\item a" * 300)


def test_random_pieces_never_raise() -> None:
    pieces = [
        "\\begin{itemize}", "\\end{itemize}", "\\item", "\\item[x]", "{", "}", "[", "]", "$",
        "$$", "\\(", "\\)", "\\[", "\\]", "%", "\\%", "\\", "\\\\", "&", "~", "#", "#1", "^",
        "_", "\n", "\n\n", " ", "text", "\\section{A}", "\\label{a}", "\\ref{a}", "\\cite{b}",
        "\\emph", "\\textbf{", "{\\bf ", "\\verb|", "|", "\\begin{verbatim}", "\\end{verbatim}",
        "\\begin{tabular}{ll}", "\\end{tabular}", "\\newcommand{\\x}[1]{#1\\x}", "\\x{",
        "\\def\\y{\\y\\y}", "\\y", "\\begin{document}", "\\end{document}", "\\begin{figure}",
        "\\caption{", "\\end{figure}", "\\iffalse", "\\fi", "\\begin{equation}",
        "\\end{equation}", "\\footnote{", "\\href{", "\\url{", "\\'", "\\input{a}",
        "\\begin{frame}", "\\frametitle{", "\\only<2>", "\\multicolumn{2}{c}{", "\\begin{quote}",
        "\\begin{lstlisting}[language=C]", "\\end{lstlisting}", "\\lstinline", "\\begin{proof}",
        "\\newenvironment{e}{\\begin{e}}{\\end{e}}", "\\begin{e}", "\\end{e}", "\\title{",
        "\\maketitle", "--", "``", "\\makeatletter", "\\begin{comment}", "\\tt", "\\kill",
    ]  # fmt: skip
    rng = random.Random(0)

    def read(target: str, folder: str) -> tuple[str, str] | None:
        return ("\\input{a} inside \\section{S}", "") if target == "a" else None

    made = 0
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 60)))
        title, markdown = to_markdown(text, read)
        assert isinstance(title, str) and "\x00" not in markdown and "\x01" not in markdown
        made += bool(markdown)
    assert made > 1000


MAIN = """\\documentclass{book}
\\input{macros}
\\title{The Book}
\\begin{document}
\\maketitle
\\include{chapters/one}
\\input{chapters/two.tex}
\\end{document}
"""


def test_a_source_with_chapters_in_a_subfolder() -> None:
    docs, included = batch(
        {
            "main.tex": MAIN,
            "macros.tex": "\\newcommand{\\tool}{Jupiter}",
            # "part" is found next to the including file, "chapters/three" from the root
            "chapters/one.tex": "\\chapter{One}\\label{ch:one}\n\\tool{} text. \\input{part}",
            "chapters/part.tex": "Part text, see Chapter~\\ref{ch:two}.",
            "chapters/two.tex": "\\chapter{Two}\\label{ch:two}\n\\input{chapters/three}",
            "chapters/three.tex": "Three, after Chapter~\\ref{ch:one}.",
            "solo.tex": "\\section{Solo}Alone.",
            "preamble.tex": "\\documentclass{article}\\usepackage{x}\\newcommand{\\y}{z}",
            "notes.txt": "not LaTeX",
        }
    )
    assert sorted(docs) == ["main.tex", "solo.tex"]
    assert docs["main.tex"] == (
        "The Book",
        '# The Book\n\n# One\n\nJupiter text. Part text, see Chapter "Two".\n\n# Two\n\n'
        'Three, after Chapter "One".',
    )
    assert docs["solo.tex"] == ("Solo", "# Solo\n\nAlone.")
    assert included == {
        "macros.tex",
        "chapters/one.tex",
        "chapters/part.tex",
        "chapters/two.tex",
        "chapters/three.tex",
    }


def test_a_cycle_of_inputs_is_read_once() -> None:
    docs, included = batch({"a.tex": "A text \\input{b}", "b.tex": "B text \\input{a}"})
    assert docs == {"a.tex": ("", "A text B text")}
    assert included == {"b.tex"}
    # inputs are followed 8 levels deep, no deeper
    chain = {f"f{k}.tex": f"L{k} \\input{{f{k + 1}}}" for k in range(12)}
    docs, _ = batch(chain)
    assert docs["f0.tex"][1] == " ".join(f"L{k}" for k in range(9))


def test_a_subfile_gives_its_body() -> None:
    docs, included = batch(
        {
            "main.tex": "\\begin{document}Start. \\subfile{sec/a}\\end{document}",
            "sec/a.tex": "\\documentclass[../main.tex]{subfiles}\n\\begin{document}\n"
            "Sub body.\n\\end{document}",
        }
    )
    assert docs == {"main.tex": ("", "Start. Sub body.")}
    assert included == {"sec/a.tex"}


def test_a_folder_and_a_git_repository_read_latex_by_default(tmp_path: Path) -> None:
    tree = {
        "paper/main.tex": MAIN,
        "paper/macros.tex": "\\newcommand{\\tool}{Jupiter}",
        "paper/chapters/one.tex": "\\chapter{One}\\label{ch:one}\n\\tool{} text.",
        "paper/chapters/two.tex": "\\chapter{Two}\\label{ch:two}\nSee Chapter~\\ref{ch:one}.",
    }
    write_tree(tmp_path / "project", tree)
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "local", "path": "project"}]}
    )
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, rejects)}  # type: ignore[arg-type]
    main = docs[str(tmp_path / "project" / "paper" / "main.tex")]
    assert main.title == "The Book" and main.meta["format"] == "latex"
    assert main.text.startswith("# The Book\n\n# One\n\nJupiter text.")
    assert 'See Chapter "One".' in main.text
    assert len(docs) == 1 and rejects.rejects == {INCLUDED: 3}
    write_tree(tmp_path / "repo", tree)
    commit_all(tmp_path / "repo")
    got = {d.uri.rsplit(":", 1)[-1]: d for d in collect_repo(tmp_path).documents}
    assert list(got) == ["paper/main.tex"] and got["paper/main.tex"].meta["language"] == "latex"
    assert got["paper/main.tex"].text == main.text
