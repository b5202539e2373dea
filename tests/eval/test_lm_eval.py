"""lm-evaluation-harness: the domain's eval set exported as an lm-eval task and scored by
lm-eval's own Python API with a tiny random model, against Jupiter's own multiple-choice
scoring of the same items; eval.lm_eval_tasks in the eval stage (a local task, one whose
dataset is not cached, an unknown one)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from climain import run_main as _main
from jupiter.config import load_domain
from jupiter.improve.workspace import Workspace
from tinyhf import save_tiny

SYSTEM = "You are an expert on the tools."
# answers of one shape: every item's choices have the same token count (13 with the tiny
# tokenizer), so Jupiter's per-token mean and lm-eval's summed log-likelihood rank alike
QA = [
    {
        "id": f"q{i}",
        "question": f"What does tool_{i} print?",
        "answer": f"tool_{i} prints {i}.",
        "topic": "tools",
        "source": f"/docs/t{i}.md",
    }
    for i in range(10)
]


def _domain(root: Path) -> Path:
    (root / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in QA))
    path = root / "tinyqa.yaml"
    path.write_text(
        "name: tinyqa\nsources: [{type: python_stdlib, modules: [json]}]\n"
        f"system_prompt: {SYSTEM}\n"
        "eval: {qa_path: qa.jsonl, mc_distractors: hard, mc_choices: 4, max_items: 8}\n"
    )
    return path


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The domain's MC items as the eval stage builds them, and the task exported from them."""
    from jupiter.improve.evalset import eval_items
    from jupiter.improve.lmeval import export_eval_set

    root = tmp_path_factory.mktemp("lmeval")
    ws = Workspace(load_domain(str(_domain(root))), console=Console(file=io.StringIO()))
    try:
        _, mc, _ = eval_items(ws)
        manifest = export_eval_set(ws, root / "tasks")
    finally:
        ws.close()
    model = save_tiny("qwen2", root / "qwen2", seed=3)
    return {"root": root, "mc": mc, "manifest": manifest, "dir": root / "tasks", "model": model}


def test_export_writes_the_eval_stage_items(exported: dict[str, Any]) -> None:
    out, mc = exported["dir"], exported["mc"]
    assert len(mc) == 8 and all(len(m.choices) == 4 for m in mc)  # eval.max_items, mc_choices
    docs = [json.loads(ln) for ln in (out / "tinyqa.jsonl").read_text().splitlines()]
    assert [(d["id"], d["question"], d["choices"], d["answer"]) for d in docs] == [
        (m.id, m.question, m.choices, m.correct) for m in mc
    ]
    assert all(d["system"] == SYSTEM for d in docs)
    task = yaml.safe_load((out / "tinyqa.yaml").read_text())
    assert task["task"] == "tinyqa" and task["output_type"] == "multiple_choice"
    assert task["dataset_path"] == "json" and task["test_split"] == "test"
    assert task["dataset_kwargs"]["data_files"]["test"] == str(out / "tinyqa.jsonl")
    assert (task["doc_to_text"], task["doc_to_choice"], task["doc_to_target"]) == (
        "question",
        "choices",
        "answer",
    )
    assert task["description"] == "system"
    man = json.loads((out / "tinyqa.json").read_text())
    assert man["items"] == 8 and man["choices"] == [4] and man["eval_set"]["auto"] is False
    assert man["command"] == (
        f"lm_eval --model hf --model_args pretrained=MODEL_DIR --tasks "
        f"tinyqa --include_path {out} --apply_chat_template"
    )


