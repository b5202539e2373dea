"""train.vocab corpus: the training loss's softmax over the tokens of the training data;
the same loss as a plain cross-entropy over those columns, gradients only where they
reach, and held-out loss over the whole vocabulary."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from pydantic import ValidationError

from jupiter.config import TrainConfig
from jupiter.data.chat import IGNORE
from jupiter.errors import JupiterError
from jupiter.train.loss import CorpusVocab, fused_linear_ce


def restricted_reference(h: torch.Tensor, w: torch.Tensor, y: torch.Tensor,
                         keep: torch.Tensor) -> torch.Tensor:  # fmt: skip
    """Plain logits over the kept columns, targets renumbered by hand."""
    z = h @ w[keep].t()
    place = {int(t): i for i, t in enumerate(keep)}
    yy = torch.tensor([[place[int(v)] if v != IGNORE else IGNORE for v in row] for row in y])
    return F.cross_entropy(z.flatten(0, 1), yy.flatten(), ignore_index=IGNORE, reduction="sum")


@pytest.mark.parametrize("weight_grad", [False, True])
def test_restricted_loss_and_gradients_match_a_plain_softmax_over_the_kept_ids(
    weight_grad: bool,
) -> None:
    torch.manual_seed(0)
    h = torch.randn(2, 9, 16, requires_grad=True)
    w = torch.randn(300, 16, requires_grad=weight_grad)
    y = torch.randint(0, 300, (2, 9))
    y[0, :3] = IGNORE
    keep = torch.unique(torch.cat([y[y != IGNORE], torch.tensor([0, 7, 299])]))
    vocab = CorpusVocab(keep.numpy(), 300, torch.device("cpu"))
    assert vocab.size == keep.numel() < 300
    got = fused_linear_ce(h, vocab.rows(w), vocab.labels(y))
    got.backward()
    gh = h.grad.clone()
    gw = w.grad.clone() if weight_grad else None
    h.grad, w.grad = None, None
    ref = restricted_reference(h, w, y, keep)
    ref.backward()
    assert got.item() == pytest.approx(ref.item(), rel=1e-5)
    assert torch.allclose(gh, h.grad, atol=1e-5)
    # lower than the whole vocabulary's loss: the left-out tokens no longer share the mass
    with torch.no_grad():
        assert got.item() < fused_linear_ce(h, w, y).item()
    if weight_grad:
        assert gw is not None and torch.allclose(gw, w.grad, atol=1e-5)
        dropped = torch.ones(300, dtype=torch.bool)
        dropped[keep] = False
        assert float(gw[dropped].abs().max()) == 0.0  # rows never seen get no gradient
        assert float(gw[keep].abs().max()) > 0.0


def test_the_whole_vocabulary_kept_is_the_full_loss() -> None:
    torch.manual_seed(1)
    h, w = torch.randn(3, 5, 8), torch.randn(40, 8)
    y = torch.randint(0, 40, (3, 5))
    vocab = CorpusVocab(torch.arange(40).numpy(), 40, torch.device("cpu"))
    assert fused_linear_ce(h, vocab.rows(w), vocab.labels(y)).item() == pytest.approx(
        fused_linear_ce(h, w, y).item(), rel=1e-6
    )


def test_a_frozen_head_is_sliced_once() -> None:
    w = torch.randn(50, 4)
    vocab = CorpusVocab(torch.tensor([3, 9, 20]).numpy(), 50, torch.device("cpu"))
    first = vocab.rows(w)
    assert first.shape == (3, 4) and vocab.rows(w) is first
    assert torch.equal(first, w[[3, 9, 20]])


def test_ids_beyond_the_head_are_refused_in_one_line() -> None:
    with pytest.raises(JupiterError) as err:
        CorpusVocab(torch.tensor([1, 70]).numpy(), 50, torch.device("cpu"))
    assert "token id 70" in str(err.value) and "\n" not in str(err.value)


def test_config_takes_full_or_corpus() -> None:
    assert TrainConfig().vocab == "full"
    assert TrainConfig(vocab="corpus").vocab == "corpus"
    with pytest.raises(ValidationError):
        TrainConfig(vocab="some")


def test_loop_trains_over_the_corpus_tokens_and_scores_held_out_over_all(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    from test_finetune import make_run

    from jupiter.train.loop import heldout_loss, run_steps, start

    states = {}
    for vocab in ("full", "corpus"):
        run = make_run(tiny_model_dirs["llama"], tmp_path / vocab, heldout=8, method="lora",
                       vocab=vocab, max_steps=3)  # fmt: skip
        state = start(run)
        states[vocab] = (run, state)
    run, state = states["corpus"]
    full_run, full_state = states["full"]
    ids = run.dataset.token_ids()
    assert state.vocab is not None and full_state.vocab is None
    assert state.vocab.size == len(ids) < state.head[0].shape[0]
    # the same start: held-out loss over the whole vocabulary, equal in both runs
    assert heldout_loss(run, state) == pytest.approx(heldout_loss(full_run, full_state), 1e-6)
    run_steps(run, state, 3)
    run_steps(full_run, full_state, 3)
    assert len(state.losses) == 3 and all(v == v for v in state.losses)
    # the first step's loss (same weights, same rows) is lower over fewer tokens
    assert state.losses[0] < full_state.losses[0]
    assert state.losses[-1] < state.losses[0]


def test_corpus_vocab_with_the_plain_loss_is_refused(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    from test_finetune import make_run

    from jupiter.train.loop import start

    run = make_run(tiny_model_dirs["llama"], tmp_path / "p", method="lora", vocab="corpus",
                   loss="plain")  # fmt: skip
    with pytest.raises(JupiterError) as err:
        start(run)
    assert "train.vocab: corpus needs the fused loss" in str(err.value)
