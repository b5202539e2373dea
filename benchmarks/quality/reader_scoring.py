"""How should the student + retriever score multiple-choice answers? Each choice's mean
log-probability under a trained student five ways (reading the retrieved passages and the
question, closed book, the passages with a neutral question, a bare "Answer:" prompt) and
the extractive retriever's coverage, on both exams of a workspace; then each scoring rule
(the shipped z-sum, PMI-style differences) paired against the extractive generator.

    python benchmarks/quality/reader_scoring.py --home DIR --domain YAML --model STUDENT_DIR \\
        [--raw scores.json]      # reuse the raw scores of an earlier run (no model needed)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import fmean

from jupiter.synth.combined import zscores

Scores = dict[str, object]


def collect(home: Path, domain: str, model_dir: Path) -> list[Scores]:
    from rich.console import Console

    from jupiter.config import load_domain
    from jupiter.improve.evalset import eval_items
    from jupiter.improve.evaluate import load_model
    from jupiter.improve.exams import user_exam
    from jupiter.improve.passages import train_chunks
    from jupiter.improve.workspace import Workspace
    from jupiter.synth.combined import best_window, reader
    from jupiter.synth.passages import Passage, open_book_prompt

    os.chdir(home)
    ws = Workspace(load_domain(domain), console=Console(width=160))
    _, mc, _ = eval_items(ws)
    user = user_exam(ws)
    gen = load_model(ws, model_dir, "student")
    ans = reader(gen, train_chunks(ws), ws.cfg.retrieval_config())
    rows: list[Scores] = []
    t0 = time.time()
    for exam, items in (("own", mc), ("user", user.mc if user else [])):
        for it in items:
            q, ch = it.question, list(it.choices)
            hits = ans.index.search(q, ans.top_k)
            cut = [Passage(p.id, p.title, best_window(p.text, q, ans.passage_chars)) for p in hits]
            rows.append(
                {
                    "exam": exam,
                    "id": it.id,
                    "gold": it.correct,
                    "ext": ans.retriever.choice_scores(q, ch),
                    "read": gen.choice_logprobs(open_book_prompt(q, cut), ch),
                    "closed": gen.choice_logprobs(q, ch),
                    "pq": gen.choice_logprobs(
                        open_book_prompt("Which of these does it describe?", cut), ch
                    ),
                    "null": gen.choice_logprobs("Answer:", ch),
                }
            )
            if len(rows) % 20 == 0:
                print(f"{len(rows)} items, {time.time() - t0:.0f} s", flush=True)
    ws.close()
    return rows


def diff(a: Sequence[float], b: Sequence[float]) -> list[float]:
    return [x - y for x, y in zip(a, b, strict=True)]


def zsum(*parts: Sequence[float]) -> list[float]:
    return [sum(vals) for vals in zip(*(zscores(p) for p in parts), strict=True)]


RULES: dict[str, Callable[[Scores], list[float]]] = {
    "extractive generator": lambda r: list(r["ext"]),  # type: ignore[arg-type]
    "reader: z(read) + z(retriever) (shipped)": lambda r: zsum(r["read"], r["ext"]),  # type: ignore[arg-type]
    "read alone": lambda r: list(r["read"]),  # type: ignore[arg-type]
    "closed book": lambda r: list(r["closed"]),  # type: ignore[arg-type]
    "read - bare prompt (PMI)": lambda r: diff(r["read"], r["null"]),  # type: ignore[arg-type]
    "read - passages without the question": lambda r: diff(r["read"], r["pq"]),  # type: ignore[arg-type]
    "z(read - passages alone) + z(retriever)": lambda r: zsum(diff(r["read"], r["pq"]), r["ext"]),  # type: ignore[arg-type]
    "closed book - bare prompt": lambda r: diff(r["closed"], r["null"]),  # type: ignore[arg-type]
}


def pick(scores: Sequence[float]) -> int:
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


def paired(a: list[bool], b: list[bool], seed: int = 0) -> tuple[float, float, float]:
    d = [float(x) - float(y) for x, y in zip(a, b, strict=True)]
    rng = random.Random(seed)
    boot = sorted(fmean(rng.choices(d, k=len(d))) for _ in range(2000))
    return fmean(d), boot[49], boot[1949]


def report(rows: list[Scores]) -> None:
    for exam in ("own", "user"):
        got = [r for r in rows if r["exam"] == exam]
        if not got:
            continue
        gen = [pick(RULES["extractive generator"](r)) == r["gold"] for r in got]
        print(f"{exam} exam, {len(got)} items")
        for name, rule in RULES.items():
            hits = [pick(rule(r)) == r["gold"] for r in got]
            m, lo, hi = paired(hits, gen)
            print(
                f"  {name:44s} MC {fmean(hits):.3f}  vs generator {m:+.3f} [{lo:+.3f}, {hi:+.3f}]"
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path)
    ap.add_argument("--domain")
    ap.add_argument("--model", type=Path)
    ap.add_argument("--raw", type=Path, help="raw scores: read when it exists, else written")
    a = ap.parse_args()
    if a.raw and a.raw.is_file():
        rows = json.loads(a.raw.read_text())
    else:
        if not (a.home and a.domain and a.model):
            ap.error("--home, --domain and --model are needed to score (or an existing --raw)")
        rows = collect(a.home.resolve(), a.domain, a.model.resolve())
        if a.raw:
            a.raw.write_text(json.dumps(rows))
    report(rows)


if __name__ == "__main__":
    main()
