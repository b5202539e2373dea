"""`jupiter init` and `jupiter config`: a new domain YAML, and the resolved configs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer
import yaml

from jupiter.cli_context import console
from jupiter.cli_types import Domain, Quick
from jupiter.config import config_root, domain_path, load_cluster, load_domain
from jupiter.errors import JupiterError

commands = typer.Typer()  # merged into the app by jupiter/cli.py
config_app = typer.Typer(help="Inspect configuration.", no_args_is_help=True)
commands.add_typer(config_app, name="config")


@commands.command()
def init(
    domain: Domain,
    force: Annotated[bool, typer.Option(help="Overwrite an existing file.")] = False,
) -> None:
    """Create config/domains/NAME.yaml from the template."""
    if not re.fullmatch(r"[A-Za-z0-9_\-]+", domain):
        raise JupiterError(f"invalid domain name '{domain}': use letters, digits, _ and -")
    template = config_root() / "domains" / "_template.yaml"
    target = Path.cwd() / "config" / "domains" / f"{domain}.yaml"
    if target.exists() and not force:
        raise JupiterError(f"{target} already exists (use --force to overwrite)")
    text = template.read_text(encoding="utf-8").replace("name: my_domain", f"name: {domain}", 1)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    console.print(f"wrote {target}: edit its sources, then `jupiter start --domain {domain}`")


@config_app.command("show")
def config_show(domain: Domain, quick: Quick = False) -> None:
    """Print the resolved domain config (defaults filled in)."""
    cfg = load_domain(domain, quick=quick)
    data = cfg.model_dump(mode="json", exclude={"quick"})
    console.print(f"# {domain_path(domain)}" + (" (with --quick)" if quick else ""))
    console.print(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), end="", markup=False)


@config_app.command("cluster")
def config_cluster(
    path: Annotated[str | None, typer.Option(help="cluster.yaml to read.")] = None,
) -> None:
    """Print the resolved cluster config."""
    data = load_cluster(path).model_dump(mode="json")
    console.print(yaml.safe_dump(data, sort_keys=False), end="", markup=False)


@config_app.command("presets")
def config_presets(
    context: Annotated[int, typer.Option(min=1, help="Sequence length of the estimate.")] = 2048,
    batch: Annotated[int, typer.Option(min=1, help="Micro-batch of the estimate.")] = 1,
) -> None:
    """Fine-tuning presets by model size (1B … 120B): method, LoRA rank, memory estimates."""
    from rich.table import Table

    from jupiter.models.memory import SIZE_PRESETS, presets_table

    table = Table(
        title=f"memory of one process (no sharding), context {context}, micro-batch {batch}, GiB"
    )
    for col in ("size", "params", "method", "LoRA r/alpha", "no checkpointing", "checkpointing"):
        table.add_column(col, justify="left" if col in ("size", "method") else "right")
    for row in presets_table(context, batch):
        p = SIZE_PRESETS[str(row["size"])]
        lora = "" if row["method"] == "full" else f"{p.lora_r}/{p.lora_alpha}"
        star = " (recommended)" if row["recommended"] else ""
        table.add_row(
            str(row["size"]),
            f"{row['params_b']}B",
            f"{row['method']}{star}",
            lora,
            str(row["gb"]),
            str(row["gb_ckpt"]),
        )
    console.print(table)
