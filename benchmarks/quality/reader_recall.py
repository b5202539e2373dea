"""Retrieval or reading? Where the student + retriever loses the user exam.

For each user-exam item a finished cycle scored: does the passage holding the item's quote
come back for the question (recall at k, the reader's own top-k and window cut included),
and for the question with its right choice appended (what per-choice retrieval could
reach)? Then each model's multiple-choice accuracy from the cycle's `eval_items.json`,
split by whether the reader had the quote's passage in front of it. A reader that is
right when the passage is there and wrong when it is not loses to retrieval; one that is
wrong either way loses to reading. No model is run: BM25 and the cycle's saved scores.

    python benchmarks/quality/reader_recall.py --home JUPITER_HOME --domain YAML [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

DEPTHS = (1, 2, 5, 20)
MODELS = ("student+retriever", "generator", "student", "untrained")


def rank_of(index: Any, texts: list[str], query: str, quote: str, depth: int = 50) -> int:
    """Position of the first passage whose text holds `quote` (its first 60 characters) in
    `query`'s ranking; `depth` when none of the first `depth` does."""
    for pos, i in enumerate(index.ranking(query, depth)):
        if quote[:60] in texts[i]:
            return pos
    return depth


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", required=True, help="the run's JUPITER_HOME")
    ap.add_argument("--domain", required=True, help="the run's domain YAML")
    ap.add_argument("--quick", action="store_true", help="the --quick workspace")
    ap.add_argument("--cycle", type=int, default=1)
    args = ap.parse_args()
    os.environ["JUPITER_HOME"] = args.home

    from jupiter.config.loader import load_domain
    from jupiter.eval.stats import mean_ci
    from jupiter.improve.exams import collapse, raw_lines, user_exam
    from jupiter.improve.passages import train_chunks
    from jupiter.improve.workspace import Workspace
    from jupiter.synth.combined import cut_passages
    from jupiter.synth.passages import PassageIndex

    cfg = load_domain(args.domain, quick=args.quick)
    ws = Workspace(cfg, quick=args.quick)
    exam = user_exam(ws)
    if exam is None or not exam.mc:
        raise SystemExit(f"{args.domain}: no user exam scored in this workspace")
    rc = cfg.retrieval_config()
    chunks = train_chunks(ws)
    index = PassageIndex.from_chunks(chunks, rc)
    texts = [collapse(c.text) for c in chunks]
    raw = raw_lines(cfg.resolve(cfg.eval.user_exam_path))
    quotes = {it.id: collapse(str(raw[it.id].get("quote", ""))) for it in exam.mc}

    n = len(exam.mc)
    alone = [rank_of(index, texts, it.question, quotes[it.id]) for it in exam.mc]
    right = [
        rank_of(index, texts, f"{it.question} {it.choices[it.correct]}", quotes[it.id])
        for it in exam.mc
    ]
    read: dict[str, bool] = {}  # the quote inside what the reader is shown (windows cut)
    for it in exam.mc:
        shown = [
            collapse(p.text)
            for p in cut_passages(index, it.question, rc.reader_top_k, rc.passage_chars)
        ]
        read[it.id] = any(quotes[it.id][:40] in w for w in shown)
    print(f"{cfg.name}: {n} user-exam items; BM25 over {len(chunks)} training chunks")
    print(
        "recall of the quote's passage, question alone:   "
        + "  ".join(f"@{k} {sum(r < k for r in alone) / n:.3f}" for k in DEPTHS)
    )
    print(
        "recall, question + the right choice:              "
        + "  ".join(f"@{k} {sum(r < k for r in right) / n:.3f}" for k in DEPTHS)
    )
    shown_n = sum(read.values())
    print(
        f"the quote in what the reader reads (top {rc.reader_top_k}, {rc.passage_chars}-char "
        f"windows): {shown_n} of {n}"
    )

    items_path = ws.cycle_dir(args.cycle) / "eval_items.json"
    if not items_path.is_file():
        print(f"no {items_path}: accuracies not split")
        return
    saved = json.loads(Path(items_path).read_text())
    print(f"{'model':<20} {'quote shown':>26} {'quote not shown':>26}")
    for who in MODELS:
        if who not in saved:
            continue
        mc = saved[who]["user_exam"]["item_scores"]["mc_accuracy"]
        cells = []
        for part in (True, False):
            xs = [mc[i] for i in read if read[i] is part and i in mc]
            ci = mean_ci(xs)
            mean = sum(xs) / len(xs) if xs else float("nan")
            span = f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
            cells.append(f"{mean:.3f} {span} (n {len(xs)})")
        print(f"{who:<20} {cells[0]:>26} {cells[1]:>26}")


if __name__ == "__main__":
    main()
