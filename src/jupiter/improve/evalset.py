"""The eval set of a workspace: the YAML's eval.qa_path, or the automatic set built once
from the held-out documents and frozen (eval/eval-vN.jsonl), decontaminated against
everything the student trains on; its questions, which generation and the filter keep out
of training; and the held-out and general text that bits-per-byte reads."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from jupiter.errors import JupiterError
from jupiter.improve.eval_choices import frozen_choices, mc_items
from jupiter.improve.workspace import Workspace


def eval_set(ws: Workspace) -> tuple[list[Any], dict[str, Any]]:
    """The eval items and what they are (path; version and hash of a frozen auto set): the
    YAML's eval.qa_path, else the workspace's frozen set, built on first use."""
    from jupiter.eval.qa import load_eval_set

    if ws.cfg.eval.qa_path:
        path = ws.cfg.resolve(ws.cfg.eval.qa_path)
        return load_eval_set(path), {"path": str(path), "auto": False}
    items, manifest = auto_eval_set(ws)
    about = {k: manifest[k] for k in ("version", "items", "sha256")}
    about["distractors"] = manifest.get("distractors")  # None: frozen before they were kept
    return items, {"path": str(ws.root / "eval" / manifest["file"]), "auto": True, **about}


def eval_items(ws: Workspace) -> tuple[list[Any], list[Any], dict[str, Any]]:
    """(QA items, MC items, what the set is), cut to eval.max_items."""
    ecfg = ws.cfg.eval
    items, about = eval_set(ws)
    # distractors come from the whole set, so a small max_items still has varied choices
    items, mc, about["distractors"] = mc_items(ws, items, about)
    if ecfg.max_items:
        items, mc = items[: ecfg.max_items], mc[: ecfg.max_items]
    if about["auto"]:  # training data added since the set was frozen may now hold some items
        from jupiter.eval.autoset import contaminated

        about["contaminated_now"] = len(contaminated(items, training_texts(ws)))
    return items, mc, about


# the automatic eval set
def training_texts(ws: Workspace) -> Iterator[str]:
    """Everything the student trains on: the train-split chunks (raw text) and every
    accepted or used example."""
    for c in ws.store.iter_chunks(split="train"):
        yield c.text
    for status in ("accepted", "used"):
        for ex in ws.store.iter_examples(status=status):
            yield ex.content()


def frozen_questions(ws: Workspace) -> list[str]:
    """The frozen auto eval set's questions, for the filter's decontamination; [] before the
    set exists (it is built at the first eval, against the training data of that time)."""
    from jupiter.eval.autoset import load_frozen

    got = load_frozen(ws.root / "eval")
    return [] if got is None else [it.question for it in got[0]]


def eval_questions(ws: Workspace) -> list[str]:
    """Decontamination targets: the questions of the eval set and of the user exam. The
    reference facts themselves come from the domain's documents, which the student is meant
    to learn (closed-book recall); what must never reach training is the test prompt itself
    (a teacher asked for questions in a user's words may write one)."""
    from jupiter.eval.qa import load_eval_set

    ecfg = ws.cfg.eval
    if not ecfg.qa_path:  # the automatic set, once the first eval has frozen it
        out = frozen_questions(ws)
    else:
        out = [item.question for item in load_eval_set(ws.cfg.resolve(ecfg.qa_path))]
    user = ws.cfg.resolve(ecfg.user_exam_path) if ecfg.user_exam_path else None
    if user is not None and user.is_file():  # a missing one is the eval's error to report
        out += [item.question for item in load_eval_set(user)]
    return out


def auto_eval_set(ws: Workspace) -> tuple[list[Any], dict[str, Any]]:
    """The workspace's frozen eval set, or a new one from the held-out documents."""
    from jupiter.eval.autoset import load_frozen

    got = load_frozen(ws.root / "eval")
    return got if got is not None else build_auto_set(ws)


SMALL_EXAM = 50  # own-exam items under which the eval warns that the gate sees little


def build_auto_set(ws: Workspace) -> tuple[list[Any], dict[str, Any]]:
    """Questions from the held-out chunks by the generator's templates, less any item whose
    question or answer is in the training data or whose document is also trained on;
    frozen as eval/eval-vN.jsonl with its manifest."""
    from jupiter.eval.autoset import (
        contaminated,
        freeze,
        heldout_items,
        heldout_sentence_items,
        spread,
    )

    ecfg, gcfg = ws.cfg.eval, ws.cfg.generator
    chunks = list(ws.store.iter_chunks())
    held_ids = {c.id for c in chunks if c.split == "heldout"}
    if not held_ids:
        raise JupiterError(
            f"domain '{ws.cfg.name}' has no eval set and no held-out documents to build one "
            f"from: raise chunking.heldout_fraction (now {ws.cfg.chunking.heldout_fraction}) "
            "and collect again, or set eval.qa_path to a JSONL of {id, question, answer}"
        )
    made = heldout_items(chunks, gcfg.templates, gcfg.max_questions_per_chunk, ecfg.seed)
    if not made:  # prose no template asks of (a license, a policy): its sentences instead
        made = heldout_sentence_items(chunks, ecfg.seed)
    # a long document holds out chunks of its own (collect/chunking.py): what its trained
    # chunks say is caught here with the rest of the training data
    with ws.console.status(f"decontaminating {len(made)} eval items against the training data"):
        dirty = contaminated(made, training_texts(ws))
    clean = [it for it in made if it.id not in dirty]
    items = spread(clean, ecfg.auto_max_items)
    # the other way round: no training example may come from a held-out chunk
    leaked = sum(
        1
        for s in ("accepted", "used")
        for e in ws.store.iter_examples(status=s)
        if e.chunk_id in held_ids
    )
    if not items:
        raise JupiterError(
            f"the {len(held_ids)} held-out chunks gave no usable question ({len(made)} made, "
            f"{len(dirty)} found in the training data): add documents or raise "
            "chunking.heldout_fraction, or set eval.qa_path to a JSONL of {id, question, answer}"
        )
    items, distractors = frozen_choices(ws, items)  # the teacher's, when it writes them
    info = {
        "heldout_chunks": len(held_ids),
        "made": len(made),
        "seed": ecfg.seed,
        "dropped": {
            "contaminated": len(dirty),
            "over_cap": len(clean) - len(items),
        },
        "heldout_chunk_examples_in_training": leaked,
        "distractors": distractors,
    }
    manifest = freeze(ws.root / "eval", items, info)
    ws.console.print(
        f"eval set v{manifest['version']}: {len(items)} items from {len(held_ids)} held-out "
        f"chunks of {len(manifest['source_docs'])} documents ({len(dirty)} dropped as found "
        f"in the training data), frozen in {ws.root / 'eval' / manifest['file']}"
    )
    if leaked:
        ws.console.print(
            f"[yellow]warning:[/] {leaked} training examples come from held-out chunks"
        )
    if len(items) < SMALL_EXAM:
        half = 1.96 * math.sqrt(0.5 / len(items))  # a paired difference of two accuracies
        ws.console.print(
            f"[yellow]warning:[/] {len(items)} items is a small exam: the gate's paired "
            f"interval will be about ±{half:.2f} wide, so only a large gain can show; "
            f"add documents, raise chunking.heldout_fraction, or set eval.qa_path "
            f"(eval.user_exam_path adds an exam in your users' words beside it)"
        )
    return items, manifest


def heldout_texts(ws: Workspace) -> list[str]:
    return [c.text for c in ws.store.iter_chunks(split="heldout")]


def general_texts(ws: Workspace) -> list[str]:
    """Out-of-domain text for general_bpb: eval.general_path, else the bundled sample; none
    when eval.general_max_bytes is 0."""
    from jupiter.eval.general import general_texts as read

    ecfg = ws.cfg.eval
    if not ecfg.general_max_bytes:
        return []
    return read(ws.cfg.resolve(ecfg.general_path) if ecfg.general_path else None)
