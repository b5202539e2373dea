"""`jupiter data report`: what each stage kept and dropped, and why, with samples.

Reads only the store: documents by source, examples by status and kind, and the
per-cycle drop counts that collect and filter record in `filter_stats`. Two outputs from
the same records: rich tables for the terminal, one self-contained HTML page for sharing
(inline CSS, no scripts, no external URLs; every string from the data is escaped).
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from jupiter import atomic
from jupiter.filters import ACCEPTED, format_counts
from jupiter.store import Store

# generate: an LLM teacher's answers, parsed and filtered as they arrived (kept = accepted
# or waiting for the judge)
STAGES = ("collect", "generate", "filter")
KEPT_LABEL = {"collect": "collected", "generate": "kept", "filter": ACCEPTED}
SAMPLE_CHARS = 100  # terminal tables: one line per reason stays readable


@dataclass
class StageReport:
    """One stage of one cycle. kept: documents collected (collect) or examples accepted
    (filter); dropped: reason -> count; samples: reason (and "accepted") -> texts."""

    stage: str
    cycle: int
    kept: int
    dropped: dict[str, int] = field(default_factory=dict)
    samples: dict[str, list[str]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.kept + sum(self.dropped.values())

    def rows(self) -> list[tuple[str, int, float]]:
        """(reason, count, percent of total): kept first, then drops by count, most
        frequent first, ties by name (the order of `format_counts`)."""
        counts = {ACCEPTED: self.kept} | {r: n for r, n in self.dropped.items() if r != ACCEPTED}
        total = sum(counts.values())
        label = KEPT_LABEL.get(self.stage, ACCEPTED)
        return [
            (label if r == ACCEPTED else r, n, 100.0 * n / total if total else 0.0)
            for r, n, _ in format_counts(counts)
        ]


@dataclass
class DataSummary:
    """The header of both outputs: documents by source, examples by (status, kind)."""

    documents: dict[str, int]
    examples: dict[tuple[str, str], int]


# ------------------------------------------------------------------------------ read
def data_summary(store: Store) -> DataSummary:
    docs = store.db.execute(
        "SELECT source, COUNT(*) FROM documents GROUP BY source ORDER BY source"
    ).fetchall()
    exs = store.db.execute(
        "SELECT status, kind, COUNT(*) FROM examples GROUP BY status, kind ORDER BY status, kind"
    ).fetchall()
    return DataSummary(
        documents={r[0]: int(r[1]) for r in docs},
        examples={(r[0], r[1]): int(r[2]) for r in exs},
    )


def _collect_kept(store: Store, cycle: int) -> int:
    # the collect stage records how many documents it read that cycle; documents carry no
    # cycle, so without that record the store's total is the best answer
    info = store.stages(cycle).get("collect", {})
    if "documents" in info:
        return int(info["documents"])
    return store.count("documents")


def _filter_kept(store: Store, cycle: int, counts: dict[str, int]) -> int:
    if ACCEPTED in counts:
        return counts[ACCEPTED]
    return store.count("examples", "cycle = ? AND status IN ('accepted', 'used')", (cycle,))


def data_report(store: Store) -> list[StageReport]:
    """One report per cycle and stage that ran (collect, an LLM's generate, filter), cycles
    in order."""
    stats: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for row in store.filter_stats():
        stats.setdefault((row["cycle"], row["stage"]), []).append(row)
    cycles = sorted({c for c, _ in stats} | {c["n"] for c in store.cycles()})
    reports: list[StageReport] = []
    for cycle in cycles:
        done = store.stages(cycle)
        for stage in STAGES:
            rows = stats.get((cycle, stage))
            if rows is None and (stage not in done or stage == "generate"):
                continue
            counts = {r["reason"]: int(r["count"]) for r in rows or []}
            samples = {r["reason"]: list(r["samples"]) for r in rows or [] if r["samples"]}
            if stage == "collect":
                kept = _collect_kept(store, cycle)
            elif stage == "generate":
                kept = counts.pop(ACCEPTED, 0) + counts.pop("pending", 0)
            else:
                kept = _filter_kept(store, cycle, counts)
            dropped = {r: n for r, n in counts.items() if r != ACCEPTED}
            reports.append(StageReport(stage, cycle, kept, dropped, samples))
    return reports


# -------------------------------------------------------------------------- terminal
def _one_line(text: str, limit: int = SAMPLE_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def summary_tables(summary: DataSummary) -> list[Table]:
    docs = Table(title="documents by source")
    docs.add_column("source")
    docs.add_column("documents", justify="right")
    for source, n in summary.documents.items():
        docs.add_row(Text(source), str(n))
    docs.add_row(Text("total", style="bold"), str(sum(summary.documents.values())))
    exs = Table(title="examples by status and kind")
    for col in ("status", "kind", "examples"):
        exs.add_column(col, justify="right" if col == "examples" else "left")
    for (status, kind), n in summary.examples.items():
        exs.add_row(Text(status), Text(kind), str(n))
    return [docs, exs]


def report_tables(reports: list[StageReport], summary: DataSummary | None = None) -> list[Table]:
    """Per stage: reason / count / share, with one sample per reason. Data strings go in
    as `Text`, so a sample holding "[bold]" is shown, not read as rich markup."""
    tables = summary_tables(summary) if summary is not None else []
    for rep in reports:
        table = Table(title=f"{rep.stage}: cycle {rep.cycle} ({rep.total} seen)")
        table.add_column("reason")
        table.add_column("count", justify="right")
        table.add_column("share", justify="right")
        table.add_column("sample", overflow="fold")
        kept_label = KEPT_LABEL.get(rep.stage, ACCEPTED)
        for reason, n, pct in rep.rows():
            key = ACCEPTED if reason == kept_label else reason
            sample = rep.samples.get(key) or [""]
            table.add_row(Text(reason), str(n), f"{pct:.1f}%", Text(_one_line(sample[0])))
        tables.append(table)
    return tables


# ------------------------------------------------------------------------------ html
CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.75rem; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.bar { background: #eee; width: 20rem; height: 0.9rem; }
.bar > div { background: #4a7fc1; height: 100%; }
.bar > div.kept { background: #4caf50; }
details pre { white-space: pre-wrap; background: #f6f6f6; padding: 0.5rem; margin: 0.25rem 0; }
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _table(headers: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    """Cells are given already escaped (some hold markup of our own: bars, details)."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(row) + "</tr>\n" for row in rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>\n"


def _summary_html(summary: DataSummary | None, extra: dict[str, Any] | None) -> str:
    parts = []
    if extra:
        rows = [[f"<td>{_e(k)}</td>", f"<td>{_e(v)}</td>"] for k, v in extra.items()]
        parts.append(_table(["what", "value"], rows))
    if summary is not None:
        docs = [
            [f"<td>{_e(s)}</td>", f'<td class="n">{n}</td>'] for s, n in summary.documents.items()
        ]
        docs.append(
            ["<td><b>total</b></td>", f'<td class="n">{sum(summary.documents.values())}</td>']
        )
        parts.append("<h2>Documents by source</h2>\n" + _table(["source", "documents"], docs))
        exs = [
            [f"<td>{_e(st)}</td>", f"<td>{_e(kind)}</td>", f'<td class="n">{n}</td>']
            for (st, kind), n in summary.examples.items()
        ]
        parts.append(
            "<h2>Examples by status and kind</h2>\n" + _table(["status", "kind", "examples"], exs)
        )
    return "".join(parts)


def _overview_html(reports: list[StageReport]) -> str:
    rows = []
    for rep in reports:
        dropped = sum(rep.dropped.values())
        share = 100.0 * dropped / rep.total if rep.total else 0.0
        rows.append(
            [
                f'<td class="n">{rep.cycle}</td>',
                f"<td>{_e(rep.stage)}</td>",
                f'<td class="n">{rep.kept}</td>',
                f'<td class="n">{dropped}</td>',
                f'<td class="n">{share:.1f}%</td>',
                f'<td class="n">{len(rep.dropped)}</td>',
            ]
        )
    headers = ["cycle", "stage", "kept", "dropped", "dropped share", "reasons"]
    return "<h2>Summary</h2>\n" + _table(headers, rows)


def _stage_html(rep: StageReport) -> str:
    kept_label = KEPT_LABEL.get(rep.stage, ACCEPTED)
    rows = []
    for reason, n, pct in rep.rows():
        key = ACCEPTED if reason == kept_label else reason
        css = ' class="kept"' if key == ACCEPTED else ""
        bar = f'<div class="bar"><div{css} style="width: {pct:.1f}%"></div></div>'
        samples = rep.samples.get(key, [])
        shown = "".join(f"<pre>{_e(s)}</pre>" for s in samples)
        details = (
            f"<details><summary>{len(samples)} sample(s)</summary>{shown}</details>"
            if samples
            else ""
        )
        rows.append(
            [
                f"<td>{_e(reason)}</td>",
                f'<td class="n">{n}</td>',
                f'<td class="n">{pct:.1f}%</td>',
                f"<td>{bar}</td>",
                f"<td>{details}</td>",
            ]
        )
    title = f"{rep.stage}: cycle {rep.cycle} ({rep.total} seen)"
    headers = ["reason", "count", "share", "", "samples"]
    return f'<h2 id="{_e(rep.stage)}-{rep.cycle}">{_e(title)}</h2>\n' + _table(headers, rows)


def render_html(
    reports: list[StageReport],
    title: str,
    extra: dict[str, Any] | None = None,
    summary: DataSummary | None = None,
) -> str:
    body = _summary_html(summary, extra) + _overview_html(reports)
    body += "".join(_stage_html(rep) for rep in reports)
    if not reports:
        body += "<p>No stage has run yet: nothing collected or filtered.</p>\n"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n"
        f"<body>\n<h1>{_e(title)}</h1>\n{body}</body>\n</html>\n"
    )


def write_html(
    reports: list[StageReport],
    out: Path,
    title: str,
    extra: dict[str, Any] | None = None,
    summary: DataSummary | None = None,
) -> Path:
    """Write the page to `out` atomically (a temp file in the same folder, then rename), so
    a reader never sees half a page; returns `out`."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    page = render_html(reports, title, extra, summary)
    atomic.write_text(out, page)
    return out


def report_data(reports: list[StageReport], summary: DataSummary) -> dict[str, Any]:
    """The same records as plain data (`jupiter data report --json`): per cycle and stage,
    kept, dropped by reason and the samples; documents by source, examples by status and
    kind."""
    examples = [
        {"status": st, "kind": kind, "count": n} for (st, kind), n in summary.examples.items()
    ]
    stages = [
        {
            "cycle": r.cycle,
            "stage": r.stage,
            "kept": r.kept,
            "total": r.total,
            "dropped": dict(r.dropped),
            "samples": dict(r.samples),
        }
        for r in reports
    ]
    return {"documents": dict(summary.documents), "examples": examples, "stages": stages}
