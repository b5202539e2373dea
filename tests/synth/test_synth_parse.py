"""Reading chunk structure: signatures, parameters, sentences, headings, section intros."""

from __future__ import annotations

import pytest

from jupiter.records import Chunk
from jupiter.synth.parse import (
    headings,
    lead,
    parameters,
    section_intro,
    sentences,
    split_signature,
    strip_numbering,
    view,
)


def test_split_signature_the_collector_ways() -> None:
    text = "dumps(obj, *, indent=None)\n\nSerialize ``obj``."
    assert split_signature(text, "json.dumps") == (
        "(obj, *, indent=None)",
        "Serialize ``obj``.",
        False,
    )
    method = "JSONEncoder.encode(o)\n\nReturn a JSON string."
    assert split_signature(method, "json.JSONEncoder.encode")[0] == "(o)"
    # no introspectable signature: the bare name, and the docstring's own signature line
    builtin = "getattr\n\ngetattr(object, name[, default]) -> value\n\nGet an attribute."
    assert split_signature(builtin, "builtins.getattr") == (
        "(object, name[, default]) -> value",
        "Get an attribute.",
        False,
    )
    assert split_signature("Pattern.scanner\n\nScan it.", "re.Pattern.scanner") == (
        "",
        "Scan it.",
        False,
    )
    # a module's document is its docstring alone
    assert split_signature("JSON is a format.\n", "json") == ("", "JSON is a format.\n", True)


def test_view_classifies_by_uri() -> None:
    c = Chunk(
        "d", "python_stdlib", "python:os.path.join", "os.path.join", 0, 10, "join(a, *p)\n\nJoin."
    )
    v = view(c)
    assert (v.kind, v.name, v.signature, v.body) == ("api", "os.path.join", "(a, *p)", "Join.")
    later = Chunk("d", "python_stdlib", "python:os.path.join", "os.path.join", 5, 10, "join(a)")
    assert view(later).signature == ""  # only a document's first chunk opens with it
    topic = Chunk("t", "python_stdlib", "pydoc:topics/for", "for", 0, 3, "x")
    assert view(topic).kind == "topic"
    assert view(Chunk("l", "local", "/a/b.md", "b.md", 0, 1, "x")).kind == "doc"


def test_parameters() -> None:
    params = parameters("(self, a, /, b=(1, 2), *args, c: int = 3, **kw) -> str")
    assert [(p.name, p.text, p.keyword_only) for p in params] == [
        ("a", "a", False),
        ("b", "b=(1, 2)", False),
        ("args", "*args", False),
        ("c", "c: int = 3", True),
        ("kw", "**kw", False),
    ]
    assert [p.name for p in parameters("(s, *, sep=', ')")] == ["s", "sep"]
    assert parameters("") == [] and parameters("()") == []
    optional = parameters("(object, name[, default]) -> value")
    assert [p.text for p in optional] == ["object", "name", "default"]


def test_sentences_keep_abbreviations_together() -> None:
    text = "Use it, e.g. for lists. buffers must be bytes. Done!"
    assert sentences(text) == ["Use it, e.g. for lists.", "buffers must be bytes.", "Done!"]
    # an ellipsis inside a sentence does not end it
    text = "It iterates over the numbers 0, 1, ... up to the integer ``<stop>``. Next."
    assert sentences(text) == [
        "It iterates over the numbers 0, 1, ... up to the integer ``<stop>``.",
        "Next.",
    ]
    # nor does an abbreviation that opens a parenthesis
    text = "Return None if it is not there (e.g. before the handshake). Next."
    assert sentences(text) == [
        "Return None if it is not there (e.g. before the handshake).",
        "Next.",
    ]


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        ("2.1. What the queue does with your job", "What the queue does with your job"),
        ("4.5.2. Valid-address (A) bits", "Valid-address (A) bits"),
        ("10. README.android", "README.android"),
        ("3.12 What is new", "What is new"),
        ("A.2. Glossary", "Glossary"),
        ("2 Using the queue", "Using the queue"),
        ("4.1. if Statements", "if Statements"),
        # not numbering: a number that is the title, an article, a word starting with a digit
        ("3.4.1.", "3.4.1."),
        ("2.0", "2.0"),
        ("A Tour of the Queue", "A Tour of the Queue"),
        ("3 ways to retry", "3 ways to retry"),
        ("2to3", "2to3"),
    ],
)
def test_strip_numbering(heading: str, name: str) -> None:
    assert strip_numbering(heading) == name


def test_lead_skips_code_and_old_style_signatures() -> None:
    text = "spawnve(mode, file, args, env) -> integer\n\n    code()\n\nExecute file with args.\n"
    assert lead(text) == "Execute file with args."


def test_headings_markdown_and_underlined() -> None:
    text = '# Intro\n\nText.\n\nThe "for" statement\n*******************\n\nMore.\n'
    found = headings(text)
    assert [h for h, _ in found] == ["Intro", 'The "for" statement']
    assert text[found[1][1] :].strip() == "More."


def test_section_intro_keeps_the_block_a_paragraph_introduces() -> None:
    text = (
        "Loops repeat code:\n\n   for x in y:\n       pass\n\nThe body runs once per item.\n\n"
        "A third paragraph.\n"
    )
    assert section_intro(text) == (
        "Loops repeat code:\n\nfor x in y:\n    pass\n\nThe body runs once per item."
    )
