"""`jupiter data`: what each stage kept and dropped, and the examples exported as
train/validation/test JSONL."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, cast, get_args

import typer

from jupiter.cli_context import console, print_json, workspace_for
from jupiter.cli_types import Domain, JsonFlag, Quick
from jupiter.config import load_domain
from jupiter.errors import JupiterError
from jupiter.outputs import output_lock

commands = typer.Typer()  # merged into the app by jupiter/cli.py
data_app = typer.Typer(
    help="Inspect and export the data: what each stage kept and dropped.", no_args_is_help=True
)
commands.add_typer(data_app, name="data")


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
            where["html"] = str(
                write_html(reports, html, f"{ws.cfg.name}: data report", extra, summary)
            )
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
    """Export the examples as train/validation/test JSONL, split by source document (a long one by section)."""
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
        raise JupiterError(
            f"--out {out} {what} the workspace {workspace}: choose a folder of "
            "its own (default: <workspace>/export)"
        )
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
