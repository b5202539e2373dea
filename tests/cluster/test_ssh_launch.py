"""`jupiter train --cluster` reaching its nodes over SSH: a real sshd on loopback (tests/support/sshd.py)
and nodes at 127.0.0.2, which Jupiter does not take for localhost. The PyTorch island starts
as `ssh … torchrun …`, the MLX island through mlx.launch from a written hostfile, whose plain
`ssh host` gets cluster.yaml's port, user and options from Jupiter's shim."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from diloco_setup import make_tokenizer, report, tiny_run

from jupiter.cluster.launch import ClusterRun, run_cluster
from jupiter.config import ClusterConfig
from sshd import SSHServer

pytestmark = [pytest.mark.slow]
if not SSHServer.available():
    pytest.skip("openssh-server is not installed (.ci/install-sshd)", allow_module_level=True)


def ssh_cluster(server: SSHServer, store: Path, engines: dict[str, str]) -> ClusterConfig:
    nodes = [
        {
            "host": server.alias_host,
            "name": f"{name}-node",
            "device_type": "cpu",
            "backend": engine,
            "processes": 1,
            "island": name,
            "memory_gb": 8,
            "ssh_port": server.port,
            "ssh_user": server.user,
            "python": sys.executable,
        }
        for name, engine in engines.items()
    ]
    sync = {"store": str(store), "inner_steps": 3, "heartbeat_s": 2, "round_timeout_s": 300}
    return ClusterConfig.model_validate(
        {"nodes": nodes, "sync": sync, "ssh_options": server.ssh_options}
    )


def test_islands_start_over_ssh(tmp_path: Path) -> None:
    """Two PyTorch islands (ssh … torchrun) and, where mlx is installed, an MLX island
    (mlx.launch over the hostfile), all three in one run through one sshd."""
    engines = {"torch": "torch", "torch2": "torch"}
    if importlib.util.find_spec("mlx") is not None:
        engines["mlx"] = "mlx"
    tok = make_tokenizer(tmp_path / "tok")
    run = tiny_run(tok, tmp_path / "train", max_steps=6)
    with SSHServer() as server:
        assert server.alias_host, "needs a second loopback address (Linux)"
        cl = ssh_cluster(server, tmp_path / "sync", engines)
        result = run_cluster(ClusterRun(run, cl, str(tmp_path / "sync"), tmp_path / "train"))
        sessions = server.log().count("Accepted publickey")
    assert result.finished
    rows = report(tmp_path / "train")
    assert [r["round"] for r in rows] == [0, 1]
    for r in rows:
        assert r["islands"] == sorted(engines)
        assert len(set(r["digests"].values())) == 1 and r["global_digest"] in r["digests"].values()
    assert sessions >= len(engines)  # every island came in through sshd
