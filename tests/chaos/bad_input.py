"""The malformed-input corpus (corpus.py) through `jupiter`, case by case.

Each case runs in a fresh home folder, in this process (cli.main with sys.argv patched,
its SystemExit caught: 0.03-0.5 s a case instead of a new interpreter's start-up), and
passes when
- the exit status is not 0 (and the command ended within its time limit);
- stderr holds exactly one line, and no 'Traceback' appears anywhere;
- that line contains each of the case's mentions (the key, file or value at fault) and
  matches its pattern when it has one;
- the store is as it was: no store appears in a fresh home; a seeded one keeps its bytes;
- for the command families (`untouched` cases), every file of the case folder and of the
  shared model keeps its bytes, and none appears or goes.
Then the `serve_http` family (corpus_http.py): bad requests to one real `jupiter serve`.

A few cases also run as real `jupiter` processes (--parity N) to show the in-process
harness sees what a shell sees.

    python tests/chaos/bad_input.py [--commands] [--family A,B] [--sample N]
        [--parity N] [--out FILE] [--verbose]
"""

from __future__ import annotations

import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from pydoc_data.topics import topics
from typing import Any

from corpus import LOCAL_TEXT, START, Case, Fixtures, badinput_cases
from corpus_files import (
    data_line_cases,
    eval_set_cases,
    references_cases,
    sources_cases,
    yaml_syntax_cases,
)
from corpus_http import HttpCase, http_cases, run_http_corpus
from corpus_models import cli_cases, cluster_cases, model_dir_cases
from corpus_readers import command_cases
from corpus_schema import (
    yaml_enum_cases,
    yaml_range_cases,
    yaml_type_cases,
    yaml_unknown_key_cases,
)
from harness import emit, out_arg, run_cli, run_cli_process, store_digest, tree_digest

# an existing workspace has collected already: a bad source or data file is not read again
# by `start`, so those cases run on a fresh home only
SEEDABLE = {
    "badinput",
    "yaml_syntax",
    "eval_set",
    "references",
    "model_dirs",
    "yaml_type",
    "yaml_range",
    "yaml_enum",
    "yaml_unknown_key",
}


def seedable(case: Case) -> bool:
    collects = case.fresh_only or case.name.startswith(("dataset_", "since_", "until_"))
    return case.family in SEEDABLE and not collects


def all_cases() -> list[Case]:
    """Every case; the seeded ones alternate inside the generated families so both a fresh
    home (no store may appear) and an existing store (its bytes may not change) are seen."""
    out: list[Case] = []
    families = [
        badinput_cases,
        yaml_syntax_cases,
        sources_cases,
        data_line_cases,
        eval_set_cases,
        references_cases,
        model_dir_cases,
        cli_cases,
        cluster_cases,
        yaml_type_cases,
        yaml_range_cases,
        yaml_enum_cases,
        yaml_unknown_key_cases,
        command_cases,
    ]
    for family in families:
        for i, case in enumerate(family()):
            if not case.seeded and case.argv == START and i % 2 == 1 and seedable(case):
                case = Case(**{**case.__dict__, "seeded": True})
            out.append(case)
    ids = [c.id for c in out]
    dupes = {i for i in ids if ids.count(i) > 1}
    assert not dupes, f"duplicate case ids: {sorted(dupes)}"
    return out


# cases the corpus found failing on the code before the chaos suite (one per kind of fix;
# docs/RELIABILITY.md lists all 76): tests/chaos runs them as regression tests
FIXED_BY_THE_SUITE = (
    "sources/exec_logs_since_after_until",
    "data_lines/csv/latin1",
    "references/general_path_missing",
    "references/lm_eval_include_missing",
    "references/level_dataset_missing",
    "references/level_dataset_latin1",
    "references/task_template_missing",
    "references/judge_template_missing",
    "references/transformers_teacher_empty",
    "references/cluster_teacher_without_cluster",
    "references/eval_judge_unreachable",
    "references/no_eval_set_possible",
    "model_dirs/serve/config_hidden_size_string",
    "model_dirs/serve/weights_wrong_tensors",
    "model_dirs/chat/weights_wrong_tensors",
    "model_dirs/eval/tokenizer_corrupt",
    "model_dirs/model.base/weights_wrong_tensors",
    "model_dirs/model.base/tokenizer_corrupt",
    "model_dirs/generator.model_path/config_unknown_family",
    "model_dirs/serve/gguf_garbage",
    "cli/start/option_typo",
    "cli/no_command_args_typo",
    "cli/serve/port_too_high",
    "cli/eval/passages_without_open_book",
    "cli/data_export/split_not_summing",
    "cli/config_presets/context_zero",
    "cli/doctor/cluster_file_missing",
    "cli/merge/weight_not_number",
    "cluster/plan/duplicate_node_names",
)


