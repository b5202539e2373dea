"""Fine-tuning a base model without a chat template (a tiny random Gemma 3): the train stage
gives its tokenizer the Gemma template, trains <end_of_turn>, and the student carries the
template and lists <end_of_turn> among its stop tokens."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from transformers import AutoTokenizer

from jupiter.config import load_domain
from jupiter.data.templates import NAMED
from jupiter.improve.training import train_stage
from jupiter.improve.workspace import Workspace
from tinyhf import save_tiny_base


def test_a_gemma_base_trains_with_the_gemma_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = save_tiny_base("gemma", tmp_path / "gemma-base")
    chats = [
        {
            "messages": [
                {"role": "user", "content": f"What is {i} + {i}?"},
                {"role": "assistant", "content": f"{i} + {i} is {2 * i}."},
            ]
        }
        for i in range(8)
    ]
    (tmp_path / "sums.jsonl").write_text("".join(json.dumps(c) + "\n" for c in chats))
    path = tmp_path / "g.yaml"
    path.write_text(f"""
name: g
sources: [{{type: python_stdlib, modules: [json]}}]
system_prompt: Answer briefly.
model: {{base: {base}, context_length: 96}}
train: {{method: full, max_steps: 2, micro_batch_size: 2, warmup_steps: 1, metrics: [],
        precision: fp32, heldout_fraction: 0.0}}
levels: [{{name: sums, datasets: [sums.jsonl], max_steps: 2}}]
""")
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    out = io.StringIO()
    ws = Workspace(load_domain(str(path)), console=Console(file=out, width=200))
    train_stage(ws, 1)
    shown = out.getvalue()
    # the preflight: Gemma turns, the system prompt folded, <end_of_turn> trained
    assert "<start_of_turn>user\nAnswer briefly.\n\nWhat is" in shown
    assert "<end_of_turn>⟧" in shown and "turn end '<end_of_turn>' trained: yes" in shown
    assert AutoTokenizer.from_pretrained(ws.root / "tokenizer-chat").chat_template == NAMED["gemma"]
    student = ws.student_dir(1)
    tok = AutoTokenizer.from_pretrained(student)
    assert tok.chat_template == NAMED["gemma"]
    saved = json.loads((student / "generation_config.json").read_text())
    assert tok.convert_tokens_to_ids("<end_of_turn>") in saved["eos_token_id"]
    assert tok.eos_token_id in saved["eos_token_id"]
    ws.close()
