"""Generation against a server that misbehaves: a 200 answer of the wrong shape is
a counted reject that is never cached, never an abort; a cached row that no longer parses is
dropped and asked again; requests that failed every retry are asked again by the next
`start`, and nothing else is."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from test_llm_generation import first_generation, make_domain, outcome_counts, workspace

from fakellm import FakeLLM
from jupiter.improve.stages import generate_stage

Edit = Callable[[dict[str, Any], dict[str, Any]], None]


class ScriptedLLM(FakeLLM):
    """The fake teacher, with `edit(request, response)` applied to each 200 response and
    HTTP 500 for every request whose seed is in `failing`; `asked` lists each POST's seed."""

    def __init__(self, edit: Edit | None = None, failing: set[int] | None = None) -> None:
        self.edit = edit or (lambda request, response: None)
        self.failing = failing if failing is not None else set()
        self.asked: list[int] = []
        super().__init__()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        base: Any = super()._handler()
        llm = self

        class Handler(base):  # type: ignore[misc,valid-type]
            body: dict[str, Any] | None = None  # the POST's request

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                self.body = json.loads(raw)
                with llm.lock:
                    llm.asked.append(int(self.body.get("seed", -1)))
                if self.body.get("seed") in llm.failing:
                    return self.send(500, {"error": {"message": "down"}}, {})
                self.rfile = io.BytesIO(raw)
                super().do_POST()

            def send(self, code: int, body: dict[str, Any], headers: dict[str, str]) -> None:
                if code == 200 and self.body is not None:
                    llm.edit(self.body, body)
                super().send(code, body, headers)

        return Handler


def malformed(request: dict[str, Any], response: dict[str, Any]) -> None:
    """Seed 3: a number as the content; seed 5: usage that is no count; seed 8: an answer
    nested deeper than a JSON parser follows."""
    seed = request.get("seed")
    if seed == 3:
        response["choices"][0]["message"]["content"] = 42
    elif seed == 5:
        response["usage"] = {"prompt_tokens": "many", "completion_tokens": None}
    elif seed == 8:
        response["choices"][0]["message"]["content"] = '{"question": ' + "[" * 50_000


def test_malformed_answers_are_counted_rejects_never_cached_or_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedLLM(edit=malformed) as llm:
        ws = workspace(make_domain(tmp_path, llm.base_url, 12), tmp_path, monkeypatch)
        info = first_generation(ws)  # completes: nothing aborts the run
        assert (info["requests"], info["failed"], sorted(llm.asked)) == (12, 0, list(range(12)))
        assert info["counts"]["malformed:content_not_text"] == 1
        assert info["counts"]["malformed:invalid_json"] == 1
        assert sum(info["counts"].values()) == 12
        # the other eleven answers are kept in the queue, the bad-usage one among them: its
        # text is fine, only its token counts are unknown
        rows = outcome_counts(ws)
        assert sum(rows.values()) == 11 and rows["malformed:invalid_json"] == 1
        assert rows["accepted"] + rows.get("near_duplicate", 0) == 10
        # the number was never cached; every other answer was
        assert ws.store.cache_size() == 11

        # plant two poisoned rows: a number as the text, and a row that is no JSON object
        keys = [r[0] for r in ws.store.db.execute("SELECT key FROM llm_cache ORDER BY key")]
        with ws.store.transaction() as db:
            db.execute(
                "UPDATE llm_cache SET response = ? WHERE key = ?",
                (json.dumps({"text": 7, "finish_reason": "stop"}), keys[0]),
            )
            db.execute("UPDATE llm_cache SET response = 'not json' WHERE key = ?", (keys[1],))
        llm.asked.clear()
        again = generate_stage(ws, 1)
        # asked again: the two poisoned rows (dropped) and the number (never cached)
        assert len(llm.asked) == 3 and 3 in llm.asked
        assert again["cache_hits"] == 9 and again["cache_dropped"] == 2
        assert again["counts"] == {"malformed:content_not_text": 1}  # nothing decided twice
        assert outcome_counts(ws) == rows and ws.store.cache_size() == 11
        llm.asked.clear()
        generate_stage(ws, 1)
        assert llm.asked == [3]  # the healed rows are read from the cache now
        ws.close()


def test_start_asks_the_failed_requests_again_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests that fail every retry leave the generate stage unfinished: `start` stops
    with the count and the commands, and the next `start` asks exactly those again."""
    from jupiter.errors import JupiterError
    from jupiter.improve import cycle, stages

    filtered: list[int] = []

    def filter_stage(ws: Any, n: int) -> dict[str, Any]:  # what comes after generate
        filtered.append(n)
        return {}

    monkeypatch.setattr(
        cycle,
        "STAGES",
        {
            "collect": stages.collect_stage,
            "generate": stages.generate_stage,
            "filter": filter_stage,
        },
    )
    failing = {2, 6, 7}
    with ScriptedLLM(failing=failing) as llm:
        yaml = make_domain(tmp_path, llm.base_url, 10)
        yaml.write_text(yaml.read_text().replace("max_retries: 3", "max_retries: 1"))
        ws = workspace(yaml, tmp_path, monkeypatch)
        with pytest.raises(JupiterError) as err:
            cycle.run_cycles(ws)
        msg = str(err.value)
        assert "3 of 10 requests" in msg and "HTTP 500" in msg
        assert "`jupiter start --domain llmgen` asks the 3 again" in msg
        assert "`jupiter generate --domain llmgen`" in msg
        assert sorted(llm.asked) == sorted([*range(10), 2, 6, 7])  # each failing one retried
        assert "generate" not in ws.store.stages(1) and not filtered
        assert sum(outcome_counts(ws).values()) == 7

        failing.clear()  # the server is back
        llm.asked.clear()
        assert cycle.run_cycles(ws) == [1]
        assert sorted(llm.asked) == [2, 6, 7]  # the failed ones, and nothing else
        info = ws.store.stages(1)["generate"]
        assert (info["failed"], info["cache_hits"], info["calls"]) == (0, 7, 3)
        assert filtered == [1] and sum(outcome_counts(ws).values()) == 10
        ws.close()


def test_an_error_quoting_a_server_is_printed_verbatim(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Error text carries what a server said (a 4xx body, a failed call's error): square
    brackets in it are text, not rich markup, which would drop `[python]` and fail on a
    stray closing tag such as `[/INST]`."""
    from jupiter import cli
    from jupiter.errors import JupiterError

    said = 'HTTP 400 from http://x/v1: {"error": "[/INST] missing after [python]"}'

    def app(**_: object) -> None:
        raise JupiterError(f"generate: 1 of 2 requests failed ({said})")

    monkeypatch.setattr(cli, "app", app)
    monkeypatch.setattr("sys.argv", ["jupiter", "start"])
    with pytest.raises(SystemExit) as stop:
        cli.main()
    assert stop.value.code == 1
    err = " ".join(capsys.readouterr().err.split())
    assert err == f"error: generate: 1 of 2 requests failed ({said})"
