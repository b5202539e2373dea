"""The ServerApp's work, in the flwr-serverapp process: the global model from the server's
domain (its model.base, train.method and LoRA shape), rounds of JupiterStrategy with a
straggler policy, the ε check before each round, the global model saved after each round
(model/: an HF dir or adapter, with federated.json) and evaluated on the server's eval set
when it has one."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from flwr.app import ArrayRecord, ConfigRecord, Message
from flwr.serverapp import Grid
from rich.console import Console

from jupiter import atomic
from jupiter.errors import JupiterError
from jupiter.federated import privacy
from jupiter.federated.spec import METHODS, RunSpec, check_federated
from jupiter.federated.strategy import JupiterStrategy
from jupiter.federated.weights import digest, fingerprint, load_into, trainable

MAX_SKIPPED = 3  # rounds in a row without enough replies before the run gives up
POLL_S = 0.5


class Log:
    """server.log in the run dir (and stdout, which Flower keeps in the SuperLink's log)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, line: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        with self.path.open("a", encoding="utf-8") as f:
            f.write(f"{stamp} {line}\n")
        print(line, flush=True)


def write_record(path: Path, record: dict[str, Any]) -> None:
    atomic.write_text(path, json.dumps(record, indent=1, default=str))


def serve(grid: Grid, spec_path: Path) -> None:
    """Run the federation of spec.json; federated.json says how it ended, even on error."""
    spec = RunSpec.load(spec_path)
    os.environ["JUPITER_HOME"] = spec.home
    out = Path(spec.out)
    log = Log(out / "server.log")
    record: dict[str, Any] = {"status": "starting", "rounds": []}
    try:
        Federation(grid, spec, record, log).run()
    except Exception as err:  # the CLI shows the one line; the traceback is in the logs
        text = str(err) if isinstance(err, JupiterError) else f"{type(err).__name__}: {err}"
        record.update(status="failed", error=text, finished=time.time())
        write_record(out / "federated.json", record)
        log(f"error: {text}")
        raise


class Federation:
    """One run: the model the global weights live in, the strategy, the record."""

    def __init__(self, grid: Grid, spec: RunSpec, record: dict[str, Any], log: Log) -> None:
        from jupiter.config import load_domain
        from jupiter.improve.training import base_tokenizer
        from jupiter.improve.workspace import Workspace

        self.grid, self.spec, self.record, self.log = grid, spec, record, log
        self.out = Path(spec.out)
        console = Console(file=open(self.out / "server.log", "a"), width=200)  # noqa: SIM115
        self.ws = Workspace(
            load_domain(spec.domain, quick=spec.quick), quick=spec.quick, console=console
        )
        cfg = self.ws.cfg
        if not cfg.model.base:
            raise JupiterError(
                f"domain {cfg.name}: federated training needs model.base (one pretrained base "
                "every client holds too): set it in the YAML"
            )
        self.fed = check_federated(spec.config)
        self.base = self.ws.model(cfg.model.base)
        self.tok_dir, self.tokenizer = base_tokenizer(self.ws)
        self.model = self._build()
        self.strategy = JupiterStrategy(self.fed)
        self.validation = self._validation()

    def _build(self) -> Any:
        from jupiter.train import dist
        from jupiter.train.setup import build_model_for

        cfg = self.ws.cfg
        train = cfg.train.model_copy(update={"precision": "fp32"})
        return build_model_for(train, None, self.base, dist.init("cpu"), cfg.model.attention)

    def _validation(self) -> Any:
        """The server's eval set (MC items) and held-out text, or None without either."""
        from jupiter.improve.evalset import eval_items, heldout_texts
        from jupiter.merge.validation import ValidationData

        ws, cfg = self.ws, self.ws.cfg
        if not ws.has_store() and not cfg.eval.qa_path:
            self.log(
                "no eval set on the server (no workspace store, no eval.qa_path): the "
                "global model is saved but not evaluated"
            )
            return None
        try:
            _, mc, about = eval_items(ws)
        except JupiterError as err:
            self.log(f"no MC eval: {err}")
            mc, about = [], {}
        texts = heldout_texts(ws) if ws.has_store() else []
        if not mc and not texts:
            return None
        about = {"eval_set": about.get("path"), "n_mc": len(mc), "heldout_texts": len(texts)}
        return ValidationData(
            texts, mc, cfg.model.context_length, cfg.eval.heldout_max_bytes, about
        )

    # --------------------------------------------------------------------- plan
    def plan(self) -> dict[str, Any]:
        """What every client trains with, so that their weights add up: the server's method,
        LoRA shape, learning rate and local steps."""
        t = self.ws.cfg.train
        targets = t.lora.target_modules
        return {
            "local-steps": self.fed.local_steps,
            "rounds": self.fed.rounds,
            "method": t.method,
            "lr": t.lr,
            "min-lr": t.min_lr,
            "warmup-steps": t.warmup_steps,
            "lora-r": t.lora.r,
            "lora-alpha": t.lora.alpha,
            "lora-dropout": t.lora.dropout,
            "lora-targets": targets if isinstance(targets, str) else list(targets),
            "base-fingerprint": self.base_fp,
            "run": self.out.name,
        }

    def start_record(self) -> None:
        fed, strat = self.fed, self.strategy
        dp = fed.dp
        self.record.update(
            {
                "status": "running",
                "domain": self.ws.cfg.name,
                "base": str(self.base),
                "base_fingerprint": self.base_fp,
                "method": self.ws.cfg.train.method,
                "strategy": fed.strategy,
                "aggregation": f"jupiter.merge.aggregate:{METHODS[fed.strategy]}",
                "rounds_planned": fed.rounds,
                "rounds_done": 0,
                "local_steps": fed.local_steps,
                "min_clients": fed.min_clients,
                "min_results": fed.min_results,
                "population": strat.population,
                "clients_per_round": strat.per_round,
                "sample_rate": strat.sample_rate,
                "model": str(self.out / "model"),
                "started": time.time(),
                "validation": self.validation.about if self.validation else None,
            }
        )
        if dp.mode != "off":
            q = strat.sample_rate
            # ε after each planned round (the first thousand: a list, not a file, in the record)
            planned = privacy.epsilons(dp.noise_multiplier, q, min(fed.rounds, 1000), dp.delta)
            self.record["dp"] = {
                "mode": dp.mode,
                "noise_multiplier": dp.noise_multiplier,
                "clip_norm": dp.clip_norm,
                "delta": dp.delta,
                "epsilon_budget": dp.epsilon_budget,
                "sample_rate": q,
                "sampling": "poisson" if q < 1 else "every client",
                "noise_std_on_sum": dp.noise_multiplier * dp.clip_norm,
                "denominator": strat.per_round,
                "unit": "one client (all of its data)",
                "accountant": "dp_accounting RDP, add-or-remove-one-client",
                "epsilon_planned": planned,
                "epsilon": 0.0,
                "releases": 0,
            }
        write_record(self.out / "federated.json", self.record)

    # ------------------------------------------------------------------- rounds
    def run(self) -> None:
        self.base_fp = fingerprint(self.base)
        arrays = ArrayRecord(trainable(self.model))
        self.strategy.connect(self.grid, self.log)
        self.start_record()
        self.log(
            f"federation of {self.strategy.population} clients: {self.fed.rounds} rounds "
            f"of {self.fed.local_steps} local steps, {self.fed.strategy}"
        )
        skipped: list[str] = []
        for rnd in range(1, self.fed.rounds + 1):
            if self.over_budget(rnd):
                break
            arrays, reason = self.one_round(rnd, arrays)
            skipped = skipped + [reason] if reason else []
            if len(skipped) >= MAX_SKIPPED:
                raise JupiterError(
                    f"{MAX_SKIPPED} rounds in a row without enough replies; the last: {skipped[-1]}"
                )
        self.record.setdefault("stopped", "rounds")
        self.record.update(status="done", finished=time.time())
        write_record(self.out / "federated.json", self.record)
        self.log(f"done: {self.record['rounds_done']} rounds, global model in {self.out / 'model'}")

    def over_budget(self, rnd: int) -> bool:
        """True (and recorded) when the next release would take ε past the budget."""
        dp = self.fed.dp
        if dp.mode == "off" or dp.epsilon_budget is None:
            return False
        releases = self.record["dp"]["releases"]
        nxt = privacy.epsilon(
            dp.noise_multiplier, self.strategy.sample_rate, releases + 1, dp.delta
        )
        if nxt <= dp.epsilon_budget:
            return False
        msg = (
            f"stopped before round {rnd}: ε would reach {nxt:.4g} > budget "
            f"{dp.epsilon_budget:g} (δ={dp.delta:g})"
        )
        self.record.update(stopped="epsilon_budget", stop_reason=msg)
        self.record["dp"]["epsilon_next"] = nxt
        self.log(msg)
        return True

    def one_round(self, rnd: int, arrays: ArrayRecord) -> tuple[ArrayRecord, str]:
        """Train, collect, aggregate, save, evaluate; (the global weights, "" or why the
        round was skipped)."""
        t0 = time.time()
        strat = self.strategy
        messages = list(strat.configure_train(rnd, arrays, ConfigRecord(self.plan()), self.grid))
        sampled = [m.metadata.dst_node_id for m in messages]
        self.log(f"round {rnd}: {len(sampled)} clients asked")
        replies = self.collect(messages)
        new, _ = strat.aggregate_train(rnd, replies)
        info = dict(strat.last)
        row: dict[str, Any] = {"round": rnd, "sampled": [f"node-{n}" for n in sampled], **info}
        if new is None:
            row.update(skipped=True, seconds=round(time.time() - t0, 2))
            self.record["rounds"].append(row)
            write_record(self.out / "federated.json", self.record)
            self.log(f"round {rnd} skipped: {info['failed']}")
            return arrays, str(info["failed"])
        weights = new.to_torch_state_dict()
        row["digest"] = digest(weights)
        if self.fed.dp.mode != "off":
            dp = self.record["dp"]
            dp["releases"] += 1
            dp["epsilon"] = privacy.epsilon(
                self.fed.dp.noise_multiplier, strat.sample_rate, dp["releases"], self.fed.dp.delta
            )
            row["epsilon"] = dp["epsilon"]
        row["seconds"] = round(time.time() - t0, 2)
        self.record["rounds"].append(row)
        self.record["rounds_done"] = rnd
        load_into(self.model, weights)
        self.save()
        if self.validation is not None:
            row["eval"] = self.evaluate()
            write_record(self.out / "federated.json", self.record)
            write_record(self.out / "model" / "federated.json", self.record)
        eps = f", ε {row['epsilon']:.4g}" if "epsilon" in row else ""
        self.log(f"round {rnd}: {len(info['used'])} used, train loss {info['train_loss']:.4f}{eps}")
        return new, ""

    def collect(self, messages: list[Message]) -> list[Message]:
        """Replies until every asked client answered, or round_timeout_s, or
        straggler_wait_s after the min_results-th good reply (a dead client is only noticed
        by Flower after minutes: the round does not wait for it)."""
        fed = self.fed
        pending = set(self.grid.push_messages(messages))
        need = min(self.strategy.min_results, len(pending))
        got: list[Message] = []
        t0, quorum_at = time.monotonic(), None
        while pending:
            for msg in self.grid.pull_messages(list(pending)):
                got.append(msg)
                pending.discard(msg.metadata.reply_to_message_id)
            now = time.monotonic()
            if quorum_at is None and sum(not m.has_error() for m in got) >= need:
                quorum_at = now
            if not pending or now - t0 > fed.round_timeout_s:
                break
            if quorum_at is not None and now - quorum_at >= fed.straggler_wait_s:
                self.log(
                    f"{len(pending)} clients did not answer within "
                    f"{fed.straggler_wait_s:g} s of the quorum: closing the round"
                )
                break
            time.sleep(POLL_S)
        return got

    def save(self) -> None:
        """model/ (HF dir or adapter) with federated.json, written beside and renamed."""
        from jupiter.models.folder import replace_dir, save_model_dir

        tmp = self.out / f".model-next-{os.getpid()}"
        save_model_dir(tmp, self.model, self.tokenizer)
        write_record(tmp / "federated.json", self.record)
        replace_dir(tmp, self.out / "model")
        write_record(self.out / "federated.json", self.record)

    def evaluate(self) -> dict[str, Any]:
        """bpb and MC accuracy of the saved global model (merge/validation.py's Validator,
        the eval code every stage uses)."""
        from jupiter.merge.validation import Validator

        figures = Validator(self.out / "model", [], self.validation).figures()
        return {k: v for k, v in figures.items() if k != "bytes"}
