"""Sphinx's object descriptions in reStructuredText pages (`.. function::`, `.. class::`,
`.. c:function::`), each a document named as Sphinx names it, the page keeping the rest;
from a folder (a Django-style *.txt page too) and a git repository; what is quoted is never
read for descriptions."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_page, collect_tree, fuzzed, write_tree
from builtpages import BUILT
from gitrepo import collect_repo, commit_all
from jupiter.collect import sites, sphinxobj
from jupiter.records import Document

JSON_RST = """:mod:`json` --- JSON encoder and decoder
========================================

.. module:: json
   :synopsis: Encode and decode the JSON format.

JSON is a lightweight data interchange format.

Basic Usage
-----------

.. function:: dumps(obj, *, skipkeys=False, indent=None) -> str

   :param obj: what to serialize.

   Serialize *obj* to a JSON formatted :class:`str`.

   If *indent* is a non-negative integer, array elements are pretty-printed with
   that indent level.

   .. versionchanged:: 3.4
      Use ``(',', ': ')`` as default if *indent* is not ``None``.

   .. index:: single: indent

.. class:: JSONDecoder(*, strict=True)

   Simple JSON decoder.

   .. method:: decode(s)

      Return the Python representation of *s*.

   .. attribute:: strict
      :type: bool
      :value: True

      If false, control characters will be allowed inside strings.

.. method:: str.join(iterable)
   :module: builtins

   Return a string which is the concatenation of the strings in *iterable*.

.. class:: List(elts, ctx)
           Tuple(elts, ctx)

   A list or tuple node.

.. function:: loads(s)
              loads(s, *, cls=None)

   Deserialize *s* to a Python object.

.. function:: undocumented(x)

An example, quoted::

   .. function:: quoted(x)

      Never read.

.. code-block:: rst

   .. function:: shown(x)

      Never read either.

..
   .. function:: commented(x)

      A comment.

The end of the page.
"""

C_RST = """Lists
=====

.. c:function:: PyObject* PyList_New(Py_ssize_t len)

   Return a new list of length *len* on success, or ``NULL`` on failure.

.. c:member:: Py_ssize_t PyVarObject.ob_size

   The number of items in the object.

.. c:macro:: Py_RETURN_NONE

   Return :c:data:`Py_None` from a function.

.. js:module:: widgets

.. js:function:: render(node, options)

   Draw the widget into *node*.
