"""The fused linear cross-entropy: the same loss and gradients as logits + F.cross_entropy,
without the logits; and the training loop takes it on a real model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn.functional as F

from jupiter.config import LoraConfig, TrainConfig
from jupiter.data.chat import IGNORE
from jupiter.models import loss as loss_mod
from jupiter.models.loading import load_for_training
from jupiter.models.loss import fused_linear_ce, head_of


def plain(h: torch.Tensor, w: torch.Tensor, y: torch.Tensor, cap: float | None) -> torch.Tensor:
    z = h @ w.t()
    if cap is not None:
        z = torch.tanh(z / cap) * cap
    return F.cross_entropy(z.flatten(0, 1), y.flatten(), ignore_index=IGNORE, reduction="sum")


@pytest.mark.parametrize("cap", [None, 5.0])
@pytest.mark.parametrize("weight_grad", [False, True])
def test_fused_equals_plain_loss_and_gradients(
    cap: float | None, weight_grad: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # small chunks, so several chunks and a ragged last one are exercised
    monkeypatch.setattr(loss_mod, "CHUNK_ELEMENTS", 7 * 1000)
    torch.manual_seed(0)
    h = torch.randn(3, 17, 32, requires_grad=True)
    w = torch.randn(1000, 32, requires_grad=weight_grad)
    y = torch.randint(0, 1000, (3, 17))
    y[0, :5] = IGNORE  # prompt tokens: no loss, no gradient
    y[2, -3:] = IGNORE
    fused = fused_linear_ce(h, w, y, cap)
    fused.backward()
    gh, gw = h.grad.clone(), (w.grad.clone() if weight_grad else None)
    h.grad = None
    w.grad = None
    ref = plain(h, w, y, cap)
    ref.backward()
    # fp32 throughout: the sum of 43 row losses of ~10 nats agrees to 1e-4 relative
    assert abs(fused.item() - ref.item()) <= 1e-4 * abs(ref.item())
    assert torch.allclose(gh, h.grad, atol=1e-5, rtol=1e-4)
    assert float(gh[0, :5].abs().max()) == 0.0  # ignored rows get no gradient
    if weight_grad:
        assert w.grad is not None and gw is not None
        assert torch.allclose(gw, w.grad, atol=1e-4, rtol=1e-4)


def test_fused_scales_with_upstream_gradient_and_no_grad() -> None:
    torch.manual_seed(1)
    h = torch.randn(2, 5, 8, requires_grad=True)
    w = torch.randn(50, 8)
    y = torch.randint(0, 50, (2, 5))
    (fused_linear_ce(h, w, y) * 0.25).backward()
    g = h.grad.clone()
    h.grad = None
    (plain(h, w, y, None) * 0.25).backward()
    assert torch.allclose(g, h.grad, atol=1e-6)
    with torch.no_grad():  # held-out loss: no gradients made, same value
        assert fused_linear_ce(h, w, y).item() == pytest.approx(plain(h, w, y, None).item(), 1e-5)


def test_fused_bf16_autocast_close_to_fp32() -> None:
    torch.manual_seed(2)
    h = torch.randn(4, 16, 64)
    w = torch.randn(4096, 64) * 0.1
    y = torch.randint(0, 4096, (4, 16))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        low = fused_linear_ce(h, w, y)
    ref = plain(h, w, y, None)
    # bf16 matmul (8-bit mantissa) with fp32 softmax: within 1% of the fp32 loss
    assert abs(low.item() - ref.item()) <= 0.01 * ref.item()


def test_head_of_finds_tied_head_and_softcap(tiny_model_dirs: dict[str, Path]) -> None:
    model = load_for_training(
        tiny_model_dirs["llama"], "lora", LoraConfig(r=4, alpha=8), device=torch.device("cpu")
    )
    found = head_of(model)
    assert found is not None
    weight, cap = found
    assert weight is model.get_output_embeddings().weight and cap is None
    assert not weight.requires_grad  # frozen under LoRA: no (V, D) gradient is made


def test_loop_uses_fused_loss_with_the_same_losses(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    """Two runs of the real loop from the same start, one with the fused loss and one with
    the plain loss on logits: same per-step losses and final adapter weights."""
    from test_finetune import make_run

    from jupiter.train.loop import get_weights, run_steps, start

    states = []
    for name, fused in (("fused", True), ("plain", False)):
        run = make_run(tiny_model_dirs["llama"], tmp_path / name, method="lora", max_steps=4)
        assert isinstance(run.config, TrainConfig)
        state = start(run)
        if fused:
            assert state.head is not None
        else:
            state.head = None
        run_steps(run, state, 4)
        if fused:
            assert state.head is not None and state.head_checked  # the check passed
        states.append(state)
    fused_s, plain_s = states
    assert len(fused_s.losses) == 4
    assert fused_s.losses == pytest.approx(plain_s.losses, rel=1e-5)
    wf, wp = get_weights(fused_s), get_weights(plain_s)
    assert wf.keys() == wp.keys()
    assert max(float((wf[k] - wp[k]).abs().max()) for k in wf) < 1e-5


class FakeLiger(torch.nn.Module):
    """The documented interface of liger_kernel's LigerFusedLinearCrossEntropyLoss (the head
    weight first, flattened inputs), computed with plain torch, for the glue's contract."""

    calls: list[tuple[tuple[int, ...], tuple[int, ...], str]] = []

    def __init__(
        self, ignore_index: int = -100, reduction: str = "mean", softcap: float | None = None
    ) -> None:
        super().__init__()
        self.ignore_index, self.reduction, self.softcap = ignore_index, reduction, softcap

    def forward(
        self,
        lin_weight: torch.Tensor,
        _input: torch.Tensor,
        target: torch.Tensor,
        bias: torch.Tensor | None = None,
    ) -> torch.Tensor:
        FakeLiger.calls.append((tuple(lin_weight.shape), tuple(_input.shape), self.reduction))
        z = _input @ lin_weight.t()
        if self.softcap is not None:
            z = torch.tanh(z / self.softcap) * self.softcap
        return F.cross_entropy(z, target, ignore_index=self.ignore_index, reduction=self.reduction)


