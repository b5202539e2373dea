"""Python source read as its API: a real package on disk (and in a git repository),
parsed without importing it, each public object with a docstring a document named where
its users meet it; and the questions the generator then asks about it."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from pathlib import PurePosixPath as P

import pytest
from rich.console import Console

from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.local import collect_local
from jupiter.collect.pyapi import PyFile, api_documents, module_name
from jupiter.config import DomainConfig, load_domain
from jupiter.improve.exams import user_exam
from jupiter.improve.stages import collect_stage
from jupiter.improve.workspace import Workspace
from jupiter.records import Chunk
from jupiter.synth.questions import make_questions

INIT = '''"""Widgets for everyone."""
from .core import Widget as Widget
from ._impl import *
from . import core
'''
CORE = '''"""Core widgets."""
import sys
from typing import overload


class Widget:
    """A widget that spins.

    :param speed: How fast it spins, in turns a second.
        Zero keeps it still.
    """

    color: str = "red"
    """The name of the widget's colour."""

    _cache = None
    """Not public."""

    def __init__(self, speed: int = 1) -> None:
        self.speed = speed

    def spin(self, times: int, *, loud: bool = False) -> int:
        """Spin the widget `times` times and return how many turns it made.

        .. versionchanged:: 2.0
            Added ``loud``.
        """
        return times

    @property
    def size(self) -> int:
        """The widget's size in millimetres."""
        return 3

    @staticmethod
    def make(kind: str) -> "Widget":
        """Make a widget of the given kind."""
        return Widget()

    def _hidden(self) -> None:
        """Not public."""


def helper(x, y=2):
    """Add y to x and return the sum."""
    return x + y


DEFAULT_SPEED = 1
"""The turns a second of a widget made without a speed."""


def _private():
    """Not public either."""


if sys.platform == "win32":
    def winonly():
        """Only defined on Windows."""
else:
    def winonly():
        """Defined elsewhere."""


@overload
def twice(x: int) -> int: ...
@overload
def twice(x: str) -> str: ...
def twice(x):
    """Return x doubled."""
    return x * 2
'''
IMPL = '''__all__ = ["fast_spin"]


def fast_spin(widget):
    """Spin a widget at full speed."""


def other():
    """Not exported by the package."""
