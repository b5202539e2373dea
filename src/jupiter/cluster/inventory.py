"""cluster.yaml → islands and a plan.

Nodes of one device type and engine form an *island* (or the nodes a user names into one
with `island:`). Inside an island: data parallel on the engine that kind already has.
Across islands: the DiLoCo outer loop. The plan says, per node, how many processes run,
the micro-batch its memory affords and where the model lives.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from jupiter.config import ClusterConfig, DomainConfig, Node
from jupiter.errors import JupiterError

Engine = Literal["torch", "mlx"]
Method = Literal["full", "lora", "qlora"]


@dataclass(frozen=True)
class Island:
    name: str
    engine: Engine
    nodes: tuple[Node, ...]

    @property
    def local(self) -> bool:
        return all(n.is_local for n in self.nodes)


def processes_of(node: Node, cluster: ClusterConfig) -> int | None:
    """Training processes on the node; None for "one per GPU", decided there by torchrun."""
    if node.processes != "auto":
        return node.processes
    if node.device_type == "nvidia" and cluster.engine_of(node) == "torch":
        return None
    return 1


def islands(cluster: ClusterConfig) -> list[Island]:
    """The trainer and hybrid nodes grouped into islands, in cluster.yaml's order."""
    groups: dict[str, list[Node]] = {}
    engines: dict[str, Engine] = {}
    for node in cluster.nodes:
        if node.role == "generator":
            continue
        engine = cluster.engine_of(node)
        name = node.island or f"{node.device_type}-{engine}"
        if engines.setdefault(name, engine) != engine:
            raise JupiterError(
                f"island {name} mixes {engines[name]} and {engine} nodes ({node.name}): give "
                "the nodes of each engine their own island: name in cluster.yaml"
            )
        groups.setdefault(name, []).append(node)
    if not groups:
        raise JupiterError(
            "cluster.yaml has no node to train on: give at least one node role trainer or hybrid"
        )
    return [Island(name, engines[name], tuple(nodes)) for name, nodes in groups.items()]


# ----------------------------------------------------------------------------- plan
@dataclass(frozen=True)
class ModelShape:
    n_params: int
    trainable: int
    hidden: int
    layers: int
    vocab: int
    context_length: int
    method: Method


def model_shape(cfg: DomainConfig, base: Path | None = None) -> ModelShape:
    """Sizes for the memory plan: the preset's, or the base model's config.json (`base`: the
    resolved model.base; by default resolved here, a GGUF imported into the workspace)."""
    from jupiter.config import workspace
    from jupiter.models.memory import SIZE_PRESETS
    from jupiter.models.presets import PRESETS, param_count
    from jupiter.models.reference import resolve_model, workspace_cache_dir

    method = cfg.train.method
    if cfg.model.base:
        if base is None:
            cache = workspace_cache_dir(workspace(cfg))
            try:
                base = resolve_model(cfg.model.base, base_dir=cfg.base_dir, cache_dir=cache)
            except JupiterError as err:
                raise JupiterError(f"model.base: {err}") from None
        path = base / "config.json"
        if not path.is_file():
            raise JupiterError(
                f"model.base has no config.json at {path}: point it at a model folder, a Hub "
                "id, a .gguf file or ollama:NAME"
            )
        c = json.loads(path.read_text(encoding="utf-8"))
        c = c.get("text_config", c)
        h, layers, vocab = int(c["hidden_size"]), int(c["num_hidden_layers"]), int(c["vocab_size"])
        inter = int(c.get("intermediate_size", 4 * h))
        n = vocab * h * (1 if c.get("tie_word_embeddings") else 2) + layers * (
            4 * h * h + 3 * h * inter
        )
        preset = min(SIZE_PRESETS.values(), key=lambda p: abs(p.n_params - n))
        trainable = n if method == "full" else preset.trainable(method)
        return ModelShape(n, trainable, h, layers, vocab, cfg.model.context_length, method)
    s = PRESETS[cfg.model.preset]
    n = param_count(cfg.model.preset, cfg.model.vocab_size)
    return ModelShape(
        n, n, s.hidden, s.layers, cfg.model.vocab_size, cfg.model.context_length, "full"
    )


@dataclass(frozen=True)
class NodePlan:
    node: Node
    island: str
    engine: Engine
    processes: int | None
    micro_batch: int | None  # None: does not fit whole
    grad_ckpt: bool
    placement: str


