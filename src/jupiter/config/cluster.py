"""The cluster schema: the machines of cluster.yaml, their islands and the outer loop."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from jupiter.config.domain import LLMConfig, Strict


class Node(Strict):
    host: str = "localhost"
    name: str = "local"
    device_type: Literal["mac", "nvidia", "cpu"] = "cpu"
    memory_gb: float = Field(default=16, gt=0)
    chip: str = ""
    role: Literal["generator", "trainer", "hybrid"] = "hybrid"
    connection_type: Literal["thunderbolt", "ethernet"] = "ethernet"
    ssh_user: str = ""
    ssh_port: int = Field(default=22, ge=1, le=65535)
    # the training engine: auto = mlx on a Mac, torch on NVIDIA and CPU nodes
    backend: Literal["auto", "torch", "mlx"] = "auto"
    # training processes on this node: auto = one per GPU on NVIDIA, else 1
    processes: int | Literal["auto"] = "auto"
    # the Python that has Jupiter on the node: empty = this interpreter on localhost,
    # `python3` over SSH
    python: str = ""
    # the island this node trains in: empty = one island per device_type and backend
    island: str = Field(default="", pattern=r"^[A-Za-z0-9_\-]*$")
    # addresses other nodes of its island reach it at (MLX ring; e.g. the Thunderbolt
    # bridge's IP); empty = host
    ips: list[str] = Field(default_factory=list)
    # JACCL (mlx_backend: jaccl, RDMA over Thunderbolt 5): this Mac's RDMA device toward
    # each other Mac of its island, by node name, e.g. {mini: rdma_en3}; on macOS,
    # `mlx.distributed_config --backend jaccl` finds them
    rdma: dict[str, str] = Field(default_factory=dict)
    # a generator or hybrid node's LLM server; `generator.llm.backend: cluster` balances
    # requests over every node that has one
    generator: LLMConfig | None = None

    @model_validator(mode="after")
    def _check(self) -> Node:
        if self.processes != "auto" and self.processes < 1:
            raise ValueError("processes must be at least 1 (or auto)")
        return self

    @property
    def is_local(self) -> bool:
        return self.host in ("localhost", "127.0.0.1", "::1")


class SyncConfig(Strict):
    """The cross-island outer loop (DiLoCo, Douillard et al. 2023)."""

    # where pseudo-gradients and global weights meet: a directory (local or NFS) or any
    # fsspec URL (s3://bucket/run, sftp://host/path); empty = the run's own folder
    store: str = ""
    inner_steps: int = Field(default=50, ge=1)  # H: inner steps per round (paper: 500)
    outer: Literal["nesterov", "average"] = "nesterov"  # average = plain weight averaging
    outer_lr: float = Field(default=0.7, gt=0)  # the paper's values
    outer_momentum: float = Field(default=0.9, ge=0, lt=1)
    # the outer lr over the rounds (outer: nesterov): constant, or from outer_lr down to
    # outer_min_lr by the last round along a cosine or a line (0 would discard the last
    # round's inner steps: keep it above 0)
    outer_lr_schedule: Literal["constant", "cosine", "linear"] = "constant"
    outer_min_lr: float = Field(default=0.0, ge=0)
    # Streaming DiLoCo (Douillard et al. 2025): the model's layers in this many strided
    # fragments (layer i in fragment i mod F; embeddings, final norm and head in fragment
    # 0), one fragment synced a round, so each is synced every F x inner_steps steps, each
    # round sends 1/F of the model, and the last round syncs them all; 1 = every parameter
    # every round
    fragments: int = Field(default=1, ge=1)
    # Streaming DiLoCo's overlap (tau): an island that has sent a round's pseudo-gradient
    # goes on with this many inner steps of the next round on its own weights instead of
    # waiting, then takes the new global weights plus what those steps changed (the wait
    # for the slowest island and the store hidden behind compute); 0 = wait
    overlap_steps: int = Field(default=0, ge=0)
    aggregate: Literal["mean", "median", "trimmed_mean", "krum"] = "mean"  # mean: token-weighted
    trim_fraction: float = Field(default=0.25, ge=0, lt=0.5)  # cut from each end (trimmed_mean)
    byzantine: int = Field(default=1, ge=0)  # islands Krum tolerates
    # of the published pseudo-gradients; int8 / int4: integers per 64 values and a scale
    dtype: Literal["bf16", "fp16", "int8", "int4"] = "bf16"
    # what islands download a round: the fp32 global weights, or their change since the last
    # round quantized (int8 / int4), which every island adds to the weights it holds
    down_dtype: Literal["fp32", "int8", "int4"] = "fp32"
    round_timeout_s: float = Field(default=1800, gt=0)  # an island later than this is skipped
    heartbeat_s: float = Field(default=5, gt=0)  # an island silent 3x this long is down
    speed_aware: bool = False  # faster islands run more inner steps per round

    @model_validator(mode="after")
    def _check_schedule(self) -> SyncConfig:
        if self.overlap_steps >= self.inner_steps:
            raise ValueError(
                f"sync.overlap_steps {self.overlap_steps} must be below sync.inner_steps "
                f"{self.inner_steps}: the overlapped steps are the start of the next round"
            )
        if self.outer_lr_schedule != "constant" and self.outer == "average":
            raise ValueError(
                f"sync.outer_lr_schedule {self.outer_lr_schedule} needs outer: nesterov "
                "(averaging is an outer step of lr 1); drop the schedule or set outer: nesterov"
            )
        if self.outer_lr_schedule != "constant" and self.outer_min_lr > self.outer_lr:
            raise ValueError(
                f"sync.outer_min_lr {self.outer_min_lr} is above outer_lr {self.outer_lr}: "
                "a schedule decays from outer_lr to outer_min_lr"
            )
        return self


class ClusterConfig(Strict):
    backend: Literal["auto", "torch", "mlx", "mpi"] = "auto"
    # how the Macs of an MLX island talk: ring (TCP over Ethernet or Thunderbolt), mpi
    # (backend: mpi implies it), or jaccl / jaccl-ring (RDMA over Thunderbolt 5: every node
    # lists its `rdma` devices; one process a node)
    mlx_backend: Literal["ring", "mpi", "jaccl", "jaccl-ring"] = "ring"
    # extra ssh arguments for every node, e.g. ["-i", "~/.ssh/cluster", "-J", "bastion"]
    ssh_options: list[str] = Field(default_factory=list)
    sync: SyncConfig = Field(default_factory=SyncConfig)
    nodes: list[Node] = Field(default_factory=lambda: [Node()], min_length=1)

    @model_validator(mode="after")
    def _check_names(self) -> ClusterConfig:
        names = [n.name for n in self.nodes if "name" in n.model_fields_set]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(
                f"node name '{twice[0]}' is given to more than one node: give "
                "each node its own name (plans, logs and reports go by it)"
            )
        return self

    def engine_of(self, node: Node) -> Literal["torch", "mlx"]:
        """The node's own backend, else the cluster's, else mlx on a Mac and torch elsewhere
        (backend: mpi is MLX over MPI)."""
        if node.backend != "auto":
            return node.backend
        if self.backend in ("torch", "mlx"):
            return self.backend
        return "mlx" if self.backend == "mpi" or node.device_type == "mac" else "torch"
