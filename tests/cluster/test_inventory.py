"""cluster.yaml → islands, the plan's numbers, and the launch commands it prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jupiter.cluster.inventory import (
    Island,
    island_micro_batch,
    islands,
    plan_cluster,
    write_hostfile,
)
from jupiter.cluster.launch import cluster_plan, describe_commands, launch_commands
from jupiter.config import ClusterConfig, DomainConfig, TrainConfig
from jupiter.data.dataset import PackedDataset
from jupiter.errors import JupiterError

DOCS = {
    "nodes": [
        {
            "host": "studio.local",
            "name": "studio1",
            "device_type": "mac",
            "memory_gb": 192,
            "ips": ["169.254.1.1"],
        },
        {"host": "mini.local", "name": "mini", "device_type": "mac", "memory_gb": 64},
        {
            "host": "10.0.0.20",
            "name": "rtx1",
            "device_type": "nvidia",
            "memory_gb": 24,
            "ssh_user": "ml",
        },
        {
            "host": "10.0.0.21",
            "name": "rtx2",
            "device_type": "nvidia",
            "memory_gb": 48,
            "ssh_user": "ml",
            "processes": 2,
            "ssh_port": 2222,
        },
        {"host": "gen.local", "name": "gen", "device_type": "nvidia", "role": "generator"},
    ],
    "sync": {"store": "s3://bucket/run"},
}
BIG = {
    "name": "d",
    "sources": [{"type": "python_stdlib"}],
    "model": {"preset": "1b", "context_length": 2048},
}


def test_islands_group_by_device_and_engine() -> None:
    isl = islands(ClusterConfig.model_validate(DOCS))
    assert [(i.name, i.engine, [n.name for n in i.nodes]) for i in isl] == [
        ("mac-mlx", "mlx", ["studio1", "mini"]),
        ("nvidia-torch", "torch", ["rtx1", "rtx2"]),  # the generator node does not train
    ]


def test_an_island_mixing_engines_is_refused() -> None:
    nodes = [
        {"name": "a", "backend": "mlx", "island": "x"},
        {"name": "b", "backend": "torch", "island": "x"},
    ]
    with pytest.raises(JupiterError, match="island x mixes mlx and torch nodes"):
        islands(ClusterConfig.model_validate({"nodes": nodes}))


def test_plan_batches_follow_memory_and_the_island_takes_its_smallest() -> None:
    cfg = DomainConfig.model_validate(BIG)
    plans = plan_cluster(ClusterConfig.model_validate(DOCS), cfg)
    by = {p.node.name: p for p in plans}
    assert by["studio1"].micro_batch > by["mini"].micro_batch  # type: ignore[operator]
    assert island_micro_batch(plans, "mac-mlx") == by["mini"].micro_batch
    assert by["rtx2"].processes == 2 and by["rtx1"].processes is None  # one per GPU
    assert by["studio1"].placement == "replicated"


def test_a_model_too_big_for_a_node_is_sharded_or_refused() -> None:
    cfg = DomainConfig.model_validate(BIG)
    nodes = [
        {"name": "small", "device_type": "nvidia", "memory_gb": 32, "processes": 4},
        {"name": "mac", "device_type": "mac", "memory_gb": 4},
    ]
    plans = {
        p.node.name: p for p in plan_cluster(ClusterConfig.model_validate({"nodes": nodes}), cfg)
    }
    assert plans["small"].placement == "FSDP over 4" and plans["small"].micro_batch
    assert plans["mac"].placement == "does not fit" and plans["mac"].micro_batch is None


def test_hostfile_and_commands(tmp_path: Path) -> None:
    cluster = ClusterConfig.model_validate(DOCS)
    mac = islands(cluster)[0]
    data = json.loads(write_hostfile(mac, cluster, tmp_path / "h.json").read_text())
    assert data == {
        "backend": "ring",
        "hosts": [
            {"ssh": "studio.local", "ips": ["169.254.1.1"]},
            {"ssh": "mini.local", "ips": ["mini.local"]},
        ],
    }
    cmds = launch_commands(cluster, "s3://bucket/run", tmp_path)
    ((mlx_cmd, _),) = cmds["mac-mlx"]
    # mlx.launch's own code, started with this interpreter (train/mlx_launch.py)
    assert mlx_cmd[1:3] == ["-m", "jupiter.train.mlx_launch"] and "--hostfile" in mlx_cmd
    assert mlx_cmd[-4:] == ["jupiter.cluster.island", "s3://bucket/run", "mac-mlx", str(tmp_path)]
    rtx1, rtx2 = (c for c, _ in cmds["nvidia-torch"])
    assert rtx1[:1] == ["ssh"] and "ml@10.0.0.20" in rtx1 and "-tt" in rtx1
    assert "-p" in rtx2 and rtx2[rtx2.index("-p") + 1] == "2222"
    remote = rtx2[-1]
    assert "--rdzv-endpoint 10.0.0.20:29400" in remote and "--nproc-per-node 2" in remote
    assert "--nproc-per-node gpu" in rtx1[-1]
    mpi = ClusterConfig.model_validate({**DOCS, "backend": "mpi"})
    ((mpi_cmd, _),) = launch_commands(mpi, "s3://bucket/run", tmp_path)["mac-mlx"]
    assert mpi_cmd[mpi_cmd.index("--backend") + 1] == "mpi"
    assert json.loads((tmp_path / "hostfile-mac-mlx.json").read_text())["backend"] == "mpi"
    lines = describe_commands(cluster, "s3://bucket/run", tmp_path)
    assert lines[-1].startswith("coordinator: ") and len(lines) == 4


JACCL = {
    "mlx_backend": "jaccl",
    "nodes": [
        {
            "host": "m1.local",
            "name": "m1",
            "device_type": "mac",
            "ips": ["10.0.1.1"],
            "rdma": {"m2": "rdma_en3", "m3": "rdma_en4"},
        },
        {
            "host": "m2.local",
            "name": "m2",
            "device_type": "mac",
            "rdma": {"m1": "rdma_en3", "m3": "rdma_en5"},
        },
        {
            "host": "m3.local",
            "name": "m3",
            "device_type": "mac",
            "rdma": {"m1": "rdma_en4", "m2": "rdma_en5"},
        },
    ],
}


def test_a_jaccl_hostfile_carries_the_rdma_matrix_mlx_launch_reads(tmp_path: Path) -> None:
    from mlx._distributed_utils.common import Hostfile

    cluster = ClusterConfig.model_validate(JACCL)
    (mac,) = islands(cluster)
    path = write_hostfile(mac, cluster, tmp_path / "h.json")
    parsed = Hostfile.from_file(path)  # mlx.launch's own reader
    assert parsed.backend == "jaccl"
    assert [h.rdma for h in parsed.hosts] == [
        [None, "rdma_en3", "rdma_en4"],
        ["rdma_en3", None, "rdma_en5"],
        ["rdma_en4", "rdma_en5", None],
    ]
    assert parsed.hosts[0].ips == ["10.0.1.1"]  # rank 0's address: the JACCL coordinator
    ((cmd, _),) = launch_commands(cluster, "s3://bucket/run", tmp_path)["mac-mlx"]
    assert cmd[cmd.index("--backend") + 1] == "jaccl"


def test_jaccl_without_a_device_or_with_two_processes_a_mac_is_refused(tmp_path: Path) -> None:
    nodes = [dict(n) for n in JACCL["nodes"]]  # type: ignore[union-attr]
    nodes[1]["rdma"] = {"m1": "rdma_en3"}  # m2 lists no device toward m3
    cluster = ClusterConfig.model_validate({**JACCL, "nodes": nodes})
    with pytest.raises(JupiterError, match=r"node m2: no RDMA device toward m3 .*rdma: \{m3"):
        write_hostfile(islands(cluster)[0], cluster, tmp_path / "h.json")
    # a ring of three needs only the neighbours: m2's are m1 and m3, so still refused; a
    # ring of two (m1, m2) needs nothing more
    two = ClusterConfig.model_validate({**JACCL, "mlx_backend": "jaccl-ring", "nodes": nodes[:2]})
    data = json.loads(write_hostfile(islands(two)[0], two, tmp_path / "r.json").read_text())
    assert [h["rdma"] for h in data["hosts"]] == [[None, "rdma_en3"], ["rdma_en3", None]]
    nodes[0]["processes"] = 2
    crowded = ClusterConfig.model_validate({**JACCL, "nodes": nodes})
    with pytest.raises(JupiterError, match="one process a Mac, but m1 asks for more"):
        write_hostfile(islands(crowded)[0], crowded, tmp_path / "c.json")
    assert not (tmp_path / "c.json").exists()


def test_localhost_runs_without_ssh(tmp_path: Path) -> None:
    cluster = ClusterConfig.model_validate({"nodes": [{"name": "me", "processes": 2}]})
    ((cmd, _),) = launch_commands(cluster, str(tmp_path), tmp_path)["cpu-torch"]
    assert cmd[0] == "env" and "ssh" not in cmd and "--standalone" in cmd


def test_an_island_of_one_process_starts_without_torchrun(tmp_path: Path) -> None:
    """Rank 0 of 1 is the island module itself; two processes, or two nodes, go through
    torchrun."""
    one = ClusterConfig.model_validate({"nodes": [{"name": "me", "processes": 1}]})
    ((cmd, _),) = launch_commands(one, str(tmp_path), tmp_path)["cpu-torch"]
    assert cmd[0] == "env" and cmd[1].startswith("OMP_NUM_THREADS=")
    assert cmd[3:] == [
        "-u",
        "-m",
        "jupiter.cluster.island",
        str(tmp_path),
        "cpu-torch",
        str(tmp_path),
    ]
    assert "torch.distributed.run" not in cmd
    two = ClusterConfig.model_validate({"nodes": [{"name": "me", "processes": 2}]})
    ((cmd, _),) = launch_commands(two, str(tmp_path), tmp_path)["cpu-torch"]
    assert cmd[cmd.index("-m") + 1] == "torch.distributed.run" and "--nproc-per-node" in cmd


def test_cluster_plan_splits_the_epochs_over_islands() -> None:
    from jupiter.train.plan import DataSize

    data = DataSize(rows=800, sequences=5_000, context_length=64)
    cfg = TrainConfig(epochs=2, micro_batch_size=4)
    assert cluster_plan(cfg, data, n_islands=2, ranks=1).max_steps == 200
    assert cluster_plan(TrainConfig(max_steps=30), data, 2, 1).max_steps == 30


def test_shards_are_disjoint_and_cover_the_rows() -> None:
    seqs = [([i % 50 + 3] * 20, [i % 50 + 3] * 20) for i in range(60)]
    data = PackedDataset(seqs, context_length=16, pad_id=0, seed=3)
    shards = [data.shard(i, 3) for i in range(3)]
    rows = [tuple(s.row(r)[0]) for s in shards for r in range(s.num_rows)]
    assert sum(s.num_rows for s in shards) == data.num_rows
    assert sorted(rows) == sorted(tuple(data.row(r)[0]) for r in range(data.num_rows))


def test_cluster_plan_cli_prints_islands_and_commands(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(json.dumps(DOCS))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "jupiter.cli",
            "cluster",
            "plan",
            "--domain",
            "python",
            "--cluster-file",
            str(path),
        ],
        capture_output=True,
        text=True,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "mac-mlx" in out.stdout and "nvidia-torch" in out.stdout
    assert "jupiter.train.mlx_launch --hostfile" in out.stdout and "coordinator:" in out.stdout


def test_a_local_ring_takes_free_ports_outside_the_ephemeral_range() -> None:
    """Ports the kernel hands to outgoing connections (the ephemeral range) can be taken
    between the check and mlx.launch's bind: a local ring draws below it, never a port
    someone holds."""
    import socket

    from jupiter.cluster.launch import RING_PORTS, ring_port
    from jupiter.config.cluster import Node

    local = Island("mlx", "mlx", (Node(host="localhost", name="here"),))
    low, high = (int(x) for x in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    assert RING_PORTS[1] <= low or RING_PORTS[0] > high
    firsts = {ring_port(local, 2, "unused") for _ in range(40)}
    assert len(firsts) > 30  # drawn, not one fixed port
    for first in firsts:
        assert RING_PORTS[0] <= first and first + 2 <= RING_PORTS[1]
    # a port someone listens on is never given out
    held = socket.socket()
    held.bind(("127.0.0.1", min(firsts)))
    held.listen()
    try:
        assert all(
            min(firsts) not in (f, f + 1) for f in (ring_port(local, 2, "x") for _ in range(200))
        )
    finally:
        held.close()
    # a remote island's port is the run's, the same on every call
    remote = Island("mac", "mlx", (Node(host="studio.local", name="studio"),))
    assert ring_port(remote, 2, "s3://b/run") == ring_port(remote, 2, "s3://b/run")
