"""`jupiter federated server` and `client`: federated training on Flower."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from jupiter.cli_context import console, err_console
from jupiter.cli_types import FINITE, Domain, Quick
from jupiter.errors import JupiterError

commands = typer.Typer()  # merged into the app by jupiter/cli.py
federated_app = typer.Typer(
    help="Federated training on Flower: clients keep their data, only weights travel.",
    no_args_is_help=True,
)
commands.add_typer(federated_app, name="federated")


@federated_app.command("server")
def federated_server(
    domain: Domain,
    quick: Quick = False,
    rounds: Annotated[int | None, typer.Option(help="Rounds (federated.rounds).")] = None,
    local_steps: Annotated[int | None, typer.Option(help="Each client's steps a round.")] = None,
    min_clients: Annotated[
        int | None, typer.Option(help="Clients connected before round 1.")
    ] = None,
    clients_per_round: Annotated[
        int | None, typer.Option(help="Sampled a round (default: all).")
    ] = None,
    min_results: Annotated[int | None, typer.Option(help="Replies a round needs.")] = None,
    strategy: Annotated[
        str | None, typer.Option(help="fedavg | fedmedian | trimmed | krum")
    ] = None,
    trim_fraction: Annotated[
        float | None, typer.Option(click_type=FINITE, help="trimmed: cut per end.")
    ] = None,
    byzantine: Annotated[int | None, typer.Option(help="krum: bad clients tolerated.")] = None,
    address: Annotated[
        str | None, typer.Option(help="HOST:PORT to serve on (127.0.0.1:9092).")
    ] = None,
    round_timeout: Annotated[
        float | None, typer.Option(click_type=FINITE, help="Seconds a round waits at most.")
    ] = None,
    straggler_wait: Annotated[
        float | None, typer.Option(click_type=FINITE, help="Seconds past the quorum.")
    ] = None,
    wait_clients: Annotated[
        float | None, typer.Option(click_type=FINITE, help="Seconds to wait for min-clients.")
    ] = None,
    dp: Annotated[
        str | None, typer.Option("--dp", help="off | server | client (who clips).")
    ] = None,
    noise_multiplier: Annotated[
        float | None, typer.Option(click_type=FINITE, help="DP: noise std / clip norm.")
    ] = None,
    clip_norm: Annotated[
        float | None, typer.Option(click_type=FINITE, help="DP: L2 bound of an update.")
    ] = None,
    delta: Annotated[
        float | None, typer.Option(click_type=FINITE, help="DP: the δ of (ε, δ).")
    ] = None,
    epsilon_budget: Annotated[
        float | None, typer.Option(click_type=FINITE, help="DP: stop before passing this ε.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Run dir (default: runs/<domain>/federated/run-…).")
    ] = None,
    ca_cert: Annotated[str, typer.Option(help="TLS: CA certificate (PEM).")] = "",
    cert: Annotated[str, typer.Option(help="TLS: this server's certificate (PEM).")] = "",
    key: Annotated[str, typer.Option(help="TLS: this server's private key (PEM).")] = "",
    client_key: Annotated[
        list[str] | None, typer.Option(help="A client's public key (OpenSSH ECDSA); repeat.")
    ] = None,
) -> None:
    """Serve a federated run: a Flower SuperLink, rounds of local training on the clients,
    robust or private aggregation; the global model lands in RUN/model with federated.json."""
    from jupiter.federated.run import start_server, summary

    flags = {
        "rounds": rounds,
        "local_steps": local_steps,
        "min_clients": min_clients,
        "clients_per_round": clients_per_round,
        "min_results": min_results,
        "strategy": strategy,
        "trim_fraction": trim_fraction,
        "byzantine": byzantine,
        "address": address,
        "round_timeout_s": round_timeout,
        "straggler_wait_s": straggler_wait,
        "wait_clients_s": wait_clients,
        "dp": {
            "mode": dp,
            "noise_multiplier": noise_multiplier,
            "clip_norm": clip_norm,
            "delta": delta,
            "epsilon_budget": epsilon_budget,
        },
    }
    tls = {"ca": ca_cert, "cert": cert, "key": key, "client_keys": client_key or []}
    record = start_server(domain, quick, flags, out, tls, err_console)
    console.print(summary(record), highlight=False)


@federated_app.command("client")
def federated_client(
    domain: Domain,
    server: Annotated[str, typer.Option(help="The server's HOST:PORT.")],
    quick: Quick = False,
    root_cert: Annotated[str, typer.Option(help="TLS: the CA of the server's certificate.")] = "",
    auth_key: Annotated[str, typer.Option(help="This client's private key (OpenSSH ECDSA).")] = "",
    keep_updates: Annotated[bool, typer.Option(help="Keep what was received and sent.")] = False,
    device: Annotated[str, typer.Option(help="auto | cpu | cuda")] = "auto",
) -> None:
    """Join a federated run: train on this workspace's data when the server asks; only the
    adapter (or the weights) leaves this machine."""
    from jupiter.federated.run import start_client

    if device not in ("auto", "cpu", "cuda"):
        raise JupiterError(f"--device {device!r}: use auto, cpu or cuda")
    code = start_client(
        domain, quick, server, root_cert, auth_key, keep_updates, device, err_console
    )
    if code:
        raise typer.Exit(code)
