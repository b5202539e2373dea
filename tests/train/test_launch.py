"""The torchrun command for one or several machines, launch checks, DeepSpeed's config."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jupiter.errors import JupiterError
from jupiter.train.dist import deepspeed_config
from jupiter.train.launch import Launch, torchrun_command


def test_single_node_uses_a_standalone_rendezvous() -> None:
    cmd = torchrun_command(Path("/r/run.json"), Launch(nproc=4))
    assert cmd[:3] == [sys.executable, "-m", "torch.distributed.run"]
    assert cmd[3:6] == ["--nproc-per-node", "4", "--standalone"]
    assert cmd[-3:] == ["-m", "jupiter.train.launch", "/r/run.json"]


def test_several_nodes_name_the_master_and_this_node() -> None:
    cmd = torchrun_command(
        Path("s.json"), Launch(nproc=8, nnodes=2, node_rank=1, master="10.0.0.1:29500")
    )
    joined = " ".join(cmd)
    assert "--nnodes 2 --node-rank 1 --master-addr 10.0.0.1 --master-port 29500" in joined
    assert "--standalone" not in cmd


@pytest.mark.parametrize(
    ("launch", "message"),
    [
        (Launch(nproc=0), "at least 1"),
        (Launch(nproc=2, nnodes=2), "--master HOST:PORT"),
        (Launch(nproc=2, nnodes=2, node_rank=2, master="h:1"), "node-rank"),
    ],
)
def test_bad_launches_are_refused(launch: Launch, message: str) -> None:
    with pytest.raises(JupiterError, match=message):
        launch.check()


def test_deepspeed_config_derives_the_batch_from_jupiters() -> None:
    cfg = deepspeed_config(
        micro_batch=4, grad_accum=8, world=4, zero_stage=2, precision="bf16", grad_clip=1.0
    )
    # the docs' example: effective batch 128 = 4 per GPU × 8 accumulation × 4 GPUs
    assert cfg["train_batch_size"] == 128
    assert cfg["train_micro_batch_size_per_gpu"] == 4 and cfg["gradient_accumulation_steps"] == 8
    assert cfg["zero_optimization"]["stage"] == 2 and cfg["bf16"] == {"enabled": True}
    assert "fp16" not in cfg and cfg["gradient_clipping"] == 1.0
    z3 = deepspeed_config(1, 1, 2, 3, "fp16", 0.5)
    assert z3["zero_optimization"]["stage3_gather_16bit_weights_on_model_save"] is True
    assert z3["fp16"]["loss_scale"] == 0  # dynamic loss scaling


def test_deepspeed_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from jupiter.train.dist import deepspeed_engine

    monkeypatch.setitem(sys.modules, "deepspeed", None)
    model = torch.nn.Linear(2, 2)
    with pytest.raises(JupiterError, match="pip install deepspeed"):
        deepspeed_engine(model, torch.optim.AdamW(model.parameters()), {})


def test_training_does_not_wait_for_deepspeeds_inference_op(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """DeepSpeed compiles its shared-memory all-reduce op at start (minutes of C++) though
    only inference uses it: Jupiter marks it unavailable, and DeepSpeed then builds nothing."""
    pytest.importorskip("deepspeed")
    import deepspeed.ops
    from deepspeed.comm.torch import build_shm_op

    from jupiter.train.dist import skip_inference_ops

    ops = dict(deepspeed.ops.__compatible_ops__)
    monkeypatch.setattr(deepspeed.ops, "__compatible_ops__", ops)
    ops["deepspeed_shm_comm"] = True  # as DeepSpeed's probe finds it on a Linux CPU
    assert skip_inference_ops() == ["deepspeed_shm_comm"]
    assert ops["deepspeed_shm_comm"] is False
    assert build_shm_op() is None  # returns before any build
    assert skip_inference_ops() == []


def test_presets_command_lists_every_size_and_method() -> None:
    import subprocess

    exe = str(Path(sys.executable).with_name("jupiter"))
    out = subprocess.run(
        [exe, "config", "presets", "--context", "4096"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "160", "PATH": ""},
    )
    assert out.returncode == 0, out.stderr
    rows = [ln for ln in out.stdout.splitlines() if ln.startswith("│ ") and "B │" in ln]
    assert [r.split("│")[1].strip() for r in rows] == ["1b"] * 3 + ["7b"] * 3 + ["20b"] * 3 + [
        "120b"
    ] * 3
    assert "context 4096" in out.stdout and out.stdout.count("(recommended)") == 4
