"""`jupiter train`: the train stage, on one machine, over torchrun, or on every island
of cluster.yaml."""

from __future__ import annotations

from typing import Annotated

import typer

from jupiter.cli_context import workspace_for
from jupiter.cli_types import ClusterFile, Domain, Quick
from jupiter.config import load_cluster
from jupiter.errors import JupiterError

commands = typer.Typer()  # merged into the app by jupiter/cli.py


@commands.command()
def train(
    domain: Domain,
    quick: Quick = False,
    nproc: Annotated[int, typer.Option(help="Processes on this machine (GPUs, or CPU ranks).")] = 1,
    nnodes: Annotated[int, typer.Option(help="Machines taking part.")] = 1,
    node_rank: Annotated[int, typer.Option(help="This machine's index, 0 on the master.")] = 0,
    master: Annotated[str, typer.Option(help="HOST:PORT of node 0 (with --nnodes > 1).")] = "",
    cluster: Annotated[
        bool, typer.Option("--cluster", help="Train on every island of cluster.yaml.")
    ] = False,
    cluster_file: ClusterFile = None,
) -> None:
    """Train the student on the accepted examples (resumes an interrupted run).

    With --nproc/--nnodes it runs through torchrun: DDP (or FSDP2 / DeepSpeed, per
    train.distributed) over NCCL on GPUs and gloo on CPUs. With --cluster, every island of
    cluster.yaml trains (torchrun on NVIDIA/CPU nodes, mlx.launch on Macs) and a DiLoCo
    outer loop syncs them.
    """
    from jupiter.train.launch import Launch

    launch = Launch(nproc, nnodes, node_rank, master)
    launch.check()
    if cluster and launch.distributed:
        raise JupiterError("--cluster takes its processes from cluster.yaml: drop --nproc/--nnodes")
    ws = workspace_for(domain, quick)
    ws.launch = launch
    ws.cluster = load_cluster(cluster_file) if cluster else None
    from jupiter.improve.cycle import run_stage_command

    try:
        run_stage_command(ws, "train")
    finally:
        ws.close()
