"""One training plan for every launcher: the local torch loop, torchrun,
the MLX loop and cluster islands count steps, epochs and tokens by the same rules; what
differs is noted with its reason; the loaded config is never changed by a run; a plain
`jupiter train` does not read cluster.yaml."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from transformers import LlamaConfig

from jupiter.cluster import protocol as P
from jupiter.cluster.island import IslandSpec, island_run
from jupiter.cluster.launch import ClusterRun, cluster_plan, run_plan, upload_spec
from jupiter.cluster.syncstore import SyncStore
from jupiter.config import ClusterConfig, TrainConfig
from jupiter.data.dataset import PackedDataset
from jupiter.data.tokenizer import train_tokenizer
from jupiter.train import mlx_setup
from jupiter.train.loop import TrainRun, start
from jupiter.train.plan import DataSize, Overrides, TrainPlan, auto_epochs, plan_training

CTX = 16


def dataset(n: int) -> PackedDataset:
    """n sequences of 12 tokens: one per row of 16 (a sequence is never split)."""
    seqs = [([i % 50 + 3] * 12, [i % 50 + 3] * 12) for i in range(n)]
    return PackedDataset(seqs, context_length=CTX, pad_id=0, seed=3)


def tiny(vocab: int = 64) -> LlamaConfig:
    return LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=CTX,
        tie_word_embeddings=True,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )


def launchers(cfg: TrainConfig, data: PackedDataset, micro: int) -> dict[str, TrainPlan]:
    """The plan of every launcher for one config and data set: one process, torchrun with
    2 processes, the MLX loop, and a cluster of 2 one-process islands."""
    size = DataSize.of(data)
    explicit = cfg.model_copy(update={"micro_batch_size": micro, "gradient_checkpointing": False})
    mlx = mlx_setup.make_plan(explicit, data, None, None, 1, None).steps  # type: ignore[arg-type]
    return {
        "local": plan_training(cfg, size, micro_batch=micro),
        "torchrun": plan_training(cfg, size, micro_batch=micro, world=2, launcher="torchrun"),
        "mlx": mlx,
        "cluster": cluster_plan(explicit, size, n_islands=2, ranks=1),
    }


@pytest.mark.parametrize("n", [400, 2_400])
def test_auto_epochs_agree_on_every_launcher(n: int) -> None:
    """epochs: auto is 5 passes below 1k examples and 4 below 10k everywhere (the cluster
    counted 1 before); every launcher takes those passes' tokens, to a step's rounding."""
    data = dataset(n)
    assert data.num_rows == n  # one sequence a row: the arithmetic below is exact
    cfg = TrainConfig(epochs="auto", micro_batch_size=4, grad_accum=2)
    plans = launchers(cfg, data, micro=4)
    epochs = auto_epochs(n)
    assert epochs == (5 if n < 1_000 else 4)
    assert plans["local"].max_steps == math.ceil(epochs * (n // 4) / 2)
    assert plans["mlx"] == replace(plans["local"], launcher="mlx")
    for name, plan in plans.items():
        assert plan.epochs == pytest.approx(epochs, rel=0.02), name
        want = epochs * n * CTX
        assert abs(plan.total_tokens - want) <= plan.tokens_per_step * plan.islands, name
        assert plan.notes == (), name
    # the same steps per process on 2 processes or 2 islands: half the single process's
    assert plans["torchrun"].max_steps == plans["cluster"].max_steps
    assert plans["cluster"].max_steps == math.ceil(epochs * (n // 2 // 4) / 2)


def test_explicit_max_steps_is_the_same_everywhere_and_the_tokens_are_noted() -> None:
    data = dataset(400)
    plans = launchers(TrainConfig(max_steps=7, micro_batch_size=4), data, micro=4)
    assert {p.max_steps for p in plans.values()} == {7}
    assert plans["local"].notes == plans["mlx"].notes == ()
    for name in ("torchrun", "cluster"):
        assert plans[name].total_tokens == 2 * plans["local"].total_tokens
    (note,) = plans["torchrun"].notes
    assert "counts optimizer steps: 2 processes take 2× the tokens of one process" in note
    (note,) = plans["cluster"].notes
    assert "2 islands, each on its own shard, take 2× the tokens of one process" in note
    # with a global batch the processes take the same tokens, and nothing needs saying; the
    # islands each take the global batch a step
    gbs = launchers(TrainConfig(max_steps=7, micro_batch_size=2, global_batch_size=8), data, 2)
    one = 7 * 8 * CTX
    assert [gbs[n].total_tokens for n in ("local", "torchrun", "mlx")] == [one] * 3
    assert gbs["torchrun"].grad_accum == 2 and gbs["local"].grad_accum == 4
    assert gbs["torchrun"].notes == () and gbs["cluster"].total_tokens == 2 * one
    assert "take 2× the tokens" in gbs["cluster"].notes[0]


def test_auto_micro_batch_on_the_cluster_is_counted_and_said() -> None:
    """The driver cannot measure its islands' memory with the model loaded: it counts an
    auto micro-batch as 8, and says so (with a global batch the count does not depend on
    it, and nothing is said)."""
    size = DataSize.of(dataset(2_400))
    plan = cluster_plan(TrainConfig(epochs=2), size, n_islands=2, ranks=1)
    assert plan.micro_batch == 8 and plan.max_steps == math.ceil(2 * (1_200 // 8))
    (note,) = plan.notes
    assert "micro_batch_size auto" in note and "tokens per step" in note
    fixed = cluster_plan(TrainConfig(epochs=2, global_batch_size=12), size, 2, ranks=2)
    assert fixed.global_batch == 12 and fixed.micro_batch == 2 and fixed.notes == ()
    assert fixed.max_steps == 2 * (1_200 // 4) // 3


def test_a_curriculum_level_sets_the_length_on_every_launcher() -> None:
    """A level's epochs / max_steps replace train:'s (a level without max_steps trains by
    its epochs even when train.max_steps is set), in the run's overrides on every launcher;
    the config stays as loaded."""
    from jupiter.config import CurriculumLevel
    from jupiter.improve.training import level_overrides

    data = dataset(400)
    cfg = TrainConfig(max_steps=99, micro_batch_size=4, lr=1e-3)
    before = cfg.model_dump()
    level = CurriculumLevel(name="basics", datasets=["queue"], epochs=2, lr=5e-4)
    over = level_overrides(Overrides(), level)
    assert (over.epochs, over.max_steps, over.lr) == (2, None, 5e-4)
    size = DataSize.of(data)
    local = plan_training(cfg, size, micro_batch=4, over=over)
    assert local.max_steps == 2 * 400 // 4 and local.epochs == 2
    assert local.notes == (
        "curriculum level basics: epochs 2, lr 0.0005 (the level's, over train:)",
    )
    explicit = cfg.model_copy(update={"gradient_checkpointing": False})
    mlx = mlx_setup.make_plan(explicit, data, None, None, 1, None, over).steps  # type: ignore[arg-type]
    assert mlx == replace(local, launcher="mlx")
    cluster = cluster_plan(cfg, size, n_islands=2, ranks=1, over=over)
    assert cluster.epochs == 2 and cluster.max_steps == 2 * 200 // 4
    assert cluster.total_tokens == local.total_tokens
    short = level_overrides(Overrides(), CurriculumLevel(name="x", datasets=["queue"], max_steps=3))
    assert plan_training(cfg, size, micro_batch=4, over=short).max_steps == 3
    assert cfg.model_dump() == before


def test_global_batch_must_divide() -> None:
    from jupiter.errors import JupiterError

    with pytest.raises(JupiterError, match="global_batch_size 10 is not a multiple"):
        plan_training(TrainConfig(global_batch_size=10), DataSize(100, 100, CTX), micro_batch=4)


def test_the_local_loop_plans_by_the_pure_function_and_leaves_the_config(tmp_path: Path) -> None:
    data = dataset(400)
    tok = tmp_path / "tok"
    train_tokenizer(["some text for a tokenizer"] * 20, 80, tok)
    cfg = TrainConfig(
        epochs="auto",
        micro_batch_size=4,
        grad_accum=2,
        precision="fp16",
        metrics=[],
        resume="never",
    )
    before = cfg.model_dump()
    over = Overrides(precision="fp32", budget=3, lr=1e-2, reasons=("budget 3: a test's",))
    run = TrainRun(
        data,
        cfg,
        tmp_path / "out",
        tok,
        model_config=tiny(),
        device="cpu",
        progress=False,
        overrides=over,
    )
    state = start(run)
    assert cfg.model_dump() == before and run.config is cfg
    assert state.plan.amp is None  # the run's precision (fp32), not the config's fp16
    assert state.plan.max_steps == 3 and state.plan.steps.notes == ("budget 3: a test's",)
    assert state.optimizer.param_groups[0]["lr"] == 1e-2 and run.lr == 1e-2  # not cfg.lr
    plain = start(
        TrainRun(
            data, cfg, tmp_path / "out2", tok, model_config=tiny(), device="cpu", progress=False
        )
    )
    assert plain.plan.steps == plan_training(cfg, DataSize.of(data), micro_batch=4)
    assert cfg.model_dump() == before


def two_islands(store: Path) -> ClusterConfig:
    nodes = [
        {
            "host": "localhost",
            "name": f"{n}-node",
            "device_type": "cpu",
            "backend": "torch",
            "processes": 1,
            "island": n,
            "memory_gb": 8,
        }
        for n in ("a", "b")
    ]
    return ClusterConfig.model_validate(
        {"nodes": nodes, "sync": {"store": str(store), "inner_steps": 5}}
    )


def test_islands_get_their_figures_in_the_run_not_the_config(tmp_path: Path) -> None:
    tok = tmp_path / "tok"
    train_tokenizer(["some text for a tokenizer"] * 20, 80, tok)
    cfg = TrainConfig(epochs="auto", micro_batch_size=4, resume="never", metrics=[])
    before = cfg.model_dump()
    run = TrainRun(dataset(400), cfg, tmp_path / "run", tok, model_config=tiny(), progress=False)
    cr = ClusterRun(run, two_islands(tmp_path / "sync"), str(tmp_path / "sync"), tmp_path / "w")
    plan = run_plan(cr)
    # the local rules: 400 examples, 5 epochs over each island's 200 rows in batches of 4
    assert plan["train_plan"]["max_steps"] == 5 * 200 // 4 == 250
    assert plan["train_plan"]["epochs"] == 5 and plan["rounds"] == 50
    store = SyncStore(str(tmp_path / "sync"))
    upload_spec(cr, store)
    assert store.get_json(P.PLAN)["train_plan"] == plan["train_plan"]
    island, _ = island_run(IslandSpec(str(tmp_path / "sync"), "b", tmp_path / "w"), store)
    assert island.config.model_dump() == before  # max_steps and resume are the run's
    assert island.overrides.budget == 250 and island.resume == "auto" and island.resumes
    assert "the cluster's, 50 rounds × 5 inner steps" in island.overrides.reasons[-1]
    assert island.dataset.num_rows == 200
    assert cfg.model_dump() == before


def test_a_plain_train_does_not_read_cluster_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jupiter.config
    import jupiter.config.loader
    from jupiter.improve import trainrun
    from jupiter.improve.workspace import Workspace
    from jupiter.train import trainer

    opened: list[str] = []
    real_is_file = Path.is_file

    def spy(self: Path) -> bool:
        if self.name == "cluster.yaml":
            opened.append(str(self))
        return real_is_file(self)

    def refuse(*a: Any, **k: Any) -> Any:
        raise AssertionError("a plain train read cluster.yaml")

    monkeypatch.setattr(Path, "is_file", spy)
    monkeypatch.setattr(jupiter.config, "load_cluster", refuse)
    monkeypatch.setattr(jupiter.config.loader, "load_cluster", refuse)
    ran: list[TrainRun] = []
    monkeypatch.setattr(trainer, "train", lambda run, on_step=None: ran.append(run) or "done")

    class Cfg:  # what run_training and run_fields read of the domain config
        class model:  # noqa: N801
            attention = "auto"

    ws = Workspace(Cfg())  # type: ignore[arg-type]
    run = TrainRun(
        dataset(10),
        TrainConfig(),
        tmp_path,
        tmp_path,
        model_config=tiny(),
        **trainrun.run_fields(ws),
    )
    assert trainrun.run_training(ws, 1, run) == "done" and ran == [run]
    assert trainrun.node_memory_gb() is None and trainrun.local_engine() == "torch"
    assert opened == []


def test_more_fragments_than_rounds_is_refused(tmp_path: Path) -> None:
    from jupiter.errors import JupiterError

    tok = tmp_path / "tok"
    train_tokenizer(["some text for a tokenizer"] * 20, 80, tok)
    cfg = TrainConfig(max_steps=20, micro_batch_size=4, resume="never", metrics=[])
    run = TrainRun(dataset(400), cfg, tmp_path / "run", tok, model_config=tiny(), progress=False)
    cluster = two_islands(tmp_path / "sync")
    cluster = cluster.model_copy(update={"sync": cluster.sync.model_copy(update={"fragments": 5})})
    cr = ClusterRun(run, cluster, str(tmp_path / "sync"), tmp_path / "w")
    with pytest.raises(JupiterError, match="sync.fragments 5 is more than the run's 4 rounds"):
        run_plan(cr)
    ok = cluster.model_copy(update={"sync": cluster.sync.model_copy(update={"fragments": 4})})
    assert run_plan(ClusterRun(run, ok, str(tmp_path / "sync"), tmp_path / "w"))["rounds"] == 4
