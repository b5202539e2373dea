"""The same engine on a CUDA GPU (skipped without one): bf16 autocast, a frozen bf16 base
under LoRA, QLoRA, MFU in the metrics, NCCL with two GPUs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from jupiter.train.launch import Launch, launch_train
from jupiter.train.metrics import read_metrics
from jupiter.train.trainer import train

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]


def test_lora_on_gpu_keeps_a_bf16_base_and_fp32_adapters(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    from test_finetune import make_run

    from jupiter.train.loop import run_steps, start

    run = make_run(tiny_model_dirs["mistral"], tmp_path / "g", method="lora", precision="bf16")
    run.device = "cuda"
    state = start(run)
    dtypes = {(p.requires_grad, p.dtype) for p in state.model.parameters()}
    assert dtypes == {(False, torch.bfloat16), (True, torch.float32)}
    run_steps(run, state, 3)
    assert all(math.isfinite(x) for x in state.losses)


def test_scratch_training_on_gpu_logs_mfu_and_memory(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    from test_finetune import make_run

    run = make_run(tiny_model_dirs["llama"], tmp_path / "s", method="full", precision="bf16",
                   max_steps=4)  # fmt: skip
    run.device = "cuda"
    result = train(run)
    assert result.finished
    rows = [r for r in read_metrics(tmp_path / "s" / "metrics.jsonl") if r["kind"] == "train"]
    assert rows[-1]["peak_mem_gb"] > 0
    name = torch.cuda.get_device_name()
    if any(k in name for k in ("H100", "H200", "A100")):
        assert 0 < rows[-1]["mfu"] < 1


def test_qlora_on_gpu(tiny_model_dirs: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("bitsandbytes")
    from test_finetune import make_run

    run = make_run(tiny_model_dirs["llama"], tmp_path / "q", method="qlora", precision="bf16")
    run.device = "cuda"
    result = train(run)
    assert result.finished and (result.model_dir / "adapter_config.json").is_file()


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_ddp_over_nccl_matches_one_gpu(tiny_model_dirs: dict[str, Path], tmp_path: Path) -> None:
    from test_finetune import make_run

    one = make_run(tiny_model_dirs["llama"], tmp_path / "one", method="full", micro_batch_size=4)
    one.device = "cuda"
    single = train(one)
    two = make_run(tiny_model_dirs["llama"], tmp_path / "two", method="full", micro_batch_size=2)
    two.device = "cuda"
    result = launch_train(two, Launch(nproc=2))
    assert result.losses == pytest.approx(single.losses, abs=1e-4)
