"""The `jupiter` command: one Typer app, each command a thin call into a stage."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import sys
import warnings
from pathlib import Path
from typing import Annotated, Literal, cast, get_args

import typer
import yaml
from rich.console import Console
from rich.markup import escape

from jupiter import __version__
from jupiter.cli_types import FINITE, FiniteFloat
from jupiter.config import ClusterConfig, config_root, domain_path, load_cluster, load_domain
from jupiter.errors import JupiterError
from jupiter.outputs import output_lock

app = typer.Typer(
    help="Jupiter: one domain YAML in, a domain-expert language model out.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
)
config_app = typer.Typer(help="Inspect configuration.", no_args_is_help=True)
app.add_typer(config_app, name="config")
data_app = typer.Typer(
    help="Inspect and export the data: what each stage kept and dropped.", no_args_is_help=True
)
app.add_typer(data_app, name="data")
cluster_app = typer.Typer(
    help="The machines of cluster.yaml: islands, launch plan, checks.", no_args_is_help=True
)
app.add_typer(cluster_app, name="cluster")
federated_app = typer.Typer(
    help="Federated training on Flower: clients keep their data, only weights travel.",
    no_args_is_help=True,
)
app.add_typer(federated_app, name="federated")
ClusterFile = Annotated[
    str | None, typer.Option("--cluster-file", help="cluster.yaml to use (default: config's).")
]

console = Console()
err_console = Console(stderr=True)
STATE = {"debug": False}

Domain = Annotated[str, typer.Option("--domain", "-d", help="Domain name or path to its YAML.")]
Quick = Annotated[bool, typer.Option("--quick", help="Use the YAML's quick: overrides.")]
JsonFlag = Annotated[
    bool, typer.Option("--json", help="One JSON document on stdout (messages go to stderr).")
]


def print_json(doc: object) -> None:
    """The whole of stdout for --json: one JSON document, nothing else."""
    import json

    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def workspace_for(domain: str, quick: bool):  # noqa: ANN201 - Workspace, imported lazily
    from jupiter.improve.workspace import Workspace

    return Workspace(load_domain(domain, quick=quick), quick=quick, console=console)


@app.callback()
def root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    STATE["debug"] = debug


@app.command()
def version() -> None:
    """Print Jupiter's version."""
    console.print(f"jupiter {__version__}")


@app.command()
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
        table.add_row(str(row["size"]), f"{row['params_b']}B", f"{row['method']}{star}", lora,
                      str(row["gb"]), str(row["gb_ckpt"]))  # fmt: skip
    console.print(table)


