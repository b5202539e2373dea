"""Jupyter notebooks read as the Markdown they render to, from a folder and a git repository,
and the questions asked of them: prose and code, never their JSON nor base64 images."""

from __future__ import annotations

import json
import random
from pathlib import Path

from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.local import collect_local
from jupiter.collect.notebook import notebook_markdown
from jupiter.config import DomainConfig
from jupiter.records import Chunk
from jupiter.synth.questions import make_questions

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def cell(kind: str, source: str, outputs: list[dict[str, object]] | None = None) -> dict:
    got: dict[str, object] = {"cell_type": kind, "metadata": {}, "source": source.splitlines(True)}
    if kind == "code":
        got |= {"outputs": outputs or [], "execution_count": 1}
    return got


NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
    "cells": [
        cell("markdown", "# Population by country\n\nThe table counts people per country."),
        cell(
            "markdown",
            "## Loading\n\nRead the table with `read_csv`, which parses the header row:",
        ),
        cell(
            "code",
            "import pandas as pd\ndf = pd.read_csv('pop.csv')\nprint(len(df))",
            [{"output_type": "stream", "name": "stdout", "text": ["217\n"]}],
        ),
        cell(
            "code",
            "df.plot()",
            [
                {
                    "output_type": "display_data",
                    "data": {"image/png": PNG, "text/plain": ["<Figure size 640x480>"]},
                    "metadata": {},
                }
            ],
        ),
        cell(
            "code",
            "1 / 0",
            [{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "", "traceback": []}],
        ),
        cell(
            "code",
            "df.head(40)",
            [
                {
                    "output_type": "execute_result",
                    "data": {"text/plain": [f"row {i}\n" for i in range(40)]},
                    "metadata": {},
                    "execution_count": 4,
                }
            ],
        ),
        {"cell_type": "raw", "metadata": {}, "source": ["%%latex raw"]},
    ],
}
NBFORMAT3 = {
    "nbformat": 3,
    "metadata": {},
    "worksheets": [
        {
            "cells": [
                {"cell_type": "heading", "level": 1, "source": ["Old notebook"]},
                {"cell_type": "code", "input": ["x = 1"], "outputs": [], "language": "python"},
            ]
        }
    ],
}
EXPECTED = (
    "# Population by country\n\nThe table counts people per country.\n\n"
    "## Loading\n\nRead the table with `read_csv`, which parses the header row:\n\n"
    "```python\nimport pandas as pd\ndf = pd.read_csv('pop.csv')\nprint(len(df))\n```\n"
    "```output\n217\n```\n\n"
    "```python\ndf.plot()\n```\n\n```python\n1 / 0\n```\n\n```python\ndf.head(40)\n```"
)


def write_tree(root: Path) -> None:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "population.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
    (root / "docs" / "old.ipynb").write_text(json.dumps(NBFORMAT3))
    (root / "docs" / "broken.ipynb").write_text('{"cells": [')


def test_a_notebook_is_its_markdown_and_short_text_outputs() -> None:
    # the image, the error, the 40-line listing and the raw cell are left out
    assert notebook_markdown(json.dumps(NOTEBOOK)) == ("Population by country", EXPECTED)
    assert notebook_markdown(json.dumps(NBFORMAT3)) == (
        "Old notebook",
        "# Old notebook\n\n```python\nx = 1\n```",
    )
    assert notebook_markdown('{"cells": [') is None
    assert notebook_markdown('{"name": "a package.json"}') is None


def test_a_folder_and_a_repository_read_notebooks_by_default(tmp_path: Path) -> None:
    write_tree(tmp_path / "project")
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "local", "path": "project"}]}
    )
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = {d.title: d for d in collect_local(cfg.sources[0], cfg, rejects)}  # type: ignore[arg-type]
    assert sorted(docs) == ["Old notebook", "Population by country"]
    assert docs["Population by country"].text == EXPECTED
    assert PNG not in docs["Population by country"].text
    assert rejects.rejects == {"bad_notebook": 1}

    write_tree(tmp_path / "repo")
    commit_all(tmp_path / "repo")
    result = collect_repo(tmp_path)
    got = {d.title: d for d in result.documents}
    assert sorted(got) == ["Old notebook", "Population by country"]
    assert got["Population by country"].text == EXPECTED
    assert got["Population by country"].meta["language"] == "jupyter"
    assert result.rejects == {"bad_notebook": 1}


def test_questions_about_a_notebook_ask_its_prose_and_code() -> None:
    _, text = notebook_markdown(json.dumps(NOTEBOOK)) or ("", "")
    chunk = Chunk("d", "local", "/nb/population.ipynb", "Population by country", 0, len(text), text)
    qs = make_questions(chunk, ["example", "explain_topic"], 6, random.Random(0))
    answers = {q.template: q.answer or "" for q in qs}
    assert answers["example"] == (
        "Read the table with `read_csv`, which parses the header row:\n\n"
        "```python\nimport pandas as pd\ndf = pd.read_csv('pop.csv')\nprint(len(df))\n```"
    )
    assert all('"cell_type"' not in (q.answer or "") for q in qs)
