"""The generation engine against a real OpenAI-compatible server on 127.0.0.1: every call
cached, retries with backoff on 500 / 429 / timeouts, clear errors, load balancing."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from fakellm import FakeLLM
from jupiter.config import LLMConfig
from jupiter.errors import JupiterError
from jupiter.store import Store
from jupiter.synth.backend import Completion, Request, Sampling
from jupiter.synth.engine import CALL_FAILED, Engine, EngineStats, Retry
from jupiter.synth.http import BalancedBackend, HTTPBackend, flatten
from jupiter.synth.llm import LLMGenerator

PASSAGE = (
    "<passage>\nThe cache keeps results of earlier calls. Entries expire after a day.\n</passage>"
)


def requests(n: int) -> list[Request]:
    return [
        Request(
            messages=({"role": "user", "content": f"{PASSAGE} #{i}"},),
            sampling=Sampling(max_tokens=64, seed=i),
        )
        for i in range(n)
    ]


def run(
    engine: Engine, reqs: list[Request]
) -> tuple[EngineStats, dict[int, tuple[Completion | None, str]]]:
    out: dict[int, tuple[Completion | None, str]] = {}
    stats = asyncio.run(engine.run(reqs, lambda i, c, r: out.__setitem__(i, (c, r))))
    return stats, out


def backend(url: str, **kw: object) -> HTTPBackend:
    return HTTPBackend(LLMConfig(base_url=url, **kw))  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_every_call_is_cached_and_never_repeated(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    with FakeLLM() as llm:
        be = backend(llm.base_url, concurrency=4)
        stats, out = run(Engine(be, store, 4), requests(12))
        assert (stats.calls, stats.cache_hits, llm.count) == (12, 0, 12)
        assert store.cache_size() == 12
        again, out2 = run(Engine(be, store, 4), requests(12))
        assert (again.calls, again.cache_hits, llm.count) == (0, 12, 12)
        assert {i: c for i, (c, _) in out.items()} == {i: c for i, (c, _) in out2.items()}
        # a different seed is a different request
        more = [
            Request(messages=r.messages, sampling=Sampling(max_tokens=64, seed=100))
            for r in requests(1)
        ]
        third, _ = run(Engine(be, store, 4), more)
        assert (third.calls, llm.count) == (1, 13)
    assert '"answer": "The cache keeps results of earlier calls."' in out[0][0].text  # type: ignore[union-attr]


def test_flaky_endpoint_completes_with_retries(tmp_path: Path) -> None:
    def schedule(n: int) -> str | None:
        return {1: "500", 2: "429", 5: "timeout"}.get(n % 6)

    store = Store(tmp_path / "s.db")
    # a 2 s client timeout against 6 s stalls: a loaded machine (the suite's other workers)
    # must not turn ordinary answers into timeouts
    with FakeLLM(fail=schedule, slow_seconds=6.0) as llm:
        be = backend(llm.base_url, concurrency=4, timeout=2.0)
        stats, out = run(Engine(be, store, 4, Retry(max_retries=8, base=0.01)), requests(20))
        assert stats.failures == 0 and stats.calls == 20
        assert all(c is not None for c, _ in out.values()) and len(out) == 20
        failed = sum(o != "ok" for o in llm.outcomes)
        assert failed >= 3 and stats.retries == failed
        assert llm.count == 20 + failed
        assert store.cache_size() == 20


def test_gives_up_after_max_retries_and_caches_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    with FakeLLM(fail=lambda n: "500") as llm:
        be = backend(llm.base_url)
        stats, out = run(Engine(be, store, 2, Retry(max_retries=2, base=0.01)), requests(3))
        assert (stats.failures, stats.calls, llm.count) == (3, 0, 9)
        assert all(
            c is None and r.startswith(CALL_FAILED) and "HTTP 500" in r for c, r in out.values()
        )
        assert store.cache_size() == 0  # a failure is tried again by the next run


def test_unreachable_endpoint_is_a_clear_error() -> None:
    be = backend(f"http://127.0.0.1:{free_port()}/v1")
    with pytest.raises(JupiterError, match=r"unreachable .*jupiter serve --model DIR"):
        run(Engine(be, None), requests(1))


def test_unknown_model_and_missing_key_are_clear_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM() as llm:
        with pytest.raises(JupiterError, match="does not serve 'llama3'.*teacher"):
            run(Engine(backend(llm.base_url, model="llama3"), None), requests(1))
        monkeypatch.delenv("MY_KEY", raising=False)
        with pytest.raises(JupiterError, match="MY_KEY is not set"):
            backend(llm.base_url, api_key_env="MY_KEY")


def test_model_name_is_taken_from_the_server_and_completions_api_works() -> None:
    with FakeLLM() as llm:
        be = backend(llm.base_url, api="completions")
        stats, out = run(Engine(be, None), requests(2))
        assert be.model == "teacher" and stats.calls == 2
        assert '"answer": "Entries expire after a day."' in out[1][0].text  # type: ignore[union-attr]
        assert llm.paths == ["/v1/completions"] * 2
    assert flatten([{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}]) == (
        "System: S\n\nUser: Q\n\nAssistant:"
    )


def test_balanced_backend_spreads_load_and_survives_a_dead_endpoint() -> None:
    with FakeLLM(delay=0.02) as a, FakeLLM(delay=0.02) as b:
        bal = BalancedBackend(
            [
                backend(a.base_url),
                backend(b.base_url),
                backend(f"http://127.0.0.1:{free_port()}/v1"),
            ]
        )
        stats, _ = run(Engine(bal, None, 6), requests(30))
        assert stats.calls == 30 and len(bal.endpoints) == 2  # the dead one was dropped
        assert a.count + b.count == 30 and min(a.count, b.count) >= 10
    with FakeLLM(fail=lambda n: "500") as bad, FakeLLM() as good:
        bal = BalancedBackend([backend(bad.base_url), backend(good.base_url)], cooldown=60)
        stats, _ = run(Engine(bal, None, 2, Retry(max_retries=3, base=0.01)), requests(10))
        assert stats.failures == 0 and good.count == 10 and bad.count <= 2


def test_llm_generator_sits_the_exam_through_the_cache(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    with FakeLLM() as llm:
        gen = LLMGenerator(backend(llm.base_url), "llm:teacher", store)
        assert gen.choose("Which one?", ["x", "y", "z"]) == 1  # the teacher says "B."
        assert gen.answer(["What is a cache?"]) == ["An answer to: What is a cache?"]
        n = llm.count
        assert gen.choose("Which one?", ["x", "y", "z"]) == 1 and llm.count == n
        gen.close()


def test_cluster_backend_balances_the_nodes_generator_servers(tmp_path: Path) -> None:
    from jupiter.synth.http import make_backend

    with FakeLLM() as a, FakeLLM() as b:
        (tmp_path / "cluster.yaml").write_text(f"""
