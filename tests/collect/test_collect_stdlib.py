"""The python_stdlib source: real documents read from this interpreter's own docs."""

from __future__ import annotations

import time
from pathlib import Path
from pydoc_data.topics import topics

import pytest

from jupiter.collect import stdlib
from jupiter.collect.stdlib import collect_stdlib, stdlib_modules
from jupiter.config import PythonStdlibSource
from jupiter.errors import JupiterError


def source(**kw: object) -> PythonStdlibSource:
    return PythonStdlibSource.model_validate({"type": "python_stdlib", **kw})


def by_uri(docs: list) -> dict:
    return {d.uri: d for d in docs}


def test_json_module_docstrings() -> None:
    docs = collect_stdlib(source(topics=False, modules=["json"]))
    uris = [d.uri for d in docs]
    assert uris == sorted(uris)
    # JSONEncoder and JSONDecoder live in json.encoder / json.decoder, not asked for
    assert set(uris) == {
        "python:json",
        "python:json.dump",
        "python:json.dumps",
        "python:json.load",
        "python:json.loads",
    }
    dumps = by_uri(docs)["python:json.dumps"]
    assert dumps.source == "python_stdlib"
    assert dumps.title == "json.dumps"
    assert dumps.meta["kind"] == "function"
    assert dumps.meta["module"] == "json" and dumps.meta["qualname"] == "dumps"
    assert {"obj", "indent", "sort_keys"} <= set(dumps.meta["params"])
    assert dumps.meta["params"][0] == "obj"
    assert dumps.meta["signature"].startswith("(obj, *, skipkeys=False")
    assert dumps.text.startswith("dumps(obj, *, skipkeys=False")
    assert "Serialize ``obj`` to a JSON formatted ``str``" in dumps.text
    module = by_uri(docs)["python:json"]
    assert module.meta == {
        "kind": "module",
        "module": "json",
        "qualname": "",
        "signature": "",
        "params": [],
    }
    assert module.text.startswith("JSON (JavaScript Object Notation)")


def test_alias_module_and_c_accelerated_functions() -> None:
    docs = by_uri(collect_stdlib(source(topics=False, modules=["os.path", "functools", "heapq"])))
    join = docs["python:os.path.join"]  # defined in posixpath, asked for as os.path
    assert join.meta["params"] == ["a", "p"]
    assert docs["python:heapq.heappush"].meta["params"] == ["heap", "item"]  # from _heapq
    # reduce has no introspectable signature: it comes from the docstring's first line
    reduce = docs["python:functools.reduce"]
    assert reduce.meta["signature"] == "(function, iterable[, initial])"
    assert reduce.meta["params"] == ["function", "iterable", "initial"]
    assert reduce.text.startswith("reduce\n\nreduce(function, iterable[, initial]) -> value")
    # functools imports RLock from _thread: not functools' to document
    assert not any(u.startswith("python:functools.RLock") for u in docs)


def test_methods_and_properties() -> None:
    docs = by_uri(collect_stdlib(source(topics=False, modules=["collections", "pathlib"])))
    move = docs["python:collections.OrderedDict.move_to_end"]
    assert move.meta["kind"] == "method"
    assert move.meta["params"] == ["key", "last"]  # self dropped
    assert move.text.startswith("OrderedDict.move_to_end(key, last=True)\n\n")
    name = docs["python:pathlib.PurePath.name"]
    assert name.meta["property"] is True
    assert name.text == "PurePath.name\n\nThe final path component, if any."
    # no boilerplate or private members
    assert not any(".__" in u or "._" in u for u in docs)


def test_builtins_keep_docstring_signatures() -> None:
    docs = by_uri(collect_stdlib(source(topics=False, modules=["builtins"])))
    fmt = docs["python:builtins.str.format"]
    assert fmt.text.startswith("str.format\n\nS.format(*args, **kwargs) -> str")
    assert fmt.meta["params"] == ["args", "kwargs"]
    assert docs["python:builtins.print"].meta["params"] == ["args", "sep", "end", "file", "flush"]
    assert "python:builtins.ValueError" in docs


def test_topics() -> None:
    docs = collect_stdlib(source(docstrings=False))
    assert len(docs) == len(topics) == 79
    d = by_uri(docs)["pydoc:topics/for"]
    assert d.title == 'The "for" statement'
    assert d.meta == {"kind": "topic", "key": "for"}
    assert "for_stmt" in d.text
    assert by_uri(docs)["pydoc:topics/if"].title == 'The "if" statement'


def test_max_documents_keeps_the_first_uris_and_output_is_deterministic() -> None:
    full = collect_stdlib(source(modules=["json", "textwrap"]))
    capped = collect_stdlib(source(modules=["json", "textwrap"], max_documents=85))
    assert len(capped) == 85
    assert [d.id for d in capped] == [d.id for d in full[:85]]
    assert capped[0].uri.startswith("pydoc:") and capped[-1].uri.startswith("python:")


def test_import_side_effects_stay_in_the_child(capfd: pytest.CaptureFixture[str]) -> None:
    docs = collect_stdlib(source(topics=False, modules=["this", "json"]))  # `this` prints
    out, _ = capfd.readouterr()
    assert "Beautiful is better than ugly" not in out
    assert "python:json.dumps" in by_uri(docs)