"""


def _doc(text: str, uri: str = "/p/json.rst") -> list[Document]:
    return sphinxobj.split(Document("local", uri, "json.rst", text, {"kind": "file"}))


def test_python_descriptions_are_documents_named_as_sphinx_names_them() -> None:
    page, *objects = _doc(JSON_RST)
    by_uri = {d.uri: d for d in objects}
    assert list(by_uri) == [
        "python:json.dumps",
        "python:json.JSONDecoder",
        "python:json.JSONDecoder.decode",
        "python:json.JSONDecoder.strict",
        "python:builtins.str.join",
        "python:json.List",
        "python:json.Tuple",
        "python:json.loads",
    ]
    dumps = by_uri["python:json.dumps"]
    assert dumps.title == "json.dumps"
    assert dumps.meta["qualname"] == "dumps" and dumps.meta["module"] == "json"
    assert dumps.meta["signature"] == "(obj, *, skipkeys=False, indent=None)"
    assert dumps.meta["kind"] == "function" and dumps.meta["line"] == 12
    # the version directive in Sphinx's words, the index entry gone, the field list and the
    # return annotation last
    assert dumps.text == (
        "dumps(obj, *, skipkeys=False, indent=None)\n\n"
        "Serialize *obj* to a JSON formatted :class:`str`.\n\n"
        "If *indent* is a non-negative integer, array elements are pretty-printed with\n"
        "that indent level.\n\n"
        "Changed in version 3.4: Use ``(',', ': ')`` as default if *indent* is not ``None``."
        "\n\n:param obj: what to serialize.\n\n:returns: `str`"
    )
    decoder = by_uri["python:json.JSONDecoder"]
    assert decoder.text == "JSONDecoder(*, strict=True)\n\nSimple JSON decoder."
    assert by_uri["python:json.JSONDecoder.decode"].text.startswith("JSONDecoder.decode(s)\n\n")
    assert by_uri["python:json.JSONDecoder.strict"].text == (
        "JSONDecoder.strict\n\nIf false, control characters will be allowed inside strings."
        "\n\nType: `bool`\n\nValue: `True`"
    )
    assert by_uri["python:builtins.str.join"].meta["qualname"] == "str.join"
    # two names, one text each; one name's second signature said below its text
    assert by_uri["python:json.Tuple"].text == "Tuple(elts, ctx)\n\nA list or tuple node."
    assert by_uri["python:json.loads"].text == (
        "loads(s)\n\nDeserialize *s* to a Python object.\n\nAlso: `loads(s, *, cls=None)`."
    )
    # the page keeps its prose and what is quoted; a description with no text stays in it
    assert page.uri == "/p/json.rst" and "Serialize" not in page.text
    for kept in ("JSON is a lightweight", ".. function:: undocumented(x)", "quoted(x)",
                 "shown(x)", "commented(x)", "The end of the page."):  # fmt: skip
        assert kept in page.text


def test_c_and_javascript_descriptions() -> None:
    _, *objects = _doc(C_RST, "/p/list.rst")
    by_uri = {d.uri: d for d in objects}
    assert list(by_uri) == [
        "c:PyList_New",
        "c:PyVarObject.ob_size",
        "c:Py_RETURN_NONE",
        "javascript:widgets.render",
    ]
    assert by_uri["c:PyList_New"].text == (
        "PyList_New(Py_ssize_t len)\n\nReturn a new list of length *len* on success, or "
        "``NULL`` on failure.\n\n:returns: `PyObject*`"
    )
    assert by_uri["c:PyList_New"].meta["language"] == "c"
    assert by_uri["c:PyVarObject.ob_size"].text.endswith("Type: `Py_ssize_t`")
    assert by_uri["javascript:widgets.render"].meta["signature"] == "(node, options)"


def test_questions_name_the_object() -> None:
    docs = {d.uri: d for d in _doc(JSON_RST)}
    asked = ask(docs["python:json.dumps"])
    assert asked["what_does"] == "Serialize obj to a JSON formatted `str`."
    assert asked["arguments"].startswith(
        "`json.dumps` takes 3 arguments: obj, skipkeys=False, indent=None."
    )
    assert asked["signature"] == "`json.dumps(obj, *, skipkeys=False, indent=None)`"
    c = {d.uri: d for d in _doc(C_RST)}
    assert ask(c["c:PyList_New"])["arguments"] == (
        "`PyList_New` takes 1 argument: Py_ssize_t len.\n\n"
        "- len: Return a new list of length len on success, or `NULL` on failure."
    )


def test_a_folder_a_django_style_text_page_and_the_text_setting(tmp_path: Path) -> None:
    tree = {
        "docs/json.rst": JSON_RST,
        # Django writes its reStructuredText in *.txt; the same name described twice
        "docs/ref/models.txt": "Models\n======\n\n.. currentmodule:: json\n\n"
        ".. function:: dumps(obj)\n\n   A second description.\n\n"
        ".. class:: Model(**kwargs)\n\n   A model.\n\n   .. method:: save()\n\n      Saves it.\n",
        "docs/notes.txt": "Plain notes.\n\n.. not a directive\n",
    }
    docs, rejects = collect_tree(tmp_path, tree, ["*.rst", "*.txt"])
    assert "python:json.Model.save" in docs and "python:json.List" in docs
    assert docs["python:json.dumps"].text.startswith("dumps(obj, *, skipkeys")  # the first kept
    assert rejects.rejects == {sphinxobj.AGAIN: 1}
    assert docs[str(tmp_path / "project/docs/notes.txt")].text == tree["docs/notes.txt"]
    as_text, _ = collect_tree(tmp_path / "b", tree, ["*.rst", "*.txt"], sphinx="text")
    assert len(as_text) == 3 and not any(uri.startswith("python:") for uri in as_text)


def test_a_source_that_only_redirects_is_not_read(tmp_path: Path) -> None:
    # a reST page a redirect is built from (pip's reference/pip_freeze.rst) and a MyST one
    moved = (
        ":orphan:\n\n.. meta::\n\n  :http-equiv=refresh: 3; url=../cli/pip_freeze/\n\n"
        "This page has moved\n===================\n\nYou should be redirected automatically "
        "in 3 seconds. If that didn't\nwork, here's a link: :doc:`../cli/pip_freeze`\n"
    )
    tree = {
        "docs/reference/pip_freeze.rst": moved,
        "docs/reference/old.md": "```{meta}\n:http-equiv=refresh: 0; url=new/\n```\n\n# Moved\n",
        "docs/cli/pip_freeze.rst": "pip freeze\n==========\n\nOutput installed packages.\n",
        # a page that says so and goes on is read
        "docs/topics/meta.rst": ".. meta::\n\n  :http-equiv=refresh: 60\n\n" + "Text. " * 80,
    }
    docs, rejects = collect_tree(tmp_path, tree, ["*.rst", "*.md"])
    names = sorted(uri.rsplit("/docs/", 1)[-1] for uri in docs)
    assert names == ["cli/pip_freeze.rst", "topics/meta.rst"]
    assert rejects.rejects == {sites.REDIRECT: 2}


def test_the_same_from_a_git_repository(tmp_path: Path) -> None:
    write_tree(tmp_path / "repo", {"doc/json.rst": JSON_RST, "doc/list.txt": C_RST})
    commit_all(tmp_path / "repo")
    result = collect_repo(tmp_path)
    uris = {d.uri for d in result.documents}
    assert {"python:json.JSONDecoder.decode", "c:PyList_New", "javascript:widgets.render"} <= uris
    page = next(d for d in result.documents if d.meta.get("path") == "doc/json.rst")
    assert "The end of the page." in page.text and "Serialize" not in page.text


def test_random_pages_end_their_scan() -> None:
    pieces = [
        ".. function:: f(a, b=')')\n", ".. class:: C\n", "   .. method:: m(x\n",
        "   :module: m\n", ".. c:function:: int g(void)\n", "   text *a* ``b``\n", "\n",
        "::\n", ".. code-block:: rst\n", "..\n", ".. versionadded::\n", ".. module::\n",
        "      deeper\n", "\\\n", ".. js:function:: h(\n", ".. default-domain:: c\n",
    ]  # fmt: skip
    made = fuzzed(lambda text: _doc(text)[1:], pieces, "")
    assert made > 100


def test_a_version_note_over_the_whole_text_follows_it() -> None:
    text = (
        ".. function:: abstractclassmethod(function)\n\n   .. versionadded:: 3.2\n"
        "   .. deprecated:: 3.3\n       Use classmethod with abstractmethod.\n\n"
        "   A subclass of classmethod.\n\n   .. note:: Rarely needed.\n"
    )
    (doc,) = _doc(text)
    assert doc.text == (
        "abstractclassmethod(function)\n\nA subclass of classmethod.\n\nNote: Rarely needed."
        "\n\nAdded in version 3.2.\n\nDeprecated since version 3.3: Use classmethod with "
        "abstractmethod."
    )


def test_a_built_pages_descriptions(tmp_path: Path) -> None:
    page, docs = collect_page(tmp_path, "html/library/json.html", BUILT, ["*.html"])
    assert list(docs) == [
        "python:json.dumps",
        "python:json.JSONDecoder",
        "python:json.JSONDecoder.decode",
        "python:json.JSONDecoder.strict",
        "c:PyList_New",
    ]
    assert docs["python:json.dumps"].text == (
        "json.dumps(obj, *, indent=None)\n\nSerialize obj to a JSON formatted `str`.\n\n"
        "Changed in version 3.4: Use a compact separator."
    )
    assert docs["python:json.JSONDecoder"].text == (
        "json.JSONDecoder(strict=True)\n\nSimple JSON decoder."
    )
    assert docs["python:json.JSONDecoder.decode"].text.startswith("json.JSONDecoder.decode(s)")
    assert docs["python:json.JSONDecoder.strict"].text == (
        "json.JSONDecoder.strict\n\nIf false, control characters are allowed.\n\nType: `bool`"
    )
    assert docs["c:PyList_New"].text == (
        "PyList_New(Py_ssize_t len)\n\nReturn a new list of length len.\n\n:returns: `PyObject *`"
    )
    assert ask(docs["python:json.dumps"])["arguments"].startswith(
        "`json.dumps` takes 2 arguments: obj, indent=None."
    )
    # the page: its prose, the option (a definition list's entry), no description, no
    # navigation (its main element only, as before)
    assert page.text.startswith("# json — JSON encoder\n\nJSON is a lightweight")
    assert "--sort-keys" in page.text and "The end of the page." in page.text
    assert "Serialize" not in page.text and "Index | Modules" not in page.text
    as_text, _ = collect_tree(tmp_path / "b", {"json.html": BUILT}, ["*.html"], sphinx="text")
    assert len(as_text) == 1 and "Serialize" in next(iter(as_text.values())).text


def test_a_page_without_descriptions_is_read_as_before() -> None:
    plain = "<html><body><p>Nothing described.</p></body></html>"
    doc = Document("local", "/a.html", "a", "Nothing described.", {})
    assert sphinxobj.split_built(doc, plain, str) == [doc]
    assert sphinxobj.split_html(plain, str) is None


MYST_MD = """# json

