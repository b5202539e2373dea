"""Anti-collapse: the grounded share of the training examples is kept, and a model
generator's cycle also queues the extractive generator's quoted pairs and raw text."""

from __future__ import annotations

from gate_records import MakeWorkspace

from jupiter.improve.grounding import (
    grounded_examples,
    is_grounded,
    keep_grounded_share,
    queue_grounded_examples,
)
from jupiter.improve.training import init_model_dir
from jupiter.records import Chunk, Example


def qa(generator: str, n: int) -> Example:
    return Example(
        "qa",
        generator,
        "c",
        "what_does",
        messages=[
            {"role": "user", "content": f"{generator} question {n}"},
            {"role": "assistant", "content": f"answer {n}"},
        ],
    )


def text(n: int) -> Example:
    return Example("text", "model:cycle-001", "c", "continuation", text=f"document text {n}")


def test_what_counts_as_grounded() -> None:
    assert is_grounded(qa("extractive", 0)) and is_grounded(qa("dataset", 0))
    assert is_grounded(qa("exec_logs", 0)) and is_grounded(qa("file:levels.jsonl", 0))
    assert is_grounded(text(0))  # raw text, whoever queued it
    assert not is_grounded(qa("model:cycle-001", 0)) and not is_grounded(qa("llm:http:m", 0))


def test_model_written_examples_are_capped_to_keep_the_share() -> None:
    grounded = [qa("extractive", i) for i in range(10)] + [text(i) for i in range(10)]
    written = [qa("model:cycle-002", i) for i in range(100)]
    kept, dropped = keep_grounded_share(grounded + written, 0.25, seed=0)
    n_written = sum(1 for e in kept if not is_grounded(e))
    assert n_written == 60 and dropped == 40  # 20 grounded = 25% of 80
    assert all(e in kept for e in grounded)
    again, _ = keep_grounded_share(grounded + written, 0.25, seed=0)
    assert [e.id for e in again] == [e.id for e in kept]  # seeded
    assert keep_grounded_share(grounded + written, 0.0, seed=0) == (grounded + written, 0)
    only_real, dropped = keep_grounded_share(grounded + written, 1.0, seed=0)
    assert only_real == grounded and dropped == 100
    few = written[:10]  # under the cap: nothing set aside
    assert keep_grounded_share(grounded + few, 0.25, seed=0) == (grounded + few, 0)


def test_nothing_grounded_keeps_everything_and_warns(make_ws: MakeWorkspace) -> None:
    ws = make_ws()
    written = [qa("llm:http:m", i) for i in range(5)]
    assert grounded_examples(ws, written) == written
    out = ws.console.file.getvalue()  # type: ignore[attr-defined]
    assert "every training example is model-written" in out


def test_a_model_generator_cycle_queues_extractive_examples(make_ws: MakeWorkspace) -> None:
    ws = make_ws()
    doc = (
        "json.dumps(obj, *, indent=None)\n\nSerialize obj to a JSON formatted str. "
        "Returns the JSON string. The indent argument pretty-prints with that indent level."
    )
    chunk = Chunk("d", "python_stdlib", "json.dumps", "json.dumps", 0, len(doc), doc, "train")
    row = {"id": "model:cycle-001", "kind": "model", "path": "/m"}
    made, new = queue_grounded_examples(ws, 2, row, [chunk], ws.cfg.generator)
    queued = list(ws.store.iter_examples(cycle=2))
    assert made == new == len(queued) > 0
    assert {e.generator for e in queued} == {"extractive"}
    assert any(e.kind == "text" and e.text == doc for e in queued)  # the raw text too
    assert queue_grounded_examples(ws, 2, row, [chunk], ws.cfg.generator) == (made, 0)
    extractive = {"id": "extractive", "kind": "extractive", "path": ""}
    assert queue_grounded_examples(ws, 2, extractive, [chunk], ws.cfg.generator) == (0, 0)
    off = make_ws(real_data_fraction=0.0)
    assert queue_grounded_examples(off, 3, row, [chunk], off.cfg.generator) == (0, 0)


def test_train_init_base_starts_every_cycle_from_the_base(make_ws: MakeWorkspace) -> None:
    ws = make_ws()
    ws.student_dir(1).mkdir(parents=True)
    (ws.student_dir(1) / "config.json").write_text("{}")
    assert init_model_dir(ws, 2) == ws.student_dir(1)  # previous: continue
    ws.cfg = ws.cfg.model_copy(update={"train": ws.cfg.train.model_copy(update={"init": "base"})})
    assert init_model_dir(ws, 2) is None  # the train stage then loads model.base
