"""train.vocab corpus: the training loss's softmax over the tokens of the training data and
a random sample of the others; the same loss as a plain cross-entropy over those columns
(the sample's logits offset), an unbiased estimate of the whole normalisation, gradients
only where they reach, and held-out loss over the whole vocabulary."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from pydantic import ValidationError

from jupiter.config import TrainConfig
from jupiter.data.chat import IGNORE
from jupiter.errors import JupiterError
from jupiter.models.loss import fused_linear_ce
from jupiter.train.loss import CorpusVocab


def restricted_reference(
    h: torch.Tensor, w: torch.Tensor, y: torch.Tensor, keep: torch.Tensor
) -> torch.Tensor:
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
    vocab = CorpusVocab(keep.numpy(), 300, torch.device("cpu"), samples=0)
    assert vocab.size == keep.numel() < 300
    rows, bias = vocab.head(w)
    assert bias is None
    got = fused_linear_ce(h, rows, vocab.labels(y))
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
    assert vocab.drawn == 0  # nothing left to draw
    assert fused_linear_ce(h, vocab.head(w)[0], vocab.labels(y)).item() == pytest.approx(
        fused_linear_ce(h, w, y).item(), rel=1e-6
    )


def test_a_frozen_head_is_sliced_once() -> None:
    w = torch.randn(50, 4)
    vocab = CorpusVocab(torch.tensor([3, 9, 20]).numpy(), 50, torch.device("cpu"), samples=0)
    first = vocab.head(w)[0]
    assert first.shape == (3, 4) and vocab.head(w)[0] is first
    assert torch.equal(first, w[[3, 9, 20]])


def test_the_sample_is_offset_so_the_normalisation_is_estimated_without_bias() -> None:
    torch.manual_seed(3)
    vocab_size, dim = 2000, 8
    w, h = torch.randn(vocab_size, dim), torch.randn(dim)
    keep = torch.arange(0, 2000, 40)  # 50 kept, 1,950 others, 50 drawn a call
    vocab = CorpusVocab(keep.numpy(), vocab_size, torch.device("cpu"))
    assert (vocab.size, vocab.drawn) == (50, 50)
    assert vocab.offset == pytest.approx(torch.log(torch.tensor(1950 / 50)).item())
    rows, bias = vocab.head(w)
    assert rows.shape == (100, dim) and bias is not None
    assert torch.equal(rows[:50], w[keep]) and float(bias[:50].abs().max()) == 0.0
    # E[sum exp(z_kept) + (others/drawn) sum exp(z_drawn)] = sum over the whole vocabulary
    draws = [torch.exp(h @ r.t() + b).sum() for r, b in (vocab.head(w) for _ in range(2000))]
    whole = torch.exp(w @ h).sum()
    assert float(torch.stack(draws).mean()) == pytest.approx(float(whole), rel=0.05)


def test_sampled_loss_is_the_plain_softmax_over_kept_and_drawn_with_the_offset() -> None:
    torch.manual_seed(4)
    w = torch.randn(500, 16, requires_grad=True)
    h = torch.randn(2, 6, 16, requires_grad=True)
    y = torch.randint(0, 40, (2, 6))
    vocab = CorpusVocab(torch.arange(40).numpy(), 500, torch.device("cpu"))
    torch.manual_seed(9)
    rows, bias = vocab.head(w)
    got = fused_linear_ce(h, rows, vocab.labels(y), bias=bias)
    got.backward()
    gw = w.grad.clone()
    w.grad = None
    torch.manual_seed(9)  # the same draw
    pick = torch.randint(0, 460, (40,))
    cols = torch.cat([torch.arange(40), vocab.others[pick]])
    z = h @ w[cols].t()
    z = z + torch.cat([torch.zeros(40), torch.full((40,), vocab.offset)])
    ref = F.cross_entropy(z.flatten(0, 1), y.flatten(), reduction="sum")
    ref.backward()
    assert got.item() == pytest.approx(ref.item(), rel=1e-5)
    assert torch.allclose(gw, w.grad, atol=1e-5)
    touched = torch.zeros(500, dtype=torch.bool)
    touched[cols] = True
    assert float(gw[~touched].abs().max()) == 0.0 and float(gw[vocab.others[pick]].abs().sum()) > 0


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
        run = make_run(
            tiny_model_dirs["llama"],
            tmp_path / vocab,
            heldout=8,
            method="lora",
            vocab=vocab,
            max_steps=3,
        )
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

    run = make_run(
        tiny_model_dirs["llama"], tmp_path / "p", method="lora", vocab="corpus", loss="plain"
    )
    with pytest.raises(JupiterError) as err:
        start(run)
    assert "train.vocab: corpus needs the fused loss" in str(err.value)


def test_held_out_loss_reads_every_row_once_whatever_the_micro_batch(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    """The held-out loss is over every held-out row, not the rows that fill whole batches:
    the same model gives the same figure at micro-batch 1, 3 and 4 (it used to drop the
    partial last batch, so the figure moved with the batch size and the world)."""
    from test_finetune import make_run

    from jupiter.train.loop import heldout_loss, start

    got = {}
    for mb in (1, 3, 4):
        run = make_run(
            tiny_model_dirs["llama"], tmp_path / f"mb{mb}", heldout=7, micro_batch_size=mb
        )
        assert run.heldout is not None and run.heldout.num_rows % 4 != 0
        got[mb] = heldout_loss(run, start(run))
    assert got[1] is not None
    assert got[3] == pytest.approx(got[1], rel=1e-6) and got[4] == pytest.approx(got[1], rel=1e-6)
