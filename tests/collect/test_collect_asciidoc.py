"""AsciiDoc read as the Markdown it renders to: a guide with attributes, conditionals, an
include, a source listing, a labeled list and a table; Git's manual pages, AsciiDoc in
`.txt` files; from a local folder and a git repository; and what the generator asks."""

from __future__ import annotations

import random
from pathlib import Path

from apitree import collect_tree, write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect.asciidoc import batch, is_asciidoc, resolve
from jupiter.records import Chunk
from jupiter.synth.questions import make_questions

GUIDE = """= Spool User Guide
:product: Spool
:version: 2.1
// a comment line: not rendered

{product} {version} keeps a queue of jobs on disk.
ifdef::backend-pdf[]
This line is only in the PDF.
endif::backend-pdf[]
ifndef::backend-pdf[]
See link:https://example.com/spool[the site] or <<config,the configuration>>.
endif::[]

== Installing

[source,shell]
----
pip install spool
spool init /var/spool
----

NOTE: The folder must be writable by the worker's user.

include::fragments/options.adoc[]

[[config]]
=== Configuration

|===
|Key |Meaning

|workers
|How many jobs run at once.
|===

include::../secret.txt[]
"""
OPTIONS = """-w <n>::
--workers=<n>::
\tHow many jobs run at once; the default is the number of CPUs.
+
Each worker is a process of its own.

--dry-run:: Print what would run, run nothing.
"""
GIT_PAGE = """spool-push(1)
=============

NAME
----
spool-push - Add a job to the queue

SYNOPSIS
--------
[verse]
'spool push' [--priority=<n>] <name>

DESCRIPTION
-----------
Adds a job named '<name>' at the end of the queue; see linkgit:spool-run[1]
for how jobs run.

OPTIONS
-------
--priority=<n>::
\tRun the job before the ones with a lower priority.

-q::
--quiet::
\tSay nothing.

--force::
\tAdd the job even when one of that name waits.
"""
NOTES = "Release notes\n\nThe queue is faster.\nIt ends here:: not a term.\n"
TREE = {
    "docs/guide.adoc": GUIDE,
    "docs/fragments/options.adoc": OPTIONS,
    "docs/spool-push.txt": GIT_PAGE,
    "docs/notes.txt": NOTES,
    "secret.txt": "a file outside the docs folder\n",
}
GUIDE_MD = """# Spool User Guide

Spool 2.1 keeps a queue of jobs on disk.
See the site or the configuration.

## Installing

```shell
pip install spool
spool init /var/spool
```

Note: The folder must be writable by the worker's user.

- `-w <n>`, `--workers=<n>`: How many jobs run at once; the default is the number of CPUs.

  Each worker is a process of its own.

- `--dry-run`: Print what would run, run nothing.

### Configuration

Key | Meaning
workers | How many jobs run at once."""


def test_a_guide_and_a_manual_page_read_as_markdown(tmp_path: Path) -> None:
    docs, rejects = collect_tree(tmp_path, TREE, ["*.adoc", "*.txt"], path="project/docs")
    by_name = {Path(uri).name: d for uri, d in docs.items()}
    # the included fragment is read inside the guide, not on its own; the include that
    # leaves the source's folder (project/docs) is not followed
    assert sorted(by_name) == ["guide.adoc", "notes.txt", "spool-push.txt"]
    assert rejects.rejects == {"asciidoc_included": 1}
    guide = by_name["guide.adoc"]
    assert (guide.title, guide.text) == ("Spool User Guide", GUIDE_MD)
    assert guide.meta["format"] == "asciidoc"
    page = by_name["spool-push.txt"]
    assert page.title == "spool-push(1)"
    assert page.text == (
        "# spool-push(1)\n\n## NAME\n\nspool-push - Add a job to the queue\n\n"
        "## SYNOPSIS\n\n```\n'spool push' [--priority=<n>] <name>\n```\n\n"
        "## DESCRIPTION\n\nAdds a job named <name> at the end of the queue; see spool-run(1)\n"
        "for how jobs run.\n\n## OPTIONS\n\n"
        "- `--priority=<n>`: Run the job before the ones with a lower priority.\n\n"
        "- `-q`, `--quiet`: Say nothing.\n\n"
        "- `--force`: Add the job even when one of that name waits."
    )
    # a plain .txt file is text, as before
    assert by_name["notes.txt"].text == NOTES and "format" not in by_name["notes.txt"].meta


def test_the_same_from_a_git_repository(tmp_path: Path) -> None:
    write_tree(tmp_path / "repo", {k: v for k, v in TREE.items() if k != "secret.txt"})
    sha = commit_all(tmp_path / "repo")
    result = collect_repo(tmp_path)  # git reads *.adoc and *.txt by default
    by_path = {d.meta["path"]: d for d in result.documents}
    assert sorted(by_path) == ["docs/guide.adoc", "docs/notes.txt", "docs/spool-push.txt"]
    assert result.rejects == {"asciidoc_included": 1}
    guide = by_path["docs/guide.adoc"]
    assert (guide.text, guide.meta["language"], guide.meta["commit"]) == (
        GUIDE_MD,
        "asciidoc",
        sha,
    )


def test_questions_about_a_labeled_list() -> None:
    """The generator reads the rendered options as definitions, each description whole."""
    docs, _ = batch({"spool-push.txt": GIT_PAGE})
    title, text = docs["spool-push.txt"]
    chunk = Chunk("c", "local", "/d/spool-push.txt", title, 0, len(text), text)
    got = {
        q.question: q.answer
        for q in make_questions(chunk, ["define"], 10, random.Random(0))
        if q.answer
    }
    answers = set(got.values())
    assert "Run the job before the ones with a lower priority." in answers
    assert "Add the job even when one of that name waits." in answers
    assert not any("::" in q or "linkgit" in a for q, a in got.items())


def test_what_is_asciidoc_and_where_an_include_may_lead() -> None:
    assert is_asciidoc("guide.adoc", "plain words")
    assert is_asciidoc("spool-push.txt", GIT_PAGE)
    assert not is_asciidoc("notes.txt", NOTES)
    markdown = "Title\n=====\n\nSome `code` and a [link](https://x).\n\n    indented code\n"
    assert not is_asciidoc("README.txt", markdown)
    assert resolve("fragments/a.adoc", "docs") == "docs/fragments/a.adoc"
    assert resolve("../a.adoc", "docs/sub") == "docs/a.adoc"
    assert resolve("../../a.adoc", "docs") is None  # out of the source
    assert resolve("https://example.com/a.adoc", "") is None
    assert resolve("/etc/passwd", "docs") is None
