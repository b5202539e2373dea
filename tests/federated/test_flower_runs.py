"""Federations of real Flower processes on 127.0.0.1 (`jupiter federated server` with its
SuperLink and ServerApp, `jupiter federated client`s with their SuperNodes and ClientApps),
three clients with disjoint queues on a tiny random Llama with LoRA:

- FedAvg: each round's global model is the example-weighted mean of what the clients sent
  (their own copies, --keep-updates), and what they receive next; the server evaluates it;
- DP: ε is dp-accounting's for the same noise, sampling rate and rounds, a budget between
  the ε of round 1 and round 2 gives exactly one round, the noise has the std it claims;
  a client killed (SIGKILL, its whole process group) mid-round does not stop the round;
- a client sending its weights × 1e6 is outvoted by the coordinate-wise median.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dp_accounting
import pytest
import torch
from dp_accounting import rdp
from fedsetup import (
    examples,
    fill_queue,
    kill_group,
    make_tls,
    record,
    round_file,
    start,
    wait_for,
    write_domain,
)
from safetensors.torch import load_file

from tinyhf import save_tiny

pytestmark = pytest.mark.slow

COUNTS = {"c1": 6, "c2": 10, "c3": 14}  # each client's own examples (no held-out share)
STEPS = 2
MC = [
    {
        "id": f"q{i}",
        "question": f"Which module provides {w}?",
        "choices": ["json", "os", "re", "csv"],
        "answer_index": i % 4,
    }
    for i, w in enumerate(["JSON encoding", "system calls", "regular expressions", "CSV files"])
]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A base model, three client workspaces with disjoint queues, a server domain."""
    root = tmp_path_factory.mktemp("federation")
    base = save_tiny("llama", root / "base")
    for i, (name, n) in enumerate(COUNTS.items(), 1):
        fill_queue(root, write_domain(root, name, base), examples(i, n))
    (root / "mc.jsonl").write_text("".join(json.dumps(m) + "\n" for m in MC))
    write_domain(root, "srv", base, "eval: {qa_path: mc.jsonl}\n")
    write_domain(root, "srvdp", base)
    fill_queue(root, write_domain(root, "c4", base), examples(4, 4))  # knocks without a key
    make_tls(root / "tls", [*COUNTS, "c4"])
    return root


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def federate(
    root: Path,
    run: str,
    server_args: list[str],
    attack: dict[str, dict[str, str]] | None = None,
    during: Callable[[dict[str, subprocess.Popen[bytes]]], None] | None = None,
    tls: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Server and the three clients as processes; (run dir, its federated.json). With
    `tls`: TLS and SuperNode authentication on, and an unregistered client (c4) knocking."""
    out = root / run
    extra = []
    if tls:
        t = root / "tls"
        extra = [
            "--ca-cert",
            str(t / "ca.pem"),
            "--cert",
            str(t / "server.pem"),
            "--key",
            str(t / "server.key"),
        ]
        extra += [a for c in COUNTS for a in ("--client-key", str(t / f"{c}.pub"))]
    log = root / f"{run}.log"
    for _ in range(3):  # another test may take the free port before the SuperLink binds it
        address = f"127.0.0.1:{free_port()}"
        server = start(
            [
                "server",
                "--domain",
                str(root / f"{server_args[0]}.yaml"),
                "--address",
                address,
                "--out",
                str(out),
                "--wait-clients",
                "120",
                *extra,
                *server_args[1:],
            ],
            root,
            log,
        )
        # clients join once the SuperLink listens and the run is submitted (the keys of
        # the TLS run registered before it): the server prints this line then
        wait_for(
            lambda proc=server: "federated server on" in log.read_text() or proc.poll() is not None,
            180,
            f"the {run} server to start",
        )
        if server.poll() is None or "cannot be bound" not in log.read_text():
            break
    assert server.poll() is None, (
        f"the {run} server ended before any client joined:\n{log.read_text()}"
    )
    names = [*COUNTS, "c4"] if tls else list(COUNTS)

    def client_args(c: str) -> list[str]:
        args = [
            "client",
            "--domain",
            str(root / f"{c}.yaml"),
            "--server",
            address,
            "--keep-updates",
            "--device",
            "cpu",
        ]
        if tls:
            args += [
                "--root-cert",
                str(root / "tls" / "ca.pem"),
                "--auth-key",
                str(root / "tls" / f"{c}.key"),
            ]
        return args

    clients = {
        c: start(client_args(c), root, root / f"{run}-{c}.log", **(attack or {}).get(c, {}))
        for c in names
    }
    try:
        if during is not None:
            during(clients)
        deadline = time.monotonic() + 240
        while server.poll() is None:
            assert time.monotonic() < deadline, (
                f"the federation did not end in 240 s:\n{log.read_text()}"
            )
            for c in COUNTS:  # a client that fails on its own ends the test
                if clients[c].poll() not in (None, -signal.SIGKILL):
                    raise AssertionError((root / f"{run}-{c}.log").read_text()[-2000:])
            time.sleep(0.5)
    finally:
        for proc in [server, *clients.values()]:
            if proc.poll() is None:
                kill_group(proc, signal.SIGTERM)
    assert server.returncode == 0, log.read_text()
    return out, record(out)


def sent(root: Path, client: str, run: str, rnd: int) -> dict[str, torch.Tensor]:
    return round_file(root, client, run, rnd, "sent")


def received(root: Path, client: str, run: str, rnd: int) -> dict[str, torch.Tensor]:
    return round_file(root, client, run, rnd, "received")


def weighted_mean(parts: list[tuple[dict[str, torch.Tensor], int]]) -> dict[str, torch.Tensor]:
    total = sum(n for _, n in parts)
    return {k: sum(w[k].double() * n for w, n in parts) / total for k in parts[0][0]}


# ----------------------------------------------------------------------------- FedAvg
@pytest.fixture(scope="module")
def fedavg(root: Path) -> tuple[Path, dict[str, Any]]:
    return federate(
        root,
        "fedavg",
        [
            "srv",
            "--rounds",
            "2",
            "--local-steps",
            str(STEPS),
            "--min-clients",
            "3",
            "--min-results",
            "3",
        ],
    )


def test_fedavg_is_the_weighted_mean_of_what_the_clients_sent(
    root: Path, fedavg: tuple[Path, dict[str, Any]]
) -> None:
    out, rec = fedavg
    assert rec["status"] == "done" and rec["rounds_done"] == 2 and rec["strategy"] == "fedavg"
    for row in rec["rounds"]:
        names = {c["client"]: c for c in row["clients"].values()}
        assert {k: v["num-examples"] for k, v in names.items()} == COUNTS
        assert all(v["steps"] == STEPS for v in names.values())
        assert len(row["used"]) == 3 and not row["rejected"] and not row["errors"]
    # round 1: every client got the same initial adapter; each trained its own data
    first = [received(root, c, "fedavg", 1) for c in COUNTS]
    assert all(torch.equal(first[0][k], r[k]) for r in first[1:] for k in first[0])
    outs = [sent(root, c, "fedavg", 1) for c in COUNTS]
    assert all(
        not torch.equal(outs[0][k], o[k]) for o in outs[1:] for k in outs[0] if "lora_B" in k
    )
    # the global model of round 1 is what round 2 sent out
    mean1 = weighted_mean([(sent(root, c, "fedavg", 1), n) for c, n in COUNTS.items()])
    for c in COUNTS:
        got = received(root, c, "fedavg", 2)
        assert set(got) == set(mean1)
        for k in mean1:
            assert torch.allclose(got[k].double(), mean1[k], atol=1e-6), (c, k)
    # the saved global model (a PEFT adapter) is the mean of round 2
    mean2 = weighted_mean([(sent(root, c, "fedavg", 2), n) for c, n in COUNTS.items()])
    saved = load_file(str(out / "model" / "adapter_model.safetensors"))
    assert set(saved) == set(mean2) and len(saved) == 28  # 2 layers x 7 linears x (A, B)
    for k in mean2:
        assert torch.allclose(saved[k].double(), mean2[k], atol=1e-6), k
    assert json.loads((out / "model" / "federated.json").read_text())["rounds_done"] == 2


def test_the_server_evaluates_each_global_model_on_its_eval_set(
    fedavg: tuple[Path, dict[str, Any]],
) -> None:
    _, rec = fedavg
    assert rec["validation"]["n_mc"] == len(MC)
    for row in rec["rounds"]:
        ev = row["eval"]
        assert ev["n_mc"] == len(MC) and 0.0 <= ev["mc_accuracy"] <= 1.0
        assert ev["mc_chance"] == pytest.approx(0.25)


# --------------------------------------------------------------------------------- DP
Z, C, DELTA = 1.3, 0.05, 1e-5


def accountant(rounds: int) -> float:
    """ε of `rounds` Gaussian releases at noise Z, every client every round (q = 1)."""
    acc = rdp.RdpAccountant()
    acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(Z), rounds))
    return acc.get_epsilon(DELTA)


def kill_mid_round(log: Path, client: subprocess.Popen[bytes]) -> None:
    """SIGKILL a client's whole process group once its ClientApp is training round 1."""
    deadline = time.monotonic() + 180
    while "Start `flwr-clientapp`" not in (log.read_text() if log.exists() else ""):
        assert client.poll() is None, f"the client ended before training:\n{log.read_text()}"
        assert time.monotonic() < deadline, (
            f"the client never started training in 180 s: {log}\n{log.read_text()[-2000:]}"
        )
        time.sleep(0.2)
    kill_group(client)


@pytest.fixture(scope="module")
def dp(root: Path) -> tuple[Path, dict[str, Any]]:
    budget = (accountant(1) + accountant(2)) / 2
    return federate(
        root,
        "dp",
        [
            "srvdp",
            "--rounds",
            "3",
            "--local-steps",
            str(STEPS),
            "--min-clients",
            "3",
            "--min-results",
            "2",
            "--straggler-wait",
            "2",
            "--dp",
            "server",
            "--noise-multiplier",
            str(Z),
            "--clip-norm",
            str(C),
            "--delta",
            str(DELTA),
            "--epsilon-budget",
            str(budget),
        ],
        during=lambda clients: kill_mid_round(root / "dp-c3.log", clients["c3"]),
    )


def test_epsilon_is_the_accountants_and_the_budget_stops_after_round_one(
    dp: tuple[Path, dict[str, Any]],
) -> None:
    _, rec = dp
    d = rec["dp"]
    assert d["sample_rate"] == 1.0 and d["noise_multiplier"] == Z and d["clip_norm"] == C
    assert d["epsilon_planned"] == pytest.approx([accountant(r) for r in (1, 2, 3)], rel=1e-9)
    assert rec["stopped"] == "epsilon_budget" and rec["rounds_done"] == 1
    assert len(rec["rounds"]) == 1 and d["releases"] == 1
    assert d["epsilon"] == pytest.approx(accountant(1), rel=1e-9)
    assert rec["rounds"][0]["epsilon"] == pytest.approx(accountant(1), rel=1e-9)
    assert d["epsilon_next"] == pytest.approx(accountant(2), rel=1e-9)
    assert accountant(1) < d["epsilon_budget"] < accountant(2)


def test_dp_noise_has_the_std_it_claims(root: Path, dp: tuple[Path, dict[str, Any]]) -> None:
    """global − start − Σ clip(sent − received) / 3 is the noise over 3: std Z·C/3."""
    out, rec = dp
    used = {c["client"] for c in rec["rounds"][0]["clients"].values()}
    start_w = received(root, "c1", "dp", 1)
    total = {k: torch.zeros_like(v, dtype=torch.float64) for k, v in start_w.items()}
    for c in used:
        delta = {k: sent(root, c, "dp", 1)[k].double() - start_w[k].double() for k in start_w}
        norm = float(torch.sqrt(sum((d**2).sum() for d in delta.values())))
        assert norm > C  # clipped: the bound binds
        for k in total:
            total[k] += delta[k] * (C / norm)
    saved = load_file(str(out / "model" / "adapter_model.safetensors"))
    noise = torch.cat(
        [(saved[k].double() - start_w[k].double() - total[k] / 3).flatten() for k in start_w]
    )
    assert noise.numel() == 8192
    assert float(noise.std()) == pytest.approx(Z * C / 3, rel=0.1)
    assert abs(float(noise.mean())) < 4 * Z * C / 3 / noise.numel() ** 0.5


def test_a_client_killed_mid_round_does_not_stop_the_round(
    root: Path, dp: tuple[Path, dict[str, Any]]
) -> None:
    _, rec = dp
    row = rec["rounds"][0]
    assert len(row["sampled"]) == 3 and not row.get("skipped")
    assert sorted(c["client"] for c in row["clients"].values()) == ["c1", "c2"]
    assert len(row["used"]) == 2
    assert not list((root / "runs" / "c3" / "federated" / "updates" / "dp").glob("*sent*"))
    assert "did not answer" in (Path(rec["model"]).parent / "server.log").read_text()


# ---------------------------------------------------------------------------- Byzantine
@pytest.fixture(scope="module")
def median(root: Path) -> tuple[Path, dict[str, Any]]:
    """One median round over TLS with client keys; c3 sends its weights × 1e6."""
    return federate(
        root,
        "median",
        [
            "srvdp",
            "--rounds",
            "1",
            "--local-steps",
            str(STEPS),
            "--min-clients",
            "3",
            "--strategy",
            "fedmedian",
        ],
        attack={"c3": {"JUPITER_FEDERATED_ATTACK": "scale:1e6"}},
        tls=True,
    )


def test_a_client_sending_weights_times_1e6_is_outvoted_by_the_median(
    root: Path, median: tuple[Path, dict[str, Any]]
) -> None:
    out, rec = median
    assert rec["status"] == "done" and rec["strategy"] == "fedmedian"
    assert len(rec["rounds"][0]["used"]) == 3  # finite, so accepted: the median outvotes it
    honest = [sent(root, c, "median", 1) for c in ("c1", "c2")]
    attacker = sent(root, "c3", "median", 1)
    saved = load_file(str(out / "model" / "adapter_model.safetensors"))
    for k, v in saved.items():
        lo = torch.minimum(honest[0][k], honest[1][k]) - 1e-6
        hi = torch.maximum(honest[0][k], honest[1][k]) + 1e-6
        assert bool(((v >= lo) & (v <= hi)).all()), k
    flat = lambda d: torch.cat([d[k].double().flatten() for k in sorted(saved)])  # noqa: E731
    honest_mean = (flat(honest[0]) + flat(honest[1])) / 2
    plain_mean = (flat(honest[0]) + flat(honest[1]) + flat(attacker)) / 3
    off = float((flat(saved) - honest_mean).norm())
    assert off <= float((flat(honest[0]) - flat(honest[1])).norm()) / 2 + 1e-6
    assert float((plain_mean - honest_mean).norm()) > 1e4 * off


def test_over_tls_only_the_registered_clients_get_in(
    root: Path, median: tuple[Path, dict[str, Any]]
) -> None:
    """The median run spoke TLS with SuperNode authentication (c1-c3's public keys given
    to the server); c4, whose key was not, was refused in one line and sent nothing."""
    out, rec = median
    conf = (out / "flwr" / "config.toml").read_text()
    assert "root-certificates" in conf and "insecure" not in conf
    names = sorted(c["client"] for c in rec["rounds"][0]["clients"].values())
    assert names == ["c1", "c2", "c3"] and rec["population"] == 3
    lines = (root / "median-c4.log").read_text().splitlines()
    err = [ln for ln in lines if ln.startswith("error:")]
    assert len(err) == 1 and "refused this client" in err[0], lines[-5:]
    assert not list((root / "runs" / "c4" / "federated").glob("updates/*/round-*"))
