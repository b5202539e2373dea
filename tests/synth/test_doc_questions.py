"""Questions from documentation that is not docstrings: a Markdown doc set, a
reStructuredText doc set, a manual page rendered to text and an HTML page. Every answer is
quoted from its source: the span it carries, cleaned of markup, contains it."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from jupiter.collect.chunking import chunk_document
from jupiter.collect.local import read_document
from jupiter.collect.markdown import page_title
from jupiter.config import Chunking, GeneratorConfig
from jupiter.records import Chunk, Document
from jupiter.synth.docparse import Block, clean, fence_lines, parse, starts_in_code, subject_of
from jupiter.synth.extractive import ExtractiveGenerator
from jupiter.synth.headings import heading_form, in_sentence, name_words, proper_names
from jupiter.synth.questions import (
    PHRASES,
    ChunkStart,
    Question,
    chunk_starts,
    iter_questions,
    make_questions,
    with_starts,
)

DOC_TEMPLATES = ["explain_topic", "define", "example", "cloze"]

MARKDOWN = {
    "queue.md": """# Queue

The `taskq` queue stores jobs on disk so that a crash never loses work.

## Configuration

Settings go in `taskq.toml` beside the project; every key has a default.

- `workers`: how many jobs run at the same time, one process each.
- `retries`: how many times a failed job is started again before it is dropped.
- **Dead letter box**: the folder where jobs that failed every retry are kept.

| Key | Meaning |
| --- | ------- |
| `timeout` | Seconds a job may run before the worker stops it. |

## Enqueueing

A job is a function name and its arguments. To add one from the shell, run:

```sh
taskq push resize --width 640 photo.png
```

The `push` command prints the job id, which `taskq status` accepts.
""",
    "workers.md": """# Workers

Workers take jobs from the `taskq` queue in the order they were pushed.

## Shutdown

On SIGTERM a worker finishes its current job and then exits with status 0.
A second SIGTERM stops the job at once; the job goes back to the queue.
""",
}

RST = {
    "add_job.rst": """add_job
-------

Add a job to the queue so a worker runs it.

.. code-block:: text

  add_job(<name> [PRIORITY <n>] [AFTER <job>...])

The options are:

``PRIORITY``
  .. versionadded:: 2.1

  Run the job before every job of a lower priority. The default priority
  is 0, and negative numbers are allowed.

``AFTER``
  Start the job only when all the named jobs have finished.

See :command:`remove_job` to take a job back out of the queue before it runs.
""",
    "glossary.rst": """Glossary
========

backoff
  The waiting time between two attempts of a failed job, doubled after every
  failure up to one hour.

dead letter box
  The folder that keeps the jobs that failed every attempt, for a person to inspect.
""",
}

MAN = """TASKQ(1)                      User Commands                     TASKQ(1)

NAME
       taskq - run jobs from a durable queue

SYNOPSIS
       taskq [OPTION]... COMMAND [ARG]...

DESCRIPTION
       Run  jobs  from a queue kept on disk, so that jobs survive a crash of
       the machine.  Jobs run in the order they were pushed.

       -w, --workers=N
              run N jobs at the same time instead of one per processor

       -q, --quiet
              print nothing but errors

       --dry-run
              show which jobs would run, and run none of them

       -v     print every job as it starts and ends

EXIT STATUS
       0 if every job succeeded, 1 if a job failed, 2 for a usage error.

SEE ALSO
       cron(8)
