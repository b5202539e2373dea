"""The domain's second exam, in a user's words (eval.user_exam_path), as a workspace sees it.

Beside the own exam (eval.qa_path or the frozen auto set), every eval scores the same
models on it, and the gate and the report show both. An item is scored when:
- it passes eval/userexam.check_exam: quote found in its source, no template wording, no
  word 8-gram shared with the training examples this cycle trains on;
- its quote is in a document the student trains on (the train split): a fact the corpus
  never showed cannot be learned, so a --quick run with ten modules sits the items about
  those ten. The dropped count is reported by reason.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jupiter.eval.qa import MCItem, QAItem
from jupiter.eval.userexam import collapse, load_user_exam, raw_lines, source_text
from jupiter.improve.trainrun import chunk_titles, definition_chunks, plain_chunks
from jupiter.improve.workspace import Workspace


@dataclass(frozen=True)
class Exam:
    """A second exam's items (QA and their own multiple choice) and what was dropped."""

    items: list[QAItem]
    mc: list[MCItem]
    about: dict[str, Any] = field(default_factory=dict)


def example_texts(ws: Workspace) -> Iterator[str]:
    """Every accepted or used training example, and the questions train.knowledge adds to
    them (what the 8-gram check looks at)."""
    from jupiter.synth.knowledge import expand

    examples = [e for s in ("accepted", "used") for e in ws.store.iter_examples(status=s)]
    t = ws.cfg.train
    k = t.knowledge
    if k.enabled:  # permuted copies are text in another order: no question to add here
        examples = expand(
            examples,
            [],
            phrasings=k.phrasings,
            reverse=k.reverse,
            usage=k.usage,
            permuted_copies=0,
            seed=t.seed,
            sentences=k.sentences,
            titles=chunk_titles(ws, t),
            plain=plain_chunks(ws, t),
            definitions=definition_chunks(ws, t),
        )[0]
    for ex in examples:
        yield ex.content()


def trained_text(ws: Workspace) -> str:
    """The text of the train-split chunks, whitespace-collapsed, one string (quote look-up):
    each document's trained runs whole, without the chunks a long document holds out."""
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for c in ws.store.iter_chunks(split="train"):
        spans[c.doc_id].append((c.start, c.end))
    return "\n".join(
        run for d in ws.store.iter_documents() for run in trained_runs(d.text, spans[d.id])
    )


def trained_runs(text: str, spans: Iterable[tuple[int, int]]) -> list[str]:
    """The stretches of `text` that the spans (its train chunks, which overlap) cover,
    whitespace-collapsed, in order; a gap (a held-out chunk) ends a stretch."""
    runs: list[str] = []
    a = b = -1
    for start, end in sorted(spans):
        if start > b:
            if b > a:
                runs.append(collapse(text[a:b]))
            a = start
        b = max(b, end)
    if b > a:
        runs.append(collapse(text[a:b]))
    return runs


def user_exam(ws: Workspace) -> Exam | None:
    """The user exam for this workspace's training data; None when the domain has none."""
    ecfg = ws.cfg.eval
    if not ecfg.user_exam_path:
        return None
    path = ws.cfg.resolve(ecfg.user_exam_path)
    by_uri: dict[str, str] = {}

    def text_of(source: str) -> str | None:  # doc:<uri> is a collected document
        if not source.startswith("doc:"):
            return source_text(source)
        if not by_uri:
            by_uri.update((d.uri, d.text) for d in ws.store.iter_documents())
        # else the file itself: a .py file is collected as the documents of its API, so
        # its path is no document's uri
        return by_uri.get(source.removeprefix("doc:")) or source_text(source)

    with ws.console.status("checking the user exam against the docs and the training data"):
        items, about = load_user_exam(path, example_texts(ws), text_of)
        corpus = trained_text(ws)
    quotes = raw_lines(path)
    kept = [it for it in items if collapse(str(quotes[it.id].get("quote", ""))) in corpus]
    if len(kept) < len(items):
        about["dropped"]["quote_not_in_training_documents"] = len(items) - len(kept)
    if ecfg.user_exam_max_items:
        kept = kept[: ecfg.user_exam_max_items]
    about["scored"] = len(kept)
    mc = [MCItem(it.id, it.question, list(it.choices), int(it.answer_index or 0)) for it in kept]
    return Exam(kept, mc, about)


def describe_exam(about: dict[str, Any]) -> str:
    """One line: how many items are scored of how many, and why the others are not."""
    dropped = ", ".join(f"{n} {why.replace('_', ' ')}" for why, n in about["dropped"].items())
    return f"user exam {about['path']}: {about['scored']} of {about['items']} items scored" + (
        f" (dropped: {dropped})" if dropped else ""
    )
