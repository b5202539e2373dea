"""How should the student + retriever score multiple-choice answers? Each choice's mean
log-probability under a trained student five ways (reading the retrieved passages and the
question, closed book, the passages with a neutral question, a bare "Answer:" prompt) and
the extractive retriever's coverage, on both exams of a workspace; then each scoring rule
(the shipped z-sum, PMI-style differences) paired against the extractive generator.
`hyde`: the passages retrieved for the question and the student's own closed-book answer
(Gao et al. 2022, HyDE: a trained student names what the user's words do not); for the user
exam, how often the item's quote is in the passages each query retrieves. `chan`, `chanr`:
the noisy channel (Min et al. 2022), the question's log-probability given each choice, closed
book and after the passages: robust to a choice's own surface form, which small models need.

    python benchmarks/quality/reader_scoring.py --home DIR --domain YAML --model STUDENT_DIR \\
        [--quick] [--raw scores.json] [--scores ext,read,closed]
    # an existing --raw file: only the scores it lacks are added
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
from typing import Any

from jupiter.synth.combined import zscores

Scores = dict[str, Any]
# the channel direction's prompt: the choice given, the question to be predicted
CHANNEL = "Answer: {}\nWhat question is this the answer to?"


def with_choices(question: str, choices: Sequence[str]) -> str:
    """The retrieval query of a multiple-choice item: the question and every choice."""
    return " ".join([question, *choices])


def collect(
    home: Path,
    domain: str,
    model_dir: Path,
    quick: bool,
    rows: list[Scores] | None = None,
    only: Sequence[str] = (),
) -> list[Scores]:
    """Every score of every item (`only`: these scores alone); with `rows` (an earlier
    run's), only the scores they lack (by item id), the others kept as they are."""
    from rich.console import Console

    from jupiter.config import load_domain
    from jupiter.eval.userexam import collapse
    from jupiter.improve.evalset import eval_items
    from jupiter.improve.evaluate import load_model
    from jupiter.improve.exams import user_exam
    from jupiter.improve.passages import train_chunks
    from jupiter.improve.workspace import Workspace
    from jupiter.synth.combined import cut_passages, reader
    from jupiter.synth.passages import open_book_prompt

    os.chdir(home)
    ws = Workspace(load_domain(domain, quick=quick), console=Console(width=160), quick=quick)
    _, mc, _ = eval_items(ws)
    user = user_exam(ws)
    gen = load_model(ws, model_dir, "student")
    ans = reader(gen, train_chunks(ws), ws.cfg.retrieval_config())
    earlier = {(r["exam"], r["id"]): r for r in rows or []}
    out: list[Scores] = []
    t0 = time.time()

    def read(q: str, query: str, ch: list[str]) -> list[float]:
        """The student's log-probabilities of the choices, reading the top_k passages
        retrieved for `query`, each cut to its best window for it."""
        cut = cut_passages(ans.index, query, ans.top_k, ans.passage_chars)
        return list(gen.choice_logprobs(open_book_prompt(q, cut), ch))

    guesses: dict[str, str] = {}

    def guess(q: str) -> str:
        """The question and the student's closed-book answer to it: the HyDE query."""
        if q not in guesses:
            guesses[q] = f"{q} {gen.answer([q])[0]}"
        return guesses[q]

    def found(query: str, quote: str) -> bool:
        return any(quote in collapse(p.text) for p in ans.index.search(query, ans.top_k))

    def channel(q: str, ch: list[str], passages: bool) -> list[float]:
        """The noisy channel (Min et al. 2022): each choice scored by how well the student
        predicts the question from it, after the question's passages with `passages`."""
        cut = cut_passages(ans.index, q, ans.top_k, ans.passage_chars) if passages else []
        return [gen.choice_logprobs(open_book_prompt(CHANNEL.format(c), cut), [q])[0] for c in ch]

    quotes = raw_quotes(ws) if user else {}
    SCORES: dict[str, Callable[[str, list[str]], object]] = {
        "ext": lambda q, ch: ans.retriever.choice_scores(q, ch),
        "read": lambda q, ch: read(q, q, ch),
        "closed": lambda q, ch: gen.choice_logprobs(q, ch),
        "pq": lambda q, ch: read("Which of these does it describe?", q, ch),
        "null": lambda q, ch: gen.choice_logprobs("Answer:", ch),
        # the passages retrieved for the question and its choices together
        "readqc": lambda q, ch: read(q, with_choices(q, ch), ch),
        # the passages retrieved for the question and the student's closed-book answer
        "hyde": lambda q, ch: read(q, guess(q), ch),
        "chan": lambda q, ch: channel(q, ch, False),
        "chanr": lambda q, ch: channel(q, ch, True),
    }
    if only:
        SCORES = {k: v for k, v in SCORES.items() if k in only}
    for exam, items in (("own", mc), ("user", user.mc if user else [])):
        for it in items:
            q, ch = it.question, list(it.choices)
            row: Scores = dict(earlier.get((exam, it.id), {"exam": exam, "id": it.id}))
            row["gold"] = it.correct
            quote = quotes.get(it.id, "") if exam == "user" else ""
            if quote and "hit_q" not in row:
                row["hit_q"] = found(q, quote)
            if quote and "hit_hyde" not in row and "hyde" in SCORES:
                row["hit_hyde"] = found(guess(q), quote)
            for key, score in SCORES.items():
                if key not in row:
                    row[key] = score(q, ch)
            out.append(row)
            if len(out) % 20 == 0:
                print(f"{len(out)} items, {time.time() - t0:.0f} s", flush=True)
    ws.close()
    return out


def raw_quotes(ws: Any) -> dict[str, str]:
    """The user exam's item id -> its quote, whitespace-collapsed."""
    from jupiter.eval.userexam import collapse, raw_lines

    path = ws.cfg.resolve(ws.cfg.eval.user_exam_path)
    return {i: collapse(str(r.get("quote", ""))) for i, r in raw_lines(path).items()}


def diff(a: Sequence[float], b: Sequence[float]) -> list[float]:
    return [x - y for x, y in zip(a, b, strict=True)]


def zsum(*parts: Sequence[float]) -> list[float]:
    return [sum(vals) for vals in zip(*(zscores(p) for p in parts), strict=True)]


RULES: dict[str, Callable[[Scores], list[float]]] = {
    "extractive generator": lambda r: list(r["ext"]),
    "reader: z(read) + z(retriever) (shipped)": lambda r: zsum(r["read"], r["ext"]),
    "read alone": lambda r: list(r["read"]),
    "closed book": lambda r: list(r["closed"]),
    "read - bare prompt (PMI)": lambda r: diff(r["read"], r["null"]),
    "read - passages without the question": lambda r: diff(r["read"], r["pq"]),
    "z(read - passages alone) + z(retriever)": lambda r: zsum(diff(r["read"], r["pq"]), r["ext"]),
    "closed book - bare prompt": lambda r: diff(r["closed"], r["null"]),
    "read, retrieved with the choices": lambda r: list(r["readqc"]),
    "z(read with the choices) + z(retriever)": lambda r: zsum(r["readqc"], r["ext"]),
    "read, retrieved with the student's answer": lambda r: list(r["hyde"]),
    "z(read with its answer) + z(retriever)": lambda r: zsum(r["hyde"], r["ext"]),
    "z(read) + z(closed) + z(retriever)": lambda r: zsum(r["read"], r["closed"], r["ext"]),
    # retrieval.closed_book_weight 1: the closed book's PMI as the third expert
    "z(read) + z(retriever) + z(closed - bare prompt)": lambda r: zsum(
        r["read"], r["ext"], diff(r["closed"], r["null"])
    ),
    "z(read w/ answer) + z(closed) + z(retriever)": lambda r: zsum(
        r["hyde"], r["closed"], r["ext"]
    ),
    "channel, closed book": lambda r: list(r["chan"]),
    "channel, reading": lambda r: list(r["chanr"]),
    "z(channel reading) + z(retriever)": lambda r: zsum(r["chanr"], r["ext"]),
    "z(read) + z(channel reading) + z(retriever)": lambda r: zsum(r["read"], r["chanr"], r["ext"]),
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
        for key, what in (("hit_q", "the question"), ("hit_hyde", "question + student's answer")):
            hits = [bool(r[key]) for r in got if key in r]
            if hits:
                print(
                    f"  quote in the top passages retrieved by {what}: {fmean(hits):.3f} of {len(hits)}"
                )
        for name, rule in RULES.items():
            try:
                hits = [pick(rule(r)) == r["gold"] for r in got]
            except KeyError:  # raw scores of an earlier run, without this rule's
                continue
            m, lo, hi = paired(hits, gen)
            print(
                f"  {name:44s} MC {fmean(hits):.3f}  vs generator {m:+.3f} [{lo:+.3f}, {hi:+.3f}]"
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path)
    ap.add_argument("--domain")
    ap.add_argument("--model", type=Path)
    ap.add_argument("--quick", action="store_true", help="the YAML's quick: form")
    ap.add_argument(
        "--raw",
        type=Path,
        help="raw scores: read when it exists (with --home etc.: the scores it lacks are added)",
    )
    ap.add_argument(
        "--scores",
        default="",
        help="comma-separated score keys to compute (default all): ext,read,closed,pq,null,"
        "readqc,hyde,chan,chanr; the rules that need others are left out of the report",
    )
    a = ap.parse_args()
    rows = json.loads(a.raw.read_text()) if a.raw and a.raw.is_file() else None
    if a.home and a.domain and a.model:
        only = [k for k in a.scores.split(",") if k]
        rows = collect(a.home.resolve(), a.domain, a.model.resolve(), a.quick, rows, only)
        if a.raw:
            a.raw.write_text(json.dumps(rows))
    elif rows is None:
        ap.error("--home, --domain and --model are needed to score (or an existing --raw)")
    report(rows)


if __name__ == "__main__":
    main()