def test_lm_eval_scores_the_exported_task_as_jupiter_does(exported: dict[str, Any]) -> None:
    """Same model, same items: lm-eval's per-choice log-likelihoods are Jupiter's plus one
    constant per item (the prompt's trailing newline, which lm-eval scores with the choice),
    its picks are Jupiter's, and its acc is Jupiter's mc_accuracy."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    from jupiter.eval.report import evaluate_answerer
    from jupiter.synth.model import ModelGenerator

    model, mc = exported["model"], exported["mc"]
    tm = TaskManager(include_path=str(exported["dir"]), include_defaults=False)
    res = simple_evaluate(
        model="hf",
        model_args=f"pretrained={model},dtype=float32",
        tasks=["tinyqa"],
        task_manager=tm,
        apply_chat_template=True,
        batch_size=1,
        device="cpu",
        log_samples=True,
        bootstrap_iters=0,
    )
    assert res is not None
    samples = sorted(res["samples"]["tinyqa"], key=lambda s: s["doc_id"])
    assert [s["doc"]["id"] for s in samples] == [m.id for m in mc]

    gen = ModelGenerator(model, "tiny", system_prompt=SYSTEM)
    jupiter = evaluate_answerer(gen, [], mc)
    picks_agree = 0
    for s, m in zip(samples, mc, strict=True):
        lm_ll = [float(r[0]) for r in s["filtered_resps"]]
        means = gen.choice_logprobs(m.question, m.choices)
        counts = [len(gen.tokenizer(c, add_special_tokens=False)["input_ids"]) for c in m.choices]
        assert len(set(counts)) == 1  # the premise of the exact-accuracy check below
        offsets = [a - mean * n for a, mean, n in zip(lm_ll, means, counts, strict=True)]
        assert max(offsets) - min(offsets) < 1e-4, offsets  # same prompt, same continuations
        assert offsets[0] < 0  # log P(newline | prompt): lm-eval scores it with each choice
        lm_pick = max(range(len(lm_ll)), key=lambda i: (lm_ll[i], -i))
        picks_agree += lm_pick == gen.choose(m.question, m.choices)
        assert s["acc"] == jupiter["item_scores"]["mc_accuracy"][m.id]
    assert picks_agree == len(mc)
    assert res["results"]["tinyqa"]["acc,none"] == jupiter["mc_accuracy"]
    assert res["results"]["tinyqa"]["sample_len"] == 8


def test_cli_export_and_errors(
    exported: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    domain = _domain(tmp_path)
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    out = tmp_path / "t"
    assert (
        _main(monkeypatch, "eval", "--domain", str(domain), "--export-lm-eval", str(out), "--json")
        == 0
    )
    manifest = json.loads(capsys.readouterr().out)
    assert manifest["items"] == 8 and manifest["yaml"] == str(out / "tinyqa.yaml")
    same = (exported["dir"] / "tinyqa.jsonl").read_text()
    assert (out / "tinyqa.jsonl").read_text() == same  # the same items, choices and order
    assert _main(monkeypatch, "eval", "--domain", str(domain), "--export-lm-eval", str(out)) == 0
    assert "--apply_chat_template" in capsys.readouterr().out
    # an automatic eval set needs the workspace that froze it
    auto = tmp_path / "auto.yaml"
    auto.write_text("name: auto\nsources: [{type: python_stdlib, modules: [json]}]\n")
    for args, message in (
        (["--domain", str(auto), "--export-lm-eval", str(tmp_path / "x")], "no workspace yet"),
        (
            ["--model", "m", "--qa", "q", "--export-lm-eval", str(tmp_path / "x")],
            "--export-lm-eval writes a domain's eval set",
        ),
    ):
        assert _main(monkeypatch, "eval", *args) == 1
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x").exists() and not (tmp_path / "home" / "runs" / "auto").exists()


REMOTE_TASK = """task: remote_mc
dataset_path: acme/never-downloaded
test_split: test
output_type: multiple_choice
doc_to_text: question
doc_to_choice: choices
doc_to_target: answer
"""


@pytest.mark.slow
def test_eval_stage_runs_lm_eval_tasks(
    exported: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """eval.lm_eval_tasks in the eval stage: the local task scored on the student and the
    untrained model (recorded in eval.json, the untrained one cached), the uncached and the
    unknown task each skipped with a one-line warning naming it and the fix."""
    from evaldocs import eval_with_tiny_models

    from jupiter.improve import lmeval

    monkeypatch.setattr(lmeval, "INCLUDE_DEFAULTS", False)  # index only the include folder
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "tinyqa.yaml").write_text((exported["dir"] / "tinyqa.yaml").read_text())
    (tasks / "remote.yaml").write_text(REMOTE_TASK)
    extra = (
        f"eval: {{general_max_bytes: 0, lm_eval_include: {tasks}, lm_eval_limit: 5, "
        "lm_eval_tasks: [tinyqa, remote_mc, no_such_task]}\n"
    )
    ws, ev = eval_with_tiny_models(tmp_path, extra)
    report = json.loads((ws.cycle_dir(1) / "eval.json").read_text())["lm_eval"]
    assert ev["lm_eval"]["student"]["results"] == report["student"]["results"]
    for who in ("student", "untrained"):
        fig = report[who]["results"]["tinyqa"]
        assert (
            fig["n"] == 5 and 0.0 <= fig["acc"] <= 1.0 and fig["acc"] * 5 == round(fig["acc"] * 5)
        )
        lo, hi = fig["acc_ci"]
        assert lo <= fig["acc"] <= hi and fig["acc_stderr"] >= 0
        assert set(report[who]["skipped"]) == {"remote_mc", "no_such_task"}
    assert (
        report["student"]["model"].startswith("student:")
        and report["untrained"]["model"] == "untrained"
    )
    cached = json.loads((ws.root / "untrained_lm_eval.json").read_text())
    assert cached["report"]["results"] == report["untrained"]["results"]
    printed = ws.console.file.getvalue()  # type: ignore[attr-defined]
    warnings = [ln for ln in printed.splitlines() if ln.startswith("warning: lm-eval task")]
    assert len(warnings) == 4  # two tasks, two models
    assert any(
        "'remote_mc' skipped: its dataset is not available offline" in w
        and "TaskManager().load(['remote_mc'])" in w
        for w in warnings
    )
    assert any("'no_such_task' skipped: lm-eval knows no such task" in w for w in warnings)
    assert "lm-eval benchmarks" in printed
