"""Which merge helps on a domain? Members continued from one start, then merged every way
`jupiter merge` and `train.consensus` know, each model scored on the domain's eval set with
95% intervals, and paired against the best single member.

Setting: a domain's data made by Jupiter's own stages (collect, the extractive generator,
the filters); a start model trained on all of it (the tiny preset from scratch, `--steps
START`); then K members continued from that start, each with its own seed and shard of the
examples (`train.consensus` with `vary: [seed, shard]`, the code a cycle runs). Validation,
used to choose among members and to fit the greedy soup and the convex weights, is the train
split's held-out examples (bits per byte), never the eval set. Candidates:

- each member, and the best member by validation (the honest baseline: chosen without the
  eval set);
- the uniform soup (linear), the greedy soup, convex weights, TIES (task vectors from the
  start), all through `jupiter merge`'s engine;
- the consensus output (vote, merge of the agreeing members, gate against the best member).

Eval: bits per byte on the held-out documents, QA token F1 (greedy, the domain's eval set),
MC accuracy (log-likelihood, hard distractors), each with its 95% bootstrap interval; the
differences against the best member are paired on the same items.

Usage: python benchmarks/quality/merge.py [--domain python] [--members 4] [--start-steps 300]
       [--member-steps 150] [--max-items 120] [--workdir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import time
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console

ROOT = Path(__file__).resolve().parents[2]
METRICS = [("qa_f1", "QA F1"), ("mc_accuracy", "MC"), ("bpb", "bpb")]


def domain_yaml(args: argparse.Namespace, workdir: Path) -> Path:
    cfg = yaml.safe_load((ROOT / "config" / "domains" / f"{args.domain}.yaml").read_text())
    cfg["name"] = f"merge-{args.domain}"
    cfg.pop("quick", None)
    cfg["cycles"] = 1
    if args.modules and cfg["sources"][0].get("type") == "python_stdlib":
        cfg["sources"][0]["modules"] = args.modules
    qa = cfg.get("eval", {}).get("qa_path")
    if qa and not Path(qa).is_absolute():
        cfg["eval"]["qa_path"] = str((ROOT / "config" / "domains" / qa).resolve())
    cfg.setdefault("eval", {})["max_items"] = args.max_items
    cfg["model"] = {**cfg.get("model", {}), "preset": "tiny", "base": None}
    train = cfg.setdefault("train", {})
    train.update({"max_steps": args.start_steps, "heldout_fraction": 0.05, "metrics": []})
    path = workdir / f"{cfg['name']}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def figures(report: dict[str, Any]) -> str:
    out = []
    for key, shown in METRICS:
        v, ci = report.get(key), report.get(f"{key}_ci")
        if v is not None:
            out.append(f"{shown} {v:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""))
    return "  ".join(out)


def differences(comp: dict[str, Any]) -> str:
    """One line of paired differences with their intervals and verdicts."""
    cells = []
    for key, shown in METRICS:
        d = comp.get(key)
        if d and d.get("ci") is not None:
            cells.append(
                f"{shown} {d['difference']:+.3f} [{d['ci'][0]:+.3f}, "
                f"{d['ci'][1]:+.3f}] {d['verdict']}"
            )
    return "; ".join(cells)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domain", default="python")
    ap.add_argument("--modules", nargs="*", default=None, help="stdlib modules (python)")
    ap.add_argument("--members", type=int, default=4)
    ap.add_argument("--start-steps", type=int, default=300)
    ap.add_argument("--member-steps", type=int, default=150)
    ap.add_argument("--max-items", type=int, default=120)
    ap.add_argument("--workdir", type=Path, default=Path("runs-merge"))
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    os.environ["JUPITER_HOME"] = str(workdir)

    from jupiter.config import ConsensusConfig, load_domain
    from jupiter.eval.compare import compare_reports
    from jupiter.improve import cycle as cycle_mod
    from jupiter.improve.consensus import consensus_train, validation_texts, vote_and_merge
    from jupiter.improve.evalset import eval_items
    from jupiter.improve.evaluate import evaluate_model
    from jupiter.improve.training import base_tokenizer, training_examples
    from jupiter.improve.workspace import Workspace
    from jupiter.merge.engine import merge_models
    from jupiter.merge.recipe import parse_recipe
    from jupiter.merge.validation import ValidationData

    t0 = time.perf_counter()
    console = Console(stderr=True)
    ws = Workspace(load_domain(str(domain_yaml(args, workdir))), console=console)
    done = ws.store.stages(1) if ws.has_store() else {}
    for stage in ("collect", "generate", "filter", "train"):
        if stage not in done:
            ws.store.mark_stage(1, stage, cycle_mod.run_stage(ws, 1, stage))
    start = ws.student_dir(1)
    print(f"start: {start} ({args.start_steps} steps), {time.perf_counter() - t0:.0f} s")

    # the members: train.consensus's own code, from the start, seed and shard apart
    c = ConsensusConfig(members=args.members, vary=["seed", "shard"], threshold=0.75)
    train = ws.cfg.train.model_copy(
        update={"consensus": c, "max_steps": args.member_steps, "warmup_steps": 10}
    )
    ws.cfg = ws.cfg.model_copy(update={"train": train})
    examples = training_examples(ws)
    tok_dir, tokenizer = base_tokenizer(ws)
    from jupiter.improve.passages import train_chunks

    # the members read what the start read: raw text as the train stage mixes it
    has_text = any(e.kind == "text" for e in examples)
    texts = [] if has_text else [ch.text for ch in train_chunks(ws)]
    cons_dir, record = consensus_train(ws, 2, tokenizer, tok_dir, start, None, examples, texts)
    members = [Path(m["model_dir"]) for m in record["members"]]
    val = validation_texts(ws, tokenizer, examples, texts)
    print(f"members: {len(members)}, {time.perf_counter() - t0:.0f} s")

    quiet = Console(file=io.StringIO())
    merged: dict[str, Path] = {}
    recipes = {
        "uniform soup": {"method": "linear"},
        "greedy soup": {"method": "greedy_soup"},
        "convex": {"method": "convex"},
        "TIES": {"method": "ties", "base": str(start)},
    }
    val_file = workdir / "validation.jsonl"  # the recipe names it; the engine gets `data`
    val_file.write_text("".join(json.dumps({"text": t}) + "\n" for t in val))
    for name, rec in recipes.items():
        out = workdir / "merged" / name.replace(" ", "-")
        if not (out / "merge.json").is_file():
            recipe = parse_recipe(
                {
                    **rec,
                    "models": [{"model": str(m)} for m in members],
                    "out": str(out),
                    "validation": {"heldout": str(val_file)},
                }
            )
            data = ValidationData(texts=val, context=ws.cfg.model.context_length)
            merge_models(
                recipe, base_dir=None, cache_dir=ws.models_dir, data=data, force=True, console=quiet
            )
        merged[name] = out
    items, mc, about = eval_items(ws)
    reports: dict[str, dict[str, Any]] = {}

    def score(name: str, path: Path) -> dict[str, Any]:
        if name not in reports:
            reports[name] = evaluate_model(ws, path, name, items, mc)
            print(f"  {name:<16} {figures(reports[name])}", flush=True)
        return reports[name]

    print(f"eval set: {len(items)} QA, {len(mc)} MC ({about.get('distractors')})")
    score("start", start)
    for i, m in enumerate(members):
        score(f"member {i}", m)
    best = record["best_member"]
    for name, path in merged.items():
        score(name, path)
    score("consensus", cons_dir)
    cg = ConsensusConfig(members=len(members), threshold=0.75, merge="greedy_soup")
    g_dir, g_rec = vote_and_merge(
        members,
        val,
        cg,
        context=ws.cfg.model.context_length,
        cache_dir=ws.models_dir,
        console=quiet,
        base=start,
        out=workdir / "merged" / "consensus-greedy",
    )
    score("consensus greedy", g_dir)
    ref = reports[f"member {best}"]
    print(f"\npaired against the best member by validation (member {best}):")
    comparisons: dict[str, Any] = {}
    for name, rep in reports.items():
        if name == f"member {best}":
            continue
        comp = compare_reports(rep, ref)["metrics"]
        comparisons[name] = comp
        print(f"  {name:<16} " + differences(comp))
    print(f"\nconsensus: {record['reason']}")
    print(f"consensus (merge: greedy_soup): {g_rec['reason']}")
    # the vote with a poisoned member added: each honest member's copy x1e6
    poisoned = workdir / "poisoned"
    if not (poisoned / "model.safetensors").is_file():
        import shutil

        from safetensors.torch import load_file, save_file

        shutil.copytree(members[0], poisoned, dirs_exist_ok=True)
        w = load_file(str(members[0] / "model.safetensors"))
        save_file({k: v * 1e6 for k, v in w.items()}, str(poisoned / "model.safetensors"))
    c5 = ConsensusConfig(members=len(members) + 1, threshold=0.75)
    p_dir, p_rec = vote_and_merge(
        [*members, poisoned],
        val,
        c5,
        context=ws.cfg.model.context_length,
        cache_dir=ws.models_dir,
        console=quiet,
        base=start,
        out=workdir / "merged" / "poisoned",
    )
    print(f"with a poisoned member: outliers {p_rec['vote']['outliers']}; {p_rec['reason']}")
    seconds = time.perf_counter() - t0
    print(f"\n{seconds / 60:.1f} min")
    if args.json:
        slim = {
            k: {
                m: r.get(m)
                for m in (
                    "qa_f1",
                    "qa_f1_ci",
                    "mc_accuracy",
                    "mc_accuracy_ci",
                    "bpb",
                    "bpb_ci",
                    "n_qa",
                    "n_mc",
                )
            }
            for k, r in reports.items()
        }
        args.json.write_text(
            json.dumps(
                {
                    "reports": slim,
                    "comparisons": comparisons,
                    "consensus": record,
                    "greedy": g_rec,
                    "poisoned": p_rec,
                    "seconds": seconds,
                    "args": vars(args) | {"workdir": str(workdir)},
                },
                indent=1,
                default=str,
            )
        )
    ws.close()


if __name__ == "__main__":
    main()