def test_unknown_module_is_named_in_the_error() -> None:
    with pytest.raises(JupiterError, match=r"jsno cannot be imported .* sources\[\]\.modules"):
        collect_stdlib(source(topics=False, modules=["json", "jsno"]))


def test_a_hung_or_crashed_import_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def fake_child(names: list[str]) -> tuple[list[dict], bool]:
        calls.append(list(names))
        if len(calls) == 1:  # a done, b started and never finished: the child hung
            return [{"start": "a"}, {"done": "a", "docs": [{"uri": "x"}]}, {"start": "b"}], False
        return [
            {"start": "c"},
            {"failed": "c", "error": "E"},
            {"start": "d"},
            {"done": "d", "docs": []},
        ], True

    monkeypatch.setattr(stdlib, "_run_child", fake_child)
    records, failed = stdlib._read_share(["a", "b", "c", "d"])
    assert calls == [["a", "b", "c", "d"], ["c", "d"]]
    assert records == [{"uri": "x"}]
    assert failed == ["b", "c"]


def test_module_enumeration_excludes_private_and_side_effect_modules() -> None:
    names = stdlib_modules()
    assert {"json", "os", "builtins", "email.mime.text", "xml.etree.ElementTree"} <= set(names)
    assert not any(p.startswith("_") for n in names for p in n.split("."))
    for bad in ("antigravity", "this", "tkinter", "idlelib", "test", "turtle", "lib2to3"):
        assert not any(n == bad or n.startswith(bad + ".") for n in names)
    assert not any(n.startswith("encodings.") for n in names)


@pytest.mark.slow
def test_whole_stdlib() -> None:
    t0 = time.perf_counter()
    docs = collect_stdlib(source())
    elapsed = time.perf_counter() - t0
    uris = [d.uri for d in docs]
    assert uris == sorted(uris) and len(set(uris)) == len(uris)
    assert len(docs) > 4000
    assert sum(len(d.text.encode()) for d in docs) > 1_500_000
    kinds = {d.meta["kind"] for d in docs}
    assert kinds == {"topic", "module", "class", "function", "method"}
    found = set(uris)
    for uri in (
        "python:builtins.print",
        "python:os.listdir",
        "python:asyncio.tasks.gather",
        "python:re.Pattern.match",
        "pydoc:topics/with",
    ):
        assert uri in found
    assert not any(".tkinter" in u or u.startswith("python:idlelib") for u in uris)
    assert not any(" at 0x" in d.text for d in docs)  # addresses would change the ids
    assert elapsed < 60  # about 1 s here; generous for a loaded machine


def test_a_real_hung_child_is_killed_and_the_rest_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in helper that speaks the protocol and hangs on module "b".
    fake = tmp_path / "helper.py"
    fake.write_text(
        "import json, sys, time\n"
        "for name in sys.argv[1:]:\n"
        "    print(json.dumps({'start': name}), flush=True)\n"
        "    if name == 'b':\n"
        "        time.sleep(60)\n"
        "    print(json.dumps({'done': name, 'docs': [{'uri': name}]}), flush=True)\n"
    )
    monkeypatch.setattr(stdlib, "HELPER", fake)
    monkeypatch.setattr(stdlib, "TIMEOUT_BASE_S", 1.0)
    monkeypatch.setattr(stdlib, "TIMEOUT_PER_MODULE_S", 0.0)
    t0 = time.perf_counter()
    records, failed = stdlib._read_share(["a", "b", "c"])
    assert records == [{"uri": "a"}, {"uri": "c"}]
    assert failed == ["b"]
    assert time.perf_counter() - t0 < 10


def test_user_environment_never_reaches_the_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """cgi.parse's signature reprs os.environ: the child runs with a minimal environment."""
    monkeypatch.setenv("JUPITER_TEST_SECRET", "hunter2-do-not-leak")
    docs = collect_stdlib(PythonStdlibSource(type="python_stdlib", topics=False, modules=["cgi"]))
    parse = next(d for d in docs if d.uri == "python:cgi.parse")
    assert "environ" in parse.text
    assert all("hunter2-do-not-leak" not in d.text for d in docs)
    again = collect_stdlib(PythonStdlibSource(type="python_stdlib", topics=False, modules=["cgi"]))
    assert [d.id for d in again] == [d.id for d in docs]


def test_the_interpreters_path_never_reaches_the_corpus() -> None:
    """platform.architecture defaults to executable=sys.executable: the virtualenv's path in
    a document would make two clones collect different documents (and train differently)."""
    import sys

    docs = collect_stdlib(
        PythonStdlibSource(type="python_stdlib", topics=False, modules=["platform"])
    )
    arch = by_uri(docs)["python:platform.architecture"]
    assert arch.text.startswith("architecture(executable=sys.executable, bits='', linkage='')")
    assert arch.meta["signature"] == "(executable=sys.executable, bits='', linkage='')"
    assert all(sys.executable not in d.text for d in docs)
