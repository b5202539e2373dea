"""Fine-tuning end to end through the CLI: a tiny Mistral base, LoRA, trained by two
processes through `jupiter train --nproc 2`, then evaluated and chatted with; and a
curriculum whose levels run in order, each from the last one's weights."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from rich.console import Console
from safetensors.torch import load_file

from jupiter.config import load_domain
from jupiter.improve.training import train_stage
from jupiter.improve.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
JUPITER = str(Path(sys.executable).with_name("jupiter"))


def domain(tmp_path: Path, base: Path, extra: str = "", train: str = "") -> str:
    """The domain YAML; `train`: more keys of its train: mapping (", key: value, ...")."""
    text = f"""
name: ft
sources:
  - {{type: python_stdlib, modules: [json, textwrap]}}
chunking: {{heldout_fraction: 0.1}}
generator: {{max_questions_per_chunk: 2}}
model: {{base: {base}, context_length: 96}}
train: {{method: lora, lora: {{r: 8, alpha: 16, dropout: 0.0}}, max_steps: 4,
        micro_batch_size: 2, warmup_steps: 1, checkpoint_every: 2, lr: 1.0e-3,
        metrics: [], precision: fp32{train}}}
eval: {{qa_path: {ROOT / "config" / "domains" / "python_eval.jsonl"}, max_items: 6,
        max_new_tokens: 6, heldout_max_bytes: 3000}}
max_examples: 60
{extra}
"""
    path = tmp_path / "ft.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.slow
def test_lora_fine_tune_with_two_processes_then_eval_and_chat(
    tmp_path: Path, tiny_model_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupiter.improve.stages import collect_stage, filter_stage, generate_stage

    path = domain(tmp_path, tiny_model_dirs["mistral"])
    env = dict(os.environ, JUPITER_HOME=str(tmp_path), COLUMNS="200")

    def jupiter(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [JUPITER, *args, "--domain", path],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            input=stdin,
        )

    # the data stages in this process: the commands under test are train, eval and chat
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    ws = Workspace(load_domain(path), console=Console(file=io.StringIO(), width=200))
    for stage in (collect_stage, generate_stage, filter_stage):
        stage(ws, 1)
    ws.close()
    r = jupiter("train", "--nproc", "2")
    assert r.returncode == 0, r.stderr[-3000:]
    # the pre-flight shows the Mistral rendering with the answer and </s> marked as trained
    assert "[INST]" in r.stdout and "</s>⟧" in r.stdout
    student = tmp_path / "runs" / "ft" / "cycles" / "cycle-001" / "train" / "final"
    assert (student / "adapter_config.json").is_file()
    state = json.loads((student.parent / "step-000004" / "state.json").read_text())
    assert state["world"] == 2 and state["step"] == 4
    r = jupiter("eval")
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads((student.parent.parent / "eval.json").read_text())
    assert report["student"]["n_qa"] == 6 and report["untrained"]["model"] == "base"
    r = jupiter("chat", stdin="What does json.dumps do?\n/exit\n")
    assert r.returncode == 0, r.stderr[-2000:]


def test_curriculum_levels_run_in_order_each_from_the_last(
    tmp_path: Path, tiny_model_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tiny_model_dirs["llama"]
    chats = [
        {
            "messages": [
                {"role": "user", "content": f"What is {i} + {i}?"},
                {"role": "assistant", "content": f"{i} + {i} is {2 * i}."},
            ]
        }
        for i in range(12)
    ]
    (tmp_path / "basics.jsonl").write_text("".join(json.dumps(c) + "\n" for c in chats))
    (tmp_path / "docs.jsonl").write_text(
        "".join(json.dumps({"text": f"Python document number {i}."}) + "\n" for i in range(8))
    )
    levels = """
levels:
  - {name: basics, datasets: [basics.jsonl], max_steps: 3}
  - {name: advanced, datasets: [docs.jsonl, basics.jsonl], max_steps: 1, lr: 1.0e-12}
