"""Python scripts written as notebooks (sphinx-gallery's examples, jupytext's percent
format, editors' `# %%` cells, nbconvert's export) read as the page they render to: the
docstring, then each cell's text as Markdown and its code fenced; other .py files as their
API, as before."""

from __future__ import annotations

from pathlib import Path

from apitree import collect_tree, write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import pyscript

# written for these tests: a gallery example in sphinx-gallery's layout
GALLERY = '''"""
=====================
Frobbing a data frame
=====================

This example shows how :func:`frob.frobnicate` turns rows into frobs, with the
``strict=True`` option of :class:`~frob.Frobber`.
"""

# Authors: the frob developers

import frob

# %%
# Loading the data
# ----------------
#
# We load the rows first. See :ref:`the loader guide <loading>` for the formats.
rows = frob.load("rows.csv")

# %%
# .. note::
#
#    Frobbing needs at least two rows.
#
# The frobber is then fit::
#
#     frobber = frob.Frobber(strict=True)
#
frobber = frob.Frobber(strict=True).fit(rows)

##############################################################################
# Checking the result
# ^^^^^^^^^^^^^^^^^^^
# A frob has a score between 0 and 1.
print(frobber.score(rows))
'''


def test_a_gallery_example_reads_as_its_page() -> None:
    assert pyscript.is_cell_script(GALLERY)
    title, page = pyscript.render(GALLERY)
    assert title == "Frobbing a data frame"
    assert page == (
        "# Frobbing a data frame\n\n"
        "This example shows how `frob.frobnicate` turns rows into frobs, with the\n"
        "`strict=True` option of `frob.Frobber`.\n\n"
        "```python\n# Authors: the frob developers\n\nimport frob\n```\n\n"
        "## Loading the data\n\n"
        "We load the rows first. See `the loader guide` for the formats.\n\n"
        '```python\nrows = frob.load("rows.csv")\n```\n\n'
        "Note: Frobbing needs at least two rows.\n\n"
        "The frobber is then fit:\n\n"
        "```\nfrobber = frob.Frobber(strict=True)\n```\n\n"
        "```python\nfrobber = frob.Frobber(strict=True).fit(rows)\n```\n\n"
        "### Checking the result\n\n"
        "A frob has a score between 0 and 1.\n\n"
        "```python\nprint(frobber.score(rows))\n```"
    )


def test_percent_cells_nbconvert_markers_and_what_is_no_script() -> None:
    percent = (
        "# %% [markdown]\n# # Training loop\n#\n# We train for two epochs.\n\n"
        "# %%\nfor epoch in range(2):\n    step()\n\n"
        "# %% Evaluating\nscore = evaluate()\n"
    )
    assert pyscript.render(percent) == (
        "Training loop",
        "# Training loop\n\nWe train for two epochs.\n\n"
        "```python\nfor epoch in range(2):\n    step()\n```\n\n"
        "# Evaluating\n\n```python\nscore = evaluate()\n```",
    )
    exported = "#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n\n\nimport os\n"
    assert pyscript.is_cell_script(exported)
    # a module with a comment bar over code, a `%%` inside a string: no script
    module = '"""A module."""\n\nX = "# %% not a marker"\n#' + "#" * 30 + "\nY = 1\n"
    assert not pyscript.is_cell_script(module)
    assert not pyscript.is_script("pkg/mod.py", module)
    # a gallery's example by its name or folder, with a docstring: a page of code
    plain = '"""Plot the frobs.\n\nA short example."""\nimport frob\nfrob.plot()\n'
    assert pyscript.is_script("examples/plot_frobs.py", plain)
    assert pyscript.is_script("docs/tutorials/frobs.py", plain)
    assert not pyscript.is_script("examples/helper.py", "import frob\n")
    assert pyscript.render(plain)[1] == (
        "Plot the frobs.\n\nA short example.\n\n```python\nimport frob\nfrob.plot()\n```"
    )


def test_a_folder_and_a_git_repository_read_scripts_as_pages(tmp_path: Path) -> None:
    api = '"""Frob things."""\n\n\ndef frobnicate(x):\n    """Turn x into a frob."""\n'
    tree = {"examples/plot_frob.py": GALLERY, "frob/__init__.py": api}
    docs, _ = collect_tree(tmp_path, tree, ["*.py"])
    page = docs[str(tmp_path / "project" / "examples" / "plot_frob.py")]
    assert page.title == "Frobbing a data frame" and page.meta["format"] == "script"
    assert page.text == pyscript.render(GALLERY)[1]
    assert "python:frob.frobnicate" in docs  # the package's API, as before
    assert not [u for u in docs if u.startswith("python:") and "plot_frob" in u]
    as_text, _ = collect_tree(tmp_path / "t", tree, ["*.py"], python="text")
    assert as_text[str(tmp_path / "t" / "project" / "examples" / "plot_frob.py")].text == GALLERY
    write_tree(tmp_path / "repo", tree)
    commit_all(tmp_path / "repo")
    got = {d.uri.rsplit(":", 1)[-1]: d for d in collect_repo(tmp_path).documents}
    assert got["examples/plot_frob.py"].meta["format"] == "script"
    assert got["examples/plot_frob.py"].text == page.text


def test_odd_scripts_never_break_the_reader() -> None:
    for text in ["# %%", "# %%\n#", '"""unterminated\n# %%\n', "#" * 40 + "\n# x", "\x00# %%\n"]:
        title, page = pyscript.render(text)
        assert isinstance(title, str) and isinstance(page, str)
