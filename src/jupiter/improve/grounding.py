"""Anti-collapse: every cycle trains on a set share of document-grounded data.

A student trained only on what the previous student wrote drifts away from the documents
and loses the rare facts first (Shumailov et al., 2024, "AI models collapse when trained
on recursively generated data"; Gerstgrasser et al., 2024: keeping the real data beside the
synthetic avoids it). So the generate stage queues the extractive generator's quoted pairs
and raw text beside a model generator's, and the train stage keeps at least
`promotion.real_data_fraction` of its examples grounded, setting model-written ones aside
by a seeded draw. Set-aside examples stay accepted: a later cycle may draw them.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

from jupiter.config import GeneratorConfig
from jupiter.improve.workspace import Workspace
from jupiter.records import Chunk, Example

# generators whose examples quote the documents, or are the documents' own rows
GROUNDED_GENERATORS = frozenset({"extractive", "dataset", "exec_logs"})
REPHRASED_BY = "+rephrase:"  # synth/rephrase.py: a phrasing's generator = source + teacher


def is_grounded(ex: Example) -> bool:
    """Raw text, an extractive (quoted) pair, a dataset or log row, a curriculum file row;
    a teacher's phrasing of one of those ("<source's generator>+rephrase:…": the question is
    the teacher's, the answer trained on is the source's)."""
    author = ex.generator.split(REPHRASED_BY, 1)[0]
    return ex.kind == "text" or author in GROUNDED_GENERATORS or author.startswith("file:")


def keep_grounded_share(
    examples: list[Example], fraction: float, seed: int
) -> tuple[list[Example], int]:
    """(examples to train on, model-written ones set aside) so that grounded examples make
    up at least `fraction` of them. Grounded examples are all kept; with none at all there
    is nothing to keep a share of, and every example is kept."""
    grounded = sum(1 for e in examples if is_grounded(e))
    written = [e for e in examples if not is_grounded(e)]
    if fraction <= 0.0 or not written or grounded == 0:
        return examples, 0
    # grounded / (grounded + written) >= f  <=>  written <= grounded * (1 - f) / f
    cap = int(grounded * (1.0 - fraction) / fraction) if fraction < 1.0 else 0
    if len(written) <= cap:
        return examples, 0
    kept = {e.id for e in random.Random(seed).sample(written, cap)}
    return [e for e in examples if is_grounded(e) or e.id in kept], len(written) - cap


def grounded_examples(ws: Workspace, examples: list[Example]) -> list[Example]:
    """The train stage's examples with the grounded share kept, said on the console."""
    cfg = ws.cfg
    fraction = cfg.promotion.real_data_fraction
    kept, dropped = keep_grounded_share(examples, fraction, cfg.train.seed)
    written = sum(1 for e in examples if not is_grounded(e))
    if dropped:
        ws.console.print(
            f"train: {dropped} of {written} model-written examples set aside to keep "
            f"{fraction:.0%} document-grounded data (promotion.real_data_fraction)"
        )
    elif written and fraction > 0 and written == len(examples):
        ws.console.print(
            "[yellow]warning[/]: every training example is model-written, none is grounded "
            "in the documents: enable generator.continuation or add a source the extractive "
            "generator can quote, so promotion.real_data_fraction can be kept"
        )
    return kept


def queue_grounded_examples(
    ws: Workspace,
    cycle: int,
    gen_row: dict[str, Any],
    chunks: list[Chunk],
    gcfg: GeneratorConfig,
) -> tuple[int, int]:
    """When a model generator writes the cycle's data, the extractive generator's quoted
    pairs and raw text are queued beside it; returns (made, new)."""
    from jupiter.synth import load_generator

    if gen_row["kind"] == "extractive" or ws.cfg.promotion.real_data_fraction <= 0:
        return 0, 0
    gen = load_generator(
        "extractive",
        chunks,
        None,
        "extractive",
        gcfg,
        ws.cfg.system_prompt,
        ws.cfg.retrieval_config(),
    )
    batch = list(gen.generate(chunks, cycle, gcfg, ws.cfg.max_examples))
    for ex in batch:
        ex.cycle = cycle
    new = ws.store.add_examples(batch) if batch else 0
    ws.console.print(
        f"generate: {len(batch)} document-grounded examples (extractive) beside "
        f"{gen_row['id']}'s, {new} new"
    )
    return len(batch), new


def data_summary(ws: Workspace, cycle: int, examples: list[Example]) -> dict[str, Any]:
    """What a student was trained on: counts by kind and by generator, the grounded share,
    and the sorted example ids (a file beside the run, and their SHA-256)."""
    from jupiter import atomic

    ids = sorted(e.id for e in examples)
    text = "".join(f"{i}\n" for i in ids)
    path = ws.train_dir(cycle) / "examples.txt"
    atomic.write_text(path, text)
    grounded = sum(1 for e in examples if is_grounded(e))
    return {
        "examples": len(examples),
        "by_kind": dict(sorted(Counter(e.kind for e in examples).items())),
        "by_generator": dict(sorted(Counter(e.generator for e in examples).items())),
        "grounded": grounded,
        "grounded_share": round(grounded / len(examples), 4) if examples else None,
        "ids_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "ids_file": str(path),
    }
