"""Which index finds what a user asks about? BM25, a sentence embedder, or both fused.

For each domain (a collected workspace), every user-exam item whose quote lies in a
training chunk: the rank of the first passage holding the quote under each
`retrieval.kind` (bm25, embedding, hybrid), and the extractive generator's multiple-choice
pick with its evidence taken from that kind's top passages. Items are split in two halves
by the SHA-1 of their id (dev: even, test: odd), so a choice made on one half is read on
the other. No language model is run; the embedder is any sentence-transformers folder.

    python benchmarks/quality/retrieval_kinds.py --home JUPITER_HOME --embedder DIR \\
        --domain YAML[:quick] [--domain ...] [--json OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEPTHS = (1, 2, 5, 20)
KINDS = ("bm25", "embedding", "hybrid")
EVIDENCE_PASSAGES = 3  # the extractive generator's PASSAGES


def half(item_id: str) -> str:
    return "dev" if hashlib.sha1(item_id.encode()).digest()[-1] % 2 == 0 else "test"


def evidence_scores(gen: Any, hits: Sequence[tuple[int, float]], choices: Sequence[str]) -> list:
    """The extractive generator's choice scores (idf-weighted coverage of each choice's
    terms) over `hits`: (chunk index, weight relative to the top passage)."""
    from jupiter.synth.retrieval import tokenize

    weight: dict[str, float] = {}
    for i, rel in hits:
        c = gen.chunks[i]
        for t in set(tokenize(f"{c.title}\n{c.text}")):
            weight[t] = max(weight.get(t, 0.0), rel)
    out = []
    for choice in choices:
        terms = sorted(set(tokenize(choice)))
        idf = {t: gen.index.idf(t) for t in terms}
        covered = sum(idf[t] * weight.get(t, 0.0) for t in terms)
        out.append(covered / (sum(idf.values()) + 1.0))
    return out


def pick(scores: Sequence[float]) -> int:
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


def measure(spec: str, embedder: str) -> list[dict[str, Any]]:
    from jupiter.config import RetrievalConfig
    from jupiter.config.loader import load_domain
    from jupiter.improve.exams import collapse, raw_lines
    from jupiter.improve.passages import train_chunks
    from jupiter.improve.workspace import Workspace
    from jupiter.synth.extractive import ExtractiveGenerator
    from jupiter.synth.passages import PassageIndex

    path, _, mode = spec.partition(":")
    quick = mode == "quick"
    cfg = load_domain(path, quick=quick)
    ws = Workspace(cfg, quick=quick)
    chunks = train_chunks(ws)
    texts = [collapse(c.text) for c in chunks]
    raw = raw_lines(cfg.resolve(cfg.eval.user_exam_path))
    items = [r for r in raw.values() if any(collapse(str(r["quote"]))[:60] in t for t in texts)]
    gen = ExtractiveGenerator(chunks)
    rows = [
        {
            "domain": cfg.name,
            "id": r["id"],
            "half": half(r["id"]),
            "rank": {},
            "mc": {},
        }
        for r in items
    ]
    for kind in KINDS:
        rc = RetrievalConfig(kind=kind, embedding_model=embedder if kind != "bm25" else "")
        index = PassageIndex.from_chunks(chunks, rc)
        for row, r in zip(rows, items, strict=True):
            quote = collapse(str(r["quote"]))[:60]
            ranking = index.ranking(r["question"], 50)
            row["rank"][kind] = next(
                (pos for pos, i in enumerate(ranking) if quote in texts[i]), 50
            )
            if kind == "bm25":
                hits = gen.index.search(r["question"], k=EVIDENCE_PASSAGES)
                hits = [(i, s / hits[0][1]) for i, s in hits] if hits else []
                scores = evidence_scores(gen, hits, r["choices"])
                assert scores == gen.choice_scores(r["question"], r["choices"])
            else:
                top = ranking[:EVIDENCE_PASSAGES]
                hits = [(i, (rc.rrf_k + 1) / (rc.rrf_k + 1 + pos)) for pos, i in enumerate(top)]
                scores = evidence_scores(gen, hits, r["choices"])
            row["mc"][kind] = float(pick(scores) == int(r["answer_index"]))
    print(
        f"{cfg.name}: {len(rows)} of {len(raw)} user-exam items with their quote in "
        f"{len(chunks)} training chunks"
    )
    return rows


def report(rows: list[dict[str, Any]], label: str) -> None:
    from jupiter.eval.stats import mean_ci, paired_diff_ci

    n = len(rows)
    if not n:
        return
    print(f"\n{label} ({n} items)")
    for kind in KINDS:
        rec = "  ".join(f"@{k} {sum(r['rank'][kind] < k for r in rows) / n:.3f}" for k in DEPTHS)
        mc = [r["mc"][kind] for r in rows]
        lo, hi = mean_ci(mc) or (float("nan"), float("nan"))
        print(f"  {kind:<10} recall {rec}   generator MC {sum(mc) / n:.3f} [{lo:.3f}, {hi:.3f}]")
    for kind in KINDS[1:]:
        r2 = [float(r["rank"][kind] < 2) for r in rows]
        b2 = [float(r["rank"]["bm25"] < 2) for r in rows]
        d = paired_diff_ci(r2, b2)
        mk = [r["mc"][kind] for r in rows]
        mb = [r["mc"]["bm25"] for r in rows]
        m = paired_diff_ci(mk, mb)
        print(
            f"  {kind} - bm25: recall@2 {(sum(r2) - sum(b2)) / n:+.3f} "
            f"[{d[0]:+.3f}, {d[1]:+.3f}]   generator MC {(sum(mk) - sum(mb)) / n:+.3f} "
            f"[{m[0]:+.3f}, {m[1]:+.3f}]"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", required=True, help="the JUPITER_HOME holding the workspaces")
    ap.add_argument("--embedder", required=True, help="a sentence-transformers folder")
    ap.add_argument("--domain", action="append", required=True, help="YAML, or YAML:quick")
    ap.add_argument("--half", choices=("dev", "test", "all"), default="all")
    ap.add_argument("--json", help="write every item's ranks and picks here")
    args = ap.parse_args()
    os.environ["JUPITER_HOME"] = args.home
    rows: list[dict[str, Any]] = []
    for spec in args.domain:
        rows += measure(spec, args.embedder)
    if args.json:
        Path(args.json).write_text(json.dumps(rows))
    halves = ("dev", "test") if args.half == "all" else (args.half,)
    for h in halves:
        part = [r for r in rows if r["half"] == h]
        report(part, f"{h} half, pooled")
        if args.half != "dev":
            for name in dict.fromkeys(r["domain"] for r in part):
                report([r for r in part if r["domain"] == name], f"{h} half, {name}")


if __name__ == "__main__":
    main()
