"""`jupiter export` end to end: a student of a short demo-like run (Jupiter's tiny preset,
its own tokenizer, two epochs) goes out as an Ollama Modelfile and a GGUF, and the GGUF read
back by transformers' GGUF loader answers greedily token for token as the student does.
Then the domain's model choices (--cycle, --best, --checkpoint epoch-K) and the one-line
errors."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from exportkit import greedy, load_hf, logits, reload_gguf
from rich.console import Console

from jupiter.errors import JupiterError

ROOT = Path(__file__).resolve().parents[2]
JUPITER = str(Path(sys.executable).with_name("jupiter"))
SYSTEM = "You answer questions about Python's json module."
DOMAIN = f"""
name: demo
system_prompt: "{SYSTEM}"
sources:
  - {{type: python_stdlib, topics: false, docstrings: true, modules: [json]}}
chunking: {{heldout_fraction: 0.2}}
generator: {{max_questions_per_chunk: 2}}
model: {{preset: tiny, vocab_size: 512, context_length: 64}}
train: {{epochs: 2, micro_batch_size: 8, warmup_steps: 1, checkpoint_every: 1000,
        keep_checkpoints: 4, metrics: [], eval_every: 1000, precision: fp32}}
eval: {{qa_path: {ROOT / "config" / "domains" / "python_eval.jsonl"}, max_items: 4,
       max_new_tokens: 4, heldout_max_bytes: 2000, general_max_bytes: 0}}
max_examples: 80
"""
QUESTIONS = [
    "What does json.dumps return?",
    "How do I read JSON from a file?",
    "What is a JSONDecodeError?",
]


def jupiter(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, JUPITER_HOME=str(home), COLUMNS="200", OMP_NUM_THREADS="1")
    return subprocess.run(
        [JUPITER, *args], cwd=home, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole cycle (collect, generate, filter, train two epochs, eval, decide) in a
    temp JUPITER_HOME; about 8 s."""
    home = tmp_path_factory.mktemp("export-run")
    (home / "demo.yaml").write_text(DOMAIN)
    r = jupiter(home, "start", "--domain", "demo.yaml", "--auto")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return home


