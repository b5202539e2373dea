"""The automatic eval set: made from held-out documents only, decontaminated against the
training data both ways, frozen and reused by later cycles."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from evaldocs import COPIED, chunk_of, make_docs
from rich.console import Console

from jupiter.config import load_domain
from jupiter.errors import JupiterError
from jupiter.eval.autoset import spread
from jupiter.eval.qa import QAItem, load_eval_set
from jupiter.improve.evalset import auto_eval_set, eval_items, eval_questions
from jupiter.improve.workspace import Workspace
from jupiter.records import Example


def _train_docs(ws: Workspace) -> set[str]:
    return {c.doc_id for c in ws.store.iter_chunks(split="train")}


def test_auto_set_never_contains_a_training_document(ws: Workspace) -> None:
    held = {c.doc_id: c for c in ws.store.iter_chunks(split="heldout")}
    # a training example that asks a held-out question (a leak the set must not keep)
    probe = auto_eval_set(ws)[0][0]
    for f in (ws.root / "eval").iterdir():
        f.unlink()
    ws.store.add_examples(
        [
            Example(
                "qa",
                "extractive",
                "x",
                "what_does",
                status="accepted",
                messages=[
                    {"role": "user", "content": probe.question},
                    {"role": "assistant", "content": "something else entirely"},
                ],
            )
        ]
    )

    items, manifest = auto_eval_set(ws)
    assert len(items) >= 10
    assert not {it.doc for it in items} & _train_docs(ws)
    assert {it.doc for it in items} <= set(held)
    # answers are quoted from their own held-out document (a few templates rephrase a list)
    quoted = [it.answer.strip("`") in " ".join(held[it.doc].text.split()) for it in items]
    assert sum(quoted) >= 0.6 * len(items)
    assert probe.question not in {it.question for it in items}
    assert not any(COPIED[:40] in it.answer for it in items)  # copied paragraph dropped
    assert manifest["dropped"]["contaminated"] >= 2
    assert manifest["version"] == 1 and manifest["items"] == len(items)
    assert manifest["source_docs"] == sorted({it.doc for it in items})
    assert manifest["heldout_chunk_examples_in_training"] == 0
    # the filter decontaminates later training data against the frozen questions
    assert eval_questions(ws) == [it.question for it in items]


def test_a_second_cycle_reuses_the_frozen_file(ws: Workspace, tmp_path: Path) -> None:
    items, mc, about = eval_items(ws)
    path = Path(about["path"])
    assert path.name == "eval-v1.jsonl" and about["auto"] and about["contaminated_now"] == 0
    first = path.read_bytes()
    # the next cycle: a new workspace object, more held-out documents collected meanwhile
    again = Workspace(ws.cfg, console=Console(file=io.StringIO()))
    extra = make_docs(4, random.Random(9))
    again.store.add_documents(extra)
    again.store.add_chunks([chunk_of(d, "heldout") for d in extra])
    items2, mc2, about2 = eval_items(again)
    again.close()
    assert about2["sha256"] == about["sha256"] and path.read_bytes() == first
    assert [it.id for it in items2] == [it.id for it in items] and mc2 == mc
    assert sorted(p.name for p in path.parent.iterdir()) == ["eval-v1.json", "eval-v1.jsonl"]
    assert load_eval_set(path) == items
    # an edited frozen file is refused, not silently re-measured
    path.write_text(path.read_text().replace(items[0].answer, "edited"))
    with pytest.raises(JupiterError, match="changed since it was written"):
        eval_items(ws)
    # cleared: the next version is built
    for name in ("eval-v1.json", "eval-v1.jsonl"):
        (path.parent / name).unlink()
    assert eval_items(ws)[2]["version"] == 1


def test_no_heldout_documents_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    (tmp_path / "t.yaml").write_text("name: t\nsources: [{type: local, path: docs}]\n")
    w = Workspace(load_domain(str(tmp_path / "t.yaml")), console=Console(file=io.StringIO()))
    docs = make_docs(2, random.Random(1))
    w.store.add_documents(docs)
    w.store.add_chunks([chunk_of(d, "train") for d in docs])
    with pytest.raises(JupiterError, match="no held-out documents.*chunking.heldout_fraction"):
        auto_eval_set(w)
    w.close()


def test_spread_covers_documents_before_taking_seconds() -> None:
    items = [QAItem(f"{d}-{k}", "Q", "A", doc=d) for d in "abc" for k in range(3)]
    assert [it.id for it in spread(items, 4)] == ["a-0", "b-0", "c-0", "a-1"]
    assert len(spread(items, 100)) == 9
    assert json.dumps([it.id for it in spread(list(reversed(items)), 4)]) == json.dumps(
        ["a-0", "b-0", "c-0", "a-1"]
    )


def test_training_examples_from_heldout_chunks_are_counted_and_warned(ws: Workspace) -> None:
    chunk = next(ws.store.iter_chunks(split="heldout"))
    ws.store.add_examples(
        [
            Example(
                "text",
                "extractive",
                chunk.id,
                "continuation",
                text="unrelated words here",
                status="used",
            )
        ]
    )
    _, manifest = auto_eval_set(ws)
    assert manifest["heldout_chunk_examples_in_training"] == 1
    assert "1 training examples come from held-out chunks" in ws.console.file.getvalue()  # type: ignore[attr-defined]
