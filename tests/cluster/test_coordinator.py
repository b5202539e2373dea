"""The coordinator's round logic on a real directory store, with contributions written by
the test: who is waited for, the deadline, the record of a closed round, speed-aware H and
one outer step."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import torch

from jupiter.cluster import protocol as P
from jupiter.cluster.codec import encode
from jupiter.cluster.coordinator import Coordinator, Round
from jupiter.cluster.syncstore import SyncStore
from jupiter.config import SyncConfig

NAMES = ["fast", "slow", "gone"]


def make(tmp_path: Path, **sync: object) -> Coordinator:
    store = SyncStore(str(tmp_path / "store"))
    settings = SyncConfig(**{"heartbeat_s": 0.5, "round_timeout_s": 2.0, **sync})  # type: ignore[arg-type]
    store.put_json(
        P.PLAN,
        {
            "rounds": 3,
            "sync": settings.model_dump(mode="json"),
            "islands": [{"name": n, "engine": "torch"} for n in NAMES],
        },
    )
    return Coordinator(store, tmp_path / "work", poll_s=0.05)


def contribute(
    c: Coordinator,
    rnd: int,
    name: str,
    pg: torch.Tensor,
    tokens: int = 100,
    tps: float = 1000.0,
    dtype: str = "bf16",
    **extra: object,
) -> None:
    info = {
        "island": name,
        "round": rnd,
        "steps": 4,
        "tokens": tokens,
        "train_s": 1.0,
        "tokens_per_s": tps,
        "loss": 1.0,
        "wait_s": 0.5,
        "digest": "d",
        "step": 4,
        **extra,
    }
    blob = encode({"w": pg}, dtype, {"info": json.dumps(info)})  # type: ignore[arg-type]
    c.store.put(P.contribution_key(rnd, name), blob)


def beat(c: Coordinator, name: str, age: float = 0.0) -> None:
    c.store.put_json(P.heartbeat(name), {"time": time.time() - age, "round": 0, "step": 0})


def round0() -> Round:
    return Round(0, {"w": torch.ones(4)}, {}, {"inner_steps": {}}, time.time())


def test_live_islands_are_waited_for_and_dead_ones_are_not(tmp_path: Path) -> None:
    c = make(tmp_path)
    c.started -= 10  # past the start-up grace: an island without heartbeat counts as down
    beat(c, "fast")
    beat(c, "gone", age=60)  # stale: down
    contribute(c, 0, "fast", torch.zeros(4))
    t0 = time.time()
    assert c.collect(round0()) == ["fast"]  # slow never beat, gone is stale: nobody to wait for
    assert time.time() - t0 < 1.0
    assert c.store.get_json(P.closed_key(0)) == {"islands": ["fast"]}


def test_a_live_but_late_island_is_skipped_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("jupiter.cluster.coordinator.WAIT_LOG_S", 0.5)
    c = make(tmp_path)
    for n in NAMES:
        beat(c, n)
    contribute(c, 0, "fast", torch.zeros(4))
    contribute(c, 0, "gone", torch.zeros(4))
    import threading

    stop = threading.Event()

    def keep_alive() -> None:  # slow keeps beating but never sends
        while not stop.wait(0.2):
            beat(c, "slow")

    t = threading.Thread(target=keep_alive)
    t.start()
    t0 = time.time()
    try:
        names = c.collect(round0())
    finally:
        stop.set()
        t.join()
    assert names == ["fast", "gone"]
    assert 1.8 < time.time() - t0 < 4.0  # the 2 s deadline
    # while it waited, the stalled round said on whom and why (a fresh heartbeat)
    err = capsys.readouterr().err
    assert "round 0 has ['fast', 'gone']; waiting for slow (heartbeat " in err
    assert 1 <= err.count("waiting for slow") <= 4  # every 0.5 s of the 2 s (fewer on a busy host)
    assert "deadline passed; skipping ['slow']" in err


def test_liveness_is_judged_by_the_heartbeat_changing_not_by_the_clocks(tmp_path: Path) -> None:
    """An island's clock may be ahead of the coordinator's (or the host's stepped back): a
    stamp from the future that stops changing is stale three beats (1.5 s) after it was
    first seen; one from the past that keeps changing is alive."""
    c = make(tmp_path)
    beat(c, "fast", age=-120)  # two minutes ahead, then dead
    beat(c, "slow", age=30)  # half a minute behind, beating
    t0 = time.monotonic()
    assert c.alive("fast", time.time())
    assert not c.alive("slow", time.time())  # first seen 30 s old: stale until it changes
    while time.monotonic() - t0 < 1.7:
        beat(c, "slow", age=30 - (time.monotonic() - t0))
        assert c.alive("slow", time.time())
        time.sleep(0.2)
    assert not c.alive("fast", time.time())
    assert c.beat_age("fast", time.time()) >= 1.5  # counted from its first sight, not its stamp


def test_a_closed_round_is_taken_as_recorded(tmp_path: Path) -> None:
    c = make(tmp_path)
    c.store.put_json(P.closed_key(0), {"islands": ["slow"]})
    contribute(c, 0, "fast", torch.zeros(4))  # arrived after the round closed: not taken
    assert c.collect(round0()) == ["slow"]


def test_outer_step_token_weighted_mean_and_nesterov(tmp_path: Path) -> None:
    c = make(tmp_path)
    contribute(c, 0, "fast", torch.full((4,), 1.0), tokens=300)
    contribute(c, 0, "slow", torch.full((4,), -1.0), tokens=100)
    nxt, row = c.step(round0(), ["fast", "slow"])
    delta = 0.5  # (300 x 1 - 100 x 1) / 400, exact in bf16
    # Nesterov, first step: v = g; update = g + 0.9 v; w = 1 - 0.7 x 1.9 x delta
    assert torch.allclose(nxt.weights["w"], torch.full((4,), 1 - 0.7 * 1.9 * delta))
    assert torch.allclose(nxt.momentum["w"], torch.full((4,), delta))
    assert row["bytes_up"] > 0 and row["skipped"] == ["gone"]
    assert row["allreduce_bytes"] == 4 * 2 * 2 * 4 * 4  # steps x 2(k-1) x 4 bytes x params


def test_average_is_plain_weight_averaging(tmp_path: Path) -> None:
    c = make(tmp_path, outer="average")
    contribute(c, 0, "fast", torch.full((4,), 0.5))  # local = 0.5
    contribute(c, 0, "slow", torch.full((4,), -1.0))  # local = 2.0
    nxt, _ = c.step(round0(), ["fast", "slow"])
    assert torch.equal(nxt.weights["w"], torch.full((4,), 1.25)) and nxt.momentum == {}


def test_speed_aware_inner_steps(tmp_path: Path) -> None:
    c = make(tmp_path, speed_aware=True, inner_steps=40)
    contribute(c, 0, "fast", torch.zeros(4), tps=3000.0)
    contribute(c, 0, "slow", torch.zeros(4), tps=1000.0)
    nxt, _ = c.step(round0(), ["fast", "slow"])
    assert nxt.plan["inner_steps"] == {"fast": 60, "slow": 20, "gone": 40}
    plain = make(tmp_path / "plain")
    contribute(plain, 0, "fast", torch.zeros(4), tps=3000.0)
    assert plain.step(round0(), ["fast"])[0].plan["inner_steps"]["fast"] == 50


def test_a_nan_contribution_is_rejected_and_the_round_goes_on(tmp_path: Path) -> None:
    c = make(tmp_path, aggregate="median")
    contribute(c, 0, "fast", torch.full((4,), 0.25))
    contribute(c, 0, "slow", torch.full((4,), float("nan")))
    nxt, row = c.step(round0(), ["fast", "slow"])
    assert row["rejected"] == {"slow": "non_finite"}
    assert torch.isfinite(nxt.weights["w"]).all()


@pytest.mark.parametrize("aggregate", ["mean", "median"])
def test_nothing_usable_changes_nothing(tmp_path: Path, aggregate: str) -> None:
    c = make(tmp_path, aggregate=aggregate)
    contribute(c, 0, "slow", torch.full((4,), float("nan")))
    nxt, _ = c.step(round0(), ["slow"])
    assert torch.equal(nxt.weights["w"], torch.ones(4)) and nxt.index == 1


def test_the_round_schedule_follows_the_run_not_the_island_step_count() -> None:
    """Every island takes the same stretch of the nominal lr schedule (rounds x H) in a
    round: H steps one to one, 2H steps (speed-aware) at half pace, and an island that
    missed rounds where the others are."""
    from jupiter.cluster.island import round_schedule
    from jupiter.config import TrainConfig
    from jupiter.train.schedule import lr_at

    cfg = TrainConfig(lr=1e-3, min_lr=1e-4, warmup_steps=10)
    plan = {"rounds": 4, "sync": {"inner_steps": 50}}

    def nominal(x: float) -> float:
        return lr_at(x, 200, 1e-3, 1e-4, 10)

    even = round_schedule(cfg, plan, 1, 50, 50)
    assert [even(s) for s in range(50, 100)] == [nominal(s) for s in range(50, 100)]
    fast = round_schedule(cfg, plan, 1, 50, 100)  # twice the steps, same stretch
    assert [fast(50 + 2 * j) for j in range(50)] == [nominal(50 + j) for j in range(50)]
    assert nominal(99) > fast(149) > nominal(100)  # its last step: nominal 99.5
    late = round_schedule(cfg, plan, 3, 20, 50)  # 20 steps done, rejoining at round 3
    assert late(20) == nominal(150) and late(69) == nominal(199)
    assert late(20) < lr_at(20, 200, 1e-3, 1e-4, 10)  # not its own step's (higher) lr


def test_quantized_rounds_send_integers_up_and_the_change_down(tmp_path: Path) -> None:
    """sync.dtype int8 up, sync.down_dtype int4 down: the coordinator publishes the round's
    change quantized beside the full weights, and defines the next weights as the old plus
    exactly that change, which an island holding the old weights rebuilds bit for bit; one
    that holds other weights reads them whole."""
    from jupiter.cluster.codec import decode, weights_digest
    from jupiter.cluster.island import Held, fetch_global

    c = make(tmp_path, outer="average", dtype="int8", down_dtype="int4")
    torch.manual_seed(0)
    old = {"w": torch.randn(3000) * 0.01}
    first = Round(0, old, {}, {"inner_steps": {}}, time.time())
    c.publish(first)
    exact = torch.randn(3000) * 1e-3
    for name in ("fast", "slow"):
        contribute(c, 0, name, -exact, dtype="int8")
        assert len(c.store.get(P.contribution_key(0, name))) < 3000 * 2  # integers, not bf16
    nxt, row = c.step(first, ["fast", "slow"])
    got = nxt.weights["w"] - old["w"]
    # int8 up then int4 down: within a group's int4 step (absmax / 7 / 2) of the exact mean
    assert (got - exact).abs().max() <= exact.abs().max() / 7
    assert not torch.equal(got, exact) and nxt.delta is not None
    c.publish(nxt)
    change, meta = decode(c.store.get(P.delta_key(1)))
    assert meta["base_digest"] == weights_digest(old) and meta["digest"] == weights_digest(
        nxt.weights
    )
    assert len(c.store.get(P.delta_key(1))) < len(c.store.get(P.global_key(1))) / 5
    weights, meta, fetched = fetch_global(c.store, 1, Held(old, weights_digest(old)))
    assert torch.equal(weights["w"], nxt.weights["w"]) and fetched == len(
        c.store.get(P.delta_key(1))
    )
    other = {"w": old["w"] + 1}
    weights, _, fetched = fetch_global(c.store, 1, Held(other, weights_digest(other)))
    assert torch.equal(weights["w"], nxt.weights["w"])
    assert fetched == len(c.store.get(P.global_key(1)))  # read whole
    weights, _, fetched = fetch_global(c.store, 1, None)  # a restarted island holds nothing
    assert fetched == len(c.store.get(P.global_key(1)))


def test_round_bytes_down_are_what_the_islands_read(tmp_path: Path) -> None:
    c = make(tmp_path, outer="average")
    contribute(c, 0, "fast", torch.zeros(4))
    contribute(c, 0, "slow", torch.zeros(4), down_bytes=7)
    _, row = c.step(round0(), ["fast", "slow"])
    assert row["bytes_down"] == 4 * 4 + 7  # fast: no figure, read the fp32 weights (4 x 4)


def test_an_island_that_built_round_0_itself_reads_nothing(tmp_path: Path) -> None:
    from jupiter.cluster.codec import weights_digest
    from jupiter.cluster.island import Held, fetch_global

    c = make(tmp_path)
    start = {"w": torch.arange(6, dtype=torch.float32)}
    c.publish(Round(0, start, {}, {"inner_steps": {"fast": 4}}, time.time()))
    latest = c.store.get_json(P.LATEST)
    assert latest["digest"] == weights_digest(start) and latest["plan"]["inner_steps"]["fast"] == 4
    same = Held({"w": start["w"].clone()}, weights_digest(start))
    weights, meta, fetched = fetch_global(c.store, 0, same, latest)
    assert fetched == 0 and torch.equal(weights["w"], start["w"]) and meta["digest"] == same.digest
    assert json.loads(meta["plan"]) == {"inner_steps": {"fast": 4}}
    weights["w"] += 1  # the island trains its copy, not the weights it holds
    assert torch.equal(same.weights["w"], start["w"])
    other = {"w": start["w"] + 1}
    weights, _, fetched = fetch_global(c.store, 0, Held(other, weights_digest(other)), latest)
    assert fetched == len(c.store.get(P.global_key(0))) and torch.equal(weights["w"], start["w"])


def test_a_rounds_weights_are_hashed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Publishing a round, its report row and the next round's quantized change all name the
    round's digest: it is taken once per round, not once per use (a full model's weights
    take seconds to hash)."""
    from jupiter.cluster import coordinator as coord_mod

    calls: list[int] = []
    real = coord_mod.weights_digest

    def counting(tensors: dict[str, torch.Tensor]) -> str:
        calls.append(1)
        return real(tensors)

    monkeypatch.setattr(coord_mod, "weights_digest", counting)
    c = make(tmp_path, outer="average", dtype="int8", down_dtype="int8")
    first = Round(0, {"w": torch.zeros(256)}, {}, {"inner_steps": {}}, time.time())
    c.publish(first)
    for name in ("fast", "slow"):
        contribute(c, 0, name, torch.full((256,), -0.01), dtype="int8")
    nxt, row = c.step(first, ["fast", "slow"])
    c.publish(nxt)
    assert row["global_digest"] == first.digest == real(first.weights)
    assert len(calls) == 2  # round 0 once (publish, report, change), round 1 once (publish)


# ------------------------------------------------- Streaming DiLoCo and the outer lr
LAYERED = ["model.embed_tokens.weight", *(f"model.layers.{i}.mlp.w" for i in range(4))]


def test_fragments_are_strided_layers_and_the_last_round_syncs_all() -> None:
    assert [P.fragment_of(n, 2) for n in LAYERED] == [0, 0, 1, 0, 1]
    assert P.fragment_of("base_model.model.model.layers.7.self_attn.q_proj.lora_A.weight", 3) == 1
    sync = {"fragments": 2}
    assert P.synced_names(LAYERED, sync, 0, 5) == [LAYERED[0], LAYERED[1], LAYERED[3]]
    assert P.synced_names(LAYERED, sync, 1, 5) == [LAYERED[2], LAYERED[4]]
    assert P.synced_names(LAYERED, sync, 2, 5) == P.synced_names(LAYERED, sync, 0, 5)
    assert P.synced_names(LAYERED, sync, 4, 5) == LAYERED  # the last round: every fragment
    assert P.synced_names(LAYERED, {}, 1, 5) == LAYERED  # no fragments: all, every round


def test_outer_lr_schedules() -> None:
    sync = {"outer_lr": 0.8, "outer_min_lr": 0.2, "outer_lr_schedule": "constant"}
    assert [P.outer_lr_at(sync, r, 5) for r in range(5)] == [0.8] * 5
    cos = [P.outer_lr_at({**sync, "outer_lr_schedule": "cosine"}, r, 5) for r in range(5)]
    assert cos[0] == pytest.approx(0.8) and cos[2] == pytest.approx(0.5)
    assert cos[4] == pytest.approx(0.2) and cos[1] == pytest.approx(0.2 + 0.6 * 0.853553, 1e-5)
    lin = [P.outer_lr_at({**sync, "outer_lr_schedule": "linear"}, r, 5) for r in range(5)]
    assert lin == pytest.approx([0.8, 0.65, 0.5, 0.35, 0.2])


def test_an_outer_lr_schedule_needs_the_nesterov_step() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="needs outer: nesterov"):
        SyncConfig(outer="average", outer_lr_schedule="cosine")
    with pytest.raises(ValidationError, match="above outer_lr"):
        SyncConfig(outer_lr_schedule="linear", outer_lr=0.5, outer_min_lr=0.7)


