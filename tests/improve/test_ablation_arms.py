"""The expert benchmark's ablation arms (benchmarks/quality/expert.py): each arm's domain
YAML, loaded as `jupiter start --quick` loads it, trains with its own ingredients and no
other: the fine-tuning defaults of a pretrained base (the knowledge recipe, KL replay) must
not slip into the baseline through the keys an arm leaves out."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from jupiter.config import load_domain

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def expert() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "expert_bench", ROOT / "benchmarks" / "quality" / "expert.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["expert_bench"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "arm", ["baseline", "phrasings", "replay", "distill", "documents-first", "recipe2", "all"]
)
def test_each_arm_trains_its_own_ingredients_alone(
    expert: ModuleType, arm: str, tmp_path: Path
) -> None:
    path = expert.arm_yaml("python", arm, tmp_path, 30)
    cfg = load_domain(str(path), quick=True)
    t = cfg.train
    over = expert.ARMS[arm].get("train", {})
    knowledge = over.get("knowledge", {})
    for key in ("phrasings", "reverse", "permuted_copies", "sentences"):
        assert getattr(t.knowledge, key) == knowledge.get(key, 0), (arm, key)
    assert t.knowledge.usage == knowledge.get("usage", False)
    assert t.replay.fraction == over.get("replay", {}).get("fraction", 0.0)
    assert t.objective == over.get("objective", "sft")
    assert t.order == over.get("order", "mixed")
    assert t.max_steps == 30 and cfg.cycles == 1 and cfg.name == f"python-gemma-{arm}"
    assert not {"knowledge", "replay"} & set(cfg.finetune_defaulted)
    assert cfg.model.base  # the arms fine-tune the real base: the defaults would apply


def test_reuse_reads_a_finished_arm_without_running_it(
    expert: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--reuse: an arm whose workspace already holds its evaluated first cycle is read from
    its store (an ablation resumed with more arms keeps the arms it ran)."""
    from jupiter.store import Store

    path = expert.arm_yaml("python", "baseline", tmp_path, 30)
    ws = tmp_path / "runs" / "python-gemma-baseline-quick"
    (ws / "cycles" / "cycle-001").mkdir(parents=True)
    (ws / "cycles" / "cycle-001" / "eval.json").write_text("{}")
    ev = {"student": {"mc_accuracy": 0.5, "mc_chance": 0.25, "model": "s"}}
    Store(ws / "jupiter.sqlite").mark_stage(1, "eval", ev)

    def no_run(*a: object, **k: object) -> None:
        raise AssertionError("a finished arm was run again")

    monkeypatch.setattr(expert.subprocess, "run", no_run)
    got = expert.run_domain(path, tmp_path, quick=True, reuse=True)
    assert got["seconds"] == 0.0 and got["name"] == "python-gemma-baseline-quick"
    assert [c["eval"] for c in got["cycles"]] == [ev]
    # without --reuse the same arm runs (here: the patched subprocess says so)
    with pytest.raises(AssertionError, match="run again"):
        expert.run_domain(path, tmp_path, quick=True, reuse=False)


def test_shipped_expert_yaml_is_the_measured_command(expert: ModuleType, tmp_path: Path) -> None:
    """config/domains/python-gemma-expert.yaml, run as a user runs it (no --quick), trains,
    reads and evaluates as the pre-registered wider-corpus run did (the recipe2 arm of
    `expert.py --quick` with the command's --set values; docs/BENCHMARKS.md)."""
    shipped = load_domain("python-gemma-expert")
    stdlib = shipped.sources[0].modules
    sets = [
        "train.max_steps=null",
        "train.epochs=1",
        "train.lr=2e-4",
        "train.min_lr=2e-5",
        "train.replay.fraction=0.2",
        "train.replay.samples=128",
        "train.replay.loss=kl",
        "train.eval_every=250",
        "train.checkpoint_every=50",
        "quick.max_examples=null",
        "quick.sources="
        + str(
            [{"type": "python_stdlib", "topics": True, "docstrings": True, "modules": list(stdlib)}]
        ),
    ]
    path = expert.arm_yaml("python", "recipe2", tmp_path, None, 24, sets)
    measured = load_domain(str(path), quick=True)
    assert len(stdlib) == 40 and {"json", "subprocess", "copy"} <= set(stdlib)
    for section in ("sources", "chunking", "generator", "filters", "train", "promotion"):
        assert getattr(shipped, section) == getattr(measured, section), section
    assert shipped.model.base == measured.model.base and shipped.cycles == measured.cycles == 1
    assert shipped.max_examples is None and measured.max_examples is None
    for key in ("max_new_tokens", "max_items", "heldout_max_bytes", "general_max_bytes"):
        assert getattr(shipped.eval, key) == getattr(measured.eval, key), key
    assert shipped.resolve(shipped.eval.user_exam_path) == measured.resolve(
        measured.eval.user_exam_path
    )
    assert shipped.train.epochs == 1 and shipped.train.replay.loss == "kl"
    assert shipped.finetune_defaulted == []
