"""What `jupiter cluster plan` prints, and the summary of a finished cluster run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table

from jupiter.cluster.inventory import NodePlan, island_micro_batch


def plan_table(plans: list[NodePlan]) -> Table:
    table = Table(title="islands: data parallel inside, DiLoCo rounds across")
    for col in (
        "island",
        "engine",
        "node",
        "host",
        "GB",
        "procs",
        "micro",
        "island micro",
        "model",
    ):
        table.add_column(col, overflow="fold")
    for p in plans:
        isl = island_micro_batch(plans, p.island)
        mb = "—" if p.micro_batch is None else f"{p.micro_batch}{' +ckpt' if p.grad_ckpt else ''}"
        table.add_row(
            p.island,
            p.engine,
            p.node.name,
            p.node.host,
            f"{p.node.memory_gb:g}",
            "per GPU" if p.processes is None else str(p.processes),
            mb,
            "—" if isl is None else str(isl),
            p.placement,
        )
    return table


def plan_notes(plans: list[NodePlan], store: str) -> list[str]:
    """What the table cannot say: nodes that do not fit, a store other machines cannot see."""
    notes = []
    for p in plans:
        if p.micro_batch is None:
            notes.append(
                f"node {p.node.name}: the model does not fit in {p.node.memory_gb:g} GB: use "
                "train.method lora or qlora, a smaller model.preset, or a shorter context_length"
            )
    remote = [p.node.name for p in plans if not p.node.is_local]
    if remote and "://" not in store:
        notes.append(
            f"sync.store {store} must be the same shared folder (NFS) on {', '.join(remote)}; "
            "otherwise set it to an fsspec URL every node reaches (s3://…, sftp://…)"
        )
    return notes


def summary(rows: list[dict[str, Any]]) -> list[str]:
    """Totals over the rounds: bytes sent and the reduction against per-step all-reduce,
    tokens/s and barrier wait per island, the held-out loss curve."""
    if not rows:
        return ["no round finished yet"]
    sent = sum(r["bytes"] for r in rows)
    allreduce = sum(r["allreduce_bytes"] for r in rows)
    lines = [
        f"rounds: {len(rows)}; sent {sent / 2**20:,.1f} MiB in all "
        f"({sent / len(rows) / 2**20:,.2f} MiB a round); all-reducing gradients every step "
        f"across islands would send {allreduce / 2**20:,.1f} MiB: "
        f"{allreduce / sent if sent else 0:.1f}× less",
    ]
    islands = sorted({n for r in rows for n in r["tokens_per_s"]})
    for name in islands:
        tps = [r["tokens_per_s"][name] for r in rows if name in r["tokens_per_s"]]
        wait = sum(r["wait_s"].get(name, 0.0) for r in rows)
        skipped = sum(name in r["skipped"] for r in rows)
        lines.append(
            f"island {name}: {sum(tps) / len(tps):,.0f} tokens/s, {len(tps)} rounds "
            f"({skipped} skipped), {wait:,.1f} s waiting at round barriers"
        )
    curve = [f"{r['heldout_loss']:.4f}" for r in rows if r.get("heldout_loss") is not None]
    if curve:
        lines.append("held-out loss by round: " + " → ".join(curve))
    return lines


def report_path(workdir: Path) -> Path:
    return workdir / "cluster_report.jsonl"


def plan_data(plans: list[NodePlan], launch: list[str], notes: list[str]) -> dict[str, Any]:
    """`jupiter cluster plan --json`: per node its island, engine, processes, micro-batch
    (null: does not fit), the island's micro-batch and the placement; the launch commands
    and the notes."""
    nodes = [
        {
            "node": p.node.name,
            "host": p.node.host,
            "device_type": p.node.device_type,
            "memory_gb": p.node.memory_gb,
            "island": p.island,
            "engine": p.engine,
            "processes": p.processes,
            "micro_batch": p.micro_batch,
            "grad_ckpt": p.grad_ckpt,
            "island_micro_batch": island_micro_batch(plans, p.island),
            "placement": p.placement,
        }
        for p in plans
    ]
    return {"nodes": nodes, "launch": launch, "notes": notes}
