"""The playbooks source: thresholds, top k per domain, counted rejects, the quality report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupiter.collect.agent_logs import PlaybookResult, collect_playbooks, quality_report
from jupiter.collect.result import CollectResult
from jupiter.config import DomainConfig, PlaybookSource
from jupiter.errors import JupiterError


def book(agent: str, domain: str, score: float, rate: float, n: int, **extra: Any) -> str:
    rec = {"agent": agent, "domain": domain, "score": score, "success_rate": rate}
    rec |= {"interactions": n, "content": f"{agent} playbook for {domain}", **extra}
    return json.dumps(rec)


# Line numbers matter: samples and URIs name them.
LINES = [
    book("alice", "sql", 0.9, 0.8, 100, id="a"),  # 1: kept, third in sql
    book("bob", "sql", 0.9, 0.9, 50, id="b"),  # 2: kept first (same score, best rate)
    book("carol", "sql", 0.7, 0.5, 10, id="c"),  # 3: not_top_k
    book("dave", "sql", 0.9, 0.8, 200, id="d"),  # 4: kept second (more interactions)
    book("erin", "sql", 0.2, 0.9, 100, id="e"),  # 5: below_min_score
    book("frank", "sql", 0.9, 0.9, 2, id="f"),  # 6: below_min_interactions
    book("gina", "sql", 0.9, 0.1, 100, id="g"),  # 7: below_min_success_rate
    book("hal", "sql", 0.9, 0.9, 100, id="h", content="   \n"),  # 8: empty
    book("pia", "python", 0.95, 1.0, 30),  # 9: kept, no id: the URI names the line
    book("paul", "python", 0.6, 0.5, 20, id="p2"),  # 10: kept third
    book("pat", "python", 0.8, 0.4, 8, id="p3"),  # 11: kept second
    "{not json",  # 12: bad_json
    json.dumps({"domain": "python", "score": 0.9}),  # 13: missing_field (content)
    json.dumps({"domain": "sql", "score": "high", "content": "x"}),  # 14: bad_value
    json.dumps({"domain": "sql", "score": 0.9, "success_rate": 1.5, "content": "x"}),  # 15
    json.dumps({"domain": "python", "score": 0.9, "interactions": -1, "content": "x"}),  # 16
    "",  # blank lines are not records
    json.dumps({"content": "no domain", "score": 1.0}),  # 18: missing_field, no domain
]


def setup(tmp_path: Path, lines: list[str], **opts: Any) -> tuple[PlaybookSource, DomainConfig]:
    (tmp_path / "books.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    source = {"type": "playbooks", "path": "books.jsonl", **opts}
    cfg = DomainConfig.model_validate({"name": "t", "sources": [source]})
    cfg.base_dir = tmp_path
    src = cfg.sources[0]
    assert isinstance(src, PlaybookSource)
    return src, cfg


THRESHOLDS = {"min_score": 0.5, "min_interactions": 5, "min_success_rate": 0.3, "top_k": 3}


def test_thresholds_and_top_k_keep_the_best_per_domain(tmp_path: Path) -> None:
    src, cfg = setup(tmp_path, LINES, **THRESHOLDS)
    result = collect_playbooks(src, cfg)
    assert [d.uri for d in result.documents] == [
        "playbook:python/pia/9",
        "playbook:python/pat/p3",
        "playbook:python/paul/p2",
        "playbook:sql/bob/b",
        "playbook:sql/dave/d",
        "playbook:sql/alice/a",
    ]
    first = result.documents[0]
    assert first.source == "playbooks"
    assert first.title == "pia (python)"
    assert first.text == "pia playbook for python"
    path = str(tmp_path / "books.jsonl")
    assert first.meta == {
        "domain": "python",
        "agent": "pia",
        "score": 0.95,
        "success_rate": 1.0,
        "interactions": 30,
        "file": path,
        "line": 9,
    }
    assert result.rejects == {
        "below_min_score": 1,
        "below_min_interactions": 1,
        "below_min_success_rate": 1,
        "empty": 1,
        "bad_json": 1,
        "missing_field": 2,
        "bad_value": 3,
        "not_top_k": 1,
    }
    at = lambda *ns: [f"{path}:{n}" for n in ns]  # noqa: E731
    assert result.samples["below_min_score"] == at(5)
    assert result.samples["below_min_interactions"] == at(6)
    assert result.samples["below_min_success_rate"] == at(7)
    assert result.samples["empty"] == at(8)
    assert result.samples["not_top_k"] == at(3)
    assert result.samples["bad_json"] == at(12)
    assert result.samples["missing_field"] == at(13, 18)
    assert result.samples["bad_value"] == at(14, 15, 16)


def test_default_thresholds_keep_every_valid_playbook(tmp_path: Path) -> None:
    src, cfg = setup(tmp_path, LINES)
    result = collect_playbooks(src, cfg)
    # Only the empty one fails a check that has no threshold to lower.
    assert len(result.documents) == 10
    assert result.rejects == {"empty": 1, "bad_json": 1, "missing_field": 2, "bad_value": 3}


def test_each_threshold_alone_drops_only_its_records(tmp_path: Path) -> None:
    cases = {
        "min_score": (0.5, "below_min_score", {"erin"}),
        "min_interactions": (10, "below_min_interactions", {"frank", "pat"}),
        "min_success_rate": (0.5, "below_min_success_rate", {"gina", "pat"}),
    }
    everyone = {"alice", "bob", "carol", "dave", "erin", "frank", "gina", "pia", "paul", "pat"}
    for key, (value, reason, dropped) in cases.items():
        src, cfg = setup(tmp_path, LINES, **{key: value})
        result = collect_playbooks(src, cfg)
        assert result.rejects[reason] == len(dropped), key
        assert {d.meta["agent"] for d in result.documents} == everyone - dropped, key


def test_top_k_ties_break_by_rate_then_interactions_then_id(tmp_path: Path) -> None:
    lines = [
        book("x", "d", 0.5, 0.5, 10, id="z"),
        book("y", "d", 0.5, 0.5, 10, id="m"),
        book("w", "d", 0.5, 0.5, 11, id="q"),
        book("v", "d", 0.5, 0.6, 1, id="r"),
    ]
    src, cfg = setup(tmp_path, lines, top_k=3)
    result = collect_playbooks(src, cfg)
    assert [d.meta["agent"] for d in result.documents] == ["v", "w", "y"]
    assert result.rejects == {"not_top_k": 1}
    assert result.samples["not_top_k"] == [f"{tmp_path / 'books.jsonl'}:1"]


def test_quality_report_numbers_for_two_domains(tmp_path: Path) -> None:
    src, cfg = setup(tmp_path, LINES, **THRESHOLDS)
    result = collect_playbooks(src, cfg)
    assert isinstance(result, PlaybookResult)
    python, sql = quality_report(result)
    assert python["domain"] == "python"
    assert (python["seen"], python["kept"]) == (5, 3)
    assert python["dropped"] == {"bad_value": 1, "missing_field": 1}
    assert python["score_mean"] == pytest.approx((0.95 + 0.8 + 0.6) / 3)
    assert (python["score_min"], python["score_max"]) == (0.6, 0.95)
    assert python["success_rate_mean"] == pytest.approx((1.0 + 0.4 + 0.5) / 3)
    assert python["interactions_total"] == 58
    assert sql["domain"] == "sql"
    assert (sql["seen"], sql["kept"]) == (10, 3)
    assert sql["dropped"] == {
        "bad_value": 2,
        "below_min_interactions": 1,
        "below_min_score": 1,
        "below_min_success_rate": 1,
        "empty": 1,
        "not_top_k": 1,
    }
    assert (sql["score_mean"], sql["score_min"], sql["score_max"]) == (0.9, 0.9, 0.9)
    assert sql["success_rate_mean"] == pytest.approx((0.9 + 0.8 + 0.8) / 3)
    assert sql["interactions_total"] == 350


def test_quality_report_of_a_plain_result_counts_its_documents(tmp_path: Path) -> None:
    src, cfg = setup(tmp_path, LINES, **THRESHOLDS)
    plain = CollectResult(documents=collect_playbooks(src, cfg).documents)
    rows = quality_report(plain)
    assert [(r["domain"], r["seen"], r["kept"], r["dropped"]) for r in rows] == [
        ("python", 3, 3, {}),
        ("sql", 3, 3, {}),
    ]


def test_a_folder_of_jsonl_files_is_read_in_name_order(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "b.jsonl").write_text(book("bee", "d", 0.5, 0.5, 1) + "\n", encoding="utf-8")
    (folder / "a.jsonl").write_text(book("ant", "d", 0.5, 0.5, 1) + "\n{x\n", encoding="utf-8")
    (folder / "notes.txt").write_text("ignored", encoding="utf-8")
    src, cfg = setup(tmp_path, [], path="logs")
    result = collect_playbooks(src, cfg)
    # Equal rank: the tie falls to file:line, so a.jsonl's playbook comes first.
    assert [d.uri for d in result.documents] == ["playbook:d/ant/1", "playbook:d/bee/1"]
    assert result.samples == {"bad_json": [f"{folder / 'a.jsonl'}:2"]}


def test_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    src, cfg = setup(tmp_path, [], path="nowhere.jsonl")
    with pytest.raises(JupiterError, match="nowhere.jsonl"):
        collect_playbooks(src, cfg)
