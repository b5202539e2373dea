"""An eval set for every domain: question/answer pairs made from the held-out documents only,
by the same question templates the extractive generator uses on the training split, then
decontaminated against the training data and frozen as a versioned file, so every cycle of a
workspace sits the same exam.

Files, in the workspace's `eval/` folder:
    eval-v1.jsonl   the items (eval/qa.py's JSONL, so `jupiter eval --qa` reads it too)
    eval-v1.json    the manifest: version, item count, source documents, SHA-256 of the
                    JSONL, what was dropped and why
A later version is only written when no valid one is there (the folder was cleared).
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from jupiter import atomic
from jupiter.errors import JupiterError
from jupiter.eval.mc import family
from jupiter.eval.qa import QAItem, item_record, load_eval_set, normalize_answer
from jupiter.models.folder import sha256_file
from jupiter.records import Chunk, content_id

FORMAT = 1  # the manifest's own layout
_VERSION = re.compile(r"^eval-v(\d+)\.json$")


def heldout_items(
    chunks: Sequence[Chunk], templates: Sequence[str], max_per_chunk: int, seed: int
) -> list[QAItem]:
    """Every templated question with an answer, from the held-out chunks of `chunks` only.

    The templates' own walk (synth/questions.py iter_questions) takes the train split; the
    held-out chunks are passed in relabelled, so their questions come out of the same code.
    A question asked twice with different answers is ambiguous and left out.
    """
    from jupiter.synth.questions import iter_questions

    heldout = [replace(c, split="train") for c in chunks if c.split == "heldout"]
    by_question: dict[str, list[QAItem]] = defaultdict(list)
    for chunk, questions in iter_questions(heldout, templates, max_per_chunk, seed):
        for q in questions:
            if not q.answer:
                continue
            item = _heldout_item(chunk, q.question, q.answer, q.template)
            by_question[normalize_answer(q.question)].append(item)
    out: list[QAItem] = []
    for same in by_question.values():
        if len({normalize_answer(it.answer) for it in same}) == 1:
            out.append(same[0])
    return out


def _heldout_item(chunk: Chunk, question: str, answer: str, template: str) -> QAItem:
    """An eval item asked of a held-out chunk, its id from its question and answer."""
    return QAItem(
        id="auto-" + content_id("eval", question, answer),
        question=question,
        answer=answer,
        source=chunk.uri,
        topic=family(QAItem("", "", "", source=chunk.uri)),
        template=template,
        doc=chunk.doc_id,
    )


def heldout_sentence_items(chunks: Sequence[Chunk], seed: int) -> list[QAItem]:
    """One question per prose sentence of each held-out chunk that names its subject, in the
    knowledge recipe's forms (its condition -> the sentence, the sentence -> its document):
    what a held-out set of legal or narrative prose, where no template finds an API name, a
    definition or an example, can still be asked."""
    import random

    from jupiter.synth.knowledge import sentence_facts, subject_name
    from jupiter.synth.parse import plain_chunk

    by_question: dict[str, list[QAItem]] = defaultdict(list)
    for chunk in chunks:
        subject = subject_name(chunk.title) if chunk.split == "heldout" else ""
        if not subject:
            continue
        rng = random.Random(f"{seed}:{chunk.id}:eval-sentences")
        facts = sentence_facts(chunk.text, subject, rng, 1, plain_chunk(chunk))
        for kind, question, answer in facts:
            item = _heldout_item(chunk, question, answer, f"sentence-{kind}")
            by_question[normalize_answer(question)].append(item)
    return [same[0] for same in by_question.values() if len(same) == 1]


def spread(items: Sequence[QAItem], max_items: int) -> list[QAItem]:
    """At most `max_items`, taken round-robin over documents (in id order) so a cap, or
    eval.max_items on the frozen file, covers as many documents as it can."""
    by_doc: dict[str, list[QAItem]] = defaultdict(list)
    for it in sorted(items, key=lambda it: it.id):
        by_doc[it.doc].append(it)
    queues = [by_doc[d] for d in sorted(by_doc)]
    out: list[QAItem] = []
    depth = 0
    while len(out) < max_items and any(depth < len(q) for q in queues):
        out += [q[depth] for q in queues if depth < len(q)][: max_items - len(out)]
        depth += 1
    return out


def contaminated(items: Sequence[QAItem], training_texts: Iterable[str]) -> set[str]:
    """Ids of the items whose question or answer occurs in the training texts: any shared
    13-gram, or all of a shorter one in a row (filters/ngram_decontam.py, GPT-3's rule)."""
    from jupiter.filters.ngram_decontam import NGramDecontaminator

    texts = [t for it in items for t in (it.question, it.answer)]  # item k: texts 2k, 2k+1
    decon = NGramDecontaminator(texts)
    if not len(decon):
        return set()
    hit: set[int] = set()
    for text in training_texts:
        hit |= decon.matches(text)
    return {items[i // 2].id for i in hit}


# ------------------------------------------------------------------------- the frozen file
def _versions(folder: Path) -> list[int]:
    found = (_VERSION.match(p.name) for p in folder.glob("eval-v*.json"))
    return sorted(int(m.group(1)) for m in found if m)


def load_frozen(folder: Path) -> tuple[list[QAItem], dict[str, Any]] | None:
    """The newest frozen eval set of `folder` and its manifest; None when there is none.

    A JSONL whose hash no longer matches its manifest was edited: that is an error, since
    the cycles measured on it would no longer compare.
    """
    versions = _versions(folder) if folder.is_dir() else []
    if not versions:
        return None
    manifest_path = folder / f"eval-v{versions[-1]}.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    data = folder / manifest["file"]
    if not data.is_file() or sha256_file(data) != manifest["sha256"]:
        raise JupiterError(
            f"the frozen eval set {data} is missing or changed since it was written "
            f"(its SHA-256 is in {manifest_path}): restore it, or delete both files to build "
            "a new version (earlier cycles' figures will not compare with the new one)"
        )
    return load_eval_set(data), manifest


def freeze(folder: Path, items: Sequence[QAItem], info: dict[str, Any]) -> dict[str, Any]:
    """Write the next version's JSONL and manifest (atomically, the JSONL first)."""
    if not items:
        raise JupiterError("no eval items to freeze")
    versions = _versions(folder) if folder.is_dir() else []
    version = versions[-1] + 1 if versions else 1
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / f"eval-v{version}.jsonl"
    lines = [json.dumps(item_record(it), ensure_ascii=False) for it in items]
    atomic.write_text(data, "\n".join(lines) + "\n")
    manifest = {
        "format": FORMAT,
        "version": version,
        "file": data.name,
        "items": len(items),
        "sha256": sha256_file(data),
        "created": time.time(),
        "source_docs": sorted({it.doc for it in items}),
        "templates": dict(sorted(_count(it.template for it in items).items())),
        **info,
    }
    atomic.write_text(
        folder / f"eval-v{version}.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    )
    return manifest


def _count(values: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for v in values:
        out[v] += 1
    return dict(out)
