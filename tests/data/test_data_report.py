"""`jupiter data report`: exact counts per stage and reason, the terminal tables, and an
HTML page that parses, shows proportional bars and escapes every sample."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

from jupiter.data.report import (
    DataSummary,
    StageReport,
    data_report,
    data_summary,
    report_tables,
    write_html,
)
from jupiter.records import Document, Example
from jupiter.store import Store

SCRIPT = "<script>alert(1)</script>"
LONG = "long sample " * 40  # 480 chars: the terminal shows ~100 of them
VOID = {"meta", "br", "hr", "img", "input", "link"}


def _example(i: int, kind: str = "qa", cycle: int = 1) -> Example:
    if kind == "text":
        return Example(
            kind="text",
            generator="extractive",
            chunk_id=f"c{i}",
            template="continuation",
            text=f"text {i}",
            cycle=cycle,
        )
    return Example(
        kind="qa",
        generator="extractive",
        chunk_id=f"c{i}",
        template="what_does",
        messages=[{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": "a"}],
        cycle=cycle,
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "jupiter.sqlite")
    s.add_documents(
        [Document("local", f"/d{i}.md", f"d{i}", f"doc {i}") for i in range(3)]
        + [Document("python_stdlib", "python:json", "json", "json docs")]
    )
    exs = [_example(0), _example(1), _example(2), _example(3, "text")]
    s.add_examples(exs)
    s.set_status([(exs[0].id, "accepted", ""), (exs[3].id, "rejected", "too_short")])
    s.start_cycle(1, "extractive")
    s.mark_stage(1, "collect", {"documents": 4, "chunks": 9})
    s.record_filter_stats(
        1,
        "collect",
        {"too_short": 2, "binary": 1},
        {"too_short": ["tiny", "x"], "binary": ["\x00\x01"]},
    )
    s.mark_stage(1, "filter", {"examined": 10})
    s.record_filter_stats(
        1,
        "filter",
        {"accepted": 5, "near_duplicate": 3, "too_short": 2},
        {
            "accepted": ["a good one"],
            "too_short": [SCRIPT, "[bold]markup[/bold]"],
            "near_duplicate": [LONG],
        },
    )
    # cycle 2: collect ran without recording its count or any drop; filter only has stats
    s.mark_stage(2, "collect", {})
    s.record_filter_stats(2, "filter", {"accepted": 1, "exact_duplicate": 1}, {})
    yield s
    s.close()


class StrictParser(HTMLParser):
    """Fails on a closing tag that does not match the open one; keeps text and tags."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_data_report_counts_per_stage_and_reason(store: Store) -> None:
    reports = data_report(store)
    assert [(r.cycle, r.stage) for r in reports] == [
        (1, "collect"),
        (1, "filter"),
        (2, "collect"),
        (2, "filter"),
    ]
    c1, f1, c2, f2 = reports
    assert (c1.kept, c1.dropped) == (4, {"too_short": 2, "binary": 1})
    assert c1.samples["too_short"] == ["tiny", "x"]
    assert (f1.kept, f1.dropped) == (5, {"near_duplicate": 3, "too_short": 2})
    assert f1.samples["too_short"] == [SCRIPT, "[bold]markup[/bold]"]
    assert f1.total == 10
    assert f1.rows() == [("accepted", 5, 50.0), ("near_duplicate", 3, 30.0), ("too_short", 2, 20.0)]
    assert (c2.kept, c2.dropped) == (4, {})  # no recorded count: the store's documents
    assert (f2.kept, f2.dropped) == (1, {"exact_duplicate": 1})
    assert c1.rows()[0] == ("collected", 4, pytest.approx(100 * 4 / 7))


def test_data_summary_counts_sources_and_statuses(store: Store) -> None:
    summary = data_summary(store)
    assert summary.documents == {"local": 3, "python_stdlib": 1}
    assert summary.examples == {
        ("accepted", "qa"): 1,
        ("pending", "qa"): 2,
        ("rejected", "text"): 1,
    }


def test_report_tables_show_reasons_counts_and_samples(store: Store) -> None:
    console = Console(record=True, width=220)
    for table in report_tables(data_report(store), data_summary(store)):
        console.print(table)
    out = console.export_text()
    assert "documents by source" in out and "python_stdlib" in out
    assert re.search(r"pending\s+│\s+qa\s+│\s+2", out)
    assert re.search(r"near_duplicate\s+│\s+3\s+│\s+30\.0%", out)
    assert re.search(r"accepted\s+│\s+5\s+│\s+50\.0%\s+│\s+a good one", out)
    assert re.search(r"binary\s+│\s+1\s+│\s+14\.3%", out)
    assert re.search(r"exact_duplicate\s+│\s+1\s+│\s+50\.0%", out)
    assert "filter: cycle 1 (10 seen)" in out
    assert SCRIPT in out  # one sample per reason, the first, shown as plain text
    assert "[bold]markup" not in out  # only the first sample is in the table
    line = next(ln for ln in out.splitlines() if "near_duplicate" in ln)
    assert "long sample" in line and LONG.strip() not in line and "…" in line


def test_report_tables_do_not_read_samples_as_markup() -> None:
    rep = StageReport("filter", 1, 0, {"x": 1}, {"x": ["[bold]markup[/bold]"]})
    console = Console(record=True, width=200)
    for table in report_tables([rep]):
        console.print(table)
    assert "[bold]markup[/bold]" in console.export_text()


def test_write_html_parses_escapes_and_scales_bars(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "reports" / "data.html"
    extra = {"workspace": "runs/<python>"}
    path = write_html(data_report(store), out, "python data", extra, data_summary(store))
    assert path == out and out.is_file()
    assert [p.name for p in out.parent.iterdir()] == ["data.html"]  # no temp file left
    page = out.read_text(encoding="utf-8")

    parser = StrictParser()
    parser.feed(page)
    parser.close()
    assert parser.stack == []
    assert "script" not in parser.tags and "<script" not in page.lower()
    text = "".join(parser.text)
    assert SCRIPT in text and "runs/<python>" in text  # shown as text, escaped in source
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "http://" not in page and "https://" not in page

    for reason in ("too_short", "binary", "near_duplicate", "exact_duplicate", "collected"):
        assert reason in text
    assert "python_stdlib" in text and "filter: cycle 1 (10 seen)" in text
    f1 = page.split('id="filter-1"')[1].split("<h2")[0]
    widths = dict(re.findall(r"<tr><td>(\w+)</td>.*?width: ([\d.]+)%", f1))
    assert widths == {"accepted": "50.0", "near_duplicate": "30.0", "too_short": "20.0"}
    counts = dict(re.findall(r'<tr><td>(\w+)</td><td class="n">(\d+)</td>', f1))
    assert counts == {"accepted": "5", "near_duplicate": "3", "too_short": "2"}
    # every sample is in a <details>, the long one whole
    assert f1.count("<details>") == 3 and LONG in f1 and "[bold]markup[/bold]" in f1


def test_write_html_replaces_and_handles_empty(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    out.write_text("old", encoding="utf-8")
    write_html([], out, "empty", summary=DataSummary({}, {}))
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "No stage has run yet" in page
