"""The exec_logs source: language detection, pattern tags, rejects, time range, quality,
and the chat examples made from a run."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from jupiter.collect.exec_logs import (
    collect_exec_logs,
    detect_language,
    log_examples,
    pattern_tags,
    quality_score,
)
from jupiter.config import DomainConfig, ExecLogSource
from jupiter.records import Document

PY_FUNC = '''import json


def load(path):
    """Print every JSON record of a file."""
    try:
        for line in open(path):
            print(json.loads(line))
    except ValueError as err:
        print("bad line", err)
'''
PY_CLASS = "class Stack:\n    def __init__(self):\n        self.items = []\n"
JS_ASYNC = """async function fetchAll(urls) {
  try {
    const pages = await Promise.all(urls.map((u) => fetch(u)));
    return pages;
  } catch (err) {
    console.error(err);
  }
}
"""
SQL_JOIN = (
    "SELECT u.name, SUM(o.total)\nFROM users u\nJOIN orders o ON o.user_id = u.id\nGROUP BY u.name;"
)
PROSE = "This is a note about cooking pasta, not a program at all."


def test_detect_language() -> None:
    assert detect_language(PY_FUNC) == "python"
    assert detect_language(PY_CLASS) == "python"
    assert detect_language("print(sum(range(10)))") == "python"
    assert detect_language(JS_ASYNC) == "javascript"
    assert detect_language("const x = [1, 2].map((n) => n * 2);\nconsole.log(x);") == "javascript"
    assert detect_language("console.log('hi');") == "javascript"  # parses as Python too
    assert detect_language(SQL_JOIN) == "sql"
    assert detect_language("-- count\ninsert into t values (1);") == "sql"
    assert detect_language(PROSE) is None
    assert detect_language("hello") is None
    assert detect_language("   ") is None


def test_pattern_tags() -> None:
    assert pattern_tags(PY_FUNC, "python") == ["functions", "loops", "error_handling", "imports"]
    assert pattern_tags(PY_CLASS, "python") == ["functions", "classes"]
    assert pattern_tags(SQL_JOIN, "sql") == ["queries"]
    assert pattern_tags(JS_ASYNC, "javascript") == ["functions", "error_handling", "async"]
    assert pattern_tags("class A { run() { for (;;) {} } }", "javascript") == ["classes", "loops"]
    runs_sql = "import sqlite3\nrows = db.execute('SELECT * FROM t')\n"
    assert pattern_tags(runs_sql, "python") == ["queries", "imports"]
    # Python that does not parse falls back to the regexes.
    broken = "def f(:\n    for x in y:\n        await g()\n"
    assert pattern_tags(broken, "python") == ["functions", "loops", "async"]
    assert pattern_tags("print(1)", "python") == []


def rec(code: str, when: Any = "2024-05-10T12:00:00Z", **extra: Any) -> dict[str, Any]:
    return {"code": code, "stdout": "ok\n", "stderr": "", "exit_code": 0, "timestamp": when} | extra


# (record or raw line, what becomes of it with the default source and May 2024 as range)
RECORDS: list[tuple[Any, str]] = [
    (rec(PY_FUNC, "2024-05-01T00:00:00Z", language="python", task="Load JSON lines"), "kept"),
    (rec(JS_ASYNC, 1717199999, language="js"), "kept"),  # 2024-05-31T23:59:59Z
    (rec(SQL_JOIN, "2024-06-01T00:00:00"), "out_of_time_range"),
    (rec(PY_CLASS, "2024-04-30T23:59:59+00:00"), "out_of_time_range"),
    (rec(PY_FUNC, exit_code=1, stderr="Traceback"), "failed_run"),
    (rec(SQL_JOIN, success=False) | {"exit_code": None}, "failed_run"),
    (rec(PROSE), "unknown_language"),
    (rec(PY_CLASS, language="javascript"), "language_mismatch"),
    (rec(PY_FUNC, "yesterday"), "bad_timestamp"),
    ({"stdout": "", "exit_code": 0, "timestamp": 0}, "missing_field"),
    ({"code": "print(1)", "timestamp": 0}, "missing_field"),  # no exit status at all
    ("{broken json", "bad_json"),
    (rec("  \n"), "empty"),
    (rec(SQL_JOIN, "1715342400", exit_status="0") | {"exit_code": None}, "kept"),
]


def setup(tmp_path: Path, **opts: Any) -> tuple[ExecLogSource, DomainConfig]:
    lines = [r if isinstance(r, str) else json.dumps(r) for r, _ in RECORDS]
    (tmp_path / "runs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    source = {"type": "exec_logs", "path": "runs.jsonl", **opts}
    cfg = DomainConfig.model_validate({"name": "t", "sources": [source]})
    cfg.base_dir = tmp_path
    src = cfg.sources[0]
    assert isinstance(src, ExecLogSource)
    return src, cfg


MAY = {"since": "2024-05-01", "until": "2024-05-31"}


def expected_rejects(*keep: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, fate in RECORDS:
        if fate not in ("kept", *keep):
            counts[fate] = counts.get(fate, 0) + 1
    return counts


def test_collect_keeps_good_runs_and_counts_the_rest(tmp_path: Path) -> None:
    src, cfg = setup(tmp_path, **MAY)
    result = collect_exec_logs(src, cfg)
    path = tmp_path / "runs.jsonl"
    assert [d.uri for d in result.documents] == [
        f"exec:{path}:1",
        f"exec:{path}:2",
        f"exec:{path}:14",
    ]
    assert result.rejects == expected_rejects()
    assert result.samples["missing_field"] == [f"{path}:10", f"{path}:11"]
    assert result.samples["bad_json"] == [f"{path}:12"]
    assert result.samples["failed_run"] == [f"{path}:5", f"{path}:6"]
    py, js, sql = result.documents
    assert py.source == "exec_logs"
    assert py.title == "python run 2024-05-01T00:00:00+00:00"
    assert py.text == PY_FUNC
    assert py.meta == {
        "language": "python",
        "tags": ["functions", "loops", "error_handling", "imports"],
        "quality": 1.0,
        "stdout": "ok\n",
        "stderr": "",
        "exit_code": 0,
        "timestamp": "2024-05-01T00:00:00+00:00",
        "task": "Load JSON lines",
    }
    assert js.meta["language"] == "javascript"
    assert js.meta["timestamp"] == "2024-05-31T23:59:59+00:00"
    assert (sql.meta["language"], sql.meta["exit_code"]) == ("sql", 0)
    assert sql.meta["timestamp"] == "2024-05-10T12:00:00+00:00"


def test_failed_runs_are_kept_when_not_successful_only(tmp_path: Path) -> None:
    src, cfg = setup(tmp_path, successful_only=False, **MAY)
    result = collect_exec_logs(src, cfg)
    assert result.rejects == expected_rejects("failed_run")
    exits = [(d.meta["language"], d.meta["exit_code"]) for d in result.documents]
    assert exits == [("python", 0), ("javascript", 0), ("python", 1), ("sql", 1), ("sql", 0)]


def test_time_range_bounds_are_inclusive(tmp_path: Path) -> None:
    # Exact datetimes equal to the first and second records' times keep both.
    src, cfg = setup(tmp_path, since="2024-05-01T00:00:00Z", until="2024-05-31T23:59:59Z")
    assert len(collect_exec_logs(src, cfg).documents) == 3
    # One second tighter on each side drops them.
    src, cfg = setup(tmp_path, since="2024-05-01T00:00:01Z", until="2024-05-31T23:59:58Z")
    result = collect_exec_logs(src, cfg)
    assert [d.meta["language"] for d in result.documents] == ["sql"]
    assert result.rejects["out_of_time_range"] == 4
    # No bounds: everything with a valid time is in range.
    src, cfg = setup(tmp_path)
    assert "out_of_time_range" not in collect_exec_logs(src, cfg).rejects


def test_bad_bound_is_a_clear_error(tmp_path: Path) -> None:
    # refused when the config is read: before any source is collected
    with pytest.raises(ValidationError, match="(?s)since.*not an ISO 8601 date or time"):
        setup(tmp_path, since="last week")
    with pytest.raises(ValidationError, match="(?s)until.*not an ISO 8601 date or time"):
        setup(tmp_path, until="2024-02-30")


def test_languages_and_min_quality_select(tmp_path: Path) -> None:
    src, cfg = setup(tmp_path, languages=["python"], **MAY)
    result = collect_exec_logs(src, cfg)
    assert [d.meta["language"] for d in result.documents] == ["python"]
    # the prose, the JS run and both SQL runs (language is checked before the time range)
    assert result.rejects["unknown_language"] == 4
    src, cfg = setup(tmp_path, min_quality=0.95, **MAY)
    result = collect_exec_logs(src, cfg)
    # The JS and SQL runs have no comments (-0.10): below 0.95.
    assert [d.meta["language"] for d in result.documents] == ["python"]
    assert result.rejects["below_min_quality"] == 2


def test_quality_score() -> None:
    clean = quality_score(rec(PY_FUNC), "python")
    one_liner = quality_score(rec("print(x)", stdout="", stderr="NameError: x"), "python")
    # every check passes
    assert clean == 1.0
    # success .25 + parses .15 + half the length band .075 + no secrets .10
    assert one_liner == pytest.approx(0.575)
    assert clean > one_liner
    leaky = quality_score(rec(PY_FUNC + 'api_key = "sk-abcdefghijklmnopqrstuv"\n'), "python")
    assert leaky == pytest.approx(0.9)
    failed = quality_score(rec(PY_FUNC, exit_code=2), "python")
    assert failed == pytest.approx(0.75)
    unbalanced = quality_score(rec("// half\nfunction f() {\n  return [1, 2;\n"), "javascript")
    assert unbalanced == pytest.approx(0.85)
    assert 0.0 <= quality_score({"code": "", "exit_code": 1}, "sql") <= 1.0


def test_log_examples_render_task_code_and_output() -> None:
    meta = {"language": "python", "stdout": "{'a': 1}\n", "task": "Load JSON lines"}
    doc = Document("exec_logs", "exec:runs.jsonl:1", "python run", PY_FUNC, meta)
    (ex,) = log_examples(doc)
    assert (ex.kind, ex.generator, ex.template) == ("qa", "exec_logs", "exec_log")
    assert ex.question == "Load JSON lines"
    assert ex.answer == (
        f"```python\n{PY_FUNC.strip()}\n```\n\n"
        "It imports `json`. It defines function `load`. It loops over `open(path)`. "
        "It handles errors with try/except (`ValueError`).\n\n"
        "Output:\n```\n{'a': 1}\n```"
    )


def test_log_examples_derive_a_task_and_truncate_output() -> None:
    meta = {"language": "sql", "stdout": "x" * 600, "task": ""}
    (ex,) = log_examples(Document("exec_logs", "exec:f:2", "sql run", SQL_JOIN, meta))
    assert ex.question == "Write SQL code that queries a database, and show its output."
    assert "It queries tables `users` and `orders`." in ex.answer
    assert ex.answer.endswith("x" * 500 + "\n… (truncated)\n```")
    meta = {"language": "javascript", "stdout": "", "task": ""}
    (ex,) = log_examples(Document("exec_logs", "exec:f:3", "js run", JS_ASYNC, meta))
    assert ex.question == (
        "Write JavaScript code that defines a function, handles errors and runs"
        " asynchronously, and show its output."
    )
    assert ex.answer.endswith(
        "It defines function `fetchAll`. It handles errors with try/catch."
        " It runs asynchronously with async/await."
    )
    assert "Output:" not in ex.answer


def test_epoch_and_iso_times_agree() -> None:
    from jupiter.collect.exec_logs import parse_time

    want = datetime(2024, 5, 10, 12, 0, tzinfo=timezone.utc)
    assert parse_time(1715342400) == want
    assert parse_time("1715342400") == want
    assert parse_time("2024-05-10T14:00:00+02:00") == want
    assert parse_time("2024-05-10 12:00:00") == want
    assert parse_time("soon") is None and parse_time(True) is None


def test_unquoted_yaml_dates_are_bounds(tmp_path: Path) -> None:
    """YAML reads `since: 2024-05-01` as a date and a timestamp as a datetime: both are the
    same bounds as their quoted ISO text."""
    from jupiter.config import load_domain

    setup(tmp_path)  # writes runs.jsonl
    yaml = tmp_path / "d.yaml"
    yaml.write_text(
        "name: t\nsources:\n  - type: exec_logs\n    path: runs.jsonl\n"
        "    since: 2024-05-01\n    until: 2024-05-31 23:59:59\n"
    )
    src = load_domain(str(yaml)).sources[0]
    assert isinstance(src, ExecLogSource)
    assert (src.since, src.until) == ("2024-05-01", "2024-05-31T23:59:59")
    quoted, cfg = setup(tmp_path, **MAY)
    assert collect_exec_logs(src, cfg).rejects == collect_exec_logs(quoted, cfg).rejects
    yaml.write_text(yaml.read_text().replace("2024-05-31 23:59:59", "2024-05-31T23:59:58Z"))
    src = load_domain(str(yaml)).sources[0]
    assert isinstance(src, ExecLogSource) and src.until == "2024-05-31T23:59:58+00:00"
    assert collect_exec_logs(src, cfg).rejects["out_of_time_range"] == 3