"""
    path = domain(tmp_path, base, levels)
    Path(path).write_text(Path(path).read_text().replace("method: lora", "method: full"))
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    ws = Workspace(load_domain(path), console=Console(file=io.StringIO(), width=120))
    info = train_stage(ws, 1)
    runs = [lv["run"] for lv in info["levels"]]
    assert runs == ["cycle-001-basics", "cycle-001-advanced"]
    levels_dir = ws.train_dir(1) / "levels"
    first = load_file(levels_dir / "basics" / "final" / "model.safetensors")
    second = load_file(levels_dir / "advanced" / "final" / "model.safetensors")
    original = load_file(base / "model.safetensors")
    name = "model.layers.0.self_attn.q_proj.weight"
    assert not torch.equal(first[name], original[name])  # level 1 trained the base
    # level 2 started from level 1's weights (its lr is ~0: one step barely moves them)
    for k in first:
        torch.testing.assert_close(second[k], first[k], atol=1e-6, rtol=0)
    assert info["levels"][1]["examples"] >= 18
    # the cycle's student is the last level's model
    assert (ws.student_dir(1) / "model.safetensors").is_file()
    ws.close()


@pytest.mark.slow
def test_training_input_errors_are_one_line(
    tmp_path: Path, tiny_model_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from jupiter.improve.stages import collect_stage, filter_stage, generate_stage

    base = tmp_path / "no-eos-base"
    shutil.copytree(tiny_model_dirs["mistral"], base)
    conf = json.loads((base / "tokenizer_config.json").read_text())
    template = (base / "chat_template.jinja") if (base / "chat_template.jinja").is_file() else None
    if template is not None:  # transformers 5 keeps the template in its own file
        template.write_text(template.read_text().replace(" + eos_token", ""))
    else:
        conf["chat_template"] = conf["chat_template"].replace(" + eos_token", "")
        (base / "tokenizer_config.json").write_text(json.dumps(conf))
    path = domain(tmp_path, base)
    env = dict(os.environ, JUPITER_HOME=str(tmp_path), COLUMNS="200")

    def jupiter(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [JUPITER, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )

    bad = jupiter("train", "--domain", path, "--nnodes", "2")
    assert bad.returncode == 1 and "--master HOST:PORT" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    # the data stages in this process (the CLI's own error policy is what is under test)
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    ws = Workspace(load_domain(path), console=Console(file=io.StringIO(), width=200))
    for stage in (collect_stage, generate_stage, filter_stage):
        stage(ws, 1)
    ws.close()
    r = jupiter("train", "--domain", path)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "eos" in r.stderr.lower() and len(r.stderr.strip().splitlines()) == 1
    assert not list((tmp_path / "runs" / "ft").glob("cycles/*/train/step-*"))


def test_knowledge_recipe_and_replay_reach_the_packed_data(
    tmp_path: Path, tiny_model_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    facts = [
        ("len", "Return the number of items in a container."),
        ("abs", "Return the absolute value of the argument."),
        ("sorted", "Return a new list containing all items from the iterable."),
        ("round", "Round a number to a given precision in decimal digits."),
    ]
    chats = [
        {
            "messages": [
                {"role": "user", "content": f"What does `{n}` do?"},
                {"role": "assistant", "content": a},
            ]
        }
        for n, a in facts
    ]
    (tmp_path / "facts.jsonl").write_text("".join(json.dumps(c) + "\n" for c in chats))
    extra = """
levels:
  - {name: facts, datasets: [facts.jsonl], max_steps: 2}
"""
    path = domain(
        tmp_path,
        tiny_model_dirs["llama"],
        extra,
        ", heldout_fraction: 0.0,\n        knowledge: {phrasings: 2, reverse: 2, usage: true},\n"
        "        replay: {fraction: 0.2, samples: 4, max_tokens: 16, loss: kl}",
    )
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    ws = Workspace(load_domain(path), console=Console(file=io.StringIO(), width=200))
    info = train_stage(ws, 1)
    mix = info["levels"][0]["knowledge"]
    # 4 facts: each 2 more wordings, 2 reverse questions, and a usage one (all open with a verb)
    assert mix["facts"] == 4 and mix["phrasing"] == 8 and mix["reverse"] == 8
    assert mix["usage"] == 4 and mix["replay_tokens"] > 0
    out = ws.console.file.getvalue()  # type: ignore[attr-defined]
    assert "data mix: 4 facts asked again (8 phrasing, 8 reverse, 4 usage)" in out
    # the train keys this YAML leaves out took the fine-tuning defaults, said once
    said_defaults = "fine-tuning defaults for a pretrained base: min_lr 2e-05; "
    assert out.count(said_defaults + "raw_text_fraction 0.3; weight_decay 0 (write") == 1, out
    assert len(list((ws.root / "replay").glob("*.jsonl"))) == 1
    # replay loss kl: the replay texts whole in the rows are scored against the base
    said = re.search(r"replay kl: (\d+) replay texts \(([\d,]+) tokens\)", out)
    assert said and int(said[1]) >= 1 and int(said[2].replace(",", "")) > 0, out
    run = ws.train_dir(1) / "levels" / "facts"
    rows = [json.loads(line) for line in (run / "metrics.jsonl").open()]
    kls = [r["replay_kl"] for r in rows if r.get("kind") == "train" and "replay_kl" in r]
    assert kls and all(0 <= k < 1.0 for k in kls), kls  # 2 steps from the base: near it
    ws.close()


def test_documents_first_reaches_the_loop_and_is_said(
    tiny_model_dirs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """train.order documents_first: the raw text packed into rows of its own, the loop told
    how many rows the run reads, and the train stage's mix line says the order."""
    from jupiter.data.dataset import PackedDataset

    chats = [
        {
            "messages": [
                {"role": "user", "content": f"What does `f{i}` return?"},
                {"role": "assistant", "content": f"The number {i} squared."},
            ]
        }
        for i in range(12)
    ]
    docs = [
        {"text": f"Function f{i} takes one argument and returns {i} squared. " * 3}
        for i in range(12)
    ]
    lines = "".join(json.dumps(r) + "\n" for r in chats + docs)
    (tmp_path / "mixed.jsonl").write_text(lines)
    extra = "levels:\n  - {name: both, datasets: [mixed.jsonl], max_steps: 3}\n"
    train = ", heldout_fraction: 0.0, order: documents_first"
    path = domain(tmp_path, tiny_model_dirs["llama"], extra, train)
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    told: list[tuple[int | None, int, int, list[bool]]] = []
    first = PackedDataset.documents_first

    def spy(self: PackedDataset, run_rows: int, batch_size: int) -> None:
        first(self, run_rows, batch_size)
        read = np.concatenate([self.rows_of(0, i, batch_size) for i in range(3)])
        n = self.document_rows or 0
        told.append((self.document_rows, run_rows, batch_size, [bool(r < n) for r in read]))

    monkeypatch.setattr(PackedDataset, "documents_first", spy)
    ws = Workspace(load_domain(path), console=Console(file=io.StringIO(), width=200))
    train_stage(ws, 1)
    out = ws.console.file.getvalue()  # type: ignore[attr-defined]
    ws.close()
    assert len(told) == 1, told
    doc_rows, run_rows, batch, is_doc = told[0]
    assert doc_rows and run_rows == 6 and batch == 2  # 3 steps of 2 rows
    k = sum(is_doc)  # the rows read: the documents' before the chats'
    assert 0 < k < 6 and all(is_doc[:k]) and not any(is_doc[k:]), is_doc
    said = r"[\d,]+ raw-text tokens( \+ [\d,]+ replay tokens)?, raw text first, then Q&A"
    assert re.search(said, out), out


