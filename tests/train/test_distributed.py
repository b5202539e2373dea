"""Several real processes through torchrun (gloo on CPU): DDP, FSDP2 and DeepSpeed ZeRO give
the loss curve of one process with the same global batch; a run killed with SIGKILL
resumes to the same losses and weights."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoTokenizer, LlamaConfig

from jupiter.config import TrainConfig
from jupiter.data.dataset import PackedDataset, encode_examples
from jupiter.data.tokenizer import train_tokenizer
from jupiter.train.launch import Launch, launch_train, write_spec
from jupiter.train.loop import TrainRun
from jupiter.train.trainer import train
from tinyhf import CORPUS

TEXTS = [f"{t} ({i})" for i, t in enumerate(CORPUS * 3)]


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tok")
    train_tokenizer(TEXTS, 400, out)
    return out


def make_run(tok_dir: Path, out: Path, **cfg: object) -> TrainRun:
    tok = AutoTokenizer.from_pretrained(tok_dir)
    seqs = encode_examples(tok, [], TEXTS, raw_text_fraction=1.0, seed=0)
    dataset = PackedDataset(seqs, context_length=32, pad_id=tok.pad_token_id, seed=0)
    model_config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        tie_word_embeddings=False,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    base = {
        "max_steps": 4,
        "micro_batch_size": 4,
        "grad_accum": 2,
        "warmup_steps": 1,
        "precision": "fp32",
        "checkpoint_every": 2,
        "checkpoint_every_epoch": False,
        "metrics": [],
        "log_every": 1,
        "lr": 3e-3,
        # FSDP2 and ZeRO shard the head, so they take the plain loss: compare like with like
        "loss": "plain",
    }
    return TrainRun(
        dataset,
        TrainConfig(**{**base, **cfg}),
        out,
        tok_dir,
        model_config=model_config,
        run_id="dist",
        device="cpu",
        progress=False,
    )


def weights(model_dir: Path) -> dict[str, torch.Tensor]:
    return load_file(model_dir / "model.safetensors")


@pytest.fixture(scope="module")
def single(tok_dir: Path, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """One process, global batch 4 × 2 accumulation; HF's own norms, as FSDP and DeepSpeed
    keep them (every strategy below runs them too: the weights are compared to 1e-4)."""
    return train(make_run(tok_dir, tmp_path_factory.mktemp("one"), fused_norm=False))


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["ddp", "fsdp", "zero2", "zero3"])
def test_two_processes_stop_resume_and_match_one(
    strategy: str,
    single,
    tok_dir: Path,
    tmp_path: Path,  # noqa: ANN001
) -> None:
    """Two ranks run 2 of the 4 steps and stop; a second launch resumes from that step
    checkpoint (every rank's RNG, the optimizer, the data position) and ends with the
    single process's losses for all 4 steps and its weights."""
    extra: dict[str, object] = {"distributed": strategy, "fused_norm": False}
    if strategy.startswith("zero"):
        pytest.importorskip("deepspeed")
        extra = {"distributed": "deepspeed", "zero_stage": int(strategy[-1])}
    # 2 ranks × micro-batch 2 = the single run's global micro-batch of 4
    run = make_run(tok_dir, tmp_path / strategy, micro_batch_size=2, **extra)
    part = launch_train(run, Launch(nproc=2), stop_after=2)
    assert not part.finished and part.steps == 2
    assert part.losses == pytest.approx(single.losses[:2], abs=1e-5)
    result = launch_train(run, Launch(nproc=2))
    assert result.finished and result.steps == 4
    assert result.losses == pytest.approx(single.losses, abs=1e-5)
    a, b = weights(single.model_dir), weights(result.model_dir)
    assert a.keys() == b.keys()
    for name in a:
        torch.testing.assert_close(a[name], b[name], rtol=1e-4, atol=1e-5, msg=name)
    for step in (2, 4):
        state = json.loads((tmp_path / strategy / f"step-{step:06d}" / "state.json").read_text())
        assert state["world"] == 2
        rng = torch.load(tmp_path / strategy / f"step-{step:06d}" / "rng.pt", weights_only=True)
        assert len(rng["ranks"]) == 2  # every rank's RNG state


@pytest.mark.slow
def test_kill_9_mid_run_then_resume_equals_uninterrupted(tok_dir: Path, tmp_path: Path) -> None:
    # long enough that the kill lands mid-run: it comes as soon as step 6 is saved
    cfg = {"max_steps": 150, "checkpoint_every": 3, "micro_batch_size": 2, "grad_accum": 1}
    straight = train(make_run(tok_dir, tmp_path / "a", **cfg))
    run = make_run(tok_dir, tmp_path / "b", **cfg)
    spec = write_spec(run, tmp_path / "spec")
    proc = subprocess.Popen([sys.executable, "-m", "jupiter.train.launch", str(spec)])
    deadline = time.time() + 120
    while not (tmp_path / "b" / "step-000006").is_dir():
        assert proc.poll() is None and time.time() < deadline, "the run ended before the kill"
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (tmp_path / "b" / "final").exists()
    done = sorted(p.name for p in (tmp_path / "b").glob("step-*"))
    assert "step-000150" not in done and len(done) >= 2
    # the newest checkpoint torn: its weights truncated; resume falls back to the one before
    newest = tmp_path / "b" / done[-1] / "model" / "model.safetensors"
    newest.write_bytes(newest.read_bytes()[:100])
    with pytest.warns(UserWarning, match=done[-1]):
        resumed = train(make_run(tok_dir, tmp_path / "b", **cfg))
    assert resumed.losses == straight.losses  # bit for bit
    a, b = weights(straight.model_dir), weights(resumed.model_dir)
    for name in a:
        assert torch.equal(a[name], b[name]), name


def run_rounds(tok_dir: Path, root: Path, name: str, nproc: int, **cfg: object) -> dict:
    """rounds_worker.py under torchrun with `nproc` ranks; rank 0's JSON."""
    worker = Path(__file__).with_name("rounds_worker.py")
    run = make_run(tok_dir, root / name, **cfg)
    spec = write_spec(run, root / f"spec-{name}")
    out = root / f"{name}.json"
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node",
        str(nproc),
        str(worker),
        str(spec),
        str(out),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return dict(json.loads(out.read_text()))


@pytest.fixture(scope="module")
def rounds_one(tok_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The rounds of one process, global micro-batch 4: what each strategy must equal."""
    return run_rounds(tok_dir, tmp_path_factory.mktemp("rounds"), "one", 1, micro_batch_size=4)


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["ddp", "fsdp"])
def test_rounds_under_two_processes_match_one(
    strategy: str, rounds_one: dict, tok_dir: Path, tmp_path: Path
) -> None:
    """get_weights / set_weights between rounds (what the cross-island sync does) give the
    same result whatever the sharding."""
    one = rounds_one
    two = run_rounds(tok_dir, tmp_path, strategy, 2, micro_batch_size=2, distributed=strategy)
    assert one["exact"] and two["exact"]  # whole weights in, the same whole weights out
    assert two["losses"] == pytest.approx(one["losses"], abs=1e-5)
    for n, v in one["sums"].items():
        assert two["sums"][n] == pytest.approx(v, abs=1e-3), n


def test_stale_build_lock_is_removed_and_a_fresh_one_kept(tmp_path: Path, capsys) -> None:
    """A `lock` left by a run killed mid-build made every later deepspeed start wait forever
    (torch's FileBaton); one older than any build goes, one of a build under way stays."""
    import os

    from jupiter.train.dist import clear_stale_build_locks

    stale = tmp_path / "py311_cpu" / "deepspeed_shm_comm" / "lock"
    fresh = tmp_path / "py311_cpu" / "other_op" / "lock"
    for lock in (stale, fresh):
        lock.parent.mkdir(parents=True)
        lock.touch()
    old = time.time() - 3600
    os.utime(stale, (old, old))
    assert clear_stale_build_locks(tmp_path, max_age_s=600) == [stale]
    assert not stale.exists() and fresh.exists()
    assert "stale build lock" in capsys.readouterr().out
    assert clear_stale_build_locks(tmp_path / "absent") == []