@pytest.mark.slow
def test_student_to_ollama_answers_as_the_student(run: Path) -> None:
    out = run / "exports" / "demo-ollama"
    r = jupiter(
        run,
        "export",
        "--domain",
        "demo.yaml",
        "--to",
        "ollama",
        "--quant",
        "f16",
        "--out",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    create = f"ollama create demo-ollama -f {out / 'Modelfile'}"
    assert r.stdout.splitlines()[-1] == create
    assert sorted(p.name for p in out.iterdir()) == [
        "Modelfile",
        "demo-ollama-f16.gguf",
        "export.json",
    ]
    assert (out / "Modelfile").read_text() == (
        "# Written by `jupiter export`. Create the Ollama model with:\n"
        f"#   {create}\n"
        "FROM ./demo-ollama-f16.gguf\n"
        'TEMPLATE """<|bos|>{{- range .Messages }}<|{{ .Role }}|>\n'
        "{{ .Content }}<|end|>\n"
        "{{ end }}<|assistant|>\n"
        '"""\n'
        'PARAMETER stop "<|end|>"\n'
        f'SYSTEM """{SYSTEM}"""\n'
    )
    student = run / "runs" / "demo" / "cycles" / "cycle-001" / "train" / "final"
    model, tok = load_hf(student)
    back, back_tok = reload_gguf(out / "demo-ollama-f16.gguf")
    for question in QUESTIONS:
        chat = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
        prompt = tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        ids = tok(prompt, add_special_tokens=False)["input_ids"]
        assert back_tok(prompt, add_special_tokens=False)["input_ids"] == ids
        answer = greedy(model, ids, 16)
        assert greedy(back, ids, 16) == answer
        # the short run's student mostly answers with newlines: its logits along the prompt
        # and the answer carry the comparison (f16: within 3e-3 of the largest logit)
        a, b = logits(model, ids + answer), logits(back, ids + answer)
        assert float((a - b).abs().max() / a.abs().max()) < 3e-3
    manifest = json.loads((out / "export.json").read_text())
    report = json.loads((student.parent.parent / "eval.json").read_text())
    assert manifest["source"]["path"] == str(student) and manifest["source"]["kind"] == "model"
    assert manifest["eval"]["student"]["mc_accuracy"] == report["student"]["mc_accuracy"]
    assert manifest["eval"]["student"]["qa_f1_ci"] == report["student"]["qa_f1_ci"]
    assert "samples" not in manifest["eval"]["student"] and manifest["eval_note"] is None
    assert manifest["ollama"]["template_family"] == "jupiter"
    from jupiter.models.folder import sha256_file

    for name, digest in manifest["files"].items():
        assert sha256_file(out / name) == digest
    assert manifest["source"]["weights_sha256"] == {
        "model.safetensors": sha256_file(student / "model.safetensors")
    }
    assert not list(out.parent.glob(".tmp-*"))


@pytest.mark.slow
def test_domain_choices(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from jupiter.config import load_domain
    from jupiter.export.source import from_domain
    from jupiter.improve.workspace import Workspace

    monkeypatch.setenv("JUPITER_HOME", str(run))
    ws = Workspace(load_domain(str(run / "demo.yaml")), console=Console(file=io.StringIO()))
    try:
        student = ws.student_dir(1).resolve()
        assert from_domain(ws).path == student  # kept out, so chat's choice is the student
        assert from_domain(ws, best=True).path == student
        cycle = from_domain(ws, cycle=1)
        assert cycle.path == student and cycle.evals and cycle.evals["cycle"] == 1
        epochs = json.loads((ws.train_dir(1) / "epoch_info.json").read_text())["epochs"]
        first = from_domain(ws, checkpoint="epoch-1")
        assert first.path == Path(epochs[0]["checkpoint"]) / "model"
        assert first.evals is None and "epoch-1 was not evaluated" in first.eval_note
        with pytest.raises(
            JupiterError, match=r"no checkpoint epoch-7 .*available: step-\d+ \(epoch-1\)"
        ):
            from_domain(ws, checkpoint="epoch-7")
        with pytest.raises(JupiterError, match="cycle 4 of 'demo' has no trained student"):
            from_domain(ws, cycle=4)
        with pytest.raises(JupiterError, match="--best picks among the evaluated students"):
            from_domain(ws, best=True, cycle=1)
    finally:
        ws.close()


def test_k_quants_need_llama_cpp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from jupiter.export.writer import plan_export

    find = importlib.util.find_spec
    if find("llama_cpp") is not None:  # installed: llama.cpp's quantizer makes the k-quant
        assert plan_export("ollama", tmp_path / "o", "Q4_K_M").quant == "q4_k_m"
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llama_cpp" else find(name, *a),
    )
    with pytest.raises(JupiterError) as err:
        plan_export("ollama", tmp_path / "o", "Q4_K_M")
    assert "pip install llama-cpp-python" in str(err.value) and "\n" not in str(err.value)
    assert "llama-quantize model-f16.gguf model-q4_k_m.gguf Q4_K_M" in str(err.value)


def test_request_errors_are_one_line(tmp_path: Path) -> None:
    from jupiter.export.writer import plan_export

    cases = [
        (
            ("tflite", tmp_path / "o"),
            "unknown export format 'tflite': use --to hf, gguf, ollama, mlx",
        ),
        (
            ("gguf", tmp_path / "o", "q4"),
            "--quant q4 is not a gguf quantization: choose f32, f16, bf16, q8_0",
        ),
        (("mlx", tmp_path / "o", "q8_0"), "--quant q8_0 is not a mlx quantization"),
        (("gguf", tmp_path / "m.gguf"), "--out is a folder"),
        (("hf", tmp_path), "already exists: choose another --out, or add --force"),
    ]
    for args, message in cases:
        with pytest.raises(JupiterError) as err:
            plan_export(*args)
        assert message in str(err.value) and "\n" not in str(err.value)
    assert plan_export("ollama", tmp_path / "o").quant == "q8_0"
    assert plan_export("gguf", tmp_path / "o").quant == "f16"
    assert plan_export("hf", tmp_path, force=True).out == tmp_path


@pytest.mark.slow
def test_cli_errors_name_the_fix_and_leave_nothing(tmp_path: Path) -> None:
    from transformers import GPT2Config, GPT2LMHeadModel

    gpt2 = tmp_path / "gpt2"
    GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=64)).save_pretrained(gpt2)
    (tmp_path / "empty").mkdir()
    cases = [
        (
            ["--model", str(gpt2), "--to", "gguf", "--out", "g"],
            "does not support architecture 'gpt2' (GPT2LMHeadModel)",
        ),
        (
            ["--model", str(tmp_path / "empty"), "--to", "hf", "--out", "e"],
            "is not a model folder (no config.json or adapter_config.json)",
        ),
    ]
    for args, message in cases:
        r = jupiter(tmp_path, "export", *args)
        assert r.returncode == 1, r.stderr
        line = " ".join(r.stderr.split())
        assert message in line and "Traceback" not in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "gpt2"]


def test_flags_that_go_together(tmp_path: Path) -> None:
    from jupiter.export.cli import export_cmd

    for kwargs, message in [
        ({"model": "m", "cycle": 2}, "--best, --cycle and --checkpoint pick among a domain's"),
        ({}, "give --model MODEL or --domain NAME (one of them)"),
        ({"model": "m", "domain": "d"}, "give --model MODEL or --domain NAME (one of them)"),
    ]:
        with pytest.raises(JupiterError, match=re.escape(message)):
            export_cmd(to="hf", out=tmp_path / "o", **kwargs)