def test_sentence_and_definition_questions_reach_the_packed_data_and_the_exam_check(
    tmp_path: Path, tiny_model_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupiter.improve.exams import example_texts
    from jupiter.improve.passages import train_chunks
    from jupiter.improve.stages import collect_stage, filter_stage, generate_stage
    from jupiter.synth.knowledge import definition_facts, expand, subject_name

    train = ", heldout_fraction: 0.0, knowledge: {sentences: 2, definitions: true}"
    path = domain(tmp_path, tiny_model_dirs["llama"], train=train)
    text = Path(path).read_text()
    # and a manual page: a chunk of options, more than generator.max_questions_per_chunk
    docs = tmp_path / "docs"
    docs.mkdir()
    options = "".join(
        f"       -{c}, --{word}\n              {what}\n\n"
        for c, word, what in (
            ("w", "workers", "run the jobs of the queue on this many workers at once"),
            ("q", "quiet", "print nothing but the errors of the failed jobs"),
            ("k", "keep", "keep the log of every finished job beside the queue"),
            ("n", "dry-run", "show which jobs would run, and run none of them"),
        )
    )
    (docs / "taskq.1.txt").write_text(
        "NAME\n       taskq - run jobs from a queue kept on disk\n\n"
        f"DESCRIPTION\n       Run the jobs of a queue one after another.\n\n{options}"
    )
    text = text.replace(
        "sources:\n", f"sources:\n  - {{type: local, path: {docs}, include: ['*.txt']}}\n", 1
    )
    # no document held out: which one would be follows its path, a new one every run
    text = text.replace("chunking: {heldout_fraction: 0.1}", "chunking: {heldout_fraction: 0.0}")
    Path(path).write_text(text)
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    ws = Workspace(load_domain(path), console=Console(file=io.StringIO(), width=200))
    for stage in (collect_stage, generate_stage, filter_stage):
        stage(ws, 1)
    info = train_stage(ws, 1)
    mix = info["knowledge"]
    added = {k: v for k, v in mix.items() if k.startswith("sentence-")}
    # the texts trained on: each continuation example of a titled chunk, asked about
    titles = {c.id: c.title for c in ws.store.iter_chunks()}
    texts = [e for e in ws.store.iter_examples(status="used") if e.kind == "text"]
    named = [e for e in texts if subject_name(titles[e.chunk_id])]
    assert len(named) >= len(texts) // 2
    assert sum(added.values()) > len(named) and set(added) >= {"sentence-which"}
    # every definition of the train chunks the generator left unasked is a fact of its own
    chunks = train_chunks(ws)
    assert any(c.title == "taskq.1.txt" for c in chunks)
    queued = list(ws.store.iter_examples(status="used"))
    assert mix["definition"] == len(definition_facts(chunks, queued, ws.cfg.train.seed)) >= 2
    # the user exam's 8-gram check sees the questions the train stage added
    checked = set(example_texts(ws))
    asked = expand(
        queued,
        [],
        phrasings=0,
        reverse=0,
        usage=False,
        permuted_copies=0,
        seed=ws.cfg.train.seed,
        sentences=2,
        titles=titles,
        definitions=chunks,
    )[0][len(queued) :]
    assert len(asked) == sum(added.values()) + mix.get("definition", 0)
    assert all(q.content() in checked for q in asked)
    ws.close()
