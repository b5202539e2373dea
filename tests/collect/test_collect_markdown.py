"""Markdown as site generators publish it: front matter (the title, a description), MDX's
imports and components, three generators' admonitions, templating and HTML comments,
code fences untouched; from a local folder and a git repository."""

from __future__ import annotations

from pathlib import Path

from apitree import write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import markdown
from jupiter.collect.local import collect_local
from jupiter.config import DomainConfig

DOCUSAURUS = """---
title: Configuring the queue
sidebar_position: 3
description: How the queue's folder and workers are set.
---

import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

<!-- prettier-ignore -->
Set `workers` to run more jobs at once.

:::warning[Permissions]
The folder must be writable by the worker's user.
:::

<Tabs>
<TabItem value="py" label="Python">

```html
<!-- an HTML example keeps its comment -->
<div>{{ workers }}</div>
```

</TabItem>
</Tabs>
"""
HUGO = """+++
title = "Retries"
weight = 20
+++

A failed job runs again {{< param "retries" >}} times.

!!! note "Backoff"
    Each retry waits twice as long as the last.

> [!TIP]
> Set `retries: 0` to never retry.
"""


def test_front_matter_components_and_admonitions() -> None:
    assert markdown.read(DOCUSAURUS) == (
        "Configuring the queue",
        "How the queue's folder and workers are set.\n\n"
        "Set `workers` to run more jobs at once.\n\n"
        "Warning: Permissions\nThe folder must be writable by the worker's user.\n\n"
        "```html\n<!-- an HTML example keeps its comment -->\n<div>{{ workers }}</div>\n```\n",
    )
    assert markdown.read(HUGO) == (
        "Retries",
        "A failed job runs again  times.\n\n"
        "Note: Backoff\nEach retry waits twice as long as the last.\n\n"
        "> Tip:\n> Set `retries: 0` to never retry.\n",
    )


def test_an_indented_code_blocks_component_tag_stays() -> None:
    page = "Render it:\n\n    <Button onClick={go}>\n    import x from 'y';\n\nDone.\n"
    assert markdown.read(page) == ("", page)


def test_what_is_not_front_matter_stays_text() -> None:
    ruled = "---\n\nA page that opens with a rule.\n\n---\n\nMore.\n"
    assert markdown.read(ruled) == ("", ruled)
    assert markdown.front_matter("---\n: bad: yaml: [\n---\nText\n") == (
        {},
        "---\n: bad: yaml: [\n---\nText\n",
    )


def test_a_docs_folder_and_a_git_repository(tmp_path: Path) -> None:
    tree = {"docs/config.mdx": DOCUSAURUS, "docs/retries.md": HUGO}
    write_tree(tmp_path / "site", tree)
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "local", "path": "site"}]}  # the default globs
    )
    cfg.base_dir = tmp_path
    docs = {Path(d.uri).name: d for d in collect_local(cfg.sources[0], cfg)}  # type: ignore[arg-type]
    assert sorted(docs) == ["config.mdx", "retries.md"]
    assert docs["config.mdx"].title == "Configuring the queue"
    assert "import Tabs" not in docs["config.mdx"].text
    assert docs["retries.md"].text.startswith("A failed job runs again")
    write_tree(tmp_path / "repo", tree)
    commit_all(tmp_path / "repo")
    got = {d.meta["path"]: d for d in collect_repo(tmp_path).documents}
    assert (got["docs/config.mdx"].title, got["docs/config.mdx"].text) == (
        docs["config.mdx"].title,
        docs["config.mdx"].text,
    )
    assert got["docs/config.mdx"].meta["language"] == "markdown"


def test_myst_colon_fences_are_the_backtick_fences_they_mean() -> None:
    text = (
        "# Guide\n\n::::{note}\nOuter.\n:::{tip}\nInner.\n:::\n::::\n\n"
        ":::warning\nA Docusaurus admonition.\n:::\n\n```text\n:::{note}\n```\n"
    )
    _, body = markdown.read(text)
    assert body == (
        "# Guide\n\n````{note}\nOuter.\n```{tip}\nInner.\n```\n````\n\n"
        "Warning:\nA Docusaurus admonition.\n\n```text\n:::{note}\n```\n"
    )