def build_fixtures(root: Path) -> Fixtures:
    """A tiny model that loads, and a workspace store after a good collect."""
    from jupiter.store import Store
    from tinyhf import save_tiny

    model = save_tiny("llama", root / "tiny-model")
    docs = root / "docs"
    docs.mkdir()
    # distinct documents, enough that some are held out and give eval questions
    for name, text in sorted(topics.items())[:80]:
        (docs / f"{name}.md").write_text(f"# {name}\n\n{text[:1500]}\n")
    # documents are held out by a hash of their id, which holds their path: a seed folder
    # can hold none out (about 2% of temp folders at 5% of 80 documents); the next name will
    for k in range(8):
        seed = root / f"seed{k}"
        seed.mkdir()
        shutil.copytree(docs, seed / "docs")
        (seed / "bad.yaml").write_text(LOCAL_TEXT)
        done = run_cli(["collect", "--domain", str(seed / "bad.yaml")], seed)
        if done.code != 0:
            raise SystemExit(f"could not seed the store: {done.stderr}")
        with Store(seed / "runs" / "bad" / "jupiter.sqlite") as store:
            if store.count("chunks", "split = 'heldout'"):
                return Fixtures(model=model, seed_store=seed / "runs" / "bad", docs=docs)
    raise AssertionError("no held-out chunk in 8 seed folders")


def prepare(case: Case, home: Path, fx: Fixtures) -> list[str]:
    """The case's folder, files and store; returns its argv."""
    shutil.copytree(fx.docs, home / "docs")
    text = case.setup(home, fx) if case.setup is not None else None
    data = case.yaml if case.yaml is not None else text
    if data is not None:
        (home / "bad.yaml").write_bytes(data.encode() if isinstance(data, str) else data)
    if case.seeded:
        shutil.copytree(fx.seed_store, home / "runs" / "bad", dirs_exist_ok=True)
    subs = {"{yaml}": str(home / "bad.yaml"), "{home}": str(home), "{model}": str(fx.model)}
    argv = []
    for a in case.argv:
        for k, v in subs.items():
            a = a.replace(k, v)
        argv.append(a)
    return argv


def judge(
    case: Case, code: Any, stdout: str, stderr: str, before: dict[str, str], after: dict[str, str]
) -> list[str]:
    """Why the case fails (empty: it passes)."""
    problems = []
    if code == 0:
        problems.append("exit 0 (accepted)")
    elif not isinstance(code, int):
        problems.append(f"no exit: {code}")
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    if "Traceback" in stdout + stderr:
        problems.append("traceback")
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr")
    line = " ".join(stderr.split())
    for m in case.mentions:
        if m not in line:
            problems.append(f"does not mention {m!r}")
    if case.pattern and not re.search(case.pattern, line):
        problems.append(f"does not match {case.pattern!r}")
    if before != after:
        problems.append("store changed" if before else "store created")
    return problems


