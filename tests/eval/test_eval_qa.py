"""The eval set loader, the shipped Python eval set, SQuAD scoring and multiple choice."""

from __future__ import annotations

import builtins
import importlib
import inspect
import json
import re
import string
from collections import Counter
from pathlib import Path
from pydoc_data.topics import topics
from typing import Any

import pytest

from jupiter.errors import JupiterError
from jupiter.eval.mc import build_mc
from jupiter.eval.qa import (
    QAItem,
    exact_match,
    load_eval_set,
    normalize_answer,
    token_f1,
)

SHIPPED = Path(__file__).resolve().parents[2] / "config" / "domains" / "python_eval.jsonl"
TOPIC_SOURCE = re.compile(r"pydoc_data\.topics\['([^']+)'\]")
STOPWORDS = set(
    "a an the of to and or is are it its in on for with by as if be that this from at".split()
)


# ------------------------------------------------------------------ the shipped eval set
def _resolve(dotted: str) -> Any:
    """A dotted name in this interpreter: the longest importable module prefix, then getattr."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        rest = parts[i:]
        break
    else:
        obj, rest = builtins, parts
    for part in rest:
        obj = getattr(obj, part)
    return obj


def _source_text(source: str) -> str:
    """The documentation text a source names: "NAME docstring" or "pydoc_data.topics['KEY']"."""
    texts = []
    for one in source.split(";"):
        one = one.strip()
        m = TOPIC_SOURCE.fullmatch(one)
        if m:
            assert m.group(1) in topics, f"no pydoc topic {m.group(1)!r}"
            texts.append(topics[m.group(1)])
            continue
        assert one.endswith(" docstring"), f"unknown source form: {one!r}"
        doc = inspect.getdoc(_resolve(one.removesuffix(" docstring")))
        assert doc, f"{one}: empty docstring"
        texts.append(doc)
    return "\n".join(texts)


def _words(text: str) -> list[str]:
    return "".join(" " if c in string.punctuation else c for c in text.lower()).split()


@pytest.fixture(scope="module")
def shipped() -> list[QAItem]:
    return load_eval_set(SHIPPED)


def test_shipped_set_size_ids_and_fields(shipped: list[QAItem]) -> None:
    assert len(shipped) >= 150
    assert len({it.id for it in shipped}) == len(shipped)
    assert all(re.fullmatch(r"py-\d{3}", it.id) for it in shipped)
    for it in shipped:
        assert it.question and it.answer and it.source and it.topic, it.id
        assert len(it.answer.split()) <= 45, it.id
    assert len({it.question for it in shipped}) == len(shipped)
    topics_count = Counter(it.topic for it in shipped)
    assert topics_count["language"] >= 40
    assert len(topics_count) >= 30
    # stratified order: a quick run's eval.max_items prefix still spans many topics
    assert len({it.topic for it in shipped[:40]}) >= 20


def test_shipped_sources_resolve_and_support_the_answer(shipped: list[QAItem]) -> None:
    # every source names real documentation in this interpreter, and most of the answer's
    # content words occur in it: a guard against answers detached from their source
    for it in shipped:
        doc_words = set(_words(_source_text(it.source)))
        content = [w for w in _words(it.answer) if w not in STOPWORDS]
        covered = sum(w in doc_words for w in content) / len(content)
        assert covered >= 0.4, f"{it.id}: only {covered:.0%} of the answer is in {it.source}"


# ------------------------------------------------------------------------------ loading
def _write(tmp_path: Path, lines: list[str]) -> Path:
    p = tmp_path / "set.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def _line(**fields: str) -> str:
    return json.dumps(fields)


def test_load_reads_items_and_skips_blank_lines(tmp_path: Path) -> None:
    first = _line(id="a", question="Q1?", answer="A1", source="s", topic="t")
    p = _write(tmp_path, [first, "", _line(id="b", question="Q2?", answer="A2")])
    items = load_eval_set(p)
    assert items == [QAItem("a", "Q1?", "A1", "s", "t"), QAItem("b", "Q2?", "A2", "", "")]


def test_load_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    p = _write(tmp_path, [_line(id="a", question="Q?", answer="A"), "{not json"])
    with pytest.raises(JupiterError, match=r"set\.jsonl:2: malformed JSON"):
        load_eval_set(p)


def test_load_missing_field_names_the_field_and_line(tmp_path: Path) -> None:
    p = _write(
        tmp_path, ["", _line(id="a", question="Q?", answer="A"), _line(id="b", question="Q?")]
    )
    with pytest.raises(JupiterError, match=r"set\.jsonl:3: missing field 'answer'"):
        load_eval_set(p)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1, 2]", "expected a JSON object"),
        (
            json.dumps({"id": "a", "question": "  ", "answer": "A"}),
            "'question' must be a non-empty",
        ),
        (json.dumps({"id": 3, "question": "Q", "answer": "A"}), "'id' must be a non-empty string"),
    ],
)
def test_load_rejects_bad_values(tmp_path: Path, line: str, message: str) -> None:
    with pytest.raises(JupiterError, match=rf":1: .*{re.escape(message)}"):
        load_eval_set(_write(tmp_path, [line]))


def test_load_duplicate_id_and_missing_file(tmp_path: Path) -> None:
    p = _write(tmp_path, [_line(id="a", question="Q?", answer="A")] * 2)
    with pytest.raises(JupiterError, match=r":2: duplicate id 'a' \(first on line 1\)"):
        load_eval_set(p)
    with pytest.raises(JupiterError, match="eval set not found"):
        load_eval_set(tmp_path / "nope.jsonl")


# ------------------------------------------------------------------------------ scoring
def test_normalize_answer() -> None:
    assert normalize_answer("  The Cat, sat!  ") == "cat sat"
    assert normalize_answer("An apple a day") == "apple day"
    assert normalize_answer("theme is another") == "theme is another"  # articles as words only
    assert normalize_answer("os.path.join()") == "ospathjoin"


def test_token_f1_hand_computed() -> None:
    # "cat sat" vs "cat sat down": precision 1, recall 2/3 -> F1 = 0.8
    assert token_f1("the cat sat", "a cat sat down") == pytest.approx(0.8)
    # "x1 x2 x3 x4" vs "x1 x2 x5": overlap 2, P = 1/2, R = 2/3 -> F1 = 4/7
    assert token_f1("x1 x2 x3 x4", "x1 x2 x5") == pytest.approx(4 / 7)
    # repeated tokens count once per match: "cat cat" vs "cat": P 1/2, R 1 -> 2/3
    assert token_f1("cat cat", "cat") == pytest.approx(2 / 3)
    assert token_f1("The Cat.", "cat") == 1.0
    assert token_f1("dog", "cat") == 0.0
    assert token_f1("", "cat") == 0.0
    assert token_f1("the", "a") == 1.0  # both normalize to nothing: SQuAD scores agreement


def test_exact_match() -> None:
    assert exact_match("The answer!", "answer")
    assert not exact_match("an answer too", "answer")


# ---------------------------------------------------------------------- multiple choice
def _items() -> list[QAItem]:
    out = []
    for topic in ("alpha", "beta", "gamma"):
        for k in range(5):
            out.append(
                QAItem(f"{topic}-{k}", f"Q {topic} {k}?", f"{topic} answer {k}", topic=topic)
            )
    return out


def test_build_mc_shape_and_correct_choice() -> None:
    items = _items()
    mc = build_mc(items, n_choices=4, seed=0)
    assert [m.id for m in mc] == [it.id for it in items]
    for m, it in zip(mc, items, strict=True):
        assert m.question == it.question
        assert len(m.choices) == 4
        assert len({normalize_answer(c) for c in m.choices}) == 4
        assert m.choices.count(it.answer) == 1
        assert m.choices[m.correct] == it.answer
        # enough same-topic answers exist, so every distractor is from the same topic
        assert all(c.startswith(it.topic) for c in m.choices)


def test_build_mc_deterministic_and_order_independent() -> None:
    items = _items()
    a = build_mc(items, 4, seed=7)
    assert a == build_mc(items, 4, seed=7)
    by_id = {m.id: m for m in build_mc(list(reversed(items)), 4, seed=7)}
    assert all(by_id[m.id] == m for m in a)
    b = build_mc(items, 4, seed=8)
    assert a != b
    positions = Counter(m.correct for m in build_mc(items, 4, seed=3))
    assert len(positions) > 1  # the correct answer is not always in one place


def test_build_mc_falls_back_to_other_topics_and_skips_duplicate_answers() -> None:
    items = [
        QAItem("x", "Q x?", "same", topic="lonely"),
        QAItem("y", "Q y?", "The same.", topic="lonely"),  # normalizes equal to "same"
        QAItem("z1", "Q z1?", "z one", topic="z"),
        QAItem("z2", "Q z2?", "z two", topic="z"),
    ]
    m = build_mc(items, 3, seed=0)[0]
    assert sorted(m.choices) == ["same", "z one", "z two"]


def test_build_mc_too_few_answers() -> None:
    with pytest.raises(JupiterError, match="at least 4 distinct answers"):
        build_mc(_items()[:3], 4, seed=0)
    with pytest.raises(JupiterError, match="at least 2"):
        build_mc(_items(), 1, seed=0)
