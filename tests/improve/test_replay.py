"""train.replay: the base's own samples, drawn once per base (seeded, cached in the
workspace), mixed into the train split at the configured share of the tokens."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from jupiter.config import load_domain
from jupiter.improve import replay
from jupiter.improve.replay import replay_sequences, replay_texts, sample_base
from jupiter.improve.workspace import Workspace
from tinyhf import save_tiny, tiny_tokenizer


def test_replay_tokens_make_up_the_configured_share() -> None:
    tok = tiny_tokenizer("llama")
    texts = ["one two three four five six seven", "eight nine ten eleven", "twelve thirteen"]
    got = replay_sequences(tok, texts, 0.2, other_tokens=400, seed=0)
    used = sum(len(ids) for ids, _ in got)
    assert used == 100  # 400 x 0.2 / 0.8: a fifth of the 500 trained tokens
    assert len(got) > len(texts)  # fewer samples than the budget: cycled through
    assert all(len(ids) == len(labels) for ids, labels in got)
    assert replay_sequences(tok, texts, 0.0, 400, 0) == []
    assert replay_sequences(tok, [], 0.2, 400, 0) == []


def test_samples_are_seeded_and_drawn_from_bos(tmp_path: Path) -> None:
    model = save_tiny("llama", tmp_path / "m", seed=0)
    a = sample_base(model, 4, 12, 1.0, 0.95, seed=7)
    b = sample_base(model, 4, 12, 1.0, 0.95, seed=7)
    assert a == b and 1 <= len(a) <= 4 and all(t.strip() for t in a)
    assert sample_base(model, 4, 12, 1.0, 0.95, seed=8) != a


def test_replay_texts_are_sampled_once_per_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    (tmp_path / "t.yaml").write_text(
        "name: t\nsources: [{type: local, path: docs}]\n"
        "train: {replay: {fraction: 0.1, samples: 3, max_tokens: 8}}\n"
    )
    ws = Workspace(load_domain(str(tmp_path / "t.yaml")), console=Console(file=io.StringIO()))
    model = save_tiny("llama", tmp_path / "m", seed=0)
    first = replay_texts(ws, model)
    assert first and len(list((ws.root / "replay").glob("*.jsonl"))) == 1

    def no_sampling(*args: object) -> list[str]:
        raise AssertionError("sampled again")

    monkeypatch.setattr(replay, "sample_base", no_sampling)
    assert replay_texts(ws, model) == first  # from the cache
    ws.close()
