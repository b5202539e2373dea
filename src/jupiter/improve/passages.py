"""The workspace's training chunks and the open-book index over them (`retrieval`): built
for generation and eval, saved beside each student so `chat`, `serve` and eval can answer
open-book from the model dir alone, and put before the eval's questions with
eval.open_book."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any
from weakref import ref

from jupiter.errors import JupiterError
from jupiter.improve.progress import progress_bar
from jupiter.improve.workspace import Workspace
from jupiter.records import Chunk

if TYPE_CHECKING:
    from jupiter.synth.passages import PassageIndex

# one passage index per workspace, shared by every model of an eval (a Workspace is an
# unhashable dataclass: keyed by id, checked by a weak reference)
_PASSAGES: dict[int, tuple[ref[Workspace], Any]] = {}


def train_chunks(ws: Workspace) -> list[Chunk]:
    chunks = list(ws.store.iter_chunks(split="train"))
    if not chunks:
        raise JupiterError(
            f"the workspace {ws.root} has no training chunks: run `jupiter collect "
            f"--domain {ws.cfg.name}` first"
        )
    return chunks


def passage_index(ws: Workspace, chunks: list[Chunk]) -> PassageIndex:
    """The domain's open-book index (`retrieval`) over `chunks`; embedding the passages
    shows a progress bar."""
    from jupiter.synth.passages import PassageIndex

    retrieval = ws.cfg.retrieval_config()
    if retrieval.kind == "bm25":
        return PassageIndex.from_chunks(chunks)
    with progress_bar(ws) as bar:
        task = bar.add_task(f"embed passages ({retrieval.kind})", total=len(chunks), rate="")
        return PassageIndex.from_chunks(
            chunks, retrieval, on_progress=lambda done, _: bar.update(task, completed=done)
        )


def save_passages(ws: Workspace, model_dir: Path) -> None:
    """The domain's retrieval index (`retrieval` over the training chunks) beside the
    student, so `chat`, `serve` and eval can answer open-book from the model dir alone. A
    domain with no document chunks (datasets or logs only) has nothing to retrieve: no
    index is saved."""
    chunks = list(ws.store.iter_chunks(split="train"))
    if chunks:
        passage_index(ws, chunks).save(model_dir)


def open_book(ws: Workspace, items: list[Any], mc: list[Any]) -> tuple[list[Any], list[Any]]:
    """With eval.open_book, the items with each question put after its top_k passages of the
    training chunks (synth/passages.py); ids, answers and choices stay, so scores pair."""
    from jupiter.eval.standalone import with_passages

    ecfg = ws.cfg.eval
    if not ecfg.open_book:
        return items, mc
    held = _PASSAGES.get(id(ws))
    if held is None or held[0]() is not ws:
        held = _PASSAGES[id(ws)] = (ref(ws), passage_index(ws, train_chunks(ws)))
    return with_passages(held[1], ecfg.top_k, items, mc)
