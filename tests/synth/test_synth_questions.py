"""Question templates on real stdlib docstrings: which questions, which answers, and that
every answer is quoted from the documents."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from jupiter.errors import JupiterError
from jupiter.records import Chunk, Document
from jupiter.synth.base import Catalog, make_questions
from jupiter.synth.docparse import clean
from jupiter.synth.questions import PHRASES, TEMPLATES

ALL = list(TEMPLATES)
# templates for documentation other than docstrings (test_doc_questions.py)
DOC_ONLY = {"define", "example", "cloze"}


def norm(text: str) -> str:
    return " ".join(text.split())


def by_template(chunk: Chunk, catalog: Catalog | None = None, seed: int = 0) -> dict[str, str]:
    qs = make_questions(chunk, ALL, 10, random.Random(seed), catalog)
    assert all(q.chunk_id == chunk.id for q in qs)
    return {q.template: q for q in qs}  # type: ignore[misc]


def test_json_dumps_templates(by_title: Callable[[str], Chunk], stdlib_chunks: list[Chunk]) -> None:
    dumps = by_title("json.dumps")
    qs = by_template(dumps, Catalog(stdlib_chunks))
    # no sentence of the json.dumps docstring says what it returns, and the dump/dumps
    # pair is asked once, from json.dump
    assert set(qs) == {"what_does", "arguments", "signature"}

    # answers are the docstring's words without their markup (``obj`` -> `obj`)
    assert qs["what_does"].answer == "Serialize `obj` to a JSON formatted `str`."
    assert "`json.dumps`" in qs["what_does"].question

    args = qs["arguments"].answer
    assert args.startswith("`json.dumps` takes 11 arguments: obj, skipkeys=False,")
    assert "indent=None" in args and "Keyword-only: skipkeys," in args
    assert "- indent: If `indent` is a non-negative integer" in args

    assert qs["signature"].answer.startswith("`json.dumps(obj, *, skipkeys=False,")
    assert qs["signature"].answer.endswith("sort_keys=False, **kw)`")

    diff = by_template(by_title("json.dump"), Catalog(stdlib_chunks))["difference"]
    assert "`json.dump`" in diff.question and "`json.dumps`" in diff.question
    assert diff.answer == (
        "`json.dump`: Serialize `obj` as a JSON formatted stream to `fp` (a "
        "`.write()`-supporting file-like object).\n\n"
        "`json.dumps`: Serialize `obj` to a JSON formatted `str`."
    )


def test_answers_are_quoted_from_the_chunks(stdlib_chunks: list[Chunk]) -> None:
    """Every answer is its chunk's words: the same text once markup is cleaned from both."""

    def norm(text: str) -> str:
        return clean(text)

    corpus = {c.title: norm(c.text) for c in stdlib_chunks if c.start == 0}
    catalog = Catalog(stdlib_chunks)
    seen = set()
    for c in stdlib_chunks:
        text = norm(c.text)
        for q in make_questions(c, ALL, 10, random.Random(1), catalog):
            seen.add(q.template)
            assert q.answer
            if (
                q.template == "what_does"
                or q.template == "returns"
                or q.template == "explain_topic"
            ):
                assert norm(q.answer) in text, q
            elif q.template == "signature":
                assert norm(q.answer.strip("`").split("(", 1)[1]) in text
            elif q.template == "arguments":
                for line in q.answer.splitlines()[2:]:  # per-parameter notes
                    assert norm(line.split(": ", 1)[1]) in text, line
            elif q.template == "difference":
                for part in q.answer.split("\n\n"):
                    name, summary = part.split(": ", 1)
                    assert norm(summary) in corpus[name.strip("`")]
    assert seen == set(ALL) - DOC_ONLY


def test_returns_only_with_a_return_sentence(by_title: Callable[[str], Chunk]) -> None:
    assert by_template(by_title("os.path.abspath"))["returns"].answer == "Return an absolute path."
    encode = by_template(by_title("json.JSONEncoder.encode"))
    assert encode["returns"].answer.startswith("Return a JSON string representation")
    # json.loads mentions "the return value of object_hook", which is not what loads returns
    assert "returns" not in by_template(by_title("json.loads"))


def test_difference_pairs_similar_siblings(stdlib_chunks: list[Chunk]) -> None:
    catalog = Catalog(stdlib_chunks)
    assert catalog.partner("json.dumps") == "json.dump"
    assert catalog.partner("json.loads") == "json.load"
    assert catalog.partner("os.path.realpath") == "os.path.abspath"
    assert catalog.partner("os.path.exists") is None  # no similarly named sibling
    assert catalog.partner("json") is None


