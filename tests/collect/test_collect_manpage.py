"""Manual pages read as `man` prints them: a page's roff source (gzipped, as /usr/share/man
keeps it, and plain, as a project's doc/ folder does) rendered by the formatter on this
machine; a page that points to another counted; no formatter, a clear reason and fix."""

from __future__ import annotations

import gzip
import random
import shutil
from pathlib import Path

import pytest

from apitree import write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult, manpage
from jupiter.collect.local import collect_local
from jupiter.config import DomainConfig
from jupiter.config.cli import source_entry
from jupiter.records import Chunk
from jupiter.synth.questions import make_questions

PAGE = r""".\" spool's manual page
.de Sp \" a macro whose body is text
text inside a definition
..
.TH SPOOL 1 "2026-12-01" "spool 2.1" "User Commands"
.SH NAME
spool \- run jobs from a queue kept on disk
.SH SYNOPSIS
.B spool
[\fIOPTION\fR]... \fIQUEUE\fR
.SH DESCRIPTION
.B spool
runs the jobs of
.IR QUEUE ,
one worker per CPU unless told otherwise.
.SH OPTIONS
.TP
.BR \-w ", " \-\-workers =\fIN\fR
Run at most \fIN\fR jobs at the same time.
.TP
.B \-\-dry\-run
Print what would run, and run nothing.
"""
ALIAS = ".so man1/spool.1\n"
needs_groff = pytest.mark.skipif(
    shutil.which("groff") is None and shutil.which("mandoc") is None,
    reason="no roff formatter (groff, mandoc) on this machine",
)


def collect(root: Path) -> tuple[list, CollectResult]:
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "local", "path": str(root), "include": ["*.[1-9]"]}]}
    )
    rejects = CollectResult()
    return collect_local(cfg.sources[0], cfg, rejects), rejects  # type: ignore[arg-type]


@needs_groff
def test_a_page_is_read_as_man_prints_it(tmp_path: Path) -> None:
    root = tmp_path / "man"
    (root / "man1").mkdir(parents=True)
    (root / "man1" / "spool.1.gz").write_bytes(gzip.compress(PAGE.encode()))
    (root / "man1" / "spoold.1.gz").write_bytes(gzip.compress(ALIAS.encode()))
    (root / "notes.2").write_text("Not a page: plain notes that happen to end in .2\n")
    docs, rejects = collect(root)
    assert rejects.rejects == {"man_alias": 1}
    by_name = {Path(d.uri).name: d for d in docs}
    assert sorted(by_name) == ["notes.2", "spool.1.gz"]
    text = by_name["spool.1.gz"].text
    assert by_name["spool.1.gz"].meta["format"] == "man"
    # no request, escape or macro body left; the layout man prints: headings at the
    # margin, the text indented under them, an option's description deeper
    assert "\\f" not in text and ".TH" not in text and "text inside a definition" not in text
    lines = text.splitlines()
    assert "NAME" in lines and "OPTIONS" in lines
    assert "       spool - run jobs from a queue kept on disk" in lines
    assert any(x.startswith("       -w, --workers=N") for x in lines)
    assert "              Run at most N jobs at the same time." in lines
    assert by_name["notes.2"].text.startswith("Not a page")  # no roff: read as text


@needs_groff
def test_the_generator_asks_about_a_rendered_pages_options(tmp_path: Path) -> None:
    root = tmp_path / "man"
    write_tree(root, {"spool.1": PAGE})
    (doc,), _ = collect(root)
    chunk = Chunk(doc.id, doc.source, doc.uri, doc.title, 0, len(doc.text), doc.text)
    got = {q.answer for q in make_questions(chunk, ["define"], 10, random.Random(0)) if q.answer}
    assert "Print what would run, and run nothing." in got
    assert not any("\\f" in a or ".TP" in a for a in got)


@needs_groff
def test_a_projects_page_in_a_git_repository(tmp_path: Path) -> None:
    """git reads *.[1-9] by default: a project's doc/spool.1, rendered."""
    write_tree(tmp_path / "repo", {"doc/spool.1": PAGE, "README.md": "# Spool\n"})
    sha = commit_all(tmp_path / "repo")
    result = collect_repo(tmp_path)
    page = next(d for d in result.documents if d.meta["path"] == "doc/spool.1")
    assert (page.meta["language"], page.meta["commit"]) == ("man", sha)
    assert "              Print what would run, and run nothing." in page.text.splitlines()


def test_without_a_formatter_a_page_is_counted_with_its_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manpage.shutil, "which", lambda _name: None)
    write_tree(tmp_path / "man", {"spool.1": PAGE})
    docs, rejects = collect(tmp_path / "man")
    assert docs == [] and rejects.rejects == {"man_no_formatter": 1}
    assert "install one" in manpage.FIXES["man_no_formatter"]


def test_what_is_a_page() -> None:
    assert manpage.is_page_name("ls.1") and manpage.is_page_name("perl.3pm")
    assert not manpage.is_page_name("notes.txt") and not manpage.is_page_name("v1.10")
    assert manpage.is_roff(PAGE) and manpage.is_roff(ALIAS) and manpage.is_alias(ALIAS)
    assert not manpage.is_roff("Release notes\n.TH is mentioned in prose\n")
    assert not manpage.is_roff(".PP\nprose without a title request\n")
    assert manpage.strip_overstrike("N\bNA\bAM\bME\bE _\bx") == "NAME x"


def test_init_reads_a_folder_of_pages(tmp_path: Path) -> None:
    write_tree(tmp_path / "man", {"man1/spool.1": PAGE})
    entry = source_entry(str(tmp_path / "man"))
    assert {"*.[1-9]", "*.[1-9][a-z]*"} <= set(entry["include"])  # type: ignore[arg-type]
