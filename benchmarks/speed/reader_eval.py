"""An open-book exam's cost with and without the prefill shared between an item's answer
and its multiple choice: a model sits N user-exam items (QA then MC, as `jupiter eval`
runs them: evaluate_answerer) with passages before each question, the way the student +
retriever reads them. "shared": each QA batch's cache keeps its prompts' prefills, and the
item's choices are scored from them (synth/model.py, models/scoring.split_prefills);
"own": the prefills are dropped after each batch, so every MC prompt is run again (the
code before). The runs alternate (own, shared, own, shared) so a drifting host hits both.

    python benchmarks/speed/reader_eval.py --model DIR [--items 32] [--repeats 2]
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from mc_scoring import SYSTEM, exam_parser  # this folder is the script's sys.path[0]


def main() -> None:
    ap = exam_parser(__doc__, 32)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    from jupiter.eval.qa import MCItem, QAItem
    from jupiter.eval.report import evaluate_answerer
    from jupiter.synth.model import ModelGenerator

    rows = [json.loads(x) for x in args.exam.read_text().splitlines() if x.strip()]
    rows = rows[: args.items]
    quotes = " ".join(str(r["quote"]) for r in rows)
    # each question after passages of its own size (the other items' quotes, rotated)
    items, mc = [], []
    for k, r in enumerate(rows):
        start = (k * 97) % max(1, len(quotes) - args.prompt_chars)
        q = f"{quotes[start : start + args.prompt_chars]}\n\nQuestion: {r['question']}"
        answer = r["choices"][int(r["answer_index"])]
        items.append(QAItem(str(r.get("id", k)), q, answer))
        mc.append(MCItem(str(r.get("id", k)), q, list(r["choices"]), int(r["answer_index"])))
    gen = ModelGenerator(
        Path(args.model),
        "m",
        max_new_tokens=args.max_new_tokens,
        system_prompt=SYSTEM,
        dtype="auto",
    )

    class Own:  # the answerer with each batch's prefills dropped: every MC prompt run again
        id = "own"

        def answer(self, questions: Any) -> list[str]:
            got = gen.answer(questions)
            gen.prefills = {}
            return got

        def choose(self, question: str, choices: Any) -> int:
            return gen.choose(question, choices)

    seconds: dict[str, list[float]] = {"own": [], "shared": []}
    picks: dict[str, list[Any]] = {}
    for _ in range(args.repeats):
        for name, answerer in (("own", Own()), ("shared", gen)):
            t0 = time.perf_counter()
            rep = evaluate_answerer(answerer, items, mc)
            seconds[name].append(time.perf_counter() - t0)
            picks[name] = [rep["item_scores"]["mc_accuracy"], rep["predictions"]]
    same_mc = picks["own"][0] == picks["shared"][0]
    same_qa = picks["own"][1] == picks["shared"][1]
    own, shared = min(seconds["own"]), min(seconds["shared"])
    print(
        f"{gen.dtype}, {len(items)} items, prompts of ~{args.prompt_chars} chars, "
        f"{args.max_new_tokens} new tokens: own prefill {own:.1f} s "
        f"({', '.join(f'{s:.1f}' for s in seconds['own'])}), shared {shared:.1f} s "
        f"({', '.join(f'{s:.1f}' for s in seconds['shared'])}): {own / shared:.2f}x; "
        f"MC picks equal: {same_mc}, answers equal: {same_qa}"
    )


if __name__ == "__main__":
    main()