@data_app.command("report")
def data_report_cmd(
    domain: Domain,
    quick: Quick = False,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write one self-contained HTML page here.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Documents by source, examples by status and kind, and per cycle what collect and
    filter kept and dropped, by reason, with samples."""
    from jupiter.data.report import (
        data_report,
        data_summary,
        report_data,
        report_tables,
        write_html,
    )

    ws = workspace_for(domain, quick)
    where = {"domain": ws.cfg.name, "workspace": str(ws.root), "exists": ws.has_store()}
    if not ws.has_store():
        if as_json:
            print_json(where)
            return
        console.print(f"no workspace yet at {ws.root}: run `jupiter start --domain {domain}`")
        return
    try:
        reports, summary = data_report(ws.store), data_summary(ws.store)
    finally:
        ws.close()
    if as_json:
        if html is not None:
            extra = {"domain": ws.cfg.name, "workspace": str(ws.root)}
            where["html"] = str(write_html(reports, html, f"{ws.cfg.name}: data report", extra,
                                           summary))  # fmt: skip
        print_json(where | report_data(reports, summary))
        return
    for table in report_tables(reports, summary):
        console.print(table)
    if html is not None:
        extra = {"domain": ws.cfg.name, "workspace": str(ws.root)}
        out = write_html(reports, html, f"{ws.cfg.name}: data report", extra, summary)
        console.print(f"html report: {out}")


@data_app.command("export")
def data_export_cmd(
    domain: Domain,
    quick: Quick = False,
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default: <workspace>/export).")
    ] = None,
    fmt: Annotated[
        str,
        typer.Option("--format", help="messages, alpaca, sharegpt, text, completions, mistral."),
    ] = "messages",
    split: Annotated[str, typer.Option(help="train,validation,test fractions.")] = "0.9,0.05,0.05",
    seed: Annotated[int, typer.Option(help="Seed of the document split and of --balance.")] = 0,
    balance: Annotated[bool, typer.Option("--balance", help="Even out easy/medium/hard.")] = False,
    experts: Annotated[
        bool,
        typer.Option("--experts", help="Per-expert datasets (the YAML's experts:) and a router."),
    ] = False,
    status: Annotated[
        str, typer.Option(help="Examples of these statuses (accepted, used: trained on).")
    ] = "accepted,used",
) -> None:
    """Export the examples as train/validation/test JSONL, split by source document."""
    from jupiter.data.experts import EXPERT_KEYWORDS, build_expert_datasets
    from jupiter.data.export import doc_ids_of, export_examples
    from jupiter.data.formats import FORMATS, Format

    if fmt not in FORMATS:
        raise JupiterError(f"unknown --format {fmt!r}: use one of {', '.join(FORMATS)}")
    form = cast(Format, fmt)
    try:
        a, b, c = (float(x) for x in split.split(","))
    except ValueError:
        raise JupiterError(
            f"--split takes three numbers like 0.9,0.05,0.05, got {split!r}"
        ) from None
    _check_export_flags((a, b, c), status, experts, domain, quick)
    ws = workspace_for(domain, quick)
    if out is not None:
        _check_data_out(out, ws.root)
    if not ws.has_store():
        raise JupiterError(f"no workspace yet at {ws.root}: run `jupiter start --domain {domain}`")
    try:
        examples = [e for s in status.split(",") for e in ws.store.iter_examples(status=s.strip())]
        doc_of = doc_ids_of(ws.store)
    finally:
        ws.close()
    if not examples:
        raise JupiterError(f"no {status} examples in {ws.store_path}: run the filter stage first")
    out_dir, cfg = out or ws.root / "export", ws.cfg
    if experts and not cfg.experts:
        raise JupiterError("--experts needs an `experts:` list in the domain YAML")
    with output_lock(out_dir):  # a second export to the same folder fails in one line
        if experts:
            names = [e.name for e in cfg.experts]
            words = {e.name: EXPERT_KEYWORDS.get(e.name, []) + e.keywords for e in cfg.experts}
            results = build_expert_datasets(
                examples, doc_of, names, out_dir, (a, b, c), seed, words, form, cfg.system_prompt
            )
            for name, res in results.items():
                console.print(f"{name}: {res.counts}")
            return
        res = export_examples(
            examples, doc_of, out_dir, form, (a, b, c), seed, cfg.system_prompt, balance
        )
    console.print(f"{sum(res.counts.values())} examples → {out_dir}: {res.counts}")
    if res.skipped:
        console.print(f"skipped: {res.skipped}")


def _check_data_out(out: Path, workspace: Path) -> None:
    """`data export --out`: a folder of its own (inside the workspace is its default place),
    never the workspace itself, a folder holding it, or a file."""
    out, workspace = out.expanduser().resolve(), workspace.resolve()
    if out == workspace or out in workspace.parents:
        what = "is" if out == workspace else "holds"
        raise JupiterError(f"--out {out} {what} the workspace {workspace}: choose a folder of "
                           "its own (default: <workspace>/export)")  # fmt: skip
    above = next((p for p in (out, *out.parents) if p.exists() and not p.is_dir()), None)
    if above is not None:
        raise JupiterError(f"--out {out}: {above} is a file: choose a folder for the export")


def _check_export_flags(
    fractions: tuple[float, float, float], status: str, experts: bool, domain: str, quick: bool
) -> None:
    """`data export`'s flags checked before the store is read: a bad flag is named as such."""
    from jupiter.data.export import check_fractions
    from jupiter.records import ExampleStatus

    try:
        check_fractions(fractions)
    except JupiterError as err:
        raise JupiterError(f"--split: {err}") from None
    known = get_args(ExampleStatus)
    bad = [s.strip() for s in status.split(",") if s.strip() not in known]
    if bad:
        raise JupiterError(f"--status: unknown status {bad[0]!r}: use {', '.join(known)}")
    if experts and not load_domain(domain, quick=quick).experts:
        raise JupiterError("--experts needs an `experts:` list in the domain YAML")


def _run_stage(stage: str, domain: str, quick: bool, launch: object = None) -> None:
    ws = workspace_for(domain, quick)
    ws.launch = launch
    from jupiter.improve.cycle import run_stage_command

    try:
        run_stage_command(ws, stage)  # refused without its input; marked done in order
    finally:
        ws.close()


STAGE_COMMANDS = {
    "collect": "Collect the domain's documents into the store.",
    "generate": "Generate examples with the current generator into the queue.",
    "filter": "Filter the pending examples of the current cycle.",
}


def _stage_command(stage: str, doc: str) -> None:
    def command(domain: Domain, quick: Quick = False) -> None:
        _run_stage(stage, domain, quick)

    app.command(name=stage, help=doc)(command)


for _stage, _doc in STAGE_COMMANDS.items():
    _stage_command(_stage, _doc)


@app.command()
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


@cluster_app.command("plan")
def cluster_plan(
    domain: Domain, cluster_file: ClusterFile = None, quick: Quick = False,
    as_json: JsonFlag = False,
) -> None:  # fmt: skip
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
    outer = ("plain averaging" if sync.outer == "average"
             else f"Nesterov lr {sync.outer_lr} momentum {sync.outer_momentum}")  # fmt: skip
    console.print(f"outer loop: {sync.inner_steps} inner steps a round, {sync.aggregate} of the "
                  f"pseudo-gradients ({sync.dtype}), {outer}; store: {sync.store or '<run>/sync'}")  # fmt: skip
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


@app.command()
def doctor(
    domain: Annotated[
        str | None, typer.Option("--domain", "-d", help="Also check this domain's servers "
                                 "and models.")
    ] = None,
    cluster_file: Annotated[
        str | None, typer.Option("--cluster-file", help="Also probe the nodes of this file.")
    ] = None,
    timeout: Annotated[
        float, typer.Option(click_type=FiniteFloat(min=0.1), help="Seconds per network probe.")
    ] = 3.0,
    as_json: JsonFlag = False,
) -> None:  # fmt: skip
    """Check this machine and the domain's surroundings: Python, torch, GPUs, NCCL/gloo,
    disk, memory, optional packages, LLM servers, HF cache, models, cluster nodes. One line
    per check; every warn and fail with its fix; exit 1 when any check fails."""
    from jupiter.doctor.run import context, failed, print_report, report_json, run_checks

    cfg = load_domain(domain) if domain else None
    if cluster_file and not Path(cluster_file).is_file():
        raise JupiterError(f"--cluster-file {cluster_file}: no such file: give the path of "
                           "a cluster.yaml (see config/cluster.yaml)")  # fmt: skip
    if cluster_file:  # a file the user named that does not parse is refused like a missing one
        load_cluster(cluster_file)
    checks = run_checks(context(cfg, cluster_file, timeout), debug=STATE["debug"])
    if as_json:
        print_json(report_json(checks))
    else:
        print_report(checks, console)
    if failed(checks):
        raise typer.Exit(1)


@app.command()
def start(
    domain: Domain = "python",
    auto: Annotated[bool, typer.Option("--auto", help="Run every stage without asking.")] = False,
    interactive: Annotated[
        bool, typer.Option("--interactive", help="Ask before each stage; show samples.")
    ] = False,
    quick: Quick = False,
) -> None:
    """Run the cycle: collect → generate → filter → train → eval → decide."""
    if auto and interactive:
        raise JupiterError("--auto and --interactive exclude each other: pick one")
    ws = workspace_for(domain, quick)  # validate the config before the heavy imports
    from jupiter.improve.cycle import run_cycles

    try:
        run_cycles(ws, interactive=interactive)
    finally:
        ws.close()
    console.print(f"workspace: {ws.root}")


@app.command()
def status(domain: Domain, quick: Quick = False, as_json: JsonFlag = False) -> None:
    """Cycles, data counts by status and reason, scores, and the current generator."""
    from jupiter.improve.report import status_data, status_tables

    ws = workspace_for(domain, quick)
    if as_json:
        doc = {"domain": ws.cfg.name, "workspace": str(ws.root), "exists": False}
        try:
            print_json(status_data(ws) if ws.has_store() else doc)
        finally:
            ws.close()
        return
    if not ws.has_store():
        console.print(f"no workspace yet at {ws.root}: run `jupiter start --domain {domain}`")
        return
    try:
        for table in status_tables(ws):
            console.print(table)
    finally:
        ws.close()


@app.command()
def generators(domain: Domain, quick: Quick = False) -> None:
    """The lineage: every generator and rejected student, its parent, cycle, figures, the
    data it was trained on, and why it was promoted or kept out; then the activations."""
    from jupiter.improve.lineage import lineage_tables

    ws = workspace_for(domain, quick)
    if not ws.has_store():  # nothing to list is an error, as in rollback
        raise JupiterError(f"no workspace yet at {ws.root}: run `jupiter start --domain "
                           f"{domain}` first")  # fmt: skip
    try:
        for table in lineage_tables(ws):
            console.print(table)
    finally:
        ws.close()


@app.command(name="rollback")
def rollback_cmd(
    domain: Domain,
    to: Annotated[
        str | None,
        typer.Option("--to", help="Generator id (see `jupiter generators`); default: the "
                     "active one's parent."),
    ] = None,
    quick: Quick = False,
) -> None:  # fmt: skip
    """Make an earlier generator active again; recorded in the lineage."""
    from jupiter.improve.lineage import rollback

    ws = workspace_for(domain, quick)
    try:
        done = rollback(ws, to)
    finally:
        ws.close()
    console.print(
        f"rolled back: {done['to']} is the active generator again (was {done['from']}); "
        "the next cycle's data comes from it",
        highlight=False,
    )


# `jupiter chat` and `jupiter serve`: the template a model without one renders chats with
ChatTemplate = Annotated[
    str,
    typer.Option(
        help="auto (the model's own, else its family's) | chatml | gemma | llama3 | mistral "
        "| PATH.jinja"
    ),
]


OpenBook = Annotated[
    bool,
    typer.Option(
        "--open-book",
        help="Put the top-k passages of the model's retrieval index before each question.",
    ),
]
TopK = Annotated[int, typer.Option(min=1, help="Passages per question with --open-book.")]


def user_model(ref: str) -> Path:
    """A --model reference as a local dir; a GGUF is imported once into the user's cache."""
    from jupiter.models.reference import resolve_model, user_cache_dir

    return resolve_model(ref, base_dir=None, cache_dir=user_cache_dir(), console=err_console)


@app.command(name="eval")
def eval_cmd(
    domain: Annotated[
        str | None, typer.Option("--domain", "-d", help="Domain name or path to its YAML.")
    ] = None,
    quick: Quick = False,
    model: Annotated[
        str | None,
        typer.Option(help="Score this model instead (dir, Hub id, .gguf, ollama:NAME); with --qa."),
    ] = None,
    qa: Annotated[
        Path | None, typer.Option("--qa", help="JSONL of {id, question, answer} (or choices).")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Write the JSON report here.")] = None,
    mc_choices: Annotated[int, typer.Option(min=2, help="Choices per built MC item.")] = 4,
    distractors: Annotated[str, typer.Option(help="hard | random")] = "hard",
    max_items: Annotated[int | None, typer.Option(min=1)] = None,
    max_new_tokens: Annotated[int, typer.Option(min=1)] = 48,
    general: Annotated[
        Path | None, typer.Option(help="Out-of-domain text file or folder (default: bundled).")
    ] = None,
    general_max_bytes: Annotated[int, typer.Option(min=0, help="0: no general_bpb.")] = 40_000,
    chat_template: ChatTemplate = "auto",
    system_prompt: str = "",
    seed: int = 0,
    open_book: OpenBook = False,
    top_k: TopK = 3,
    passages: Annotated[
        Path | None,
        typer.Option(
            help="With --open-book: the model dir whose retrieval index to use "
            "(default: the scored model's own)."
        ),
    ] = None,
    export_lm_eval: Annotated[
        Path | None,
        typer.Option(
            "--export-lm-eval",
            help="With --domain: write the domain's eval set here as an lm-eval task "
            "(YAML + JSONL) instead of evaluating.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Evaluate the student against the current generator (--domain), or score any model on
    any QA set (--model M --qa FILE), with 95% intervals."""
    if export_lm_eval is not None:
        if domain is None or model is not None or qa is not None:
            raise JupiterError("--export-lm-eval writes a domain's eval set: give --domain "
                               "NAME, without --model/--qa")  # fmt: skip
        _export_lm_eval(domain, quick, export_lm_eval, as_json)
        return
    if model is None and qa is None:
        if domain is None:
            raise JupiterError("give --domain NAME, or --model MODEL --qa FILE.jsonl")
        if as_json:
            with contextlib.redirect_stdout(sys.stderr):
                info = _eval_stage_json(domain, quick)
            print_json(info)
        else:
            _run_stage("eval", domain, quick)
        return
    if model is None or qa is None or domain is not None:
        raise JupiterError("--model and --qa go together, without --domain")
    if distractors not in ("hard", "random"):
        raise JupiterError(f"--distractors must be hard or random, got {distractors!r}")
    if passages is not None and not open_book:
        raise JupiterError("--passages names the index --open-book reads: add --open-book, "
                           "or drop --passages")  # fmt: skip
    from jupiter.eval.report import write_report
    from jupiter.eval.standalone import ScoreOptions, print_report, score_model
    from jupiter.models.reference import user_cache_dir

    opts = ScoreOptions(
        model, qa, mc_choices, cast(Literal["hard", "random"], distractors), max_items,
        max_new_tokens, seed, chat_template, system_prompt, general, general_max_bytes,
        open_book=open_book, top_k=top_k, passages=passages,
    )  # fmt: skip
    if out is not None:  # never onto what it reads: the model, the QA set, a workspace
        from jupiter.models.reference import locate_model
        from jupiter.outputs import check_output_file

        given = [locate_model(model, base_dir=None).path, qa, *([general] if general else [])]
        check_output_file(out, given)
    # --out held from before the model loads: a second run to the same file fails at once
    with output_lock(out) if out is not None else contextlib.nullcontext():
        if as_json:
            with contextlib.redirect_stdout(sys.stderr):
                report = score_model(opts, user_cache_dir(), err_console)
                if out is not None:
                    write_report(out, report)
            print_json(report)
            return
        report = score_model(opts, user_cache_dir(), err_console)
        print_report(report, console)
        if out is not None:
            write_report(out, report)
            console.print(f"report: {out}")


def _eval_stage_json(domain: str, quick: bool) -> dict:
    """The eval stage with every message on stderr; its record (figures, comparisons, the
    eval set, lm_eval) for `jupiter eval --json`."""
    from jupiter.improve.cycle import current_cycle, run_stage
    from jupiter.improve.workspace import Workspace

    ws = Workspace(load_domain(domain, quick=quick), quick=quick, console=err_console)
    try:
        cycle = current_cycle(ws) if ws.has_store() else 1
        info = run_stage(ws, cycle, "eval")
        ws.store.mark_stage(cycle, "eval", info)
    finally:
        ws.close()
    return {"domain": ws.cfg.name, "cycle": cycle, "eval_json": str(ws.cycle_dir(cycle) / "eval.json"),
            **info}  # fmt: skip


def _export_lm_eval(domain: str, quick: bool, out: Path, as_json: bool) -> None:
    from jupiter.improve.lmeval import export_eval_set
    from jupiter.improve.workspace import Workspace

    ws = Workspace(load_domain(domain, quick=quick), quick=quick, console=err_console)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            manifest = export_eval_set(ws, out)
    finally:
        ws.close()
    if as_json:
        print_json(manifest)
        return
    console.print(f"{manifest['items']} multiple-choice items of '{manifest['task']}' → "
                  f"{manifest['yaml']}; score a model with:", highlight=False, markup=False,
                  soft_wrap=True)  # fmt: skip
    console.print(manifest["command"], highlight=False, markup=False, soft_wrap=True)


@app.command()
def chat(
    domain: Domain = "python",
    model: Annotated[
        str | None,
        typer.Option(help="Instead of the best one: a model dir, Hub id, .gguf or ollama:NAME."),
    ] = None,
    max_new_tokens: Annotated[int, typer.Option(min=1)] = 128,
    temperature: Annotated[float, typer.Option(click_type=FiniteFloat(min=0.0))] = 0.0,
    chat_template: ChatTemplate = "auto",
    quick: Quick = False,
    open_book: OpenBook = False,
    top_k: TopK = 3,
) -> None:
    """Chat with the domain's best model."""
    from jupiter.serve.chat import ChatSession, best_model, chat_repl, open_book_index

    ws = workspace_for(domain, quick)
    try:
        model_dir = user_model(model) if model else best_model(ws)
        from jupiter.models.folder import is_model_dir

        if not is_model_dir(model_dir):
            raise JupiterError(
                f"not a model dir (no config.json or adapter_config.json): {model_dir}"
            )
        passages = open_book_index(model_dir, ws) if open_book else None
    finally:
        ws.close()
    console.print(f"model: {model_dir}")
    if passages is not None:
        console.print(f"open book: top {top_k} of {len(passages)} passages per question")
    session = ChatSession(
        model_dir, ws.cfg.system_prompt, max_new_tokens, temperature, chat_template,
        passages, top_k,
    )  # fmt: skip
    chat_repl(session, console)


@app.command(name="test")
def batch_test(
    model: Annotated[
        list[str],
        typer.Option("--model", help="Model to test (dir, adapter, checkpoint step-N dir, "
                     ".gguf, Hub id, ollama:NAME); repeat to compare."),
    ],
    prompts: Annotated[
        Path, typer.Option("--prompts", help=".txt (one prompt a line) or .jsonl of "
                           '{"prompt", "expected"?}.')
    ],
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default: test-results/<time>).")
    ] = None,
    max_new_tokens: Annotated[int, typer.Option(min=1)] = 128,
    max_batch: Annotated[int, typer.Option(min=1, help="Prompts decoded together.")] = 16,
    system_prompt: Annotated[str, typer.Option(help="A system message before each prompt.")] = "",
    chat_template: ChatTemplate = "auto",
) -> None:  # fmt: skip
    """Run a list of prompts through each model (greedy, batched, chat template): writes
    results.jsonl, a side-by-side results.md and summary.json; scored (token F1, exact
    match, 95% CI) where the JSONL gives expected answers."""
    import time

    from jupiter.batch.prompts import read_prompts
    from jupiter.batch.report import check_results_out, write_results
    from jupiter.batch.run import BatchOptions, resolve_models, run_models
    from jupiter.models.reference import user_cache_dir

    items = read_prompts(prompts)
    models = resolve_models(model, user_cache_dir(), err_console)
    out_dir = out or Path("test-results") / time.strftime("%Y%m%d-%H%M%S")
    check_results_out(out_dir, [m.path for m in models] + [prompts])  # before any answer
    opts = BatchOptions(max_new_tokens, max_batch, chat_template, system_prompt)
    with output_lock(out_dir):  # taken before the first answer: a second run fails at once
        runs = run_models(models, items, opts, console)
        doc = write_results(out_dir, items, runs)
    for s in doc["models"]:
        score = "" if not s["n_scored"] else (
            f", token F1 {s['f1']:.3f}, exact {s['exact']:.3f} ({s['n_scored']} scored)")  # fmt: skip
        console.print(f"{s['model']}: {s['n']} answers, {s['tokens_per_s'] or 0:g} tokens/s"
                      f"{score}", highlight=False, markup=False)  # fmt: skip
    console.print(f"results: {out_dir / 'results.md'}, {out_dir / 'results.jsonl'}", markup=False)


@app.command()
def serve(
    model: Annotated[
        str,
        typer.Option(
            "--model", help="HF model dir, LoRA adapter dir, Hub id, .gguf file or ollama:NAME."
        ),
    ],
    host: Annotated[
        str, typer.Option(help="Address to bind; other than loopback needs a key.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535)] = 8000,
    api_key: Annotated[
        str | None, typer.Option(envvar="JUPITER_API_KEY", help="Require Bearer KEY.")
    ] = None,
    max_batch: Annotated[int, typer.Option(min=1, help="Requests decoded together.")] = 16,
    name: Annotated[
        str | None, typer.Option(help="Model id clients send (default: dir name).")
    ] = None,
    chat_template: ChatTemplate = "auto",
    open_book: OpenBook = False,
    top_k: TopK = 3,
) -> None:
    """Serve a model over an OpenAI-compatible HTTP API (/v1/chat/completions, /v1/completions).
    A chat request may send "open_book": true (and "open_book_top_k") to get passages."""
    from jupiter.serve.server import ServeOptions, run_server

    opts = ServeOptions(
        model, host, port, api_key or None, max_batch, name, chat_template, open_book, top_k
    )
    run_server(
        opts, log=lambda line: console.print(line, highlight=False, markup=False, soft_wrap=True)
    )


@app.command()
def dashboard(
    domain: Domain,
    quick: Quick = False,
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535)] = 8765,
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar="JUPITER_DASHBOARD_KEY",
            help="Needed beyond loopback: the page answers to /?key=KEY only.",
        ),
    ] = None,
) -> None:
    """A local web page on the domain's run, updating live: cycles with their figures and
    intervals, learning curves, the data queue, generation, the cluster, the lineage."""
    from jupiter.dashboard.server import run_dashboard
    from jupiter.improve.workspace import Workspace

    cfg = load_domain(domain, quick=quick)
    root = Workspace(cfg, quick=quick).root  # only its path: the store is opened read-only
    start = f"jupiter start --domain {domain}" + (" --quick" if quick else "")
    run_dashboard(
        root, cfg.name, host, port, cfg.cycles, cfg.max_examples, start,
        log=lambda line: console.print(line, highlight=False, markup=False, soft_wrap=True),
        api_key=api_key or None,
    )  # fmt: skip


# ---------------------------------------------------------------------------- export
@app.command(name="export")
def export_cmd(
    to: Annotated[str, typer.Option("--to", help="hf | gguf | ollama | mlx")],
    out: Annotated[Path, typer.Option(help="Output folder (written whole or not at all).")],
    model: Annotated[
        str | None, typer.Option(help="Model dir, LoRA adapter, Hub id, .gguf or ollama:NAME.")
    ] = None,
    domain: Annotated[
        str | None, typer.Option("--domain", "-d", help="Export a model of this domain.")
    ] = None,
    best: Annotated[bool, typer.Option("--best", help="The best evaluated student.")] = False,
    cycle: Annotated[int | None, typer.Option(min=1, help="That cycle's student.")] = None,
    checkpoint: Annotated[
        str | None, typer.Option(help="epoch-K or step-N of the (latest or --cycle) run.")
    ] = None,
    quant: Annotated[
        str | None,
        typer.Option(help="hf: auto|f32|f16|bf16; gguf/ollama: f32|f16|bf16|q8_0 (default "
                     "f16/q8_0); mlx: auto|f32|f16|bf16|q8|q4"),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out.")] = False,
    quick: Quick = False,
) -> None:  # fmt: skip
    """Export a model: merged HF dir, GGUF (llama.cpp, LM Studio), Ollama (GGUF + Modelfile)
    or mlx-lm folder; writes OUT/export.json (source, checksums, eval figures)."""
    from jupiter.export.common import MANIFEST
    from jupiter.export.source import from_domain, from_model
    from jupiter.export.writer import (
        check_export_source,
        export_inputs,
        plan_export,
        write_export,
    )
    from jupiter.models.reference import user_cache_dir
    from jupiter.outputs import check_output

    if (model is None) == (domain is None):
        raise JupiterError("give --model MODEL or --domain NAME (one of them)")
    if model is not None and (best or cycle is not None or checkpoint is not None):
        raise JupiterError("--best, --cycle and --checkpoint pick among a domain's models: "
                           "use them with --domain")  # fmt: skip
    plan = plan_export(to, out, quant, force)
    if model is not None:
        source = from_model(model, user_cache_dir(), err_console)
    else:
        ws = workspace_for(domain or "", quick)
        try:
            source = from_domain(ws, best=best, cycle=cycle, checkpoint=checkpoint)
        finally:
            ws.close()
    # an --out that is an input or a workspace is refused before anything is said or read,
    # and a damaged model is never exported
    check_output(plan.out, export_inputs(source), force=plan.force, manifest=MANIFEST)
    check_export_source(source)
    err_console.print(f"exporting {source.selected}: {source.path}", highlight=False,
                      markup=False, soft_wrap=True)  # fmt: skip
    result = write_export(plan, source, err_console)
    for warning in result.warnings:
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    files = ", ".join(result.manifest["files"])
    console.print(f"{plan.fmt} ({plan.quant}) → {result.out}: {files}", highlight=False,
                  markup=False, soft_wrap=True)  # fmt: skip
    if result.create:
        console.print(result.create, highlight=False, markup=False, soft_wrap=True)


# ----------------------------------------------------------------------------- merge
def _merge_validation(spec, base_dir: Path | None):  # noqa: ANN001, ANN202 - lazy types
    """The recipe's validation data: a domain's eval set and held-out chunks, or files
    (relative to the recipe's folder)."""
    from jupiter.merge.validation import ValidationData, file_validation

    if spec is None:
        return None
    if spec.domain is None:
        qa, held = ((base_dir or Path.cwd()) / p if p else None for p in (spec.qa, spec.heldout))
        return file_validation(qa, held, spec.max_items, spec.mc_choices, spec.max_bytes,
                               spec.context)  # fmt: skip
    from jupiter.improve.evalset import eval_items, heldout_texts

    ws = workspace_for(spec.domain, False)
    if not ws.has_store():
        raise JupiterError(f"no workspace yet at {ws.root} to validate on: run `jupiter start "
                           f"--domain {spec.domain}`, or give --qa/--heldout files")  # fmt: skip
    try:
        _, mc, about = eval_items(ws)
        texts = heldout_texts(ws)
    finally:
        ws.close()
    max_bytes = min(spec.max_bytes, ws.cfg.eval.heldout_max_bytes)
    mc = mc[: spec.max_items]
    about = {"domain": spec.domain, "eval_set": about.get("path"), "n_mc": len(mc)}
    return ValidationData(texts, mc, ws.cfg.model.context_length, max_bytes, about)


def _flag_path(ref: str) -> str:
    """A --model/--base path relative to the current dir (a recipe's are relative to it)."""
    return str(Path(ref).resolve()) if Path(ref).expanduser().exists() else ref


@app.command(name="merge")
def merge_cmd(
    recipe: Annotated[Path | None, typer.Option("--recipe", help="Merge recipe YAML.")] = None,
    method: Annotated[
        str | None,
        typer.Option(help="linear | weighted | greedy_soup | convex | task_arithmetic | ties "
                     "| dare_linear | dare_ties | slerp | median | trimmed_mean | krum"),
    ] = None,
    model: Annotated[
        list[str] | None, typer.Option("--model", help="Input model or adapter, DIR[:WEIGHT]; repeat.")
    ] = None,
    base: Annotated[str | None, typer.Option(help="Base model (task vectors; adapters').")] = None,
    out: Annotated[Path | None, typer.Option(help="Output dir (written whole or not at all).")] = None,
    density: Annotated[float | None, typer.Option(click_type=FINITE, help="TIES/DARE: share of entries kept.")] = None,
    t: Annotated[float | None, typer.Option("--t", click_type=FINITE, help="SLERP: 0 first model, 1 second.")] = None,
    lam: Annotated[float | None, typer.Option("--lambda", click_type=FINITE, help="Scale of the merged task vector.")] = None,
    normalize: Annotated[bool | None, typer.Option("--normalize/--no-normalize")] = None,
    seed: Annotated[int | None, typer.Option(help="DARE's masks.")] = None,
    trim_fraction: Annotated[float | None, typer.Option(click_type=FINITE, help="trimmed_mean: cut per end.")] = None,
    byzantine: Annotated[int | None, typer.Option(help="krum: bad models tolerated.")] = None,
    lora: Annotated[str | None, typer.Option(help="Adapters: delta (full model) | concat.")] = None,
    dtype: Annotated[str | None, typer.Option(help="auto | float32 | bfloat16 | float16")] = None,
    domain: Annotated[str | None, typer.Option("--domain", "-d", help="Validate on this domain's eval set.")] = None,
    qa: Annotated[Path | None, typer.Option("--qa", help="Validation QA/MC JSONL.")] = None,
    heldout: Annotated[Path | None, typer.Option(help="Validation held-out text (file or dir).")] = None,
    max_items: Annotated[int | None, typer.Option(min=1, help="Validation MC items.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out.")] = False,
) -> None:  # fmt: skip
    """Merge models or LoRA adapters of one base into one (soups, task arithmetic, TIES,
    DARE, SLERP, robust means), from a recipe YAML or flags; writes DIR/merge.json."""
    from jupiter.merge.engine import merge_models
    from jupiter.merge.recipe import load_recipe, parse_model_flag, parse_recipe
    from jupiter.models.reference import user_cache_dir

    data: dict = {}
    base_dir = None
    if recipe is not None:
        loaded, base_dir = load_recipe(recipe)
        data = loaded.model_dump(by_alias=True, exclude_unset=True)
    if model:
        data["models"] = [parse_model_flag(m) for m in model]
        for m in data["models"]:
            m["model"] = _flag_path(m["model"])
    flags = {"method": method, "base": base and _flag_path(base), "lora": lora, "dtype": dtype,
             "out": out and str(out.expanduser().resolve())}  # fmt: skip
    data |= {k: v for k, v in flags.items() if v is not None}
    params = {"density": density, "t": t, "lambda": lam, "normalize": normalize, "seed": seed,
              "trim_fraction": trim_fraction, "byzantine": byzantine}  # fmt: skip
    data["params"] = data.get("params", {}) | {k: v for k, v in params.items() if v is not None}
    val = {"domain": domain, "qa": qa and str(qa.resolve()),
           "heldout": heldout and str(heldout.resolve()), "max_items": max_items}  # fmt: skip
    if any(v is not None for v in val.values()):
        data["validation"] = data.get("validation") or {}
        data["validation"] |= {k: v for k, v in val.items() if v is not None}
    if "method" not in data or "models" not in data:
        raise JupiterError("give --recipe FILE, or --method and two or more --model DIR[:WEIGHT]")
    where = str(recipe) if recipe else "jupiter merge"
    spec = parse_recipe(data, where)
    info = merge_models(spec, base_dir=base_dir, cache_dir=user_cache_dir(),
                        data=_merge_validation(spec.validation, base_dir), force=force,
                        console=err_console)  # fmt: skip
    weights = ", ".join(f"{Path(i['ref']).name} {w:.3g}"
                        for i, w in zip(info["inputs"], info["weights"], strict=True))  # fmt: skip
    console.print(f"{spec.method}: {weights} -> {info['out']} ({info['output']['kind']}, "
                  f"{info['seconds']:.1f} s, peak RSS {info['peak_rss_mb']:.0f} MB)",
                  highlight=False)  # fmt: skip
    val_out = (info.get("validation") or {}).get("output")
    if val_out:
        figs = ", ".join(f"{k} {val_out[k]:.4f}" for k in ("bpb", "mc_accuracy") if k in val_out)
        console.print(f"validation of the merge: {figs}", highlight=False)


# ------------------------------------------------------------------------- federated
@federated_app.command("server")
def federated_server(
    domain: Domain,
    quick: Quick = False,
    rounds: Annotated[int | None, typer.Option(help="Rounds (federated.rounds).")] = None,
    local_steps: Annotated[int | None, typer.Option(help="Each client's steps a round.")] = None,
    min_clients: Annotated[int | None, typer.Option(help="Clients connected before round 1.")] = None,
    clients_per_round: Annotated[int | None, typer.Option(help="Sampled a round (default: all).")] = None,
    min_results: Annotated[int | None, typer.Option(help="Replies a round needs.")] = None,
    strategy: Annotated[str | None, typer.Option(help="fedavg | fedmedian | trimmed | krum")] = None,
    trim_fraction: Annotated[float | None, typer.Option(click_type=FINITE, help="trimmed: cut per end.")] = None,
    byzantine: Annotated[int | None, typer.Option(help="krum: bad clients tolerated.")] = None,
    address: Annotated[str | None, typer.Option(help="HOST:PORT to serve on (127.0.0.1:9092).")] = None,
    round_timeout: Annotated[float | None, typer.Option(click_type=FINITE, help="Seconds a round waits at most.")] = None,
    straggler_wait: Annotated[float | None, typer.Option(click_type=FINITE, help="Seconds past the quorum.")] = None,
    wait_clients: Annotated[float | None, typer.Option(click_type=FINITE, help="Seconds to wait for min-clients.")] = None,
    dp: Annotated[str | None, typer.Option("--dp", help="off | server | client (who clips).")] = None,
    noise_multiplier: Annotated[float | None, typer.Option(click_type=FINITE, help="DP: noise std / clip norm.")] = None,
    clip_norm: Annotated[float | None, typer.Option(click_type=FINITE, help="DP: L2 bound of an update.")] = None,
    delta: Annotated[float | None, typer.Option(click_type=FINITE, help="DP: the δ of (ε, δ).")] = None,
    epsilon_budget: Annotated[float | None, typer.Option(click_type=FINITE, help="DP: stop before passing this ε.")] = None,
    out: Annotated[Path | None, typer.Option(help="Run dir (default: runs/<domain>/federated/run-…).")] = None,
    ca_cert: Annotated[str, typer.Option(help="TLS: CA certificate (PEM).")] = "",
    cert: Annotated[str, typer.Option(help="TLS: this server's certificate (PEM).")] = "",
    key: Annotated[str, typer.Option(help="TLS: this server's private key (PEM).")] = "",
    client_key: Annotated[list[str] | None, typer.Option(help="A client's public key (OpenSSH ECDSA); repeat.")] = None,
) -> None:  # fmt: skip
    """Serve a federated run: a Flower SuperLink, rounds of local training on the clients,
    robust or private aggregation; the global model lands in RUN/model with federated.json."""
    from jupiter.federated.run import start_server, summary

    flags = {"rounds": rounds, "local_steps": local_steps, "min_clients": min_clients,
             "clients_per_round": clients_per_round, "min_results": min_results,
             "strategy": strategy, "trim_fraction": trim_fraction, "byzantine": byzantine,
             "address": address, "round_timeout_s": round_timeout,
             "straggler_wait_s": straggler_wait, "wait_clients_s": wait_clients,
             "dp": {"mode": dp, "noise_multiplier": noise_multiplier, "clip_norm": clip_norm,
                    "delta": delta, "epsilon_budget": epsilon_budget}}  # fmt: skip
    tls = {"ca": ca_cert, "cert": cert, "key": key, "client_keys": client_key or []}
    record = start_server(domain, quick, flags, out, tls, err_console)
    console.print(summary(record), highlight=False)


@federated_app.command("client")
def federated_client(
    domain: Domain,
    server: Annotated[str, typer.Option(help="The server's HOST:PORT.")],
    quick: Quick = False,
    root_cert: Annotated[str, typer.Option(help="TLS: the CA of the server's certificate.")] = "",
    auth_key: Annotated[str, typer.Option(help="This client's private key (OpenSSH ECDSA).")] = "",
    keep_updates: Annotated[bool, typer.Option(help="Keep what was received and sent.")] = False,
    device: Annotated[str, typer.Option(help="auto | cpu | cuda")] = "auto",
) -> None:  # fmt: skip
    """Join a federated run: train on this workspace's data when the server asks; only the
    adapter (or the weights) leaves this machine."""
    from jupiter.federated.run import start_client

    if device not in ("auto", "cpu", "cuda"):
        raise JupiterError(f"--device {device!r}: use auto, cpu or cuda")
    code = start_client(domain, quick, server, root_cert, auth_key, keep_updates, device,
                        err_console)  # fmt: skip
    if code:
        raise typer.Exit(code)


def quiet_libraries() -> None:
    """Jupiter never downloads weights at run time, and prints its own progress."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # read by transformers and huggingface_hub at import: no import cost for quick commands
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    # bitsandbytes on an AVX-512 CPU asks for an optional kernel package at import, and
    # peft asks transformers a deprecated question on every LoRA load: noise in a run's log
    logging.getLogger("bitsandbytes").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated")


def _usage_line(e: BaseException) -> str:
    """A click usage error (unknown option or command, a value of the wrong type or out of
    range, a missing option) as one line ending with where the help is; "" for others."""
    import click

    if not isinstance(e, click.UsageError) or isinstance(e, click.exceptions.NoArgsIsHelpError):
        return ""
    where = e.ctx.command_path if e.ctx is not None else "jupiter"
    text = " ".join(e.format_message().split())
    if text.count("Did you mean") > 1:  # typer's suggestion after click's own
        text = text[: text.rindex(" (Did you mean")]
    return f"{text} (see `{where} --help`)"


# the commands that go on from where an interrupted run stopped (the cycle's stages keep
# their progress in the store and checkpoints); the others start over
RESUMING = {"start", "train", *STAGE_COMMANDS}


_TERMINATED = False  # a SIGTERM arrived: the exit status is 143, not Ctrl-C's 130


def _terminated(signum: int, _frame: object) -> None:
    global _TERMINATED
    _TERMINATED = True
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends it at once
    raise KeyboardInterrupt


def _resume_hint() -> str:
    """'; it goes on …' for a command that resumes, '' for one that starts over."""
    words = [w for w in sys.argv[1:] if not w.startswith("-")]
    if words and words[0] in RESUMING:
        return f"; `jupiter {words[0]}` goes on from where it stopped"
    return ""


def main() -> None:
    """Entry point: JupiterError becomes one red line and exit 1 (tracebacks with --debug)."""
    debug = "--debug" in sys.argv
    quiet_libraries()
    # SIGTERM (a service manager, `kill`, a closed terminal's job control) unwinds like
    # Ctrl-C, so every `finally` runs: no .tmp-*-PID folder is left beside an --out
    signal.signal(signal.SIGTERM, _terminated)
    try:
        # without standalone mode click returns typer.Exit's code instead of exiting with it
        code = app(standalone_mode=False)
        if code == 130:  # typer turns Ctrl-C (and SIGTERM, below) into a bare exit code
            raise KeyboardInterrupt
        if isinstance(code, int) and code:
            sys.exit(code)
    except JupiterError as e:
        if debug:
            raise
        # the message may quote a server or a file: its brackets are text, not markup
        err_console.print(f"[bold red]error:[/] {escape(str(e))}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except (typer.Abort, KeyboardInterrupt):
        err_console.print(f"interrupted{_resume_hint()}", highlight=False, soft_wrap=True)
        sys.exit(143 if _TERMINATED else 130)
    except Exception as e:  # noqa: BLE001 - last resort: one line, the traceback behind --debug
        show, code = getattr(e, "show", None), getattr(e, "exit_code", None)
        usage = _usage_line(e)
        if usage and isinstance(code, int):  # a bad flag or command: one line and the fix
            err_console.print(f"[bold red]error:[/] {escape(usage)}", highlight=False,
                              soft_wrap=True)  # fmt: skip
            sys.exit(code)
        if callable(show) and isinstance(code, int):  # help for a bare group: click shows it
            show()
            sys.exit(code)
        if type(e).__name__ == "Exit" and isinstance(code, int):
            sys.exit(code)
        if debug:
            raise
        from jupiter.errors import disk_problem

        where = Path(getattr(e, "filename", None) or os.environ.get("JUPITER_HOME", "."))
        disk = disk_problem(e, where if where.is_dir() else where.parent)
        if disk:  # a full or read-only disk under any write: the place and the fix
            err_console.print(
                f"[bold red]error:[/] cannot write {escape(str(where))}: {disk} "
                f"({escape(str(e))}): make room or make it writable (or set JUPITER_HOME to "
                f"another disk), then run the command again{escape(_resume_hint())}",
                highlight=False, soft_wrap=True,
            )  # fmt: skip
            sys.exit(1)
        err_console.print(
            f"[bold red]error:[/] {type(e).__name__}: {e} (run with --debug for the traceback)",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