"""

HTML = """<!DOCTYPE html><html><head><title>Retries | taskq manual</title></head><body>
<nav>Home</nav>
<h1>Retries</h1>
<p>A failed job is started again after a <code>backoff</code> delay that doubles each time.</p>
<h2>Options</h2>
<dl><dt><code>--max-retries</code></dt>
<dd>How many times a failed job is started again before it goes to the dead letter box.</dd>
</dl>
</body></html>
"""


def _norm(text: str) -> str:
    return " ".join(text.split())


def doc_chunks(tmp_path: Path, files: dict[str, str]) -> list[Chunk]:
    out: list[Chunk] = []
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text)
        doc = read_document(path)
        assert doc is not None
        out += chunk_document(doc, Chunking(max_chars=1500, overlap=150, heldout_fraction=0.0))
    return out


def questions(
    chunks: list[Chunk], starts: dict[str, ChunkStart] | None = None
) -> list[tuple[Chunk, Question]]:
    """The answered questions of each chunk, read where `starts` says it starts."""
    at = starts or {}
    return [
        (c, q)
        for c in chunks
        for q in make_questions(c, DOC_TEMPLATES, 20, random.Random(0), None, at.get(c.id))
        if q.answer
    ]


def assert_quoted(pairs: list[tuple[Chunk, Question]]) -> None:
    """Every answer carries a span of its chunk, and the span says what the answer says."""
    for c, q in pairs:
        assert q.span is not None, q
        a, b = q.span
        assert 0 <= a < b <= len(c.text), q
        assert _norm(clean(q.answer or "")) in clean(c.text[a:b]), (q, c.text[a:b])


def definitions(blocks: list[Block]) -> list[tuple[str, str | None, str]]:
    """(term, kind, description) of each definition a parse found."""
    return [(b.term, b.def_kind, b.text) for b in blocks if b.kind == "definition"]


def by_question(pairs: list[tuple[Chunk, Question]]) -> dict[str, str]:
    return {q.question: q.answer or "" for _, q in pairs}


def test_markdown_doc_set(tmp_path: Path) -> None:
    pairs = questions(doc_chunks(tmp_path, MARKDOWN))
    assert_quoted(pairs)
    assert {q.template for _, q in pairs} == set(DOC_TEMPLATES)
    qa = by_question(pairs)
    workers = [a for q, a in qa.items() if "`workers`" in q and "queue" in q]
    assert workers == ["how many jobs run at the same time, one process each."]
    timeout = [a for q, a in qa.items() if "`timeout`" in q]
    assert timeout == ["Seconds a job may run before the worker stops it."]
    dead = [a for q, a in qa.items() if "Dead letter box" in q]
    assert dead == ["the folder where jobs that failed every retry are kept."]
    example = [a for q, a in qa.items() if "example" in q.lower()]
    assert example == [
        "A job is a function name and its arguments. To add one from the shell, run:\n\n"
        "```sh\ntaskq push resize --width 640 photo.png\n```"
    ]
    cloze = [(c, q) for c, q in pairs if q.template == "cloze"]
    assert len(cloze) == 3  # at most 2 a chunk; the first code term of a sentence
    for c, q in cloze:
        # the blank filled with the answer is the sentence of the source
        sentence = re.split(r"\): |: |\) ", q.question.split("____")[0])[-1] + "____"
        sentence += q.question.split("____")[1]
        assert sentence.replace("____", q.answer or "") in clean(c.text)
    assert {q.answer for _, q in cloze} == {"`taskq`", "`taskq.toml`"}
    # a section named by a plain word is asked of its document ("the shutdown of ...")
    shutdown = [(q, a) for q, a in qa.items() if "shutdown" in q.lower()]
    assert len(shutdown) == 1 and shutdown[0][1].startswith("On SIGTERM a worker finishes")
    assert re.search(r"shutdown of \w+\.$|\w+ say about its shutdown\?$", shutdown[0][0])


def test_rst_doc_set(tmp_path: Path) -> None:
    pairs = questions(doc_chunks(tmp_path, RST))
    assert_quoted(pairs)
    qa = by_question(pairs)
    priority = [a for q, a in qa.items() if "`PRIORITY`" in q]
    # the versionadded directive is not part of the answer; the role is cleaned
    assert priority == [
        "Run the job before every job of a lower priority. The default priority is 0, "
        "and negative numbers are allowed."
    ]
    assert any("`add_job`" in q for q in qa if "`AFTER`" in q)
    backoff = [a for q, a in qa.items() if "backoff" in q and "____" not in q]
    assert backoff == [
        "The waiting time between two attempts of a failed job, doubled after every failure "
        "up to one hour."
    ]
    assert any("dead letter box" in q for q in qa)
    intro = [q for q, a in qa.items() if a.startswith("Add a job to the queue so a worker")]
    assert len(intro) == 1 and "add_job" in intro[0]
    cloze = [a for q, a in qa.items() if "____" in q]
    assert cloze == ["`remove_job`"]


def test_man_page_text(tmp_path: Path) -> None:
    chunks = doc_chunks(tmp_path, {"taskq.1.txt": MAN})
    assert parse(chunks[0].text, chunks[0].title).subject == "taskq"
    pairs = questions(chunks)
    assert_quoted(pairs)
    qa = by_question(pairs)
    options = {q: a for q, a in qa.items() if "option" in q or "pass" in q or " for in " in q}
    assert len(options) == 4, options
    workers = [a for q, a in qa.items() if "`-w, --workers=N`" in q]
    assert workers == ["run N jobs at the same time instead of one per processor"]
    assert all("`taskq`" in q for q in options)
    verbose = [a for q, a in qa.items() if "`-v`" in q]
    assert verbose == ["print every job as it starts and ends"]
    about = [
        a
        for q, a in qa.items()
        if q
        in (
            "What is `taskq`?",
            "What does `taskq` do?",
            "What is `taskq` for?",
            "Describe `taskq`.",
        )
    ]
    assert about and about[0].startswith("Run jobs from a queue kept on disk")
    # Synopsis and See also are not asked about
    assert not any("Synopsis" in q or "See also" in q or "cron" in a for q, a in qa.items())


def test_html_page_keeps_its_structure(tmp_path: Path) -> None:
    chunks = doc_chunks(tmp_path, {"retries.html": HTML})
    text = chunks[0].text
    assert text.startswith("# Retries\n\nA failed job is started again after a `backoff`")
    assert "`--max-retries`\n  How many times" in text
    pairs = questions(chunks)
    assert_quoted(pairs)
    qa = by_question(pairs)
    assert [a for q, a in qa.items() if "`--max-retries`" in q] == [
        "How many times a failed job is started again before it goes to the dead letter box."
    ]
    assert subject_of("Retries | taskq manual") == "Retries"
    assert subject_of("HACKING.md.gz") == "HACKING"  # a compressed page's name too


def test_mid_document_chunk_skips_its_partial_first_paragraph() -> None:
    # a chunk that starts inside a wrapped line: the tail is not a term over a definition
    text = "so the worker does not\n    have to guess the order.\n\nbackoff\n  The waiting time between two attempts of a job.\n"
    blocks = parse(text, "notes.rst", head=False).blocks
    assert [(b.kind, b.term) for b in blocks] == [("definition", "backoff")]
    head = parse(text, "notes.rst", head=True).blocks
    assert head[0].term == "so the worker does not"  # the same text read as a whole doc


def test_lettered_and_roman_list_items_are_prose_not_code_nor_terms() -> None:
    # a plain-text license: items enumerated as reST allows ("a)", "d.", "iii."), after a
    # sentence ending in ":" and with a hanging indent; neither code nor a term line
    text = (
        "  2. You may modify your copy of the Program, provided that you also meet all of\n"
        "these conditions:\n\n"
        "    a) You must cause the modified files to carry prominent notices\n"
        "    stating that you changed the files and the date of any change.\n\n"
        "    b) you must cause any work that you distribute to be licensed as a\n"
        "    whole at no charge to all third parties.\n\n"
        " d. Affirmer understands and acknowledges that Creative Commons is not a\n"
        "    party to this document and has no duty or obligation.\n\n"
        "  iii. publicity and privacy rights pertaining to a person's image or\n"
        "       likeness depicted in a Work;\n"
    )
    blocks = parse(text, "GPL-2", head=True).blocks
    assert [b.kind for b in blocks if b.kind in ("code", "definition")] == []
    prose = [" ".join(b.text.split()) for b in blocks if b.kind == "prose"]
    assert (
        "You must cause the modified files to carry prominent notices stating that you "
        "changed the files and the date of any change." in prose
    ), prose
    assert any(p.startswith("Affirmer understands and acknowledges") for p in prose), prose


def test_terms_defined_in_prose_as_licenses_define_them() -> None:
    text = (
        "   1. Definitions.\n\n"
        '      "License" shall mean the terms and conditions for use, reproduction,\n'
        "      and distribution as defined by Sections 1 through 9 of this document.\n\n"
        "  \u201cThe Program\u201d refers to any copyrightable work licensed under this\n"
        "License.  Each licensee is addressed as \u201cyou\u201d.\n\n"
        'A "Modified Version" of the Document means any work containing the\n'
        "Document or a portion of it.\n\n"
        "1.5. ''Executable'' means Covered Code in any form other than Source Code.\n\n"
        'The word "shall" is used in the sense of an obligation.\n'
    )
    blocks = parse(text, "Apache-2.0", head=True).blocks
    defs = [
        (b.term, b.def_kind, " ".join(b.text.split())) for b in blocks if b.kind == "definition"
    ]
    assert defs == [
        (
            "License",
            "term",
            "the terms and conditions for use, reproduction, and distribution as defined by "
            "Sections 1 through 9 of this document.",
        ),
        (
            "The Program",
            "term",
            "any copyrightable work licensed under this License. Each licensee is addressed "
            "as \u201cyou\u201d.",
        ),
        ("Modified Version", "term", "any work containing the Document or a portion of it."),
        ("Executable", "term", "Covered Code in any form other than Source Code."),
    ]


def test_a_table_of_names_with_descriptions_on_the_same_line() -> None:
    # a man page's table of variables (curl's --write-out): each name, two or more spaces,
    # its description, continued at the description's column; never the name and its
    # description read as one term
    text = (
        "(Added in 7.88.0)\n\n"
        "       num_headers    The number of response headers in the most recent\n"
        "                      request (restarted at each redirect).\n\n"
        "       size_header    The total amount of bytes of the downloaded headers.\n\n"
        "       EDITOR         Used to pick the editor\n"
        "                      for the message.\n\n"
        "       The  status  line  is  not  a  header;  justified  prose  stays\n"
        "       prose, and so does a sentence.  Its two spaces make no term.\n"
    )
    blocks = parse(text, "curl.txt", head=False).blocks
    defs = definitions(blocks)
    assert defs == [
        (
            "num_headers",
            "keyword",
            "The number of response headers in the most recent request (restarted at each "
            "redirect).",
        ),
        ("size_header", "keyword", "The total amount of bytes of the downloaded headers."),
        ("EDITOR", "keyword", "Used to pick the editor for the message."),
    ]
    # the chunk's partial first paragraph is skipped (head=False); the prose is one block
    prose = [b.text for b in blocks if b.kind != "definition"]
    assert len(prose) == 1 and prose[0].startswith("The status line is not a header;")


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        (":command:`add_job`", "`add_job`"),
        (":ref:`Jobs <job-list>`", "`Jobs`"),
        ("``PRIORITY`` and **bold** and *em*", "`PRIORITY` and bold and em"),
        ("see [the guide](guide.md) and `Jobs <https://x.org>`_", "see the guide and Jobs"),
        ("speci\u2010\n       fied", "specified"),
        ("a <b>tag</b> and a <placeholder> kept", "a tag and a <placeholder> kept"),
        # MyST roles, rst's escaped space after markup, Python's dunder names
        ("{doc}`init` and {ref}`the guide <guide>`", "`init` and `the guide`"),
        (":class:`Exception`\\ s", "`Exception`s"),
        # a PEP or an RFC by its number, as Sphinx renders it; with a title, the title
        ("in {pep}`518` and :rfc:`2616#section-3`", "in PEP 518 and RFC 2616"),
        (":pep:`the PEP <518>`", "`the PEP`"),
        (
            "its .__next__() method, __init__ and __bold__",
            "its .__next__() method, __init__ and __bold__",
        ),
        ("__two words__", "two words"),
        # two code spans, the second lodash's `_#value`: no rst link between them
        (
            "wraps `value` with chains; unwrap with `_#value`.",
            "wraps `value` with chains; unwrap with `_#value`.",
        ),
    ],
)
def test_clean(raw: str, cleaned: str) -> None:
    assert clean(raw) == cleaned


def test_extractive_examples_carry_document_spans(tmp_path: Path) -> None:
    chunks = doc_chunks(tmp_path, {**MARKDOWN, "taskq.1.txt": MAN})
    texts = {
        d.uri: d.text
        for d in (read_document(tmp_path / n) for n in [*MARKDOWN, "taskq.1.txt"])
        if d
    }
    cfg = GeneratorConfig(templates=DOC_TEMPLATES, max_questions_per_chunk=20, continuation=False)
    examples = list(ExtractiveGenerator(chunks).generate(chunks, 1, cfg))
    assert len(examples) >= 15
    by_id = {c.id: c for c in chunks}
    for ex in examples:
        assert ex.span is not None
        doc_text = texts[by_id[ex.chunk_id].uri]
        assert _norm(clean(ex.answer)) in clean(doc_text[ex.span[0] : ex.span[1]])


def test_chunk_yield_on_a_larger_man_page() -> None:
    """Most chunks of an options-heavy page yield a pair (the 60% goal)."""
    opts = "\n".join(
        f"       --opt{i}=VALUE\n              set the value of setting number {i} for the run\n"
        for i in range(120)
    )
    text = MAN.replace("EXIT STATUS", f"OPTIONS\n{opts}\nEXIT STATUS")
    doc = Document("local", "/man/taskq.1.txt", "taskq.1.txt", text)
    chunks = chunk_document(doc, Chunking(heldout_fraction=0.0))
    got = [bool(make_questions(c, DOC_TEMPLATES, 3, random.Random(0))) for c in chunks]
    assert len(chunks) >= 5 and sum(got) / len(got) >= 0.8


def test_a_man_option_over_a_blank_line_and_its_indented_description() -> None:
    # groff's tagged paragraphs with spacing (GNU sed's page): the option, a blank line,
    # then its description indented deeper; an option with an optional suffix in brackets
    text = (
        "NAME\n       taskq - run jobs\n\nDESCRIPTION\n"
        "       -n, --quiet, --silent\n\n"
        "              suppress the report of every finished job\n\n"
        "       -i[SUFFIX], --in-place[=SUFFIX]\n\n"
        "              edit the queue in place (makes a backup if SUFFIX supplied)\n\n"
        "       A sentence of prose after the options.\n"
    )
    blocks = parse(text, "taskq.1.txt").blocks
    defs = definitions(blocks)
    assert defs == [
        ("-n, --quiet, --silent", "option", "suppress the report of every finished job"),
        (
            "-i[SUFFIX], --in-place[=SUFFIX]",
            "option",
            "edit the queue in place (makes a backup if SUFFIX supplied)",
        ),
    ]
    assert any(b.kind == "prose" and b.text.startswith("A sentence of prose") for b in blocks)


def test_a_man_tag_that_fits_its_indent_is_the_term_of_the_text_beside_it() -> None:
    """groff's .TP with a tag shorter than its indent: the text starts on the tag's line one
    space after it and goes on at that column (bash's shell options and variables); a tag
    of its own words over its text below ("--dest DEST") is no such line."""
    text = (
        "NAME\n       qsh - a shell\n\nDESCRIPTION\n"
        "              extglob If set, the extended pattern matching features described\n"
        "                      above under Pathname Expansion are enabled.\n\n"
        "              extquote\n"
        "                      If set, quoting is performed within expansions.\n\n"
        "       OSTYPE Automatically set to a string that describes the operating sys\u2010\n"
        "              tem on which qsh is executing.\n\n"
        "       --dest DEST\n"
        "              Install the completion modules into the folder DEST.\n"
    )
    defs = definitions(parse(text, "qsh.1.txt").blocks)
    assert defs == [
        (
            "extglob",
            "keyword",
            "If set, the extended pattern matching features described above under Pathname "
            "Expansion are enabled.",
        ),
        ("extquote", "keyword", "If set, quoting is performed within expansions."),
        (
            "OSTYPE",
            "keyword",
            "Automatically set to a string that describes the operating system on which qsh "
            "is executing.",
        ),
        ("--dest DEST", "option", "Install the completion modules into the folder DEST."),
    ]


def test_a_javadoc_pages_member_sections_name_their_member() -> None:
    """A javadoc page heads each method with its bare name: what its Returns: says is
    asked of `StringUtils.abbreviate`, not of the page; a word heading names no member; the
    site's name is no part of either."""
    title = "StringUtils (Apache Commons Lang 3.12.0 API)"

    def asked(section: str) -> list[tuple[str, str]]:
        text = (
            "# Class StringUtils\n\nOperations on `String` that are `null` safe.\n\n"
            f"## Method Details\n\n### {section}\n\n"
            "public static String abbreviate(String str, int maxWidth)\n\n"
            "Abbreviates a String using ellipses.\n\n"
            "Returns:\n  abbreviated String, `null` if null String input\n"
        )
        chunk = Chunk("c", "local", "/api/StringUtils.html", title, 0, len(text), text)
        return [
            (q.question, q.answer or "")
            for q in make_questions(chunk, ["define"], 10, random.Random(0))
        ]

    assert asked("abbreviate") == [
        (
            "What is the return value of `StringUtils.abbreviate`?",
            "abbreviated String, `null` if null String input",
        )
    ]
    ((question, _),) = asked("Usage")
    assert "`StringUtils`" in question


def test_a_tab_indented_description_is_read_from_its_first_word() -> None:
    # a tab is one character of the text and eight columns of indentation: the spans of
    # what stands after it start at its text, not seven characters in
    text = (
        "OPTIONS\n-------\n--only-untracked::\n\tThis option is only valid for `show`.\n\n"
        "--keep-index::\n\tAll changes already added to the index are left intact.\n"
    )
    defs = [b for b in parse(text, "git-stash.txt").blocks if b.kind == "definition"]
    assert [(b.term, b.text) for b in defs] == [
        ("--only-untracked", "This option is only valid for `show`."),
        ("--keep-index", "All changes already added to the index are left intact."),
    ]
    assert [text[b.start : b.start + 8] for b in defs] == ["This opt", "All chan"]


def test_an_info_nodes_options_table_rows_and_continued_code() -> None:
    # a GNU info node: options at column 0 over descriptions indented 5, a two-column
    # table whose second cell wraps, and a shell pipeline continued over lines
    text = (
        "‘taskq’: Run jobs\n=================\n\n"
        "‘-q’, ‘--quiet’\n     Suppress the report of every finished job.\n\n"
        "‘taskq -a file’                     Run every job of the file\n"
        "                                    at once\n\n"
        "     find . -name '*.job' -print0 \\\n"
        "       | xargs --null taskq -a\n\n"
        "   Jobs run in the order they are listed.\n"
    )
    blocks = parse(text, "taskq invocation").blocks
    defs = [(b.term, b.text) for b in blocks if b.kind == "definition"]
    assert defs == [("‘-q’, ‘--quiet’", "Suppress the report of every finished job.")]
    assert not any("xargs" in (b.term or "") or "find ." in (b.term or "") for b in blocks)
    assert subject_of("taskq invocation") == "taskq"  # a GNU manual's node name
    assert subject_of("Common options") == "Common options"


# An API reference in the layout of Node.js's (and JSDoc's): a code heading, a history
# comment, the parameters as a typed list before the description, tables of several kinds.
API_REFERENCE = """# Spool

<!-- YAML
added: v1.0.0
-->

The `spool` module keeps byte buffers in named slots.

### `spool.write(value[, offset])`

<!-- YAML
added: v1.2.0
changes:
  - version: v2.0.0
    pr-url: https://example.org/spool/pull/18
    description: The offset is no longer coerced.
-->

* `value` {integer} Number to be written to the slot.
* `offset` {integer} Number of bytes to skip before starting to write. Must satisfy
  `0 <= offset <= spool.length - 4` for every kind of slot.
* `options` {Object}
  * `encoding` {string|null} **Default:** `null`
* Returns: {integer}

Writes `value` to the slot at the given `offset` as big-endian bytes.

### `spool.size`

* {boolean}

Tells whether the spool has grown past its first page of memory.

### `spool.append(chunk)`

* `chunk`: {Buffer|TypedArray|DataView}

Appends a new chunk of bytes to the spool's last slot.

### Static method: `Spool.from(array)`

* `array` {integer\\[]} An array of bytes to copy from.

Allocates a new spool from an array of bytes in the range 0 to 255.

| Use-case | Class | Method(s) to implement |
| -------- | ----- | ---------------------- |
| Writing only | `Writer` | `_write()`, `_writev()`, `_final()` |

| Constant | Octal | Description |
| -------- | ----- | ----------- |
| `S_IWUSR` | `0o200` | The slot may be written by its owner. |

* `'ucs2'`, `'ucs-2'`: Aliases of the two-byte encoding used for every slot name.
"""


def test_an_api_reference_in_nodes_layout(tmp_path: Path) -> None:
    pairs = questions(doc_chunks(tmp_path, {"spool.md": API_REFERENCE}))
    assert_quoted(pairs)
    qa = by_question(pairs)
    # the description, not the first parameter's line, says what a function does
    what_does = {p.format(a="spool.write()") for p in PHRASES["what_does"]}
    write = [a for q, a in qa.items() if q in what_does]
    assert write == ["Writes `value` to the slot at the given `offset` as big-endian bytes."]
    # a parameter named like a label ("value") is still a parameter of its function
    value = [a for q, a in qa.items() if "`value`" in q and "`spool.write()`" in q]
    assert value == ["Number to be written to the slot."]
    # a bare type ("{boolean}", "`options` {Object}", "Returns: {integer}") is no answer
    assert not any(re.search(r"\{\w+(\|\w+)*\}", a) for a in qa.values()), qa
    # a type after a colon is a type too ("`chunk`: {Buffer|TypedArray|DataView}")
    append = [a for q, a in qa.items() if "`spool.append()`" in q]
    assert append == ["Appends a new chunk of bytes to the spool's last slot."], qa
    size = [a for q, a in qa.items() if "`spool.size`" in q]
    assert size == ["Tells whether the spool has grown past its first page of memory."]
    # "Static method: `Spool.from(array)`" names the API
    assert any(
        "`Spool.from()`" in q and a.startswith("Allocates a new spool") for q, a in qa.items()
    )
    assert any("`array`" in q and "`Spool.from()`" in q for q in qa)
    # a table row's definition comes from its Description column; a table with none asks
    # nothing ("What is Writing only?" is not a question its cells answer)
    assert [a for q, a in qa.items() if "S_IWUSR" in q] == ["The slot may be written by its owner."]
    assert not any("Writing only" in q for q in qa)
    # a note that names no subject is not blanked ("Must satisfy ____ for every kind")
    assert not any(q.startswith(("Fill", "Complete", "What goes")) and "Must" in q for q in qa)
    # "`a`, `b`: text" defines the first name by the text after the colon
    assert [a for q, a in qa.items() if "'ucs2'" in q] == [
        "Aliases of the two-byte encoding used for every slot name."
    ]


def test_a_chunk_knows_the_section_and_the_code_it_starts_in(tmp_path: Path) -> None:
    filler = " ".join(
        f"Sentence {i} of the long description of the slot allocator." for i in range(30)
    )
    code = "\n".join(f"spool.write({i}, {i * 4});" for i in range(60))
    text = (
        "# Spool\n\n### `spool.alloc(size[, fill])`\n\n"
        f"{filler}\n\n"
        "* `fill` {integer} The byte every new slot starts filled with.\n\n"
        f"Fill the spool:\n\n```js\nconst s = spool.alloc(8);\n{code}\n}});\n```\n\n"
        "The `spool.alloc()` method returns a spool whose slots all hold the `fill` byte.\n"
    )
    chunks = doc_chunks(tmp_path, {"spool.md": text})
    assert len(chunks) >= 3
    starts = chunk_starts(chunks)
    assert starts[chunks[0].id] == ChunkStart("", False)
    # the chunk holding `fill` starts past the heading, inside its section
    fill_chunk = next(c for c in chunks if "* `fill`" in c.text and "### " not in c.text)
    assert starts[fill_chunk.id].section == "`spool.alloc(size[, fill])`"
    inside = [c for c in chunks if starts[c.id].in_code]
    assert inside and all("spool.write(" in c.text.split("```")[0] for c in inside)
    pairs = questions(chunks, starts)
    assert_quoted(pairs)
    qa = by_question(pairs)
    fill = [q for q, a in qa.items() if a == "The byte every new slot starts filled with."]
    assert fill and all("`spool.alloc()`" in q for q in fill), fill
    # read without its start, the chunk asks about the document instead
    alone = by_question(questions([fill_chunk]))
    assert [q for q in alone if "`fill`" in q] == [
        q.replace("`spool.alloc()`", "`spool`") for q in fill
    ]
    # no code is taken for prose, and "});" over a fence is no title
    assert not any("spool.write(" in a and "```" not in a for a in qa.values()), qa
    assert not any("});" in q for q in qa)
    # a blank is not told by the name in brackets before it
    cloze = [q for _, q in pairs if q.template == "cloze" and q.answer == "`spool.alloc()`"]
    assert cloze and all("(spool.alloc())" not in q.question for q in cloze)
    # a document at a time, in the order given, with the same starts, also when another
    # document's chunks come in between
    other = doc_chunks(tmp_path, {"notes.md": "# Notes\n\n" + filler})
    mixed = [chunks[0], *other, *chunks[1:]]
    assert [(c.id, s) for c, s in with_starts(mixed)] == [
        (c.id, chunk_starts(mixed).get(c.id)) for c in mixed
    ]


def test_a_chunk_after_a_held_out_one_knows_whether_it_starts_in_code(tmp_path: Path) -> None:
    """The generators see the train chunks only: a held-out chunk between two train chunks
    hides its fence lines, so counting the fences seen flips every later chunk's reading
    (prose asked as code, code as prose). After such a gap the first chunk with a fence
    line is read by its own text (code inside the fences, prose outside), and starts in no
    section; a chunk cut where a code block opens reads the block as code."""
    parts = ["# Spool\n"]
    for k in range(6):
        prose = " ".join(
            f"Sentence {i} tells how the spool number {k} keeps its slots in order."
            for i in range(8)
        )
        code = "\n".join(f"spool{k}.write({i}, {i * 4});" for i in range(25))
        parts.append(f"## Step {k}\n\n{prose}\n\nFor example:\n\n```js\n{code}\n```\n")
    chunks = doc_chunks(tmp_path, {"spool.md": "\n".join(parts)})
    assert len(chunks) >= 5
    held = chunks[2]
    assert len(fence_lines(held.text, True)) % 2 == 1  # it hides an odd count
    train = [c for c in chunks if c is not held]
    full, seen = chunk_starts(chunks), chunk_starts(train)
    assert [seen[c.id].in_code for c in train] == [full[c.id].in_code for c in train]
    after = chunks[3]
    assert seen[after.id].in_code and after.text.startswith("spool2.write(")
    # a heading in the held-out chunk ends the section seen last: the chunk after the gap
    # starts in none, not in the last one seen
    assert full[after.id].section == "Step 2" and seen[after.id].section == ""
    pairs = questions(train, seen)
    assert_quoted(pairs)
    asked = by_question(pairs)
    assert any("spool number 3" in a for a in asked.values())  # the prose after the gap
    assert not any(".write(" in q for q in asked), asked  # no code line taken for a title
    assert not any(".write(" in a and "```" not in a for a in asked.values()), asked
    # in a document whose headings are far apart a gap most likely holds none: the
    # section seen last goes on
    sparse = parts[0] + "## Writing\n\n" + "\n".join(p.partition("\n\n")[2] for p in parts[1:])
    chunks = doc_chunks(tmp_path, {"writing.md": sparse})
    train = [c for c in chunks if c is not chunks[2]]
    full, seen = chunk_starts(chunks), chunk_starts(train)
    assert seen[chunks[3].id] == full[chunks[3].id]
    assert seen[chunks[3].id].section == "Writing" and seen[chunks[3].id].in_code
    # an ASCII chart in a block is no table of text
    chart = "The graph:\n\n```\n    MB\n3.9^  :#\n   |  :#\n   |  :#\n   | @:#\n```\n\nIt shows the heap."
    assert not starts_in_code(chart, False)
    # a chunk that starts on the line that opens a block
    opening = Chunk(
        held.doc_id,
        held.source,
        held.uri,
        held.title,
        50,
        400,
        "```js\nx = 1;\n\ny = 2;\n```\n\nMore words here.",
    )
    blocks = parse(opening.text, opening.title, False).blocks
    assert [b.kind for b in blocks] == ["code", "prose"]


def test_an_option_belongs_to_the_program_a_program_directive_names(tmp_path: Path) -> None:
    """`.. program::` names whose options follow (CMake's manual: `cmake--build` is
    `cmake --build`), in later chunks of the page too; an envvar is nobody's option."""
    filler = " ".join(f"Sentence {i} about how the build tree is laid out." for i in range(40))
    text = (
        "cmake(1)\n********\n\n.. program:: cmake\n\n"
        ".. option:: --fresh\n\n   Perform a fresh configuration of the build tree.\n\n"
        f"Build a Project\n===============\n\n.. program:: cmake--build\n\n{filler}\n\n"
        ".. option:: --parallel [<jobs>]\n\n   The maximum number of concurrent processes.\n\n"
        ".. envvar:: CMAKE_BUILD_PARALLEL_LEVEL\n\n   The default parallel level.\n\n"
        "Run a Command-Line Tool\n=======================\n\n.. program:: cmake-E_tar\n\n"
        ".. option:: --format=<format>\n\n   Specify the format of the archive to be created.\n"
    )
    chunks = doc_chunks(tmp_path, {"cmake.1.rst": text})
    assert len(chunks) >= 2
    starts = chunk_starts(chunks)
    parallel = next(c for c in chunks if "--parallel" in c.text)
    assert ".. program:: cmake--build" not in parallel.text  # named in an earlier chunk
    assert starts[parallel.id].program == "cmake --build"
    defines = {
        q.answer: q.question
        for c in chunks
        for q in make_questions(c, ["define"], 20, random.Random(0), None, starts[c.id])
        if q.answer
    }
    assert "of `cmake`" in defines["Perform a fresh configuration of the build tree."]
    assert "`cmake --build`" in defines["The maximum number of concurrent processes."]
    assert "`cmake -E tar`" in defines["Specify the format of the archive to be created."]
    assert "cmake --build" not in defines["The default parallel level."]


# a chapter of a manual as DocBook writes it to HTML (Valgrind's, GNU's, many C projects'):
# numbered headings, a chapter title with a subtitle, options with their defaults
MANUAL_CHAPTER = """<html><head><title>3. Jobcheck: a job error detector</title></head><body>
<div class="navheader">Taskq User Manual</div>
<h1>3. Jobcheck: a job error detector</h1>
<div class="toc"><p><b>Table of Contents</b></p><dl>
<dt>3.1. Overview</dt>
<dt>3.2. Command-line Options</dt>
<dd><dl><dt>3.2.1. Reporting options</dt><dt>3.2.2. Slot options</dt></dl></dd>
<dt>3.3. Report kinds</dt>
</dl></div>
<h2>3.1. Overview</h2>
<p>Jobcheck watches every job the queue starts and reports the ones that touch a slot they
do not own, before the slot is handed to the next job in the queue.</p>
<p>For queues that use their own version of <code>dispatch</code> (e.g. Jobcheck, Slotprof),
the following options apply to every job it starts.</p>
<h2>3.2. Command-line Options</h2>
<dl>
<dt><code>--time-stamp=&lt;yes|no&gt; [default: no] </code></dt>
<dd><p>When enabled, each report line starts with the time elapsed since the queue was
started, in seconds.</p></dd>
<dt><code>--leak-check=&lt;no|summary|full&gt; [default: summary] </code></dt>
<dd><p>When enabled, slots still held by a job when it ends are listed in the report, one
line per slot, with the job that took them.</p></dd>
</dl>
<p>When <code>yes</code>, partial slot reads do not produce an ownership error in the report
of the checked job.</p>
<h2>3.3. Report kinds</h2>
<p>The report kinds of Jobcheck are as follows:</p>
<ul>
<li><p><code>Slot1</code>, <code>Slot2</code>, <code>Slot4</code>, meaning a read of a slot that
another job owns, by its width in bytes.</p></li>
<li><p><code>take</code>/<code>take_all</code>: the slot is marked as owned but not yet written
by the job that took it.</p></li>
</ul>
</body></html>
"""


def test_a_manual_chapter_in_docbook_html(tmp_path: Path) -> None:
    pairs = questions(doc_chunks(tmp_path, {"jc-manual.html": MANUAL_CHAPTER}))
    assert_quoted(pairs)
    qa = by_question(pairs)
    # a section's number is not part of its name, a chapter's subtitle not of its subject
    assert not any(re.search(r"\b3\.\d", q) for q in qa), list(qa)
    assert all("a job error detector" not in q for q in qa), list(qa)
    # the overview is asked about the subject; a section that opens with a list of options
    # is not summed up by the paragraph after the list; a lead-in ("... as follows:") is
    # no answer
    overview = [a for q, a in qa.items() if "`Jobcheck`" in q and "option" not in q]
    assert overview and overview[0].startswith("Jobcheck watches every job"), list(qa)
    assert not any("Command-line Options" in q for q in qa), list(qa)
    assert not any(a.endswith("as follows:") for a in qa.values()), list(qa)
    # an option is named as it is passed, without the default its list prints beside it;
    # its values stay as written ("<no|summary|full>", not "<nosummary|full>")
    opts = {q: a for q, a in qa.items() if "--time-stamp" in q or "--leak-check" in q}
    assert len(opts) == 2, list(qa)
    assert not any("default" in q for q in opts)
    assert any("`--leak-check=<no|summary|full>`" in q for q in opts), list(opts)
    assert any("`--time-stamp=<yes|no>`" in q and "`Jobcheck`" in q for q in opts), list(opts)
    # "(e.g. Jobcheck, Slotprof)" does not end its sentence
    assert not any(
        a.rstrip().endswith("(e.g.") or q.rstrip().endswith("(e.g.") for q, a in qa.items()
    )
    # a bare value is not a blank ("When ____, partial slot reads ...": `yes`)
    assert "`yes`" not in qa.values()
    # a name followed by more names or a slash is not defined by what follows it
    assert not any(a.startswith(("/", ",", ".")) for a in qa.values()), qa


@pytest.mark.parametrize(
    ("title", "subject"),
    [
        ("2. Using and understanding the core", "Using and understanding the core"),
        ("4. Memcheck: a memory error detector", "Memcheck"),
        ("Timeouts: how long a job may run", "Timeouts: how long a job may run"),
        ("3.14.rst", "3.14"),
        ("ls.1.txt", "ls"),
        ("A Tour of the Queue", "A Tour of the Queue"),
        # a bare name's version is no manual section; a rendered page's section is
        ("GFDL-1.3", "GFDL-1.3"),
        ("Apache-2.0", "Apache-2.0"),
        ("Python 3.11", "Python 3.11"),
        ("gcc-12.1.gz", "gcc-12"),
        ("bash.1", "bash"),
        # a generated page's site after its name, in parentheses; other parentheses stay
        ("StringUtils (Apache Commons Lang 3.12.0 API)", "StringUtils"),
        ("ArrayList (Java SE 17 & JDK 17)", "ArrayList"),
        ("Ownership (The Rust Programming Language)", "Ownership"),
        ("Sorting (in place)", "Sorting (in place)"),
        ("git-commit(1)", "git-commit(1)"),
    ],
)
def test_subject_of_a_numbered_or_subtitled_title(title: str, subject: str) -> None:
    assert subject_of(title) == subject


def test_an_option_under_a_chapter_titled_in_words_is_asked_about_alone(tmp_path: Path) -> None:
    """A chapter whose title is a phrase, not a name: its options are asked about as "the
    `--x` option", not "the `--x` option of `Using and understanding the queue core`"."""
    page = (
        "<html><head><title>2. Using and understanding the queue core</title></head><body>"
        "<h1>2. Using and understanding the queue core</h1><h2>2.1. Basic Options</h2><dl>"
        "<dt><code>--quiet=&lt;yes|no&gt; [default: no] </code></dt><dd><p>When enabled, "
        "the queue prints nothing but the errors of the jobs it runs.</p></dd></dl>"
        "</body></html>"
    )
    qa = by_question(questions(doc_chunks(tmp_path, {"core.html": page})))
    asked = [q for q in qa if "--quiet" in q]
    assert asked and all("`--quiet=<yes|no>`" in q for q in asked), list(qa)
    assert not any("understanding" in q for q in asked), asked


# a library's guide in reST, as Sphinx projects write one: the project's own code directive,
# a literal block after "::" with a blank line inside, directive options
LIBRARY_GUIDE = """Styling
=======

Text can be styled before it is printed.

For styling a string, the :func:`style` function can be used::

    import widgets

    widgets.echo(widgets.style("Hello", fg="green"))

Boolean Flags
-------------

Boolean flags turn a feature on or off.

Example:

.. widgets:example::

    @widgets.command()
    @widgets.option("--shout/--no-shout", default=False)
    def info(shout):
        if shout:
            widgets.echo("LOUD")

Input from a file looks like this:

.. code-block:: python
    :caption: prompt.py

    import widgets

    widgets.run(prompt)

.. autoclass:: Widget
    :members:
    :member-order: bysource
"""


def test_a_sphinx_guides_code_stays_whole_and_indented(tmp_path: Path) -> None:
    chunks = doc_chunks(tmp_path, {"guide.rst": LIBRARY_GUIDE})
    code = [b for b in parse(chunks[0].text, "guide.rst").blocks if b.kind == "code"]
    assert len(code) == 3, code  # the literal block, the directive's and the code-block's
    qa = by_question(questions(chunks))
    examples = {q: a for q, a in qa.items() if "example" in q.lower()}
    styling = next(a for q, a in examples.items() if "styling" in q.lower())
    # the whole literal block (its blank line inside), dedented together
    assert styling.endswith(
        ':\n\nimport widgets\n\nwidgets.echo(widgets.style("Hello", fg="green"))'
    ), styling
    flags = next(a for q, a in examples.items() if "boolean flags" in q.lower())
    assert flags.endswith(
        '@widgets.command()\n@widgets.option("--shout/--no-shout", default=False)\n'
        'def info(shout):\n    if shout:\n        widgets.echo("LOUD")'
    ), flags
    assert not any(":caption:" in a or ":members:" in a for a in qa.values()), qa


def test_a_chunk_cut_inside_indented_code_does_not_read_it_as_text() -> None:
    """A chunk that starts inside a literal block of the previous chunk: the block's rest
    is neither prose nor a label ("if __name__ == '__main__':" is no section)."""
    text = (
        "        cli.add_command(sync)\n\n"
        "    if __name__ == '__main__':\n"
        "        cli(obj={})\n\n"
        "If the object is provided, each context passes it on to its children.\n"
    )
    blocks = parse(text, "commands.rst", head=False).blocks
    assert [(b.kind, b.section) for b in blocks] == [("prose", "")], blocks
    assert blocks[0].text.startswith("If the object is provided")


GOOGLE_DOCSTRING = """Create a new widget from an old one, with changes.

Args:
    inst:
        The widget to copy. It must be passed
        positionally.

    speed (int | None): How fast the copy spins.

Returns:
    A copy of inst with the changes made.

Raises:
    TypeError: If inst is not a widget.
"""


def test_google_style_sections_are_fields() -> None:
    defs = [
        (b.term, b.def_kind, b.text)
        for b in parse(GOOGLE_DOCSTRING).blocks
        if b.kind == "definition"
    ]
    assert defs == [
        ("inst", "param", "The widget to copy. It must be passed positionally."),
        ("speed", "param", "How fast the copy spins."),
        ("return value", "returns", "A copy of inst with the changes made."),
    ]


def test_myst_directive_fences() -> None:
    """MyST Markdown's directives: an admonition's text is text, an include or a block of
    raw reST is not an example of anything; a doctest stays code."""
    text = (
        "# Guide\n\n"
        "```{note}\nFrozen classes cannot be changed after they are made.\n```\n\n"
        "```{include} ../README.md\n:start-after: 'begin'\n```\n\n"
        "```{eval-rst}\n.. function:: hook(cls)\n   :noindex:\n```\n\n"
        "```{doctest}\n>>> make(1)\nWidget(x=1)\n```\n\n"
        # a target before a heading is a label: no paragraph of its own
        "(compatibility-requirements)=\n\n## Compatibility\n\nIt runs on Python 3.\n"
    )
    blocks = [(b.kind, b.text) for b in parse(text, "guide.md").blocks if b.kind != "heading"]
    assert blocks[0] == ("prose", "Frozen classes cannot be changed after they are made.")
    assert [k for k, _ in blocks] == ["prose", "code", "prose"], blocks
    assert blocks[2] == ("prose", "It runs on Python 3.")
    assert ">>> make(1)" in blocks[1][1]


def test_sphinx_descriptions_of_options_variables_and_settings_are_definitions() -> None:
    # `.. option::` (CMake's manuals, a program's page), `.. envvar::`, `.. confval::`,
    # CMake's `.. variable::` and `.. genex::`: the name is the term, the text its
    # description, and the text (with the list it holds) is read on as the page's too
    text = (
        "taskq\n=====\n\n.. program:: taskq\n\n"
        ".. option:: -m <mode>\n             --mode <mode>\n\n"
        "   Choose how jobs run, like the *mode* argument of :func:`run`.\n\n"
        "   ``until-fail``\n     Run each job until it fails once or more.\n\n"
        ".. envvar:: TASKQ_HOME\n\n   Where the queue keeps its files.\n\n"
        ".. confval:: retries\n   :type: int\n\n   How many times a failed job runs again.\n\n"
        ".. variable:: CPACK_TASKQ_NAME\n              CPACK_TASKQ_<comp>_NAME\n\n"
        "   The package name of the queue.\n\n"
        ".. genex:: $<TASKQ:list>\n\n   The list when the queue runs it.\n\n"
        ".. py:function:: run(mode)\n\n   Not an option: read by collect/sphinxobj.py.\n"
    )
    blocks = parse(text, "taskq.rst").blocks
    defs = definitions(blocks)
    assert defs == [
        (
            "-m <mode>, --mode <mode>",
            "option",
            "Choose how jobs run, like the mode argument of `run`. `until-fail` Run each job "
            "until it fails once or more.",
        ),
        ("until-fail", "keyword", "Run each job until it fails once or more."),
        ("TASKQ_HOME", "keyword", "Where the queue keeps its files."),
        ("retries", "keyword", "How many times a failed job runs again."),
        (
            "CPACK_TASKQ_NAME, CPACK_TASKQ_<comp>_NAME",
            "keyword",
            "The package name of the queue.",
        ),
        ("$<TASKQ:list>", "keyword", "The list when the queue runs it."),
    ]
    prose = [b.text for b in blocks if b.kind == "prose"]
    assert "Choose how jobs run, like the mode argument of `run`." in prose
    assert "Not an option: read by collect/sphinxobj.py." in prose


def test_a_link_after_a_colon_is_no_example(tmp_path: Path) -> None:
    """A paragraph ending "See the project's page for details:" over an indented URL
    introduces no example (a plugin's list of checkers); a command under a colon does."""
    page = (
        "# Checkers\n\n## Vint\n\n"
        '"Vint" is a lint checker for scripts. See the project\'s page for details:\n\n'
        "    https://example.org/vint\n\n"
        "## Frob\n\nRun the frob checker on a file like this:\n\n"
        "    frob --check file.vim\n"
    )
    qa = by_question(questions(doc_chunks(tmp_path, {"checkers.md": page})))
    examples = {q: a for q, a in qa.items() if "example" in q.lower()}
    assert list(examples.values()) == [
        "Run the frob checker on a file like this:\n\nfrob --check file.vim"
    ], examples


def test_a_field_whose_text_opens_with_its_type_is_no_code() -> None:
    """`:param s: (string) a string` (phpDocumentor's and LDoc's type first): the short
    text is the parameter's description, not code (its parentheses counted as symbols)."""
    blocks = parse("Intro.\n\n:param s: (string) a string\n", "", True).blocks
    assert [(b.kind, b.term, b.text) for b in blocks if b.kind == "definition"] == [
        ("definition", "s", "(string) a string")
    ]
    code = parse("Intro.\n\n:param s: (x) = f(y); g(z)\n", "", True).blocks
    assert not [b for b in code if b.kind == "definition"]


def test_texinfo_style_definitions_are_read_as_definitions() -> None:
    """What the Texinfo and Org readers write for `@deffn`/`@defopt` and a table of keys:
    a category head over its paragraph (`@deffnx`'s names stacked under the first) and a
    key with the command it runs are definitions of the command; the paragraph after a
    definition's own is read on as prose."""
    text = (
        "## Bisecting\n\n"
        "- `B` (`magit-bisect`): This transient prefix command binds the following suffix\n"
        "  commands and displays them in a temporary buffer.\n\n"
        "**User Option:** `magit-bisect-show-graph`\n\n"
        "This option controls whether a graph is displayed for the log of commits.\n\n"
        "**Command:** `magit-status`\n**Command:** `magit-status-here`\n\n"
        "Show the status of the current Git repository in a buffer.\n\n"
        "The buffer is refreshed whenever the repository changes on disk.\n\n"
        "**Note:** `this` is no definition\n"
    )
    blocks = parse(text).blocks
    defs = [(b.term, b.def_kind, b.text) for b in blocks if b.kind == "definition"]
    assert defs == [
        (
            "magit-bisect",
            "keyword",
            "This transient prefix command binds the following suffix commands and displays "
            "them in a temporary buffer.",
        ),
        (
            "magit-bisect-show-graph",
            "keyword",
            "This option controls whether a graph is displayed for the log of commits.",
        ),
        ("magit-status", "keyword", "Show the status of the current Git repository in a buffer."),
    ]
    prose = [b.text for b in blocks if b.kind == "prose"]
    assert prose == [
        "The buffer is refreshed whenever the repository changes on disk.",
        "Note: `this` is no definition",
    ]


def test_a_definition_line_names_its_thing_after_a_type_and_reads_past_its_default() -> None:
    """A name after its type or result is the bold span; MIT Scheme's categories are lower
    case; Mailutils' "Default: False" paragraph takes the text after it along."""
    text = (
        "**Function:** `size_t` **`strlen`** `(const char *S)`\n\nCounts the bytes.\n\n"
        "**standard procedure:** `string-map proc string`\n\nMaps over the string.\n\n"
        "**mail:** `string` **`mime`**\n\nDefault: False\n\nIf set, compose MIME messages.\n\n"
        "**`dbstop`** `func`\n`rline =` **`dbstop`** `…`\n\nSets breakpoints.\n\n"
        "`plain code` alone\n\nIs no definition.\n"
    )
    defs = [(b.term, b.text) for b in parse(text).blocks if b.kind == "definition"]
    assert defs == [
        ("strlen", "Counts the bytes."),
        ("string-map", "Maps over the string."),
        ("mime", "If set, compose MIME messages."),
        ("dbstop", "Sets breakpoints."),
    ]


def test_a_texinfo_manual_built_to_html_is_asked_about_its_functions(tmp_path: Path) -> None:
    """texi2any's HTML of `@deftypefun` (a type before the name) and of Octave's
    category-less `@deftypefn {} {@var{r} =} f`: the function is asked about, not its type
    or its result."""
    page = (
        "<html><!-- Created by GNU Texinfo 7.0.2 --><head><title>Numbers</title></head><body>"
        '<h3>Numbers</h3><p>Functions on numbers.</p><dl class="def"><dt><span class="category">'
        "Function: </span><span><em>spool_error_t</em> <strong>spool_scan</strong> <em>(spool_t"
        " *<var>r</var>)</em></span></dt><dd><p>Converts the external form held in r into a "
        'new number.</p></dd></dl><dl class="def"><dt><span class="category">: </span><span>'
        "<em><var>rline</var> =</em> <strong>dbstop</strong> <em>&hellip;</em></span></dt>"
        "<dd><p>Sets breakpoints for the built-in debugger.</p></dd></dl></body></html>"
    )
    qa = by_question(questions(doc_chunks(tmp_path, {"numbers.html": page})))
    asked = {a: q for q, a in qa.items()}
    scan = asked["Converts the external form held in r into a new number."]
    assert "`spool_scan`" in scan, list(qa)
    assert "`dbstop`" in asked["Sets breakpoints for the built-in debugger."], list(qa)
    assert not [q for q in qa if "spool_error_t" in q or "rline" in q], list(qa)


def test_a_letter_is_asked_about_under_the_section_that_lists_it(tmp_path: Path) -> None:
    """A flag of a letter (`i` among a shell's globbing flags) is asked about with the
    section that lists it; a longer term, or one under "Options", with the page alone."""
    page = (
        "<html><head><title>Expansion (qsh)</title></head><body><h1>Expansion (qsh)</h1>"
        "<h2>14.8.4 Globbing Flags</h2><dl><dt><code>i</code></dt><dd><p>Case insensitive: "
        "upper or lower case characters in the pattern match either case.</p></dd>"
        "<dt><code>cache_dir</code></dt><dd><p>The folder where matches found before are "
        "kept between runs.</p></dd></dl>"
        "<h2>Options</h2><dl><dt><code>q</code></dt><dd><p>Quotes every word the expansion "
        "gives, so that none is split again.</p></dd></dl></body></html>"
    )
    qa = by_question(questions(doc_chunks(tmp_path, {"expansion.html": page})))
    flag = [q for q in qa if "`i`" in q]
    assert flag and all("under globbing flags" in q and "14.8.4" not in q for q in flag), list(qa)
    assert all("under" not in q for q in qa if "`cache_dir`" in q or "`q`" in q), list(qa)
    assert any("`q`" in q for q in qa) and any("`cache_dir`" in q for q in qa), list(qa)


def test_a_builtins_options_are_its_own(tmp_path: Path) -> None:
    """A command's synopsis over its description (a shell's builtins in its manual page):
    the options described under it are asked about with the command, not the page."""
    page = (
        "SHELL BUILTIN COMMANDS\n"
        "       read [-ers] [-a aname] [-d delim] [-p\n"
        "       prompt] [name ...]\n"
        "              One line is read from the standard input and split into words.\n"
        "              Options, if supplied, have the following meanings:\n"
        "              -a aname\n"
        "                     The words are assigned to sequential indices of the array\n"
        "                     variable aname, starting at 0.\n"
        "              -d delim\n"
        "                     The first character of delim ends the input line, rather\n"
        "                     than newline.\n"
        "\n"
        "       umask [-p] [-S] [mode]\n"
        "              The user file-creation mask is set to mode.\n"
    )
    defs = [b for b in parse(page, "qsh.1.txt").blocks if b.kind == "definition"]
    assert [(b.owner, b.term) for b in defs] == [("read", "-a aname"), ("read", "-d delim")]
    qa = by_question(questions(doc_chunks(tmp_path, {"qsh.1.txt": page})))
    asked = [q for q in qa if "-a aname" in q]
    assert asked and all("`read`" in q for q in asked), list(qa)


def test_a_builtins_options_past_a_chunks_end_are_still_its_own(tmp_path: Path) -> None:
    """A chunk cut inside a builtin's long list of options asks about its options with the
    builtin, as the chunk that holds the synopsis does."""
    options = "".join(
        f"              -{letter} value\n"
        f"                     The {letter} option sets the {letter}-value the line is read\n"
        f"                     with, and is ignored when the input is no terminal.\n"
        for letter in "abcdefghijklmnopqrstuv"
    )
    page = (
        "SHELL BUILTIN COMMANDS\n"
        "       read [-ers] [-a aname] [-d delim] [name ...]\n"
        "              One line is read from the standard input and split into words.\n"
        f"{options}\n"
        "       umask [-p] [mode]\n"
        "              The user file-creation mask is set to mode.\n"
    )
    chunks = doc_chunks(tmp_path, {"qsh.1.txt": page})
    assert len(chunks) >= 3
    starts = chunk_starts(chunks)
    asked = [
        q.question
        for c in chunks
        for q in make_questions(c, ["define"], 50, random.Random(0), None, starts.get(c.id))
        if q.answer and re.search(r"`-[a-v] value`", q.question)
    ]
    letters = {re.search(r"`-([a-v]) value`", q).group(1) for q in asked}  # type: ignore[union-attr]
    assert len(letters) == 22, sorted(letters)
    assert all("`read`" in q for q in asked), [q for q in asked if "`read`" not in q]


def test_a_document_s_own_parts_are_asked_of_the_document(tmp_path: Path) -> None:
    """ "Motivation", "Backwards compatibility", "Limitations": a part every proposal or
    manual page has is asked of its document ("Explain Motivation." asks of none); a page
    whose subject is itself named so (CMake's ABSTRACT property) keeps its heading."""
    page = (
        "# Queue limits\n\n## Motivation\n\nQueues grew without bound and filled the disk on "
        "busy hosts, so a limit is needed.\n\n## Backwards compatibility\n\nA queue with no "
        "limit set keeps its old behaviour, holding every job it is given.\n"
    )
    qa = list(by_question(questions(doc_chunks(tmp_path, {"limits.md": page}))))
    assert sorted(qa) == [
        "Explain the motivation of limits.",
        "What does limits say about its backwards compatibility?",
    ]
    own = "ABSTRACT\n========\n\nIs this source file an abstract class, one that declares only.\n"
    asked = list(by_question(questions(doc_chunks(tmp_path, {"ABSTRACT.rst": own}))))
    assert asked and not any("abstract of" in q for q in asked), asked


def test_a_list_s_labels_are_no_terms() -> None:
    """ "Case: ..." over a proposal's test vectors, or a label its list repeats ("Step:"),
    names no concept; a term defined once is one."""
    text = (
        "## Test vectors\n\n"
        "- Case: PSBT with one input and two outputs, both signed by the same key.\n"
        "- Step: Decode the transaction and check that every input is present.\n"
        "- Step: Sign each input with the key that owns its previous output.\n"
        "- Step: Combine the signed copies into one complete transaction.\n"
        "- Finalizer: The role that builds the final witness from the partial signatures.\n"
    )
    defs = {b.term for b in parse(text).blocks if b.kind == "definition"}
    assert defs == {"Finalizer"}


def test_a_section_named_by_plain_words_is_asked_of_its_document(tmp_path: Path) -> None:
    """A manual page's NOTES or a release note's "Variables" is a part many documents
    have: asked of its page ("Give an overview of Notes." asks of none); a name keeps its
    capital, a heading that only says more follows ("Other") asks nothing, and a heading
    in a sentence's words keeps its own."""
    page = (
        "# Queue limits\n\n## Notes\n\nA limit applies to each queue on its own, so two "
        "queues may hold twice as many jobs.\n\n## Exit status\n\nThe command exits with "
        "status 3 when the queue is already at its limit.\n\n## Autogen\n\nThe Autogen "
        "helper writes one limit file for each queue it finds on the host.\n\n## Other\n\n"
        "The limit file is read again when the daemon receives a hangup signal.\n\n"
        "## How it works\n\nEach job is counted when it is queued and again when it ends "
        "its run.\n\n## Errors while writing\n\nA job whose output cannot be written is "
        "failed and kept for a retry.\n"
    )
    qa = list(by_question(questions(doc_chunks(tmp_path, {"limits.md": page}))))
    assert sorted(q for q in qa if "Notes" not in q) == sorted(qa)
    parts = sorted(q for q in qa if " of limits" in q or "limits say" in q)
    named = r"^(Describe|Explain) the | of limits\.$|^What does limits say about its |\?$"
    assert sorted(re.sub(named, "", q) for q in parts) == ["Autogen", "exit status", "notes"], qa
    assert not any(re.search(r"\bother\b", q, re.I) for q in qa), qa
    assert any("how it works" in q for q in qa), qa
    assert any("errors while writing" in q and "of limits" not in q for q in qa), qa


def test_a_documents_subject_holds_in_all_its_chunks(tmp_path: Path) -> None:
    """A manual page's NAME line names its command in every chunk of the page, not only
    the first (the file's name is "qsh_queue_drain.1"); a NAME line hyphenated at its end
    ("set\u2010" over "tings" at groff's hanging indent) is no term over a definition; and a
    page named by a version ("3.15.rst") is its first heading's ("Queue 3.15 Release Notes")."""
    options = "".join(
        f"       --opt-{k}\n              The {k} option sets how many jobs the queue keeps "
        f"before it drains\n              them, and is ignored on an empty queue.\n\n"
        for k in range(40)
    )
    page = (
        "NAME\n       qsh queue drain - drain the jobs of a queue and wait for its set\u2010\n"
        "              tings to apply\n\nSYNOPSIS\n       qsh queue drain [--opt-0]\n\n"
        f"OPTIONS\n{options}NOTES\n       The drain waits for running jobs, so it may "
        "take as long as the longest job of the queue.\n"
    )
    chunks = doc_chunks(tmp_path, {"qsh_queue_drain.1.txt": page})
    assert len(chunks) >= 3
    starts = chunk_starts(chunks)
    assert {starts[c.id].subject for c in chunks[1:]} == {"qsh queue drain"}
    head = parse(chunks[0].text, chunks[0].title)
    assert head.subject == "qsh queue drain"
    assert not [b for b in head.blocks if b.kind == "definition" and "set" in b.term]
    asked = [
        q.question
        for c in chunks
        for q in make_questions(c, DOC_TEMPLATES, 50, random.Random(0), None, starts.get(c.id))
        if q.answer
    ]
    notes = [q for q in asked if "notes" in q.lower()]
    assert notes and all("qsh queue drain" in q for q in notes), notes
    assert not any("qsh_queue_drain" in q for q in asked), asked
    release = "Queue 3.15 Release Notes\n************************\n\nNew Features\n============\n\nThe drain command gained a wait option that blocks until the queue is empty.\n"
    assert parse(release, "3.15.rst").subject == "Queue 3.15 Release Notes"
    assert parse(release, "queue.rst").subject == "queue"
    # a NAME line's placeholder is no name; a name in other capitals keeps the file's
    page = (
        "NAME\n       {}\n\nDESCRIPTION\n       The program compresses files with the\n"
        "       block sorting text compression algorithm, and it keeps\n       the "
        "original file names, the times and the modes\n       of the files it reads.\n"
    )
    for line, file, subject in [
        ("@@PACKAGE - a web browser", "chromium.1.txt", "chromium"),
        ("AS - the portable GNU assembler.", "as.1.txt", "as"),
        ("bzip2, bunzip2 - a block-sorting file compressor", "bzcat.1.txt", "bzip2"),
        # a Perl module's page: its NAME after " -- ", its file's section "3pm"
        ('HTML::Tree -- article: "A View of Objects"', "HTML::Tree.3pm", "HTML::Tree"),
        ("Dpkg::Arch - handle architectures", "Dpkg::Arch.3perl", "Dpkg::Arch"),
        (  # a long command's name (62 characters)
            "gcloud access-context-manager policies add-iam-policy-binding - add a binding",
            "gcloud_access-context-manager_policies_add-iam-policy-binding.1.txt",
            "gcloud access-context-manager policies add-iam-policy-binding",
        ),
    ]:
        assert parse(page.format(line), file).subject == subject
    assert [subject_of(t) for t in ("Dpkg::Arch.3perl", "openssl-req.1ssl", "GFDL-1.3")] == [
        "Dpkg::Arch",
        "openssl-req",
        "GFDL-1.3",
    ]


def test_a_version_note_is_no_explanation(tmp_path: Path) -> None:
    """ "Added in: v1.2.0, v1.1.4" over an API's description (Node's built pages), "New in
    version 3.2.": the answer is the description; a sentence about a version stays."""
    page = (
        "# Queue\n\n## `queue.drain()`\n\nAdded in: v1.2.0, v1.1.4\n\nDrains the queue: "
        "every waiting job runs before the promise resolves.\n\n## `queue.pause()`\n\n"
        "New in version 3.2.\n\nStops taking jobs from the queue until `queue.resume()` is "
        "called.\n\n## Compatibility\n\nSince 2.0 the queue keeps its jobs on disk, so a "
        "restart loses none of them.\n"
    )
    qa = by_question(questions(doc_chunks(tmp_path, {"queue.md": page})))
    drain = [a for q, a in qa.items() if "`queue.drain()`" in q]
    pause = [a for q, a in qa.items() if "`queue.pause()`" in q]
    assert drain and all(a.startswith("Drains the queue") for a in drain), qa
    assert pause and all(a.startswith("Stops taking jobs") for a in pause), qa
    assert any(a.startswith("Since 2.0 the queue keeps") for a in qa.values()), qa


def test_an_example_under_a_plain_section_is_its_documents(tmp_path: Path) -> None:
    """Code under "Retries" is an example of the retries of its document; under "Basic
    example" an example of the document's subject; under a heading that is the subject's
    own name ("Queue" on queue's page), of the subject."""
    page = (
        "# Queue\n\n## Retries\n\nA job that fails is tried again; to retry three times:\n\n"
        "```\nqueue.push(job, retries=3)\n```\n\n## Basic example\n\nTo start a worker "
        "that reads the queue:\n\n```\nqueue.work(threads=4)\n```\n"
    )
    (chunk,) = doc_chunks(tmp_path, {"queue.md": page})
    asked = {
        q.answer or "": q.question for q in make_questions(chunk, ["example"], 5, random.Random(0))
    }
    retries = next(q for a, q in asked.items() if "retries=3" in a)
    assert re.search(r"retries of queue\.|queue give of its retries\?", retries), asked
    worker = next(q for a, q in asked.items() if "threads=4" in a)
    assert "`queue`" in worker, asked


def test_a_man_pages_name_and_dash_entry_is_a_term_over_its_text() -> None:
    """iproute2's and devlink's "subgroup mpls - Statistics for MPLS traffic seen on the
    netde-" over "vice." at the tag's indent: the term is the name before the dash, its
    text the words after it; bc's "expr - expr" and a sentence before a dash stay whole."""
    page = (
        "STATS\n"
        "       subgroup mpls - Statistics for MPLS traffic seen on the netde\u2010\n"
        "              vice, counted for each label stack entry it receives.\n\n"
        "       devlink sb port pool show - display port-pool combinations and threshold\n"
        "              for each port of the device, with the pool index.\n\n"
        "       expr - expr\n"
        "              The result of the expression is the difference of the two.\n\n"
        "   INTERNALS \u2014 CONE MODE HANDLING\n"
        "       The cone mode lets you name only the directories to include.\n\n"
    )
    defs = {b.term: b.text for b in parse(page, "qstats.8").blocks if b.kind == "definition"}
    assert defs["subgroup mpls"].startswith("Statistics for MPLS traffic"), defs
    assert defs["devlink sb port pool show"].startswith("display port-pool combinations"), defs
    assert defs["expr - expr"].startswith("The result of the expression"), defs
    assert "INTERNALS" not in defs, defs


def test_a_document_opening_with_blank_lines_starts_at_its_first_line(tmp_path: Path) -> None:
    """A text file (a page rendered after a blank line) that opens with blank lines: its
    first chunk starts the document, so its title is read as one and its first paragraph is
    not taken for the tail of another chunk's."""
    text = "\n\n   \n# Queue limits\n\nA queue holds at most one hundred jobs by default.\n"
    (chunk,) = doc_chunks(tmp_path, {"limits.md": text})
    assert chunk.start == 0 and chunk.text.startswith("# Queue limits")
    blocks = parse(chunk.text, chunk.title, head=chunk.start == 0).blocks
    assert [b.kind for b in blocks] == ["heading", "prose"], blocks


def test_the_recipes_sentences_name_a_document_as_its_first_chunk_reads_it(
    tmp_path: Path,
) -> None:
    """train.knowledge.sentences names a document by what it is about: a manual page by its
    NAME line, a version's page by its first heading, an API's document by its name."""
    from types import SimpleNamespace

    from jupiter.improve.trainrun import chunk_titles
    from jupiter.synth.questions import document_subject

    page = (
        "NAME\n       qsh queue drain - drain the jobs of a queue\n\nDESCRIPTION\n"
        "       The drain waits for the running jobs of the queue, so it may take\n"
        "       as long as the longest job, and it refuses new jobs meanwhile.\n"
    )
    release = "Queue 3.15 Release Notes\n************************\n\nThe drain command gained a wait option.\n"
    chunks = doc_chunks(tmp_path, {"qsh_queue_drain.1.txt": page, "3.15.rst": release})
    assert [document_subject(c) for c in chunks] == ["qsh queue drain", "Queue 3.15 Release Notes"]
    api = Chunk("d", "python_stdlib", "python:json.dumps", "json.dumps", 0, 9, "Serialize")
    assert document_subject(api) == "json.dumps"
    ws = SimpleNamespace(store=SimpleNamespace(iter_chunks=lambda: iter(chunks)))
    cfg = SimpleNamespace(knowledge=SimpleNamespace(sentences=2))
    assert set(chunk_titles(ws, cfg).values()) == {"qsh queue drain", "Queue 3.15 Release Notes"}  # type: ignore[arg-type,union-attr]


def test_a_heading_that_asks_is_asked_as_written(tmp_path: Path) -> None:
    """ "What does a drain do?" over its answer is asked as written, with its document (not
    "Give an overview of What does a drain do?."); code under "Using the retry API" is an
    example of using the retry API."""
    page = (
        "# Queue\n\n## What does a drain do?\n\nA drain runs every waiting job and takes no "
        "new one until the queue is empty.\n\n## Using the retry API\n\nTo retry a failed job "
        "three times:\n\n```\nqueue.retry(job, times=3)\n```\n"
    )
    (chunk,) = doc_chunks(tmp_path, {"queue.md": page})
    asked = {
        q.question: q.answer or ""
        for q in make_questions(chunk, DOC_TEMPLATES, 10, random.Random(0))
    }
    drain = [q for q, a in asked.items() if a.startswith("A drain runs")]
    assert drain and all(
        q
        in (
            "In the queue documentation: What does a drain do?",
            "From the queue docs: What does a drain do?",
        )
        for q in drain
    ), asked
    examples = {
        q.answer or "": q.question for q in make_questions(chunk, ["example"], 5, random.Random(0))
    }
    retry = next(q for a, q in examples.items() if "times=3" in a)
    assert (
        "using the retry API" in retry
        or "of the retry API" in retry
        or "the retry API used" in retry
    ), retry
    assert "Using the retry API" not in retry, retry


def test_a_synopsis_example_is_the_subjects_and_feature_macros_are_none(tmp_path: Path) -> None:
    """A Perl module's SYNOPSIS code is an example of the module; a C page's "Feature Test
    Macro Requirements for glibc:" over its macros is no example at all."""
    page = (
        "# Try::Tiny\n\n## Synopsis\n\nYou can catch an error and handle it:\n\n"
        "```\ntry { die 'foo' } catch { warn \"caught: $_\" };\n```\n\n## Feature macros\n\n"
        "Feature Test Macro Requirements for glibc (see feature_test_macros(7)):\n\n"
        "```\nacosf(), acosl(): _ISOC99_SOURCE || _POSIX_C_SOURCE >= 200112L\n```\n"
    )
    (chunk,) = doc_chunks(tmp_path, {"Try::Tiny.md": page})
    examples = {
        q.answer or "": q.question for q in make_questions(chunk, ["example"], 5, random.Random(0))
    }
    assert len(examples) == 1, examples
    (question,) = examples.values()
    assert "`Try::Tiny`" in question and "Synopsis" not in question, examples


def test_a_heading_in_words_is_asked_as_a_sentence_writes_it(tmp_path: Path) -> None:
    """A heading's title case is no name's: "Setting Policies Explicitly" is asked as
    "setting policies explicitly", a heading in capitals as the words it is; a name keeps
    its capitals, found inside a sentence of the chunk ("under Memcheck", "with Git") or of
    the corpus (another page's "on Windows"). A gerund and its object is a task, a verb and
    its object an instruction, each asked as one; code is shown, not "used"."""
    pages = {
        "policies.md": "# Qsh policies\n\nThe shell reads its policies at start-up.\n\n"
        "## Setting Policies Explicitly\n\nA policy set by hand wins over the defaults that "
        "the project's version implies, so a build keeps its behaviour across releases.\n\n"
        "## Running your program under Memcheck\n\nThe checker runs the program on a "
        "synthetic processor, so every read of memory is checked under Memcheck as it runs. Start "
        "it like this:\n\n```\nqsh check --tool=memcheck ./prog\n```\n\n"
        "## Run a Workflow Preset\n\nA workflow preset runs the configure, build and test "
        "steps in the order it lists, stopping at the first that fails.\n\n"
        "## INTEGRATION WITH GIT\n\nThe shell reads the branch name with Git and shows it "
        "in the prompt, refreshing it after every command that changes the tree.\n\n"
        "## Release Notes Format\n\nEach version's notes are one page, written in the order "
        "the changes were merged.\n\n"
        "## Windows Versions\n\nEvery version since the first with a console is built for, "
        "by the same command.\n\n"
        "## Building Packages on Windows\n\nPackages for that platform are built with the "
        "same command; the installer is written beside the archive it packs.\n\n"
        "## The Public Schema\n\nEvery table made without a schema named goes into the "
        "public schema, which every user may read unless the owner revokes it.\n\n"
        "## Increase `work_mem`\n\nA larger working memory lets a sort finish in memory "
        "instead of spilling to temporary files on disk, at the cost of more memory.\n",
        "platforms.md": "# Platforms\n\nThe shell runs on Windows and on Linux alike, and "
        "on Windows it reads the registry for its defaults as well as its file. Read the "
        "Release Notes of each version, and the Release Notes before an upgrade.\n",
    }
    chunks = doc_chunks(tmp_path, pages)
    asked = [q.question for _, qs in iter_questions(chunks, DOC_TEMPLATES, 20, 0) for q in qs]
    text = "\n".join(asked)
    assert "setting policies explicitly" in text and "Policies" not in text, asked
    task = "running your program under Memcheck"
    memcheck = sorted(q for q in asked if task in q)
    wordings = [PHRASES["explain_doc_task"], PHRASES["example_task"]]  # explained, shown
    explained = [q for q in memcheck if "example" not in q]
    shown = [q for q in memcheck if "example" in q]
    assert len(explained) == len(shown) == 1, asked
    assert explained[0] in {w.format(a=task) for w in wordings[0]}, explained
    assert shown[0] in {w.format(a=task) for w in wordings[1]}, shown
    run = [q for q in asked if "run a workflow preset" in q]
    how = {w.format(a="run a workflow preset") for w in PHRASES["explain_doc_how"]}
    assert len(run) == 1 and run[0] in how, asked
    assert any("integration with Git" in q for q in asked), asked
    assert any("building packages on Windows" in q for q in asked), asked  # the corpus's name
    assert any("the public schema" in q for q in asked), asked
    assert any("Release Notes format" in q for q in asked), asked  # a name of two words
    assert any("Windows versions" in q for q in asked), asked  # a name alone, then words
    mem = {w.format(a="increase `work_mem`") for w in PHRASES["explain_doc_how"]}
    assert [q for q in asked if "`work_mem`" in q][0] in mem, asked


def test_proper_names_are_the_words_a_sentence_capitalizes() -> None:
    """A word capitalized inside sentences more often than not is a name; a title
    cited in capitals ("see Setting Policies Explicitly") is no evidence for its words."""
    texts = [
        "It runs on Windows and Linux. On Windows the registry is read.",
        "Policies are read first. See Setting Policies Explicitly for more; policies can "
        "be set by hand, setting one explicitly, and the policies of a project outlive it.",
        "The build uses the GNU linker, never the gnu.org mirror.",
    ]
    names = proper_names(texts)
    assert {"Windows", "Linux", "GNU"} <= names, names
    assert not {"Policies", "Setting", "Explicitly"} & names, names
    # a heading cited (a reST role, a link) is no evidence of its words
    cited = ["See :ref:`Escape Sequences` and [Escape Sequences][] for escape sequences."]
    assert "Sequences" not in proper_names(cited), proper_names(cited)
    # a word capitalized mostly inside a name of several words is bound to that name
    names, bound = name_words(
        [
            *texts,
            "Read the Release Notes first, and the Release Notes "
            "of each version; the notes list every change.",
        ]
    )
    assert "Notes" in names and "Notes" in bound and "Windows" not in bound, (names, bound)


def test_a_page_titled_in_words_gives_its_examples_in_words(tmp_path: Path) -> None:
    """Code on a page titled "Default Values" is an example of default values, not of
    "using `Default Values`"; a heading that is an instruction ("Remove Foreign Key
    Constraints") is asked as one, not as a part of its page."""
    page = (
        "<html><head><title>Default Values</title></head><body><h1>Default Values</h1>"
        "<p>A column can be assigned a default value, used when a new row does not give "
        "one. In a table definition, the default is listed after the type:</p>"
        "<pre>CREATE TABLE products (price numeric DEFAULT 9.99);</pre>"
        "<h2>Remove Foreign Key Constraints</h2><p>A foreign key constraint is checked more "
        "cheaply in bulk, so dropping it before a load and creating it again after is "
        "faster, at the cost of no checks while it is gone.</p></body></html>"
    )
    asked = [
        q.question
        for _, qs in iter_questions(
            doc_chunks(tmp_path, {"ddl-default.html": page}), DOC_TEMPLATES, 20, 0
        )
        for q in qs
    ]
    shown = {w.format(a="default values") for w in PHRASES["example_words"]}
    assert [q for q in asked if "example" in q.lower()] and all(
        q in shown for q in asked if "example" in q.lower()
    ), asked
    how = {w.format(a="remove foreign key constraints") for w in PHRASES["explain_doc_how"]}
    assert [q for q in asked if "foreign key" in q] == [q for q in asked if q in how] != [], asked


def test_a_section_many_documents_share_is_asked_once(tmp_path: Path) -> None:
    """A README template's checklist under the same heading in every task's README (a box
    ticked or not) is asked in the first document only; a description three pages share
    under their own names (CMake's `C_EXTENSIONS`, `CXX_EXTENSIONS`) is asked on each."""
    checklist = (
        "## Checklist\n\nFor adding novel benchmarks to the library:\n\n"
        "[{0}] Is the task an existing benchmark in the literature?\n\n"
        "[{0}] Have you referenced the original paper that introduced the task?\n\n"
        "[ ] If yes, does the original paper provide a reference implementation?\n"
    )
    files = {}
    for i, (name, tick) in enumerate([("arc", "x"), ("boolq", " "), ("copa", "x")]):
        files[f"{name}/README.md"] = (
            f"# {name.upper()}\n\nThe {name} task scores a model on its {i + 3} splits, each "
            f"read from the dataset's own files.\n\n" + checklist.format(tick)
        )
    shared = (
        "Boolean specifying whether compiler specific extensions are requested. This "
        "property specifies whether compiler specific extensions should be used."
    )
    for lang in ("C", "CXX", "CUDA"):
        files[f"{lang}_EXTENSIONS.md"] = f"# {lang}_EXTENSIONS\n\n{shared}\n"
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    chunks = doc_chunks(tmp_path, files)
    asked = [(c.uri, q) for c, qs in iter_questions(chunks, DOC_TEMPLATES, 20, 0) for q in qs]
    listed = [u for u, q in asked if q.answer and "existing benchmark" in q.answer]
    assert len(listed) == 1 and listed[0].endswith("arc/README.md"), asked
    extensions = {u for u, q in asked if q.answer and "compiler specific" in q.answer}
    assert len(extensions) == 3, asked
    assert any("ARC" in q.question for _, q in asked), asked  # a README's title: its heading


def test_a_run_of_tildes_under_a_title_is_its_underline_not_a_fence() -> None:
    """A NEWS file or a reST page underlines a title with tildes; Markdown would open a
    fence there and read the rest of the page as code. A run of tildes as long as the
    title over it is its underline; one under "Example:" still opens a block."""
    text = (
        "NEWS\n====\n\nRelease 3.16.0 (27 May 2020)\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\n"
        "3.16.0 is a feature release with many improvements to the spool allocator.\n\n"
        "Release 3.15.0 (12 April 2019)\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\n"
        "3.15.0 fixes the slot counter and adds a checker for the spool's free list.\n\n"
        "Example:\n~~~\nspool --check\n~~~\n"
    )
    blocks = parse(text, "NEWS", True).blocks
    assert [(b.kind, b.text) for b in blocks if b.kind != "prose"] == [
        ("heading", "NEWS"),
        ("heading", "Release 3.16.0 (27 May 2020)"),
        ("heading", "Release 3.15.0 (12 April 2019)"),
        ("code", "~~~\nspool --check\n~~~"),
    ]
    assert len(fence_lines(text, True)) == 2
    # a month beside a number keeps its capital, and "May" there is no verb
    assert in_sentence("Release 3.16.0 (27 May 2020)", text) == "release 3.16.0 (27 May 2020)"
    assert heading_form("release 3.16.0 (27 may 2020)")[0] == "words"


def test_a_heading_that_is_a_sentence_a_clause_or_a_use_is_asked_as_one(tmp_path: Path) -> None:
    """A heading that says something ("`Spool`s are lazy") is asked whether it holds, not
    "Describe `Spool`s are lazy."; "Using mixins" asks how to use them; a clause ("When to
    flush a spool") is explained, never "an overview of" it; a heading that opens with a
    preposition is asked with the heading above it; a title in title case that opens with
    one ("With Statement Context Managers") is a thing."""
    sections = {
        "## `Spool`s are lazy": "Creating a `Spool` touches no disk at all: the slots are "
        "written only when the spool is first flushed to its file.",
        "## Using mixins": "A mixin adds one behaviour to a spool class, and a class may take "
        "several mixins at once to gain each of them.",
        "## Memory usage tuning": "A spool keeps its slots in memory until it is flushed, so "
        "the memory it needs grows with the number of slots.",
        "### For ring-based spools": "A ring-based spool needs memory for its ring only: the "
        "slots past the ring are written out as they are filled.",
        "## When to flush a spool": "Flush a spool when the slots it holds must survive the "
        "process, or before another process reads the file.",
        "## With Statement Context Managers": "A spool is a context manager: leaving the "
        "block of a with statement flushes the spool and closes its file.",
    }
    text = "# Spool\n\n" + "".join(f"{h}\n\n{body}\n\n" for h, body in sections.items())
    chunks = doc_chunks(tmp_path, {"spool.md": text})
    asked = {
        q.answer: q.question
        for _, qs in iter_questions(chunks, ["explain_topic"], 20, 0)
        for q in qs
        if q.answer
    }
    want = {
        "## `Spool`s are lazy": ("explain_doc_claim", "`Spool`s are lazy"),
        "## Using mixins": ("explain_doc_how", "use mixins"),
        "### For ring-based spools": ("explain_doc", "memory usage tuning for ring-based spools"),
        "## When to flush a spool": ("explain_doc_clause", "when to flush a spool"),
        "## With Statement Context Managers": ("explain_doc", "with statement context managers"),
    }
    for heading, (key, words) in want.items():
        question = asked[sections[heading]]
        assert question in {w.format(a=words) for w in PHRASES[key]}, (heading, question)
    assert "Give an overview of when to flush a spool." not in PHRASES["explain_doc_clause"]
    assert not any(
        q.endswith(("of for ring-based spools.", "about using mixins?")) for q in asked.values()
    )


def test_a_preposition_with_no_heading_above_is_asked_of_its_document(tmp_path: Path) -> None:
    """ "From a script" with no heading above it (or only "Examples") is asked of the
    document's subject, never "What does the documentation say from a script?"."""
    text = (
        "## From a script\n\nCall `spoolctl flush --all` from a script to write every spool's "
        "slots to disk before the script exits.\n\n## Examples\n\n### From the shell\n\n"
        "Run this from the shell to see the slots of each spool as they are written:\n\n"
        "```\nspoolctl watch --all\n```\n"
    )
    chunks = doc_chunks(tmp_path, {"spoolctl.md": text})
    asked = {
        (q.template, q.question)
        for _, qs in iter_questions(chunks, ["explain_topic", "example"], 20, 0)
        for q in qs
    }
    keys = {"explain_doc": "spoolctl from a script", "example_words": "spoolctl from the shell"}
    for key, words in keys.items():
        assert any(q in {w.format(a=words) for w in PHRASES[key]} for _, q in asked), key
    assert len(asked) == 3 and not any(" say from" in q or " give from" in q for _, q in asked)


def test_a_page_named_for_its_place_is_titled_by_its_heading() -> None:
    """ "index.md" and "README.md" are titled by their one level-1 heading; a page named
    for its subject keeps its name (Node's "util.md" is `util`, not "Util"); a page with
    two level-1 headings, or a heading only inside a code fence, has no such title."""
    assert page_title("index.md", "# Quiver\n\nSyncs notes.\n\n## Install\n") == "Quiver"
    assert page_title("README.md", "Intro.\n\n# Quiver Docs #\n") == "Quiver Docs"
    assert page_title("util.md", "# Util\n\nHelpers.\n") == ""
    assert page_title("index.md", "# One\n\n# Two\n") == ""
    assert page_title("index.md", "```\n# not a heading\n```\n\nText.\n") == ""


def test_a_list_is_quoted_whole_or_not_at_all(tmp_path: Path) -> None:
    """A list a paragraph introduces is the answer's whole, or not in it (its lead-in goes);
    a list that opens a section gives its first items that fit; an API's or an event's
    typed parameters over its description are passed over."""
    items = "".join(
        f"- `Mode{k}` keeps the jobs of kind {k} on disk until a worker takes them.\n"
        for k in range(12)
    )
    text = (
        "# taskq\n\n## Compatibility\n\nThe queue runs on:\n\n- Linux and macOS.\n"
        "- Python 3.10 or newer.\n\nIt is tested on the latest patch release.\n\n"
        "## Modes\n\nThe queue has these modes:\n\n" + items + "\n"
        "## Changes\n\n- The `retry` option was added.\n- The `drop` option was removed.\n\n"
        "## Event: `'drain'`\n\n- `count` <integer>\n- `queue` <Queue>\n\n"
        "Emitted when the last job of the queue is done.\n"
    )
    [chunk] = doc_chunks(tmp_path, {"taskq.md": text})
    got = {
        q.question: q.answer
        for q in make_questions(chunk, ["explain_topic"], 20, random.Random(0))
        if q.answer
    }
    answers = set(got.values())
    assert "The queue runs on:\n\n- Linux and macOS.\n- Python 3.10 or newer." in answers
    # twelve modes are too many to quote: the lead-in is not left dangling either
    assert not any("Mode" in a or "these modes" in a for a in answers), got
    assert "- The `retry` option was added.\n- The `drop` option was removed." in answers
    assert "Emitted when the last job of the queue is done." in answers
    assert not any("<integer>" in a for a in answers), got


def test_a_commit_is_no_term_and_an_sccs_line_no_heading() -> None:
    # `git log --oneline` pasted in a how-to, and a what(1) identification line over a README
    text = (
        "Stay up to date\n===============\n\n"
        "* b11628b more: move runtime usage output away from command()\n"
        "* f831657 script: remove io vs signal race\n"
        "* `--follow`: keep reading the file as it grows\n\n"
        "@(#)README 5.1 (Berkeley) 5/22/90\n"
        "=================================\n\n"
        "col - filter out reverse line feeds.\n\n"
        # a root prompt indented by tabs is a command in an example, not a Markdown heading
        "\t\t# chroot . ./mount.static -v /mnt/win\n\t\tLABEL=/mnt/win on /mnt/win\n"
    )
    blocks = parse(text, "howto.txt").blocks
    assert [b.term for b in blocks if b.kind == "definition"] == ["--follow"]
    assert [b.text for b in blocks if b.kind == "heading"] == ["Stay up to date"]


def test_a_name_that_begins_a_sentence_is_no_term() -> None:
    # a release note's item: its name in code is the sentence's subject; "is" defines it
    text = (
        "Fixes\n=====\n\n"
        " * `parse_object()` has been hardened to check for a suspected blob object.\n\n"
        " * `git rebase --update-refs` would delete references, which has been corrected.\n\n"
        " * `non_nl_string` is any string not containing a newline.\n\n"
        " * `--all`: show every entry there is.\n"
    )
    blocks = parse(text, "notes.txt").blocks
    assert [b.term for b in blocks if b.kind == "definition"] == ["non_nl_string", "--all"]