'''
FILES = {
    "src/pkg/__init__.py": INIT,
    "src/pkg/core.py": CORE,
    "src/pkg/_impl.py": IMPL,
    "src/pkg/_internal.py": 'def secret():\n    """Never exported."""\n',
    "tests/test_core.py": 'def test_spin():\n    """A test, not an API."""\n',
    "docs/conf.py": 'project = "pkg"\n',
    "examples/demo.py": 'def main():\n    """Show the widget off."""\n',
    "src/pkg/broken.py": "def (:\n",
    "README.md": "# pkg\n\nWidgets.\n",
}
REJECTS = {
    "python_test": 1,
    "python_syntax_error": 1,
    "python_no_api": 1,
    "python_outside_package": 2,
}
EXPECTED = [
    "python:pkg",
    "python:pkg.Widget",
    "python:pkg.Widget.color",
    "python:pkg.Widget.make",
    "python:pkg.Widget.size",
    "python:pkg.Widget.spin",
    "python:pkg.core",
    "python:pkg.core.DEFAULT_SPEED",
    "python:pkg.core.helper",
    "python:pkg.core.twice",
    "python:pkg.core.winonly",
    "python:pkg.fast_spin",
]


def write_tree(root: Path) -> None:
    for rel, text in FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def local_domain(tmp_path: Path) -> DomainConfig:
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "local", "path": "project"}]}
    )
    cfg.base_dir = tmp_path
    return cfg


def test_a_package_becomes_its_public_api(tmp_path: Path) -> None:
    write_tree(tmp_path / "project")
    cfg = local_domain(tmp_path)
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    api = {d.uri: d for d in docs if d.uri.startswith("python:")}
    assert sorted(api) == EXPECTED
    assert [d.title for d in docs if not d.uri.startswith("python:")] == [
        "pkg"
    ]  # the README, by its heading
    root = (tmp_path / "project").resolve()
    assert rejects.rejects == REJECTS
    assert rejects.samples["python_syntax_error"] == [str(root / "src/pkg/broken.py")]
    assert rejects.samples["python_no_api"] == [str(root / "src/pkg/_internal.py")]
    # beside the package, a script is no API: examples/demo.py's main() is not asked about
    assert sorted(rejects.samples["python_outside_package"]) == [
        str(root / "docs/conf.py"),
        str(root / "examples/demo.py"),
    ]

    widget = api["python:pkg.Widget"]
    assert widget.title == "pkg.Widget"
    assert widget.text == (
        "Widget(speed: int=1)\n\nA widget that spins.\n\n"
        ":param speed: How fast it spins, in turns a second.\n    Zero keeps it still."
    )
    assert widget.meta == {
        "kind": "class",
        "module": "pkg",
        "qualname": "Widget",
        "signature": "(speed: int=1)",
        "params": ["speed"],
        "origin": str(root / "src/pkg/core.py"),
        "line": 6,
    }
    spin = api["python:pkg.Widget.spin"]
    assert spin.text.startswith("Widget.spin(times: int, *, loud: bool=False) -> int\n\nSpin")
    assert spin.meta["params"] == ["times", "loud"]
    assert api["python:pkg.Widget.make"].text.startswith("Widget.make(kind: str) -> 'Widget'")
    size = api["python:pkg.Widget.size"]
    assert size.text == "Widget.size\n\nThe widget's size in millimetres."
    assert size.meta["property"] is True
    assert api["python:pkg.core.helper"].text == "helper(x, y=2)\n\nAdd y to x and return the sum."
    # the implementation, not the @overload stubs; the first of two platform definitions
    assert api["python:pkg.core.twice"].text == "twice(x)\n\nReturn x doubled."
    assert api["python:pkg.core.winonly"].text == "winonly()\n\nOnly defined on Windows."
    assert api["python:pkg.fast_spin"].meta["origin"] == str(root / "src/pkg/_impl.py")
    assert api["python:pkg"].text == "Widgets for everyone."
    # attributes documented as Sphinx reads them: the assignment, then a string
    assert api["python:pkg.Widget.color"].text == "Widget.color\n\nThe name of the widget's colour."
    assert api["python:pkg.Widget.color"].meta["kind"] == "attribute"
    assert api["python:pkg.core.DEFAULT_SPEED"].text == (
        "DEFAULT_SPEED\n\nThe turns a second of a widget made without a speed."
    )


def test_the_same_package_from_a_git_repository(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root)
    sha = commit_all(root)
    result = collect_repo(tmp_path)
    api = {d.uri: d for d in result.documents if d.uri.startswith("python:")}
    assert sorted(api) == EXPECTED
    assert result.rejects == REJECTS
    meta = api["python:pkg.core.helper"].meta
    repo = str(root.resolve())
    assert (meta["repo"], meta["commit"], meta["path"]) == (repo, sha, "src/pkg/core.py")
    assert meta["origin"] == f"{repo}@{sha}:src/pkg/core.py"


def test_module_names_follow_the_packages() -> None:
    pk = {P("src/pkg"), P("src/pkg/sub")}
    assert module_name(P("src/pkg/sub/mod.py"), pk, "") == "pkg.sub.mod"
    assert module_name(P("src/pkg/__init__.py"), pk, "") == "pkg"
    assert module_name(P("scripts/run.py"), pk, "") == "run"
    # the source's own folder is the package
    assert module_name(P("core.py"), {P(".")}, "click") == "click.core"
    assert module_name(P("__init__.py"), {P(".")}, "click") == "click"


def test_chains_of_reexports_and_all_give_the_shortest_name() -> None:
    files = [
        PyFile(P("a/__init__.py"), "a", "from .b import Thing\n__all__ = ['Thing']\n"),
        PyFile(P("a/b/__init__.py"), "b", "from ._c import Thing, Other\n"),
        PyFile(
            P("a/b/_c.py"),
            "c",
            'class Thing:\n    """A thing."""\n\nclass Other:\n    """Another."""\n',
        ),
    ]
    docs = api_documents(files, "local")
    assert [d.uri for d in docs] == ["python:a.Thing", "python:a.b.Other"]


def test_questions_about_a_library_api_use_its_fields(tmp_path: Path) -> None:
    write_tree(tmp_path / "project")
    cfg = local_domain(tmp_path)
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg)}  # type: ignore[arg-type]

    def asked(uri: str) -> dict[str, str]:
        d = docs[uri]
        chunk = Chunk(d.id, d.source, d.uri, d.title, 0, len(d.text), d.text)
        qs = make_questions(chunk, ["what_does", "arguments", "signature"], 5, random.Random(0))
        return {q.template: q.answer or "" for q in qs}

    widget = asked("python:pkg.Widget")
    assert widget["what_does"] == "A widget that spins."
    # the parameter's own field, all its lines, without the ":param speed:" markup
    assert widget["arguments"] == (
        "`pkg.Widget` takes 1 argument: speed: int=1.\n\n"
        "- speed: How fast it spins, in turns a second. Zero keeps it still."
    )
    assert widget["signature"] == "`pkg.Widget(speed: int=1)`"
    spin = asked("python:pkg.Widget.spin")
    # `loud` has no field; the directive that names it is no description of it
    assert spin["arguments"] == (
        "`pkg.Widget.spin` takes 2 arguments: times: int, loud: bool=False. Keyword-only:"
        " loud.\n\n- times: Spin the widget `times` times and return how many turns it made."
    )


def test_the_collect_stage_and_a_user_exam_that_cites_a_py_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collect stage says what it left out and how to read it; an exam item that cites a
    .py file by its path (the file is no document: its API is) is still checked against it."""
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    write_tree(tmp_path / "project")
    core = (tmp_path / "project/src/pkg/core.py").resolve()
    item = {
        "id": "u1",
        "question": "My widget must stand still at first; what speed do I build it with?",
        "choices": ["0", "1", "-1", "None"],
        "answer_index": 0,
        "answer": "0",
        "source": f"doc:{core}",
        "quote": "How fast it spins, in turns a second. Zero keeps it still.",
    }
    exam = tmp_path / "exam.jsonl"
    exam.write_text(json.dumps(item) + "\n")
    yaml = tmp_path / "t.yaml"
    yaml.write_text(
        "name: t\nsources: [{type: local, path: project}]\n"
        f"chunking: {{heldout_fraction: 0.0}}\neval: {{user_exam_path: {exam}}}\n"
    )
    out = io.StringIO()
    ws = Workspace(load_domain(str(yaml)), console=Console(file=out, width=400))
    try:
        info = collect_stage(ws, 1)
        said = out.getvalue()
        assert info["rejected_records"]["python_test"] == 1
        # the reasons that share a fix, then the fix once
        assert (
            "1 python_no_api, 2 python_outside_package, 1 python_syntax_error, 1 python_test "
            "(Python files read as their API: tests, scripts beside the packages"
        ) in said, said
        assert said.count("python: text reads them as text") == 1
        got = user_exam(ws)
        assert got is not None
        assert got.about["scored"] == 1 and got.about["dropped"] == {}, got.about
    finally:
        ws.close()
