"""What is refused before any process starts: serving or joining beyond localhost without
TLS and client authentication (through the real command too: one line, exit 1, nothing
bound or written), DP with a robust aggregator, Krum without enough replies."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from jupiter.config import FederatedConfig, FederatedDP
from jupiter.errors import JupiterError
from jupiter.federated.spec import check_federated, client_tls, is_loopback, server_tls

JUPITER = str(Path(sys.executable).parent / "jupiter")


def pem(tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    path.write_text("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n")
    return str(path)


def test_loopback_hosts() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.3.4.5", "::1", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "10.0.0.2", "::", "server.lan"))


def test_server_beyond_localhost_needs_tls_and_client_keys(tmp_path: Path) -> None:
    with pytest.raises(JupiterError, match="refusing to serve without TLS"):
        server_tls("0.0.0.0:9092", "", "", "", [])
    ca, cert, key = (pem(tmp_path, n) for n in ("ca.pem", "cert.pem", "key.pem"))
    with pytest.raises(JupiterError, match="refusing to accept any client"):
        server_tls("10.0.0.2:9092", ca, cert, key, [])
    tls = server_tls("10.0.0.2:9092", ca, cert, key, [pem(tmp_path, "c1.pub")])
    assert tls.on and tls.client_keys == (str(tmp_path / "c1.pub"),)
    assert not server_tls("127.0.0.1:9092", "", "", "", []).on  # loopback: plain is fine
    with pytest.raises(JupiterError, match="all three"):
        server_tls("127.0.0.1:9092", ca, cert, "", [])
    with pytest.raises(JupiterError, match="not found"):
        server_tls("127.0.0.1:9092", ca, cert, str(tmp_path / "missing.pem"), [])


def test_client_beyond_localhost_needs_the_ca_and_its_key(tmp_path: Path) -> None:
    with pytest.raises(JupiterError, match="refusing to connect without TLS"):
        client_tls("server.lan:9092", "", "")
    with pytest.raises(JupiterError, match="--auth-key"):
        client_tls("server.lan:9092", pem(tmp_path, "ca.pem"), "")
    assert client_tls("127.0.0.1:9092", "", "").root_cert == ""
    with pytest.raises(JupiterError, match="not HOST:PORT"):
        client_tls("server.lan", "", "")


def test_combinations_that_cannot_work_are_refused() -> None:
    with pytest.raises(JupiterError, match="needs --strategy fedavg"):
        check_federated(
            FederatedConfig(strategy="fedmedian", min_clients=3, dp=FederatedDP(mode="server"))
        )
    with pytest.raises(JupiterError, match="at least 5 replies"):
        check_federated(FederatedConfig(strategy="krum", min_clients=4, min_results=4))
    with pytest.raises(JupiterError, match="more than the 2 clients"):
        check_federated(FederatedConfig(strategy="fedmedian", min_clients=2))
    ok = check_federated(FederatedConfig(strategy="krum", byzantine=1, min_clients=5))
    assert ok.min_results == 5
    assert check_federated(FederatedConfig(min_clients=3)).min_results == 1


def test_the_server_command_refuses_an_insecure_public_address(tmp_path: Path) -> None:
    """No TLS on 0.0.0.0: one line on stderr, exit 1, no run dir, the port left free."""
    base = tmp_path / "base"
    base.mkdir()
    (base / "config.json").write_text("{}")
    (tmp_path / "srv.yaml").write_text(
        f"name: srv\nsources: [{{type: local, path: docs}}]\nmodel: {{base: {base}}}\n"
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, JUPITER_HOME=str(tmp_path), COLUMNS="300")
    r = subprocess.run(
        [
            JUPITER,
            "federated",
            "server",
            "--domain",
            str(tmp_path / "srv.yaml"),
            "--address",
            f"0.0.0.0:{port}",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "refusing to serve without TLS" in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "runs" / "srv" / "federated").exists()
    with socket.socket() as s:  # nothing listens: the port binds
        s.bind(("0.0.0.0", port))


def test_lora_fa_is_refused_before_a_federation_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """train.lora.freeze_a needs every party to draw the same A: not carried to clients yet."""
    from rich.console import Console

    from jupiter.federated.run import workspace_of

    base = tmp_path / "base"
    base.mkdir()
    (base / "config.json").write_text("{}")
    (tmp_path / "srv.yaml").write_text(
        f"name: srv\nsources: [{{type: local, path: docs}}]\nmodel: {{base: {base}}}\n"
        "train: {method: lora, lora: {freeze_a: true}}\n"
    )
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(JupiterError, match="freeze_a is not carried to federated clients"):
        workspace_of(str(tmp_path / "srv.yaml"), False, Console())