def fit(
    memory_gb: float, shape: ModelShape, precision: str, shards: int
) -> tuple[int, bool] | None:
    """(micro-batch, gradient checkpointing) that fits, or None."""
    from jupiter.models.memory import auto_batch

    try:
        return auto_batch(
            memory_gb,
            shape.n_params,
            shape.trainable,
            shape.method,
            context_length=shape.context_length,
            hidden_size=shape.hidden,
            num_layers=shape.layers,
            vocab_size=shape.vocab,
            precision=precision,
            shards=shards,
        )
    except JupiterError:
        return None


def plan_node(
    node: Node, island: Island, shape: ModelShape, cfg: DomainConfig, cluster: ClusterConfig
) -> NodePlan:
    """Replicated on every process when it fits; else FSDP over a PyTorch island's ranks."""
    procs = processes_of(node, cluster)
    per_proc = node.memory_gb / (procs or 1)
    precision = "fp32" if cfg.train.precision == "fp32" else "bf16"
    ranks = sum(processes_of(n, cluster) or 1 for n in island.nodes)
    choices = [(1, "replicated")]
    if island.engine == "torch" and ranks > 1:
        choices.append((ranks, f"FSDP over {ranks}"))
    for shards, where in choices:
        got = fit(per_proc, shape, precision, shards)
        if got is not None:
            return NodePlan(node, island.name, island.engine, procs, got[0], got[1], where)
    return NodePlan(node, island.name, island.engine, procs, None, True, "does not fit")


def plan_cluster(cluster: ClusterConfig, cfg: DomainConfig) -> list[NodePlan]:
    shape = model_shape(cfg)
    return [plan_node(n, isl, shape, cfg, cluster) for isl in islands(cluster) for n in isl.nodes]


def island_micro_batch(plans: list[NodePlan], island: str) -> int | None:
    """Ranks of one island step together, so the island takes its smallest node's batch."""
    sizes = [p.micro_batch for p in plans if p.island == island]
    return None if any(s is None for s in sizes) else min(s for s in sizes if s is not None)


def mlx_transport(cluster: ClusterConfig) -> str:
    return "mpi" if cluster.backend == "mpi" else cluster.mlx_backend


def write_hostfile(island: Island, cluster: ClusterConfig, path: Path) -> Path:
    """mlx.launch's JSON hostfile: the host to reach by SSH and the IPs of the ring (for
    JACCL, of rank 0's coordinator), and for JACCL each rank's RDMA device to every other.

    A local node is 127.0.0.1 there, which mlx.launch starts without SSH."""
    transport = mlx_transport(cluster)
    hosts: list[dict[str, Any]] = []
    for node in island.nodes:
        ssh = "127.0.0.1" if node.is_local else node.host
        ips = node.ips or [ssh]
        for _ in range(processes_of(node, cluster) or 1):
            hosts.append({"ssh": ssh, "ips": ips})
    if transport.startswith("jaccl"):
        for host, devices in zip(hosts, rdma_matrix(island, cluster, transport), strict=True):
            host["rdma"] = devices
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"backend": transport, "hosts": hosts}
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def rdma_matrix(island: Island, cluster: ClusterConfig, transport: str) -> list[list[str | None]]:
    """Row i: node i's RDMA device toward each node (None toward itself), from the nodes'
    `rdma` maps; jaccl needs every pair, jaccl-ring each node's two ring neighbours."""
    nodes = island.nodes
    crowded = [n.name for n in nodes if (processes_of(n, cluster) or 1) > 1]
    if crowded:
        raise JupiterError(
            f"island {island.name}: {transport} runs one process a Mac, but {', '.join(crowded)}"
            " asks for more: set processes: 1 there (or mlx_backend: ring)"
        )
    n = len(nodes)
    rows: list[list[str | None]] = []
    for i, node in enumerate(nodes):
        need = {(i - 1) % n, (i + 1) % n} if transport == "jaccl-ring" else set(range(n))
        missing = [nodes[j].name for j in sorted(need - {i}) if nodes[j].name not in node.rdma]
        if missing:
            raise JupiterError(
                f"node {node.name}: no RDMA device toward {', '.join(missing)} for "
                f"mlx_backend: {transport}: add `rdma: {{{missing[0]}: rdma_enN}}` to the node "
                "in cluster.yaml (`mlx.distributed_config --backend jaccl` lists them on macOS)"
            )
        rows.append(
            [None if j == i else node.rdma.get(other.name) for j, other in enumerate(nodes)]
        )
    return rows
