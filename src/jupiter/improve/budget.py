"""The train stage's token budget: how much of the domain's raw text a run trains on, so
that a corpus cut down to a few hundred tokens is seen and named, never silent (once,
2 Q&A pairs cut 2,087 raw texts of man pages to 472 trained tokens)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # data.dataset imports torch: not at the CLI's start
    from rich.console import Console

    from jupiter.config import TrainConfig
    from jupiter.data.dataset import TokenBudget

LOW_SHARE = 0.20  # below this share of the corpus trained on, the stage warns


def budget_info(budget: TokenBudget, epochs: float | None, max_steps: int | None) -> dict[str, Any]:
    """The figures the train stage stores. `epochs`: the passes over the data the run's plan
    amounts to (None when the trainer does not say: then only per-epoch figures are known).
    The share of the corpus trained on counts a raw text once however many epochs see it."""
    per_epoch = budget.corpus_share
    share = per_epoch
    if per_epoch is not None and epochs is not None:
        share = per_epoch * min(1.0, epochs)  # a part of an epoch reads that part of its rows
    return {
        "corpus_tokens": budget.corpus_tokens,
        "raw_tokens_per_epoch": budget.raw_tokens,
        "chat_tokens_per_epoch": budget.chat_tokens,
        "trained_tokens_per_epoch": budget.epoch_tokens,
        "epochs": round(epochs, 4) if epochs is not None else None,
        "max_steps": max_steps,
        "trained_tokens": round(epochs * budget.epoch_tokens) if epochs is not None else None,
        "corpus_share_per_epoch": _round(per_epoch),
        "corpus_share": _round(share),
    }


def _round(x: float | None) -> float | None:
    return round(x, 4) if x is not None else None


def budget_line(info: dict[str, Any]) -> str:
    """One console line: corpus tokens, trained tokens (per epoch, and in all), share used."""
    per_epoch = (
        f"{info['raw_tokens_per_epoch']:,} raw + {info['chat_tokens_per_epoch']:,} chat = "
        f"{info['trained_tokens_per_epoch']:,} tokens per epoch"
    )
    total = ""
    if info["trained_tokens"] is not None:
        total = f", {info['trained_tokens']:,} over {info['epochs']:.2f} epochs"
    share = info["corpus_share"]
    used = "no raw text given" if share is None else f"{share:.1%} of the corpus trained on"
    return (
        f"train: token budget: corpus {info['corpus_tokens']:,} tokens of raw text (train "
        f"split); {per_epoch}{total}; {used}"
    )


def budget_warning(
    info: dict[str, Any], raw_text_fraction: float, min_corpus_share: float, steps_key: str
) -> str | None:
    """A warning naming the setting to change when under LOW_SHARE of the corpus is trained
    on; None otherwise. `steps_key`: the max_steps setting in force (train.max_steps, or a
    curriculum level's)."""
    share = info["corpus_share"]
    if share is None or share >= LOW_SHARE:
        return None
    fixes = []
    if raw_text_fraction <= 0.0:
        fixes.append("train.raw_text_fraction is 0: raise it to train on raw text")
    elif info["corpus_share_per_epoch"] < LOW_SHARE:
        fixes.append(
            f"raw text is capped at train.raw_text_fraction ({raw_text_fraction:g}) of the "
            f"tokens and train.min_corpus_share is {min_corpus_share:g}: raise "
            "train.min_corpus_share (1 trains on all of it every epoch)"
        )
    epochs, steps = info["epochs"], info["max_steps"]
    if epochs is not None and epochs < 1.0 and steps:
        one_epoch = max(steps + 1, round(steps / epochs))
        fixes.append(
            f"{steps} steps read {epochs:.1%} of one epoch: raise {steps_key} to at least "
            f"{one_epoch:,} (one epoch) or unset it to train whole epochs"
        )
    return (
        f"warning: only {share:.1%} of the corpus is trained on (under {LOW_SHARE:.0%}); "
        + "; ".join(fixes)
    )


def print_budget(console: Console, info: dict[str, Any], cfg: TrainConfig, steps_key: str) -> None:
    """The budget line, and the warning with its fix when little of the corpus is used."""
    console.print(budget_line(info), markup=False, highlight=False)
    warning = budget_warning(info, cfg.raw_text_fraction, cfg.min_corpus_share, steps_key)
    if warning:
        console.print(warning, style="bold yellow", markup=False, highlight=False)
