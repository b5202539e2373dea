"""The Flower processes behind `jupiter federated server` and `client` (Flower 1.42's
deployment runtime): a SuperLink (one port for its Fleet, Control and Runtime APIs), the run
submitted with `flwr run` from a Flower App written into the run dir (its components are
server_app.py and client_app.py), and one SuperNode per client. Each runs from this
Python's bin folder with telemetry and update checks off, and is stopped when the command
ends."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from jupiter import atomic
from jupiter.errors import JupiterError
from jupiter.federated.spec import ClientTls, RunSpec, ServerTls, split_address

CONNECTION = "jupiter"  # the SuperLink connection's name in the run's Flower configuration
APP_TOML = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "jupiter-federated"
version = "1.0.0"
description = "Jupiter federated training"
license = "Apache-2.0"
dependencies = ["flwr>=1.42"]

[tool.flwr.app]
publisher = "jupiter"

[tool.flwr.app.components]
serverapp = "jupiter.federated.server_app:app"
clientapp = "jupiter.federated.client_app:app"

[tool.flwr.app.config]
spec = {spec}
"""
DONE = ("done", "failed")


def flower_env(flwr_home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["FLWR_HOME"] = str(flwr_home)
    env["FLWR_TELEMETRY_ENABLED"] = "0"  # nothing leaves the machine but the weights
    env["FLWR_DISABLE_UPDATE_CHECK"] = "1"
    # SuperExec polls for new tasks every second by default: a round waits less this way
    env.setdefault("FLWR_SUPEREXEC_TASK_POLL_INTERVAL", "0.5")
    return env


def tool(name: str) -> str:
    path = Path(sys.executable).parent / name
    found = str(path) if path.is_file() else shutil.which(name)
    if not found:
        raise JupiterError(f"Flower's {name} not found: pip install 'jupiter[federated]'")
    return found


def toml_str(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string


def check_port_free(host: str, port: int, flag: str) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError as err:
            raise JupiterError(
                f"{flag} {host}:{port} cannot be bound ({err.strerror}): pick another port"
            ) from None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stop(proc: subprocess.Popen[Any], grace_s: float = 10.0) -> None:
    """SIGTERM (Flower's processes deregister and stop their children), then SIGKILL."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _interrupt(signum: int, frame: Any) -> None:
    """SIGTERM as Ctrl-C: the `finally` that stops the Flower processes runs."""
    raise KeyboardInterrupt


# ------------------------------------------------------------------------- server
def write_app(out: Path, spec_path: Path) -> Path:
    app = out / "app"
    atomic.write_text(app / "pyproject.toml", APP_TOML.replace("{spec}", toml_str(str(spec_path))))
    return app


def control_address(host: str, port: int) -> str:
    """Where this machine reaches its own SuperLink (a wildcard bind answers on loopback)."""
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def write_flwr_home(home: Path, address: str, tls: ServerTls) -> None:
    lines = [
        "[superlink]",
        f"default = {toml_str(CONNECTION)}",
        "",
        f"[superlink.{CONNECTION}]",
        f"address = {toml_str(address)}",
    ]
    lines.append(f"root-certificates = {toml_str(tls.ca)}" if tls.on else "insecure = true")
    atomic.write_text(home / "config.toml", "\n".join(lines) + "\n")


def superlink_command(host: str, port: int, tls: ServerTls) -> list[str]:
    cmd = [
        tool("flower-superlink"),
        "--host",
        host,
        "--port",
        str(port),
        "--disable-runtime-dependency-installation",
    ]
    if not tls.on:
        return [*cmd, "--insecure"]
    cmd += ["--ssl-ca-certfile", tls.ca, "--ssl-certfile", tls.cert, "--ssl-keyfile", tls.key]
    return [*cmd, "--enable-supernode-auth"] if tls.client_keys else cmd


def wait_listening(address: str, proc: subprocess.Popen[Any], log: Path, timeout_s: float) -> None:
    host, port = split_address(address, "--address")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise JupiterError(
                f"the SuperLink exited (status {proc.returncode}): {last_line(log)} (log: {log})"
            )
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=1):
            return
        time.sleep(0.2)
    raise JupiterError(
        f"the SuperLink did not listen on {address} within {timeout_s:.0f} s (log: {log})"
    )


def last_line(log: Path) -> str:
    lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    return lines[-1] if lines else "no output"


def flwr(args: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """A `flwr` CLI command with --format json; its JSON answer, or its error as one line."""
    res = subprocess.run(
        [tool("flwr"), *args, "--format", "json"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    try:
        data: dict[str, Any] = json.loads(res.stdout[res.stdout.find("{") :])
    except ValueError:
        data = {"success": False, "error-message": (res.stderr or res.stdout).strip()}
    if not data.get("success"):
        msg = " ".join(str(data.get("error-message", "")).split()) or f"status {res.returncode}"
        raise JupiterError(f"flwr {args[0]} failed: {msg}")
    return data


def serve_federation(spec: RunSpec, tls: ServerTls, console: Console) -> dict[str, Any]:
    """Start the SuperLink, register the clients' keys, submit the run, show its rounds
    until it ends, stop the SuperLink; the run's federated.json."""
    out = Path(spec.out)
    fed = spec.config
    host, port = split_address(fed.address, "--address")
    check_port_free(host, port, "--address")
    out.mkdir(parents=True, exist_ok=True)
    spec_path = out / "spec.json"
    spec.save(spec_path)
    app = write_app(out, spec_path)
    home = out / "flwr"
    address = control_address(host, port)
    write_flwr_home(home, address, tls)
    env = flower_env(home)
    log = out / "superlink.log"
    with log.open("ab") as sink:
        link = subprocess.Popen(
            superlink_command(host, port, tls),
            env=env,
            cwd=out,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        wait_listening(address, link, log, 60)
        for key in tls.client_keys:
            flwr(["supernode", "register", key, CONNECTION], env, out)
        run_id = str(flwr(["run", str(app), CONNECTION], env, out)["run-id"])
        console.print(
            f"federated server on {fed.address}, run {run_id}: waiting for "
            f"{fed.min_clients} clients (`jupiter federated client --domain … "
            f"--server {fed.address}`); logs in {out}",
            highlight=False,
        )
        follow(out, run_id, link, env, console)
    finally:
        stop(link)
        signal.signal(signal.SIGTERM, previous)
    record: dict[str, Any] = json.loads((out / "federated.json").read_text(encoding="utf-8"))
    if record.get("status") != "done":
        raise JupiterError(
            f"federated run failed: {record.get('error', 'see the logs')} "
            f"(logs: {out / 'server.log'}, {log})"
        )
    return record


def read_record(path: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data
    except (OSError, ValueError):
        return None


def follow(
    out: Path, run_id: str, link: subprocess.Popen[Any], env: dict[str, str], console: Console
) -> None:
    """A progress bar over the rounds from federated.json, a line per round, until the
    record says the run ended (or Flower says the run finished without it)."""
    shown, checked = 0, time.monotonic()
    columns = (
        TextColumn("federated rounds"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("rounds", total=None)
        while True:
            rec = read_record(out / "federated.json") or {}
            rows = rec.get("rounds", [])
            for row in rows[shown:]:
                console.print(round_line(row), highlight=False)
            shown = len(rows)
            bar.update(task, total=rec.get("rounds_planned"), completed=rec.get("rounds_done", 0))
            if rec.get("status") in DONE:
                return
            if link.poll() is not None:
                raise JupiterError(
                    f"the SuperLink exited (status {link.returncode}); log: {out / 'superlink.log'}"
                )
            if time.monotonic() - checked > 30:  # a ServerApp that died without a word
                checked = time.monotonic()
                runs = flwr(["list", "--run-id", run_id], env, out).get("runs", [])
                if runs and str(runs[0].get("status", "")).startswith("finished"):
                    time.sleep(1)  # its last write may be just behind
                    if (read_record(out / "federated.json") or {}).get("status") not in DONE:
                        raise JupiterError(
                            f"the ServerApp ended ({runs[0]['status']}) without "
                            f"finishing the run; log: {out / 'server.log'}"
                        )
            time.sleep(0.5)


def round_line(row: dict[str, Any]) -> str:
    if row.get("skipped"):
        return f"round {row['round']}: skipped ({row.get('failed')})"
    eps = f", ε {row['epsilon']:.4g}" if "epsilon" in row else ""
    ev = row.get("eval") or {}
    figs = "".join(f", {k} {ev[k]:.4f}" for k in ("bpb", "mc_accuracy") if k in ev)
    dropped = len(row.get("sampled", [])) - len(row.get("used", []))
    return (
        f"round {row['round']}: {len(row['used'])} clients"
        f"{f' ({dropped} dropped or rejected)' if dropped else ''}, train loss "
        f"{row['train_loss']:.4f}{eps}{figs}, {row['seconds']:.1f} s"
    )


# ------------------------------------------------------------------------- client
def node_config(path: Path, values: dict[str, Any]) -> Path:
    """The SuperNode's --node-config as a TOML file (paths with any character survive)."""
    lines = [
        f"{k} = {toml_str(v) if isinstance(v, str) else json.dumps(v)}" for k, v in values.items()
    ]
    atomic.write_text(path, "\n".join(lines) + "\n")
    return path


def supernode_command(server: str, port: int, config: Path, tls: ClientTls) -> list[str]:
    cmd = [
        tool("flower-supernode"),
        "--superlink",
        server,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--node-config",
        str(config),
    ]
    cmd += ["--root-certificates", tls.root_cert] if tls.root_cert else ["--insecure"]
    return [*cmd, "--auth-supernode-private-key", tls.auth_key] if tls.auth_key else cmd


def join_federation(
    root: Path, server: str, tls: ClientTls, values: dict[str, Any], console: Console
) -> int:
    """Run this client's SuperNode until it ends (or Ctrl-C / SIGTERM); its exit status."""
    root.mkdir(parents=True, exist_ok=True)
    config = node_config(root / "node-config.toml", values)
    env = flower_env(root / "flwr")
    node = subprocess.Popen(supernode_command(server, free_port(), config, tls), env=env, cwd=root)
    console.print(
        f"federated client of {server}: training on this workspace's data when the "
        "server asks; Ctrl-C to leave",
        highlight=False,
    )

    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return node.wait()
    except KeyboardInterrupt:
        console.print("leaving the federation")
        return 130
    finally:
        stop(node)
        signal.signal(signal.SIGTERM, previous)
