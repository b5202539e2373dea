"""Which facts does the training set state as Q&A? For each user-exam item whose quote lies
in a training chunk: does one training Q&A (the generator's, then with the knowledge recipe
added) hold at least 80% of the quote's word 4-grams? A diagnostic of the data alone: no
model is trained or run, and nothing here feeds training (the exam only measures).

Per domain it builds the `expert.py --ablation` arm's YAML (`recipe2`: the fine-tuning
recipe with every prose sentence asked), runs collect, generate and filter in its quick
form when the workspace has no accepted examples yet, then prints the share of items whose
fact some Q&A states: by the generator alone, with the recipe, and with the recipe plus
`train.knowledge.definitions`, and the recipe's question counts.

    python benchmarks/quality/fact_coverage.py [--domains python cmake man] [--workdir DIR]
        [--json OUT]   (per item: two versions' runs paired by item)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from expert import DOMAINS, arm_yaml  # noqa: E402

WORD = re.compile(r"[a-z0-9_]+|[^\sa-z0-9_]")
SHARE = 0.8  # of the quote's 4-grams, in one Q&A


def grams(text: str, n: int = 4) -> set[tuple[str, ...]]:
    from jupiter.eval.userexam import collapse

    words = WORD.findall(collapse(text).lower())
    return {tuple(words[i : i + n]) for i in range(max(1, len(words) - n + 1))}


def stated(examples: list[Any], quotes: list[str]) -> list[bool]:
    """Per quote: does one Q&A (question and answer) hold SHARE of its 4-grams?"""
    index: dict[tuple[str, ...], set[int]] = defaultdict(set)
    for i, e in enumerate(examples):
        for g in grams(" ".join(m["content"] for m in e.messages)):
            index[g].add(i)
    out = []
    for quote in quotes:
        want = grams(quote)
        hits: Counter[int] = Counter(i for g in want for i in index.get(g, ()))
        out.append(bool(hits) and max(hits.values()) >= SHARE * len(want))
    return out


def coverage(yaml_path: Path, exam: Path, workdir: Path) -> dict[str, Any]:
    from rich.console import Console

    from jupiter.config import load_domain
    from jupiter.eval.userexam import collapse
    from jupiter.improve.passages import train_chunks
    from jupiter.improve.trainrun import chunk_titles, knowledge_mix, plain_chunks
    from jupiter.improve.workspace import Workspace

    os.chdir(workdir)
    ws = Workspace(load_domain(str(yaml_path), quick=True), console=Console(), quick=True)
    if not any(True for _ in ws.store.iter_examples(status="accepted")):
        jupiter = Path(sys.executable).with_name("jupiter")
        for verb in ("collect", "generate", "filter"):
            subprocess.run([str(jupiter), verb, "-d", str(yaml_path), "--quick"], check=True)
    chunks = train_chunks(ws)
    texts = [collapse(c.text) for c in chunks]
    rows = [json.loads(line) for line in exam.read_text().splitlines() if line.strip()]
    items = [r for r in rows if any(collapse(r["quote"]) in t for t in texts)]
    ids = [str(r.get("id", i)) for i, r in enumerate(items)]
    quotes = [r["quote"] for r in items]
    accepted = list(ws.store.iter_examples(status="accepted"))
    generator = [e for e in accepted if e.kind == "qa"]
    t = ws.cfg.train
    with_defs = t.model_copy(
        update={"knowledge": t.knowledge.model_copy(update={"definitions": True})}
    )
    out: dict[str, Any] = {"items": len(items), "generator_qa": len(generator)}
    cells = {"generator": stated(generator, quotes)}
    for name, cfg, defs in (("recipe", t, None), ("recipe+definitions", with_defs, chunks)):
        more, _, mix = knowledge_mix(
            accepted, [], cfg, chunk_titles(ws, cfg), defs, plain=plain_chunks(ws, cfg)
        )
        qa = [e for e in more if e.kind == "qa" and e.messages]
        cells[name] = stated(qa, quotes)
        out[f"{name}_qa"] = len(qa)
        out[f"{name}_mix"] = mix
    for name, got in cells.items():
        out[name] = sum(got) / max(1, len(got))
    out["per_item"] = {name: dict(zip(ids, got, strict=True)) for name, got in cells.items()}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domains", nargs="+", default=["python", "cmake", "man"])
    ap.add_argument("--workdir", type=Path, default=Path("runs-fact-coverage"))
    ap.add_argument("--json", type=Path, default=None, help="per domain and item, to pair runs")
    args = ap.parse_args()
    report: dict[str, Any] = {}
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    for domain in args.domains:
        path = arm_yaml(domain, "recipe2", workdir, None)
        if path is None:
            print(f"{domain}: its documentation is not on this machine: skipped")
            continue
        got = coverage(path, DOMAINS / "exams" / f"{domain}.jsonl", workdir)
        print(
            f"{domain}: {got['items']} items; stated as Q&A by the generator "
            f"{got['generator']:.3f} ({got['generator_qa']:,} Q&A), with the recipe "
            f"{got['recipe']:.3f} ({got['recipe_qa']:,}), with definitions "
            f"{got['recipe+definitions']:.3f} ({got['recipe+definitions_qa']:,})"
        )
        print(f"  mix with definitions: {got['recipe+definitions_mix']}")
        report[domain] = got
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
