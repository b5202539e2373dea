"""train.consensus inside the cycle: members trained one after another from one start, with
their own seeds and strategies (LoRA and full: the adapters are compared as full models),
scored on held-out examples, voted on, merged or not, the chosen model the student; the
outcome in the stage summary and the lineage."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from jupiter.config import load_domain
from jupiter.errors import JupiterError
from jupiter.improve import cycle as cycle_mod
from jupiter.improve.lineage import _data
from jupiter.improve.trainrun import is_heldout
from jupiter.improve.workspace import Workspace

CONSENSUS = """
  consensus:
    members: 3
    vary: [seed, strategy]
    strategies: [{method: lora}, {method: lora, lr: 2.0e-3}, {method: full, lr: 1.0e-4}]
    threshold: 0.6
    max_loss_gap: 0.5
"""


def domain(tmp_path: Path, base: Path, consensus: str = CONSENSUS, heldout: float = 0.2) -> str:
    text = f"""
name: cons
sources:
  - {{type: python_stdlib, modules: [json, textwrap]}}
chunking: {{heldout_fraction: 0.1}}
generator: {{max_questions_per_chunk: 2}}
model: {{base: {base}, context_length: 96}}
train:
  method: lora
  lora: {{r: 4, alpha: 8, dropout: 0.0}}
  max_steps: 3
  micro_batch_size: 2
  warmup_steps: 1
  lr: 1.0e-3
  metrics: []
  precision: fp32
  heldout_fraction: {heldout}
{consensus}
max_examples: 40
"""
    path = tmp_path / "cons.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.slow
def test_consensus_members_vote_and_student(
    tmp_path: Path, tiny_model_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    ws = Workspace(
        load_domain(domain(tmp_path, tiny_model_dirs["llama"])),
        console=Console(file=io.StringIO(), width=200),
    )
    for stage in ("collect", "generate", "filter"):
        ws.store.mark_stage(1, stage, cycle_mod.run_stage(ws, 1, stage))
    info = cycle_mod.run_stage(ws, 1, "train")
    ws.store.mark_stage(1, "train", info)  # the record goes through JSON
    rec = json.loads(json.dumps(info))["consensus"]
    members = rec["members"]
    assert [m["member"] for m in members] == [0, 1, 2]
    assert [m["seed"] for m in members] == [1234, 1235, 1236]
    assert [m["method"] for m in members] == ["lora", "lora", "full"]
    assert [m["lr"] for m in members] == [1e-3, 2e-3, 1e-4]
    assert all(m["steps"] == 3 and m["validation_bpb"] > 0 for m in members)
    assert all(m["distance"] is not None and m["distance"] > 0 for m in members)
    root = ws.train_dir(1) / "members"
    assert (root / "m00" / "final" / "adapter_config.json").is_file()
    assert (root / "m00" / "final-merged" / "model.safetensors").is_file()  # as a full model
    assert (root / "m02" / "final" / "model.safetensors").is_file()
    student = ws.student_dir(1)
    assert (student / "config.json").is_file() and (student / "model.safetensors").is_file()
    if rec["merged"]:
        assert json.loads((student / "merge.json").read_text())["method"] == "linear"
        assert rec["merged_bpb"] <= rec["best_bpb"]
    else:
        assert rec["merged_bpb"] is None or rec["merged_bpb"] > rec["best_bpb"]
    best = members[rec["best_member"]]
    assert rec["best_bpb"] == min(m["validation_bpb"] for m in members if m["outlier"] is None)
    assert best["outlier"] is None
    line = _data({"data": info["data"]}).splitlines()[-1]
    assert line.startswith("consensus: ") and "3 members" in line
    ws.close()


def test_consensus_config_errors(
    tmp_path: Path, tiny_model_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tiny_model_dirs["llama"]
    bad = {
        "  consensus: {vary: [strategy]}\n": "vary: strategy needs strategies",
        "  consensus: {strategies: [{lr: 0.1}]}\n": "vary does not name strategy",
        "  consensus: {vary: [strategy], strategies: [{seed: 3}]}\n": "'seed' cannot vary",
        "  consensus: {vary: [strategy], strategies: [{lr: -1}]}\n": "strategies[0]: lr",
        "  consensus: {members: 1}\n": "members",
    }
    for text, msg in bad.items():
        with pytest.raises(JupiterError, match=msg.replace("[", r"\[")):
            load_domain(domain(tmp_path, base, text))
    # no held-out examples to score the members on: one line with the fix
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    ws = Workspace(
        load_domain(domain(tmp_path, base, heldout=0.0)),
        console=Console(file=io.StringIO(), width=200),
    )
    from jupiter.improve.consensus import validation_texts

    with pytest.raises(JupiterError, match="raise train.heldout_fraction"):
        validation_texts(ws, None, [], [])
    ws.close()


@pytest.mark.slow
def test_from_scratch_members_share_one_init_and_split_the_shards(
    tmp_path: Path, tiny_model_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    text = Path(
        domain(
            tmp_path,
            tiny_model_dirs["llama"],
            "  consensus: {members: 2, vary: [seed, shard], threshold: 1.0}\n",
        )
    ).read_text()
    text = text.replace(f"base: {tiny_model_dirs['llama']}", "preset: tiny")
    text = text.replace("method: lora", "method: full")
    (tmp_path / "cons.yaml").write_text(text)
    ws = Workspace(
        load_domain(str(tmp_path / "cons.yaml")), console=Console(file=io.StringIO(), width=200)
    )
    for stage in ("collect", "generate", "filter"):
        ws.store.mark_stage(1, stage, cycle_mod.run_stage(ws, 1, stage))
    info = cycle_mod.run_stage(ws, 1, "train")
    members = info["consensus"]["members"]
    assert info["init"].endswith("untrained") and (ws.root / "untrained" / "config.json").is_file()
    # the shards split the examples (each member holds out its part of the held-out ones)
    accepted = info["examples"]
    held = sum(
        1
        for e in ws.store.iter_examples(status="used")
        if is_heldout(e.id, ws.cfg.train.heldout_fraction)
    )
    assert sum(m["examples"] for m in members) == accepted - held
    assert all(0 < m["examples"] < accepted for m in members)
    assert (ws.student_dir(1) / "model.safetensors").is_file()
    ws.close()
