"""Knowledge or a prior? A student's user-exam gain on the items whose quote is in the
documents it trained on ("seen") against the items about documents it never read
("unseen").

A run's eval scores only the seen items (improve/exams.user_exam: the quote must be in the
train split's documents). A gain that is knowledge of those documents shows there and not
on the unseen items; a gain that is a prior (the style of the domain's docs, the shape of
an API name) shows on both. Both models sit every item of the exam by multiple choice
(`jupiter score`, one new token for QA), split by the eval's own rule on the run's
workspace; each part gets student − base paired by item, and the two gains' difference an
interval from resampling each part's items.

    python benchmarks/quality/seen_unseen.py --home JUPITER_HOME --domain YAML [--quick] \\
        --base MODEL --student MODEL [--out DIR]
    # reports already in --out (base.json, student.json) are read, not scored again
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from jupiter.eval.stats import RESAMPLES, SEED, paired_diff_ci


def seen_ids(home: Path, domain: str, quick: bool) -> tuple[set[str], Path, str]:
    """The user-exam items the run's eval scores (quote in its training documents), the
    exam file, and the domain's system prompt."""
    os.environ["JUPITER_HOME"] = str(home)
    from rich.console import Console

    from jupiter.config import load_domain
    from jupiter.improve.exams import user_exam
    from jupiter.improve.workspace import Workspace

    cfg = load_domain(domain, quick=quick)
    ws = Workspace(cfg, quick=quick, console=Console(file=io.StringIO()))
    if not ws.has_store():
        raise SystemExit(f"no run of {cfg.name} under {home}: pass the run's JUPITER_HOME")
    exam = user_exam(ws)
    if exam is None:
        raise SystemExit(f"{domain} has no eval.user_exam_path")
    path = cfg.resolve(cfg.eval.user_exam_path)
    ids = {it.id for it in exam.items}
    ws.close()
    return ids, path, cfg.system_prompt


def score(model: str, exam: Path, system: str, out: Path) -> dict[str, float]:
    """Per-item multiple-choice scores of `model` on every item of `exam`."""
    if not out.is_file():
        cmd = [sys.executable, "-m", "jupiter.cli", "score", "--model", model, "--qa", str(exam)]
        cmd += ["--max-new-tokens", "1", "--general-max-bytes", "0", "--out", str(out)]
        cmd += ["--system-prompt", system] if system else []
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    scores: dict[str, float] = json.loads(out.read_text())["item_scores"]["mc_accuracy"]
    return scores


def part_row(
    name: str, ids: list[str], base: dict[str, float], student: dict[str, float]
) -> dict[str, Any]:
    b = [base[i] for i in ids]
    s = [student[i] for i in ids]
    d = np.subtract(s, b)
    return {
        "part": name,
        "n": len(ids),
        "base": float(np.mean(b)) if ids else None,
        "student": float(np.mean(s)) if ids else None,
        "gain": float(d.mean()) if ids else None,
        "ci": paired_diff_ci(s, b),
        "gained": int((d > 0).sum()),
        "lost": int((d < 0).sum()),
    }


def gain_gap_ci(seen: np.ndarray, unseen: np.ndarray) -> tuple[float, float] | None:
    """95% interval of mean(seen) - mean(unseen), the parts resampled independently."""
    if len(seen) < 2 or len(unseen) < 2:
        return None
    rng = np.random.default_rng(SEED)
    a = seen[rng.integers(0, len(seen), (RESAMPLES, len(seen)))].mean(axis=1)
    b = unseen[rng.integers(0, len(unseen), (RESAMPLES, len(unseen)))].mean(axis=1)
    lo, hi = np.percentile(a - b, [2.5, 97.5])
    return float(lo), float(hi)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True, help="the run's JUPITER_HOME")
    ap.add_argument("--domain", required=True, help="the run's domain YAML")
    ap.add_argument("--quick", action="store_true", help="the run was --quick")
    ap.add_argument("--base", required=True, help="the base model (dir, .gguf)")
    ap.add_argument("--student", required=True, help="the student (dir)")
    ap.add_argument("--out", type=Path, default=Path("seen-unseen"))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    seen, exam, system = seen_ids(args.home.resolve(), args.domain, args.quick)
    base = score(args.base, exam, system, args.out / "base.json")
    student = score(args.student, exam, system, args.out / "student.json")
    if set(base) != set(student):
        raise SystemExit("the two reports hold different items: remove them and run again")
    ids = sorted(base)
    rows = [
        part_row(
            "seen (quote in the training documents)", [i for i in ids if i in seen], base, student
        ),
        part_row("unseen", [i for i in ids if i not in seen], base, student),
        part_row("all", ids, base, student),
    ]
    diff = {i: student[i] - base[i] for i in ids}
    gap_seen = np.array([diff[i] for i in ids if i in seen])
    gap_unseen = np.array([diff[i] for i in ids if i not in seen])
    gap = {
        "gap": float(gap_seen.mean() - gap_unseen.mean())
        if len(gap_seen) and len(gap_unseen)
        else None,
        "ci": gain_gap_ci(gap_seen, gap_unseen),
    }
    print("| items | n | base MC | student MC | student − base [95% CI] | gained / lost |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if not r["n"]:
            continue
        lo, hi = r["ci"] or (float("nan"), float("nan"))
        print(
            f"| {r['part']} | {r['n']} | {r['base']:.3f} | {r['student']:.3f} | "
            f"{r['gain']:+.3f} [{lo:+.3f}, {hi:+.3f}] | {r['gained']} / {r['lost']} |"
        )
    if gap["gap"] is not None and gap["ci"] is not None:
        lo, hi = gap["ci"]
        print(f"\nseen gain − unseen gain: {gap['gap']:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    (args.out / "seen_unseen.json").write_text(json.dumps({"rows": rows, "gap": gap}, indent=1))


if __name__ == "__main__":
    main()