class OldLiger(FakeLiger):  # before softcap existed
    def __init__(self, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__(ignore_index, reduction)


@pytest.mark.parametrize("cap", [None, 5.0])
def test_liger_glue_matches_the_torch_path(
    cap: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    torch.manual_seed(2)
    h = torch.randn(2, 7, 16)
    w = torch.randn(300, 16)
    y = torch.randint(0, 300, (2, 7))
    y[0, :3] = IGNORE
    monkeypatch.setattr(loss_mod, "_liger", lambda: FakeLiger)
    FakeLiger.calls.clear()
    got = loss_mod._liger_loss(h, w, y, cap)
    assert FakeLiger.calls == [((300, 16), (14, 16), "sum")]
    assert got is not None
    assert torch.allclose(got, fused_linear_ce(h, w, y, cap), rtol=1e-5)
    monkeypatch.setattr(loss_mod, "_liger", lambda: OldLiger)
    # a soft-capped model on a Liger without softcap: Jupiter's own loss instead
    assert (loss_mod._liger_loss(h, w, y, cap) is None) == (cap is not None)


def test_liger_loss_without_cuda_is_refused_in_one_line(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    from test_finetune import make_run

    from jupiter.errors import JupiterError
    from jupiter.train.loop import start

    run = make_run(tiny_model_dirs["llama"], tmp_path / "l", method="lora", loss="liger")
    with pytest.raises(JupiterError, match=r"train.loss: liger needs a CUDA device") as err:
        start(run)
    assert "\n" not in str(err.value) and "train.loss: auto" in str(err.value)


def test_fused_loss_takes_the_torch_kernel(
    tiny_model_dirs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_finetune import make_run

    from jupiter.train.loop import run_steps, start

    kernels: list[str] = []
    real = loss_mod.fused_linear_ce

    def spy(*args: Any, **kw: Any) -> torch.Tensor:
        kernels.append(kw.get("kernel", "auto"))
        return real(*args, **kw)

    monkeypatch.setattr("jupiter.train.loop.fused_linear_ce", spy)
    for loss, want in (("fused", "torch"), ("auto", "auto")):
        run = make_run(tiny_model_dirs["llama"], tmp_path / loss, method="lora", loss=loss)
        state = start(run)
        run_steps(run, state, 1)
        assert kernels and set(kernels) == {want}
        kernels.clear()


def test_chunks_are_four_times_larger_on_cuda() -> None:
    # 16M logit elements a chunk on a CPU, 64M on CUDA (the H100 figures in loss.py)
    assert loss_mod.chunk_rows(262144) == 64
    assert loss_mod.chunk_rows(262144, "cuda") == 256
    assert (loss_mod.chunk_rows(32000), loss_mod.chunk_rows(32000, "cuda")) == (524, 2097)
    assert loss_mod.chunk_rows(10**9) == 16  # never fewer rows than 16