def tree_problems(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What a refused command changed among the files it was given (tree_digest)."""
    if before == after:
        return []
    added = sorted(after.keys() - before.keys())
    gone = sorted(before.keys() - after.keys())
    changed = sorted(k for k in before.keys() & after.keys() if before[k] != after[k])
    parts = [
        f"{what} {', '.join(names[:3])}"
        for what, names in (("wrote", added), ("deleted", gone), ("changed", changed))
        if names
    ]
    return ["files touched: " + "; ".join(parts)]


def run_case(case: Case, root: Path, i: int, fx: Fixtures, process: bool = False) -> dict:
    home = root / f"case{i:04d}{'p' if process else ''}"
    argv = prepare(case, home, fx)
    before = store_digest(home)
    trees = [home, fx.model]
    tree_before = tree_digest(trees) if case.untouched else {}
    run = run_cli_process if process else run_cli
    out = run(argv, home)
    after = store_digest(home)
    problems = judge(case, out.code, out.stdout, out.stderr, before, after)
    if case.untouched:
        problems += tree_problems(tree_before, tree_digest(trees))
    line = " ".join(out.stderr.split())[:400]
    shutil.rmtree(home, ignore_errors=True)
    return {
        "id": case.id,
        "family": case.family,
        "code": out.code,
        "problems": problems,
        "error": line,
        "seconds": round(out.seconds, 3),
        "seeded": case.seeded,
    }


def warm() -> None:
    """Import here what cases import, so each forked case finds it loaded (copy on write):
    the CLI, the stages, and the model loaders (torch, transformers)."""
    import jupiter.cli
    import jupiter.improve.cycle
    import jupiter.models.loading
    import jupiter.synth.http  # noqa: F401


def _show(r: dict[str, Any], verbose: bool) -> None:
    if verbose or r["problems"]:
        mark = "ok  " if not r["problems"] else "FAIL"
        print(f"{mark} {r['id']}: {'; '.join(r['problems'])} | {r['error'][:200]}", flush=True)


def run_corpus(
    cases: list[Case], parity: int = 0, verbose: bool = False, http: list[HttpCase] | None = None
) -> dict[str, Any]:
    """The command-line cases in this process, then the HTTP cases against one real
    `jupiter serve` (corpus_http)."""
    root = Path(tempfile.mkdtemp(prefix="jupiter-bad-input-"))
    t0 = time.perf_counter()
    warm()
    try:
        fx = build_fixtures(root)
        results = []
        for i, case in enumerate(cases):
            results.append(run_case(case, root, i, fx))
            _show(results[-1], verbose)
        for r in run_http_corpus(http or [], fx.model, root) if http else []:
            results.append(r)
            _show(r, verbose)
        checked = _parity(cases, results, root, fx, parity)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return summarize(results, checked, time.perf_counter() - t0)


def _parity(cases: list[Case], results: list[dict], root: Path, fx: Fixtures, n: int) -> list[dict]:
    """The same verdict and error line from a real process, on n cases."""
    rng = random.Random(18)
    picks = rng.sample(range(len(cases)), min(n, len(cases)))
    out = []
    for i in picks:
        r = run_case(cases[i], root, i, fx, process=True)
        same = bool(r["problems"]) == bool(results[i]["problems"]) and _norm(r["error"]) == _norm(
            results[i]["error"]
        )
        out.append(
            {
                "id": r["id"],
                "same": same,
                "in_process": results[i]["error"][:160],
                "process": r["error"][:160],
                "process_s": r["seconds"],
                "in_process_s": results[i]["seconds"],
            }
        )
    return out


def _norm(line: str) -> str:
    """An error line without its case folder (p for the process copy) and port numbers."""
    line = re.sub(r"case\d{4}p?", "case", line)
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", line)


def summarize(results: list[dict], parity: list[dict], seconds: float) -> dict[str, Any]:
    by_family: dict[str, list[int]] = {}
    for r in results:
        row = by_family.setdefault(r["family"], [0, 0])
        row[0] += not r["problems"]
        row[1] += 1
    failed = [r for r in results if r["problems"]]
    kinds = Counter(p.split(" '")[0].split(":")[0] for r in failed for p in r["problems"])
    passed = len(results) - len(failed)
    return {
        "cases": len(results),
        "passed": passed,
        "pass_rate": round(passed / max(1, len(results)), 4),
        "seeded_cases": sum(r["seeded"] for r in results),
        "by_family": {f: {"passed": a, "cases": b} for f, (a, b) in sorted(by_family.items())},
        "failure_kinds": dict(kinds.most_common()),
        "failures": [{k: r[k] for k in ("id", "code", "problems", "error")} for r in failed],
        "parity": {"checked": len(parity), "same": sum(p["same"] for p in parity), "cases": parity},
        "seconds": round(seconds, 1),
        "mean_case_s": round(sum(r["seconds"] for r in results) / max(1, len(results)), 3),
    }


def select(argv: list[str]) -> tuple[list[Case], list[HttpCase]]:
    """The cases the flags pick: --commands (the command families), --family A,B (a family
    or an id prefix), --sample N (of the command-line cases)."""
    cases = all_cases()
    http = http_cases()
    if "--family" in argv:
        fams = argv[argv.index("--family") + 1].split(",")
        http = [c for c in http if c.family in fams or c.id.startswith(tuple(fams))]
    if "--commands" in argv:  # the command families only (corpus_outputs, corpus_readers)
        cases = [c for c in cases if c.untouched]
    if "--family" in argv:
        fam = argv[argv.index("--family") + 1]
        fams = fam.split(",")
        cases = [c for c in cases if c.family in fams or c.id.startswith(tuple(fams))]
    if "--sample" in argv:
        n = int(argv[argv.index("--sample") + 1])
        cases = random.Random(0).sample(cases, min(n, len(cases)))
    return cases, http


def main(argv: list[str]) -> dict[str, Any]:
    parity = int(argv[argv.index("--parity") + 1]) if "--parity" in argv else 0
    cases, http = select(argv)
    figures = run_corpus(cases, parity=parity, verbose="--verbose" in argv, http=http)
    return emit("malformed input", figures, out_arg(argv))


if __name__ == "__main__":
    doc = main(sys.argv[1:])
    print(f"bad input: {doc['passed']}/{doc['cases']} cases pass ({doc['pass_rate']:.1%})")
