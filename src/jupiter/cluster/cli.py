"""`jupiter cluster`: the islands and launch plan of cluster.yaml, and a check of every
node."""

from __future__ import annotations

import typer

from jupiter.cli_context import console, print_json, workspace_for
from jupiter.cli_types import ClusterFile, Domain, JsonFlag, Quick
from jupiter.config import ClusterConfig, load_cluster, load_domain

commands = typer.Typer()  # merged into the app by jupiter/cli.py
cluster_app = typer.Typer(
    help="The machines of cluster.yaml: islands, launch plan, checks.", no_args_is_help=True
)
commands.add_typer(cluster_app, name="cluster")


@cluster_app.command("plan")
def cluster_plan(
    domain: Domain,
    cluster_file: ClusterFile = None,
    quick: Quick = False,
    as_json: JsonFlag = False,
) -> None:
    """Islands, launch commands, per-node batch sizes and model placement."""
    from jupiter.cluster.inventory import plan_cluster
    from jupiter.cluster.report import plan_data, plan_notes, plan_table

    cfg = load_domain(domain, quick=quick)
    cluster = load_cluster(cluster_file)
    plans = plan_cluster(cluster, cfg)
    if as_json:
        notes = plan_notes(plans, cluster.sync.store or "<run>/sync")
        doc = plan_data(plans, cluster_launch_lines(domain, quick, cluster), notes)
        print_json({"domain": cfg.name, "sync": cluster.sync.model_dump(mode="json")} | doc)
        return
    console.print(plan_table(plans))
    sync = cluster.sync
    outer = (
        "plain averaging"
        if sync.outer == "average"
        else f"Nesterov lr {sync.outer_lr} momentum {sync.outer_momentum}"
    )
    if sync.outer == "nesterov" and sync.outer_lr_schedule != "constant":
        outer += f" ({sync.outer_lr_schedule} to {sync.outer_min_lr})"
    frags = (
        f", {sync.fragments} fragments of the layers synced in turn (Streaming DiLoCo)"
        if sync.fragments > 1
        else ""
    )
    if sync.overlap_steps:
        frags += f", the next round's first {sync.overlap_steps} steps taken before its weights"
    console.print(
        f"outer loop: {sync.inner_steps} inner steps a round{frags}, {sync.aggregate} of the "
        f"pseudo-gradients ({sync.dtype}), {outer}; store: {sync.store or '<run>/sync'}"
    )
    for line in cluster_launch_lines(domain, quick, cluster):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    for note in plan_notes(plans, cluster.sync.store or "<run>/sync"):
        console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)


def cluster_launch_lines(domain: str, quick: bool, cluster: ClusterConfig) -> list[str]:
    from jupiter.cluster.launch import describe_commands

    workdir = workspace_for(domain, quick).train_dir(1)
    return describe_commands(cluster, cluster.sync.store or str(workdir / "sync"), workdir)


@cluster_app.command("check")
def cluster_check(cluster_file: ClusterFile = None) -> None:
    """Every node: SSH, Python and Jupiter versions, device, free memory, clock skew."""
    from jupiter.cluster.check import cluster_check_command

    code = cluster_check_command(cluster_file)
    if code:
        raise typer.Exit(code)
