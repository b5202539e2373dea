"""run_filters: every example gets a decision, reasons are counted and sampled."""

from __future__ import annotations

from pathlib import Path

from jupiter.config import DedupConfig, FilterConfig
from jupiter.filters import ACCEPTED, REJECTED, FilterResult, format_counts, run_filters
from jupiter.records import Example
from jupiter.store import Store

SYSTEM = (
    "You are an expert on the Python standard library. Answer precisely, cite the module "
    "and function names you rely on, and say so when something is not documented."
)
PARAGRAPH = (
    "The json module encodes Python objects as JSON text and decodes JSON text back into "
    "Python objects. Use dumps to produce a string and dump to write directly to a file "
    "object. Both accept an indent argument for pretty printing, a sort_keys flag for stable "
    "output, and a default callable that converts objects the encoder does not know about."
)
EVAL_ANSWER = (
    "shutil.rmtree deletes an entire directory tree; path must point to a directory but "
    "not a symbolic link to a directory, and errors are ignored when ignore_errors is true."
)


def qa(question: str, answer: str, system: str = SYSTEM) -> Example:
    messages = [{"role": "system", "content": system}] if system else []
    messages += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    return Example(kind="qa", generator="test", chunk_id="c", template="t", messages=messages)


def text(body: str) -> Example:
    return Example(kind="text", generator="test", chunk_id="c", template="continuation", text=body)


def batch() -> tuple[list[Example], dict[str, str]]:
    """Examples with the reason each must get ("" = accepted)."""
    near = PARAGRAPH.replace("pretty printing", "pretty output")
    cases = [
        (qa("What does json.dumps return?", "The JSON encoding of obj, as a str."), ""),
        (qa("What does json.loads return?", "The Python object decoded from the JSON text."), ""),
        (qa("WHAT does json.dumps return", "the JSON encoding of obj as a str"), "exact_duplicate"),
        (qa("What does os.sep hold?", "A str"), "answer_too_short"),
        (qa("What does os.sep hold?", ""), "empty_answer"),
        (text("tiny"), "too_short"),
        (text(PARAGRAPH), ""),
        (text(near), "near_duplicate"),
        (text("Sentence here.\n" * 5), "dup_lines"),
        (qa("How do I remove a folder?", "In short: " + EVAL_ANSWER.upper()), "contaminated"),
        (qa("Why?", "It returns the the the the the the the the the the the"), "char_repetition"),
    ]
    return [c[0] for c in cases], {c[0].id: c[1] for c in cases}


def test_every_example_gets_its_reason_and_counts_add_up() -> None:
    examples, expected = batch()
    result = run_filters(examples, FilterConfig(), [EVAL_ANSWER])
    assert [d[0] for d in result.decisions] == [e.id for e in examples]  # input order
    for ex_id, status, reason in result.decisions:
        assert reason == expected[ex_id]
        assert status == (ACCEPTED if not reason else REJECTED)
    assert result.counts == {
        "accepted": 3,
        "exact_duplicate": 1,
        "answer_too_short": 1,
        "empty_answer": 1,
        "too_short": 1,
        "near_duplicate": 1,
        "dup_lines": 1,
        "contaminated": 1,
        "char_repetition": 1,
    }
    assert sum(result.counts.values()) == len(examples)


def test_samples_are_kept_per_reason_and_truncated() -> None:
    # 8 long examples, no word shared: not repetitive, not duplicates of each other
    bodies = [" ".join(f"w{i}x{j}" for j in range(100)) for i in range(8)]
    examples = [text(f"Example number {i}: {body}") for i, body in enumerate(bodies)]
    examples += [text("short")] * 7
    result = run_filters(examples, FilterConfig(), [])
    assert result.counts == {"accepted": 8, "too_short": 7}
    assert len(result.samples["accepted"]) == 5
    assert len(result.samples["too_short"]) == 5
    assert result.samples["too_short"][0] == "short"
    first = result.samples["accepted"][0]
    assert first.startswith("Example number 0:") and first.endswith("…")
    assert len(first) == 301


def test_seen_examples_cause_drops_but_are_not_decided() -> None:
    earlier = [
        qa("What does json.dumps return?", "The JSON encoding of obj, as a str."),
        text(PARAGRAPH),
    ]
    now = [
        qa("what does json.dumps return?", "The JSON encoding of obj as a str."),
        text(PARAGRAPH.replace("pretty printing", "pretty output")),
        qa("What does json.loads return?", "The Python object decoded from the JSON text."),
    ]
    result = run_filters(now, FilterConfig(), [], seen=earlier)
    assert [d[2] for d in result.decisions] == ["exact_duplicate", "near_duplicate", ""]
    assert sum(result.counts.values()) == len(now)
    fresh = run_filters(now, FilterConfig(), [])
    assert fresh.counts == {"accepted": 3}