nodes:
  - {{host: localhost, name: g1, role: generator, generator: {{base_url: "{a.base_url}"}}}}
  - {{host: localhost, name: h1, role: hybrid, generator: {{base_url: "{b.base_url}"}}}}
  - {{host: localhost, name: t1, role: trainer, generator: {{base_url: "http://127.0.0.1:1/v1"}}}}
  - {{host: localhost, name: n1, role: hybrid}}
""")
        be = make_backend(LLMConfig(backend="cluster"), str(tmp_path / "cluster.yaml"))
        assert isinstance(be, BalancedBackend) and len(be.endpoints) == 2  # trainers serve none
        stats, _ = run(Engine(be, None, 4), requests(8))
        assert stats.calls == 8 and a.count + b.count == 8 and a.count and b.count
    (tmp_path / "none.yaml").write_text("nodes: [{host: localhost, role: hybrid}]\n")
    with pytest.raises(JupiterError, match="no node in cluster.yaml has a `generator:`"):
        make_backend(LLMConfig(backend="cluster"), str(tmp_path / "none.yaml"))


def test_llm_generator_exam_on_a_local_model(
    tmp_path: Path, tiny_model_dirs: dict[str, Path]
) -> None:
    from jupiter.models.decode import LocalLM
    from jupiter.synth.transformers_backend import TransformersBackend

    backend = TransformersBackend(tiny_model_dirs["llama"], device="cpu")
    gen = LLMGenerator(backend, "llm:transformers:tiny", Store(tmp_path / "s.db"), max_tokens=6)
    answers = gen.answer(["What is a cache?", "What is a queue?"])
    lm = backend._lm
    greedy = Sampling(max_tokens=6, temperature=0.0, seed=0)
    local = LocalLM(tiny_model_dirs["llama"], device="cpu")
    want = [
        local.generate([local.chat_ids([{"role": "user", "content": q}])], [greedy])[0].text.strip()
        for q in ("What is a cache?", "What is a queue?")
    ]
    assert answers == want
    assert 0 <= gen.choose("Which?", ["a", "b", "c", "d"]) < 4
    assert backend._lm is lm  # the model was loaded once for the whole exam
    gen.close()
