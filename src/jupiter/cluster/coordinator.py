"""The outer loop's coordinator: `python -m jupiter.cluster.coordinator STORE WORKDIR`.

Round r: wait for the islands' pseudo-gradients (until every live island has sent one, or
the round's deadline), aggregate them (token-weighted mean, median, trimmed mean or Krum;
merge/), take an outer Nesterov step (DiLoCo, Douillard et al. 2023; `outer: average` is
plain averaging, outer SGD with lr 1) and publish round r+1's global weights.

Its state is the store itself: the global weights and outer momentum of every round and a
record of which contributions each round took, written before the round's result. Killed at
any point and restarted, it recomputes the same bytes and goes on from the newest round.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import torch

from jupiter.cluster import protocol as P
from jupiter.cluster.codec import decode, encode, weights_digest, with_metadata
from jupiter.cluster.syncstore import SyncStore
from jupiter.errors import JupiterError
from jupiter.merge.aggregate import Contribution, aggregate, check_contributions
from jupiter.merge.outer import outer_step
from jupiter.procs import quiet_libraries

WAIT_LOG_S = 30.0  # a round stalled this long says which islands it waits for

Weights = dict[str, torch.Tensor]


@dataclass
class Round:
    """What the coordinator holds between rounds."""

    index: int
    weights: Weights
    momentum: Weights
    plan: dict[str, Any]  # this round's inner steps per island
    published_at: float
    delta: bytes | None = None  # the weights' change from the last round (sync.down_dtype)

    @cached_property
    def digest(self) -> str:
        """The weights' digest, taken once: a round's weights are not changed after it is
        made, and publishing, the report and the next round's change all name it."""
        return weights_digest(self.weights)


