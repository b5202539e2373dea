"""Expert assignment on crafted examples, and the expert and router datasets on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupiter.data.experts import EXPERT_KEYWORDS, assign_expert, build_expert_datasets
from jupiter.data.export import SPLITS
from jupiter.errors import JupiterError
from jupiter.records import Example

ALL = ["python", "sql", "javascript", "debug", "ml", "api"]


def qa(question: str, answer: str, chunk: str = "c0") -> Example:
    return Example(
        kind="qa",
        generator="test",
        chunk_id=chunk,
        template="t",
        messages=[
            {"role": "user", "content": question},
            {"role": "assistant", "content": answer},
        ],
    )


PYTHON = qa(
    "How do I write a decorator that times a function?",
    "Wrap it:\n```python\nimport time\n\ndef timed(fn):\n    def inner(*args, **kwargs):\n"
    "        t = time.perf_counter()\n        return fn(*args, **kwargs)\n    return inner\n```",
)
SQL = qa(
    "How do I count orders per customer?",
    "Group them:\n\nSELECT customer_id, COUNT(*) FROM orders GROUP BY customer_id;",
)
JAVASCRIPT = qa(
    "How do I debounce a handler in the browser?",
    "```js\nconst debounce = (fn, ms) => {\n  let t;\n  return (...a) => {\n"
    "    clearTimeout(t);\n    t = setTimeout(() => fn(...a), ms);\n  };\n};\n```",
)
DEBUG = qa(
    "My script crashes with this:\nTraceback (most recent call last):\n"
    '  File "app.py", line 3, in <module>\n    print(user["name"])\nKeyError: \'name\'\n'
    "How do I fix it?",
    "The dict has no key 'name': check it first, or use user.get('name').",
)
ML = qa(
    "Why does my model's validation loss rise while training loss falls?",
    "That is overfitting: add regularization, more data, or stop at the best epoch.",
)
API = qa(
    "How do I call the endpoint with a token?",
    "Send the header:\n\ncurl -H 'Authorization: Bearer TOKEN' https://api.example.com/v1/items\n"
    "A 401 Unauthorized response means the token expired.",
)
OFF_TOPIC = qa("What is the capital of France?", "Paris.")


@pytest.mark.parametrize(
    ("example", "expert"),
    [(PYTHON, "python"), (SQL, "sql"), (JAVASCRIPT, "javascript"), (DEBUG, "debug")]
    + [(ML, "ml"), (API, "api")],
)
def test_crafted_examples_go_to_their_expert(example: Example, expert: str) -> None:
    assert assign_expert(example, ALL) == expert


def test_assignment_edge_cases() -> None:
    assert assign_expert(OFF_TOPIC, ALL) is None
    assert assign_expert(PYTHON, []) is None
    assert assign_expert(SQL, ["python", "javascript"]) is None  # no SQL expert, none fits
    # a JavaScript stack trace is a debugging question, not a JavaScript one
    js_error = qa(
        "Why does this fail?\nTypeError: items.map is not a function\n    at render (app.js:12:9)",
        "items is not an array here.",
    )
    assert assign_expert(js_error, ALL) == "debug"
    # custom experts: keyword sets from the config
    ue = qa("How do I spawn an actor in a blueprint?", "Use SpawnActor from the level blueprint.")
    assert assign_expert(ue, ALL) is None
    assert assign_expert(ue, ["unreal", *ALL], {"unreal": ["actor", "blueprint"]}) == "unreal"
    assert set(EXPERT_KEYWORDS) == set(ALL)


def corpus() -> list[Example]:
    """Five examples each of python, sql, javascript and debug per document, 24 documents;
    plus one off-topic example per document."""
    out = []
    for d in range(24):
        for k in range(5):
            n = d * 5 + k
            c = f"c{d}"
            out += [
                qa(
                    f"How do I write decorator {n} in Python?",
                    f"```python\ndef f{n}(): ...\n```",
                    c,
                ),
                qa(f"How do I query table t{n}?", f"SELECT a FROM t{n} WHERE b = {n};", c),
                qa(f"How do I log {n} in JavaScript?", f"```js\nconsole.log({n});\n```", c),
                qa(f"It crashes:\nValueError: bad value {n}", f"Fix input {n}: check it first.", c),
            ]
        out.append(qa(f"Who painted picture {d}?", "A painter.", f"c{d}"))
    return out


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_expert_and_router_datasets(tmp_path: Path) -> None:
    experts = ["python", "sql", "javascript", "debug"]
    doc_of = lambda ex: "doc-" + ex.chunk_id  # noqa: E731
    results = build_expert_datasets(corpus(), doc_of, experts, tmp_path, (0.6, 0.2, 0.2), seed=5)

    top = json.loads((tmp_path / "manifest.json").read_text())
    assert top["experts"] == {e: 120 for e in experts}
    assert top["unassigned"] == 24 and len(top["unassigned_samples"]) == 5

    split_of_doc: dict[str, str] = {}
    expert_rows: dict[str, tuple[str, str]] = {}  # id -> (expert, split)
    for name in experts:
        assert sum(results[name].counts.values()) == 120
        for split in SPLITS:
            for r in read_jsonl(tmp_path / name / f"{split}.jsonl"):
                # one split per document, across every expert
                assert split_of_doc.setdefault(r["source_document"], split) == split
                assert r["messages"][0]["role"] == "user"
                expert_rows[r["id"]] = (name, split)
        quality = json.loads((tmp_path / name / "manifest.json").read_text())["quality"]
        assert quality["count"] == 120 and quality["distinct_documents"] == 24
        assert quality["duplicate_rate"] == 0.0 and quality["mean_answer_words"] > 0
        assert sum(quality["difficulty"].values()) == 120
    assert len(set(split_of_doc.values())) == 3

    router_rows = {}
    for split in SPLITS:
        rows = read_jsonl(tmp_path / "router" / f"{split}.jsonl")
        assert len(rows) == results["router"].counts[split]
        for r in rows:
            router_rows[r["id"]] = (r["label"], split)
            assert split_of_doc[r["source_document"]] == split
            assert r["text"].startswith(("How do I", "It crashes"))
    assert router_rows == expert_rows  # labels and splits match the expert dirs
    assert sum(results["router"].counts.values()) == 480


def test_duplicates_show_in_the_quality_metrics(tmp_path: Path) -> None:
    rows = [
        qa("How do I join tables?", "SELECT * FROM a JOIN b;", "c0"),
        qa("how do I JOIN tables", "select * from a join b", "c1"),  # the same, normalized
        qa("How do I index a column?", "CREATE INDEX i ON t (c);", "c2"),
    ]
    build_expert_datasets(rows, lambda ex: ex.chunk_id, ["sql"], tmp_path)
    quality = json.loads((tmp_path / "sql" / "manifest.json").read_text())["quality"]
    assert quality["count"] == 3 and quality["distinct_documents"] == 3
    assert quality["duplicate_rate"] == round(1 / 3, 4)


def test_bad_expert_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(JupiterError, match="'router' is taken"):
        build_expert_datasets([], str, ["router"], tmp_path)
    with pytest.raises(JupiterError, match="distinct"):
        build_expert_datasets([], str, ["sql", "sql"], tmp_path)
    with pytest.raises(JupiterError, match="no experts"):
        build_expert_datasets([], str, [], tmp_path)
