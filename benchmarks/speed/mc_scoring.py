"""Multiple-choice scoring speed: a model's choice log-probabilities on the first N items of
a user exam, asked closed book and after a long (open-book sized) prompt, as the eval
scores them (`ModelGenerator.choice_logprobs`: the prompt once, the choices after it).

    python benchmarks/speed/mc_scoring.py --model DIR [--exam config/domains/exams/python.jsonl]
        [--items 30] [--out scores.json]

Run it under two checkouts (PYTHONPATH=OTHER/src) to compare code: the scores are written
with --out, so the two runs' choices can be checked equal as well as timed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYSTEM = "You are an expert on the Python language and its standard library."


def exam_parser(doc: str, items: int) -> argparse.ArgumentParser:
    """The arguments of the exam-scoring benchmarks (this one, reader_eval.py)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--model", required=True, help="an HF model dir or a LoRA student dir")
    ap.add_argument("--exam", type=Path, default=ROOT / "config/domains/exams/python.jsonl")
    ap.add_argument("--items", type=int, default=items)
    ap.add_argument("--prompt-chars", type=int, default=1200, help="passages before a question")
    return ap


def main() -> None:
    ap = exam_parser(__doc__, 30)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    import jupiter
    from jupiter.synth.model import ModelGenerator

    lines = args.exam.read_text().splitlines()
    items = [json.loads(line) for line in lines if line.strip()][: args.items]
    gen = ModelGenerator(
        Path(args.model), "m", max_new_tokens=24, system_prompt=SYSTEM, dtype="auto"
    )
    # the long prompt: other items' quoted passages before the question, as open book reads
    passages = " ".join(str(it["quote"]) for it in items)[: args.prompt_chars]
    got: dict[str, list[list[float]]] = {}
    seconds: dict[str, float] = {}
    for name, prefix in (("closed", ""), ("long", passages + "\n\n")):
        t0 = time.perf_counter()
        got[name] = [gen.choice_logprobs(prefix + it["question"], it["choices"]) for it in items]
        seconds[name] = time.perf_counter() - t0
    n = len(items)
    print(
        f"{jupiter.__file__}: {gen.dtype}, {n} items: closed book {seconds['closed']:.1f} s "
        f"({seconds['closed'] / n:.2f} s/item), long prompt {seconds['long']:.1f} s "
        f"({seconds['long'] / n:.2f} s/item)"
    )
    if args.out:
        args.out.write_text(json.dumps({"seconds": seconds, "scores": got}))


if __name__ == "__main__":
    main()