@dataclass
class Coordinator:
    store: SyncStore
    workdir: Path
    poll_s: float = 0.2
    plan: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.time)
    evaluator: Any = None  # (run, state) of a world-1 torch model for the held-out loss
    # per island: (the heartbeat's last time stamp seen, when it was first seen on this
    # process's monotonic clock)
    beats: dict[str, tuple[float, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.plan = self.store.get_json(P.PLAN)
        self.sync = self.plan["sync"]
        self.names = [i["name"] for i in self.plan["islands"]]

    # ------------------------------------------------------------------- state
    def first_round(self) -> Round:
        """The newest published round, or round 0 from the model's initial weights."""
        if self.store.exists(P.LATEST):
            r = int(self.store.get_json(P.LATEST)["round"])
            weights, meta = decode(self.store.get(P.global_key(r)))
            momentum: Weights = {}
            if self.store.exists(P.momentum_key(r)):
                momentum = {
                    n: t.float() for n, t in decode(self.store.get(P.momentum_key(r)))[0].items()
                }
            plan = json.loads(meta["plan"])
            log(f"coordinator: resuming at round {r}")
            return Round(
                r,
                {n: t.float() for n, t in weights.items()},
                momentum,
                plan,
                float(meta["published_at"]),
            )
        weights = self.initial_weights()
        self.check_fragments(weights)
        rnd = Round(0, weights, {}, self.round_plan(None), time.time())
        self.publish(rnd)
        return rnd

    def check_fragments(self, weights: Weights) -> None:
        frags = int(self.sync.get("fragments", 1))
        if frags <= 1:
            return
        sizes = [0] * frags
        for name in weights:
            sizes[P.fragment_of(name, frags)] += 1
        if not all(sizes):
            layers = len({P.fragment_of(n, 1 << 30) for n in weights} - {0}) + 1
            raise JupiterError(
                f"sync.fragments {frags} leaves a fragment empty: the model has about {layers} "
                "layers to spread (layer i goes to fragment i mod F); lower sync.fragments"
            )

    def initial_weights(self) -> Weights:
        from jupiter.cluster.island import canonical
        from jupiter.train.loop import get_weights

        run, state = self.eval_state()
        del run
        return {canonical(n): w for n, w in get_weights(state).items()}

    def eval_state(self) -> tuple[Any, Any]:
        if self.evaluator is None:
            from jupiter.cluster.island import fetch_spec
            from jupiter.train.launch import read_spec
            from jupiter.train.loop import start

            run_json = fetch_spec(self.store, self.workdir / "spec")
            run = read_spec(run_json)
            run = replace(
                run,
                resume="never",
                tokenizer_dir=run_json.parent / "tokenizer",
                out_dir=self.workdir / "coordinator",
                progress=False,
            )
            self.evaluator = (run, start(run))
        return self.evaluator  # type: ignore[no-any-return]

    def publish(self, rnd: Round) -> None:
        """Momentum first, then the weights, then latest.json: a reader that sees a round
        finds everything it needs, and a crash leaves a round either whole or absent."""
        if rnd.momentum:
            self.store.put(P.momentum_key(rnd.index), encode(rnd.momentum, "fp32"))
        meta = {
            "plan": json.dumps(rnd.plan),
            "published_at": str(rnd.published_at),
            "digest": rnd.digest,
        }
        if rnd.delta is not None:  # before the full weights: readers of a round find both
            self.store.put(P.delta_key(rnd.index), with_metadata(rnd.delta, meta))
        self.store.put(P.global_key(rnd.index), encode(rnd.weights, "fp32", meta))
        done = rnd.index >= int(self.plan["rounds"])
        latest = {"round": rnd.index, "done": done, "digest": meta["digest"], "plan": rnd.plan}
        self.store.put_json(P.LATEST, latest)

    def round_plan(self, last: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
        """Inner steps per island; speed-aware: proportional to the island's last tokens/s,
        so all finish a round together (the mean stays H)."""
        h = int(self.sync["inner_steps"])
        steps = {name: h for name in self.names}
        if self.sync.get("speed_aware") and last:
            speeds = {n: i["tokens_per_s"] / max(1, i["step_tokens"]) for n, i in last.items()}
            mean = sum(speeds.values()) / len(speeds)
            for n, s in speeds.items():  # steps/s relative to the mean, within [H/4, 4H]
                steps[n] = max(max(1, h // 4), min(4 * h, round(h * s / mean)))
        return {"inner_steps": steps}

    # ------------------------------------------------------------------- rounds
    def alive(self, name: str, now: float) -> bool:
        """Live: a fresh heartbeat, or none yet while the run is young (still starting)."""
        if self.store.exists(P.error_key(name)):
            return False
        if not self.store.exists(P.heartbeat(name)):
            return now - self.started < float(self.sync["round_timeout_s"])
        return self.beat_age(name, now) < 3 * float(self.sync["heartbeat_s"])

    def beat_age(self, name: str, now: float) -> float:
        """Seconds since the island's heartbeat last changed, on this process's monotonic
        clock: another machine's clock (skewed, or stepped back by NTP) never makes a dead
        island look alive for longer than three beats. The first stamp seen counts from what
        it says (never from the future); each new one, from when it is seen."""
        stamp = float(self.store.get_json(P.heartbeat(name))["time"])
        mono = time.monotonic()
        seen = self.beats.get(name)
        if seen is None:  # as old as it says (a restarted coordinator's first look)
            seen = (stamp, mono - min(max(0.0, now - stamp), 1e6))
        elif seen[0] != stamp:  # it beat since the last look
            seen = (stamp, mono)
        self.beats[name] = seen
        return mono - seen[1]

    def collect(self, rnd: Round) -> list[str]:
        """Islands whose contribution round rnd takes: every live island's, or what came
        by the deadline (counted from the round's publication, or from a restart)."""
        if self.store.exists(P.closed_key(rnd.index)):
            return list(self.store.get_json(P.closed_key(rnd.index))["islands"])
        deadline = max(rnd.published_at, self.started) + float(self.sync["round_timeout_s"])
        # the deadline kept on the monotonic clock from here on: a clock stepped while the
        # round runs neither holds it open nor closes it early
        until = time.monotonic() + (deadline - time.time())
        said = time.time()
        while True:
            now = time.time()
            deadline = now + (until - time.monotonic())
            present = [n for n in self.names if self.store.exists(P.contribution_key(rnd.index, n))]
            waiting = [n for n in self.names if n not in present and self.alive(n, now)]
            if present and (not waiting or now > deadline):
                if waiting:
                    log(f"coordinator: round {rnd.index} deadline passed; skipping {waiting}")
                self.store.put_json(P.closed_key(rnd.index), {"islands": present})
                return present
            if present and now - said >= WAIT_LOG_S:  # a stalled round says what it waits on
                log(
                    f"coordinator: round {rnd.index} has {present}; waiting for "
                    + ", ".join(self.why_alive(n, now) for n in waiting)
                    + f" until the deadline in {deadline - now:.0f} s"
                )
                said = now
            time.sleep(self.poll_s)

    def why_alive(self, name: str, now: float) -> str:
        if not self.store.exists(P.heartbeat(name)):
            return (
                f"{name} (no heartbeat yet; the coordinator started {now - self.started:.0f} s ago)"
            )
        beat = self.store.get_json(P.heartbeat(name))
        return f"{name} (heartbeat {self.beat_age(name, now):.1f} s old, round {beat.get('round')})"

    def step(self, rnd: Round, names: list[str]) -> tuple[Round, dict[str, Any]]:
        contribs, infos, up = [], {}, 0
        for name in names:
            blob = self.store.get(P.contribution_key(rnd.index, name))
            up += len(blob)
            tensors, meta = decode(blob)
            info = json.loads(meta["info"])
            infos[name] = info
            contribs.append(
                Contribution(
                    name, {n: t.float() for n, t in tensors.items()}, float(info["tokens"])
                )
            )
        sync, rounds = self.sync, int(self.plan["rounds"])
        # the parameters this round syncs (a fragment of them with sync.fragments)
        part = {n: rnd.weights[n] for n in P.synced_names(rnd.weights, sync, rnd.index, rounds)}
        kept, rejected = check_contributions(contribs, part)
        lr, mu = (
            (1.0, 0.0)
            if sync["outer"] == "average"
            else (P.outer_lr_at(sync, rnd.index, rounds), sync["outer_momentum"])
        )
        weights, momentum = rnd.weights, rnd.momentum
        if kept:
            delta, agg_info = aggregate(
                kept,
                sync["aggregate"],
                sync["trim_fraction"],
                sync["byzantine"],
                reference=part,
            )
            new_w, new_v = outer_step(
                part, delta, {n: v for n, v in rnd.momentum.items() if n in part}, lr, mu, mu > 0
            )
            weights, momentum = {**rnd.weights, **new_w}, {**rnd.momentum, **new_v}
        else:  # nothing usable came: the round changes nothing
            agg_info = {"method": sync["aggregate"], "used": [], "selected": []}
        agg_info["outer_lr"] = lr
        weights, change = self.quantized_change(rnd, weights, list(part))
        agg_info["rejected"] = rejected
        last = {
            n: {**infos[n], "step_tokens": infos[n]["tokens"] / max(1, infos[n]["steps"])}
            for n in names
            if n not in rejected
        }
        nxt = Round(
            rnd.index + 1,
            weights,
            momentum if mu > 0 else {},
            self.round_plan(last),
            time.time(),
            change,
        )
        report = self.report_row(rnd, infos, rejected, agg_info, up)
        report["synced"] = "all" if len(part) == len(rnd.weights) else len(part)
        report["expected_digests"] = {
            n: self.loaded_digest(rnd, int(i.get("loaded_round", -1))) for n, i in infos.items()
        }
        return nxt, report

    def loaded_digest(self, rnd: Round, loaded_round: int) -> str:
        """The digest of what an island loaded at round rnd's start: every global weight
        (loaded_round -1), or the part round `loaded_round` synced (sync.fragments)."""
        if loaded_round < 0:
            return rnd.digest
        names = P.synced_names(rnd.weights, self.sync, loaded_round, int(self.plan["rounds"]))
        return weights_digest({n: rnd.weights[n] for n in names})

    def quantized_change(
        self, rnd: Round, new: Weights, names: list[str] | None = None
    ) -> tuple[Weights, bytes | None]:
        """With `sync.down_dtype` int8 / int4, or with fragments: the change from `rnd`'s
        weights to `new` over `names` (what the round synced), in that dtype, and the next
        global weights as those + that change, bit for bit what every island holding `rnd`'s
        weights computes from the payload (the rounding is not carried: the next round's
        pseudo-gradients are taken from these weights). Else (new, None)."""
        down = self.sync.get("down_dtype", "fp32")
        names = list(new) if names is None else names
        if down == "fp32" and len(names) == len(new):
            return new, None
        old = rnd.weights
        blob = encode({n: new[n] - old[n] for n in names}, down, {"base_digest": rnd.digest})
        change = decode(blob, "the round's change")[0]
        return {n: old[n] + change[n] if n in change else old[n] for n in new}, blob

    def report_row(
        self,
        rnd: Round,
        infos: dict[str, Any],
        rejected: dict[str, str],
        agg_info: dict[str, Any],
        up: int,
    ) -> dict[str, Any]:
        n_params = sum(w.numel() for w in rnd.weights.values())
        k = len(self.names)
        # what every contributor read at the round's start (the fp32 global weights, or the
        # quantized change); islands before down_bytes was reported read the fp32 weights
        down = sum(int(i.get("down_bytes", 4 * n_params)) for i in infos.values())
        mean_steps = sum(i["steps"] for i in infos.values()) / max(1, len(infos))
        # A ring all-reduce of fp32 gradients every step sends 2(k-1)/k of the model per
        # island, k islands: what syncing the islands every step instead would cost.
        allreduce = mean_steps * 2 * (k - 1) * 4 * n_params
        return {
            "round": rnd.index,
            "islands": sorted(infos),
            "rejected": rejected,
            "skipped": [n for n in self.names if n not in infos],
            "aggregate": agg_info,
            "bytes_up": up,
            "bytes_down": down,
            "bytes": up + down,
            "allreduce_bytes": allreduce,
            "reduction": allreduce / (up + down) if up + down else 0.0,
            "tokens_per_s": {n: i["tokens_per_s"] for n, i in infos.items()},
            "train_loss": {n: i["loss"] for n, i in infos.items()},
            "wait_s": {n: i["wait_s"] for n, i in infos.items()},
            "overlap_steps": {n: int(i.get("overlap_steps", 0)) for n, i in infos.items()},
            "digests": {n: i["digest"] for n, i in infos.items()},
            "global_digest": rnd.digest,
        }

    def heldout(self, weights: Weights) -> float | None:
        from jupiter.cluster.island import torch_name
        from jupiter.train.loop import heldout_loss, set_weights

        run, state = self.eval_state()
        set_weights(state, {torch_name(n, state.model): w for n, w in weights.items()})
        return heldout_loss(run, state)

    def run(self) -> Path:
        rounds = int(self.plan["rounds"])
        rnd = self.first_round()
        report_path = self.workdir / "cluster_report.jsonl"
        if not report_path.is_file():
            row0 = {"round": -1, "heldout_loss": self.heldout(rnd.weights), "time": time.time()}
            report_path.write_text(json.dumps(row0) + "\n", encoding="utf-8")
        while rnd.index < rounds:
            names = self.collect(rnd)
            nxt, row = self.step(rnd, names)
            row["heldout_loss"] = self.heldout(nxt.weights)
            row["time"] = time.time()
            # The row before the round's result: a crash in between writes it again on
            # restart (readers keep the last row of a round), never loses it.
            with report_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            self.publish(nxt)
            log(
                f"coordinator: round {rnd.index} → {nxt.index}: {row['islands']}"
                f" held-out loss {row['heldout_loss']}, {row['bytes']:,} bytes"
                f" ({row['reduction']:.0f}× less than all-reduce)"
            )
            rnd = nxt
        return self.write_final(rnd)

    def write_final(self, rnd: Round) -> Path:
        from jupiter.cluster.island import torch_name
        from jupiter.models.folder import save_model_dir
        from jupiter.train.loop import set_weights
        from jupiter.train.trainer import load_run_tokenizer

        run, state = self.eval_state()
        set_weights(state, {torch_name(n, state.model): w for n, w in rnd.weights.items()})
        final = self.workdir / "final"
        save_model_dir(final, state.model, load_run_tokenizer(run.tokenizer_dir), checksum=True)
        return final


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m jupiter.cluster.coordinator STORE WORKDIR", file=sys.stderr)
        return 2
    quiet_libraries()
    workdir = Path(argv[1])
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        final = Coordinator(SyncStore(argv[0]), workdir).run()
    except JupiterError as e:
        print(f"error: coordinator: {e}", file=sys.stderr)
        return 1
    log(f"coordinator: final model → {final}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
