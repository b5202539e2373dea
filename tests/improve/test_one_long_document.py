"""A corpus of one long document (a PDF manual, one big reference page): the collect stage
holds out a share of its own chunks, so the cycle has an eval set to build and text to train
on, where a whole-document draw left either none of it for the eval (and stopped the run) or
all of it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from jupiter.config import load_domain
from jupiter.errors import JupiterError
from jupiter.improve import stages
from jupiter.improve.evalset import build_auto_set
from jupiter.improve.preflight import check_heldout
from jupiter.improve.workspace import Workspace


def _manual(sections: int) -> str:
    return "\n\n".join(
        f"## `spool.op{i}(size)`\n\n"
        f"The `spool.op{i}()` method reserves {i} pages of the spool for a job of the given "
        f"size and returns the first page's number. It fails with an error when fewer than "
        f"{i} pages are free.\n\n* `size` {{integer}} The number of bytes job {i} will write."
        for i in range(sections)
    )


def _workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Workspace:
    """A workspace of one Markdown page, its held-out check armed as `jupiter start` does."""
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "manual.md").write_text(text)
    yaml = tmp_path / "m.yaml"
    yaml.write_text("name: m\nsources: [{type: local, path: docs}]\n")
    ws = Workspace(load_domain(str(yaml)), console=Console(file=io.StringIO(), width=300))
    check_heldout(ws, collecting=True)
    return ws


def test_one_long_document_gives_both_splits_and_an_own_exam(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path, monkeypatch, _manual(150))
    info = stages.collect_stage(ws, 1)  # would raise "none of its 1 documents is held out"
    assert info["documents"] == 1
    held = info["heldout_chunks"]
    assert 1 <= held <= info["chunks"] // 4, info
    stages.generate_stage(ws, 1)
    stages.filter_stage(ws, 1)
    items, manifest = build_auto_set(ws)
    assert items and manifest["source_docs"] == sorted({it.doc for it in items})
    held_text = " ".join(c.text for c in ws.store.iter_chunks(split="heldout"))
    assert all(it.answer.split()[0] in held_text for it in items)
    # so few items that the gate sees little: said, with how wide and what to do
    said = ws.console.file.getvalue()  # type: ignore[attr-defined]
    half = 1.96 * (0.5 / len(items)) ** 0.5
    assert f"{len(items)} items is a small exam" in said and f"±{half:.2f} wide" in said
    ws.close()


def test_one_short_document_still_says_how_to_get_an_eval_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path, monkeypatch, _manual(3))
    with pytest.raises(JupiterError, match=r"none of its 1 documents is held out|held out all"):
        stages.collect_stage(ws, 1)
    assert ws.store.count("documents") == 0  # nothing written before the problem was seen
    ws.close()


WORDS = (
    "archive banner cipher dossier emblem folio garnet harbor ingot jasper kettle lantern "
    "meadow nectar orchard pewter quarry ribbon saddle timber umber velvet walnut yonder "
    "zephyr anchor bramble candle dapple ember fennel gravel hollow ivory juniper kestrel"
).split()


def _license(i: int) -> str:
    """Numbered clauses of plain prose, each sentence's words its own (no shared 8-gram)."""

    def w(n: int) -> str:
        return WORDS[n % len(WORDS)]

    return "\n\n".join(
        f"  {k}. The {w(i * 7 + k)} holder keeps every {w(i * 11 + k * 3)} notice beside "
        f"the {w(i * 13 + k * 5)} copy it sends. If a recipient alters the "
        f"{w(i * 17 + k * 7)} {w(i + k * 9)} text, then that recipient marks each "
        f"{w(i * 19 + k * 11)} change with its {w(i * 23 + k * 13)} date."
        for k in range(1, 30)
    )


def test_prose_no_template_asks_of_gives_an_own_exam_from_its_sentences(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Legal prose (numbered clauses, no API name, option, definition list or example): the
    templates find nothing in its held-out chunks, which stopped the cycle after training;
    its sentences are asked instead, in the knowledge recipe's forms."""
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    docs = tmp_path / "licenses"
    docs.mkdir()
    for i in range(30):
        (docs / f"License-{i}").write_text(_license(i))
    yaml = tmp_path / "l.yaml"
    # held-out documents are drawn by a hash of their path: 0.3 of 30 leaves none with
    # odds of 2e-5 (at 0.05, one tmp path in five held out nothing)
    yaml.write_text(
        'name: l\nsources: [{type: local, path: licenses, include: ["*"]}]\n'
        "chunking: {heldout_fraction: 0.3}\n"
    )
    ws = Workspace(load_domain(str(yaml)), console=Console(file=io.StringIO(), width=300))
    stages.collect_stage(ws, 1)
    stages.generate_stage(ws, 1)
    stages.filter_stage(ws, 1)
    items, manifest = build_auto_set(ws)
    assert items and {it.template for it in items} <= {
        "sentence-cond",
        "sentence-effect",
        "sentence-which",
    }
    chunks = list(ws.store.iter_chunks(split="heldout"))
    held = " ".join(" ".join(c.text.split()) for c in chunks)
    assert all(it.answer.split("`. ")[-1] in held for it in items)
    # the clauses are indented plain text: each one's sentences are asked, not only the
    # first clause's (which the document's start leaves unindented)
    assert len(items) > 3 * len(chunks), (len(items), len(chunks))
    ws.close()


def test_an_automatic_set_of_few_answers_asks_among_fewer_choices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three held-out items hold three distinct answers: multiple choice among three (its
    chance said), where the eval stopped after a whole training run; a set the user wrote
    keeps the error (its fix is theirs to make)."""
    from jupiter.eval.qa import QAItem
    from jupiter.improve.eval_choices import mc_items

    ws = _workspace(tmp_path, monkeypatch, _manual(150))
    items = [QAItem(f"q{i}", f"Question {i}?", f"answer number {i}") for i in range(3)]
    got, mc, info = mc_items(ws, items, {"auto": True})
    assert [len(m.choices) for m in mc] == [3, 3, 3] and info["n_choices"] == 3
    assert all(m.choices[m.correct] == it.answer for m, it in zip(mc, got, strict=True))
    said = " ".join(ws.console.file.getvalue().split())  # type: ignore[attr-defined]
    assert "multiple choice among 3, not eval.mc_choices 4 (chance 0.33)" in said
    with pytest.raises(JupiterError, match="needs at least 4 distinct answers"):
        mc_items(ws, items, {"auto": False})
    ws.close()
