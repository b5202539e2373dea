"""RDoc markup (*.rdoc), read as the Markdown it renders to (collect/rdocmarkup.py)."""

from __future__ import annotations

import random
from pathlib import Path

from jupiter.collect.local import collect_local
from jupiter.collect.rdocmarkup import read
from jupiter.config import DomainConfig
from jupiter.synth.docparse import parse

GUIDE = """\
:title: Spool Guide
:category: Guides

= Spool Command Line Usage

Spool is run from the command line using:

    % spool [options ...] [targets ...]

Options are:

[<tt>--dry-run</tt> (-n)]
    Do a dry run.  Print the jobs, but do not
    run any of them.

[<tt>--jobs</tt> _number_ (-j)]

    Runs at most _number_ jobs at once.

    Sample values:

      --jobs=1  : one job at a time

queue:: Where a job waits; see {the queue}[rdoc-ref:Spool::Queue] and Queue[https://example.org/q]
  ({above}[#label-Options]).
worker (Spool::Worker) ::
  Runs the jobs, one +Thread+ each.

== Notes

- A *bold* word, an _emphasized_ one, <b>bold</b>, <em>em</em>, \\+not+ code.
- An item spanning
  two lines.
  1. A nested numbered item.

>>>
  A quoted passage.

---
:stopdoc:
Hidden from the documentation.
:startdoc:
The end.
"""


def test_rdoc_markup_reads_as_the_markdown_it_renders_to() -> None:
    title, text = read(GUIDE)
    assert title == "Spool Guide"
    assert text == (
        "# Spool Command Line Usage\n\n"
        "Spool is run from the command line using:\n\n"
        "```\n% spool [options ...] [targets ...]\n```\n\n"
        "Options are:\n\n"
        "`--dry-run` (-n)\n  Do a dry run.  Print the jobs, but do not\n  run any of them.\n\n"
        "`--jobs` *number* (-j)\n  Runs at most *number* jobs at once.\n\n  Sample values:\n\n"
        "  ```\n  --jobs=1  : one job at a time\n  ```\n\n"
        "queue\n  Where a job waits; see the queue and Queue\n  (above).\n\n"
        "worker (Spool::Worker)\n  Runs the jobs, one `Thread` each.\n\n"
        "## Notes\n\n"
        "- A **bold** word, an *emphasized* one, **bold**, *em*, +not+ code.\n\n"
        "- An item spanning\n  two lines.\n\n  1. A nested numbered item.\n\n"
        "> A quoted passage.\n\n"
        "The end."
    )
    defs = {b.term: b.text for b in parse(text, title).blocks if b.kind == "definition"}
    assert defs["--dry-run, -n"] == "Do a dry run. Print the jobs, but do not run any of them."
    assert defs["--jobs number, -j"] == "Runs at most number jobs at once. Sample values:"
    assert defs["queue"] == "Where a job waits; see the queue and Queue (above)."


def test_a_title_is_the_first_heading_without_the_directive() -> None:
    assert read("== Usage\n\nText.\n")[0] == "Usage"
    # a backslash that keeps a name from becoming a link is no text
    assert read("Parses a \\String of \\CSV, not \\+code+.")[1] == (
        "Parses a String of CSV, not +code+."
    )
    assert read("Text only.\n") == ("", "Text only.")


def test_rdoc_files_are_read_from_a_folder_by_default(tmp_path: Path) -> None:
    root = tmp_path / "gem"
    (root / "doc").mkdir(parents=True)
    (root / "README.rdoc").write_text("= Spool\n\nRuns jobs from a queue.\n", encoding="utf-8")
    (root / "doc" / "usage.rdoc").write_text(GUIDE, encoding="utf-8")
    cfg = DomainConfig.model_validate({"name": "t", "sources": [{"type": "local", "path": "gem"}]})
    cfg.base_dir = tmp_path
    docs = {Path(d.uri).name: d for d in collect_local(cfg.sources[0], cfg)}
    assert sorted(docs) == ["README.rdoc", "usage.rdoc"]
    assert docs["README.rdoc"].title == "Spool" and docs["README.rdoc"].meta["suffix"] == ".rdoc"
    assert docs["usage.rdoc"].title == "Spool Guide"
    assert "`--dry-run` (-n)\n  Do a dry run." in docs["usage.rdoc"].text


def test_random_fragments_read_without_an_error() -> None:
    parts = [
        "= H", "== ", "[x]", "[a b] text", "w:: t", "::", "  code", "    deeper", ">>>", "---",
        "* item", "- item", "1. one", "a. letter", "+code+", "*b*", "_e_", "<tt>t", "</tt>",
        "{l}[rdoc-ref:X]", ":stopdoc:", ":startdoc:", ":title:", "", "\t", "text",
    ]  # fmt: skip
    rng = random.Random(5)
    for _ in range(400):
        lines = [" " * rng.randrange(0, 9) + rng.choice(parts) for _ in range(rng.randrange(1, 30))]
        title, text = read("\n".join(lines))
        assert isinstance(title, str) and isinstance(text, str)
    deep = "\n".join("  " * k + "- item" for k in range(200))
    assert read(deep)[1].count("item") == 200  # nesting past MAX_DEPTH reads as text
