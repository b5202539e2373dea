"""sync.overlap_steps in one island's round loop, in process: a scripted coordinator
publishes fixed global weights, a fake engine adds 1 to its weight per step. The steps an
island takes ahead must land on top of the next global weights, so every round's
pseudo-gradient holds all H steps: exactly -H."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from jupiter.cluster import island
from jupiter.cluster import protocol as P
from jupiter.cluster.codec import decode, encode, weights_digest
from jupiter.cluster.syncstore import SyncStore
from jupiter.config import TrainConfig

ROUNDS, H = 4, 5


class CountingEngine:
    """One weight; each inner step adds 1 to it."""

    rank, world, step_tokens = 0, 1, 8

    def __init__(self, out: Path) -> None:
        self.w = torch.full((3,), -7.0)
        self.step = 0
        self.max_steps = ROUNDS * H
        self.state = SimpleNamespace(lr_fn=None)
        self.run = SimpleNamespace(config=TrainConfig(), out_dir=out, lr=None)

    def broadcast(self, value: int) -> int:
        return value

    def get_weights(self) -> dict[str, torch.Tensor]:
        return {"w": self.w.clone()}

    def set_weights(self, weights: dict[str, torch.Tensor]) -> None:
        self.w = weights["w"].clone()

    def run_steps(self, k: int) -> list[float]:
        assert self.state.lr_fn is not None and self.step + k <= self.max_steps
        self.w += k
        self.step += k
        return [1.0] * k

    def save(self) -> None:
        pass


def coordinator(store: SyncStore, name: str) -> None:
    """Round r's global weight is 100 r; the next round is published once the island's
    contribution is in, then `done`."""
    plan = {"inner_steps": {name: H}}
    for r in range(ROUNDS):
        g = {"w": torch.full((3,), 100.0 * r)}
        meta = {"digest": weights_digest(g), "plan": json.dumps(plan)}
        store.put(P.global_key(r), encode(g, "fp32", meta))
        store.put_json(
            P.LATEST, {"round": r, "done": False, "digest": meta["digest"], "plan": plan}
        )
        for _ in range(3000):
            if store.exists(P.contribution_key(r, name)):
                break
            threading.Event().wait(0.01)
    store.put_json(P.LATEST, {"round": ROUNDS, "done": True, "digest": "", "plan": plan})


@pytest.mark.parametrize("tau", [0, 2])
def test_steps_ahead_land_on_the_next_global_weights(tmp_path: Path, tau: int) -> None:
    store = SyncStore(str(tmp_path / "sync"))
    spec = island.IslandSpec(str(tmp_path / "sync"), "a", tmp_path)
    engine = CountingEngine(tmp_path / "a")
    (tmp_path / "a").mkdir()
    plan = {
        "rounds": ROUNDS,
        "sync": {"inner_steps": H, "fragments": 1, "overlap_steps": tau, "dtype": "fp32"},
    }
    boss = threading.Thread(target=coordinator, args=(store, "a"), daemon=True)
    boss.start()
    island.run_rounds(spec, store, engine, plan, None)  # type: ignore[arg-type]
    boss.join(5)
    infos, pgs = [], []
    for r in range(ROUNDS):
        pg, meta = decode(store.get(P.contribution_key(r, "a")))
        infos.append(json.loads(meta["info"]))
        pgs.append(pg["w"])
    assert all(torch.equal(pg, torch.full((3,), -float(H))) for pg in pgs), pgs
    assert [i["steps"] for i in infos] == [H] * ROUNDS
    assert [i["overlap_steps"] for i in infos] == [0] + [tau] * (ROUNDS - 1)
    # the last round is not overlapped: the island ends on the last global weights + H
    assert engine.step == ROUNDS * H and torch.equal(engine.w, torch.full((3,), 100.0 * 3 + H))
