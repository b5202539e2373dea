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

    run = make_run(
        tiny_model_dirs["llama"], tmp_path / "s", method="full", precision="bf16", max_steps=4
    )
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


# ------------------------------------------------------------------ Liger and the fused loss
def _loss_case(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    from jupiter.data.chat import IGNORE

    torch.manual_seed(0)
    h = torch.randn(4, 96, 64, device="cuda").to(dtype).requires_grad_()
    w = (torch.randn(5000, 64, device="cuda") * 0.2).to(dtype).requires_grad_()
    y = torch.randint(0, 5000, (4, 96), device="cuda")
    y[0, :20] = IGNORE  # a prompt: no loss there
    y[3, 90:] = IGNORE
    return h, w, y


@pytest.mark.parametrize("cap", [None, 30.0])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_liger_kernel_matches_jupiters_torch_chunks(
    cap: float | None, dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("liger_kernel")
    import jupiter.models.loss as loss_mod

    calls: list[int] = []
    real = loss_mod._liger_loss

    def spy(*args: object) -> torch.Tensor | None:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(loss_mod, "_liger_loss", spy)
    got = []
    for kernel in ("liger", "torch"):
        h, w, y = _loss_case(dtype)
        loss = loss_mod.fused_linear_ce(h, w, y, cap, compute_dtype=dtype, kernel=kernel)  # type: ignore[arg-type]
        loss.backward()
        assert h.grad is not None and w.grad is not None
        got.append((loss.detach().float(), h.grad.float(), w.grad.float()))
    assert calls == [1]  # "liger" went through Liger's kernel, "torch" did not
    (la, ha, wa), (lb, hb, wb) = got
    # fp32 both ways: 1e-4 relative on the summed loss, 1e-3 of the largest gradient entry;
    # bf16 matmuls (Liger casts differently from the torch chunks): 5e-3 and 2e-2
    rel_loss, rel_grad = (1e-4, 1e-3) if dtype == torch.float32 else (5e-3, 2e-2)
    assert float((la - lb).abs()) <= rel_loss * float(lb.abs())
    for a, b in ((ha, hb), (wa, wb)):
        assert float((a - b).abs().max()) <= rel_grad * float(b.abs().max())


def test_lora_with_liger_loss_follows_the_torch_loss(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    pytest.importorskip("liger_kernel")
    from test_finetune import make_run

    from jupiter.train.loop import run_steps, start

    losses = {}
    for loss in ("liger", "fused"):
        run = make_run(
            tiny_model_dirs["llama"], tmp_path / loss, method="lora", precision="fp32", loss=loss
        )
        run.device = "cuda"
        state = start(run)
        assert state.loss_kernel == ("liger" if loss == "liger" else "torch")
        run_steps(run, state, 3)
        losses[loss] = state.losses
    # fp32: the two kernels agree to 1e-4 relative over three optimizer steps
    assert losses["liger"] == pytest.approx(losses["fused"], rel=1e-4)
    assert losses["fused"][-1] < losses["fused"][0]


# --------------------------------------------------------------------- decoding and scoring
def test_batched_decode_on_gpu_equals_one_row_at_a_time(tiny_model_dirs: dict[str, Path]) -> None:
    from jupiter.models.decode import LocalLM
    from jupiter.synth.backend import Sampling

    lm = LocalLM(tiny_model_dirs["llama"], device="cuda", dtype="float32")
    assert next(lm.model.parameters()).device.type == "cuda"
    chats = [
        [{"role": "user", "content": t}]
        for t in ("What does str.split do?", "hello", "Explain the list.append method.")
    ]
    prompts = [lm.chat_ids(c) for c in chats]
    greedy = Sampling(max_tokens=20, temperature=0.0)
    batch = lm.generate(prompts, [greedy] * len(prompts))
    for prompt, out in zip(prompts, batch, strict=True):
        one = lm.generate([prompt], [greedy])[0]
        assert out.token_ids == one.token_ids and out.completion_tokens > 0
    assert len({tuple(o.token_ids) for o in batch}) > 1


def test_shared_prefix_scoring_on_gpu_equals_whole_rows(tiny_model_dirs: dict[str, Path]) -> None:
    from transformers import AutoModelForCausalLM

    from jupiter.models.scoring import shared_prefix_nll

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dirs["llama"]).cuda().eval()
    vocab = model.config.vocab_size
    torch.manual_seed(1)
    prompt = torch.randint(3, vocab, (40,)).tolist()
    conts = [torch.randint(3, vocab, (n,)).tolist() for n in (5, 1, 9)]
    got = shared_prefix_nll(model, prompt, conts, pad_id=0)
    assert got is not None
    want = []
    for cont in conts:
        ids = torch.tensor([prompt + cont], device="cuda")
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=ids).logits[0].float(), dim=-1)
        want.append(-sum(float(logp[len(prompt) - 1 + i, t]) for i, t in enumerate(cont)))
    # fp32 on the GPU both ways: 1e-4 relative
    assert got.tolist() == pytest.approx(want, rel=1e-4, abs=1e-4)


def test_auto_takes_liger_only_where_its_chunks_are_not_thin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("liger_kernel")
    import jupiter.models.loss as loss_mod
    from jupiter.data.chat import IGNORE

    calls: list[int] = []
    real = loss_mod._liger_loss
    monkeypatch.setattr(loss_mod, "_liger_loss", lambda *a: calls.append(a[1].shape[0]) or real(*a))
    h = torch.randn(2, 32, 64, device="cuda")
    y = torch.randint(0, 2000, (2, 32), device="cuda")
    y[0, :4] = IGNORE
    for vocab in (2000, 64 * 64, 64 * 64 + 1, 5000):  # vocabulary / hidden: 31, 64, 64+, 78
        loss_mod.fused_linear_ce(h, torch.randn(vocab, 64, device="cuda"), y)
    assert calls == [2000, 64 * 64]