def test_dedup_can_be_switched_off() -> None:
    examples, _ = batch()
    no_near = FilterConfig(dedup=DedupConfig(near=False))
    counts = run_filters(examples, no_near, [EVAL_ANSWER]).counts
    assert "near_duplicate" not in counts and counts["accepted"] == 4
    no_exact = FilterConfig(dedup=DedupConfig(exact=False))
    counts = run_filters(examples, no_exact, [EVAL_ANSWER]).counts
    # the case-changed copy is still caught, by MinHash (its normalized words are identical)
    assert "exact_duplicate" not in counts and counts["near_duplicate"] == 2
    neither = FilterConfig(dedup=DedupConfig(exact=False, near=False))
    assert run_filters(examples, neither, [EVAL_ANSWER]).counts["accepted"] == 5


def test_first_reason_wins() -> None:
    dup_and_short = [text("x" * 30 + " and more words"), text("tiny"), text("tiny")]
    result = run_filters(dup_and_short, FilterConfig(), ["tiny tiny tiny"])
    assert [d[2] for d in result.decisions] == ["char_repetition", "too_short", "too_short"]


def test_shared_system_prompt_does_not_make_examples_duplicates() -> None:
    a = qa("What does math.floor do?", "Returns the largest integer less than or equal to x.")
    b = qa("What does math.ceil do?", "Returns the smallest integer greater than or equal to x.")
    assert run_filters([a, b], FilterConfig(), []).counts == {"accepted": 2}


def test_run_is_deterministic() -> None:
    examples, _ = batch()
    one = run_filters(examples, FilterConfig(), [EVAL_ANSWER])
    two = run_filters(list(examples), FilterConfig(), [EVAL_ANSWER])
    assert one == two


def test_format_counts_rows() -> None:
    rows = format_counts({"too_short": 1, "accepted": 6, "dup_lines": 1, "contaminated": 2})
    assert rows == [
        ("accepted", 6, "60.0%"),
        ("contaminated", 2, "20.0%"),
        ("dup_lines", 1, "10.0%"),
        ("too_short", 1, "10.0%"),
    ]
    assert format_counts({}) == []


def test_decisions_apply_to_the_store(tmp_path: Path) -> None:
    examples, expected = batch()
    result: FilterResult = run_filters(examples, FilterConfig(), [EVAL_ANSWER])
    with Store(tmp_path / "j.sqlite") as store:
        store.add_examples(examples)
        store.set_status(result.decisions)
        store.record_filter_stats(1, "filter", result.counts, result.samples)
        counts = store.example_counts()
        assert counts[("accepted", "")] == 3
        assert counts[("rejected", "contaminated")] == 1
        stats = {s["reason"]: s for s in store.filter_stats(1)}
        assert stats["near_duplicate"]["count"] == 1
        assert stats["near_duplicate"]["samples"][0].startswith("The json module")


def test_language_relevance_and_13gram_decontamination_in_the_runner() -> None:
    spanish = (
        "El módulo json convierte objetos de Python en texto JSON y vuelve a convertir el "
        "texto en objetos. La función dumps devuelve una cadena y la función dump escribe "
        "directamente en un archivo abierto. Ambas aceptan una sangría para imprimir de "
        "forma legible y una opción para ordenar las claves."
    )
    off_topic = (
        "The recipe needs two cups of flour, a spoon of sugar and three eggs. Whisk the eggs "
        "first, fold in the flour slowly, then bake the batter for twenty minutes until the "
        "top turns golden. Let it cool before slicing and serving with fresh fruit."
    )
    question = (
        "Which function of the shutil module removes a whole directory tree, and what "
        "happens to errors when ignore_errors is set to true?"
    )
    rewrapped = "Q: " + question.upper().replace(" a whole ", "\n  a  whole\n")
    examples = [
        text(PARAGRAPH),
        text(spanish),
        text(off_topic),
        qa(rewrapped, EVAL_ANSWER, system=""),
    ]
    cfg = FilterConfig(relevance=True)
    res = run_filters(
        examples, cfg, [question], language="en", keywords=["python", "json", "module", "shutil"]
    )
    assert [r for _, _, r in res.decisions] == ["", "wrong_language", "off_topic", "contaminated"]
    # switched off, the same texts pass those filters
    loose = FilterConfig(language_filter=False, relevance=False, decontam_method="overlap")
    res = run_filters(examples[:3], loose, [question], language="en", keywords=["python"])
    assert [d for _, d, _ in res.decisions] == [ACCEPTED] * 3