```{py:module} json
```

Some prose about JSON.

````{py:class} JSONDecoder(*, strict=True)
:noindex:

Simple JSON decoder.

```{py:method} decode(s)
Return the Python representation of *s*.
```
````

:::{py:function} dumps(obj)
Serialize *obj* to a string.
:::

```{eval-rst}
.. function:: loads(s)

   Deserialize *s*.
```

```rst
.. function:: quoted(x)

   Never read.
```

:::{note}
The end of the page.
:::
"""


def test_myst_fences_from_a_folder(tmp_path: Path) -> None:
    page, docs = collect_page(tmp_path, "docs/json.md", MYST_MD, ["*.md"])
    assert list(docs) == [
        "python:json.JSONDecoder",
        "python:json.JSONDecoder.decode",
        "python:json.dumps",
        "python:json.loads",
    ]
    assert docs["python:json.JSONDecoder"].text == (
        "JSONDecoder(*, strict=True)\n\nSimple JSON decoder."
    )
    assert docs["python:json.dumps"].text == "dumps(obj)\n\nSerialize *obj* to a string."
    assert docs["python:json.loads"].text == "loads(s)\n\nDeserialize *s*."
    assert "Some prose about JSON." in page.text and "quoted(x)" in page.text
    assert "```{note}\nThe end of the page.\n```" in page.text  # MyST's colon fence
    assert "Serialize" not in page.text and "Deserialize" not in page.text


def test_cpp_names_are_qualified_by_their_namespace_and_class() -> None:
    text = (
        ".. cpp:namespace:: mylib\n\n"
        ".. cpp:class:: template<typename T> Vector\n\n   A growable array.\n\n"
        "   .. cpp:function:: void push_back(const T& value)\n\n      Appends *value*.\n\n"
        ".. cpp:function:: void other::f()\n\n   Elsewhere.\n\n"
        ".. cpp:namespace-push:: detail\n\n"
        ".. cpp:enumerator:: Red\n\n   The red one.\n"
    )
    _, *objects = _doc(text, "/p/vector.rst")
    assert [(d.uri, d.text.split("\n")[0]) for d in objects] == [
        ("c:mylib::Vector", "mylib::Vector"),
        ("c:mylib::Vector::push_back", "mylib::Vector::push_back(const T& value)"),
        ("c:mylib::other::f", "mylib::other::f()"),
        ("c:mylib::detail::Red", "mylib::detail::Red"),
    ]


def test_a_description_with_no_text_under_a_heading_says_what_its_section_says() -> None:
    # Django's reference: a heading, a description with no indented text, then the text
    text = (
        "Field options\n=============\n\n.. currentmodule:: django.db.models\n\n"
        "``null``\n--------\n\n.. attribute:: Field.null\n\n"
        "If ``True``, empty values are stored as ``NULL``.\n\nAvoid it on string fields.\n\n"
        ".. _field-blank:\n\n"
        "``blank``\n---------\n\n.. attribute:: Field.blank\n\nIf ``True``, the field may be blank.\n\n"
        ".. attribute:: Field.choices\n\nNot under a heading: no text of its own, left in the page.\n"
    )
    page, *objects = _doc(text, "/p/fields.txt")
    assert [(d.uri, d.text) for d in objects] == [
        (
            "python:django.db.models.Field.null",
            "Field.null\n\nIf ``True``, empty values are stored as ``NULL``.\n\n"
            "Avoid it on string fields.",
        ),
        (
            "python:django.db.models.Field.blank",
            "Field.blank\n\nIf ``True``, the field may be blank.",
        ),
    ]
    assert "Avoid it" not in page.text and ".. attribute:: Field.choices" in page.text
    assert "Not under a heading" in page.text


def test_a_built_description_without_an_anchor_is_named_under_its_owner() -> None:
    from jupiter.collect.local import html_text

    html = (
        '<div role="main"><p>Page.</p><dl class="py class">'
        '<dt class="sig sig-object py" id="pkg.Queue"><em class="property">class </em>'
        "pkg.Queue(size)</dt><dd><p>A queue of jobs.</p>"
        '<dl class="py method"><dt class="sig sig-object py">push(job)</dt>'
        "<dd><p>Adds a job at the end.</p></dd></dl></dd></dl></div>"
    )
    doc = Document("local", "/site/queue.html", "queue", "Page.", {})
    got = sphinxobj.split_built(doc, html, lambda h: html_text(h)[0])
    assert [(d.uri, d.text) for d in got[1:]] == [
        ("python:pkg.Queue", "pkg.Queue(size)\n\nA queue of jobs."),
        ("python:pkg.Queue.push", "pkg.Queue.push(job)\n\nAdds a job at the end."),
    ]
    assert got[0].text == "Page."