def make_layered(tmp_path: Path, rounds: int, **sync: object) -> Coordinator:
    c = make(tmp_path, **sync)
    plan = c.store.get_json(P.PLAN)
    c.store.put_json(P.PLAN, {**plan, "rounds": rounds})
    return Coordinator(c.store, tmp_path / "work", poll_s=0.05)


def contribute_part(c: Coordinator, rnd: int, name: str, pg: dict[str, torch.Tensor]) -> None:
    info = {"island": name, "round": rnd, "steps": 4, "tokens": 100, "train_s": 1.0}
    info |= {"tokens_per_s": 1e3, "loss": 1.0, "wait_s": 0.0, "digest": "d", "step": 4}
    c.store.put(P.contribution_key(rnd, name), encode(pg, "fp32", {"info": json.dumps(info)}))


def test_a_fragment_round_steps_its_fragment_alone_and_sends_only_its_change(
    tmp_path: Path,
) -> None:
    """sync.fragments 2: round 0 takes fragment 0's pseudo-gradients, steps those weights
    and their momentum alone, and publishes their change (fp32) for the islands that hold
    the round's weights; a contribution of every weight at a fragment round is rejected.
    The outer lr follows its schedule round by round."""
    from jupiter.cluster.codec import decode, weights_digest
    from jupiter.cluster.island import Held, fetch_global

    c = make_layered(
        tmp_path, 3, fragments=2, outer_lr=0.8, outer_lr_schedule="linear", outer_min_lr=0.2
    )
    c.names = ["fast", "slow"]
    start = {n: torch.full((64,), float(i)) for i, n in enumerate(LAYERED)}
    first = Round(0, start, {}, {"inner_steps": {}}, time.time())
    c.publish(first)
    frag0 = P.synced_names(LAYERED, c.sync, 0, 3)
    contribute_part(c, 0, "fast", {n: torch.full((64,), 0.5) for n in frag0})
    contribute_part(c, 0, "slow", {n: torch.full((64,), 0.5) for n in LAYERED})  # all: wrong
    nxt, row = c.step(first, ["fast", "slow"])
    assert row["rejected"] == {"slow": "name_mismatch"} and row["synced"] == len(frag0)
    assert row["aggregate"]["outer_lr"] == pytest.approx(0.8)
    for i, n in enumerate(LAYERED):  # Nesterov's first step: 0.8 x 1.9 x 0.5 off the weights
        want = i - 0.8 * 1.9 * 0.5 if n in frag0 else float(i)
        assert torch.allclose(nxt.weights[n], torch.full((64,), want)), n
    assert set(nxt.momentum) == set(frag0)
    c.publish(nxt)
    change, meta = decode(c.store.get(P.delta_key(1)))
    assert set(change) == set(frag0) and meta["digest"] == weights_digest(nxt.weights)
    weights, _, fetched = fetch_global(c.store, 1, Held(start, weights_digest(start)))
    assert all(torch.equal(weights[n], nxt.weights[n]) for n in LAYERED)
    assert fetched < len(c.store.get(P.global_key(1))) * 0.7  # 3 of 5 tensors, not all
    # round 1: fragment 1, the momentum of fragment 0 carried untouched, lr halfway down
    frag1 = P.synced_names(LAYERED, c.sync, 1, 3)
    contribute_part(c, 1, "fast", {n: torch.full((64,), 1.0) for n in frag1})
    after, row = c.step(nxt, ["fast"])
    assert row["aggregate"]["outer_lr"] == pytest.approx(0.5) and row["synced"] == 2
    assert set(after.momentum) == set(LAYERED)
    assert all(torch.equal(after.momentum[n], nxt.momentum[n]) for n in frag0)
    assert all(torch.equal(after.weights[n], nxt.weights[n]) for n in frag0)
    # what an island that loaded fragment 0 at round 1's start should hold of it
    assert row["expected_digests"] == {"fast": nxt.digest}  # no loaded_round: all weights
    want = weights_digest({n: nxt.weights[n] for n in frag0})
    assert c.loaded_digest(nxt, 0) == want
    # the last round syncs every weight
    assert P.synced_names(LAYERED, c.sync, 2, 3) == LAYERED


def test_more_fragments_than_layers_is_refused(tmp_path: Path) -> None:
    from jupiter.errors import JupiterError

    c = make_layered(tmp_path, 3, fragments=5)
    c.initial_weights = lambda: {n: torch.zeros(2) for n in LAYERED}  # type: ignore[method-assign]
    with pytest.raises(JupiterError, match="sync.fragments 5 leaves a fragment empty.*4 layers"):
        c.first_round()