def test_explain_topic(by_title: Callable[[str], Chunk]) -> None:
    q = by_template(by_title('The "for" statement'))
    assert set(q) == {"explain_topic"}
    topic = q["explain_topic"]
    assert 'the "for" statement' in topic.question and "Python" in topic.question
    assert topic.answer.startswith('The "for" statement is used to iterate over the elements')
    # the grammar the first paragraph introduces comes with it, then the second paragraph
    assert 'for_stmt ::= "for" target_list' in topic.answer
    assert 'The "starred_list" expression is evaluated once' in topic.answer


def test_explain_topic_on_a_local_markdown_file() -> None:
    text = (
        "# Build system\n\nThe build system compiles every module into one archive, "
        "in dependency order.\n\n## Caching\n\nOutputs are cached by content hash, so an "
        "unchanged module is never rebuilt.\n\n```\nmake cache\n```\n"
    )
    doc = Document("local", "/docs/build.md", "build.md", text)
    c = Chunk(doc.id, "local", doc.uri, doc.title, 0, len(text), text)
    qs = make_questions(c, ALL, 5, random.Random(0))
    assert {q.template for q in qs} == {"explain_topic"}
    assert len(qs) == 2
    # a section named by a plain word, asked of its document
    asked = {q.question: q.answer or "" for q in qs}
    caching = [q for q in asked if "caching of build" in q or "build say about its caching" in q]
    assert len(caching) == 1 and "content hash" in asked[caching[0]], asked
    assert all("Python" not in q.question for q in qs)


def test_phrasing_varies_with_the_seed_and_is_deterministic(
    by_title: Callable[[str], Chunk],
) -> None:
    c = by_title("json.dumps")
    runs = [make_questions(c, ALL, 10, random.Random(s)) for s in range(12)]
    again = [make_questions(c, ALL, 10, random.Random(s)) for s in range(12)]
    assert runs == again
    what = {q.question for run in runs for q in run if q.template == "what_does"}
    assert len(what) >= 3  # several paraphrases, all from the template's list
    assert what <= {p.format(a="json.dumps") for p in PHRASES["what_does"]}


def test_max_per_chunk_spreads_over_templates(by_title: Callable[[str], Chunk]) -> None:
    qs = make_questions(by_title("json.dumps"), ALL, 2, random.Random(3))
    assert len(qs) == 2 and len({q.template for q in qs}) == 2


def test_template_subset_and_unknown_template(by_title: Callable[[str], Chunk]) -> None:
    qs = make_questions(by_title("json.dumps"), ["signature"], 3, random.Random(0))
    assert [q.template for q in qs] == ["signature"]
    with pytest.raises(JupiterError, match="unknown generator template 'nope'"):
        make_questions(by_title("json.dumps"), ["what_does", "nope"], 3, random.Random(0))


def test_module_and_builtin_documents(by_title: Callable[[str], Chunk]) -> None:
    module = by_template(by_title("json"))
    assert set(module) == {"what_does"}
    wording = {p.format(a="json") for p in PHRASES["what_does_module"]}
    assert module["what_does"].question in wording
    assert module["what_does"].answer.startswith("JSON (JavaScript Object Notation)")

    # a builtin without an introspectable signature: bare name, then the docstring's own
    text = (
        "getattr\n\ngetattr(object, name[, default]) -> value\n\n"
        "Get a named attribute from an object; getattr(x, 'y') is equivalent to x.y."
    )
    doc = Document("python_stdlib", "python:builtins.getattr", "builtins.getattr", text)
    c = Chunk(doc.id, doc.source, doc.uri, doc.title, 0, len(text), text)
    qs = by_template(c)
    assert qs["signature"].answer == "`getattr(object, name[, default]) -> value`"
    assert qs["arguments"].answer.startswith("`getattr` takes 3 arguments: object, name, default.")
    assert qs["what_does"].answer.startswith("Get a named attribute from an object;")
    assert all("builtins" not in q.question for q in qs.values())


def test_a_parameter_line_read_whole_does_not_repeat_the_name() -> None:
    # a field whose text reads as code ("A `GType`") is no definition to the parser; the
    # line is still the parameter's note, without its ":param type:" (the answer names it)
    text = (
        "gdk_content_formats_new_for_gtype(GType type)\n\nCreates a new `GdkContentFormats` "
        "for a given `GType`.\n\n:param type: A `GType`\n:returns: A new `GdkContentFormats`"
    )
    doc = Document(
        "local",
        "c:gdk_content_formats_new_for_gtype",
        "gdk_content_formats_new_for_gtype",
        text,
        {"kind": "function", "language": "c"},
    )
    chunk = Chunk(doc.id, doc.source, doc.uri, doc.title, 0, len(text), text)
    args = by_template(chunk)["arguments"].answer
    assert args.endswith("takes 1 argument: GType type.\n\n- type: A `GType`")
